/*
 * Bookkeeping shared by the streaming exporters: maps of objects, flow ids
 * and device-queue lanes (see export_tracks.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "export/export.h"
#include "export/export_tracks.h"

void ht_export_map_destroy(struct ht_map *m, void (*free_val)(void *))
{
	size_t pos = 0;
	uint64_t *v;

	while (free_val && (v = ht_map_next(m, &pos)))
		free_val(ht_export_map_ptr(v));
	ht_map_release(m);
}

/* Whether a record's times can be written (every time it carries is before the limit). */
static int times_ok(const struct ht_tl_record *r)
{
	if (r->ts >= HT_TIME_LIMIT_NS)
		return 0;
	if ((r->kind == HT_TL_DEVICE || r->kind == HT_TL_CPU_STATE) && r->end >= HT_TIME_LIMIT_NS)
		return 0;
	return r->kind != HT_TL_SLICE_END || r->begin < HT_TIME_LIMIT_NS;
}

int ht_export_next(struct ht_timeline *tl, const struct ht_tl_record **out, uint64_t *dropped)
{
	int rc;

	while ((rc = ht_timeline_next(tl, out)) > 0 && !times_ok(*out))
		(*dropped)++;
	return rc;
}

void ht_export_warn_dropped(uint64_t n)
{
	if (n)
		fprintf(stderr,
			"hetrace: warning: %" PRIu64 " record%s with a time past the clock's "
			"range (2^62 ns) left out; 'hetrace check' names the events\n",
			n, n == 1 ? "" : "s");
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
		if (ht_grow((void **)&l->end, &l->cap, sizeof *l->end, l->n + 1))
			return -ENOMEM;
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
	l->cap = 0;
}
