/*
 * Finalizing a recorded trace: converts raw cycle-counter timestamps to
 * CLOCK_MONOTONIC ns and trims torn packets (see finalize.c). Run by
 * `hetrace record` when the command exits and by `hetrace check --repair`.
 * Never run it on a trace that is still being written.
 */
#ifndef HT_FINALIZE_H
#define HT_FINALIZE_H

#include "analysis/trace.h"

struct ht_finalize_stats {
	unsigned int processes; /* processes that needed work */
	unsigned int packets_converted;
	unsigned int packets_left_raw;	/* could not be converted */
	struct ht_read_error left_raw;	/* where the first of them is, and why */
	unsigned int packets_salvaged;	/* in-progress packets of processes that died */
	unsigned int packets_completed; /* packets still open at a normal exit (other
					 * threads, shared streams), appended here */
	unsigned int streams_trimmed;
	uint64_t bytes_trimmed;
	uint64_t events_lost; /* in packets salvage could not append (counted as discarded) */
};

/*
 * nominal_ns_per_tick: 1e9 / counter rate, used only when a process has too
 * few anchors to fit the rate. Return: 0, or < 0 with err filled.
 */
int ht_finalize_process(const struct ht_trace_process *p, double nominal_ns_per_tick,
			struct ht_finalize_stats *st, struct ht_read_error *err);
int ht_finalize_trace(const struct ht_trace *t, double nominal_ns_per_tick,
		      struct ht_finalize_stats *st, struct ht_read_error *err);

#endif
