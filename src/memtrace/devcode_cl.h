/*
 * The OpenCL C producer of the memory-access channel (devcode_cl.c): the
 * prelude an instrumented program starts with.
 */
#ifndef HT_MEMTRACE_DEVCODE_CL_H
#define HT_MEMTRACE_DEVCODE_CL_H

#include <stddef.h>
#include <stdint.h>

/* What the prelude is compiled for: the channel's geometry and mode, the sampling. */
struct ht_mt_cl_params {
	uint32_t nbins, cap; /* the channel (channel.h) */
	int block;	     /* wait for room (1) or drop and count (0) */
	uint32_t sample;     /* record 1 work-group in `sample` (0 or 1: all) */
	uint32_t stage;	     /* records a work-group stages before reserving, <= cap */
};

/*
 * Writes the prelude (macros, the work-group staging block, the producer
 * functions ht_mt_begin/arg/acc/end) into buf.
 * Return: its length, or -1 when cap is too small.
 */
int ht_mt_cl_prelude(char *buf, size_t cap, const struct ht_mt_cl_params *p);

#endif
