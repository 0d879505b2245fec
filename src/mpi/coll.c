/*
 * Collective operations: each writes one mpi_coll as it ends (its slice's
 * begin is when this rank arrived), a nonblocking one when posted, with its
 * request (completed by a wait or test like any other). Bytes are what this
 * rank sent and received through its own buffers, as OTF2's
 * MpiCollectiveEnd counts them: a broadcast's root sent count x size and
 * every other rank received as much; a gather's root received from all
 * (its own contribution included), and so on. Counts of the v-variants are
 * summed at the ranks where they are significant (the root's arrays only
 * at the root). The root is the rank in the communicator, -1 for none.
 */
#include "mpi/interpose.h"

static void coll(enum ht_mpi_coll_op op, MPI_Comm comm, int root, uint64_t sent, uint64_t received,
		 MPI_Request req)
{
	struct ht_ev_mpi_coll e;

	e.op = (uint8_t)op;
	e.comm = (uint64_t)(uintptr_t)comm;
	e.root = root;
	e.sent = sent;
	e.received = received;
	e.request = (uint64_t)(uintptr_t)req;
	HT_MPI_WRITE(mpi_coll, &e);
}

static int comm_size(MPI_Comm c)
{
	int n = 0;

	return HT_PMPI(Comm_size)(c, &n) == MPI_SUCCESS ? n : 0;
}

static int is_root(MPI_Comm c, int root)
{
	int me = -1;

	return HT_PMPI(Comm_rank)(c, &me) == MPI_SUCCESS && me == root;
}

/* Sum over the communicator of counts[i] x size (of types[i], or of type). */
static uint64_t sum_bytes(MPI_Comm c, const int *counts, MPI_Datatype type,
			  const MPI_Datatype *types)
{
	uint64_t b = 0;
	int n = comm_size(c);

	for (int i = 0; counts && i < n; i++)
		b += ht_mpi_bytes(counts[i], types ? types[i] : type);
	return b;
}

/* A blocking collective: `sent`/`received` are expressions of the call's arguments. */
#define COLL(name, params, args, op, root, sent, received)                                         \
	HT_MPI_WRAP(name, params, args, ,                                                          \
		    if (r == MPI_SUCCESS) coll(op, comm, root, sent, received, 0))
/* A nonblocking one: written when posted, with its request. */
#define ICOLL(name, params, args, op, root, sent, received)                                        \
	HT_MPI_WRAP(name, params, args, ,                                                          \
		    if (r == MPI_SUCCESS) coll(op, comm, root, sent, received, *req))

#define ROOTED(bytes)  (is_root(comm, root) ? (bytes) : 0)
#define NONROOT(bytes) (is_root(comm, root) ? 0 : (bytes))

COLL(Barrier, (MPI_Comm comm), (comm), HT_MPI_COLL_BARRIER, -1, 0, 0)
COLL(Bcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
     (buf, count, type, root, comm), HT_MPI_COLL_BCAST, root, ROOTED(ht_mpi_bytes(count, type)),
     NONROOT(ht_mpi_bytes(count, type)))
COLL(Gather,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
      int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), HT_MPI_COLL_GATHER, root,
     ht_mpi_bytes(scount, stype), ROOTED(comm_size(comm) * ht_mpi_bytes(rcount, rtype)))
COLL(Gatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm), HT_MPI_COLL_GATHERV, root,
     ht_mpi_bytes(scount, stype), ROOTED(sum_bytes(comm, rcounts, rtype, NULL)))
COLL(Scatter,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
      int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm), HT_MPI_COLL_SCATTER, root,
     ROOTED(comm_size(comm) * ht_mpi_bytes(scount, stype)), ht_mpi_bytes(rcount, rtype))
COLL(Scatterv,
     (const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype, void *rbuf,
      int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm), HT_MPI_COLL_SCATTERV, root,
     ROOTED(sum_bytes(comm, scounts, stype, NULL)), ht_mpi_bytes(rcount, rtype))
COLL(Allgather,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
      MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, comm), HT_MPI_COLL_ALLGATHER, -1,
     ht_mpi_bytes(scount, stype), comm_size(comm) * ht_mpi_bytes(rcount, rtype))
COLL(Allgatherv,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, const int rcounts[],
      const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm), HT_MPI_COLL_ALLGATHERV, -1,
     ht_mpi_bytes(scount, stype), sum_bytes(comm, rcounts, rtype, NULL))
COLL(Alltoall,
     (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
      MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, comm), HT_MPI_COLL_ALLTOALL, -1,
     comm_size(comm) * ht_mpi_bytes(scount, stype), comm_size(comm) * ht_mpi_bytes(rcount, rtype))
COLL(Alltoallv,
     (const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype, void *rbuf,
      const int rcounts[], const int rdispls[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm), HT_MPI_COLL_ALLTOALLV,
     -1, sum_bytes(comm, scounts, stype, NULL), sum_bytes(comm, rcounts, rtype, NULL))
COLL(Alltoallw,
     (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype stypes[],
      void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rtypes[],
      MPI_Comm comm),
     (sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm), HT_MPI_COLL_ALLTOALLW,
     -1, sum_bytes(comm, scounts, MPI_BYTE, stypes), sum_bytes(comm, rcounts, MPI_BYTE, rtypes))
COLL(Reduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
      MPI_Comm comm),
     (sbuf, rbuf, count, type, op, root, comm), HT_MPI_COLL_REDUCE, root, ht_mpi_bytes(count, type),
     ROOTED(ht_mpi_bytes(count, type)))
COLL(Allreduce,
     (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, count, type, op, comm), HT_MPI_COLL_ALLREDUCE, -1, ht_mpi_bytes(count, type),
     ht_mpi_bytes(count, type))
COLL(Reduce_scatter,
     (const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype type, MPI_Op op,
      MPI_Comm comm),
     (sbuf, rbuf, rcounts, type, op, comm), HT_MPI_COLL_REDUCE_SCATTER, -1,
     sum_bytes(comm, rcounts, type, NULL), 0)
COLL(Reduce_scatter_block,
     (const void *sbuf, void *rbuf, int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, rcount, type, op, comm), HT_MPI_COLL_REDUCE_SCATTER_BLOCK, -1,
     comm_size(comm) * ht_mpi_bytes(rcount, type), ht_mpi_bytes(rcount, type))
COLL(Scan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, count, type, op, comm), HT_MPI_COLL_SCAN, -1, ht_mpi_bytes(count, type),
     ht_mpi_bytes(count, type))
COLL(Exscan, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, count, type, op, comm), HT_MPI_COLL_EXSCAN, -1, ht_mpi_bytes(count, type),
     ht_mpi_bytes(count, type))

ICOLL(Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req), HT_MPI_COLL_BARRIER, -1, 0, 0)
ICOLL(Ibcast, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request *req),
      (buf, count, type, root, comm, req), HT_MPI_COLL_BCAST, root,
      ROOTED(ht_mpi_bytes(count, type)), NONROOT(ht_mpi_bytes(count, type)))
ICOLL(Igather,
      (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
       int root, MPI_Comm comm, MPI_Request *req),
      (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), HT_MPI_COLL_GATHER, root,
      ht_mpi_bytes(scount, stype), ROOTED(comm_size(comm) * ht_mpi_bytes(rcount, rtype)))
ICOLL(Iscatter,
      (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
       int root, MPI_Comm comm, MPI_Request *req),
      (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req), HT_MPI_COLL_SCATTER, root,
      ROOTED(comm_size(comm) * ht_mpi_bytes(scount, stype)), ht_mpi_bytes(rcount, rtype))
ICOLL(Iallgather,
      (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
       MPI_Comm comm, MPI_Request *req),
      (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), HT_MPI_COLL_ALLGATHER, -1,
      ht_mpi_bytes(scount, stype), comm_size(comm) * ht_mpi_bytes(rcount, rtype))
ICOLL(Ialltoall,
      (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
       MPI_Comm comm, MPI_Request *req),
      (sbuf, scount, stype, rbuf, rcount, rtype, comm, req), HT_MPI_COLL_ALLTOALL, -1,
      comm_size(comm) * ht_mpi_bytes(scount, stype), comm_size(comm) * ht_mpi_bytes(rcount, rtype))
ICOLL(Ireduce,
      (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
       MPI_Comm comm, MPI_Request *req),
      (sbuf, rbuf, count, type, op, root, comm, req), HT_MPI_COLL_REDUCE, root,
      ht_mpi_bytes(count, type), ROOTED(ht_mpi_bytes(count, type)))
ICOLL(Iallreduce,
      (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
       MPI_Request *req),
      (sbuf, rbuf, count, type, op, comm, req), HT_MPI_COLL_ALLREDUCE, -1,
      ht_mpi_bytes(count, type), ht_mpi_bytes(count, type))
