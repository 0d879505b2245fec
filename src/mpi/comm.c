/*
 * Communicators and windows. Events name a communicator by its handle in
 * the process; the mpi_comm definition written when it is created ties the
 * handle to a job-wide id and to this process's rank in it, so the reader
 * maps any communicator's ranks to world ranks (every member defines its
 * own rank) and knows which calls of different ranks belong to the same
 * collective (the n-th collective on one communicator, at every member).
 *
 * The id: MPI_COMM_WORLD is 1; an intracommunicator's rank 0 names it
 * ((its world rank + 1) << 32 | n, its n-th) and broadcasts that over it, a
 * collective inside the creating call (which is collective already);
 * MPI_COMM_SELF is (world rank + 1) << 32. An intercommunicator has no
 * rank every member of both groups agrees on cheaply: its id is this
 * process's own (bit 31 set), and its peers are not mapped to world ranks.
 */
#include "mpi/interpose.h"

static uint32_t created; /* ids given out by this process as a rank 0 */

static void write_comm(struct ht_stream *proc, const void *ev)
{
	HT_WRITE(proc, mpi_comm, (const struct ht_ev_mpi_comm *)ev);
}

static void write_win(struct ht_stream *proc, const void *ev)
{
	HT_WRITE(proc, mpi_win, (const struct ht_ev_mpi_win *)ev);
}

static uint64_t own_id(uint32_t flags)
{
	uint32_t n = __atomic_add_fetch(&created, 1, __ATOMIC_RELAXED);

	return (uint64_t)(ht_mpi_world_rank + 1) << 32 | flags | (n & 0x7fffffffu);
}

void ht_mpi_comm_define(MPI_Comm c)
{
	struct ht_ev_mpi_comm e = {.handle = (uint64_t)(uintptr_t)c};
	int inter = 0;

	if (c == MPI_COMM_NULL || HT_PMPI(Comm_rank)(c, &e.rank) != MPI_SUCCESS ||
	    HT_PMPI(Comm_size)(c, &e.size) != MPI_SUCCESS ||
	    HT_PMPI(Comm_test_inter)(c, &inter) != MPI_SUCCESS)
		return;
	if (inter) {
		HT_PMPI(Comm_remote_size)(c, &e.remote_size);
		e.id = own_id(0x80000000u);
	} else {
		if (e.rank == 0)
			e.id = own_id(0);
		if (HT_PMPI(Bcast)(&e.id, 1, MPI_UINT64_T, 0, c) != MPI_SUCCESS)
			e.id = own_id(0x80000000u);
	}
	ht_mpi_define(write_comm, &e);
}

void ht_mpi_comm_define_predefined(void)
{
	struct ht_ev_mpi_comm w = {.handle = (uint64_t)(uintptr_t)MPI_COMM_WORLD,
				   .id = 1,
				   .rank = ht_mpi_world_rank,
				   .size = ht_mpi_world_size};
	struct ht_ev_mpi_comm s = {.handle = (uint64_t)(uintptr_t)MPI_COMM_SELF,
				   .id = (uint64_t)(ht_mpi_world_rank + 1) << 32,
				   .rank = 0,
				   .size = 1};

	ht_mpi_define(write_comm, &w);
	ht_mpi_define(write_comm, &s);
}

void ht_mpi_win_define(MPI_Win w, MPI_Comm c)
{
	struct ht_ev_mpi_win e = {.win = (uint64_t)(uintptr_t)w, .comm = (uint64_t)(uintptr_t)c};

	ht_mpi_define(write_win, &e);
}

/* A call that creates one communicator *out (collective over its members). */
#define CREATES_COMM(name, params, args, out)                                                      \
	HT_MPI_WRAP(name, params, args, , if (r == MPI_SUCCESS) ht_mpi_comm_define(*(out)))
CREATES_COMM(Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm), (comm, newcomm), newcomm)
CREATES_COMM(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm),
	     (comm, info, newcomm), newcomm)
CREATES_COMM(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm),
	     (comm, color, key, newcomm), newcomm)
CREATES_COMM(Comm_split_type,
	     (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm),
	     (comm, split_type, key, info, newcomm), newcomm)
CREATES_COMM(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm),
	     (comm, group, newcomm), newcomm)
CREATES_COMM(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm),
	     (comm, group, tag, newcomm), newcomm)
CREATES_COMM(Cart_create,
	     (MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
	      MPI_Comm *newcomm),
	     (old, ndims, dims, periods, reorder, newcomm), newcomm)
CREATES_COMM(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm),
	     (comm, remain_dims, newcomm), newcomm)
CREATES_COMM(Graph_create,
	     (MPI_Comm old, int nnodes, const int index[], const int edges[], int reorder,
	      MPI_Comm *newcomm),
	     (old, nnodes, index, edges, reorder, newcomm), newcomm)
CREATES_COMM(Dist_graph_create,
	     (MPI_Comm old, int n, const int sources[], const int degrees[],
	      const int destinations[], const int weights[], MPI_Info info, int reorder,
	      MPI_Comm *newcomm),
	     (old, n, sources, degrees, destinations, weights, info, reorder, newcomm), newcomm)
CREATES_COMM(Dist_graph_create_adjacent,
	     (MPI_Comm old, int indegree, const int sources[], const int sourceweights[],
	      int outdegree, const int destinations[], const int destweights[], MPI_Info info,
	      int reorder, MPI_Comm *newcomm),
	     (old, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
	      reorder, newcomm),
	     newcomm)
CREATES_COMM(Intercomm_create,
	     (MPI_Comm local, int local_leader, MPI_Comm bridge, int remote_leader, int tag,
	      MPI_Comm *newcomm),
	     (local, local_leader, bridge, remote_leader, tag, newcomm), newcomm)
CREATES_COMM(Intercomm_merge, (MPI_Comm inter, int high, MPI_Comm *newcomm), (inter, high, newcomm),
	     newcomm)

HT_MPI_WRAP(Comm_free, (MPI_Comm * comm), (comm), , )

/* A call that creates window *win over comm. */
#define CREATES_WIN(name, params, args)                                                            \
	HT_MPI_WRAP(name, params, args, , if (r == MPI_SUCCESS) ht_mpi_win_define(*win, comm))

CREATES_WIN(Win_create,
	    (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
	    (base, size, disp_unit, info, comm, win))
CREATES_WIN(Win_allocate,
	    (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
	     MPI_Win *win),
	    (size, disp_unit, info, comm, baseptr, win))
CREATES_WIN(Win_allocate_shared,
	    (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
	     MPI_Win *win),
	    (size, disp_unit, info, comm, baseptr, win))
CREATES_WIN(Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win), (info, comm, win))
