/*
 * MPI records of the timeline (see mpi_records.h). Per process, a table of
 * its requests (handle -> what was posted), updated in the order the
 * process's events come: a handle reused by a later post replaces the
 * earlier one. Memory: one entry per distinct request handle a process
 * used (MPI libraries recycle them), and the job's communicators.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_records.h"
#include "common/grow.h"
#include "common/map.h"

enum req_kind { REQ_NONE, REQ_ISEND, REQ_IRECV, REQ_PSEND, REQ_PRECV, REQ_COLL, REQ_RMA };

struct req {
	uint8_t kind, active;
	int32_t peer, tag;
	uint64_t comm_handle, bytes;
};

struct proc_reqs {
	struct ht_map index; /* handle -> entry */
	struct req *v;
	size_t n, cap;
};

struct ht_tl_mpi {
	struct proc_reqs *procs; /* by trace process */
	unsigned int nprocs;
	struct ht_mpi_comms comms;
};

static int nomem(struct ht_timeline *tl)
{
	snprintf(tl->err.file, sizeof tl->err.file, "%s", tl->trace->path);
	tl->err.offset = HT_NO_OFFSET;
	snprintf(tl->err.msg, sizeof tl->err.msg, "out of memory");
	return -ENOMEM;
}

/* The state, created with the job's communicators from every process's definitions. */
static struct ht_tl_mpi *state(struct ht_timeline *tl)
{
	struct ht_tl_mpi *m = tl->mpi;

	if (m)
		return m;
	m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->procs = calloc(tl->trace->nprocs ? tl->trace->nprocs : 1, sizeof *m->procs);
	m->nprocs = m->procs ? tl->trace->nprocs : 0;
	for (unsigned int i = 0; m->procs && i < tl->trace->nprocs; i++)
		if (ht_mpi_comms_add(&m->comms, &ht_timeline_proc(tl, i)->mpi)) {
			ht_tl_mpi_release(m);
			return NULL;
		}
	if (!m->procs) {
		ht_tl_mpi_release(m);
		return NULL;
	}
	tl->mpi = m;
	return m;
}

void ht_tl_mpi_release(struct ht_tl_mpi *m)
{
	if (!m)
		return;
	for (unsigned int i = 0; i < m->nprocs; i++) {
		ht_map_release(&m->procs[i].index);
		free(m->procs[i].v);
	}
	free(m->procs);
	ht_mpi_comms_release(&m->comms);
	free(m);
}

/* The entry of request handle h of a process (created empty). Return: NULL on no memory. */
static struct req *req_get(struct proc_reqs *p, uint64_t h)
{
	int created;
	uint64_t *slot = ht_map_u64(&p->index, h, p->n, &created);

	if (!slot)
		return NULL;
	if (created) {
		if (ht_grow((void **)&p->v, &p->cap, sizeof *p->v, p->n + 1)) {
			ht_map_del_u64(&p->index, h);
			return NULL;
		}
		p->n++;
	}
	return &p->v[*slot];
}

/* Fills the communicator, peer and this rank's fields of r from its process's definitions. */
static void place(struct ht_tl_mpi *m, const struct ht_proc_mpi *pm, struct ht_tl_record *r,
		  uint64_t comm_handle, int32_t peer)
{
	const struct ht_mpi_comm_def *c = ht_proc_mpi_comm(pm, comm_handle, r->ts);

	r->category = "mpi";
	r->mpi.rank = pm->is_rank ? pm->rank : -1;
	r->mpi.comm = c ? c->id : 0;
	r->mpi.comm_rank = c ? c->rank : -1;
	r->mpi.peer = peer;
	r->mpi.peer_world =
	    peer >= 0 && c && !c->remote_size ? ht_mpi_comms_world(&m->comms, c->id, peer) : -1;
	r->mpi.request = 0;
	r->mpi.received = 0;
	r->mpi.tag = -1;
	r->mpi.op = 0;
	r->mpi.cancelled = 0;
	r->bytes = 0;
}

static const char *const kind_names[HT_TL_MPI_KIND_COUNT] = {
    "send",  "isend",	   "isend_done",      "recv", "irecv_post",
    "irecv", "collective", "collective_post", "rma"};

static int p2p(struct ht_tl_mpi *m, struct proc_reqs *pr, const struct ht_proc_mpi *pm,
	       struct ht_tl_record *r, const struct ht_ev_mpi_p2p *e, int *have)
{
	static const uint8_t kinds[] = {
	    [HT_MPI_P2P_SEND] = HT_TL_MPI_SEND,
	    [HT_MPI_P2P_RECV] = HT_TL_MPI_RECV,
	    [HT_MPI_P2P_ISEND] = HT_TL_MPI_ISEND,
	    [HT_MPI_P2P_IRECV] = HT_TL_MPI_IRECV_POST,
	};
	struct req *q;

	if (e->op >= HT_MPI_P2P_OP_COUNT)
		return 0;
	if (e->op == HT_MPI_P2P_ISEND || e->op == HT_MPI_P2P_IRECV ||
	    e->op == HT_MPI_P2P_SEND_INIT || e->op == HT_MPI_P2P_RECV_INIT) {
		q = req_get(pr, e->request);
		if (!q)
			return -ENOMEM;
		q->kind = e->op == HT_MPI_P2P_ISEND	  ? REQ_ISEND
			  : e->op == HT_MPI_P2P_IRECV	  ? REQ_IRECV
			  : e->op == HT_MPI_P2P_SEND_INIT ? REQ_PSEND
							  : REQ_PRECV;
		q->active = e->op == HT_MPI_P2P_ISEND || e->op == HT_MPI_P2P_IRECV;
		q->peer = e->peer;
		q->tag = e->tag;
		q->comm_handle = e->comm;
		q->bytes = e->bytes;
		if (!q->active)
			return 0; /* persistent: posted by MPI_Start */
	}
	r->cmd_kind = kinds[e->op];
	place(m, pm, r, e->comm, e->peer);
	r->mpi.tag = e->tag;
	r->mpi.request = e->request;
	r->bytes = e->bytes;
	*have = 1;
	return 0;
}

static int request(struct ht_tl_mpi *m, struct proc_reqs *pr, const struct ht_proc_mpi *pm,
		   struct ht_tl_record *r, const struct ht_ev_mpi_request *e, int *have)
{
	uint64_t *slot = ht_map_find_u64(&pr->index, e->request);
	struct req *q = slot ? &pr->v[*slot] : NULL;

	if (!q)
		return 0; /* a request whose post was not recorded */
	if (e->op == HT_MPI_REQ_START) {
		if (q->kind != REQ_PSEND && q->kind != REQ_PRECV)
			return 0;
		q->active = 1;
		r->cmd_kind = q->kind == REQ_PSEND ? HT_TL_MPI_ISEND : HT_TL_MPI_IRECV_POST;
		place(m, pm, r, q->comm_handle, q->peer);
		r->mpi.tag = q->tag;
		r->bytes = q->bytes;
	} else {
		if (!q->active)
			return 0; /* a completion of an inactive (persistent) request */
		q->active = 0;
		if (q->kind == REQ_ISEND || q->kind == REQ_PSEND) {
			r->cmd_kind = HT_TL_MPI_ISEND_DONE;
			place(m, pm, r, q->comm_handle, q->peer);
			r->mpi.tag = q->tag;
			r->bytes = q->bytes;
		} else if (q->kind == REQ_IRECV || q->kind == REQ_PRECV) {
			r->cmd_kind = HT_TL_MPI_IRECV;
			place(m, pm, r, q->comm_handle, e->peer);
			r->mpi.tag = e->tag;
			r->bytes = e->bytes;
		} else {
			return 0; /* a nonblocking collective or one-sided access: counted when
				     posted */
		}
		r->mpi.cancelled = e->cancelled;
	}
	r->mpi.request = e->request;
	*have = 1;
	return 0;
}

int ht_tl_mpi_take(struct ht_timeline *tl, struct ht_tl_record *r, uint32_t id, const uint8_t *p,
		   size_t size, int *have)
{
	struct ht_tl_mpi *m = state(tl);
	const struct ht_proc_mpi *pm = &ht_timeline_proc(tl, r->proc)->mpi;
	struct proc_reqs *pr;
	union ht_ev_any u;
	int rc = 0;

	*have = 0;
	if (!m)
		return nomem(tl);
	pr = &m->procs[r->proc];
	switch (id) {
	case HT_EV_MPI_P2P:
		if (ht_ev_mpi_p2p_get(&u.mpi_p2p, p, size) >= 0)
			rc = p2p(m, pr, pm, r, &u.mpi_p2p, have);
		break;
	case HT_EV_MPI_REQUEST:
		if (ht_ev_mpi_request_get(&u.mpi_request, p, size) >= 0)
			rc = request(m, pr, pm, r, &u.mpi_request, have);
		break;
	case HT_EV_MPI_COLL:
		if (ht_ev_mpi_coll_get(&u.mpi_coll, p, size) < 0 ||
		    u.mpi_coll.op >= HT_MPI_COLL_OP_COUNT)
			break;
		if (u.mpi_coll.request) {
			struct req *q = req_get(pr, u.mpi_coll.request);

			if (!q)
				return nomem(tl);
			memset(q, 0, sizeof *q);
			q->kind = REQ_COLL;
			q->active = 1;
		}
		r->cmd_kind = u.mpi_coll.request ? HT_TL_MPI_COLL_POST : HT_TL_MPI_COLL;
		place(m, pm, r, u.mpi_coll.comm, u.mpi_coll.root);
		r->mpi.op = u.mpi_coll.op;
		r->mpi.request = u.mpi_coll.request;
		r->mpi.received = u.mpi_coll.received;
		r->bytes = u.mpi_coll.sent;
		r->name = ht_mpi_coll_op_names[u.mpi_coll.op];
		*have = 1;
		return 0;
	case HT_EV_MPI_RMA: {
		uint64_t comm;

		if (ht_ev_mpi_rma_get(&u.mpi_rma, p, size) < 0 ||
		    u.mpi_rma.op >= HT_MPI_RMA_OP_COUNT)
			break;
		comm = ht_proc_mpi_win_comm(pm, u.mpi_rma.win, r->ts);
		r->cmd_kind = HT_TL_MPI_RMA;
		place(m, pm, r, comm, u.mpi_rma.target);
		r->mpi.op = u.mpi_rma.op;
		r->mpi.request = u.mpi_rma.request;
		r->bytes = u.mpi_rma.bytes;
		r->name = ht_mpi_rma_op_names[u.mpi_rma.op];
		*have = 1;
		return 0;
	}
	default:
		break;
	}
	if (rc)
		return nomem(tl);
	if (*have)
		r->name = kind_names[r->cmd_kind];
	return 0;
}
