/*
 * The static proxy (libxpti.a) linked into instrumented code. On first use it reads
 * XPTI_FRAMEWORK_DISPATCHER, dlopens that library and resolves every API function by name;
 * each stub then forwards through the table. With no dispatcher (or a function the dispatcher
 * lacks) a stub returns its inert value at once: FAIL / false / invalid id / NULL. The table is
 * written once before it is published and never freed, so finalize cannot leave a dangling
 * pointer behind. Resolving by name also lets this proxy drive upstream's dispatcher.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "xpti_internal.h"
#include "api_list.h"

enum { PX_UNTRIED, PX_LOADED, PX_INERT };

struct ht_xpti_proxy_table {
#define HT_XPTI_SLOT(name) __typeof__(name) *name;
	HT_XPTI_API_LIST(HT_XPTI_SLOT)
#undef HT_XPTI_SLOT
};

static const struct {
	const char *name;
	size_t offset;
} px_names[] = {
#define HT_XPTI_NAME(name) {#name, offsetof(struct ht_xpti_proxy_table, name)},
    HT_XPTI_API_LIST(HT_XPTI_NAME)
#undef HT_XPTI_NAME
};

static struct ht_xpti_proxy_table px;
static _Atomic int px_state;
static pthread_mutex_t px_lock = PTHREAD_MUTEX_INITIALIZER;

static bool ht_xpti_proxy_load(void)
{
	const char *path;
	void *h;

	pthread_mutex_lock(&px_lock);
	if (atomic_load_explicit(&px_state, memory_order_relaxed) != PX_UNTRIED)
		goto out;
	path = getenv("XPTI_FRAMEWORK_DISPATCHER");
	if (!path || !path[0]) {
		atomic_store_explicit(&px_state, PX_INERT, memory_order_release);
		goto out;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "xpti: cannot load dispatcher: %s; tracing disabled\n", dlerror());
		atomic_store_explicit(&px_state, PX_INERT, memory_order_release);
		goto out;
	}
	for (size_t i = 0; i < sizeof(px_names) / sizeof(px_names[0]); i++)
		*(void **)((char *)&px + px_names[i].offset) = dlsym(h, px_names[i].name);
	px.xptiTraceTryToEnable = NULL; /* ours, not the dispatcher's */
	if (!px.xptiNotifySubscribers || !px.xptiTraceEnabled) {
		fprintf(stderr,
			"xpti: '%s' is not an XPTI dispatcher (no xptiNotifySubscribers); "
			"tracing disabled\n",
			path);
		dlclose(h);
		atomic_store_explicit(&px_state, PX_INERT, memory_order_release);
		goto out;
	}
	atomic_store_explicit(&px_state, PX_LOADED, memory_order_release);
out:
	pthread_mutex_unlock(&px_lock);
	return atomic_load_explicit(&px_state, memory_order_acquire) == PX_LOADED;
}

static inline bool px_ready(void)
{
	int s = atomic_load_explicit(&px_state, memory_order_acquire);

	if (ht_likely(s == PX_LOADED))
		return true;
	if (s == PX_INERT)
		return false;
	return ht_xpti_proxy_load();
}

#define HT_FWD(name, inert, ...)                                                                   \
	do {                                                                                       \
		if (px_ready() && px.name)                                                         \
			return px.name(__VA_ARGS__);                                               \
		return inert;                                                                      \
	} while (0)
#define HT_FWD_VOID(name, ...)                                                                     \
	do {                                                                                       \
		if (px_ready() && px.name)                                                         \
			px.name(__VA_ARGS__);                                                      \
	} while (0)

void xptiTraceTryToEnable(void)
{
	pthread_mutex_lock(&px_lock);
	if (atomic_load_explicit(&px_state, memory_order_relaxed) == PX_INERT)
		atomic_store_explicit(&px_state, PX_UNTRIED, memory_order_relaxed);
	pthread_mutex_unlock(&px_lock);
	ht_xpti_proxy_load();
}

void xptiFrameworkInitialize(void)
{
	HT_FWD_VOID(xptiFrameworkInitialize);
}

void xptiFrameworkFinalize(void)
{
	HT_FWD_VOID(xptiFrameworkFinalize);
}

xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min, const char *version)
{
	HT_FWD(xptiInitialize, XPTI_RESULT_FAIL, stream, maj, min, version);
}

void xptiFinalize(const char *stream)
{
	HT_FWD_VOID(xptiFinalize, stream);
}

void xptiGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch)
{
	if (px_ready() && px.xptiGetVersion) {
		px.xptiGetVersion(major, minor, patch);
		return;
	}
	if (major)
		*major = 0;
	if (minor)
		*minor = 0;
	if (patch)
		*patch = 0;
}

bool xptiTraceEnabled(void)
{
	HT_FWD(xptiTraceEnabled, false);
}

bool xptiCheckTraceEnabled(uint8_t stream, uint16_t trace_type)
{
	HT_FWD(xptiCheckTraceEnabled, false, stream, trace_type);
}

void xptiForceSetTraceEnabled(bool yes)
{
	HT_FWD_VOID(xptiForceSetTraceEnabled, yes);
}

void xptiReset(void)
{
	HT_FWD_VOID(xptiReset);
}

uint64_t xptiGetUniqueId(void)
{
	HT_FWD(xptiGetUniqueId, XPTI_INVALID_UID);
}

uint64_t xptiReserveUniqueId(uint64_t count)
{
	HT_FWD(xptiReserveUniqueId, XPTI_INVALID_UID, count);
}

uint64_t xptiGetUniversalId(void)
{
	HT_FWD(xptiGetUniversalId, XPTI_INVALID_UID);
}

void xptiSetUniversalId(uint64_t uid)
{
	HT_FWD_VOID(xptiSetUniversalId, uid);
}

xpti_result_t xptiStashTuple(const char *key, uint64_t value)
{
	HT_FWD(xptiStashTuple, XPTI_RESULT_FAIL, key, value);
}

xpti_result_t xptiGetStashedTuple(char **key, uint64_t *value)
{
	HT_FWD(xptiGetStashedTuple, XPTI_RESULT_FAIL, key, value);
}

void xptiUnstashTuple(void)
{
	HT_FWD_VOID(xptiUnstashTuple);
}

xpti_string_id_t xptiRegisterString(const char *string, char **table_string)
{
	if (table_string && !(px_ready() && px.xptiRegisterString))
		*table_string = NULL;
	HT_FWD(xptiRegisterString, XPTI_INVALID_ID, string, table_string);
}

const char *xptiLookupString(xpti_string_id_t id)
{
	HT_FWD(xptiLookupString, NULL, id);
}

xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type)
{
	HT_FWD(xptiRegisterObject, XPTI_INVALID_OBJECT_ID, data, size, type);
}

xpti_object_data_t xptiLookupObject(xpti_object_id_t id)
{
	xpti_object_data_t none = {0, NULL, 0};

	HT_FWD(xptiLookupObject, none, id);
}

uint8_t xptiRegisterStream(const char *stream_name)
{
	HT_FWD(xptiRegisterStream, XPTI_INVALID_STREAM_ID, stream_name);
}

xpti_result_t xptiUnregisterStream(const char *stream_name)
{
	HT_FWD(xptiUnregisterStream, XPTI_RESULT_FAIL, stream_name);
}

uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name, uint8_t user_defined_tp)
{
	HT_FWD(xptiRegisterUserDefinedTracePoint, XPTI_INVALID_TRACE_TYPE, tool_name,
	       user_defined_tp);
}

uint16_t xptiRegisterUserDefinedEventType(const char *tool_name, uint8_t user_defined_event)
{
	HT_FWD(xptiRegisterUserDefinedEventType, XPTI_INVALID_TRACE_TYPE, tool_name,
	       user_defined_event);
}

xpti_stream_detail_level_t xptiGetEffectiveStreamDetailLevel(uint8_t stream)
{
	HT_FWD(xptiGetEffectiveStreamDetailLevel, XPTI_STREAM_DETAIL_LEVEL_NORMAL, stream);
}

uint64_t xptiRegisterPayload(xpti_payload_t *payload)
{
	HT_FWD(xptiRegisterPayload, XPTI_INVALID_UID, payload);
}

xpti_trace_event_data_t *xptiMakeEvent(const char *name, xpti_payload_t *payload,
				       uint16_t event_type, xpti_trace_activity_type_t activity,
				       uint64_t *instance_no)
{
	HT_FWD(xptiMakeEvent, NULL, name, payload, event_type, activity, instance_no);
}

const xpti_trace_event_data_t *xptiFindEvent(uint64_t uid)
{
	HT_FWD(xptiFindEvent, NULL, uid);
}

const xpti_payload_t *xptiQueryPayload(xpti_trace_event_data_t *event)
{
	HT_FWD(xptiQueryPayload, NULL, event);
}

const xpti_payload_t *xptiQueryPayloadByUID(uint64_t uid)
{
	HT_FWD(xptiQueryPayloadByUID, NULL, uid);
}

void xptiReleaseEvent(xpti_trace_event_data_t *event)
{
	HT_FWD_VOID(xptiReleaseEvent, event);
}

const xpti_payload_iface_t *xptiLookupPayload(uint64_t uid)
{
	HT_FWD(xptiLookupPayload, NULL, uid);
}

const xpti_trace_event_t *xptiLookupEvent(uint64_t uid)
{
	HT_FWD(xptiLookupEvent, NULL, uid);
}

xpti_tracepoint_t *xptiCreateTracepoint(const char *func_name, const char *file_name,
					uint32_t line_no, uint32_t column_no, void *code_ptr_va)
{
	HT_FWD(xptiCreateTracepoint, NULL, func_name, file_name, line_no, column_no, code_ptr_va);
}

xpti_result_t xptiDeleteTracepoint(xpti_tracepoint_t *tp)
{
	HT_FWD(xptiDeleteTracepoint, XPTI_RESULT_FAIL, tp);
}

const xpti_tracepoint_t *xptiRegisterTracepointScope(const char *func_name, const char *file_name,
						     uint32_t line_no, uint32_t column_no,
						     void *code_ptr_va)
{
	HT_FWD(xptiRegisterTracepointScope, NULL, func_name, file_name, line_no, column_no,
	       code_ptr_va);
}

const xpti_tracepoint_t *xptiGetTracepointScopeData(void)
{
	HT_FWD(xptiGetTracepointScopeData, NULL);
}

xpti_result_t xptiSetTracepointScopeData(xpti_tracepoint_t *tp)
{
	HT_FWD(xptiSetTracepointScopeData, XPTI_RESULT_FAIL, tp);
}

void xptiUnsetTracepointScopeData(void)
{
	HT_FWD_VOID(xptiUnsetTracepointScopeData);
}

void xptiEnableTracepointScopeNotification(bool yes)
{
	HT_FWD_VOID(xptiEnableTracepointScopeNotification, yes);
}

bool xptiCheckTracepointScopeNotification(void)
{
	HT_FWD(xptiCheckTracepointScopeNotification, false);
}

xpti_result_t xptiGetTracepointData(xpti_tracepoint_t *tp, xpti_tracepoint_data_t *data)
{
	HT_FWD(xptiGetTracepointData, XPTI_RESULT_FAIL, tp, data);
}

xpti_result_t xptiRegisterCallback(uint8_t stream_id, uint16_t trace_type,
				   xpti_tracepoint_callback_api_t cb)
{
	HT_FWD(xptiRegisterCallback, XPTI_RESULT_FAIL, stream_id, trace_type, cb);
}

xpti_result_t xptiUnregisterCallback(uint8_t stream_id, uint16_t trace_type,
				     xpti_tracepoint_callback_api_t cb)
{
	HT_FWD(xptiUnregisterCallback, XPTI_RESULT_FAIL, stream_id, trace_type, cb);
}

xpti_result_t xptiNotifySubscribers(uint8_t stream_id, uint16_t trace_type,
				    xpti_trace_event_data_t *parent, xpti_trace_event_data_t *event,
				    uint64_t instance, const void *user_data)
{
	HT_FWD(xptiNotifySubscribers, XPTI_RESULT_FAIL, stream_id, trace_type, parent, event,
	       instance, user_data);
}

xpti_result_t xptiAddMetadata(xpti_trace_event_data_t *event, const char *key,
			      xpti_object_id_t value_id)
{
	HT_FWD(xptiAddMetadata, XPTI_RESULT_FAIL, event, key, value_id);
}

xpti_metadata_map_t *xptiQueryMetadata(xpti_trace_event_data_t *event)
{
	HT_FWD(xptiQueryMetadata, NULL, event);
}

size_t xptiMetadataCount(xpti_metadata_map_t *md)
{
	HT_FWD(xptiMetadataCount, 0, md);
}

xpti_result_t xptiMetadataGet(xpti_metadata_map_t *md, size_t index, xpti_string_id_t *key,
			      xpti_object_id_t *value)
{
	HT_FWD(xptiMetadataGet, XPTI_RESULT_FAIL, md, index, key, value);
}

xpti_result_t xptiMetadataFind(xpti_metadata_map_t *md, xpti_string_id_t key,
			       xpti_object_id_t *value)
{
	HT_FWD(xptiMetadataFind, XPTI_RESULT_FAIL, md, key, value);
}

xpti_result_t xptiAddMetadataU64(xpti_trace_event_data_t *event, const char *key, uint64_t value)
{
	HT_FWD(xptiAddMetadataU64, XPTI_RESULT_FAIL, event, key, value);
}

xpti_result_t xptiAddMetadataI64(xpti_trace_event_data_t *event, const char *key, int64_t value)
{
	HT_FWD(xptiAddMetadataI64, XPTI_RESULT_FAIL, event, key, value);
}

xpti_result_t xptiAddMetadataF64(xpti_trace_event_data_t *event, const char *key, double value)
{
	HT_FWD(xptiAddMetadataF64, XPTI_RESULT_FAIL, event, key, value);
}

xpti_result_t xptiAddMetadataBool(xpti_trace_event_data_t *event, const char *key, bool value)
{
	HT_FWD(xptiAddMetadataBool, XPTI_RESULT_FAIL, event, key, value);
}

xpti_result_t xptiAddMetadataString(xpti_trace_event_data_t *event, const char *key,
				    const char *value)
{
	HT_FWD(xptiAddMetadataString, XPTI_RESULT_FAIL, event, key, value);
}

xpti_result_t xptiAddMetadataBinary(xpti_trace_event_data_t *event, const char *key,
				    const void *data, size_t size)
{
	HT_FWD(xptiAddMetadataBinary, XPTI_RESULT_FAIL, event, key, data, size);
}

uint8_t xptiGetDefaultStreamID(void)
{
	HT_FWD(xptiGetDefaultStreamID, 0);
}

xpti_result_t xptiSetDefaultStreamID(uint8_t stream_id)
{
	HT_FWD(xptiSetDefaultStreamID, XPTI_RESULT_FAIL, stream_id);
}

xpti_trace_event_type_t xptiGetDefaultEventType(void)
{
	HT_FWD(xptiGetDefaultEventType, XPTI_EVENT_UNKNOWN);
}

xpti_result_t xptiSetDefaultEventType(xpti_trace_event_type_t event_type)
{
	HT_FWD(xptiSetDefaultEventType, XPTI_RESULT_FAIL, event_type);
}

xpti_trace_point_type_t xptiGetDefaultTraceType(void)
{
	HT_FWD(xptiGetDefaultTraceType, XPTI_TRACE_UNKNOWN_TYPE);
}

xpti_result_t xptiSetDefaultTraceType(xpti_trace_point_type_t trace_type)
{
	HT_FWD(xptiSetDefaultTraceType, XPTI_RESULT_FAIL, trace_type);
}
