/*
 * A calling-context tree (seed 002's CCT): each distinct stack stored once,
 * as a path of nodes (a frame under its parent), so an event carries only
 * the id of its innermost node. Nodes are handed to `put` (to be written as
 * stack_node events) when they are created, before any event uses them.
 *
 * Two trees are built: the traced process's own, of its stacks at API calls
 * (ids from 1; callstack.c, under the session lock; a launch loop that
 * repeats one stack adds only its api_stack event, 8 bytes, per call), and
 * `record`'s per process image, of its CPU samples (ids from
 * HT_CCT_SAMPLES_BASE, so both sets of definitions live side by side).
 * Not thread-safe: the owner serialises.
 */
#ifndef HT_CCT_H
#define HT_CCT_H

#include <stdint.h>

#include "common/map.h"
#include "format/format.h"

#define HT_CCT_SAMPLES_BASE 0x80000000u

struct ht_cct {
	uint32_t first; /* the id of the first node */
	struct ht_cct_node {
		uint32_t parent;
		uint64_t frame;
	} * nodes; /* by id - first */
	size_t n, cap;
	struct ht_map index;
	/* Where new nodes go (ctx: the caller's). */
	void (*put)(void *ctx, const struct ht_ev_stack_node *e);
	void *ctx;
};

/*
 * Interns a stack given innermost frame first (frames[0]), n >= 1, as
 * frame words (unwind.h), putting the nodes it creates.
 * Return: the innermost node's id, or 0 when out of memory.
 */
uint32_t ht_cct_intern(struct ht_cct *t, const uint64_t *frames, int n);

/* Puts every node again (a new process stream after fork). */
void ht_cct_put_all(struct ht_cct *t);

void ht_cct_release(struct ht_cct *t);

#endif
