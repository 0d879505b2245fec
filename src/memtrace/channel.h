/*
 * The memory-access channel (seed 003): a device-visible block of host
 * memory split into bins (layout.h). Producers (the instrumented kernels:
 * OpenCL C from devcode_cl.c, CUDA patches from cuda_patches.cu, or
 * ht_mt_chan_put here) reserve space for a whole group of records at once
 * in a bin, write it and acknowledge it; a host consumer takes full bins
 * while the kernel runs, so a kernel may emit far more records than the
 * channel holds. The protocol, and why it cannot deadlock, is in channel.c.
 */
#ifndef HT_MEMTRACE_CHANNEL_H
#define HT_MEMTRACE_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/layout.h"

/* One record, decoded (layout.h has the wire form): a run of count accesses. */
struct ht_mt_rec {
	uint64_t addr;
	uint32_t slot;
	uint32_t group;
	uint32_t site;
	uint16_t item;
	uint8_t size;
	uint8_t kind;
	uint32_t count; /* 0 is written as 1: one access */
	int32_t stride;
};

struct ht_mt_chan {
	uint8_t *mem;	/* the channel (ht_mt_chan_size bytes), not owned */
	uint32_t nbins; /* a power of two */
	uint32_t cap;	/* records per bin */
	int block;	/* producers wait for space (1) or drop and count (0) */
};

/* Return: the bytes a channel of nbins bins of cap records needs. */
size_t ht_mt_chan_size(uint32_t nbins, uint32_t cap);

/*
 * Picks bins and records per bin for a channel of about `bytes` bytes: bins
 * a power of two near `lanes` (the device's parallel producers: compute
 * units, SMs), at least `min_cap` records each (one group's reservation).
 * Return: 0, or -EINVAL when `bytes` cannot hold even one bin of min_cap.
 */
int ht_mt_chan_geometry(size_t bytes, unsigned int lanes, uint32_t min_cap, uint32_t *nbins,
			uint32_t *cap);

/*
 * Lays a channel out in mem (ht_mt_chan_size(nbins, cap) bytes, 64-byte
 * aligned): header written, bins empty, slots zero. Return: 0 or -errno.
 */
int ht_mt_chan_init(struct ht_mt_chan *c, void *mem, uint32_t nbins, uint32_t cap, int block);
void ht_mt_chan_release(struct ht_mt_chan *c);

/* A reservation: records [at, at + n) of bin `bin`. */
struct ht_mt_resv {
	uint32_t bin, at, n;
};

/*
 * Step 1 of the producer protocol (channel.c) for a group of n records
 * (n <= cap), made once for the whole group: from bin `home` on, one pass
 * over the bins. Return: 0 with *rv, -EAGAIN when no bin had room (nothing
 * is held: drop, or wait and call again), -EINVAL when n is 0 or > cap.
 */
int ht_mt_chan_reserve(struct ht_mt_chan *c, unsigned int home, uint32_t n, struct ht_mt_resv *rv);
/* Step 2: record i (< rv->n) of the reservation. */
void ht_mt_chan_write(struct ht_mt_chan *c, const struct ht_mt_resv *rv, uint32_t i,
		      const struct ht_mt_rec *r);
/* Step 3: the reservation's records are written. */
void ht_mt_chan_ack(struct ht_mt_chan *c, const struct ht_mt_resv *rv);
/* Counts n accesses dropped for launch slot `slot` (discard mode). */
void ht_mt_chan_drop(struct ht_mt_chan *c, uint32_t slot, uint32_t n);

/*
 * A host producer of a group of n records: the three steps, waiting (block
 * mode) or dropping (discard: their accesses counted) when no bin has room.
 * The reference for the device producers; used by tests. Return: n when
 * written, 0 when dropped.
 */
uint32_t ht_mt_chan_put(struct ht_mt_chan *c, unsigned int home, uint32_t slot,
			const struct ht_mt_rec *recs, uint32_t n);

/* Called with each batch of records the consumer takes (valid during the call). */
typedef void (*ht_mt_sink_fn)(void *arg, const uint32_t *words, uint32_t n);

#define HT_MT_DRAIN_FORCE  1 /* also bins partly filled (a launch ended, exit) */
#define HT_MT_DRAIN_NOWAIT 2 /* leave a bin still being written (tests' lockstep model) */

/*
 * The consumer: takes every closed bin (HT_MT_DRAIN_FORCE: every bin holding
 * records), hands its records to sink and opens it again. One consumer at a
 * time. Return: the records taken.
 */
uint64_t ht_mt_chan_drain(struct ht_mt_chan *c, unsigned int flags, ht_mt_sink_fn sink, void *arg);

/* Records dropped for launch slot s so far; resets the slot (dropped and arguments). */
uint64_t ht_mt_chan_slot_take(struct ht_mt_chan *c, uint32_t slot);
/* The address buffer argument i (< HT_MT_SLOT_ARGS) had in launch slot s, 0 if not seen. */
uint64_t ht_mt_chan_slot_arg(const struct ht_mt_chan *c, uint32_t slot, unsigned int i);

/* Decodes record i of a batch (inline: the collector's sink runs it per record). */
static inline void ht_mt_rec_decode(const uint32_t *words, uint32_t i, struct ht_mt_rec *r)
{
	const uint32_t *w = words + (size_t)i * (HT_MT_REC_SIZE / 4);

	r->addr = (uint64_t)w[1] << 32 | w[0];
	r->slot = w[2];
	r->group = w[3];
	r->site = w[4];
	r->item = (uint16_t)(w[5] & HT_MT_ITEM_MASK);
	r->size = (uint8_t)(w[5] >> 16);
	r->kind = (uint8_t)(w[5] >> 24);
	r->count = w[6];
	r->stride = (int32_t)w[7];
}
/* Encodes r into HT_MT_REC_SIZE / 4 words. */
void ht_mt_rec_encode(uint32_t *words, const struct ht_mt_rec *r);

#endif
