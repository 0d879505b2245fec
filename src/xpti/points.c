/*
 * Trace points: one per distinct payload, identified by an exact key (interned name, file and
 * stack-trace ids, line, column; the code pointer only when there is neither name nor file),
 * so two different payloads never share a trace point, unlike upstream's hashed 64-bit ids.
 * A trace point holds the registered copy of its payload, which all its instances (the events
 * handed out, events.c) share, and counts its visits. Points live in pool chunks that never move;
 * lookups are lock-free, only the creation of a new point takes the table mutex.
 */
#include <string.h>

#include "index.h"

#define HT_XPTI_MAX_POINTS (HT_XPTI_MAX_CHUNKS * HT_XPTI_CHUNK_SIZE)

static struct {
	pthread_mutex_t lock; /* creators only */
	_Atomic uint32_t count;
	_Atomic(struct ht_xpti_index *) index;
	_Atomic(struct ht_xpti_point *) chunk[HT_XPTI_MAX_CHUNKS];
} ht_xpti_points = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Return: point `idx`, NULL if there is none. Lock-free. */
static struct ht_xpti_point *ht_xpti_point_at(uint32_t idx)
{
	struct ht_xpti_point *chunk;

	if (idx >= atomic_load_explicit(&ht_xpti_points.count, memory_order_acquire))
		return NULL;
	chunk = atomic_load_explicit(&ht_xpti_points.chunk[idx >> HT_XPTI_CHUNK_SHIFT],
				     memory_order_acquire);
	return &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
}

static uint64_t ht_xpti_key_hash(const struct ht_xpti_key *k)
{
	uint64_t h = ht_xpti_mix64(((uint64_t)k->name << 32) ^ k->file ^ 0x9e3779b97f4a7c15ULL);

	h = ht_xpti_mix64(h ^ (((uint64_t)k->stack << 32) | k->line));
	h = ht_xpti_mix64(h ^ k->col ^ ((uint64_t)k->col << 40));
	return ht_xpti_mix64(h ^ k->code);
}

static bool ht_xpti_key_eq(const void *ctx, uint32_t idx)
{
	const struct ht_xpti_point *pt = ht_xpti_point_at(idx);

	return pt && memcmp(&pt->key, ctx, sizeof(pt->key)) == 0;
}

/* The interned strings of a payload, as its key refers to them. */
struct ht_xpti_names {
	const char *name, *file, *stack;
};

/* Return: 0, or -1 for a payload with nothing to identify it (or out of memory). */
static int ht_xpti_key_make(const xpti_payload_t *p, struct ht_xpti_key *k, struct ht_xpti_names *n)
{
	memset(k, 0, sizeof(*k));
	memset(n, 0, sizeof(*n));
	if ((p->flags & XPTI_PAYLOAD_NAME_AVAILABLE) && p->name && p->name[0]) {
		k->name = ht_xpti_string_add(p->name, &n->name);
		if (k->name == XPTI_INVALID_ID)
			return -1;
	}
	if ((p->flags & XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE) && p->source_file &&
	    p->source_file[0]) {
		k->file = ht_xpti_string_add(p->source_file, &n->file);
		if (k->file == XPTI_INVALID_ID)
			return -1;
	}
	if ((p->flags & XPTI_PAYLOAD_STACK_TRACE_AVAILABLE) && p->stack_trace &&
	    p->stack_trace[0]) {
		k->stack = ht_xpti_string_add(p->stack_trace, &n->stack);
		if (k->stack == XPTI_INVALID_ID)
			return -1;
	}
	if (p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE)
		k->line = p->line_no;
	if (p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE)
		k->col = p->column_no;
	/* The code pointer only identifies a payload that has no name and no file: the same
	 * source location reached through different lambdas is one trace point. */
	if (!k->name && !k->file && (p->flags & XPTI_PAYLOAD_CODE_POINTER_AVAILABLE))
		k->code = (uint64_t)(uintptr_t)p->code_ptr_va;
	if (!k->name && !k->file && !k->stack && !k->code)
		return -1;
	return 0;
}

/* Creator (table mutex held): a new point for key `k`. */
static struct ht_xpti_point *ht_xpti_point_create(const struct ht_xpti_key *k, uint64_t hash,
						  const xpti_payload_t *p,
						  const struct ht_xpti_names *n)
{
	uint32_t idx = atomic_load_explicit(&ht_xpti_points.count, memory_order_relaxed);
	struct ht_xpti_index *ix =
	    atomic_load_explicit(&ht_xpti_points.index, memory_order_relaxed);
	struct ht_xpti_point *chunk, *pt;

	if (idx >= HT_XPTI_MAX_POINTS)
		return NULL;
	if (ht_xpti_index_full(ix)) {
		struct ht_xpti_index *nix = ht_xpti_index_create(ix ? (ix->mask + 1) * 2 : 4096);

		if (!nix)
			return NULL;
		for (uint32_t i = 0; i < idx; i++)
			ht_xpti_index_put(nix, ht_xpti_point_at(i)->hash, i);
		atomic_store_explicit(&ht_xpti_points.index, nix, memory_order_release);
		ix = nix;
	}
	chunk = atomic_load_explicit(&ht_xpti_points.chunk[idx >> HT_XPTI_CHUNK_SHIFT],
				     memory_order_relaxed);
	if (!chunk) {
		chunk = ht_xpti_pool_alloc(HT_XPTI_CHUNK_SIZE * sizeof(*chunk));
		if (!chunk)
			return NULL;
		atomic_store_explicit(&ht_xpti_points.chunk[idx >> HT_XPTI_CHUNK_SHIFT], chunk,
				      memory_order_release);
	}
	pt = &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
	pt->key = *k;
	pt->hash = hash;
	pt->payload = *p;
	pt->payload.name = n->name;
	pt->payload.source_file = n->file;
	pt->payload.stack_trace = n->stack;
	pt->payload.internal = 0; /* no instance of its own: instances share this payload */
	pt->payload.flags =
	    (p->flags & ~(uint64_t)XPTI_PAYLOAD_HASH_AVAILABLE) | XPTI_PAYLOAD_REGISTERED;
	pt->payload.uid.p1 = ((uint64_t)k->file << 32) | k->line;
	pt->payload.uid.p2 = ((uint64_t)k->stack << 32) | k->name;
	pt->payload.uid.p3 = (p->flags & XPTI_PAYLOAD_CODE_POINTER_AVAILABLE)
				 ? (uint64_t)(uintptr_t)p->code_ptr_va
				 : 0;
	atomic_store_explicit(&pt->visits, 0, memory_order_relaxed);
	atomic_store_explicit(&pt->shared, NULL, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_points.count, idx + 1, memory_order_release);
	ht_xpti_index_put(ix, hash, idx);
	return pt;
}

struct ht_xpti_point *ht_xpti_point_get(const xpti_payload_t *p)
{
	struct ht_xpti_names n;
	struct ht_xpti_key k;
	struct ht_xpti_point *pt;
	struct ht_xpti_index *ix;
	uint32_t found;
	uint64_t hash;

	if (ht_xpti_key_make(p, &k, &n))
		return NULL;
	hash = ht_xpti_key_hash(&k);
	ix = atomic_load_explicit(&ht_xpti_points.index, memory_order_acquire);
	found = ht_xpti_index_find(ix, hash, ht_xpti_key_eq, &k);
	if (found)
		return ht_xpti_point_at(found - 1);
	pthread_mutex_lock(&ht_xpti_points.lock);
	ix = atomic_load_explicit(&ht_xpti_points.index, memory_order_relaxed);
	found = ht_xpti_index_find(ix, hash, ht_xpti_key_eq, &k);
	pt = found ? ht_xpti_point_at(found - 1) : ht_xpti_point_create(&k, hash, p, &n);
	pthread_mutex_unlock(&ht_xpti_points.lock);
	return pt;
}

void ht_xpti_points_reset(void)
{
	uint32_t n = atomic_load_explicit(&ht_xpti_points.count, memory_order_relaxed);

	for (uint32_t c = 0; c <= (n >> HT_XPTI_CHUNK_SHIFT) && c < HT_XPTI_MAX_CHUNKS; c++)
		atomic_store_explicit(&ht_xpti_points.chunk[c], NULL, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_points.count, 0, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_points.index, NULL, memory_order_relaxed);
}
