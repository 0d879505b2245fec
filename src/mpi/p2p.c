/*
 * Point-to-point communication and requests. What the reader needs to
 * match a send with its receive and to see who waited for whom:
 *   - a blocking send: mpi_p2p(send) as it starts (its slice's begin is when
 *     the sender was ready);
 *   - a blocking receive: mpi_p2p(recv) as it completes, with the actual
 *     source, tag and bytes of its status;
 *   - a nonblocking or persistent operation: mpi_p2p when posted, with its
 *     request; mpi_request(start) at MPI_Start; mpi_request(complete) in
 *     the wait or test that completed it, with the status (a receive's
 *     actual source, tag and bytes). The reader pairs them by request.
 * A wait or test that completes several requests writes one completion
 * each; the request handles are copied before the call (it resets them)
 * and statuses are asked for even when the program ignores them.
 *
 * Nothing is kept per request here: the handles tie the events together.
 * Operations with MPI_PROC_NULL move no message and write no mpi_p2p.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/interpose.h"

/* ---- scratch copies for the multi-request calls ---- */

#define SMALL 32

/*
 * Per-thread buffers for calls with more than SMALL requests: grown, never
 * shrunk, freed when the thread exits (no allocation per call once grown).
 */
struct scratch {
	MPI_Request *req;
	MPI_Status *st;
	size_t cap;
};

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static __thread struct scratch *scratch_tls;

static void scratch_free(void *p)
{
	struct scratch *s = p;

	free(s->req);
	free(s->st);
	free(s);
}

static void scratch_init(void)
{
	pthread_key_create(&scratch_key, scratch_free);
}

/* Room for n requests and n statuses (reqs/sts point at the stack arrays when n <= SMALL). */
static int scratch_get(int n, MPI_Request **reqs, MPI_Status **sts)
{
	struct scratch *s = scratch_tls;

	if (n <= SMALL)
		return 0;
	if (!s) {
		pthread_once(&scratch_once, scratch_init);
		s = calloc(1, sizeof *s);
		if (!s)
			return -1;
		scratch_tls = s;
		pthread_setspecific(scratch_key, s);
	}
	if (s->cap < (size_t)n) {
		MPI_Request *r = realloc(s->req, (size_t)n * sizeof *r);
		MPI_Status *t = r ? realloc(s->st, (size_t)n * sizeof *t) : NULL;

		if (r)
			s->req = r;
		if (t)
			s->st = t;
		if (!r || !t)
			return -1;
		s->cap = (size_t)n;
	}
	*reqs = s->req;
	*sts = s->st;
	return 0;
}

void ht_mpi_completed(const MPI_Request *old, int n, const int *which, const MPI_Status *st)
{
	for (int k = 0; k < n; k++) {
		MPI_Request q = old[which ? which[k] : k];
		struct ht_ev_mpi_request e;
		int bytes = 0, cancelled = 0;

		if (q == MPI_REQUEST_NULL)
			continue;
		if (HT_PMPI(Get_count)(&st[k], MPI_BYTE, &bytes) != MPI_SUCCESS || bytes < 0)
			bytes = 0;
		HT_PMPI(Test_cancelled)(&st[k], &cancelled);
		e.op = HT_MPI_REQ_COMPLETE;
		e.request = (uint64_t)(uintptr_t)q;
		e.peer = st[k].MPI_SOURCE;
		e.tag = st[k].MPI_TAG;
		e.bytes = (uint64_t)bytes;
		e.cancelled = (uint8_t)(cancelled != 0);
		HT_MPI_WRITE(mpi_request, &e);
	}
}

/* ---- sends and receives ---- */

/* A blocking send: the message as it starts. */
#define SEND(name)                                                                                 \
	HT_MPI_WRAP(                                                                               \
	    name,                                                                                  \
	    (const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm),     \
	    (buf, count, type, dest, tag, comm),                                                   \
	    if (dest != MPI_PROC_NULL)                                                             \
		ht_mpi_p2p(HT_MPI_P2P_SEND, comm, dest, tag, ht_mpi_bytes(count, type), 0), )

SEND(Send)
SEND(Ssend)
SEND(Bsend)
SEND(Rsend)

/* A nonblocking send or receive, or a persistent one (op), once its request exists. */
#define POST(name, cbuf, op)                                                                       \
	HT_MPI_WRAP(name,                                                                          \
		    (cbuf * buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,   \
		     MPI_Request *req),                                                            \
		    (buf, count, type, peer, tag, comm, req), ,                                    \
		    if (r == MPI_SUCCESS && peer != MPI_PROC_NULL)                                 \
			ht_mpi_p2p(op, comm, peer, tag, ht_mpi_bytes(count, type), *req))

POST(Isend, const void, HT_MPI_P2P_ISEND)
POST(Issend, const void, HT_MPI_P2P_ISEND)
POST(Ibsend, const void, HT_MPI_P2P_ISEND)
POST(Irsend, const void, HT_MPI_P2P_ISEND)
POST(Irecv, void, HT_MPI_P2P_IRECV)
POST(Send_init, const void, HT_MPI_P2P_SEND_INIT)
POST(Ssend_init, const void, HT_MPI_P2P_SEND_INIT)
POST(Bsend_init, const void, HT_MPI_P2P_SEND_INIT)
POST(Rsend_init, const void, HT_MPI_P2P_SEND_INIT)
POST(Recv_init, void, HT_MPI_P2P_RECV_INIT)

HT_MPI_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
			   MPI_Comm comm, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Recv)(buf, count, type, source, tag, comm, status);
	ht_emit_api_begin(HT_MPI_ID(Recv));
	r = HT_PMPI(Recv)(buf, count, type, source, tag, comm, st);
	if (r == MPI_SUCCESS && source != MPI_PROC_NULL)
		ht_mpi_recv_done(HT_MPI_P2P_RECV, comm, st);
	ht_emit_api_end(HT_MPI_ID(Recv), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
			       void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
			       MPI_Comm comm, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
					 source, rtag, comm, status);
	ht_emit_api_begin(HT_MPI_ID(Sendrecv));
	if (dest != MPI_PROC_NULL)
		ht_mpi_p2p(HT_MPI_P2P_SEND, comm, dest, stag, ht_mpi_bytes(scount, stype), 0);
	r = HT_PMPI(Sendrecv)(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
			      comm, st);
	if (r == MPI_SUCCESS && source != MPI_PROC_NULL)
		ht_mpi_recv_done(HT_MPI_P2P_RECV, comm, st);
	ht_emit_api_end(HT_MPI_ID(Sendrecv), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int stag,
				       int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm,
						 status);
	ht_emit_api_begin(HT_MPI_ID(Sendrecv_replace));
	if (dest != MPI_PROC_NULL)
		ht_mpi_p2p(HT_MPI_P2P_SEND, comm, dest, stag, ht_mpi_bytes(count, type), 0);
	r = HT_PMPI(Sendrecv_replace)(buf, count, type, dest, stag, source, rtag, comm, st);
	if (r == MPI_SUCCESS && source != MPI_PROC_NULL)
		ht_mpi_recv_done(HT_MPI_P2P_RECV, comm, st);
	ht_emit_api_end(HT_MPI_ID(Sendrecv_replace), r, NULL, 0);
	return r;
}

/* ---- persistent requests, probes, cancellation ---- */

static void started(const MPI_Request *reqs, int n)
{
	for (int i = 0; i < n; i++) {
		struct ht_ev_mpi_request e = {.op = HT_MPI_REQ_START,
					      .request = (uint64_t)(uintptr_t)reqs[i]};

		HT_MPI_WRITE(mpi_request, &e);
	}
}

HT_MPI_WRAP(Start, (MPI_Request * req), (req), , if (r == MPI_SUCCESS) started(req, 1))
HT_MPI_WRAP(Startall, (int n, MPI_Request reqs[]), (n, reqs), ,
	    if (r == MPI_SUCCESS) started(reqs, n))
HT_MPI_WRAP(Request_free, (MPI_Request * req), (req), , )
HT_MPI_WRAP(Cancel, (MPI_Request * req), (req), , )
HT_MPI_WRAP(Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status),
	    (source, tag, comm, status), , )
HT_MPI_WRAP(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status),
	    (source, tag, comm, flag, status), , )

/*
 * Matched probes (MPI_Mprobe / MPI_Improbe, then MPI_Mrecv / MPI_Imrecv:
 * how mpi4py receives every pickled object). The receive gets a message
 * handle, not the communicator its event needs: the probe that produced
 * the handle remembers it, with the sender and tag, per thread (a message
 * is received by the thread that probed it in every program we know; one
 * received elsewhere, or after more than PROBED others, is recorded with
 * communicator 0, which the reader leaves unmatched).
 */
#define PROBED 16
static __thread struct probed {
	MPI_Message msg;
	MPI_Comm comm;
	int source, tag;
} probed[PROBED];
static __thread unsigned int probed_next;

static void probe_done(MPI_Message msg, MPI_Comm comm, const MPI_Status *st)
{
	struct probed *p = &probed[probed_next++ % PROBED];

	p->msg = msg;
	p->comm = comm;
	p->source = st->MPI_SOURCE;
	p->tag = st->MPI_TAG;
}

static const struct probed *probed_find(MPI_Message msg)
{
	for (unsigned int i = 0; i < PROBED; i++)
		if (probed[i].msg == msg && msg != MPI_MESSAGE_NULL)
			return &probed[i];
	return NULL;
}

HT_MPI_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *msg,
			     MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Mprobe)(source, tag, comm, msg, status);
	ht_emit_api_begin(HT_MPI_ID(Mprobe));
	r = HT_PMPI(Mprobe)(source, tag, comm, msg, st);
	if (r == MPI_SUCCESS)
		probe_done(*msg, comm, st);
	ht_emit_api_end(HT_MPI_ID(Mprobe), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
			      MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Improbe)(source, tag, comm, flag, msg, status);
	ht_emit_api_begin(HT_MPI_ID(Improbe));
	r = HT_PMPI(Improbe)(source, tag, comm, flag, msg, st);
	if (r == MPI_SUCCESS && *flag)
		probe_done(*msg, comm, st);
	ht_emit_api_end(HT_MPI_ID(Improbe), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
			    MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	const struct probed *p;
	MPI_Message m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Mrecv)(buf, count, type, msg, status);
	m = *msg; /* the call sets it to MPI_MESSAGE_NULL */
	ht_emit_api_begin(HT_MPI_ID(Mrecv));
	r = HT_PMPI(Mrecv)(buf, count, type, msg, st);
	if (r == MPI_SUCCESS && m != MPI_MESSAGE_NO_PROC && st->MPI_SOURCE != MPI_PROC_NULL) {
		p = probed_find(m);
		ht_mpi_recv_done(HT_MPI_P2P_RECV, p ? p->comm : MPI_COMM_NULL, st);
	}
	ht_emit_api_end(HT_MPI_ID(Mrecv), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
			     MPI_Request *req)
{
	const struct probed *p;
	MPI_Message m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Imrecv)(buf, count, type, msg, req);
	m = *msg;
	ht_emit_api_begin(HT_MPI_ID(Imrecv));
	r = HT_PMPI(Imrecv)(buf, count, type, msg, req);
	if (r == MPI_SUCCESS && m != MPI_MESSAGE_NO_PROC && (p = probed_find(m)))
		ht_mpi_p2p(HT_MPI_P2P_IRECV, p->comm, p->source, p->tag, ht_mpi_bytes(count, type),
			   *req);
	ht_emit_api_end(HT_MPI_ID(Imrecv), r, NULL, 0);
	return r;
}

/* ---- waits and tests ---- */

HT_MPI_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	MPI_Request old;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Wait)(req, status);
	old = *req;
	ht_emit_api_begin(HT_MPI_ID(Wait));
	r = HT_PMPI(Wait)(req, st);
	if (r == MPI_SUCCESS)
		ht_mpi_completed(&old, 1, NULL, st);
	ht_emit_api_end(HT_MPI_ID(Wait), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	MPI_Request old;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Test)(req, flag, status);
	old = *req;
	ht_emit_api_begin(HT_MPI_ID(Test));
	r = HT_PMPI(Test)(req, flag, st);
	if (r == MPI_SUCCESS && *flag)
		ht_mpi_completed(&old, 1, NULL, st);
	ht_emit_api_end(HT_MPI_ID(Test), r, NULL, 0);
	return r;
}

/*
 * The calls on arrays of requests share one shape: copy the handles, call
 * with statuses of our own when the program ignores them, then write the
 * completions (all of them, the one at *index, or *outcount at indices[]).
 */
struct many {
	MPI_Request small_req[SMALL], *old;
	MPI_Status small_st[SMALL], *st;
	int ok;
};

/* Prepares the copies for n requests; m->st is the status array to pass. */
static void many_begin(struct many *m, int n, const MPI_Request *reqs, MPI_Status *app_st)
{
	MPI_Status *own = m->small_st;

	m->old = m->small_req;
	m->ok = n >= 0 && scratch_get(n, &m->old, &own) == 0;
	if (m->ok && n > 0)
		memcpy(m->old, reqs, (size_t)n * sizeof *reqs);
	m->st = app_st == MPI_STATUSES_IGNORE && m->ok ? own : app_st;
}

HT_MPI_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
	struct many m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Waitall)(n, reqs, sts);
	many_begin(&m, n, reqs, sts);
	ht_emit_api_begin(HT_MPI_ID(Waitall));
	r = HT_PMPI(Waitall)(n, reqs, m.st);
	if (r == MPI_SUCCESS && m.ok)
		ht_mpi_completed(m.old, n, NULL, m.st);
	ht_emit_api_end(HT_MPI_ID(Waitall), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
	struct many m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Testall)(n, reqs, flag, sts);
	many_begin(&m, n, reqs, sts);
	ht_emit_api_begin(HT_MPI_ID(Testall));
	r = HT_PMPI(Testall)(n, reqs, flag, m.st);
	if (r == MPI_SUCCESS && m.ok && *flag)
		ht_mpi_completed(m.old, n, NULL, m.st);
	ht_emit_api_end(HT_MPI_ID(Testall), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	struct many m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Waitany)(n, reqs, index, status);
	many_begin(&m, n, reqs, NULL);
	ht_emit_api_begin(HT_MPI_ID(Waitany));
	r = HT_PMPI(Waitany)(n, reqs, index, st);
	if (r == MPI_SUCCESS && m.ok && *index != MPI_UNDEFINED)
		ht_mpi_completed(m.old, 1, index, st);
	ht_emit_api_end(HT_MPI_ID(Waitany), r, NULL, 0);
	return r;
}

HT_MPI_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
	MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
	struct many m;
	int r;

	if (HT_MPI_OFF())
		return HT_PMPI(Testany)(n, reqs, index, flag, status);
	many_begin(&m, n, reqs, NULL);
	ht_emit_api_begin(HT_MPI_ID(Testany));
	r = HT_PMPI(Testany)(n, reqs, index, flag, st);
	if (r == MPI_SUCCESS && m.ok && *flag && *index != MPI_UNDEFINED)
		ht_mpi_completed(m.old, 1, index, st);
	ht_emit_api_end(HT_MPI_ID(Testany), r, NULL, 0);
	return r;
}

/* Waitsome and Testsome: *outcount requests, named by indices[], with their statuses. */
#define SOME_CALL(name)                                                                            \
	HT_MPI_EXPORT int MPI_##name(int n, MPI_Request reqs[], int *outcount, int indices[],      \
				     MPI_Status sts[])                                             \
	{                                                                                          \
		struct many m;                                                                     \
		int r;                                                                             \
                                                                                                   \
		if (HT_MPI_OFF())                                                                  \
			return HT_PMPI(name)(n, reqs, outcount, indices, sts);                     \
		many_begin(&m, n, reqs, sts);                                                      \
		ht_emit_api_begin(HT_MPI_ID(name));                                                \
		r = HT_PMPI(name)(n, reqs, outcount, indices, m.st);                               \
		if (r == MPI_SUCCESS && m.ok && *outcount != MPI_UNDEFINED)                        \
			ht_mpi_completed(m.old, *outcount, indices, m.st);                         \
		ht_emit_api_end(HT_MPI_ID(name), r, NULL, 0);                                      \
		return r;                                                                          \
	}

SOME_CALL(Waitsome)
SOME_CALL(Testsome)
