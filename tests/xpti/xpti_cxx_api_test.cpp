// Intel's C++ API against the dispatcher, run (built as C++17 and C++20, linked directly
// against libxptifw.so, tracing forced on): payload_t constructors and flags, per-instance
// events and their metadata seen as the std::unordered_map of xpti::metadata_t, the trace
// point interfaces (payload, event, metadata iteration, lookups, delete), scope data, enum-class
// defaults, the stash by reference and default arguments.
#include <cstring>
#include <string>
#include <vector>

#include "xpti/xpti_trace_framework.h"

#include "test_util.h"

static int g_calls;

static void count_cb(uint16_t, xpti::trace_event_data_t *, xpti::trace_event_data_t *, uint64_t,
		     const void *)
{
	g_calls++;
}

static void test_payload_ctors()
{
	int dummy;
	xpti::payload_t empty;
	xpti::payload_t code(&dummy);
	xpti::payload_t name("n");
	xpti::payload_t both("n", &dummy);
	xpti::payload_t stack("n", "a->b", nullptr);
	xpti::payload_t full("n", "f.cpp", 3, 4);
	xpti::payload_t nameless("", "f.cpp", 3, 4, &dummy);

	CHECK(empty.flags == 0 && empty.name == nullptr && empty.line_no == xpti::invalid_id<>);
	CHECK_EQ(code.flags, XPTI_PAYLOAD_CODE_POINTER_AVAILABLE);
	CHECK_EQ(name.flags, XPTI_PAYLOAD_NAME_AVAILABLE);
	CHECK_EQ(both.flags, XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_CODE_POINTER_AVAILABLE);
	CHECK_EQ(stack.flags, XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_STACK_TRACE_AVAILABLE);
	CHECK_EQ(full.flags, (uint64_t)xpti::payload_flag_t::NameAvailable |
				 (uint64_t)xpti::payload_flag_t::SourceFileAvailable |
				 (uint64_t)xpti::payload_flag_t::LineInfoAvailable |
				 (uint64_t)xpti::payload_flag_t::ColumnInfoAvailable);
	CHECK(full.line_no == 3 && full.column_no == 4 && full.code_ptr_va == nullptr);
	CHECK_EQ(nameless.flags & XPTI_PAYLOAD_NAME_AVAILABLE, 0);
}

static void test_events_and_metadata()
{
	xpti::payload_t p("kernel", "k.cpp", 10, 1);
	uint64_t i1, i2;
	xpti::trace_event_data_t *e1 =
	    xptiMakeEvent("kernel", &p, static_cast<uint16_t>(xpti::trace_event_type_t::algorithm),
			  xpti::trace_activity_type_t::active, &i1);
	xpti::trace_event_data_t *e2 =
	    xptiMakeEvent("kernel", &p, static_cast<uint16_t>(xpti::trace_event_type_t::graph),
			  xpti::trace_activity_type_t::background, &i2);
	char *tmp;

	CHECK(e1 && e2 && e1 != e2);
	CHECK(i1 == 1 && i2 == 2);
	CHECK(e1->reserved.payload->uid == e2->reserved.payload->uid);
	CHECK_EQ(e2->activity_type, static_cast<uint16_t>(xpti::trace_activity_type_t::background));

	xpti::object_id_t dev =
	    xptiRegisterObject("gpu", 3, (uint8_t)xpti::metadata_type_t::string);
	xpti::string_id_t key = xptiRegisterString("device", &tmp);
	CHECK(xptiAddMetadata(e1, "device", dev) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(xptiAddMetadata(e1, "device", dev) == xpti::result_t::XPTI_RESULT_DUPLICATE);
	CHECK_EQ(xptiAddMetadataU64(e1, "bytes", 64), XPTI_RESULT_SUCCESS);

	xpti::metadata_t *md = xptiQueryMetadata(e1);
	CHECK(md == &e1->reserved.metadata);
	CHECK_EQ(md->size(), 2);
	CHECK_EQ(md->count(key), 1);
	CHECK_EQ((*md)[key], dev);
	int seen = 0;
	for (auto &item : *md)
		seen += item.first == key && item.second == dev;
	for (const auto &[k, v] : *md)
		seen +=
		    std::string(xptiLookupString(k)) == "bytes" && xptiLookupObject(v).size == 8;
	CHECK_EQ(seen, 2);
	CHECK(xptiQueryMetadata(e2)->empty()); /* the other instance's table */
	CHECK_EQ(xptiMetadataCount(md), 2);

	uint64_t uid = e1->unique_id;
	xptiReleaseEvent(e1);
	CHECK(xptiFindEvent(uid) == nullptr);
}

static void test_tracepoints()
{
	xpti_tracepoint_t *tp = xptiCreateTracepoint("tp_fn", "tp.cpp", 7, 3);
	char *key = nullptr;
	xpti::object_id_t value = -1;
	std::vector<std::string> keys;

	CHECK(tp != nullptr);
	CHECK(std::strcmp(tp->payload()->name(), "tp_fn") == 0);
	CHECK(std::strcmp(tp->payload()->source_file(), "tp.cpp") == 0);
	CHECK(tp->payload()->line_no() == 7 && tp->payload()->column_no() == 3);
	CHECK(tp->payload()->is_valid());
	CHECK_EQ(tp->payload()->name_string_id(), (int32_t)tp->payload_ref()->name_sid());
	CHECK(std::strcmp(xptiLookupString(tp->payload()->file_string_id()), "tp.cpp") == 0);
	CHECK_EQ(tp->instance(), 1);
	CHECK_EQ(tp->uid64(), tp->event_ref()->unique_id);
	CHECK_EQ(tp->payload()->uid64(), tp->uid64());
	CHECK(tp->event()->payload_ref() == tp->payload_ref());
	CHECK(tp->event_ref()->reserved.payload == tp->payload_ref());
	CHECK_EQ(tp->event()->event_type(), (uint16_t)xpti::trace_event_type_t::algorithm);
	tp->event()->set_event_type((uint16_t)xpti::trace_event_type_t::barrier);
	tp->event()->set_activity_type(xpti::trace_activity_type_t::overhead);
	CHECK_EQ(tp->event_ref()->event_type, (uint16_t)xpti::trace_event_type_t::barrier);
	CHECK_EQ(tp->event()->activity_type(), (uint16_t)xpti::trace_activity_type_t::overhead);
	CHECK(tp->event()->event_flags() & (uint64_t)xpti::trace_event_flag_t::UIDAvailable);
	CHECK(tp->event()->source_uid64() == 0 && tp->event()->target_uid64() == 0);

	/* lookups hand out the same objects */
	CHECK(xptiLookupEvent(tp->uid64()) == tp->event());
	CHECK(xptiLookupPayload(tp->uid64()) == tp->payload());
	CHECK(xptiFindEvent(tp->uid64()) == tp->event_ref());
	CHECK(xptiQueryPayloadByUID(tp->uid64()) == tp->payload_ref());
	CHECK(tp->event()->payload() == tp->payload() && tp->event()->metadata() == tp->metadata());

	/* the metadata interface: add, count, walk in key order */
	CHECK(tp->metadata()->first_item(&key, value) == xpti::result_t::XPTI_RESULT_FALSE);
	CHECK(tp->metadata()->count() == 0);
	CHECK(tp->metadata()->add_item("alpha", 1) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(tp->metadata()->add_item("beta", 2) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(tp->metadata()->add_item("alpha", 3) == xpti::result_t::XPTI_RESULT_DUPLICATE);
	CHECK(tp->metadata()->count() == 2);
	for (auto r = tp->metadata()->first_item(&key, value);
	     r == xpti::result_t::XPTI_RESULT_SUCCESS; r = tp->metadata()->next_item(&key, value))
		keys.push_back(std::string(key) + "=" + std::to_string(value));
	CHECK(keys.size() == 2 && keys[0] == "alpha=3" && keys[1] == "beta=2");
	CHECK(tp->metadata()->next_item(&key, value) == xpti::result_t::XPTI_RESULT_FALSE);
	CHECK_EQ(xptiQueryMetadata(tp->event_ref())->size(), 2);

	/* scope data and the universal id */
	CHECK(xptiSetTracepointScopeData(tp) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(xptiGetTracepointScopeData() == tp);
	CHECK_EQ(xptiGetUniversalId(), tp->uid64());
	xptiUnsetTracepointScopeData();
	CHECK(xptiGetTracepointScopeData() == nullptr && xptiGetUniversalId() == 0);

	/* another instance of the same location, then delete both */
	xpti_tracepoint_t *tp2 = xptiCreateTracepoint("tp_fn", "tp.cpp", 7, 3, nullptr);
	uint64_t uid = tp->uid64();
	CHECK(tp2 && tp2 != tp && tp2->instance() == 2 && tp2->metadata()->count() == 0);
	xpti_tracepoint_data_t data;
	CHECK(xptiGetTracepointData(tp2, &data) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(data.isValid() && data.uid128.instance == 2 && data.event == tp2->event_ref());
	CHECK(xptiDeleteTracepoint(tp) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(xptiLookupEvent(uid) == nullptr && xptiLookupPayload(uid) == nullptr);
	CHECK(xptiDeleteTracepoint(tp) == xpti::result_t::XPTI_RESULT_INVALIDARG);
	CHECK(xptiDeleteTracepoint(tp2) == xpti::result_t::XPTI_RESULT_SUCCESS);
}

static void test_defaults_and_tls()
{
	char *key = nullptr;
	uint64_t value = 0;
	uint8_t sid = xptiRegisterStream("cxx.api");

	CHECK(xptiGetDefaultEventType() == xpti::trace_event_type_t::algorithm);
	CHECK(xptiSetDefaultEventType(xpti::trace_event_type_t::unknown_event) ==
	      xpti::result_t::XPTI_RESULT_INVALIDARG);
	CHECK(xptiGetDefaultTraceType() == xpti::trace_point_type_t::function_begin);
	CHECK(xptiSetDefaultTraceType(xpti::trace_point_type_t::wait_begin) == XPTI_RESULT_SUCCESS);
	CHECK(xptiGetDefaultTraceType() == xpti::trace_point_type_t::wait_begin);
	CHECK_EQ(xptiGetDefaultStreamID(), xptiRegisterStream("xpti.framework"));
	CHECK(xptiGetStashedTuple(&key, value) == xpti::result_t::XPTI_RESULT_NOTFOUND);
	CHECK(xptiStashTuple("q", 9) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(xptiGetStashedTuple(&key, value) == xpti::result_t::XPTI_RESULT_SUCCESS);
	CHECK(std::strcmp(key, "q") == 0 && value == 9);
	xptiUnstashTuple();
	CHECK(!xptiCheckTraceEnabled(sid));
	CHECK(xptiRegisterCallback(sid, xpti::trace_wait_begin, count_cb) == XPTI_RESULT_SUCCESS);
	CHECK(xptiCheckTraceEnabled(sid));
	CHECK(!xptiCheckTraceEnabled(sid, xpti::trace_task_begin));
	CHECK(xptiNotifySubscribers(sid, xpti::trace_wait_begin, nullptr, nullptr, 1, nullptr) ==
	      xpti::result_t::XPTI_RESULT_INVALIDARG);
	xpti_tracepoint_t *tp = xptiCreateTracepoint("w", "w.cpp", 1, 1);
	CHECK(xptiNotifySubscribers(sid, xpti::trace_wait_begin, nullptr, tp->event_ref(),
				    tp->instance(), nullptr) == XPTI_RESULT_SUCCESS);
	CHECK_EQ(g_calls, 1);
	xptiDeleteTracepoint(tp);
	CHECK(xptiGetEffectiveStreamDetailLevel(sid) ==
	      xpti::stream_detail_level_t::XPTI_STREAM_DETAIL_LEVEL_NORMAL);
}

int main()
{
	xptiForceSetTraceEnabled(true);
	test_payload_ctors();
	test_events_and_metadata();
	test_tracepoints();
	test_defaults_and_tls();
	xptiFrameworkFinalize();
	return ht_test_result("xpti_cxx_api");
}
