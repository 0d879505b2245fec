/*
 * Per-event metadata: key (string id) -> value (object id), kept in the std::unordered_map that
 * Intel's xptiQueryMetadata returns, embedded in the event where Intel's header puts it. So a
 * collector built against Intel's headers, or a C++ collector built against ours, walks it as
 * the map it expects (libstdc++'s layout: the one this unit is compiled with), and C sees the
 * same table through xptiMetadataCount/Get/Find, in the order of the key ids.
 *
 * Writers and the C accessors serialise on one of 64 spinlocks chosen by the table's address
 * (upstream holds one global mutex for writers); C++ readers iterate without a lock, as
 * upstream's do, so metadata should be complete before an event is notified. Metadata is not
 * on the notification path. No exception leaves this unit: an allocation failure is FAIL.
 */
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <sched.h>
#include <vector>

#include "cxx_bridge.h"

namespace
{

constexpr unsigned md_stripes = 64;
std::atomic_flag md_busy[md_stripes];

/* The spinlock of one table, held for a handful of instructions. */
class md_lock
{
      public:
	explicit md_lock(const xpti::metadata_t *md)
	    : flag_(md_busy[(reinterpret_cast<uintptr_t>(md) >> 6) % md_stripes])
	{
		while (flag_.test_and_set(std::memory_order_acquire))
			sched_yield();
	}
	~md_lock()
	{
		flag_.clear(std::memory_order_release);
	}
	md_lock(const md_lock &) = delete;
	md_lock &operator=(const md_lock &) = delete;

      private:
	std::atomic_flag &flag_;
};

/* The event's table, NULL when it has none (a zeroed C event that was never made by us). */
xpti::metadata_t *md_of(xpti_trace_event_data_t *ev)
{
	uint64_t first;

	if (!ev)
		return nullptr;
	/* A constructed libstdc++ table points at its bucket array, never NULL. */
	std::memcpy(&first, &ev->reserved.metadata, sizeof(first));
	return first ? &ev->reserved.metadata : nullptr;
}

/* The keys of a table in ascending order (caller holds its lock). */
std::vector<uint32_t> md_sorted_keys(const xpti::metadata_t &md)
{
	std::vector<uint32_t> keys;

	keys.reserve(md.size());
	for (const auto &item : md)
		keys.push_back(item.first);
	std::sort(keys.begin(), keys.end());
	return keys;
}

xpti_result_t md_add_typed(xpti_trace_event_data_t *ev, const char *key, const void *data,
			   size_t size, uint8_t type)
{
	xpti_object_id_t id;

	if (!ev || !key || !key[0] || !data)
		return XPTI_RESULT_INVALIDARG;
	id = xptiRegisterObject(static_cast<const char *>(data), size, type);
	if (id == XPTI_INVALID_OBJECT_ID)
		return XPTI_RESULT_FAIL;
	return xptiAddMetadata(ev, key, id);
}

} // namespace

extern "C" {

void ht_xpti_md_init(xpti_trace_event_data_t *ev)
{
	new (&ev->reserved.metadata) xpti::metadata_t();
}

void ht_xpti_md_fini(xpti_trace_event_data_t *ev)
{
	std::destroy_at(&ev->reserved.metadata);
	std::memset(static_cast<void *>(&ev->reserved.metadata), 0, sizeof(xpti::metadata_t));
}

xpti_result_t ht_xpti_md_next(xpti_metadata_map_t *md, uint32_t after, uint32_t *key,
			      xpti_object_id_t *value)
{
	bool found = false;

	if (!md)
		return XPTI_RESULT_INVALIDARG;
	md_lock lock(md);
	for (const auto &item : *md) {
		if (item.first > after && (!found || item.first < *key)) {
			*key = item.first;
			*value = item.second;
			found = true;
		}
	}
	return found ? XPTI_RESULT_SUCCESS : XPTI_RESULT_FALSE;
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadata(xpti_trace_event_data_t *event, const char *key,
					      xpti_object_id_t value_id)
{
	xpti::metadata_t *md = md_of(event);
	const char *interned;
	xpti_string_id_t kid;

	if (!md || !key || !key[0])
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_is_live())
		return XPTI_RESULT_FAIL;
	kid = ht_xpti_string_add(key, &interned);
	if (kid == XPTI_INVALID_ID)
		return XPTI_RESULT_FAIL;
	try {
		md_lock lock(md);
		auto done = md->insert_or_assign(kid, value_id);

		return done.second ? XPTI_RESULT_SUCCESS : XPTI_RESULT_DUPLICATE;
	} catch (...) {
		return XPTI_RESULT_FAIL;
	}
}

XPTI_EXPORT_API xpti_metadata_map_t *xptiQueryMetadata(xpti_trace_event_data_t *event)
{
	if (!ht_xpti_is_live())
		return nullptr;
	return md_of(event);
}

XPTI_EXPORT_API size_t xptiMetadataCount(xpti_metadata_map_t *md)
{
	if (!md)
		return 0;
	md_lock lock(md);
	return md->size();
}

XPTI_EXPORT_API xpti_result_t xptiMetadataGet(xpti_metadata_map_t *md, size_t index,
					      xpti_string_id_t *key, xpti_object_id_t *value)
{
	if (!md || !key || !value)
		return XPTI_RESULT_INVALIDARG;
	try {
		md_lock lock(md);
		std::vector<uint32_t> keys;

		if (index >= md->size())
			return XPTI_RESULT_NOTFOUND;
		keys = md_sorted_keys(*md);
		*key = keys[index];
		*value = md->at(keys[index]);
		return XPTI_RESULT_SUCCESS;
	} catch (...) {
		return XPTI_RESULT_FAIL;
	}
}

XPTI_EXPORT_API xpti_result_t xptiMetadataFind(xpti_metadata_map_t *md, xpti_string_id_t key,
					       xpti_object_id_t *value)
{
	if (!md || !value)
		return XPTI_RESULT_INVALIDARG;
	md_lock lock(md);
	auto it = md->find(key);
	if (it == md->end())
		return XPTI_RESULT_NOTFOUND;
	*value = it->second;
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataU64(xpti_trace_event_data_t *event, const char *key,
						 uint64_t value)
{
	return md_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_UNSIGNED_INTEGER);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataI64(xpti_trace_event_data_t *event, const char *key,
						 int64_t value)
{
	return md_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_SIGNED_INTEGER);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataF64(xpti_trace_event_data_t *event, const char *key,
						 double value)
{
	return md_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_FLOATING);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataBool(xpti_trace_event_data_t *event, const char *key,
						  bool value)
{
	uint8_t b = value ? 1 : 0;

	return md_add_typed(event, key, &b, sizeof(b), XPTI_METADATA_BOOLEAN);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataString(xpti_trace_event_data_t *event, const char *key,
						    const char *value)
{
	return md_add_typed(event, key, value, value ? std::strlen(value) : 0,
			    XPTI_METADATA_STRING);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataBinary(xpti_trace_event_data_t *event, const char *key,
						    const void *data, size_t size)
{
	return md_add_typed(event, key, data, size, XPTI_METADATA_BINARY);
}

} // extern "C"
