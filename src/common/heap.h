/*
 * Binary min-heaps over arrays of any element type, for the reader's k-way
 * merge, the timeline's reorder window and the OTF2 exporter's pending ends.
 * Header-only and static inline so each caller's comparison is inlined (the
 * merge heap is on the reader's per-event path).
 *
 * less(a, b, ctx): nonzero when element a must come out before element b.
 */
#ifndef HT_HEAP_H
#define HT_HEAP_H

#include <stddef.h>
#include <string.h>

typedef int (*ht_heap_less_fn)(const void *a, const void *b, void *ctx);

static inline void ht_heap_swap(unsigned char *base, size_t size, size_t a, size_t b)
{
	unsigned char *x = base + a * size, *y = base + b * size, t[64];

	for (size_t off = 0; off < size; off += sizeof t) {
		size_t n = size - off < sizeof t ? size - off : sizeof t;

		memcpy(t, x + off, n);
		memcpy(x + off, y + off, n);
		memcpy(y + off, t, n);
	}
}

/* Restores heap order after element i was added at the end or made smaller. */
static inline void ht_heap_sift_up(void *base, size_t size, size_t i, ht_heap_less_fn less,
				   void *ctx)
{
	unsigned char *b = base;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!less(b + i * size, b + p * size, ctx))
			return;
		ht_heap_swap(b, size, i, p);
		i = p;
	}
}

/* Restores heap order of n elements after element i was replaced by a larger one. */
static inline void ht_heap_sift_down(void *base, size_t size, size_t n, size_t i,
				     ht_heap_less_fn less, void *ctx)
{
	unsigned char *b = base;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, s = i;

		if (l < n && less(b + l * size, b + s * size, ctx))
			s = l;
		if (r < n && less(b + r * size, b + s * size, ctx))
			s = r;
		if (s == i)
			return;
		ht_heap_swap(b, size, i, s);
		i = s;
	}
}

#endif
