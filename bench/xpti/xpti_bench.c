/*
 * xpti-bench: the XPTI framework's performance harness (the seed's run_test, rewritten).
 * It is linked like an instrumented program, through the static proxy, so every number
 * includes the proxy's forwarding. Test 1 measures the data structures (string insert/lookup,
 * trace point create / re-create / find by unique_id / locally cached, notification); test 2
 * measures the composite framework cost per notification (N trace points created, M visits
 * notified as begin/end pairs) and projects events/s for handler costs of 10..1000 ns at the
 * given overhead: events/s = 1e9 / ((A + C) * 100 / overhead). Every cell is the median of
 * --repeat runs; each run starts from xptiReset. The output says whether a subscriber was
 * loaded or tracing had to be forced on, and when threads outnumber cores.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xpti/xpti_trace_framework.h>

#include "xpti_bench.h"

#define STREAM "xpti"

static const uint16_t bench_types[] = {
    XPTI_TRACE_GRAPH_CREATE, XPTI_TRACE_NODE_CREATE,   XPTI_TRACE_EDGE_CREATE,
    XPTI_TRACE_REGION_BEGIN, XPTI_TRACE_REGION_END,    XPTI_TRACE_TASK_BEGIN,
    XPTI_TRACE_TASK_END,     XPTI_TRACE_BARRIER_BEGIN, XPTI_TRACE_BARRIER_END,
    XPTI_TRACE_LOCK_BEGIN,   XPTI_TRACE_LOCK_END,      XPTI_TRACE_TRANSFER_BEGIN,
    XPTI_TRACE_TRANSFER_END, XPTI_TRACE_THREAD_BEGIN,  XPTI_TRACE_THREAD_END,
    XPTI_TRACE_WAIT_BEGIN,   XPTI_TRACE_WAIT_END,      XPTI_TRACE_SIGNAL,
};
#define NTYPES (sizeof(bench_types) / sizeof(bench_types[0]))

enum {
	C_INSERT,
	C_LOOKUP,
	C_INSLU,
	C_CREATE,
	C_RECREATE,
	C_FIND,
	C_LOCAL,
	C_NOTIFY,
	C_SCOPE,
	C_COMPOSITE,
	C_T2CREATE,
	C_COUNT
};

struct bench {
	int n, m;
	char **names, **names2;
	xpti_string_id_t *ids;
	xpti_trace_event_data_t **events;
	uint64_t *uids;
	uint32_t *rnd_n; /* 2N random indexes in [0, N) */
	uint32_t *rnd_m; /* M random indexes in [0, N) */
	uint8_t sid;
	bool forced; /* no subscriber: tracing forced on, harness callbacks */
	int own_cbs; /* trace types the harness had to subscribe itself */
};

static volatile uintptr_t sink;

static void bench_null_cb(uint16_t tt, xpti_trace_event_data_t *parent,
			  xpti_trace_event_data_t *event, uint64_t instance, const void *user_data)
{
	(void)tt, (void)parent, (void)event, (void)instance, (void)user_data;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- a phase: fn over [0, total) split across threads ---- */

typedef void (*phase_fn)(struct bench *b, int lo, int hi);

struct worker {
	struct bench *b;
	phase_fn fn;
	int lo, hi;
	pthread_barrier_t *start;
	double ns;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	double t0;

	pthread_barrier_wait(w->start);
	t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	w->fn(w->b, w->lo, w->hi);
	w->ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	return NULL;
}

/*
 * Return: nanoseconds spent: wall time for threads == 0 (serial, no pool), otherwise the
 * CPU time of the workers summed (so time-sliced threads are charged for work, not waiting).
 */
static double run_phase(struct bench *b, int threads, int total, phase_fn fn)
{
	struct worker w[1024];
	pthread_t th[1024];
	pthread_barrier_t start;
	double sum = 0, t0;

	if (threads == 0) {
		t0 = now_ns(CLOCK_MONOTONIC);
		fn(b, 0, total);
		return now_ns(CLOCK_MONOTONIC) - t0;
	}
	pthread_barrier_init(&start, NULL, (unsigned int)threads);
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){b,
				       fn,
				       (int)((long)total * i / threads),
				       (int)((long)total * (i + 1) / threads),
				       &start,
				       0};
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		sum += w[i].ns;
	}
	pthread_barrier_destroy(&start);
	return sum;
}

/* ---- the operations ---- */

static void op_insert(struct bench *b, int lo, int hi)
{
	char *p;

	for (int i = lo; i < hi; i++)
		b->ids[i] = xptiRegisterString(b->names[i], &p);
}

static void op_insert2(struct bench *b, int lo, int hi)
{
	char *p;

	for (int i = lo; i < hi; i++)
		sink ^= xptiRegisterString(b->names2[i], &p);
}

static void op_lookup(struct bench *b, int lo, int hi)
{
	uintptr_t x = 0;

	for (int j = lo; j < hi; j++)
		x ^= (uintptr_t)xptiLookupString(b->ids[b->rnd_n[j]]);
	sink ^= x;
}

static void make_tp(struct bench *b, int i, const char *file)
{
	xpti_payload_t p;
	uint64_t inst;

	xpti_payload_init_source(&p, b->names[i], file, (uint32_t)i, (uint32_t)(i % 80), NULL);
	b->events[i] =
	    xptiMakeEvent(b->names[i], &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	b->uids[i] = b->events[i] ? b->events[i]->unique_id : 0;
}

static void op_create(struct bench *b, int lo, int hi)
{
	for (int i = lo; i < hi; i++)
		make_tp(b, i, "foo.cpp");
}

static void op_find(struct bench *b, int lo, int hi)
{
	uintptr_t x = 0;

	for (int j = lo; j < hi; j++)
		x ^= (uintptr_t)xptiFindEvent(b->uids[b->rnd_n[j]]);
	sink ^= x;
}

static void op_local(struct bench *b, int lo, int hi)
{
	uintptr_t x = 0;

	for (int j = lo; j < hi; j++)
		x ^= (uintptr_t)b->events[b->rnd_m[j]];
	sink ^= x;
}

static void op_notify(struct bench *b, int lo, int hi)
{
	for (int j = lo; j < hi; j++) {
		xpti_trace_event_data_t *ev = b->events[b->rnd_m[j]];

		xptiNotifySubscribers(b->sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, (uint64_t)j, NULL);
		xptiNotifySubscribers(b->sid, XPTI_TRACE_TASK_END, NULL, ev, (uint64_t)j, NULL);
	}
}

/* The seed's ScopedNotify: stream looked up by name, then begin and end. */
static void op_scope(struct bench *b, int lo, int hi)
{
	for (int j = lo; j < hi; j++) {
		xpti_trace_event_data_t *ev = b->events[b->rnd_m[j]];
		uint8_t sid = xptiRegisterStream(STREAM);

		xptiNotifySubscribers(sid, XPTI_TRACE_REGION_BEGIN, NULL, ev, (uint64_t)j, NULL);
		xptiNotifySubscribers(sid, XPTI_TRACE_REGION_END, NULL, ev, (uint64_t)j, NULL);
	}
}

/*
 * Test 2 per worker: create its share of trace points, then visit them (begin + end). The
 * creation time is accumulated in uids[n] (one spare slot) to report TP Create separately.
 */
static void op_composite(struct bench *b, int lo, int hi)
{
	/* lo/hi index the M visits; the trace points of this worker are the same share of N. */
	int tlo = (int)((long)lo * b->n / b->m), thi = (int)((long)hi * b->n / b->m);
	int span = thi > tlo ? thi - tlo : 1;
	double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

	for (int i = tlo; i < thi; i++)
		make_tp(b, i, "bar.cpp");
	__atomic_add_fetch((uint64_t *)&b->uids[b->n],
			   (uint64_t)(now_ns(CLOCK_THREAD_CPUTIME_ID) - t0), __ATOMIC_RELAXED);
	if (thi <= tlo)
		return;
	for (int j = lo; j < hi; j++) {
		xpti_trace_event_data_t *ev = b->events[tlo + (int)(b->rnd_m[j] % (uint32_t)span)];

		xptiNotifySubscribers(b->sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, (uint64_t)j, NULL);
		xptiNotifySubscribers(b->sid, XPTI_TRACE_TASK_END, NULL, ev, (uint64_t)j, NULL);
	}
}

/* ---- setup ---- */

static char *random_name(int i, int run)
{
	static const char al[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char buf[48];
	int len = 5 + (int)(rng() % 4), k;

	for (k = 0; k < len; k++)
		buf[k] = al[rng() % (sizeof(al) - 1)];
	snprintf(buf + k, sizeof(buf) - (size_t)k, "_%d_%d", i, run);
	return strdup(buf);
}

/* Fresh framework state for one run: reset, announce the stream, make sure it has callbacks. */
static void bench_fresh(struct bench *b, int run)
{
	xptiReset();
	xptiInitialize(STREAM, 20, 0, "xptiTests");
	b->sid = xptiRegisterStream(STREAM);
	b->own_cbs = 0;
	for (unsigned int i = 0; i < NTYPES; i++) {
		if (!xptiCheckTraceEnabled(b->sid, bench_types[i])) {
			xptiRegisterCallback(b->sid, bench_types[i], bench_null_cb);
			b->own_cbs++;
		}
	}
	for (int i = 0; i < b->n; i++) {
		free(b->names[i]);
		free(b->names2[i]);
		b->names[i] = random_name(i, run);
		b->names2[i] = random_name(i, run + 1000000);
	}
	memset(b->events, 0, sizeof(b->events[0]) * (size_t)b->n);
	memset(b->uids, 0, sizeof(b->uids[0]) * ((size_t)b->n + 1));
}

static void bench_free(struct bench *b)
{
	for (int i = 0; b->names && b->names2 && i < b->n; i++) {
		free(b->names[i]);
		free(b->names2[i]);
	}
	free(b->names);
	free(b->names2);
	free(b->ids);
	free(b->events);
	free(b->uids);
	free(b->rnd_n);
	free(b->rnd_m);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One run of test 1 or 2 with `threads` workers; fills out[C_*] in ns per op. */
static void bench_run(struct bench *b, int test, int threads, int run, double *out)
{
	double n = b->n, m = b->m;

	bench_fresh(b, run);
	if (test == 1) {
		out[C_INSERT] = run_phase(b, threads, b->n, op_insert) / n;
		out[C_LOOKUP] = run_phase(b, threads, 2 * b->n, op_lookup) / (2 * n);
		out[C_INSLU] = (run_phase(b, threads, b->n, op_insert2) +
				run_phase(b, threads, 2 * b->n, op_lookup)) /
			       (3 * n);
		out[C_CREATE] = run_phase(b, threads, b->n, op_create) / n;
		out[C_RECREATE] = run_phase(b, threads, b->n, op_create) / n;
		out[C_FIND] = run_phase(b, threads, b->n, op_find) / n;
		out[C_LOCAL] = run_phase(b, threads, b->m, op_local) / m;
		out[C_NOTIFY] = run_phase(b, threads, b->m, op_notify) / (2 * m);
		out[C_SCOPE] = run_phase(b, threads, b->m, op_scope) / m;
	} else {
		double total = run_phase(b, threads, b->m, op_composite);
		double create = (double)b->uids[b->n];

		out[C_COMPOSITE] = total / (2 * m);
		out[C_T2CREATE] = create / n;
	}
}

static double eps(double a, double c, double overhead)
{
	return 1e9 / ((a + c) * (100.0 / overhead));
}

static int semantic(struct bench *b, const struct ht_bench_opts *o)
{
	int fails = 0;

	for (int t = 0; t < o->ntests; t++) {
		int id = o->tests[t], pass = 0, total = 0;

		bench_fresh(b, t);
		if (id == 1) {
			char *p, *q;

			for (int i = 0; i < b->n; i++) {
				xpti_string_id_t sid = xptiRegisterString(b->names[i], &p);

				total += 3;
				pass += sid != XPTI_INVALID_ID && p && !strcmp(p, b->names[i]);
				pass += xptiLookupString(sid) == p;
				pass += xptiRegisterString(b->names[i], &q) == sid && q == p;
			}
			printf("semantic 1 (string table, %d strings): %.2f%% pass\n", b->n,
			       100.0 * pass / total);
		} else if (id == 2) {
			for (int i = 0; i < b->n; i++)
				make_tp(b, i, "foo.cpp");
			for (int i = 0; i < b->n; i++) {
				xpti_trace_event_data_t *ev = b->events[i];
				const xpti_payload_t *p, *p0;

				/* each visit is a new instance of the same trace point */
				make_tp(b, i, "foo.cpp");
				p = xptiQueryPayload(b->events[i]);
				p0 = ev ? xptiQueryPayload(ev) : NULL;
				total += 3;
				pass += ev && b->events[i] && b->events[i] != ev && p && p0 &&
					p->uid.p1 == p0->uid.p1 && p->uid.p2 == p0->uid.p2 &&
					b->events[i]->instance_id == 2;
				pass += ev && xptiFindEvent(ev->unique_id) == ev &&
					xptiFindEvent(b->events[i]->unique_id) == b->events[i];
				pass +=
				    p && !strcmp(p->name, b->names[i]) && p->line_no == (uint32_t)i;
			}
			printf("semantic 2 (trace points, %d): %.2f%% pass\n", b->n,
			       100.0 * pass / total);
		} else if (id == 3) {
			int ntp = b->n < 30 ? b->n : 30;

			for (int v = 1; v <= 30; v++) {
				for (int i = 0; i < ntp; i++) {
					xpti_payload_t p;
					uint64_t inst;
					xpti_trace_event_data_t *ev;

					xpti_payload_init_source(&p, b->names[i], "n.cpp", 1, 0,
								 NULL);
					ev = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM,
							   XPTI_ACTIVITY_ACTIVE, &inst);
					total += 2;
					pass += ev && inst == (uint64_t)v;
					pass += xptiNotifySubscribers(b->sid, XPTI_TRACE_TASK_BEGIN,
								      NULL, ev, inst,
								      NULL) == XPTI_RESULT_SUCCESS;
				}
			}
			printf("semantic 3 (notifications, %d trace points x 30 visits): %.2f%% "
			       "pass\n",
			       ntp, 100.0 * pass / total);
		} else {
			printf("semantic %d: no such test (1-3)\n", id);
			continue;
		}
		fails += pass != total;
	}
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	static double vals[C_COUNT][64];
	struct ht_bench_opts o;
	struct bench b;
	static double med[3][HT_BENCH_MAX_LIST][C_COUNT];
	static bool measured[3][HT_BENCH_MAX_LIST];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *disp;
	char self[4096], guess[4200];
	ssize_t len;
	bool subscriber;
	int rc = ht_bench_parse(argc, argv, &o), maxthreads = 0;
	uint32_t maj = 0, min = 0, patch = 0;

	if (rc)
		return rc;
	/* Default to the dispatcher next to this binary (build/bin -> build/lib). */
	disp = getenv("XPTI_FRAMEWORK_DISPATCHER");
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if ((!disp || !disp[0]) && len > 0) {
		self[len] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(guess, sizeof(guess), "%s/../lib/libxptifw.so", self);
		if (access(guess, R_OK) == 0)
			setenv("XPTI_FRAMEWORK_DISPATCHER", guess, 1);
	}
	disp = getenv("XPTI_FRAMEWORK_DISPATCHER");
	xptiGetVersion(&maj, &min, &patch);
	subscriber = xptiTraceEnabled();
	if (!subscriber)
		xptiForceSetTraceEnabled(true);

	memset(&b, 0, sizeof(b));
	b.n = o.trace_points;
	b.m = o.tp_frequency > 0 ? (int)(b.n * (100.0 / o.tp_frequency)) : 10 * b.n;
	b.forced = !subscriber;
	b.names = calloc((size_t)b.n, sizeof(char *));
	b.names2 = calloc((size_t)b.n, sizeof(char *));
	b.ids = calloc((size_t)b.n, sizeof(*b.ids));
	b.events = calloc((size_t)b.n, sizeof(*b.events));
	b.uids = calloc((size_t)b.n + 1, sizeof(*b.uids));
	b.rnd_n = calloc(2 * (size_t)b.n, sizeof(*b.rnd_n));
	b.rnd_m = calloc((size_t)b.m, sizeof(*b.rnd_m));
	if (!b.names || !b.names2 || !b.ids || !b.events || !b.uids || !b.rnd_n || !b.rnd_m) {
		fprintf(stderr, "xpti-bench: out of memory\n");
		bench_free(&b);
		return 1;
	}
	for (int i = 0; i < 2 * b.n; i++)
		b.rnd_n[i] = (uint32_t)(rng() % (uint64_t)b.n);
	for (int i = 0; i < b.m; i++)
		b.rnd_m[i] = (uint32_t)(rng() % (uint64_t)b.n);

	printf("xpti-bench: dispatcher %s (version %u.%u.%u), called through the static proxy\n",
	       disp && disp[0] ? disp : "none: the proxy is inert, this measures the disabled path",
	       maj, min, patch);
	bench_fresh(&b, 0);
	if (subscriber)
		printf("xpti-bench: subscriber loaded: yes (XPTI_SUBSCRIBERS), tracing enabled; "
		       "%d of %zu trace types needed harness callbacks\n",
		       b.own_cbs, NTYPES);
	else
		printf("xpti-bench: subscriber loaded: NO; tracing forced on with "
		       "xptiForceSetTraceEnabled and the harness registered its own empty "
		       "callbacks\n");
	for (int t = 0; t < o.nthreads; t++)
		if (o.threads[t] > maxthreads)
			maxthreads = o.threads[t];
	if (maxthreads > 1024) {
		fprintf(stderr, "xpti-bench: at most 1024 threads\n");
		bench_free(&b);
		return 2;
	}
	printf("xpti-bench: %ld CPU cores online", cores);
	if (maxthreads > cores)
		printf("; NOTE: up to %d threads are measured on %ld cores, so threads are "
		       "time-sliced",
		       maxthreads, cores);
	printf(
	    "\nxpti-bench: threads 0 = serial (wall time); threads >= 1 = worker CPU time summed "
	    "over threads, per op\n");

	if (o.semantic) {
		rc = semantic(&b, &o);
		xptiFrameworkFinalize();
		bench_free(&b);
		return rc;
	}

	for (int ti = 0; ti < o.ntests; ti++) {
		int test = o.tests[ti];

		if (test != 1 && test != 2) {
			printf("performance test %d: no such test (1-2)\n", test);
			continue;
		}
		printf("\nTest %d: %s, N=%d trace points, M=%d visits, median of %d runs, ns/op\n",
		       test, test == 1 ? "data structures" : "instrumentation", b.n, b.m, o.repeat);
		if (test == 1)
			printf("%7s | %10s | %10s | %9s | %9s | %12s | %12s | %8s | %6s | %11s\n",
			       "Threads", "Str.Insert", "Str.Lookup", "St.Ins/Lu", "TP Create",
			       "TP Un-Cached", "TP FW-Cached", "TP Local", "Notify", "Scope(seed)");
		else
			printf("%7s | %16s | %13s | %10s | %11s | %11s | %12s\n", "Threads",
			       "TP LU+Notify(ns)", "TP Create(ns)", "Ev/s,cb=10", "Ev/s,cb=100",
			       "Ev/s,cb=500", "Ev/s,cb=1000");
		for (int t = 0; t < o.nthreads; t++) {
			int threads = o.threads[t];
			double one[C_COUNT] = {0}, *mt = med[test][t];

			for (int r = 0; r < o.repeat; r++) {
				bench_run(&b, test, threads, r + 1, one);
				for (int c = 0; c < C_COUNT; c++)
					vals[c][r] = one[c];
				if (o.verbose)
					fprintf(stderr,
						"  run %d threads %d: notify %.2f composite %.2f\n",
						r, threads, one[C_NOTIFY], one[C_COMPOSITE]);
			}
			for (int c = 0; c < C_COUNT; c++)
				mt[c] = median(vals[c], o.repeat);
			measured[test][t] = true;
			if (test == 1) {
				printf("%7d | %10.1f | %10.1f | %9.1f | %9.1f | %12.1f | %12.1f | "
				       "%8.1f | %6.1f | %11.1f\n",
				       threads, mt[C_INSERT], mt[C_LOOKUP], mt[C_INSLU],
				       mt[C_CREATE], mt[C_RECREATE], mt[C_FIND], mt[C_LOCAL],
				       mt[C_NOTIFY], mt[C_SCOPE]);
			} else {
				double a = mt[C_COMPOSITE];

				printf(
				    "%7d | %16.1f | %13.1f | %10.0f | %11.0f | %11.0f | %12.0f\n",
				    threads, a, mt[C_T2CREATE], eps(a, 10, o.overhead),
				    eps(a, 100, o.overhead), eps(a, 500, o.overhead),
				    eps(a, 1000, o.overhead));
			}
		}
		if (test == 1)
			printf(
			    "Notify = one notification (begin and end counted separately), stream "
			    "id cached; Scope(seed) = the seed's scoped notify (stream looked up "
			    "by name + begin + end) per scope\n");
		else
			printf(
			    "TP LU+Notify = (N creates + M begin/end pairs) / 2M; events/s = 1e9 / "
			    "((A + C) * 100 / %.2f)\n",
			    o.overhead);
	}

	if (o.summary) {
		double notify = -1, composite = -1, lookup = -1, create = -1, t4 = -1;

		for (int t = 0; t < o.nthreads; t++) {
			if (o.threads[t] == 0 && measured[1][t]) {
				notify = med[1][t][C_NOTIFY];
				lookup = med[1][t][C_LOOKUP];
				create = med[1][t][C_CREATE];
			}
			if (o.threads[t] == 0 && measured[2][t])
				composite = med[2][t][C_COMPOSITE];
			if (o.threads[t] == 4 && measured[1][t])
				t4 = med[1][t][C_NOTIFY];
		}
		printf("xpti-bench: notify_ns=%.1f composite_ns=%.1f lookup_ns=%.1f create_ns=%.1f "
		       "eps_1pct_10ns=%.0f threads4_notify_ns=%.1f\n",
		       notify, composite, lookup, create,
		       composite > 0 ? eps(composite, 10, 1.0) : -1, t4);
	}
	xptiFrameworkFinalize();
	bench_free(&b);
	return 0;
}
