/*
 * Reports of a job's parts, computed in parallel and merged (see
 * report_parts.h). A part's report is computed on the part's directory as
 * a trace of its own: its processes are the job trace's from the part's
 * base index on, in the same order (both sorted by name, and a part's
 * names share its prefix), so merging only offsets process indices.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/mpi.h"
#include "analysis/report_parts.h"
#include "common/grow.h"

/* ---- computing ---- */

int ht_report_compute_one_part(struct ht_trace *t, unsigned int i, struct ht_report *r,
			       struct ht_read_error *err)
{
	char path[sizeof t->path + 160];
	struct ht_trace *sub;
	int rc;

	memset(r, 0, sizeof *r);
	snprintf(path, sizeof path, "%s/%s", t->path, t->parts[i].name);
	rc = ht_trace_open(&sub, path, err);
	if (rc)
		return rc;
	rc = ht_report_compute_part(sub, r, err);
	ht_trace_close(sub);
	return rc;
}

unsigned int ht_report_part_base(const struct ht_trace *t, unsigned int i)
{
	for (unsigned int k = 0; k < t->nprocs; k++)
		if (t->procs[k].part == i)
			return k;
	return t->nprocs;
}

struct pool {
	struct ht_trace *t;
	struct ht_report *reports;
	struct ht_read_error *errs;
	int *rcs;
	unsigned int next; /* the next part to compute (atomic) */
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	unsigned int i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->t->nparts)
		p->rcs[i] = ht_report_compute_one_part(p->t, i, &p->reports[i], &p->errs[i]);
	return NULL;
}

int ht_report_compute_parts(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err)
{
	struct pool p = {.t = t};
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int nthreads = cores > 1 ? (unsigned int)cores : 1, started = 0;
	pthread_t *threads = NULL;
	int rc = 0;

	memset(r, 0, sizeof *r);
	if (nthreads > t->nparts)
		nthreads = t->nparts;
	p.reports = calloc(t->nparts, sizeof *p.reports);
	p.errs = calloc(t->nparts, sizeof *p.errs);
	p.rcs = calloc(t->nparts, sizeof *p.rcs);
	threads = calloc(nthreads, sizeof *threads);
	if (!p.reports || !p.errs || !p.rcs || !threads) {
		rc = -ENOMEM;
		goto out;
	}
	/* this thread is one of the workers */
	for (unsigned int k = 1; k < nthreads; k++)
		if (!pthread_create(&threads[k], NULL, worker, &p))
			started = k;
	worker(&p);
	for (unsigned int k = 1; k <= started; k++)
		pthread_join(threads[k], NULL);
	for (unsigned int i = 0; i < t->nparts && !rc; i++) {
		if (p.rcs[i]) {
			rc = p.rcs[i];
			*err = p.errs[i];
		} else {
			rc = ht_report_merge(r, &p.reports[i], ht_report_part_base(t, i));
		}
	}
	if (!rc)
		rc = ht_report_merge_done(r);
out:
	for (unsigned int i = 0; p.reports && i < t->nparts; i++)
		ht_report_release(&p.reports[i]);
	free(p.reports);
	free(p.errs);
	free(p.rcs);
	free(threads);
	if (rc) {
		if (rc == -ENOMEM && !err->msg[0])
			snprintf(err->msg, sizeof err->msg, "out of memory");
		ht_report_release(r);
	}
	return rc;
}

/* ---- merging ---- */

/* The key of a row: its name, and for kernels its launch configuration (report.c's key). */
static void row_key(const struct ht_row *w, int kernels, char *key, size_t cap)
{
	if (!kernels) {
		snprintf(key, cap, "%s", w->name);
		return;
	}
	snprintf(key, cap, "%s\x1f%llu,%llu,%llu/%llu,%llu,%llu", w->name,
		 (unsigned long long)w->global[0], (unsigned long long)w->global[1],
		 (unsigned long long)w->global[2], (unsigned long long)w->local[0],
		 (unsigned long long)w->local[1], (unsigned long long)w->local[2]);
}

static int merge_table(struct ht_table *d, struct ht_table *s, int kernels)
{
	char key[600];

	for (size_t i = 0; i < s->n; i++) {
		struct ht_row *w = &s->rows[i];
		int created;
		uint64_t *slot;

		row_key(w, kernels, key, sizeof key);
		slot = ht_map_str(&d->index, key, d->n, &created);
		if (!slot)
			return -ENOMEM;
		if (created) {
			if (ht_grow((void **)&d->rows, &d->cap, sizeof *d->rows, d->n + 1)) {
				ht_map_release(&d->index); /* the caller gives up */
				return -ENOMEM;
			}
			d->rows[d->n++] = *w; /* moved: name and statistics */
			memset(w, 0, sizeof *w);
			continue;
		}
		struct ht_row *v = &d->rows[*slot];

		if (ht_stats_merge(&v->st, &w->st) || ht_stats_merge(&v->rate, &w->rate))
			return -ENOMEM;
		v->bytes += w->bytes;
		v->errors += w->errors;
		v->value += w->value;
	}
	return 0;
}

/* Appends n elements of `size` bytes from src to *dst (of *dn, capacity *cap). */
static int append(void **dst, size_t *dn, size_t *cap, const void *src, size_t n, size_t size)
{
	if (!n)
		return 0;
	if (ht_grow(dst, cap, size, *dn + n))
		return -ENOMEM;
	memcpy((uint8_t *)*dst + *dn * size, src, n * size);
	*dn += n;
	return 0;
}

static int merge_cpu(struct ht_report *d, struct ht_report *s, unsigned int proc_base)
{
	size_t n = d->cpu.n, cap = d->cpu.n;
	struct ht_cpu_states *cs = &s->cpu;
	int32_t *pids;

	for (unsigned int i = 0; i < cs->n; i++) {
		cs->threads[i].proc += proc_base;
		free(cs->threads[i].iv); /* intervals serve the computation only */
		cs->threads[i].iv = NULL;
		cs->threads[i].niv = cs->threads[i].cap = 0;
	}
	if (append((void **)&d->cpu.threads, &n, &cap, cs->threads, cs->n, sizeof *cs->threads))
		return -ENOMEM;
	d->cpu.n = (unsigned int)n;
	cs->n = 0;
	d->cpu.lost += cs->lost;
	if (!d->cpu.note[0] && cs->note[0]) {
		memcpy(d->cpu.note, cs->note, sizeof d->cpu.note);
		d->cpu.note_kind = cs->note_kind;
	}
	pids = realloc(d->cpu_pid, ((size_t)d->processes + s->processes + 1) * sizeof *pids);
	if (!pids)
		return -ENOMEM;
	d->cpu_pid = pids;
	if (s->cpu_pid)
		memcpy(pids + d->processes, s->cpu_pid, s->processes * sizeof *pids);
	else
		memset(pids + d->processes, 0, s->processes * sizeof *pids);
	return 0;
}

static int merge_waits(struct ht_report *d, struct ht_report *s)
{
	for (unsigned int i = 0; i < s->nwaits; i++) {
		struct ht_wait_row *w = &s->waits[i], *v = NULL;

		for (unsigned int k = 0; k < d->nwaits && !v; k++)
			if (!strcmp(d->waits[k].name, w->name))
				v = &d->waits[k];
		if (!v) {
			size_t n = d->nwaits, cap = d->nwaits;

			if (append((void **)&d->waits, &n, &cap, w, 1, sizeof *w))
				return -ENOMEM;
			d->nwaits = (unsigned int)n;
			w->name = NULL; /* moved */
			continue;
		}
		v->calls += w->calls;
		v->wait_ns += w->wait_ns;
		v->preempted += w->preempted;
		v->blocked += w->blocked;
		v->done_ns += w->done_ns;
		v->done_preempted += w->done_preempted;
		v->done_blocked += w->done_blocked;
		v->with_os += w->with_os;
		if (w->done_preempted_max > v->done_preempted_max)
			v->done_preempted_max = w->done_preempted_max;
	}
	return 0;
}

int ht_report_merge(struct ht_report *d, struct ht_report *s, unsigned int proc_base)
{
	size_t n, cap;

	if (merge_table(&d->api, &s->api, 0) || merge_table(&d->regions, &s->regions, 0) ||
	    merge_table(&d->kernels, &s->kernels, 1) ||
	    merge_table(&d->transfers, &s->transfers, 0))
		return -ENOMEM;
	n = cap = d->nqueues;
	if (append((void **)&d->queues, &n, &cap, s->queues, s->nqueues, sizeof *s->queues))
		return -ENOMEM;
	d->nqueues = (unsigned int)n;
	s->nqueues = 0; /* moved: their statistics */
	for (unsigned int i = 0; i < s->ndevices; i++) {
		free(s->devices[i].iv); /* intervals and gaps serve the computation only */
		free(s->devices[i].gaps);
		s->devices[i].iv = NULL;
		s->devices[i].gaps = NULL;
		s->devices[i].niv = s->devices[i].cap_iv = s->devices[i].ngaps = 0;
	}
	n = cap = d->ndevices;
	if (append((void **)&d->devices, &n, &cap, s->devices, s->ndevices, sizeof *s->devices))
		return -ENOMEM;
	d->ndevices = (unsigned int)n;
	s->ndevices = 0; /* moved: their blame tables */
	if (merge_cpu(d, s, proc_base) || merge_waits(d, s))
		return -ENOMEM;
	if (s->mpi) {
		if (!d->mpi) {
			d->mpi = calloc(1, sizeof *d->mpi);
			if (!d->mpi)
				return -ENOMEM;
			d->mpi->waited_for.rank = -1;
		}
		if (ht_mpi_report_merge(d->mpi, s->mpi, proc_base))
			return -ENOMEM;
	}
	d->events += s->events;
	if (s->first_ns && (!d->first_ns || s->first_ns < d->first_ns))
		d->first_ns = s->first_ns;
	if (s->last_ns > d->last_ns)
		d->last_ns = s->last_ns;
	d->lost += s->lost;
	d->lost_device_ts += s->lost_device_ts;
	d->processes += s->processes;
	d->threads += s->threads;
	d->thread_time += s->thread_time;
	return 0;
}

int ht_report_merge_done(struct ht_report *r)
{
	ht_table_sort(&r->api);
	ht_table_sort(&r->regions);
	ht_table_sort(&r->kernels);
	ht_table_sort(&r->transfers);
	return r->mpi ? ht_mpi_report_finish(r->mpi) : 0;
}
