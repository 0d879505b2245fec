/*
 * The pending-ends min-heap of otf2_ends.h. Ties keep no particular order:
 * ends at the same time are indistinguishable to the readers.
 */
#include <errno.h>
#include <stdlib.h>

#include "export/otf2_ends.h"
#include "common/grow.h"
#include "common/heap.h"

static int end_less(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return ((const struct ht_pending_end *)a)->end < ((const struct ht_pending_end *)b)->end;
}

int ht_ends_push(struct ht_ends *h, const struct ht_pending_end *e)
{
	if (ht_grow((void **)&h->v, &h->cap, sizeof *h->v, (size_t)h->n + 1))
		return -ENOMEM;
	h->v[h->n] = *e;
	ht_heap_sift_up(h->v, sizeof *h->v, h->n++, end_less, NULL);
	return 0;
}

int ht_ends_pop_until(struct ht_ends *h, uint64_t limit, struct ht_pending_end *out)
{
	if (!h->n || h->v[0].end > limit)
		return 0;
	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	ht_heap_sift_down(h->v, sizeof *h->v, h->n, 0, end_less, NULL);
	return 1;
}

void ht_ends_release(struct ht_ends *h)
{
	free(h->v);
	h->v = NULL;
	h->n = h->cap = 0;
}
