/*
 * CPU states of the traced threads (OS scheduling, seed 000 §4.7): the
 * cpu_state intervals of a trace gathered per thread, for the report's
 * per-thread table, the "device done but thread not running" measure of
 * blocking calls, and GPU-idleness blame (a preempted or blocked thread is
 * not active).
 *
 * cpu_state events are written when the recorder collects them, long after
 * the times they describe, and a thread's intervals may sit in any stream
 * of its process; so they are read in a pass of their own before the merged
 * pass. Memory: totals per thread, plus 24 bytes per preempted or blocked
 * interval of the processes that use a device (none for the others).
 */
#ifndef HT_CPUSTATE_H
#define HT_CPUSTATE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trace.h"
#include "common/map.h"
#include "format/format.h"

/* A preempted or blocked interval [begin, end), CLOCK_MONOTONIC ns. */
struct ht_cpu_iv {
	uint64_t begin, end;
	uint8_t state; /* HT_CPU_PREEMPTED or HT_CPU_BLOCKED */
};

struct ht_cpu_thread {
	unsigned int proc; /* index into the trace's processes */
	int32_t tid;
	char name[64];
	uint64_t time[HT_CPU_STATE_COUNT]; /* ns per state */
	uint64_t intervals;
	uint64_t first, last; /* span covered by its intervals */
	struct ht_cpu_iv *iv; /* not-running intervals, sorted, when kept */
	size_t niv, cap;
	/* inside blocking device calls (filled by the report) */
	uint64_t wait_calls, wait_ns, wait_preempted, wait_blocked;
	uint64_t done_ns, done_preempted, done_blocked; /* after the device work had finished */
};

struct ht_cpu_states {
	struct ht_cpu_thread *threads; /* threads with intervals (names filled by the report) */
	unsigned int n;
	uint64_t lost;	     /* perf records lost by the kernel (lost events of kind os_record) */
	char note[256];	     /* the first os_status reason, "" if none */
	struct ht_map index; /* (proc, tid) -> thread */
	int note_kind;	     /* its ht_os_status_kind */
};

/*
 * Reads every cpu_state, os_status and OS lost record of trace t through the
 * timeline (its OS and process streams: thread streams are not read).
 * Intervals are kept, for ht_cpu_thread_time, for the processes whose pid
 * is one of keep_pids[0..nkeep). proc_pid (t->nprocs entries, or NULL)
 * receives each trace process's pid. Return: 0, or < 0 with err filled.
 */
int ht_cpu_states_load(struct ht_cpu_states *cs, struct ht_trace *t, const int32_t *keep_pids,
		       unsigned int nkeep, int32_t *proc_pid, struct ht_read_error *err);
void ht_cpu_states_release(struct ht_cpu_states *cs);

/* Return: the thread `tid` of process `proc` (borrowed), or NULL when unknown. */
struct ht_cpu_thread *ht_cpu_states_find(struct ht_cpu_states *cs, unsigned int proc, int32_t tid);

/*
 * Time th spent in `state` (HT_CPU_PREEMPTED or HT_CPU_BLOCKED) within
 * [a, b). *cursor is a hint kept by the caller (start at 0): queries whose
 * `a` never decreases cost O(intervals crossed).
 */
uint64_t ht_cpu_thread_time(const struct ht_cpu_thread *th, uint64_t a, uint64_t b, uint8_t state,
			    size_t *cursor);

/*
 * At time x: returns 1 when th is known not running (preempted or blocked),
 * else 0, and sets *next to the next time after x at which that may change.
 * *cursor as for ht_cpu_thread_time.
 */
int ht_cpu_thread_waiting_at(const struct ht_cpu_thread *th, uint64_t x, uint64_t *next,
			     size_t *cursor);

#endif
