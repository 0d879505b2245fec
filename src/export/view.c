/*
 * hetrace view: one self-contained HTML file, the page of view_page.html
 * (compiled in as view_page.h) with the trace embedded as JSON in a
 * <script type="application/json"> block. The data is the view model
 * (view_model.h: tracks with every slice up to a budget, time buckets
 * beyond it) and the report's key numbers for the summary panel. Every
 * string from the trace goes through one table written with ht_json_str,
 * which also escapes '<', '>' and '&', so no trace string can close the
 * script block; the page puts them into the DOM as text only.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/escape.h"
#include "analysis/report.h"
#include "analysis/cpustate.h"
#include "export/export.h"
#include "export/export_tracks.h"
#include "export/view_model.h"
#include "export/view_page.h"
#include "export/view_stacks.h"
#include "format/format.h"
#include "memtrace/analysis.h"
#include "pcsamp/kernel_lines.h"

#define TOP_ROWS  25
#define TOP_BLAME 12
#define HT_VIEW_CP_STEPS 100000 /* critical-path steps in the page (about 40 bytes each) */

struct out {
	FILE *f;
	struct ht_view_model *m;
	int nomem;
};

static void num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

/* A string id for the page's string table (every trace string is written only there). */
static uint32_t sid(struct out *o, const char *s)
{
	int64_t id = ht_view_model_intern(o->m, s);

	if (id < 0) {
		o->nomem = 1;
		return 0;
	}
	return (uint32_t)id;
}

static uint32_t sid_cb(void *o, const char *s)
{
	return sid(o, s);
}

/* The string id of work sizes "1024x1x1"; 0 when none were given. */
static uint32_t dims_sid(struct out *o, const uint64_t v[3])
{
	char b[72];

	if (!v[0] && !v[1] && !v[2])
		return 0;
	snprintf(b, sizeof b, "%" PRIu64 "x%" PRIu64 "x%" PRIu64, v[0], v[1], v[2]);
	return sid(o, b);
}

static void write_slices(struct out *o, const struct ht_view_track *t)
{
	FILE *f = o->f;
	uint64_t prev = o->m->t0;
	int device = t->kind != HT_VIEW_THREAD;

	fputs(",\"s\":[", f);
	for (uint64_t i = 0; i < t->n; i++) {
		const struct ht_view_slice *s = &t->s[i];
		uint64_t ts = s->ts < o->m->t0 ? o->m->t0 : s->ts;

		/* starts are sorted: deltas keep the numbers short */
		fprintf(f, "%s%" PRIu64 ",%" PRIu64 ",%u,%u,%u,%u,%" PRIu64, i ? "," : "",
			ts - prev, s->dur, s->name, s->depth, s->cat, s->args ? sid(o, s->args) : 0,
			s->corr);
		if (device)
			fprintf(f, ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%d", s->bytes,
				s->host_wait, s->dev_wait, s->status);
		prev = ts;
	}
	fputc(']', f);
}

static void write_buckets(struct out *o, const struct ht_view_track *t)
{
	FILE *f = o->f;

	fprintf(f, ",\"agg\":{\"nb\":%u,\"bw\":%" PRIu64 ",\"b\":[", t->nb, t->bw);
	for (int d = 0; d < HT_VIEW_BUCKET_DEPTHS; d++) {
		uint64_t prev = 0;
		int first = 1;

		fprintf(f, "%s[", d ? "," : "");
		for (uint32_t k = 0; t->b[d] && k < t->nb; k++) {
			const struct ht_view_bucket *b = &t->b[d][k];

			if (!b->busy && !b->count)
				continue;
			fprintf(f, "%s%" PRIu64 ",%" PRIu64 ",%u,%u", first ? "" : ",", k - prev,
				b->busy, b->count, b->dom);
			prev = k;
			first = 0;
		}
		fputc(']', f);
	}
	fputs("]}", f);
}

static void write_counter(struct out *o, const struct ht_view_track *t)
{
	FILE *f = o->f;
	double prev = 0;

	fputs(",\"min\":", f);
	num(f, t->vmin);
	fputs(",\"max\":", f);
	num(f, t->vmax);
	if (!t->agg) {
		fputs(",\"v\":[", f);
		for (uint64_t i = 0; i + 1 < t->ncv; i += 2) {
			fprintf(f, "%s%.0f,", i ? "," : "", t->cv[i] - prev);
			num(f, t->cv[i + 1]);
			prev = t->cv[i];
		}
		fputc(']', f);
		return;
	}
	fprintf(f, ",\"agg\":{\"nb\":%u,\"bw\":%" PRIu64 ",\"b\":[", t->nb, t->bw);
	for (uint32_t k = 0, last = 0, first = 1; k < t->nb; k++) {
		const struct ht_view_cbucket *b = &t->cb[k];

		if (!b->n)
			continue;
		fprintf(f, "%s%u,", first ? "" : ",", k - last);
		num(f, b->min);
		fputc(',', f);
		num(f, b->max);
		fputc(',', f);
		num(f, b->last);
		last = k;
		first = 0;
	}
	fputs("]}", f);
}

static const char *device_name(const struct ht_report *r, int32_t pid, uint32_t device)
{
	for (unsigned int i = 0; i < r->ndevices; i++)
		if (r->devices[i].pid == pid && r->devices[i].device == device)
			return r->devices[i].name;
	return "";
}

static void write_track(struct out *o, const struct ht_view_track *t, const struct ht_report *r)
{
	static const char *const kinds[] = {"thread", "counter", "cpu", "kernels", "transfers"};
	FILE *f = o->f;

	fprintf(f, "{\"k\":\"%s\",\"total\":%" PRIu64 ",\"depth\":%u", kinds[t->kind], t->total,
		t->maxdepth ? t->maxdepth : 1);
	if (t->kind == HT_VIEW_THREAD || t->kind == HT_VIEW_COUNTER || t->kind == HT_VIEW_CPU)
		fprintf(f, ",\"tid\":%d,\"name\":%u", t->tid, t->name);
	else
		fprintf(f, ",\"dev\":%u,\"queue\":\"0x%" PRIx64 "\",\"devname\":%u", t->device,
			t->queue, sid(o, device_name(r, t->pid, t->device)));
	if (t->kind == HT_VIEW_COUNTER) {
		write_counter(o, t);
	} else {
		write_slices(o, t);
		if (t->agg)
			write_buckets(o, t);
	}
	fputc('}', f);
}

/* Tracks by process, then threads (each followed by its counters), then queues. */
static int cmp_track(const void *a, const void *b)
{
	const struct ht_view_track *x = a, *y = b;
	int gx = x->kind >= HT_VIEW_KERNELS, gy = y->kind >= HT_VIEW_KERNELS;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (gx != gy)
		return gx - gy;
	if (!gx) {
		if (x->tid != y->tid)
			return x->tid < y->tid ? -1 : 1;
		if (x->kind != y->kind)
			return (int)x->kind - (int)y->kind; /* slices, counters, CPU state */
		return (x->name > y->name) - (x->name < y->name);
	}
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return (int)x->kind - (int)y->kind;
}

/* A process's rows: its tracks from `start` on (sorted by pid), and where it goes. */
struct proc_rows {
	uint32_t start;
	const struct ht_view_proc *p;
};

/* Processes that are not MPI ranks first (a launcher), by pid; then the ranks, by rank. */
static int cmp_proc_rows(const void *a, const void *b)
{
	const struct proc_rows *x = a, *y = b;
	int rx = x->p && x->p->is_rank, ry = y->p && y->p->is_rank;

	if (rx != ry)
		return rx - ry;
	if (rx && x->p->rank != y->p->rank)
		return x->p->rank < y->p->rank ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static void write_procs(struct out *o, const struct ht_report *r)
{
	struct ht_view_model *m = o->m;
	FILE *f = o->f;
	struct proc_rows *rows = calloc(m->ntracks ? m->ntracks : 1, sizeof *rows);
	uint32_t nrows = 0;

	if (!rows) {
		o->nomem = 1;
		return;
	}
	qsort(m->tracks, m->ntracks, sizeof *m->tracks, cmp_track);
	for (uint32_t i = 0; i < m->ntracks; i++) {
		if (i && m->tracks[i].pid == m->tracks[i - 1].pid)
			continue;
		rows[nrows].start = i;
		for (unsigned int k = 0; k < m->nprocs; k++)
			if (m->procs[k].pid == m->tracks[i].pid)
				rows[nrows].p = &m->procs[k];
		nrows++;
	}
	qsort(rows, nrows, sizeof *rows, cmp_proc_rows);
	fputs(",\"procs\":[", f);
	for (uint32_t g = 0; g < nrows; g++) {
		uint32_t i = rows[g].start;
		int32_t pid = m->tracks[i].pid;
		const struct ht_view_proc *p = rows[g].p;

		fprintf(f, "%s{\"pid\":%d,\"ppid\":%d,\"name\":%u,\"cmd\":%u,", g ? "," : "", pid,
			p ? p->ppid : 0, p ? p->name : 0, p ? p->cmd : 0);
		if (p && p->is_rank)
			fprintf(f, "\"rank\":%d,\"host\":%u,", p->rank, p->host);
		fputs("\"tracks\":[", f);
		for (uint32_t k = i; k < m->ntracks && m->tracks[k].pid == pid; k++) {
			if (k > i)
				fputc(',', f);
			write_track(o, &m->tracks[k], r);
		}
		fputs("]}", f);
	}
	fputc(']', f);
	free(rows);
}

enum table_kind { CALLS, KERNELS, TRANSFERS };

/*
 * [name, count, total, mean, min, max, p50, p99, errors, bytes] per row,
 * largest first; kernels add their launch configuration ("1024x1x1" string
 * ids, 0: none given), transfers their GB/s (null: the bytes were not moved).
 */
static void write_table(struct out *o, const char *key, struct ht_table *t, enum table_kind what)
{
	FILE *f = o->f;

	ht_table_sort(t);
	fprintf(f, ",\"%s\":[", key);
	for (unsigned int i = 0; i < t->n && i < TOP_ROWS; i++) {
		struct ht_row *row = &t->rows[i];

		fprintf(f, "%s[%u,%" PRIu64 ",", i ? "," : "", sid(o, row->name), row->st.count);
		num(f, row->st.total);
		fputc(',', f);
		num(f, ht_stats_mean(&row->st));
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			row->st.count ? row->st.min : 0, row->st.max,
			ht_stats_quantile(&row->st, 0.5), ht_stats_quantile(&row->st, 0.99),
			row->errors, row->bytes);
		if (what == KERNELS)
			fprintf(f, ",%u,%u", dims_sid(o, row->global), dims_sid(o, row->local));
		if (what == TRANSFERS) {
			fputc(',', f);
			num(f, row->rate.count && row->st.total > 0
				   ? (double)row->bytes / row->st.total
				   : NAN);
		}
		fputc(']', f);
	}
	fprintf(f, "],\"%s_rows\":%zu", key, t->n);
}

static void write_report(struct out *o, struct ht_report *r)
{
	static const char *const quality[] = {"none", "one-sided", "ok", "inconsistent"};
	FILE *f = o->f;

	fprintf(f,
		",\"report\":{\"first\":%" PRIu64 ",\"last\":%" PRIu64 ",\"events\":%" PRIu64
		",\"processes\":%u,\"images\":%u,\"threads\":%u,\"lost\":%" PRIu64
		",\"lost_device_ts\":%" PRIu64 ",\"thread_time\":",
		r->first_ns, r->last_ns, r->events, r->processes, r->images, r->threads, r->lost,
		r->lost_device_ts);
	num(f, r->thread_time);
	write_table(o, "api", &r->api, CALLS);
	write_table(o, "regions", &r->regions, CALLS);
	write_table(o, "kernels", &r->kernels, KERNELS);
	write_table(o, "transfers", &r->transfers, TRANSFERS);
	fputs(",\"devices\":[", f);
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];
		unsigned int nb = 0;

		fprintf(f,
			"%s{\"pid\":%d,\"device\":%u,\"name\":%u,\"commands\":%" PRIu64
			",\"busy\":%" PRIu64 ",\"idle\":%" PRIu64 ",\"compute\":%" PRIu64
			",\"transfer\":%" PRIu64 ",\"overlap\":%" PRIu64 ",\"blamed\":%" PRIu64
			",\"window\":%" PRIu64 ",\"sync\":{\"quality\":\"%s\",\"samples\":%" PRIu64
			",\"offset\":",
			i ? "," : "", d->pid, d->device, sid(o, d->name), d->commands, d->busy,
			d->idle, d->compute_busy, d->transfer_busy, d->overlap, d->idle_blamed,
			d->window_end > d->window_begin ? d->window_end - d->window_begin : 0,
			quality[d->map.quality & 3], d->map.samples);
		num(f, ht_clock_map_offset_ns(&d->map));
		fputs(",\"drift_ppm\":", f);
		num(f, ht_clock_map_drift_ppm(&d->map));
		if (d->map.quality == HT_SYNC_OK) {
			fputs(",\"drift_range\":[", f);
			num(f, (d->map.slope_min - 1) * 1e6);
			fputc(',', f);
			num(f, (d->map.slope_max - 1) * 1e6);
			fputc(']', f);
		}
		fputs(",\"bound\":", f);
		num(f, d->map.quality == HT_SYNC_NONE ? NAN : d->map.bound_ns);
		fprintf(f, ",\"checked\":%" PRIu64 ",\"outside\":%" PRIu64 "},\"blame\":[",
			d->window_checked, d->window_outside);
		for (unsigned int k = 0; k < d->blame.n && nb < TOP_BLAME; k++) {
			if (d->blame.rows[k].value <= 0)
				continue;
			fprintf(f, "%s[%u,", nb++ ? "," : "", sid(o, d->blame.rows[k].name));
			num(f, d->blame.rows[k].value);
			fputc(']', f);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

/*
 * The critical path (analysis/critpath.h) for the page to highlight: its
 * items by time on it, and its steps (at most HT_VIEW_CP_STEPS, from the
 * beginning) as [pid, tid (0: a queue), device, queue, start - t0 (may be
 * negative), duration, kind, name].
 */
static void write_critical_path(struct out *o, const struct ht_critpath *cp)
{
	FILE *f = o->f;

	fprintf(f, ",\"critical_path\":{\"length\":%" PRIu64 ",\"steps_total\":%zu,\"kinds\":[",
		cp->length, cp->nseg);
	for (int k = 0; k < HT_CP_KIND_COUNT; k++)
		fprintf(f, "%s\"%s\"", k ? "," : "", ht_cp_kind_names[k]);
	fputs("],\"items\":[", f);
	for (size_t i = 0, n = 0; i < cp->nrows && n < TOP_ROWS; i++) {
		const struct ht_cp_row *w = &cp->rows[i];

		if (!w->ns)
			break;
		fprintf(f, "%s[%u,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", n++ ? "," : "", w->kind,
			sid(o, cp->names[w->name]), w->ns, w->total_ns, w->count);
	}
	fputs("],\"steps\":[", f);
	for (size_t i = 0; i < cp->nseg && i < HT_VIEW_CP_STEPS; i++) {
		const struct ht_cp_segment *g = &cp->seg[i];

		/* a step may begin before the first slice (t0): signed */
		fprintf(f, "%s[%d,%d,%u,\"0x%" PRIx64 "\",%" PRId64 ",%" PRIu64 ",%u,%u]", i ? "," : "",
			g->pid, g->tid, g->device, g->queue, (int64_t)(g->start - o->m->t0),
			g->end - g->start, g->kind, sid(o, cp->names[g->name]));
	}
	fputs("]}", f);
}

static int write_data(struct out *o, struct ht_report *r, struct ht_trace *t,
		      struct ht_read_error *err)
{
	struct ht_view_model *m = o->m;
	FILE *f = o->f;
	int rc;

	fprintf(f,
		"{\"version\":1,\"t0\":%" PRIu64 ",\"span\":%" PRIu64 ",\"aggregated\":%d"
		",\"slices\":%" PRIu64 ",\"kept_slices\":%" PRIu64 ",\"samples\":%" PRIu64
		",\"kept_samples\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"reorder_overflows\":%" PRIu64
		",\"kinds\":[",
		m->t0, m->t1 - m->t0, m->aggregated, m->slices, m->kept_slices, m->samples,
		m->kept_samples, m->lost, m->reorder_overflows);
	for (int k = 0; k < HT_CMD_KIND_COUNT; k++)
		fprintf(f, "%s\"%s\"", k ? "," : "", ht_cmd_kind_names[k]);
	for (int k = 0; k < HT_CPU_STATE_COUNT; k++)
		fprintf(f, ",\"%s\"", ht_cpu_state_names[k]);
	/* the command kinds whose bytes are moved: the others get no GB/s */
	fputs("],\"moving\":[", f);
	for (int k = 0, first = 1; k < HT_CMD_KIND_COUNT; k++)
		if (ht_cmd_kind_moves_bytes((enum ht_cmd_kind)k)) {
			fprintf(f, "%s%d", first ? "" : ",", k);
			first = 0;
		}
	fputc(']', f);
	write_procs(o, r);
	write_report(o, r);
	write_critical_path(o, &r->cp);
	rc = ht_mem_view_json(f, t, sid_cb, o, err); /* memory accesses: heat maps */
	if (rc < 0)
		return rc;
	rc = ht_kernel_lines_view_json(f, t, sid_cb, o, err); /* PC samples: kernel source lines */
	if (rc < 0)
		return rc;
	rc = ht_view_stacks_write(t, f, m->t0, err); /* flame graphs, call stacks */
	if (rc < 0)
		return rc;
	/* last: the tracks, the report and the heat maps above add to it */
	fputs(",\"strings\":[", f);
	for (uint32_t i = 0; i < m->nstr; i++) {
		if (i)
			fputc(',', f);
		ht_json_str(f, m->str[i]);
	}
	fputs("]}", f);
	return 0;
}

int ht_view_html(struct ht_trace *t, FILE *f, struct ht_read_error *err)
{
	struct ht_report r;
	struct ht_view_model m;
	struct out o = {.f = f, .m = &m};
	int rc;

	rc = ht_report_compute(t, &r, err);
	if (rc < 0) {
		ht_report_release(&r);
		return rc;
	}
	rc = ht_view_model_build(&m, t, err);
	if (rc < 0)
		goto out;
	for (const char *const *l = ht_view_page_head; *l; l++)
		fputs(*l, f);
	fputs("<script type=\"application/json\" id=\"ht-data\">", f);
	rc = write_data(&o, &r, t, err);
	if (rc < 0)
		goto out;
	fputs("</script>\n", f);
	for (const char *const *l = ht_view_page_tail; *l; l++)
		fputs(*l, f);
	ht_export_warn_dropped(m.dropped);
	if (o.nomem) {
		rc = -ENOMEM;
		snprintf(err->msg, sizeof err->msg, "out of memory writing the view");
	}
out:
	ht_view_model_release(&m);
	ht_report_release(&r);
	return rc;
}
