/*
 * The seed's semantic tests against the dispatcher, with Intel's current semantics: (1) the
 * string table on 5,000 strings (ids dense from 1, lookups return the interned pointer,
 * duplicates return the same id and pointer), (2) 1,000 trace points made twice (each visit a
 * new event with its own unique_id, the same uid.p1/p2, instance 1 then 2; find by unique_id,
 * payload fields round-trip), (3) notifications: 30 trace points x 30 visits, counted per
 * trace point and per instance by the callback, every instance still found afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include <xpti/xpti_trace_framework.h>

#include "test_util.h"

#define NSTRINGS 5000
#define NTP	 1000
#define NNOTE_TP 30
#define NVISITS	 30

static void test_string_table(void)
{
	static char *interned[NSTRINGS + 1];
	char buf[64], *p;
	int pass = 0;

	for (int i = 0; i < NSTRINGS; i++) {
		xpti_string_id_t id;

		snprintf(buf, sizeof(buf), "string-%d-%x", i, i * 2654435761u);
		id = xptiRegisterString(buf, &p);
		CHECK_EQ(id, i + 1);
		CHECK(p && p != buf && strcmp(p, buf) == 0);
		if (id > 0 && id <= NSTRINGS)
			interned[id] = p;
	}
	for (int i = 0; i < NSTRINGS; i++) {
		xpti_string_id_t id = (xpti_string_id_t)(rand() % NSTRINGS) + 1;

		pass += xptiLookupString(id) == interned[id];
	}
	CHECK_EQ(pass, NSTRINGS);
	pass = 0;
	for (int i = 0; i < NSTRINGS; i++) {
		snprintf(buf, sizeof(buf), "string-%d-%x", i, i * 2654435761u);
		pass +=
		    xptiRegisterString(buf, &p) == (xpti_string_id_t)i + 1 && p == interned[i + 1];
	}
	CHECK_EQ(pass, NSTRINGS);
}

static void make_payload(xpti_payload_t *p, int i, char *name, size_t n)
{
	snprintf(name, n, "tp_function_%d", i);
	xpti_payload_init_source(p, name, "semantic.c", (uint32_t)i, (uint32_t)(i % 80), NULL);
}

static void test_trace_points(void)
{
	static xpti_trace_event_data_t *events[NTP];
	char name[64];
	xpti_payload_t p;
	uint64_t inst;
	int same = 0, found = 0, fields = 0, second = 0;

	for (int i = 0; i < NTP; i++) {
		make_payload(&p, i, name, sizeof(name));
		events[i] =
		    xptiMakeEvent(name, &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
		CHECK(events[i] != NULL);
		CHECK_EQ(inst, 1);
	}
	for (int i = 0; i < NTP; i++) {
		const xpti_payload_t *q, *q2;
		xpti_trace_event_data_t *again;

		make_payload(&p, i, name, sizeof(name));
		again = xptiMakeEvent(name, &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
		q = xptiQueryPayload(events[i]);
		q2 = xptiQueryPayload(again);
		same += again && again != events[i] && again->unique_id != events[i]->unique_id &&
			q2 && q2->uid.p1 == q->uid.p1 && q2->uid.p2 == q->uid.p2;
		second += inst == 2 && again->instance_id == 2 && events[i]->instance_id == 1;
		found += xptiFindEvent(events[i]->unique_id) == events[i] &&
			 xptiFindEvent(again->unique_id) == again;
		fields += q && strcmp(q->name, name) == 0 &&
			  strcmp(q->source_file, "semantic.c") == 0 && q->line_no == (uint32_t)i &&
			  q->column_no == (uint32_t)(i % 80);
	}
	CHECK_EQ(same, NTP);
	CHECK_EQ(second, NTP);
	CHECK_EQ(found, NTP);
	CHECK_EQ(fields, NTP);
	/* all unique ids distinct */
	for (int i = 1; i < NTP; i++)
		CHECK(events[i]->unique_id != events[i - 1]->unique_id);
}

static int counts[NNOTE_TP + 1][NVISITS + 1];
static uint64_t uids[NNOTE_TP][NVISITS + 1];
static int stray;

/* The trace point is the payload's line, the visit the callback's instance. */
static void count_cb(uint16_t tt, xpti_trace_event_data_t *parent, xpti_trace_event_data_t *ev,
		     uint64_t instance, const void *ud)
{
	const xpti_payload_t *p = ev ? xptiQueryPayload(ev) : NULL;
	uint64_t k = p ? p->line_no : ~0ULL;

	(void)parent, (void)ud;
	if (tt != XPTI_TRACE_TASK_BEGIN || k >= NNOTE_TP || instance == 0 || instance > NVISITS) {
		stray++;
		return;
	}
	counts[k][instance]++;
}

static void test_notifications(void)
{
	uint8_t sid = xptiRegisterStream("semantic");
	xpti_trace_event_data_t *ev;
	char name[64];
	xpti_payload_t p;
	uint64_t inst;
	int ok = 0;

	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, count_cb), XPTI_RESULT_SUCCESS);
	for (int v = 0; v < NVISITS; v++) {
		for (int i = 0; i < NNOTE_TP; i++) {
			snprintf(name, sizeof(name), "notify_%d", i);
			xpti_payload_init_source(&p, name, "notify.c", (uint32_t)i, 0, NULL);
			ev = xptiMakeEvent(name, &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE,
					   &inst);
			CHECK_EQ(inst, (uint64_t)v + 1);
			uids[i][v + 1] = ev->unique_id;
			CHECK_EQ(
			    xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, inst, NULL),
			    XPTI_RESULT_SUCCESS);
			/* a type nobody subscribed to must not reach the callback */
			xptiNotifySubscribers(sid, XPTI_TRACE_TASK_END, NULL, ev, inst, NULL);
		}
	}
	for (int i = 0; i < NNOTE_TP; i++)
		for (int v = 1; v <= NVISITS; v++)
			ok += counts[i][v] == 1;
	CHECK_EQ(ok, NNOTE_TP * NVISITS);
	CHECK_EQ(stray, 0);
	ok = 0;
	for (int i = 0; i < NNOTE_TP; i++) {
		for (int v = 1; v <= NVISITS; v++) {
			const xpti_trace_event_data_t *e = xptiFindEvent(uids[i][v]);

			ok += e && e->instance_id == (uint64_t)v &&
			      e->reserved.payload->line_no == (uint32_t)i;
		}
	}
	CHECK_EQ(ok, NNOTE_TP * NVISITS);
}

int main(void)
{
	xptiForceSetTraceEnabled(true);
	test_string_table();
	test_trace_points();
	test_notifications();
	xptiFrameworkFinalize();
	return ht_test_result("xpti_semantic");
}
