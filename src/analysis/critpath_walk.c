/*
 * The critical path's walk (see critpath.h): the graph is linked (each
 * queue's commands in the order they ran, each command to its enqueue call
 * by corr), then walked back from the run's last event, each node to the
 * predecessor it waited for last, and the steps tabled per item.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critpath_graph.h"
#include "common/grow.h"

#define WAIT_SCAN 64 /* commands looked at back from a wait's end on one queue */

/* ---- linking ---- */

static int by_start(const void *a, const void *b, void *ctx)
{
	const struct cp_cmd *x = &((const struct cp_cmd *)ctx)[*(const uint32_t *)a];
	const struct cp_cmd *y = &((const struct cp_cmd *)ctx)[*(const uint32_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int by_end(const void *a, const void *b, void *ctx)
{
	const struct cp_cmd *x = &((const struct cp_cmd *)ctx)[*(const uint32_t *)a];
	const struct cp_cmd *y = &((const struct cp_cmd *)ctx)[*(const uint32_t *)b];

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Queue order, launch calls by corr, and each corr's latest-ending command. */
static int link(struct ht_cp_build *b)
{
	for (size_t i = 0; i < b->nqueues; i++) {
		struct cp_queue *q = &b->queues[i];

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
		struct cp_cmd *d = &b->cmds[i];
		struct cp_proc *p = &b->procs[b->queues[d->queue].proc];
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
static uint32_t waited_on_queue(const struct ht_cp_build *b, const struct cp_queue *q,
				const struct cp_call *c)
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
		const struct cp_cmd *d = &b->cmds[q->by_end[k]];

		if (d->end <= c->begin)
			break;
		if (d->call != NONE ? b->calls[d->call].begin <= c->begin : d->start < c->end)
			return q->by_end[k];
	}
	return NONE;
}

static uint32_t waited_for(const struct ht_cp_build *b, const struct cp_call *c)
{
	const struct cp_proc *p = &b->procs[b->threads[c->thread].proc];
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
				  uint32_t name, const struct cp_thread *th,
				  const struct cp_queue *q)
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
	w->b->segp[cp->nseg] = (struct cp_span){0, 0};
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
static void cpu_step(struct walk *w, uint64_t from, const struct cp_thread *th, uint32_t first,
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
		w->b->segp[w->b->cp->nseg - 1] = (struct cp_span){first, n};
}

static enum node walk_thread_end(struct walk *w, struct cp_thread *th, uint32_t *at)
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
	struct cp_call *c = &b->calls[ci];
	struct cp_thread *th = &b->threads[c->thread];
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
	struct cp_call *c = &b->calls[ci];
	struct cp_thread *th = &b->threads[c->thread];

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
	struct cp_cmd *d = &b->cmds[di];
	const struct cp_queue *q = &b->queues[d->queue];
	uint64_t tq = 0, tl = 0;
	int have_q = d->prev != NONE && !(b->cmds[d->prev].seen & 1);
	int have_l = d->call != NONE;

	if (have_q)
		tq = b->cmds[d->prev].end;
	if (have_l) {
		const struct cp_call *c = &b->calls[d->call];

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
			if (!(r = ht_cp_row(cp, s->kind, s->name)))
				return -ENOMEM;
			r->ns += len;
			r->segments++;
			continue;
		}
		const struct cp_piece *pc = b->pieces + b->segp[i].first;
		uint32_t n = b->segp[i].n;

		if (b->ends_only)
			continue; /* the path thread's own table, below */
		for (uint32_t k = 0; k < n; k++)
			sum += pc[k].ns;
		for (uint32_t k = 0; k < n && sum; k++) {
			uint64_t ns =
			    k + 1 == n ? len - given : (uint64_t)((double)pc[k].ns * len / sum);

			if (!(r = ht_cp_row(cp, HT_CP_CPU, pc[k].name)))
				return -ENOMEM;
			r->ns += ns;
			r->segments++;
			given += ns;
		}
		if (!sum && len) { /* a step with no recorded pieces */
			if (!(r = ht_cp_row(cp, HT_CP_CPU, b->no_frame)))
				return -ENOMEM;
			r->ns += len;
			r->segments++;
		}
	}
	if (!b->ends_only || b->path_thread == NONE)
		return 0;
	for (size_t i = 0; i < b->threads[b->path_thread].nitems; i++) {
		const struct cp_piece *pc = &b->threads[b->path_thread].items[i];
		struct ht_cp_row *r;

		if (!pc->ns)
			continue;
		if (!(r = ht_cp_row(cp, HT_CP_CPU, pc->name)))
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
		struct cp_span p = b->segp[i];

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

int ht_cp_walk(struct ht_cp_build *b)
{
	int rc = link(b);

	return rc ? rc : finish(b);
}
