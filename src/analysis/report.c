/*
 * The report's analyses (see report.h for the three passes).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "analysis/report.h"

#define NO_ROW UINT32_MAX

/* ---- tables ---- */

static uint32_t table_row(struct ht_table *t, const char *name)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (!strcmp(t->rows[i].name, name))
			return i;
	if (t->n == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 16;
		struct ht_row *rows = realloc(t->rows, cap * sizeof *rows);

		if (!rows)
			return NO_ROW;
		t->rows = rows;
		t->cap = cap;
	}
	memset(&t->rows[t->n], 0, sizeof t->rows[0]);
	t->rows[t->n].name = strdup(name);
	if (!t->rows[t->n].name)
		return NO_ROW;
	return t->n++;
}

static int row_cmp(const void *a, const void *b)
{
	const struct ht_row *x = a, *y = b;
	double vx = x->value ? x->value : x->st.total, vy = y->value ? y->value : y->st.total;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->name, y->name);
}

void ht_table_sort(struct ht_table *t)
{
	if (t->n)
		qsort(t->rows, t->n, sizeof *t->rows, row_cmp);
}

static void table_release(struct ht_table *t)
{
	for (unsigned int i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		ht_stats_release(&t->rows[i].st);
		ht_stats_release(&t->rows[i].rate);
	}
	free(t->rows);
	memset(t, 0, sizeof *t);
}

/* ---- devices and queues ---- */

static struct ht_device_report *device(struct ht_report *r, int32_t pid, uint32_t dev)
{
	for (unsigned int i = 0; i < r->ndevices; i++)
		if (r->devices[i].pid == pid && r->devices[i].device == dev)
			return &r->devices[i];
	struct ht_device_report *d = realloc(r->devices, (r->ndevices + 1) * sizeof *d);

	if (!d)
		return NULL;
	r->devices = d;
	d = &r->devices[r->ndevices++];
	memset(d, 0, sizeof *d);
	d->pid = pid;
	d->device = dev;
	snprintf(d->name, sizeof d->name, "device %u", dev);
	return d;
}

static struct ht_queue_report *queue(struct ht_report *r, int32_t pid, uint32_t dev, uint64_t q)
{
	for (unsigned int i = 0; i < r->nqueues; i++)
		if (r->queues[i].pid == pid && r->queues[i].queue == q)
			return &r->queues[i];
	struct ht_queue_report *n = realloc(r->queues, (r->nqueues + 1) * sizeof *n);

	if (!n)
		return NULL;
	r->queues = n;
	n = &r->queues[r->nqueues++];
	memset(n, 0, sizeof *n);
	n->pid = pid;
	n->device = dev;
	n->queue = q;
	return n;
}

struct device_pass {
	struct ht_report *r;
	struct ht_proc_info *pi;
};

static int sync_sample(void *ctx, unsigned int proc, const struct ht_event *ev)
{
	struct device_pass *dp = ctx;
	struct ht_sync_sample smp[2];
	unsigned int n = ht_sync_samples(ev, smp);

	for (unsigned int i = 0; i < n; i++) {
		struct ht_device_report *d = device(dp->r, dp->pi[proc].pid, smp[i].device);

		if (!d)
			return -ENOMEM;
		ht_clock_sync_add(&d->cs, smp[i].kind, smp[i].device_ts, smp[i].host_ns);
	}
	return 0;
}

/* Pass A: clock-sync samples of every device, then one map per device. */
static int pass_sync(struct ht_report *r, struct ht_trace *t, struct ht_proc_info *pi,
		     struct ht_read_error *err)
{
	struct device_pass dp = {r, pi};
	int rc = ht_trace_each_device_event(t, sync_sample, &dp, err);

	if (rc)
		return rc;
	for (unsigned int i = 0; i < r->ndevices; i++)
		if (ht_clock_sync_solve(&r->devices[i].cs, &r->devices[i].map))
			return -ENOMEM;
	return 0;
}

static int add_interval(struct ht_device_report *d, uint64_t s, uint64_t e, int compute)
{
	if (d->niv == d->cap_iv) {
		uint64_t cap = d->cap_iv ? d->cap_iv * 2 : 1024;
		struct ht_interval *n = realloc(d->iv, cap * sizeof *n);

		if (!n)
			return -ENOMEM;
		d->iv = n;
		d->cap_iv = cap;
	}
	d->iv[d->niv].start = s;
	d->iv[d->niv].end = e;
	d->iv[d->niv++].compute = (uint8_t)compute;
	return 0;
}

static uint64_t to_host(const struct ht_device_report *d, uint8_t domain, uint64_t ts)
{
	return domain == HT_DOM_HOST ? ts : ht_clock_map_apply(&d->map, ts);
}

/* Checks a bounding pair against the device's map: was the window respected? */
static void check_window(struct ht_device_report *d, const struct ht_sync_sample *smp)
{
	double slack = d->map.quality == HT_SYNC_OK ? d->map.bound_ns + 1 : 0;
	double mapped = (double)ht_clock_map_apply(&d->map, smp->device_ts);

	if (smp->kind == HT_PAIR_EXACT || d->map.quality == HT_SYNC_NONE)
		return;
	d->window_checked++;
	if ((smp->kind == HT_PAIR_HOST_BEFORE && mapped + slack < (double)smp->host_ns) ||
	    (smp->kind == HT_PAIR_HOST_AFTER && mapped - slack > (double)smp->host_ns))
		d->window_outside++;
}

static int take_command(struct ht_report *r, struct ht_proc_info *pi, const uint8_t *p)
{
	uint32_t dev = ht_le32(p + 16);
	struct ht_device_report *d = device(r, pi->pid, dev);
	struct ht_queue_report *q = queue(r, pi->pid, dev, ht_le64(p + 8));
	enum ht_cmd_kind kind = p[20] < HT_CMD_KIND_COUNT ? (enum ht_cmd_kind)p[20] : HT_CMD_OTHER;
	int32_t status = (int32_t)ht_le32(p + 25);
	uint64_t queued = ht_le64(p + 30), submit = ht_le64(p + 38), start = ht_le64(p + 46),
		 end = ht_le64(p + 54), bytes = ht_le64(p + 62);
	const char *name =
	    kind == HT_CMD_KERNEL ? ht_proc_string(pi, ht_le32(p + 70)) : ht_cmd_kind_names[kind];
	struct ht_table *tab = kind == HT_CMD_KERNEL ? &r->kernels : &r->transfers;
	uint32_t row = table_row(tab, name);
	uint64_t hs, he;

	if (!d || !q || row == NO_ROW)
		return -ENOMEM;
	d->commands++;
	if (status != 0) {
		q->failed++;
		tab->rows[row].errors++;
		return 0;
	}
	if (!start && !end) {
		q->no_timestamps++;
		return 0;
	}
	if (submit >= queued && queued)
		ht_stats_add(&q->host_wait, submit - queued);
	if (start >= submit && submit)
		ht_stats_add(&q->device_wait, start - submit);
	if (end < start)
		end = start;
	ht_stats_add(&q->exec, end - start);
	ht_stats_add(&tab->rows[row].st, end - start);
	if (kind == HT_CMD_KERNEL) {
		if (!tab->rows[row].st.count || !tab->rows[row].global[0]) {
			memcpy(tab->rows[row].global, p + 74, 24);
			memcpy(tab->rows[row].local, p + 98, 24);
		}
	} else {
		tab->rows[row].bytes += bytes;
		if (end > start && bytes)
			ht_stats_add(&tab->rows[row].rate, bytes * 1000 / (end - start)); /* MB/s */
	}
	hs = to_host(d, p[29], start);
	he = to_host(d, p[29], end);
	if (!d->first || hs < d->first)
		d->first = hs;
	if (he > d->last)
		d->last = he;
	/* markers, barriers and synchronisations occupy no engine: not busy time */
	if (kind == HT_CMD_MARKER || kind == HT_CMD_BARRIER || kind == HT_CMD_SYNC)
		return 0;
	return add_interval(d, hs, he, kind == HT_CMD_KERNEL);
}

static int device_event(void *ctx, unsigned int proc, const struct ht_event *ev)
{
	struct device_pass *dp = ctx;
	struct ht_sync_sample smp[2];
	unsigned int n = ht_sync_samples(ev, smp);

	for (unsigned int i = 0; i < n; i++) {
		struct ht_device_report *d = device(dp->r, dp->pi[proc].pid, smp[i].device);

		if (d)
			check_window(d, &smp[i]);
	}
	if (ev->id == HT_EV_DEVICE_COMMAND)
		return take_command(dp->r, &dp->pi[proc], ev->payload);
	return 0;
}

/* Pass B: every device command, mapped to host time. */
static int pass_devices(struct ht_report *r, struct ht_trace *t, struct ht_proc_info *pi,
			struct ht_read_error *err)
{
	struct device_pass dp = {r, pi};

	return ht_trace_each_device_event(t, device_event, &dp, err);
}

static int by_start(const void *a, const void *b)
{
	const struct ht_interval *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Length of the union of the intervals with `compute` in mask (bit 0 transfer, 1 compute). */
static uint64_t union_length(const struct ht_device_report *d, int mask)
{
	uint64_t total = 0, cs = 0, ce = 0;
	int open = 0;

	for (uint64_t i = 0; i < d->niv; i++) {
		const struct ht_interval *v = &d->iv[i];

		if (!(mask & (1 << v->compute)))
			continue;
		if (open && v->start <= ce) {
			if (v->end > ce)
				ce = v->end;
			continue;
		}
		if (open)
			total += ce - cs;
		cs = v->start;
		ce = v->end;
		open = 1;
	}
	return total + (open ? ce - cs : 0);
}

/* Busy time, overlap, and the idle gaps (the complement of the busy union). */
static int device_intervals(struct ht_device_report *d)
{
	uint64_t cs = 0, ce = 0, n = 0;
	int open = 0;

	if (d->niv)
		qsort(d->iv, d->niv, sizeof *d->iv, by_start);
	d->busy = union_length(d, 3);
	d->compute_busy = union_length(d, 2);
	d->transfer_busy = union_length(d, 1);
	d->overlap = d->compute_busy + d->transfer_busy - d->busy;
	d->gaps = malloc((2 * d->niv + 2) * sizeof *d->gaps);
	if (!d->gaps)
		return -ENOMEM;
	d->gaps[n++] = 0;
	for (uint64_t i = 0; i < d->niv; i++) {
		const struct ht_interval *v = &d->iv[i];

		if (open && v->start <= ce) {
			if (v->end > ce)
				ce = v->end;
			continue;
		}
		if (open)
			d->gaps[n++] = ce;
		cs = v->start;
		ce = v->end;
		open = 1;
		d->gaps[n++] = cs; /* closes the gap that was open */
	}
	if (open)
		d->gaps[n++] = ce;
	d->gaps[n++] = UINT64_MAX;
	d->ngaps = n / 2;
	free(d->iv);
	d->iv = NULL;
	d->niv = d->cap_iv = 0;
	return 0;
}

/* ---- pass C: the merged trace ---- */

struct frame {
	uint8_t region; /* 0 API call, 1 region */
	uint32_t id;	/* fn id or string id */
	uint64_t begin;
	uint32_t blame; /* blame row (shared name table) */
};

struct thread {
	int alive;
	uint64_t first, last;
	struct frame *stack;
	unsigned int depth, cap;
	struct ht_cpu_thread *os; /* its CPU states, NULL if none */
	size_t cur;		  /* first interval ending after the sweep time */
	size_t lcur;		  /* scratch cursor of blame_piece */
	size_t wcur;		  /* cursor of blocking-call queries */
};

struct proc_state {
	uint64_t prev, first, last;
	unsigned int active;		 /* threads between their first and last event */
	uint32_t *api_rows, napi;	 /* fn id -> row in r->api */
	uint32_t *reg_rows, nreg;	 /* string id -> row in r->regions */
	uint32_t *blame_api, nblame_api; /* fn id -> blame row */
	uint32_t *blame_reg, nblame_reg; /* string id -> blame row */
	struct ht_device_report **devs;
	unsigned int ndevs;
	size_t *gap_cursor;
	uint8_t *blocking; /* fn id -> BLK_* */
	uint32_t nblocking;
};

/* How a function blocks on the device: not, always, or when argument k is nonzero. */
enum { BLK_UNKNOWN = 0, BLK_NO = 1, BLK_ALWAYS = 2, BLK_ARG0 = 3 };

struct pass_c {
	struct ht_report *r;
	struct ht_proc_info *pi;
	struct proc_state *ps;
	struct thread *threads; /* by merge stream index */
	struct ht_table blame_names;
	uint32_t outside; /* blame row: no API call or region */
};

static uint32_t cached_row(uint32_t **rows, uint32_t *n, uint32_t id, struct ht_table *t,
			   const char *name)
{
	if (id >= *n) {
		uint32_t cap = id + 64;
		uint32_t *v = realloc(*rows, cap * sizeof *v);

		if (!v)
			return NO_ROW;
		for (uint32_t i = *n; i < cap; i++)
			v[i] = NO_ROW;
		*rows = v;
		*n = cap;
	}
	if ((*rows)[id] == NO_ROW)
		(*rows)[id] = table_row(t, name);
	return (*rows)[id];
}

/* Blame rows share one name table; each device keeps its own values. */
static uint32_t blame_row(struct pass_c *c, struct proc_state *ps, struct ht_proc_info *pi,
			  int region, uint32_t id)
{
	char name[300];

	if (region) {
		if (id < ps->nblame_reg && ps->blame_reg[id] != NO_ROW)
			return ps->blame_reg[id];
		snprintf(name, sizeof name, "region %s", ht_proc_string(pi, id));
		return cached_row(&ps->blame_reg, &ps->nblame_reg, id, &c->blame_names, name);
	}
	if (id < ps->nblame_api && ps->blame_api[id] != NO_ROW)
		return ps->blame_api[id];
	const struct ht_fn_info *fn = ht_proc_fn(pi, (uint16_t)id);

	snprintf(name, sizeof name, "%s", fn ? fn->name : "?");
	return cached_row(&ps->blame_api, &ps->nblame_api, id, &c->blame_names, name);
}

static int push(struct thread *th, struct frame f)
{
	if (th->depth == th->cap) {
		unsigned int cap = th->cap ? th->cap * 2 : 16;
		struct frame *s = realloc(th->stack, cap * sizeof *s);

		if (!s)
			return -ENOMEM;
		th->stack = s;
		th->cap = cap;
	}
	th->stack[th->depth++] = f;
	return 0;
}

/* Pops the innermost frame matching (region, id). Return: it, or NULL. */
static struct frame *pop(struct thread *th, int region, uint32_t id)
{
	for (unsigned int i = th->depth; i-- > 0;) {
		if (th->stack[i].region == region && th->stack[i].id == id) {
			th->depth = i;
			return &th->stack[i];
		}
	}
	return NULL;
}

/* Idle time of device d within [a, b), advancing its gap cursor. */
static uint64_t idle_overlap(const struct ht_device_report *d, size_t *cur, uint64_t a, uint64_t b)
{
	uint64_t total = 0;

	while (*cur < d->ngaps && d->gaps[2 * *cur + 1] <= a)
		(*cur)++;
	for (size_t i = *cur; i < d->ngaps && d->gaps[2 * i] < b; i++) {
		uint64_t s = d->gaps[2 * i] > a ? d->gaps[2 * i] : a;
		uint64_t e = d->gaps[2 * i + 1] < b ? d->gaps[2 * i + 1] : b;

		if (e > s)
			total += e - s;
	}
	return total;
}

/* Grows device d's blame rows to the shared name table. */
static int blame_rows(struct pass_c *c, struct ht_device_report *d)
{
	struct ht_row *rows;

	if (d->blame.n >= c->blame_names.n)
		return 0;
	rows = realloc(d->blame.rows, c->blame_names.n * sizeof *rows);
	if (!rows)
		return -ENOMEM;
	memset(rows + d->blame.n, 0, (c->blame_names.n - d->blame.n) * sizeof *rows);
	d->blame.rows = rows;
	d->blame.n = d->blame.cap = c->blame_names.n;
	return 0;
}

static uint32_t top_row(const struct pass_c *c, const struct thread *th)
{
	return th->depth ? th->stack[th->depth - 1].blame : c->outside;
}

/*
 * Shares the idle piece [s, e) of device d among the threads of proc that
 * are active: alive (between their first and last event) and, where their
 * CPU states are known, neither preempted nor blocked. Idle time while no
 * thread is active is not blamed on anyone.
 */
static void blame_piece(struct pass_c *c, struct ht_merge *m, unsigned int proc,
			struct ht_device_report *d, uint64_t s, uint64_t e)
{
	for (unsigned int i = 0; i < m->nstreams; i++)
		c->threads[i].lcur = c->threads[i].cur;
	for (uint64_t x = s; x < e;) {
		uint64_t next = e, n = 0;

		for (unsigned int i = 0; i < m->nstreams; i++) {
			struct thread *th = &c->threads[i];
			uint64_t change;

			if (!th->alive || m->streams[i].proc != proc)
				continue;
			if (!ht_cpu_thread_waiting_at(th->os, x, &change, &th->lcur))
				n++;
			if (change < next)
				next = change;
		}
		if (n) {
			double share = (double)(next - x) / (double)n;

			d->idle_blamed += next - x;
			for (unsigned int i = 0; i < m->nstreams; i++) {
				struct thread *th = &c->threads[i];
				uint64_t change;
				uint32_t row;

				if (!th->alive || m->streams[i].proc != proc ||
				    ht_cpu_thread_waiting_at(th->os, x, &change, &th->lcur))
					continue;
				row = top_row(c, th);
				if (row != NO_ROW)
					d->blame.rows[row].value += share;
			}
		}
		x = next;
	}
}

/* Attributes [ps->prev, t) of idleness to what the active threads are doing. */
static int blame(struct pass_c *c, struct ht_merge *m, unsigned int proc, uint64_t t)
{
	struct proc_state *ps = &c->ps[proc];

	if (!ps->ndevs || !ps->active || t <= ps->prev)
		return 0;
	for (unsigned int i = 0; i < m->nstreams; i++) {
		struct thread *th = &c->threads[i];

		if (th->os && th->alive && m->streams[i].proc == proc) {
			uint64_t change;

			ht_cpu_thread_waiting_at(th->os, ps->prev, &change, &th->cur);
		}
	}
	for (unsigned int k = 0; k < ps->ndevs; k++) {
		struct ht_device_report *d = ps->devs[k];
		size_t *cur = &ps->gap_cursor[k];

		if (blame_rows(c, d))
			return -ENOMEM;
		while (*cur < d->ngaps && d->gaps[2 * *cur + 1] <= ps->prev)
			(*cur)++;
		for (size_t i = *cur; i < d->ngaps && d->gaps[2 * i] < t; i++) {
			uint64_t s = d->gaps[2 * i] > ps->prev ? d->gaps[2 * i] : ps->prev;
			uint64_t e = d->gaps[2 * i + 1] < t ? d->gaps[2 * i + 1] : t;

			if (e > s)
				blame_piece(c, m, proc, d, s, e);
		}
	}
	return 0;
}

/* ---- blocking device calls ---- */

/* Return: BLK_* for function fn, from its roles: always waits, or when its blocking argument is
 * set. */
static uint8_t classify(const struct ht_fn_info *fn)
{
	int k = ht_fn_info_arg(fn, HT_AR_BLOCKING);

	if (!fn)
		return BLK_NO;
	if (fn->roles & HT_ROLE_SYNC)
		return BLK_ALWAYS;
	if (fn->roles & HT_ROLE_BLOCKING && k >= 0)
		return (uint8_t)(BLK_ARG0 + k < 255 ? BLK_ARG0 + k : BLK_NO);
	return BLK_NO;
}

/* Return: 1 when this api_end (payload p) ends a call that waited for the device. */
static int is_blocking(struct proc_state *ps, struct ht_proc_info *pi, const uint8_t *p,
		       size_t size)
{
	uint16_t id = ht_le16(p);
	uint8_t b;

	if (id >= ps->nblocking) {
		uint32_t cap = (uint32_t)id + 64;
		uint8_t *v = realloc(ps->blocking, cap);

		if (!v)
			return 0;
		memset(v + ps->nblocking, BLK_UNKNOWN, cap - ps->nblocking);
		ps->blocking = v;
		ps->nblocking = cap;
	}
	if (ps->blocking[id] == BLK_UNKNOWN)
		ps->blocking[id] = classify(ht_proc_fn(pi, id));
	b = ps->blocking[id];
	if (b < BLK_ARG0)
		return b == BLK_ALWAYS;
	/* api_end: u16 fn, i32 ret, u8 n, n x 8-byte arguments */
	return b - BLK_ARG0 < p[6] && 7 + 8u * (b - BLK_ARG0 + 1u) <= size &&
	       ht_le64(p + 7 + 8 * (b - BLK_ARG0)) != 0;
}

/*
 * When the process's device work was done, as seen from a call [b, e): the
 * start of the idle gap every device is in at e (not before b); e when a
 * device is still busy then.
 */
static uint64_t device_done(const struct proc_state *ps, uint64_t b, uint64_t e)
{
	uint64_t done = b;

	for (unsigned int k = 0; k < ps->ndevs; k++) {
		const struct ht_device_report *d = ps->devs[k];
		size_t lo = 0, hi = d->ngaps;
		uint64_t dd = e;

		while (lo < hi) { /* first gap ending after e */
			size_t mid = (lo + hi) / 2;

			if (d->gaps[2 * mid + 1] <= e)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < d->ngaps && d->gaps[2 * lo] <= e)
			dd = d->gaps[2 * lo] > b ? d->gaps[2 * lo] : b;
		if (dd > done)
			done = dd;
	}
	return done;
}

static struct ht_wait_row *wait_row(struct ht_report *r, const char *name)
{
	struct ht_wait_row *n;

	for (unsigned int i = 0; i < r->nwaits; i++)
		if (!strcmp(r->waits[i].name, name))
			return &r->waits[i];
	n = realloc(r->waits, (r->nwaits + 1) * sizeof *n);
	if (!n)
		return NULL;
	r->waits = n;
	n = &r->waits[r->nwaits];
	memset(n, 0, sizeof *n);
	n->name = strdup(name);
	if (!n->name)
		return NULL;
	r->nwaits++;
	return n;
}

/* A blocking call [b, e) of thread th: its CPU states, overall and after the device was done. */
static int take_wait(struct pass_c *c, struct proc_state *ps, struct thread *th, const char *name,
		     uint64_t b, uint64_t e)
{
	struct ht_wait_row *w = wait_row(c->r, name);
	struct ht_cpu_thread *os = th->os;
	uint64_t done = device_done(ps, b, e), pre, blk, dpre, dblk;

	if (!w)
		return -ENOMEM;
	w->calls++;
	w->wait_ns += e - b;
	w->done_ns += e - done;
	if (!os)
		return 0;
	pre = ht_cpu_thread_time(os, b, e, HT_CPU_PREEMPTED, &th->wcur);
	blk = ht_cpu_thread_time(os, b, e, HT_CPU_BLOCKED, &th->wcur);
	dpre = ht_cpu_thread_time(os, done, e, HT_CPU_PREEMPTED, &th->wcur);
	dblk = ht_cpu_thread_time(os, done, e, HT_CPU_BLOCKED, &th->wcur);
	w->with_os++;
	w->preempted += pre;
	w->blocked += blk;
	w->done_preempted += dpre;
	w->done_blocked += dblk;
	if (dpre > w->done_preempted_max)
		w->done_preempted_max = dpre;
	os->wait_calls++;
	os->wait_ns += e - b;
	os->wait_preempted += pre;
	os->wait_blocked += blk;
	os->done_ns += e - done;
	os->done_preempted += dpre;
	os->done_blocked += dblk;
	return 0;
}

static int take_thread_event(struct pass_c *c, unsigned int proc, struct thread *th,
			     const struct ht_event *ev)
{
	struct proc_state *ps = &c->ps[proc];
	struct ht_proc_info *pi = &c->pi[proc];
	struct ht_report *r = c->r;
	const uint8_t *p = ev->payload;
	struct frame f = {0}, *g;
	uint32_t row;

	switch (ev->id) {
	case HT_EV_API_BEGIN:
		f.id = ht_le16(p);
		f.begin = ev->ts;
		f.blame = blame_row(c, ps, pi, 0, f.id);
		return push(th, f);
	case HT_EV_API_END: {
		const struct ht_fn_info *fn = ht_proc_fn(pi, ht_le16(p));

		g = pop(th, 0, ht_le16(p));
		if (!g)
			return 0;
		row = cached_row(&ps->api_rows, &ps->napi, g->id, &r->api, fn ? fn->name : "?");
		if (row == NO_ROW)
			return -ENOMEM;
		ht_stats_add(&r->api.rows[row].st, ev->ts - g->begin);
		if ((int32_t)ht_le32(p + 2) < 0)
			r->api.rows[row].errors++;
		if (ps->ndevs && ev->ts > g->begin && is_blocking(ps, pi, p, ev->size))
			return take_wait(c, ps, th, fn ? fn->name : "?", g->begin, ev->ts);
		return 0;
	}
	case HT_EV_REGION_BEGIN:
		f.region = 1;
		f.id = ht_le32(p);
		f.begin = ev->ts;
		f.blame = blame_row(c, ps, pi, 1, f.id);
		return push(th, f);
	case HT_EV_REGION_END:
		g = pop(th, 1, ht_le32(p));
		if (!g)
			return 0;
		row = cached_row(&ps->reg_rows, &ps->nreg, g->id, &r->regions,
				 ht_proc_string(pi, g->id));
		if (row == NO_ROW)
			return -ENOMEM;
		ht_stats_add(&r->regions.rows[row].st, ev->ts - g->begin);
		return 0;
	case HT_EV_THREAD_INFO: {
		/* the CPU-state table's names (its threads are known by now) */
		struct ht_cpu_thread *ct = ht_cpu_states_find(&r->cpu, proc, (int32_t)ht_le32(p));

		if (ct)
			snprintf(ct->name, sizeof ct->name, "%s", (const char *)p + 4);
		return 0;
	}
	case HT_EV_LOST:
		if (p[0] == HT_LOST_NO_STREAM)
			r->lost += ht_le64(p + 1);
		else if (p[0] == HT_LOST_DEVICE_TIMESTAMP)
			r->lost_device_ts += ht_le64(p + 1);
		return 0;
	}
	return 0;
}

static int pass_merged(struct ht_report *r, struct ht_trace *t, struct ht_proc_info *pi,
		       struct ht_read_error *err)
{
	struct ht_merge m;
	struct ht_merged e;
	struct pass_c c = {.r = r, .pi = pi};
	int rc = ht_merge_open(&m, t);

	if (rc)
		goto out;
	c.ps = calloc(t->nprocs, sizeof *c.ps);
	c.threads = calloc(m.nstreams ? m.nstreams : 1, sizeof *c.threads);
	c.outside = table_row(&c.blame_names, "(no API call or region)");
	if (!c.ps || !c.threads || c.outside == NO_ROW) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < r->ndevices; i++) {
		for (unsigned int k = 0; k < t->nprocs; k++) {
			struct proc_state *ps = &c.ps[k];

			if (pi[k].pid != r->devices[i].pid)
				continue;
			ps->devs = realloc(ps->devs, (ps->ndevs + 1) * sizeof *ps->devs);
			ps->gap_cursor =
			    realloc(ps->gap_cursor, (ps->ndevs + 1) * sizeof *ps->gap_cursor);
			if (!ps->devs || !ps->gap_cursor) {
				rc = -ENOMEM;
				goto out;
			}
			ps->gap_cursor[ps->ndevs] = 0;
			ps->devs[ps->ndevs++] = &r->devices[i];
		}
	}
	while ((rc = ht_merge_next(&m, &e)) > 0) {
		unsigned int proc = e.stream->proc;
		struct proc_state *ps = &c.ps[proc];
		struct thread *th = &c.threads[e.stream_index];
		uint64_t ts = e.ev->ts;
		int is_thread = !e.stream->is_shared && e.ev->sc == HT_SC_THREAD;

		r->events++;
		if (!r->first_ns || ts < r->first_ns)
			r->first_ns = ts;
		if (ts > r->last_ns)
			r->last_ns = ts;
		if (!ps->first || ts < ps->first)
			ps->first = ts;
		if (ts > ps->last)
			ps->last = ts;
		rc = blame(&c, &m, proc, ts);
		if (rc)
			break;
		ps->prev = ts;
		if (is_thread) {
			if (!th->alive && !th->first) {
				th->alive = 1;
				th->first = ts;
				th->os = ht_cpu_states_find(&r->cpu, proc, e.stream->vtid);
				ps->active++;
				r->threads++;
			}
			th->last = ts;
			rc = take_thread_event(&c, proc, th, e.ev);
			if (rc)
				break;
		} else if (e.ev->sc == HT_SC_THREAD) {
			take_thread_event(&c, proc, th, e.ev); /* lost records */
		}
		if (e.stream->done && th->alive) {
			th->alive = 0;
			ps->active--;
			r->thread_time += (double)(th->last - th->first);
		}
	}
	if (rc < 0)
		*err = m.err;
	for (unsigned int i = 0; i < m.nstreams; i++) {
		r->lost += m.streams[i].lost;
		free(c.threads[i].stack);
	}
	/* Idle time within each process's span; blame names onto each device. */
	for (unsigned int k = 0; k < t->nprocs && rc >= 0; k++) {
		struct proc_state *ps = &c.ps[k];

		for (unsigned int j = 0; j < ps->ndevs; j++) {
			struct ht_device_report *d = ps->devs[j];
			size_t cur = 0;

			d->window_begin = ps->first;
			d->window_end = ps->last;
			d->idle = idle_overlap(d, &cur, ps->first, ps->last);
			for (unsigned int i = 0; i < d->blame.n; i++)
				d->blame.rows[i].name = strdup(c.blame_names.rows[i].name);
		}
	}
	r->processes = t->nprocs;
out:
	if (c.ps) {
		for (unsigned int k = 0; k < t->nprocs; k++) {
			free(c.ps[k].api_rows);
			free(c.ps[k].reg_rows);
			free(c.ps[k].blame_api);
			free(c.ps[k].blame_reg);
			free(c.ps[k].devs);
			free(c.ps[k].gap_cursor);
			free(c.ps[k].blocking);
		}
	}
	free(c.ps);
	free(c.threads);
	table_release(&c.blame_names);
	ht_merge_close(&m);
	return rc < 0 ? rc : 0;
}

/* Pass O: CPU states; intervals kept for the processes that use a device. */
static int pass_cpu(struct ht_report *r, struct ht_trace *t, struct ht_proc_info *pi,
		    struct ht_read_error *err)
{
	int *keep = calloc(t->nprocs ? t->nprocs : 1, sizeof *keep);
	int rc, any = 0;

	r->cpu_pid = calloc(t->nprocs ? t->nprocs : 1, sizeof *r->cpu_pid);
	if (!keep || !r->cpu_pid) {
		free(keep);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < t->nprocs; i++) {
		r->cpu_pid[i] = pi[i].pid;
		any |= pi[i].os_status;
		for (unsigned int k = 0; k < r->ndevices; k++)
			keep[i] |= r->devices[k].pid == pi[i].pid;
	}
	/* reads the OS and process streams: only when some process noted OS recording */
	rc = any ? ht_cpu_states_load(&r->cpu, t, keep, err) : 0;
	free(keep);
	return rc;
}

int ht_report_compute(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err)
{
	struct ht_proc_info *pi = calloc(t->nprocs ? t->nprocs : 1, sizeof *pi);
	int rc = 0;

	memset(r, 0, sizeof *r);
	if (!pi)
		return -ENOMEM;
	for (unsigned int i = 0; i < t->nprocs && !rc; i++)
		rc = ht_proc_info_load(&pi[i], &t->procs[i], err);
	if (!rc)
		rc = pass_sync(r, t, pi, err);
	if (!rc)
		rc = pass_devices(r, t, pi, err);
	for (unsigned int i = 0; i < r->ndevices && !rc; i++)
		rc = device_intervals(&r->devices[i]);
	if (!rc)
		rc = pass_cpu(r, t, pi, err);
	if (!rc)
		rc = pass_merged(r, t, pi, err);
	/* devices by the name their source gave (device_info) */
	for (unsigned int i = 0; i < r->ndevices; i++)
		for (unsigned int k = 0; k < t->nprocs; k++) {
			const char *n = pi[k].pid == r->devices[i].pid
					    ? ht_proc_device_name(&pi[k], r->devices[i].device)
					    : NULL;

			if (n)
				snprintf(r->devices[i].name, sizeof r->devices[i].name, "%s", n);
		}
	for (unsigned int i = 0; i < t->nprocs; i++)
		ht_proc_info_release(&pi[i]);
	free(pi);
	for (unsigned int i = 0; i < r->ndevices; i++)
		ht_table_sort(&r->devices[i].blame);
	ht_table_sort(&r->api);
	ht_table_sort(&r->regions);
	ht_table_sort(&r->kernels);
	ht_table_sort(&r->transfers);
	return rc;
}

void ht_report_release(struct ht_report *r)
{
	table_release(&r->api);
	table_release(&r->regions);
	table_release(&r->kernels);
	table_release(&r->transfers);
	for (unsigned int i = 0; i < r->nqueues; i++) {
		ht_stats_release(&r->queues[i].host_wait);
		ht_stats_release(&r->queues[i].device_wait);
		ht_stats_release(&r->queues[i].exec);
	}
	free(r->queues);
	for (unsigned int i = 0; i < r->ndevices; i++) {
		ht_clock_sync_release(&r->devices[i].cs);
		free(r->devices[i].iv);
		free(r->devices[i].gaps);
		table_release(&r->devices[i].blame);
	}
	free(r->devices);
	ht_cpu_states_release(&r->cpu);
	free(r->cpu_pid);
	for (unsigned int i = 0; i < r->nwaits; i++)
		free(r->waits[i].name);
	free(r->waits);
	memset(r, 0, sizeof *r);
}
