/*
 * Per-kernel hot source lines (see kernel_lines.h).
 *
 * A PoCL sample costs one map lookup once its instruction is known (the
 * resolution of an instruction, a few µs through libdw, is cached per
 * process and frame); a run sampled at 4 kHz for 10 s on 2 threads is
 * 80 000 samples, resolved from some hundred distinct instructions.
 * Linking samples to launches is a sort and a binary search per sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "common/grow.h"
#include "pcsamp/kernel_lines.h"
#include "pcsamp/pocl_code.h"
#include "symbols/symbols.h"

#define POCL_PREFIX "_pocl_kernel_"
#define SLACK_NS    1000000ull /* a sample this close to a launch's interval belongs to it */
#define NO_KERNEL   UINT32_MAX

static int nomem(void)
{
	return -ENOMEM;
}

/* Interned string (owned by the pool). NULL when out of memory. */
static const char *intern(struct ht_kernel_lines *kl, const char *s)
{
	int created;
	uint64_t *v = ht_map_str(&kl->pool, s, 0, &created);
	char *c;

	if (!v)
		return NULL;
	if (!created)
		return (const char *)(uintptr_t)*v;
	c = strdup(s); /* NULL leaves the entry 0: looked up again, it fails again */
	*v = (uintptr_t)c;
	return c;
}

static uint32_t kernel(struct ht_kernel_lines *kl, const char *name, unsigned int proc)
{
	int created;
	const char *n = intern(kl, name);
	uint64_t *v = n ? ht_map_str(&kl->kernel_of, n, 0, &created) : NULL;

	if (!v)
		return NO_KERNEL;
	if (!created)
		return (uint32_t)*v - 1;
	if (ht_grow((void **)&kl->kernels, &kl->capkernels, sizeof *kl->kernels, kl->nkernels + 1))
		return NO_KERNEL; /* the entry stays 0: NO_KERNEL again */
	kl->kernels[kl->nkernels].name = n;
	kl->kernels[kl->nkernels].file = "";
	kl->kernels[kl->nkernels].proc = proc;
	*v = ++kl->nkernels;
	return (uint32_t)*v - 1;
}

static int add_stall(struct ht_kl_line *l, const char *stall, uint64_t n)
{
	for (size_t i = 0; i < l->nstalls; i++)
		if (l->stalls[i].name == stall) {
			l->stalls[i].samples += n;
			return 0;
		}
	if (ht_grow((void **)&l->stalls, &l->capstalls, sizeof *l->stalls, l->nstalls + 1))
		return nomem();
	l->stalls[l->nstalls].name = stall;
	l->stalls[l->nstalls++].samples = n;
	return 0;
}

/* Counts n samples of kernel k at (file, line) and instruction (module, addr). */
static int count(struct ht_kernel_lines *kl, uint32_t k, const char *file, int line,
		 const char *module, uint64_t addr, const char *stall, uint64_t n)
{
	struct ht_kl_kernel *kk = &kl->kernels[k];
	uint64_t key[3], *v;
	int created;

	kk->samples += n;
	kl->samples += n;
	key[0] = k;
	key[1] = (uintptr_t)module;
	key[2] = addr;
	v = ht_map_bytes(&kl->insn_of, key, sizeof key, 0, &created);
	if (!v)
		return nomem();
	if (created) {
		if (ht_grow((void **)&kl->insns, &kl->capinsns, sizeof *kl->insns, kl->ninsns + 1))
			return nomem();
		kl->insns[kl->ninsns] = (struct ht_kl_insn){k, module, addr, line, 0};
		*v = ++kl->ninsns;
	}
	kl->insns[*v - 1].samples += n;
	if (line <= 0) {
		kk->no_line += n;
		return 0;
	}
	key[1] = (uintptr_t)file;
	key[2] = (uint64_t)line;
	v = ht_map_bytes(&kl->line_of, key, sizeof key, 0, &created);
	if (!v)
		return nomem();
	if (created) {
		if (ht_grow((void **)&kl->lines, &kl->caplines, sizeof *kl->lines, kl->nlines + 1))
			return nomem();
		kl->lines[kl->nlines].kernel = k;
		kl->lines[kl->nlines].file = file;
		kl->lines[kl->nlines].line = line;
		*v = ++kl->nlines;
	}
	kl->lines[*v - 1].samples += n;
	return stall ? add_stall(&kl->lines[*v - 1], stall, n) : 0;
}

/*
 * The kernel a PoCL kernel object's function belongs to: _pocl_kernel_NAME,
 * or its work-group launchers NAME_workgroup and NAME_workgroup_fast. A
 * name the process's programs define wins over stripping a suffix.
 */
static int pocl_kernel_name(const char *fn, const struct ht_stacks *st, char *out, size_t cap)
{
	static const char *const suffix[] = {"_workgroup_fast", "_workgroup"};
	size_t n;

	if (strncmp(fn, POCL_PREFIX, sizeof POCL_PREFIX - 1))
		return 0;
	snprintf(out, cap, "%s", fn + sizeof POCL_PREFIX - 1);
	if (ht_stacks_program_of(st, out))
		return 1;
	n = strlen(out);
	for (int i = 0; i < 2; i++) {
		size_t s = strlen(suffix[i]);

		if (n > s && !strcmp(out + n - s, suffix[i])) {
			out[n - s] = '\0';
			return 1;
		}
	}
	return 1;
}

/*
 * An instruction of _pocl_kernel_NAME itself (when LLVM did not inline it
 * into its launcher): its line table names the function NAME, as the
 * source does, in PoCL's object NAME.so.
 */
static int kernel_itself(const char *path, const char *fn, char *out, size_t cap)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(fn);

	base = base ? base + 1 : path;
	if (strncmp(base, fn, n) || strcmp(base + n, ".so"))
		return 0;
	snprintf(out, cap, "%s", fn);
	return 1;
}

/* What a sampled instruction resolved to (cached per process and frame). */
struct resolved {
	uint32_t kernel; /* NO_KERNEL: not a kernel's instruction */
	int line;
	const char *file, *module;
	uint64_t addr;
};

/* The line of the innermost frame in the outermost function's own file (the program's). */
static int program_line(const struct ht_sym_frame *sf, int n)
{
	for (int i = 0; i < n && sf[n - 1].file; i++)
		if (sf[i].file && sf[i].line > 0 && !strcmp(sf[i].file, sf[n - 1].file))
			return sf[i].line;
	return 0;
}

/*
 * An instruction of a work-group launcher (no line): the line of the same
 * instruction in _pocl_kernel_NAME, matched by its bytes (pocl_code.h).
 */
static int launcher_line(struct ht_kernel_lines *kl, const struct ht_stack_module *m,
			 const char *name, uint64_t addr, const char **file)
{
	struct ht_sym_frame sf[HT_SYM_INLINE_MAX];
	char fn[300];
	uint64_t *v = ht_map_str(&kl->codes, m->path, 0, NULL), match[16];
	int nm, line = 0;

	if (!v)
		return 0;
	if (!*v) {
		struct ht_pocl_code *c = ht_pocl_code_open(m->path);

		*v = c ? (uintptr_t)c : 1; /* 1: not readable, not tried again */
	}
	snprintf(fn, sizeof fn, POCL_PREFIX "%s", name);
	if (*v == 1)
		return 0;
	nm = ht_pocl_code_match((struct ht_pocl_code *)(uintptr_t)*v, fn, addr, match, 16);
	for (int i = 0; i < nm; i++) { /* the line every match agrees on */
		int n = ht_symbols_resolve(kl->sym, m->path, m->build_id, match[i], 0, sf,
					   HT_SYM_INLINE_MAX);
		int l = n >= 1 && sf[n - 1].file ? program_line(sf, n) : 0;

		if (!l || (line && l != line))
			return 0;
		line = l;
		*file = sf[n - 1].file;
	}
	return line;
}

static int resolve(struct ht_kernel_lines *kl, unsigned int proc, const struct ht_proc_info *pi,
		   uint64_t frame, struct resolved *out)
{
	const struct ht_stack_module *m = ht_stacks_module(pi->stacks, frame);
	struct ht_sym_frame sf[HT_SYM_INLINE_MAX];
	const struct ht_stack_program *prog;
	char name[256], label[64];
	const char *dwarf_file = NULL;
	int n, line = 0;

	memset(out, 0, sizeof *out);
	out->kernel = NO_KERNEL;
	if (!m)
		return 0;
	n = ht_symbols_resolve(kl->sym, m->path, m->build_id, ht_frame_addr(frame), 0, sf,
			       HT_SYM_INLINE_MAX);
	if (n < 1 || (!pocl_kernel_name(sf[n - 1].function, pi->stacks, name, sizeof name) &&
		      !kernel_itself(m->path, sf[n - 1].function, name, sizeof name)))
		return 0;
	line = program_line(sf, n);
	if (!line)
		line = launcher_line(kl, m, name, ht_frame_addr(frame), &dwarf_file);
	else
		dwarf_file = sf[n - 1].file;
	out->kernel = kernel(kl, name, proc);
	if (out->kernel == NO_KERNEL)
		return nomem();
	prog = ht_stacks_program_of(pi->stacks, name);
	if (prog && prog->text) {
		snprintf(label, sizeof label, "<program 0x%llx>", (unsigned long long)prog->handle);
		out->file = intern(kl, label);
		if (!kl->kernels[out->kernel].source)
			kl->kernels[out->kernel].source = prog->text;
	} else {
		out->file = intern(kl, dwarf_file ? dwarf_file : "");
	}
	out->module = intern(kl, sf[n - 1].module ? sf[n - 1].module : m->path);
	if (!out->file || !out->module)
		return nomem();
	kl->kernels[out->kernel].file = out->file;
	out->line = line;
	out->addr = ht_frame_addr(frame);
	return 0;
}

/* A CPU sample of a process that asked for PC sampling: kept until the launches are known. */
static int cpu_sample(struct ht_kernel_lines *kl, const struct ht_timeline *tl,
		      const struct ht_tl_record *r)
{
	const struct ht_proc_info *pi = ht_timeline_proc(tl, r->proc);
	uint64_t frame;

	if (!pi || !pi->stacks || !pi->stacks->pc.asked || pi->stacks->pc.error ||
	    ht_stacks_frames(pi->stacks, r->stack, &frame, 1) != 1)
		return 0;
	if (ht_grow((void **)&kl->pending, &kl->cappending, sizeof *kl->pending, kl->npending + 1))
		return nomem();
	kl->pending[kl->npending++] = (struct ht_kl_sample){r->proc, r->ts, frame};
	return 0;
}

/* What a sample's instruction is (cached per process and frame). NULL: out of memory. */
static const struct resolved *sample_resolved(struct ht_kernel_lines *kl,
					      const struct ht_timeline *tl,
					      const struct ht_kl_sample *s)
{
	uint64_t key[2] = {s->proc, s->frame}, *v;
	struct resolved *res;
	int created;

	v = ht_map_bytes(&kl->resolved, key, sizeof key, 0, &created);
	if (!v)
		return NULL;
	if (created) {
		res = malloc(sizeof *res);
		if (!res)
			return NULL;
		*v = (uintptr_t)res;
		if (resolve(kl, s->proc, ht_timeline_proc(tl, s->proc), s->frame, res))
			return NULL;
	}
	return (const struct resolved *)(uintptr_t)*v;
}

static int launch(struct ht_kernel_lines *kl, const struct ht_tl_record *r)
{
	uint32_t k;

	if (r->cmd_kind != HT_CMD_KERNEL || !r->name)
		return 0;
	k = kernel(kl, r->name, r->proc);
	if (k == NO_KERNEL)
		return nomem();
	kl->kernels[k].launches++;
	if (r->timed && r->end > r->ts)
		kl->kernels[k].device_ns += r->end - r->ts;
	if (ht_grow((void **)&kl->launches, &kl->caplaunches, sizeof *kl->launches,
		    kl->nlaunches + 1))
		return nomem();
	kl->launches[kl->nlaunches++] =
	    (struct ht_kl_launch){r->proc, k, r->ts, r->timed ? r->end : r->ts, r->corr, 0};
	return 0;
}

/* CUDA: an instruction's line (pc_line), kept by (process, module, function, pc). */
static uint64_t *pc_line_slot(struct ht_kernel_lines *kl, const struct ht_tl_record *r, int create)
{
	uint64_t key[4] = {r->proc, r->pc.module, (uintptr_t)intern(kl, r->name), r->pc.pc};

	return create ? ht_map_bytes(&kl->pc_lines, key, sizeof key, 0, NULL)
		      : ht_map_find_bytes(&kl->pc_lines, key, sizeof key);
}

static int pc_record(struct ht_kernel_lines *kl, const struct ht_tl_record *r)
{
	struct resolved *res;
	uint64_t *v;
	uint32_t k;
	char mod[32];

	if (r->kind == HT_TL_PC_LINE) {
		v = pc_line_slot(kl, r, 1);
		if (!v || (!*v && !(*v = (uintptr_t)calloc(1, sizeof *res))))
			return nomem();
		res = (struct resolved *)(uintptr_t)*v;
		res->line = (int)r->pc.line;
		res->file = intern(kl, r->pc.file ? r->pc.file : "");
		return res->file ? 0 : nomem();
	}
	k = kernel(kl, r->name, r->proc);
	if (k == NO_KERNEL)
		return nomem();
	kl->kernels[k].stalls_known = 1;
	{
		uint64_t key[2] = {r->proc, r->corr};

		if (r->corr && !ht_map_bytes(&kl->pc_corrs, key, sizeof key, 1, NULL))
			return nomem();
	}
	v = pc_line_slot(kl, r, 0);
	res = v ? (struct resolved *)(uintptr_t)*v : NULL;
	if (res && res->file && res->file[0])
		kl->kernels[k].file = res->file;
	snprintf(mod, sizeof mod, "cubin %u", r->pc.module);
	return count(kl, k, res ? res->file : "", res ? res->line : 0, intern(kl, mod), r->pc.pc,
		     intern(kl, r->pc.stall ? r->pc.stall : "none"), r->count);
}

static int by_launch(const void *a, const void *b)
{
	const struct ht_kl_launch *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/*
 * The launch of process proc running at ts (of kernel k when one of those
 * does; k NO_KERNEL: any), or NULL. Launches are sorted by (proc, start);
 * those that overlap ts are among the SCAN before it.
 */
#define SCAN 64
static struct ht_kl_launch *running(struct ht_kernel_lines *kl, uint32_t proc, uint64_t ts,
				    uint32_t k)
{
	size_t lo = 0, hi = kl->nlaunches, seen = 0;
	struct ht_kl_launch *any = NULL;

	while (lo < hi) { /* the first launch after (proc, ts + slack) */
		size_t mid = lo + (hi - lo) / 2;
		const struct ht_kl_launch *l = &kl->launches[mid];

		if (l->proc != proc ? l->proc < proc : l->ts <= ts + SLACK_NS)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo; j-- > 0 && seen++ < SCAN;) {
		struct ht_kl_launch *l = &kl->launches[j];

		if (l->proc != proc)
			break;
		if (l->end + SLACK_NS < ts)
			continue;
		if (k == NO_KERNEL || l->kernel == k)
			return l;
		if (!any)
			any = l;
	}
	return any;
}

/*
 * PoCL: each kept sample taken while a launch of its process ran is
 * resolved; one in a kernel's code counts for that kernel, and for the
 * launch of it that ran then. Samples outside every launch are the host's.
 */
static int link_samples(struct ht_kernel_lines *kl, const struct ht_timeline *tl)
{
	if (!kl->nlaunches)
		return 0; /* no launch: no sample of a kernel */
	for (size_t i = 0; kl->pc_corrs.n && i < kl->nlaunches; i++) { /* CUDA: by corr */
		struct ht_kl_launch *l = &kl->launches[i];
		uint64_t key[2] = {l->proc, l->corr};

		if (l->corr && !l->sampled && ht_map_find_bytes(&kl->pc_corrs, key, sizeof key)) {
			l->sampled = 1;
			kl->kernels[l->kernel].launches_sampled++;
		}
	}
	qsort(kl->launches, kl->nlaunches, sizeof *kl->launches, by_launch);
	for (size_t i = 0; i < kl->npending; i++) {
		const struct ht_kl_sample *s = &kl->pending[i];
		const struct resolved *res;
		struct ht_kl_launch *l;
		int rc;

		if (!running(kl, s->proc, s->ts, NO_KERNEL))
			continue;
		res = sample_resolved(kl, tl, s);
		if (!res)
			return nomem();
		if (res->kernel == NO_KERNEL)
			continue;
		l = running(kl, s->proc, s->ts, res->kernel);
		if (l && l->kernel == res->kernel) {
			if (!l->sampled)
				kl->kernels[l->kernel].launches_sampled++;
			l->sampled = 1;
		} else {
			kl->kernels[res->kernel].outside++;
		}
		rc = count(kl, res->kernel, res->file, res->line, res->module, res->addr, NULL, 1);
		if (rc)
			return rc;
	}
	return 0;
}

static int kernel_cmp(const void *a, const void *b)
{
	const struct ht_kl_kernel *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static uint32_t *rank_of; /* qsort has no context: set by sort_all (single-threaded) */

static int line_cmp(const void *a, const void *b)
{
	const struct ht_kl_line *x = a, *y = b;

	if (x->kernel != y->kernel)
		return rank_of[x->kernel] < rank_of[y->kernel] ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return x->line - y->line;
}

static int insn_cmp(const void *a, const void *b)
{
	const struct ht_kl_insn *x = a, *y = b;

	if (x->kernel != y->kernel)
		return rank_of[x->kernel] < rank_of[y->kernel] ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int stall_cmp(const void *a, const void *b)
{
	const struct ht_kl_stall *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Orders kernels by samples, lines and instructions by kernel then samples. */
static int sort_all(struct ht_kernel_lines *kl)
{
	struct ht_kl_kernel *old = kl->kernels;
	uint32_t *idx;
	struct ht_kl_kernel *sorted;

	if (!kl->nkernels)
		return 0; /* no kernel: no line, no instruction either */
	idx = calloc(kl->nkernels, sizeof *idx);
	sorted = malloc(kl->nkernels * sizeof *sorted);
	if (!idx || !sorted) {
		free(idx);
		free(sorted);
		return nomem();
	}
	memcpy(sorted, old, kl->nkernels * sizeof *sorted);
	qsort(sorted, kl->nkernels, sizeof *sorted, kernel_cmp);
	for (size_t i = 0; i < kl->nkernels; i++) /* names are interned: unique pointers */
		for (size_t j = 0; j < kl->nkernels; j++)
			if (old[j].name == sorted[i].name) {
				idx[j] = (uint32_t)i;
				break;
			}
	rank_of = idx;
	if (kl->nlines)
		qsort(kl->lines, kl->nlines, sizeof *kl->lines, line_cmp);
	if (kl->ninsns)
		qsort(kl->insns, kl->ninsns, sizeof *kl->insns, insn_cmp);
	rank_of = NULL;
	for (size_t i = 0; i < kl->nlines; i++) {
		kl->lines[i].kernel = idx[kl->lines[i].kernel];
		if (kl->lines[i].nstalls)
			qsort(kl->lines[i].stalls, kl->lines[i].nstalls,
			      sizeof *kl->lines[i].stalls, stall_cmp);
	}
	for (size_t i = 0; i < kl->ninsns; i++)
		kl->insns[i].kernel = idx[kl->insns[i].kernel];
	memcpy(old, sorted, kl->nkernels * sizeof *sorted);
	free(sorted);
	free(idx);
	return 0;
}

static int note(struct ht_kernel_lines *kl, const char *s)
{
	const char *n = intern(kl, s);

	if (!n)
		return nomem();
	for (size_t i = 0; i < kl->nnotes; i++)
		if (kl->notes[i] == n)
			return 0;
	if (ht_grow((void **)&kl->notes, &kl->capnotes, sizeof *kl->notes, kl->nnotes + 1))
		return nomem();
	kl->notes[kl->nnotes++] = n;
	return 0;
}

/* What each process noted about PC sampling; the trace's sources are kept for the view. */
static int processes(struct ht_kernel_lines *kl, const struct ht_timeline *tl, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const struct ht_proc_info *pi = ht_timeline_proc(tl, i);
		const struct ht_stack_pcsamp *pc = pi && pi->stacks ? &pi->stacks->pc : NULL;
		char line[600];
		int rc;

		if (!pc || !pc->asked)
			continue;
		if (!kl->asked) {
			kl->asked = 1;
			kl->period = pc->period;
			kl->method = intern(kl, pc->method);
		}
		if (!pc->error)
			continue;
		snprintf(line, sizeof line, "process %d: no PC samples: %s", pi->pid,
			 pc->reason[0] ? pc->reason : "not supported");
		rc = note(kl, line);
		if (rc)
			return rc;
	}
	return 0;
}

/* Kernels that ran but gave no sample: one line each. */
static int unsampled(struct ht_kernel_lines *kl)
{
	for (size_t i = 0; i < kl->nkernels; i++) {
		const struct ht_kl_kernel *k = &kl->kernels[i];
		char line[600];
		int rc;

		if (k->samples || !k->launches)
			continue;
		snprintf(line, sizeof line,
			 "kernel '%s': no PC samples: its %llu launch(es) ran %.3f ms in all, "
			 "too short for a sampling period of %.3f ms (try a shorter "
			 "--pc-sampling=PERIOD)",
			 k->name, (unsigned long long)k->launches, k->device_ns / 1e6,
			 kl->period / 1e6);
		rc = note(kl, line);
		if (rc)
			return rc;
	}
	return 0;
}

int ht_kernel_lines_compute(struct ht_trace *t, struct ht_kernel_lines *kl,
			    struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_PROCESS | HT_PK_DEVICE | HT_PK_SAMPLES,
			       .no_args = 1,
			       .skip = ~(1u << HT_TL_DEVICE | 1u << HT_TL_SAMPLE |
					 1u << HT_TL_PC_LINE | 1u << HT_TL_PC_SAMPLE)};
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	int rc;

	memset(kl, 0, sizeof *kl);
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		return rc;
	}
	rc = processes(kl, &tl, t->nprocs);
	if (!rc && kl->asked) {
		kl->sym = ht_symbols_create();
		if (!kl->sym)
			rc = nomem();
		while (!rc && (rc = ht_timeline_next(&tl, &r)) > 0) {
			if (r->kind == HT_TL_SAMPLE)
				rc = cpu_sample(kl, &tl, r);
			else if (r->kind == HT_TL_DEVICE)
				rc = launch(kl, r);
			else if (r->kind == HT_TL_PC_LINE || r->kind == HT_TL_PC_SAMPLE)
				rc = pc_record(kl, r);
			else
				rc = 0;
			if (rc == 0)
				continue;
			if (rc != -ENOMEM) /* the timeline's own error */
				*err = tl.err;
			break;
		}
		if (rc < 0 && rc != -ENOMEM)
			*err = tl.err;
	}
	if (!rc)
		rc = link_samples(kl, &tl);
	if (!rc)
		rc = unsampled(kl);
	if (!rc)
		rc = sort_all(kl);
	if (rc == -ENOMEM) {
		snprintf(err->file, sizeof err->file, "%s", t->path);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "out of memory");
	}
	for (size_t i = 0; i < kl->nkernels; i++) {
		const struct ht_proc_info *pi = ht_timeline_proc(&tl, kl->kernels[i].proc);

		kl->kernels[i].pid = pi ? pi->pid : 0;
	}
	/* the sources stay readable after the timeline closes */
	for (size_t i = 0; i < kl->nkernels; i++)
		if (kl->kernels[i].source &&
		    !(kl->kernels[i].source = intern(kl, kl->kernels[i].source)))
			rc = rc ? rc : nomem();
	ht_timeline_close(&tl);
	return rc;
}

const char *ht_kl_source_line(const char *source, int line, int *len)
{
	const char *p = source;

	if (!p || line < 1)
		return NULL;
	for (int i = 1; i < line; i++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	*len = (int)strcspn(p, "\n");
	return p;
}

void ht_kernel_lines_release(struct ht_kernel_lines *kl)
{
	size_t pos = 0;
	uint64_t *v;

	while ((v = ht_map_next(&kl->resolved, &pos)))
		free((void *)(uintptr_t)*v);
	pos = 0;
	while ((v = ht_map_next(&kl->pc_lines, &pos)))
		free((void *)(uintptr_t)*v);
	pos = 0;
	while ((v = ht_map_next(&kl->pool, &pos)))
		if (*v)
			free((void *)(uintptr_t)*v);
	for (size_t i = 0; i < kl->nlines; i++)
		free(kl->lines[i].stalls);
	free(kl->lines);
	free(kl->insns);
	free(kl->kernels);
	free(kl->notes);
	free(kl->pending);
	free(kl->launches);
	ht_map_release(&kl->pool);
	ht_map_release(&kl->kernel_of);
	ht_map_release(&kl->line_of);
	ht_map_release(&kl->insn_of);
	ht_map_release(&kl->resolved);
	ht_map_release(&kl->pc_lines);
	pos = 0;
	while ((v = ht_map_next(&kl->codes, &pos)))
		if (*v > 1)
			ht_pocl_code_close((struct ht_pocl_code *)(uintptr_t)*v);
	ht_map_release(&kl->codes);
	ht_map_release(&kl->pc_corrs);
	ht_symbols_destroy(kl->sym);
	memset(kl, 0, sizeof *kl);
}
