/*
 * The report's analyses (see report.h for the three passes). Tables are
 * found by name through one hash map each; the per-event path of pass C
 * reaches a row through per-process arrays indexed by function id or
 * string id, sized by what the process's definitions hold (an id beyond
 * them is shown as unknown, never used to size anything).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi.h"
#include "analysis/report.h"
#include "analysis/report_parts.h"
#include "analysis/timeline.h"
#include "common/grow.h"

#define NO_ROW UINT32_MAX

/* ---- tables ---- */

/* Return: the row of key (created with `name`), or NO_ROW when out of memory. */
static uint32_t table_row_key(struct ht_table *t, const char *key, const char *name)
{
	int created;
	uint64_t *v = ht_map_str(&t->index, key, t->n, &created);

	if (!v)
		return NO_ROW;
	if (!created)
		return (uint32_t)*v;
	if (ht_grow((void **)&t->rows, &t->cap, sizeof *t->rows, t->n + 1))
		goto undo;
	memset(&t->rows[t->n], 0, sizeof t->rows[0]);
	t->rows[t->n].name = strdup(name);
	if (!t->rows[t->n].name)
		goto undo;
	return (uint32_t)t->n++;
undo:
	ht_map_release(&t->index); /* cannot happen twice: the caller gives up */
	return NO_ROW;
}

static uint32_t table_row(struct ht_table *t, const char *name)
{
	return table_row_key(t, name, name);
}

static int row_cmp(const void *a, const void *b)
{
	const struct ht_row *x = a, *y = b;
	double vx = x->value ? x->value : x->st.total, vy = y->value ? y->value : y->st.total;
	int c;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
	if (c)
		return c;
	return memcmp(x->global, y->global, sizeof x->global);
}

void ht_table_sort(struct ht_table *t)
{
	if (t->n)
		qsort(t->rows, t->n, sizeof *t->rows, row_cmp);
	ht_map_release(&t->index); /* row numbers change: the index is for building only */
}

static void table_release(struct ht_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		ht_stats_release(&t->rows[i].st);
		ht_stats_release(&t->rows[i].rate);
	}
	free(t->rows);
	ht_map_release(&t->index);
	memset(t, 0, sizeof *t);
}

/* ---- pass D: devices and queues ---- */

static struct ht_device_report *device(struct ht_report *r, int32_t pid, uint32_t dev)
{
	struct ht_device_report *d;

	for (unsigned int i = 0; i < r->ndevices; i++)
		if (r->devices[i].pid == pid && r->devices[i].device == dev)
			return &r->devices[i];
	d = realloc(r->devices, (r->ndevices + 1) * sizeof *d);
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
	struct ht_queue_report *n;

	for (unsigned int i = 0; i < r->nqueues; i++)
		if (r->queues[i].pid == pid && r->queues[i].queue == q)
			return &r->queues[i];
	n = realloc(r->queues, (r->nqueues + 1) * sizeof *n);
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

static int add_interval(struct ht_device_report *d, uint64_t s, uint64_t e, int compute)
{
	if (d->niv == d->cap_iv && ht_grow((void **)&d->iv, &d->cap_iv, sizeof *d->iv, d->niv + 1))
		return -ENOMEM;
	d->iv[d->niv].start = s;
	d->iv[d->niv].end = e;
	d->iv[d->niv++].compute = (uint8_t)compute;
	return 0;
}

/*
 * Checks bounds against the device's map: a synced device time must come
 * after a host time that preceded it (an enqueue's begin vs QUEUED) and
 * before one that followed it (completion seen vs END).
 */
static void check_bound(struct ht_device_report *d, int host_before, uint64_t mapped, uint64_t host)
{
	double slack = d->map.quality == HT_SYNC_OK ? d->map.bound_ns + 1 : 0;

	if (!mapped || !host || d->map.quality == HT_SYNC_NONE)
		return;
	d->window_checked++;
	if (host_before ? (double)mapped + slack < (double)host
			: (double)mapped - slack > (double)host)
		d->window_outside++;
}

static void check_window(struct ht_device_report *d, const struct ht_tl_record *c)
{
	if (c->kind == HT_TL_CLOCK_PAIR) {
		if (c->cmd_kind != HT_PAIR_EXACT)
			check_bound(d, c->cmd_kind == HT_PAIR_HOST_BEFORE, c->queued,
				    c->host_before);
		return;
	}
	if (!c->host_before)
		return; /* the command carries no bounds */
	check_bound(d, 1, c->queued, c->host_before);
	check_bound(d, 0, c->end, c->collected);
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

unsigned int ht_count_processes(const int32_t *pids, unsigned int n)
{
	int32_t *v = malloc((n ? n : 1) * sizeof *v);
	unsigned int k = 0;

	if (!v)
		return n; /* cannot sort: every image counts */
	memcpy(v, pids, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_pid);
	for (unsigned int i = 0; i < n; i++)
		k += !i || v[i] != v[i - 1];
	free(v);
	return k;
}

int ht_cmd_kind_moves_bytes(enum ht_cmd_kind k)
{
	return k == HT_CMD_COPY_H2D || k == HT_CMD_COPY_D2H || k == HT_CMD_COPY_D2D ||
	       k == HT_CMD_COPY_H2H || k == HT_CMD_FILL;
}

/* The kernel table's key: one row per name and launch configuration. */
static uint32_t kernel_row(struct ht_table *t, const struct ht_tl_record *c)
{
	char key[512];

	snprintf(key, sizeof key, "%s\x1f%llu,%llu,%llu/%llu,%llu,%llu", c->name,
		 (unsigned long long)c->global[0], (unsigned long long)c->global[1],
		 (unsigned long long)c->global[2], (unsigned long long)c->local[0],
		 (unsigned long long)c->local[1], (unsigned long long)c->local[2]);
	uint32_t row = table_row_key(t, key, c->name);

	if (row != NO_ROW) {
		memcpy(t->rows[row].global, c->global, sizeof c->global);
		memcpy(t->rows[row].local, c->local, sizeof c->local);
	}
	return row;
}

static int take_command(struct ht_report *r, const struct ht_tl_record *c)
{
	struct ht_device_report *d = device(r, c->pid, c->device);
	struct ht_queue_report *q = queue(r, c->pid, c->device, c->queue);
	enum ht_cmd_kind kind = (enum ht_cmd_kind)c->cmd_kind;
	struct ht_table *tab = kind == HT_CMD_KERNEL ? &r->kernels : &r->transfers;
	uint32_t row = kind == HT_CMD_KERNEL ? kernel_row(tab, c) : table_row(tab, c->category);
	struct ht_row *w;

	if (!d || !q || row == NO_ROW)
		return -ENOMEM;
	w = &tab->rows[row];
	w->kind = (uint8_t)kind;
	d->commands++;
	if (c->status != 0) {
		q->failed++;
		w->errors++;
		return 0;
	}
	if (!c->timed) {
		q->no_timestamps++;
		return 0;
	}
	check_window(d, c);
	if (c->submit >= c->queued && c->queued)
		ht_stats_add(&q->host_wait, c->submit - c->queued);
	if (c->ts >= c->submit && c->submit)
		ht_stats_add(&q->device_wait, c->ts - c->submit);
	ht_stats_add(&q->exec, c->end - c->ts);
	ht_stats_add(&w->st, c->end - c->ts);
	if (kind != HT_CMD_KERNEL) {
		w->bytes += c->bytes;
		if (c->end > c->ts && c->bytes && ht_cmd_kind_moves_bytes(kind))
			ht_stats_add(&w->rate, c->bytes * 1000 / (c->end - c->ts)); /* MB/s */
	}
	if (!d->first || c->ts < d->first)
		d->first = c->ts;
	if (c->end > d->last)
		d->last = c->end;
	/* markers, barriers and synchronisations occupy no engine: not busy time */
	if (kind == HT_CMD_MARKER || kind == HT_CMD_BARRIER || kind == HT_CMD_SYNC)
		return 0;
	return add_interval(d, c->ts, c->end, kind == HT_CMD_KERNEL);
}

static int pass_devices(struct ht_report *r, struct ht_trace *t, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_DEVICE | HT_PK_PROCESS, .no_args = 1, .meta = 1};
	struct ht_timeline tl;
	const struct ht_tl_record *c;
	int rc = ht_timeline_open(&tl, t, &o);

	if (rc) {
		*err = tl.err;
		return rc;
	}
	/* every device with clock-sync samples, with its map and source name */
	for (unsigned int i = 0; i < ht_timeline_ndevices(&tl); i++) {
		const struct ht_clock_map *m;
		struct ht_device_report *d;
		int32_t pid;
		uint32_t dev;

		ht_timeline_device(&tl, i, &pid, &dev, &m);
		if (!(d = device(r, pid, dev))) {
			rc = -ENOMEM;
			goto out;
		}
		d->map = *m;
	}
	while ((rc = ht_timeline_next(&tl, &c)) > 0) {
		if (c->kind == HT_TL_DEVICE &&
		    ((rc = take_command(r, c)) < 0 || (rc = ht_critpath_take(&r->cp, &tl, c)) < 0))
			break;
		if (c->kind == HT_TL_CLOCK_PAIR) {
			struct ht_device_report *d = device(r, c->pid, c->device);

			if (!d) {
				rc = -ENOMEM;
				break;
			}
			check_window(d, c);
		}
		if (c->kind == HT_TL_LOST && c->cmd_kind == HT_LOST_DEVICE_TIMESTAMP)
			r->lost_device_ts += c->count;
	}
	for (unsigned int i = 0; i < r->ndevices && rc >= 0; i++) {
		const struct ht_proc_info *pi = NULL;
		const char *n;

		for (unsigned int k = 0; k < t->nprocs && !pi; k++)
			if (ht_timeline_proc(&tl, k)->pid == r->devices[i].pid)
				pi = ht_timeline_proc(&tl, k);
		n = pi ? ht_proc_device_name(pi, r->devices[i].device) : NULL;
		if (n)
			snprintf(r->devices[i].name, sizeof r->devices[i].name, "%s", n);
	}
out:
	if (rc < 0)
		*err = rc == -ENOMEM && !tl.err.msg[0]
			   ? (struct ht_read_error){.msg = "out of memory"}
			   : tl.err;
	ht_timeline_close(&tl);
	return rc < 0 ? rc : 0;
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

	for (size_t i = 0; i < d->niv; i++) {
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
	for (size_t i = 0; i < d->niv; i++) {
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

/* ---- pass C: the threads ---- */

struct frame {
	uint32_t blame; /* blame row (shared name table) */
};

struct thread {
	int alive;
	uint64_t first, last;
	struct frame *stack;
	size_t depth, cap;
	struct ht_cpu_thread *os; /* its CPU states, NULL if none */
	size_t cur;		  /* first interval ending after the sweep time */
	size_t lcur;		  /* scratch cursor of blame_piece */
	size_t wcur;		  /* cursor of blocking-call queries */
};

/* Rows of one process's functions and strings, cached by id (bounded by its definitions). */
struct proc_state {
	uint64_t prev, first, last;
	unsigned int active;		 /* threads between their first and last event */
	uint32_t *api_rows, *reg_rows;	 /* fn id / string id -> row */
	uint32_t *blame_api, *blame_reg; /* fn id / string id -> blame row */
	uint32_t nfns, nstrings;	 /* what the definitions hold */
	struct ht_device_report **devs;
	unsigned int ndevs;
	size_t *gap_cursor;
	uint8_t *blocking;     /* fn id -> BLK_* */
	unsigned int *threads; /* the streams of its threads */
	size_t nthreads, capthreads;
};

/* How a function blocks on the device: not, always, or when argument k is nonzero. */
enum { BLK_UNKNOWN = 0, BLK_NO = 1, BLK_ALWAYS = 2, BLK_ARG0 = 3 };

struct pass_c {
	struct ht_report *r;
	struct ht_timeline *tl;
	struct proc_state *ps;
	struct thread *threads; /* by timeline stream index */
	struct ht_table blame_names;
	uint32_t outside; /* blame row: no API call or region */
};

/* Return: the row cached at rows[id] (created from name on first use), or NO_ROW. */
static uint32_t cached_row(uint32_t *rows, uint32_t n, uint32_t id, struct ht_table *t,
			   const char *name)
{
	if (id >= n)
		return table_row(t, name); /* undefined: the "?" row, uncached */
	if (rows[id] == NO_ROW)
		rows[id] = table_row(t, name);
	return rows[id];
}

/* Blame rows share one name table; each device keeps its own values. */
static uint32_t blame_row(struct pass_c *c, struct proc_state *ps, const struct ht_tl_record *x)
{
	char name[300];
	int region = !x->api;
	uint32_t id = region ? x->name_id : x->fn_id;
	uint32_t *rows = region ? ps->blame_reg : ps->blame_api;
	uint32_t n = region ? ps->nstrings + 1 : ps->nfns;

	if (id < n && rows[id] != NO_ROW)
		return rows[id];
	snprintf(name, sizeof name, region ? "region %s" : "%s", x->name);
	return cached_row(rows, n, id, &c->blame_names, name);
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
static void blame_piece(struct pass_c *c, struct proc_state *ps, struct ht_device_report *d,
			uint64_t s, uint64_t e)
{
	for (size_t i = 0; i < ps->nthreads; i++)
		c->threads[ps->threads[i]].lcur = c->threads[ps->threads[i]].cur;
	for (uint64_t x = s; x < e;) {
		uint64_t next = e, n = 0;

		for (size_t i = 0; i < ps->nthreads; i++) {
			struct thread *th = &c->threads[ps->threads[i]];
			uint64_t change;

			if (!th->alive)
				continue;
			if (!ht_cpu_thread_waiting_at(th->os, x, &change, &th->lcur))
				n++;
			if (change < next)
				next = change;
		}
		if (n) {
			double share = (double)(next - x) / (double)n;

			d->idle_blamed += next - x;
			for (size_t i = 0; i < ps->nthreads; i++) {
				struct thread *th = &c->threads[ps->threads[i]];
				uint64_t change;
				uint32_t row;

				if (!th->alive ||
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
static int blame(struct pass_c *c, struct proc_state *ps, uint64_t t)
{
	if (!ps->active || t <= ps->prev)
		return 0;
	for (size_t i = 0; i < ps->nthreads; i++) {
		struct thread *th = &c->threads[ps->threads[i]];
		uint64_t change;

		if (th->os && th->alive)
			ht_cpu_thread_waiting_at(th->os, ps->prev, &change, &th->cur);
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
				blame_piece(c, ps, d, s, e);
		}
	}
	return 0;
}

/* ---- blocking device calls ---- */

/* Return: BLK_* for fn, from its roles: always waits, or when its blocking argument is set. */
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

/* Return: 1 when this API slice end is of a call that waited for the device. */
static int is_blocking(struct proc_state *ps, const struct ht_tl_record *x)
{
	uint8_t b;

	if (x->fn_id >= ps->nfns)
		return 0;
	if (ps->blocking[x->fn_id] == BLK_UNKNOWN)
		ps->blocking[x->fn_id] = classify(x->fn);
	b = ps->blocking[x->fn_id];
	if (b < BLK_ARG0)
		return b == BLK_ALWAYS;
	return b - BLK_ARG0 < (int)x->nargs && x->args[b - BLK_ARG0].v.u != 0;
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

static int thread_start(struct pass_c *c, struct proc_state *ps, struct thread *th,
			const struct ht_tl_record *x)
{
	th->alive = 1;
	th->first = x->ts;
	th->os = ht_cpu_states_find(&c->r->cpu, x->proc, x->tid);
	ps->active++;
	c->r->threads++;
	if (ht_grow((void **)&ps->threads, &ps->capthreads, sizeof *ps->threads, ps->nthreads + 1))
		return -ENOMEM;
	ps->threads[ps->nthreads++] = x->stream;
	return 0;
}

static int take_thread_record(struct pass_c *c, struct proc_state *ps, struct thread *th,
			      const struct ht_tl_record *x)
{
	struct ht_report *r = c->r;
	uint32_t row;

	switch (x->kind) {
	case HT_TL_SLICE_BEGIN: /* the timeline's stack, mirrored with blame rows */
		if (x->depth > th->cap &&
		    ht_grow((void **)&th->stack, &th->cap, sizeof *th->stack, x->depth))
			return -ENOMEM;
		th->depth = x->depth;
		th->stack[th->depth - 1].blame = blame_row(c, ps, x);
		return 0;
	case HT_TL_SLICE_END:
		th->depth = x->depth < th->depth ? x->depth : th->depth;
		if (!x->paired)
			return 0; /* an end without its begin (cut by a loss) */
		if (x->api) {
			row = cached_row(ps->api_rows, ps->nfns, x->fn_id, &r->api, x->name);
			if (row == NO_ROW)
				return -ENOMEM;
			ht_stats_add(&r->api.rows[row].st, x->ts - x->begin);
			if (x->ret < 0)
				r->api.rows[row].errors++;
			if (ps->ndevs && x->ts > x->begin && is_blocking(ps, x))
				return take_wait(c, ps, th, x->name, x->begin, x->ts);
			return 0;
		}
		row = cached_row(ps->reg_rows, ps->nstrings + 1, x->name_id, &r->regions, x->name);
		if (row == NO_ROW)
			return -ENOMEM;
		ht_stats_add(&r->regions.rows[row].st, x->ts - x->begin);
		return 0;
	case HT_TL_THREAD: {
		/* the CPU-state table's names (its threads are known by now) */
		struct ht_cpu_thread *ct = ht_cpu_states_find(&r->cpu, x->proc, x->tid);

		if (ct && x->name[0])
			snprintf(ct->name, sizeof ct->name, "%s", x->name);
		return 0;
	}
	default:
		return 0;
	}
}

static int proc_setup(struct pass_c *c, struct ht_report *r, unsigned int k)
{
	struct proc_state *ps = &c->ps[k];
	const struct ht_proc_info *pi = ht_timeline_proc(c->tl, k);

	ps->nfns = pi->nfns;
	ps->nstrings = pi->nstrings;
	ps->api_rows = malloc((ps->nfns + 1) * sizeof *ps->api_rows);
	ps->blame_api = malloc((ps->nfns + 1) * sizeof *ps->blame_api);
	ps->reg_rows = malloc((ps->nstrings + 1) * sizeof *ps->reg_rows);
	ps->blame_reg = malloc((ps->nstrings + 1) * sizeof *ps->blame_reg);
	ps->blocking = calloc(ps->nfns + 1, 1);
	if (!ps->api_rows || !ps->blame_api || !ps->reg_rows || !ps->blame_reg || !ps->blocking)
		return -ENOMEM;
	memset(ps->api_rows, 0xff, (ps->nfns + 1) * sizeof *ps->api_rows);
	memset(ps->blame_api, 0xff, (ps->nfns + 1) * sizeof *ps->blame_api);
	memset(ps->reg_rows, 0xff, (ps->nstrings + 1) * sizeof *ps->reg_rows);
	memset(ps->blame_reg, 0xff, (ps->nstrings + 1) * sizeof *ps->blame_reg);
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report **devs;
		size_t *cur;

		if (pi->pid != r->devices[i].pid)
			continue;
		devs = realloc(ps->devs, (ps->ndevs + 1) * sizeof *devs);
		if (devs)
			ps->devs = devs;
		cur = realloc(ps->gap_cursor, (ps->ndevs + 1) * sizeof *cur);
		if (cur)
			ps->gap_cursor = cur;
		if (!devs || !cur)
			return -ENOMEM;
		ps->gap_cursor[ps->ndevs] = 0;
		ps->devs[ps->ndevs++] = &r->devices[i];
	}
	return 0;
}

static void proc_release(struct proc_state *ps)
{
	free(ps->api_rows);
	free(ps->reg_rows);
	free(ps->blame_api);
	free(ps->blame_reg);
	free(ps->devs);
	free(ps->gap_cursor);
	free(ps->blocking);
	free(ps->threads);
}

/* r->processes (distinct pids) and r->images (process directories) */
static void count_processes(struct ht_report *r, const struct ht_timeline *tl, unsigned int n)
{
	int32_t *pids = calloc(n ? n : 1, sizeof *pids);

	for (unsigned int k = 0; pids && k < n; k++)
		pids[k] = ht_timeline_proc(tl, k)->pid;
	r->processes = pids ? ht_count_processes(pids, n) : n;
	r->images = n;
	free(pids);
}

static int pass_threads(struct ht_report *r, struct ht_trace *t, struct ht_read_error *err)
{
	/*
	 * Counters, instants, definitions and anchors are not tabled (their
	 * times come from the streams' statistics); slice begins matter only
	 * to the blame, so only when a device exists (an end carries its begin).
	 */
	struct ht_tl_opts o = {.kinds = HT_PK_THREAD | HT_PK_PROCESS,
			       .meta = 1,
			       .skip = 1u << HT_TL_COUNTER | 1u << HT_TL_INSTANT |
				       1u << HT_TL_DEFINITION | 1u << HT_TL_ANCHOR |
				       (r->ndevices ? 0 : 1u << HT_TL_SLICE_BEGIN)};
	struct ht_timeline tl;
	const struct ht_tl_record *x;
	struct pass_c c = {.r = r, .tl = &tl};
	int rc = ht_timeline_open(&tl, t, &o);

	if (rc) {
		*err = tl.err;
		return rc;
	}
	c.ps = calloc(t->nprocs ? t->nprocs : 1, sizeof *c.ps);
	c.threads = calloc(ht_timeline_nstreams(&tl) + 1, sizeof *c.threads);
	c.outside = table_row(&c.blame_names, "(no API call or region)");
	rc = !c.ps || !c.threads || c.outside == NO_ROW ? -ENOMEM : 0;
	for (unsigned int k = 0; k < t->nprocs && !rc; k++)
		rc = proc_setup(&c, r, k);
	if (!rc)
		rc = ht_mpi_report_create(&r->mpi, &tl);
	while (!rc && (rc = ht_timeline_next(&tl, &x)) > 0) {
		struct proc_state *ps = &c.ps[x->proc];
		struct thread *th = &c.threads[x->stream];
		uint64_t ts = x->ts;

		rc = ht_critpath_take(&r->cp, &tl, x);
		if (rc >= 0 && r->mpi)
			rc = ht_mpi_report_take(r->mpi, x);
		if (rc < 0)
			break;
		if (x->kind == HT_TL_CPU_STATE)
			continue; /* read in pass O; its times are not the merge's */
		if (ps->ndevs && (rc = blame(&c, ps, ts)) < 0)
			break;
		ps->prev = ts;
		if (x->kind == HT_TL_LOST) {
			/* HT_LOST_NO_STREAM: already in the process stream's events_discarded */
			if (x->cmd_kind == HT_LOST_KIND_COUNT)
				r->lost += x->count;
			else if (x->cmd_kind == HT_LOST_DEVICE_TIMESTAMP)
				r->lost_device_ts += x->count;
			continue;
		}
		if (x->source != HT_PK_THREAD || x->kind == HT_TL_PROCESS)
			continue; /* a process appears with the first record of one of its threads
				   */
		if (x->kind == HT_TL_STREAM_END) {
			if (th->alive) {
				th->alive = 0;
				ps->active--;
			}
			continue;
		}
		if (!th->alive && !th->first && (rc = thread_start(&c, ps, th, x)) < 0)
			break;
		th->last = ts;
		rc = take_thread_record(&c, ps, th, x);
	}
	if (rc < 0)
		*err = tl.err.msg[0] ? tl.err : (struct ht_read_error){.msg = "out of memory"};
	r->events = tl.events;
	/* spans: from every event of the process's streams, tabled or not */
	for (unsigned int i = 0; i < ht_timeline_nstreams(&tl) && rc >= 0; i++) {
		struct ht_tl_stream_stats st;
		struct proc_state *ps;

		ht_timeline_stream_stats(&tl, i, &st);
		ps = &c.ps[st.proc];
		if (!st.events)
			continue;
		if (st.kind == HT_PK_THREAD)
			r->thread_time += (double)(st.last_ts - st.first_ts);
		if (!r->first_ns || st.first_ts < r->first_ns)
			r->first_ns = st.first_ts;
		if (st.last_ts > r->last_ns)
			r->last_ns = st.last_ts;
		if (!ps->first || st.first_ts < ps->first)
			ps->first = st.first_ts;
		if (st.last_ts > ps->last)
			ps->last = st.last_ts;
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
			if (blame_rows(&c, d)) {
				rc = -ENOMEM;
				break;
			}
			for (size_t i = 0; i < d->blame.n; i++)
				d->blame.rows[i].name = strdup(c.blame_names.rows[i].name);
		}
	}
	count_processes(r, &tl, t->nprocs);
	for (unsigned int i = 0; c.threads && i < ht_timeline_nstreams(&tl); i++)
		free(c.threads[i].stack);
	for (unsigned int k = 0; c.ps && k < t->nprocs; k++)
		proc_release(&c.ps[k]);
	free(c.ps);
	free(c.threads);
	table_release(&c.blame_names);
	ht_timeline_close(&tl);
	return rc < 0 ? rc : 0;
}

/* ---- pass O: CPU states; intervals kept for the processes that use a device ---- */

static int pass_cpu(struct ht_report *r, struct ht_trace *t, struct ht_read_error *err)
{
	int32_t *keep = calloc(r->ndevices + 1, sizeof *keep);
	int rc;

	r->cpu_pid = calloc(t->nprocs ? t->nprocs : 1, sizeof *r->cpu_pid);
	if (!keep || !r->cpu_pid) {
		free(keep);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < r->ndevices; i++)
		keep[i] = r->devices[i].pid;
	rc = ht_cpu_states_load(&r->cpu, t, keep, r->ndevices, r->cpu_pid, err);
	free(keep);
	return rc;
}

int ht_report_compute(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err)
{
	int rc;

	if (t->nparts > 1)
		return ht_report_compute_parts(t, r, err);
	rc = ht_report_compute_part(t, r, err);
	if (!rc && r->mpi && (rc = ht_mpi_report_finish(r->mpi))) {
		snprintf(err->msg, sizeof err->msg, "out of memory");
		ht_report_release(r);
	}
	return rc;
}

int ht_report_compute_part(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err)
{
	int rc;

	memset(r, 0, sizeof *r);
	rc = pass_devices(r, t, err);
	for (unsigned int i = 0; i < r->ndevices && !rc; i++)
		rc = device_intervals(&r->devices[i]);
	if (!rc)
		rc = pass_cpu(r, t, err);
	if (!rc)
		rc = pass_threads(r, t, err);
	if (!rc)
		rc = ht_critpath_finish(&r->cp);
	if (rc) {
		if (rc == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof err->msg, "out of memory");
		ht_report_release(r);
		return rc;
	}
	for (unsigned int i = 0; i < r->ndevices; i++)
		ht_table_sort(&r->devices[i].blame);
	ht_mpi_report_part_done(r->mpi, r);
	ht_table_sort(&r->api);
	ht_table_sort(&r->regions);
	ht_table_sort(&r->kernels);
	ht_table_sort(&r->transfers);
	return 0;
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
	ht_critpath_release(&r->cp);
	ht_mpi_report_destroy(r->mpi);
	memset(r, 0, sizeof *r);
}
