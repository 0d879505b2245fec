/*
 * The process string table: interns strings to dense ids from 1. Not
 * thread-safe by itself; the session serialises it under its lock.
 */
#ifndef HT_STRTAB_H
#define HT_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "format/codec.h" /* HT_STR_MAX, ht_str_cut */

struct ht_strtab {
	char **strs; /* strs[id - 1] */
	uint32_t count;
	uint32_t cap;
	uint32_t *slots; /* open addressing: id or 0 */
	uint32_t nslots; /* power of two */
};

/*
 * Return: the id of s (inserted if new; *is_new says so), or 0 when out of
 * memory.
 */
uint32_t ht_strtab_intern(struct ht_strtab *t, const char *s, int *is_new);
/* Return: the string of an id (borrowed), or NULL. */
const char *ht_strtab_get(const struct ht_strtab *t, uint32_t id);
void ht_strtab_clear(struct ht_strtab *t);

#endif
