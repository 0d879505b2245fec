/*
 * The pending-ends min-heap of otf2_ends.h. Ties keep no particular order:
 * ends at the same time are indistinguishable to the readers.
 */
#include <errno.h>
#include <stdlib.h>

#include "export/otf2_ends.h"

static void swap(struct ht_ends *h, uint32_t a, uint32_t b)
{
	struct ht_pending_end t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

int ht_ends_push(struct ht_ends *h, const struct ht_pending_end *e)
{
	uint32_t i;

	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 16;
		struct ht_pending_end *v = realloc(h->v, cap * sizeof *v);

		if (!v)
			return -ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	i = h->n++;
	h->v[i] = *e;
	while (i && h->v[(i - 1) / 2].end > h->v[i].end) {
		swap(h, (i - 1) / 2, i);
		i = (i - 1) / 2;
	}
	return 0;
}

int ht_ends_pop_until(struct ht_ends *h, uint64_t limit, struct ht_pending_end *out)
{
	uint32_t i = 0;

	if (!h->n || h->v[0].end > limit)
		return 0;
	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, s = i;

		if (l < h->n && h->v[l].end < h->v[s].end)
			s = l;
		if (r < h->n && h->v[r].end < h->v[s].end)
			s = r;
		if (s == i)
			return 1;
		swap(h, s, i);
		i = s;
	}
}

void ht_ends_release(struct ht_ends *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
