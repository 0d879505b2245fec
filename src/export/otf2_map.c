/*
 * Open-addressing string map (see otf2_map.h), FNV-1a hashed, kept at most
 * half full. Used by both the OTF2 and the CTF exporter; it lives here
 * because the helpers of this directory are named after their exporter.
 */
#include <stdlib.h>
#include <string.h>

#include "export/otf2_map.h"

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static int rehash(struct ht_strmap *m, uint32_t cap)
{
	char **keys = calloc(cap, sizeof *keys);
	uint32_t *vals = calloc(cap, sizeof *vals);

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		uint32_t j;

		if (!m->keys[i])
			continue;
		for (j = (uint32_t)hash(m->keys[i]) & (cap - 1); keys[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

uint32_t *ht_strmap_get(struct ht_strmap *m, const char *key, uint32_t fresh, int *created)
{
	uint32_t i;

	*created = 0;
	if ((m->n + 1) * 2 > m->cap && rehash(m, m->cap ? m->cap * 2 : 64))
		return NULL;
	for (i = (uint32_t)hash(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->keys[i], key))
			return &m->vals[i];
	m->keys[i] = strdup(key);
	if (!m->keys[i])
		return NULL;
	m->vals[i] = fresh;
	m->n++;
	*created = 1;
	return &m->vals[i];
}

void ht_strmap_release(struct ht_strmap *m)
{
	for (uint32_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}
