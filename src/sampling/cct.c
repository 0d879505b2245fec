/*
 * The calling-context tree (see cct.h): nodes in one array by id, found by
 * (parent, frame) through the project's hash map keyed by a 64-bit mix of
 * the pair; a key that collides moves on to the next key, so a lookup
 * checks the node it finds.
 */
#include <stdlib.h>

#include "common/grow.h"
#include "sampling/cct.h"

static uint64_t mix(uint32_t parent, uint64_t frame)
{
	uint64_t z = frame ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void put(struct ht_cct *t, size_t i)
{
	const struct ht_ev_stack_node e = {
	    .id = t->first + (uint32_t)i, .parent = t->nodes[i].parent, .frame = t->nodes[i].frame};

	t->put(t->ctx, &e);
}

/* The node (parent, frame), created (and put) when new. Return: its id, 0 on ENOMEM. */
static uint32_t child(struct ht_cct *t, uint32_t parent, uint64_t frame)
{
	for (uint64_t key = mix(parent, frame);; key++) {
		int created;
		uint64_t *v = ht_map_u64(&t->index, key, 0, &created);

		if (!v)
			return 0;
		if (!created) {
			const struct ht_cct_node *n = &t->nodes[*v];

			if (n->parent == parent && n->frame == frame)
				return t->first + (uint32_t)*v;
			continue; /* another pair with this key */
		}
		if (t->n >= (size_t)(UINT32_MAX - t->first) ||
		    ht_grow((void **)&t->nodes, &t->cap, sizeof *t->nodes, t->n + 1)) {
			ht_map_del_u64(&t->index, key);
			return 0;
		}
		t->nodes[t->n].parent = parent;
		t->nodes[t->n].frame = frame;
		*v = t->n;
		put(t, t->n);
		return t->first + (uint32_t)t->n++;
	}
}

uint32_t ht_cct_intern(struct ht_cct *t, const uint64_t *frames, int n)
{
	uint32_t id = 0;

	for (int i = n - 1; i >= 0; i--) {
		id = child(t, id, frames[i]);
		if (!id)
			return 0;
	}
	return id;
}

void ht_cct_put_all(struct ht_cct *t)
{
	for (size_t i = 0; i < t->n; i++)
		put(t, i);
}

void ht_cct_release(struct ht_cct *t)
{
	free(t->nodes);
	ht_map_release(&t->index);
	t->nodes = NULL;
	t->n = t->cap = 0;
}
