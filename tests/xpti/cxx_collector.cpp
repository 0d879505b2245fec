// A collector written the way the public XPTI sample collectors are: C++, Intel's xpti:: names,
// entry points without extern "C" (the header declares them), callbacks registered per
// trace_point_type_t, metadata walked as a map of string ids to object ids. Built as C++17 and
// C++20 (COLLECTOR_TAG says which) and loaded through XPTI_SUBSCRIBERS by xpti_env_test.
// It writes one line per call to the file named by XPTI_TEST_LOG:
//   <tag> init <stream> <maj>.<min> <version> enabled=<0|1>
//   <tag> <type> name=<payload name> file=<file>:<line> instance=<n> lookup=<name> md={k=v,...}
//   <tag> function_begin|function_end fn=<user data> instance=<n>
//   <tag> stash <key>=<value>            (the tuple the instrumentation stashed, when any)
//   <tag> finish <stream>
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "xpti/xpti_trace_framework.h"

static uint8_t g_stream_id = 0;
static std::mutex g_io_mutex;

static void log_line(const std::string &line)
{
	const char *path = std::getenv("XPTI_TEST_LOG");
	std::lock_guard<std::mutex> lock(g_io_mutex);

	if (FILE *f = path ? std::fopen(path, "a") : nullptr) {
		std::fprintf(f, "%s %s\n", COLLECTOR_TAG, line.c_str());
		std::fclose(f);
	}
}

// A metadata value as text, by its type hint.
static std::string value_text(xpti::object_id_t id)
{
	xpti::object_data_t obj = xptiLookupObject(id);
	char buf[64];

	switch (static_cast<xpti::metadata_type_t>(obj.type)) {
	case xpti::metadata_type_t::string:
		return std::string(obj.data, obj.size);
	case xpti::metadata_type_t::unsigned_integer: {
		uint64_t v = 0;
		std::memcpy(&v, obj.data, std::min(obj.size, sizeof(v)));
		std::snprintf(buf, sizeof buf, "%" PRIu64, v);
		return buf;
	}
	case xpti::metadata_type_t::signed_integer: {
		int64_t v = 0;
		std::memcpy(&v, obj.data, std::min(obj.size, sizeof(v)));
		std::snprintf(buf, sizeof buf, "%" PRId64, v);
		return buf;
	}
	case xpti::metadata_type_t::floating: {
		double v = 0;
		std::memcpy(&v, obj.data, std::min(obj.size, sizeof(v)));
		std::snprintf(buf, sizeof buf, "%g", v);
		return buf;
	}
	default:
		return "?";
	}
}

static const char *type_name(uint16_t trace_type)
{
	switch (static_cast<xpti::trace_point_type_t>(trace_type)) {
	case xpti::trace_point_type_t::task_begin:
		return "task_begin";
	case xpti::trace_point_type_t::task_end:
		return "task_end";
	case xpti::trace_point_type_t::wait_begin:
		return "wait_begin";
	case xpti::trace_point_type_t::wait_end:
		return "wait_end";
	case xpti::trace_point_type_t::function_begin:
		return "function_begin";
	case xpti::trace_point_type_t::function_end:
		return "function_end";
	default:
		return "other";
	}
}

XPTI_CALLBACK_API void tp_callback(uint16_t trace_type, xpti::trace_event_data_t *parent,
				   xpti::trace_event_data_t *event, uint64_t instance,
				   const void *user_data);

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major_version, unsigned int minor_version,
				     const char *version_str, const char *stream_name)
{
	static const xpti::trace_point_type_t types[] = {
	    xpti::trace_point_type_t::task_begin,     xpti::trace_point_type_t::task_end,
	    xpti::trace_point_type_t::wait_begin,     xpti::trace_point_type_t::wait_end,
	    xpti::trace_point_type_t::function_begin, xpti::trace_point_type_t::function_end,
	};

	if (!stream_name || std::strcmp(stream_name, "xpti.framework") == 0)
		return;
	g_stream_id = xptiRegisterStream(stream_name);
	for (auto t : types)
		if (xptiRegisterCallback(g_stream_id, static_cast<uint16_t>(t), tp_callback) !=
		    xpti::result_t::XPTI_RESULT_SUCCESS)
			log_line("register failed");
	log_line(std::string("init ") + stream_name + " " + std::to_string(major_version) + "." +
		 std::to_string(minor_version) + " " + version_str +
		 " enabled=" + (xptiCheckTraceEnabled(g_stream_id) ? "1" : "0"));
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name)
{
	if (std::strcmp(stream_name, "xpti.framework") != 0)
		log_line(std::string("finish ") + stream_name);
}

// Asks for the most detail on one stream, leaves the others at the default.
XPTI_CALLBACK_API bool xptiQuerySubscriberStreamDetailLevel(const char *stream_name,
							    xpti::stream_detail_level_t *level)
{
	if (std::strcmp(stream_name, "ht.verbose") != 0)
		return false;
	*level = xpti::stream_detail_level_t::XPTI_STREAM_DETAIL_LEVEL_VERBOSE;
	return true;
}

XPTI_CALLBACK_API void tp_callback(uint16_t trace_type, xpti::trace_event_data_t *,
				   xpti::trace_event_data_t *event, uint64_t instance,
				   const void *user_data)
{
	std::string line = type_name(trace_type);
	char *key = nullptr;
	uint64_t value = 0;

	if (!event) {
		line += std::string(" fn=") + static_cast<const char *>(user_data);
		log_line(line + " instance=" + std::to_string(instance));
		return;
	}
	const xpti::payload_t *p = xptiQueryPayload(event);
	line += std::string(" name=") + (p->name_sid() != xpti::invalid_id<> ? p->name : "?");
	if (p->source_file_sid() != xpti::invalid_id<xpti::string_id_t> && p->source_file)
		line += std::string(" file=") + p->source_file + ":" + std::to_string(p->line_no);
	line += " instance=" + std::to_string(instance);
	if (const xpti_trace_event_t *e = xptiLookupEvent(event->unique_id))
		line += std::string(" lookup=") +
			const_cast<xpti_trace_event_t *>(e)->payload()->name();

	// Go through all metadata of the event, sorted by key for a stable line.
	std::vector<std::pair<std::string, std::string>> items;
	xpti::metadata_t *metadata = xptiQueryMetadata(event);
	for (auto &item : *metadata)
		items.emplace_back(xptiLookupString(item.first), value_text(item.second));
	std::sort(items.begin(), items.end());
	line += " md={";
	for (size_t i = 0; i < items.size(); i++)
		line += (i ? "," : "") + items[i].first + "=" + items[i].second;
	line += "}";
	log_line(line);

	if (xptiGetStashedTuple(&key, value) == xpti::result_t::XPTI_RESULT_SUCCESS)
		log_line(std::string("stash ") + key + "=" + std::to_string(value));
}
