/*
 * Unit tests of the collector's run encoder (src/memtrace/runs.h): records
 * in, runs out, and the runs expanded again give back every record.
 *
 * 1. A work-group's unit-stride loop (three sites per work-item, as PoCL's
 *    work-item loops write them) is one run per site.
 * 2. Random records (few slots, groups and sites, CUDA-like site offsets
 *    that collide in the way table, strided and scattered addresses,
 *    repeated work-items) expand to the same records: per (slot, group,
 *    site, work-item) the same addresses, sizes and kinds in the same order.
 * 3. Edges: a stride that does not fit 32 bits, negative strides, the
 *    65535-access limit of a run, runs handed over grouped by slot and group.
 * 4. Records that are runs already, as the OpenCL producer folds them (cut
 *    at random places here): the encoder joins the pieces again and the
 *    expansion still gives every access back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "memtrace/channel.h"
#include "memtrace/runs.h"

/* One access (a record of count 1). */
static struct ht_mt_rec acc(uint64_t addr, uint32_t slot, uint32_t group, uint32_t site,
			    uint32_t item, uint8_t size, uint8_t kind)
{
	struct ht_mt_rec r = {.addr = addr,
			      .slot = slot,
			      .group = group,
			      .site = site,
			      .item = (uint16_t)item,
			      .size = size,
			      .kind = kind,
			      .count = 1};

	return r;
}

struct out {
	struct ht_memrun *r;
	uint32_t *slot, *group;
	size_t n, cap;
};

static void collect(void *arg, uint32_t slot, uint32_t group, const struct ht_memrun *r)
{
	struct out *o = arg;

	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->r = realloc(o->r, o->cap * sizeof *o->r);
		o->slot = realloc(o->slot, o->cap * sizeof *o->slot);
		o->group = realloc(o->group, o->cap * sizeof *o->group);
		if (!o->r || !o->slot || !o->group)
			abort();
	}
	/* through the wire form, as the trace holds it */
	uint8_t wire[HT_MEMRUN_SIZE];

	ht_memrun_put(wire, r);
	ht_memrun_get(wire, 0, &o->r[o->n]);
	o->slot[o->n] = slot;
	o->group[o->n++] = group;
}

static void encode(const struct ht_mt_rec *in, size_t n, struct out *o)
{
	struct ht_mt_runs s;
	uint32_t w[HT_MT_REC_SIZE / 4];

	ht_mt_runs_init(&s);
	for (size_t i = 0; i < n; i++) {
		ht_mt_rec_encode(w, &in[i]);
		ht_mt_runs_add(&s, w, collect, o);
	}
	ht_mt_runs_flush(&s, collect, o);
}

/* The runs expanded, in the order they came. Return: the number of records. */
static size_t expand(const struct out *o, struct ht_mt_rec *x, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n; i++)
		for (uint32_t j = 0; j < o->r[i].count && n < max; j++, n++) {
			x[n].addr = o->r[i].addr + (uint64_t)((int64_t)o->r[i].stride * j);
			x[n].slot = o->slot[i];
			x[n].group = o->group[i];
			x[n].site = o->r[i].site;
			x[n].item = (uint16_t)(o->r[i].item + j);
			x[n].size = o->r[i].size;
			x[n].kind = o->r[i].kind;
		}
	return n;
}

/* Orders by (slot, group, site, item), then by position: a stable key sort. */
struct keyed {
	struct ht_mt_rec r;
	size_t pos;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	uint64_t kx[5] = {x->r.slot, x->r.group, x->r.site, x->r.item, x->pos};
	uint64_t ky[5] = {y->r.slot, y->r.group, y->r.site, y->r.item, y->pos};

	for (int i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* Return: nonzero when x (the expansion) holds exactly the records of in, in per-key order. */
static int same_records(const struct ht_mt_rec *in, const struct ht_mt_rec *x, size_t n)
{
	struct keyed *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
	int ok = 1;

	if (!a || !b)
		abort();
	for (size_t i = 0; i < n; i++) {
		a[i] = (struct keyed){in[i], i};
		b[i] = (struct keyed){x[i], i};
	}
	qsort(a, n, sizeof *a, by_key);
	qsort(b, n, sizeof *b, by_key);
	for (size_t i = 0; i < n && ok; i++)
		ok = a[i].r.slot == b[i].r.slot && a[i].r.group == b[i].r.group &&
		     a[i].r.site == b[i].r.site && a[i].r.item == b[i].r.item &&
		     a[i].r.addr == b[i].r.addr && a[i].r.size == b[i].r.size &&
		     a[i].r.kind == b[i].r.kind;
	free(a);
	free(b);
	return ok;
}

static void release(struct out *o)
{
	free(o->r);
	free(o->slot);
	free(o->group);
	memset(o, 0, sizeof *o);
}

/* 1. saxpy over a work-group of 256: x[i], y[i] loaded, y[i] stored */
static void test_unit_stride(void)
{
	enum { ITEMS = 256 };
	struct ht_mt_rec in[3 * ITEMS];
	struct out o = {0};

	for (unsigned int i = 0; i < ITEMS; i++) {
		in[3 * i] = acc(0x1000 + 4 * i, 5, 7, 0, i, 4, HT_MT_KIND_LOAD);
		in[3 * i + 1] = acc(0x9000 + 4 * i, 5, 7, 1, i, 4, HT_MT_KIND_LOAD);
		in[3 * i + 2] = acc(0x9000 + 4 * i, 5, 7, 2, i, 4, HT_MT_KIND_STORE);
	}
	encode(in, 3 * ITEMS, &o);
	CHECK_EQ(o.n, 3);
	for (size_t i = 0; i < o.n; i++) {
		CHECK_EQ(o.r[i].count, ITEMS);
		CHECK_EQ(o.r[i].stride, 4);
		CHECK_EQ(o.r[i].item, 0);
		CHECK_EQ(o.slot[i], 5);
		CHECK_EQ(o.group[i], 7);
	}
	release(&o);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* 2. random records, lossless */
static void test_random(void)
{
	enum { N = 200000 };
	struct ht_mt_rec *in = calloc(N, sizeof *in), *x = calloc(N + 1, sizeof *x);
	struct out o = {0};
	size_t n = 0;

	if (!in || !x)
		abort();
	while (n < N) {
		/* a burst: one slot and group, a few sites, consecutive or repeated items */
		uint32_t slot = rnd(3), group = rnd(4), nsite = 1 + rnd(5), items = 1 + rnd(300);
		uint32_t site0 = 16 * rnd(200), stride = rnd(4) == 0 ? rnd(1u << 20) : 4u << rnd(3);
		uint64_t base = (uint64_t)rnd(1u << 30) << rnd(20);

		for (uint32_t it = 0; it < items && n < N; it++) {
			uint32_t item = rnd(8) == 0 ? rnd(1024) : it;

			for (uint32_t k = 0; k < nsite && n < N; k++, n++) {
				in[n].slot = slot;
				in[n].group = group;
				in[n].site =
				    k == nsite - 1 && rnd(2) ? 1024 * 16 + site0 : site0 + 16 * k;
				in[n].item = (uint16_t)item;
				in[n].addr = rnd(10) == 0 ? (uint64_t)rnd(1u << 31) * 977
							  : base + (uint64_t)stride * item + 64 * k;
				in[n].size = (uint8_t)(1u << rnd(4));
				in[n].kind = (uint8_t)rnd(3);
			}
		}
	}
	encode(in, N, &o);
	CHECK(o.n < N); /* some records shared runs */
	CHECK_EQ(expand(&o, x, N + 1), N);
	CHECK(same_records(in, x, N));
	/* runs between two changes of slot or group share them: each pair is one stretch */
	{
		size_t changes = 0, bursts = 0;

		for (size_t i = 1; i < o.n; i++)
			changes += o.slot[i] != o.slot[i - 1] || o.group[i] != o.group[i - 1];
		for (size_t i = 1; i < N; i++)
			bursts += in[i].slot != in[i - 1].slot || in[i].group != in[i - 1].group;
		CHECK_EQ(changes, bursts);
	}
	release(&o);
	free(in);
	free(x);
}

/* 3. edges */
static void test_edges(void)
{
	enum { N = 65536 + 4 };
	struct ht_mt_rec *in = calloc(N, sizeof *in), *x = calloc(N + 1, sizeof *x);
	struct out o = {0};

	if (!in || !x)
		abort();
	/* a 4 GiB stride: every access its own run, still exact */
	for (unsigned int i = 0; i < 4; i++)
		in[i] = acc(0x100000000ull * i, 1, 2, 3, i, 8, HT_MT_KIND_LOAD);
	encode(in, 4, &o);
	CHECK_EQ(o.n, 4);
	CHECK_EQ(expand(&o, x, N), 4);
	CHECK(same_records(in, x, 4));
	release(&o);

	/* a negative stride */
	for (unsigned int i = 0; i < 100; i++)
		in[i] = acc(0x800000 - 12 * i, 0, 0, 9, i, 4, HT_MT_KIND_STORE);
	encode(in, 100, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.r[0].stride, -12);
	CHECK_EQ(o.r[0].count, 100);
	release(&o);

	/* work-items 0 .. 65535 of one site: a run holds at most 65535 */
	for (unsigned int i = 0; i < 65536; i++)
		in[i] = acc(0x4000 + 4ull * i, 0, 0, 1, i, 4, HT_MT_KIND_ATOMIC);
	encode(in, 65536, &o);
	CHECK_EQ(o.n, 2);
	CHECK_EQ(o.r[0].count, 65535);
	CHECK_EQ(o.r[1].count, 1);
	CHECK_EQ(o.r[1].item, 65535);
	CHECK_EQ(expand(&o, x, N), 65536);
	CHECK(same_records(in, x, 65536));
	release(&o);

	/* another size or kind at the same site breaks the run */
	for (unsigned int i = 0; i < 8; i++)
		in[i] = acc(0x4000 + 4ull * i, 0, 0, 1, i, 4,
			    i == 4 ? HT_MT_KIND_STORE : HT_MT_KIND_LOAD);
	encode(in, 8, &o);
	CHECK_EQ(o.n, 3);
	CHECK_EQ(expand(&o, x, N), 8);
	CHECK(same_records(in, x, 8));
	release(&o);
	free(in);
	free(x);
}

/*
 * 4. The OpenCL producer's folding (devcode_cl.c), mirrored: per site way an
 * open run that the next work-item one stride on extends, cut at random too.
 */
static size_t fold(const struct ht_mt_rec *in, size_t n, struct ht_mt_rec *out)
{
	struct ht_mt_rec open[16];
	uint32_t used = 0;
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ht_mt_rec *a = &in[i];
		unsigned int k = a->site & 15;
		struct ht_mt_rec *o = &open[k];

		if (i && (a->slot != in[i - 1].slot || a->group != in[i - 1].group)) {
			for (unsigned int j = 0; j < 16; j++)
				if (used >> j & 1)
					out[m++] = open[j];
			used = 0;
		}
		if (used >> k & 1) {
			int same = o->site == a->site && o->size == a->size && o->kind == a->kind &&
				   a->item == o->item + o->count && o->count < 65535 && rnd(16);
			int64_t d = (int64_t)(a->addr - o->addr);

			if (same && o->count > 1 &&
			    a->addr == o->addr + (uint64_t)((int64_t)o->stride * o->count)) {
				o->count++;
				continue;
			}
			if (same && o->count == 1 && d == (int32_t)d) {
				o->stride = (int32_t)d;
				o->count = 2;
				continue;
			}
			out[m++] = *o;
		}
		*o = *a;
		o->count = 1;
		o->stride = 0;
		used |= 1u << k;
	}
	for (unsigned int j = 0; j < 16; j++)
		if (used >> j & 1)
			out[m++] = open[j];
	return m;
}

static void test_folded(void)
{
	enum { N = 100000, ITEMS = 256 };
	struct ht_mt_rec *in = calloc(N, sizeof *in), *f = calloc(N, sizeof *f),
			 *x = calloc(N + 1, sizeof *x);
	struct out o = {0};
	size_t n = 0, m;

	if (!in || !f || !x)
		abort();
	/* work-groups of saxpy-like accesses, a few of them scattered */
	for (uint32_t g = 0; n + 3 * ITEMS <= N; g++)
		for (uint32_t i = 0; i < ITEMS; i++)
			for (uint32_t k = 0; k < 3; k++, n++)
				in[n] = acc(rnd(50) ? 0x10000ull * (k + 1) + 4ull * (g * ITEMS + i)
						    : rnd(1u << 30),
					    g % 3, g, k, i, 4,
					    k == 2 ? HT_MT_KIND_STORE : HT_MT_KIND_LOAD);
	m = fold(in, n, f);
	CHECK(m < n);
	encode(f, m, &o);
	CHECK(o.n < m); /* pieces joined again */
	CHECK_EQ(expand(&o, x, N + 1), n);
	CHECK(same_records(in, x, n));
	release(&o);
	free(in);
	free(f);
	free(x);
}

int main(void)
{
	test_unit_stride();
	test_random();
	test_edges();
	test_folded();
	if (!check_failures)
		printf("memtrace_runs: all checks passed\n");
	return check_failures ? 1 : 0;
}
