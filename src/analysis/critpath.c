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

#include "analysis/critpath.h"
#include "analysis/timeline.h"
#include "common/grow.h"

#define NONE	  UINT32_MAX
#define WAIT_SCAN 64 /* commands looked at back from a wait's end on one queue */

const char *const ht_cp_kind_names[HT_CP_KIND_COUNT] = {"cpu",	  "api",      "launch",
							"kernel", "transfer", "queue"};

/* How a call waits for the device (the strongest of its nested calls'). */
enum { WAIT_NONE, WAIT_ANY, WAIT_QUEUE, WAIT_CORR };

struct piece {
	uint32_t name;
	uint64_t ns;
};

struct span {
	uint32_t first, n;
};

/*
 * A nesting level of a thread, when the timeline gives slice ends only: the
 * time its ended frames' children covered, and the regions' own CPU time
 * waiting to learn whether a call encloses them (then it is the call's).
 */
struct level {
	uint64_t covered;
	struct piece *pend;
	size_t npend, cappend;
};

struct call {
	uint64_t begin, end;
	uint64_t corr;	    /* of the call it waits by (WAIT_CORR) */
	uint64_t enqueued;  /* the corr of what it enqueued (of its last nested call), 0 none */
	uint64_t queue;	    /* its queue argument (WAIT_QUEUE) */
	uint32_t prev;	    /* the thread's previous outermost call */
	uint32_t thread;    /* timeline stream index */
	uint32_t name;	    /* the function */
	uint32_t gap, ngap; /* pieces of the CPU time before it */
	uint8_t wait;
	uint8_t has_queue;
	uint8_t seen; /* walk: bit 0 end visited, bit 1 begin */
};

struct cmd {
	uint64_t start, end, corr;
	uint32_t queue; /* index into b->queues */
	uint32_t name;
	uint32_t prev; /* the command that ran before it on its queue */
	uint32_t call; /* its enqueue call, or NONE */
	uint8_t kind;  /* HT_CP_KERNEL or HT_CP_TRANSFER */
	uint8_t seen;
};

struct queue {
	uint32_t proc, device;
	uint64_t handle;
	double slack;	    /* its device's clock-sync bound: ends may be this late */
	uint32_t *by_start; /* command indices */
	uint32_t *by_end;
	size_t n, cap;
};

struct frame {
	uint32_t id; /* fn id (calls) or cp name (regions) */
	uint8_t api;
};

struct thread {
	int started;
	uint32_t proc;
	int32_t tid;
	uint64_t first, last, mark; /* mark: where the current CPU piece began */
	struct frame *stack;
	size_t depth, cap;
	uint32_t api_depth;
	uint32_t open; /* the outermost call in progress */
	uint32_t tail; /* the last outermost call finished */
	struct piece *cur;
	size_t ncur, capcur;
	uint32_t gap, ngap; /* pieces after the last call, up to the thread's end */
	/* ends only: per nesting level, what its frames' children covered */
	struct level *lv;
	size_t caplv, used;  /* levels allocated, levels that may hold something */
	struct piece *items; /* its CPU time outside calls, per innermost region */
	size_t nitems, capitems;
	uint32_t last_id; /* the last region at the top without children (its string id) */
	size_t last_item; /* and its item (fast path of eo_end) */
};

/* Whether a function waits for the device, from its roles and argument descriptors. */
struct fn_wait {
	uint8_t known, sync;
	int8_t blocking, queue; /* its blocking and queue arguments, -1 none */
};

struct proc {
	int32_t pid;
	struct ht_map call_by_corr; /* corr -> call */
	struct ht_map cmd_by_corr;  /* corr -> its latest-ending command */
	struct ht_map queue_ids;    /* queue handle -> queue */
	/* names by the process's ids (+1; 0 not looked up yet): no string hashing per event */
	uint32_t *by_string, *by_fn;
	size_t capstring, capfn;
	struct fn_wait *wait; /* by function id */
	size_t capwait;
};

struct ht_cp_build {
	struct ht_critpath *cp;
	struct call *calls;
	size_t ncalls, capcalls;
	struct cmd *cmds;
	size_t ncmds, capcmds;
	struct queue *queues;
	size_t nqueues, capqueues;
	uint32_t last_queue;	/* the queue of the last command */
	struct thread *threads; /* by timeline stream index */
	size_t capthreads;
	struct proc *procs; /* by trace process index */
	size_t capprocs;
	struct piece *pieces;
	size_t npieces, cappieces;
	struct span *segp; /* per path step: its pieces (CPU steps) */
	size_t capsegp;
	uint32_t no_frame, outside;		/* names: no frame; CPU outside calls (ends only) */
	uint32_t kind_names[HT_CMD_KIND_COUNT]; /* names of the command kinds, + 1 (0: unset) */
	const struct ht_timeline *tl;		/* the timeline of the last record taken */
	int ends_only;	      /* the timeline gives no slice begins (see eo_end) */
	size_t absorbed;      /* calls found nested in a later-ending one (ends only) */
	uint32_t path_thread; /* the thread whose end the path ends at, or NONE */
};

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

/* The row of (kind, name), made when new. Return: NULL when out of memory. */
static struct ht_cp_row *row(struct ht_critpath *cp, enum ht_cp_kind kind, uint32_t name)
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
	struct ht_cp_row *r = name == NONE ? NULL : row(cp, kind, name);

	if (!r)
		return -ENOMEM;
	r->total_ns += ns;
	r->count++;
	return 0;
}

/* The name of the function of call record x, looked up once per process and function. */
static uint32_t fn_name(struct ht_cp_build *b, const struct ht_tl_record *x)
{
	struct proc *p = &b->procs[x->proc];

	return cached_name(b->cp, &p->by_fn, &p->capfn, x->fn_id, x->name);
}

/* ---- the pass: threads ---- */

/* Adds ns of name to the pieces v[0..*n) (one piece per name). Return: its index, or -ENOMEM. */
static long add_piece(struct piece **v, size_t *n, size_t *cap, uint32_t name, uint64_t ns)
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
static int cpu_until(struct ht_cp_build *b, struct thread *th, uint64_t t)
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
static int close_gap(struct ht_cp_build *b, struct thread *th, uint32_t *first, uint32_t *n)
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

static int push(struct thread *th, uint32_t id, int api)
{
	if (ht_grow((void **)&th->stack, &th->cap, sizeof *th->stack, th->depth + 1))
		return -ENOMEM;
	th->stack[th->depth].id = id;
	th->stack[th->depth++].api = (uint8_t)api;
	return 0;
}

/* Pops the innermost open frame (id, api) and those inside it. Return: 1 if found. */
static int pop(struct thread *th, uint32_t id, int api)
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
static uint8_t wait_kind(struct proc *p, const struct ht_tl_record *x, uint64_t *queue,
			 uint8_t *has_queue)
{
	const struct ht_fn_info *fn = x->fn;
	struct fn_wait *fw;
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
static void call_done(struct thread *th, struct call *c, uint64_t t)
{
	c->end = t;
	th->tail = th->open;
	th->open = NONE;
	th->mark = t;
}

/* A new outermost call of thread th (stream si) that began at t, after th's last one. */
static struct call *new_call(struct ht_cp_build *b, struct thread *th, unsigned int si,
			     const struct ht_tl_record *x, uint64_t t)
{
	uint32_t name = fn_name(b, x);
	struct call *c;

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

static int api_begin(struct ht_cp_build *b, struct thread *th, unsigned int si,
		     const struct ht_tl_record *x)
{
	struct call *c;

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
static int link_call(struct proc *p, struct call *c, uint32_t ci, const struct ht_tl_record *x)
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

static int api_end(struct ht_cp_build *b, struct thread *th, const struct ht_tl_record *x)
{
	struct proc *p = &b->procs[th->proc];
	struct call *c;

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

static int region(struct ht_cp_build *b, struct thread *th, const struct ht_tl_record *x)
{
	struct proc *p = &b->procs[x->proc];
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
static int thread_end(struct ht_cp_build *b, struct thread *th, uint64_t t)
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
static int fold_level(struct thread *th, size_t from, size_t to)
{
	struct level *f = &th->lv[from], *t = &th->lv[to];

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
static int eo_end(struct ht_cp_build *b, struct thread *th, unsigned int si,
		  const struct ht_tl_record *x)
{
	size_t d = x->depth;
	uint64_t len = x->ts - x->begin;
	struct level *self, *child;
	struct piece **to;
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
		struct proc *p = &b->procs[th->proc];
		uint32_t prev = th->tail;
		struct call *c;

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
		struct proc *p = &b->procs[x->proc];
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
static int eo_thread_end(struct ht_cp_build *b, struct thread *th, uint64_t t)
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
	struct thread *th;

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
	struct proc *p = &b->procs[x->proc];
	const struct ht_clock_map *m;
	struct queue *q;
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
	struct proc *p = &b->procs[x->proc];
	struct cmd *d;
	struct queue *q;
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

/* ---- linking ---- */

static int by_start(const void *a, const void *b, void *ctx)
{
	const struct cmd *x = &((const struct cmd *)ctx)[*(const uint32_t *)a];
	const struct cmd *y = &((const struct cmd *)ctx)[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int by_end(const void *a, const void *b, void *ctx)
{
	const struct cmd *x = &((const struct cmd *)ctx)[*(const uint32_t *)a];
	const struct cmd *y = &((const struct cmd *)ctx)[*(const uint32_t *)b];

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Queue order, launch calls by corr, and each corr's latest-ending command. */
static int link(struct ht_cp_build *b)
{
	for (size_t i = 0; i < b->nqueues; i++) {
		struct queue *q = &b->queues[i];

		qsort_r(q->by_start, q->n, sizeof *q->by_start, by_start, b->cmds);
		b->cmds[q->by_start[0]].prev = NONE;
		for (size_t k = 1; k < q->n; k++)
			b->cmds[q->by_start[k]].prev = q->by_start[k - 1];
		q->by_end = malloc(q->n * sizeof *q->by_end);
		if (!q->by_end)
			return -ENOMEM;
		memcpy(q->by_end, q->by_start, q->n * sizeof *q->by_end);
		qsort_r(q->by_end, q->n, sizeof *q->by_end, by_end, b->cmds);
	}
	for (size_t i = 0; i < b->ncmds; i++) {
		struct cmd *d = &b->cmds[i];
		struct proc *p = &b->procs[b->queues[d->queue].proc];
		uint64_t *v = d->corr ? ht_map_find_u64(&p->call_by_corr, d->corr) : NULL;
		int created;

		d->call = v ? (uint32_t)*v : NONE;
		if (d->corr && !v)
			b->cp->unlinked++;
		if (!d->corr)
			continue;
		v = ht_map_u64(&p->cmd_by_corr, d->corr, i, &created);
		if (!v)
			return -ENOMEM;
		if (!created && b->cmds[*v].end < d->end)
			*v = i;
	}
	return 0;
}

/* ---- the walk ---- */

/*
 * The last command of queue q that call c waited for: ended after c began
 * (and no later than c's end, give or take the clock-sync bound), enqueued
 * before c began. Return: its index, or NONE.
 */
static uint32_t waited_on_queue(const struct ht_cp_build *b, const struct queue *q,
				const struct call *c)
{
	size_t lo = 0, hi = q->n;

	while (lo < hi) { /* first command ending after c's end + slack */
		size_t mid = (lo + hi) / 2;

		if ((double)b->cmds[q->by_end[mid]].end <= (double)c->end + q->slack)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo, n = 0; k-- > 0 && n < WAIT_SCAN; n++) {
		const struct cmd *d = &b->cmds[q->by_end[k]];

		if (d->end <= c->begin)
			break;
		if (d->call != NONE ? b->calls[d->call].begin <= c->begin : d->start < c->end)
			return q->by_end[k];
	}
	return NONE;
}

static uint32_t waited_for(const struct ht_cp_build *b, const struct call *c)
{
	const struct proc *p = &b->procs[b->threads[c->thread].proc];
	uint32_t best = NONE;
	uint64_t *v;

	/*
	 * A call that returned only after the command it enqueued had run (a
	 * runtime that runs it inside the call, as PoCL's basic device does)
	 * waited for it, whatever its roles say.
	 */
	if (c->enqueued && (v = ht_map_find_u64(&p->cmd_by_corr, c->enqueued)) &&
	    b->cmds[*v].start >= c->begin && b->cmds[*v].end > c->begin &&
	    (double)b->cmds[*v].end <= (double)c->end + b->queues[b->cmds[*v].queue].slack)
		return (uint32_t)*v;
	if (c->wait == WAIT_NONE)
		return NONE;
	if (c->wait == WAIT_CORR && (v = ht_map_find_u64(&p->cmd_by_corr, c->corr)) &&
	    b->cmds[*v].end > c->begin)
		return (uint32_t)*v;
	if (c->has_queue && (v = ht_map_find_u64(&p->queue_ids, c->queue)))
		return waited_on_queue(b, &b->queues[*v], c);
	for (size_t i = 0; i < b->nqueues; i++) {
		uint32_t d;

		if (b->queues[i].proc != b->threads[c->thread].proc)
			continue;
		d = waited_on_queue(b, &b->queues[i], c);
		if (d != NONE && (best == NONE || b->cmds[d].end > b->cmds[best].end))
			best = d;
	}
	return best;
}

enum node { N_STOP, N_THREAD_END, N_CALL_END, N_CALL_BEGIN, N_CMD_END, N_CMD_START };

struct walk {
	struct ht_cp_build *b;
	uint64_t t; /* where the walk is: every step ends here */
	int rc;
};

/*
 * Adds the step [min(from, w->t), w->t) of `kind` on a thread or queue and
 * moves w->t to its start. Return: the step, or NULL when it is empty (not
 * kept) or out of memory (w->rc).
 */
static struct ht_cp_segment *step(struct walk *w, uint64_t from, enum ht_cp_kind kind,
				  uint32_t name, const struct thread *th, const struct queue *q)
{
	struct ht_critpath *cp = w->b->cp;
	struct ht_cp_segment *s;

	if (from >= w->t)
		return NULL;
	if (ht_grow((void **)&cp->seg, &cp->capseg, sizeof *cp->seg, cp->nseg + 1) ||
	    ht_grow((void **)&w->b->segp, &w->b->capsegp, sizeof *w->b->segp, cp->nseg + 1)) {
		w->rc = -ENOMEM;
		return NULL;
	}
	w->b->segp[cp->nseg] = (struct span){0, 0};
	s = &cp->seg[cp->nseg++];
	memset(s, 0, sizeof *s);
	s->end = w->t;
	s->start = from;
	s->kind = (uint8_t)kind;
	s->name = name;
	if (th) {
		s->pid = w->b->procs[th->proc].pid;
		s->tid = th->tid;
	} else {
		s->pid = w->b->procs[q->proc].pid;
		s->device = q->device;
		s->queue = q->handle;
	}
	w->t = s->start;
	return s;
}

/* A step of CPU time made of gap pieces: its name is the largest piece. */
static void cpu_step(struct walk *w, uint64_t from, const struct thread *th, uint32_t first,
		     uint32_t n)
{
	uint32_t name = w->b->ends_only ? w->b->outside : w->b->no_frame;
	uint64_t most = 0;

	for (uint32_t i = 0; i < n; i++)
		if (w->b->pieces[first + i].ns > most) {
			most = w->b->pieces[first + i].ns;
			name = w->b->pieces[first + i].name;
		}
	if (step(w, from, HT_CP_CPU, name, th, NULL))
		w->b->segp[w->b->cp->nseg - 1] = (struct span){first, n};
}

static enum node walk_thread_end(struct walk *w, struct thread *th, uint32_t *at)
{
	if (th->tail == NONE) {
		cpu_step(w, th->first, th, th->gap, th->ngap);
		return N_STOP;
	}
	cpu_step(w, w->b->calls[th->tail].end, th, th->gap, th->ngap);
	*at = th->tail;
	return N_CALL_END;
}

static enum node walk_call_end(struct walk *w, uint32_t ci, uint32_t *at)
{
	struct ht_cp_build *b = w->b;
	struct call *c = &b->calls[ci];
	struct thread *th = &b->threads[c->thread];
	uint32_t d = waited_for(b, c);

	if (d != NONE && !(b->cmds[d].seen & 1)) {
		step(w, b->cmds[d].end, HT_CP_API, c->name, th, NULL);
		*at = d;
		return N_CMD_END;
	}
	step(w, c->begin, HT_CP_API, c->name, th, NULL);
	*at = ci;
	return N_CALL_BEGIN;
}

static enum node walk_call_begin(struct walk *w, uint32_t ci, uint32_t *at)
{
	struct ht_cp_build *b = w->b;
	struct call *c = &b->calls[ci];
	struct thread *th = &b->threads[c->thread];

	if (c->prev == NONE) {
		cpu_step(w, th->first, th, c->gap, c->ngap);
		return N_STOP;
	}
	cpu_step(w, b->calls[c->prev].end, th, c->gap, c->ngap);
	*at = c->prev;
	return N_CALL_END;
}

/* A command's start waited for the later of its enqueue call and its queue's previous command. */
static enum node walk_cmd_start(struct walk *w, uint32_t di, uint32_t *at)
{
	struct ht_cp_build *b = w->b;
	struct cmd *d = &b->cmds[di];
	const struct queue *q = &b->queues[d->queue];
	uint64_t tq = 0, tl = 0;
	int have_q = d->prev != NONE && !(b->cmds[d->prev].seen & 1);
	int have_l = d->call != NONE;

	if (have_q)
		tq = b->cmds[d->prev].end;
	if (have_l) {
		const struct call *c = &b->calls[d->call];

		/* started before its enqueue returned (an asynchronous launch): from its begin */
		tl = c->end <= d->start ? c->end : c->begin;
		have_l = !(c->seen & (tl == c->end ? 1 : 2));
	}
	if (have_q && (!have_l || tq >= tl)) {
		step(w, tq, HT_CP_QUEUE, d->name, NULL, q);
		*at = d->prev;
		return N_CMD_END;
	}
	if (!have_l)
		return N_STOP;
	step(w, tl, HT_CP_LAUNCH, d->name, NULL, q);
	*at = d->call;
	return tl == b->calls[d->call].end ? N_CALL_END : N_CALL_BEGIN;
}

static int walk(struct ht_cp_build *b, enum node n, uint32_t at)
{
	struct walk w = {.b = b};

	w.t = n == N_THREAD_END ? b->threads[at].last : b->cmds[at].end;
	b->cp->end = w.t;
	while (n != N_STOP && !w.rc) {
		switch (n) {
		case N_THREAD_END:
			n = walk_thread_end(&w, &b->threads[at], &at);
			break;
		case N_CALL_END:
			if (b->calls[at].seen & 1)
				goto loop; /* a node seen twice: clock-sync error made a cycle */
			b->calls[at].seen |= 1;
			n = walk_call_end(&w, at, &at);
			break;
		case N_CALL_BEGIN:
			if (b->calls[at].seen & 2)
				goto loop;
			b->calls[at].seen |= 2;
			n = walk_call_begin(&w, at, &at);
			break;
		case N_CMD_END:
			if (b->cmds[at].seen & 1)
				goto loop;
			b->cmds[at].seen |= 1;
			step(&w, b->cmds[at].start, b->cmds[at].kind, b->cmds[at].name, NULL,
			     &b->queues[b->cmds[at].queue]);
			n = N_CMD_START;
			break;
		case N_CMD_START:
			if (b->cmds[at].seen & 2)
				goto loop;
			b->cmds[at].seen |= 2;
			n = walk_cmd_start(&w, at, &at);
			break;
		default:
			n = N_STOP;
		}
	}
	b->cp->start = w.t;
	return w.rc;
loop:
	b->cp->start = w.t;
	b->cp->cut = 1;
	return w.rc;
}

/* Time on the path per row; CPU steps by their pieces (scaled if a step was clamped). */
static int attribute(struct ht_cp_build *b)
{
	struct ht_critpath *cp = b->cp;

	for (size_t i = 0; i < cp->nseg; i++) {
		struct ht_cp_segment *s = &cp->seg[i];
		uint64_t len = s->end - s->start, sum = 0, given = 0;
		struct ht_cp_row *r;

		cp->length += len;
		if (s->kind != HT_CP_CPU) {
			if (!(r = row(cp, s->kind, s->name)))
				return -ENOMEM;
			r->ns += len;
			r->segments++;
			continue;
		}
		const struct piece *pc = b->pieces + b->segp[i].first;
		uint32_t n = b->segp[i].n;

		if (b->ends_only)
			continue; /* the path thread's own table, below */
		for (uint32_t k = 0; k < n; k++)
			sum += pc[k].ns;
		for (uint32_t k = 0; k < n && sum; k++) {
			uint64_t ns =
			    k + 1 == n ? len - given : (uint64_t)((double)pc[k].ns * len / sum);

			if (!(r = row(cp, HT_CP_CPU, pc[k].name)))
				return -ENOMEM;
			r->ns += ns;
			r->segments++;
			given += ns;
		}
		if (!sum && len) { /* a step with no recorded pieces */
			if (!(r = row(cp, HT_CP_CPU, b->no_frame)))
				return -ENOMEM;
			r->ns += len;
			r->segments++;
		}
	}
	if (!b->ends_only || b->path_thread == NONE)
		return 0;
	for (size_t i = 0; i < b->threads[b->path_thread].nitems; i++) {
		const struct piece *pc = &b->threads[b->path_thread].items[i];
		struct ht_cp_row *r;

		if (!pc->ns)
			continue;
		if (!(r = row(cp, HT_CP_CPU, pc->name)))
			return -ENOMEM;
		r->ns += pc->ns;
		r->segments++;
	}
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ht_cp_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* The last event of the run: a thread's end, or a command's end if later. */
static int finish(struct ht_cp_build *b)
{
	enum node n = N_STOP;
	uint32_t at = NONE;
	uint64_t last = 0;
	int rc;

	for (size_t i = 0; i < b->capthreads; i++)
		if (b->threads[i].started && (n == N_STOP || b->threads[i].last > last)) {
			n = N_THREAD_END;
			at = (uint32_t)i;
			last = b->threads[i].last;
		}
	for (size_t i = 0; i < b->ncmds; i++)
		if (n == N_STOP || b->cmds[i].end > last) {
			n = N_CMD_END;
			at = (uint32_t)i;
			last = b->cmds[i].end;
		}
	if (n == N_STOP)
		return 0;
	b->cp->pid = n == N_THREAD_END ? b->procs[b->threads[at].proc].pid
				       : b->procs[b->queues[b->cmds[at].queue].proc].pid;
	b->path_thread = n == N_THREAD_END ? at : NONE;
	rc = walk(b, n, at);
	if (rc)
		return rc;
	for (size_t i = 0, j = b->cp->nseg; i < j / 2; i++) { /* walked backwards */
		struct ht_cp_segment s = b->cp->seg[i];
		struct span p = b->segp[i];

		b->cp->seg[i] = b->cp->seg[j - 1 - i];
		b->cp->seg[j - 1 - i] = s;
		b->segp[i] = b->segp[j - 1 - i];
		b->segp[j - 1 - i] = p;
	}
	rc = attribute(b);
	if (rc)
		return rc;
	if (b->cp->nrows)
		qsort(b->cp->rows, b->cp->nrows, sizeof *b->cp->rows, row_cmp);
	for (int k = 0; k < HT_CP_KIND_COUNT; k++) { /* row numbers changed */
		free(b->cp->row_of[k]);
		b->cp->row_of[k] = NULL;
		b->cp->caprow[k] = 0;
	}
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
	struct thread *th;

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
	rc = link(b);
	if (!rc)
		rc = finish(b);
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
