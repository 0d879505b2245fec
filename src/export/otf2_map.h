/*
 * A string -> u32 map for the exporters' interning (OTF2 strings, regions,
 * locations, attributes, metrics; CTF output streams). Keys are copied.
 * Composite keys ("t:<pid>:<tid>") are formatted by the caller.
 */
#ifndef HT_EXPORT_OTF2_MAP_H
#define HT_EXPORT_OTF2_MAP_H

#include <stdint.h>

struct ht_strmap {
	char **keys;
	uint32_t *vals;
	uint32_t cap, n; /* cap: 0 or a power of two */
};

/*
 * Looks key up; when absent, inserts it with value `fresh` and sets
 * *created. Return: a pointer to the value (valid until the next insert),
 * or NULL on ENOMEM.
 */
uint32_t *ht_strmap_get(struct ht_strmap *m, const char *key, uint32_t fresh, int *created);
void ht_strmap_release(struct ht_strmap *m);

#endif
