/*
 * Open-addressing hash index with lock-free readers, shared by the intern tables and the event
 * table. A slot holds (hash tag << 32 | index + 1); 0 is empty. Writers (serialised by the
 * owner's mutex) fill a slot with a release store after the entry it points to is complete,
 * and grow by building a doubled index and publishing it; old indexes stay allocated (pool)
 * so readers still walking them are safe, and a reader that misses retries under the lock.
 */
#ifndef HT_XPTI_INDEX_H
#define HT_XPTI_INDEX_H

#include "xpti_internal.h"

struct ht_xpti_index {
	uint32_t mask;
	uint32_t used; /* writer-only */
	_Atomic uint64_t slot[];
};

static inline struct ht_xpti_index *ht_xpti_index_create(uint32_t size)
{
	struct ht_xpti_index *ix;

	ix = ht_xpti_pool_alloc(sizeof(*ix) + (size_t)size * sizeof(ix->slot[0]));
	if (ix)
		ix->mask = size - 1;
	return ix;
}

/* Writer: record `idx` under `hash` (the caller checked it is absent). */
static inline void ht_xpti_index_put(struct ht_xpti_index *ix, uint64_t hash, uint32_t idx)
{
	uint64_t v = (hash & 0xffffffff00000000ULL) | ((uint64_t)idx + 1);
	uint32_t pos = (uint32_t)hash & ix->mask;

	while (atomic_load_explicit(&ix->slot[pos], memory_order_relaxed))
		pos = (pos + 1) & ix->mask;
	atomic_store_explicit(&ix->slot[pos], v, memory_order_release);
	ix->used++;
}

/* True when one more entry would push the load factor over 1/2. */
static inline bool ht_xpti_index_full(const struct ht_xpti_index *ix)
{
	return !ix || (ix->used + 1) * 2 > ix->mask + 1;
}

/*
 * Reader: walk the candidates of `hash`, calling eq(ctx, idx) for each tag match.
 * Return: idx + 1 of the first match, 0 if none.
 */
static inline uint32_t ht_xpti_index_find(const struct ht_xpti_index *ix, uint64_t hash,
					  bool (*eq)(const void *ctx, uint32_t idx),
					  const void *ctx)
{
	uint32_t tag = (uint32_t)(hash >> 32);
	uint32_t pos;
	uint64_t v;

	if (!ix)
		return 0;
	pos = (uint32_t)hash & ix->mask;
	while ((v = atomic_load_explicit(&ix->slot[pos], memory_order_acquire)) != 0) {
		if ((uint32_t)(v >> 32) == tag && eq(ctx, (uint32_t)v - 1))
			return (uint32_t)v;
		pos = (pos + 1) & ix->mask;
	}
	return 0;
}

#endif /* HT_XPTI_INDEX_H */
