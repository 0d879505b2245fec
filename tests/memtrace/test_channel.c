/*
 * Unit tests of the memory-access channel (src/memtrace/channel.c).
 *
 * 1. The deadlock invariant in a lockstep warp model: 32 lanes execute each
 *    access together; lanes whose step failed loop while the others wait,
 *    masked off, at the reconvergence point (SIMT). With one reservation per
 *    lane (the seed's naive producer) a warp whose records no longer fit in
 *    the bin deadlocks: the lanes that got room cannot acknowledge until
 *    the others get room, which needs the consumer to empty the bin, which
 *    needs those acknowledgements. With one reservation for the group
 *    (channel.c's protocol) the same program completes and every record
 *    arrives, in order.
 * 2. Producer threads against a channel far smaller than what they write
 *    (2 bins x 16 records, ~45,000 drains): block mode delivers every
 *    record exactly once; discard mode delivers each at most once and
 *    counts exactly the ones it dropped.
 * 3. Geometry and record encoding.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"
#include "memtrace/channel.h"

/* ---- 1. lockstep warp model ---- */

#define LANES 32

struct sink_seq {
	uint64_t n;
	uint64_t next; /* the addr expected next (records carry their sequence number) */
	int in_order;
};

static void seq_sink(void *arg, const uint32_t *w, uint32_t n)
{
	struct sink_seq *s = arg;

	for (uint32_t i = 0; i < n; i++) {
		struct ht_mt_rec r;

		ht_mt_rec_decode(w, i, &r);
		if (r.addr != s->next)
			s->in_order = 0;
		s->next = r.addr + 1;
		s->n++;
	}
}

/*
 * Runs `accesses` accesses of one warp with per-lane (group = 0) or
 * group-wide reservations, the consumer taking what it can after each warp
 * step (it never waits: it is another processor). Return: 1 when the
 * program completed, 0 when it stopped making progress (deadlock).
 */
static int warp_run(int group, uint32_t cap, unsigned int accesses, struct sink_seq *out)
{
	size_t size = ht_mt_chan_size(1, cap);
	void *mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	struct ht_mt_chan c;
	uint64_t seq = 0;
	int ok = 1;

	out->n = out->next = 0;
	out->in_order = 1;
	if (!mem || ht_mt_chan_init(&c, mem, 1, cap, 1)) {
		free(mem);
		return -1;
	}
	for (unsigned int a = 0; a < accesses && ok; a++) {
		struct ht_mt_resv rv[LANES];
		int have[LANES] = {0};
		unsigned int idle = 0, got = 0;

		while (got < LANES) {
			unsigned int before = got;

			if (group) {
				/* the lowest lane reserves for all; the warp waits or goes as one
				 */
				if (ht_mt_chan_reserve(&c, 0, LANES, &rv[0]) == 0)
					got = LANES;
			} else {
				/* every lane still without room tries once (the failed branch) */
				for (unsigned int l = 0; l < LANES; l++)
					if (!have[l] && ht_mt_chan_reserve(&c, 0, 1, &rv[l]) == 0)
						have[l] = 1, got++;
			}
			/* the lanes with room are masked off until got == LANES: no acks yet */
			if (got < LANES &&
			    !ht_mt_chan_drain(&c, HT_MT_DRAIN_NOWAIT, seq_sink, out) &&
			    got == before && ++idle > 1000) {
				ok = 0;
				break;
			}
		}
		if (!ok)
			break;
		/* reconverged: every lane writes its record, then the acknowledgements */
		for (unsigned int l = 0; l < LANES; l++) {
			struct ht_mt_rec r = {.addr = seq + l, .item = (uint16_t)l, .size = 4};

			if (group)
				ht_mt_chan_write(&c, &rv[0], l, &r);
			else
				ht_mt_chan_write(&c, &rv[l], 0, &r);
		}
		if (group)
			ht_mt_chan_ack(&c, &rv[0]);
		else
			for (unsigned int l = 0; l < LANES; l++)
				ht_mt_chan_ack(&c, &rv[l]);
		seq += LANES;
	}
	if (ok)
		ht_mt_chan_drain(&c, HT_MT_DRAIN_FORCE, seq_sink, out);
	ht_mt_chan_release(&c);
	free(mem);
	return ok;
}

static void test_warp_model(void)
{
	struct sink_seq s;

	/* 40 records per bin: the second access of a 32-lane warp does not fit */
	CHECK_EQ(warp_run(0, 40, 10, &s), 0); /* per-lane reservation: deadlock */
	CHECK_EQ(s.n, 0); /* the closed bin keeps 8 slots that are never acknowledged */
	CHECK_EQ(warp_run(1, 40, 10, &s), 1); /* group reservation: completes */
	CHECK_EQ(s.n, 320);
	CHECK(s.in_order);
	/* a bin that holds exactly one warp: 500 drains */
	CHECK_EQ(warp_run(1, 32, 500, &s), 1);
	CHECK_EQ(s.n, 32 * 500);
	CHECK(s.in_order);
	/* a bin with room for many warps: per-lane reservation gets through while it fits */
	CHECK_EQ(warp_run(0, 32 * 64, 60, &s), 1);
	CHECK_EQ(s.n, 32 * 60);
}

/* ---- 2. producer threads, tiny channel ---- */

#define THREADS 4
#define GROUPS	20000
#define MAXN	8

struct run {
	struct ht_mt_chan c;
	uint8_t *seen;	   /* per record id: times received */
	uint64_t received; /* by the consumer */
	uint64_t dupes, bad_groups;
	uint64_t written[THREADS];
	int done;
	int slow; /* the consumer naps between drains (discard mode: forces drops) */
};

static uint32_t group_size(unsigned int t, unsigned int g)
{
	return 1 + (t * 7919u + g * 104729u) % MAXN;
}

static uint64_t rec_id(unsigned int t, uint64_t k)
{
	return (uint64_t)t * GROUPS * MAXN + k;
}

static void count_sink(void *arg, const uint32_t *w, uint32_t n)
{
	struct run *r = arg;

	for (uint32_t i = 0; i < n; i++) {
		struct ht_mt_rec x;

		ht_mt_rec_decode(w, i, &x);
		if (x.addr >= (uint64_t)THREADS * GROUPS * MAXN || r->seen[x.addr]++)
			r->dupes++;
		/* a group is contiguous: item counts down to its last record */
		if (x.item && i + 1 < n) {
			struct ht_mt_rec y;

			ht_mt_rec_decode(w, i + 1, &y);
			if (y.addr != x.addr + 1 || y.item != x.item - 1)
				r->bad_groups++;
		}
	}
	r->received += n;
}

static struct run *the_run;

static void *producer(void *arg)
{
	unsigned int t = (unsigned int)(uintptr_t)arg;
	struct run *r = the_run;
	uint64_t k = 0;

	for (unsigned int g = 0; g < GROUPS; g++) {
		struct ht_mt_rec recs[MAXN];
		uint32_t n = group_size(t, g);

		for (uint32_t i = 0; i < n; i++) {
			recs[i] = (struct ht_mt_rec){.addr = rec_id(t, k + i),
						     .slot = 7,
						     .group = g,
						     .item = (uint16_t)(n - 1 - i),
						     .size = 4,
						     .kind = HT_MT_KIND_STORE};
		}
		if (g % 7) {
			r->written[t] += ht_mt_chan_put(&r->c, t, 7, recs, n);
		} else {
			/* the three steps by hand, with a pause between reserving and writing */
			struct ht_mt_resv rv;
			int rc;

			while ((rc = ht_mt_chan_reserve(&r->c, t, n, &rv)) == -EAGAIN && r->c.block)
				sched_yield();
			if (rc) {
				ht_mt_chan_drop(&r->c, 7, n);
			} else {
				sched_yield();
				for (uint32_t i = 0; i < n; i++)
					ht_mt_chan_write(&r->c, &rv, i, &recs[i]);
				ht_mt_chan_ack(&r->c, &rv);
				r->written[t] += n;
			}
		}
		k += n;
	}
	return NULL;
}

static void *consumer(void *arg)
{
	struct run *r = arg;

	while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE)) {
		if (!ht_mt_chan_drain(&r->c, 0, count_sink, r) || r->slow)
			usleep(r->slow ? 300 : 20);
	}
	ht_mt_chan_drain(&r->c, HT_MT_DRAIN_FORCE, count_sink, r);
	return NULL;
}

static void run_threads(int block, int slow)
{
	struct run r = {.slow = slow};
	size_t size = ht_mt_chan_size(2, 16), total = 0, written = 0;
	void *mem = aligned_alloc(64, (size + 63) & ~(size_t)63);
	pthread_t p[THREADS], cons;
	uint64_t dropped;

	r.seen = calloc((size_t)THREADS * GROUPS * MAXN, 1);
	CHECK(mem && r.seen);
	if (!mem || !r.seen || ht_mt_chan_init(&r.c, mem, 2, 16, block)) {
		check_failures++;
		free(mem);
		free(r.seen);
		return;
	}
	the_run = &r;
	pthread_create(&cons, NULL, consumer, &r);
	for (unsigned int t = 0; t < THREADS; t++)
		pthread_create(&p[t], NULL, producer, (void *)(uintptr_t)t);
	for (unsigned int t = 0; t < THREADS; t++)
		pthread_join(p[t], NULL);
	__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
	pthread_join(cons, NULL);
	for (unsigned int t = 0; t < THREADS; t++) {
		for (unsigned int g = 0; g < GROUPS; g++)
			total += group_size(t, g);
		written += r.written[t];
	}
	dropped = ht_mt_chan_slot_take(&r.c, 7);
	CHECK_EQ(r.dupes, 0);
	CHECK_EQ(r.bad_groups, 0);
	CHECK_EQ(r.received, written);
	CHECK_EQ(r.received + dropped, total); /* nothing lost uncounted */
	CHECK(total > 100 * 2 * 16);	       /* far more than the channel holds */
	if (block) {
		CHECK_EQ(dropped, 0);
		CHECK_EQ(r.received, total);
	} else {
		CHECK(dropped > 0); /* the napping consumer could not keep up */
	}
	CHECK_EQ(ht_mt_chan_slot_take(&r.c, 7), 0); /* taken: reset */
	printf("%s: %zu records, %llu received, %llu dropped\n", block ? "block" : "discard", total,
	       (unsigned long long)r.received, (unsigned long long)dropped);
	ht_mt_chan_release(&r.c);
	free(mem);
	free(r.seen);
}

/* ---- 3. geometry, encoding ---- */

static void test_geometry(void)
{
	uint32_t nb, cap;
	struct ht_mt_rec r = {.addr = 0x123456789abcull,
			      .slot = 4095,
			      .group = 0xdeadbeef,
			      .site = 77,
			      .item = 4095,
			      .size = 16,
			      .kind = HT_MT_KIND_ATOMIC},
			 d;
	uint32_t w[HT_MT_REC_SIZE / 4];

	CHECK_EQ(ht_mt_chan_geometry(4u << 20, 2, 256, &nb, &cap), 0);
	CHECK_EQ(nb, 4); /* two bins a lane */
	CHECK(ht_mt_chan_size(nb, cap) <= (4u << 20));
	CHECK(cap >= 256);
	CHECK_EQ(ht_mt_chan_geometry(4u << 20, 80, 256, &nb, &cap), 0);
	CHECK_EQ(nb, 256);
	CHECK_EQ(ht_mt_chan_geometry(4u << 20, 1, 256, &nb, &cap), 0);
	CHECK_EQ(nb, 4); /* at least 4 */
	/* too small for one bin of 256 records */
	CHECK_EQ(ht_mt_chan_geometry(HT_MT_OFF_RECS(1) + 100, 1, 256, &nb, &cap), -EINVAL);
	ht_mt_rec_encode(w, &r);
	ht_mt_rec_decode(w, 0, &d);
	CHECK_EQ(d.addr, r.addr);
	CHECK_EQ(d.slot, r.slot);
	CHECK_EQ(d.group, r.group);
	CHECK_EQ(d.site, r.site);
	CHECK_EQ(d.item, r.item);
	CHECK_EQ(d.size, r.size);
	CHECK_EQ(d.kind, r.kind);
}

int main(void)
{
	test_geometry();
	test_warp_model();
	run_threads(1, 0);
	run_threads(0, 1);
	CHECK_DONE();
}
