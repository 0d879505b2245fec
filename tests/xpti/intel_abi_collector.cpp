// A collector that does not include hetrace's headers: it declares the part of the XPTI ABI it
// uses the way Intel's headers lay it out (xpti::trace_event_data_t with the metadata map
// embedded after the payload pointer, xptiQueryMetadata returning a pointer to that
// std::unordered_map<uint32_t, int32_t>, object_data_t returned by value). It stands for a
// collector compiled against Intel's headers and checks the dispatcher serves that layout: it
// reads the metadata through xptiQueryMetadata and straight from the event, and logs
//   intel task_begin name=<name> md=<key>=<value>,... same=<1 when both views agree>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

namespace abi
{
using metadata_t = std::unordered_map<uint32_t, int32_t>;

struct payload_t {
	const char *name, *stack_trace, *source_file;
	uint32_t line_no, column_no;
	const void *code_ptr_va;
	uint64_t internal, flags, uid[3];
};

struct trace_event_data_t {
	uint64_t unique_id, data_id, instance_id;
	uint16_t event_type, activity_type;
	uint32_t unused;
	uint64_t source_id, target_id;
	struct {
		payload_t *payload;
		metadata_t metadata;
	} reserved;
	void *global_user_data;
	uint64_t flags;
};

struct object_data_t {
	size_t size;
	const char *data;
	uint8_t type;
};

using callback_t = void (*)(uint16_t, trace_event_data_t *, trace_event_data_t *, uint64_t,
			    const void *);
} // namespace abi

extern "C" {
uint8_t xptiRegisterStream(const char *stream_name);
int32_t xptiRegisterCallback(uint8_t stream, uint16_t trace_type, abi::callback_t cb);
abi::metadata_t *xptiQueryMetadata(abi::trace_event_data_t *event);
const char *xptiLookupString(uint32_t id);
abi::object_data_t xptiLookupObject(int32_t id);

__attribute__((visibility("default"))) void xptiTraceInit(unsigned int, unsigned int, const char *,
							  const char *stream);
__attribute__((visibility("default"))) void xptiTraceFinish(const char *);
}

static std::string items(const abi::metadata_t &md)
{
	std::vector<std::string> v;
	std::string s;

	for (const auto &item : md) {
		abi::object_data_t o = xptiLookupObject(item.second);
		v.push_back(std::string(xptiLookupString(item.first)) + "=" +
			    std::string(o.data, o.size));
	}
	std::sort(v.begin(), v.end());
	for (size_t i = 0; i < v.size(); i++)
		s += (i ? "," : "") + v[i];
	return s;
}

static void on_task(uint16_t, abi::trace_event_data_t *, abi::trace_event_data_t *event, uint64_t,
		    const void *)
{
	const char *path = std::getenv("XPTI_TEST_LOG");
	abi::metadata_t *md = xptiQueryMetadata(event);
	FILE *f = path ? std::fopen(path, "a") : nullptr;

	if (!f)
		return;
	std::fprintf(f, "intel task_begin name=%s md=%s same=%d\n", event->reserved.payload->name,
		     items(*md).c_str(),
		     md == &event->reserved.metadata &&
			 items(event->reserved.metadata) == items(*md));
	std::fclose(f);
}

void xptiTraceInit(unsigned int, unsigned int, const char *, const char *stream)
{
	if (std::string(stream) != "xpti.framework")
		xptiRegisterCallback(xptiRegisterStream(stream), 10 /* task_begin */, on_task);
}

void xptiTraceFinish(const char *)
{
}
