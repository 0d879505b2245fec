/*
 * HETRACE_XPTI_EVENTS, set by CTest to argv[1]:
 *   shared  xptiMakeEvent and xptiRegisterPayload give one event per trace point (instance
 *           numbers still count visits, metadata is shared, release leaves it alone), while
 *           xptiCreateTracepoint still makes instances;
 *   bogus   one warning line on stderr, and Intel's per-instance model.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xpti/xpti_trace_framework.h>

#include "test_util.h"

static void test_shared(void)
{
	xpti_payload_t p, q;
	xpti_trace_event_data_t *a, *b, *c;
	xpti_tracepoint_t *t1, *t2;
	uint64_t ia, ib, ic, uid;

	xpti_payload_init_source(&p, "shared_fn", "s.c", 1, 0, NULL);
	a = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ia);
	b = xptiMakeEvent("", &p, XPTI_EVENT_BARRIER, XPTI_ACTIVITY_ACTIVE, &ib);
	CHECK(a && a == b);
	CHECK(ia == 1 && ib == 2);
	CHECK_EQ(a->instance_id, 2);
	CHECK_EQ(a->event_type, XPTI_EVENT_ALGORITHM); /* set by the first visit */
	CHECK_EQ(xptiAddMetadataU64(a, "k", 1), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiMetadataCount(xptiQueryMetadata(b)), 1); /* shared by the visits */
	xpti_payload_init_source(&q, "shared_fn", "s.c", 1, 0, NULL);
	uid = xptiRegisterPayload(&q);
	CHECK_EQ(uid, a->unique_id);
	CHECK_EQ(q.internal, a->unique_id);
	xptiReleaseEvent(a); /* shared events stay */
	CHECK(xptiFindEvent(uid) == a);
	c = xptiMakeEvent("", &q, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ic);
	CHECK(c == a && ic == 4);

	t1 = xptiCreateTracepoint("shared_fn", "s.c", 1, 0, NULL);
	t2 = xptiCreateTracepoint("shared_fn", "s.c", 1, 0, NULL);
	CHECK(t1 && t2 && t1 != t2);
	CHECK_EQ(xptiDeleteTracepoint(t1), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiDeleteTracepoint(t2), XPTI_RESULT_SUCCESS);
}

static void test_bogus(void)
{
	char path[] = "/tmp/xpti_mode_err_XXXXXX", buf[512] = "";
	xpti_payload_t p;
	xpti_trace_event_data_t *a, *b;
	uint64_t ia, ib;
	FILE *f;
	int fd = mkstemp(path), saved = dup(2);

	if (fd < 0 || saved < 0)
		abort();
	fflush(stderr);
	dup2(fd, 2); /* capture the dispatcher's warning */
	close(fd);
	xpti_payload_init_name(&p, "fn");
	a = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ia);
	b = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ib);
	CHECK(a && b && a != b); /* per instance */
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(path, "r");
	if (f) {
		if (!fread(buf, 1, sizeof(buf) - 1, f))
			buf[0] = '\0';
		fclose(f);
	}
	unlink(path);
	printf("stderr was: %s", buf);
	CHECK(strcmp(buf, "xpti: HETRACE_XPTI_EVENTS='bogus' is not instance or shared; using "
			  "instance\n") == 0);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "shared"))
		test_shared();
	else if (argc == 2 && !strcmp(argv[1], "bogus"))
		test_bogus(); /* first: the warning comes when the framework starts */
	else
		CHECK(!"usage: xpti_events_mode shared|bogus");
	xptiFrameworkFinalize();
	return ht_test_result(argc == 2 ? argv[1] : "xpti_events_mode");
}
