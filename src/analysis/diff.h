/*
 * Two runs compared, for `hetrace report --diff BASE NEW` and CI: per
 * kernel (by name, all launch configurations together), transfer kind, API
 * function and annotated region, the count, total and mean time in each,
 * the change of the total and its ratio, sorted by the size of the change.
 * With a threshold, a row regressed when its total grew by more than that
 * percentage; a row new in NEW (nothing to take a percentage of) regressed
 * when its total is more than that percentage of its whole table's total
 * in BASE (a new kernel taking 1% of BASE's kernel time is no regression at
 * a 5% threshold, one taking 20% is).
 */
#ifndef HT_DIFF_H
#define HT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report.h"

enum ht_diff_table {
	HT_DIFF_KERNEL,
	HT_DIFF_TRANSFER,
	HT_DIFF_API,
	HT_DIFF_REGION,
	HT_DIFF_TABLES
};
extern const char *const ht_diff_table_names[HT_DIFF_TABLES]; /* "kernel", "transfer", ... */

struct ht_diff_side {
	uint64_t count;
	double total, mean; /* ns */
};

struct ht_diff_row {
	char *name;
	uint8_t table; /* enum ht_diff_table */
	struct ht_diff_side base, cur;
	double delta; /* cur.total - base.total, ns */
	double ratio; /* cur.total / base.total; NAN when base.total is 0 */
	int regressed;
};

struct ht_diff {
	struct ht_diff_row *rows; /* by |delta|, largest first, then table and name */
	size_t n, cap;
	double threshold;		   /* percent; < 0: none */
	double base_total[HT_DIFF_TABLES]; /* each table's total in BASE, ns */
	size_t regressions;
};

/*
 * Compares report cur against base; threshold_pct < 0: nothing regresses.
 * Return: 0, or -ENOMEM (d empty).
 */
int ht_diff_compute(const struct ht_report *base, const struct ht_report *cur, double threshold_pct,
		    struct ht_diff *d);
void ht_diff_release(struct ht_diff *d);

#endif
