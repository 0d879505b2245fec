/*
 * The XPTI name tables: strings (ids from 1), objects (content-deduplicated blobs, ids from 0),
 * stream names (ids 1..254) and tool/vendor names for user-defined trace point and event types.
 * All four are intern tables (intern.c): lookups are lock-free, inserts serialise per table.
 */
#include <string.h>

#include "xpti_internal.h"

#define HT_XPTI_MAX_STRINGS (HT_XPTI_MAX_CHUNKS * HT_XPTI_CHUNK_SIZE)
#define HT_XPTI_MAX_STREAMS 254 /* ids are uint8_t; 0 = none, 0xFF = invalid */
#define HT_XPTI_MAX_VENDORS 254

struct ht_xpti_intern ht_xpti_strings = HT_XPTI_INTERN_INIT(HT_XPTI_MAX_STRINGS - 1);
struct ht_xpti_intern ht_xpti_streams = HT_XPTI_INTERN_INIT(HT_XPTI_MAX_STREAMS);
static struct ht_xpti_intern ht_xpti_objects = HT_XPTI_INTERN_INIT(INT32_MAX);
static struct ht_xpti_intern ht_xpti_vendors = HT_XPTI_INTERN_INIT(HT_XPTI_MAX_VENDORS);

xpti_string_id_t ht_xpti_string_add(const char *s, const char **interned)
{
	size_t len;
	uint64_t h = ht_xpti_hash_str(s, &len);
	long idx = ht_xpti_intern_add(&ht_xpti_strings, s, len, h, 0);

	if (idx < 0) {
		*interned = NULL;
		return XPTI_INVALID_ID;
	}
	*interned = ht_xpti_intern_get(&ht_xpti_strings, (uint64_t)idx)->data;
	return (xpti_string_id_t)idx + 1;
}

XPTI_EXPORT_API xpti_string_id_t xptiRegisterString(const char *string, char **table_string)
{
	const char *copy;
	xpti_string_id_t id;

	if (table_string)
		*table_string = NULL;
	if (!string || !string[0] || !table_string || !ht_xpti_live())
		return XPTI_INVALID_ID;
	id = ht_xpti_string_add(string, &copy);
	*table_string = (char *)copy;
	return id;
}

XPTI_EXPORT_API const char *xptiLookupString(xpti_string_id_t id)
{
	const struct ht_xpti_intern_entry *e;

	if (id == 0 || id == XPTI_INVALID_ID || !ht_xpti_live())
		return NULL;
	e = ht_xpti_intern_get(&ht_xpti_strings, (uint64_t)id - 1);
	return e ? e->data : NULL;
}

XPTI_EXPORT_API xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type)
{
	long idx;

	if (!data || !ht_xpti_live())
		return XPTI_INVALID_OBJECT_ID;
	idx =
	    ht_xpti_intern_add(&ht_xpti_objects, data, size, ht_xpti_hash_bytes(data, size), type);
	return idx < 0 ? XPTI_INVALID_OBJECT_ID : (xpti_object_id_t)idx;
}

XPTI_EXPORT_API xpti_object_data_t xptiLookupObject(xpti_object_id_t id)
{
	xpti_object_data_t d = {0, NULL, 0};
	const struct ht_xpti_intern_entry *e;

	if (id < 0 || !ht_xpti_live())
		return d;
	e = ht_xpti_intern_get(&ht_xpti_objects, (uint64_t)id);
	if (e) {
		d.size = e->len;
		d.data = e->data;
		d.type = e->type;
	}
	return d;
}

XPTI_EXPORT_API uint8_t xptiRegisterStream(const char *stream_name)
{
	size_t len;
	uint64_t h;
	long idx;

	if (!stream_name || !stream_name[0] || !ht_xpti_live())
		return XPTI_INVALID_STREAM_ID;
	h = ht_xpti_hash_str(stream_name, &len);
	idx = ht_xpti_intern_add(&ht_xpti_streams, stream_name, len, h, 0);
	return idx < 0 ? XPTI_INVALID_STREAM_ID : (uint8_t)(idx + 1);
}

uint8_t ht_xpti_stream_find(const char *name)
{
	size_t len;
	uint64_t h;
	long idx;

	if (!name || !name[0])
		return 0;
	h = ht_xpti_hash_str(name, &len);
	idx = ht_xpti_intern_find(&ht_xpti_streams, name, len, h);
	return idx < 0 ? 0 : (uint8_t)(idx + 1);
}

const char *ht_xpti_stream_name(uint8_t sid)
{
	const struct ht_xpti_intern_entry *e;

	if (sid == 0)
		return NULL;
	e = ht_xpti_intern_get(&ht_xpti_streams, (uint64_t)sid - 1);
	return e ? e->data : NULL;
}

static uint16_t ht_xpti_user_type(const char *tool_name, uint8_t value)
{
	size_t len;
	uint64_t h;
	long idx;

	if (!tool_name || !tool_name[0] || value > 127 || !ht_xpti_live())
		return XPTI_INVALID_TRACE_TYPE;
	h = ht_xpti_hash_str(tool_name, &len);
	idx = ht_xpti_intern_add(&ht_xpti_vendors, tool_name, len, h, 0);
	if (idx < 0)
		return XPTI_INVALID_TRACE_TYPE;
	return XPTI_VENDOR_DEFINED_TRACE_TYPE16(idx + 1, value);
}

XPTI_EXPORT_API uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name,
							   uint8_t user_defined_tp)
{
	return ht_xpti_user_type(tool_name, user_defined_tp);
}

XPTI_EXPORT_API uint16_t xptiRegisterUserDefinedEventType(const char *tool_name,
							  uint8_t user_defined_event)
{
	return ht_xpti_user_type(tool_name, user_defined_event);
}

void ht_xpti_strings_reset(void)
{
	ht_xpti_intern_reset(&ht_xpti_strings);
	ht_xpti_intern_reset(&ht_xpti_streams);
	ht_xpti_intern_reset(&ht_xpti_objects);
	ht_xpti_intern_reset(&ht_xpti_vendors);
}
