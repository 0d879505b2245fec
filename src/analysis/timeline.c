/*
 * The timeline (see timeline.h): decoded packets from the pipeline, merged
 * by time, each event decoded once by its class's generated decoder and
 * turned into records; a clock-sync pass first; a reorder window for device
 * commands.
 *
 * The merge keeps a heap of streams keyed by their next event's time. Most
 * events come in runs from one stream (a thread writes thousands of events
 * between two of another's), so after taking an event the front stream is
 * compared with the heap's two children only; the heap moves when another
 * stream's next event comes first. (The generic heap with a callback cost
 * a quarter of the old reader's time.)
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_records.h"
#include "analysis/timeline.h"
#include "common/grow.h"
#include "common/heap.h"
#include "common/map.h"

struct ht_tl_device {
	int32_t pid;
	uint32_t device;
	struct ht_clock_sync cs;
	struct ht_clock_map map;
};

/* An enqueue call whose device command has not been seen yet. */
struct pending {
	uint64_t begin, corr;
};

/* An open API call or region of a thread. */
struct frame {
	uint32_t id; /* fn id, or string id for regions */
	uint8_t region;
	uint32_t stack; /* its calling context (api_stack), 0 if none */
	uint64_t begin;
};

struct ht_tl_proc {
	int announced;
	/* device commands held for device-time order (min-heap on ts) */
	struct ht_tl_record *held;
	size_t nheld, capheld;
	/* enqueues not seen on a device yet (min-heap on begin, lazy deletion) */
	struct pending *open;
	size_t nopen, capopen;
	struct ht_map seen; /* corrs seen before their enqueue returned, or to delete lazily */
	struct ht_map queues;
};

struct ht_tl_stream {
	/* what every record of the stream repeats, kept here on the event path */
	const struct ht_proc_info *pi;
	unsigned int proc;
	int32_t vtid;
	uint8_t kind;	/* ht_pipe_kind */
	uint8_t device; /* device stream class */
	const struct ht_batch *b;
	size_t i;    /* next event in b */
	uint64_t ts; /* its time (the heap key) */
	int shared;  /* process or OS stream: ties go to it (definitions before uses) */
	int need;    /* b is used up: fetch the next packet before reading on */
	int done;
	int announced;
	uint64_t lost; /* events_discarded so far */
	struct frame *stack;
	size_t depth, cap;
	uint32_t stack_next; /* api_stack: the context of the slice that begins next */
	uint64_t events;
	uint64_t first_ts, last_ts; /* of its first and last event taken */
	uint64_t by_class[32];
	/* in a mem_accesses event: the next access is step `step` of run `run` (more: any left) */
	uint32_t run, step;
	int more;
};

/* What an event gives when it gives no record (timeline.noop): nothing, or a frame opened. */
enum { NOOP_NONE = 1, NOOP_REGION_BEGIN = 2, NOOP_API_BEGIN = 3 };

/* ---- the stream heap ---- */

static inline int before(const struct ht_timeline *tl, unsigned int a, unsigned int b)
{
	const struct ht_tl_stream *x = &tl->streams[a], *y = &tl->streams[b];

	if (x->ts != y->ts)
		return x->ts < y->ts;
	if (x->shared != y->shared)
		return x->shared;
	return a < b;
}

static void sift_down(struct ht_timeline *tl, size_t i)
{
	unsigned int *h = tl->heap;
	size_t n = tl->nheap;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(tl, h[l], h[m]))
			m = l;
		if (l + 1 < n && before(tl, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		unsigned int t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * Which heap child comes next after the top, and its time (call after the
 * heap changed). Only the top stream moves, so these stay true until then.
 */
static void find_second(struct ht_timeline *tl)
{
	if (tl->nheap > 2 && before(tl, tl->heap[2], tl->heap[1]))
		tl->second = tl->heap[2];
	else if (tl->nheap > 1)
		tl->second = tl->heap[1];
	tl->limit = tl->nheap > 1 ? tl->streams[tl->second].ts : UINT64_MAX;
}

/* Return: nonzero when the top stream si, its next event at ts, still comes first. */
static inline int stays_first(const struct ht_timeline *tl, unsigned int si, uint64_t ts)
{
	if (ts != tl->limit)
		return ts < tl->limit;
	return tl->nheap < 2 || before(tl, si, tl->second);
}

static void sift_up(struct ht_timeline *tl, size_t i)
{
	unsigned int *h = tl->heap;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!before(tl, h[i], h[p]))
			return;
		unsigned int t = h[i];

		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

/* ---- small containers ---- */

static int open_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const struct pending *)a)->begin < ((const struct pending *)b)->begin;
}

static void open_pop(struct ht_tl_proc *p)
{
	p->open[0] = p->open[--p->nopen];
	ht_heap_sift_down(p->open, sizeof *p->open, p->nopen, 0, open_less, NULL);
}

static int held_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const struct ht_tl_record *)a)->ts < ((const struct ht_tl_record *)b)->ts;
}

static int held_push(struct ht_tl_proc *p, const struct ht_tl_record *r)
{
	if (ht_grow((void **)&p->held, &p->capheld, sizeof *p->held, p->nheld + 1))
		return -ENOMEM;
	p->held[p->nheld] = *r;
	ht_heap_sift_up(p->held, sizeof *p->held, p->nheld++, held_less, NULL);
	return 0;
}

static void held_pop(struct ht_tl_proc *p, struct ht_tl_record *out)
{
	*out = p->held[0];
	p->held[0] = p->held[--p->nheld];
	ht_heap_sift_down(p->held, sizeof *p->held, p->nheld, 0, held_less, NULL);
}

static int out_push(struct ht_timeline *tl, const struct ht_tl_record *r)
{
	if (ht_grow((void **)&tl->out, &tl->capout, sizeof *tl->out, tl->nout + 1))
		return -ENOMEM;
	tl->out[tl->nout++] = *r;
	return 0;
}

static int nomem(struct ht_timeline *tl)
{
	snprintf(tl->err.file, sizeof tl->err.file, "%s", tl->trace->path);
	tl->err.offset = HT_NO_OFFSET;
	snprintf(tl->err.msg, sizeof tl->err.msg, "out of memory");
	return -ENOMEM;
}

/* ---- devices and the clock-sync pass ---- */

static struct ht_tl_device *tl_device(struct ht_timeline *tl, int32_t pid, uint32_t dev)
{
	struct ht_tl_device *n;

	for (unsigned int i = 0; i < tl->ndevs; i++)
		if (tl->devs[i].pid == pid && tl->devs[i].device == dev)
			return &tl->devs[i];
	n = realloc(tl->devs, (tl->ndevs + 1) * sizeof *n);
	if (!n)
		return NULL;
	tl->devs = n;
	memset(&n[tl->ndevs], 0, sizeof *n);
	n[tl->ndevs].pid = pid;
	n[tl->ndevs].device = dev;
	return &n[tl->ndevs++];
}

const struct ht_clock_map *ht_timeline_clock_map(const struct ht_timeline *tl, int32_t pid,
						 uint32_t device)
{
	for (unsigned int i = 0; i < tl->ndevs; i++)
		if (tl->devs[i].pid == pid && tl->devs[i].device == device)
			return &tl->devs[i].map;
	return NULL;
}

unsigned int ht_timeline_ndevices(const struct ht_timeline *tl)
{
	return tl->ndevs;
}

void ht_timeline_device(const struct ht_timeline *tl, unsigned int i, int32_t *pid,
			uint32_t *device, const struct ht_clock_map **map)
{
	*pid = tl->devs[i].pid;
	*device = tl->devs[i].device;
	*map = &tl->devs[i].map;
}

const struct ht_proc_info *ht_timeline_proc(const struct ht_timeline *tl, unsigned int proc)
{
	return &tl->defs[proc];
}

/*
 * A host time from a payload as trace time: the process's clock shift (an
 * MPI rank's offset against the job's reference clock, mpi_defs.h), which
 * the pipeline applied to every event time already.
 */
static inline uint64_t host_ns(const struct ht_timeline *tl, unsigned int proc, uint64_t v)
{
	return ht_clock_shift_apply(&tl->trace->procs[proc].shift, v);
}

/* Every bounding pair of the device streams, then one map per (process, device). */
static int sync_pass(struct ht_timeline *tl)
{
	struct ht_pipe p;
	struct ht_pipe_opts po = {.kinds = HT_PK_DEVICE,
				  .workers = tl->pipe.opts.workers,
				  .allow_raw = tl->opts.allow_raw};
	int rc = ht_pipe_open(&p, tl->trace, &po, &tl->err);

	if (rc)
		return rc;
	for (unsigned int s = 0; s < p.nstreams && !rc; s++) {
		const struct ht_batch *b;
		int32_t pid = tl->defs[p.streams[s].proc].pid;

		while (!rc && (rc = ht_pipe_next(&p, s, &b, &tl->err)) > 0) {
			rc = 0;
			for (size_t i = 0; i < b->n && !rc; i++) {
				const struct ht_evref *e = &b->ev[i];
				struct ht_sync_sample smp[2];
				unsigned int n = 0;
				union ht_ev_any u;

				/* host times in payloads: shifted like event times (host_ns) */
				if (e->id == HT_EV_DEVICE_COMMAND &&
				    ht_ev_device_command_get(&u.device_command, b->buf + e->off,
							     e->size) >= 0) {
					u.device_command.host_before = host_ns(
					    tl, p.streams[s].proc, u.device_command.host_before);
					n = ht_sync_samples_command(&u.device_command, e->ts, smp);
				} else if (e->id == HT_EV_CLOCK_PAIR &&
					   ht_ev_clock_pair_get(&u.clock_pair, b->buf + e->off,
								e->size) >= 0) {
					u.clock_pair.host_ns =
					    host_ns(tl, p.streams[s].proc, u.clock_pair.host_ns);
					n = ht_sync_samples_pair(&u.clock_pair, smp);
				}
				for (unsigned int k = 0; k < n; k++) {
					struct ht_tl_device *d = tl_device(tl, pid, smp[k].device);

					if (!d) {
						rc = nomem(tl);
						break;
					}
					ht_clock_sync_add(&d->cs, smp[k].kind, smp[k].device_ts,
							  smp[k].host_ns);
				}
			}
		}
	}
	ht_pipe_close(&p);
	if (rc < 0)
		return rc;
	for (unsigned int i = 0; i < tl->ndevs; i++)
		if (ht_clock_sync_solve(&tl->devs[i].cs, &tl->devs[i].map))
			return nomem(tl);
	return 0;
}

/* ---- open / close ---- */

int ht_timeline_open(struct ht_timeline *tl, struct ht_trace *t, const struct ht_tl_opts *opts)
{
	struct ht_pipe_opts po = {0};
	const char *env = getenv("HETRACE_ANALYSIS_THREADS");
	int rc;

	memset(tl, 0, sizeof *tl);
	tl->trace = t;
	if (opts)
		tl->opts = *opts;
	if (!tl->opts.kinds)
		tl->opts.kinds = HT_PK_ALL;
	po.kinds = tl->opts.kinds;
	/* ht_tl_opts: 0 one per core, < 0 none; the pipeline's: < 0 one per core, 0 none */
	po.workers = tl->opts.workers == 0 ? -1 : tl->opts.workers < 0 ? 0 : tl->opts.workers;
	tl->reorder = (po.kinds & (HT_PK_THREAD | HT_PK_DEVICE)) == (HT_PK_THREAD | HT_PK_DEVICE);
	/* thread-class events that give no record with these options */
	for (uint32_t id = 0; id < HT_EV_THREAD_COUNT && id < 32; id++) {
		unsigned int skip = tl->opts.skip;
		int none;

		switch (id) {
		case HT_EV_COUNTER:
		case HT_EV_COUNTER_DOUBLE:
			none = skip & 1u << HT_TL_COUNTER ? NOOP_NONE : 0;
			break;
		case HT_EV_INSTANT:
			none = skip & 1u << HT_TL_INSTANT ? NOOP_NONE : 0;
			break;
		case HT_EV_MPI_P2P:
		case HT_EV_MPI_REQUEST:
		case HT_EV_MPI_COLL:
		case HT_EV_MPI_RMA:
			none = skip & 1u << HT_TL_MPI ? NOOP_NONE : 0;
			break;
		case HT_EV_REGION_BEGIN:
			none = skip & 1u << HT_TL_SLICE_BEGIN ? NOOP_REGION_BEGIN : 0;
			break;
		case HT_EV_API_BEGIN:
			none = skip & 1u << HT_TL_SLICE_BEGIN ? NOOP_API_BEGIN : 0;
			break;
		case HT_EV_CLOCK_ANCHOR:
			none = !tl->opts.meta || skip & 1u << HT_TL_ANCHOR ? NOOP_NONE : 0;
			break;
		case HT_EV_STRING_DEF:
		case HT_EV_FN_DEF:
		case HT_EV_PROCESS_INFO:
		case HT_EV_DEVICE_INFO:
		case HT_EV_QUEUE_INFO:
		case HT_EV_MODULE_LOAD:
		case HT_EV_MODULE_UNLOAD:
		case HT_EV_MPI_RANK:
		case HT_EV_MPI_COMM:
		case HT_EV_MPI_WIN:
		case HT_EV_MPI_CLOCK:
			none = !tl->opts.meta || skip & 1u << HT_TL_DEFINITION ? NOOP_NONE : 0;
			break;
		case HT_EV_CPU_SAMPLE:
			none = skip & 1u << HT_TL_SAMPLE ? NOOP_NONE : 0;
			break;
		case HT_EV_TASK:
			none = skip & 1u << HT_TL_TASK ? NOOP_NONE : 0;
			break;
		default:
			none = 0;
		}
		tl->noop[id] = (uint8_t)none;
	}
	if (env && *env && !tl->opts.workers) {
		char *end;
		long v = strtol(env, &end, 10);

		if (*end || v < 0 || v > 64) {
			tl->err.file[0] = '\0'; /* about the environment, not a file */
			tl->err.offset = HT_NO_OFFSET;
			snprintf(
			    tl->err.msg, sizeof tl->err.msg,
			    "HETRACE_ANALYSIS_THREADS='%.64s' is not a number of threads from 0 "
			    "to 64",
			    env);
			return -EINVAL;
		}
		po.workers = (int)v;
	}
	tl->pipe.opts.workers = po.workers; /* for the sync pass */
	tl->defs = calloc(t->nprocs ? t->nprocs : 1, sizeof *tl->defs);
	tl->procs = calloc(t->nprocs ? t->nprocs : 1, sizeof *tl->procs);
	if (!tl->defs || !tl->procs) {
		rc = nomem(tl);
		goto err;
	}
	/*
	 * Definitions first: a string is defined just before its first use, but
	 * the two sit in different streams whose times are converted from
	 * different anchors, so the merge may deliver the use first.
	 */
	for (unsigned int i = 0; i < t->nprocs; i++) {
		rc = ht_proc_info_load(&tl->defs[i], &t->procs[i], &tl->err);
		if (rc)
			goto err;
	}
	/* MPI ranks of other nodes: their clocks against the reference, before any time is read */
	ht_mpi_clock_shifts(t, tl->defs);
	if (tl->opts.kinds & HT_PK_DEVICE) {
		rc = sync_pass(tl);
		if (rc)
			goto err;
	}
	rc = ht_pipe_open(&tl->pipe, t, &po, &tl->err);
	if (rc)
		goto err;
	tl->streams = calloc(tl->pipe.nstreams ? tl->pipe.nstreams : 1, sizeof *tl->streams);
	tl->heap = calloc(tl->pipe.nstreams ? tl->pipe.nstreams : 1, sizeof *tl->heap);
	if (!tl->streams || !tl->heap) {
		rc = nomem(tl);
		goto err;
	}
	for (unsigned int i = 0; i < tl->pipe.nstreams; i++) {
		struct ht_tl_stream *st = &tl->streams[i];

		st->shared = tl->pipe.streams[i].kind & (HT_PK_PROCESS | HT_PK_OS);
		st->need = 1;
		st->proc = tl->pipe.streams[i].proc;
		st->pi = &tl->defs[st->proc];
		st->kind = (uint8_t)tl->pipe.streams[i].kind;
	}
	return 0;
err : {
	struct ht_read_error e = tl->err;

	ht_timeline_close(tl);
	tl->err = e;
}
	return rc;
}

void ht_timeline_close(struct ht_timeline *tl)
{
	for (unsigned int i = 0; tl->procs && i < tl->trace->nprocs; i++) {
		free(tl->procs[i].held);
		free(tl->procs[i].open);
		ht_map_release(&tl->procs[i].seen);
		ht_map_release(&tl->procs[i].queues);
	}
	for (unsigned int i = 0; tl->streams && i < tl->pipe.nstreams; i++)
		free(tl->streams[i].stack);
	for (unsigned int i = 0; tl->defs && i < tl->trace->nprocs; i++)
		ht_proc_info_release(&tl->defs[i]);
	if (tl->pipe.streams)
		ht_pipe_close(&tl->pipe);
	free(tl->streams);
	free(tl->heap);
	free(tl->procs);
	free(tl->defs);
	for (unsigned int i = 0; i < tl->ndevs; i++)
		ht_clock_sync_release(&tl->devs[i].cs);
	free(tl->devs);
	free(tl->out);
	ht_tl_mpi_release(tl->mpi);
	memset(tl, 0, sizeof *tl);
}

/* ---- streams ---- */

/*
 * Makes stream si point at its next event, fetching packets as needed.
 * Return: 1 (has an event), 0 (ended), < 0 (error, tl->err).
 */
static int refill(struct ht_timeline *tl, unsigned int si)
{
	struct ht_tl_stream *s = &tl->streams[si];

	while (s->need) {
		const struct ht_batch *b;
		int rc = ht_pipe_next(&tl->pipe, si, &b, &tl->err);

		if (rc <= 0) {
			s->done = 1;
			s->b = NULL;
			return rc;
		}
		s->b = b;
		s->i = 0;
		s->need = b->n == 0;
		for (int k = 0; k < 32; k++)
			s->by_class[k] += b->by_class[k];
		s->vtid = tl->pipe.streams[si].first.vtid;
		s->device = b->pk.sc == HT_SC_DEVICE;
	}
	s->ts = s->b->ev[s->i].ts;
	return 1;
}

/*
 * Fills the records' common part and clears the rest of it, field by field:
 * a memset here compiles to `rep stos`, whose start-up cost (and the store
 * stalled behind it) was half of this function's time per event.
 */
static inline void base(struct ht_tl_record *r, enum ht_tl_kind k, const struct ht_timeline *tl,
			unsigned int si, uint64_t ts)
{
	const struct ht_tl_stream *s = &tl->streams[si];

	r->kind = k;
	r->ts = ts;
	r->end = 0;
	r->begin = 0;
	r->pid = s->pi->pid;
	r->ppid = s->pi->ppid;
	r->tid = s->vtid;
	r->proc = s->proc;
	r->stream = si;
	r->source = s->kind;
	r->device = 0;
	r->queue = 0;
	r->name = NULL;
	r->category = NULL;
	r->text = NULL;
	r->fn = NULL;
	r->name_id = 0;
	r->fn_id = 0;
	r->cmd_kind = 0;
	r->api = 0;
	r->paired = 0;
	r->depth = 0;
	r->stack = 0;
	r->corr = 0;
	r->ret = 0;
	r->value = 0;
	r->count = 0;
	r->nargs = 0;
}

/*
 * Announcements a stream's event brings: its process (before the first
 * record of any of its threads or devices), its thread (unless the event
 * names it), and the losses its packet counts.
 */
static int announce(struct ht_timeline *tl, unsigned int si, const struct ht_evref *e)
{
	struct ht_tl_stream *s = &tl->streams[si];
	const struct ht_pipe_stream *ps = &tl->pipe.streams[si];
	struct ht_tl_proc *p = &tl->procs[ps->proc];
	const struct ht_proc_info *pi = &tl->defs[ps->proc];
	struct ht_tl_record r;

	/* a thread's or a device's first event makes the process appear, not its definitions */
	if (!p->announced && !s->shared) {
		p->announced = 1;
		base(&r, HT_TL_PROCESS, tl, si, e->ts);
		r.tid = r.pid;
		r.name = pi->comm[0] ? pi->comm : pi->tp->name;
		r.text = pi->cmdline ? pi->cmdline : "";
		if (out_push(tl, &r))
			return nomem(tl);
	}
	if (!s->announced) {
		s->announced = 1;
		if (ps->kind == HT_PK_THREAD && e->id != HT_EV_THREAD_INFO) {
			base(&r, HT_TL_THREAD, tl, si, e->ts);
			r.name = "";
			if (out_push(tl, &r))
				return nomem(tl);
		}
	}
	if (s->b->pk.discarded > s->lost) {
		base(&r, HT_TL_LOST, tl, si, e->ts);
		r.count = s->b->pk.discarded - s->lost;
		r.value = (double)r.count;
		r.cmd_kind = HT_LOST_KIND_COUNT;
		s->lost = s->b->pk.discarded;
		if (out_push(tl, &r))
			return nomem(tl);
	}
	return 0;
}

/* ---- records ---- */

/* api_end arguments by the function's descriptors; the corr role names the command. */
static void fn_args(struct ht_tl_record *r, const struct ht_proc_info *pi,
		    const struct ht_fn_info *fn, const struct ht_ev_api_end *e, int decode)
{
	for (unsigned int i = 0; i < e->args_n && i < HT_TL_ARGS; i++) {
		uint64_t v = e->args[i];
		const struct ht_fn_arg_info *d = fn && i < fn->nargs ? &fn->args[i] : NULL;
		struct ht_tl_arg *g;

		if (d && d->role == HT_AR_CORR)
			r->corr = v;
		if (!decode)
			continue;
		g = &r->args[r->nargs++];
		g->key = d ? d->name : "arg";
		switch (d ? d->type : HT_FA_UINT) {
		case HT_FA_HEX:
			g->type = HT_TL_HEX;
			g->v.u = v;
			break;
		case HT_FA_INT:
			g->type = HT_TL_INT;
			g->v.i = (int64_t)v;
			break;
		case HT_FA_STR:
			g->type = HT_TL_STRING;
			g->v.s = ht_proc_string(pi, (uint32_t)v);
			break;
		default:
			g->type = HT_TL_UINT;
			g->v.u = v;
		}
	}
}

static void instant_args(struct ht_tl_record *r, const struct ht_proc_info *pi,
			 const struct ht_ev_instant *e)
{
	for (unsigned int i = 0; i < e->args_n && i < HT_TL_ARGS; i++) {
		const struct ht_iarg *a = &e->args[i];
		struct ht_tl_arg *g = &r->args[r->nargs++];

		g->key = ht_proc_string(pi, a->key);
		switch (a->type) {
		case HT_ARG_INT:
			g->type = HT_TL_INT;
			g->v.i = (int64_t)a->value;
			break;
		case HT_ARG_DOUBLE:
			g->type = HT_TL_DOUBLE;
			memcpy(&g->v.f, &a->value, 8);
			break;
		case HT_ARG_STRING:
			g->type = HT_TL_STRING;
			g->v.s = ht_proc_string(pi, (uint32_t)a->value);
			break;
		default:
			g->type = HT_TL_UINT;
			g->v.u = a->value;
		}
	}
}

static uint64_t to_host(struct ht_timeline *tl, int32_t pid, uint32_t dev, uint8_t dom, uint64_t v)
{
	const struct ht_clock_map *m;

	if (!v || dom == HT_DOM_HOST)
		return v;
	m = ht_timeline_clock_map(tl, pid, dev);
	return m ? ht_clock_map_apply(m, v) : v;
}

/* Reorder only when the enqueues are read too (thread streams). */
static inline int reordering(const struct ht_timeline *tl)
{
	return tl->reorder;
}

static int device_command(struct ht_timeline *tl, unsigned int si, uint64_t ts,
			  const struct ht_ev_device_command *c, int *have)
{
	struct ht_tl_record *r = &tl->rec;
	const struct ht_proc_info *pi = &tl->defs[tl->pipe.streams[si].proc];
	struct ht_tl_proc *p = &tl->procs[tl->pipe.streams[si].proc];
	enum ht_cmd_kind kind =
	    c->kind < HT_CMD_KIND_COUNT ? (enum ht_cmd_kind)c->kind : HT_CMD_OTHER;

	base(r, HT_TL_DEVICE, tl, si, ts);
	r->tid = 0;
	r->corr = c->corr;
	r->queue = c->queue;
	r->device = c->device;
	r->cmd_kind = (uint8_t)kind;
	r->category = ht_cmd_kind_names[kind];
	r->name_id = kind == HT_CMD_KERNEL ? ht_proc_string_id(pi, c->name) : 0;
	r->name = kind == HT_CMD_KERNEL && c->name ? ht_proc_string(pi, c->name) : r->category;
	r->text = ht_proc_device_name(pi, r->device);
	if (!r->text)
		r->text = "device"; /* not described by the source */
	r->status = c->status;
	r->bytes = c->bytes;
	r->host_before = host_ns(tl, r->proc, c->host_before);
	r->collected = ts;
	memcpy(r->global, c->global, sizeof r->global);
	memcpy(r->local, c->local, sizeof r->local);
	r->timed = c->status == 0 && (c->start || c->end);
	if (r->timed) {
		r->queued = to_host(tl, r->pid, r->device, c->ts_domain, c->queued);
		r->submit = to_host(tl, r->pid, r->device, c->ts_domain, c->submit);
		r->ts = to_host(tl, r->pid, r->device, c->ts_domain, c->start);
		r->end = to_host(tl, r->pid, r->device, c->ts_domain,
				 c->end < c->start ? c->start : c->end);
	} else {
		r->queued = r->submit = 0;
		r->end = r->ts; /* failed or without timestamps: a mark where it was collected */
	}
	tl->device_commands++;
	if (!reordering(tl)) {
		int created;

		if (!ht_map_u64(&p->queues, r->queue, 1, &created))
			return nomem(tl);
		if (created) {
			struct ht_tl_record qr = *r;

			qr.kind = HT_TL_QUEUE;
			qr.name = qr.text;
			if (out_push(tl, &qr))
				return nomem(tl);
		}
		*have = 1;
		return 0;
	}
	if (r->corr && !ht_map_u64(&p->seen, r->corr, 1, NULL))
		return nomem(tl);
	return held_push(p, r) ? nomem(tl) : 0;
}

/*
 * Releases held device commands that nothing seen later can precede. `now`
 * is the merge's time: an enqueue whose command has not arrived after
 * HT_REORDER_EXPIRE_NS (a record the vendor layer lost) stops holding others.
 */
static int release(struct ht_timeline *tl, struct ht_tl_proc *p, int all, uint64_t now)
{
	while (p->nheld) {
		uint64_t limit = UINT64_MAX;
		struct ht_tl_record r;
		int created;

		/* the earliest enqueue still waiting for its command */
		while (p->nopen && (ht_map_find_u64(&p->seen, p->open[0].corr) ||
				    now > p->open[0].begin + HT_REORDER_EXPIRE_NS)) {
			if (!ht_map_del_u64(&p->seen, p->open[0].corr))
				tl->reorder_expired++;
			open_pop(p);
		}
		if (p->nopen)
			limit = p->open[0].begin;
		if (!all && p->held[0].ts >= limit && p->nheld <= HT_REORDER_MAX)
			return 0;
		if (!all && p->held[0].ts >= limit)
			tl->reorder_overflows++;
		held_pop(p, &r);
		/* the queue's first command announces its track */
		if (!ht_map_u64(&p->queues, r.queue, 1, &created))
			return nomem(tl);
		if (created) {
			struct ht_tl_record qr = r;

			qr.kind = HT_TL_QUEUE;
			qr.nargs = 0;
			qr.name = qr.text; /* the device's name, kept with the command */
			if (out_push(tl, &qr))
				return nomem(tl);
		}
		if (out_push(tl, &r))
			return nomem(tl);
	}
	return 0;
}

static inline int push_frame(struct ht_timeline *tl, struct ht_tl_stream *s, uint32_t id,
			     int region, uint64_t ts)
{
	if (__builtin_expect(s->depth == s->cap, 0) &&
	    ht_grow((void **)&s->stack, &s->cap, sizeof *s->stack, s->depth + 1))
		return nomem(tl);
	s->stack[s->depth].id = id;
	s->stack[s->depth].region = (uint8_t)region;
	s->stack[s->depth].stack = s->stack_next; /* the api_stack before it, if any */
	s->stack_next = 0;
	s->stack[s->depth++].begin = ts;
	return 0;
}

/*
 * Closes the innermost open frame (id, region) and any left open inside it.
 * Return: 1 with its begin time and calling context in r, or 0 (nothing
 * popped) when there is none.
 */
static int pop_frame(struct ht_tl_stream *s, uint32_t id, int region, struct ht_tl_record *r)
{
	for (size_t i = s->depth; i-- > 0;)
		if (s->stack[i].id == id && s->stack[i].region == region) {
			s->depth = i;
			r->begin = s->stack[i].begin;
			r->stack = s->stack[i].stack;
			return 1;
		}
	return 0;
}

/* A memory-access event (events.def's device memory accesses) as its HT_TL_MEM_* record. */
static int mem_event(struct ht_timeline *tl, unsigned int si, const struct ht_evref *e,
		     const uint8_t *q, int *have)
{
	struct ht_tl_record *r = &tl->rec;
	const struct ht_proc_info *pi = tl->streams[si].pi;
	union ht_ev_any u;

	if (tl->opts.skip & (1u << (HT_TL_MEM_SITE + (e->id - HT_EV_MEM_SITE))))
		return 0;
	memset(&r->mem, 0, sizeof r->mem);
	switch (e->id) {
	case HT_EV_MEM_ACCESSES: {
		/* one access per call; the stream stays on the event while accesses are left */
		struct ht_tl_stream *s = &tl->streams[si];
		struct ht_memrun run = {.count = 0};

		if (ht_ev_mem_accesses_get(&u.mem_accesses, q, e->size) < 0)
			return 0;
		while (s->run < u.mem_accesses.runs_n) {
			ht_memrun_get(u.mem_accesses.runs, s->run, &run);
			if (s->step < run.count)
				break;
			s->run++; /* a run of 0 accesses: only a corrupt trace has one */
			s->step = 0;
		}
		if (s->run == u.mem_accesses.runs_n) {
			s->run = s->step = 0;
			s->more = 0;
			return 0;
		}
		base(r, HT_TL_MEM_ACCESS, tl, si, e->ts);
		r->corr = u.mem_accesses.corr;
		r->mem.group = u.mem_accesses.group;
		r->mem.addr = run.addr + (uint64_t)((int64_t)run.stride * s->step);
		r->mem.item = (uint32_t)run.item + s->step;
		r->mem.site = run.site;
		r->mem.size = run.size;
		r->mem.kind = run.kind;
		if (++s->step == run.count) {
			s->run++;
			s->step = 0;
		}
		s->more = s->run < u.mem_accesses.runs_n;
		if (!s->more)
			s->run = 0;
		break;
	}
	case HT_EV_MEM_SITE:
		if (ht_ev_mem_site_get(&u.mem_site, q, e->size) < 0)
			return 0;
		base(r, HT_TL_MEM_SITE, tl, si, e->ts);
		r->name = ht_proc_string(pi, u.mem_site.kernel);
		r->mem.module = u.mem_site.module;
		r->mem.site = u.mem_site.site;
		r->mem.arg = u.mem_site.arg;
		r->mem.kind = u.mem_site.kind;
		r->mem.size = u.mem_site.size;
		r->mem.line = u.mem_site.line;
		r->mem.col = u.mem_site.col;
		r->text = ht_proc_string(pi, u.mem_site.file);
		break;
	case HT_EV_MEM_LAUNCH:
		if (ht_ev_mem_launch_get(&u.mem_launch, q, e->size) < 0)
			return 0;
		base(r, HT_TL_MEM_LAUNCH, tl, si, e->ts);
		r->corr = u.mem_launch.corr;
		r->name_id = u.mem_launch.kernel;
		r->name = ht_proc_string(pi, u.mem_launch.kernel);
		memcpy(r->global, u.mem_launch.global, sizeof r->global);
		memcpy(r->local, u.mem_launch.local, sizeof r->local);
		r->mem.module = u.mem_launch.module;
		r->mem.sample = u.mem_launch.sample;
		break;
	case HT_EV_MEM_ARG:
		if (ht_ev_mem_arg_get(&u.mem_arg, q, e->size) < 0)
			return 0;
		base(r, HT_TL_MEM_ARG, tl, si, e->ts);
		r->corr = u.mem_arg.corr;
		r->mem.arg = (int32_t)u.mem_arg.arg;
		r->mem.base = u.mem_arg.base;
		r->mem.bytes = u.mem_arg.size;
		break;
	case HT_EV_MEM_LAUNCH_END:
		if (ht_ev_mem_launch_end_get(&u.mem_launch_end, q, e->size) < 0)
			return 0;
		base(r, HT_TL_MEM_END, tl, si, e->ts);
		r->corr = u.mem_launch_end.corr;
		r->mem.records = u.mem_launch_end.records;
		r->mem.dropped = u.mem_launch_end.dropped;
		if (r->mem.dropped) {
			struct ht_tl_record lost;

			base(&lost, HT_TL_LOST, tl, si, e->ts);
			lost.tid = 0;
			lost.cmd_kind = HT_LOST_MEMORY_ACCESS;
			lost.count = r->mem.dropped;
			lost.value = (double)r->mem.dropped;
			if (out_push(tl, r) || out_push(tl, &lost))
				return nomem(tl);
			return 0;
		}
		break;
	default:
		return 0;
	}
	*have = 1;
	return 0;
}

/* A device PC-sample event (CUDA's) as its HT_TL_PC_* record. */
static int pc_event(struct ht_timeline *tl, unsigned int si, const struct ht_evref *e,
		    const uint8_t *q, int *have)
{
	struct ht_tl_record *r = &tl->rec;
	const struct ht_proc_info *pi = tl->streams[si].pi;
	union ht_ev_any u;
	int line = e->id == HT_EV_PC_LINE;

	if (tl->opts.skip & (1u << (line ? HT_TL_PC_LINE : HT_TL_PC_SAMPLE)))
		return 0;
	memset(&r->pc, 0, sizeof r->pc);
	if (line) {
		if (ht_ev_pc_line_get(&u.pc_line, q, e->size) < 0)
			return 0;
		base(r, HT_TL_PC_LINE, tl, si, e->ts);
		r->name = ht_proc_string(pi, u.pc_line.function);
		r->pc.module = u.pc_line.module;
		r->pc.pc = u.pc_line.pc;
		r->pc.file = ht_proc_string(pi, u.pc_line.file);
		r->pc.line = u.pc_line.line;
	} else {
		if (ht_ev_pc_sample_get(&u.pc_sample, q, e->size) < 0)
			return 0;
		base(r, HT_TL_PC_SAMPLE, tl, si, e->ts);
		r->corr = u.pc_sample.corr;
		r->name = ht_proc_string(pi, u.pc_sample.function);
		r->pc.module = u.pc_sample.module;
		r->pc.pc = u.pc_sample.pc;
		r->pc.stall = u.pc_sample.stall ? ht_proc_string(pi, u.pc_sample.stall) : NULL;
		r->count = u.pc_sample.samples;
	}
	*have = 1;
	return 0;
}

/*
 * Turns one event into records: tl->rec (*have set) and/or the out queue.
 * A payload its class's decoder refuses cannot occur: the pipeline walked
 * it with the same decoder.
 */
static int take(struct ht_timeline *tl, unsigned int si, const struct ht_evref *e, int *have)
{
	struct ht_tl_stream *s = &tl->streams[si];
	const struct ht_proc_info *pi = s->pi;
	struct ht_tl_record *r = &tl->rec;
	const uint8_t *q = s->b->buf + e->off;
	union ht_ev_any u;

	*have = 0;
	if (s->device) {
		if (e->id == HT_EV_DEVICE_COMMAND &&
		    ht_ev_device_command_get(&u.device_command, q, e->size) >= 0)
			return device_command(tl, si, e->ts, &u.device_command, have);
		if (e->id >= HT_EV_MEM_SITE && e->id <= HT_EV_MEM_LAUNCH_END)
			return mem_event(tl, si, e, q, have);
		if (e->id == HT_EV_PC_LINE || e->id == HT_EV_PC_SAMPLE)
			return pc_event(tl, si, e, q, have);
		if (e->id == HT_EV_CLOCK_PAIR && tl->opts.meta &&
		    ht_ev_clock_pair_get(&u.clock_pair, q, e->size) >= 0) {
			base(r, HT_TL_CLOCK_PAIR, tl, si, e->ts);
			r->device = u.clock_pair.device;
			r->cmd_kind = u.clock_pair.kind;
			r->host_before = host_ns(tl, s->proc, u.clock_pair.host_ns);
			r->queued =
			    to_host(tl, r->pid, r->device, HT_DOM_DEVICE, u.clock_pair.device_ts);
			*have = 1;
		}
		return 0;
	}
	switch (e->id) {
	case HT_EV_REGION_BEGIN:
	case HT_EV_REGION_END: {
		uint32_t name = ht_le32(q + HT_OFF_REGION_BEGIN_NAME);

		if (e->id == HT_EV_REGION_BEGIN && tl->opts.skip & (1u << HT_TL_SLICE_BEGIN))
			return push_frame(tl, s, name, 1, e->ts); /* its end still pairs */
		base(r, e->id == HT_EV_REGION_BEGIN ? HT_TL_SLICE_BEGIN : HT_TL_SLICE_END, tl, si,
		     e->ts);
		r->category = "region";
		r->name_id = ht_proc_string_id(pi, name);
		r->name = ht_proc_string(pi, name);
		if (e->id == HT_EV_REGION_BEGIN) {
			r->stack = s->stack_next;
			if (push_frame(tl, s, name, 1, e->ts))
				return -ENOMEM;
		} else {
			r->begin = e->ts;
			r->paired = (uint8_t)pop_frame(s, name, 1, r);
		}
		r->depth = (uint32_t)s->depth;
		break;
	}
	case HT_EV_COUNTER:
	case HT_EV_COUNTER_DOUBLE:
		if (tl->opts.skip & (1u << HT_TL_COUNTER))
			return 0;
		if (ht_ev_counter_get(&u.counter, q, e->size) < 0) /* one layout for both */
			return 0;
		base(r, HT_TL_COUNTER, tl, si, e->ts);
		r->name_id = ht_proc_string_id(pi, u.counter.name);
		r->name = ht_proc_string(pi, u.counter.name);
		if (e->id == HT_EV_COUNTER)
			r->value = (double)u.counter.value;
		else
			memcpy(&r->value, &u.counter.value, 8);
		break;
	case HT_EV_API_BEGIN:
		if (ht_ev_api_begin_get(&u.api_begin, q, e->size) < 0)
			return 0;
		if (tl->opts.skip & (1u << HT_TL_SLICE_BEGIN))
			return push_frame(tl, s, u.api_begin.fn, 0,
					  e->ts); /* its end still pairs */
		base(r, HT_TL_SLICE_BEGIN, tl, si, e->ts);
		r->fn_id = u.api_begin.fn;
		r->fn = ht_proc_fn(pi, u.api_begin.fn);
		r->category = "api";
		r->api = 1;
		r->name = r->fn ? r->fn->name : "?";
		r->stack = s->stack_next;
		if (push_frame(tl, s, u.api_begin.fn, 0, e->ts))
			return -ENOMEM;
		r->depth = (uint32_t)s->depth;
		break;
	case HT_EV_API_END: {
		struct ht_tl_proc *p = &tl->procs[s->proc];

		if (ht_ev_api_end_get(&u.api_end, q, e->size) < 0)
			return 0;
		base(r, HT_TL_SLICE_END, tl, si, e->ts);
		r->fn_id = u.api_end.fn;
		r->fn = ht_proc_fn(pi, u.api_end.fn);
		r->category = "api";
		r->api = 1;
		r->name = r->fn ? r->fn->name : "?";
		r->ret = u.api_end.ret;
		r->begin = e->ts;
		r->paired = (uint8_t)pop_frame(s, u.api_end.fn, 0, r);
		r->depth = (uint32_t)s->depth;
		fn_args(r, pi, r->fn, &u.api_end, !tl->opts.no_args);
		if (r->corr && reordering(tl)) {
			/* this enqueue's command may still be in flight */
			if (!ht_map_del_u64(&p->seen, r->corr)) {
				if (ht_grow((void **)&p->open, &p->capopen, sizeof *p->open,
					    p->nopen + 1))
					return nomem(tl);
				p->open[p->nopen].begin = r->begin;
				p->open[p->nopen].corr = r->corr;
				ht_heap_sift_up(p->open, sizeof *p->open, p->nopen++, open_less,
						NULL);
			}
		}
		break;
	}
	case HT_EV_THREAD_INFO:
		if (ht_ev_thread_info_get(&u.thread_info, q, e->size) < 0)
			return 0;
		base(r, HT_TL_THREAD, tl, si, e->ts);
		r->tid = u.thread_info.tid;
		r->name = u.thread_info.name;
		break;
	case HT_EV_INSTANT:
		if (tl->opts.skip & (1u << HT_TL_INSTANT))
			return 0;
		if (ht_ev_instant_get(&u.instant, q, e->size) < 0)
			return 0;
		base(r, HT_TL_INSTANT, tl, si, e->ts);
		r->name_id = ht_proc_string_id(pi, u.instant.name);
		r->name = ht_proc_string(pi, u.instant.name);
		r->category = "instant";
		if (!tl->opts.no_args)
			instant_args(r, pi, &u.instant);
		break;
	case HT_EV_LOST:
		if (ht_ev_lost_get(&u.lost, q, e->size) < 0)
			return 0;
		base(r, HT_TL_LOST, tl, si, e->ts);
		r->tid = 0;
		r->cmd_kind =
		    u.lost.kind < HT_LOST_KIND_COUNT ? u.lost.kind : HT_LOST_DEVICE_RECORD;
		r->count = u.lost.count;
		r->value = (double)u.lost.count;
		break;
	case HT_EV_CPU_STATE:
		if (ht_ev_cpu_state_get(&u.cpu_state, q, e->size) < 0 ||
		    u.cpu_state.state >= HT_CPU_STATE_COUNT)
			return 0;
		base(r, HT_TL_CPU_STATE, tl, si, host_ns(tl, s->proc, u.cpu_state.begin_ns));
		r->tid = u.cpu_state.tid;
		r->cmd_kind = u.cpu_state.state;
		r->name = ht_cpu_state_names[u.cpu_state.state];
		r->category = "cpu_state";
		r->end = host_ns(tl, s->proc, u.cpu_state.end_ns);
		r->nargs = 1;
		r->args[0].key = "cpu";
		r->args[0].type = HT_TL_UINT;
		r->args[0].v.u = u.cpu_state.cpu;
		break;
	case HT_EV_API_STACK:
		s->stack_next = ht_le32(q + HT_OFF_API_STACK_NODE);
		return 0;
	case HT_EV_CPU_SAMPLE:
		if (tl->opts.skip & (1u << HT_TL_SAMPLE) ||
		    ht_ev_cpu_sample_get(&u.cpu_sample, q, e->size) < 0)
			return 0;
		base(r, HT_TL_SAMPLE, tl, si, e->ts);
		r->tid = u.cpu_sample.tid;
		r->stack = u.cpu_sample.node;
		r->category = "cpu_sample";
		break;
	case HT_EV_SAMPLE_COUNTER:
		if (tl->opts.skip & (1u << HT_TL_COUNTER) ||
		    ht_ev_sample_counter_get(&u.sample_counter, q, e->size) < 0)
			return 0;
		base(r, HT_TL_COUNTER, tl, si, e->ts);
		r->tid = u.sample_counter.tid;
		r->name = pi->stacks->counters[u.sample_counter.index];
		if (!r->name)
			r->name = "?";
		r->value = (double)u.sample_counter.value;
		break;
	case HT_EV_TASK:
		if (tl->opts.skip & (1u << HT_TL_TASK) || ht_ev_task_get(&u.task, q, e->size) < 0 ||
		    u.task.kind >= HT_TASK_KIND_COUNT)
			return 0;
		base(r, HT_TL_TASK, tl, si, e->ts);
		r->tid = u.task.tid;
		r->cmd_kind = u.task.kind;
		r->category = ht_task_kind_names[u.task.kind];
		r->begin = u.task.ns;
		r->ret = u.task.code;
		r->value = u.task.signal;
		r->name = u.task.name;
		break;
	case HT_EV_STACK_NODE:
	case HT_EV_COUNTER_NAME:
		/* the samples stream's, each before its first use (the process's are loaded) */
		if (s->kind != HT_PK_PROCESS)
			ht_stacks_define(pi->stacks, e->id, q, e->size);
		if (!tl->opts.meta || tl->opts.skip & (1u << HT_TL_DEFINITION))
			return 0;
		base(r, HT_TL_DEFINITION, tl, si, e->ts);
		r->name = ht_format_event_class(HT_SC_THREAD, e->id)->name;
		break;
	case HT_EV_CLOCK_ANCHOR:
		if (!tl->opts.meta || tl->opts.skip & (1u << HT_TL_ANCHOR) ||
		    ht_ev_clock_anchor_get(&u.clock_anchor, q, e->size) < 0)
			return 0;
		base(r, HT_TL_ANCHOR, tl, si, e->ts);
		r->value = u.clock_anchor.kind;
		break;
	case HT_EV_OS_STATUS:
		if (!tl->opts.meta || ht_ev_os_status_get(&u.os_status, q, e->size) < 0)
			return 0;
		base(r, HT_TL_OS_STATUS, tl, si, e->ts);
		r->value = u.os_status.kind;
		r->text = u.os_status.reason;
		break;
	case HT_EV_MPI_P2P:
	case HT_EV_MPI_REQUEST:
	case HT_EV_MPI_COLL:
	case HT_EV_MPI_RMA: /* messages, collectives, one-sided accesses: mpi_records.c */
		if (tl->opts.skip & (1u << HT_TL_MPI))
			return 0;
		base(r, HT_TL_MPI, tl, si, e->ts);
		r->begin = s->depth ? s->stack[s->depth - 1].begin : e->ts; /* its MPI call's */
		r->depth = (uint32_t)s->depth;
		return ht_tl_mpi_take(tl, r, e->id, q, e->size, have);
	default: /* definitions: loaded before the timeline started */
		if (!tl->opts.meta || e->id >= HT_EV_THREAD_COUNT ||
		    tl->opts.skip & (1u << HT_TL_DEFINITION))
			return 0;
		base(r, HT_TL_DEFINITION, tl, si, e->ts);
		r->name = ht_format_event_class(HT_SC_THREAD, e->id)->name;
		break;
	}
	*have = 1;
	return 0;
}

static int start(struct ht_timeline *tl)
{
	tl->started = 1;
	for (unsigned int i = 0; i < tl->pipe.nstreams; i++) {
		int rc = refill(tl, i);

		if (rc < 0)
			return rc;
		if (rc > 0) {
			tl->heap[tl->nheap] = i;
			sift_up(tl, tl->nheap++);
		}
	}
	find_second(tl);
	return 0;
}

/*
 * Steps over a run of events of stream si that give no record (classes the
 * consumer skips, definitions), counting them, while the stream stays ahead
 * of every other: a report over a trace of counters and regions spends a
 * third of its events here at a few cycles each.
 */
static int skip_run(struct ht_timeline *tl, unsigned int si)
{
	struct ht_tl_stream *s = &tl->streams[si];
	const struct ht_evref *ev = s->b->ev;
	const uint8_t *buf = s->b->buf;
	size_t i = s->i, n = s->b->n, i0 = i;
	uint8_t k;

	while (i < n && ev[i].id < 32 && (k = tl->noop[ev[i].id])) {
		/* a begin the consumer does not want still opens its frame */
		if (k == NOOP_REGION_BEGIN &&
		    push_frame(tl, s, ht_le32(buf + ev[i].off + HT_OFF_REGION_BEGIN_NAME), 1,
			       ev[i].ts))
			return -ENOMEM;
		if (k == NOOP_API_BEGIN &&
		    push_frame(tl, s, ht_le16(buf + ev[i].off + HT_OFF_API_BEGIN_FN), 0, ev[i].ts))
			return -ENOMEM;
		i++;
		if (i < n && !stays_first(tl, si, ev[i].ts))
			break;
	}
	tl->events += i - i0;
	s->events += i - i0;
	s->last_ts = ev[i - 1].ts;
	s->i = i;
	if (i == n) {
		s->need = 1;
	} else {
		s->ts = ev[i].ts;
		if (!stays_first(tl, si, s->ts)) {
			sift_down(tl, 0);
			find_second(tl);
		}
	}
	return 0;
}

int ht_timeline_next(struct ht_timeline *tl, const struct ht_tl_record **out)
{
	if (!tl->started) {
		int rc = start(tl);

		if (rc < 0)
			return rc;
	}
	for (;;) {
		unsigned int si;
		struct ht_tl_stream *s;
		const struct ht_evref *e;
		int rc, have;

		if (tl->outpos < tl->nout) {
			*out = &tl->out[tl->outpos++];
			return 1;
		}
		tl->nout = tl->outpos = 0;
		if (tl->merge_done)
			return 0;
		if (!tl->nheap) {
			tl->merge_done = 1;
			for (unsigned int i = 0; i < tl->trace->nprocs; i++)
				if (release(tl, &tl->procs[i], 1, UINT64_MAX))
					return -ENOMEM;
			continue;
		}
		si = tl->heap[0];
		s = &tl->streams[si];
		if (s->need) {
			/* the front stream used its packet up at the last call */
			rc = refill(tl, si);
			if (rc < 0)
				return rc;
			if (rc == 0) {
				tl->heap[0] = tl->heap[--tl->nheap];
				if (tl->nheap)
					sift_down(tl, 0);
				find_second(tl);
				if (s->events && tl->opts.meta) {
					base(&tl->rec, HT_TL_STREAM_END, tl, si, s->last_ts);
					*out = &tl->rec;
					return 1;
				}
				continue;
			}
			sift_down(tl, 0);
			find_second(tl);
			continue;
		}
		e = &s->b->ev[s->i];
		if (tl->noop[e->id & 31] && e->id < 32 && s->i && s->announced && !s->device) {
			if (skip_run(tl, si))
				return nomem(tl);
			continue;
		}
		if ((s->i == 0 || !s->announced) && !s->more && (rc = announce(tl, si, e)) < 0)
			return rc;
		rc = take(tl, si, e, &have);
		if (rc < 0)
			return rc;
		if (s->more) { /* an event of several records (mem_accesses) with some left */
			if (have) {
				*out = &tl->rec;
				return 1;
			}
			continue;
		}
		tl->events++;
		if (!s->events++)
			s->first_ts = e->ts;
		s->last_ts = e->ts;
		if (++s->i == s->b->n) {
			s->need = 1; /* fetched at the next call: the record points into b */
		} else {
			s->ts = s->b->ev[s->i].ts;
			/* the heap moves only when another stream's event comes first */
			if (!stays_first(tl, si, s->ts)) {
				sift_down(tl, 0);
				find_second(tl);
			}
		}
		if (reordering(tl)) {
			rc = release(tl, &tl->procs[tl->pipe.streams[si].proc], 0, e->ts);
			if (rc < 0)
				return rc;
		}
		if (have) {
			/* records queued by take() (announcements) go first */
			if (tl->nout) {
				if (out_push(tl, &tl->rec))
					return nomem(tl);
				continue;
			}
			*out = &tl->rec;
			return 1;
		}
	}
}

unsigned int ht_timeline_nstreams(const struct ht_timeline *tl)
{
	return tl->pipe.nstreams;
}

void ht_timeline_stream_stats(const struct ht_timeline *tl, unsigned int i,
			      struct ht_tl_stream_stats *st)
{
	const struct ht_pipe_stream *ps = &tl->pipe.streams[i];
	const struct ht_tl_stream *s = &tl->streams[i];

	memset(st, 0, sizeof *st);
	st->name = ps->name;
	st->proc = ps->proc;
	st->kind = ps->kind;
	st->vtid = ps->have_first ? ps->first.vtid : 0;
	st->bytes = ps->file_size;
	st->packets = ps->packets;
	st->raw_packets = ps->raw_packets;
	st->events = s->events;
	st->first_ts = s->first_ts;
	st->last_ts = s->last_ts;
	st->discarded = ps->prev_discarded;
	memcpy(st->by_class, s->by_class, sizeof st->by_class);
	st->torn = ps->torn;
	st->torn_offset = ps->torn_offset;
	st->torn_bytes = ps->torn_bytes;
}
