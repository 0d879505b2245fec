/*
 * What a process's trace says about its code, for the readers: its
 * modules (module_load / module_unload: path, build-id, load bias) and the
 * nodes of its calling-context trees (stack_node: the tree of its API
 * calls, written by the process, and the tree of its CPU samples, written
 * by `record` into its samples stream, ids from 0x80000000), so that an
 * API slice's or a sample's node becomes its frames. Frames are resolved
 * to functions, files and lines by src/symbols.
 *
 * The process stream's definitions are loaded with the process (defs.h);
 * those of the samples stream arrive with it, each before its first use.
 * Ids a trace does not define read as nothing, never as an index.
 */
#ifndef HT_STACKS_H
#define HT_STACKS_H

#include <stdint.h>

#include "common/map.h"
#include "format/format.h"

#define HT_STACK_DEPTH 128 /* frames followed per stack */

struct ht_stack_module {
	uint32_t id;
	uint64_t base, start, end;
	uint64_t loaded_ns, unloaded_ns; /* 0: with the program / never */
	char *path;
	char build_id[65];
};

struct ht_stacks {
	struct ht_map nodes; /* id -> index + 1 into node */
	struct ht_stack_node {
		uint32_t parent;
		uint64_t frame;
	} * node;
	size_t n, cap;
	struct ht_stack_module *mods;
	size_t nmods, capmods;
	char *counters[256]; /* sampled counters' names by index (counter_name) */
	/* OpenCL programs built from source (program_source, program_kernels), in order */
	struct ht_stack_program {
		uint64_t handle;
		char *text; /* length bytes + NUL; pieces not written stay NUL */
		uint32_t length;
		char *kernels; /* ';'-separated names once built, else NULL */
	} * progs;
	size_t nprogs, capprogs;
	/* PC sampling as the process noted it (pc_sampling): asked = 1 when it did */
	struct ht_stack_pcsamp {
		int asked, error;
		uint64_t period;
		char method[256], reason[256];
	} pc;
};

/*
 * Takes a definition event (stack_node, module_load/unload, counter_name,
 * pc_sampling, program_source, program_kernels); others are ignored.
 */
void ht_stacks_define(struct ht_stacks *st, uint32_t id, const uint8_t *payload, size_t size);

/*
 * The frames of node, innermost first, as frame words (events.def: module
 * id << 48 | file address). Return: how many (at most max; 0 for node 0 or
 * an undefined one).
 */
int ht_stacks_frames(const struct ht_stacks *st, uint32_t node, uint64_t *out, int max);

/* Return: the module of a frame word (borrowed), or NULL. */
const struct ht_stack_module *ht_stacks_module(const struct ht_stacks *st, uint64_t frame);

/* Return: 1 when the process recorded any calling context or module. */
static inline int ht_stacks_any(const struct ht_stacks *st)
{
	return st && (st->n || st->nmods);
}

/* Return: the latest program whose kernels include `kernel` (NULL: none). */
const struct ht_stack_program *ht_stacks_program_of(const struct ht_stacks *st, const char *kernel);

void ht_stacks_release(struct ht_stacks *st);

/* The module id and file address of a frame word. */
static inline uint32_t ht_frame_module(uint64_t frame)
{
	return (uint32_t)(frame >> 48);
}
static inline uint64_t ht_frame_addr(uint64_t frame)
{
	return frame & ((1ull << 48) - 1);
}

#endif
