/*
 * One-sided communication: each access writes one mpi_rma (the window, the
 * target's rank in the window's group, the origin's bytes) when it
 * returns; the synchronisation calls (fence, lock, post/start/complete/
 * wait, flush) are slices only, where the time goes. A window's group is
 * the one of the communicator it was created over (mpi_win, comm.c).
 */
#include "mpi/interpose.h"

static void rma(enum ht_mpi_rma_op op, MPI_Win win, int target, uint64_t bytes, MPI_Request req)
{
	struct ht_ev_mpi_rma e;

	e.op = (uint8_t)op;
	e.win = (uint64_t)(uintptr_t)win;
	e.target = target;
	e.bytes = bytes;
	e.request = (uint64_t)(uintptr_t)req;
	HT_MPI_WRITE(mpi_rma, &e);
}

#define RMA(name, params, args, op, target, bytes, req)                                            \
	HT_MPI_WRAP(name, params, args, , if (r == MPI_SUCCESS) rma(op, win, target, bytes, req))

RMA(Put,
    (const void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
     MPI_Datatype ttype, MPI_Win win),
    (oaddr, ocount, otype, target, tdisp, tcount, ttype, win), HT_MPI_RMA_PUT, target,
    ht_mpi_bytes(ocount, otype), 0)
RMA(Get,
    (void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
     MPI_Datatype ttype, MPI_Win win),
    (oaddr, ocount, otype, target, tdisp, tcount, ttype, win), HT_MPI_RMA_GET, target,
    ht_mpi_bytes(ocount, otype), 0)
RMA(Accumulate,
    (const void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
     MPI_Datatype ttype, MPI_Op op, MPI_Win win),
    (oaddr, ocount, otype, target, tdisp, tcount, ttype, op, win), HT_MPI_RMA_ACCUMULATE, target,
    ht_mpi_bytes(ocount, otype), 0)
RMA(Get_accumulate,
    (const void *oaddr, int ocount, MPI_Datatype otype, void *raddr, int rcount, MPI_Datatype rtype,
     int target, MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win),
    (oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, tcount, ttype, op, win),
    HT_MPI_RMA_GET_ACCUMULATE, target, ht_mpi_bytes(ocount, otype) + ht_mpi_bytes(rcount, rtype), 0)
RMA(Fetch_and_op,
    (const void *oaddr, void *raddr, MPI_Datatype type, int target, MPI_Aint tdisp, MPI_Op op,
     MPI_Win win),
    (oaddr, raddr, type, target, tdisp, op, win), HT_MPI_RMA_FETCH_AND_OP, target,
    ht_mpi_bytes(1, type), 0)
RMA(Compare_and_swap,
    (const void *oaddr, const void *caddr, void *raddr, MPI_Datatype type, int target,
     MPI_Aint tdisp, MPI_Win win),
    (oaddr, caddr, raddr, type, target, tdisp, win), HT_MPI_RMA_COMPARE_AND_SWAP, target,
    ht_mpi_bytes(1, type), 0)
RMA(Rput,
    (const void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
     MPI_Datatype ttype, MPI_Win win, MPI_Request *req),
    (oaddr, ocount, otype, target, tdisp, tcount, ttype, win, req), HT_MPI_RMA_PUT, target,
    ht_mpi_bytes(ocount, otype), *req)
RMA(Rget,
    (void *oaddr, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp, int tcount,
     MPI_Datatype ttype, MPI_Win win, MPI_Request *req),
    (oaddr, ocount, otype, target, tdisp, tcount, ttype, win, req), HT_MPI_RMA_GET, target,
    ht_mpi_bytes(ocount, otype), *req)

HT_MPI_WRAP(Win_free, (MPI_Win * win), (win), , )
HT_MPI_WRAP(Win_fence, (int assert, MPI_Win win), (assert, win), , )
HT_MPI_WRAP(Win_lock, (int type, int rank, int assert, MPI_Win win), (type, rank, assert, win), , )
HT_MPI_WRAP(Win_unlock, (int rank, MPI_Win win), (rank, win), , )
HT_MPI_WRAP(Win_lock_all, (int assert, MPI_Win win), (assert, win), , )
HT_MPI_WRAP(Win_unlock_all, (MPI_Win win), (win), , )
HT_MPI_WRAP(Win_flush, (int rank, MPI_Win win), (rank, win), , )
HT_MPI_WRAP(Win_flush_all, (MPI_Win win), (win), , )
HT_MPI_WRAP(Win_flush_local, (int rank, MPI_Win win), (rank, win), , )
HT_MPI_WRAP(Win_start, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), , )
HT_MPI_WRAP(Win_complete, (MPI_Win win), (win), , )
HT_MPI_WRAP(Win_post, (MPI_Group group, int assert, MPI_Win win), (group, assert, win), , )
HT_MPI_WRAP(Win_wait, (MPI_Win win), (win), , )
