/*
 * End-to-end tests of the environment-driven setup, through the static proxy exactly as an
 * instrumented program uses it: XPTI_FRAMEWORK_DISPATCHER, XPTI_SUBSCRIBERS (order, blanks,
 * duplicates, missing files, non-libraries, libraries without xptiTraceFinish),
 * XPTI_TRACE_ENABLE (unset, 0, a bad value), the proxy's inert values, the basic collector, C++
 * collectors in the style of the public samples (built as C++17 and C++20), one built against
 * Intel's layout without our headers, and the collectors the dispatcher must refuse (entry
 * points with C++ linkage, a libc++ reader of the metadata map).
 * argv[1] picks the scenario; each runs in its own process because the proxy and the dispatcher
 * read the environment once. Subscribers log to a file that is compared line by line; stderr
 * is captured to check the one-line warnings.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xpti/xpti_trace_framework.h>

#include "test_util.h"

static char log_path[] = "/tmp/xpti_env_log_XXXXXX";
static char err_path[] = "/tmp/xpti_env_err_XXXXXX";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static int count_lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void setup_files(void)
{
	close(mkstemp(log_path));
	close(mkstemp(err_path));
	setenv("XPTI_TEST_LOG", log_path, 1);
	if (!freopen(err_path, "w", stderr))
		abort();
	setvbuf(stderr, NULL, _IONBF, 0);
}

static xpti_trace_event_data_t *make(const char *name, uint32_t line, uint64_t *inst)
{
	xpti_payload_t p;

	xpti_payload_init_source(&p, name, "app.c", line, 0, NULL);
	return xptiMakeEvent(name, &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, inst);
}

static int scenario_subscribers(void)
{
	char list[4096];
	uint64_t inst;
	xpti_trace_event_data_t *e1;
	uint8_t s1, s2;
	char *log, *err, expect[2048];

	snprintf(list, sizeof(list), " %s ,,%s, %s,/nonexistent/libnope.so,%s,%s", HT_SUB_B,
		 HT_SUB_A, HT_SUB_B, HT_TEXTFILE, HT_SUB_NOFINI);
	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", list, 1);
	unsetenv("XPTI_TRACE_ENABLE");

	CHECK(xptiTraceEnabled());
	CHECK_EQ(xptiInitialize("s1", 1, 2, "v1"), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiInitialize("s1", 1, 2, "v1"), XPTI_RESULT_SUCCESS); /* no second init */
	s1 = xptiRegisterStream("s1");
	CHECK(xptiCheckTraceEnabled(s1, XPTI_TRACE_TASK_BEGIN));
	for (int visit = 1; visit <= 2; visit++) {
		e1 = make("work", 10, &inst);
		CHECK_EQ(inst, visit);
		CHECK_EQ(xptiNotifySubscribers(s1, XPTI_TRACE_TASK_BEGIN, NULL, e1, inst, NULL),
			 XPTI_RESULT_SUCCESS);
		CHECK_EQ(xptiNotifySubscribers(s1, XPTI_TRACE_TASK_END, NULL, e1, inst, NULL),
			 XPTI_RESULT_SUCCESS);
	}
	xptiFinalize("s1");
	CHECK(!xptiCheckTraceEnabled(s1, XPTI_TRACE_TASK_BEGIN));
	CHECK_EQ(xptiNotifySubscribers(s1, XPTI_TRACE_TASK_BEGIN, NULL, e1, 3, NULL),
		 XPTI_RESULT_SUCCESS); /* nobody listens any more */
	CHECK_EQ(xptiInitialize("s2", 3, 0, "v2"), XPTI_RESULT_SUCCESS);
	s2 = xptiRegisterStream("s2");
	e1 = make("other", 20, &inst);
	xptiNotifySubscribers(s2, XPTI_TRACE_TASK_BEGIN, NULL, e1, inst, NULL);
	xptiFrameworkFinalize(); /* finishes s2 */
	CHECK(!xptiTraceEnabled());
	CHECK_EQ(xptiNotifySubscribers(s2, XPTI_TRACE_TASK_BEGIN, NULL, e1, inst, NULL),
		 XPTI_RESULT_FALSE);
	xptiFrameworkFinalize();

	log = slurp(log_path);
	snprintf(expect, sizeof(expect),
		 "B init xpti.framework 1.0 1.0.0\nA init xpti.framework 1.0 1.0.0\n"
		 "B init s1 1.2 v1\nA init s1 1.2 v1\n"
		 "B begin 1 1\nA begin 1 1\nB end 1 1\nA end 1 1\n"
		 "B begin 2 2\nA begin 2 2\nB end 2 2\nA end 2 2\n"
		 "B finish xpti.framework\nA finish xpti.framework\n"
		 "B finish s1\nA finish s1\n"
		 "B init s2 3.0 v2\nA init s2 3.0 v2\n"
		 "B begin 3 1\nA begin 3 1\n"
		 "B finish s2\nA finish s2\n");
	CHECK(strcmp(log, expect) == 0);
	if (strcmp(log, expect))
		fprintf(stdout, "log was:\n%s\nexpected:\n%s\n", log, expect);
	err = slurp(err_path);
	CHECK_EQ(count_lines_with(err, "xpti: "), 3);
	CHECK_EQ(count_lines_with(err, "\n"), 3);
	CHECK_EQ(
	    count_lines_with(err, "subscriber '/nonexistent/libnope.so' skipped: No such file"), 1);
	snprintf(expect, sizeof(expect), "subscriber '%s' skipped: ", HT_TEXTFILE);
	CHECK_EQ(count_lines_with(err, expect), 1);
	snprintf(expect, sizeof(expect),
		 "subscriber '%s' skipped: it does not export xptiTraceInit and xptiTraceFinish",
		 HT_SUB_NOFINI);
	CHECK_EQ(count_lines_with(err, expect), 1);
	fprintf(stdout, "stderr was:\n%s", err);
	free(log);
	free(err);
	return 0;
}

/* XPTI_TRACE_ENABLE set to `value`: tracing must be off, subscribers never initialised. */
static int scenario_enable(const char *value, int warnings)
{
	uint8_t sid;
	uint64_t inst;
	xpti_trace_event_data_t *e;
	char *log, *err;

	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", HT_SUB_A, 1);
	setenv("XPTI_TRACE_ENABLE", value, 1);
	CHECK(!xptiTraceEnabled());
	CHECK_EQ(xptiInitialize("s", 1, 0, "v"), XPTI_RESULT_SUCCESS);
	sid = xptiRegisterStream("s");
	CHECK(sid != XPTI_INVALID_STREAM_ID); /* the framework itself works */
	e = make("fn", 1, &inst);
	CHECK(e != NULL);
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, e, inst, NULL),
		 XPTI_RESULT_FALSE);
	xptiFrameworkFinalize();
	log = slurp(log_path);
	err = slurp(err_path);
	CHECK_EQ(strlen(log), 0);
	CHECK_EQ(count_lines_with(err, "xpti: "), warnings);
	if (warnings)
		CHECK_EQ(
		    count_lines_with(err, "XPTI_TRACE_ENABLE='maybe' is not 1, true, 0 or false"),
		    1);
	free(log);
	free(err);
	return 0;
}

/* No dispatcher (unset, or a path that does not load): every call returns its inert value. */
static int scenario_inert(const char *dispatcher)
{
	xpti_payload_t p;
	uint64_t inst = 5, v;
	xpti_object_data_t d;
	char *s = (char *)"x", *k;
	uint32_t maj = 1, min = 1, patch = 1;
	char *err;

	if (dispatcher)
		setenv("XPTI_FRAMEWORK_DISPATCHER", dispatcher, 1);
	else
		unsetenv("XPTI_FRAMEWORK_DISPATCHER");
	xpti_payload_init_name(&p, "n");
	xptiFrameworkInitialize();
	CHECK(!xptiTraceEnabled());
	CHECK(!xptiCheckTraceEnabled(1, 0));
	CHECK_EQ(xptiInitialize("s", 1, 0, "v"), XPTI_RESULT_FAIL);
	xptiFinalize("s");
	xptiGetVersion(&maj, &min, &patch);
	CHECK(maj == 0 && min == 0 && patch == 0);
	CHECK_EQ(xptiRegisterString("s", &s), XPTI_INVALID_ID);
	CHECK(s == NULL);
	CHECK(xptiLookupString(1) == NULL);
	CHECK_EQ(xptiRegisterObject("a", 1, 0), XPTI_INVALID_OBJECT_ID);
	d = xptiLookupObject(0);
	CHECK(d.size == 0 && d.data == NULL);
	CHECK_EQ(xptiRegisterStream("s"), XPTI_INVALID_STREAM_ID);
	CHECK_EQ(xptiUnregisterStream("s"), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiRegisterUserDefinedTracePoint("t", 1), XPTI_INVALID_TRACE_TYPE);
	CHECK_EQ(xptiRegisterUserDefinedEventType("t", 1), XPTI_INVALID_TRACE_TYPE);
	CHECK_EQ(xptiRegisterPayload(&p), XPTI_INVALID_UID);
	CHECK(xptiMakeEvent("n", &p, 1, XPTI_ACTIVITY_ACTIVE, &inst) == NULL);
	CHECK(xptiFindEvent(1) == NULL);
	CHECK(xptiQueryPayload(NULL) == NULL);
	CHECK(xptiQueryPayloadByUID(1) == NULL);
	xptiReleaseEvent(NULL);
	CHECK_EQ(xptiRegisterCallback(1, 2, NULL), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiUnregisterCallback(1, 2, NULL), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiNotifySubscribers(1, 2, NULL, NULL, 0, NULL), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiAddMetadata(NULL, "k", 0), XPTI_RESULT_FAIL);
	CHECK(xptiQueryMetadata(NULL) == NULL);
	CHECK_EQ(xptiMetadataCount(NULL), 0);
	CHECK_EQ(xptiAddMetadataU64(NULL, "k", 1), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiGetUniqueId(), XPTI_INVALID_UID);
	CHECK_EQ(xptiReserveUniqueId(4), XPTI_INVALID_UID);
	xptiSetUniversalId(5);
	CHECK_EQ(xptiGetUniversalId(), XPTI_INVALID_UID);
	CHECK_EQ(xptiStashTuple("k", 1), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_FAIL);
	xptiUnstashTuple();
	CHECK_EQ(xptiGetDefaultStreamID(), 0);
	CHECK_EQ(xptiSetDefaultStreamID(3), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiGetDefaultEventType(), 0);
	CHECK_EQ(xptiGetDefaultTraceType(), 0);
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(1), XPTI_STREAM_DETAIL_LEVEL_NORMAL);
	CHECK(xptiCreateTracepoint("f", "f.c", 1, 0, NULL) == NULL);
	CHECK(xptiRegisterTracepointScope("f", "f.c", 1, 0, NULL) == NULL);
	CHECK_EQ(xptiDeleteTracepoint(NULL), XPTI_RESULT_FAIL);
	CHECK(xptiLookupEvent(1) == NULL);
	CHECK(xptiLookupPayload(1) == NULL);
	CHECK(xptiGetTracepointScopeData() == NULL);
	CHECK_EQ(xptiSetTracepointScopeData(NULL), XPTI_RESULT_FAIL);
	xptiUnsetTracepointScopeData();
	xptiEnableTracepointScopeNotification(true);
	CHECK(!xptiCheckTracepointScopeNotification());
	CHECK_EQ(xptiGetTracepointData(NULL, NULL), XPTI_RESULT_FAIL);
	xptiForceSetTraceEnabled(true);
	CHECK(!xptiTraceEnabled());
	xptiReset();
	xptiFrameworkFinalize();
	xptiFrameworkFinalize();
	err = slurp(err_path);
	CHECK_EQ(count_lines_with(err, "xpti: cannot load dispatcher"), dispatcher ? 1 : 0);
	CHECK_EQ(count_lines_with(err, "\n"), dispatcher ? 1 : 0);
	/* TryToEnable re-reads the variable */
	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	unsetenv("XPTI_SUBSCRIBERS");
	xptiTraceTryToEnable();
	CHECK(xptiRegisterStream("now.loaded") != XPTI_INVALID_STREAM_ID);
	xptiFrameworkFinalize();
	free(err);
	return 0;
}

static int scenario_collector(void)
{
	uint8_t sid;
	uint64_t inst;
	xpti_trace_event_data_t *e;
	char *out;

	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", HT_COLLECTOR, 1);
	setenv("XPTI_TRACE_ENABLE", "true", 1);
	setenv("XPTI_BASIC_COLLECTOR_OUTPUT", log_path, 1);
	CHECK(xptiTraceEnabled());
	CHECK_EQ(xptiInitialize("demo", 1, 0, "demo 1.0"), XPTI_RESULT_SUCCESS);
	sid = xptiRegisterStream("demo");
	e = make("kernel_a", 42, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, e, inst, NULL);
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_END, NULL, e, inst, NULL);
	xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_BEGIN, NULL, NULL, 7, "clEnqueue");
	e = make("kernel_a", 42, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_SIGNAL, NULL, e, inst, NULL);
	xptiFrameworkFinalize();
	out = slurp(log_path);
	CHECK_EQ(count_lines_with(out, "xpti: init stream=demo version=1.0 (demo 1.0)\n"), 1);
	CHECK_EQ(count_lines_with(out, "xpti: task_begin uid=1 instance=1 name=kernel_a "
				       "file=app.c:42 user_data=(nil) tid="),
		 1);
	CHECK_EQ(count_lines_with(out, "xpti: task_end uid=1 instance=1 name=kernel_a"), 1);
	CHECK_EQ(count_lines_with(out, "xpti: function_begin uid=0 instance=7 user_data=clEnqueue"),
		 1);
	CHECK_EQ(count_lines_with(out, "xpti: signal uid=2 instance=2 name=kernel_a"), 1);
	CHECK_EQ(count_lines_with(out, "xpti: finish stream=demo\n"), 1);
	/* the framework's default stream is announced and finished like any other */
	CHECK_EQ(count_lines_with(out, "xpti: init stream=xpti.framework version=1.0 (1.0.0)\n"),
		 1);
	CHECK_EQ(count_lines_with(out, "xpti: finish stream=xpti.framework\n"), 1);
	CHECK_EQ(count_lines_with(out, "\n"), 8);
	printf("collector output:\n%s", out);
	free(out);
	return 0;
}

/*
 * A C++ collector (cxx_collector.cpp) receives task, wait and function notifications with
 * payload names, files, per-instance metadata and a stashed tuple, and sets the detail level
 * of one stream.
 */
static int scenario_cxx(const char *collector, const char *tag)
{
	uint8_t sid, verbose;
	uint64_t inst;
	xpti_trace_event_data_t *k, *k2, *w;
	char *log, *err, expect[4096];

	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", collector, 1);
	unsetenv("XPTI_TRACE_ENABLE");
	CHECK(xptiTraceEnabled());
	CHECK_EQ(xptiInitialize("ht.cxx", 2, 1, "cxx 2.1"), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiInitialize("ht.verbose", 1, 0, "v"), XPTI_RESULT_SUCCESS);
	sid = xptiRegisterStream("ht.cxx");
	verbose = xptiRegisterStream("ht.verbose");
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(sid), XPTI_STREAM_DETAIL_LEVEL_NORMAL);
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(verbose), XPTI_STREAM_DETAIL_LEVEL_VERBOSE);
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(xptiRegisterStream("never.initialised")),
		 XPTI_STREAM_DETAIL_LEVEL_NORMAL);
	CHECK(xptiCheckTraceEnabled(sid, XPTI_TRACE_WAIT_END));

	k = make("kernel_a", 42, &inst);
	CHECK_EQ(xptiAddMetadataString(k, "kernel", "vadd"), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataU64(k, "size", 4096), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataI64(k, "prio", -3), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataF64(k, "scale", 0.5), XPTI_RESULT_SUCCESS);
	xptiStashTuple("queue", 7);
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, k, inst, NULL);
	xptiUnstashTuple();
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_END, NULL, k, inst, NULL);
	k2 = make("kernel_a", 42, &inst); /* another instance: its own, empty, metadata */
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, k2, inst, NULL);
	w = make("queue_wait", 50, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_WAIT_BEGIN, NULL, w, inst, NULL);
	xptiNotifySubscribers(sid, XPTI_TRACE_WAIT_END, NULL, w, inst, NULL);
	xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_BEGIN, NULL, NULL, 9, "clFinish");
	xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_END, NULL, NULL, 9, "clFinish");
	xptiFinalize("ht.cxx");
	xptiFrameworkFinalize();

	log = slurp(log_path);
	snprintf(
	    expect, sizeof(expect),
	    "%1$s init ht.cxx 2.1 cxx 2.1 enabled=1\n"
	    "%1$s init ht.verbose 1.0 v enabled=1\n"
	    "%1$s task_begin name=kernel_a file=app.c:42 instance=1 lookup=kernel_a "
	    "md={kernel=vadd,prio=-3,scale=0.5,size=4096}\n"
	    "%1$s stash queue=7\n"
	    "%1$s task_end name=kernel_a file=app.c:42 instance=1 lookup=kernel_a "
	    "md={kernel=vadd,prio=-3,scale=0.5,size=4096}\n"
	    "%1$s task_begin name=kernel_a file=app.c:42 instance=2 lookup=kernel_a md={}\n"
	    "%1$s wait_begin name=queue_wait file=app.c:50 instance=1 lookup=queue_wait md={}\n"
	    "%1$s wait_end name=queue_wait file=app.c:50 instance=1 lookup=queue_wait md={}\n"
	    "%1$s function_begin fn=clFinish instance=9\n"
	    "%1$s function_end fn=clFinish instance=9\n"
	    "%1$s finish ht.cxx\n"
	    "%1$s finish ht.verbose\n",
	    tag);
	CHECK(strcmp(log, expect) == 0);
	if (strcmp(log, expect))
		fprintf(stdout, "log was:\n%s\nexpected:\n%s\n", log, expect);
	err = slurp(err_path);
	CHECK_EQ(strlen(err), 0);
	free(log);
	free(err);
	return 0;
}

/* A subscriber the dispatcher must skip: one warning containing `why`, tracing stays off. */
static int scenario_refused(const char *subscriber, const char *why)
{
	char *err, expect[1024];

	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", subscriber, 1);
	unsetenv("XPTI_TRACE_ENABLE");
	CHECK(!xptiTraceEnabled());
	CHECK_EQ(xptiInitialize("s", 1, 0, "v"), XPTI_RESULT_SUCCESS);
	xptiFrameworkFinalize();
	err = slurp(err_path);
	snprintf(expect, sizeof(expect), "xpti: subscriber '%s' skipped: %s", subscriber, why);
	CHECK_EQ(count_lines_with(err, expect), 1);
	CHECK_EQ(count_lines_with(err, "\n"), 1);
	fprintf(stdout, "stderr was:\n%s", err);
	free(err);
	return 0;
}

/* A collector built against Intel's layout (not our headers) reads the metadata map. */
static int scenario_intel_abi(void)
{
	uint64_t inst;
	xpti_trace_event_data_t *e;
	char *log, *err;
	uint8_t sid;

	setenv("XPTI_FRAMEWORK_DISPATCHER", HT_XPTIFW_PATH, 1);
	setenv("XPTI_SUBSCRIBERS", HT_INTEL_ABI, 1);
	unsetenv("XPTI_TRACE_ENABLE");
	CHECK(xptiTraceEnabled());
	xptiInitialize("ht.abi", 1, 0, "v");
	sid = xptiRegisterStream("ht.abi");
	e = make("kernel_a", 1, &inst);
	xptiAddMetadataString(e, "queue", "q0");
	xptiAddMetadataString(e, "kernel", "vadd");
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, e, inst, NULL);
	e = make("kernel_b", 2, &inst);
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, e, inst, NULL);
	xptiFrameworkFinalize();
	log = slurp(log_path);
	CHECK(strcmp(log, "intel task_begin name=kernel_a md=kernel=vadd,queue=q0 same=1\n"
			  "intel task_begin name=kernel_b md= same=1\n") == 0);
	fprintf(stdout, "log was:\n%s", log);
	err = slurp(err_path);
	CHECK_EQ(strlen(err), 0);
	free(log);
	free(err);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	unsetenv("XPTI_FRAMEWORK_DISPATCHER");
	unsetenv("XPTI_SUBSCRIBERS");
	unsetenv("XPTI_TRACE_ENABLE");
	setup_files();
	if (!strcmp(mode, "subscribers"))
		scenario_subscribers();
	else if (!strcmp(mode, "bad-enable"))
		scenario_enable("maybe", 1);
	else if (!strcmp(mode, "disabled"))
		scenario_enable("0", 0);
	else if (!strcmp(mode, "inert"))
		scenario_inert(NULL);
	else if (!strcmp(mode, "bad-dispatcher"))
		scenario_inert("/nonexistent/libxptifw.so");
	else if (!strcmp(mode, "collector"))
		scenario_collector();
	else if (!strcmp(mode, "cxx17"))
		scenario_cxx(HT_CXX17, "cxx17");
	else if (!strcmp(mode, "cxx20"))
		scenario_cxx(HT_CXX20, "cxx20");
	else if (!strcmp(mode, "mangled"))
		scenario_refused(HT_MANGLED, "its entry points have C++ linkage (found "
					     "'_Z13xptiTraceInitjjPKcS0_')");
	else if (!strcmp(mode, "libcxx"))
		scenario_refused(HT_LIBCXX, "it was built against libc++ and reads "
					    "xptiQueryMetadata's std::unordered_map");
	else if (!strcmp(mode, "intel-abi"))
		scenario_intel_abi();
	else
		CHECK(!"unknown scenario");
	unlink(log_path);
	unlink(err_path);
	return ht_test_result(mode);
}
