/*
 * The analyses behind `hetrace report` (and the view's tables): where the
 * time went on the CPU (API calls, annotated regions), on the devices
 * (kernels, transfers, queue waits, utilisation, compute/transfer overlap)
 * and why a device sat idle (GPU-idleness blame, seed 002 §5). Everything
 * is read through the timeline model (timeline.h), in three bounded passes
 * over parts of it:
 *   D. the device streams: commands, already mapped to host time with the
 *      timeline's clock maps -> device tables and busy intervals (16 bytes
 *      per command);
 *   O. the OS and process streams: CPU-state intervals per thread;
 *   C. the thread and process streams: API/region tables from the
 *      timeline's paired slices, thread time, blame swept against each
 *      device's idle gaps (a thread counts as active only while it is not
 *      preempted or blocked), and the CPU states inside blocking device
 *      calls (found by role: sync, or blocking with its flag set).
 * Any read error ends the computation with that error: no table is half
 * built. Pass C also feeds the MPI analysis (mpi.h).
 */
#ifndef HT_REPORT_H
#define HT_REPORT_H

#include <stdint.h>

#include "analysis/clocksync.h"
#include "analysis/cpustate.h"
#include "analysis/critpath.h"
#include "analysis/stats.h"
#include "analysis/trace.h"
#include "common/map.h"

/* A named row: API function, region, kernel launch configuration, transfer kind, blamed frame. */
struct ht_row {
	char *name;
	struct ht_stats st;
	uint64_t bytes;		      /* transfers */
	struct ht_stats rate;	      /* transfers that move their bytes: MB/s per command */
	uint64_t global[3], local[3]; /* kernels: one row per name and work sizes */
	uint8_t kind;		      /* transfers: ht_cmd_kind */
	uint64_t errors;	      /* API calls that returned an error; failed commands */
	double value;		      /* blame: ns */
};

struct ht_table {
	struct ht_row *rows;
	size_t n, cap;
	struct ht_map index; /* row key -> row */
};

struct ht_queue_report {
	int32_t pid;
	uint32_t device;
	uint64_t queue;
	struct ht_stats host_wait;   /* SUBMIT - QUEUED */
	struct ht_stats device_wait; /* START - SUBMIT */
	struct ht_stats exec;	     /* END - START */
	uint64_t failed;	     /* commands that did not complete */
	uint64_t no_timestamps;
};

struct ht_interval {
	uint64_t start, end;
	uint8_t compute; /* 1 kernel, 0 transfer or other */
};

struct ht_device_report {
	int32_t pid;
	uint32_t device;
	char name[128];
	struct ht_clock_map map;
	uint64_t commands;
	uint64_t first, last; /* host time span of its commands */
	uint64_t busy, compute_busy, transfer_busy, overlap;
	uint64_t window_begin, window_end; /* the process's span: where idleness counts */
	uint64_t idle, idle_blamed;	   /* idle time; idle while a CPU thread was active */
	struct ht_interval *iv;
	size_t niv, cap_iv;
	uint64_t *gaps; /* idle gaps: [gaps[2i], gaps[2i+1]) */
	uint64_t ngaps;
	struct ht_table blame;	 /* frame -> idle ns attributed */
	uint64_t window_checked; /* commands whose synced times were checked */
	uint64_t window_outside; /* ... and fell outside [enqueue, completion seen] */
};

/*
 * A blocking device call (clFinish, clWaitForEvents, a blocking read or
 * write, the CUDA synchronize calls): how long its thread was preempted or
 * blocked in it, and after the device work had finished ("done": the
 * process's devices idle from then to the call's return).
 */
struct ht_wait_row {
	char *name;
	uint64_t calls;
	uint64_t wait_ns, preempted, blocked;
	uint64_t done_ns, done_preempted, done_blocked;
	uint64_t done_preempted_max; /* one call's */
	uint64_t with_os;	     /* calls of threads with CPU states */
};

struct ht_mpi_report;

struct ht_report {
	uint64_t events;
	uint64_t first_ns, last_ns;
	uint64_t lost; /* recorder discards + threads without a stream */
	uint64_t lost_device_ts;
	unsigned int processes; /* distinct pids (ht_count_processes) */
	unsigned int images;	/* process directories: a pid that called exec has several */
	unsigned int threads;	/* thread streams with events */
	double thread_time;	/* sum over threads of (last - first) */
	struct ht_table api, regions, kernels, transfers;
	struct ht_queue_report *queues;
	unsigned int nqueues;
	struct ht_device_report *devices;
	unsigned int ndevices;
	struct ht_cpu_states cpu; /* CPU states per thread (OS scheduling) */
	int32_t *cpu_pid;	  /* pid of each trace process, indexed by cpu.threads[i].proc */
	struct ht_wait_row *waits;
	unsigned int nwaits;
	struct ht_critpath cp; /* the critical path, from passes D and C's records */
	struct ht_mpi_report *mpi; /* MPI ranks (mpi.h), NULL when no process is one */
};

/*
 * Return: 0, or < 0 with err filled (and nothing computed: r is empty). A
 * job's trace of parts is computed part by part, in parallel, and merged
 * (report_parts.c).
 */
int ht_report_compute(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err);
/*
 * One recording's report: the whole of a trace without parts, or one part;
 * the MPI analysis is left at its first step (mpi.h) for the caller to
 * merge and finish.
 */
int ht_report_compute_part(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err);
void ht_report_release(struct ht_report *r);

/*
 * Return: nonzero when commands of kind k move their bytes (copies, fills),
 * so bytes / time is a throughput; map, unmap and migrate move nothing (a
 * map on a host-memory device only hands out a pointer), nor do the others.
 */
int ht_cmd_kind_moves_bytes(enum ht_cmd_kind k);

/*
 * The one count of processes that every output gives: the distinct pids
 * among a trace's process directories (the images of a pid that called
 * exec are one process), whether or not they recorded events.
 */
unsigned int ht_count_processes(const int32_t *pids, unsigned int n);

/* Sorts a table by total time (or blame value), largest first, then by name. */
void ht_table_sort(struct ht_table *t);

#endif
