/*
 * hetrace report DIR [--format text|csv|json]: where the time went (API
 * calls, regions, kernels, transfers, queue waits, device utilisation), why
 * the devices sat idle (GPU-idleness blame) and what the OS did to the
 * threads (CPU states, also inside blocking device calls), with losses and
 * clock-sync quality first. The numbers come from analysis/report.c; this file only
 * lays them out.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callpaths.h"
#include "analysis/escape.h"
#include "analysis/report.h"
#include "cli/cli.h"
#include "memtrace/cli.h"
#include "cli/report_callpaths.h"
#include "pcsamp/cli.h"
#include "cli/report_mpi.h"

enum fmt { TEXT, CSV, JSON };

/* Device memory accesses (src/memtrace): their section of the report, in each format. */
static void memory_access(enum fmt fmt, const struct ht_mem_report *m)
{
	if (fmt == TEXT)
		ht_mem_report_text(stdout, m);
	else if (fmt == CSV)
		ht_mem_report_csv(stdout, m);
	else
		ht_mem_report_json(stdout, m);
}

/* A trace's string as a terminal may show it (control characters escaped). */
#define T(s) ht_term_tmp(s)

/* Work sizes "1024x1x1", or `none` when the launch gave none (local: the runtime chose). */
static const char *dims(char *b, size_t cap, const uint64_t v[3], const char *none)
{
	if (!v[0] && !v[1] && !v[2])
		snprintf(b, cap, "%s", none);
	else
		snprintf(b, cap, "%llux%llux%llu", (unsigned long long)v[0],
			 (unsigned long long)v[1], (unsigned long long)v[2]);
	return b;
}

/* A transfer row's throughput in GB/s (bytes per ns), or NaN when its bytes are not moved. */
static double gbps(const struct ht_row *t)
{
	return t->rate.count && t->st.total > 0 ? (double)t->bytes / t->st.total : NAN;
}

static const char *quality_name(enum ht_sync_quality q)
{
	static const char *const names[] = {"none", "one-sided", "ok", "inconsistent"};

	return names[q];
}

static void dur(char *b, size_t cap, double ns)
{
	ht_fmt_duration(b, cap, ns);
}

/* ---- text ---- */

static void text_stats_header(const char *first, int width)
{
	printf("  %-*s %8s %11s %11s %11s %11s %11s %11s", width, first, "count", "total", "mean",
	       "min", "max", "p50", "p99");
}

static void text_stats(const char *name, int width, struct ht_stats *st)
{
	char t[6][32];

	dur(t[0], 32, st->total);
	dur(t[1], 32, ht_stats_mean(st));
	dur(t[2], 32, (double)st->min);
	dur(t[3], 32, (double)st->max);
	dur(t[4], 32, (double)ht_stats_quantile(st, 0.5));
	dur(t[5], 32, (double)ht_stats_quantile(st, 0.99));
	printf("  %-*.*s %8llu %11s %11s %11s %11s %11s %11s", width, width, name,
	       (unsigned long long)st->count, t[0], t[1], t[2], t[3], t[4], t[5]);
}

static void text_calls(const char *title, struct ht_table *t, double thread_time)
{
	if (!t->n)
		return;
	printf("\n%s (by total time)\n", title);
	text_stats_header("name", 34);
	printf(" %8s %7s\n", "thread%", "errors");
	for (unsigned int i = 0; i < t->n; i++) {
		struct ht_row *r = &t->rows[i];

		text_stats(T(r->name), 34, &r->st);
		printf(" %7.2f%% %7llu\n", thread_time > 0 ? 100 * r->st.total / thread_time : 0,
		       (unsigned long long)r->errors);
	}
}

static void text_cpu(struct ht_report *r);
static void text_critical_path(const struct ht_report *r);
static void csv_critical_path(const struct ht_critpath *cp);
static void json_critical_path(const struct ht_critpath *cp);

static void text_report(const char *dir, struct ht_report *r)
{
	char a[32], b[32], c[32], drift[128];

	dur(a, sizeof a, (double)(r->last_ns - r->first_ns));
	printf("hetrace report: %s\n", T(dir));
	printf("span        %s (first to last event recorded), %u process%s", a, r->processes,
	       r->processes == 1 ? "" : "es");
	if (r->images > r->processes)
		printf(" (%u images: exec)", r->images);
	printf(", %u thread%s, %llu events\n", r->threads, r->threads == 1 ? "" : "s",
	       (unsigned long long)r->events);
	printf("lost        %llu events%s", (unsigned long long)r->lost,
	       r->lost ? " (tables undercount)" : "");
	if (r->lost_device_ts)
		printf(", %llu device commands without timestamps",
		       (unsigned long long)r->lost_device_ts);
	putchar('\n');
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];

		if (d->map.quality == HT_SYNC_NONE)
			continue;
		dur(a, sizeof a, fabs(ht_clock_map_offset_ns(&d->map)));
		ht_clock_map_drift_text(drift, sizeof drift, &d->map);
		printf("clock sync  pid %d device %u: offset %s%s, %s, ", d->pid, d->device,
		       ht_clock_map_offset_ns(&d->map) < 0 ? "-" : "+", a, drift);
		if (isnan(d->map.bound_ns))
			printf("bound unknown");
		else {
			dur(b, sizeof b, d->map.bound_ns);
			printf("bound +-%s", b);
		}
		printf(", %llu samples (%s)", (unsigned long long)d->map.samples,
		       quality_name(d->map.quality));
		if (d->window_checked)
			printf(", %llu/%llu samples outside their host window",
			       (unsigned long long)d->window_outside,
			       (unsigned long long)d->window_checked);
		putchar('\n');
	}
	text_calls("API calls", &r->api, r->thread_time);
	text_calls("Regions", &r->regions, r->thread_time);
	if (r->kernels.n) {
		printf("\nKernels (by total execution time; a row per launch configuration)\n");
		text_stats_header("kernel", 34);
		printf("  %-20s %-12s %6s\n", "global", "local", "failed");
		for (unsigned int i = 0; i < r->kernels.n; i++) {
			struct ht_row *k = &r->kernels.rows[i];
			char g[72], l[72];

			text_stats(T(k->name), 34, &k->st);
			printf("  %-20s %-12s %6llu\n", dims(g, sizeof g, k->global, "-"),
			       dims(l, sizeof l, k->local, "auto"), (unsigned long long)k->errors);
		}
	}
	if (r->transfers.n) {
		int unmoved = 0;

		printf("\nTransfers and other commands\n");
		printf("  %-10s %8s %14s %11s %10s %10s %10s %10s\n", "kind", "count", "bytes",
		       "total", "GB/s", "min GB/s", "p50 GB/s", "max GB/s");
		for (unsigned int i = 0; i < r->transfers.n; i++) {
			struct ht_row *t = &r->transfers.rows[i];

			dur(a, sizeof a, t->st.total);
			printf("  %-10s %8llu %14llu %11s", T(t->name),
			       (unsigned long long)t->st.count, (unsigned long long)t->bytes, a);
			if (isnan(gbps(t))) {
				printf(" %10s %10s %10s %10s\n", "-", "-", "-", "-");
				unmoved += t->bytes && !ht_cmd_kind_moves_bytes(t->kind);
				continue;
			}
			printf(" %10.3f %10.3f %10.3f %10.3f\n", gbps(t), t->rate.min / 1000.0,
			       ht_stats_quantile(&t->rate, 0.5) / 1000.0, t->rate.max / 1000.0);
		}
		if (unmoved)
			printf("  (map, unmap and migrate move no data: their bytes are those "
			       "mapped or "
			       "migrated, with no GB/s)\n");
	}
	if (r->nqueues) {
		printf("\nQueue waits (mean / p99)\n");
		printf("  %-8s %-18s %6s %8s %23s %23s %23s %7s\n", "pid", "queue", "device",
		       "commands", "host queue (SUBMIT-QUEUED)", "device queue (START-SUBMIT)",
		       "execution (END-START)", "failed");
		for (unsigned int i = 0; i < r->nqueues; i++) {
			struct ht_queue_report *q = &r->queues[i];
			struct ht_stats *s[3] = {&q->host_wait, &q->device_wait, &q->exec};
			char cell[3][72];

			for (int k = 0; k < 3; k++) {
				dur(a, sizeof a, ht_stats_mean(s[k]));
				dur(b, sizeof b, (double)ht_stats_quantile(s[k], 0.99));
				snprintf(cell[k], sizeof cell[k], "%s / %s", a, b);
			}
			printf("  %-8d 0x%-16llx %6u %8llu %23s %23s %23s %7llu\n", q->pid,
			       (unsigned long long)q->queue, q->device,
			       (unsigned long long)q->exec.count, cell[0], cell[1], cell[2],
			       (unsigned long long)q->failed);
		}
	}
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];
		double span = (double)(d->window_end - d->window_begin);
		uint64_t total_blame = d->idle_blamed;

		if (!d->commands)
			continue;
		dur(a, sizeof a, (double)d->busy);
		dur(b, sizeof b, (double)d->idle);
		dur(c, sizeof c, (double)d->overlap);
		printf("\nDevice: pid %d device %u (%s)\n", d->pid, d->device, T(d->name));
		printf("  busy %s (%.1f%% of the process's %.3f ms), idle %s, compute/transfer "
		       "overlap %s\n",
		       a, span > 0 ? 100.0 * (double)d->busy / span : 0, span / 1e6, b, c);
		dur(a, sizeof a, (double)d->compute_busy);
		dur(b, sizeof b, (double)d->transfer_busy);
		printf("  compute %s, transfers %s, %llu commands\n", a, b,
		       (unsigned long long)d->commands);
		if (!total_blame)
			continue;
		dur(a, sizeof a, (double)total_blame);
		printf("  GPU idleness blame: the device was idle for %s while a CPU thread was "
		       "active.\n  While it had no work, the program's threads were in:\n",
		       a);
		for (unsigned int k = 0; k < d->blame.n && k < 15; k++) {
			struct ht_row *row = &d->blame.rows[k];

			if (row->value <= 0)
				continue;
			dur(a, sizeof a, row->value);
			printf("    %6.2f%%  %11s  %s\n", 100 * row->value / (double)total_blame, a,
			       T(row->name));
		}
		printf("  Reading: each idle moment is shared among the threads that were "
		       "active then (not\n  preempted or blocked); a large share for a call or "
		       "region means the device\n  waited on it: overlap it with device work or "
		       "move it off the critical path.\n");
	}
	text_cpu(r);
	text_critical_path(r);
	ht_report_mpi_print(r, HT_REPORT_MPI_TEXT);
}

static void text_cpu(struct ht_report *r)
{
	char a[32], b[32], c[32], d[32];
	struct ht_cpu_states *cs = &r->cpu;
	unsigned int i;

	if (cs->note[0])
		printf("\nOS scheduling: %s\n", T(cs->note));
	for (i = 0; i < cs->n && !cs->threads[i].intervals; i++)
		;
	if (i == cs->n)
		return;
	printf("\nCPU states per thread (OS scheduling%s)\n",
	       cs->lost ? ", some records lost: the table undercounts" : "");
	printf("  %-8s %-8s %-16s %11s %11s %11s %10s %9s\n", "pid", "tid", "name", "running",
	       "preempted", "blocked", "preempt%", "intervals");
	for (i = 0; i < cs->n; i++) {
		struct ht_cpu_thread *th = &cs->threads[i];
		double all = (double)(th->time[0] + th->time[1] + th->time[2]);

		if (!th->intervals)
			continue;
		dur(a, sizeof a, (double)th->time[HT_CPU_RUNNING]);
		dur(b, sizeof b, (double)th->time[HT_CPU_PREEMPTED]);
		dur(c, sizeof c, (double)th->time[HT_CPU_BLOCKED]);
		printf("  %-8d %-8d %-16.16s %11s %11s %11s %9.2f%% %9llu\n", r->cpu_pid[th->proc],
		       th->tid, T(th->name), a, b, c,
		       all > 0 ? 100.0 * (double)th->time[HT_CPU_PREEMPTED] / all : 0,
		       (unsigned long long)th->intervals);
	}
	if (cs->lost)
		printf("  lost        %llu OS records (a ring filled up between drains)\n",
		       (unsigned long long)cs->lost);
	if (!r->nwaits)
		return;
	printf("\nBlocking device calls: CPU state of the waiting thread\n");
	printf("  %-28s %7s %11s %11s %11s %15s %15s %15s\n", "call", "count", "waiting",
	       "preempted", "blocked", "device done", "then preempted", "then blocked");
	for (i = 0; i < r->nwaits; i++) {
		struct ht_wait_row *w = &r->waits[i];
		char e[32], f[32];

		dur(a, sizeof a, (double)w->wait_ns);
		dur(b, sizeof b, (double)w->preempted);
		dur(c, sizeof c, (double)w->blocked);
		dur(d, sizeof d, (double)w->done_ns);
		dur(e, sizeof e, (double)w->done_preempted);
		dur(f, sizeof f, (double)w->done_blocked);
		printf("  %-28.28s %7llu %11s %11s %11s %15s %15s %15s\n", T(w->name),
		       (unsigned long long)w->calls, a, b, c, d, e, f);
	}
	for (i = 0; i < r->nwaits; i++) {
		struct ht_wait_row *w = &r->waits[i];

		if (!w->done_preempted)
			continue;
		dur(a, sizeof a, (double)w->done_ns);
		dur(b, sizeof b, (double)w->done_preempted);
		dur(c, sizeof c, (double)w->done_preempted_max);
		printf("  %s: the device was done %s before these calls returned; the thread was "
		       "preempted\n    (runnable, waiting for a CPU) for %s of it, at most %s in "
		       "one call.\n",
		       T(w->name), a, b, c);
	}
	printf("  Reading: \"device done\" is the time from the end of the device work to the "
	       "call's\n  return; preempted time in it means the thread was ready but another "
	       "task had its\n  CPU: raise its priority or keep other work off that CPU.\n");
}

/* ---- csv ---- */

/* A number, or an empty cell when it is unknown (NaN). */
static void csv_num(double v, const char *fmt)
{
	if (!isnan(v) && !isinf(v))
		printf(fmt, v);
}

static void csv_calls(const char *table, struct ht_table *t, double thread_time)
{
	for (unsigned int i = 0; i < t->n; i++) {
		struct ht_row *r = &t->rows[i];

		printf("%s,", table);
		ht_csv_str(stdout, r->name);
		printf(",%llu,%.0f,%.1f,%llu,%llu,%llu,%llu,%.4f,%llu\n",
		       (unsigned long long)r->st.count, r->st.total, ht_stats_mean(&r->st),
		       (unsigned long long)r->st.min, (unsigned long long)r->st.max,
		       (unsigned long long)ht_stats_quantile(&r->st, 0.5),
		       (unsigned long long)ht_stats_quantile(&r->st, 0.99),
		       thread_time > 0 ? r->st.total / thread_time : 0,
		       (unsigned long long)r->errors);
	}
}

static void csv_report(struct ht_report *r)
{
	char g[72], l[72];

	printf("table,name,count,total_ns,mean_ns,min_ns,max_ns,p50_ns,p99_ns,thread_share,"
	       "errors\n");
	csv_calls("api", &r->api, r->thread_time);
	csv_calls("region", &r->regions, r->thread_time);
	/* a row per kernel and launch configuration; local empty: the runtime chose */
	printf("table,name,global,local,count,total_ns,mean_ns,min_ns,max_ns,p50_ns,p99_ns,"
	       "errors\n");
	for (unsigned int i = 0; i < r->kernels.n; i++) {
		struct ht_row *k = &r->kernels.rows[i];

		printf("kernel,");
		ht_csv_str(stdout, k->name);
		printf(",%s,%s,%llu,%.0f,%.1f,%llu,%llu,%llu,%llu,%llu\n",
		       dims(g, sizeof g, k->global, ""), dims(l, sizeof l, k->local, ""),
		       (unsigned long long)k->st.count, k->st.total, ht_stats_mean(&k->st),
		       (unsigned long long)k->st.min, (unsigned long long)k->st.max,
		       (unsigned long long)ht_stats_quantile(&k->st, 0.5),
		       (unsigned long long)ht_stats_quantile(&k->st, 0.99),
		       (unsigned long long)k->errors);
	}
	/* commands that move no data (map, unmap, migrate): empty GB/s cells */
	printf("table,kind,count,bytes,total_ns,gbps_mean,gbps_min,gbps_p50,gbps_max\n");
	for (unsigned int i = 0; i < r->transfers.n; i++) {
		struct ht_row *t = &r->transfers.rows[i];
		int moved = !isnan(gbps(t));

		printf("transfer,");
		ht_csv_str(stdout, t->name);
		printf(",%llu,%llu,%.0f,", (unsigned long long)t->st.count,
		       (unsigned long long)t->bytes, t->st.total);
		csv_num(gbps(t), "%.4f");
		putchar(',');
		csv_num(moved ? t->rate.min / 1000.0 : NAN, "%.4f");
		putchar(',');
		csv_num(moved ? ht_stats_quantile(&t->rate, 0.5) / 1000.0 : NAN, "%.4f");
		putchar(',');
		csv_num(moved ? t->rate.max / 1000.0 : NAN, "%.4f");
		putchar('\n');
	}
	printf("table,pid,queue,device,commands,host_wait_mean_ns,device_wait_mean_ns,"
	       "exec_mean_ns,exec_total_ns,failed\n");
	for (unsigned int i = 0; i < r->nqueues; i++) {
		struct ht_queue_report *q = &r->queues[i];

		printf("queue,%d,0x%llx,%u,%llu,%.1f,%.1f,%.1f,%.0f,%llu\n", q->pid,
		       (unsigned long long)q->queue, q->device, (unsigned long long)q->exec.count,
		       ht_stats_mean(&q->host_wait), ht_stats_mean(&q->device_wait),
		       ht_stats_mean(&q->exec), q->exec.total, (unsigned long long)q->failed);
	}
	printf("table,pid,device,commands,busy_ns,idle_ns,compute_ns,transfer_ns,overlap_ns,"
	       "idle_blamed_ns,sync,offset_ns,drift_ppm,bound_ns,drift_min_ppm,drift_max_ppm\n");
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];
		int range = d->map.quality == HT_SYNC_OK;

		printf("device,%d,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%.0f,", d->pid,
		       d->device, (unsigned long long)d->commands, (unsigned long long)d->busy,
		       (unsigned long long)d->idle, (unsigned long long)d->compute_busy,
		       (unsigned long long)d->transfer_busy, (unsigned long long)d->overlap,
		       (unsigned long long)d->idle_blamed, quality_name(d->map.quality),
		       ht_clock_map_offset_ns(&d->map));
		/* numbers the samples do not determine are empty cells */
		csv_num(ht_clock_map_drift_ppm(&d->map), "%.3f");
		putchar(',');
		csv_num(d->map.bound_ns, "%.0f");
		putchar(',');
		csv_num(range ? (d->map.slope_min - 1) * 1e6 : NAN, "%.3f");
		putchar(',');
		csv_num(range ? (d->map.slope_max - 1) * 1e6 : NAN, "%.3f");
		putchar('\n');
	}
	printf("table,pid,device,in,idle_ns,share\n");
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];

		for (unsigned int k = 0; k < d->blame.n; k++) {
			if (d->blame.rows[k].value <= 0)
				continue;
			printf("blame,%d,%u,", d->pid, d->device);
			ht_csv_str(stdout, d->blame.rows[k].name);
			printf(",%.0f,%.4f\n", d->blame.rows[k].value,
			       d->idle_blamed ? d->blame.rows[k].value / (double)d->idle_blamed
					      : 0);
		}
	}
	printf("table,pid,tid,name,running_ns,preempted_ns,blocked_ns,intervals,wait_ns,"
	       "wait_preempted_ns,wait_blocked_ns,done_ns,done_preempted_ns,done_blocked_ns\n");
	for (unsigned int i = 0; i < r->cpu.n; i++) {
		struct ht_cpu_thread *th = &r->cpu.threads[i];

		if (!th->intervals)
			continue;
		printf("cpu,%d,%d,", r->cpu_pid[th->proc], th->tid);
		ht_csv_str(stdout, th->name);
		printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
		       (unsigned long long)th->time[0], (unsigned long long)th->time[1],
		       (unsigned long long)th->time[2], (unsigned long long)th->intervals,
		       (unsigned long long)th->wait_ns, (unsigned long long)th->wait_preempted,
		       (unsigned long long)th->wait_blocked, (unsigned long long)th->done_ns,
		       (unsigned long long)th->done_preempted,
		       (unsigned long long)th->done_blocked);
	}
	printf("table,name,calls,wait_ns,preempted_ns,blocked_ns,done_ns,done_preempted_ns,"
	       "done_blocked_ns,done_preempted_max_ns\n");
	for (unsigned int i = 0; i < r->nwaits; i++) {
		struct ht_wait_row *w = &r->waits[i];

		printf("wait,");
		ht_csv_str(stdout, w->name);
		printf(",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)w->calls,
		       (unsigned long long)w->wait_ns, (unsigned long long)w->preempted,
		       (unsigned long long)w->blocked, (unsigned long long)w->done_ns,
		       (unsigned long long)w->done_preempted, (unsigned long long)w->done_blocked,
		       (unsigned long long)w->done_preempted_max);
	}
	printf("table,lost_os_records,note\nos,%llu,", (unsigned long long)r->cpu.lost);
	ht_csv_str(stdout, r->cpu.note);
	putchar('\n');
	csv_critical_path(&r->cp);
	ht_report_mpi_print(r, HT_REPORT_MPI_CSV);
}

/* ---- json ---- */

static void json_stats(struct ht_stats *s)
{
	printf("\"count\":%llu,\"total_ns\":%.0f,\"mean_ns\":%.1f,\"min_ns\":%llu,\"max_ns\":%llu,"
	       "\"p50_ns\":%llu,\"p99_ns\":%llu",
	       (unsigned long long)s->count, s->total, ht_stats_mean(s), (unsigned long long)s->min,
	       (unsigned long long)s->max, (unsigned long long)ht_stats_quantile(s, 0.5),
	       (unsigned long long)ht_stats_quantile(s, 0.99));
}

static void json_num(double v);

enum json_table { CALLS, KERNELS, TRANSFERS };

static void json_calls(const char *key, struct ht_table *t, double thread_time,
		       enum json_table what)
{
	printf(",\"%s\":[", key);
	for (unsigned int i = 0; i < t->n; i++) {
		struct ht_row *r = &t->rows[i];

		printf("%s{\"name\":", i ? "," : "");
		ht_json_str(stdout, r->name);
		putchar(',');
		json_stats(&r->st);
		printf(",\"errors\":%llu", (unsigned long long)r->errors);
		if (thread_time > 0)
			printf(",\"thread_share\":%.6f", r->st.total / thread_time);
		if (r->bytes)
			printf(",\"bytes\":%llu", (unsigned long long)r->bytes);
		if (what == KERNELS) /* the row's launch configuration; [0,0,0]: none given */
			printf(",\"global\":[%llu,%llu,%llu],\"local\":[%llu,%llu,%llu]",
			       (unsigned long long)r->global[0], (unsigned long long)r->global[1],
			       (unsigned long long)r->global[2], (unsigned long long)r->local[0],
			       (unsigned long long)r->local[1], (unsigned long long)r->local[2]);
		if (what == TRANSFERS) { /* null: the bytes were not moved (map, unmap, ...) */
			printf(",\"gbps\":");
			json_num(gbps(r));
		}
		putchar('}');
	}
	putchar(']');
}

static void json_num(double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", stdout);
	else
		printf("%.3f", v);
}

static void json_report(const char *dir, struct ht_report *r, const struct ht_mem_report *mem,
			const struct ht_callpaths *cp, const struct ht_kernel_lines *kl)
{
	printf("{\"trace\":");
	ht_json_str(stdout, dir);
	printf(",\"span_ns\":%llu,\"events\":%llu,\"processes\":%u,\"images\":%u,"
	       "\"threads\":%u,\"lost\":%llu,\"lost_device_timestamps\":%llu",
	       (unsigned long long)(r->last_ns - r->first_ns), (unsigned long long)r->events,
	       r->processes, r->images, r->threads, (unsigned long long)r->lost,
	       (unsigned long long)r->lost_device_ts);
	json_calls("api", &r->api, r->thread_time, CALLS);
	json_calls("regions", &r->regions, r->thread_time, CALLS);
	json_calls("kernels", &r->kernels, 0, KERNELS);
	json_calls("transfers", &r->transfers, 0, TRANSFERS);
	printf(",\"queues\":[");
	for (unsigned int i = 0; i < r->nqueues; i++) {
		struct ht_queue_report *q = &r->queues[i];

		printf("%s{\"pid\":%d,\"queue\":\"0x%llx\",\"device\":%u,\"failed\":%llu,"
		       "\"no_timestamps\":%llu,\"host_wait\":{",
		       i ? "," : "", q->pid, (unsigned long long)q->queue, q->device,
		       (unsigned long long)q->failed, (unsigned long long)q->no_timestamps);
		json_stats(&q->host_wait);
		printf("},\"device_wait\":{");
		json_stats(&q->device_wait);
		printf("},\"exec\":{");
		json_stats(&q->exec);
		printf("}}");
	}
	printf("],\"devices\":[");
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];

		printf("%s{\"pid\":%d,\"device\":%u,\"name\":", i ? "," : "", d->pid, d->device);
		ht_json_str(stdout, d->name);
		printf(",\"commands\":%llu,\"busy_ns\":%llu,\"idle_ns\":%llu,\"compute_ns\":%llu,"
		       "\"transfer_ns\":%llu,\"overlap_ns\":%llu,\"idle_blamed_ns\":%llu,"
		       "\"window_begin_ns\":%llu,\"window_end_ns\":%llu,",
		       (unsigned long long)d->commands, (unsigned long long)d->busy,
		       (unsigned long long)d->idle, (unsigned long long)d->compute_busy,
		       (unsigned long long)d->transfer_busy, (unsigned long long)d->overlap,
		       (unsigned long long)d->idle_blamed, (unsigned long long)d->window_begin,
		       (unsigned long long)d->window_end);
		printf("\"sync\":{\"quality\":\"%s\",\"samples\":%llu,\"offset_ns\":",
		       quality_name(d->map.quality), (unsigned long long)d->map.samples);
		json_num(ht_clock_map_offset_ns(&d->map));
		printf(",\"drift_ppm\":");
		json_num(ht_clock_map_drift_ppm(&d->map));
		printf(",\"drift_range_ppm\":");
		if (d->map.quality == HT_SYNC_OK) {
			printf("[%.3f,%.3f]", (d->map.slope_min - 1) * 1e6,
			       (d->map.slope_max - 1) * 1e6);
		} else {
			printf("null");
		}
		printf(",\"bound_ns\":");
		json_num(d->map.bound_ns);
		printf(",\"window_checked\":%llu,\"window_outside\":%llu},\"blame\":[",
		       (unsigned long long)d->window_checked,
		       (unsigned long long)d->window_outside);
		for (unsigned int k = 0, first = 1; k < d->blame.n; k++) {
			if (d->blame.rows[k].value <= 0)
				continue;
			printf("%s{\"in\":", first ? "" : ",");
			ht_json_str(stdout, d->blame.rows[k].name);
			printf(",\"idle_ns\":%.0f}", d->blame.rows[k].value);
			first = 0;
		}
		printf("]}");
	}
	printf("],\"os\":{\"lost\":%llu,\"note\":", (unsigned long long)r->cpu.lost);
	ht_json_str(stdout, r->cpu.note);
	printf(",\"threads\":[");
	for (unsigned int i = 0, first = 1; i < r->cpu.n; i++) {
		struct ht_cpu_thread *th = &r->cpu.threads[i];

		if (!th->intervals)
			continue;
		printf("%s{\"pid\":%d,\"tid\":%d,\"name\":", first ? "" : ",", r->cpu_pid[th->proc],
		       th->tid);
		first = 0;
		ht_json_str(stdout, th->name);
		printf(",\"running_ns\":%llu,\"preempted_ns\":%llu,\"blocked_ns\":%llu,"
		       "\"intervals\":%llu,\"wait_ns\":%llu,\"wait_preempted_ns\":%llu,"
		       "\"wait_blocked_ns\":%llu,\"done_ns\":%llu,\"done_preempted_ns\":%llu,"
		       "\"done_blocked_ns\":%llu}",
		       (unsigned long long)th->time[0], (unsigned long long)th->time[1],
		       (unsigned long long)th->time[2], (unsigned long long)th->intervals,
		       (unsigned long long)th->wait_ns, (unsigned long long)th->wait_preempted,
		       (unsigned long long)th->wait_blocked, (unsigned long long)th->done_ns,
		       (unsigned long long)th->done_preempted,
		       (unsigned long long)th->done_blocked);
	}
	printf("],\"blocking_calls\":[");
	for (unsigned int i = 0; i < r->nwaits; i++) {
		struct ht_wait_row *w = &r->waits[i];

		printf("%s{\"name\":", i ? "," : "");
		ht_json_str(stdout, w->name);
		printf(",\"calls\":%llu,\"calls_with_os\":%llu,\"wait_ns\":%llu,"
		       "\"preempted_ns\":%llu,\"blocked_ns\":%llu,\"done_ns\":%llu,"
		       "\"done_preempted_ns\":%llu,\"done_blocked_ns\":%llu,"
		       "\"done_preempted_max_ns\":%llu}",
		       (unsigned long long)w->calls, (unsigned long long)w->with_os,
		       (unsigned long long)w->wait_ns, (unsigned long long)w->preempted,
		       (unsigned long long)w->blocked, (unsigned long long)w->done_ns,
		       (unsigned long long)w->done_preempted, (unsigned long long)w->done_blocked,
		       (unsigned long long)w->done_preempted_max);
	}
	printf("]}");
	json_critical_path(&r->cp);
	memory_access(JSON, mem);
	ht_report_callpaths_json(cp);
	ht_kernel_lines_json(stdout, kl);
	ht_report_mpi_print(r, HT_REPORT_MPI_JSON);
	printf("}\n");
}

/* ---- the critical path (analysis/critpath.h) ---- */

#define CP_TEXT_ITEMS 15
#define CP_TEXT_STEPS 12    /* the first and last steps shown */
#define CP_JSON_STEPS 10000 /* steps in the JSON, from the path's beginning */

static void text_cp_step(const struct ht_critpath *cp, const struct ht_cp_segment *s, uint64_t t0)
{
	char a[32], b[32], where[48], name[160];

	dur(a, sizeof a, (double)(s->start - t0));
	dur(b, sizeof b, (double)(s->end - s->start));
	if (s->tid)
		snprintf(where, sizeof where, "thread %d", s->tid);
	else
		snprintf(where, sizeof where, "queue 0x%llx", (unsigned long long)s->queue);
	printf("    +%-12s %11s  %-20s %-8s %s\n", a, b, where, ht_cp_kind_names[s->kind],
	       ht_term_sstr(name, sizeof name, cp->names[s->name]));
}

static void text_critical_path(const struct ht_report *r)
{
	const struct ht_critpath *cp = &r->cp;
	char a[32], b[32], name[160];
	size_t shown = 0;

	if (!cp->nseg)
		return;
	dur(a, sizeof a, (double)cp->length);
	printf("\nCritical path: %s in pid %d, %zu steps (graph: %llu calls, %llu device "
	       "commands%s)\n",
	       a, cp->pid, cp->nseg, (unsigned long long)cp->calls,
	       (unsigned long long)cp->commands, cp->cut ? "; cut at a clock-sync cycle" : "");
	printf("  %-9s %11s %8s %20s  %s\n", "kind", "on path", "share", "of its total (count)",
	       "name");
	for (size_t i = 0; i < cp->nrows && shown < CP_TEXT_ITEMS; i++) {
		const struct ht_cp_row *w = &cp->rows[i];
		char tot[48] = "";

		if (!w->ns)
			break;
		dur(a, sizeof a, (double)w->ns);
		if (w->count) {
			dur(b, sizeof b, (double)w->total_ns);
			snprintf(tot, sizeof tot, "%s (%llu)", b, (unsigned long long)w->count);
		}
		printf("  %-9s %11s %7.2f%% %20s  %s\n", ht_cp_kind_names[w->kind], a,
		       cp->length ? 100.0 * (double)w->ns / (double)cp->length : 0, tot,
		       ht_term_sstr(name, sizeof name, cp->names[w->name]));
		shown++;
	}
	for (size_t i = 0; i < cp->nrows; i++) {
		const struct ht_cp_row *w = &cp->rows[i];

		if (w->ns || w->kind != HT_CP_KERNEL || !w->total_ns)
			continue;
		dur(a, sizeof a, (double)w->total_ns);
		printf("  off the path: kernel %s (%s in %llu runs)\n",
		       ht_term_sstr(name, sizeof name, cp->names[w->name]), a,
		       (unsigned long long)w->count);
	}
	printf("  The path, in time order (start relative to the trace's first event):\n");
	for (size_t i = 0; i < cp->nseg; i++) {
		if (i == CP_TEXT_STEPS && cp->nseg > 2 * CP_TEXT_STEPS) {
			printf("    ... %zu steps ...\n", cp->nseg - 2 * CP_TEXT_STEPS);
			i = cp->nseg - CP_TEXT_STEPS;
		}
		text_cp_step(cp, &cp->seg[i], r->first_ns < cp->start ? r->first_ns : cp->start);
	}
	printf("  Reading: the run could not end sooner than this chain of waits; shortening an "
	       "item\n  on it may shorten the run, shortening one off it (or beyond its time "
	       "on the path) will not.\n");
}

static void csv_critical_path(const struct ht_critpath *cp)
{
	printf("table,kind,name,on_path_ns,share,steps,total_ns,count\n");
	for (size_t i = 0; i < cp->nrows; i++) {
		const struct ht_cp_row *w = &cp->rows[i];

		printf("critical_path,%s,", ht_cp_kind_names[w->kind]);
		ht_csv_str(stdout, cp->names[w->name]);
		printf(",%llu,%.4f,%llu,%llu,%llu\n", (unsigned long long)w->ns,
		       cp->length ? (double)w->ns / (double)cp->length : 0,
		       (unsigned long long)w->segments, (unsigned long long)w->total_ns,
		       (unsigned long long)w->count);
	}
	printf("table,kind,name,start_ns,end_ns,pid,tid,device,queue\n");
	for (size_t i = 0; i < cp->nseg; i++) {
		const struct ht_cp_segment *s = &cp->seg[i];

		printf("critical_step,%s,", ht_cp_kind_names[s->kind]);
		ht_csv_str(stdout, cp->names[s->name]);
		printf(",%llu,%llu,%d,%d,%u,0x%llx\n", (unsigned long long)s->start,
		       (unsigned long long)s->end, s->pid, s->tid, s->device,
		       (unsigned long long)s->queue);
	}
}

static void json_critical_path(const struct ht_critpath *cp)
{
	printf(",\"critical_path\":{\"pid\":%d,\"start_ns\":%llu,\"end_ns\":%llu,"
	       "\"length_ns\":%llu,\"calls\":%llu,\"commands\":%llu,\"unlinked_commands\":%llu,"
	       "\"cut\":%s,\"items\":[",
	       cp->pid, (unsigned long long)cp->start, (unsigned long long)cp->end,
	       (unsigned long long)cp->length, (unsigned long long)cp->calls,
	       (unsigned long long)cp->commands, (unsigned long long)cp->unlinked,
	       cp->cut ? "true" : "false");
	for (size_t i = 0; i < cp->nrows; i++) {
		const struct ht_cp_row *w = &cp->rows[i];

		printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "", ht_cp_kind_names[w->kind]);
		ht_json_str(stdout, cp->names[w->name]);
		printf(",\"on_path_ns\":%llu,\"share\":%.6f,\"steps\":%llu,\"total_ns\":%llu,"
		       "\"count\":%llu}",
		       (unsigned long long)w->ns,
		       cp->length ? (double)w->ns / (double)cp->length : 0,
		       (unsigned long long)w->segments, (unsigned long long)w->total_ns,
		       (unsigned long long)w->count);
	}
	printf("],\"steps_total\":%zu,\"steps\":[", cp->nseg);
	for (size_t i = 0; i < cp->nseg && i < CP_JSON_STEPS; i++) {
		const struct ht_cp_segment *s = &cp->seg[i];

		printf("%s{\"kind\":\"%s\",\"name\":", i ? "," : "", ht_cp_kind_names[s->kind]);
		ht_json_str(stdout, cp->names[s->name]);
		printf(",\"start_ns\":%llu,\"end_ns\":%llu,\"pid\":%d",
		       (unsigned long long)s->start, (unsigned long long)s->end, s->pid);
		if (s->tid)
			printf(",\"tid\":%d}", s->tid);
		else
			printf(",\"device\":%u,\"queue\":\"0x%llx\"}", s->device,
			       (unsigned long long)s->queue);
	}
	printf("]}");
}

int ht_cmd_report(int argc, char **argv)
{
	const char *dir = NULL, *diff_base = NULL, *diff_new = NULL;
	double threshold = -1;
	enum fmt fmt = TEXT;
	struct ht_trace *t;
	struct ht_report r;
	struct ht_mem_report mem;
	struct ht_callpaths cp;
	struct ht_kernel_lines kl;
	struct ht_read_error err = {0};
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: hetrace report DIR [--format text|csv|json]\n"
			     "       hetrace report --diff BASE NEW [--threshold PCT] "
			     "[--format text|csv|json]");
			return 0;
		} else if (!strcmp(argv[i], "--diff")) {
			if (i + 2 >= argc)
				return ht_usage_error("report", "--diff needs two traces, BASE and NEW");
			diff_base = argv[++i];
			diff_new = argv[++i];
		} else if (!strcmp(argv[i], "--threshold") || !strncmp(argv[i], "--threshold=", 12)) {
			const char *v = argv[i][11] == '=' ? argv[i] + 12 : (i + 1 < argc ? argv[++i] : "");
			char *end;

			threshold = strtod(v, &end);
			if (!*v || *end || !(threshold >= 0 && threshold <= 1e9))
				return ht_usage_error("report", "--threshold takes a percentage >= 0, "
								"not '%s'",
						      v);
		} else if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
			const char *v =
			    argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : "");

			if (!strcmp(v, "text"))
				fmt = TEXT;
			else if (!strcmp(v, "csv"))
				fmt = CSV;
			else if (!strcmp(v, "json"))
				fmt = JSON;
			else
				return ht_usage_error("report",
						      "--format must be text, csv or json, "
						      "not '%s'",
						      v);
		} else if (argv[i][0] == '-') {
			return ht_usage_error("report", "unknown option '%s'", argv[i]);
		} else if (dir) {
			return ht_usage_error("report", "expected one trace directory");
		} else {
			dir = argv[i];
		}
	}
	if (diff_base && dir)
		return ht_usage_error("report", "--diff compares BASE and NEW: give no other trace");
	if (threshold >= 0 && !diff_base)
		return ht_usage_error("report", "--threshold goes with --diff BASE NEW");
	if (diff_base)
		return ht_report_diff(diff_base, diff_new,
				      fmt == TEXT  ? HT_FORMAT_TEXT
				      : fmt == CSV ? HT_FORMAT_CSV
						   : HT_FORMAT_JSON,
				      threshold);
	if (!dir)
		return ht_usage_error("report", "no trace directory given");
	rc = ht_trace_open(&t, dir, &err);
	if (rc)
		return ht_error("cannot open trace '%s': %s%s%s", dir,
				strcmp(err.file, dir) ? err.file : "",
				strcmp(err.file, dir) ? ": " : "", err.msg);
	memset(&mem, 0, sizeof mem);
	memset(&cp, 0, sizeof cp);
	memset(&kl, 0, sizeof kl);
	rc = ht_report_mpi_compute(t, &r, &err);
	if (rc > 0) { /* mpirun -np K hetrace report: rank 0 prints */
		ht_trace_close(t);
		return 0;
	}
	if (!rc)
		rc = ht_mem_report_compute(t, &mem, &err);
	if (!rc)
		rc = ht_callpaths_compute(t, &cp, &err);
	if (!rc)
		rc = ht_kernel_lines_compute(t, &kl, &err);
	if (rc) {
		ht_read_error_print(dir, &err);
		ht_report_release(&r);
		ht_callpaths_release(&cp);
		ht_kernel_lines_release(&kl);
		ht_mem_report_release(&mem);
		ht_trace_close(t);
		return 1;
	}
	if (fmt == TEXT) {
		text_report(dir, &r);
		ht_report_callpaths_text(&cp);
		ht_kernel_lines_text(stdout, &kl);
	} else if (fmt == CSV) {
		csv_report(&r);
		ht_report_callpaths_csv(&cp);
		ht_kernel_lines_csv(stdout, &kl);
	} else {
		json_report(dir, &r, &mem, &cp, &kl);
	}
	if (fmt != JSON)
		memory_access(fmt, &mem);
	ht_mem_report_release(&mem);
	ht_report_release(&r);
	ht_callpaths_release(&cp);
	ht_kernel_lines_release(&kl);
	ht_trace_close(t);
	if (fflush(stdout) || ferror(stdout))
		return ht_error("cannot write the report: %s", strerror(errno));
	return 0;
}
