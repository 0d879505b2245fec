/*
 * The memory-access analysis behind the report's memory_access section and
 * the view's heat maps: per kernel and buffer argument, the loads, stores,
 * atomics and bytes, the range accessed, the strides between neighbouring
 * work-items, the sectors each 32-lane access touches (coalescing) and the
 * out-of-bounds accesses with their work-item and source line. Read from
 * the timeline's HT_TL_MEM_* records (one pass over the device streams).
 */
#ifndef HT_MEMTRACE_ANALYSIS_H
#define HT_MEMTRACE_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"
#include "common/map.h"

#define HT_MEM_LANES	32 /* the lanes of one access: a warp; 32 work-items on PoCL */
#define HT_MEM_SECTOR	32 /* bytes of a memory sector (what a GPU moves per request) */
#define HT_MEM_HEAT	64 /* buckets of a buffer's heat map */
#define HT_MEM_EXAMPLES 8  /* out-of-bounds accesses kept per row */

struct ht_mem_oob {
	uint32_t group, item;
	int64_t offset; /* from the argument's buffer start */
	uint8_t kind, size;
	uint32_t line, col;
	char *file; /* of line when not the program's own source (an #include'd file), else NULL */
	uint64_t global; /* the work-item's global id (1-dimensional launches), else UINT64_MAX */
};

/* One kernel's accesses through one argument (arg -1: to no known buffer). */
struct ht_mem_row {
	int32_t pid;
	char *kernel;
	int32_t arg;
	uint64_t launches;
	uint64_t reads, writes, atomics;
	uint64_t bytes_read, bytes_written, bytes_atomic;
	uint64_t buffer_bytes; /* the buffer's size (largest seen), 0 if unknown */
	int64_t lo, hi;	       /* accessed offsets [lo, hi) from the buffer's start */
	uint64_t accesses;     /* 32-lane accesses (instances) seen */
	uint64_t sectors;      /* sectors they touched */
	uint64_t ideal;	       /* sectors the same bytes need when packed */
	struct ht_map strides; /* stride in bytes (as u64) -> count */
	uint64_t out_of_bounds;
	struct ht_mem_oob oob[HT_MEM_EXAMPLES];
	unsigned int noob;
	uint64_t heat[HT_MEM_HEAT][2]; /* loads+atomics, stores per bucket of [0, buffer) */
};

struct ht_mem_report {
	struct ht_mem_row *rows;
	size_t n, cap;
	uint64_t launches, records, dropped;
	uint64_t unknown_launch; /* accesses of a launch the trace did not describe */
	int sampled;		 /* some launch recorded 1 work-group in N > 1 */
};

/*
 * Reads every memory-access record of trace t. Return: 0 (r filled, rows
 * sorted by kernel, then argument), or < 0 with err filled (r empty).
 */
int ht_mem_report_compute(struct ht_trace *t, struct ht_mem_report *r, struct ht_read_error *err);
void ht_mem_report_release(struct ht_mem_report *r);

/* The row's strides, most frequent first (at most max): keys in s, counts in n. Return: count. */
unsigned int ht_mem_row_strides(const struct ht_mem_row *row, int64_t *s, uint64_t *n,
				unsigned int max);

/*
 * The view's "memory" key (",\"memory\":[...],\"memory_dropped\":N", view_mem.c):
 * counts and heat maps per kernel and buffer argument, kernel names as ids
 * from intern(arg, name). Return: 0, or < 0 with err filled (nothing written).
 */
int ht_mem_view_json(FILE *f, struct ht_trace *t, uint32_t (*intern)(void *, const char *),
		     void *arg, struct ht_read_error *err);

#endif
