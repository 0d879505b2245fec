/*
 * hetrace info DIR: what a trace holds, per process: command line, threads,
 * streams, events per class, losses and time span, OS scheduling (or why it
 * was not recorded), plus the recording's clock, exit status and the
 * processes that ran untraced, from the index.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/escape.h"
#include "analysis/lifetimes.h"
#include "analysis/report.h"
#include "analysis/summary.h"
#include "cli/cli.h"
#include "cli/info_life.h"

/* A trace's string as a terminal may show it (its control characters escaped). */
#define T(s) ht_term_tmp(s)

static void print_time(const char *label, uint64_t ns, int64_t mono_to_real)
{
	time_t secs = (time_t)(((int64_t)ns + mono_to_real) / 1000000000);
	struct tm tm;
	char buf[64];

	gmtime_r(&secs, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
	printf("%s%s.%06llu UTC", label, buf,
	       (unsigned long long)((((int64_t)ns + mono_to_real) % 1000000000) / 1000));
}

/*
 * session: the trace is a session's (its index says how it ended, "session
 * stopped" or "daemon died"): a process without an exit record most often
 * ran on past the session's end.
 */
static void print_process(const struct ht_trace_process *p, const struct ht_proc_summary *s,
			  int64_t m2r, int session)
{
	char dur[32];
	const char *sep = "";

	printf("\nprocess %d %s", s->pid, T(s->comm[0] ? s->comm : p->name));
	if (s->ppid)
		printf(" (parent %d)", s->ppid);
	printf("\n  directory   %s\n", T(p->name));
	if (s->cmdline[0])
		printf("  command     %s\n", T(s->cmdline));
	if (s->events) {
		ht_fmt_duration(dur, sizeof dur, (double)(s->last_ns - s->first_ns));
		print_time("  span        ", s->first_ns, m2r);
		printf(" + %s\n", dur);
	}
	printf("  streams     %u (%u thread, %u device, process%s)\n",
	       s->streams[HT_SC_THREAD] + s->streams[HT_SC_DEVICE] + s->os_streams,
	       s->streams[HT_SC_THREAD] ? s->streams[HT_SC_THREAD] - 1 : 0,
	       s->streams[HT_SC_DEVICE], s->os_streams ? ", os" : "");
	printf("  threads     %u:", s->nthreads);
	for (unsigned int i = 0; i < s->nthreads; i++)
		printf(" %d %s (%llu events)%s", s->threads[i].tid, T(s->threads[i].name),
		       (unsigned long long)s->threads[i].events, i + 1 < s->nthreads ? "," : "");
	printf("\n  events      %llu:", (unsigned long long)s->events);
	for (uint32_t id = 0; id < HT_EV_THREAD_COUNT; id++)
		if (s->events_thread[id]) {
			printf("%s %s %llu", sep, ht_format_event_class(HT_SC_THREAD, id)->name,
			       (unsigned long long)s->events_thread[id]);
			sep = ",";
		}
	for (uint32_t id = 0; id < HT_EV_DEVICE_COUNT; id++)
		if (s->events_device[id]) {
			printf("%s %s %llu", sep, ht_format_event_class(HT_SC_DEVICE, id)->name,
			       (unsigned long long)s->events_device[id]);
			sep = ",";
		}
	if (s->mem_launches) /* the accesses of the mem_accesses events' runs */
		printf("\n  memory      %llu accesses recorded in %llu launches",
		       (unsigned long long)s->mem_accesses, (unsigned long long)s->mem_launches);
	printf("\n  lost        %llu events discarded by the recorder",
	       (unsigned long long)s->discarded);
	if (s->lost[HT_LOST_NO_STREAM]) /* part of the process stream's events_discarded */
		printf(" (%llu of them from threads without a stream)",
		       (unsigned long long)s->lost[HT_LOST_NO_STREAM]);
	if (s->lost[HT_LOST_DEVICE_TIMESTAMP])
		printf(", %llu device records without timestamps",
		       (unsigned long long)s->lost[HT_LOST_DEVICE_TIMESTAMP]);
	if (s->lost[HT_LOST_DEVICE_RECORD])
		printf(", %llu device records dropped",
		       (unsigned long long)s->lost[HT_LOST_DEVICE_RECORD]);
	if (s->lost[HT_LOST_OS_RECORD])
		printf(", %llu OS records", (unsigned long long)s->lost[HT_LOST_OS_RECORD]);
	if (s->lost[HT_LOST_MEMORY_ACCESS])
		printf(", %llu memory accesses dropped (the channel was full: --mode block waits)",
		       (unsigned long long)s->lost[HT_LOST_MEMORY_ACCESS]);
	if (s->torn_streams)
		printf(", %u torn packet%s at stream ends (%llu bytes; their events are lost)",
		       s->torn_streams, s->torn_streams == 1 ? "" : "s",
		       (unsigned long long)s->torn_bytes);
	printf("\n  size        %.1f KiB, %llu strings\n", (double)s->bytes / 1024,
	       (unsigned long long)s->strings);
	for (unsigned int i = 0; i < s->ndevices; i++) {
		const struct ht_device_summary *d = &s->devices[i];
		static const char *const q[] = {"no samples", "one-sided", "ok", "inconsistent"};
		char off[32], bound[32], drift[128];

		ht_fmt_duration(off, sizeof off, fabs(ht_clock_map_offset_ns(&d->map)));
		if (isnan(d->map.bound_ns))
			snprintf(bound, sizeof bound, "unknown");
		else
			ht_fmt_duration(bound, sizeof bound, d->map.bound_ns);
		ht_clock_map_drift_text(drift, sizeof drift, &d->map);
		printf("  device %-4u %s: %llu commands; clock %s: offset %s%s, %s, bound +-%s "
		       "(%llu samples)\n",
		       d->device, T(d->name[0] ? d->name : "?"), (unsigned long long)d->commands,
		       q[d->map.quality], ht_clock_map_offset_ns(&d->map) < 0 ? "-" : "+", off,
		       drift, bound, (unsigned long long)d->map.samples);
	}
	if (s->os_note[0] && s->os_note_kind != HT_OS_ON)
		printf("  os          %s\n", T(s->os_note)); /* the recorder notes it once */
	else if (s->events_thread[HT_EV_CPU_STATE])
		printf("  os          %llu CPU-state intervals (running/preempted/blocked)%s%s%s\n",
		       (unsigned long long)s->events_thread[HT_EV_CPU_STATE],
		       s->os_note[0] ? " from " : "", s->os_note, /* the method */
		       s->lost[HT_LOST_OS_RECORD] ? ", with gaps where OS records were lost" : "");
	if (!s->have_exit && s->have_exec)
		printf("  note        this image ended in exec: the process goes on in the "
		       "directory of its next image (same pid)\n");
	else if (!s->have_exit && session)
		printf("  note        no exit record: the process was still running when the "
		       "session ended (recorded until then), or it crashed, was killed or "
		       "called _exit()\n");
	else if (!s->have_exit)
		printf("  note        no exit record: the process crashed, was killed, or "
		       "called _exit()\n");
	if (s->raw_packets)
		printf("  warning     %llu packets still hold raw counter timestamps; run "
		       "'hetrace check --repair'\n",
		       (unsigned long long)s->raw_packets);
	if (s->torn_streams)
		printf("  warning     %u stream(s) end in a torn packet; run 'hetrace check "
		       "--repair'\n",
		       s->torn_streams);
}

/* info's ways out before anything is printed: what it holds, released. Return: status. */
static int give_up(struct ht_trace *t, struct ht_proc_summary *sums, struct ht_life *lives,
		   int32_t *pids, int status)
{
	for (unsigned int i = 0; sums && i < t->nprocs; i++)
		ht_summary_release(&sums[i]);
	free(sums);
	free(lives);
	free(pids);
	ht_trace_close(t);
	return status;
}

int ht_cmd_info(int argc, char **argv)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	char buf[8192], clock[32] = "", hz[32] = "";
	int64_t m2r = 0, start_mono = 0, end_mono = 0;
	uint64_t events = 0, lost = 0, torn_bytes = 0;
	unsigned int threads = 0, torn = 0, processes;
	int32_t *pids;
	struct ht_proc_summary *sums;
	struct ht_life *lives;
	int rc, status = 0, lrc, session = 0;

	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: hetrace info DIR");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-')
		return ht_usage_error("info", argc < 2 ? "no trace directory given"
						       : "expected exactly one trace directory");
	rc = ht_trace_open(&t, argv[1], &err);
	if (rc) {
		if (rc == -ENOENT && err.file[0] && !strcmp(err.file, argv[1]))
			return ht_error("cannot open trace '%s': %s", argv[1], err.msg);
		return ht_error("cannot open trace '%s': %s: %s", argv[1], err.file, err.msg);
	}
	sums = calloc(t->nprocs ? t->nprocs : 1, sizeof *sums);
	lives = calloc(t->nprocs ? t->nprocs : 1, sizeof *lives);
	pids = calloc(t->nprocs ? t->nprocs : 1, sizeof *pids);
	if (!sums || !lives || !pids)
		return give_up(t, sums, lives, pids, ht_error("out of memory"));
	if (!ht_trace_index_get(t, "exit", buf, sizeof buf))
		session = !strcmp(buf, "session stopped") || !strcmp(buf, "daemon died");
	rc = ht_summary_compute(t, sums, &err);
	lrc = rc ? -1 : ht_lifetimes_compute(t, lives, &err);
	if (rc && !err.file[0]) /* nothing read (the environment): nothing to show */
		return give_up(t, sums, lives, pids, ht_read_error_print(argv[1], &err));
	printf("trace       %s\n", T(argv[1]));
	if (!ht_trace_index_get(t, "command", buf, sizeof buf))
		printf("command     %s\n", T(buf));
	if (!ht_trace_index_get(t, "start_realtime_ns", buf, sizeof buf)) {
		int64_t real = strtoll(buf, NULL, 10);

		if (!ht_trace_index_get(t, "start_monotonic_ns", buf, sizeof buf))
			start_mono = strtoll(buf, NULL, 10);
		m2r = real - start_mono;
		print_time("recorded    ", (uint64_t)start_mono, m2r);
		if (!ht_trace_index_get(t, "end_monotonic_ns", buf, sizeof buf)) {
			char dur[32];

			end_mono = strtoll(buf, NULL, 10);
			ht_fmt_duration(dur, sizeof dur, (double)(end_mono - start_mono));
			printf(", for %s", dur);
		}
		if (!ht_trace_index_get(t, "exit", buf, sizeof buf)) {
			char code[16] = "";

			ht_trace_index_get(t, "exit_status", code, sizeof code);
			printf(", %s (status %s)", buf, code);
		} else {
			printf(", did not finish (hetrace record was killed?)");
		}
		putchar('\n');
	}
	ht_trace_index_get(t, "clock", clock, sizeof clock);
	ht_trace_index_get(t, "tsc_hz", hz, sizeof hz);
	if (clock[0])
		printf("clock       %s%s%s%s, stored as CLOCK_MONOTONIC ns\n", clock,
		       strcmp(clock, "tsc") ? "" : " at ", strcmp(clock, "tsc") ? "" : hz,
		       strcmp(clock, "tsc") ? "" : " Hz");
	/* children that could not write into the trace (record noted them) */
	for (unsigned int i = 0; !ht_trace_index_get_nth(t, "untraced", i, buf, sizeof buf); i++)
		printf("untraced    %s\n", T(buf));
	for (unsigned int i = 0; i < t->nprocs; i++) {
		struct ht_proc_summary *s = &sums[i];

		print_process(&t->procs[i], s, m2r, session);
		if (!lrc)
			ht_info_life_print(&lives[i], s->have_exit);
		ht_lifetimes_release(&lives[i]);
		events += s->events;
		lost += s->discarded;
		threads += s->nthreads;
		torn += s->torn_streams;
		torn_bytes += s->torn_bytes;
		pids[i] = s->pid;
		ht_summary_release(s);
	}
	free(sums);
	free(lives);
	if (!rc && lrc)
		rc = lrc;
	if (rc) {
		ht_read_error_print(argv[1], &err);
		status = 1;
	}
	processes = ht_count_processes(pids, t->nprocs);
	free(pids);
	printf("\ntotal       %u process%s", processes, processes == 1 ? "" : "es");
	if (t->nprocs > processes)
		printf(" (%u images: exec)", t->nprocs);
	printf(", %u thread%s, %llu events, %llu lost", threads, threads == 1 ? "" : "s",
	       (unsigned long long)events, (unsigned long long)lost);
	if (torn)
		printf(" + the events of %u torn packet%s (%llu bytes)", torn, torn == 1 ? "" : "s",
		       (unsigned long long)torn_bytes);
	putchar('\n');
	ht_trace_close(t);
	return status;
}
