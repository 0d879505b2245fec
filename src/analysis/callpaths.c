/*
 * GPU time by calling context and CPU samples by path and function (see
 * callpaths.h). A calling context is resolved once per (process, node): its
 * frames through the symbol resolver, hetrace's own and the start-up frames
 * left out, then merged by function name into the tree of paths; every API
 * call or sample with that context then costs a hash lookup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callpaths.h"
#include "analysis/defs.h"
#include "analysis/timeline.h"
#include "common/grow.h"
#include "symbols/symbols.h"

#define PATH_MAX_NAMES (HT_STACK_DEPTH * 4)

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t z = a * 0x9e3779b97f4a7c15ull ^ b;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static const char *intern(struct ht_callpaths *cp, const char *s)
{
	int created;
	uint64_t *v = ht_map_str(&cp->pool, s ? s : "?", 0, &created);

	if (!v)
		return NULL;
	if (created) {
		char *c = strdup(s ? s : "?");

		if (!c)
			return NULL;
		*v = (uint64_t)(uintptr_t)c;
	}
	return (const char *)(uintptr_t)*v;
}

int ht_callpaths_init(struct ht_callpaths *cp)
{
	memset(cp, 0, sizeof *cp);
	cp->sym = ht_symbols_create();
	if (!cp->sym || ht_grow((void **)&cp->nodes, &cp->cap, sizeof *cp->nodes, 1)) {
		ht_symbols_destroy(cp->sym);
		free(cp->nodes);
		memset(cp, 0, sizeof *cp);
		return -ENOMEM;
	}
	cp->n = 1; /* the root */
	return 0;
}

/* The node `name` under parent (name interned), created when new. Return: it, 0 on ENOMEM. */
static uint32_t child(struct ht_callpaths *cp, uint32_t parent, const char *name, int api)
{
	for (uint64_t key = mix(parent * 2u + (unsigned)api, (uintptr_t)name);; key++) {
		int created;
		uint64_t *v = ht_map_u64(&cp->index, key, 0, &created);
		struct ht_cp_node *nd;

		if (!v)
			return 0;
		if (!created) {
			nd = &cp->nodes[*v];
			if (nd->parent == parent && nd->name == name && nd->api == api)
				return (uint32_t)*v;
			continue;
		}
		if (cp->n >= UINT32_MAX ||
		    ht_grow((void **)&cp->nodes, &cp->cap, sizeof *cp->nodes, cp->n + 1)) {
			ht_map_del_u64(&cp->index, key);
			return 0;
		}
		nd = &cp->nodes[cp->n];
		memset(nd, 0, sizeof *nd);
		nd->name = name;
		nd->parent = parent;
		nd->api = (uint8_t)api;
		*v = cp->n;
		return (uint32_t)cp->n++;
	}
}

/* The function entry of name (its definition's place noted the first time). */
static struct ht_cp_function *function(struct ht_callpaths *cp, const char *name, const char *file,
				       int line)
{
	int created;
	uint64_t *v = ht_map_str(&cp->fn_of, name, 0, &created);
	struct ht_cp_function *f;

	if (!v)
		return NULL;
	if (!created && *v) {
		f = &cp->fns[*v - 1];
		if (!f->file[0] && file && file[0]) {
			f->file = intern(cp, file);
			f->line = line;
		}
		return f;
	}
	if (ht_grow((void **)&cp->fns, &cp->capfns, sizeof *cp->fns, cp->nfns + 1))
		return NULL; /* the key stays, worth 0: "no function" */
	f = &cp->fns[cp->nfns];
	memset(f, 0, sizeof *f);
	f->name = name;
	f->file = intern(cp, file ? file : "");
	f->line = file ? line : 0;
	*v = ++cp->nfns;
	return f;
}

/* A frame of hetrace's own libraries: never part of a user's path. */
static int tool_module(const char *path)
{
	const char *b = path ? strrchr(path, '/') : NULL;

	b = b ? b + 1 : path;
	return b && !strncmp(b, "libhetrace", 10);
}

static int startup_module(const char *name)
{
	return name && (!strncmp(name, "libc.so", 7) || !strncmp(name, "ld-linux", 8));
}

uint32_t ht_callpaths_of(struct ht_callpaths *cp, const struct ht_timeline *tl,
			 const struct ht_tl_record *r)
{
	return ht_callpaths_path(cp, r->proc, ht_timeline_proc(tl, r->proc), r->stack,
				 r->kind == HT_TL_SAMPLE);
}

uint32_t ht_callpaths_path(struct ht_callpaths *cp, unsigned int proc,
			   const struct ht_proc_info *pi, uint32_t stack, int sample)
{
	uint64_t key = (uint64_t)proc << 33 | (uint64_t)stack << 1 | (sample != 0),
		 raw[HT_STACK_DEPTH];
	const char *names[PATH_MAX_NAMES], *mods[PATH_MAX_NAMES];
	struct ht_sym_frame sf[HT_SYM_INLINE_MAX];
	int nraw, n = 0, first = 0, created;
	uint64_t *v;
	uint32_t node = 0;

	if (!stack || !pi || !pi->stacks)
		return 0;
	v = ht_map_u64(&cp->resolved, key, 0, &created);
	if (!v)
		return 0;
	if (!created)
		return (uint32_t)*v;
	nraw = ht_stacks_frames(pi->stacks, stack, raw, HT_STACK_DEPTH);
	for (int i = nraw - 1; i >= 0; i--) { /* outermost first */
		const struct ht_stack_module *m = ht_stacks_module(pi->stacks, raw[i]);
		int k;

		if (m && tool_module(m->path))
			continue;
		k = ht_symbols_resolve(cp->sym, m ? m->path : NULL, m ? m->build_id : NULL,
				       m ? ht_frame_addr(raw[i]) : raw[i], !sample || i > 0, sf,
				       HT_SYM_INLINE_MAX);
		for (int j = k - 1; j >= 0 && n < PATH_MAX_NAMES; j--) {
			names[n] = intern(cp, sf[j].function);
			mods[n] = sf[j].module;
			if (!names[n] || !function(cp, names[n], sf[j].decl_file, sf[j].decl_line))
				return 0;
			n++;
		}
	}
	/* start-up frames: before main, or libc's thread start */
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], "main")) {
			first = i;
			break;
		}
	if (!first)
		while (first + 1 < n && startup_module(mods[first]))
			first++;
	for (int i = first; i < n; i++) {
		node = child(cp, node, names[i], 0);
		if (!node)
			return 0;
	}
	*v = node;
	return node;
}

int ht_callpaths_names(const struct ht_callpaths *cp, uint32_t node, const char **out, int max)
{
	int n = 0;

	for (uint32_t x = node; x && x < cp->n; x = cp->nodes[x].parent)
		n++;
	if (n > max)
		n = max;
	for (int i = n - 1; i >= 0 && node && node < cp->n; i--, node = cp->nodes[node].parent)
		out[i] = cp->nodes[node].name;
	return n;
}

/* ---- the pass ---- */

static struct ht_cp_context *context(struct ht_callpaths *cp, uint32_t node)
{
	int created;
	uint64_t *v = ht_map_u64(&cp->ctx_of, node, 0, &created);

	if (!v)
		return NULL;
	if (created) {
		if (ht_grow((void **)&cp->ctx, &cp->capctx, sizeof *cp->ctx, cp->nctx + 1)) {
			ht_map_del_u64(&cp->ctx_of, node);
			return NULL;
		}
		memset(&cp->ctx[cp->nctx], 0, sizeof cp->ctx[0]);
		cp->ctx[cp->nctx].node = node;
		*v = ++cp->nctx;
	}
	return &cp->ctx[*v - 1];
}

static int api_call(struct ht_callpaths *cp, const struct ht_timeline *tl,
		    const struct ht_tl_record *r)
{
	uint32_t node = ht_callpaths_path(cp, r->proc, ht_timeline_proc(tl, r->proc), r->stack, 0);
	struct ht_cp_context *c;
	const char *api = intern(cp, r->name);

	cp->have_stacks = 1;
	if (!node || !api || !(node = child(cp, node, api, 1)) || !(c = context(cp, node)))
		return -ENOMEM;
	cp->stacks++;
	c->calls++;
	c->api_ns += r->ts - r->begin;
	if (r->corr) {
		uint64_t *v = ht_map_u64(&cp->corr, (uint64_t)r->proc << 48 ^ r->corr, 0, NULL);

		if (!v)
			return -ENOMEM;
		*v = (uint64_t)(c - cp->ctx) + 1;
	}
	return 0;
}

static int device(struct ht_callpaths *cp, const struct ht_tl_record *r)
{
	uint64_t *v =
	    r->corr ? ht_map_find_u64(&cp->corr, (uint64_t)r->proc << 48 ^ r->corr) : NULL;
	struct ht_cp_context *c;
	uint64_t ns = r->timed && r->end > r->ts ? r->end - r->ts : 0;

	if (!v) {
		cp->device_unmatched++;
		return 0;
	}
	c = &cp->ctx[*v - 1];
	c->device_ns += ns;
	c->commands++;
	if (r->cmd_kind == HT_CMD_KERNEL) {
		const char *name = intern(cp, r->name);
		size_t k;

		if (!name)
			return -ENOMEM;
		for (k = 0; k < c->nkernels && c->kernels[k].name != name; k++)
			;
		if (k == c->nkernels) {
			if (ht_grow((void **)&c->kernels, &c->capkernels, sizeof *c->kernels,
				    c->nkernels + 1))
				return -ENOMEM;
			c->kernels[c->nkernels++].name = name;
		}
		c->kernels[k].device_ns += ns;
		c->kernels[k].count++;
	}
	return 0;
}

static int sample(struct ht_callpaths *cp, const struct ht_timeline *tl,
		  const struct ht_tl_record *r)
{
	uint32_t node = ht_callpaths_path(cp, r->proc, ht_timeline_proc(tl, r->proc), r->stack, 1);
	uint32_t stamp = (uint32_t)++cp->samples;

	cp->have_samples = 1;

	if (!node)
		return 0; /* a sample with no frame (no user stack): counted in the total only */
	cp->nodes[node].self_samples++;
	for (uint32_t x = node; x; x = cp->nodes[x].parent) {
		struct ht_cp_function *f;
		uint64_t *v = ht_map_find_str(&cp->fn_of, cp->nodes[x].name);

		cp->nodes[x].samples++;
		if (!v || !*v)
			continue;
		f = &cp->fns[*v - 1];
		if (x == node)
			f->self++;
		if (f->seen != stamp) { /* a recursive function counts once per sample */
			f->seen = stamp;
			f->total++;
		}
	}
	return 0;
}

/* Return: 1 when some process recorded calling contexts or has a samples stream. */
static int worth_a_pass(struct ht_trace *t, struct ht_callpaths *cp, struct ht_read_error *err,
			int *rc)
{
	struct ht_tl_opts o = {.kinds = HT_PK_PROCESS, .no_args = 1, .workers = -1};
	struct ht_timeline tl;

	for (unsigned int i = 0; i < t->nprocs; i++)
		for (unsigned int k = 0; k < t->procs[i].nstreams; k++)
			if (!strcmp(t->procs[i].streams[k].name, "samples"))
				cp->have_samples = 1;
	*rc = ht_timeline_open(&tl, t, &o);
	if (*rc) {
		*err = tl.err;
		return 0;
	}
	for (unsigned int i = 0; i < t->nprocs; i++) {
		const struct ht_proc_info *pi = ht_timeline_proc(&tl, i);

		if (pi->stacks && pi->stacks->n)
			cp->have_stacks = 1;
	}
	ht_timeline_close(&tl);
	return cp->have_stacks || cp->have_samples;
}

static int by_size(const void *a, const void *b, void *arg)
{
	const struct ht_callpaths *cp = arg;
	const struct ht_cp_node *x = &cp->nodes[*(const uint32_t *)a],
				*y = &cp->nodes[*(const uint32_t *)b];

	if (x->device_ns != y->device_ns)
		return x->device_ns > y->device_ns ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

int ht_callpaths_take(struct ht_callpaths *cp, const struct ht_timeline *tl,
		      const struct ht_tl_record *r)
{
	if (r->kind == HT_TL_SLICE_END && r->api && r->stack)
		return api_call(cp, tl, r);
	if (r->kind == HT_TL_DEVICE)
		return device(cp, r);
	if (r->kind == HT_TL_SAMPLE)
		return sample(cp, tl, r);
	if (r->kind == HT_TL_LOST && r->cmd_kind == HT_LOST_CPU_SAMPLE) {
		cp->samples_lost += r->count;
		cp->have_samples = 1;
	}
	return 0;
}

int ht_callpaths_finish(struct ht_callpaths *cp)
{
	for (size_t i = 0; i < cp->nctx; i++) {
		struct ht_cp_context *c = &cp->ctx[i];

		for (uint32_t x = c->node; x; x = cp->nodes[x].parent) {
			cp->nodes[x].calls += c->calls;
			cp->nodes[x].api_ns += c->api_ns;
			cp->nodes[x].device_ns += c->device_ns;
			cp->nodes[x].commands += c->commands;
		}
		cp->nodes[0].calls += c->calls;
		cp->nodes[0].device_ns += c->device_ns;
		cp->nodes[0].api_ns += c->api_ns;
		cp->nodes[0].commands += c->commands;
	}
	cp->nodes[0].samples = cp->samples;
	for (size_t i = 1; i < cp->n; i++)
		cp->nodes[cp->nodes[i].parent].capkids++;
	for (size_t i = 0; i < cp->n; i++)
		if (cp->nodes[i].capkids &&
		    !(cp->nodes[i].kids = malloc(cp->nodes[i].capkids * sizeof(uint32_t))))
			return -ENOMEM;
	for (size_t i = 1; i < cp->n; i++) {
		struct ht_cp_node *p = &cp->nodes[cp->nodes[i].parent];

		p->kids[p->nkids++] = (uint32_t)i;
	}
	for (size_t i = 0; i < cp->n; i++)
		if (cp->nodes[i].nkids > 1)
			qsort_r(cp->nodes[i].kids, cp->nodes[i].nkids, sizeof(uint32_t), by_size,
				cp);
	ht_callpaths_sort(cp);
	return 0;
}

static int ctx_cmp(const void *a, const void *b)
{
	const struct ht_cp_context *x = a, *y = b;

	if (x->device_ns != y->device_ns)
		return x->device_ns > y->device_ns ? -1 : 1;
	if (x->api_ns != y->api_ns)
		return x->api_ns > y->api_ns ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct ht_cp_function *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void ht_callpaths_sort(struct ht_callpaths *cp)
{
	if (cp->nctx)
		qsort(cp->ctx, cp->nctx, sizeof *cp->ctx, ctx_cmp);
	if (cp->nfns)
		qsort(cp->fns, cp->nfns, sizeof *cp->fns, fn_cmp);
	/* the indexes follow */
	ht_map_release(&cp->ctx_of);
	ht_map_release(&cp->fn_of);
	for (size_t i = 0; i < cp->nctx; i++)
		if (ht_map_u64(&cp->ctx_of, cp->ctx[i].node, i + 1, NULL) == NULL)
			break;
	for (size_t i = 0; i < cp->nfns; i++)
		if (ht_map_str(&cp->fn_of, cp->fns[i].name, i + 1, NULL) == NULL)
			break;
}

int ht_callpaths_compute(struct ht_trace *t, struct ht_callpaths *cp, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_THREAD | HT_PK_PROCESS | HT_PK_DEVICE | HT_PK_SAMPLES,
			       .no_args = 1,
			       .skip = 1u << HT_TL_SLICE_BEGIN | 1u << HT_TL_INSTANT |
				       1u << HT_TL_COUNTER | 1u << HT_TL_CPU_STATE |
				       1u << HT_TL_TASK};
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	int rc;

	if (ht_callpaths_init(cp)) {
		snprintf(err->file, sizeof err->file, "%s", t->path);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -ENOMEM;
	}
	if (!worth_a_pass(t, cp, err, &rc))
		return rc;
	if (!cp->have_stacks) /* samples alone: the threads' streams hold nothing for us */
		o.kinds = HT_PK_PROCESS | HT_PK_SAMPLES;
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		return rc;
	}
	while ((rc = ht_timeline_next(&tl, &r)) > 0) {
		rc = ht_callpaths_take(cp, &tl, r);
		if (rc < 0)
			break;
	}
	if (rc == -ENOMEM) {
		snprintf(err->file, sizeof err->file, "%s", t->path);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "out of memory");
	} else if (rc < 0) {
		*err = tl.err;
	}
	ht_timeline_close(&tl);
	if (rc < 0)
		return rc;
	return ht_callpaths_finish(cp);
}

void ht_callpaths_release(struct ht_callpaths *cp)
{
	for (size_t i = 0; i < cp->n; i++)
		free(cp->nodes[i].kids);
	for (size_t i = 0; i < cp->nctx; i++)
		free(cp->ctx[i].kernels);
	for (size_t i = 0; i < cp->pool.cap; i++)
		if (cp->pool.used[i])
			free((void *)(uintptr_t)cp->pool.vals[i]);
	free(cp->nodes);
	free(cp->ctx);
	free(cp->fns);
	ht_map_release(&cp->index);
	ht_map_release(&cp->pool);
	ht_map_release(&cp->ctx_of);
	ht_map_release(&cp->fn_of);
	ht_map_release(&cp->resolved);
	ht_map_release(&cp->corr);
	ht_symbols_destroy(cp->sym);
	memset(cp, 0, sizeof *cp);
}
