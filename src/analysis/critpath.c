/*
 * The critical path (see critpath.h). The records the report's passes hand
 * over make the graph's nodes: per thread, its outermost API calls as a
 * chain, each with the CPU time before it already split by innermost region
 * into a few pieces (so a thread of 33 M regions and no calls costs one gap,
 * not 33 M nodes); and every timed device command. Memory: ~64 bytes per
 * outermost call and per command, plus the pieces (distinct regions per
 * gap). The backward walk then visits each node at most once.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath_graph.h"
#include "analysis/timeline.h"
#include "common/grow.h"

const char *const ht_cp_kind_names[HT_CP_KIND_COUNT] = {"cpu",	  "api",      "launch",
							"kernel", "transfer", "queue"};

/* ---- names and rows ---- */

static uint32_t name_id(struct ht_critpath *cp, const char *s)
{
	int created;
	uint64_t *v = ht_map_str(&cp->name_ids, s ? s : "?", cp->nnames, &created);

	if (!v)
		return NONE;
	if (!created)
		return (uint32_t)*v;
	if (ht_grow((void **)&cp->names, &cp->capnames, sizeof *cp->names, cp->nnames + 1) ||
	    !(cp->names[cp->nnames] = strdup(s ? s : "?"))) {
		ht_map_release(&cp->name_ids); /* the caller gives up */
		return NONE;
	}
	return (uint32_t)cp->nnames++;
}

struct ht_cp_row *ht_cp_row(struct ht_critpath *cp, enum ht_cp_kind kind, uint32_t name)
{
	uint32_t **idx = &cp->row_of[kind];

	if (name >= cp->caprow[kind] &&
	    ht_grow((void **)idx, &cp->caprow[kind], sizeof **idx, (size_t)name + 1))
		return NULL;
	if (!(*idx)[name]) {
		if (ht_grow((void **)&cp->rows, &cp->caprows, sizeof *cp->rows, cp->nrows + 1))
			return NULL;
		cp->rows[cp->nrows].name = name;
		cp->rows[cp->nrows].kind = (uint8_t)kind;
		(*idx)[name] = (uint32_t)++cp->nrows;
	}
	return &cp->rows[(*idx)[name] - 1];
}

/*
 * The name id of a process's string or function id, looked up once per id
 * (cache *tab of *cap entries, grown as ids come). Return: NONE when out of memory.
 */
static uint32_t cached_name(struct ht_critpath *cp, uint32_t **tab, size_t *cap, uint32_t id,
			    const char *name)
{
	if (id >= *cap && ht_grow((void **)tab, cap, sizeof **tab, (size_t)id + 1))
		return NONE;
	if (!(*tab)[id]) {
		uint32_t n = name_id(cp, name);

		if (n == NONE)
			return NONE;
		(*tab)[id] = n + 1;
	}
	return (*tab)[id] - 1;
}

/* Adds an item's own time to its row (all of them, on the path or not). */
static int add_total(struct ht_critpath *cp, enum ht_cp_kind kind, uint32_t name, uint64_t ns)
{
	struct ht_cp_row *r = name == NONE ? NULL : ht_cp_row(cp, kind, name);

	if (!r)
		return -ENOMEM;
	r->total_ns += ns;
	r->count++;
	return 0;
}

/* The name of the function of call record x, looked up once per process and function. */
static uint32_t fn_name(struct ht_cp_build *b, const struct ht_tl_record *x)
{
	struct cp_proc *p = &b->procs[x->proc];

	return cached_name(b->cp, &p->by_fn, &p->capfn, x->fn_id, x->name);
}

/* ---- the pass: threads ---- */

/* Adds ns of name to the pieces v[0..*n) (one piece per name). Return: its index, or -ENOMEM. */
static long add_piece(struct cp_piece **v, size_t *n, size_t *cap, uint32_t name, uint64_t ns)
{
	for (size_t i = *n; i-- > 0;)
		if ((*v)[i].name == name) {
			(*v)[i].ns += ns;
			return (long)i;
		}
	if (ht_grow((void **)v, cap, sizeof **v, *n + 1))
		return -ENOMEM;
	(*v)[*n].name = name;
	(*v)[*n].ns = ns;
	return (long)(*n)++;
}

/* Adds [th->mark, t) of CPU time to the current gap, under the innermost region. */
static int cpu_until(struct ht_cp_build *b, struct cp_thread *th, uint64_t t)
{
	uint32_t name = b->no_frame;
	uint64_t ns = t > th->mark ? t - th->mark : 0;

	th->mark = t > th->mark ? t : th->mark;
	if (!ns || th->api_depth)
		return 0;
	for (size_t k = th->depth; k-- > 0;)
		if (!th->stack[k].api) {
			name = th->stack[k].id;
			break;
		}
	return add_piece(&th->cur, &th->ncur, &th->capcur, name, ns) < 0 ? -ENOMEM : 0;
}

/* Moves the current gap's pieces to the pool. Return: 0 with *first, *n set, or -ENOMEM. */
static int close_gap(struct ht_cp_build *b, struct cp_thread *th, uint32_t *first, uint32_t *n)
{
	if (ht_grow((void **)&b->pieces, &b->cappieces, sizeof *b->pieces, b->npieces + th->ncur))
		return -ENOMEM;
	memcpy(b->pieces + b->npieces, th->cur, th->ncur * sizeof *th->cur);
	*first = (uint32_t)b->npieces;
	*n = (uint32_t)th->ncur;
	b->npieces += th->ncur;
	th->ncur = 0;
	return 0;
}

static int push(struct cp_thread *th, uint32_t id, int api)
{
	if (ht_grow((void **)&th->stack, &th->cap, sizeof *th->stack, th->depth + 1))
		return -ENOMEM;
	th->stack[th->depth].id = id;
	th->stack[th->depth++].api = (uint8_t)api;
	return 0;
}

/* Pops the innermost open frame (id, api) and those inside it. Return: 1 if found. */
static int pop(struct cp_thread *th, uint32_t id, int api)
{
	for (size_t i = th->depth; i-- > 0;)
		if (th->stack[i].id == id && th->stack[i].api == api) {
			for (size_t k = i; k < th->depth; k++)
				th->api_depth -= th->stack[k].api;
			th->depth = i;
			return 1;
		}
	return 0;
}

/*
 * How the call x waits for the device, from its function's roles and
 * arguments; *queue gets its queue argument (*has_queue set) when it has one.
 */
static uint8_t wait_kind(struct cp_proc *p, const struct ht_tl_record *x, uint64_t *queue,
			 uint8_t *has_queue)
{
	const struct ht_fn_info *fn = x->fn;
	struct cp_fn_wait *fw;
	int q;

	if (!fn)
		return WAIT_NONE;
	if (x->fn_id >= p->capwait &&
	    ht_grow((void **)&p->wait, &p->capwait, sizeof *p->wait, (size_t)x->fn_id + 1))
		return WAIT_NONE; /* out of memory: as if it did not wait */
	fw = &p->wait[x->fn_id];
	if (!fw->known) { /* its roles and arguments, once per function */
		fw->known = 1;
		fw->sync = (fn->roles & HT_ROLE_SYNC) != 0;
		fw->blocking =
		    (int8_t)(fn->roles & HT_ROLE_BLOCKING ? ht_fn_info_arg(fn, HT_AR_BLOCKING)
							  : -1);
		fw->queue = (int8_t)ht_fn_info_arg(fn, HT_AR_QUEUE);
	}
	if (!fw->sync &&
	    !(fw->blocking >= 0 && fw->blocking < (int)x->nargs && x->args[fw->blocking].v.u))
		return WAIT_NONE;
	q = fw->queue;
	if (q >= 0 && q < (int)x->nargs) {
		*queue = x->args[q].v.u;
		*has_queue = 1;
	}
	return x->corr ? WAIT_CORR : *has_queue ? WAIT_QUEUE : WAIT_ANY;
}

/* The outermost call in progress ends at t. */
static void call_done(struct cp_thread *th, struct cp_call *c, uint64_t t)
{
	c->end = t;
	th->tail = th->open;
	th->open = NONE;
	th->mark = t;
}

/* A new outermost call of thread th (stream si) that began at t, after th's last one. */
static struct cp_call *new_call(struct ht_cp_build *b, struct cp_thread *th, unsigned int si,
				const struct ht_tl_record *x, uint64_t t)
{
	uint32_t name = fn_name(b, x);
	struct cp_call *c;

	if (name == NONE ||
	    ht_grow((void **)&b->calls, &b->capcalls, sizeof *b->calls, b->ncalls + 1))
		return NULL;
	c = &b->calls[b->ncalls++];
	memset(c, 0, sizeof *c);
	c->begin = c->end = t;
	c->prev = th->tail;
	c->thread = si;
	c->name = name;
	return c;
}

static int api_begin(struct ht_cp_build *b, struct cp_thread *th, unsigned int si,
		     const struct ht_tl_record *x)
{
	struct cp_call *c;

	if (th->api_depth) { /* nested: part of the outermost call */
		if (push(th, x->fn_id, 1))
			return -ENOMEM;
		th->api_depth++;
		return 0;
	}
	if (cpu_until(b, th, x->ts) || !(c = new_call(b, th, si, x, x->ts)) ||
	    close_gap(b, th, &c->gap, &c->ngap) || push(th, x->fn_id, 1))
		return -ENOMEM;
	th->open = (uint32_t)(c - b->calls);
	th->api_depth++;
	return 0;
}

/* What the end x of call ci (or of a call nested in it) says: its corr, how it waits. */
static int link_call(struct cp_proc *p, struct cp_call *c, uint32_t ci,
		     const struct ht_tl_record *x)
{
	uint64_t queue = 0;
	uint8_t w, has_queue = 0;

	if (x->corr && !ht_map_u64(&p->call_by_corr, x->corr, ci, NULL))
		return -ENOMEM;
	if (x->corr)
		c->enqueued = x->corr;
	w = wait_kind(p, x, &queue, &has_queue);
	if (w > c->wait) {
		c->wait = w;
		c->corr = x->corr;
		c->queue = queue;
		c->has_queue = has_queue;
	}
	return 0;
}

static int api_end(struct ht_cp_build *b, struct cp_thread *th, const struct ht_tl_record *x)
{
	struct cp_proc *p = &b->procs[th->proc];
	struct cp_call *c;

	if (!x->paired || th->open == NONE || !pop(th, x->fn_id, 1))
		return 0; /* its begin was lost, or it began before its thread's first record */
	if (add_total(b->cp, HT_CP_API, fn_name(b, x), x->ts - x->begin))
		return -ENOMEM;
	c = &b->calls[th->open];
	if (link_call(p, c, (uint32_t)th->open, x))
		return -ENOMEM;
	if (!th->api_depth)
		call_done(th, c, x->ts);
	return 0;
}

static int region(struct ht_cp_build *b, struct cp_thread *th, const struct ht_tl_record *x)
{
	struct cp_proc *p = &b->procs[x->proc];
	uint32_t name = cached_name(b->cp, &p->by_string, &p->capstring, x->name_id, x->name);

	if (name == NONE || cpu_until(b, th, x->ts))
		return -ENOMEM;
	if (x->kind == HT_TL_SLICE_BEGIN)
		return push(th, name, 0);
	/* as the timeline does, an end closes what was left open inside its region */
	if (pop(th, name, 0) && !th->api_depth && th->open != NONE)
		call_done(th, &b->calls[th->open], x->ts);
	return 0;
}

/* The thread's stream ended: the rest of its CPU time is its last gap. */
static int thread_end(struct ht_cp_build *b, struct cp_thread *th, uint64_t t)
{
	if (th->open != NONE) { /* a call still in progress (the program was killed) */
		call_done(th, &b->calls[th->open], t);
		th->api_depth = 0;
		th->depth = 0;
	}
	th->last = t;
	if (cpu_until(b, th, t))
		return -ENOMEM;
	return close_gap(b, th, &th->gap, &th->ngap);
}

/* ---- the pass, when the timeline gives slice ends only ---- */

/* Moves level `from`'s covered time and pending pieces into level `to`. */
static int fold_level(struct cp_thread *th, size_t from, size_t to)
{
	struct cp_level *f = &th->lv[from], *t = &th->lv[to];

	t->covered += f->covered;
	for (size_t i = 0; i < f->npend; i++)
		if (add_piece(&t->pend, &t->npend, &t->cappend, f->pend[i].name, f->pend[i].ns) < 0)
			return -ENOMEM;
	f->covered = 0;
	f->npend = 0;
	return 0;
}

/*
 * A slice end when no begins are given (the report skips them without a
 * device, and then the path is the last thread's whole life): its frame
 * [begin, end) sits at nesting level depth, and its children, one level
 * down, ended before it. A region's own CPU time is its length minus its
 * children's, and theirs stay pending with it (a call further out would
 * make them its own); a call drops them. Levels deeper than the children
 * belong to frames whose end was lost: they are folded in first. A call
 * joins the thread's chain and takes in the calls that ended inside it.
 */
static int eo_end(struct ht_cp_build *b, struct cp_thread *th, unsigned int si,
		  const struct ht_tl_record *x)
{
	size_t d = x->depth;
	uint64_t len = x->ts - x->begin;
	struct cp_level *self, *child;
	struct cp_piece **to;
	size_t *nto, *capto;
	long at;

	if (!x->paired)
		return 0;
	if (d + 2 > th->caplv && ht_grow((void **)&th->lv, &th->caplv, sizeof *th->lv, d + 2))
		return -ENOMEM;
	for (size_t k = th->used; k-- > d + 2;) /* levels of frames whose end was lost */
		if (fold_level(th, k, k - 1))
			return -ENOMEM;
	th->used = d + 1; /* after this, nothing below its level */
	self = &th->lv[d];
	child = &th->lv[d + 1];
	/* pending with its level, or final when nothing is around it */
	to = d ? &self->pend : &th->items;
	nto = d ? &self->npend : &th->nitems;
	capto = d ? &self->cappend : &th->capitems;
	if (x->api) {
		struct cp_proc *p = &b->procs[th->proc];
		uint32_t prev = th->tail;
		struct cp_call *c;

		while (prev != NONE && b->calls[prev].begin >= x->begin) { /* nested in this one */
			prev = b->calls[prev].prev;
			b->absorbed++;
		}
		th->tail = prev;
		if (add_total(b->cp, HT_CP_API, fn_name(b, x), len) ||
		    !(c = new_call(b, th, si, x, x->begin)))
			return -ENOMEM;
		c->end = x->ts;
		th->tail = (uint32_t)(c - b->calls);
		if (link_call(p, c, th->tail, x))
			return -ENOMEM;
	} else {
		struct cp_proc *p = &b->procs[x->proc];
		uint32_t name =
		    cached_name(b->cp, &p->by_string, &p->capstring, x->name_id, x->name);

		if (name == NONE)
			return -ENOMEM;
		for (size_t i = 0; i < child->npend; i++) /* its children's, one level up */
			if (add_piece(to, nto, capto, child->pend[i].name, child->pend[i].ns) < 0)
				return -ENOMEM;
		at = add_piece(to, nto, capto, name,
			       len > child->covered ? len - child->covered : 0);
		if (at < 0)
			return -ENOMEM;
		if (!d && !child->npend) { /* for fast_region_end */
			th->last_id = x->name_id;
			th->last_item = (size_t)at;
		}
	}
	child->covered = 0;
	child->npend = 0;
	self->covered += len;
	return 0;
}

/* The thread's end (ends only): what no frame covered is CPU time outside any. */
static int eo_thread_end(struct ht_cp_build *b, struct cp_thread *th, uint64_t t)
{
	uint64_t covered;

	for (size_t k = th->used; k-- > 1;) /* frames still open at the end */
		if (fold_level(th, k, k - 1))
			return -ENOMEM;
	covered = th->caplv ? th->lv[0].covered : 0;
	for (size_t i = 0; th->caplv && i < th->lv[0].npend; i++)
		if (add_piece(&th->items, &th->nitems, &th->capitems, th->lv[0].pend[i].name,
			      th->lv[0].pend[i].ns) < 0)
			return -ENOMEM;
	th->last = t;
	if (add_piece(&th->items, &th->nitems, &th->capitems, b->no_frame,
		      t - th->first > covered ? t - th->first - covered : 0) < 0)
		return -ENOMEM;
	return 0;
}

static int take_thread(struct ht_cp_build *b, const struct ht_tl_record *x)
{
	struct cp_thread *th;

	if (x->stream >= b->capthreads) {
		size_t old = b->capthreads;

		if (ht_grow((void **)&b->threads, &b->capthreads, sizeof *b->threads,
			    (size_t)x->stream + 1))
			return -ENOMEM;
		for (size_t i = old; i < b->capthreads; i++)
			b->threads[i].open = b->threads[i].tail = NONE;
	}
	th = &b->threads[x->stream];
	if (!th->started) {
		if (x->kind == HT_TL_STREAM_END)
			return 0;
		th->started = 1;
		th->proc = x->proc;
		th->tid = x->tid;
		th->first = th->mark = x->ts;
	}
	switch (x->kind) {
	case HT_TL_SLICE_BEGIN:
		return x->api ? api_begin(b, th, x->stream, x) : region(b, th, x);
	case HT_TL_SLICE_END:
		if (b->ends_only)
			return eo_end(b, th, x->stream, x);
		return x->api ? api_end(b, th, x) : region(b, th, x);
	case HT_TL_STREAM_END:
		return b->ends_only ? eo_thread_end(b, th, x->ts) : thread_end(b, th, x->ts);
	default:
		return 0;
	}
}

/* ---- the pass: device commands ---- */

static uint32_t queue_of(struct ht_cp_build *b, const struct ht_timeline *tl,
			 const struct ht_tl_record *x)
{
	struct cp_proc *p = &b->procs[x->proc];
	const struct ht_clock_map *m;
	struct cp_queue *q;
	uint64_t *v;
	int created;

	if (b->last_queue < b->nqueues && b->queues[b->last_queue].handle == x->queue &&
	    b->queues[b->last_queue].proc == x->proc)
		return b->last_queue; /* commands come in runs per queue */
	v = ht_map_u64(&p->queue_ids, x->queue, b->nqueues, &created);
	if (!v)
		return NONE;
	if (!created)
		return b->last_queue = (uint32_t)*v;
	if (ht_grow((void **)&b->queues, &b->capqueues, sizeof *b->queues, b->nqueues + 1))
		return NONE;
	q = &b->queues[b->nqueues];
	q->proc = x->proc;
	q->device = x->device;
	q->handle = x->queue;
	m = ht_timeline_clock_map(tl, x->pid, x->device);
	q->slack = m && m->quality == HT_SYNC_OK && isfinite(m->bound_ns) ? m->bound_ns : 0;
	return b->last_queue = (uint32_t)b->nqueues++;
}

static int take_command(struct ht_cp_build *b, const struct ht_timeline *tl,
			const struct ht_tl_record *x)
{
	int kernel = x->cmd_kind == HT_CMD_KERNEL;
	struct cp_proc *p = &b->procs[x->proc];
	struct cp_cmd *d;
	struct cp_queue *q;
	uint32_t qi, name;

	/* synchronisation records are the host waiting, not device work */
	if (!x->timed || x->status || x->cmd_kind == HT_CMD_SYNC)
		return 0;
	qi = queue_of(b, tl, x);
	if (kernel)
		name = cached_name(b->cp, &p->by_string, &p->capstring, x->name_id, x->name);
	else if ((name = b->kind_names[x->cmd_kind] - 1) == NONE) { /* first of its kind */
		name = name_id(b->cp, x->category);
		b->kind_names[x->cmd_kind] = name + 1; /* NONE (out of memory) stays unset */
	}
	if (qi == NONE || name == NONE ||
	    add_total(b->cp, kernel ? HT_CP_KERNEL : HT_CP_TRANSFER, name, x->end - x->ts) ||
	    ht_grow((void **)&b->cmds, &b->capcmds, sizeof *b->cmds, b->ncmds + 1))
		return -ENOMEM;
	q = &b->queues[qi];
	if (ht_grow((void **)&q->by_start, &q->cap, sizeof *q->by_start, q->n + 1))
		return -ENOMEM;
	q->by_start[q->n++] = (uint32_t)b->ncmds;
	d = &b->cmds[b->ncmds++];
	memset(d, 0, sizeof *d);
	d->start = x->ts;
	d->end = x->end;
	d->corr = x->corr;
	d->queue = qi;
	d->name = name;
	d->kind = kernel ? HT_CP_KERNEL : HT_CP_TRANSFER;
	return 0;
}

static void build_release(struct ht_cp_build *b)
{
	for (size_t i = 0; i < b->capthreads; i++) {
		free(b->threads[i].stack);
		free(b->threads[i].cur);
		for (size_t k = 0; k < b->threads[i].caplv; k++)
			free(b->threads[i].lv[k].pend);
		free(b->threads[i].lv);
		free(b->threads[i].items);
	}
	for (size_t i = 0; i < b->capprocs; i++) {
		ht_map_release(&b->procs[i].call_by_corr);
		ht_map_release(&b->procs[i].cmd_by_corr);
		ht_map_release(&b->procs[i].queue_ids);
		free(b->procs[i].by_string);
		free(b->procs[i].by_fn);
		free(b->procs[i].wait);
	}
	for (size_t i = 0; i < b->nqueues; i++) {
		free(b->queues[i].by_start);
		free(b->queues[i].by_end);
	}
	free(b->threads);
	free(b->procs);
	free(b->queues);
	free(b->calls);
	free(b->cmds);
	free(b->pieces);
	free(b->segp);
	free(b);
}

/*
 * The most frequent record without slice begins, taken in a few
 * instructions: the end of the same region as the last one, at the top of
 * its thread, with nothing inside it (a loop of annotated regions).
 * Return: 1 when taken, 0 for the general path.
 */
static inline int fast_region_end(struct ht_cp_build *b, const struct ht_timeline *tl,
				  const struct ht_tl_record *x)
{
	struct cp_thread *th;

	if (x->kind != HT_TL_SLICE_END || !b || !b->ends_only || tl != b->tl || x->api ||
	    x->depth || !x->paired || x->stream >= b->capthreads)
		return 0;
	th = &b->threads[x->stream];
	if (th->used > 1 || !th->caplv || x->name_id != th->last_id || th->last_item >= th->nitems)
		return 0;
	th->items[th->last_item].ns += x->ts - x->begin;
	th->lv[0].covered += x->ts - x->begin;
	return 1;
}

/* Every other record (kept out of line: ht_critpath_take stays a small leaf). */
static __attribute__((noinline)) int take(struct ht_critpath *cp, const struct ht_timeline *tl,
					  const struct ht_tl_record *x)
{
	struct ht_cp_build *b = cp->b;

	if (x->kind != HT_TL_DEVICE &&
	    (x->source != HT_PK_THREAD || x->kind == HT_TL_PROCESS || x->kind == HT_TL_CPU_STATE))
		return 0;
	if (!b) {
		b = cp->b = calloc(1, sizeof *b);
		if (!b)
			return -ENOMEM;
		b->cp = cp;
		b->no_frame = name_id(cp, HT_CP_NO_FRAME);
		b->outside = name_id(cp, HT_CP_OUTSIDE_CALLS);
		if (b->no_frame == NONE || b->outside == NONE)
			return -ENOMEM;
	}
	if (tl != b->tl) { /* another pass */
		b->tl = tl;
		b->ends_only = (tl->opts.skip & 1u << HT_TL_SLICE_BEGIN) != 0;
	}
	if (x->proc >= b->capprocs) {
		if (ht_grow((void **)&b->procs, &b->capprocs, sizeof *b->procs,
			    (size_t)x->proc + 1))
			return -ENOMEM;
	}
	if (!b->procs[x->proc].pid)
		b->procs[x->proc].pid = x->pid;
	return x->kind == HT_TL_DEVICE ? take_command(b, tl, x) : take_thread(b, x);
}

int ht_critpath_take(struct ht_critpath *cp, const struct ht_timeline *tl,
		     const struct ht_tl_record *x)
{
	return fast_region_end(cp->b, tl, x) ? 0 : take(cp, tl, x);
}

int ht_critpath_finish(struct ht_critpath *cp)
{
	struct ht_cp_build *b = cp->b;
	int rc;

	if (!b)
		return 0; /* nothing was taken: no path */
	cp->calls = b->ncalls - b->absorbed;
	cp->commands = b->ncmds;
	rc = ht_cp_walk(b);
	build_release(b);
	cp->b = NULL;
	return rc;
}

void ht_critpath_release(struct ht_critpath *cp)
{
	if (cp->b)
		build_release(cp->b);
	for (size_t i = 0; i < cp->nnames; i++)
		free(cp->names[i]);
	free(cp->names);
	free(cp->seg);
	free(cp->rows);
	ht_map_release(&cp->name_ids);
	for (int k = 0; k < HT_CP_KIND_COUNT; k++)
		free(cp->row_of[k]);
	memset(cp, 0, sizeof *cp);
}
