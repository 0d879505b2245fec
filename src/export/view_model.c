/*
 * Building the HTML view's model (view_model.h): pass 1 counts slices and
 * samples per track and finds the span; the budget then marks the largest
 * tracks aggregated (water-filling: small tracks keep everything, the rest
 * share what is left); pass 2 fills full tracks and, for aggregated ones,
 * time buckets plus a min-heap of their longest slices. Memory stays bounded
 * by the budgets, not by the trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpustate.h"
#include "export/export_tracks.h"
#include "export/view_model.h"
#include "format/format.h"
#include "common/grow.h"
#include "common/heap.h"

/* ---- strings ---- */

int64_t ht_view_model_intern(struct ht_view_model *m, const char *s)
{
	size_t cap = m->capstr;
	uint64_t *id;
	char *copy;

	if (!s || !*s)
		return 0;
	id = ht_map_find_str(&m->strtab, s);
	if (id)
		return (int64_t)*id;
	if (ht_grow((void **)&m->str, &cap, sizeof *m->str, m->nstr + 1))
		return -ENOMEM;
	m->capstr = (uint32_t)cap;
	copy = strdup(s);
	if (!copy || !ht_map_str(&m->strtab, s, m->nstr, NULL)) {
		free(copy);
		return -ENOMEM;
	}
	m->str[m->nstr] = copy;
	return m->nstr++;
}

/* ---- tracks ---- */

/* A track's identity: kind, pid, tid or device, counter name or queue. */
struct track_key {
	int32_t kind, pid;
	int64_t a;  /* tid or device */
	uint64_t b; /* counter name id or queue */
};

/* Return: the track with this key, created if new; NULL on -ENOMEM. */
static struct ht_view_track *track_get(struct ht_view_model *m, enum ht_view_track_kind kind,
				       int32_t pid, int64_t a, uint64_t b)
{
	struct track_key key = {(int32_t)kind, pid, a, b};
	struct ht_view_track *t;
	size_t cap = m->captracks;
	int created;
	uint64_t *i;

	if (ht_grow((void **)&m->tracks, &cap, sizeof *m->tracks, m->ntracks + 1))
		return NULL;
	m->captracks = (uint32_t)cap;
	i = ht_map_bytes(&m->tracktab, &key, sizeof key, m->ntracks, &created);
	if (!i)
		return NULL;
	if (!created)
		return &m->tracks[*i];
	t = &m->tracks[m->ntracks++];
	memset(t, 0, sizeof *t);
	t->kind = kind;
	t->pid = pid;
	if (kind == HT_VIEW_THREAD || kind == HT_VIEW_COUNTER || kind == HT_VIEW_CPU)
		t->tid = (int32_t)a;
	else
		t->device = (uint32_t)a;
	if (kind == HT_VIEW_COUNTER)
		t->name = (uint32_t)b;
	else if (kind != HT_VIEW_THREAD)
		t->queue = b;
	t->vmin = INFINITY;
	t->vmax = -INFINITY;
	return t;
}

static struct ht_view_proc *proc_get(struct ht_view_model *m, int32_t pid)
{
	size_t cap = m->capprocs;

	for (unsigned int i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid == pid)
			return &m->procs[i];
	if (ht_grow((void **)&m->procs, &cap, sizeof *m->procs, m->nprocs + 1))
		return NULL;
	m->capprocs = (unsigned int)cap;
	memset(&m->procs[m->nprocs], 0, sizeof *m->procs);
	m->procs[m->nprocs].pid = pid;
	return &m->procs[m->nprocs++];
}

/* ---- slices ---- */

/* Aggregated tracks keep their longest slices in a min-heap by duration. */
static int shorter(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const struct ht_view_slice *)a)->dur < ((const struct ht_view_slice *)b)->dur;
}

static void bucket_add(struct ht_view_model *m, struct ht_view_track *t,
		       const struct ht_view_slice *s)
{
	unsigned int d = s->depth < HT_VIEW_BUCKET_DEPTHS ? s->depth : HT_VIEW_BUCKET_DEPTHS - 1;
	struct ht_view_bucket *b = t->b[d];
	uint64_t start = s->ts < m->t0 ? 0 : s->ts - m->t0, end = start + s->dur;
	uint64_t b0 = start / t->bw, b1 = end / t->bw;

	if (!b)
		return;
	if (b0 >= t->nb)
		b0 = t->nb - 1;
	if (b1 >= t->nb)
		b1 = t->nb - 1;
	b[b0].count++;
	for (uint64_t k = b0; k <= b1; k++) {
		uint64_t lo = k * t->bw, hi = lo + t->bw;
		uint64_t ov = (end < hi ? end : hi) - (start > lo ? start : lo);

		if (start > hi || end < lo)
			continue;
		b[k].busy += ov;
		if (ov > b[k].dom_ns || !b[k].dom) {
			b[k].dom_ns = ov;
			b[k].dom = s->name;
		}
	}
}

/* Takes ownership of s->args. Return: 0 or -ENOMEM. */
static int slice_add(struct ht_view_model *m, struct ht_view_track *t, struct ht_view_slice *s)
{
	if (m->pass == 1) {
		t->total++;
		free(s->args);
		return 0;
	}
	if (s->depth + 1u > t->maxdepth)
		t->maxdepth = s->depth + 1u;
	if (!t->agg) {
		if (ht_grow((void **)&t->s, &t->cap, sizeof *t->s, t->n + 1)) {
			free(s->args);
			return -ENOMEM;
		}
		t->s[t->n++] = *s;
		return 0;
	}
	bucket_add(m, t, s);
	if (t->n < t->keep) {
		t->s[t->n] = *s;
		ht_heap_sift_up(t->s, sizeof *t->s, t->n++, shorter, NULL);
	} else if (t->n && s->dur > t->s[0].dur) {
		free(t->s[0].args);
		t->s[0] = *s;
		ht_heap_sift_down(t->s, sizeof *t->s, t->n, 0, shorter, NULL);
	} else {
		free(s->args);
	}
	return 0;
}

static void counter_add(struct ht_view_model *m, struct ht_view_track *t, uint64_t ts, double v)
{
	if (m->pass == 1) {
		t->total++;
		return;
	}
	if (v < t->vmin)
		t->vmin = v;
	if (v > t->vmax)
		t->vmax = v;
	ts = ts < m->t0 ? 0 : ts - m->t0;
	if (!t->agg) {
		if (t->ncv + 2 > t->total * 2)
			return; /* pass 2 saw more than pass 1: cannot happen on a read-only trace
				 */
		t->cv[t->ncv++] = (double)ts;
		t->cv[t->ncv++] = v;
	} else {
		uint64_t k = ts / t->bw;
		struct ht_view_cbucket *b = &t->cb[k < t->nb ? k : t->nb - 1];

		if (!b->n || v < b->min)
			b->min = v;
		if (!b->n || v > b->max)
			b->max = v;
		b->last = v;
		b->n++;
	}
}

/* "key=value, key=value" of a record's arguments (with ret first for API ends), or NULL. */
static char *args_text(const struct ht_tl_record *r, int with_ret)
{
	char buf[2048];
	size_t len = 0;

	buf[0] = '\0';
	if (with_ret)
		len += (size_t)snprintf(buf, sizeof buf, "ret=%d", r->ret);
	for (unsigned int i = 0; i < r->nargs && len < sizeof buf; i++) {
		const struct ht_tl_arg *a = &r->args[i];
		char *p = buf + len;
		size_t left = sizeof buf - len;
		const char *sep = len ? ", " : "";
		const char *key = a->key ? a->key : "?";
		int w;

		switch (a->type) {
		case HT_TL_INT:
			w = snprintf(p, left, "%s%s=%" PRId64, sep, key, a->v.i);
			break;
		case HT_TL_HEX:
			w = snprintf(p, left, "%s%s=0x%" PRIx64, sep, key, a->v.u);
			break;
		case HT_TL_DOUBLE:
			w = snprintf(p, left, "%s%s=%g", sep, key, a->v.f);
			break;
		case HT_TL_STRING:
			w = snprintf(p, left, "%s%s=%s", sep, key, a->v.s ? a->v.s : "");
			break;
		default:
			w = snprintf(p, left, "%s%s=%" PRIu64, sep, key, a->v.u);
		}
		len += w > 0 ? (size_t)w : 0;
	}
	if (len >= sizeof buf)
		memcpy(buf + sizeof buf - 4, "...", 4);
	return len ? strdup(buf) : NULL;
}

static int thread_end(struct ht_view_model *m, struct ht_view_track *t,
		      const struct ht_tl_record *r, uint32_t name, uint8_t cat)
{
	unsigned int i = t->depth;

	while (i > 0 && !(t->stack[i - 1].name == name && t->stack[i - 1].cat == cat))
		i--;
	if (!i)
		return 0; /* an end without its begin (lost, or before the trace) */
	/* ends missing above it: close them here, marked unfinished */
	while (t->depth >= i) {
		struct ht_view_open *o = &t->stack[--t->depth];
		struct ht_view_slice s = {.ts = o->ts,
					  .dur = r->ts > o->ts ? r->ts - o->ts : 0,
					  .name = o->name,
					  .depth = (uint16_t)t->depth,
					  .cat = o->cat,
					  .host_wait = -1,
					  .dev_wait = -1};

		if (t->depth + 1 > i) {
			s.cat |= HT_VIEW_UNFINISHED;
		} else if (cat == HT_VIEW_API && m->pass == 2) {
			s.args = args_text(r, 1);
			s.corr = r->corr;
		}
		if (slice_add(m, t, &s))
			return -ENOMEM;
	}
	return 0;
}

static int device_record(struct ht_view_model *m, const struct ht_tl_record *r)
{
	int kind = HT_CMD_OTHER;
	struct ht_view_track *t;
	struct ht_view_slice s = {.host_wait = -1, .dev_wait = -1};
	int64_t name;
	unsigned int lane = 0;

	for (int k = 0; k < HT_CMD_KIND_COUNT; k++)
		if (r->category && !strcmp(r->category, ht_cmd_kind_names[k]))
			kind = k;
	t = track_get(m, kind == HT_CMD_KERNEL ? HT_VIEW_KERNELS : HT_VIEW_TRANSFERS, r->pid,
		      r->device, r->queue);
	name = ht_view_model_intern(m, r->name);
	if (!t || name < 0)
		return -ENOMEM;
	if (m->pass == 2) {
		/* lanes: commands that overlap on one queue (out of order) go side by side */
		while (lane < t->nlanes && t->lane_end[lane] > r->ts)
			lane++;
		if (lane == t->nlanes && t->nlanes < HT_VIEW_LANES)
			t->nlanes++;
		if (lane == HT_VIEW_LANES)
			lane = HT_VIEW_LANES - 1;
		if (r->end > t->lane_end[lane])
			t->lane_end[lane] = r->end;
		if (r->queued && r->submit >= r->queued)
			s.host_wait = (int64_t)(r->submit - r->queued);
		if (r->submit && r->ts >= r->submit)
			s.dev_wait = (int64_t)(r->ts - r->submit);
		if (kind == HT_CMD_KERNEL && r->global[0]) {
			char g[256];

			snprintf(g, sizeof g,
				 "global=%" PRIu64 "x%" PRIu64 "x%" PRIu64 ", local=%" PRIu64
				 "x%" PRIu64 "x%" PRIu64,
				 r->global[0], r->global[1], r->global[2], r->local[0], r->local[1],
				 r->local[2]);
			s.args = strdup(g);
		}
	}
	s.ts = r->ts;
	s.dur = r->end > r->ts ? r->end - r->ts : 0;
	s.corr = r->corr;
	s.bytes = r->bytes;
	s.status = r->status;
	s.name = (uint32_t)name;
	s.depth = (uint16_t)lane;
	s.cat = (uint8_t)kind;
	return slice_add(m, t, &s);
}

/*
 * A CPU-state interval: a slice on its thread's CPU row, its category the
 * state's index after the device-command kinds (the page's KINDS list).
 */
static int cpu_record(struct ht_view_model *m, const struct ht_tl_record *r)
{
	struct ht_view_track *t = track_get(m, HT_VIEW_CPU, r->pid, r->tid, 0);
	struct ht_view_slice s = {.host_wait = -1, .dev_wait = -1};
	int64_t name = ht_view_model_intern(m, r->name);
	int state = 0;

	if (!t || name < 0)
		return -ENOMEM;
	for (int k = 0; k < HT_CPU_STATE_COUNT; k++)
		if (r->name && !strcmp(r->name, ht_cpu_state_names[k]))
			state = k;
	s.ts = r->ts;
	s.dur = r->end > r->ts ? r->end - r->ts : 0;
	s.name = (uint32_t)name;
	s.cat = (uint8_t)(HT_CMD_KIND_COUNT + state);
	return slice_add(m, t, &s);
}

static int record(struct ht_view_model *m, const struct ht_tl_record *r)
{
	struct ht_view_track *t;
	struct ht_view_proc *p;
	int64_t name;

	if (r->kind != HT_TL_PROCESS && r->kind != HT_TL_THREAD && r->kind != HT_TL_QUEUE) {
		uint64_t end = r->kind == HT_TL_DEVICE && r->end > r->ts ? r->end : r->ts;

		if (m->pass == 1 && r->ts && r->ts < m->t0)
			m->t0 = r->ts;
		if (m->pass == 1 && end > m->t1)
			m->t1 = end;
	}
	switch (r->kind) {
	case HT_TL_PROCESS:
		p = proc_get(m, r->pid);
		if (!p)
			return -ENOMEM;
		p->ppid = r->ppid;
		if (ht_view_model_intern(m, r->name) < 0 || ht_view_model_intern(m, r->text) < 0)
			return -ENOMEM;
		p->name = (uint32_t)ht_view_model_intern(m, r->name);
		p->cmd = (uint32_t)ht_view_model_intern(m, r->text);
		return 0;
	case HT_TL_THREAD:
		t = track_get(m, HT_VIEW_THREAD, r->pid, r->tid, 0);
		name = ht_view_model_intern(m, r->name);
		if (!t || name < 0 || !proc_get(m, r->pid))
			return -ENOMEM;
		if (name)
			t->name = (uint32_t)name;
		return 0;
	case HT_TL_QUEUE:
		return 0; /* the command itself creates its track */
	case HT_TL_DEVICE:
		return device_record(m, r);
	case HT_TL_COUNTER:
		name = ht_view_model_intern(m, r->name);
		if (name < 0)
			return -ENOMEM;
		t = track_get(m, HT_VIEW_COUNTER, r->pid, r->tid, (uint64_t)name);
		if (!t)
			return -ENOMEM;
		counter_add(m, t, r->ts, r->value);
		return 0;
	case HT_TL_CPU_STATE:
		return cpu_record(m, r);
	case HT_TL_LOST:
		if (m->pass == 1)
			m->lost += r->count;
		if (!r->tid)
			return 0;
		/* fall through: a lost-events mark on its thread */
	case HT_TL_SLICE_BEGIN:
	case HT_TL_SLICE_END:
	case HT_TL_INSTANT:
		break;
	default:
		break; /* clock anchors, OS notes, stream ends: nothing to draw */
	}
	t = track_get(m, HT_VIEW_THREAD, r->pid, r->tid, 0);
	name = ht_view_model_intern(m, r->kind == HT_TL_LOST ? "lost events" : r->name);
	if (!t || name < 0)
		return -ENOMEM;
	if (r->ts > t->last_ts)
		t->last_ts = r->ts;
	if (r->kind == HT_TL_SLICE_BEGIN) {
		size_t cap = t->capstack;

		if (ht_grow((void **)&t->stack, &cap, sizeof *t->stack, t->depth + 1))
			return -ENOMEM;
		t->capstack = (unsigned int)cap;
		t->stack[t->depth].ts = r->ts;
		t->stack[t->depth].name = (uint32_t)name;
		t->stack[t->depth++].cat =
		    r->category && !strcmp(r->category, "api") ? HT_VIEW_API : HT_VIEW_REGION;
		return 0;
	}
	if (r->kind == HT_TL_SLICE_END)
		return thread_end(m, t, r, (uint32_t)name,
				  r->category && !strcmp(r->category, "api") ? HT_VIEW_API
									     : HT_VIEW_REGION);
	{
		struct ht_view_slice s = {.ts = r->ts,
					  .name = (uint32_t)name,
					  .depth = (uint16_t)t->depth,
					  .host_wait = -1,
					  .dev_wait = -1};

		if (r->kind == HT_TL_LOST) {
			char b[64];

			snprintf(b, sizeof b, "events=%llu", (unsigned long long)r->count);
			s.cat = HT_VIEW_LOST;
			s.args = m->pass == 2 ? strdup(b) : NULL;
		} else {
			s.cat = HT_VIEW_INSTANT;
			s.args = m->pass == 2 ? args_text(r, 0) : NULL;
		}
		return slice_add(m, t, &s);
	}
}

/* Closes the slices still open at the end of the trace, marked unfinished. */
static int close_open(struct ht_view_model *m)
{
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ht_view_track *t = &m->tracks[i];

		while (t->depth) {
			struct ht_view_open *o = &t->stack[--t->depth];
			struct ht_view_slice s = {.ts = o->ts,
						  .dur = m->t1 > o->ts ? m->t1 - o->ts : 0,
						  .name = o->name,
						  .depth = (uint16_t)t->depth,
						  .cat = o->cat | HT_VIEW_UNFINISHED,
						  .host_wait = -1,
						  .dev_wait = -1};

			if (slice_add(m, t, &s))
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Water-filling: with budget B over tracks of sizes n_i, tracks under the
 * fair share of what is left keep everything; the others keep their share.
 * Return: the share at which tracks start being cut (UINT64_MAX: none).
 */
static uint64_t fair_share(struct ht_view_model *m, int counters, uint64_t budget)
{
	uint64_t *n = malloc((m->ntracks + 1) * sizeof *n), left = budget, share = UINT64_MAX;
	uint32_t k = 0;

	if (!n)
		return 0;
	for (uint32_t i = 0; i < m->ntracks; i++)
		if ((m->tracks[i].kind == HT_VIEW_COUNTER) == counters)
			n[k++] = m->tracks[i].total;
	qsort(n, k, sizeof *n, cmp_u64);
	for (uint32_t i = 0; i < k; i++) {
		if (n[i] * (k - i) > left) {
			share = left / (k - i);
			break;
		}
		left -= n[i];
	}
	free(n);
	return share;
}

/* Between the passes: which tracks are aggregated, and their buckets. */
static int plan(struct ht_view_model *m)
{
	uint64_t sshare = fair_share(m, 0, HT_VIEW_SLICE_BUDGET);
	uint64_t cshare = fair_share(m, 1, HT_VIEW_SAMPLE_BUDGET);
	uint64_t span = m->t1 > m->t0 ? m->t1 - m->t0 + 1 : 1;
	uint32_t nagg = 0, nb;

	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ht_view_track *t = &m->tracks[i];
		uint64_t share = t->kind == HT_VIEW_COUNTER ? cshare : sshare;

		t->agg = t->total > share;
		nagg += t->agg && t->kind != HT_VIEW_COUNTER;
		m->aggregated |= t->agg;
		if (t->kind == HT_VIEW_COUNTER)
			m->samples += t->total;
		else
			m->slices += t->total;
		/* the begin/end stacks are rebuilt in pass 2 */
		t->depth = 0;
		t->last_ts = 0;
	}
	nb = nagg ? HT_VIEW_BUCKET_BUDGET / (nagg * HT_VIEW_BUCKET_DEPTHS) : 0;
	nb = nb > 8192 ? 8192 : nb < 256 ? 256 : nb;
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ht_view_track *t = &m->tracks[i];

		if (t->kind == HT_VIEW_COUNTER) {
			if (!t->agg) {
				t->cv = malloc((t->total * 2 + 1) * sizeof *t->cv);
				if (!t->cv)
					return -ENOMEM;
				continue;
			}
			/* about three numbers a bucket: as many as its share of samples allows */
			t->nb = (uint32_t)(cshare / 3 < 1024	? 1024
					   : cshare / 3 > 65536 ? 65536
								: cshare / 3);
			t->bw = (span + t->nb - 1) / t->nb;
			t->nb = (uint32_t)((span + t->bw - 1) / t->bw);
			t->cb = calloc(t->nb, sizeof *t->cb);
			if (!t->cb)
				return -ENOMEM;
			continue;
		}
		if (!t->agg)
			continue;
		t->keep = sshare ? sshare : 1;
		t->s = malloc(t->keep * sizeof *t->s);
		t->bw = (span + nb - 1) / nb;
		t->nb = (uint32_t)((span + t->bw - 1) / t->bw);
		for (int d = 0; d < HT_VIEW_BUCKET_DEPTHS; d++)
			t->b[d] = calloc(t->nb, sizeof *t->b[d]);
		for (int d = 0; d < HT_VIEW_BUCKET_DEPTHS; d++)
			if (!t->s || !t->b[d])
				return -ENOMEM;
	}
	return 0;
}

static int cmp_slice(const void *a, const void *b)
{
	const struct ht_view_slice *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The MPI rank and host of every process that is a rank (mpi_defs.h). Return: 0 or -ENOMEM. */
static int mpi_ranks(struct ht_view_model *m, const struct ht_timeline *tl)
{
	for (unsigned int k = 0; k < tl->trace->nprocs; k++) {
		const struct ht_proc_info *pi = ht_timeline_proc(tl, k);
		struct ht_view_proc *p;
		int64_t host;

		if (!pi->mpi.is_rank)
			continue;
		p = proc_get(m, pi->pid);
		host = ht_view_model_intern(m, pi->mpi.host);
		if (!p || host < 0)
			return -ENOMEM;
		p->is_rank = 1;
		p->rank = pi->mpi.rank;
		p->host = (uint32_t)host;
	}
	return 0;
}

static int run_pass(struct ht_view_model *m, struct ht_trace *t, struct ht_read_error *err)
{
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	uint64_t skipped = 0;
	int rc;

	rc = ht_timeline_open(&tl, t, NULL);
	if (rc < 0) {
		*err = tl.err; /* a failed open leaves nothing to close */
		return rc;
	}
	if (m->pass == 1 && mpi_ranks(m, &tl)) {
		snprintf(err->msg, sizeof err->msg, "out of memory building the view");
		ht_timeline_close(&tl);
		return -ENOMEM;
	}
	/* times past the limit are left out here as by every exporter (counted once: pass 2) */
	while ((rc = ht_export_next(&tl, &r, m->pass == 2 ? &m->dropped : &skipped)) > 0) {
		rc = record(m, r);
		if (rc < 0) {
			snprintf(err->msg, sizeof err->msg, "out of memory building the view");
			break;
		}
	}
	if (rc < 0 && !err->msg[0])
		*err = tl.err;
	if (m->pass == 2)
		m->reorder_overflows = tl.reorder_overflows;
	ht_timeline_close(&tl);
	return rc;
}

int ht_view_model_build(struct ht_view_model *m, struct ht_trace *t, struct ht_read_error *err)
{
	int rc;

	memset(m, 0, sizeof *m);
	m->str = malloc(16 * sizeof *m->str);
	if (!m->str || !(m->str[0] = strdup("")))
		goto nomem;
	m->nstr = 1;
	m->capstr = 16;
	m->t0 = UINT64_MAX;
	m->pass = 1;
	rc = run_pass(m, t, err);
	if (rc < 0)
		return rc;
	if (m->t0 == UINT64_MAX)
		m->t0 = m->t1 = 0;
	if (m->t1 < m->t0)
		m->t1 = m->t0;
	rc = plan(m);
	if (rc < 0)
		goto nomem;
	m->pass = 2;
	rc = run_pass(m, t, err);
	if (rc < 0)
		return rc;
	if (close_open(m))
		goto nomem;
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ht_view_track *k = &m->tracks[i];

		if (k->n)
			qsort(k->s, k->n, sizeof *k->s, cmp_slice);
		m->kept_slices += k->n;
		m->kept_samples += k->ncv / 2;
	}
	return 0;
nomem:
	snprintf(err->msg, sizeof err->msg, "out of memory building the view");
	return -ENOMEM;
}

void ht_view_model_release(struct ht_view_model *m)
{
	for (uint32_t i = 0; i < m->ntracks; i++) {
		struct ht_view_track *t = &m->tracks[i];

		for (uint64_t k = 0; k < t->n; k++)
			free(t->s[k].args);
		free(t->s);
		free(t->cv);
		free(t->cb);
		free(t->stack);
		for (int d = 0; d < HT_VIEW_BUCKET_DEPTHS; d++)
			free(t->b[d]);
	}
	for (uint32_t i = 0; i < m->nstr; i++)
		free(m->str[i]);
	free(m->str);
	ht_map_release(&m->strtab);
	free(m->tracks);
	ht_map_release(&m->tracktab);
	free(m->procs);
	memset(m, 0, sizeof *m);
}
