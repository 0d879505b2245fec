/*
 * Two reports compared row by row (see diff.h). Rows are matched by table
 * and name through one map; the report's per-configuration kernel rows are
 * summed per kernel name first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "common/grow.h"
#include "common/map.h"

const char *const ht_diff_table_names[HT_DIFF_TABLES] = {"kernel", "transfer", "api", "region"};

/* Adds a report row's count and total to the diff row of (table, name) on one side. */
static int add(struct ht_diff *d, struct ht_map *index, enum ht_diff_table table,
	       const struct ht_row *r, int cur)
{
	char key[4096];
	int created;
	uint64_t *v;
	struct ht_diff_side *s;

	snprintf(key, sizeof key, "%d\x1f%s", (int)table, r->name ? r->name : "");
	v = ht_map_str(index, key, d->n, &created);
	if (!v)
		return -ENOMEM;
	if (created) {
		if (ht_grow((void **)&d->rows, &d->cap, sizeof *d->rows, d->n + 1))
			return -ENOMEM;
		d->rows[d->n].table = (uint8_t)table;
		d->rows[d->n].name = strdup(r->name ? r->name : "");
		if (!d->rows[d->n++].name)
			return -ENOMEM;
	}
	s = cur ? &d->rows[*v].cur : &d->rows[*v].base;
	s->count += r->st.count;
	s->total += r->st.total;
	if (!cur)
		d->base_total[table] += r->st.total;
	return 0;
}

static int add_report(struct ht_diff *d, struct ht_map *index, const struct ht_report *r, int cur)
{
	const struct ht_table *tables[HT_DIFF_TABLES] = {&r->kernels, &r->transfers, &r->api,
							 &r->regions};
	int rc = 0;

	for (int t = 0; t < HT_DIFF_TABLES && !rc; t++)
		for (size_t i = 0; i < tables[t]->n && !rc; i++)
			rc = add(d, index, (enum ht_diff_table)t, &tables[t]->rows[i], cur);
	return rc;
}

static int by_change(const void *a, const void *b)
{
	const struct ht_diff_row *x = a, *y = b;

	if (fabs(x->delta) != fabs(y->delta))
		return fabs(x->delta) < fabs(y->delta) ? 1 : -1;
	if (x->table != y->table)
		return x->table - y->table;
	return strcmp(x->name, y->name);
}

int ht_diff_compute(const struct ht_report *base, const struct ht_report *cur, double threshold_pct,
		    struct ht_diff *d)
{
	struct ht_map index = {0};
	int rc;

	memset(d, 0, sizeof *d);
	d->threshold = threshold_pct;
	rc = add_report(d, &index, base, 0);
	if (!rc)
		rc = add_report(d, &index, cur, 1);
	ht_map_release(&index);
	if (rc) {
		ht_diff_release(d);
		return rc;
	}
	for (size_t i = 0; i < d->n; i++) {
		struct ht_diff_row *w = &d->rows[i];
		double limit;

		w->base.mean = w->base.count ? w->base.total / (double)w->base.count : 0;
		w->cur.mean = w->cur.count ? w->cur.total / (double)w->cur.count : 0;
		w->delta = w->cur.total - w->base.total;
		w->ratio = w->base.total > 0 ? w->cur.total / w->base.total : NAN;
		if (threshold_pct < 0)
			continue;
		limit = w->base.count ? w->base.total * (1 + threshold_pct / 100)
				      : d->base_total[w->table] * threshold_pct / 100;
		w->regressed = w->cur.total > limit;
		d->regressions += (size_t)w->regressed;
	}
	if (d->n)
		qsort(d->rows, d->n, sizeof *d->rows, by_change);
	return 0;
}

void ht_diff_release(struct ht_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->rows[i].name);
	free(d->rows);
	memset(d, 0, sizeof *d);
}
