/*
 * The hash map of the project: open addressing with linear probing, kept at
 * most half full, deletion by backward shift (no tombstones). Keys are u64
 * integers (ht_map_u64*) or strings copied on insert (ht_map_str*); one map
 * holds one kind. Values are u64. Used wherever something is looked up by
 * id or by name: the timeline's reorder window, the report's tables, the
 * exporters' interning.
 */
#ifndef HT_MAP_H
#define HT_MAP_H

#include <stddef.h>
#include <stdint.h>

struct ht_map {
	uint64_t *keys; /* u64 keys, or (uintptr_t) copies of string keys */
	uint64_t *vals;
	uint8_t *used;
	size_t cap, n; /* cap: 0 or a power of two */
	int strings;
};

/*
 * Looks key up; when absent, inserts it with value `fresh` (and sets
 * *created when created is not NULL). Return: a pointer to its value, valid
 * until the next insert or delete, or NULL when out of memory.
 */
uint64_t *ht_map_u64(struct ht_map *m, uint64_t key, uint64_t fresh, int *created);
uint64_t *ht_map_str(struct ht_map *m, const char *key, uint64_t fresh, int *created);
/* Return: a pointer to key's value, or NULL when absent. */
uint64_t *ht_map_find_u64(const struct ht_map *m, uint64_t key);
uint64_t *ht_map_find_str(const struct ht_map *m, const char *key);
/* Removes key. Return: 1 when it was there, else 0. */
int ht_map_del_u64(struct ht_map *m, uint64_t key);
/* Frees everything (string keys included); the map is empty and reusable. */
void ht_map_release(struct ht_map *m);

#endif
