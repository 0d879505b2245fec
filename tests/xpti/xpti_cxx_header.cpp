// Compiled (not run) as C++17 and C++20 with -Wall -Wextra -Werror by the xpti_cxx_header
// tests: what collectors and instrumented C++ code written for Intel's headers use must
// compile against ours unchanged, with Intel's values. A failed static_assert fails the test.
#include <string>
#include <type_traits>
#include <unordered_map>

#include "xpti/xpti_trace_framework.h"

static_assert(static_cast<uint16_t>(xpti::trace_point_type_t::region_end) == 9, "values");
static_assert(static_cast<uint16_t>(xpti::trace_point_type_t::offload_alloc_accessor) == 40, "");
static_assert(static_cast<uint16_t>(xpti::trace_point_type_t::diagnostics) == 126, "");
static_assert(xpti::trace_function_with_args_end == 29, "");
static_assert(xpti::trace_algorithm_event == 2, "");
static_assert(static_cast<int32_t>(xpti::result_t::XPTI_RESULT_NOTFOUND) == (int32_t)0x80004004,
	      "");
static_assert(static_cast<int>(xpti::payload_flag_t::HashAvailable) == 0x20000, "");
static_assert(static_cast<int>(xpti::trace_event_flag_t::PayloadAvailable) == 32, "");
static_assert(xpti::invalid_id<> == 0xffffffffu && xpti::invalid_id<uint8_t> == 0xff, "");
static_assert(xpti::invalid_uid == 0 && xpti::default_vendor == 0, "");
static_assert(sizeof(xpti::payload_t) == 80 && sizeof(xpti::trace_event_data_t) == 128, "");
static_assert(sizeof(xpti::stream_detail_level_t) == 1, "");
static_assert(std::is_same_v<xpti::metadata_t, std::unordered_map<uint32_t, int32_t>>, "");
static_assert(std::is_same_v<decltype(xptiQueryMetadata(nullptr)), xpti::metadata_t *>, "");
static_assert(std::is_same_v<decltype(xptiGetDefaultEventType()), xpti::trace_event_type_t>, "");
static_assert(std::is_same_v<decltype(xptiInitialize(nullptr, 0, 0, nullptr)), xpti::result_t>, "");

static uint8_t g_stream_id;

XPTI_CALLBACK_API void tp_callback(uint16_t, xpti::trace_event_data_t *,
				   xpti::trace_event_data_t *event, uint64_t, const void *)
{
	const xpti::payload_t *p = xptiQueryPayload(event);
	std::string line = p->name_sid() != xpti::invalid_id<> ? p->name : "<unknown>";

	for (auto &item : *xptiQueryMetadata(event))
		line += xptiLookupString(item.first) + std::to_string(item.second);
	for (const auto &[key, value] : event->reserved.metadata)
		line += std::to_string(key + static_cast<uint32_t>(value));
	if (xptiQueryMetadata(event)->count(1))
		line += std::to_string((*xptiQueryMetadata(event))[1]);
	(void)line;
}

// No extern "C": the header declares the entry points with C linkage.
XPTI_CALLBACK_API void xptiTraceInit(unsigned int, unsigned int, const char *,
				     const char *stream_name)
{
	char *key;
	uint64_t value;
	uint64_t instance;
	xpti::payload_t payload("fn", "file.cpp", 1, 2, reinterpret_cast<void *>(&tp_callback));
	xpti::payload_t by_name("fn");
	xpti::payload_t by_code(reinterpret_cast<const void *>(&tp_callback));
	xpti::trace_event_data_t *ev = xptiMakeEvent(
	    "fn", &payload, static_cast<uint16_t>(xpti::trace_event_type_t::algorithm),
	    xpti::trace_activity_type_t::active, &instance);

	g_stream_id = xptiRegisterStream(stream_name);
	if (xptiRegisterCallback(g_stream_id, (uint16_t)xpti::trace_point_type_t::task_begin,
				 tp_callback) != xpti::result_t::XPTI_RESULT_SUCCESS)
		return;
	if (!xptiCheckTraceEnabled(g_stream_id) ||
	    !xptiCheckTraceEnabled(g_stream_id, xpti::trace_task_begin))
		return;
	if (xptiGetStashedTuple(&key, value) == xpti::result_t::XPTI_RESULT_SUCCESS)
		return;
	xptiSetDefaultTraceType(xpti::trace_point_type_t::task_begin);
	xptiSetDefaultEventType(xpti::trace_event_type_t::graph);
	if (xptiGetEffectiveStreamDetailLevel(g_stream_id) >=
	    xpti::stream_detail_level_t::XPTI_STREAM_DETAIL_LEVEL_VERBOSE)
		return;
	xpti_tracepoint_t *tp = xptiCreateTracepoint("fn", "file.cpp", 3, 4);
	if (tp) {
		xpti::trace_event_data_t *tev = tp->event_ref();
		char *mkey;
		xpti::object_id_t mval;

		tp->metadata()->add_item("k", 0);
		if (tp->metadata()->first_item(&mkey, mval) == xpti::result_t::XPTI_RESULT_SUCCESS)
			tp->metadata()->next_item(&mkey, mval);
		tp->event()->set_activity_type(xpti::trace_activity_type_t::overhead);
		(void)tp->payload()->name();
		(void)xptiLookupEvent(tp->uid64())->event_type();
		(void)xptiLookupPayload(tev->unique_id)->source_file();
		xptiSetTracepointScopeData(tp);
		xptiUnsetTracepointScopeData();
		xptiDeleteTracepoint(tp);
	}
	const xpti_tracepoint_t *scope = xptiRegisterTracepointScope("fn", "file.cpp", 5, 6);
	(void)scope;
	std::unordered_map<xpti::uid128_t, int> by_uid;
	by_uid[xpti::make_uid128(1, 2, 3, 4)] = 1;
	(void)xpti::is_valid_uid(by_uid.begin()->first);
	std::unordered_map<xpti::uid_t, int> legacy;
	legacy[payload.uid] = 1;
	xpti::offload_image_data_t image;
	image.addressing = 1;
	xpti::mem_alloc_data_t mem{1, 2, 3, 4, nullptr};
	xpti_td *alias = ev;
	(void)alias, (void)mem, (void)image, (void)by_name, (void)by_code;
	xpti_scope_t s =
	    xptiScopeBegin(g_stream_id, XPTI_TRACE_TASK_BEGIN, nullptr, ev, 1, nullptr);
	xptiScopeEnd(&s);
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *)
{
}
