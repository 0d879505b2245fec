/*
 * Bookkeeping shared by the streaming exporters (Perfetto, Chrome JSON):
 * a small hash map from byte keys to values (tracks by pid/tid, interned
 * strings per sequence), the trace-global flow id of an enqueue/command
 * pair, and "lanes" that keep overlapping device commands of one queue on
 * separate sub-tracks so every track nests properly.
 */
#ifndef HT_EXPORT_TRACKS_H
#define HT_EXPORT_TRACKS_H

#include <stddef.h>
#include <stdint.h>

struct ht_xmap_slot {
	uint64_t hash;
	void *key; /* owned copy; NULL: empty slot */
	size_t klen;
	void *val;
};

/* Open addressing; zero-initialised is an empty map. */
struct ht_xmap {
	struct ht_xmap_slot *slots;
	size_t cap, n;
};

/* Return: the value stored under key, or NULL. */
void *ht_xmap_get(const struct ht_xmap *m, const void *key, size_t klen);
/* Stores val under a copy of key (replacing a previous value). Return: 0 or -ENOMEM. */
int ht_xmap_put(struct ht_xmap *m, const void *key, size_t klen, void *val);
/* Removes key. Return: 0, or -ENOENT. */
int ht_xmap_del(struct ht_xmap *m, const void *key, size_t klen);
/* Frees the map; free_val (may be NULL) is called on every value. */
void ht_xmap_destroy(struct ht_xmap *m, void (*free_val)(void *));

/* Return: the flow id linking process pid's enqueue call `corr` to its device command. */
uint64_t ht_export_flow_id(int32_t pid, uint64_t corr);

/* Sub-tracks of one device queue, each holding commands that do not overlap. */
struct ht_lanes {
	uint64_t *end; /* per lane: end of its last command */
	unsigned int n;
};

/*
 * Return: the lowest lane free at `start` (its last command ended at or
 * before it), opening a new lane when none is; -ENOMEM.
 */
int ht_lanes_place(struct ht_lanes *l, uint64_t start, uint64_t end);
void ht_lanes_fini(struct ht_lanes *l);

#endif
