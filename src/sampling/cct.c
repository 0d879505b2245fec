/*
 * The calling-context tree of the traced process (see cct.h): nodes in one
 * array by id, found by (parent, frame) through the project's hash map
 * keyed by a 64-bit mix of the pair; a key that collides moves to the next
 * key, so a lookup checks the node it finds.
 */
#include <stdlib.h>

#include "common/grow.h"
#include "common/map.h"
#include "core/session.h"
#include "sampling/cct.h"

struct node {
	uint32_t parent;
	uint64_t frame;
};

static struct node *nodes; /* nodes[id - 1] */
static size_t nnodes, capnodes;
static struct ht_map index_;

static uint64_t mix(uint32_t parent, uint64_t frame)
{
	uint64_t z = frame ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void put_node(struct ht_stream *proc, uint32_t id)
{
	const struct ht_ev_stack_node e = {
	    .id = id, .parent = nodes[id - 1].parent, .frame = nodes[id - 1].frame};

	HT_WRITE(proc, stack_node, &e);
}

/* The node (parent, frame), created (and written) when new. Return: its id, 0 on ENOMEM. */
static uint32_t child(struct ht_stream *proc, uint32_t parent, uint64_t frame)
{
	for (uint64_t key = mix(parent, frame);; key++) {
		int created;
		uint64_t *v = ht_map_u64(&index_, key, 0, &created);

		if (!v)
			return 0;
		if (!created) {
			const struct node *n = &nodes[*v - 1];

			if (n->parent == parent && n->frame == frame)
				return (uint32_t)*v;
			continue; /* another pair with this key */
		}
		if (nnodes >= UINT32_MAX - 1 ||
		    ht_grow((void **)&nodes, &capnodes, sizeof *nodes, nnodes + 1)) {
			ht_map_del_u64(&index_, key);
			return 0;
		}
		nodes[nnodes].parent = parent;
		nodes[nnodes].frame = frame;
		*v = ++nnodes;
		put_node(proc, (uint32_t)nnodes);
		return (uint32_t)nnodes;
	}
}

uint32_t ht_cct_intern(struct ht_stream *proc, const uint64_t *frames, int n)
{
	uint32_t id = 0;

	for (int i = n - 1; i >= 0; i--) {
		id = child(proc, id, frames[i]);
		if (!id)
			return 0;
	}
	return id;
}

void ht_cct_write_all(struct ht_stream *proc)
{
	for (size_t id = 1; id <= nnodes; id++)
		put_node(proc, (uint32_t)id);
}
