/*
 * Where the CPU code made the GPU work, and where the CPU time went (issue
 * "calling contexts and CPU sampling"): one pass over the timeline's API
 * calls, device commands and CPU samples, every calling context resolved
 * to source functions (symbols.h: inlined calls expanded, unknown frames as
 * module+offset) and merged by function into a tree of paths:
 *   - GPU time by calling context: each API call that carries a stack is a
 *     path (its frames, outermost first, then the API function); the device
 *     commands it submitted (linked by correlation id) add their device time
 *     and their kernels to it;
 *   - CPU samples: per path (folded stacks), per function (self: the
 *     sampled function; total: samples with the function anywhere in the
 *     stack, counted once).
 * The report, the collapsed export, the Perfetto export and the view's
 * flame graphs read these trees; nothing else resolves frames.
 *
 * Paths leave out hetrace's own frames and what runs before main (the
 * program's _start and libc's start-up, or libc's thread start-up).
 */
#ifndef HT_CALLPATHS_H
#define HT_CALLPATHS_H

#include <stdint.h>

#include "analysis/trace.h"
#include "common/map.h"

struct ht_symbols;
struct ht_proc_info;

/* A node of the tree of paths: a function under its caller (node 0 is the root). */
struct ht_cp_node {
	const char *name; /* function, or the API function at an API path's end */
	uint32_t parent;
	uint32_t *kids; /* filled by ht_callpaths_compute: children, largest first */
	uint32_t nkids, capkids;
	uint8_t api; /* the API function ending a path */
	/* inclusive of everything below */
	uint64_t calls, api_ns, device_ns, commands;
	uint64_t samples;
	/* this node's own */
	uint64_t self_samples;
};

/* A path that submitted device work (or made API calls with a stack): its end node. */
struct ht_cp_context {
	uint32_t node;
	uint64_t calls, api_ns, device_ns, commands;
	struct ht_cp_kernel {
		const char *name;
		uint64_t device_ns, count;
	} * kernels;
	size_t nkernels, capkernels;
};

/* A function of the CPU samples. */
struct ht_cp_function {
	const char *name;
	const char *file; /* where it is defined ("" if unknown) */
	int line;
	uint64_t self, total;
	uint32_t seen; /* the sample that counted it last (total counts a sample once) */
};

struct ht_callpaths {
	struct ht_cp_node *nodes;
	size_t n, cap;
	struct ht_map index; /* (parent, name) -> node */
	struct ht_map pool;  /* interned names */
	struct ht_cp_context *ctx;
	size_t nctx, capctx;
	struct ht_map ctx_of; /* node -> context index + 1 */
	struct ht_cp_function *fns;
	size_t nfns, capfns;
	struct ht_map fn_of;	   /* name -> function index + 1 */
	uint64_t samples;	   /* CPU samples read */
	uint64_t stacks;	   /* API calls that carried a stack */
	uint64_t device_unmatched; /* device commands whose enqueue had no stack */
	uint64_t samples_lost;
	int have_stacks, have_samples; /* the trace holds API stacks / CPU samples */
	/* resolving (during the pass) */
	struct ht_symbols *sym;
	struct ht_map resolved; /* (proc, node, kind) -> tree node + 1 */
	struct ht_map corr;	/* (proc, corr) -> context index + 1 */
};

/*
 * Reads the trace's API stacks, device commands and CPU samples. Return: 0
 * (empty trees when the trace has none), or < 0 with err filled.
 */
int ht_callpaths_compute(struct ht_trace *t, struct ht_callpaths *cp, struct ht_read_error *err);
void ht_callpaths_release(struct ht_callpaths *cp);

/*
 * Resolves a process's calling context (a stack node) to a path of the tree
 * (used by the exports and the view, which resolve while they read).
 * sample: the node's innermost frame is a sampled instruction, else a
 * return address (an API call's). Return: the path's end node, 0 if none.
 */
uint32_t ht_callpaths_path(struct ht_callpaths *cp, unsigned int proc,
			   const struct ht_proc_info *pi, uint32_t stack, int sample);

struct ht_timeline;
struct ht_tl_record;

/*
 * The same for a timeline record's calling context: a CPU sample's (its
 * innermost frame sampled) or an API call's. Return: the path's end node,
 * 0 if none.
 */
uint32_t ht_callpaths_of(struct ht_callpaths *cp, const struct ht_timeline *tl,
			 const struct ht_tl_record *r);

/* The names of a path, outermost first, into out (max). Return: how many. */
int ht_callpaths_names(const struct ht_callpaths *cp, uint32_t node, const char **out, int max);

/* Sorts contexts by device time and functions by self samples, largest first. */
void ht_callpaths_sort(struct ht_callpaths *cp);

/* Starts an empty tree for resolving (the exports): ht_callpaths_release frees it. */
int ht_callpaths_init(struct ht_callpaths *cp);

/*
 * For a reader that runs its own pass (the view): takes one record (API
 * ends with a stack, device commands, samples, losses; others are ignored),
 * then ht_callpaths_finish once at the end. Return: 0 or -ENOMEM.
 */
struct ht_timeline;
struct ht_tl_record;
int ht_callpaths_take(struct ht_callpaths *cp, const struct ht_timeline *tl,
		      const struct ht_tl_record *r);
int ht_callpaths_finish(struct ht_callpaths *cp);

#endif
