/*
 * Per-event metadata: key (string id) -> value (object id) pairs in insertion order, a few
 * inline and the rest in a malloc'd overflow array. Each event has its own spinlock, held only
 * for the few instructions of an add or a read, so events never contend with each other.
 * Metadata is not on the notification path.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "xpti_internal.h"

static void ht_xpti_md_lock(struct xpti_metadata *md)
{
	while (atomic_flag_test_and_set_explicit(&md->busy, memory_order_acquire))
		sched_yield();
}

static void ht_xpti_md_unlock(struct xpti_metadata *md)
{
	atomic_flag_clear_explicit(&md->busy, memory_order_release);
}

static struct ht_xpti_md_item *ht_xpti_md_at(struct xpti_metadata *md, size_t i)
{
	return i < HT_XPTI_MD_INLINE ? &md->items[i] : &md->more[i - HT_XPTI_MD_INLINE];
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadata(xpti_trace_event_data_t *event, const char *key,
					      xpti_object_id_t value_id)
{
	struct xpti_metadata *md;
	struct ht_xpti_md_item *it;
	xpti_result_t ret = XPTI_RESULT_SUCCESS;
	const char *interned;
	xpti_string_id_t kid;

	if (!event || !key || !key[0] || !event->reserved.metadata)
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_live())
		return XPTI_RESULT_FAIL;
	kid = ht_xpti_string_add(key, &interned);
	if (kid == XPTI_INVALID_ID)
		return XPTI_RESULT_FAIL;
	md = event->reserved.metadata;
	ht_xpti_md_lock(md);
	for (size_t i = 0; i < md->count; i++) {
		it = ht_xpti_md_at(md, i);
		if (it->key == kid) {
			it->value = value_id;
			ret = XPTI_RESULT_DUPLICATE;
			goto out;
		}
	}
	if (md->count >= HT_XPTI_MD_INLINE && md->count - HT_XPTI_MD_INLINE >= md->more_cap) {
		uint32_t cap = md->more_cap ? md->more_cap * 2 : 8;
		struct ht_xpti_md_item *more = realloc(md->more, cap * sizeof(*more));

		if (!more) {
			ret = XPTI_RESULT_FAIL;
			goto out;
		}
		md->more = more;
		md->more_cap = cap;
	}
	it = ht_xpti_md_at(md, md->count);
	it->key = kid;
	it->value = value_id;
	md->count++;
out:
	ht_xpti_md_unlock(md);
	return ret;
}

XPTI_EXPORT_API xpti_metadata_t *xptiQueryMetadata(xpti_trace_event_data_t *event)
{
	if (!event || !ht_xpti_live())
		return NULL;
	return event->reserved.metadata;
}

XPTI_EXPORT_API size_t xptiMetadataCount(xpti_metadata_t *md)
{
	size_t n;

	if (!md)
		return 0;
	ht_xpti_md_lock(md);
	n = md->count;
	ht_xpti_md_unlock(md);
	return n;
}

XPTI_EXPORT_API xpti_result_t xptiMetadataGet(xpti_metadata_t *md, size_t index,
					      xpti_string_id_t *key, xpti_object_id_t *value)
{
	xpti_result_t ret = XPTI_RESULT_NOTFOUND;

	if (!md || !key || !value)
		return XPTI_RESULT_INVALIDARG;
	ht_xpti_md_lock(md);
	if (index < md->count) {
		*key = ht_xpti_md_at(md, index)->key;
		*value = ht_xpti_md_at(md, index)->value;
		ret = XPTI_RESULT_SUCCESS;
	}
	ht_xpti_md_unlock(md);
	return ret;
}

XPTI_EXPORT_API xpti_result_t xptiMetadataFind(xpti_metadata_t *md, xpti_string_id_t key,
					       xpti_object_id_t *value)
{
	xpti_result_t ret = XPTI_RESULT_NOTFOUND;

	if (!md || !value)
		return XPTI_RESULT_INVALIDARG;
	ht_xpti_md_lock(md);
	for (size_t i = 0; i < md->count; i++) {
		if (ht_xpti_md_at(md, i)->key == key) {
			*value = ht_xpti_md_at(md, i)->value;
			ret = XPTI_RESULT_SUCCESS;
			break;
		}
	}
	ht_xpti_md_unlock(md);
	return ret;
}

static xpti_result_t ht_xpti_add_typed(xpti_trace_event_data_t *event, const char *key,
				       const void *data, size_t size, uint8_t type)
{
	xpti_object_id_t id;

	if (!event || !key || !key[0] || !data)
		return XPTI_RESULT_INVALIDARG;
	id = xptiRegisterObject(data, size, type);
	if (id == XPTI_INVALID_OBJECT_ID)
		return XPTI_RESULT_FAIL;
	return xptiAddMetadata(event, key, id);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataU64(xpti_trace_event_data_t *event, const char *key,
						 uint64_t value)
{
	return ht_xpti_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_UNSIGNED_INTEGER);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataI64(xpti_trace_event_data_t *event, const char *key,
						 int64_t value)
{
	return ht_xpti_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_SIGNED_INTEGER);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataF64(xpti_trace_event_data_t *event, const char *key,
						 double value)
{
	return ht_xpti_add_typed(event, key, &value, sizeof(value), XPTI_METADATA_FLOATING);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataBool(xpti_trace_event_data_t *event, const char *key,
						  bool value)
{
	uint8_t b = value ? 1 : 0;

	return ht_xpti_add_typed(event, key, &b, sizeof(b), XPTI_METADATA_BOOLEAN);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataString(xpti_trace_event_data_t *event, const char *key,
						    const char *value)
{
	return ht_xpti_add_typed(event, key, value, value ? strlen(value) : 0,
				 XPTI_METADATA_STRING);
}

XPTI_EXPORT_API xpti_result_t xptiAddMetadataBinary(xpti_trace_event_data_t *event, const char *key,
						    const void *data, size_t size)
{
	return ht_xpti_add_typed(event, key, data, size, XPTI_METADATA_BINARY);
}

void ht_xpti_metadata_release(struct xpti_metadata *md)
{
	free(md->more);
	md->more = NULL;
	md->more_cap = 0;
	md->count = 0;
}
