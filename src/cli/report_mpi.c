/*
 * The MPI section of `hetrace report` (analysis/mpi.h): per rank and per
 * host, where the time went and whom each rank waited for. Text, CSV rows
 * and the "mpi" JSON key; report.c calls it after its own sections.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/escape.h"
#include "analysis/mpi.h"
#include "analysis/report.h"
#include "analysis/report_parts.h"
#include "cli/cli.h"
#include "cli/report_mpi.h"
#include "mpi/launcher.h"
#include "mpi/reduce.h"

static const char *const wait_titles[HT_MPI_WAIT_COUNT] = {
    "late sender", "late receiver", "wait at collective", "late broadcast", "early reduce"};

static uint64_t sum(const uint64_t v[HT_MPI_WAIT_COUNT])
{
	uint64_t s = 0;

	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
		s += v[w];
	return s;
}

/* A duration cell, "-" for none. */
static const char *cell(char *b, size_t cap, uint64_t ns, int none)
{
	if (none)
		return "-";
	ht_fmt_duration(b, cap, (double)ns);
	return b;
}

/* One row per MPI function over all ranks: calls, total, the ranks with least and most. */
static void text_calls(const struct ht_mpi_report *m)
{
	const char *names[256];
	size_t nnames = 0;

	for (size_t i = 0; i < m->nranks; i++)
		for (size_t k = 0; k < m->ranks[i].ncalls && nnames < 256; k++) {
			size_t j = 0;

			while (j < nnames && strcmp(names[j], m->ranks[i].calls[k].name))
				j++;
			if (j == nnames)
				names[nnames++] = m->ranks[i].calls[k].name;
		}
	if (!nnames)
		return;
	printf("\nMPI calls (all ranks; the rank with the least and the most time in each)\n");
	printf("  %-24s %9s %11s %11s %7s %11s %7s\n", "call", "count", "total", "least", "rank",
	       "most", "rank");
	for (size_t j = 0; j < nnames; j++) {
		uint64_t count = 0, total = 0, lo = UINT64_MAX, hi = 0;
		int32_t lo_rank = -1, hi_rank = -1;
		char a[32], b[32], c[32];

		for (size_t i = 0; i < m->nranks; i++) {
			uint64_t t = 0;

			for (size_t k = 0; k < m->ranks[i].ncalls; k++)
				if (!strcmp(m->ranks[i].calls[k].name, names[j])) {
					count += m->ranks[i].calls[k].count;
					t = m->ranks[i].calls[k].total_ns;
				}
			total += t;
			if (t < lo) {
				lo = t;
				lo_rank = m->ranks[i].rank;
			}
			if (t > hi || hi_rank < 0) {
				hi = t;
				hi_rank = m->ranks[i].rank;
			}
		}
		ht_fmt_duration(a, sizeof a, (double)total);
		ht_fmt_duration(b, sizeof b, (double)lo);
		ht_fmt_duration(c, sizeof c, (double)hi);
		printf("  %-24.24s %9llu %11s %11s %7d %11s %7d\n", names[j],
		       (unsigned long long)count, a, b, lo_rank, c, hi_rank);
	}
}

static void text_waits(const struct ht_mpi_report *m)
{
	char a[32], b[32];

	printf("\nWait states (Scalasca's): time ranks waited, and the ranks they waited for\n");
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++) {
		const struct ht_mpi_wait_total *t = &m->waits[w];

		ht_fmt_duration(a, sizeof a, (double)t->ns);
		printf("  %-19s %11s in %llu wait%s", wait_titles[w], a,
		       (unsigned long long)t->count, t->count == 1 ? "" : "s");
		for (size_t k = 0; k < t->nby && k < 4; k++) {
			ht_fmt_duration(b, sizeof b, (double)t->by[k].ns);
			printf("%s rank %d (%s)", k ? "," : "; waiting for", t->by[k].rank, b);
		}
		if (t->nby > 4)
			printf(", %zu more", t->nby - 4);
		putchar('\n');
	}
	if (m->waited_for.rank >= 0) {
		ht_fmt_duration(a, sizeof a, (double)m->waited_for.ns);
		printf("  The rank the others waited for most: rank %d (%s of waiting in all).\n",
		       m->waited_for.rank, a);
	} else {
		printf("  No rank waited for another.\n");
	}
	printf("  Reading: a late sender made its receiver wait in a receive or a wait; a late\n"
	       "  receiver made a blocking send wait; at a collective, everyone waits for the\n"
	       "  last to arrive (the root, for a broadcast; the root waits, for a reduction).\n"
	       "  Balance the work of the rank waited for, or overlap the waiting with work.\n");
}

static void text(const struct ht_mpi_report *m)
{
	char c[8][32];
	uint64_t maxerr = 0;
	size_t hosts = m->nhosts;

	for (size_t i = 0; i < m->nranks; i++)
		if (m->ranks[i].clock_error_ns > maxerr)
			maxerr = m->ranks[i].clock_error_ns;
	ht_fmt_duration(c[0], sizeof c[0], (double)maxerr);
	printf("\nMPI job: %zu of %d rank%s on %zu host%s%s%s%s, clocks aligned to rank 0's "
	       "(largest error bound %s)\n",
	       m->nranks, m->size, m->size == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s",
	       m->job[0] ? " (job " : "", m->job, m->job[0] ? ")" : "", c[0]);
	printf("  %5s %-14s %8s %14s %9s %11s %11s %11s %11s %11s %11s\n", "rank", "host", "pid",
	       "clock offset", "error", "in MPI", "compute", "GPU busy", "GPU idle", "waited",
	       "waited for");
	for (size_t i = 0; i < m->nranks; i++) {
		const struct ht_mpi_rank *rk = &m->ranks[i];
		int gpu = rk->gpu_busy_ns || rk->gpu_idle_ns;

		c[0][0] = rk->clock_offset_ns < 0 ? '-' : '+';
		ht_fmt_duration(
		    c[0] + 1, sizeof c[0] - 1,
		    (double)(rk->clock_offset_ns < 0 ? -rk->clock_offset_ns : rk->clock_offset_ns));
		printf("  %5d %-14.14s %8d %14s %9s %11s %11s %11s %11s %11s %11s\n", rk->rank,
		       rk->host, rk->pid, c[0],
		       cell(c[1], 32, rk->clock_error_ns, !rk->clock_measurements),
		       cell(c[2], 32, rk->mpi_ns, 0), cell(c[3], 32, rk->compute_ns, 0),
		       cell(c[4], 32, rk->gpu_busy_ns, !gpu), cell(c[5], 32, rk->gpu_idle_ns, !gpu),
		       cell(c[6], 32, sum(rk->wait_ns), 0), cell(c[7], 32, sum(rk->caused_ns), 0));
	}
	if (m->nranks > 1 && m->compute_max) {
		ht_fmt_duration(c[0], 32, (double)m->compute_max);
		ht_fmt_duration(c[1], 32, (double)m->compute_mean);
		ht_fmt_duration(c[2], 32, (double)m->compute_min);
		printf("  load imbalance: compute max %s (rank %d), mean %s, min %s (rank %d); "
		       "balance %.1f%% (mean / max)\n",
		       c[0], m->compute_max_rank, c[1], c[2], m->compute_min_rank,
		       100.0 * (double)m->compute_mean / (double)m->compute_max);
	}
	printf("\nMPI per host\n  %-20s %5s %11s %11s %11s %11s %11s\n", "host", "ranks", "in MPI",
	       "compute", "GPU busy", "GPU idle", "waited");
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct ht_mpi_host *h = &m->hosts[i];
		int gpu = h->gpu_busy_ns || h->gpu_idle_ns;

		printf("  %-20.20s %5u %11s %11s %11s %11s %11s\n", h->name, h->ranks,
		       cell(c[0], 32, h->mpi_ns, 0), cell(c[1], 32, h->compute_ns, 0),
		       cell(c[2], 32, h->gpu_busy_ns, !gpu), cell(c[3], 32, h->gpu_idle_ns, !gpu),
		       cell(c[4], 32, h->wait_ns, 0));
	}
	text_calls(m);
	text_waits(m);
	printf("  messages: %llu sent, %llu received, %llu matched; %llu collective instances "
	       "(%llu not fully recorded)\n",
	       (unsigned long long)m->sends, (unsigned long long)m->recvs,
	       (unsigned long long)m->matched, (unsigned long long)m->instances,
	       (unsigned long long)m->instances_incomplete);
}

static void csv(const struct ht_mpi_report *m)
{
	printf("table,rank,host,pid,clock_offset_ns,clock_error_ns,clock_drift_ppm,mpi_ns,"
	       "compute_ns,gpu_busy_ns,gpu_idle_ns,waited_ns,waited_for_ns,sent,received\n");
	for (size_t i = 0; i < m->nranks; i++) {
		const struct ht_mpi_rank *rk = &m->ranks[i];

		printf("mpi_rank,%d,", rk->rank);
		ht_csv_str(stdout, rk->host);
		printf(",%d,%lld,%llu,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", rk->pid,
		       (long long)rk->clock_offset_ns, (unsigned long long)rk->clock_error_ns,
		       rk->clock_drift_ppm, (unsigned long long)rk->mpi_ns,
		       (unsigned long long)rk->compute_ns, (unsigned long long)rk->gpu_busy_ns,
		       (unsigned long long)rk->gpu_idle_ns, (unsigned long long)sum(rk->wait_ns),
		       (unsigned long long)sum(rk->caused_ns), (unsigned long long)rk->sent,
		       (unsigned long long)rk->received);
	}
	printf("table,rank,call,count,total_ns\n");
	for (size_t i = 0; i < m->nranks; i++)
		for (size_t k = 0; k < m->ranks[i].ncalls; k++) {
			printf("mpi_call,%d,", m->ranks[i].rank);
			ht_csv_str(stdout, m->ranks[i].calls[k].name);
			printf(",%llu,%llu\n", (unsigned long long)m->ranks[i].calls[k].count,
			       (unsigned long long)m->ranks[i].calls[k].total_ns);
		}
	printf("table,state,total_ns,count,waited_for_rank,waited_for_ns\n");
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++) {
		const struct ht_mpi_wait_total *t = &m->waits[w];

		if (!t->nby)
			printf("mpi_wait,%s,%llu,%llu,,\n", ht_mpi_wait_names[w],
			       (unsigned long long)t->ns, (unsigned long long)t->count);
		for (size_t k = 0; k < t->nby; k++)
			printf("mpi_wait,%s,%llu,%llu,%d,%llu\n", ht_mpi_wait_names[w],
			       (unsigned long long)t->ns, (unsigned long long)t->count,
			       t->by[k].rank, (unsigned long long)t->by[k].ns);
	}
}

static void json_waits(const uint64_t v[HT_MPI_WAIT_COUNT])
{
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++)
		printf("%s\"%s\":%llu", w ? "," : "", ht_mpi_wait_names[w],
		       (unsigned long long)v[w]);
}

static void json(const struct ht_mpi_report *m)
{
	printf(",\"mpi\":{\"size\":%d,\"job\":", m->size);
	ht_json_str(stdout, m->job);
	printf(",\"ranks\":[");
	for (size_t i = 0; i < m->nranks; i++) {
		const struct ht_mpi_rank *rk = &m->ranks[i];

		printf("%s{\"rank\":%d,\"host\":", i ? "," : "", rk->rank);
		ht_json_str(stdout, rk->host);
		printf(",\"pid\":%d,\"clock_offset_ns\":%lld,\"clock_error_ns\":%llu,"
		       "\"clock_drift_ppm\":%.3f,\"clock_measurements\":%u,\"mpi_ns\":%llu,"
		       "\"compute_ns\":%llu,\"gpu_busy_ns\":%llu,\"gpu_idle_ns\":%llu,"
		       "\"sent\":%llu,\"received\":%llu,\"bytes_sent\":%llu,"
		       "\"bytes_received\":%llu,\"collectives\":%llu,\"calls\":{",
		       rk->pid, (long long)rk->clock_offset_ns,
		       (unsigned long long)rk->clock_error_ns, rk->clock_drift_ppm,
		       rk->clock_measurements, (unsigned long long)rk->mpi_ns,
		       (unsigned long long)rk->compute_ns, (unsigned long long)rk->gpu_busy_ns,
		       (unsigned long long)rk->gpu_idle_ns, (unsigned long long)rk->sent,
		       (unsigned long long)rk->received, (unsigned long long)rk->bytes_sent,
		       (unsigned long long)rk->bytes_received, (unsigned long long)rk->collectives);
		for (size_t k = 0; k < rk->ncalls; k++) {
			printf("%s", k ? "," : "");
			ht_json_str(stdout, rk->calls[k].name);
			printf(":{\"count\":%llu,\"total_ns\":%llu}",
			       (unsigned long long)rk->calls[k].count,
			       (unsigned long long)rk->calls[k].total_ns);
		}
		printf("},\"waited_ns\":{");
		json_waits(rk->wait_ns);
		printf("},\"waited_for_ns\":{");
		json_waits(rk->caused_ns);
		printf("}}");
	}
	printf("],\"hosts\":[");
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct ht_mpi_host *h = &m->hosts[i];

		printf("%s{\"host\":", i ? "," : "");
		ht_json_str(stdout, h->name);
		printf(",\"ranks\":%u,\"mpi_ns\":%llu,\"compute_ns\":%llu,\"gpu_busy_ns\":%llu,"
		       "\"gpu_idle_ns\":%llu,\"waited_ns\":%llu}",
		       h->ranks, (unsigned long long)h->mpi_ns, (unsigned long long)h->compute_ns,
		       (unsigned long long)h->gpu_busy_ns, (unsigned long long)h->gpu_idle_ns,
		       (unsigned long long)h->wait_ns);
	}
	printf("],\"load_imbalance\":{\"compute_max_ns\":%llu,\"compute_max_rank\":%d,"
	       "\"compute_mean_ns\":%llu,\"compute_min_ns\":%llu,\"compute_min_rank\":%d},"
	       "\"wait_states\":{",
	       (unsigned long long)m->compute_max, m->compute_max_rank,
	       (unsigned long long)m->compute_mean, (unsigned long long)m->compute_min,
	       m->compute_min_rank);
	for (int w = 0; w < HT_MPI_WAIT_COUNT; w++) {
		const struct ht_mpi_wait_total *t = &m->waits[w];

		printf("%s\"%s\":{\"total_ns\":%llu,\"count\":%llu,\"waited_for\":[", w ? "," : "",
		       ht_mpi_wait_names[w], (unsigned long long)t->ns,
		       (unsigned long long)t->count);
		for (size_t k = 0; k < t->nby; k++)
			printf("%s{\"rank\":%d,\"ns\":%llu}", k ? "," : "", t->by[k].rank,
			       (unsigned long long)t->by[k].ns);
		printf("]}");
	}
	printf("},\"waited_for\":");
	if (m->waited_for.rank >= 0)
		printf("{\"rank\":%d,\"ns\":%llu}", m->waited_for.rank,
		       (unsigned long long)m->waited_for.ns);
	else
		printf("null");
	printf(",\"messages\":{\"sent\":%llu,\"received\":%llu,\"matched\":%llu},"
	       "\"collectives\":{\"instances\":%llu,\"incomplete\":%llu}}",
	       (unsigned long long)m->sends, (unsigned long long)m->recvs,
	       (unsigned long long)m->matched, (unsigned long long)m->instances,
	       (unsigned long long)m->instances_incomplete);
}

void ht_report_mpi_print(const struct ht_report *r, enum ht_report_mpi_format f)
{
	if (!r->mpi)
		return;
	if (f == HT_REPORT_MPI_TEXT)
		text(r->mpi);
	else if (f == HT_REPORT_MPI_CSV)
		csv(r->mpi);
	else
		json(r->mpi);
}

/* ---- `mpirun -np K hetrace report` ---- */

static const struct ht_mpi_reduce_ops reduce_ops = {
    .compute_one = ht_report_compute_one_part,
    .put = ht_report_wire_put,
    .get = ht_report_wire_get,
    .merge = ht_report_merge,
    .merge_done = ht_report_merge_done,
    .part_base = ht_report_part_base,
    .release = ht_report_release,
};

/* Return: libhetrace-mpireduce.so's entry point, from <dir of hetrace>/../lib; NULL with why. */
static ht_mpi_reduce_report_fn reduce_entry(char *why, size_t cap)
{
	char exe[PATH_MAX], lib[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash;
	void *h;

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	snprintf(lib, sizeof lib, "%s/../lib/libhetrace-mpireduce.so", exe);
	/* global: Open MPI's components resolve libmpi's symbols through it */
	h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		snprintf(why, cap, "%s", dlerror());
		return NULL;
	}
	return (ht_mpi_reduce_report_fn)(uintptr_t)dlsym(h, HT_MPI_REDUCE_SYMBOL);
}

int ht_report_mpi_compute(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err)
{
	struct ht_mpi_launcher l;
	ht_mpi_reduce_report_fn reduce;
	char why[512] = "no entry point";

	if (ht_mpi_launcher_get(&l) != 1 || l.size <= 1)
		return ht_report_compute(t, r, err);
	if (t->nparts <= 1) /* one recording: nothing to share out */
		return l.rank ? 1 : ht_report_compute(t, r, err);
	reduce = reduce_entry(why, sizeof why);
	if (reduce)
		return reduce(&reduce_ops, t, r, err);
	if (l.rank)
		return 1;
	ht_error("cannot compute the report over %d ranks (%s); rank 0 computes it alone "
		 "(run 'hetrace report' without mpirun, or build hetrace with Open MPI)",
		 l.size, why);
	return ht_report_compute(t, r, err);
}
