/*
 * An instrumented program for the recording-subscriber tests (xpti_record_*.sh): it links only
 * the static proxy, like a real runtime, and emits a known set of XPTI notifications on the
 * stream "ht.test" so that the tests can assert the exact trace `hetrace record` makes of them.
 *
 *   xpti_record_prog run     the scenario below; prints the unique ids it got, one line
 *   xpti_record_prog threads 4 threads notify at once: each 1000 x "shared" (one trace point for
 *                            all) and 100 x "own<i>" (an event per thread, created in the race)
 *   xpti_record_prog bench N N function_begin/end pairs on one event; prints ns/notification
 *
 * Scenario (counts are what the tests expect): function "alpha" (prog.c:10) x5, task "beta"
 * (prog.c:20) x3, function_begin/end with no event and user_data "fn_literal" x4, wait on a
 * payload without a name x2, function_with_args "fwa_name" x2, mem_alloc (no event) x1; a
 * graph "graph0" with metadata, nodes "node_a" (prog.c:31, 4 metadata entries) and "node_b"
 * (prog.c:32), an edge "edge_ab" node_a -> node_b (8 metadata entries, so its args overflow), a
 * signal on "sig0", a metadata notification on node_b, and a user-defined trace point of tool
 * "httool" (value 5). Without a dispatcher every call is inert and the program still runs.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xpti/xpti_trace_framework.h>

static uint8_t sid;

static xpti_trace_event_data_t *make(const char *name, const char *file, uint32_t line,
				     uint16_t type, uint64_t *inst)
{
	xpti_payload_t p;

	if (file)
		xpti_payload_init_source(&p, name, file, line, 0, NULL);
	else
		xpti_payload_init_name(&p, name);
	return xptiMakeEvent(name, &p, type, XPTI_ACTIVITY_ACTIVE, inst);
}

static uint64_t uid(const xpti_trace_event_data_t *e)
{
	return e ? e->unique_id : 0;
}

static void pair(uint16_t begin, xpti_trace_event_data_t *e, uint64_t inst, const void *ud)
{
	xptiNotifySubscribers(sid, begin, NULL, e, inst, ud);
	xptiNotifySubscribers(sid, (uint16_t)(begin | 1), NULL, e, inst, ud);
}

static int run(void)
{
	xpti_trace_event_data_t *alpha, *beta, *anon, *graph, *na, *nb, *edge, *sig, *ude;
	xpti_function_with_args_t fwa = {7, "fwa_name", NULL, NULL, NULL};
	xpti_mem_alloc_data_t mem = {0xaa, 0xbb00, 4096, 16, NULL};
	static const char fn_literal[] = "fn_literal";
	const unsigned char blob[3] = {0xde, 0xad, 0x01};
	xpti_payload_t ap;
	uint64_t inst = 0;
	uint16_t udt;

	for (int i = 0; i < 5; i++) {
		alpha = make("alpha", "prog.c", 10, XPTI_EVENT_ALGORITHM, &inst);
		pair(XPTI_TRACE_FUNCTION_BEGIN, alpha, inst, NULL);
	}
	for (int i = 0; i < 3; i++) {
		beta = make("beta", "prog.c", 20, XPTI_EVENT_ALGORITHM, &inst);
		pair(XPTI_TRACE_TASK_BEGIN, beta, inst, NULL);
	}
	for (int i = 0; i < 4; i++)
		pair(XPTI_TRACE_FUNCTION_BEGIN, NULL, xptiGetUniqueId(), fn_literal);
	xpti_payload_init_code_ptr(&ap, (const void *)&run);
	anon = xptiMakeEvent(NULL, &ap, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	pair(XPTI_TRACE_WAIT_BEGIN, anon, inst, NULL);
	pair(XPTI_TRACE_WAIT_BEGIN, anon, inst, NULL);
	pair(XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN, NULL, 1, &fwa);
	pair(XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN, NULL, 2, &fwa);
	pair(XPTI_TRACE_MEM_ALLOC_BEGIN, NULL, 3, &mem);

	graph = make("graph0", NULL, 0, XPTI_EVENT_GRAPH, &inst);
	xptiAddMetadataString(graph, "kind", "dag");
	xptiAddMetadataU64(graph, "nodes", 2);
	xptiNotifySubscribers(sid, XPTI_TRACE_GRAPH_CREATE, NULL, graph, inst, NULL);

	na = make("node_a", "prog.c", 31, XPTI_EVENT_GRAPH, &inst);
	xptiAddMetadataString(na, "kernel", "vadd");
	xptiAddMetadataI64(na, "prio", -3);
	xptiAddMetadataF64(na, "scale", 0.5);
	xptiAddMetadataBool(na, "async", true);
	xptiNotifySubscribers(sid, XPTI_TRACE_NODE_CREATE, graph, na, inst, NULL);
	nb = make("node_b", "prog.c", 32, XPTI_EVENT_GRAPH, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_NODE_CREATE, graph, nb, inst, NULL);

	edge = make("edge_ab", NULL, 0, XPTI_EVENT_GRAPH, &inst);
	if (edge) {
		edge->source_id = uid(na);
		edge->target_id = uid(nb);
	}
	xptiAddMetadataString(edge, "access", "read_write");
	xptiAddMetadataU64(edge, "bytes", 4096);
	xptiAddMetadataBinary(edge, "raw", blob, sizeof blob);
	for (int i = 0; i < 5; i++) {
		char key[8];

		snprintf(key, sizeof key, "k%d", i);
		xptiAddMetadataI64(edge, key, i);
	}
	xptiNotifySubscribers(sid, XPTI_TRACE_EDGE_CREATE, graph, edge, inst, NULL);

	sig = make("sig0", NULL, 0, XPTI_EVENT_ASYNC, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_SIGNAL, NULL, sig, inst, (const void *)0x1234);

	xptiAddMetadataString(nb, "late", "yes");
	xptiNotifySubscribers(sid, XPTI_TRACE_METADATA, NULL, nb, 1, NULL);

	udt = xptiRegisterUserDefinedTracePoint("httool", 5);
	ude = make("udt_event", NULL, 0, XPTI_EVENT_ALGORITHM, &inst);
	xptiNotifySubscribers(sid, udt, NULL, ude, inst, NULL);

	printf("uids alpha=%" PRIu64 " beta=%" PRIu64 " graph=%" PRIu64 " node_a=%" PRIu64
	       " node_b=%" PRIu64 " edge=%" PRIu64 " sig=%" PRIu64 " udt=%" PRIu64 " udtype=%u\n",
	       uid(alpha), uid(beta), uid(graph), uid(na), uid(nb), uid(edge), uid(sig), uid(ude),
	       (unsigned int)udt);
	return 0;
}

static void *thread_main(void *arg)
{
	char own[16];
	uint64_t inst;
	xpti_trace_event_data_t *e;

	snprintf(own, sizeof own, "own%d", (int)(intptr_t)arg);
	for (int i = 0; i < 1000; i++) {
		e = make("shared", "prog.c", 40, XPTI_EVENT_ALGORITHM, &inst);
		pair(XPTI_TRACE_REGION_BEGIN, e, inst, NULL);
		if (i % 10 == 0) {
			e = make(own, "prog.c", 41, XPTI_EVENT_ALGORITHM, &inst);
			pair(XPTI_TRACE_LOCK_BEGIN, e, inst, NULL);
		}
	}
	return NULL;
}

static int threads(void)
{
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i))
			return 1;
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void sort5(double *r)
{
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			if (r[j] < r[i]) {
				double t = r[i];

				r[i] = r[j];
				r[j] = t;
			}
}

/* Median of 5 runs of n notifications of each kind: nanoseconds per notification. */
static int bench(long n)
{
	uint64_t inst;
	xpti_trace_event_data_t *e = make("bench_fn", "bench.c", 1, XPTI_EVENT_ALGORITHM, &inst);
	xpti_trace_event_data_t *s = make("bench_sig", "bench.c", 2, XPTI_EVENT_ASYNC, &inst);
	double r[5], t;

	for (int k = 0; k < 5; k++) {
		t = now_ns();
		for (long i = 0; i < n; i++) {
			xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_BEGIN, NULL, e, inst, NULL);
			xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_END, NULL, e, inst, NULL);
		}
		r[k] = (now_ns() - t) / (2.0 * (double)n);
	}
	sort5(r);
	printf("bench: %.1f ns per begin/end notification", r[2]);
	for (int k = 0; k < 5; k++) {
		t = now_ns();
		for (long i = 0; i < n / 4; i++)
			xptiNotifySubscribers(sid, XPTI_TRACE_SIGNAL, NULL, s, inst, NULL);
		r[k] = (now_ns() - t) / (double)(n / 4);
	}
	sort5(r);
	printf(", %.1f ns per signal (5 args) (median of 5 x %ld; subscribed=%d)\n", r[2], n,
	       (int)xptiCheckTraceEnabled(sid, XPTI_TRACE_FUNCTION_BEGIN));
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc < 2)
		goto usage;
	xptiFrameworkInitialize();
	xptiInitialize("ht.test", 1, 2, "1.2.0");
	sid = xptiRegisterStream("ht.test");
	if (!strcmp(argv[1], "run"))
		rc = run();
	else if (!strcmp(argv[1], "threads"))
		rc = threads();
	else if (!strcmp(argv[1], "bench") && argc == 3)
		rc = bench(atol(argv[2]));
	else
		goto usage;
	xptiFinalize("ht.test");
	xptiFrameworkFinalize();
	return rc;
usage:
	fprintf(stderr, "usage: xpti_record_prog run | threads | bench N\n");
	return 2;
}
