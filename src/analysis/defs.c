/*
 * Process definitions (see defs.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/defs.h"

/* libstdc++'s Itanium C++ ABI demangler (extern "C"); the result is malloc'd. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * A defined string as reports and exports show it: C++ symbol names (CUDA and
 * SYCL kernels, "_Z...") demangled, as Nsight Systems shows them; anything
 * else, or a name the demangler refuses, as recorded. The trace keeps the
 * mangled form (babeltrace2 shows that).
 */
static char *dup_name(const char *s)
{
	char *d;
	int status = -1;

	if (s[0] != '_' || s[1] != 'Z' || strnlen(s, 4096) == 4096)
		return strdup(s);
	d = __cxa_demangle(s, NULL, NULL, &status);
	if (status == 0 && d)
		return d;
	free(d);
	return strdup(s);
}

static void define_fn(struct ht_proc_info *p, const struct ht_ev_fn_def *d)
{
	struct ht_fn_info *f;

	if (d->fn >= p->nfns) {
		struct ht_fn_info *n = realloc(p->fns, ((size_t)d->fn + 1) * sizeof *n);

		if (!n)
			return;
		memset(n + p->nfns, 0, ((size_t)d->fn + 1 - p->nfns) * sizeof *n);
		p->fns = n;
		p->nfns = (uint32_t)d->fn + 1;
	}
	f = &p->fns[d->fn];
	if (f->name)
		return; /* the first definition stands */
	f->args = calloc(d->args_n ? d->args_n : 1, sizeof *f->args);
	f->name = strdup(d->name);
	if (!f->args || !f->name) {
		free(f->args);
		free(f->name);
		memset(f, 0, sizeof *f);
		return;
	}
	f->roles = d->roles;
	for (unsigned int i = 0; i < d->args_n; i++) {
		f->args[i].name = strdup(d->args[i].name);
		if (!f->args[i].name)
			break;
		f->args[i].type = d->args[i].type;
		f->args[i].role = d->args[i].role;
		f->nargs = (uint8_t)(i + 1);
	}
}

/* Keeps the process tables up to date as definitions pass by. */
static void define(struct ht_proc_info *p, const struct ht_event *ev)
{
	union ht_ev_any u;

	if (ev->sc != HT_SC_THREAD || ht_proc_mpi_define(&p->mpi, ev))
		return;
	if (ev->id == HT_EV_STRING_DEF &&
	    ht_ev_string_def_get(&u.string_def, ev->payload, ev->size) >= 0) {
		uint32_t id = u.string_def.id;

		/* ids are given out in order from 1: a far larger one is corrupt, not sparse */
		if (id == 0 || id > p->nstrings + 65536)
			return;
		if (id > p->nstrings) {
			char **n = realloc(p->strings, (size_t)id * sizeof *n);
			char **m = n ? realloc(p->mangled, (size_t)id * sizeof *m) : NULL;

			if (n)
				p->strings = n;
			if (!m)
				return;
			memset(n + p->nstrings, 0, (size_t)(id - p->nstrings) * sizeof *n);
			memset(m + p->nstrings, 0, (size_t)(id - p->nstrings) * sizeof *m);
			p->mangled = m;
			p->nstrings = id;
		}
		if (!p->strings[id - 1]) {
			p->strings[id - 1] = dup_name(u.string_def.value);
			if (p->strings[id - 1] && strcmp(p->strings[id - 1], u.string_def.value))
				p->mangled[id - 1] = strdup(u.string_def.value);
		}
	} else if (ev->id == HT_EV_FN_DEF &&
		   ht_ev_fn_def_get(&u.fn_def, ev->payload, ev->size) >= 0) {
		define_fn(p, &u.fn_def);
	} else if (ev->id == HT_EV_DEVICE_INFO &&
		   ht_ev_device_info_get(&u.device_info, ev->payload, ev->size) >= 0) {
		uint32_t dev = u.device_info.device;

		if (dev < 4096 && dev >= p->ndevices) {
			char(*n)[128] = realloc(p->devices, ((size_t)dev + 1) * sizeof *n);

			if (!n)
				return;
			memset(n + p->ndevices, 0, ((size_t)dev + 1 - p->ndevices) * sizeof *n);
			p->devices = n;
			p->ndevices = dev + 1;
		}
		if (dev < p->ndevices)
			snprintf(p->devices[dev], sizeof p->devices[dev], "%s", u.device_info.name);
	} else if (ev->id == HT_EV_STACK_NODE || ev->id == HT_EV_MODULE_LOAD ||
		   ev->id == HT_EV_MODULE_UNLOAD || ev->id == HT_EV_PROGRAM_SOURCE ||
		   ev->id == HT_EV_PROGRAM_KERNELS || ev->id == HT_EV_PC_SAMPLING) {
		ht_stacks_define(p->stacks, ev->id, ev->payload, ev->size);
	} else if (ev->id == HT_EV_OS_STATUS) {
		p->os_status = 1;
	} else if (ev->id == HT_EV_PROCESS_INFO &&
		   ht_ev_process_info_get(&u.process_info, ev->payload, ev->size) >= 0) {
		p->pid = u.process_info.pid;
		p->ppid = u.process_info.ppid;
		snprintf(p->comm, sizeof p->comm, "%s", u.process_info.comm);
		if (!p->cmdline)
			p->cmdline = strdup(u.process_info.cmdline);
	}
}

int ht_proc_info_load(struct ht_proc_info *p, const struct ht_trace_process *tp,
		      struct ht_read_error *err)
{
	struct ht_stream_reader r;
	struct ht_event ev;
	int rc;

	memset(p, 0, sizeof *p);
	p->tp = tp;
	/* "<pid>-<comm>" (under a part's directory), until process_info says */
	p->pid = atoi(strrchr(tp->name, '/') ? strrchr(tp->name, '/') + 1 : tp->name);
	p->stacks = calloc(1, sizeof *p->stacks);
	if (!p->stacks) {
		snprintf(err->file, sizeof err->file, "%s", tp->name);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < tp->nstreams; i++) {
		if (strcmp(tp->streams[i].name, "process"))
			continue;
		rc = ht_stream_reader_open(&r, tp, "process", err);
		if (rc)
			return rc;
		while ((rc = ht_stream_reader_next(&r, &ev, err)) > 0)
			define(p, &ev);
		ht_stream_reader_close(&r);
		return rc < 0 ? rc : 0;
	}
	return 0;
}

void ht_proc_info_release(struct ht_proc_info *p)
{
	for (uint32_t j = 0; j < p->nstrings; j++) {
		free(p->strings[j]);
		free(p->mangled[j]);
	}
	free(p->strings);
	free(p->mangled);
	for (uint32_t j = 0; j < p->nfns; j++) {
		for (unsigned int k = 0; k < p->fns[j].nargs; k++)
			free(p->fns[j].args[k].name);
		free(p->fns[j].name);
		free(p->fns[j].args);
	}
	free(p->fns);
	free(p->devices);
	free(p->cmdline);
	if (p->stacks)
		ht_stacks_release(p->stacks);
	free(p->stacks);
	ht_proc_mpi_release(&p->mpi);
	memset(p, 0, sizeof *p);
}

const char *ht_proc_device_name(const struct ht_proc_info *p, uint32_t device)
{
	return device < p->ndevices && p->devices[device][0] ? p->devices[device] : NULL;
}

int ht_fn_info_arg(const struct ht_fn_info *fn, uint8_t role)
{
	for (unsigned int i = 0; fn && i < fn->nargs; i++)
		if (fn->args[i].role == role)
			return (int)i;
	return -1;
}

const struct ht_fn_info *ht_proc_fn(const struct ht_proc_info *p, uint16_t id)
{
	return id < p->nfns && p->fns[id].name ? &p->fns[id] : NULL;
}
