/*
 * The timeline (see timeline.h): the merged trace turned into semantic
 * records, with a clock-sync pass first and a reorder window for device
 * commands.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpustate.h"
#include "analysis/timeline.h"
#include "common/heap.h"

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

struct frame {
	uint16_t fn;
	uint64_t begin;
};

struct ht_tl_proc {
	int announced;
	/* device commands held for device-time order (min-heap on ts) */
	struct ht_tl_record *held;
	unsigned int nheld, capheld;
	/* enqueues not seen on a device yet (min-heap on begin, lazy deletion) */
	struct pending *open;
	unsigned int nopen, capopen;
	/* corrs seen: before their enqueue returned, or to delete lazily */
	uint64_t *seen;
	unsigned int nseen, capseen; /* open addressing, capseen a power of two */
	uint64_t *queues;
	unsigned int nqueues;
};

struct ht_tl_stream {
	int announced;
	uint64_t lost;
	struct frame *stack;
	unsigned int depth, cap;
};

/* ---- small containers ---- */

static int grow(void **v, unsigned int *cap, size_t elem, unsigned int need)
{
	if (need <= *cap)
		return 0;
	unsigned int c = *cap ? *cap : 16;

	while (c < need)
		c *= 2;
	void *n = realloc(*v, (size_t)c * elem);

	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The seen-set: corr -> present. 0 is never a corr. */
static int seen_has(const struct ht_tl_proc *p, uint64_t corr)
{
	if (!p->capseen)
		return 0;
	for (uint64_t i = mix(corr) & (p->capseen - 1);; i = (i + 1) & (p->capseen - 1)) {
		if (!p->seen[i])
			return 0;
		if (p->seen[i] == corr)
			return 1;
	}
}

static int seen_put(struct ht_tl_proc *p, uint64_t corr);

static int seen_rehash(struct ht_tl_proc *p, unsigned int cap)
{
	uint64_t *old = p->seen;
	unsigned int oldcap = p->capseen;

	p->seen = calloc(cap, sizeof *p->seen);
	if (!p->seen) {
		p->seen = old;
		return -ENOMEM;
	}
	p->capseen = cap;
	p->nseen = 0;
	for (unsigned int i = 0; i < oldcap; i++)
		if (old[i] && old[i] != UINT64_MAX)
			seen_put(p, old[i]);
	free(old);
	return 0;
}

static int seen_put(struct ht_tl_proc *p, uint64_t corr)
{
	if ((p->nseen + 1) * 2 > p->capseen && seen_rehash(p, p->capseen ? p->capseen * 2 : 256))
		return -ENOMEM;
	for (uint64_t i = mix(corr) & (p->capseen - 1);; i = (i + 1) & (p->capseen - 1)) {
		if (p->seen[i] == corr)
			return 0;
		if (!p->seen[i]) {
			p->seen[i] = corr;
			p->nseen++;
			return 0;
		}
	}
}

/* Tombstone (UINT64_MAX keeps probe chains intact). */
static void seen_del(struct ht_tl_proc *p, uint64_t corr)
{
	if (!p->capseen)
		return;
	for (uint64_t i = mix(corr) & (p->capseen - 1);; i = (i + 1) & (p->capseen - 1)) {
		if (!p->seen[i])
			return;
		if (p->seen[i] == corr) {
			p->seen[i] = UINT64_MAX;
			return;
		}
	}
}

static int open_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const struct pending *)a)->begin < ((const struct pending *)b)->begin;
}

static void open_sift_up(struct ht_tl_proc *p, unsigned int i)
{
	ht_heap_sift_up(p->open, sizeof *p->open, i, open_less, NULL);
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
	if (grow((void **)&p->held, &p->capheld, sizeof *p->held, p->nheld + 1))
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
	if (grow((void **)&tl->out, &tl->capout, sizeof *tl->out, tl->nout + 1))
		return -ENOMEM;
	tl->out[tl->nout++] = *r;
	return 0;
}

/* ---- devices ---- */

static struct ht_tl_device *tl_device(struct ht_timeline *tl, int32_t pid, uint32_t dev)
{
	for (unsigned int i = 0; i < tl->ndevs; i++)
		if (tl->devs[i].pid == pid && tl->devs[i].device == dev)
			return &tl->devs[i];
	struct ht_tl_device *n = realloc(tl->devs, (tl->ndevs + 1) * sizeof *n);

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

static int sync_sample(void *ctx, unsigned int proc, const struct ht_event *ev)
{
	struct ht_timeline *tl = ctx;
	struct ht_sync_sample smp[2];
	unsigned int n = ht_sync_samples(ev, smp);

	for (unsigned int i = 0; i < n; i++) {
		struct ht_tl_device *d =
		    tl_device(tl, atoi(tl->trace->procs[proc].name), smp[i].device);

		if (!d)
			return -ENOMEM;
		ht_clock_sync_add(&d->cs, smp[i].kind, smp[i].device_ts, smp[i].host_ns);
	}
	return 0;
}

/* The clock-sync pass: device streams only. */
static int sync_pass(struct ht_timeline *tl)
{
	int rc = ht_trace_each_device_event(tl->trace, sync_sample, tl, &tl->err);

	if (rc)
		return rc;
	for (unsigned int i = 0; i < tl->ndevs; i++)
		if (ht_clock_sync_solve(&tl->devs[i].cs, &tl->devs[i].map))
			return -ENOMEM;
	return 0;
}

int ht_timeline_open(struct ht_timeline *tl, struct ht_trace *t)
{
	int rc;

	memset(tl, 0, sizeof *tl);
	tl->trace = t;
	rc = sync_pass(tl);
	if (rc)
		goto err;
	rc = ht_merge_open(&tl->m, t);
	if (rc) {
		tl->err = tl->m.err;
		goto err;
	}
	/*
	 * Definitions first: a string is defined just before its first use, but
	 * the two sit in different streams whose times are converted from
	 * different anchors, so the merge may deliver the use first.
	 */
	for (unsigned int i = 0; i < t->nprocs; i++) {
		rc = ht_proc_info_load(&tl->m.procs[i], &t->procs[i], &tl->err);
		if (rc)
			goto err;
	}
	tl->procs = calloc(t->nprocs ? t->nprocs : 1, sizeof *tl->procs);
	tl->streams = calloc(tl->m.nstreams ? tl->m.nstreams : 1, sizeof *tl->streams);
	if (!tl->procs || !tl->streams) {
		rc = -ENOMEM;
		goto err;
	}
	return 0;
err : {
	struct ht_read_error e = tl->err;

	ht_timeline_close(tl);
	tl->err = e;
}
	return rc;
}

/* ---- records ---- */

static void base(struct ht_tl_record *r, enum ht_tl_kind k, const struct ht_merged *e)
{
	memset(r, 0, offsetof(struct ht_tl_record, args));
	r->kind = k;
	r->ts = e->ev->ts;
	r->pid = e->proc->pid;
	r->ppid = e->proc->ppid;
	r->tid = e->stream->vtid;
}

/* Decodes api_end arguments by the function's descriptors; the corr role names the command. */
static void fn_args(struct ht_tl_record *r, const struct ht_proc_info *pi,
		    const struct ht_fn_info *fn, const uint8_t *p)
{
	unsigned int n = p[0];

	for (unsigned int i = 0; i < n && i < HT_TL_ARGS; i++) {
		uint64_t v = ht_le64(p + 1 + 8 * i);
		const struct ht_fn_arg_info *d = fn && i < fn->nargs ? &fn->args[i] : NULL;
		struct ht_tl_arg *g = &r->args[r->nargs++];

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
		if (d && d->role == HT_AR_CORR)
			r->corr = v;
	}
}

static void instant_args(struct ht_tl_record *r, const struct ht_proc_info *pi, const uint8_t *p)
{
	unsigned int n = p[0];

	for (unsigned int i = 0; i < n && i < HT_TL_ARGS; i++) {
		const uint8_t *a = p + 1 + HT_IARG_SIZE * i;
		struct ht_tl_arg *g = &r->args[r->nargs++];
		uint64_t v = ht_le64(a + 5);

		g->key = ht_proc_string(pi, ht_le32(a));
		switch (a[4]) {
		case HT_ARG_INT:
			g->type = HT_TL_INT;
			g->v.i = (int64_t)v;
			break;
		case HT_ARG_DOUBLE:
			g->type = HT_TL_DOUBLE;
			memcpy(&g->v.f, &v, 8);
			break;
		case HT_ARG_STRING:
			g->type = HT_TL_STRING;
			g->v.s = ht_proc_string(pi, (uint32_t)v);
			break;
		default:
			g->type = HT_TL_UINT;
			g->v.u = v;
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

static int device_command(struct ht_timeline *tl, const struct ht_merged *e)
{
	struct ht_tl_proc *p = &tl->procs[e->stream->proc];
	const uint8_t *q = e->ev->payload;
	struct ht_tl_record r;
	enum ht_cmd_kind kind = q[20] < HT_CMD_KIND_COUNT ? (enum ht_cmd_kind)q[20] : HT_CMD_OTHER;
	uint8_t dom = q[29];
	uint64_t start = ht_le64(q + 46), end = ht_le64(q + 54);

	base(&r, HT_TL_DEVICE, e);
	r.tid = 0;
	r.corr = ht_le64(q);
	r.queue = ht_le64(q + 8);
	r.device = ht_le32(q + 16);
	r.category = ht_cmd_kind_names[kind];
	r.name = kind == HT_CMD_KERNEL && ht_le32(q + 70) ? ht_proc_string(e->proc, ht_le32(q + 70))
							  : r.category;
	r.text = ht_proc_device_name(e->proc, r.device);
	if (!r.text)
		r.text = "device"; /* not described by the source */
	r.status = (int32_t)ht_le32(q + 25);
	r.bytes = ht_le64(q + 62);
	memcpy(r.global, q + 74, 24);
	memcpy(r.local, q + 98, 24);
	if (r.status == 0 && (start || end)) {
		r.queued = to_host(tl, r.pid, r.device, dom, ht_le64(q + 30));
		r.submit = to_host(tl, r.pid, r.device, dom, ht_le64(q + 38));
		r.ts = to_host(tl, r.pid, r.device, dom, start);
		r.end = to_host(tl, r.pid, r.device, dom, end < start ? start : end);
	} else {
		r.end = r.ts; /* failed or without timestamps: a mark where it was collected */
	}
	tl->device_commands++;
	if (r.corr) {
		if (seen_put(p, r.corr))
			return -ENOMEM;
	}
	return held_push(p, &r);
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

		/* the earliest enqueue still waiting for its command */
		while (p->nopen && (seen_has(p, p->open[0].corr) ||
				    now > p->open[0].begin + HT_REORDER_EXPIRE_NS)) {
			if (seen_has(p, p->open[0].corr))
				seen_del(p, p->open[0].corr);
			else
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
		int known = 0;

		for (unsigned int i = 0; i < p->nqueues; i++)
			known |= p->queues[i] == r.queue;
		if (!known) {
			struct ht_tl_record qr = r;
			uint64_t *nq = realloc(p->queues, (p->nqueues + 1) * sizeof *nq);

			if (!nq)
				return -ENOMEM;
			p->queues = nq;
			p->queues[p->nqueues++] = r.queue;
			qr.kind = HT_TL_QUEUE;
			qr.nargs = 0;
			qr.name = qr.text; /* the device's name, kept with the command */
			if (out_push(tl, &qr))
				return -ENOMEM;
		}
		if (out_push(tl, &r))
			return -ENOMEM;
	}
	return 0;
}

/* Turns one merged event into records (tl->rec and/or the out queue). Return: records in rec. */
static int take(struct ht_timeline *tl, const struct ht_merged *e, int *have)
{
	struct ht_tl_proc *p = &tl->procs[e->stream->proc];
	struct ht_tl_stream *ss = &tl->streams[e->stream_index];
	const uint8_t *q = e->ev->payload;
	struct ht_tl_record *r = &tl->rec;
	const struct ht_fn_info *fn;

	*have = 0;
	if (!p->announced && (e->ev->id == HT_EV_PROCESS_INFO || !e->stream->is_shared ||
			      e->ev->sc != HT_SC_THREAD)) {
		struct ht_tl_record pr;

		p->announced = 1;
		base(&pr, HT_TL_PROCESS, e);
		pr.tid = pr.pid;
		pr.name = e->proc->comm[0] ? e->proc->comm : e->proc->tp->name;
		if (e->ev->sc == HT_SC_THREAD && e->ev->id == HT_EV_PROCESS_INFO) {
			pr.pid = (int32_t)ht_le32(q);
			pr.ppid = (int32_t)ht_le32(q + 4);
			pr.name = (const char *)q + 8;
			pr.text = pr.name + strlen(pr.name) + 1;
		}
		if (out_push(tl, &pr))
			return -ENOMEM;
	}
	if (e->stream->lost > ss->lost) {
		struct ht_tl_record lr;

		base(&lr, HT_TL_LOST, e);
		lr.value = (double)(e->stream->lost - ss->lost);
		ss->lost = e->stream->lost;
		if (out_push(tl, &lr))
			return -ENOMEM;
	}
	if (e->ev->sc == HT_SC_DEVICE) {
		if (e->ev->id == HT_EV_DEVICE_COMMAND)
			return device_command(tl, e);
		return 0;
	}
	if (!e->stream->is_shared && !ss->announced) {
		struct ht_tl_record tr;

		ss->announced = 1;
		base(&tr, HT_TL_THREAD, e);
		tr.name = "";
		if (e->ev->id == HT_EV_THREAD_INFO)
			return base(r, HT_TL_THREAD, e), r->name = (const char *)q + 4, *have = 1,
							 0;
		if (out_push(tl, &tr))
			return -ENOMEM;
	}
	base(r, HT_TL_INSTANT, e);
	r->nargs = 0;
	switch (e->ev->id) {
	case HT_EV_THREAD_INFO:
		r->kind = HT_TL_THREAD;
		r->name = (const char *)q + 4;
		break;
	case HT_EV_API_BEGIN:
		fn = ht_proc_fn(e->proc, ht_le16(q));
		r->kind = HT_TL_SLICE_BEGIN;
		r->category = "api";
		r->name = fn ? fn->name : "?";
		if (grow((void **)&ss->stack, &ss->cap, sizeof *ss->stack, ss->depth + 1))
			return -ENOMEM;
		ss->stack[ss->depth].fn = ht_le16(q);
		ss->stack[ss->depth++].begin = e->ev->ts;
		break;
	case HT_EV_API_END: {
		uint64_t begin = e->ev->ts;

		fn = ht_proc_fn(e->proc, ht_le16(q));
		r->kind = HT_TL_SLICE_END;
		r->category = "api";
		r->name = fn ? fn->name : "?";
		r->ret = (int32_t)ht_le32(q + 2);
		for (unsigned int i = ss->depth; i-- > 0;)
			if (ss->stack[i].fn == ht_le16(q)) {
				begin = ss->stack[i].begin;
				ss->depth = i;
				break;
			}
		fn_args(r, e->proc, fn, q + 6);
		if (r->corr) {
			/* this enqueue's command may still be in flight */
			if (seen_has(p, r->corr)) {
				seen_del(p, r->corr);
			} else {
				if (grow((void **)&p->open, &p->capopen, sizeof *p->open,
					 p->nopen + 1))
					return -ENOMEM;
				p->open[p->nopen].begin = begin;
				p->open[p->nopen].corr = r->corr;
				open_sift_up(p, p->nopen++);
			}
		}
		break;
	}
	case HT_EV_REGION_BEGIN:
	case HT_EV_REGION_END:
		r->kind = e->ev->id == HT_EV_REGION_BEGIN ? HT_TL_SLICE_BEGIN : HT_TL_SLICE_END;
		r->category = "region";
		r->name = ht_proc_string(e->proc, ht_le32(q));
		break;
	case HT_EV_INSTANT:
		r->name = ht_proc_string(e->proc, ht_le32(q));
		r->category = "instant";
		instant_args(r, e->proc, q + 4);
		break;
	case HT_EV_COUNTER:
	case HT_EV_COUNTER_DOUBLE:
		r->kind = HT_TL_COUNTER;
		r->name = ht_proc_string(e->proc, ht_le32(q));
		if (e->ev->id == HT_EV_COUNTER)
			r->value = (double)(int64_t)ht_le64(q + 4);
		else
			memcpy(&r->value, q + 4, 8);
		break;
	case HT_EV_LOST:
		r->kind = HT_TL_LOST;
		r->tid = 0;
		r->value = (double)ht_le64(q + 1);
		break;
	case HT_EV_CPU_STATE:
		if (q[4] >= HT_CPU_STATE_COUNT)
			return 0;
		r->kind = HT_TL_CPU_STATE;
		r->tid = (int32_t)ht_le32(q);
		r->name = ht_cpu_state_names[q[4]];
		r->category = "cpu_state";
		r->ts = ht_le64(q + 5);
		r->end = ht_le64(q + 13);
		r->nargs = 1;
		r->args[0].key = "cpu";
		r->args[0].type = HT_TL_UINT;
		r->args[0].v.u = ht_le32(q + 21);
		break;
	default:
		return 0; /* definitions: already applied by the merge */
	}
	*have = 1;
	return 0;
}

int ht_timeline_next(struct ht_timeline *tl, const struct ht_tl_record **out)
{
	for (;;) {
		struct ht_merged e;
		int rc, have;

		if (tl->outpos < tl->nout) {
			*out = &tl->out[tl->outpos++];
			return 1;
		}
		tl->nout = tl->outpos = 0;
		if (tl->merge_done)
			return 0;
		rc = ht_merge_next(&tl->m, &e);
		if (rc < 0) {
			tl->err = tl->m.err;
			return rc;
		}
		if (rc == 0) {
			tl->merge_done = 1;
			for (unsigned int i = 0; i < tl->trace->nprocs; i++)
				if (release(tl, &tl->procs[i], 1, UINT64_MAX))
					return -ENOMEM;
			continue;
		}
		rc = take(tl, &e, &have);
		if (rc < 0)
			return rc;
		rc = release(tl, &tl->procs[e.stream->proc], 0, e.ev->ts);
		if (rc < 0)
			return rc;
		if (have) {
			/* records queued by take() (announcements) go first */
			if (tl->nout) {
				if (out_push(tl, &tl->rec))
					return -ENOMEM;
				continue;
			}
			*out = &tl->rec;
			return 1;
		}
	}
}

void ht_timeline_close(struct ht_timeline *tl)
{
	for (unsigned int i = 0; tl->procs && i < tl->trace->nprocs; i++) {
		free(tl->procs[i].held);
		free(tl->procs[i].open);
		free(tl->procs[i].seen);
		free(tl->procs[i].queues);
	}
	for (unsigned int i = 0; tl->streams && i < tl->m.nstreams; i++)
		free(tl->streams[i].stack);
	free(tl->streams);
	free(tl->procs);
	for (unsigned int i = 0; i < tl->ndevs; i++)
		ht_clock_sync_release(&tl->devs[i].cs);
	free(tl->devs);
	free(tl->out);
	ht_merge_close(&tl->m);
	memset(tl, 0, sizeof *tl);
}
