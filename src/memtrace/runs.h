/*
 * The run encoder of the memory-access collector: turns the channel's
 * records into the trace's memruns (codec.h), losslessly. A run is the
 * accesses of one site, with one size and kind, by the work-items item,
 * item + 1, ... of one group at addresses addr, addr + stride, ... : a
 * unit-stride access by a work-group is one 22-byte run, a scatter one run
 * an access.
 *
 * Records, themselves runs (layout.h), arrive in the order producers wrote
 * them: a work-group's runs as its lanes closed them (OpenCL), or a warp's
 * lanes' single accesses together (CUDA). One run is open per way (sites hashed over
 * HT_MT_RUN_WAYS); a record extends its way's run or closes it and opens
 * its own. Every run of a site is handed over before the site's next run
 * opens, so a site's accesses by one work-item keep their order (what the
 * analysis counts executions by); accesses of different sites may come
 * back in another order than they were made. A record of another launch
 * slot or group closes every run first, so the runs handed over between
 * two such changes share their slot and group.
 *
 * Header-only so that the consumer's per-record loop inlines it; tests
 * include it directly.
 */
#ifndef HT_MEMTRACE_RUNS_H
#define HT_MEMTRACE_RUNS_H

#include <stdint.h>

#include "format/codec.h"
#include "memtrace/layout.h"

#define HT_MT_RUN_WAYS 64u

/* Receives a closed run of the given launch slot and group. */
typedef void (*ht_mt_run_fn)(void *arg, uint32_t slot, uint32_t group, const struct ht_memrun *r);

struct ht_mt_runs {
	uint64_t used; /* bit k: way k holds an open run */
	uint32_t slot, group;
	struct {
		struct ht_memrun r;
		uint64_t next; /* the address that extends the run */
		uint32_t info; /* the record's word 5 without the work-item */
	} way[HT_MT_RUN_WAYS];
};

static inline void ht_mt_runs_init(struct ht_mt_runs *s)
{
	s->used = 0;
	s->slot = s->group = UINT32_MAX;
}

/* Hands every open run over (in way order) and closes it. */
static inline void ht_mt_runs_flush(struct ht_mt_runs *s, ht_mt_run_fn emit, void *arg)
{
	while (s->used) {
		unsigned int k = (unsigned int)__builtin_ctzll(s->used);

		s->used &= s->used - 1;
		emit(arg, s->slot, s->group, &s->way[k].r);
	}
}

/*
 * Adds record w (layout.h's words: itself a run, of one access from CUDA's
 * producer, often of many from OpenCL's); runs it closes go to emit.
 */
static inline void ht_mt_runs_add(struct ht_mt_runs *s, const uint32_t *w, ht_mt_run_fn emit,
				  void *arg)
{
	uint32_t site = w[4], item = w[5] & HT_MT_ITEM_MASK, info = w[5] & ~HT_MT_ITEM_MASK;
	uint32_t n = w[6] > UINT16_MAX ? UINT16_MAX : w[6]; /* producers write at most that */
	int32_t stride = n > 1 ? (int32_t)w[7] : 0;
	uint64_t addr = (uint64_t)w[1] << 32 | w[0];
	/* CUDA sites are instruction offsets, multiples of 16: fold the higher bits in */
	unsigned int k = (site ^ site >> 4 ^ site >> 10) & (HT_MT_RUN_WAYS - 1);
	struct ht_memrun *r = &s->way[k].r;

	if (!n)
		return; /* no access: no producer writes one */
	if (w[2] != s->slot || w[3] != s->group) {
		ht_mt_runs_flush(s, emit, arg);
		s->slot = w[2];
		s->group = w[3];
	} else if (s->used >> k & 1) {
		/* the same site, size and kind, the next work-items, within a run's count */
		if (r->site == site && s->way[k].info == info &&
		    item == (uint32_t)r->item + r->count && (uint32_t)r->count + n <= UINT16_MAX) {
			int64_t d = (int64_t)(addr - r->addr);

			if (r->count > 1 && addr == s->way[k].next &&
			    (n == 1 || stride == r->stride)) {
				r->count = (uint16_t)(r->count + n);
				s->way[k].next = addr + (uint64_t)((int64_t)r->stride * n);
				return;
			}
			if (r->count == 1 && d == (int32_t)d && (n == 1 || stride == d)) {
				r->stride = (int32_t)d;
				r->count = (uint16_t)(1 + n);
				s->way[k].next = addr + (uint64_t)(d * n);
				return;
			}
		}
		emit(arg, s->slot, s->group, r);
	}
	r->addr = addr;
	r->stride = stride;
	r->site = site;
	r->item = (uint16_t)item;
	r->count = (uint16_t)n;
	r->size = (uint8_t)(info >> 16);
	r->kind = (uint8_t)(info >> 24);
	s->way[k].next = addr + (uint64_t)((int64_t)stride * n);
	s->way[k].info = info;
	s->used |= 1ull << k;
}

#endif
