/*
 * The report's MPI analysis (see mpi.h).
 *
 * Step 1 keeps, per thread stream, the message sides and collective calls
 * of the MPI call it is in: their `end` is that call's, known when its
 * slice ends. Step 2 matches messages by sorting both sides on (comm,
 * sender, receiver, tag, order) and walking the two lists together: the
 * k-th send of a channel meets its k-th receive, MPI's non-overtaking
 * order (exact for receives that name their source and tag; a wildcard
 * receive is placed by the source and tag it got). Collective calls are
 * sorted on (comm, seq): each run is one instance.
 *
 * Wait states (Scalasca's definitions, with aligned clocks):
 *   late sender:   receive call [rb, re) began before the send started (s):
 *                  the receiver waited min(s, re) - rb, for the sender;
 *   late receiver: blocking send [sb, se) still running when the receive
 *                  was posted (p, sb < p < se): the sender waited p - sb;
 *   wait at N x N: every member waited from its arrival until the last
 *                  arrival (capped by its own end), for the last;
 *   late broadcast: (bcast, scatter) non-roots that arrived before the root;
 *   early reduce:  (reduce, gather) the root, until the last other arrival.
 * Scan and exscan wait for the ranks before them (N x N among those).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi.h"
#include "analysis/report.h"
#include "analysis/timeline.h"
#include "common/grow.h"

const char *const ht_mpi_wait_names[HT_MPI_WAIT_COUNT] = {
    "late_sender", "late_receiver", "wait_at_collective", "late_broadcast", "early_reduce"};

/* A message side or collective call whose MPI call has not ended yet. */
struct pend {
	size_t index;
	uint8_t coll;
};

struct stream_state {
	struct pend *v;
	size_t n, cap;
	uint32_t depth; /* of the MPI call they are in */
};

struct ht_mpi_build {
	int *rank_of; /* trace process -> index into ranks, -1 for none */
	unsigned int nprocs;
	struct stream_state *streams; /* by timeline stream */
	unsigned int nstreams;
	struct ht_map *posts;	   /* per process: receive request -> when posted */
	struct ht_map *seqs;	   /* per process: communicator -> collectives so far */
	struct ht_map *call_index; /* per rank: call name -> index into its calls */
};

/* ---- step 1 ---- */

int ht_mpi_report_create(struct ht_mpi_report **out, struct ht_timeline *tl)
{
	const struct ht_trace *t = tl->trace;
	struct ht_mpi_report *m = NULL;
	struct ht_mpi_build *b;
	size_t nranks = 0;

	*out = NULL;
	for (unsigned int k = 0; k < t->nprocs; k++)
		nranks += ht_timeline_proc(tl, k)->mpi.is_rank;
	if (!nranks)
		return 0;
	m = calloc(1, sizeof *m);
	b = calloc(1, sizeof *b);
	if (!m || !b)
		goto nomem;
	m->build = b;
	m->waited_for.rank = -1;
	b->nprocs = t->nprocs;
	b->nstreams = ht_timeline_nstreams(tl);
	b->rank_of = malloc(t->nprocs * sizeof *b->rank_of);
	b->streams = calloc(b->nstreams + 1, sizeof *b->streams);
	b->posts = calloc(t->nprocs, sizeof *b->posts);
	b->seqs = calloc(t->nprocs, sizeof *b->seqs);
	b->call_index = calloc(nranks, sizeof *b->call_index);
	m->ranks = calloc(nranks, sizeof *m->ranks);
	if (!b->rank_of || !b->streams || !b->posts || !b->seqs || !b->call_index || !m->ranks)
		goto nomem;
	m->capranks = nranks;
	for (unsigned int k = 0; k < t->nprocs; k++) {
		const struct ht_proc_info *pi = ht_timeline_proc(tl, k);
		const struct ht_proc_mpi *pm = &pi->mpi;
		const struct ht_clock_shift *c = &t->procs[k].shift;
		struct ht_mpi_rank *rk;

		b->rank_of[k] = -1;
		if (!pm->is_rank)
			continue;
		b->rank_of[k] = (int)m->nranks;
		rk = &m->ranks[m->nranks++];
		rk->rank = pm->rank;
		rk->pid = pi->pid;
		rk->proc = k;
		snprintf(rk->host, sizeof rk->host, "%s", pm->host);
		rk->clock_measurements = (uint32_t)pm->nclocks;
		if (pm->nclocks) {
			rk->clock_offset_ns = c->off0;
			rk->clock_error_ns = c->error;
			rk->clock_drift_ppm = c->slope * 1e6;
		}
		if (m->size < pm->size)
			m->size = pm->size;
		if (!m->job[0])
			snprintf(m->job, sizeof m->job, "%s", pm->job);
		/* what its communicators are: for the whole job's translation of ranks */
		for (size_t i = 0; i < pm->ncomms; i++) {
			const struct ht_mpi_comm_def *d = &pm->comms[i];

			if (d->remote_size)
				continue;
			if (ht_grow((void **)&m->members, &m->capmembers, sizeof *m->members,
				    m->nmembers + 1))
				goto nomem;
			m->members[m->nmembers++] = (struct ht_mpi_member){
			    .id = d->id, .size = d->size, .rank = d->rank, .world = pm->rank};
		}
	}
	*out = m;
	return 0;
nomem:
	ht_mpi_report_destroy(m);
	if (!m)
		free(b);
	return -ENOMEM;
}

static int add_call(struct ht_mpi_build *b, int ri, struct ht_mpi_rank *rk, const char *name,
		    uint64_t ns)
{
	int created;
	uint64_t *slot = ht_map_str(&b->call_index[ri], name, rk->ncalls, &created);

	if (!slot)
		return -ENOMEM;
	if (created) {
		if (ht_grow((void **)&rk->calls, &rk->capcalls, sizeof *rk->calls, rk->ncalls + 1))
			return -ENOMEM;
		rk->calls[rk->ncalls].name = strdup(name);
		if (!rk->calls[rk->ncalls].name)
			return -ENOMEM;
		rk->ncalls++;
	}
	rk->calls[*slot].count++;
	rk->calls[*slot].total_ns += ns;
	return 0;
}

static int pend(struct stream_state *ss, size_t index, int coll, uint32_t depth)
{
	if (ht_grow((void **)&ss->v, &ss->cap, sizeof *ss->v, ss->n + 1))
		return -ENOMEM;
	ss->v[ss->n].index = index;
	ss->v[ss->n++].coll = (uint8_t)coll;
	ss->depth = depth;
	return 0;
}

/* The MPI call the pending records are in ended at `end`. */
static void close_call(struct ht_mpi_report *m, struct stream_state *ss, uint64_t end)
{
	for (size_t i = 0; i < ss->n; i++) {
		if (ss->v[i].coll)
			m->colls[ss->v[i].index].end = end;
		else
			m->msgs[ss->v[i].index].end = end;
	}
	ss->n = 0;
}

static int take_msg(struct ht_mpi_report *m, struct ht_mpi_build *b, struct ht_mpi_rank *rk,
		    const struct ht_tl_record *x)
{
	struct ht_mpi_msg g = {.comm = x->mpi.comm,
			       .world = rk->rank,
			       .peer = x->mpi.peer,
			       .tag = x->mpi.tag,
			       .bytes = x->bytes,
			       .begin = x->begin};
	int created;
	uint64_t *slot;

	switch (x->cmd_kind) {
	case HT_TL_MPI_SEND:
		g.send = g.blocking = 1;
		g.order = x->ts;
		break;
	case HT_TL_MPI_ISEND:
		g.send = 1;
		g.order = x->ts;
		break;
	case HT_TL_MPI_RECV:
		g.blocking = 1;
		g.order = x->begin;
		break;
	case HT_TL_MPI_IRECV_POST:
		slot = ht_map_u64(&b->posts[x->proc], x->mpi.request, x->begin, &created);
		if (!slot)
			return -ENOMEM;
		*slot = x->begin;
		return 0;
	case HT_TL_MPI_IRECV:
		slot = ht_map_find_u64(&b->posts[x->proc], x->mpi.request);
		g.order = slot ? *slot : x->begin;
		g.blocking = 1; /* it was waited for in the call at x->begin */
		break;
	default:
		return 0; /* completions of sends: the send is counted when posted */
	}
	if (!g.comm || g.peer < 0 || x->mpi.cancelled)
		return 0;
	if (g.send) {
		rk->sent++;
		rk->bytes_sent += g.bytes;
	} else {
		rk->received++;
		rk->bytes_received += g.bytes;
	}
	if (ht_grow((void **)&m->msgs, &m->capmsgs, sizeof *m->msgs, m->nmsgs + 1))
		return -ENOMEM;
	m->msgs[m->nmsgs] = g;
	return pend(&b->streams[x->stream], m->nmsgs++, 0, x->depth);
}

static int take_coll(struct ht_mpi_report *m, struct ht_mpi_build *b, struct ht_mpi_rank *rk,
		     const struct ht_tl_record *x)
{
	int created;
	uint64_t *seq;

	if (!x->mpi.comm)
		return 0;
	seq = ht_map_u64(&b->seqs[x->proc], x->mpi.comm, 0, &created);
	if (!seq)
		return -ENOMEM;
	(*seq)++; /* blocking and nonblocking collectives share one order per communicator */
	rk->collectives++;
	if (x->cmd_kind != HT_TL_MPI_COLL)
		return 0; /* a nonblocking one: counted, not waited for in its call */
	if (ht_grow((void **)&m->colls, &m->capcolls, sizeof *m->colls, m->ncolls + 1))
		return -ENOMEM;
	m->colls[m->ncolls] = (struct ht_mpi_coll){.comm = x->mpi.comm,
						   .seq = *seq,
						   .world = rk->rank,
						   .comm_rank = x->mpi.comm_rank,
						   .root = x->mpi.peer,
						   .op = x->mpi.op,
						   .begin = x->begin,
						   .end = x->ts};
	return pend(&b->streams[x->stream], m->ncolls++, 1, x->depth);
}

int ht_mpi_report_take(struct ht_mpi_report *m, const struct ht_tl_record *x)
{
	struct ht_mpi_build *b = m->build;
	struct ht_mpi_rank *rk;
	int ri;

	if (x->proc >= b->nprocs || (ri = b->rank_of[x->proc]) < 0 || x->stream >= b->nstreams)
		return 0;
	rk = &m->ranks[ri];
	if (x->source == HT_PK_THREAD && x->kind != HT_TL_PROCESS && x->kind != HT_TL_LOST) {
		if (!rk->first || x->ts < rk->first)
			rk->first = x->ts;
		if (x->ts > rk->last)
			rk->last = x->ts;
	}
	switch (x->kind) {
	case HT_TL_MPI:
		if (x->cmd_kind == HT_TL_MPI_COLL || x->cmd_kind == HT_TL_MPI_COLL_POST)
			return take_coll(m, b, rk, x);
		if (x->cmd_kind == HT_TL_MPI_RMA)
			return 0;
		return take_msg(m, b, rk, x);
	case HT_TL_SLICE_END: {
		struct stream_state *ss = &b->streams[x->stream];

		if (ss->n && x->depth < ss->depth)
			close_call(m, ss, x->ts);
		if (!x->api || !x->paired || !x->fn || !(x->fn->roles & HT_ROLE_COMM))
			return 0;
		rk->mpi_ns += x->ts - x->begin;
		return add_call(b, ri, rk, x->name, x->ts - x->begin);
	}
	default:
		return 0;
	}
}

static int call_cmp(const void *a, const void *b)
{
	const struct ht_mpi_call *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

void ht_mpi_report_part_done(struct ht_mpi_report *m, const struct ht_report *r)
{
	struct ht_mpi_build *b;

	if (!m)
		return;
	b = m->build;
	for (size_t i = 0; i < m->nranks; i++) {
		struct ht_mpi_rank *rk = &m->ranks[i];
		uint64_t span = rk->last > rk->first ? rk->last - rk->first : 0;

		rk->compute_ns = span > rk->mpi_ns ? span - rk->mpi_ns : 0;
		for (unsigned int d = 0; d < r->ndevices; d++)
			if (r->devices[d].pid == rk->pid) {
				rk->gpu_busy_ns += r->devices[d].busy;
				rk->gpu_idle_ns += r->devices[d].idle;
			}
		if (rk->ncalls)
			qsort(rk->calls, rk->ncalls, sizeof *rk->calls, call_cmp);
	}
	if (!b)
		return;
	for (unsigned int i = 0; b->streams && i < b->nstreams; i++)
		free(b->streams[i].v);
	for (unsigned int i = 0; b->posts && b->seqs && i < b->nprocs; i++) {
		ht_map_release(&b->posts[i]);
		ht_map_release(&b->seqs[i]);
	}
	for (size_t i = 0; i < m->capranks && b->call_index; i++)
		ht_map_release(&b->call_index[i]);
	free(b->streams);
	free(b->posts);
	free(b->seqs);
	free(b->call_index);
	free(b->rank_of);
	free(b);
	m->build = NULL;
}

#define APPEND(dst, src, field, nfield, capfield)                                                  \
	(ht_grow((void **)&(dst)->field, &(dst)->capfield, sizeof *(dst)->field,                   \
		 (dst)->nfield + (src)->nfield)                                                    \
	     ? -ENOMEM                                                                             \
	     : (memcpy((dst)->field + (dst)->nfield, (src)->field,                                 \
		       (src)->nfield * sizeof *(src)->field),                                      \
		(dst)->nfield += (src)->nfield, (src)->nfield = 0, 0))

int ht_mpi_report_merge(struct ht_mpi_report *dst, struct ht_mpi_report *src,
			unsigned int proc_base)
{
	size_t first = dst->nranks;

	if (APPEND(dst, src, ranks, nranks, capranks) || APPEND(dst, src, msgs, nmsgs, capmsgs) ||
	    APPEND(dst, src, colls, ncolls, capcolls) ||
	    APPEND(dst, src, members, nmembers, capmembers))
		return -ENOMEM;
	for (size_t i = first; i < dst->nranks; i++)
		dst->ranks[i].proc += proc_base;
	if (dst->size < src->size)
		dst->size = src->size;
	if (!dst->job[0])
		snprintf(dst->job, sizeof dst->job, "%s", src->job);
	return 0;
}

/* ---- step 2 ---- */

static int msg_cmp(const void *a, const void *b)
{
	const struct ht_mpi_msg *x = a, *y = b;

#define CMP(f)                                                                                     \
	if (x->f != y->f)                                                                          \
		return x->f < y->f ? -1 : 1;
	CMP(comm)
	CMP(world)
	CMP(peer)
	CMP(tag)
	CMP(order)
	CMP(begin)
	return 0;
}

static int coll_cmp(const void *a, const void *b)
{
	const struct ht_mpi_coll *x = a, *y = b;

	CMP(comm)
	CMP(seq)
	CMP(world)
	return 0;
#undef CMP
}

static int rank_cmp(const void *a, const void *b)
{
	const struct ht_mpi_rank *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

struct finish {
	struct ht_mpi_report *m;
	struct ht_mpi_comms comms;
	int32_t *index; /* world rank -> index into ranks (size entries), -1 none */
	int32_t nindex;
	uint64_t *blame[HT_MPI_WAIT_COUNT]; /* per world rank: ns waited for it */
};

static struct ht_mpi_rank *rank_at(struct finish *f, int32_t world)
{
	if (world < 0 || world >= f->nindex || f->index[world] < 0)
		return NULL;
	return &f->m->ranks[f->index[world]];
}

/* Rank `waiter` waited ns for rank `cause` (kind w). */
static void waited(struct finish *f, enum ht_mpi_wait w, int32_t waiter, int32_t cause, uint64_t ns)
{
	struct ht_mpi_rank *a = rank_at(f, waiter), *c = rank_at(f, cause);

	if (!ns)
		return;
	f->m->waits[w].ns += ns;
	f->m->waits[w].count++;
	if (a)
		a->wait_ns[w] += ns;
	if (c)
		c->caused_ns[w] += ns;
	if (cause >= 0 && cause < f->nindex)
		f->blame[w][cause] += ns;
}

/* One matched message: s sent, r received. */
static void message(struct finish *f, const struct ht_mpi_msg *s, const struct ht_mpi_msg *r)
{
	f->m->matched++;
	/* late sender: the receive's call began before the send started */
	if (r->blocking && r->end && s->order > r->begin) {
		uint64_t until = s->order < r->end ? s->order : r->end;

		waited(f, HT_MPI_LATE_SENDER, r->world, s->world, until - r->begin);
	}
	/* late receiver: a blocking send still in its call when the receive was posted */
	if (s->blocking && s->end && r->order > s->begin && r->order < s->end)
		waited(f, HT_MPI_LATE_RECEIVER, s->world, r->world, r->order - s->begin);
}

/* Matches the sides of messages: sends keyed by receiver, receives by sender. */
static int match_messages(struct finish *f)
{
	struct ht_mpi_report *m = f->m;
	struct ht_mpi_msg *sends, *recvs;
	size_t ns = 0, nr = 0, i = 0, j = 0;

	sends = malloc((m->nmsgs + 1) * sizeof *sends);
	recvs = malloc((m->nmsgs + 1) * sizeof *recvs);
	if (!sends || !recvs) {
		free(sends);
		free(recvs);
		return -ENOMEM;
	}
	/* one key for both: (comm, sender world, receiver world, tag, order) */
	for (size_t k = 0; k < m->nmsgs; k++) {
		struct ht_mpi_msg g = m->msgs[k];
		int32_t peer = ht_mpi_comms_world(&f->comms, g.comm, g.peer);

		if (peer < 0)
			continue; /* a partner we cannot name (an intercommunicator's) */
		if (g.send) {
			g.peer = peer; /* world: receiver */
			sends[ns++] = g;
		} else {
			/* swap so the key reads sender first: world = sender, peer = receiver */
			g.peer = g.world;
			g.world = peer;
			recvs[nr++] = g;
		}
	}
	m->sends = ns;
	m->recvs = nr;
	qsort(sends, ns, sizeof *sends, msg_cmp);
	qsort(recvs, nr, sizeof *recvs, msg_cmp);
	while (i < ns && j < nr) {
		const struct ht_mpi_msg *s = &sends[i], *r = &recvs[j];

		if (s->comm == r->comm && s->world == r->world && s->peer == r->peer &&
		    s->tag == r->tag) {
			struct ht_mpi_msg rr = *r;

			rr.world = r->peer; /* back to the receiver's view */
			message(f, s, &rr);
			i++;
			j++;
			continue;
		}
		/* the side whose channel sorts first has no partner left in this one */
		if (s->comm < r->comm ||
		    (s->comm == r->comm &&
		     (s->world < r->world ||
		      (s->world == r->world &&
		       (s->peer < r->peer || (s->peer == r->peer && s->tag < r->tag))))))
			i++;
		else
			j++;
	}
	free(sends);
	free(recvs);
	return 0;
}

static int is_nxn(uint8_t op)
{
	switch (op) {
	case HT_MPI_COLL_BARRIER:
	case HT_MPI_COLL_ALLGATHER:
	case HT_MPI_COLL_ALLGATHERV:
	case HT_MPI_COLL_ALLTOALL:
	case HT_MPI_COLL_ALLTOALLV:
	case HT_MPI_COLL_ALLTOALLW:
	case HT_MPI_COLL_ALLREDUCE:
	case HT_MPI_COLL_REDUCE_SCATTER:
	case HT_MPI_COLL_REDUCE_SCATTER_BLOCK:
		return 1;
	default:
		return 0;
	}
}

/* One collective instance: its members' calls c[0..n) (n == the communicator's size). */
static void instance(struct finish *f, const struct ht_mpi_coll *c, size_t n)
{
	uint8_t op = c[0].op;
	size_t last = 0, root = n;

	for (size_t i = 0; i < n; i++) {
		if (c[i].begin > c[last].begin)
			last = i;
		if (c[i].comm_rank == c[i].root)
			root = i;
	}
	if (is_nxn(op)) {
		for (size_t i = 0; i < n; i++) {
			uint64_t until = c[last].begin < c[i].end ? c[last].begin : c[i].end;

			if (i != last && until > c[i].begin)
				waited(f, HT_MPI_WAIT_NXN, c[i].world, c[last].world,
				       until - c[i].begin);
		}
	} else if (op == HT_MPI_COLL_SCAN || op == HT_MPI_COLL_EXSCAN) {
		/* rank k waits for the last arrival among ranks 0..k (exscan: 0..k-1) */
		for (size_t i = 0; i < n; i++) {
			size_t lk = n;

			for (size_t j = 0; j < n; j++)
				if ((c[j].comm_rank < c[i].comm_rank ||
				     (op == HT_MPI_COLL_SCAN && j == i)) &&
				    (lk == n || c[j].begin > c[lk].begin))
					lk = j;
			if (lk < n && lk != i && c[lk].begin > c[i].begin) {
				uint64_t until = c[lk].begin < c[i].end ? c[lk].begin : c[i].end;

				waited(f, HT_MPI_WAIT_NXN, c[i].world, c[lk].world,
				       until - c[i].begin);
			}
		}
	} else if (root < n && (op == HT_MPI_COLL_BCAST || op == HT_MPI_COLL_SCATTER ||
				op == HT_MPI_COLL_SCATTERV)) {
		for (size_t i = 0; i < n; i++)
			if (i != root && c[root].begin > c[i].begin) {
				uint64_t until =
				    c[root].begin < c[i].end ? c[root].begin : c[i].end;

				waited(f, HT_MPI_LATE_BROADCAST, c[i].world, c[root].world,
				       until - c[i].begin);
			}
	} else if (root < n && (op == HT_MPI_COLL_REDUCE || op == HT_MPI_COLL_GATHER ||
				op == HT_MPI_COLL_GATHERV)) {
		size_t lo = n;

		for (size_t i = 0; i < n; i++)
			if (i != root && (lo == n || c[i].begin > c[lo].begin))
				lo = i;
		if (lo < n && c[lo].begin > c[root].begin) {
			uint64_t until = c[lo].begin < c[root].end ? c[lo].begin : c[root].end;

			waited(f, HT_MPI_EARLY_REDUCE, c[root].world, c[lo].world,
			       until - c[root].begin);
		}
	}
}

static int match_collectives(struct finish *f)
{
	struct ht_mpi_report *m = f->m;

	qsort(m->colls, m->ncolls, sizeof *m->colls, coll_cmp);
	for (size_t i = 0; i < m->ncolls;) {
		size_t j = i;
		int32_t size = 0;
		int same = 1;

		while (j < m->ncolls && m->colls[j].comm == m->colls[i].comm &&
		       m->colls[j].seq == m->colls[i].seq) {
			same &= m->colls[j].op == m->colls[i].op && m->colls[j].end;
			j++;
		}
		for (size_t k = 0; k < f->comms.n; k++)
			if (f->comms.v[k].id == m->colls[i].comm)
				size = f->comms.v[k].size;
		if (m->colls[i].comm == 1)
			size = m->size;
		m->instances++;
		if (same && size > 0 && (size_t)size == j - i)
			instance(f, &m->colls[i], j - i);
		else
			m->instances_incomplete++;
		i = j;
	}
	return 0;
}

static int blame_cmp(const void *a, const void *b)
{
	const struct ht_mpi_blame *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Per-kind lists of the ranks waited for, and the rank waited for most. */
static int blame_lists(struct finish *f)
{
	struct ht_mpi_report *m = f->m;

	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++) {
		struct ht_mpi_wait_total *t = &m->waits[w];

		for (int32_t r = 0; r < f->nindex; r++) {
			if (!f->blame[w][r])
				continue;
			if (ht_grow((void **)&t->by, &t->capby, sizeof *t->by, t->nby + 1))
				return -ENOMEM;
			t->by[t->nby].rank = r;
			t->by[t->nby++].ns = f->blame[w][r];
		}
		if (t->nby)
			qsort(t->by, t->nby, sizeof *t->by, blame_cmp);
	}
	for (int32_t r = 0; r < f->nindex; r++) {
		uint64_t total = 0;

		for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
			total += f->blame[w][r];
		if (total > m->waited_for.ns) {
			m->waited_for.rank = r;
			m->waited_for.ns = total;
		}
	}
	return 0;
}

static int hosts_and_balance(struct ht_mpi_report *m)
{
	size_t cap = 0;
	uint64_t sum = 0;

	for (size_t i = 0; i < m->nranks; i++) {
		struct ht_mpi_rank *rk = &m->ranks[i];
		struct ht_mpi_host *h = NULL;
		uint64_t waits = 0;

		for (size_t k = 0; k < m->nhosts && !h; k++)
			if (!strcmp(m->hosts[k].name, rk->host))
				h = &m->hosts[k];
		if (!h) {
			if (ht_grow((void **)&m->hosts, &cap, sizeof *m->hosts, m->nhosts + 1))
				return -ENOMEM;
			h = &m->hosts[m->nhosts++];
			snprintf(h->name, sizeof h->name, "%s", rk->host);
		}
		for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
			waits += rk->wait_ns[w];
		h->ranks++;
		h->mpi_ns += rk->mpi_ns;
		h->compute_ns += rk->compute_ns;
		h->gpu_busy_ns += rk->gpu_busy_ns;
		h->gpu_idle_ns += rk->gpu_idle_ns;
		h->wait_ns += waits;
		sum += rk->compute_ns;
		if (!i || rk->compute_ns > m->compute_max) {
			m->compute_max = rk->compute_ns;
			m->compute_max_rank = rk->rank;
		}
		if (!i || rk->compute_ns < m->compute_min) {
			m->compute_min = rk->compute_ns;
			m->compute_min_rank = rk->rank;
		}
	}
	m->compute_mean = m->nranks ? sum / m->nranks : 0;
	return 0;
}

int ht_mpi_report_finish(struct ht_mpi_report *m)
{
	struct finish f = {.m = m};
	int rc = -ENOMEM;

	if (m->nranks)
		qsort(m->ranks, m->nranks, sizeof *m->ranks, rank_cmp);
	for (size_t i = 0; i < m->nmembers; i++)
		if (ht_mpi_comms_add_member(&f.comms, m->members[i].id, m->members[i].size,
					    m->members[i].rank, m->members[i].world))
			goto out;
	f.nindex = m->size;
	for (size_t i = 0; i < m->nranks; i++)
		if (m->ranks[i].rank >= f.nindex)
			f.nindex = m->ranks[i].rank + 1;
	f.index = malloc(((size_t)f.nindex + 1) * sizeof *f.index);
	if (!f.index)
		goto out;
	memset(f.index, 0xff, ((size_t)f.nindex + 1) * sizeof *f.index);
	for (size_t i = 0; i < m->nranks; i++)
		if (f.index[m->ranks[i].rank] < 0)
			f.index[m->ranks[i].rank] = (int32_t)i;
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++) {
		f.blame[w] = calloc((size_t)f.nindex + 1, sizeof *f.blame[w]);
		if (!f.blame[w])
			goto out;
	}
	if (match_messages(&f) || match_collectives(&f) || blame_lists(&f) || hosts_and_balance(m))
		goto out;
	rc = 0;
out:
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
		free(f.blame[w]);
	free(f.index);
	ht_mpi_comms_release(&f.comms);
	return rc;
}

void ht_mpi_report_destroy(struct ht_mpi_report *m)
{
	if (!m)
		return;
	if (m->build) {
		struct ht_report none = {0};

		ht_mpi_report_part_done(m, &none);
	}
	for (size_t i = 0; i < m->nranks; i++) {
		for (size_t k = 0; k < m->ranks[i].ncalls; k++)
			free(m->ranks[i].calls[k].name);
		free(m->ranks[i].calls);
	}
	free(m->ranks);
	free(m->msgs);
	free(m->colls);
	free(m->members);
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
		free(m->waits[w].by);
	free(m->hosts);
	free(m);
}
