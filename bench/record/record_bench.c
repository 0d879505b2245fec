/*
 * Recording benchmark program (run by bench/record.sh): emits N events per
 * thread in a tight loop and prints one `result` line with the time per
 * event, measured with CLOCK_MONOTONIC around the loop. Built twice from this
 * file: ht-bench-record emits hetrace annotations; ht-bench-record-lttng
 * (HT_BENCH_LTTNG) emits an LTTng-UST tracepoint with the same payload. The
 * loop, the threads and the timing are the same in both; only the event
 * differs.
 *
 *   ht-bench-record --mode MODE [--threads T] [--events N] [--rate R] [--rss]
 *
 *   counter   HT_COUNTER("bench.value", i): u32 name id + i64 value (the
 *             two-integer payload; 16 bytes with its compact header)
 *   region    HT_REGION_BEGIN / HT_REGION_END("bench.region") alternately:
 *             u32 name id (8 bytes with the header)
 *   instant2  HT_INSTANT_ARGS("bench.instant", two ht_arg_int)
 *   empty     the same loop without an event (the baseline)
 *   lttng     tracepoint(ht_bench, value, id, i) (LTTng build only)
 *
 * N counts events per thread (a region pair is two). --rate paces each
 * thread to R events/s with the clock, in batches of 256 events. The first
 * thread is the main thread, so a 1-thread run is a single-threaded process.
 * --rss keeps every thread alive after its loop until the process's resident
 * memory (VmRSS) is read and printed (rss_kb): what tracing costs in memory.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HT_BENCH_LTTNG
#include "lttng_tp.h"
#else
#include "hetrace/hetrace.h"
#endif

#define MAX_THREADS   256
#define WARMUP_EVENTS 1024 /* per thread, before the clock starts (creates the stream) */
#define PACE_BATCH    256

typedef void (*loop_fn)(uint64_t i, uint64_t end);

/*
 * The empty asm makes the compiler assume i changes, so every loop runs each
 * iteration as written: no vectorising, no collapsing the trip count.
 */
#define BENCH_LOOP(name, event)                                                                    \
	static void loop_##name(uint64_t i, uint64_t end)                                          \
	{                                                                                          \
		for (; i < end; i++) {                                                             \
			event;                                                                     \
			__asm__ volatile("" : "+r"(i));                                            \
		}                                                                                  \
	}

BENCH_LOOP(empty, (void)0)

#ifdef HT_BENCH_LTTNG
BENCH_LOOP(lttng, tracepoint(ht_bench, value, 1u, (int64_t)i))
#else
BENCH_LOOP(counter, HT_COUNTER("bench.value", i))
BENCH_LOOP(region, if (i & 1) HT_REGION_END("bench.region"); else HT_REGION_BEGIN("bench.region"))
BENCH_LOOP(instant2,
	   HT_INSTANT_ARGS("bench.instant", ht_arg_int("a", (int64_t)i), ht_arg_int("b", 7)))
#endif

static const struct mode {
	const char *name;
	loop_fn fn;
} modes[] = {
    {"empty", loop_empty},
#ifdef HT_BENCH_LTTNG
    {"lttng", loop_lttng},
#else
    {"counter", loop_counter},
    {"region", loop_region},
    {"instant2", loop_instant2},
#endif
};

struct worker {
	pthread_t thread;
	loop_fn fn;
	uint64_t n;
	double rate; /* events/s, 0 for as fast as possible */
	pthread_barrier_t *start;
	pthread_barrier_t *held; /* --rss: all wait here twice; RSS is read in between */
	long *rss_kb;		 /* set by the first thread (the main one) */
	uint64_t t0, t1;	 /* CLOCK_MONOTONIC ns around the measured loop */
	uint64_t max_lag;	 /* ns the paced loop fell behind its schedule, at most */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_paced(struct worker *w)
{
	uint64_t done = 0, t;

	while (done < w->n) {
		uint64_t next = done + PACE_BATCH < w->n ? done + PACE_BATCH : w->n;
		uint64_t due = w->t0 + (uint64_t)((double)done * 1e9 / w->rate);

		t = now_ns();
		if (t > due && t - due > w->max_lag)
			w->max_lag = t - due;
		while (t < due)
			t = now_ns();
		w->fn(done, next);
		done = next;
	}
}

/* Return: VmRSS of this process in KiB, or -1. */
static long rss_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->fn(0, WARMUP_EVENTS);
	pthread_barrier_wait(w->start);
	w->t0 = now_ns();
	if (w->rate > 0)
		run_paced(w);
	else
		w->fn(0, w->n);
	w->t1 = now_ns();
	if (w->held) {
		pthread_barrier_wait(w->held); /* every thread has written its events */
		if (w->rss_kb)
			*w->rss_kb = rss_kb();
		pthread_barrier_wait(w->held);
	}
	return NULL;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s --mode MODE [--threads T] [--events N] [--rate EVENTS_PER_S] [--rss]\n",
		argv0);
	fprintf(stderr, "modes:");
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		fprintf(stderr, " %s", modes[i].name);
	fputc('\n', stderr);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"mode", required_argument, 0, 'm'},
	    {"threads", required_argument, 0, 't'},
	    {"events", required_argument, 0, 'n'},
	    {"rate", required_argument, 0, 'r'},
	    {"rss", no_argument, 0, 's'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	static struct worker w[MAX_THREADS];
	pthread_barrier_t start, held;
	long rss = -1;
	int want_rss = 0;
	const char *mode = NULL;
	unsigned long threads = 1;
	uint64_t n = 10000000, t0 = UINT64_MAX, t1 = 0, lag = 0;
	double rate = 0, per_event = 0, wall;
	loop_fn fn = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "m:t:n:r:sh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			want_rss = 1;
			break;
		case 'm':
			mode = optarg;
			break;
		case 't':
			threads = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			/* strtod so that 1e9 works; exact for every count used here */
			n = (uint64_t)strtod(optarg, NULL);
			break;
		case 'r':
			rate = strtod(optarg, NULL);
			break;
		default:
			return usage(argv[0]);
		}
	}
	for (size_t i = 0; mode && i < sizeof modes / sizeof modes[0]; i++)
		if (!strcmp(mode, modes[i].name))
			fn = modes[i].fn;
	if (!fn || optind != argc || threads < 1 || threads > MAX_THREADS || n < 2 || rate < 0)
		return usage(argv[0]);

	pthread_barrier_init(&start, NULL, (unsigned int)threads);
	pthread_barrier_init(&held, NULL, (unsigned int)threads);
	for (unsigned long i = 0; i < threads; i++) {
		w[i] = (struct worker){.fn = fn, .n = n, .rate = rate, .start = &start};
		if (want_rss) {
			w[i].held = &held;
			w[i].rss_kb = i == 0 ? &rss : NULL;
		}
		if (i > 0 && (errno = pthread_create(&w[i].thread, NULL, worker_main, &w[i]))) {
			perror("ht-bench-record: pthread_create");
			return 1;
		}
	}
	worker_main(&w[0]);
	for (unsigned long i = 1; i < threads; i++)
		pthread_join(w[i].thread, NULL);
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&held);

	for (unsigned long i = 0; i < threads; i++) {
		per_event += (double)(w[i].t1 - w[i].t0) / (double)n / (double)threads;
		t0 = w[i].t0 < t0 ? w[i].t0 : t0;
		t1 = w[i].t1 > t1 ? w[i].t1 : t1;
		lag = w[i].max_lag > lag ? w[i].max_lag : lag;
	}
	wall = (double)(t1 - t0);
	/* ns_per_event: mean over threads of loop time / N; mevents_per_s: all threads together */
	printf("result mode=%s threads=%lu events_per_thread=%llu ns_per_event=%.3f wall_ms=%.3f "
	       "mevents_per_s=%.3f max_lag_us=%.1f rss_kb=%ld\n",
	       mode, threads, (unsigned long long)n, per_event, wall / 1e6,
	       (double)n * (double)threads / wall * 1e3, (double)lag / 1e3, rss);
	return 0;
}
