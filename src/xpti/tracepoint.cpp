/*
 * Intel's trace point interfaces (xpti_tracepoint_t, xpti_trace_event_t, xpti_payload_t,
 * xpti_metadata_t) for the dispatcher's instances, so xptiCreateTracepoint, xptiLookupEvent
 * and xptiLookupPayload hand C++ callers objects they can call as upstream's, whether they were
 * built against Intel's header or ours (same classes, same virtual function order).
 *
 * The object is four vtable pointers and no data, built once in the first bytes of each
 * instance slot (events.c): `this` is the instance, whose fields the methods reach through
 * cxx_bridge.h. The objects are never deleted; instances are released by events.c.
 */
#include <new>

#include "cxx_bridge.h"

namespace
{

const char unknown_name[] = "<unknown>";
const char unknown_file[] = "<unknown-file>";

struct tp_object final : xpti_payload_t, xpti_trace_event_t, xpti_metadata_t, xpti_tracepoint_t {
	ht_xpti_inst *self()
	{
		return reinterpret_cast<ht_xpti_inst *>(this);
	}
	const ht_xpti_inst *self() const
	{
		return reinterpret_cast<const ht_xpti_inst *>(this);
	}
	xpti::payload_t *pl() const
	{
		return ht_xpti_inst_payload(const_cast<ht_xpti_inst *>(self()));
	}
	xpti::trace_event_data_t *ev() const
	{
		return ht_xpti_inst_event(const_cast<ht_xpti_inst *>(self()));
	}

	/* xpti_payload_t */
	const char *name() const override
	{
		return pl()->name ? pl()->name : unknown_name;
	}
	const char *source_file() const override
	{
		return pl()->source_file ? pl()->source_file : unknown_file;
	}
	uint32_t line_no() const override
	{
		return pl()->line_no;
	}
	uint32_t column_no() const override
	{
		return pl()->column_no;
	}
	uint64_t payload_flags() const override
	{
		return pl()->flags;
	}
	int32_t name_string_id() const override
	{
		return static_cast<int32_t>(pl()->name_sid());
	}
	int32_t file_string_id() const override
	{
		return static_cast<int32_t>(pl()->source_file_sid());
	}
	uint64_t uid64() const override
	{
		return ev()->unique_id;
	}
	bool is_valid() const override
	{
		return pl()->flags &
		       (XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE);
	}
	xpti::payload_t *payload_ref() override
	{
		return pl();
	}

	/* xpti_trace_event_t and xpti_tracepoint_t */
	xpti_payload_t *payload() override
	{
		return this;
	}
	xpti_metadata_t *metadata() override
	{
		return this;
	}
	xpti_trace_event_t *event() override
	{
		return this;
	}
	uint64_t instance() const override
	{
		return __atomic_load_n(&ev()->instance_id, __ATOMIC_RELAXED);
	}
	uint16_t event_type() const override
	{
		return ev()->event_type;
	}
	uint16_t activity_type() const override
	{
		return ev()->activity_type;
	}
	uint64_t source_uid64() const override
	{
		return ev()->source_id;
	}
	uint64_t target_uid64() const override
	{
		return ev()->target_id;
	}
	uint64_t event_flags() const override
	{
		return ev()->flags;
	}
	void set_activity_type(xpti::trace_activity_type_t type) override
	{
		ev()->activity_type = static_cast<uint16_t>(type);
	}
	void set_event_type(uint16_t type) override
	{
		ev()->event_type = type;
	}
	xpti::trace_event_data_t *event_ref() override
	{
		return ev();
	}

	/* xpti_metadata_t: items in the order of their key ids, as xptiMetadataGet */
	xpti::result_t item_after(uint32_t after, char **key, xpti::object_id_t &value)
	{
		uint32_t k = 0;
		xpti::result_t r = ht_xpti_md_next(xptiQueryMetadata(ev()), after, &k, &value);

		*ht_xpti_inst_cursor(self()) = k;
		if (r == XPTI_RESULT_SUCCESS && key)
			*key = const_cast<char *>(xptiLookupString(k));
		return r == XPTI_RESULT_SUCCESS ? r : XPTI_RESULT_FALSE;
	}
	xpti::result_t first_item(char **key, xpti::object_id_t &value) override
	{
		return item_after(0, key, value);
	}
	xpti::result_t next_item(char **key, xpti::object_id_t &value) override
	{
		uint32_t after = *ht_xpti_inst_cursor(self());

		return after ? item_after(after, key, value) : XPTI_RESULT_FALSE;
	}
	xpti::result_t add_item(const char *key, xpti::object_id_t value) override
	{
		return xptiAddMetadata(ev(), key, value);
	}
	size_t count() override
	{
		return xptiMetadataCount(xptiQueryMetadata(ev()));
	}
};

static_assert(sizeof(tp_object) == HT_XPTI_IFACE_SIZE, "the interface object is its vtables");

tp_object *as_object(ht_xpti_inst *in)
{
	return std::launder(reinterpret_cast<tp_object *>(in));
}

} // namespace

extern "C" {

void ht_xpti_iface_init(ht_xpti_inst *in)
{
	new (in) tp_object();
}

xpti_tracepoint_t *ht_xpti_iface_tracepoint(ht_xpti_inst *in)
{
	return as_object(in);
}

const xpti_trace_event_t *ht_xpti_iface_event(ht_xpti_inst *in)
{
	return as_object(in);
}

const xpti_payload_iface_t *ht_xpti_iface_payload(ht_xpti_inst *in)
{
	return as_object(in);
}

ht_xpti_inst *ht_xpti_iface_inst(xpti_tracepoint_t *tp)
{
	return static_cast<tp_object *>(tp)->self();
}

} // extern "C"
