/*
 * Internal interface of libhetrace-mpi.so, the PMPI interposer that `hetrace
 * record` preloads into MPI programs. Each MPI_* function it defines records
 * the call as an API slice (api_begin/api_end with a function of the "mpi"
 * table, role comm) and what the analyses need to match and place it: the
 * message (mpi_p2p), the request's completion (mpi_request), the collective
 * (mpi_coll), the one-sided access (mpi_rma); communicators, windows, the
 * rank and its clock offset against rank 0 go to the process stream as
 * definitions. The real work is done by the PMPI_* entry points.
 *
 *   init.c    MPI_Init*, MPI_Finalize, the function table, on/off
 *   clock.c   ping-pong clock offsets against rank 0 (init and finalize)
 *   comm.c    communicator and window creation: job-wide communicator ids
 *   p2p.c     point-to-point, requests (wait, test, start), probes
 *   coll.c    collectives, blocking and nonblocking
 *   rma.c     one-sided operations and window synchronisation
 *
 * The library does not link libmpi: every PMPI_* function and predefined
 * handle it uses is a weak reference (HT_MPI_WEAK below), bound to the
 * program's libmpi when there is one. So preloaded into a process that
 * never calls MPI (the launcher, a shell) it is inert and pulls nothing in;
 * it records only where the program's MPI is the one it was built against
 * (Open MPI: its predefined handles resolve; checked at MPI_Init).
 *
 * A program may also load libmpi later and privately: Python's mpi4py
 * dlopens an extension that needs libmpi, with RTLD_LOCAL. Its MPI_* calls
 * still land here (we come first in the global scope), but the weak
 * references stayed 0 (calling one was a segfault at `from mpi4py import
 * MPI`). So every call goes through HT_PMPI(name): the weak reference when
 * it resolved, else the symbol looked up in whichever loaded object defines
 * PMPI_Init (bind.c), once, at the first call.
 */
#ifndef HT_MPI_INTERPOSE_H
#define HT_MPI_INTERPOSE_H

#include <stdint.h>

/* The API's own declarations must stay default-visible: we define them. */
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop

#include "core/recorder.h"
#include "core/session.h"
#include "hetrace/hetrace.h"

/*
 * Weak references to libmpi: resolved to the program's libmpi, or to 0 in a
 * process without one (nothing there calls our MPI_* functions).
 */
#define HT_MPI_PRAGMA(x)      _Pragma(#x)
#define HT_MPI_WEAK(n, ...)   HT_MPI_PRAGMA(weak PMPI_##n)
#define HT_MPI_WEAK_DATA(sym) HT_MPI_PRAGMA(weak sym)

#define HT_MPI_EXPORT __attribute__((visibility("default")))

/*
 * The traced functions: X(name without "MPI_", roles besides comm). Their
 * order is the function ids' (HT_FN_BASE_MPI + index).
 */
#define HT_MPI_FUNCTIONS(X)                                                                        \
	X(Init, HT_ROLE_CREATE)                                                                    \
	X(Init_thread, HT_ROLE_CREATE)                                                             \
	X(Finalize, HT_ROLE_RELEASE)                                                               \
	X(Send, 0)                                                                                 \
	X(Ssend, 0)                                                                                \
	X(Bsend, 0)                                                                                \
	X(Rsend, 0)                                                                                \
	X(Recv, 0)                                                                                 \
	X(Sendrecv, 0)                                                                             \
	X(Sendrecv_replace, 0)                                                                     \
	X(Isend, 0)                                                                                \
	X(Issend, 0)                                                                               \
	X(Ibsend, 0)                                                                               \
	X(Irsend, 0)                                                                               \
	X(Irecv, 0)                                                                                \
	X(Send_init, 0)                                                                            \
	X(Ssend_init, 0)                                                                           \
	X(Bsend_init, 0)                                                                           \
	X(Rsend_init, 0)                                                                           \
	X(Recv_init, 0)                                                                            \
	X(Start, 0)                                                                                \
	X(Startall, 0)                                                                             \
	X(Request_free, HT_ROLE_RELEASE)                                                           \
	X(Cancel, 0)                                                                               \
	X(Probe, 0)                                                                                \
	X(Iprobe, 0)                                                                               \
	X(Wait, 0)                                                                                 \
	X(Waitall, 0)                                                                              \
	X(Waitany, 0)                                                                              \
	X(Waitsome, 0)                                                                             \
	X(Test, 0)                                                                                 \
	X(Testall, 0)                                                                              \
	X(Testany, 0)                                                                              \
	X(Testsome, 0)                                                                             \
	X(Barrier, 0)                                                                              \
	X(Bcast, 0)                                                                                \
	X(Gather, 0)                                                                               \
	X(Gatherv, 0)                                                                              \
	X(Scatter, 0)                                                                              \
	X(Scatterv, 0)                                                                             \
	X(Allgather, 0)                                                                            \
	X(Allgatherv, 0)                                                                           \
	X(Alltoall, 0)                                                                             \
	X(Alltoallv, 0)                                                                            \
	X(Alltoallw, 0)                                                                            \
	X(Reduce, 0)                                                                               \
	X(Allreduce, 0)                                                                            \
	X(Reduce_scatter, 0)                                                                       \
	X(Reduce_scatter_block, 0)                                                                 \
	X(Scan, 0)                                                                                 \
	X(Exscan, 0)                                                                               \
	X(Ibarrier, 0)                                                                             \
	X(Ibcast, 0)                                                                               \
	X(Igather, 0)                                                                              \
	X(Iscatter, 0)                                                                             \
	X(Iallgather, 0)                                                                           \
	X(Ialltoall, 0)                                                                            \
	X(Ireduce, 0)                                                                              \
	X(Iallreduce, 0)                                                                           \
	X(Comm_dup, HT_ROLE_CREATE)                                                                \
	X(Comm_dup_with_info, HT_ROLE_CREATE)                                                      \
	X(Comm_split, HT_ROLE_CREATE)                                                              \
	X(Comm_split_type, HT_ROLE_CREATE)                                                         \
	X(Comm_create, HT_ROLE_CREATE)                                                             \
	X(Comm_create_group, HT_ROLE_CREATE)                                                       \
	X(Cart_create, HT_ROLE_CREATE)                                                             \
	X(Cart_sub, HT_ROLE_CREATE)                                                                \
	X(Graph_create, HT_ROLE_CREATE)                                                            \
	X(Dist_graph_create, HT_ROLE_CREATE)                                                       \
	X(Dist_graph_create_adjacent, HT_ROLE_CREATE)                                              \
	X(Intercomm_create, HT_ROLE_CREATE)                                                        \
	X(Intercomm_merge, HT_ROLE_CREATE)                                                         \
	X(Comm_free, HT_ROLE_RELEASE)                                                              \
	X(Win_create, HT_ROLE_CREATE)                                                              \
	X(Win_allocate, HT_ROLE_CREATE)                                                            \
	X(Win_allocate_shared, HT_ROLE_CREATE)                                                     \
	X(Win_create_dynamic, HT_ROLE_CREATE)                                                      \
	X(Win_free, HT_ROLE_RELEASE)                                                               \
	X(Put, 0)                                                                                  \
	X(Get, 0)                                                                                  \
	X(Accumulate, 0)                                                                           \
	X(Get_accumulate, 0)                                                                       \
	X(Fetch_and_op, 0)                                                                         \
	X(Compare_and_swap, 0)                                                                     \
	X(Rput, 0)                                                                                 \
	X(Rget, 0)                                                                                 \
	X(Win_fence, 0)                                                                            \
	X(Win_lock, 0)                                                                             \
	X(Win_unlock, 0)                                                                           \
	X(Win_lock_all, 0)                                                                         \
	X(Win_unlock_all, 0)                                                                       \
	X(Win_flush, 0)                                                                            \
	X(Win_flush_all, 0)                                                                        \
	X(Win_flush_local, 0)                                                                      \
	X(Win_start, 0)                                                                            \
	X(Win_complete, 0)                                                                         \
	X(Win_post, 0)                                                                             \
	X(Win_wait, 0)                                                                             \
	X(Mprobe, 0)                                                                               \
	X(Improbe, 0)                                                                              \
	X(Mrecv, 0)                                                                                \
	X(Imrecv, 0)

/* The library functions the wrappers call besides the traced ones. */
#define HT_MPI_HELPERS(X)                                                                          \
	X(Type_size)                                                                               \
	X(Get_count)                                                                               \
	X(Comm_rank)                                                                               \
	X(Comm_size)                                                                               \
	X(Comm_test_inter)                                                                         \
	X(Comm_remote_size)                                                                        \
	X(Get_processor_name)                                                                      \
	X(Get_library_version)                                                                     \
	X(Initialized)                                                                             \
	X(Finalized)                                                                               \
	X(Test_cancelled)

HT_MPI_FUNCTIONS(HT_MPI_WEAK)
HT_MPI_HELPERS(HT_MPI_WEAK)

/* Open MPI's predefined handles: the addresses of objects in libmpi. */
#ifdef OMPI_MAJOR_VERSION
#define HT_MPI_HANDLES(X)                                                                          \
	X(ompi_mpi_comm_world)                                                                     \
	X(ompi_mpi_comm_self)                                                                      \
	X(ompi_mpi_comm_null)                                                                      \
	X(ompi_mpi_byte)                                                                           \
	X(ompi_mpi_uint64_t)                                                                       \
	X(ompi_request_null)                                                                       \
	X(ompi_message_null)                                                                       \
	X(ompi_message_no_proc)
HT_MPI_HANDLES(HT_MPI_WEAK_DATA)
#else
#define HT_MPI_HANDLES(X)
#endif

/* Where the calls go (bind.c): a pointer per function, an address per handle. */
struct ht_pmpi {
#define HT_PMPI_FN(n, ...) __typeof__(PMPI_##n) *n;
#define HT_PMPI_DATA(sym)  void *sym;
	HT_MPI_FUNCTIONS(HT_PMPI_FN)
	HT_MPI_HELPERS(HT_PMPI_FN)
	HT_MPI_HANDLES(HT_PMPI_DATA)
#undef HT_PMPI_FN
#undef HT_PMPI_DATA
};
extern struct ht_pmpi ht_pmpi;
extern int ht_pmpi_bound;

/* Fills ht_pmpi (idempotent, thread-safe: every caller computes the same values). */
void ht_pmpi_bind(void);

/* The library's PMPI_<n>, bound at the first call. */
#define HT_PMPI(n)                                                                                 \
	(*(__builtin_expect(__atomic_load_n(&ht_pmpi_bound, __ATOMIC_ACQUIRE), 1)                  \
	       ? ht_pmpi.n                                                                         \
	       : (ht_pmpi_bind(), ht_pmpi.n)))

#ifdef OMPI_MAJOR_VERSION
/* Our uses of the predefined handles go through the bound addresses too. */
#undef MPI_COMM_WORLD
#undef MPI_COMM_SELF
#undef MPI_COMM_NULL
#undef MPI_BYTE
#undef MPI_UINT64_T
#undef MPI_REQUEST_NULL
#undef MPI_MESSAGE_NULL
#undef MPI_MESSAGE_NO_PROC
#define MPI_COMM_WORLD	    ((MPI_Comm)ht_pmpi.ompi_mpi_comm_world)
#define MPI_COMM_SELF	    ((MPI_Comm)ht_pmpi.ompi_mpi_comm_self)
#define MPI_COMM_NULL	    ((MPI_Comm)ht_pmpi.ompi_mpi_comm_null)
#define MPI_BYTE	    ((MPI_Datatype)ht_pmpi.ompi_mpi_byte)
#define MPI_UINT64_T	    ((MPI_Datatype)ht_pmpi.ompi_mpi_uint64_t)
#define MPI_REQUEST_NULL    ((MPI_Request)ht_pmpi.ompi_request_null)
#define MPI_MESSAGE_NULL    ((MPI_Message)ht_pmpi.ompi_message_null)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)ht_pmpi.ompi_message_no_proc)
/* Nonzero when the process's libmpi is the MPI this library was built for. */
#define HT_MPI_ABI_MATCHES()                                                                       \
	(ht_pmpi_bind(), ht_pmpi.ompi_mpi_comm_world != NULL && ht_pmpi.ompi_request_null != NULL)
#else
#define HT_MPI_ABI_MATCHES() (ht_pmpi_bind(), ht_pmpi.Init != NULL)
#endif

enum ht_mpi_fn {
#define HT_MPI_ENUM(n, roles) HT_MPI_FN_##n,
	HT_MPI_FUNCTIONS(HT_MPI_ENUM)
#undef HT_MPI_ENUM
	    HT_MPI_FN_COUNT
};

/* The function id of MPI_<n> (fntable.h: HT_FN_BASE_MPI + index). */
#define HT_MPI_ID(n) ((uint16_t)(HT_FN_BASE_MPI + HT_MPI_FN_##n))

extern const struct ht_fn_table ht_mpi_fn_table;

/* Set at MPI_Init when the MPI library matches and HETRACE_API allows "mpi". */
extern int ht_mpi_on;

/* Nonzero when this call must not be recorded (two relaxed loads). */
#define HT_MPI_OFF()                                                                               \
	__builtin_expect(!(__atomic_load_n(&ht_mpi_on, __ATOMIC_RELAXED) &&                        \
			   __atomic_load_n(&ht_active, __ATOMIC_RELAXED)),                         \
			 0)

/* The world rank and size, set at MPI_Init. */
extern int ht_mpi_world_rank, ht_mpi_world_size;

/*
 * A wrapper: MPI_<name>(params) recorded as its slice, `before` run after
 * the slice began and `after` (r holds the result) before it ends.
 */
#define HT_MPI_WRAP(name, params, args, before, after)                                             \
	HT_MPI_EXPORT int MPI_##name params                                                        \
	{                                                                                          \
		int r;                                                                             \
                                                                                                   \
		if (HT_MPI_OFF())                                                                  \
			return HT_PMPI(name) args;                                                 \
		ht_emit_api_begin(HT_MPI_ID(name));                                                \
		before;                                                                            \
		r = HT_PMPI(name) args;                                                            \
		after;                                                                             \
		ht_emit_api_end(HT_MPI_ID(name), r, NULL, 0);                                      \
		return r;                                                                          \
	}

/* ---- events ---- */

/* Bytes of count elements of type (0 when the type has no size). */
static inline uint64_t ht_mpi_bytes(int count, MPI_Datatype type)
{
	int size = 0;

	if (count <= 0 || HT_PMPI(Type_size)(type, &size) != MPI_SUCCESS || size < 0)
		return 0;
	return (uint64_t)count * (uint64_t)size;
}

/* Writes event `cls` from ev on the calling thread's stream (dropped and counted when full). */
#define HT_MPI_WRITE(cls, ev)                                                                      \
	do {                                                                                       \
		const struct ht_ev_##cls *me_ = (ev);                                              \
		struct ht_stream *ms_ = ht_emit_thread_stream(ht_ev_##cls##_size(me_));            \
		if (ms_)                                                                           \
			HT_WRITE(ms_, cls, me_);                                                   \
	} while (0)

static inline void ht_mpi_p2p(enum ht_mpi_p2p_op op, MPI_Comm comm, int peer, int tag,
			      uint64_t bytes, MPI_Request req)
{
	struct ht_ev_mpi_p2p e;

	e.op = (uint8_t)op;
	e.comm = (uint64_t)(uintptr_t)comm;
	e.peer = peer;
	e.tag = tag;
	e.bytes = bytes;
	e.request = (uint64_t)(uintptr_t)req;
	HT_MPI_WRITE(mpi_p2p, &e);
}

/* A receive completed with status st (the count in bytes). */
static inline void ht_mpi_recv_done(enum ht_mpi_p2p_op op, MPI_Comm comm, const MPI_Status *st)
{
	int n = 0;

	if (HT_PMPI(Get_count)(st, MPI_BYTE, &n) != MPI_SUCCESS || n < 0)
		n = 0;
	ht_mpi_p2p(op, comm, st->MPI_SOURCE, st->MPI_TAG, (uint64_t)n, 0);
}

/* Request events for the requests old[i] that completed, with their statuses. */
void ht_mpi_completed(const MPI_Request *old, int n, const int *which, const MPI_Status *st);

/* ---- communicators and windows (comm.c) ---- */

/*
 * Defines a communicator this rank belongs to (MPI_COMM_NULL: nothing):
 * its job-wide id agreed with the other members (a broadcast over it, so
 * every member calls this, collectively), then an mpi_comm definition.
 */
void ht_mpi_comm_define(MPI_Comm c);
/* The predefined ones, at MPI_Init: MPI_COMM_WORLD (id 1) and MPI_COMM_SELF. */
void ht_mpi_comm_define_predefined(void);
void ht_mpi_win_define(MPI_Win w, MPI_Comm c);

/* ---- clock offsets (clock.c) ---- */

/*
 * Measures this rank's clock against rank 0's (collective over `comm`, a
 * private duplicate of MPI_COMM_WORLD) and writes an mpi_clock definition.
 */
void ht_mpi_clock_measure(MPI_Comm comm, enum ht_mpi_clock_phase phase);

/* Writes an event into the process stream (definitions). */
void ht_mpi_define(void (*write)(struct ht_stream *proc, const void *ev), const void *ev);

#endif
