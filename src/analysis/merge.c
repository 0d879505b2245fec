/*
 * K-way merge of all streams of a trace (see merge.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "common/heap.h"

/* Heap order: timestamp, then process streams first (definitions before uses). */
static int before(const struct ht_merge *m, unsigned int a, unsigned int b)
{
	const struct ht_merge_stream *x = &m->streams[a], *y = &m->streams[b];

	if (x->ev.ts != y->ev.ts)
		return x->ev.ts < y->ev.ts;
	if (x->is_shared != y->is_shared)
		return x->is_shared;
	return a < b;
}

/* Heap elements are stream indexes. */
static int heap_less(const void *a, const void *b, void *ctx)
{
	return before(ctx, *(const unsigned int *)a, *(const unsigned int *)b);
}

static void sift_down(struct ht_merge *m, unsigned int i)
{
	ht_heap_sift_down(m->heap, sizeof *m->heap, m->nheap, i, heap_less, m);
}

static void sift_up(struct ht_merge *m, unsigned int i)
{
	ht_heap_sift_up(m->heap, sizeof *m->heap, i, heap_less, m);
}

/* Advances one stream. Return: 1 (has an event), 0 (done), < 0 (error). */
static int advance(struct ht_merge *m, struct ht_merge_stream *s)
{
	int rc;

	for (;;) {
		rc = s->r.have_packet ? ht_event_iter_next(&s->r.it, &s->ev, &m->err) : 0;
		if (rc > 0)
			return 1;
		if (rc < 0) {
			snprintf(m->err.file, sizeof m->err.file, "%s", s->r.path);
			return rc;
		}
		rc = ht_stream_reader_next_packet(&s->r, &m->err);
		if (rc <= 0)
			return rc;
		if (s->r.pk.ts_state != HT_TS_NS) {
			snprintf(m->err.file, sizeof m->err.file, "%s", s->r.path);
			m->err.offset = s->r.pk.offset;
			snprintf(
			    m->err.msg, sizeof m->err.msg,
			    "packet holds raw counter timestamps; run 'hetrace check --repair'");
			return -EBADMSG;
		}
		s->lost = s->r.pk.discarded;
		if (s->r.packets == 1) {
			s->vtid = s->r.pk.vtid;
			s->device = s->r.pk.device;
			s->queue = s->r.pk.queue;
		}
	}
}

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

	if (ev->sc != HT_SC_THREAD)
		return;
	if (ev->id == HT_EV_STRING_DEF &&
	    ht_ev_string_def_get(&u.string_def, ev->payload, ev->size) >= 0) {
		uint32_t id = u.string_def.id;

		if (id == 0 || id > (1u << 26))
			return;
		if (id > p->nstrings) {
			char **n = realloc(p->strings, (size_t)id * sizeof *n);

			if (!n)
				return;
			memset(n + p->nstrings, 0, (size_t)(id - p->nstrings) * sizeof *n);
			p->strings = n;
			p->nstrings = id;
		}
		if (!p->strings[id - 1])
			p->strings[id - 1] = dup_name(u.string_def.value);
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
	} else if (ev->id == HT_EV_OS_STATUS) {
		p->os_status = 1;
	} else if (ev->id == HT_EV_PROCESS_INFO &&
		   ht_ev_process_info_get(&u.process_info, ev->payload, ev->size) >= 0) {
		p->pid = u.process_info.pid;
		p->ppid = u.process_info.ppid;
		snprintf(p->comm, sizeof p->comm, "%s", u.process_info.comm);
	}
}

int ht_merge_open(struct ht_merge *m, struct ht_trace *t)
{
	unsigned int total = 0, k = 0;
	int rc;

	memset(m, 0, sizeof *m);
	m->trace = t;
	for (unsigned int i = 0; i < t->nprocs; i++)
		total += t->procs[i].nstreams;
	m->procs = calloc(t->nprocs ? t->nprocs : 1, sizeof *m->procs);
	m->streams = calloc(total ? total : 1, sizeof *m->streams);
	m->heap = calloc(total ? total : 1, sizeof *m->heap);
	if (!m->procs || !m->streams || !m->heap)
		return -ENOMEM;
	m->nprocs = t->nprocs;
	for (unsigned int i = 0; i < t->nprocs; i++) {
		m->procs[i].tp = &t->procs[i];
		m->procs[i].pid = atoi(t->procs[i].name); /* until process_info says */
		for (unsigned int j = 0; j < t->procs[i].nstreams; j++) {
			struct ht_merge_stream *s = &m->streams[k];
			const char *name = t->procs[i].streams[j].name;

			rc = ht_stream_reader_open(&s->r, &t->procs[i], name, &m->err);
			if (rc)
				return rc;
			s->proc = i;
			s->is_shared = !strcmp(name, "process") || !strncmp(name, "os-", 3);
			m->nstreams = ++k;
			rc = advance(m, s);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				s->done = 1;
				continue;
			}
			m->heap[m->nheap] = k - 1;
			sift_up(m, m->nheap++);
		}
	}
	return 0;
}

int ht_merge_next(struct ht_merge *m, struct ht_merged *out)
{
	unsigned int i;
	struct ht_merge_stream *s;
	int rc;

	if (m->failed)
		return -EBADMSG;
	if (!m->nheap)
		return 0;
	i = m->heap[0];
	s = &m->streams[i];
	m->cur = s->ev;
	out->ev = &m->cur;
	out->stream = s;
	out->proc = &m->procs[s->proc];
	out->stream_index = i;
	if (s->is_shared)
		define(out->proc, &m->cur);
	rc = ht_event_iter_next(&s->r.it, &s->ev, &m->err);
	if (rc > 0) {
		if (m->nheap > 1)
			sift_down(m, 0);
	} else if (rc < 0) {
		snprintf(m->err.file, sizeof m->err.file, "%s", s->r.path);
		m->failed = 1;
		return rc;
	} else {
		/* Loading the next packet reuses the buffer the payload lives in. */
		if (m->cur.size > m->keep_cap) {
			uint8_t *k = realloc(m->keep, m->cur.size);

			if (!k) {
				m->failed = 1;
				return -ENOMEM;
			}
			m->keep = k;
			m->keep_cap = m->cur.size;
		}
		if (m->cur.size)
			memcpy(m->keep, m->cur.payload, m->cur.size);
		m->cur.payload = m->keep;
		m->cur.header = NULL;
		rc = advance(m, s);
		if (rc < 0) {
			m->failed = 1;
			return rc;
		}
		if (rc == 0) {
			s->done = 1;
			m->heap[0] = m->heap[--m->nheap];
		}
		if (m->nheap)
			sift_down(m, 0);
	}
	m->events++;
	return 1;
}

int ht_proc_info_load(struct ht_proc_info *p, const struct ht_trace_process *tp,
		      struct ht_read_error *err)
{
	struct ht_stream_reader r;
	struct ht_event ev;
	int rc;

	memset(p, 0, sizeof *p);
	p->tp = tp;
	p->pid = atoi(tp->name); /* "<pid>-<comm>", until process_info says */
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
	for (uint32_t j = 0; j < p->nstrings; j++)
		free(p->strings[j]);
	free(p->strings);
	for (uint32_t j = 0; j < p->nfns; j++) {
		for (unsigned int k = 0; k < p->fns[j].nargs; k++)
			free(p->fns[j].args[k].name);
		free(p->fns[j].name);
		free(p->fns[j].args);
	}
	free(p->fns);
	free(p->devices);
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

void ht_merge_close(struct ht_merge *m)
{
	for (unsigned int i = 0; i < m->nstreams; i++)
		ht_stream_reader_close(&m->streams[i].r);
	for (unsigned int i = 0; i < m->nprocs; i++)
		ht_proc_info_release(&m->procs[i]);
	free(m->procs);
	free(m->streams);
	free(m->heap);
	free(m->keep);
	memset(m, 0, sizeof *m);
}

const char *ht_proc_string(const struct ht_proc_info *p, uint32_t id)
{
	if (id && id <= p->nstrings && p->strings[id - 1])
		return p->strings[id - 1];
	return "?";
}

const struct ht_fn_info *ht_proc_fn(const struct ht_proc_info *p, uint16_t id)
{
	return id < p->nfns && p->fns[id].name ? &p->fns[id] : NULL;
}
