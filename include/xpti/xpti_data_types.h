/*
 * XPTI data types: the scalar types, result codes, trace-point / event / activity type values,
 * payload and trace-event structures, and the callback signatures shared by instrumented code,
 * the dispatcher (libxptifw.so) and subscribers. Values and field order follow the G2
 * generation of Intel's XPTI (with the corrected trace-type values of later revisions), so that
 * binaries built against upstream headers see the same layout. Plain C; also compiles as C++.
 */
#ifndef XPTI_DATA_TYPES_H
#define XPTI_DATA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Library version (the XPTI API level this implementation provides). */
#define XPTI_VERSION_MAJOR  0
#define XPTI_VERSION_MINOR  4
#define XPTI_VERSION_PATCH  1
#define XPTI_VERSION_STRING "0.4.1"

/*
 * Symbol visibility. The dispatcher is built with XPTI_API_EXPORTS, the static proxy with
 * XPTI_STATIC_LIBRARY (nothing exported), subscribers with XPTI_CALLBACK_API_EXPORTS.
 */
#if defined(XPTI_STATIC_LIBRARY)
#define XPTI_EXPORT_API
#elif defined(XPTI_API_EXPORTS)
#define XPTI_EXPORT_API __attribute__((visibility("default")))
#else
#define XPTI_EXPORT_API
#endif

#if defined(XPTI_CALLBACK_API_EXPORTS)
#define XPTI_CALLBACK_API __attribute__((visibility("default")))
#else
#define XPTI_CALLBACK_API
#endif

typedef uint16_t xpti_trace_point_t;
typedef uint16_t xpti_trace_point_type_t;
typedef uint16_t xpti_event_type_t;
typedef uint32_t xpti_string_id_t;
typedef int32_t xpti_object_id_t;
typedef uint8_t xpti_stream_id_t;
typedef uint64_t xpti_uid64_t;

#define XPTI_INVALID_ID		((uint32_t)-1)
#define XPTI_INVALID_OBJECT_ID	((xpti_object_id_t)-1)
#define XPTI_INVALID_STREAM_ID	((uint8_t)0xFF)
#define XPTI_INVALID_TRACE_TYPE ((uint16_t)0xFFFF)
#define XPTI_INVALID_UID	((uint64_t)0)
#define XPTI_DEFAULT_VENDOR	((uint8_t)0)

/* Result codes: success >= 0, errors < 0 (COM style). */
typedef int32_t xpti_result_t;
#define XPTI_RESULT_SUCCESS    ((xpti_result_t)0)
#define XPTI_RESULT_FALSE      ((xpti_result_t)1)
#define XPTI_RESULT_FAIL       ((xpti_result_t)0x80004001)
#define XPTI_RESULT_NOTIMPL    ((xpti_result_t)0x80004002)
#define XPTI_RESULT_DUPLICATE  ((xpti_result_t)0x80004003)
#define XPTI_RESULT_NOTFOUND   ((xpti_result_t)0x80004004)
#define XPTI_RESULT_UNDELETE   ((xpti_result_t)0x80004005)
#define XPTI_RESULT_INVALIDARG ((xpti_result_t)0x80004006)

/* Trace-type encoding: LSB 0 = begin (or standalone), LSB 1 = end. */
#define XPTI_TRACE_POINT_BEGIN(val) ((uint16_t)((uint16_t)(val) << 1 | 0))
#define XPTI_TRACE_POINT_END(val)   ((uint16_t)((uint16_t)(val) << 1 | 1))
#define XPTI_EVENT(val)		    ((uint16_t)(val))

/* 16-bit trace/event type layout: [vendor:8][user-defined bit][value:7]. */
#define XPTI_EXTRACT_USER_DEFINED_ID(val) ((uint16_t)(val)&0x007f)
#define XPTI_TOOL_ID(val)		  (((uint16_t)(val) >> 8) & 0x00ff)
#define XPTI_PACK08_RET16(a, b)		  (((a) << 8) | (b))
#define XPTI_PACK16_RET32(a, b)		  (((a) << 16) | (b))
#define XPTI_PACK32_RET64(a, b)		  (((uint64_t)(a) << 32) | (b))
#define XPTI_USER_DEFINED_TRACE_TYPE16(v) ((uint16_t)((uint16_t)128 | (uint16_t)(v)))
#define XPTI_VENDOR_DEFINED_TRACE_TYPE16(vendor, tt)                                               \
	((uint16_t)(((uint16_t)(vendor) << 8) | XPTI_USER_DEFINED_TRACE_TYPE16(tt)))

/* Trace point types (values of xpti_trace_point_type_t). */
enum {
	XPTI_TRACE_UNKNOWN_TYPE = 0,
	XPTI_TRACE_GRAPH_CREATE = XPTI_TRACE_POINT_BEGIN(1),
	XPTI_TRACE_NODE_CREATE = XPTI_TRACE_POINT_BEGIN(2),
	XPTI_TRACE_EDGE_CREATE = XPTI_TRACE_POINT_BEGIN(3),
	XPTI_TRACE_REGION_BEGIN = XPTI_TRACE_POINT_BEGIN(4),
	XPTI_TRACE_REGION_END = XPTI_TRACE_POINT_END(4),
	XPTI_TRACE_TASK_BEGIN = XPTI_TRACE_POINT_BEGIN(5),
	XPTI_TRACE_TASK_END = XPTI_TRACE_POINT_END(5),
	XPTI_TRACE_BARRIER_BEGIN = XPTI_TRACE_POINT_BEGIN(6),
	XPTI_TRACE_BARRIER_END = XPTI_TRACE_POINT_END(6),
	XPTI_TRACE_LOCK_BEGIN = XPTI_TRACE_POINT_BEGIN(7),
	XPTI_TRACE_LOCK_END = XPTI_TRACE_POINT_END(7),
	XPTI_TRACE_SIGNAL = XPTI_TRACE_POINT_BEGIN(8),
	XPTI_TRACE_TRANSFER_BEGIN = XPTI_TRACE_POINT_BEGIN(9),
	XPTI_TRACE_TRANSFER_END = XPTI_TRACE_POINT_END(9),
	XPTI_TRACE_THREAD_BEGIN = XPTI_TRACE_POINT_BEGIN(10),
	XPTI_TRACE_THREAD_END = XPTI_TRACE_POINT_END(10),
	XPTI_TRACE_WAIT_BEGIN = XPTI_TRACE_POINT_BEGIN(11),
	XPTI_TRACE_WAIT_END = XPTI_TRACE_POINT_END(11),
	XPTI_TRACE_FUNCTION_BEGIN = XPTI_TRACE_POINT_BEGIN(12),
	XPTI_TRACE_FUNCTION_END = XPTI_TRACE_POINT_END(12),
	XPTI_TRACE_METADATA = XPTI_TRACE_POINT_BEGIN(13),
	XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN = XPTI_TRACE_POINT_BEGIN(14),
	XPTI_TRACE_FUNCTION_WITH_ARGS_END = XPTI_TRACE_POINT_END(14),
	XPTI_TRACE_MEM_ALLOC_BEGIN = XPTI_TRACE_POINT_BEGIN(16),
	XPTI_TRACE_MEM_ALLOC_END = XPTI_TRACE_POINT_END(16),
	XPTI_TRACE_MEM_RELEASE_BEGIN = XPTI_TRACE_POINT_BEGIN(17),
	XPTI_TRACE_MEM_RELEASE_END = XPTI_TRACE_POINT_END(17),
	XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT = XPTI_TRACE_POINT_BEGIN(18),
	XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT = XPTI_TRACE_POINT_END(18),
	XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE = XPTI_TRACE_POINT_BEGIN(19),
	XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE = XPTI_TRACE_POINT_END(19),
	XPTI_TRACE_OFFLOAD_ALLOC_ACCESSOR = XPTI_TRACE_POINT_BEGIN(20),
	XPTI_TRACE_QUEUE_CREATE = XPTI_TRACE_POINT_BEGIN(21),
	XPTI_TRACE_QUEUE_DESTROY = XPTI_TRACE_POINT_END(21),
	XPTI_TRACE_DIAGNOSTICS = XPTI_TRACE_POINT_BEGIN(63),
	XPTI_TRACE_USER_DEFINED = 1 << 7,
};

/* Trace event types (values of xpti_event_type_t). */
enum {
	XPTI_EVENT_UNKNOWN = 0,
	XPTI_EVENT_GRAPH = 1,
	XPTI_EVENT_ALGORITHM = 2,
	XPTI_EVENT_BARRIER = 3,
	XPTI_EVENT_SCHEDULER = 4,
	XPTI_EVENT_ASYNC = 5,
	XPTI_EVENT_LOCK = 6,
	XPTI_EVENT_OFFLOAD_READ = 7,
	XPTI_EVENT_OFFLOAD_WRITE = 8,
	XPTI_EVENT_OFFLOAD_MEMORY_OBJECT = 9,
	XPTI_EVENT_OFFLOAD_ACCESSOR = 10,
	XPTI_EVENT_USER_DEFINED = 128,
};

typedef enum xpti_trace_activity_type {
	XPTI_ACTIVITY_UNKNOWN = 0,
	XPTI_ACTIVITY_ACTIVE = 1,
	XPTI_ACTIVITY_OVERHEAD = 2,
	XPTI_ACTIVITY_BACKGROUND = 4,
	XPTI_ACTIVITY_SLEEP = 8,
} xpti_trace_activity_type_t;

/* Type hints for registered objects (metadata values). */
typedef enum xpti_metadata_type {
	XPTI_METADATA_BINARY = 0,
	XPTI_METADATA_STRING = 1,
	XPTI_METADATA_SIGNED_INTEGER = 2,
	XPTI_METADATA_UNSIGNED_INTEGER = 3,
	XPTI_METADATA_FLOATING = 4,
	XPTI_METADATA_BOOLEAN = 5,
} xpti_metadata_type_t;

/* Payload flags (xpti_payload_t.flags). HashAvailable is 2 << 16 upstream, kept as is. */
#define XPTI_PAYLOAD_NAME_AVAILABLE	    ((uint64_t)1)
#define XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE  ((uint64_t)1 << 1)
#define XPTI_PAYLOAD_CODE_POINTER_AVAILABLE ((uint64_t)1 << 2)
#define XPTI_PAYLOAD_LINE_INFO_AVAILABLE    ((uint64_t)1 << 3)
#define XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE  ((uint64_t)1 << 4)
#define XPTI_PAYLOAD_STACK_TRACE_AVAILABLE  ((uint64_t)1 << 5)
#define XPTI_PAYLOAD_REGISTERED		    ((uint64_t)1 << 15)
#define XPTI_PAYLOAD_HASH_AVAILABLE	    ((uint64_t)2 << 16)

/* Trace event flags (xpti_trace_event_data_t.flags, a later-generation addition). */
#define XPTI_EVENT_FLAG_UID_AVAILABLE		((uint64_t)1)
#define XPTI_EVENT_FLAG_SOURCE_UID_AVAILABLE	((uint64_t)2)
#define XPTI_EVENT_FLAG_TARGET_UID_AVAILABLE	((uint64_t)4)
#define XPTI_EVENT_FLAG_EVENT_TYPE_AVAILABLE	((uint64_t)8)
#define XPTI_EVENT_FLAG_ACTIVITY_TYPE_AVAILABLE ((uint64_t)16)
#define XPTI_EVENT_FLAG_PAYLOAD_AVAILABLE	((uint64_t)32)

typedef enum xpti_stream_detail_level {
	XPTI_STREAM_DETAIL_NONE = 0,
	XPTI_STREAM_DETAIL_BASIC = 1,
	XPTI_STREAM_DETAIL_NORMAL = 2,
	XPTI_STREAM_DETAIL_VERBOSE = 3,
} xpti_stream_detail_level_t;

/* Identity of a registered payload, filled by the framework. */
typedef struct xpti_uid {
	uint64_t p1; /* (source file string id << 32) | line */
	uint64_t p2; /* (stack trace string id << 32) | name string id */
	uint64_t p3; /* code pointer */
} xpti_uid_t;

/* Describes a trace point: where it is and what it is called. */
typedef struct xpti_payload {
	const char *name;
	const char *stack_trace; /* "caller->callee" when no code location is known */
	const char *source_file;
	uint32_t line_no;   /* XPTI_INVALID_ID when unknown */
	uint32_t column_no; /* XPTI_INVALID_ID when unknown */
	const void *code_ptr_va;
	uint64_t internal; /* framework-owned: the unique_id once registered */
	uint64_t flags;	   /* XPTI_PAYLOAD_* */
	xpti_uid_t uid;	   /* framework-filled */
} xpti_payload_t;

/* Opaque per-event metadata (key string id -> value object id); see xptiMetadata*(). */
typedef struct xpti_metadata xpti_metadata_t;

/*
 * One trace-point event. unique_id is stable per payload; instance_id counts visits (racy by
 * nature: callbacks must use their `instance` argument). The reserved block is as large as
 * upstream's embedded C++ map so that global_user_data sits at the same offset.
 */
typedef struct xpti_trace_event_data {
	uint64_t unique_id;
	uint64_t data_id;
	uint64_t instance_id;
	uint16_t event_type;
	uint16_t activity_type;
	uint32_t unused;
	uint64_t source_id;
	uint64_t target_id;
	struct {
		xpti_payload_t *payload;
		xpti_metadata_t *metadata;
		uint64_t pad[6];
	} reserved;
	void *global_user_data; /* owned by the instrumenter, never freed by the framework */
	uint64_t flags;		/* XPTI_EVENT_FLAG_* */
} xpti_trace_event_data_t;

typedef struct xpti_object_data {
	size_t size;
	const char *data;
	uint8_t type; /* xpti_metadata_type_t hint */
} xpti_object_data_t;

/* user_data of function_with_args_begin/end */
typedef struct xpti_function_with_args {
	uint32_t function_id;
	const char *function_name;
	void *args_data;
	void *ret_data;
	void *user_data;
} xpti_function_with_args_t;

/* user_data of mem_alloc_* and mem_release_* */
typedef struct xpti_mem_alloc_data {
	uintptr_t mem_object_handle;
	uintptr_t alloc_pointer;
	size_t alloc_size;
	size_t guard_zone_size;
	void *reserved;
} xpti_mem_alloc_data_t;

typedef struct xpti_offload_buffer_data {
	uintptr_t user_object_handle;
	uintptr_t host_object_handle;
	const char *element_type;
	uint32_t element_size;
	uint32_t dim;
	size_t range[3];
} xpti_offload_buffer_data_t;

typedef struct xpti_offload_accessor_data {
	uintptr_t buffer_handle;
	uintptr_t accessor_handle;
	uint32_t target;
	uint32_t mode;
} xpti_offload_accessor_data_t;

typedef struct xpti_offload_association_data {
	uintptr_t user_object_handle;
	uintptr_t mem_object_handle;
} xpti_offload_association_data_t;

typedef struct xpti_offload_kernel_enqueue_data {
	size_t global_size[3];
	size_t local_size[3];
	size_t offset[3];
	uint64_t args_num;
} xpti_offload_kernel_enqueue_data_t;

typedef struct xpti_offload_kernel_arg_data {
	int type; /* -1 when unknown */
	void *pointer;
	int size;
	int index;
} xpti_offload_kernel_arg_data_t;

/* Callback and subscriber entry points. */
typedef void (*xpti_tracepoint_callback_api_t)(uint16_t trace_type, xpti_trace_event_data_t *parent,
					       xpti_trace_event_data_t *event, uint64_t instance,
					       const void *user_data);
typedef void (*xpti_plugin_init_t)(unsigned int major, unsigned int minor, const char *version_str,
				   const char *stream_name);
typedef void (*xpti_plugin_fini_t)(const char *stream_name);
typedef bool (*xpti_query_subscriber_stream_detail_level_t)(const char *stream_name,
							    xpti_stream_detail_level_t *level);

/* Payload constructors (upstream's payload_t constructors). */
static inline void xpti_payload_clear(xpti_payload_t *p)
{
	p->name = NULL;
	p->stack_trace = NULL;
	p->source_file = NULL;
	p->line_no = XPTI_INVALID_ID;
	p->column_no = XPTI_INVALID_ID;
	p->code_ptr_va = NULL;
	p->internal = 0;
	p->flags = 0;
	p->uid.p1 = 0;
	p->uid.p2 = 0;
	p->uid.p3 = 0;
}

static inline void xpti_payload_init_code_ptr(xpti_payload_t *p, const void *code_ptr)
{
	xpti_payload_clear(p);
	p->code_ptr_va = code_ptr;
	if (code_ptr)
		p->flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
}

static inline void xpti_payload_init_name(xpti_payload_t *p, const char *name)
{
	xpti_payload_clear(p);
	p->name = name;
	if (name && name[0])
		p->flags |= XPTI_PAYLOAD_NAME_AVAILABLE;
}

static inline void xpti_payload_init_name_code_ptr(xpti_payload_t *p, const char *name,
						   const void *code_ptr)
{
	xpti_payload_init_name(p, name);
	p->code_ptr_va = code_ptr;
	if (code_ptr)
		p->flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
}

static inline void xpti_payload_init_stack(xpti_payload_t *p, const char *name,
					   const char *caller_callee, const void *code_ptr)
{
	xpti_payload_init_name_code_ptr(p, name, code_ptr);
	p->stack_trace = caller_callee;
	if (caller_callee && caller_callee[0])
		p->flags |= XPTI_PAYLOAD_STACK_TRACE_AVAILABLE;
}

static inline void xpti_payload_init_source(xpti_payload_t *p, const char *name,
					    const char *source_file, uint32_t line, uint32_t column,
					    const void *code_ptr)
{
	xpti_payload_init_name_code_ptr(p, name, code_ptr);
	p->source_file = source_file;
	p->line_no = line;
	p->column_no = column;
	if (source_file && source_file[0])
		p->flags |= XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE | XPTI_PAYLOAD_LINE_INFO_AVAILABLE |
			    XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE;
}

static inline bool xpti_payload_is_valid(const xpti_payload_t *p)
{
	return p && p->flags != 0;
}

static inline uint32_t xpti_payload_name_sid(const xpti_payload_t *p)
{
	return (uint32_t)(p->uid.p2 & 0xffffffffu);
}

static inline uint32_t xpti_payload_stack_trace_sid(const xpti_payload_t *p)
{
	return (uint32_t)(p->uid.p2 >> 32);
}

static inline uint32_t xpti_payload_source_file_sid(const xpti_payload_t *p)
{
	return (uint32_t)(p->uid.p1 >> 32);
}

/* True when trace type `tt` has a closing partner (tt | 1). */
static inline bool xpti_trace_type_is_scoped(uint16_t tt)
{
	switch (tt) {
	case XPTI_TRACE_GRAPH_CREATE:
	case XPTI_TRACE_NODE_CREATE:
	case XPTI_TRACE_EDGE_CREATE:
	case XPTI_TRACE_SIGNAL:
	case XPTI_TRACE_METADATA:
	case XPTI_TRACE_QUEUE_CREATE:
	case XPTI_TRACE_QUEUE_DESTROY:
	case XPTI_TRACE_DIAGNOSTICS:
		return false;
	default:
		return true;
	}
}

#ifdef __cplusplus
}
#endif

#endif /* XPTI_DATA_TYPES_H */
