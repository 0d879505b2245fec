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

#include "analysis/escape.h"
#include "analysis/report.h"
#include "cli/cli.h"
#include "cli/report_mpi.h"

enum fmt { TEXT, CSV, JSON };

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

		text_stats(r->name, 34, &r->st);
		printf(" %7.2f%% %7llu\n", thread_time > 0 ? 100 * r->st.total / thread_time : 0,
		       (unsigned long long)r->errors);
	}
}

static void text_cpu(struct ht_report *r);

static void text_report(const char *dir, struct ht_report *r)
{
	char a[32], b[32], c[32];

	dur(a, sizeof a, (double)(r->last_ns - r->first_ns));
	printf("hetrace report: %s\n", dir);
	printf("span        %s, %u process%s, %u thread%s, %llu events\n", a, r->processes,
	       r->processes == 1 ? "" : "es", r->threads, r->threads == 1 ? "" : "s",
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
		printf("clock sync  pid %d device %u: offset %s%s, drift %+.2f ppm", d->pid,
		       d->device, ht_clock_map_offset_ns(&d->map) < 0 ? "-" : "+", a,
		       ht_clock_map_drift_ppm(&d->map));
		if (d->map.quality == HT_SYNC_OK && d->map.slope_max - d->map.slope_min > 2e-4)
			printf(" (not determined: %+.0f..%+.0f ppm fit)",
			       (d->map.slope_min - 1) * 1e6, (d->map.slope_max - 1) * 1e6);
		printf(", ");
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
		printf("\nKernels (by total execution time)\n");
		text_stats_header("kernel", 34);
		printf("  %-20s %-12s %6s\n", "global", "local", "failed");
		for (unsigned int i = 0; i < r->kernels.n; i++) {
			struct ht_row *k = &r->kernels.rows[i];
			char g[64], l[64];

			snprintf(g, sizeof g, "%llux%llux%llu", (unsigned long long)k->global[0],
				 (unsigned long long)k->global[1],
				 (unsigned long long)k->global[2]);
			snprintf(l, sizeof l, "%llux%llux%llu", (unsigned long long)k->local[0],
				 (unsigned long long)k->local[1], (unsigned long long)k->local[2]);
			text_stats(k->name, 34, &k->st);
			printf("  %-20s %-12s %6llu\n", g, l, (unsigned long long)k->errors);
		}
	}
	if (r->transfers.n) {
		printf("\nTransfers and other commands\n");
		printf("  %-10s %8s %14s %11s %10s %10s %10s %10s\n", "kind", "count", "bytes",
		       "total", "GB/s", "min GB/s", "p50 GB/s", "max GB/s");
		for (unsigned int i = 0; i < r->transfers.n; i++) {
			struct ht_row *t = &r->transfers.rows[i];

			dur(a, sizeof a, t->st.total);
			printf("  %-10s %8llu %14llu %11s %10.3f %10.3f %10.3f %10.3f\n", t->name,
			       (unsigned long long)t->st.count, (unsigned long long)t->bytes, a,
			       t->st.total > 0 ? (double)t->bytes / t->st.total : 0,
			       t->rate.min / 1000.0, ht_stats_quantile(&t->rate, 0.5) / 1000.0,
			       t->rate.max / 1000.0);
		}
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
		printf("\nDevice: pid %d device %u (%s)\n", d->pid, d->device, d->name);
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
			       row->name);
		}
		printf("  Reading: each idle moment is shared among the threads that were "
		       "active then (not\n  preempted or blocked); a large share for a call or "
		       "region means the device\n  waited on it: overlap it with device work or "
		       "move it off the critical path.\n");
	}
	text_cpu(r);
	ht_report_mpi_print(r, HT_REPORT_MPI_TEXT);
}

static void text_cpu(struct ht_report *r)
{
	char a[32], b[32], c[32], d[32];
	struct ht_cpu_states *cs = &r->cpu;
	unsigned int i;

	if (cs->note[0])
		printf("\nOS scheduling: %s\n", cs->note);
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
		       th->tid, th->name, a, b, c,
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
		printf("  %-28.28s %7llu %11s %11s %11s %15s %15s %15s\n", w->name,
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
		       w->name, a, b, c);
	}
	printf("  Reading: \"device done\" is the time from the end of the device work to the "
	       "call's\n  return; preempted time in it means the thread was ready but another "
	       "task had its\n  CPU: raise its priority or keep other work off that CPU.\n");
}

/* ---- csv ---- */

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
	printf("table,name,count,total_ns,mean_ns,min_ns,max_ns,p50_ns,p99_ns,thread_share,"
	       "errors\n");
	csv_calls("api", &r->api, r->thread_time);
	csv_calls("region", &r->regions, r->thread_time);
	csv_calls("kernel", &r->kernels, 0);
	printf("table,kind,count,bytes,total_ns,gbps_mean,gbps_min,gbps_p50,gbps_max\n");
	for (unsigned int i = 0; i < r->transfers.n; i++) {
		struct ht_row *t = &r->transfers.rows[i];

		printf("transfer,%s,%llu,%llu,%.0f,%.4f,%.4f,%.4f,%.4f\n", t->name,
		       (unsigned long long)t->st.count, (unsigned long long)t->bytes, t->st.total,
		       t->st.total > 0 ? (double)t->bytes / t->st.total : 0, t->rate.min / 1000.0,
		       ht_stats_quantile(&t->rate, 0.5) / 1000.0, t->rate.max / 1000.0);
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
	       "idle_blamed_ns,sync,offset_ns,drift_ppm,bound_ns\n");
	for (unsigned int i = 0; i < r->ndevices; i++) {
		struct ht_device_report *d = &r->devices[i];

		printf("device,%d,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%s,%.0f,%.3f,%.0f\n",
		       d->pid, d->device, (unsigned long long)d->commands,
		       (unsigned long long)d->busy, (unsigned long long)d->idle,
		       (unsigned long long)d->compute_busy, (unsigned long long)d->transfer_busy,
		       (unsigned long long)d->overlap, (unsigned long long)d->idle_blamed,
		       quality_name(d->map.quality), ht_clock_map_offset_ns(&d->map),
		       ht_clock_map_drift_ppm(&d->map), d->map.bound_ns);
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

static void json_calls(const char *key, struct ht_table *t, double thread_time)
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
		if (r->global[0])
			printf(",\"global\":[%llu,%llu,%llu],\"local\":[%llu,%llu,%llu]",
			       (unsigned long long)r->global[0], (unsigned long long)r->global[1],
			       (unsigned long long)r->global[2], (unsigned long long)r->local[0],
			       (unsigned long long)r->local[1], (unsigned long long)r->local[2]);
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

static void json_report(const char *dir, struct ht_report *r)
{
	printf("{\"trace\":");
	ht_json_str(stdout, dir);
	printf(",\"span_ns\":%llu,\"events\":%llu,\"processes\":%u,\"threads\":%u,\"lost\":%llu,"
	       "\"lost_device_timestamps\":%llu",
	       (unsigned long long)(r->last_ns - r->first_ns), (unsigned long long)r->events,
	       r->processes, r->threads, (unsigned long long)r->lost,
	       (unsigned long long)r->lost_device_ts);
	json_calls("api", &r->api, r->thread_time);
	json_calls("regions", &r->regions, r->thread_time);
	json_calls("kernels", &r->kernels, 0);
	json_calls("transfers", &r->transfers, 0);
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
	ht_report_mpi_print(r, HT_REPORT_MPI_JSON);
	printf("}\n");
}

int ht_cmd_report(int argc, char **argv)
{
	const char *dir = NULL;
	enum fmt fmt = TEXT;
	struct ht_trace *t;
	struct ht_report r;
	struct ht_read_error err = {0};
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: hetrace report DIR [--format text|csv|json]");
			return 0;
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
	if (!dir)
		return ht_usage_error("report", "no trace directory given");
	rc = ht_trace_open(&t, dir, &err);
	if (rc)
		return ht_error("cannot open trace '%s': %s%s%s", dir,
				strcmp(err.file, dir) ? err.file : "",
				strcmp(err.file, dir) ? ": " : "", err.msg);
	rc = ht_report_mpi_compute(t, &r, &err);
	if (rc > 0) { /* mpirun -np K hetrace report: rank 0 prints */
		ht_trace_close(t);
		return 0;
	}
	if (rc) {
		ht_read_error_print(dir, &err);
		ht_report_release(&r);
		ht_trace_close(t);
		return 1;
	}
	if (fmt == TEXT)
		text_report(dir, &r);
	else if (fmt == CSV)
		csv_report(&r);
	else
		json_report(dir, &r);
	ht_report_release(&r);
	ht_trace_close(t);
	if (fflush(stdout) || ferror(stdout))
		return ht_error("cannot write the report: %s", strerror(errno));
	return 0;
}
