/*
 * The hash map (see map.h). u64 keys are mixed with the 64-bit finalizer of
 * MurmurHash3 (sequential ids spread over the table), strings with FNV-1a.
 */
#include <stdlib.h>
#include <string.h>

#include "common/map.h"

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static uint64_t hash_of(const struct ht_map *m, uint64_t key)
{
	return m->strings ? hash_str((const char *)(uintptr_t)key) : mix(key);
}

static int same(const struct ht_map *m, uint64_t a, uint64_t b)
{
	return m->strings ? !strcmp((const char *)(uintptr_t)a, (const char *)(uintptr_t)b)
			  : a == b;
}

static int rehash(struct ht_map *m, size_t cap)
{
	uint64_t *keys = malloc(cap * sizeof *keys), *vals = malloc(cap * sizeof *vals);
	uint8_t *used = calloc(cap, 1);

	if (!keys || !vals || !used) {
		free(keys);
		free(vals);
		free(used);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->used[i])
			continue;
		for (j = hash_of(m, m->keys[i]) & (cap - 1); used[j]; j = (j + 1) & (cap - 1))
			;
		used[j] = 1;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = keys;
	m->vals = vals;
	m->used = used;
	m->cap = cap;
	return 0;
}

/* Return: the slot of key, or of the empty slot where it would go (cap > 0). */
static size_t slot(const struct ht_map *m, uint64_t key)
{
	size_t i = hash_of(m, key) & (m->cap - 1);

	while (m->used[i] && !same(m, m->keys[i], key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static uint64_t *get(struct ht_map *m, uint64_t key, uint64_t fresh, int *created, int copy)
{
	size_t i;

	if (created)
		*created = 0;
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64))
		return NULL;
	i = slot(m, key);
	if (m->used[i])
		return &m->vals[i];
	if (copy) {
		char *k = strdup((const char *)(uintptr_t)key);

		if (!k)
			return NULL;
		key = (uintptr_t)k;
	}
	m->used[i] = 1;
	m->keys[i] = key;
	m->vals[i] = fresh;
	m->n++;
	if (created)
		*created = 1;
	return &m->vals[i];
}

uint64_t *ht_map_u64(struct ht_map *m, uint64_t key, uint64_t fresh, int *created)
{
	return get(m, key, fresh, created, 0);
}

uint64_t *ht_map_str(struct ht_map *m, const char *key, uint64_t fresh, int *created)
{
	m->strings = 1;
	return get(m, (uintptr_t)key, fresh, created, 1);
}

uint64_t *ht_map_find_u64(const struct ht_map *m, uint64_t key)
{
	size_t i;

	if (!m->n)
		return NULL;
	i = slot(m, key);
	return m->used[i] ? &m->vals[i] : NULL;
}

uint64_t *ht_map_find_str(const struct ht_map *m, const char *key)
{
	return m->strings ? ht_map_find_u64(m, (uintptr_t)key) : NULL;
}

int ht_map_del_u64(struct ht_map *m, uint64_t key)
{
	size_t i, j;

	if (!m->n)
		return 0;
	i = slot(m, key);
	if (!m->used[i])
		return 0;
	if (m->strings)
		free((void *)(uintptr_t)m->keys[i]);
	m->used[i] = 0;
	m->n--;
	/* backward shift: pull later members of the probe run into the hole */
	for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = hash_of(m, m->keys[j]) & (m->cap - 1);

		/* move j to i unless its home lies cyclically in (i, j] */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->used[i] = 1;
			m->used[j] = 0;
			i = j;
		}
	}
	return 1;
}

void ht_map_release(struct ht_map *m)
{
	for (size_t i = 0; m->strings && i < m->cap; i++)
		if (m->used[i])
			free((void *)(uintptr_t)m->keys[i]);
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof *m);
}
