/*
 * Bookkeeping shared by the streaming exporters (Perfetto, Chrome JSON):
 * maps whose values are the exporters' objects (tracks by pid/tid, kept in
 * common/map.h's map), the trace-global flow id of an enqueue/command pair,
 * and "lanes" that keep overlapping device commands of one queue on
 * separate sub-tracks so every track nests properly.
 */
#ifndef HT_EXPORT_TRACKS_H
#define HT_EXPORT_TRACKS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/timeline.h"
#include "common/map.h"

/* Frees a map whose values are pointers: free_val (may be NULL) on each, then the map. */
void ht_export_map_destroy(struct ht_map *m, void (*free_val)(void *));

/* Return: the pointer stored as the value v of a map, or NULL when v is NULL. */
static inline void *ht_export_map_ptr(const uint64_t *v)
{
	return v ? (void *)(uintptr_t)*v : NULL;
}

/*
 * ht_timeline_next for the exporters: records with a time past
 * HT_TIME_LIMIT_NS (export.h) are skipped and counted in *dropped.
 * Return: as ht_timeline_next.
 */
int ht_export_next(struct ht_timeline *tl, const struct ht_tl_record **out, uint64_t *dropped);
/* Prints the one warning about records left out by ht_export_next (none if n is 0). */
void ht_export_warn_dropped(uint64_t n);

/* Return: the flow id linking process pid's enqueue call `corr` to its device command. */
uint64_t ht_export_flow_id(int32_t pid, uint64_t corr);

/* Sub-tracks of one device queue, each holding commands that do not overlap. */
struct ht_lanes {
	uint64_t *end; /* per lane: end of its last command */
	unsigned int n;
	size_t cap;
};

/*
 * Return: the lowest lane free at `start` (its last command ended at or
 * before it), opening a new lane when none is; -ENOMEM.
 */
int ht_lanes_place(struct ht_lanes *l, uint64_t start, uint64_t end);
void ht_lanes_fini(struct ht_lanes *l);

#endif
