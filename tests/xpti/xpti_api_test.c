/*
 * API tests of the dispatcher, linked directly against libxptifw.so (no proxy, no
 * subscriber, tracing forced on): every exported function with good and bad input, checking
 * the documented result codes, ids, pointers and callback order. Runs in one process, in
 * order; the framework is finalized at the end and checked to be inert afterwards.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <xpti/xpti_trace_framework.h>

#include "test_util.h"

/* ---- a callback log ---- */
struct rec {
	char who;
	uint16_t tt;
	xpti_trace_event_data_t *parent, *ev;
	uint64_t instance;
	const void *ud;
};
static struct rec recs[256];
static int nrecs;

static void log_cb(char who, uint16_t tt, xpti_trace_event_data_t *parent,
		   xpti_trace_event_data_t *ev, uint64_t instance, const void *ud)
{
	if (nrecs < 256)
		recs[nrecs++] = (struct rec){who, tt, parent, ev, instance, ud};
}

static void cb_a(uint16_t tt, xpti_trace_event_data_t *p, xpti_trace_event_data_t *e, uint64_t i,
		 const void *u)
{
	log_cb('a', tt, p, e, i, u);
}

static void cb_b(uint16_t tt, xpti_trace_event_data_t *p, xpti_trace_event_data_t *e, uint64_t i,
		 const void *u)
{
	log_cb('b', tt, p, e, i, u);
}

static void cb_never(uint16_t tt, xpti_trace_event_data_t *p, xpti_trace_event_data_t *e,
		     uint64_t i, const void *u)
{
	(void)tt, (void)p, (void)e, (void)i, (void)u;
}

static void test_strings(void)
{
	char *s = (char *)"stale";
	xpti_string_id_t id, id2;
	char *t2;

	CHECK_EQ(xptiRegisterString(NULL, &s), XPTI_INVALID_ID);
	CHECK(s == NULL);
	s = (char *)"stale";
	CHECK_EQ(xptiRegisterString("", &s), XPTI_INVALID_ID);
	CHECK(s == NULL);
	CHECK_EQ(xptiRegisterString("x", NULL), XPTI_INVALID_ID);

	id = xptiRegisterString("first string", &s);
	CHECK_EQ(id, 1); /* ids start at 1 */
	CHECK(s && strcmp(s, "first string") == 0);
	id2 = xptiRegisterString("first string", &t2);
	CHECK_EQ(id2, id);
	CHECK(t2 == s); /* same interned pointer */
	CHECK_EQ(xptiRegisterString("second", &t2), 2);
	CHECK(xptiLookupString(id) == s);
	CHECK(xptiLookupString(0) == NULL);
	CHECK(xptiLookupString(XPTI_INVALID_ID) == NULL);
	CHECK(xptiLookupString(1000000) == NULL);
}

static void test_objects(void)
{
	const char blob[] = {1, 2, 3, 0, 5};
	xpti_object_data_t d;
	xpti_object_id_t id;

	CHECK_EQ(xptiRegisterObject(NULL, 4, XPTI_METADATA_BINARY), XPTI_INVALID_OBJECT_ID);
	id = xptiRegisterObject(blob, sizeof(blob), XPTI_METADATA_BINARY);
	CHECK_EQ(id, 0); /* object ids start at 0 */
	CHECK_EQ(xptiRegisterObject(blob, sizeof(blob), XPTI_METADATA_STRING), id); /* by content */
	CHECK_EQ(xptiRegisterObject(blob, 3, XPTI_METADATA_BINARY), 1);
	d = xptiLookupObject(id);
	CHECK_EQ(d.size, sizeof(blob));
	CHECK(d.data && memcmp(d.data, blob, sizeof(blob)) == 0);
	CHECK_EQ(d.type, XPTI_METADATA_BINARY); /* first type wins */
	d = xptiLookupObject(-1);
	CHECK(d.size == 0 && d.data == NULL && d.type == 0);
	d = xptiLookupObject(12345);
	CHECK(d.size == 0 && d.data == NULL);
}

static void test_types(void)
{
	uint16_t b = xptiRegisterUserDefinedTracePoint("tool", XPTI_TRACE_POINT_BEGIN(0));
	uint16_t e = xptiRegisterUserDefinedTracePoint("tool", XPTI_TRACE_POINT_END(0));
	uint16_t t2 = xptiRegisterUserDefinedTracePoint("tool2", XPTI_TRACE_POINT_BEGIN(3));
	uint16_t ev = xptiRegisterUserDefinedEventType("tool", XPTI_EVENT(5));

	CHECK_EQ(b, 0x0180);
	CHECK_EQ(e, 0x0181);
	CHECK_EQ(t2, 0x0286);
	CHECK_EQ(ev, 0x0185);
	CHECK_EQ(XPTI_TOOL_ID(t2), 2);
	CHECK_EQ(XPTI_EXTRACT_USER_DEFINED_ID(t2), 6);
	CHECK_EQ(XPTI_TOOL_ID(XPTI_TRACE_TASK_BEGIN), 0);
	CHECK_EQ(xptiRegisterUserDefinedTracePoint(NULL, 0), XPTI_INVALID_TRACE_TYPE);
	CHECK_EQ(xptiRegisterUserDefinedTracePoint("", 0), XPTI_INVALID_TRACE_TYPE);
	CHECK_EQ(xptiRegisterUserDefinedEventType("tool", 200), XPTI_INVALID_TRACE_TYPE);
	/* values of the spec table */
	CHECK_EQ(XPTI_TRACE_GRAPH_CREATE, 2);
	CHECK_EQ(XPTI_TRACE_REGION_END, 9);
	CHECK_EQ(XPTI_TRACE_SIGNAL, 16);
	CHECK_EQ(XPTI_TRACE_FUNCTION_WITH_ARGS_END, 29);
	CHECK_EQ(XPTI_TRACE_MEM_RELEASE_END, 35);
	CHECK_EQ(XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE, 39);
	CHECK_EQ(XPTI_TRACE_QUEUE_DESTROY, 43);
	CHECK_EQ(XPTI_TRACE_DIAGNOSTICS, 126);
	CHECK_EQ(XPTI_TRACE_USER_DEFINED, 128);
	CHECK_EQ(XPTI_EVENT_OFFLOAD_ACCESSOR, 10);
	CHECK_EQ(XPTI_PAYLOAD_HASH_AVAILABLE, 0x20000);
	CHECK_EQ(XPTI_RESULT_INVALIDARG, (int32_t)0x80004006);
	CHECK(XPTI_RESULT_FAIL < 0 && XPTI_RESULT_FALSE > 0);
	/* Intel's layouts (libstdc++, x86-64) */
	CHECK_EQ(offsetof(xpti_trace_event_data_t, reserved.metadata), 56);
	CHECK_EQ(offsetof(xpti_trace_event_data_t, global_user_data), 112);
	CHECK_EQ(sizeof(xpti_trace_event_data_t), 128);
	CHECK_EQ(offsetof(xpti_payload_t, uid), 56);
	CHECK_EQ(sizeof(xpti_payload_t), 80);
	CHECK_EQ(sizeof(xpti_uid128_t), 32);
	CHECK_EQ(sizeof(xpti_tracepoint_data_t), 56);
	CHECK_EQ(offsetof(xpti_offload_image_data_t, addressing), 52);
	CHECK_EQ(offsetof(xpti_offload_image_data_t, filtering), 68);
	CHECK_EQ(sizeof(xpti_offload_image_data_t), 80);
	CHECK_EQ(offsetof(xpti_offload_image_accessor_data_t, element_type), 32);
	CHECK_EQ(sizeof(xpti_stream_detail_level_t), 1);
	CHECK_EQ(XPTI_STREAM_DETAIL_LEVEL_VERBOSE, 3);
}

static void test_payloads(void)
{
	static const char file[] = "api.c";
	xpti_payload_t p, q, r, c1, c2;
	xpti_trace_event_data_t *ev, *ev2;
	uint64_t uid, uid2, inst = 0;
	const xpti_payload_t *qp;
	char name[32];

	strcpy(name, "payload_fn");
	CHECK_EQ(xptiRegisterPayload(NULL), XPTI_INVALID_UID);
	xpti_payload_clear(&p);
	CHECK_EQ(xptiRegisterPayload(&p), XPTI_INVALID_UID); /* no flags */
	CHECK(xptiMakeEvent("x", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst) == NULL);

	/* registering makes an instance: its unique id is stored in the payload */
	xpti_payload_init_source(&p, name, file, 10, 4, NULL);
	uid = xptiRegisterPayload(&p);
	CHECK_EQ(uid, 1);					    /* the first slot */
	CHECK(p.name != name && strcmp(p.name, "payload_fn") == 0); /* rewritten to interned */
	CHECK(p.name == xptiLookupString(xpti_payload_name_sid(&p)));
	CHECK(p.source_file == xptiLookupString(xpti_payload_source_file_sid(&p)));
	CHECK_EQ(p.uid.p1 & 0xffffffff, 10);
	CHECK_EQ(xpti_payload_stack_trace_sid(&p), 0);
	CHECK_EQ(p.internal, uid);
	CHECK(p.flags & XPTI_PAYLOAD_HASH_AVAILABLE);
	CHECK(p.flags & XPTI_PAYLOAD_REGISTERED);
	qp = xptiQueryPayloadByUID(uid);
	CHECK(qp && qp->name == p.name && qp->line_no == 10);
	CHECK(qp->internal == 0 && (qp->flags & XPTI_PAYLOAD_REGISTERED)); /* the point's copy */
	CHECK_EQ(xptiFindEvent(uid)->instance_id, 1);
	uid2 = xptiRegisterPayload(&p); /* again: the next instance of the same trace point */
	CHECK(uid2 != uid && uid2 != 0);
	CHECK_EQ(p.internal, uid2);
	CHECK_EQ(xptiFindEvent(uid2)->instance_id, 2);

	/* a fresh payload with equal contents is the same trace point: same uid.p1/p2 */
	strcpy(name, "payload_fn");
	xpti_payload_init_source(&q, name, "api.c", 10, 4, NULL);
	CHECK(xptiRegisterPayload(&q) != 0);
	CHECK(q.uid.p1 == p.uid.p1 && q.uid.p2 == p.uid.p2 && q.name == p.name);
	CHECK_EQ(xptiFindEvent(q.internal)->instance_id, 3);
	xpti_payload_init_source(&q, "payload_fn", "api.c", 11, 4, NULL);
	CHECK(xptiRegisterPayload(&q) != 0);
	CHECK(q.uid.p1 != p.uid.p1); /* another line: another trace point */
	CHECK_EQ(xptiFindEvent(q.internal)->instance_id, 1);
	xpti_payload_init_source(&q, "payload_fn", "api.c", 10, 5, NULL);
	CHECK(xptiRegisterPayload(&q) != 0);
	CHECK_EQ(xptiFindEvent(q.internal)->instance_id, 1); /* another column */
	xpti_payload_init_code_ptr(&c1, (void *)0x1000);
	xpti_payload_init_code_ptr(&c2, (void *)0x2000);
	CHECK(xptiRegisterPayload(&c1) != 0);
	CHECK(xptiRegisterPayload(&c2) != 0);
	CHECK_EQ(xptiFindEvent(c2.internal)->instance_id, 1); /* code pointers tell them apart */
	CHECK(xptiQueryPayloadByUID(c2.internal)->code_ptr_va == (void *)0x2000);

	/* events: a new instance per visit */
	CHECK(xptiMakeEvent("x", NULL, 0, XPTI_ACTIVITY_ACTIVE, &inst) == NULL);
	CHECK(xptiMakeEvent("x", &p, 0, XPTI_ACTIVITY_ACTIVE, NULL) == NULL);
	xpti_payload_init_source(&r, name, "api.c", 10, 4, NULL);
	ev = xptiMakeEvent("ignored", &r, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	CHECK(ev != NULL);
	CHECK_EQ(inst, 4);
	CHECK(r.name == name);
	CHECK_EQ(r.flags & XPTI_PAYLOAD_HASH_AVAILABLE, 0); /* caller's payload untouched */
	CHECK_EQ(ev->instance_id, 4);
	CHECK_EQ(ev->data_id, 4);
	CHECK_EQ(ev->event_type, XPTI_EVENT_ALGORITHM);
	CHECK_EQ(ev->activity_type, XPTI_ACTIVITY_ACTIVE);
	CHECK_EQ(ev->flags, XPTI_EVENT_FLAG_UID_AVAILABLE | XPTI_EVENT_FLAG_EVENT_TYPE_AVAILABLE |
				XPTI_EVENT_FLAG_ACTIVITY_TYPE_AVAILABLE |
				XPTI_EVENT_FLAG_PAYLOAD_AVAILABLE);
	ev2 = xptiMakeEvent("x", &p, XPTI_EVENT_BARRIER, XPTI_ACTIVITY_OVERHEAD, &inst);
	CHECK(ev2 != NULL && ev2 != ev); /* the registered payload's fast path */
	CHECK_EQ(inst, 5);
	CHECK(ev2->unique_id != ev->unique_id);
	CHECK_EQ(ev2->event_type, XPTI_EVENT_BARRIER); /* each instance its own types */
	CHECK_EQ(ev->event_type, XPTI_EVENT_ALGORITHM);
	CHECK_EQ(ev->instance_id, 4);
	CHECK(xptiFindEvent(ev->unique_id) == ev);
	CHECK(xptiFindEvent(ev2->unique_id) == ev2);
	CHECK(xptiFindEvent(0) == NULL);
	CHECK(xptiFindEvent(999999) == NULL);
	qp = xptiQueryPayload(ev);
	CHECK(qp != NULL && strcmp(qp->name, "payload_fn") == 0 && qp->line_no == 10 &&
	      qp->column_no == 4 && strcmp(qp->source_file, "api.c") == 0);
	CHECK(qp->uid.p1 == p.uid.p1 && qp->uid.p2 == p.uid.p2);
	CHECK(xptiQueryPayload(ev2) == qp); /* instances share their trace point's payload */
	CHECK(xptiQueryPayloadByUID(ev->unique_id) == qp);
	CHECK(xptiQueryPayload(NULL) == NULL);
	CHECK(xptiQueryPayloadByUID(999999) == NULL);
	CHECK(xptiFindEvent(999999) == NULL); /* the miss inserted nothing */
}

/* Instances own their metadata and are released; released slots come back with new ids. */
static void test_instances(void)
{
	xpti_trace_event_data_t *a, *b, *c, foreign;
	xpti_payload_t p;
	uint64_t ia, ib, ic, uid_a;
	xpti_object_id_t v = xptiRegisterObject("gpu0", 4, XPTI_METADATA_STRING);
	xpti_string_id_t k;
	xpti_object_id_t got;

	xpti_payload_init_source(&p, "inst_fn", "inst.c", 7, 0, NULL);
	a = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ia);
	b = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ib);
	CHECK(a && b && a != b);
	CHECK_EQ(ib, ia + 1);
	CHECK_EQ(xptiAddMetadata(a, "device", v), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiMetadataCount(xptiQueryMetadata(a)), 1);
	CHECK_EQ(xptiMetadataCount(xptiQueryMetadata(b)), 0); /* not on the other instance */
	CHECK(xptiQueryMetadata(a) != xptiQueryMetadata(b));
	CHECK_EQ(xptiMetadataGet(xptiQueryMetadata(a), 0, &k, &got), XPTI_RESULT_SUCCESS);
	CHECK(strcmp(xptiLookupString(k), "device") == 0 && got == v);

	uid_a = a->unique_id;
	xptiReleaseEvent(a);
	CHECK(xptiFindEvent(uid_a) == NULL);
	CHECK(xptiQueryPayloadByUID(uid_a) == NULL);
	CHECK(xptiLookupEvent(uid_a) == NULL);
	CHECK(xptiFindEvent(b->unique_id) == b); /* the other instance lives on */
	xptiReleaseEvent(a);			 /* twice: nothing */
	memset(&foreign, 0, sizeof(foreign));
	foreign.unique_id = b->unique_id;
	xptiReleaseEvent(&foreign); /* not ours: b stays */
	CHECK(xptiFindEvent(b->unique_id) == b);
	CHECK_EQ(xptiAddMetadata(&foreign, "device", v), XPTI_RESULT_INVALIDARG); /* no table */
	CHECK(xptiQueryMetadata(&foreign) == NULL);

	/* a's slot is taken again, with another generation: the old id stays dead */
	c = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &ic);
	CHECK(c == a);
	CHECK_EQ(ic, ib + 1);
	CHECK((uint32_t)c->unique_id == (uint32_t)uid_a && c->unique_id != uid_a);
	CHECK_EQ(c->unique_id >> 32, (uid_a >> 32) + 1);
	CHECK(xptiFindEvent(uid_a) == NULL);
	CHECK(xptiFindEvent(c->unique_id) == c);
	CHECK_EQ(xptiMetadataCount(xptiQueryMetadata(c)), 0); /* a fresh table */
	CHECK(xptiQueryPayload(c) == xptiQueryPayload(b));
}

/* xptiCreateTracepoint and friends, used from C through xptiGetTracepointData. */
static void test_tracepoints(void)
{
	xpti_tracepoint_t *tp, *tp2, *unk;
	const xpti_tracepoint_t *scope;
	xpti_tracepoint_data_t d, d2;
	uint32_t unk_slot;
	uint64_t uid;

	tp = xptiCreateTracepoint("tp_fn", "tp.c", 30, 2, (void *)0x42);
	CHECK(tp != NULL);
	CHECK_EQ(xptiGetTracepointData(tp, &d), XPTI_RESULT_SUCCESS);
	CHECK(d.event && d.payload && d.event->reserved.payload == d.payload);
	CHECK(strcmp(d.payload->name, "tp_fn") == 0 && strcmp(d.payload->source_file, "tp.c") == 0);
	CHECK(d.payload->line_no == 30 && d.payload->column_no == 2);
	CHECK(d.payload->code_ptr_va == (void *)0x42);
	CHECK_EQ(d.uid64, d.event->unique_id);
	CHECK_EQ(d.uid128.uid64, d.uid64);
	CHECK_EQ(d.uid128.instance, 1);
	CHECK_EQ(d.uid128.p1, ((uint64_t)xpti_payload_source_file_sid(d.payload) << 32) |
				  xpti_payload_name_sid(d.payload));
	CHECK_EQ(d.uid128.p2, ((uint64_t)2 << 32) | 30);
	CHECK(xpti_uid128_is_valid(&d.uid128));
	CHECK_EQ(d.event->event_type, XPTI_EVENT_ALGORITHM);
	CHECK_EQ(d.event->activity_type, XPTI_ACTIVITY_ACTIVE);
	CHECK(xptiFindEvent(d.uid64) == d.event);
	CHECK(xptiQueryPayloadByUID(d.uid64) == d.payload);
	CHECK(xptiLookupEvent(d.uid64) != NULL);
	CHECK(xptiLookupPayload(d.uid64) != NULL);
	CHECK(xptiLookupEvent(0) == NULL && xptiLookupPayload(12345678) == NULL);
	CHECK_EQ(xptiGetTracepointData(NULL, &d2), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiGetTracepointData(tp, NULL), XPTI_RESULT_INVALIDARG);

	tp2 = xptiCreateTracepoint("tp_fn", "tp.c", 30, 2, NULL); /* the same location again */
	CHECK(tp2 && tp2 != tp);
	CHECK_EQ(xptiGetTracepointData(tp2, &d2), XPTI_RESULT_SUCCESS);
	CHECK(d2.uid128.p1 == d.uid128.p1 && d2.uid128.p2 == d.uid128.p2);
	CHECK_EQ(d2.uid128.instance, 2);
	CHECK(d2.uid64 != d.uid64);

	unk = xptiCreateTracepoint(NULL, "", 1, 1, NULL); /* nothing to name it by */
	CHECK_EQ(xptiGetTracepointData(unk, &d2), XPTI_RESULT_SUCCESS);
	unk_slot = (uint32_t)d2.uid64;
	CHECK(strcmp(d2.payload->name, "unknown") == 0 &&
	      strcmp(d2.payload->source_file, "unknown-file") == 0 && d2.payload->line_no == 0);

	/* scope data: per thread, and the universal id follows it */
	CHECK(xptiGetTracepointScopeData() == NULL);
	CHECK_EQ(xptiSetTracepointScopeData(NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiSetTracepointScopeData(tp), XPTI_RESULT_SUCCESS);
	CHECK(xptiGetTracepointScopeData() == tp);
	CHECK_EQ(xptiGetUniversalId(), d.uid64);
	xptiUnsetTracepointScopeData();
	CHECK(xptiGetTracepointScopeData() == NULL);
	CHECK_EQ(xptiGetUniversalId(), 0);
	scope = xptiRegisterTracepointScope("scope_fn", "scope.c", 3, 0, NULL);
	CHECK(scope != NULL && xptiGetTracepointScopeData() == NULL); /* registering sets nothing */
	CHECK_EQ(xptiDeleteTracepoint((xpti_tracepoint_t *)scope), XPTI_RESULT_SUCCESS);

	CHECK(!xptiCheckTracepointScopeNotification());
	xptiEnableTracepointScopeNotification(true);
	CHECK(xptiCheckTracepointScopeNotification());
	xptiEnableTracepointScopeNotification(false);
	CHECK(!xptiCheckTracepointScopeNotification());

	/* delete: the id stops resolving, a second delete is refused */
	uid = d.uid64;
	CHECK_EQ(xptiDeleteTracepoint(NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiDeleteTracepoint(tp), XPTI_RESULT_SUCCESS);
	CHECK(xptiFindEvent(uid) == NULL && xptiLookupEvent(uid) == NULL);
	CHECK_EQ(xptiDeleteTracepoint(tp), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiGetTracepointData(tp, &d2), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiDeleteTracepoint(tp2), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiDeleteTracepoint(unk), XPTI_RESULT_SUCCESS);
	/* create + delete per call reuses one slot (the last released): memory does not grow */
	for (int i = 0, same = 0; i < 10000; i++) {
		xpti_tracepoint_t *t = xptiCreateTracepoint("hot", "hot.c", 1, 0, NULL);

		CHECK_EQ(xptiGetTracepointData(t, &d2), XPTI_RESULT_SUCCESS);
		same += (uint32_t)d2.uid64 == unk_slot;
		xptiDeleteTracepoint(t);
		if (i == 9999)
			CHECK_EQ(same, 10000);
	}
	CHECK_EQ(d2.uid128.instance, 10000);
}

static void test_callbacks(void)
{
	uint8_t sid = xptiRegisterStream("cb.stream");
	uint16_t user_tt = xptiRegisterUserDefinedTracePoint("tool", XPTI_TRACE_POINT_BEGIN(1));
	xpti_trace_event_data_t *ev, *parent;
	xpti_payload_t p;
	uint64_t inst;
	int ud = 7;

	xpti_payload_init_name(&p, "cb_event");
	ev = xptiMakeEvent("", &p, XPTI_EVENT_GRAPH, XPTI_ACTIVITY_ACTIVE, &inst);
	xpti_payload_init_name(&p, "cb_parent");
	parent = xptiMakeEvent("", &p, XPTI_EVENT_GRAPH, XPTI_ACTIVITY_ACTIVE, &inst);

	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiRegisterCallback(0, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiRegisterCallback(0xFF, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiRegisterCallback(200, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiRegisterCallback(sid, 0, cb_a), XPTI_RESULT_INVALIDARG);
	CHECK(!xptiCheckTraceEnabled(sid, 0));
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_DUPLICATE);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_b), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_END, cb_b), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_FUNCTION_BEGIN, cb_a), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiRegisterCallback(sid, user_tt, cb_b), XPTI_RESULT_SUCCESS);
	CHECK(xptiCheckTraceEnabled(sid, 0));
	CHECK(xptiCheckTraceEnabled(sid, XPTI_TRACE_TASK_BEGIN));
	CHECK(xptiCheckTraceEnabled(sid, user_tt));
	CHECK(!xptiCheckTraceEnabled(sid, XPTI_TRACE_SIGNAL));
	CHECK(!xptiCheckTraceEnabled(0, XPTI_TRACE_TASK_BEGIN));

	/* order = registration order; every argument passed through */
	nrecs = 0;
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, parent, ev, 42, &ud),
		 XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 2);
	CHECK(recs[0].who == 'a' && recs[1].who == 'b');
	CHECK(recs[0].tt == XPTI_TRACE_TASK_BEGIN && recs[0].parent == parent && recs[0].ev == ev &&
	      recs[0].instance == 42 && recs[0].ud == &ud);
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_END, NULL, ev, 42, NULL),
		 XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 3);
	CHECK(recs[2].who == 'b' && recs[2].tt == XPTI_TRACE_TASK_END);
	CHECK_EQ(xptiNotifySubscribers(sid, user_tt, NULL, ev, 1, NULL), XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 4);
	CHECK(recs[3].tt == user_tt);
	/* nobody subscribed: success, nothing called */
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_SIGNAL, NULL, ev, 1, NULL),
		 XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 4);

	/* event-less notifications */
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, NULL, 1, &ud),
		 XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_BEGIN, NULL, NULL, 1, NULL),
		 XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_FUNCTION_BEGIN, NULL, NULL, 9, "fn"),
		 XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 5);
	CHECK(recs[4].ev == NULL && recs[4].instance == 9);
	CHECK_EQ(nrecs, 5);
	/* bad streams */
	CHECK_EQ(xptiNotifySubscribers(0, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiNotifySubscribers(0xFF, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiNotifySubscribers(250, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_INVALIDARG);
	CHECK_EQ(nrecs, 5);

	/* unregister / re-register */
	CHECK_EQ(xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_never),
		 XPTI_RESULT_NOTFOUND);
	CHECK_EQ(xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_DUPLICATE);
	CHECK(xptiCheckTraceEnabled(sid, XPTI_TRACE_TASK_BEGIN)); /* cb_b remains */
	nrecs = 0;
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL);
	CHECK(nrecs == 1 && recs[0].who == 'b');
	CHECK_EQ(xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_b), XPTI_RESULT_SUCCESS);
	CHECK(!xptiCheckTraceEnabled(sid, XPTI_TRACE_TASK_BEGIN));
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_UNDELETE);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_b), XPTI_RESULT_UNDELETE);
	nrecs = 0;
	xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL);
	CHECK(nrecs == 2 && recs[0].who == 'a' && recs[1].who == 'b'); /* original order kept */

	/* tracing off: FALSE, no call */
	xptiForceSetTraceEnabled(false);
	CHECK(!xptiTraceEnabled());
	CHECK(!xptiCheckTraceEnabled(sid, XPTI_TRACE_TASK_BEGIN));
	nrecs = 0;
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_FALSE);
	CHECK_EQ(nrecs, 0);
	xptiForceSetTraceEnabled(true);
	CHECK(xptiTraceEnabled());

	/* scoped notification helper */
	nrecs = 0;
	{
		XPTI_SCOPED_NOTIFY(scope, sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 77, NULL);
		CHECK_EQ(nrecs, 2); /* begin reached a and b */
		CHECK(scope.armed);
	}
	CHECK_EQ(nrecs, 3); /* end reached b */
	CHECK(recs[2].tt == XPTI_TRACE_TASK_END && recs[2].instance == 77);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_SIGNAL, cb_a), XPTI_RESULT_SUCCESS);
	nrecs = 0;
	{
		xpti_scope_t s = xptiScopeBegin(sid, XPTI_TRACE_SIGNAL, NULL, ev, 1, NULL);

		xptiScopeEnd(&s);
		xptiScopeEnd(&s);
	}
	CHECK_EQ(nrecs, 1); /* signal has no end */
	CHECK(recs[0].tt == XPTI_TRACE_SIGNAL);

	/* streams */
	CHECK_EQ(xptiUnregisterStream(NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiUnregisterStream(""), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiUnregisterStream("never.registered"), XPTI_RESULT_NOTFOUND);
	CHECK(xptiRegisterStream("no.callbacks") != XPTI_INVALID_STREAM_ID);
	CHECK_EQ(xptiUnregisterStream("no.callbacks"), XPTI_RESULT_NOTFOUND);
	CHECK_EQ(xptiUnregisterStream("cb.stream"), XPTI_RESULT_SUCCESS);
	CHECK(!xptiCheckTraceEnabled(sid, 0));
	nrecs = 0;
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_SUCCESS);
	CHECK_EQ(nrecs, 0);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_a), XPTI_RESULT_UNDELETE);
	xptiFinalize("cb.stream");
	xptiFinalize(NULL);
	CHECK(!xptiCheckTraceEnabled(sid, 0));
}

static void test_metadata(void)
{
	xpti_payload_t p;
	uint64_t inst;
	xpti_trace_event_data_t *ev;
	xpti_metadata_map_t *md;
	xpti_string_id_t k;
	xpti_object_id_t v, v2;
	xpti_object_data_t d;
	char key[16], *tmp;
	uint64_t u;
	int64_t i64;

	xpti_payload_init_name(&p, "md_event");
	ev = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	v = xptiRegisterObject("val", 3, XPTI_METADATA_STRING);
	CHECK_EQ(xptiAddMetadata(NULL, "k", v), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiAddMetadata(ev, NULL, v), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiAddMetadata(ev, "", v), XPTI_RESULT_INVALIDARG);
	CHECK(xptiQueryMetadata(NULL) == NULL);
	md = xptiQueryMetadata(ev);
	CHECK(md != NULL);
	CHECK_EQ(xptiMetadataCount(md), 0);
	CHECK_EQ(xptiAddMetadata(ev, "kernel", v), XPTI_RESULT_SUCCESS);
	v2 = xptiRegisterObject("other", 5, XPTI_METADATA_STRING);
	CHECK_EQ(xptiAddMetadata(ev, "kernel", v2), XPTI_RESULT_DUPLICATE);
	CHECK_EQ(xptiMetadataCount(md), 1);
	CHECK_EQ(xptiMetadataGet(md, 0, &k, &v), XPTI_RESULT_SUCCESS);
	CHECK(strcmp(xptiLookupString(k), "kernel") == 0);
	CHECK_EQ(v, v2); /* overwritten */
	CHECK_EQ(xptiMetadataGet(md, 1, &k, &v), XPTI_RESULT_NOTFOUND);
	CHECK_EQ(xptiMetadataGet(NULL, 0, &k, &v), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiMetadataFind(md, k, &v), XPTI_RESULT_SUCCESS);
	CHECK_EQ(v, v2);
	CHECK_EQ(xptiMetadataFind(md, 999999, &v), XPTI_RESULT_NOTFOUND);
	CHECK_EQ(xptiMetadataFind(md, k, NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiMetadataCount(NULL), 0);

	CHECK_EQ(xptiAddMetadataU64(ev, "u64", 0x1122334455667788ULL), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataI64(ev, "i64", -5), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataF64(ev, "f64", 2.5), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataBool(ev, "bool", true), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataString(ev, "str", "hello"), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataBinary(ev, "bin", "\0\1", 2), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiAddMetadataString(ev, "str2", NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiMetadataCount(md), 7);
	CHECK_EQ(xptiMetadataFind(md, xptiRegisterString("u64", &tmp), &v), XPTI_RESULT_SUCCESS);
	d = xptiLookupObject(v);
	CHECK(d.size == 8 && d.type == XPTI_METADATA_UNSIGNED_INTEGER);
	memcpy(&u, d.data, sizeof(u)); /* object bytes are not aligned */
	CHECK(u == 0x1122334455667788ULL);
	CHECK_EQ(xptiMetadataFind(md, xptiRegisterString("str", &tmp), &v), XPTI_RESULT_SUCCESS);
	d = xptiLookupObject(v);
	CHECK(d.size == 5 && d.type == XPTI_METADATA_STRING && memcmp(d.data, "hello", 5) == 0);
	/* past the inline entries */
	for (int i = 0; i < 30; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		CHECK_EQ(xptiAddMetadataI64(ev, key, i), XPTI_RESULT_SUCCESS);
	}
	CHECK_EQ(xptiMetadataCount(md), 37);
	CHECK_EQ(xptiMetadataGet(md, 36, &k, &v), XPTI_RESULT_SUCCESS);
	CHECK(strcmp(xptiLookupString(k), "key29") == 0);
	d = xptiLookupObject(v);
	memcpy(&i64, d.data, sizeof(i64));
	CHECK(d.size == 8 && i64 == 29);
}

static void *other_thread(void *arg)
{
	uint64_t *out = arg;
	char *k = NULL;
	uint64_t v;

	out[0] = xptiGetUniversalId();
	out[1] = (uint64_t)xptiGetStashedTuple(&k, &v);
	return NULL;
}

static void test_ids_and_tls(void)
{
	uint64_t a = xptiGetUniqueId(), b = xptiGetUniqueId(), r, c, v, out[2];
	pthread_t t;
	char *k;

	CHECK(a >= 1);
	CHECK_EQ(b, a + 1);
	r = xptiReserveUniqueId(10);
	CHECK_EQ(r, b + 1);
	c = xptiGetUniqueId();
	CHECK_EQ(c, r + 10);
	CHECK_EQ(xptiReserveUniqueId(0), 0);

	CHECK_EQ(xptiGetUniversalId(), 0);
	xptiSetUniversalId(1234);
	CHECK_EQ(xptiGetUniversalId(), 1234);

	CHECK_EQ(xptiStashTuple(NULL, 1), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiGetStashedTuple(NULL, &v), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiGetStashedTuple(&k, NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_NOTFOUND);
	CHECK_EQ(xptiStashTuple("queue", 5), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiStashTuple("event", 6), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_SUCCESS);
	CHECK(strcmp(k, "event") == 0 && v == 6);
	pthread_create(&t, NULL, other_thread, out);
	pthread_join(t, NULL);
	CHECK_EQ(out[0], 0); /* per thread */
	CHECK_EQ(out[1], XPTI_RESULT_NOTFOUND);
	xptiUnstashTuple();
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_SUCCESS);
	CHECK(strcmp(k, "queue") == 0 && v == 5);
	xptiUnstashTuple();
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_NOTFOUND);
	xptiUnstashTuple(); /* empty: no-op */
	for (int i = 0; i < 8; i++)
		CHECK_EQ(xptiStashTuple("deep", (uint64_t)i), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiStashTuple("deep", 8), XPTI_RESULT_FAIL);
	for (int i = 0; i < 8; i++)
		xptiUnstashTuple();
	CHECK_EQ(xptiGetStashedTuple(&k, &v), XPTI_RESULT_NOTFOUND);

	/* the default stream is registered by the framework */
	CHECK_EQ(xptiGetDefaultStreamID(), 1);
	CHECK_EQ(xptiRegisterStream("xpti.framework"), 1);
	CHECK_EQ(xptiSetDefaultStreamID(0), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiSetDefaultStreamID(0xFF), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiSetDefaultStreamID(200), XPTI_RESULT_SUCCESS); /* >= 128 is fine */
	CHECK_EQ(xptiGetDefaultStreamID(), 200);
	CHECK_EQ(xptiGetDefaultEventType(), XPTI_EVENT_ALGORITHM);
	CHECK_EQ(xptiSetDefaultEventType(XPTI_EVENT_UNKNOWN), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiSetDefaultEventType(XPTI_EVENT_BARRIER), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiGetDefaultEventType(), XPTI_EVENT_BARRIER);
	CHECK_EQ(xptiGetDefaultTraceType(), XPTI_TRACE_FUNCTION_BEGIN);
	CHECK_EQ(xptiSetDefaultTraceType(XPTI_TRACE_UNKNOWN_TYPE), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiSetDefaultTraceType(XPTI_TRACE_TASK_BEGIN), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiGetDefaultTraceType(), XPTI_TRACE_TASK_BEGIN);
}

static void test_streams_and_init(void)
{
	uint8_t s1 = xptiRegisterStream("limit.0"), last = 0;
	char name[32];
	int n = 0;

	CHECK_EQ(xptiRegisterStream(NULL), XPTI_INVALID_STREAM_ID);
	CHECK_EQ(xptiRegisterStream(""), XPTI_INVALID_STREAM_ID);
	CHECK_EQ(xptiRegisterStream("limit.0"), s1);
	CHECK_EQ(xptiInitialize(NULL, 1, 0, "v"), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiInitialize("", 1, 0, "v"), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiInitialize("init.stream", 1, 0, NULL), XPTI_RESULT_INVALIDARG);
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(xptiRegisterStream("init.stream")),
		 XPTI_STREAM_DETAIL_LEVEL_NORMAL); /* not initialised yet */
	CHECK_EQ(xptiInitialize("init.stream", 1, 0, "1.0"), XPTI_RESULT_SUCCESS);
	/* initialised with no subscriber asking for anything */
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(xptiRegisterStream("init.stream")),
		 XPTI_STREAM_DETAIL_LEVEL_NONE);
	CHECK_EQ(xptiGetEffectiveStreamDetailLevel(1), XPTI_STREAM_DETAIL_LEVEL_NONE);
	/* fill the table: ids 1..254, then 0xFF, never wrapping */
	for (int i = 1; i < 400; i++) {
		uint8_t id;

		snprintf(name, sizeof(name), "limit.%d", i);
		id = xptiRegisterStream(name);
		if (id == XPTI_INVALID_STREAM_ID)
			break;
		CHECK(id > last || last == 0);
		last = id;
		n++;
	}
	CHECK_EQ(last, 254);
	CHECK_EQ(xptiRegisterStream("one.too.many"), XPTI_INVALID_STREAM_ID);
	CHECK_EQ(xptiRegisterStream("limit.0"), s1); /* old names still resolve */
}

static void test_finalize(void)
{
	char *s;
	uint64_t inst;
	xpti_payload_t p;
	xpti_trace_event_data_t *ev;
	uint8_t sid = xptiRegisterStream("cb.stream");

	xpti_payload_init_name(&p, "fin_event");
	ev = xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	xptiFrameworkInitialize();
	xptiFrameworkInitialize();
	xptiFrameworkFinalize();
	CHECK(xptiTraceEnabled()); /* one reference left */
	CHECK(xptiRegisterString("still alive", &s) != XPTI_INVALID_ID);
	xptiFrameworkFinalize();
	CHECK(!xptiTraceEnabled());
	CHECK_EQ(xptiRegisterString("after", &s), XPTI_INVALID_ID);
	CHECK(s == NULL);
	CHECK(xptiLookupString(1) == NULL);
	CHECK(xptiFindEvent(ev->unique_id) == NULL);
	CHECK(xptiMakeEvent("", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst) == NULL);
	CHECK_EQ(xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, 1, NULL),
		 XPTI_RESULT_FALSE);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, cb_never), XPTI_RESULT_FAIL);
	CHECK_EQ(xptiInitialize("x", 1, 0, "v"), XPTI_RESULT_FAIL);
	xptiForceSetTraceEnabled(true);
	CHECK(!xptiTraceEnabled()); /* no resurrection */
	xptiFrameworkFinalize();    /* twice: harmless */
	xptiFrameworkFinalize();
	CHECK_EQ(xptiRegisterStream("late"), XPTI_INVALID_STREAM_ID);
}

int main(void)
{
	uint32_t maj = 9, min = 9, patch = 9;

	xptiGetVersion(&maj, &min, &patch);
	CHECK(maj == XPTI_VERSION_MAJOR && min == XPTI_VERSION_MINOR &&
	      patch == XPTI_VERSION_PATCH);
	xptiGetVersion(NULL, NULL, NULL);
	CHECK(!xptiTraceEnabled()); /* no subscriber loaded */
	xptiForceSetTraceEnabled(true);
	CHECK(xptiTraceEnabled());
	xptiTraceTryToEnable(); /* dispatcher: no-op */

	test_strings();
	test_objects();
	test_types();
	test_payloads();
	test_instances();
	test_tracepoints();
	test_callbacks();
	test_metadata();
	test_ids_and_tls();
	test_streams_and_init();
	test_finalize();
	return ht_test_result("xpti_api");
}
