/*
 * The hash map of the project: open addressing with linear probing, kept at
 * most half full, deletion by backward shift (no tombstones). Keys are u64
 * integers (ht_map_u64*), strings (ht_map_str*) or byte strings of any
 * length (ht_map_bytes*: composite keys such as a pid, a tid and a name),
 * both copied on insert; one map holds one kind. Values are u64 (ids, row
 * numbers, or pointers as uintptr_t). Used wherever something is looked up
 * by id or by name: the timeline's reorder window, the report's tables, the
 * exporters' tracks and interning, the view's strings and tracks.
 */
#ifndef HT_MAP_H
#define HT_MAP_H

#include <stddef.h>
#include <stdint.h>

enum ht_map_kind { HT_MAP_U64, HT_MAP_STR, HT_MAP_BYTES };

struct ht_map {
	uint64_t *keys; /* u64 keys, or (uintptr_t) owned copies of string / byte keys */
	uint64_t *vals;
	uint8_t *used;
	size_t cap, n;	       /* cap: 0 or a power of two */
	enum ht_map_kind kind; /* set by the first insert */
};

/*
 * Looks key up; when absent, inserts it with value `fresh` (and sets
 * *created when created is not NULL). Return: a pointer to its value, valid
 * until the next insert or delete, or NULL when out of memory.
 */
uint64_t *ht_map_u64(struct ht_map *m, uint64_t key, uint64_t fresh, int *created);
uint64_t *ht_map_str(struct ht_map *m, const char *key, uint64_t fresh, int *created);
uint64_t *ht_map_bytes(struct ht_map *m, const void *key, size_t len, uint64_t fresh, int *created);
/* Return: a pointer to key's value, or NULL when absent. */
uint64_t *ht_map_find_u64(const struct ht_map *m, uint64_t key);
uint64_t *ht_map_find_str(const struct ht_map *m, const char *key);
uint64_t *ht_map_find_bytes(const struct ht_map *m, const void *key, size_t len);
/* Removes key. Return: 1 when it was there, else 0. */
int ht_map_del_u64(struct ht_map *m, uint64_t key);
int ht_map_del_bytes(struct ht_map *m, const void *key, size_t len);
/*
 * Iteration in no particular order: start with *pos = 0. Return: the value
 * of the next entry (its slot is *pos - 1), or NULL after the last one. The
 * map must not change during an iteration.
 */
uint64_t *ht_map_next(const struct ht_map *m, size_t *pos);
/* Frees everything (copied keys included); the map is empty and reusable. */
void ht_map_release(struct ht_map *m);

#endif
