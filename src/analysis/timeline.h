/*
 * The timeline: a trace as a stream of semantic records (processes,
 * threads, device queues, slices, instants, counters, device commands)
 * with names resolved, device times mapped to host time and device commands
 * put in device-time order. Exporters and the HTML view consume it.
 *
 * Order: records of one track (a thread, or a device queue) come in
 * non-decreasing time order; across tracks, device commands arrive later
 * than the CPU records around them (they are collected after they end).
 *
 * Device-time order uses the bounded reorder window of seed 000 §3.3.2: a
 * command is held until every command enqueued before it (by its enqueue
 * call's begin time) has been seen, so nothing seen later can start earlier;
 * if more than HT_REORDER_MAX commands are held, the earliest is released
 * anyway and counted in ht_timeline.reorder_overflows; an enqueue whose command
 * has not arrived within HT_REORDER_EXPIRE_NS stops holding the others
 * (counted in reorder_expired).
 */
#ifndef HT_TIMELINE_H
#define HT_TIMELINE_H

#include <stdint.h>

#include "analysis/clocksync.h"
#include "analysis/merge.h"

#define HT_REORDER_MAX 65536
#define HT_REORDER_EXPIRE_NS 10000000000ull /* an enqueue waits this long for its command */
#define HT_TL_ARGS 16

enum ht_tl_kind {
	HT_TL_PROCESS,	    /* first record of a process: pid, ppid, name (comm), text (cmdline) */
	HT_TL_THREAD,	    /* a thread's first record, or a new name: pid, tid, name */
	HT_TL_QUEUE,	    /* a device queue's first command: pid, device, queue, name = the
			       device's name (device_info) or "device" */
	HT_TL_SLICE_BEGIN,  /* pid, tid, name, category "api" or "region" */
	HT_TL_SLICE_END,    /* same; api: ret, args, corr (its device command, 0 if none) */
	HT_TL_INSTANT,	    /* pid, tid, name, args */
	HT_TL_COUNTER,	    /* pid, tid, name, value */
	HT_TL_DEVICE,	    /* pid, device, queue, name, category (kind), ts..end, corr, ...;
			       text = the device's name */
	HT_TL_LOST,	    /* pid, tid (0: device or process streams), value = events */
	/*
	 * OS scheduling: pid, tid, name = "running" | "preempted" | "blocked",
	 * category "cpu_state", ts..end (host ns), args[0] = cpu (uint). A
	 * thread's CPU-state records come in time order among themselves but
	 * later than its other records (collected in batches, like device
	 * commands); they may also name a thread whose records came from
	 * another stream of the process.
	 */
	HT_TL_CPU_STATE,
};

enum ht_tl_arg_type {
	HT_TL_INT,
	HT_TL_UINT,
	HT_TL_HEX,
	HT_TL_DOUBLE,
	HT_TL_STRING,
};

struct ht_tl_arg {
	const char *key;
	enum ht_tl_arg_type type;
	union {
		int64_t i;
		uint64_t u;
		double f;
		const char *s;
	} v;
};

struct ht_tl_record {
	enum ht_tl_kind kind;
	uint64_t ts;  /* host ns; device commands: start */
	uint64_t end; /* device commands: end */
	int32_t pid, ppid, tid;
	uint32_t device;
	uint64_t queue;
	const char *name;
	const char *category;
	const char *text;
	uint64_t corr;
	int32_t ret;
	double value;
	/* device commands */
	uint64_t queued, submit; /* host ns (0 if unknown) */
	uint64_t bytes;
	int32_t status;
	uint64_t global[3], local[3];
	unsigned int nargs;
	struct ht_tl_arg args[HT_TL_ARGS];
};

struct ht_tl_device; /* per (process, device): clock map */
struct ht_tl_proc;   /* per process: reorder state */
struct ht_tl_stream; /* per stream: announced, open API calls, losses seen */

struct ht_timeline {
	struct ht_trace *trace;
	struct ht_merge m;
	struct ht_tl_proc *procs;
	struct ht_tl_stream *streams; /* by merge stream index */
	struct ht_tl_device *devs;
	unsigned int ndevs;
	struct ht_tl_record rec;
	char scratch[512];
	/* queued output: records waiting to be handed out (device releases) */
	struct ht_tl_record *out;
	unsigned int nout, capout, outpos;
	int merge_done;
	uint64_t reorder_overflows;
	uint64_t reorder_expired; /* enqueues whose command never came */
	uint64_t device_commands;
	struct ht_read_error err;
};

/*
 * Opens the timeline (runs the clock-sync pass). Return: 0, or < 0 with
 * tl->err filled and nothing left to close.
 */
int ht_timeline_open(struct ht_timeline *tl, struct ht_trace *t);
/* Return: 1 with *out (valid until the next call), 0 at the end, < 0 on error (tl->err). */
int ht_timeline_next(struct ht_timeline *tl, const struct ht_tl_record **out);
void ht_timeline_close(struct ht_timeline *tl);

/* Return: the clock map of a process's device (NULL if none). */
const struct ht_clock_map *ht_timeline_clock_map(const struct ht_timeline *tl, int32_t pid,
						 uint32_t device);

#endif
