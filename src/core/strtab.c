/*
 * String interning (see strtab.h): FNV-1a hashing, linear probing, table
 * doubled at 50 % load.
 */
#include <stdlib.h>
#include <string.h>

#include "core/strtab.h"

static uint32_t hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static int grow(struct ht_strtab *t)
{
	uint32_t n = t->nslots ? t->nslots * 2 : 256;
	uint32_t *slots = calloc(n, sizeof *slots);

	if (!slots)
		return -1;
	for (uint32_t id = 1; id <= t->count; id++) {
		const char *s = t->strs[id - 1];
		uint32_t i = hash(s, strlen(s)) & (n - 1);

		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

uint32_t ht_strtab_intern(struct ht_strtab *t, const char *s, int *is_new)
{
	size_t n = ht_str_cut(s, HT_STR_MAX);
	uint32_t i;
	char *copy;

	*is_new = 0;
	if ((t->count + 1) * 2 > t->nslots && grow(t))
		return 0;
	for (i = hash(s, n) & (t->nslots - 1); t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
		const char *have = t->strs[t->slots[i] - 1];

		if (!strncmp(have, s, n) && have[n] == '\0')
			return t->slots[i];
	}
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		char **strs = realloc(t->strs, cap * sizeof *strs);

		if (!strs)
			return 0;
		t->strs = strs;
		t->cap = cap;
	}
	copy = malloc(n + 1);
	if (!copy)
		return 0;
	memcpy(copy, s, n);
	copy[n] = '\0';
	t->strs[t->count++] = copy;
	t->slots[i] = t->count;
	*is_new = 1;
	return t->count;
}

const char *ht_strtab_get(const struct ht_strtab *t, uint32_t id)
{
	return (id && id <= t->count) ? t->strs[id - 1] : NULL;
}

void ht_strtab_clear(struct ht_strtab *t)
{
	for (uint32_t i = 0; i < t->count; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	memset(t, 0, sizeof *t);
}
