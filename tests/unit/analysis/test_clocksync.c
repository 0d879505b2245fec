/*
 * Unit tests for clock sync: synthetic device clocks with known offset,
 * drift and noise. The recovered map must lie within its stated bound of
 * the true map over the whole sampled range, the bound must be tight
 * compared with the noise, and contradictory or one-sided samples must be
 * flagged.
 */
#include <math.h>
#include <stdlib.h>

#include "../check.h"
#include "analysis/clocksync.h"
#include "analysis/stats.h"

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* host = device * (1 + drift) + offset */
struct truth {
	double drift, offset;
};

static double true_host(const struct truth *t, double d)
{
	return d * (1 + t->drift) + t->offset;
}

static double true_device(const struct truth *t, double h)
{
	return (h - t->offset) / (1 + t->drift);
}

/* N commands: enqueue at host e, QUEUED a little later, END later, seen later still. */
static void run(struct truth t, int n, double noise_ns, double drift_tol_ppm, double *bound,
		double *worst, int *known, double *range)
{
	struct ht_clock_sync cs = {0};
	struct ht_clock_map m;
	double host = 5e11, dmin = 1e30, dmax = 0;

	for (int k = 0; k < n; k++) {
		double e = host + uniform() * 1e6;
		double q = true_device(&t, e + 500 + uniform() * noise_ns);
		double end = q + 20000 + uniform() * 200000;
		double seen = true_host(&t, end) + 500 + uniform() * noise_ns;

		ht_clock_sync_add(&cs, HT_PAIR_HOST_BEFORE, (uint64_t)q, (uint64_t)e);
		ht_clock_sync_add(&cs, HT_PAIR_HOST_AFTER, (uint64_t)end, (uint64_t)seen + 1);
		dmin = fmin(dmin, q);
		dmax = fmax(dmax, end);
		host += 2e6;
	}
	CHECK_EQ(ht_clock_sync_solve(&cs, &m), 0);
	CHECK_EQ(m.quality, HT_SYNC_OK);
	*bound = m.bound_ns;
	*worst = 0;
	for (int i = 0; i <= 100; i++) {
		double d = dmin + (dmax - dmin) * i / 100.0;
		double err = fabs((double)ht_clock_map_apply(&m, (uint64_t)d) - true_host(&t, d));

		*worst = fmax(*worst, err);
	}
	/* rounding to whole ns on both sides of the comparison: 2 ns of slack */
	if (*worst > *bound + 2)
		fprintf(stderr, "drift %g offset %g: error %.1f ns exceeds bound %.1f ns\n",
			t.drift, t.offset, *worst, *bound);
	CHECK(*worst <= *bound + 2);
	/* the true drift is among the slopes the samples allow */
	CHECK(m.slope_min - 1 <= t.drift + 1e-9 && t.drift - 1e-9 <= m.slope_max - 1);
	if (m.drift_known) {
		CHECK(fabs(ht_clock_map_drift_ppm(&m) - t.drift * 1e6) < drift_tol_ppm);
	} else {
		/* not determined: no drift assumed, said as NaN, and no drift was possible */
		CHECK_EQ(m.slope, 1);
		CHECK(isnan(ht_clock_map_drift_ppm(&m)));
		CHECK(m.slope_min <= 1 && 1 <= m.slope_max);
	}
	*known = m.drift_known;
	*range = m.slope_max - m.slope_min;
	ht_clock_sync_release(&cs);
}

static void test_recovery(void)
{
	/* PoCL's device clock: CLOCK_MONOTONIC_RAW, 248 ms away, slightly drifting */
	struct truth cases[] = {
	    {0, 248e6}, {25e-6, 248e6}, {-40e-6, -3e9}, {100e-6, -1e11}, {0, 0},
	};
	double bound, worst, range;
	int known;

	for (unsigned int i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		run(cases[i], 2000, 5000, 5, &bound, &worst, &known, &range);
		/* bounds are tight: a few times the per-sample noise */
		CHECK(bound < 20000);
		/* 4 s of samples: a drift of 25 ppm or more is told apart from none */
		if (cases[i].drift)
			CHECK(known);
	}
	/* fewer, noisier samples: a wider but still honest bound */
	run(cases[1], 50, 200000, 1e4, &bound, &worst, &known, &range);
	CHECK(bound > 0);
}

/*
 * A short run (70 commands in 140 ms) without drift: the samples allow a
 * slope range a few ppm wide around 1. The midpoint of that range is noise
 * (it reported +26.58 ppm on PoCL where the truth was 0): the drift is not
 * determined, and none is assumed.
 */
static void test_short_run(void)
{
	struct truth t = {0, 248e6};
	double bound, worst, range;
	int known = 1;

	run(t, 70, 1500, 1e9, &bound, &worst, &known, &range);
	CHECK(range > HT_SYNC_DRIFT_NARROW && range < 2e-4); /* the case at issue */
	CHECK_EQ(known, 0);
	/* the same run with a real 300 ppm drift: determined */
	t.drift = 300e-6;
	run(t, 70, 1500, 50, &bound, &worst, &known, &range);
	CHECK_EQ(known, 1);
}

static void test_inconsistent_and_one_sided(void)
{
	struct ht_clock_sync cs = {0};
	struct ht_clock_map m;

	ht_clock_sync_add(&cs, HT_PAIR_HOST_BEFORE, 1000, 2000); /* host >= 2000 at 1000 */
	ht_clock_sync_add(&cs, HT_PAIR_HOST_AFTER, 1000, 1500);	 /* host <= 1500 at 1000 */
	CHECK_EQ(ht_clock_sync_solve(&cs, &m), 0);
	CHECK_EQ(m.quality, HT_SYNC_INCONSISTENT);
	CHECK(fabs(m.bound_ns - 250) < 1);
	ht_clock_sync_release(&cs);

	ht_clock_sync_add(&cs, HT_PAIR_HOST_BEFORE, 1000, 5000);
	ht_clock_sync_add(&cs, HT_PAIR_HOST_BEFORE, 9000, 12000);
	CHECK_EQ(ht_clock_sync_solve(&cs, &m), 0);
	CHECK_EQ(m.quality, HT_SYNC_ONE_SIDED);
	CHECK(isnan(m.bound_ns));
	CHECK(ht_clock_map_apply(&m, 9000) >= 12000);
	ht_clock_sync_release(&cs);

	CHECK_EQ(ht_clock_sync_solve(&cs, &m), 0);
	CHECK_EQ(m.quality, HT_SYNC_NONE);
	CHECK_EQ(ht_clock_map_apply(&m, 777), 777);

	/* exact pairs pin the line */
	ht_clock_sync_add(&cs, HT_PAIR_EXACT, 1000000, 2000000);
	ht_clock_sync_add(&cs, HT_PAIR_EXACT, 3000000, 4000000);
	CHECK_EQ(ht_clock_sync_solve(&cs, &m), 0);
	CHECK_EQ(m.quality, HT_SYNC_OK);
	CHECK_EQ(ht_clock_map_apply(&m, 2000000), 3000000);
	CHECK(m.bound_ns < 1);
	ht_clock_sync_release(&cs);
}

static void test_stats(void)
{
	struct ht_stats s = {0};

	for (uint64_t v = 1; v <= 100; v++)
		ht_stats_add(&s, v * 10);
	CHECK_EQ(s.count, 100);
	CHECK_EQ(s.min, 10);
	CHECK_EQ(s.max, 1000);
	CHECK_EQ(ht_stats_quantile(&s, 0.5), 500);
	CHECK_EQ(ht_stats_quantile(&s, 0.99), 990);
	CHECK(fabs(ht_stats_mean(&s) - 505) < 1e-9);
	ht_stats_release(&s);
	/* past the exact limit: histogram, within 3.2 % */
	for (uint64_t v = 1; v <= 100000; v++)
		ht_stats_add(&s, v);
	CHECK(s.hist != NULL);
	CHECK(fabs((double)ht_stats_quantile(&s, 0.5) - 50000) < 50000 * 0.032);
	CHECK(fabs((double)ht_stats_quantile(&s, 0.99) - 99000) < 99000 * 0.032);
	CHECK_EQ(ht_stats_quantile(&s, 1), 100000);
	ht_stats_release(&s);
}

int main(void)
{
	test_recovery();
	test_short_run();
	test_inconsistent_and_one_sided();
	test_stats();
	CHECK_DONE();
}
