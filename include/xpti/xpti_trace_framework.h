/*
 * XPTI instrumentation API, the functions of Intel's current xpti_trace_framework.h.
 * Instrumented code includes this header and links the static proxy (libxpti.a); the proxy
 * forwards every call to the dispatcher named by XPTI_FRAMEWORK_DISPATCHER, or returns an inert
 * value at once when there is none. Subscribers link the dispatcher (libxptifw.so) directly and
 * export xptiTraceInit/xptiTraceFinish (declared with C linkage in xpti_data_types.h).
 *
 * Semantics are Intel's: every xptiMakeEvent, xptiRegisterPayload and xptiCreateTracepoint
 * makes a new instance of its trace point, with its own event, unique id, instance number,
 * payload copy and metadata table; instances live until xptiReleaseEvent /
 * xptiDeleteTracepoint (or the end of the framework). The framework's default stream
 * "xpti.framework" is registered at start-up. HETRACE_XPTI_EVENTS=shared selects the older
 * model instead: one event per trace point, shared by its visits (bounded memory for
 * instrumentation that never releases its events).
 *
 * In C++ the declarations take and return Intel's types (xpti::result_t, enum classes,
 * references, default arguments) and the four interfaces below are Intel's abstract classes,
 * implemented by the dispatcher; in C they are opaque handles. Functions marked "hetrace" are
 * additions that upstream does not have. Unless stated otherwise every function is
 * thread-safe; lookups and notifications take no lock.
 */
#ifndef XPTI_TRACE_FRAMEWORK_H
#define XPTI_TRACE_FRAMEWORK_H

#include "xpti_data_types.h"

/* ---- interfaces of trace points and their parts ---- */

#ifdef __cplusplus
extern "C" {
/* A payload as an object (xptiLookupPayload, xpti_tracepoint_t::payload). */
struct xpti_payload_t {
	virtual ~xpti_payload_t()
	{
	}
	virtual const char *name() const = 0; /* "<unknown>" when there is none */
	virtual const char *source_file() const = 0;
	virtual uint32_t line_no() const = 0;
	virtual uint32_t column_no() const = 0;
	virtual uint64_t payload_flags() const = 0;
	virtual int32_t name_string_id() const = 0;
	virtual int32_t file_string_id() const = 0;
	virtual uint64_t uid64() const = 0;
	virtual bool is_valid() const = 0;
	virtual xpti::payload_t *payload_ref() = 0;
};

/* The metadata of an instance, walked as key name -> object id. */
struct xpti_metadata_t {
	virtual ~xpti_metadata_t()
	{
	}
	/* Return: SUCCESS and the first item, FALSE when there is none. */
	virtual xpti::result_t first_item(char **key, xpti::object_id_t &value) = 0;
	/* Return: SUCCESS and the item after the last one returned, FALSE at the end. */
	virtual xpti::result_t next_item(char **key, xpti::object_id_t &value) = 0;
	/* Return: xptiAddMetadata's result. */
	virtual xpti::result_t add_item(const char *key, xpti::object_id_t value) = 0;
	virtual size_t count() = 0;
};

/* An event instance (xptiLookupEvent, xpti_tracepoint_t::event). */
struct xpti_trace_event_t {
	virtual ~xpti_trace_event_t()
	{
	}
	virtual xpti_payload_t *payload() = 0;
	virtual xpti_metadata_t *metadata() = 0;
	virtual uint64_t uid64() const = 0;
	virtual uint64_t instance() const = 0;
	virtual uint16_t event_type() const = 0;
	virtual uint16_t activity_type() const = 0;
	virtual uint64_t source_uid64() const = 0;
	virtual uint64_t target_uid64() const = 0;
	virtual uint64_t event_flags() const = 0;
	virtual void set_activity_type(xpti::trace_activity_type_t type) = 0;
	virtual void set_event_type(uint16_t type) = 0;
	virtual xpti::payload_t *payload_ref() = 0;
	virtual xpti::trace_event_data_t *event_ref() = 0;
};

/* One instance of a trace point: payload, event, metadata and ids together. */
struct xpti_tracepoint_t {
	virtual ~xpti_tracepoint_t()
	{
	}
	virtual xpti_payload_t *payload() = 0;
	virtual xpti_metadata_t *metadata() = 0;
	virtual xpti_trace_event_t *event() = 0;
	virtual uint64_t uid64() const = 0;
	virtual uint64_t instance() const = 0;
	virtual xpti::trace_event_data_t *event_ref() = 0;
	virtual xpti::payload_t *payload_ref() = 0;
};
}

/* The same objects as the shared declarations name them. */
typedef xpti_payload_t xpti_payload_iface_t;
typedef xpti::metadata_t xpti_metadata_map_t;
#define XPTI_NULL_ nullptr
#else
typedef struct xpti_tracepoint_t xpti_tracepoint_t;	/* C++: Intel's interface */
typedef struct xpti_trace_event_t xpti_trace_event_t;	/* C++: Intel's interface */
typedef struct xpti_payload_iface xpti_payload_iface_t; /* C++: xpti_payload_t */
typedef struct xpti_metadata xpti_metadata_t;		/* C++: xpti::metadata_t */
typedef xpti_metadata_t xpti_metadata_map_t;
#define XPTI_NULL_ NULL
#endif

XPTI_EXTERN_C_BEGIN_

/* ---- framework lifetime ---- */

/* Take a reference on the framework (loads it on first use). */
XPTI_EXPORT_API void xptiFrameworkInitialize(void);
/*
 * Drop a reference. The last one (or one without any Initialize) shuts the framework down:
 * tracing off, in-flight notifications drained, xptiTraceFinish for open streams. Later calls
 * return inert values; calling it again is harmless.
 */
XPTI_EXPORT_API void xptiFrameworkFinalize(void);
/* Announce a stream: each subscriber's xptiTraceInit runs once per stream (the first call also
 * announces the default stream "xpti.framework", as 1.0 "1.0.0").
 * Return: SUCCESS; INVALIDARG for a NULL/empty stream or NULL version; FAIL when finalized. */
XPTI_EXPORT_API xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min,
					     const char *version);
/* End a stream: xptiTraceFinish on the subscribers it was announced to, callbacks disabled.
 * The first call also ends the default stream. */
XPTI_EXPORT_API void xptiFinalize(const char *stream);
/* hetrace: version of the dispatcher; any pointer may be NULL. */
XPTI_EXPORT_API void xptiGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch);

/* ---- enable checks ---- */

/* True when a dispatcher is loaded, XPTI_TRACE_ENABLE allows it and a subscriber was loaded
 * (or xptiForceSetTraceEnabled(true)). */
XPTI_EXPORT_API bool xptiTraceEnabled(void);
/* True when tracing is on and (stream, trace_type) has an active callback; trace_type 0 asks
 * for any trace type of the stream. */
XPTI_EXPORT_API bool xptiCheckTraceEnabled(uint8_t stream, uint16_t trace_type XPTI_DEFAULT_(0));
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
/* The most recent tuple (C: value is a pointer, C++: a reference).
 * Return: SUCCESS; INVALIDARG for NULL arguments; NOTFOUND when nothing is stashed. */
XPTI_EXPORT_API xpti_result_t xptiGetStashedTuple(char **key, XPTI_REF_(uint64_t, value));
/* Pop the most recent tuple (no-op when empty; upstream never clears its single slot). */
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

/* Return: the stream id (1..254; 1 is "xpti.framework"), the same for the same name; 0xFF for
 * NULL/empty names or when the table is full. */
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
/* The level of optional data subscribers asked for on a stream: the highest any subscriber's
 * xptiQuerySubscriberStreamDetailLevel returned when the stream was initialised (NORMAL for
 * those without it; NONE with no subscriber); NORMAL for streams never initialised. Lock-free. */
XPTI_EXPORT_API xpti_stream_detail_level_t xptiGetEffectiveStreamDetailLevel(uint8_t stream);

/* ---- payloads, events and trace points ---- */

/*
 * Register a payload: interns its strings (rewriting the payload's pointers to the interned
 * copies), fills uid, makes a new instance and stores its unique id in payload->internal
 * (flags |= HASH_AVAILABLE | REGISTERED). Making events from a registered payload skips the
 * string lookups.
 * Return: the instance's unique id, 0 for NULL or flag-less payloads.
 */
XPTI_EXPORT_API uint64_t xptiRegisterPayload(struct xpti_payload *payload);
/*
 * A new instance of the payload's trace point; *instance_no receives its visit number (1, 2,
 * ...). `name` is ignored. The caller's payload is not modified.
 * Return: the instance's event, valid until xptiReleaseEvent; NULL for NULL/flag-less payloads
 * or NULL instance_no.
 */
XPTI_EXPORT_API xpti_trace_event_data_t *
xptiMakeEvent(const char *name, struct xpti_payload *payload, uint16_t event_type,
	      xpti_trace_activity_type_t activity, uint64_t *instance_no);
/* Return: the event with this unique id, NULL if none (or released). Lock-free, O(1). */
XPTI_EXPORT_API const xpti_trace_event_data_t *xptiFindEvent(uint64_t uid);
XPTI_EXPORT_API const struct xpti_payload *xptiQueryPayload(xpti_trace_event_data_t *event);
/* Return: the payload of this unique id, NULL if none (never inserts). */
XPTI_EXPORT_API const struct xpti_payload *xptiQueryPayloadByUID(uint64_t uid);
/* Return: the payload interface of this unique id, NULL if none. */
XPTI_EXPORT_API const xpti_payload_iface_t *xptiLookupPayload(uint64_t uid);
/* Return: the event interface of this unique id, NULL if none. */
XPTI_EXPORT_API const xpti_trace_event_t *xptiLookupEvent(uint64_t uid);
/* Release an instance made by xptiMakeEvent / xptiRegisterPayload: its id stops resolving and
 * its slot is reused. Events of HETRACE_XPTI_EVENTS=shared and unknown events are left alone. */
XPTI_EXPORT_API void xptiReleaseEvent(xpti_trace_event_data_t *event);

/*
 * A new instance of the trace point at this code location (event type algorithm, activity
 * active). Without a function name and a file the location is ("unknown", "unknown-file").
 * Return: the trace point, valid until xptiDeleteTracepoint; NULL when out of memory.
 */
XPTI_EXPORT_API xpti_tracepoint_t *
xptiCreateTracepoint(const char *func_name, const char *file_name, uint32_t line_no,
		     uint32_t column_no, void *code_ptr_va XPTI_DEFAULT_(XPTI_NULL_));
/* Return: SUCCESS; INVALIDARG for NULL or a pointer that is not a live trace point. */
XPTI_EXPORT_API xpti_result_t xptiDeleteTracepoint(xpti_tracepoint_t *tp);
/* xptiCreateTracepoint for a scope (the caller deletes it when the outermost scope ends). */
XPTI_EXPORT_API const xpti_tracepoint_t *
xptiRegisterTracepointScope(const char *func_name, const char *file_name, uint32_t line_no,
			    uint32_t column_no, void *code_ptr_va XPTI_DEFAULT_(XPTI_NULL_));
/* This thread's current scope trace point (NULL when none). */
XPTI_EXPORT_API const xpti_tracepoint_t *xptiGetTracepointScopeData(void);
/* Make `tp` this thread's scope trace point; the universal id becomes its unique id.
 * Return: SUCCESS; INVALIDARG for NULL. */
XPTI_EXPORT_API xpti_result_t xptiSetTracepointScopeData(xpti_tracepoint_t *tp);
/* Clear this thread's scope trace point and universal id. */
XPTI_EXPORT_API void xptiUnsetTracepointScopeData(void);
/* Whether scope objects notify function_begin/end themselves (process-wide, default false). */
XPTI_EXPORT_API void xptiEnableTracepointScopeNotification(bool yes);
XPTI_EXPORT_API bool xptiCheckTracepointScopeNotification(void);
/* hetrace: the trace point's ids, payload and event, for C (C++ has the interface).
 * Return: SUCCESS; INVALIDARG for NULL arguments. */
XPTI_EXPORT_API xpti_result_t xptiGetTracepointData(xpti_tracepoint_t *tp,
						    xpti_tracepoint_data_t *data);

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

/* Attach key -> object id to an event made by the framework. Return: SUCCESS; DUPLICATE when
 * the key existed (the value is overwritten); INVALIDARG for a NULL event, NULL/empty key or an
 * event without a metadata table. */
XPTI_EXPORT_API xpti_result_t xptiAddMetadata(xpti_trace_event_data_t *event, const char *key,
					      xpti_object_id_t value_id);
/* Return: the event's metadata table (C++: the std::unordered_map itself), NULL for NULL. */
XPTI_EXPORT_API xpti_metadata_map_t *xptiQueryMetadata(xpti_trace_event_data_t *event);
/* hetrace: number of entries (0 for NULL). */
XPTI_EXPORT_API size_t xptiMetadataCount(xpti_metadata_map_t *md);
/* hetrace: entry `index` in the order of the keys' string ids (which follows the order the key
 * strings were first registered). Return: SUCCESS, INVALIDARG, NOTFOUND. */
XPTI_EXPORT_API xpti_result_t xptiMetadataGet(xpti_metadata_map_t *md, size_t index,
					      xpti_string_id_t *key, xpti_object_id_t *value);
/* hetrace: value of `key`. Return: SUCCESS, INVALIDARG, NOTFOUND. */
XPTI_EXPORT_API xpti_result_t xptiMetadataFind(xpti_metadata_map_t *md, xpti_string_id_t key,
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

/* The default stream, "xpti.framework" (1) unless set. */
XPTI_EXPORT_API uint8_t xptiGetDefaultStreamID(void);
/* Return: SUCCESS; INVALIDARG for 0 or 0xFF (upstream refuses 128..255). */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultStreamID(uint8_t stream_id);
XPTI_EXPORT_API xpti_trace_event_type_t xptiGetDefaultEventType(void);
/* Return: SUCCESS; INVALIDARG for the unknown event type. */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultEventType(xpti_trace_event_type_t event_type);
XPTI_EXPORT_API xpti_trace_point_type_t xptiGetDefaultTraceType(void);
/* Return: SUCCESS; INVALIDARG for the unknown trace type. */
XPTI_EXPORT_API xpti_result_t xptiSetDefaultTraceType(xpti_trace_point_type_t trace_type);

XPTI_EXTERN_C_END_

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

#endif /* XPTI_TRACE_FRAMEWORK_H */
