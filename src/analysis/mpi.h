/*
 * The report's MPI analysis: per rank and per host, time in MPI by call,
 * compute, GPU busy and idle, load imbalance; and Scalasca's wait states
 * (late sender, late receiver, wait at collective, late broadcast, early
 * reduce), each naming the rank the others waited for. Clocks of ranks on
 * other nodes are aligned already (the timeline's clock shift).
 *
 * It works in two steps, so that a job's parts can be analysed apart (in
 * parallel, or on other machines: report_parts.c) and put together:
 *   1. per part, the report's thread pass hands every timeline record to
 *      ht_mpi_report_take: each rank's calls and times, and the raw facts
 *      of its messages (one side each), its collectives (the n-th on a
 *      communicator) and what its communicators are;
 *   2. on the whole (ht_mpi_report_finish): sends matched with receives
 *      (same communicator, sender, receiver and tag, in posting order, as
 *      MPI matches them), the members of each collective instance lined
 *      up, wait states computed and blamed.
 * Memory: 64 bytes per message side and per collective call.
 */
#ifndef HT_MPI_H
#define HT_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "common/map.h"

enum ht_mpi_wait {
	HT_MPI_LATE_SENDER,    /* a receive waited for its send to start */
	HT_MPI_LATE_RECEIVER,  /* a blocking send waited for its receive to be posted */
	HT_MPI_WAIT_NXN,       /* an all-to-all collective (barrier too) waited for the last rank */
	HT_MPI_LATE_BROADCAST, /* a one-to-all collective waited for its root */
	HT_MPI_EARLY_REDUCE,   /* an all-to-one collective's root waited for the last rank */
	HT_MPI_WAIT_COUNT
};

extern const char *const ht_mpi_wait_names[HT_MPI_WAIT_COUNT]; /* "late_sender", ... */

struct ht_mpi_call {
	char *name;
	uint64_t count, total_ns;
};

struct ht_mpi_rank {
	int32_t rank, pid;
	unsigned int proc; /* its process in the trace */
	char host[72];
	int64_t clock_offset_ns; /* its clock minus the reference's (at its first measurement) */
	uint64_t clock_error_ns; /* that offset's error bound */
	double clock_drift_ppm;	 /* where its measurements show one, else 0 */
	uint32_t clock_measurements;
	uint64_t first, last;		       /* its threads' first and last record */
	uint64_t mpi_ns;		       /* in MPI calls */
	uint64_t compute_ns;		       /* its span outside MPI calls */
	uint64_t gpu_busy_ns, gpu_idle_ns;     /* its devices' */
	uint64_t wait_ns[HT_MPI_WAIT_COUNT];   /* it waited */
	uint64_t caused_ns[HT_MPI_WAIT_COUNT]; /* others waited for it */
	uint64_t sent, received, bytes_sent, bytes_received, collectives;
	struct ht_mpi_call *calls; /* by total time, then name (after finish) */
	size_t ncalls, capcalls;
};

/* One side of a message. */
struct ht_mpi_msg {
	uint64_t comm;	     /* job-wide id */
	int32_t world, peer; /* this rank (world), its partner (rank in comm) */
	int32_t tag;
	uint8_t send, blocking;
	uint64_t bytes;
	uint64_t order;	     /* sends: when started; receives: when posted */
	uint64_t begin, end; /* the call this side waited in (end 0: unknown) */
};

/* One rank's call of a collective: the `seq`-th on communicator `comm`. */
struct ht_mpi_coll {
	uint64_t comm, seq;
	int32_t world, comm_rank, root; /* root: rank in comm, -1 none */
	uint8_t op;			/* ht_mpi_coll_op */
	uint64_t begin, end;
};

/* A communicator member: rank `rank` of id (size ranks) is world rank `world`. */
struct ht_mpi_member {
	uint64_t id;
	int32_t size, rank, world;
};

struct ht_mpi_host {
	char name[72];
	unsigned int ranks;
	uint64_t mpi_ns, compute_ns, gpu_busy_ns, gpu_idle_ns, wait_ns;
};

struct ht_mpi_blame {
	int32_t rank;
	uint64_t ns;
};

struct ht_mpi_report {
	int32_t size; /* ranks in the job (its MPI_COMM_WORLD) */
	char job[128];
	struct ht_mpi_rank *ranks; /* by rank after finish */
	size_t nranks, capranks;
	struct ht_mpi_msg *msgs;
	size_t nmsgs, capmsgs;
	struct ht_mpi_coll *colls;
	size_t ncolls, capcolls;
	struct ht_mpi_member *members;
	size_t nmembers, capmembers;
	/* results (finish) */
	uint64_t sends, recvs, matched;
	uint64_t instances, instances_incomplete; /* collective instances, partly recorded */
	struct ht_mpi_wait_total {
		uint64_t ns, count;
		struct ht_mpi_blame *by; /* ranks waited for, most first */
		size_t nby, capby;
	} waits[HT_MPI_WAIT_COUNT];
	struct ht_mpi_blame waited_for; /* the rank others waited for most (rank -1: none) */
	struct ht_mpi_host *hosts;
	size_t nhosts;
	uint64_t compute_max, compute_min, compute_mean; /* load imbalance over ranks */
	int32_t compute_max_rank, compute_min_rank;
	struct ht_mpi_build *build; /* step 1's working state */
};

struct ht_timeline;
struct ht_tl_record;
struct ht_report;

/*
 * Starts step 1 for the ranks of timeline tl (its processes' definitions).
 * Return: 0 with *out (NULL when no process is an MPI rank), or -ENOMEM.
 */
int ht_mpi_report_create(struct ht_mpi_report **out, struct ht_timeline *tl);
/* Takes one record of the report's thread pass. Return: 0, or -ENOMEM. */
int ht_mpi_report_take(struct ht_mpi_report *m, const struct ht_tl_record *x);
/*
 * Ends step 1 for one part: its working state freed, each rank's GPU busy
 * and idle taken from r's devices (same process).
 */
void ht_mpi_report_part_done(struct ht_mpi_report *m, const struct ht_report *r);
/* Moves everything of src (a later part; its processes from proc_base on) into dst. */
int ht_mpi_report_merge(struct ht_mpi_report *dst, struct ht_mpi_report *src,
			unsigned int proc_base);
/* Step 2. Return: 0, or -ENOMEM. */
int ht_mpi_report_finish(struct ht_mpi_report *m);
void ht_mpi_report_destroy(struct ht_mpi_report *m);

#endif
