/*
 * Shared declarations of xpti-bench: the parsed command line (cli.c) used by the measurement
 * code (xpti_bench.c).
 */
#ifndef HT_XPTI_BENCH_H
#define HT_XPTI_BENCH_H

#include <stdbool.h>

#define HT_BENCH_MAX_LIST 64

struct ht_bench_opts {
	bool semantic;	  /* --type semantic|performance */
	int trace_points; /* --trace-points N */
	int tests[HT_BENCH_MAX_LIST], ntests;
	int threads[HT_BENCH_MAX_LIST], nthreads;
	double tp_frequency; /* --tp-frequency %, 0 = default (10 visits per trace point) */
	double overhead;     /* --overhead %, default 1 */
	int repeat;	     /* --repeat: runs per measurement, the median is reported */
	bool report, verbose, summary;
};

/* Return: 0, or 2 after printing a usage error. */
int ht_bench_parse(int argc, char **argv, struct ht_bench_opts *o);

#endif /* HT_XPTI_BENCH_H */
