/*
 * The memory-access channel's protocol (seed 003), host side: the consumer,
 * and a host producer that is the reference for the two device producers
 * (devcode_cl.c, cuda_patches.cu), which follow it step by step.
 *
 * Producer, for a group of n records (n <= cap), by ONE lane of the group:
 *   1. reserve: in its home bin (group id mod bins; the seed uses the SM id),
 *      read res; if the bin is closed try the next bin; if the n records do
 *      not fit, close the bin (CAS res -> res|CLOSED) and try the next; else
 *      CAS res -> res + n. After a pass over every bin with no room: discard
 *      mode adds the records' accesses to the launch's dropped count and
 *      returns; block mode waits (nothing held) and passes again.
 *   2. write the n records at [res, res + n) of the bin (a record is a run
 *      of accesses, layout.h);
 *   3. acknowledge: ack += n (release).
 * Consumer (one host thread): a closed bin holds exactly res & ~CLOSED
 * records; wait until ack reaches that, hand them to the sink where they
 * lie, set ack = 0, then res = 0 (release): the bin is open again. There
 * are two bins a lane (at least 4), so producers fill one while the sink
 * reads another. (Copying the bin out first, to reopen it sooner, cost the
 * consumer 10-11 of its 23-25 ns a record, measured with the thread's CPU
 * clock over bench/opencl.sh's memtrace run; the sink itself 12-13.) At a launch's end (or exit) it
 * closes partly filled bins itself (CAS res -> res|CLOSED) and takes them.
 *
 * Why it cannot deadlock -- the invariant: NO LANE EVER WAITS WHILE ITS
 * GROUP HOLDS A RESERVATION. Steps 1-3 are straight-line once step 1
 * succeeds, so every reservation is acknowledged in bounded time; hence the
 * consumer's wait for ack ends, every closed bin is reopened, and a waiting
 * producer (which holds nothing) gets room, since n <= cap fits an empty
 * bin. The reservation is made for the whole group by one lane, so a group
 * is either entirely reserved or entirely waiting: on a SIMT device a lane
 * that reserved for itself could not reach its acknowledgement until the
 * diverged lanes of its warp that still wait for room reconverge with it,
 * and they wait for a bin that only that acknowledgement lets the consumer
 * empty (the seed's deadlock). tests/memtrace/test_channel.c runs both
 * reservation schemes in a lockstep warp model: per-lane reservation
 * deadlocks, group reservation does not; and tiny channels with producer
 * threads lose nothing in block mode and count exactly in discard mode.
 *
 * Why CAS and not the seed's atomicAdd on res: an add that overshoots leaves
 * no record of where the written records end, and an overshooting lane
 * that is late could move res in the next generation. With CAS, res is
 * always exactly what was reserved, and a late CAS can only succeed on a
 * state that means the same thing (an open bin holding r records).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "memtrace/channel.h"

_Static_assert(HT_MT_KIND_LOAD == HT_MEM_LOAD && HT_MT_KIND_STORE == HT_MEM_STORE &&
		   HT_MT_KIND_ATOMIC == HT_MEM_ATOMIC,
	       "record kinds follow events.def's mem_kind");

static inline uint32_t *word(const struct ht_mt_chan *c, size_t off)
{
	return (uint32_t *)(void *)(c->mem + off);
}

static inline uint32_t *res_word(const struct ht_mt_chan *c, uint32_t b)
{
	return word(c, HT_MT_OFF_BIN(b));
}

static inline uint32_t *ack_word(const struct ht_mt_chan *c, uint32_t b)
{
	return word(c, HT_MT_OFF_BIN(b) + HT_MT_ACK);
}

static inline uint64_t *slot_words(const struct ht_mt_chan *c, uint32_t s)
{
	return (uint64_t *)(void *)(c->mem + HT_MT_OFF_SLOT(c->nbins, s));
}

static inline uint32_t *rec_words(const struct ht_mt_chan *c, uint32_t b, uint32_t i)
{
	return word(c, HT_MT_OFF_RECS(c->nbins) + ((size_t)b * c->cap + i) * HT_MT_REC_SIZE);
}

size_t ht_mt_chan_size(uint32_t nbins, uint32_t cap)
{
	return HT_MT_SIZE((size_t)nbins, (size_t)cap);
}

int ht_mt_chan_geometry(size_t bytes, unsigned int lanes, uint32_t min_cap, uint32_t *nbins,
			uint32_t *cap)
{
	uint32_t nb = 1;
	size_t room;

	while ((nb < 2 * lanes || nb < 4) && nb < HT_MT_MAX_BINS)
		nb <<= 1;
	for (;; nb >>= 1) {
		if (bytes > HT_MT_OFF_RECS(nb)) {
			room = (bytes - HT_MT_OFF_RECS(nb)) / HT_MT_REC_SIZE / nb;
			if (room >= min_cap)
				break;
		}
		if (nb == 1)
			return -EINVAL;
	}
	*nbins = nb;
	*cap = room > HT_MT_MAX_CAP ? HT_MT_MAX_CAP : (uint32_t)room;
	return 0;
}

int ht_mt_chan_init(struct ht_mt_chan *c, void *mem, uint32_t nbins, uint32_t cap, int block)
{
	if (!nbins || (nbins & (nbins - 1)) || nbins > HT_MT_MAX_BINS || !cap ||
	    cap > HT_MT_MAX_CAP || ((uintptr_t)mem & 63))
		return -EINVAL;
	memset(c, 0, sizeof *c);
	c->mem = mem;
	c->nbins = nbins;
	c->cap = cap;
	c->block = block;
	memset(mem, 0, HT_MT_OFF_RECS(nbins));
	word(c, 0)[HT_MT_H_NBINS] = nbins;
	word(c, 0)[HT_MT_H_CAP] = cap;
	word(c, 0)[HT_MT_H_BLOCK] = (uint32_t)block;
	__atomic_store_n(&word(c, 0)[HT_MT_H_MAGIC], HT_MT_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

void ht_mt_chan_release(struct ht_mt_chan *c)
{
	memset(c, 0, sizeof *c); /* the memory is the caller's */
}

/* The accesses record r stands for (a count of 0 means one). */
static uint32_t accesses(const struct ht_mt_rec *r)
{
	return r->count ? r->count : 1;
}

void ht_mt_rec_encode(uint32_t *w, const struct ht_mt_rec *r)
{
	w[0] = (uint32_t)r->addr;
	w[1] = (uint32_t)(r->addr >> 32);
	w[2] = r->slot;
	w[3] = r->group;
	w[4] = r->site;
	w[5] = (uint32_t)r->item | (uint32_t)r->size << 16 | (uint32_t)r->kind << 24;
	w[6] = accesses(r);
	w[7] = (uint32_t)r->stride;
}

/* Step 1 in bin b. Return: the first reserved record, or -1 (closed, or closed now: full). */
static int64_t reserve_in(struct ht_mt_chan *c, uint32_t b, uint32_t n)
{
	uint32_t *res = res_word(c, b);
	uint32_t r = __atomic_load_n(res, __ATOMIC_ACQUIRE);

	while (!(r & HT_MT_CLOSED)) {
		if (r + n > c->cap) {
			/* full for this group: closed, the consumer takes [0, r) */
			__atomic_compare_exchange_n(res, &r, r | HT_MT_CLOSED, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			return -1;
		}
		if (__atomic_compare_exchange_n(res, &r, r + n, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return r;
	}
	return -1;
}

int ht_mt_chan_reserve(struct ht_mt_chan *c, unsigned int home, uint32_t n, struct ht_mt_resv *rv)
{
	uint32_t b = home & (c->nbins - 1);

	if (!n || n > c->cap)
		return -EINVAL;
	for (uint32_t t = 0; t < c->nbins; t++, b = (b + 1) & (c->nbins - 1)) {
		int64_t at = reserve_in(c, b, n);

		if (at >= 0) {
			rv->bin = b;
			rv->at = (uint32_t)at;
			rv->n = n;
			return 0;
		}
	}
	return -EAGAIN;
}

void ht_mt_chan_write(struct ht_mt_chan *c, const struct ht_mt_resv *rv, uint32_t i,
		      const struct ht_mt_rec *r)
{
	ht_mt_rec_encode(rec_words(c, rv->bin, rv->at + i), r);
}

void ht_mt_chan_ack(struct ht_mt_chan *c, const struct ht_mt_resv *rv)
{
	__atomic_fetch_add(ack_word(c, rv->bin), rv->n, __ATOMIC_RELEASE);
}

void ht_mt_chan_drop(struct ht_mt_chan *c, uint32_t slot, uint32_t n)
{
	__atomic_fetch_add(&slot_words(c, slot % HT_MT_SLOTS)[0], n, __ATOMIC_RELAXED);
}

uint32_t ht_mt_chan_put(struct ht_mt_chan *c, unsigned int home, uint32_t slot,
			const struct ht_mt_rec *recs, uint32_t n)
{
	struct ht_mt_resv rv;
	int r;

	while ((r = ht_mt_chan_reserve(c, home, n, &rv)) == -EAGAIN) {
		if (!c->block) {
			uint32_t dropped = 0;

			for (uint32_t i = 0; i < n; i++)
				dropped += accesses(&recs[i]);
			ht_mt_chan_drop(c, slot, dropped);
			return 0;
		}
		sched_yield(); /* nothing held: wait for the consumer */
	}
	if (r)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		ht_mt_chan_write(c, &rv, i, &recs[i]);
	ht_mt_chan_ack(c, &rv);
	return n;
}

uint64_t ht_mt_chan_drain(struct ht_mt_chan *c, unsigned int flags, ht_mt_sink_fn sink, void *arg)
{
	int force = flags & HT_MT_DRAIN_FORCE;
	uint64_t taken = 0;

	for (uint32_t b = 0; b < c->nbins; b++) {
		uint32_t *res = res_word(c, b), *ack = ack_word(c, b);
		uint32_t r = __atomic_load_n(res, __ATOMIC_ACQUIRE), n;
		unsigned int spins = 0;

		while (!(r & HT_MT_CLOSED)) {
			if (!force || !r)
				break;
			__atomic_compare_exchange_n(res, &r, r | HT_MT_CLOSED, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
		}
		if (!(r & HT_MT_CLOSED))
			continue;
		n = r & ~HT_MT_CLOSED;
		/* Bounded: a lane that reserved writes and acknowledges without waiting. */
		while (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != n) {
			if (flags & HT_MT_DRAIN_NOWAIT)
				break;
			if (++spins > 64)
				sched_yield();
		}
		if (__atomic_load_n(ack, __ATOMIC_ACQUIRE) != n)
			continue; /* NOWAIT: still being written, left closed */
		if (n)
			sink(arg, rec_words(c, b, 0), n);
		__atomic_store_n(ack, 0, __ATOMIC_RELAXED);
		__atomic_store_n(res, 0, __ATOMIC_RELEASE); /* open again */
		taken += n;
	}
	return taken;
}

uint64_t ht_mt_chan_slot_take(struct ht_mt_chan *c, uint32_t slot)
{
	uint64_t *s = slot_words(c, slot % HT_MT_SLOTS);
	uint64_t dropped = __atomic_exchange_n(&s[0], 0, __ATOMIC_ACQ_REL);

	for (unsigned int i = 0; i < HT_MT_SLOT_ARGS; i++)
		__atomic_store_n(&s[1 + i], 0, __ATOMIC_RELAXED);
	return dropped;
}

uint64_t ht_mt_chan_slot_arg(const struct ht_mt_chan *c, uint32_t slot, unsigned int i)
{
	if (i >= HT_MT_SLOT_ARGS)
		return 0;
	return __atomic_load_n(&slot_words(c, slot % HT_MT_SLOTS)[1 + i], __ATOMIC_ACQUIRE);
}
