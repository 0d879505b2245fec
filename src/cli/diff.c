/*
 * hetrace report --diff BASE NEW [--threshold PCT] [--format text|csv|json]:
 * what changed between two runs (analysis/diff.h), for people and for CI.
 * Exit status 1 when --threshold is given and a total regressed beyond it
 * (or on an error, which prints its one line on stderr), else 0.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/escape.h"
#include "cli/cli.h"

/* Opens a trace and computes its report. Return: 0, or 1 after printing the error. */
static int load(const char *dir, struct ht_trace **t, struct ht_report *r)
{
	struct ht_read_error err = {0};
	int rc = ht_trace_open(t, dir, &err);

	if (rc)
		return ht_error("cannot open trace '%s': %s%s%s", dir,
				strcmp(err.file, dir) ? err.file : "",
				strcmp(err.file, dir) ? ": " : "", err.msg);
	rc = ht_report_compute(*t, r, &err);
	if (rc) {
		ht_read_error_print(dir, &err);
		ht_trace_close(*t);
		*t = NULL;
		return 1;
	}
	return 0;
}

static void text_ratio(char *b, size_t cap, const struct ht_diff_row *w)
{
	if (!isnan(w->ratio))
		snprintf(b, cap, "%.3f", w->ratio);
	else
		snprintf(b, cap, "%s", w->cur.count ? "new" : "-");
}

static void text_diff(const char *base, const char *cur, const struct ht_diff *d,
		      const struct ht_report *rb, const struct ht_report *rn)
{
	char a[32], b[32], c[32], e[32], f[32], g[32], name[160];

	printf("hetrace report --diff\n  base  %s\n", ht_term_sstr(name, sizeof name, base));
	printf("  new   %s\n", ht_term_sstr(name, sizeof name, cur));
	ht_fmt_duration(a, sizeof a, (double)(rb->last_ns - rb->first_ns));
	ht_fmt_duration(b, sizeof b, (double)(rn->last_ns - rn->first_ns));
	ht_fmt_duration(c, sizeof c, (double)rb->cp.length);
	ht_fmt_duration(e, sizeof e, (double)rn->cp.length);
	printf("span %s -> %s, critical path %s -> %s\n\n", a, b, c, e);
	printf("  %-8s %-32s %9s %9s %11s %11s %11s %11s %12s %7s\n", "table", "name", "count",
	       "(new)", "total", "(new)", "mean", "(new)", "delta", "ratio");
	for (size_t i = 0; i < d->n; i++) {
		const struct ht_diff_row *w = &d->rows[i];

		ht_fmt_duration(a, sizeof a, w->base.total);
		ht_fmt_duration(b, sizeof b, w->cur.total);
		ht_fmt_duration(c, sizeof c, w->base.mean);
		ht_fmt_duration(e, sizeof e, w->cur.mean);
		ht_fmt_duration(f + 1, sizeof f - 1, fabs(w->delta));
		f[0] = w->delta < 0 ? '-' : '+';
		text_ratio(g, sizeof g, w);
		printf("  %-8s %-32.32s %9llu %9llu %11s %11s %11s %11s %12s %7s%s\n",
		       ht_diff_table_names[w->table], ht_term_sstr(name, sizeof name, w->name),
		       (unsigned long long)w->base.count, (unsigned long long)w->cur.count, a, b, c,
		       e, f, g, w->regressed ? "  REGRESSED" : "");
	}
	if (d->threshold < 0)
		return;
	if (!d->regressions)
		printf("\nno total regressed beyond %g%%\n", d->threshold);
	else
		printf("\n%zu row%s regressed beyond %g%% (new rows: beyond %g%% of their "
		       "table's base total)\n",
		       d->regressions, d->regressions == 1 ? "" : "s", d->threshold, d->threshold);
}

static void csv_diff(const struct ht_diff *d)
{
	printf("table,name,base_count,new_count,base_total_ns,new_total_ns,base_mean_ns,"
	       "new_mean_ns,delta_ns,ratio,regressed\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct ht_diff_row *w = &d->rows[i];

		printf("%s,", ht_diff_table_names[w->table]);
		ht_csv_str(stdout, w->name);
		printf(",%llu,%llu,%.0f,%.0f,%.1f,%.1f,%.0f,", (unsigned long long)w->base.count,
		       (unsigned long long)w->cur.count, w->base.total, w->cur.total, w->base.mean,
		       w->cur.mean, w->delta);
		if (!isnan(w->ratio))
			printf("%.4f", w->ratio);
		printf(",%d\n", w->regressed);
	}
}

static void json_side(const char *key, const struct ht_diff_side *s)
{
	printf(",\"%s\":{\"count\":%llu,\"total_ns\":%.0f,\"mean_ns\":%.1f}", key,
	       (unsigned long long)s->count, s->total, s->mean);
}

static void json_diff(const char *base, const char *cur, const struct ht_diff *d,
		      const struct ht_report *rb, const struct ht_report *rn)
{
	printf("{\"base\":");
	ht_json_str(stdout, base);
	printf(",\"new\":");
	ht_json_str(stdout, cur);
	printf(",\"threshold_pct\":");
	if (d->threshold < 0)
		printf("null");
	else
		printf("%g", d->threshold);
	printf(",\"regressions\":%zu,\"base_span_ns\":%llu,\"new_span_ns\":%llu,"
	       "\"base_critical_path_ns\":%llu,\"new_critical_path_ns\":%llu,\"rows\":[",
	       d->regressions, (unsigned long long)(rb->last_ns - rb->first_ns),
	       (unsigned long long)(rn->last_ns - rn->first_ns), (unsigned long long)rb->cp.length,
	       (unsigned long long)rn->cp.length);
	for (size_t i = 0; i < d->n; i++) {
		const struct ht_diff_row *w = &d->rows[i];

		printf("%s{\"table\":\"%s\",\"name\":", i ? "," : "",
		       ht_diff_table_names[w->table]);
		ht_json_str(stdout, w->name);
		json_side("base", &w->base);
		json_side("new", &w->cur);
		printf(",\"delta_ns\":%.0f,\"ratio\":", w->delta);
		if (isnan(w->ratio))
			printf("null");
		else
			printf("%.6f", w->ratio);
		printf(",\"regressed\":%s}", w->regressed ? "true" : "false");
	}
	printf("]}\n");
}

int ht_report_diff(const char *base, const char *cur, enum ht_format format, double threshold)
{
	struct ht_trace *tb = NULL, *tn = NULL;
	struct ht_report rb = {0}, rn = {0};
	struct ht_diff d = {0};
	int rc = load(base, &tb, &rb);

	if (!rc)
		rc = load(cur, &tn, &rn);
	if (!rc && ht_diff_compute(&rb, &rn, threshold, &d))
		rc = ht_error("out of memory comparing '%s' and '%s'", base, cur);
	if (!rc) {
		if (format == HT_FORMAT_TEXT)
			text_diff(base, cur, &d, &rb, &rn);
		else if (format == HT_FORMAT_CSV)
			csv_diff(&d);
		else
			json_diff(base, cur, &d, &rb, &rn);
		if (fflush(stdout) || ferror(stdout))
			rc = ht_error("cannot write the report: %s", strerror(errno));
		else
			rc = d.regressions ? 1 : 0;
	}
	ht_diff_release(&d);
	ht_report_release(&rb);
	ht_report_release(&rn);
	if (tb)
		ht_trace_close(tb);
	if (tn)
		ht_trace_close(tn);
	return rc;
}
