/*
 * A part's report as bytes (report_parts.h), for `mpirun hetrace report`:
 * the ranks of one mpirun run one hetrace build, so the report's structs
 * travel as their memory images, with the data their pointers own written
 * after them and the pointers set again on arrival. A header holds the
 * sizes of the structs: bytes of another build are refused, never read.
 * Everything is bounds-checked: a cut message is -EBADMSG, not a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi.h"
#include "analysis/report_parts.h"
#include "common/grow.h"

#define MAGIC 0x57525448u /* "HTRW" */

struct out {
	uint8_t *buf;
	size_t n, cap;
	int err;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->err || !n)
		return;
	if (ht_grow((void **)&o->buf, &o->cap, 1, o->n + n)) {
		o->err = -ENOMEM;
		return;
	}
	memcpy(o->buf + o->n, p, n);
	o->n += n;
}

static void put_u64(struct out *o, uint64_t v)
{
	put(o, &v, sizeof v);
}

static void put_str(struct out *o, const char *s)
{
	uint64_t n = s ? strlen(s) + 1 : 0;

	put_u64(o, n);
	put(o, s, n);
}

/* The struct sizes that make a build's layout. */
static void signature(uint64_t sig[8])
{
	sig[0] = MAGIC;
	sig[1] = sizeof(struct ht_report);
	sig[2] = sizeof(struct ht_row);
	sig[3] = sizeof(struct ht_stats);
	sig[4] = sizeof(struct ht_device_report);
	sig[5] = sizeof(struct ht_cpu_thread);
	sig[6] = sizeof(struct ht_mpi_report);
	sig[7] = sizeof(struct ht_mpi_rank) << 32 | sizeof(struct ht_mpi_msg) << 16 |
		 sizeof(struct ht_mpi_coll);
}

static void put_stats(struct out *o, const struct ht_stats *s)
{
	put(o, s, sizeof *s);
	if (s->hist)
		put(o, s->hist, HT_STATS_BUCKETS * sizeof *s->hist);
	else if (s->exact)
		put(o, s->exact, s->count * sizeof *s->exact);
}

static void put_table(struct out *o, const struct ht_table *t)
{
	put_u64(o, t->n);
	for (size_t i = 0; i < t->n; i++) {
		put(o, &t->rows[i], sizeof t->rows[i]);
		put_str(o, t->rows[i].name);
		put_stats(o, &t->rows[i].st);
		put_stats(o, &t->rows[i].rate);
	}
}

static void put_mpi(struct out *o, const struct ht_mpi_report *m)
{
	put(o, m, sizeof *m);
	for (size_t i = 0; i < m->nranks; i++) {
		put(o, &m->ranks[i], sizeof m->ranks[i]);
		for (size_t k = 0; k < m->ranks[i].ncalls; k++) {
			put(o, &m->ranks[i].calls[k], sizeof m->ranks[i].calls[k]);
			put_str(o, m->ranks[i].calls[k].name);
		}
	}
	put(o, m->msgs, m->nmsgs * sizeof *m->msgs);
	put(o, m->colls, m->ncolls * sizeof *m->colls);
	put(o, m->members, m->nmembers * sizeof *m->members);
}

int ht_report_wire_put(const struct ht_report *r, uint8_t **buf, size_t *len)
{
	struct out o = {0};
	uint64_t sig[8];

	if (r->mpi && r->mpi->build)
		return -EINVAL; /* a part's report: its MPI analysis at the end of step 1 */
	signature(sig);
	put(&o, sig, sizeof sig);
	put(&o, r, sizeof *r);
	put_table(&o, &r->api);
	put_table(&o, &r->regions);
	put_table(&o, &r->kernels);
	put_table(&o, &r->transfers);
	for (unsigned int i = 0; i < r->nqueues; i++) {
		put(&o, &r->queues[i], sizeof r->queues[i]);
		put_stats(&o, &r->queues[i].host_wait);
		put_stats(&o, &r->queues[i].device_wait);
		put_stats(&o, &r->queues[i].exec);
	}
	for (unsigned int i = 0; i < r->ndevices; i++) {
		put(&o, &r->devices[i], sizeof r->devices[i]);
		put_table(&o, &r->devices[i].blame);
	}
	put(&o, r->cpu.threads, r->cpu.n * sizeof *r->cpu.threads);
	if (r->cpu_pid)
		put(&o, r->cpu_pid, r->processes * sizeof *r->cpu_pid);
	for (unsigned int i = 0; i < r->nwaits; i++) {
		put(&o, &r->waits[i], sizeof r->waits[i]);
		put_str(&o, r->waits[i].name);
	}
	if (r->mpi)
		put_mpi(&o, r->mpi);
	if (o.err) {
		free(o.buf);
		return o.err;
	}
	*buf = o.buf;
	*len = o.n;
	return 0;
}

/* ---- reading ---- */

struct in {
	const uint8_t *p;
	size_t left;
	int err;
};

static int get(struct in *in, void *dst, size_t n)
{
	if (in->err || n > in->left) {
		in->err = in->err ? in->err : -EBADMSG;
		if (dst && n)
			memset(dst, 0, n);
		return -1;
	}
	if (n)
		memcpy(dst, in->p, n);
	in->p += n;
	in->left -= n;
	return 0;
}

/* n elements of `size` bytes into a new array (NULL for none). */
static void *get_array(struct in *in, size_t n, size_t size)
{
	void *v;

	if (!n)
		return NULL;
	if (n > in->left / size) {
		in->err = in->err ? in->err : -EBADMSG;
		return NULL;
	}
	v = malloc(n * size);
	if (!v) {
		in->err = -ENOMEM;
		return NULL;
	}
	get(in, v, n * size);
	return v;
}

static char *get_str(struct in *in)
{
	uint64_t n = 0;
	char *s;

	if (get(in, &n, sizeof n) || !n)
		return NULL;
	s = get_array(in, n, 1);
	if (s)
		s[n - 1] = '\0';
	return s;
}

static void get_stats(struct in *in, struct ht_stats *s)
{
	int hist, exact;

	get(in, s, sizeof *s);
	hist = s->hist != NULL;
	exact = s->exact != NULL;
	s->hist = NULL;
	s->exact = NULL;
	if (hist) {
		s->hist = get_array(in, HT_STATS_BUCKETS, sizeof *s->hist);
	} else if (exact) {
		if (s->count > HT_STATS_EXACT) {
			in->err = in->err ? in->err : -EBADMSG;
			return;
		}
		s->exact = malloc(HT_STATS_EXACT * sizeof *s->exact);
		if (!s->exact)
			in->err = -ENOMEM;
		else
			get(in, s->exact, s->count * sizeof *s->exact);
	}
}

static void get_table(struct in *in, struct ht_table *t)
{
	uint64_t n = 0;

	memset(t, 0, sizeof *t);
	get(in, &n, sizeof n);
	if (n > in->left / sizeof *t->rows) {
		in->err = in->err ? in->err : -EBADMSG;
		return;
	}
	t->rows = calloc(n ? n : 1, sizeof *t->rows);
	if (!t->rows) {
		in->err = -ENOMEM;
		return;
	}
	t->cap = n ? n : 1;
	for (size_t i = 0; i < n && !in->err; i++) {
		struct ht_row *w = &t->rows[i];

		get(in, w, sizeof *w);
		memset(&w->st, 0, sizeof w->st);
		memset(&w->rate, 0, sizeof w->rate);
		w->name = get_str(in);
		t->n = i + 1;
		get_stats(in, &w->st);
		get_stats(in, &w->rate);
	}
	memset(&t->index, 0, sizeof t->index);
}

static struct ht_mpi_report *get_mpi(struct in *in)
{
	struct ht_mpi_report *m = calloc(1, sizeof *m);
	size_t nranks;

	if (!m) {
		in->err = -ENOMEM;
		return NULL;
	}
	get(in, m, sizeof *m);
	nranks = m->nranks;
	m->build = NULL;
	m->hosts = NULL;
	m->nhosts = 0;
	memset(m->waits, 0, sizeof m->waits);
	m->ranks = NULL;
	m->nranks = m->capranks = 0;
	if (nranks > in->left / sizeof *m->ranks) {
		in->err = in->err ? in->err : -EBADMSG;
		nranks = 0;
	}
	m->ranks = calloc(nranks ? nranks : 1, sizeof *m->ranks);
	if (!m->ranks)
		in->err = -ENOMEM;
	m->capranks = m->ranks ? nranks : 0;
	for (size_t i = 0; i < nranks && !in->err; i++) {
		struct ht_mpi_rank *rk = &m->ranks[i];
		size_t ncalls;

		get(in, rk, sizeof *rk);
		ncalls = rk->ncalls;
		rk->calls = NULL;
		rk->ncalls = rk->capcalls = 0;
		m->nranks = i + 1;
		if (ncalls > in->left / sizeof *rk->calls) {
			in->err = in->err ? in->err : -EBADMSG;
			break;
		}
		rk->calls = calloc(ncalls ? ncalls : 1, sizeof *rk->calls);
		if (!rk->calls) {
			in->err = -ENOMEM;
			break;
		}
		rk->capcalls = ncalls;
		for (size_t k = 0; k < ncalls && !in->err; k++) {
			get(in, &rk->calls[k], sizeof rk->calls[k]);
			rk->calls[k].name = get_str(in);
			rk->ncalls = k + 1;
		}
	}
	m->msgs = get_array(in, m->nmsgs, sizeof *m->msgs);
	m->capmsgs = m->msgs ? m->nmsgs : 0;
	m->colls = get_array(in, m->ncolls, sizeof *m->colls);
	m->capcolls = m->colls ? m->ncolls : 0;
	m->members = get_array(in, m->nmembers, sizeof *m->members);
	m->capmembers = m->members ? m->nmembers : 0;
	if (in->err) {
		m->nmsgs = m->msgs ? m->nmsgs : 0;
		m->ncolls = m->colls ? m->ncolls : 0;
		m->nmembers = m->members ? m->nmembers : 0;
	}
	return m;
}

int ht_report_wire_get(struct ht_report *r, const uint8_t *buf, size_t len)
{
	struct in in = {buf, len, 0};
	uint64_t sig[8], want[8];
	unsigned int nq, nd, nw;
	int mpi;

	signature(want);
	memset(r, 0, sizeof *r);
	if (get(&in, sig, sizeof sig) || memcmp(sig, want, sizeof sig))
		return -EBADMSG;
	get(&in, r, sizeof *r);
	nq = r->nqueues;
	nd = r->ndevices;
	nw = r->nwaits;
	mpi = r->mpi != NULL;
	/* nothing the struct points at is ours yet */
	memset(&r->api, 0, sizeof r->api);
	memset(&r->regions, 0, sizeof r->regions);
	memset(&r->kernels, 0, sizeof r->kernels);
	memset(&r->transfers, 0, sizeof r->transfers);
	r->queues = NULL;
	r->devices = NULL;
	r->waits = NULL;
	r->mpi = NULL;
	memset(&r->cp, 0, sizeof r->cp); /* the critical path is not sent: per part only */
	r->nqueues = r->ndevices = r->nwaits = 0;
	{
		unsigned int ncpu = r->cpu.n;

		memset(&r->cpu.index, 0, sizeof r->cpu.index);
		r->cpu.threads = NULL;
		r->cpu.n = 0;
		r->cpu_pid = NULL;
		get_table(&in, &r->api);
		get_table(&in, &r->regions);
		get_table(&in, &r->kernels);
		get_table(&in, &r->transfers);
		if (nq > in.left / sizeof *r->queues || nd > in.left / sizeof *r->devices ||
		    nw > in.left / sizeof *r->waits || ncpu > in.left / sizeof *r->cpu.threads)
			in.err = in.err ? in.err : -EBADMSG;
		if (!in.err) {
			r->queues = calloc(nq + 1, sizeof *r->queues);
			r->devices = calloc(nd + 1, sizeof *r->devices);
			r->waits = calloc(nw + 1, sizeof *r->waits);
			if (!r->queues || !r->devices || !r->waits)
				in.err = -ENOMEM;
		}
		for (unsigned int i = 0; i < nq && !in.err; i++) {
			struct ht_queue_report *q = &r->queues[i];

			get(&in, q, sizeof *q);
			memset(&q->host_wait, 0, sizeof q->host_wait);
			memset(&q->device_wait, 0, sizeof q->device_wait);
			memset(&q->exec, 0, sizeof q->exec);
			r->nqueues = i + 1;
			get_stats(&in, &q->host_wait);
			get_stats(&in, &q->device_wait);
			get_stats(&in, &q->exec);
		}
		for (unsigned int i = 0; i < nd && !in.err; i++) {
			struct ht_device_report *d = &r->devices[i];

			get(&in, d, sizeof *d);
			d->iv = NULL;
			d->niv = d->cap_iv = 0;
			d->gaps = NULL;
			d->ngaps = 0;
			memset(&d->blame, 0, sizeof d->blame);
			r->ndevices = i + 1;
			get_table(&in, &d->blame);
		}
		if (!in.err) {
			r->cpu.threads = get_array(&in, ncpu, sizeof *r->cpu.threads);
			r->cpu.n = r->cpu.threads ? ncpu : 0;
			for (unsigned int i = 0; i < r->cpu.n; i++) {
				r->cpu.threads[i].iv = NULL;
				r->cpu.threads[i].niv = r->cpu.threads[i].cap = 0;
			}
			r->cpu_pid = get_array(&in, r->processes, sizeof *r->cpu_pid);
		}
		for (unsigned int i = 0; i < nw && !in.err; i++) {
			get(&in, &r->waits[i], sizeof r->waits[i]);
			r->waits[i].name = NULL;
			r->nwaits = i + 1;
			r->waits[i].name = get_str(&in);
		}
		if (mpi && !in.err)
			r->mpi = get_mpi(&in);
	}
	if (!in.err && in.left)
		in.err = -EBADMSG;
	if (in.err)
		ht_report_release(r);
	return in.err;
}
