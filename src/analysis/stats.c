/*
 * Bounded-memory statistics (see stats.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"

static unsigned int bucket(uint64_t v)
{
	unsigned int e, sub;

	if (v < HT_STATS_SUB)
		return (unsigned int)v; /* exact for small values */
	e = 63u - (unsigned int)__builtin_clzll(v);
	sub = (unsigned int)(v >> (e - 5)) & (HT_STATS_SUB - 1);
	return (e - 4) * HT_STATS_SUB + sub;
}

/* The middle of a bucket's range. */
static uint64_t bucket_value(unsigned int b)
{
	unsigned int e, sub;
	uint64_t lo, width;

	if (b < HT_STATS_SUB)
		return b;
	e = b / HT_STATS_SUB + 4;
	sub = b % HT_STATS_SUB;
	lo = ((uint64_t)1 << e) | ((uint64_t)sub << (e - 5));
	width = (uint64_t)1 << (e - 5);
	return lo + width / 2;
}

static void to_histogram(struct ht_stats *s)
{
	s->hist = calloc(HT_STATS_BUCKETS, sizeof *s->hist);
	if (!s->hist)
		return;
	for (uint64_t i = 0; i < s->count && i < HT_STATS_EXACT; i++)
		s->hist[bucket(s->exact[i])]++;
	free(s->exact);
	s->exact = NULL;
}

void ht_stats_add(struct ht_stats *s, uint64_t v)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
	s->total += (double)v;
	if (!s->hist) {
		if (!s->exact)
			s->exact = malloc(HT_STATS_EXACT * sizeof *s->exact);
		if (s->exact && s->count < HT_STATS_EXACT) {
			s->exact[s->count++] = v;
			return;
		}
		if (s->exact)
			to_histogram(s);
	}
	if (s->hist)
		s->hist[bucket(v)]++;
	s->count++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t ht_stats_quantile(struct ht_stats *s, double q)
{
	uint64_t rank, seen = 0, v;

	if (!s->count)
		return 0;
	if (q <= 0)
		return s->min;
	if (q >= 1)
		return s->max;
	/* nearest rank: the smallest value with at least q of the samples at or below it */
	rank = (uint64_t)(q * (double)s->count + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (s->exact) {
		qsort(s->exact, s->count, sizeof *s->exact, cmp_u64);
		return s->exact[rank - 1];
	}
	if (!s->hist)
		return s->max;
	for (unsigned int b = 0; b < HT_STATS_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= rank) {
			v = bucket_value(b);
			return v < s->min ? s->min : v > s->max ? s->max : v;
		}
	}
	return s->max;
}

double ht_stats_mean(const struct ht_stats *s)
{
	return s->count ? s->total / (double)s->count : 0;
}

void ht_stats_release(struct ht_stats *s)
{
	free(s->exact);
	free(s->hist);
	memset(s, 0, sizeof *s);
}

int ht_stats_merge(struct ht_stats *d, const struct ht_stats *s)
{
	if (!s->count)
		return 0;
	if (!d->hist && !s->hist && d->count + s->count <= HT_STATS_EXACT) {
		if (!d->exact && !(d->exact = malloc(HT_STATS_EXACT * sizeof *d->exact)))
			return -ENOMEM;
		memcpy(d->exact + d->count, s->exact, s->count * sizeof *s->exact);
	} else {
		if (!d->hist)
			to_histogram(d);
		if (!d->hist)
			return -ENOMEM;
		if (s->hist)
			for (unsigned int b = 0; b < HT_STATS_BUCKETS; b++)
				d->hist[b] += s->hist[b];
		else
			for (uint64_t i = 0; i < s->count; i++)
				d->hist[bucket(s->exact[i])]++;
	}
	if (!d->count || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->total += s->total;
	d->count += s->count;
	return 0;
}
