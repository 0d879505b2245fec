/*
 * What an MPI rank's process stream defines (src/mpi writes it): the rank
 * (rank, size, host, job), its communicators (handle -> job-wide id and its
 * rank in each), its windows, and its clock measured against rank 0's.
 * Loaded with the process's other definitions (defs.h) before anything is
 * read, because readers need two things from them first:
 *
 *   - the clock shift of every process (trace time = local time - offset:
 *     the rank's offset against rank 0, and its drift where the two
 *     measurements' error bounds show one). A process that measured nothing takes the
 *     shift of a process of the same part that did, found by pid (the image
 *     before an exec) or as its ancestor, or of the part's only rank (a
 *     rank's part holds its node's clock). The pipeline applies it to every
 *     event time, the timeline to host times inside payloads;
 *   - the job's communicators: each member defined its own rank, so
 *     together they map any communicator's ranks to world ranks.
 */
#ifndef HT_MPI_DEFS_H
#define HT_MPI_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trace.h"
#include "common/map.h"
#include "format/packet.h"

/* Both kinds of definitions start with their time (mpi_defs.c looks them up alike). */
struct ht_mpi_comm_def {
	uint64_t ts; /* when it was defined (trace time once shifted) */
	uint64_t handle, id;
	int32_t rank, size, remote_size;
};

struct ht_mpi_win_def {
	uint64_t ts;
	uint64_t win, comm; /* handles */
};

struct ht_mpi_clock_def {
	uint64_t time; /* local CLOCK_MONOTONIC ns */
	int64_t offset;
	uint64_t error;
	uint32_t samples;
	uint8_t phase;
};

/* A process's MPI definitions (all empty when it is no rank). */
struct ht_proc_mpi {
	int is_rank;
	int32_t rank, size;
	char host[72], job[128], library[128];
	struct ht_mpi_comm_def *comms;
	size_t ncomms, capcomms;
	struct ht_mpi_win_def *wins;
	size_t nwins, capwins;
	struct ht_mpi_clock_def *clocks;
	size_t nclocks, capclocks;
	int shifted; /* comm and window times are trace times */
};

/* Takes an mpi_* definition event of the process stream. Return: 1 taken, 0 not one. */
int ht_proc_mpi_define(struct ht_proc_mpi *m, const struct ht_event *ev);
void ht_proc_mpi_release(struct ht_proc_mpi *m);

struct ht_proc_info;

/*
 * Sets the clock shift of every process of t (t->procs[i].shift) from the
 * definitions defs[0..t->nprocs) and turns their communicator and window
 * times into trace times.
 */
void ht_mpi_clock_shifts(struct ht_trace *t, struct ht_proc_info *defs);

/* Return: the definition of communicator handle h in force at trace time ts, or NULL. */
const struct ht_mpi_comm_def *ht_proc_mpi_comm(const struct ht_proc_mpi *m, uint64_t h,
					       uint64_t ts);
/* Return: the communicator handle of window w at ts (0 when unknown). */
uint64_t ht_proc_mpi_win_comm(const struct ht_proc_mpi *m, uint64_t w, uint64_t ts);

/*
 * The job's communicators: id -> the world rank of each of its ranks, from
 * the definitions of the ranks at hand (a trace, or one part of it).
 */
struct ht_mpi_comms {
	struct ht_map index; /* id -> entry */
	struct ht_mpi_members {
		uint64_t id;
		int32_t size;
		int32_t *world; /* size entries, -1 unknown */
	} * v;
	size_t n, cap;
};

/* Adds what one rank's process defines (its world rank in each of its communicators). */
int ht_mpi_comms_add(struct ht_mpi_comms *c, const struct ht_proc_mpi *m);
/* Adds one fact: communicator id (size ranks) has world rank `world` at `rank`. */
int ht_mpi_comms_add_member(struct ht_mpi_comms *c, uint64_t id, int32_t size, int32_t rank,
			    int32_t world);
/* Return: the world rank of `rank` in communicator id, or -1. */
int32_t ht_mpi_comms_world(const struct ht_mpi_comms *c, uint64_t id, int32_t rank);
void ht_mpi_comms_release(struct ht_mpi_comms *c);

#endif
