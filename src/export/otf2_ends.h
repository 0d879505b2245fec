/*
 * Device commands whose end is still to be written, per device queue, as a
 * min-heap on the end time. Exporters write a queue's begins in start order
 * and, before each, every end at or before that start, so each output
 * stream stays in time order even when commands overlap. Shared by the OTF2
 * and CTF exporters.
 */
#ifndef HT_EXPORT_OTF2_ENDS_H
#define HT_EXPORT_OTF2_ENDS_H

#include <stdint.h>

struct ht_pending_end {
	uint64_t end;
	uint64_t corr;
	uint32_t ref; /* the exporter's name/region id */
};

struct ht_ends {
	struct ht_pending_end *v;
	uint32_t n;
	size_t cap;
};

/* Return: 0, or -ENOMEM. */
int ht_ends_push(struct ht_ends *h, const struct ht_pending_end *e);
/* Pops the earliest end if it is <= limit. Return: 1 with *out, else 0. */
int ht_ends_pop_until(struct ht_ends *h, uint64_t limit, struct ht_pending_end *out);
void ht_ends_release(struct ht_ends *h);

#endif
