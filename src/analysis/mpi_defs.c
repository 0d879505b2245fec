/*
 * MPI definitions, clock shifts and the job's communicators (mpi_defs.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/defs.h"
#include "analysis/mpi_defs.h"
#include "common/grow.h"

/* Definitions beyond these counts are corrupt, not real: ignored (bounded memory). */
#define MAX_COMMS  (1u << 20)
#define MAX_CLOCKS 4096
#define MAX_SLOPE  1e-3 /* 1000 ppm: no real clock drifts more */

int ht_proc_mpi_define(struct ht_proc_mpi *m, const struct ht_event *ev)
{
	union ht_ev_any u;

	switch (ev->id) {
	case HT_EV_MPI_RANK:
		if (ht_ev_mpi_rank_get(&u.mpi_rank, ev->payload, ev->size) < 0 ||
		    u.mpi_rank.rank < 0)
			return 1;
		m->is_rank = 1;
		m->rank = u.mpi_rank.rank;
		m->size = u.mpi_rank.size;
		snprintf(m->host, sizeof m->host, "%s", u.mpi_rank.host);
		snprintf(m->job, sizeof m->job, "%s", u.mpi_rank.job);
		snprintf(m->library, sizeof m->library, "%s", u.mpi_rank.library);
		return 1;
	case HT_EV_MPI_COMM:
		if (ht_ev_mpi_comm_get(&u.mpi_comm, ev->payload, ev->size) < 0 ||
		    m->ncomms >= MAX_COMMS || u.mpi_comm.size <= 0 || u.mpi_comm.rank < 0 ||
		    u.mpi_comm.rank >= u.mpi_comm.size ||
		    ht_grow((void **)&m->comms, &m->capcomms, sizeof *m->comms, m->ncomms + 1))
			return 1;
		m->comms[m->ncomms++] = (struct ht_mpi_comm_def){
		    .ts = ev->ts,
		    .handle = u.mpi_comm.handle,
		    .id = u.mpi_comm.id,
		    .rank = u.mpi_comm.rank,
		    .size = u.mpi_comm.size,
		    .remote_size = u.mpi_comm.remote_size,
		};
		return 1;
	case HT_EV_MPI_WIN:
		if (ht_ev_mpi_win_get(&u.mpi_win, ev->payload, ev->size) < 0 ||
		    m->nwins >= MAX_COMMS ||
		    ht_grow((void **)&m->wins, &m->capwins, sizeof *m->wins, m->nwins + 1))
			return 1;
		m->wins[m->nwins++] = (struct ht_mpi_win_def){
		    .ts = ev->ts, .win = u.mpi_win.win, .comm = u.mpi_win.comm};
		return 1;
	case HT_EV_MPI_CLOCK:
		if (ht_ev_mpi_clock_get(&u.mpi_clock, ev->payload, ev->size) < 0 ||
		    m->nclocks >= MAX_CLOCKS || !u.mpi_clock.time ||
		    ht_grow((void **)&m->clocks, &m->capclocks, sizeof *m->clocks, m->nclocks + 1))
			return 1;
		m->clocks[m->nclocks++] = (struct ht_mpi_clock_def){
		    .time = u.mpi_clock.time,
		    .offset = u.mpi_clock.offset,
		    .error = u.mpi_clock.error,
		    .samples = u.mpi_clock.samples,
		    .phase = u.mpi_clock.phase,
		};
		return 1;
	default:
		return 0;
	}
}

void ht_proc_mpi_release(struct ht_proc_mpi *m)
{
	free(m->comms);
	free(m->wins);
	free(m->clocks);
	memset(m, 0, sizeof *m);
}

/* ---- clock shifts ---- */

/*
 * The shift of a process from its own measurements, the first and the
 * last: when one offset fits both within their error bounds, the middle of
 * what fits (a drift the bounds cannot show is not applied: two
 * measurements 20 us wide, 1 s apart, would otherwise give +-40 ppm of
 * noise); else the line through them, as good as the worse of the two.
 */
static void own_shift(const struct ht_proc_mpi *m, struct ht_clock_shift *c)
{
	const struct ht_mpi_clock_def *a = NULL, *b = NULL;
	int64_t lo, hi;

	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < m->nclocks; i++) {
		if (!a || m->clocks[i].time < a->time)
			a = &m->clocks[i];
		if (!b || m->clocks[i].time > b->time)
			b = &m->clocks[i];
	}
	if (!a)
		return;
	c->n = a == b ? 1 : 2;
	c->t0 = a->time;
	c->off0 = a->offset;
	c->error = a->error;
	if (a == b || b->time <= a->time)
		return;
	lo = a->offset - (int64_t)a->error;
	if (b->offset - (int64_t)b->error > lo)
		lo = b->offset - (int64_t)b->error;
	hi = a->offset + (int64_t)a->error;
	if (b->offset + (int64_t)b->error < hi)
		hi = b->offset + (int64_t)b->error;
	if (lo <= hi) {
		c->off0 = lo + (hi - lo) / 2;
		c->error = (uint64_t)(hi - lo + 1) / 2;
		return;
	}
	c->slope = (double)(b->offset - a->offset) / (double)(b->time - a->time);
	if (c->slope > MAX_SLOPE)
		c->slope = MAX_SLOPE;
	if (c->slope < -MAX_SLOPE)
		c->slope = -MAX_SLOPE;
	c->error = a->error > b->error ? a->error : b->error;
}

/* Return: the process of part `part` with pid `pid` that measured its clock, or -1. */
static int measured(const struct ht_trace *t, const struct ht_proc_info *defs, unsigned int part,
		    int32_t pid)
{
	for (unsigned int i = 0; i < t->nprocs; i++)
		if (t->procs[i].part == part && defs[i].pid == pid && defs[i].mpi.nclocks)
			return (int)i;
	return -1;
}

/* Return: the process whose shift process k takes (itself when it measured), or -1. */
static int shift_source(const struct ht_trace *t, const struct ht_proc_info *defs, unsigned int k)
{
	unsigned int part = t->procs[k].part;
	int32_t pid = defs[k].pid;
	int found = -1, nmeasured = 0;

	if (defs[k].mpi.nclocks)
		return (int)k;
	/* the same pid (an image before or after exec), then its ancestors */
	for (unsigned int hops = 0; hops < 64 && pid > 0; hops++) {
		int i = measured(t, defs, part, pid), parent = -1;

		if (i >= 0)
			return i;
		for (unsigned int j = 0; j < t->nprocs && parent < 0; j++)
			if (t->procs[j].part == part && defs[j].pid == pid)
				parent = defs[j].ppid;
		pid = parent;
	}
	/* the only rank of its part (a rank's own recording): every process ran on its node */
	for (unsigned int i = 0; i < t->nprocs; i++)
		if (t->procs[i].part == part && defs[i].mpi.nclocks) {
			found = (int)i;
			nmeasured++;
		}
	return nmeasured == 1 ? found : -1;
}

void ht_mpi_clock_shifts(struct ht_trace *t, struct ht_proc_info *defs)
{
	for (unsigned int k = 0; k < t->nprocs; k++)
		own_shift(&defs[k].mpi, &t->procs[k].shift);
	for (unsigned int k = 0; k < t->nprocs; k++) {
		int src = shift_source(t, defs, k);

		if (src >= 0 && (unsigned int)src != k)
			t->procs[k].shift = t->procs[src].shift;
	}
	for (unsigned int k = 0; k < t->nprocs; k++) {
		struct ht_proc_mpi *m = &defs[k].mpi;
		const struct ht_clock_shift *c = &t->procs[k].shift;

		if (m->shifted)
			continue;
		for (size_t i = 0; i < m->ncomms; i++)
			m->comms[i].ts = ht_clock_shift_apply(c, m->comms[i].ts);
		for (size_t i = 0; i < m->nwins; i++)
			m->wins[i].ts = ht_clock_shift_apply(c, m->wins[i].ts);
		m->shifted = 1;
	}
}

/* ---- lookups ---- */

/*
 * The definition of a handle in force at ts, among n definitions of
 * `stride` bytes, each a u64 time first and its handle at key_off: the
 * latest one not after ts (handles are reused), else the first (an event
 * cannot come before its communicator, but a clock shift may put it a
 * little earlier).
 */
static const void *latest(const void *defs, size_t n, size_t stride, size_t key_off, uint64_t key,
			  uint64_t ts)
{
	const uint8_t *best = NULL, *first = NULL;
	uint64_t best_ts = 0, first_ts = 0;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *d = (const uint8_t *)defs + i * stride;
		uint64_t t, h;

		memcpy(&h, d + key_off, 8);
		if (h != key)
			continue;
		memcpy(&t, d, 8);
		if (t <= ts && (!best || t >= best_ts)) {
			best = d;
			best_ts = t;
		}
		if (!first || t < first_ts) {
			first = d;
			first_ts = t;
		}
	}
	return best ? best : first;
}

const struct ht_mpi_comm_def *ht_proc_mpi_comm(const struct ht_proc_mpi *m, uint64_t h, uint64_t ts)
{
	return latest(m->comms, m->ncomms, sizeof *m->comms,
		      offsetof(struct ht_mpi_comm_def, handle), h, ts);
}

uint64_t ht_proc_mpi_win_comm(const struct ht_proc_mpi *m, uint64_t w, uint64_t ts)
{
	const struct ht_mpi_win_def *d =
	    latest(m->wins, m->nwins, sizeof *m->wins, offsetof(struct ht_mpi_win_def, win), w, ts);

	return d ? d->comm : 0;
}

/* ---- the job's communicators ---- */

int ht_mpi_comms_add_member(struct ht_mpi_comms *c, uint64_t id, int32_t size, int32_t rank,
			    int32_t world)
{
	struct ht_mpi_members *e;
	int created;
	uint64_t *slot;

	if (size <= 0 || size > (1 << 24) || rank < 0 || rank >= size)
		return 0;
	slot = ht_map_u64(&c->index, id, c->n, &created);
	if (!slot)
		return -ENOMEM;
	if (created) {
		if (ht_grow((void **)&c->v, &c->cap, sizeof *c->v, c->n + 1)) {
			ht_map_del_u64(&c->index, id);
			return -ENOMEM;
		}
		e = &c->v[c->n];
		e->id = id;
		e->size = size;
		e->world = malloc((size_t)size * sizeof *e->world);
		if (!e->world) {
			ht_map_del_u64(&c->index, id);
			return -ENOMEM;
		}
		memset(e->world, 0xff, (size_t)size * sizeof *e->world);
		c->n++;
	}
	e = &c->v[*slot];
	if (rank < e->size)
		e->world[rank] = world;
	return 0;
}

int ht_mpi_comms_add(struct ht_mpi_comms *c, const struct ht_proc_mpi *m)
{
	if (!m->is_rank)
		return 0;
	for (size_t i = 0; i < m->ncomms; i++) {
		const struct ht_mpi_comm_def *d = &m->comms[i];

		if (d->remote_size)
			continue; /* an intercommunicator's ranks are the remote group's */
		if (ht_mpi_comms_add_member(c, d->id, d->size, d->rank, m->rank))
			return -ENOMEM;
	}
	return 0;
}

int32_t ht_mpi_comms_world(const struct ht_mpi_comms *c, uint64_t id, int32_t rank)
{
	const uint64_t *slot;

	if (id == 1)
		return rank; /* MPI_COMM_WORLD */
	slot = ht_map_find_u64(&c->index, id);
	if (!slot || rank < 0 || rank >= c->v[*slot].size)
		return -1;
	return c->v[*slot].world[rank];
}

void ht_mpi_comms_release(struct ht_mpi_comms *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].world);
	free(c->v);
	ht_map_release(&c->index);
	memset(c, 0, sizeof *c);
}
