/*
 * Intern tables: append-only maps from byte strings to dense indexes, used for the string
 * table, the object table and the stream and vendor name tables. Lookups by content or by
 * index take no lock: entries live in chunks that are never moved or freed (pool), the index
 * of chunks is published with release stores, and `count` is raised only after an entry is
 * complete. Inserts take the table's mutex, re-check, copy the bytes into an arena and publish.
 */
#include <string.h>

#include "index.h"

#define HT_XPTI_ARENA_BLOCK (64 * 1024)
#define HT_XPTI_INDEX_START 1024

struct ht_xpti_intern_probe {
	struct ht_xpti_intern *t;
	const void *data;
	size_t len;
};

const struct ht_xpti_intern_entry *ht_xpti_intern_get(struct ht_xpti_intern *t, uint64_t idx)
{
	struct ht_xpti_intern_entry *chunk;

	if (idx >= atomic_load_explicit(&t->count, memory_order_acquire))
		return NULL;
	chunk = atomic_load_explicit(&t->chunk[idx >> HT_XPTI_CHUNK_SHIFT], memory_order_acquire);
	return &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
}

static bool ht_xpti_intern_eq(const void *ctx, uint32_t idx)
{
	const struct ht_xpti_intern_probe *pr = ctx;
	const struct ht_xpti_intern_entry *e = ht_xpti_intern_get(pr->t, idx);

	return e && e->len == pr->len && memcmp(e->data, pr->data, pr->len) == 0;
}

long ht_xpti_intern_find(struct ht_xpti_intern *t, const void *data, size_t len, uint64_t hash)
{
	struct ht_xpti_intern_probe pr = {t, data, len};
	struct ht_xpti_index *ix = atomic_load_explicit(&t->index, memory_order_acquire);

	return (long)ht_xpti_index_find(ix, hash, ht_xpti_intern_eq, &pr) - 1;
}

static char *ht_xpti_intern_copy(struct ht_xpti_intern *t, const void *data, size_t len)
{
	char *p;

	if (len + 1 > HT_XPTI_ARENA_BLOCK / 4) {
		p = ht_xpti_pool_alloc(len + 1);
	} else {
		if (t->arena_left < len + 1) {
			t->arena = ht_xpti_pool_alloc(HT_XPTI_ARENA_BLOCK);
			t->arena_left = t->arena ? HT_XPTI_ARENA_BLOCK : 0;
		}
		p = t->arena;
		if (p) {
			t->arena += len + 1;
			t->arena_left -= len + 1;
		}
	}
	if (p) {
		memcpy(p, data, len);
		p[len] = '\0';
	}
	return p;
}

/* Writer: make room for one more entry in the index (grow by doubling). */
static int ht_xpti_intern_reserve(struct ht_xpti_intern *t, uint32_t count)
{
	struct ht_xpti_index *ix = atomic_load_explicit(&t->index, memory_order_relaxed);
	struct ht_xpti_index *nix;
	uint32_t size = ix ? (ix->mask + 1) * 2 : HT_XPTI_INDEX_START;

	if (!ht_xpti_index_full(ix))
		return 0;
	nix = ht_xpti_index_create(size);
	if (!nix)
		return -1;
	for (uint32_t i = 0; i < count; i++)
		ht_xpti_index_put(nix, ht_xpti_intern_get(t, i)->hash, i);
	atomic_store_explicit(&t->index, nix, memory_order_release);
	return 0;
}

long ht_xpti_intern_add(struct ht_xpti_intern *t, const void *data, size_t len, uint64_t hash,
			uint8_t type)
{
	struct ht_xpti_intern_entry *chunk, *e;
	uint32_t idx;
	long found;

	found = ht_xpti_intern_find(t, data, len, hash);
	if (found >= 0)
		return found;

	pthread_mutex_lock(&t->lock);
	found = ht_xpti_intern_find(t, data, len, hash);
	if (found >= 0)
		goto out;
	idx = atomic_load_explicit(&t->count, memory_order_relaxed);
	if (idx >= t->limit || len > UINT32_MAX || ht_xpti_intern_reserve(t, idx))
		goto out;
	chunk = atomic_load_explicit(&t->chunk[idx >> HT_XPTI_CHUNK_SHIFT], memory_order_relaxed);
	if (!chunk) {
		chunk = ht_xpti_pool_alloc(HT_XPTI_CHUNK_SIZE * sizeof(*chunk));
		if (!chunk)
			goto out;
		atomic_store_explicit(&t->chunk[idx >> HT_XPTI_CHUNK_SHIFT], chunk,
				      memory_order_release);
	}
	e = &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
	e->data = ht_xpti_intern_copy(t, data, len);
	if (!e->data)
		goto out;
	e->len = (uint32_t)len;
	e->hash = hash;
	e->type = type;
	atomic_store_explicit(&t->count, idx + 1, memory_order_release);
	ht_xpti_index_put(atomic_load_explicit(&t->index, memory_order_relaxed), hash, idx);
	found = idx;
out:
	pthread_mutex_unlock(&t->lock);
	return found;
}

/* Forget everything; the memory itself is released with the pool. Not thread-safe. */
void ht_xpti_intern_reset(struct ht_xpti_intern *t)
{
	uint32_t n = atomic_load_explicit(&t->count, memory_order_relaxed);

	for (uint32_t c = 0; c <= (n >> HT_XPTI_CHUNK_SHIFT) && c < HT_XPTI_MAX_CHUNKS; c++)
		atomic_store_explicit(&t->chunk[c], NULL, memory_order_relaxed);
	atomic_store_explicit(&t->count, 0, memory_order_relaxed);
	atomic_store_explicit(&t->index, NULL, memory_order_relaxed);
	t->arena = NULL;
	t->arena_left = 0;
}
