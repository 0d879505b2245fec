/*
 * Convex-hull clock synchronisation (see clocksync.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clocksync.h"
#include "common/grow.h"

static int push(struct ht_sync_point **v, uint64_t *n, size_t *cap, double x, double y)
{
	if (ht_grow((void **)v, cap, sizeof **v, *n + 1))
		return -ENOMEM;
	(*v)[*n].x = x;
	(*v)[(*n)++].y = y;
	return 0;
}

unsigned int ht_sync_samples_command(const struct ht_ev_device_command *c, uint64_t seen,
				     struct ht_sync_sample out[2])
{
	if (!c->host_before)
		return 0;
	out[0] = (struct ht_sync_sample){c->device, HT_PAIR_HOST_BEFORE, c->queued, c->host_before};
	out[1] = (struct ht_sync_sample){c->device, HT_PAIR_HOST_AFTER, c->end, seen};
	return 2;
}

unsigned int ht_sync_samples_pair(const struct ht_ev_clock_pair *p, struct ht_sync_sample out[1])
{
	out[0] = (struct ht_sync_sample){p->device, (enum ht_pair_kind)p->kind, p->device_ts,
					 p->host_ns};
	return 1;
}

void ht_clock_sync_add(struct ht_clock_sync *cs, enum ht_pair_kind kind, uint64_t device_ts,
		       uint64_t host_ns)
{
	double x, y;

	if (!device_ts || !host_ns)
		return; /* a missing timestamp bounds nothing */
	if (!cs->have_origin) {
		cs->d0 = device_ts;
		cs->h0 = host_ns;
		cs->have_origin = 1;
		cs->xmin = cs->xmax = 0;
	}
	x = (double)(int64_t)(device_ts - cs->d0);
	y = (double)(int64_t)(host_ns - cs->h0);
	if (x < cs->xmin)
		cs->xmin = x;
	if (x > cs->xmax)
		cs->xmax = x;
	if (kind != HT_PAIR_HOST_AFTER)
		push(&cs->below, &cs->nbelow, &cs->cap_below, x, y);
	if (kind != HT_PAIR_HOST_BEFORE)
		push(&cs->above, &cs->nabove, &cs->cap_above, x, y);
}

static int by_x(const void *a, const void *b)
{
	const struct ht_sync_point *p = a, *q = b;

	return p->x < q->x ? -1 : p->x > q->x ? 1 : (p->y < q->y ? -1 : p->y > q->y);
}

static double cross(struct ht_sync_point o, struct ht_sync_point a, struct ht_sync_point b)
{
	return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/*
 * Monotone chain over points sorted by x, in place. upper = 1 keeps the
 * upper hull, 0 the lower one. Return: the number of hull points.
 */
static uint64_t hull(struct ht_sync_point *p, uint64_t n, int upper)
{
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++) {
		while (k >= 2) {
			double c = cross(p[k - 2], p[k - 1], p[i]);

			if (upper ? c < 0 : c > 0)
				break;
			k--;
		}
		p[k++] = p[i];
	}
	return k;
}

struct hulls {
	const struct ht_sync_point *lo; /* upper hull of HOST_BEFORE: the line is above */
	uint64_t nlo;
	const struct ht_sync_point *hi; /* lower hull of HOST_AFTER: the line is below */
	uint64_t nhi;
};

/* The lowest intercept a line of slope a may have: above every `lo` point. */
static double floor_at(const struct hulls *h, double a)
{
	double m = -INFINITY;

	for (uint64_t i = 0; i < h->nlo; i++)
		m = fmax(m, h->lo[i].y - a * h->lo[i].x);
	return m;
}

/* The highest intercept: below every `hi` point. */
static double ceil_at(const struct hulls *h, double a)
{
	double m = INFINITY;

	for (uint64_t i = 0; i < h->nhi; i++)
		m = fmin(m, h->hi[i].y - a * h->hi[i].x);
	return m;
}

/* Violations below this are rounding, not contradictions (ns). */
#define SLACK 0.5
/*
 * Slopes considered: real oscillators drift by well under 1000 ppm. Without
 * this limit a handful of loose bounds admit absurd slopes (0.5, 2).
 */
#define SLOPE_MIN (1 - 1e-3)
#define SLOPE_MAX (1 + 1e-3)

/* The room between the bounds for slope a: concave in a. */
static double gap(const struct hulls *h, double a)
{
	return ceil_at(h, a) - floor_at(h, a);
}

/* Golden-section search for the slope with the widest gap. */
static double best_slope(const struct hulls *h)
{
	const double g = 0.6180339887498949;
	double lo = SLOPE_MIN, hi = SLOPE_MAX;
	double c = hi - g * (hi - lo), d = lo + g * (hi - lo);
	double fc = gap(h, c), fd = gap(h, d);

	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		if (fc < fd) {
			lo = c;
			c = d;
			fc = fd;
			d = lo + g * (hi - lo);
			fd = gap(h, d);
		} else {
			hi = d;
			d = c;
			fd = fc;
			c = hi - g * (hi - lo);
			fc = gap(h, c);
		}
	}
	return (lo + hi) / 2;
}

/* The edge of the feasible slope range on one side of a (gap(a) >= 0). */
static double slope_edge(const struct hulls *h, double a, double limit)
{
	double in = a, out = limit;

	if (gap(h, out) >= -SLACK)
		return out;
	for (int i = 0; i < 200 && fabs(out - in) > 1e-16; i++) {
		double mid = (in + out) / 2;

		if (gap(h, mid) >= -SLACK)
			in = mid;
		else
			out = mid;
	}
	return in;
}

int ht_clock_sync_solve(struct ht_clock_sync *cs, struct ht_clock_map *out)
{
	struct hulls h;
	double a, b, amin, amax, bound = 0;

	memset(out, 0, sizeof *out);
	out->slope = 1;
	out->samples = cs->nbelow + cs->nabove;
	if (!cs->have_origin)
		return 0;
	out->d0 = cs->d0;
	if (cs->nbelow)
		qsort(cs->below, cs->nbelow, sizeof *cs->below, by_x);
	if (cs->nabove)
		qsort(cs->above, cs->nabove, sizeof *cs->above, by_x);
	cs->nbelow = hull(cs->below, cs->nbelow, 1);
	cs->nabove = hull(cs->above, cs->nabove, 0);
	h.lo = cs->below;
	h.nlo = cs->nbelow;
	h.hi = cs->above;
	h.nhi = cs->nabove;
	if (!h.nlo || !h.nhi) {
		/* One side only: assume no drift, hug the bounds we have. */
		out->quality = HT_SYNC_ONE_SIDED;
		out->h_at_d0 = (double)cs->h0 + (h.nlo ? floor_at(&h, 1) : ceil_at(&h, 1));
		out->bound_ns = NAN;
		return 0;
	}
	a = best_slope(&h);
	if (gap(&h, a) < -SLACK) {
		/* no line fits every bound: the least-violating one */
		b = (floor_at(&h, a) + ceil_at(&h, a)) / 2;
		out->slope = a;
		out->h_at_d0 = (double)cs->h0 + b;
		out->quality = HT_SYNC_INCONSISTENT;
		out->drift_known = 1; /* the compromise's slope, as used */
		out->bound_ns = -gap(&h, a) / 2;
		return 0;
	}
	/*
	 * The middle of the feasible slope range, and the middle of the feasible
	 * intercepts for it: the line that bisects the feasible region. Sparse
	 * samples leave the range wide and centred on no drift; dense ones pin it.
	 */
	amin = slope_edge(&h, a, SLOPE_MIN);
	amax = slope_edge(&h, a, SLOPE_MAX);
	out->slope_min = amin;
	out->slope_max = amax;
	out->drift_known = 1;
	if (amin <= 1 && 1 <= amax && amax - amin > HT_SYNC_DRIFT_NARROW) {
		/*
		 * No drift is among the lines the samples allow, and they do not pin
		 * the slope: any other slope is a guess (a 140 ms run gave +26.58
		 * and +13.04 ppm where the truth was 0). Assume none, and say so.
		 */
		a = 1;
		out->drift_known = 0;
	} else if (amax - amin > 2e-4) {
		/* a drift, but loosely bound: the smallest one the samples allow */
		a = 1 < amin ? amin : amax;
	} else {
		a = (amin + amax) / 2;
	}
	if (gap(&h, a) < -SLACK)
		a = best_slope(&h); /* cannot happen for a convex region; be safe */
	b = (floor_at(&h, a) + ceil_at(&h, a)) / 2;
	out->slope = a;
	out->h_at_d0 = (double)cs->h0 + b;
	out->quality = HT_SYNC_OK;
	/*
	 * Any feasible line (slope s, intercept within [floor(s), ceil(s)]) can
	 * be this far from ours at either end of the sampled range. The
	 * extremes lie at hull breakpoints; a fine grid of slopes across the
	 * feasible range finds them to within a small fraction of the bound.
	 */
	for (int i = 0; i <= 256; i++) {
		double s = amin + (amax - amin) * i / 256.0;
		double f = floor_at(&h, s), c = ceil_at(&h, s);
		double xs[2] = {cs->xmin, cs->xmax};

		for (int k = 0; k < 2; k++) {
			double ours = a * xs[k] + b;

			bound = fmax(bound, fabs(s * xs[k] + f - ours));
			bound = fmax(bound, fabs(s * xs[k] + c - ours));
		}
	}
	out->bound_ns = bound;
	return 0;
}

void ht_clock_sync_release(struct ht_clock_sync *cs)
{
	free(cs->below);
	free(cs->above);
	memset(cs, 0, sizeof *cs);
}

uint64_t ht_clock_map_apply(const struct ht_clock_map *m, uint64_t device_ts)
{
	double x, h;

	if (m->quality == HT_SYNC_NONE)
		return device_ts;
	x = (double)(int64_t)(device_ts - m->d0);
	h = m->h_at_d0 + m->slope * x;
	return h <= 0 ? 0 : (uint64_t)(h + 0.5);
}

double ht_clock_map_drift_ppm(const struct ht_clock_map *m)
{
	return m->drift_known ? (m->slope - 1) * 1e6 : NAN;
}

double ht_clock_map_offset_ns(const struct ht_clock_map *m)
{
	return m->h_at_d0 - (double)m->d0;
}

void ht_clock_map_drift_text(char *buf, size_t cap, const struct ht_clock_map *m)
{
	double lo = (m->slope_min - 1) * 1e6, hi = (m->slope_max - 1) * 1e6;

	if (m->quality == HT_SYNC_NONE)
		snprintf(buf, cap, "drift unknown (no samples)");
	else if (m->quality == HT_SYNC_ONE_SIDED)
		snprintf(buf, cap,
			 "drift not determined (bounds from one side only; none assumed)");
	else if (m->quality == HT_SYNC_INCONSISTENT)
		snprintf(buf, cap, "drift %+.2f ppm (the least inconsistent line)",
			 ht_clock_map_drift_ppm(m));
	else if (!m->drift_known)
		snprintf(buf, cap,
			 "drift not determined (the samples allow %+.2f..%+.2f ppm; none "
			 "assumed)",
			 lo, hi);
	else
		snprintf(buf, cap, "drift %+.2f ppm (the samples allow %+.2f..%+.2f)",
			 ht_clock_map_drift_ppm(m), lo, hi);
}
