/*
 * XPTI instrumentation API. Instrumented code includes this header and links the static proxy
 * (libxpti.a); the proxy forwards every call to the dispatcher named by
 * XPTI_FRAMEWORK_DISPATCHER, or returns an inert value at once when there is none. Subscribers
 * link the dispatcher (libxptifw.so) directly and export xptiTraceInit/xptiTraceFinish.
 *
 * Semantics are those of XPTI "G2": one event per distinct payload with a stable unique_id,
 * per-visit instance numbers, ref-counted framework lifetime. Functions marked "hetrace" are
 * C-friendly additions that upstream does not have. Unless stated otherwise every function is
 * thread-safe; lookups and notifications take no lock.
 */
#ifndef XPTI_TRACE_FRAMEWORK_H
#define XPTI_TRACE_FRAMEWORK_H

#include "xpti_data_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- framework lifetime ---- */

/* Take a reference on the framework (loads it on first use). */
XPTI_EXPORT_API void xptiFrameworkInitialize(void);
/*
 * Drop a reference. The last one (or one without any Initialize) shuts the framework down:
 * tracing off, in-flight notifications drained, xptiTraceFinish for open streams. Later calls
 * return inert values; calling it again is harmless.
 */
XPTI_EXPORT_API void xptiFrameworkFinalize(void);
/* Announce a stream: calls each subscriber's xptiTraceInit once per stream.
 * Return: SUCCESS; INVALIDARG for a NULL/empty stream or NULL version; FAIL when finalized. */
XPTI_EXPORT_API xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min,
					     const char *version);
/* End a stream: xptiTraceFinish on the subscribers it was announced to, callbacks disabled. */
XPTI_EXPORT_API void xptiFinalize(const char *stream);
/* hetrace: version of the dispatcher; any pointer may be NULL. */
XPTI_EXPORT_API void xptiGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch);

/* ---- enable checks ---- */

/* True when a dispatcher is loaded, XPTI_TRACE_ENABLE allows it and a subscriber was loaded
 * (or xptiForceSetTraceEnabled(true)). */
XPTI_EXPORT_API bool xptiTraceEnabled(void);
/* True when tracing is on and (stream, trace_type) has an active callback; trace_type 0 asks
 * for any trace type of the stream. */
XPTI_EXPORT_API bool xptiCheckTraceEnabled(uint16_t stream, uint16_t trace_type);
/* Test hook: override the computed enable flag. */
XPTI_EXPORT_API void xptiForceSetTraceEnabled(bool yes);
/* Proxy only: retry loading the dispatcher named by XPTI_FRAMEWORK_DISPATCHER. */
XPTI_EXPORT_API void xptiTraceTryToEnable(void);
/* Test only, dispatcher only: forget all strings, objects, events and callbacks. Requires that
 * no other thread uses the framework and that no pointer obtained before is used after. */
XPTI_EXPORT_API void xptiReset(void);

/* ---- ids ---- */

/* A process-wide counter starting at 1 (correlation ids). Lock-free. */
XPTI_EXPORT_API uint64_t xptiGetUniqueId(void);
/* hetrace: reserve `count` consecutive unique ids; returns the first, 0 if count is 0. */
XPTI_EXPORT_API uint64_t xptiReserveUniqueId(uint64_t count);
/* Per-thread "universal id" propagated down a software stack (default 0). */
XPTI_EXPORT_API uint64_t xptiGetUniversalId(void);
XPTI_EXPORT_API void xptiSetUniversalId(uint64_t uid);
/* Per-thread stash of (key, value) tuples, a stack 8 deep; the key pointer is stored.
 * Return: SUCCESS; FAIL for a NULL key or a full stack. */
XPTI_EXPORT_API xpti_result_t xptiStashTuple(const char *key, uint64_t value);
/* Return: SUCCESS; INVALIDARG for NULL arguments; NOTFOUND when nothing is stashed. */
XPTI_EXPORT_API xpti_result_t xptiGetStashedTuple(char **key, uint64_t *value);
/* Pop the most recent tuple (no-op when empty). */
XPTI_EXPORT_API void xptiUnstashTuple(void);

/* ---- strings and objects ---- */

/* Intern a string; *table_string receives the interned copy (valid until final finalize).
 * Return: the id (from 1), XPTI_INVALID_ID for NULL/empty input (*table_string = NULL). */
XPTI_EXPORT_API xpti_string_id_t xptiRegisterString(const char *string, char **table_string);
/* Return: the interned string, NULL for unknown ids. Lock-free. */
XPTI_EXPORT_API const char *xptiLookupString(xpti_string_id_t id);
/* Intern a byte blob, deduplicated by content (the first type wins).
 * Return: the id (from 0), XPTI_INVALID_OBJECT_ID for NULL data. */
XPTI_EXPORT_API xpti_object_id_t xptiRegisterObject(const char *data, size_t size, uint8_t type);
/* Return: {size, data, type}, or {0, NULL, 0} for unknown ids. Lock-free. */
XPTI_EXPORT_API xpti_object_data_t xptiLookupObject(xpti_object_id_t id);

/* ---- streams and types ---- */

/* Return: the stream id (1..254), the same for the same name; 0xFF for NULL/empty names or
 * when the table is full. */
XPTI_EXPORT_API uint8_t xptiRegisterStream(const char *stream_name);
/* Finish a stream: xptiTraceFinish on its subscribers, all its callbacks disabled.
 * Return: SUCCESS; INVALIDARG for NULL/empty; NOTFOUND for unknown streams or streams that
 * never had a callback. */
XPTI_EXPORT_API xpti_result_t xptiUnregisterStream(const char *stream_name);
/* Return: (vendor << 8) | 0x80 | user_defined_tp, or 0xFFFF for a NULL/empty tool name, a
 * value > 127, or more than 254 tools. */
XPTI_EXPORT_API uint16_t xptiRegisterUserDefinedTracePoint(const char *tool_name,
							   uint8_t user_defined_tp);
XPTI_EXPORT_API uint16_t xptiRegisterUserDefinedEventType(const char *tool_name,
							  uint8_t user_defined_event);

/* ---- payloads and events ---- */

/* Register a payload: interns its strings (rewriting the payload's pointers to the interned
 * copies), fills uid/internal and sets HASH_AVAILABLE | REGISTERED.
 * Return: the unique_id, 0 for NULL or flag-less payloads. */
XPTI_EXPORT_API uint64_t xptiRegisterPayload(xpti_payload_t *payload);
/* The event of this payload (created on first use); *instance_no receives this visit's number
 * (1, 2, ...). `name` is ignored. The caller's payload is not modified.
 * Return: the event (stable until final finalize), NULL for NULL/flag-less payloads or NULL
 * instance_no. */
XPTI_EXPORT_API xpti_trace_event_data_t *xptiMakeEvent(const char *name, xpti_payload_t *payload,
						       uint16_t event_type,
						       xpti_trace_activity_type_t activity,
						       uint64_t *instance_no);
/* Return: the event with this unique_id, NULL if none. Lock-free, O(1). */
XPTI_EXPORT_API const xpti_trace_event_data_t *xptiFindEvent(uint64_t uid);
XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayload(xpti_trace_event_data_t *event);
/* Return: the payload of this unique_id, NULL if none (never inserts). */
XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayloadByUID(uint64_t uid);
/* Events live until the framework is finalized (one per payload, so memory is bounded); this
 * only exists for source compatibility and does nothing. */
XPTI_EXPORT_API void xptiReleaseEvent(xpti_trace_event_data_t *event);

/* ---- callbacks and notification ---- */

/* Return: SUCCESS; DUPLICATE if already active; UNDELETE if re-activated; INVALIDARG for a
 * NULL callback, stream 0/0xFF or trace type 0/0xFFFF; FAIL when finalized. */
XPTI_EXPORT_API xpti_result_t xptiRegisterCallback(uint8_t stream_id, uint16_t trace_type,
						   xpti_tracepoint_callback_api_t cb);
/* Return: SUCCESS; DUPLICATE if already inactive; NOTFOUND if never registered; INVALIDARG
 * for a NULL callback. */
XPTI_EXPORT_API xpti_result_t xptiUnregisterCallback(uint8_t stream_id, uint16_t trace_type,
						     xpti_tracepoint_callback_api_t cb);
/*
 * Call every active callback of (stream_id, trace_type) in registration order, on this thread,
 * without any lock held. `event` may be NULL only for function / mem / offload-alloc /
 * diagnostics types with non-NULL user data.
 * Return: SUCCESS (also with no callbacks); FALSE when tracing is off; INVALIDARG for stream
 * 0/0xFF or a NULL event where one is required. The proxy returns FAIL without a dispatcher.
 */
XPTI_EXPORT_API xpti_result_t xptiNotifySubscribers(uint8_t stream_id, uint16_t trace_type,
						    xpti_trace_event_data_t *parent,
						    xpti_trace_event_data_t *event,
						    uint64_t instance, const void *user_data);

/* ---- metadata ---- */

/* Attach key -> object id to an event. Return: SUCCESS; DUPLICATE when the key existed (the
 * value is overwritten); INVALIDARG for a NULL event or NULL/empty key. */
XPTI_EXPORT_API xpti_result_t xptiAddMetadata(xpti_trace_event_data_t *event, const char *key,
					      xpti_object_id_t value_id);
/* Return: the event's metadata handle, NULL for a NULL event. */
XPTI_EXPORT_API xpti_metadata_t *xptiQueryMetadata(xpti_trace_event_data_t *event);
/* hetrace: number of entries (0 for NULL). */
XPTI_EXPORT_API size_t xptiMetadataCount(xpti_metadata_t *md);
/* hetrace: entry `index` in insertion order. Return: SUCCESS, INVALIDARG, NOTFOUND. */
XPTI_EXPORT_API xpti_result_t xptiMetadataGet(xpti_metadata_t *md, size_t index,
					      xpti_string_id_t *key, xpti_object_id_t *value);
/* hetrace: value of `key`. Return: SUCCESS, INVALIDARG, NOTFOUND. */
XPTI_EXPORT_API xpti_result_t xptiMetadataFind(xpti_metadata_t *md, xpti_string_id_t key,
					       xpti_object_id_t *value);
/* hetrace: register a typed value as an object and attach it (xptiAddMetadata results). */
XPTI_EXPORT_API xpti_result_t xptiAddMetadataU64(xpti_trace_event_data_t *event, const char *key,
						 uint64_t value);
XPTI_EXPORT_API xpti_result_t xptiAddMetadataI64(xpti_trace_event_data_t *event, const char *key,
						 int64_t value);
XPTI_EXPORT_API xpti_result_t xptiAddMetadataF64(xpti_trace_event_data_t *event, const char *key,
						 double value);
XPTI_EXPORT_API xpti_result_t xptiAddMetadataBool(xpti_trace_event_data_t *event, const char *key,
						  bool value);
XPTI_EXPORT_API xpti_result_t xptiAddMetadataString(xpti_trace_event_data_t *event, const char *key,
						    const char *value);
XPTI_EXPORT_API xpti_result_t xptiAddMetadataBinary(xpti_trace_event_data_t *event, const char *key,
						    const void *data, size_t size);

/* ---- defaults ---- */

XPTI_EXPORT_API uint8_t xptiGetDefaultStreamID(void);
/* Return: SUCCESS; INVALIDARG for 0 or 0xFF. */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultStreamID(uint8_t stream_id);
XPTI_EXPORT_API uint16_t xptiGetDefaultEventType(void);
/* Return: SUCCESS; INVALIDARG for XPTI_EVENT_UNKNOWN. */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultEventType(uint16_t event_type);
XPTI_EXPORT_API uint16_t xptiGetDefaultTraceType(void);
/* Return: SUCCESS; INVALIDARG for XPTI_TRACE_UNKNOWN_TYPE. */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultTraceType(uint16_t trace_type);

/* ---- scoped notification (C replacement for upstream's scoped_notify class) ---- */

typedef struct xpti_scope {
	xpti_trace_event_data_t *parent;
	xpti_trace_event_data_t *event;
	const void *user_data;
	uint64_t instance;
	uint16_t trace_type;
	uint8_t stream;
	bool armed; /* the end notification is still owed */
} xpti_scope_t;

/* Notify the begin of a scope (tt & ~1, or tt itself for types without an end). */
static inline xpti_scope_t xptiScopeBegin(uint8_t stream, uint16_t trace_type,
					  xpti_trace_event_data_t *parent,
					  xpti_trace_event_data_t *event, uint64_t instance,
					  const void *user_data)
{
	xpti_scope_t s;
	bool scoped = xpti_trace_type_is_scoped(trace_type);

	s.parent = parent;
	s.event = event;
	s.user_data = user_data;
	s.instance = instance;
	s.trace_type = trace_type;
	s.stream = stream;
	s.armed = false;
	if (xptiTraceEnabled()) {
		uint16_t tt = scoped ? (uint16_t)(trace_type & 0xfffe) : trace_type;

		xptiNotifySubscribers(stream, tt, parent, event, instance, user_data);
		s.armed = scoped;
	}
	return s;
}

/* Notify the end of a scope (tt | 1) if its begin was notified; idempotent. */
static inline void xptiScopeEnd(xpti_scope_t *s)
{
	if (!s->armed)
		return;
	s->armed = false;
	xptiNotifySubscribers(s->stream, (uint16_t)(s->trace_type | 1), s->parent, s->event,
			      s->instance, s->user_data);
}

/* Declare `var` whose end notification is sent when it leaves scope (GCC/Clang). */
#define XPTI_SCOPED_NOTIFY(var, stream, trace_type, parent, event, instance, user_data)            \
	xpti_scope_t var __attribute__((cleanup(xptiScopeEnd))) =                                  \
	    xptiScopeBegin((stream), (trace_type), (parent), (event), (instance), (user_data))

#ifdef __cplusplus
}
#endif

#endif /* XPTI_TRACE_FRAMEWORK_H */
