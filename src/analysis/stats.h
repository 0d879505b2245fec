/*
 * Duration (or any u64) statistics in bounded memory: count, total, min,
 * max and percentiles. Percentiles are exact up to HT_STATS_EXACT samples,
 * then come from a log-linear histogram with 32 sub-buckets per power of two
 * (relative error under 3.2 %).
 */
#ifndef HT_STATS_H
#define HT_STATS_H

#include <stdint.h>

#define HT_STATS_EXACT	 4096
#define HT_STATS_SUB	 32
#define HT_STATS_BUCKETS (64 * HT_STATS_SUB)

struct ht_stats {
	uint64_t count;
	double total;
	uint64_t min, max;
	uint64_t *exact; /* the first HT_STATS_EXACT samples, NULL once histogrammed */
	uint32_t *hist;	 /* HT_STATS_BUCKETS counts, after that */
};

void ht_stats_add(struct ht_stats *s, uint64_t v);
/* Return: the q-quantile (0..1) of the samples, 0 when there are none. */
uint64_t ht_stats_quantile(struct ht_stats *s, double q);
double ht_stats_mean(const struct ht_stats *s);
void ht_stats_release(struct ht_stats *s);
/*
 * Adds src's samples to dst: the same statistics as adding them one by one
 * (exact while both fit HT_STATS_EXACT together, else the histogram's).
 * Return: 0, or -ENOMEM (dst unchanged).
 */
int ht_stats_merge(struct ht_stats *dst, const struct ht_stats *src);

#endif
