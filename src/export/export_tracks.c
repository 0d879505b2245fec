/*
 * Bookkeeping shared by the streaming exporters: byte-keyed hash map, flow
 * ids and device-queue lanes (see export_tracks.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_tracks.h"

static uint64_t hash_bytes(const void *key, size_t klen)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < klen; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static struct ht_xmap_slot *find(const struct ht_xmap *m, uint64_t h, const void *key, size_t klen)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct ht_xmap_slot *s = &m->slots[i];

		if (!s->key || (s->hash == h && s->klen == klen && !memcmp(s->key, key, klen)))
			return s;
	}
}

void *ht_xmap_get(const struct ht_xmap *m, const void *key, size_t klen)
{
	struct ht_xmap_slot *s;

	if (!m->cap)
		return NULL;
	s = find(m, hash_bytes(key, klen), key, klen);
	return s->key ? s->val : NULL;
}

static int grow(struct ht_xmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	struct ht_xmap_slot *old = m->slots, *slots = calloc(cap, sizeof *slots);

	if (!slots)
		return -ENOMEM;
	m->slots = slots;
	m->cap = cap;
	for (size_t i = 0; old && i < cap / 2; i++)
		if (old[i].key)
			*find(m, old[i].hash, old[i].key, old[i].klen) = old[i];
	free(old);
	return 0;
}

int ht_xmap_put(struct ht_xmap *m, const void *key, size_t klen, void *val)
{
	uint64_t h = hash_bytes(key, klen);
	struct ht_xmap_slot *s;

	if ((m->n + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	s = find(m, h, key, klen);
	if (!s->key) {
		s->key = malloc(klen ? klen : 1);
		if (!s->key)
			return -ENOMEM;
		memcpy(s->key, key, klen);
		s->klen = klen;
		s->hash = h;
		m->n++;
	}
	s->val = val;
	return 0;
}

int ht_xmap_del(struct ht_xmap *m, const void *key, size_t klen)
{
	struct ht_xmap_slot *s;
	size_t mask = m->cap - 1, i, j;

	if (!m->cap)
		return -ENOENT;
	s = find(m, hash_bytes(key, klen), key, klen);
	if (!s->key)
		return -ENOENT;
	free(s->key);
	m->n--;
	/* backward-shift deletion: keep every probe chain unbroken, no tombstones */
	i = (size_t)(s - m->slots);
	for (j = (i + 1) & mask; m->slots[j].key; j = (j + 1) & mask) {
		size_t home = m->slots[j].hash & mask;

		/* slot j may move to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].key = NULL;
	return 0;
}

void ht_xmap_destroy(struct ht_xmap *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].key)
			continue;
		free(m->slots[i].key);
		if (free_val)
			free_val(m->slots[i].val);
	}
	free(m->slots);
	memset(m, 0, sizeof *m);
}

uint64_t ht_export_flow_id(int32_t pid, uint64_t corr)
{
	/* splitmix64 finaliser over both: ids stay distinct across processes */
	uint64_t z = corr * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)pid;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	/* below 2^53: JSON readers hold numbers in doubles; never 0 */
	return (z & ((1ull << 53) - 1)) | 1;
}

int ht_lanes_place(struct ht_lanes *l, uint64_t start, uint64_t end)
{
	unsigned int i;

	for (i = 0; i < l->n && l->end[i] > start; i++)
		;
	if (i == l->n) {
		uint64_t *e = realloc(l->end, (l->n + 1) * sizeof *e);

		if (!e)
			return -ENOMEM;
		l->end = e;
		l->n++;
	}
	l->end[i] = end;
	return (int)i;
}

void ht_lanes_fini(struct ht_lanes *l)
{
	free(l->end);
	l->end = NULL;
	l->n = 0;
}
