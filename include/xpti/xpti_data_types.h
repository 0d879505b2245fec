/*
 * XPTI data types: ids, result codes, trace-point / event / activity types, payloads, trace
 * events, universal ids and the structures passed as user data, shared by instrumented code,
 * the dispatcher (libxptifw.so) and subscribers. Values, field order and sizes are those of
 * Intel's current XPTI headers, so binaries built against either header agree on the layout.
 *
 * One header, two languages. In C it declares C names (xpti_payload_t, XPTI_TRACE_TASK_BEGIN,
 * XPTI_RESULT_SUCCESS, ...). In C++ it also declares Intel's C++ API in namespace xpti: enum
 * classes (xpti::trace_point_type_t::task_begin, xpti::result_t), xpti::payload_t with its
 * constructors, xpti::metadata_t as the std::unordered_map<string id, object id> that
 * xptiQueryMetadata returns, xpti::invalid_id<>, and C linkage for the subscriber entry points,
 * so collectors written for Intel's framework compile unchanged. Every enum is listed once (an
 * X-macro) and rendered as C constants and as the C++ enum class. The C name xpti_payload_t is
 * the payload struct; in C++ that name is Intel's payload interface, so declarations shared by
 * both languages spell the struct `struct xpti_payload` (xpti::payload_t in C++).
 */
#ifndef XPTI_DATA_TYPES_H
#define XPTI_DATA_TYPES_H

#ifdef __cplusplus
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/* Library version (the XPTI API level this implementation provides). */
#define XPTI_VERSION_MAJOR  0
#define XPTI_VERSION_MINOR  5
#define XPTI_VERSION_PATCH  0
#define XPTI_VERSION_STRING "0.5.0"

/* Subscribers may ask for a detail level per stream (xptiQuerySubscriberStreamDetailLevel). */
#define XPTI_HAS_STREAM_DETAIL_LEVEL 1

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

/* Spelling helpers for one declaration in both languages (not part of the API). */
#ifdef __cplusplus
#define XPTI_INIT_(...)	      = __VA_ARGS__ /* a C++ default member initializer */
#define XPTI_DEFAULT_(value)  = value	    /* a C++ default argument */
#define XPTI_REF_(type, name) type &name
#define XPTI_EXTERN_C_BEGIN_  extern "C" {
#define XPTI_EXTERN_C_END_    }
#else
#define XPTI_INIT_(...)
#define XPTI_DEFAULT_(value)
#define XPTI_REF_(type, name) type *name
#define XPTI_EXTERN_C_BEGIN_
#define XPTI_EXTERN_C_END_
#endif

/* ---- scalars ---- */

typedef uint16_t xpti_trace_point_t;
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

/* ---- enumerations: X(C++ enumerator, C constant, value) ---- */

/* Result codes: success >= 0, errors < 0 (COM style). C and C++ use the same names. */
#define XPTI_RESULTS_(X)                                                                           \
	X(XPTI_RESULT_SUCCESS, XPTI_RESULT_SUCCESS, 0)                                             \
	X(XPTI_RESULT_FALSE, XPTI_RESULT_FALSE, 1)                                                 \
	X(XPTI_RESULT_FAIL, XPTI_RESULT_FAIL, (int32_t)0x80004001)                                 \
	X(XPTI_RESULT_NOTIMPL, XPTI_RESULT_NOTIMPL, (int32_t)0x80004002)                           \
	X(XPTI_RESULT_DUPLICATE, XPTI_RESULT_DUPLICATE, (int32_t)0x80004003)                       \
	X(XPTI_RESULT_NOTFOUND, XPTI_RESULT_NOTFOUND, (int32_t)0x80004004)                         \
	X(XPTI_RESULT_UNDELETE, XPTI_RESULT_UNDELETE, (int32_t)0x80004005)                         \
	X(XPTI_RESULT_INVALIDARG, XPTI_RESULT_INVALIDARG, (int32_t)0x80004006)

#define XPTI_TRACE_POINT_TYPES_(X)                                                                 \
	X(unknown_type, XPTI_TRACE_UNKNOWN_TYPE, 0)                                                \
	X(graph_create, XPTI_TRACE_GRAPH_CREATE, XPTI_TRACE_POINT_BEGIN(1))                        \
	X(node_create, XPTI_TRACE_NODE_CREATE, XPTI_TRACE_POINT_BEGIN(2))                          \
	X(edge_create, XPTI_TRACE_EDGE_CREATE, XPTI_TRACE_POINT_BEGIN(3))                          \
	X(region_begin, XPTI_TRACE_REGION_BEGIN, XPTI_TRACE_POINT_BEGIN(4))                        \
	X(region_end, XPTI_TRACE_REGION_END, XPTI_TRACE_POINT_END(4))                              \
	X(task_begin, XPTI_TRACE_TASK_BEGIN, XPTI_TRACE_POINT_BEGIN(5))                            \
	X(task_end, XPTI_TRACE_TASK_END, XPTI_TRACE_POINT_END(5))                                  \
	X(barrier_begin, XPTI_TRACE_BARRIER_BEGIN, XPTI_TRACE_POINT_BEGIN(6))                      \
	X(barrier_end, XPTI_TRACE_BARRIER_END, XPTI_TRACE_POINT_END(6))                            \
	X(lock_begin, XPTI_TRACE_LOCK_BEGIN, XPTI_TRACE_POINT_BEGIN(7))                            \
	X(lock_end, XPTI_TRACE_LOCK_END, XPTI_TRACE_POINT_END(7))                                  \
	X(signal, XPTI_TRACE_SIGNAL, XPTI_TRACE_POINT_BEGIN(8))                                    \
	X(transfer_begin, XPTI_TRACE_TRANSFER_BEGIN, XPTI_TRACE_POINT_BEGIN(9))                    \
	X(transfer_end, XPTI_TRACE_TRANSFER_END, XPTI_TRACE_POINT_END(9))                          \
	X(thread_begin, XPTI_TRACE_THREAD_BEGIN, XPTI_TRACE_POINT_BEGIN(10))                       \
	X(thread_end, XPTI_TRACE_THREAD_END, XPTI_TRACE_POINT_END(10))                             \
	X(wait_begin, XPTI_TRACE_WAIT_BEGIN, XPTI_TRACE_POINT_BEGIN(11))                           \
	X(wait_end, XPTI_TRACE_WAIT_END, XPTI_TRACE_POINT_END(11))                                 \
	X(function_begin, XPTI_TRACE_FUNCTION_BEGIN, XPTI_TRACE_POINT_BEGIN(12))                   \
	X(function_end, XPTI_TRACE_FUNCTION_END, XPTI_TRACE_POINT_END(12))                         \
	X(metadata, XPTI_TRACE_METADATA, XPTI_TRACE_POINT_BEGIN(13))                               \
	X(function_with_args_begin, XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN,                           \
	  XPTI_TRACE_POINT_BEGIN(14))                                                              \
	X(function_with_args_end, XPTI_TRACE_FUNCTION_WITH_ARGS_END, XPTI_TRACE_POINT_END(14))     \
	X(mem_alloc_begin, XPTI_TRACE_MEM_ALLOC_BEGIN, XPTI_TRACE_POINT_BEGIN(16))                 \
	X(mem_alloc_end, XPTI_TRACE_MEM_ALLOC_END, XPTI_TRACE_POINT_END(16))                       \
	X(mem_release_begin, XPTI_TRACE_MEM_RELEASE_BEGIN, XPTI_TRACE_POINT_BEGIN(17))             \
	X(mem_release_end, XPTI_TRACE_MEM_RELEASE_END, XPTI_TRACE_POINT_END(17))                   \
	X(offload_alloc_memory_object_construct, XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT, \
	  XPTI_TRACE_POINT_BEGIN(18))                                                              \
	X(offload_alloc_memory_object_destruct, XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT,   \
	  XPTI_TRACE_POINT_END(18))                                                                \
	X(offload_alloc_memory_object_associate, XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE, \
	  XPTI_TRACE_POINT_BEGIN(19))                                                              \
	X(offload_alloc_memory_object_release, XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE,     \
	  XPTI_TRACE_POINT_END(19))                                                                \
	X(offload_alloc_accessor, XPTI_TRACE_OFFLOAD_ALLOC_ACCESSOR, XPTI_TRACE_POINT_BEGIN(20))   \
	X(queue_create, XPTI_TRACE_QUEUE_CREATE, XPTI_TRACE_POINT_BEGIN(21))                       \
	X(queue_destroy, XPTI_TRACE_QUEUE_DESTROY, XPTI_TRACE_POINT_END(21))                       \
	X(diagnostics, XPTI_TRACE_DIAGNOSTICS, XPTI_TRACE_POINT_BEGIN(63))                         \
	X(user_defined, XPTI_TRACE_USER_DEFINED, 1 << 7)

#define XPTI_EVENT_TYPES_(X)                                                                       \
	X(unknown_event, XPTI_EVENT_UNKNOWN, 0)                                                    \
	X(graph, XPTI_EVENT_GRAPH, 1)                                                              \
	X(algorithm, XPTI_EVENT_ALGORITHM, 2)                                                      \
	X(barrier, XPTI_EVENT_BARRIER, 3)                                                          \
	X(scheduler, XPTI_EVENT_SCHEDULER, 4)                                                      \
	X(async, XPTI_EVENT_ASYNC, 5)                                                              \
	X(lock, XPTI_EVENT_LOCK, 6)                                                                \
	X(offload_read, XPTI_EVENT_OFFLOAD_READ, 7)                                                \
	X(offload_write, XPTI_EVENT_OFFLOAD_WRITE, 8)                                              \
	X(offload_memory_object, XPTI_EVENT_OFFLOAD_MEMORY_OBJECT, 9)                              \
	X(offload_accessor, XPTI_EVENT_OFFLOAD_ACCESSOR, 10)                                       \
	X(user_defined, XPTI_EVENT_USER_DEFINED, 128)

#define XPTI_ACTIVITY_TYPES_(X)                                                                    \
	X(unknown_activity, XPTI_ACTIVITY_UNKNOWN, 0)                                              \
	X(active, XPTI_ACTIVITY_ACTIVE, 1)                                                         \
	X(overhead, XPTI_ACTIVITY_OVERHEAD, 2)                                                     \
	X(background, XPTI_ACTIVITY_BACKGROUND, 4)                                                 \
	X(sleep_activity, XPTI_ACTIVITY_SLEEP, 8)

/* Type hints of registered objects (metadata values). */
#define XPTI_METADATA_TYPES_(X)                                                                    \
	X(binary, XPTI_METADATA_BINARY, 0)                                                         \
	X(string, XPTI_METADATA_STRING, 1)                                                         \
	X(signed_integer, XPTI_METADATA_SIGNED_INTEGER, 2)                                         \
	X(unsigned_integer, XPTI_METADATA_UNSIGNED_INTEGER, 3)                                     \
	X(floating, XPTI_METADATA_FLOATING, 4)                                                     \
	X(boolean, XPTI_METADATA_BOOLEAN, 5)

/* Payload flags (payload.flags). HashAvailable is 2 << 16 upstream, kept as is. */
#define XPTI_PAYLOAD_FLAGS_(X)                                                                     \
	X(NameAvailable, XPTI_PAYLOAD_NAME_AVAILABLE, 1)                                           \
	X(SourceFileAvailable, XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE, 1 << 1)                         \
	X(CodePointerAvailable, XPTI_PAYLOAD_CODE_POINTER_AVAILABLE, 1 << 2)                       \
	X(LineInfoAvailable, XPTI_PAYLOAD_LINE_INFO_AVAILABLE, 1 << 3)                             \
	X(ColumnInfoAvailable, XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE, 1 << 4)                         \
	X(StackTraceAvailable, XPTI_PAYLOAD_STACK_TRACE_AVAILABLE, 1 << 5)                         \
	X(PayloadRegistered, XPTI_PAYLOAD_REGISTERED, 1 << 15)                                     \
	X(HashAvailable, XPTI_PAYLOAD_HASH_AVAILABLE, 2 << 16)

/* Trace event flags (event.flags). */
#define XPTI_EVENT_FLAGS_(X)                                                                       \
	X(UIDAvailable, XPTI_EVENT_FLAG_UID_AVAILABLE, 1)                                          \
	X(SourceUIDAvailable, XPTI_EVENT_FLAG_SOURCE_UID_AVAILABLE, 1 << 1)                        \
	X(TargetUIDAvailable, XPTI_EVENT_FLAG_TARGET_UID_AVAILABLE, 1 << 2)                        \
	X(EventTypeAvailable, XPTI_EVENT_FLAG_EVENT_TYPE_AVAILABLE, 1 << 3)                        \
	X(ActivityTypeAvailable, XPTI_EVENT_FLAG_ACTIVITY_TYPE_AVAILABLE, 1 << 4)                  \
	X(PayloadAvailable, XPTI_EVENT_FLAG_PAYLOAD_AVAILABLE, 1 << 5)

/* How much optional data producers emit on a stream; ordered for threshold checks. */
#define XPTI_STREAM_DETAIL_LEVELS_(X)                                                              \
	X(XPTI_STREAM_DETAIL_LEVEL_NONE, XPTI_STREAM_DETAIL_LEVEL_NONE, 0)                         \
	X(XPTI_STREAM_DETAIL_LEVEL_BASIC, XPTI_STREAM_DETAIL_LEVEL_BASIC, 1)                       \
	X(XPTI_STREAM_DETAIL_LEVEL_NORMAL, XPTI_STREAM_DETAIL_LEVEL_NORMAL, 2)                     \
	X(XPTI_STREAM_DETAIL_LEVEL_VERBOSE, XPTI_STREAM_DETAIL_LEVEL_VERBOSE, 3)

#define XPTI_C_ENUMERATOR_(cxx, c, value)   c = (value),
#define XPTI_CXX_ENUMERATOR_(cxx, c, value) cxx = (value),

/*
 * Constants usable as plain integers in both languages: trace types are passed as uint16_t,
 * object types as uint8_t, flags are bits of a uint64_t.
 */
enum { XPTI_TRACE_POINT_TYPES_(XPTI_C_ENUMERATOR_) };
enum { XPTI_EVENT_TYPES_(XPTI_C_ENUMERATOR_) };
typedef enum xpti_metadata_type { XPTI_METADATA_TYPES_(XPTI_C_ENUMERATOR_) } xpti_metadata_type_t;
enum { XPTI_PAYLOAD_FLAGS_(XPTI_C_ENUMERATOR_) };
enum { XPTI_EVENT_FLAGS_(XPTI_C_ENUMERATOR_) };

#ifdef __cplusplus
namespace xpti
{
enum class result_t : int32_t { XPTI_RESULTS_(XPTI_CXX_ENUMERATOR_) };
enum class trace_point_type_t : uint16_t { XPTI_TRACE_POINT_TYPES_(XPTI_CXX_ENUMERATOR_) };
enum class trace_event_type_t : uint16_t { XPTI_EVENT_TYPES_(XPTI_CXX_ENUMERATOR_) };
enum class trace_activity_type_t { XPTI_ACTIVITY_TYPES_(XPTI_CXX_ENUMERATOR_) };
enum class metadata_type_t { XPTI_METADATA_TYPES_(XPTI_CXX_ENUMERATOR_) };
enum class payload_flag_t { XPTI_PAYLOAD_FLAGS_(XPTI_CXX_ENUMERATOR_) };
enum class trace_event_flag_t { XPTI_EVENT_FLAGS_(XPTI_CXX_ENUMERATOR_) };
enum class stream_detail_level_t : uint8_t { XPTI_STREAM_DETAIL_LEVELS_(XPTI_CXX_ENUMERATOR_) };
} // namespace xpti

/* In C++ the types that API functions take or return are Intel's enum classes; the C names
 * stay usable as constants of those types. */
typedef xpti::result_t xpti_result_t;
typedef xpti::trace_activity_type_t xpti_trace_activity_type_t;
typedef xpti::stream_detail_level_t xpti_stream_detail_level_t;
typedef xpti::trace_point_type_t xpti_trace_point_type_t;
typedef xpti::trace_event_type_t xpti_trace_event_type_t;
#define XPTI_RESULT_CONSTANT_(cxx, c, value) constexpr xpti_result_t c = xpti::result_t::cxx;
#define XPTI_ACTIVITY_CONSTANT_(cxx, c, value)                                                     \
	constexpr xpti_trace_activity_type_t c = xpti::trace_activity_type_t::cxx;
#define XPTI_DETAIL_CONSTANT_(cxx, c, value)                                                       \
	constexpr xpti_stream_detail_level_t c = xpti::stream_detail_level_t::cxx;
XPTI_RESULTS_(XPTI_RESULT_CONSTANT_)
XPTI_ACTIVITY_TYPES_(XPTI_ACTIVITY_CONSTANT_)
XPTI_STREAM_DETAIL_LEVELS_(XPTI_DETAIL_CONSTANT_)
#else
typedef int32_t xpti_result_t;
enum { XPTI_RESULTS_(XPTI_C_ENUMERATOR_) };
typedef enum xpti_trace_activity_type {
	XPTI_ACTIVITY_TYPES_(XPTI_C_ENUMERATOR_)
} xpti_trace_activity_type_t;
/* uint8_t as in C++ (enum class : uint8_t): subscribers write it through a pointer. */
typedef uint8_t xpti_stream_detail_level_t;
enum { XPTI_STREAM_DETAIL_LEVELS_(XPTI_C_ENUMERATOR_) };
typedef uint16_t xpti_trace_point_type_t;
typedef uint16_t xpti_trace_event_type_t;
#endif

/* ---- structures (C tags; C++ names them in namespace xpti below) ---- */

/* Identity of a registered payload, filled by the framework. */
struct xpti_uid {
	uint64_t p1 XPTI_INIT_(0); /* (source file string id << 32) | line */
	uint64_t p2 XPTI_INIT_(0); /* (stack trace string id << 32) | name string id */
	uint64_t p3 XPTI_INIT_(0); /* code pointer */
#ifdef __cplusplus
	/* A 64-bit hash of p1, p2 and the low half of p3 (for hash containers). */
	uint64_t hash() const
	{
		uint64_t h = p1 * 0x9e3779b97f4a7c15ULL;

		h = (h ^ (h >> 29) ^ p2) * 0xbf58476d1ce4e5b9ULL;
		h = (h ^ (h >> 32) ^ (uint32_t)p3) * 0x94d049bb133111ebULL;
		return h ^ (h >> 31);
	}
	bool operator<(const xpti_uid &o) const
	{
		return p1 < o.p1 || (p1 == o.p1 && p2 < o.p2);
	}
	bool operator==(const xpti_uid &o) const
	{
		return p1 == o.p1 && p2 == o.p2;
	}
#endif
};

/*
 * The 128-bit universal id of one instance of a trace point: p1 = (file id << 32) | function
 * id, p2 = (column << 32) | line, instance = the visit (from 1), uid64 = the instance's 64-bit
 * unique id (the legacy API's id).
 */
struct xpti_uid128 {
	uint64_t p1 XPTI_INIT_(0);
	uint64_t p2 XPTI_INIT_(0);
	uint64_t instance XPTI_INIT_(0);
	uint64_t uid64 XPTI_INIT_(0);
};

/* Describes a trace point: where it is and what it is called. */
struct xpti_payload {
	const char *name XPTI_INIT_(nullptr);
	const char *stack_trace XPTI_INIT_(nullptr); /* "caller->callee" without code location */
	const char *source_file XPTI_INIT_(nullptr);
	uint32_t line_no XPTI_INIT_(XPTI_INVALID_ID);
	uint32_t column_no XPTI_INIT_(XPTI_INVALID_ID);
	const void *code_ptr_va XPTI_INIT_(nullptr);
	uint64_t internal XPTI_INIT_(0); /* framework-owned: the instance's unique id */
	uint64_t flags XPTI_INIT_(0);	 /* XPTI_PAYLOAD_* */
	struct xpti_uid uid;		 /* framework-filled */
#ifdef __cplusplus
	/* Intel's payload_t constructors: each sets the flags of what it was given. */
	xpti_payload() = default;
	xpti_payload(const void *codeptr) : code_ptr_va(codeptr)
	{
		if (codeptr)
			flags = XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
	}
	xpti_payload(const char *func_name) : name(func_name)
	{
		if (func_name)
			flags = XPTI_PAYLOAD_NAME_AVAILABLE;
	}
	xpti_payload(const char *func_name, const void *codeptr)
	    : name(func_name), code_ptr_va(codeptr)
	{
		if (func_name)
			flags |= XPTI_PAYLOAD_NAME_AVAILABLE;
		if (codeptr)
			flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
	}
	xpti_payload(const char *kname, const char *caller_callee, const void *codeptr)
	    : name(kname), stack_trace(caller_callee), code_ptr_va(codeptr)
	{
		if (codeptr)
			flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
		if (kname)
			flags |= XPTI_PAYLOAD_NAME_AVAILABLE;
		if (caller_callee)
			flags |= XPTI_PAYLOAD_STACK_TRACE_AVAILABLE;
	}
	xpti_payload(const char *kname, const char *sf, uint32_t line, uint32_t col,
		     const void *codeptr = nullptr)
	    : name(kname), source_file(sf), line_no(line), column_no(col), code_ptr_va(codeptr)
	{
		if (kname && kname[0])
			flags |= XPTI_PAYLOAD_NAME_AVAILABLE;
		if (sf && sf[0])
			flags |= XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE |
				 XPTI_PAYLOAD_LINE_INFO_AVAILABLE |
				 XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE;
		if (codeptr)
			flags |= XPTI_PAYLOAD_CODE_POINTER_AVAILABLE;
	}
	uint32_t name_sid() const
	{
		return (uint32_t)(uid.p2 & 0xffffffffu);
	}
	uint32_t stacktrace_sid() const
	{
		return (uint32_t)(uid.p2 >> 32);
	}
	uint32_t source_file_sid() const
	{
		return (uint32_t)(uid.p1 >> 32);
	}
#endif
};

struct xpti_object_data {
	size_t size;
	const char *data;
	uint8_t type; /* xpti_metadata_type_t hint */
};

/* user_data of function_with_args_begin/end */
struct xpti_function_with_args {
	uint32_t function_id; /* stable id, a contract between the traced system and tools */
	const char *function_name;
	void *args_data;
	void *ret_data;
	void *user_data;
};

/* user_data of mem_alloc_* and mem_release_* */
struct xpti_mem_alloc_data {
	uintptr_t mem_object_handle XPTI_INIT_(0);
	uintptr_t alloc_pointer XPTI_INIT_(0);
	size_t alloc_size XPTI_INIT_(0);
	size_t guard_zone_size XPTI_INIT_(0);
	void *reserved XPTI_INIT_(nullptr);
};

struct xpti_offload_buffer_data {
	uintptr_t user_object_handle XPTI_INIT_(0);
	uintptr_t host_object_handle XPTI_INIT_(0);
	const char *element_type XPTI_INIT_(nullptr);
	uint32_t element_size XPTI_INIT_(0);
	uint32_t dim XPTI_INIT_(0);
	size_t range[3] XPTI_INIT_({0, 0, 0});
};

/* An optional 32-bit value: the layout of std::optional<uint32_t> in C++. */
#ifdef __cplusplus
typedef std::optional<uint32_t> xpti_optional_u32_t;
#else
typedef struct xpti_optional_u32 {
	uint32_t value;
	bool has_value;
} xpti_optional_u32_t;
#endif

/* user_data of offload_alloc_memory_object_construct/destruct for images */
struct xpti_offload_image_data {
	uintptr_t user_object_handle XPTI_INIT_(0);
	uintptr_t host_object_handle XPTI_INIT_(0);
	uint32_t dim XPTI_INIT_(0);
	size_t range[3] XPTI_INIT_({0, 0, 0});
	uint32_t format XPTI_INIT_(0);
	xpti_optional_u32_t addressing;		      /* of the sampler, if the image is sampled */
	xpti_optional_u32_t coordinate_normalization; /* same */
	xpti_optional_u32_t filtering;		      /* same */
};

struct xpti_offload_accessor_data {
	uintptr_t buffer_handle XPTI_INIT_(0);
	uintptr_t accessor_handle XPTI_INIT_(0);
	uint32_t target XPTI_INIT_(0);
	uint32_t mode XPTI_INIT_(0);
};

struct xpti_offload_image_accessor_data {
	uintptr_t image_handle XPTI_INIT_(0);
	uintptr_t accessor_handle XPTI_INIT_(0);
	xpti_optional_u32_t target; /* only on non-host accessors */
	xpti_optional_u32_t mode;   /* only on unsampled image accessors */
	const char *element_type XPTI_INIT_(nullptr);
	uint32_t element_size XPTI_INIT_(0);
};

struct xpti_offload_association_data {
	uintptr_t user_object_handle XPTI_INIT_(0);
	uintptr_t mem_object_handle XPTI_INIT_(0);
};

struct xpti_offload_kernel_enqueue_data {
	size_t global_size[3] XPTI_INIT_({0, 0, 0});
	size_t local_size[3] XPTI_INIT_({0, 0, 0});
	size_t offset[3] XPTI_INIT_({0, 0, 0});
	size_t args_num XPTI_INIT_(0);
};

struct xpti_offload_kernel_arg_data {
	int type XPTI_INIT_(-1); /* -1 when unknown */
	void *pointer XPTI_INIT_(nullptr);
	int size XPTI_INIT_(0);
	int index XPTI_INIT_(0);
};

#ifdef __cplusplus
namespace xpti
{
/* An event's metadata: key string id -> value object id. Its layout is libstdc++'s, the one
 * the dispatcher is built with. */
using metadata_t = std::unordered_map<uint32_t, int32_t>;
} // namespace xpti
#if defined(__GLIBCXX__)
static_assert(sizeof(xpti::metadata_t) == 56, "libstdc++'s std::unordered_map is 56 bytes");
static_assert(sizeof(xpti_optional_u32_t) == 8 && alignof(xpti_optional_u32_t) == 4,
	      "std::optional<uint32_t> is {value, engaged}");
#else
#error "the XPTI metadata tables are libstdc++'s std::unordered_map: build with libstdc++"
#endif
#endif

/* The framework's part of an event: its payload and its metadata table. */
struct xpti_reserved_data {
	struct xpti_payload *payload XPTI_INIT_(nullptr);
#ifdef __cplusplus
	xpti::metadata_t metadata;
#else
	uint64_t metadata[7]; /* a C++ std::unordered_map: use xptiQueryMetadata() */
#endif
};

/*
 * One instance of a trace point. unique_id identifies this instance (the legacy 64-bit id);
 * instance_id is its visit number. source_id and target_id are the node ids of an edge.
 */
struct xpti_trace_event_data {
	uint64_t unique_id XPTI_INIT_(0);
	uint64_t data_id XPTI_INIT_(0); /* = instance_id (deprecated upstream) */
	uint64_t instance_id XPTI_INIT_(0);
	uint16_t event_type;
	uint16_t activity_type;
	uint32_t unused;
	uint64_t source_id XPTI_INIT_(0);
	uint64_t target_id XPTI_INIT_(0);
	struct xpti_reserved_data reserved;
	void *global_user_data XPTI_INIT_(nullptr); /* the instrumenter's, never freed by XPTI */
	uint64_t flags XPTI_INIT_(0);		    /* XPTI_EVENT_FLAG_* */
};

/* A trace point's data as xptiGetTracepointData() (and TLS scopes upstream) hand it out. */
struct xpti_tracepoint_data {
	struct xpti_uid128 uid128;
	struct xpti_payload *payload XPTI_INIT_(nullptr);
	struct xpti_trace_event_data *event XPTI_INIT_(nullptr);
	uint64_t uid64 XPTI_INIT_(0);
#ifdef __cplusplus
	bool isValid()
	{
		return (uid128.p1 || uid128.p2) && uid128.instance > 0 && payload && event;
	}
#endif
};

/* C names of the structures (the payload struct is xpti::payload_t in C++, see above). */
#ifndef __cplusplus
typedef struct xpti_payload xpti_payload_t;
#endif
typedef struct xpti_uid xpti_uid_t;
typedef struct xpti_uid128 xpti_uid128_t;
typedef struct xpti_object_data xpti_object_data_t;
typedef struct xpti_function_with_args xpti_function_with_args_t;
typedef struct xpti_mem_alloc_data xpti_mem_alloc_data_t;
typedef struct xpti_offload_buffer_data xpti_offload_buffer_data_t;
typedef struct xpti_offload_image_data xpti_offload_image_data_t;
typedef struct xpti_offload_accessor_data xpti_offload_accessor_data_t;
typedef struct xpti_offload_image_accessor_data xpti_offload_image_accessor_data_t;
typedef struct xpti_offload_association_data xpti_offload_association_data_t;
typedef struct xpti_offload_kernel_enqueue_data xpti_offload_kernel_enqueue_data_t;
typedef struct xpti_offload_kernel_arg_data xpti_offload_kernel_arg_data_t;
typedef struct xpti_trace_event_data xpti_trace_event_data_t;
typedef struct xpti_tracepoint_data xpti_tracepoint_data_t;

/* Callback and subscriber entry points. */
typedef void (*xpti_tracepoint_callback_api_t)(uint16_t trace_type, xpti_trace_event_data_t *parent,
					       xpti_trace_event_data_t *event, uint64_t instance,
					       const void *user_data);
typedef void (*xpti_plugin_init_t)(unsigned int major, unsigned int minor, const char *version_str,
				   const char *stream_name);
typedef void (*xpti_plugin_fini_t)(const char *stream_name);
typedef bool (*xpti_query_subscriber_stream_detail_level_t)(const char *stream_name,
							    xpti_stream_detail_level_t *level);

#ifdef __cplusplus
/* Intel's C++ names. */
namespace xpti
{
using uid64_t = uint64_t;
using stream_id_t = uint8_t;
using trace_point_t = uint16_t;
using event_type_t = uint16_t;
using string_id_t = uint32_t;
using object_id_t = int32_t;
using safe_flag_t = std::atomic<bool>;
using safe_uint64_t = std::atomic<uint64_t>;
using safe_uint32_t = std::atomic<uint32_t>;
using safe_uint16_t = std::atomic<uint16_t>;
using safe_int64_t = std::atomic<int64_t>;
using safe_int32_t = std::atomic<int32_t>;
using safe_int16_t = std::atomic<int16_t>;

template <typename T = uint32_t> constexpr T invalid_id = std::numeric_limits<T>::max();
constexpr uint64_t invalid_uid = 0;
constexpr uint8_t default_vendor = 0;

using uid_t = ::xpti_uid;
using universal_id_t = ::xpti_uid128;
using uid128_t = ::xpti_uid128;
using payload_t = ::xpti_payload;
using object_data_t = ::xpti_object_data;
using function_with_args_t = ::xpti_function_with_args;
using mem_alloc_data_t = ::xpti_mem_alloc_data;
using offload_buffer_data_t = ::xpti_offload_buffer_data;
using offload_image_data_t = ::xpti_offload_image_data;
using offload_accessor_data_t = ::xpti_offload_accessor_data;
using offload_image_accessor_data_t = ::xpti_offload_image_accessor_data;
using offload_association_data_t = ::xpti_offload_association_data;
using offload_kernel_enqueue_data_t = ::xpti_offload_kernel_enqueue_data;
using offload_kernel_arg_data_t = ::xpti_offload_kernel_arg_data;
using reserved_data_t = ::xpti_reserved_data;
using trace_event_data_t = ::xpti_trace_event_data;
using tracepoint_data_t = ::xpti_tracepoint_data;
using tracepoint_callback_api_t = ::xpti_tracepoint_callback_api_t;
using plugin_init_t = ::xpti_plugin_init_t;
using plugin_fini_t = ::xpti_plugin_fini_t;
using query_subscriber_stream_detail_level_t = ::xpti_query_subscriber_stream_detail_level_t;

/* The universal id of a code location; instance and uid64 are left 0. */
inline uid128_t make_uid128(uint64_t file_id, uint64_t func_id, int line, int col)
{
	uid128_t uid;

	uid.p1 = (file_id << 32) | func_id;
	uid.p2 = ((uint64_t)col << 32) | (uint64_t)line;
	return uid;
}

inline bool is_valid_uid(const uid128_t &uid)
{
	return (uid.p1 != 0 || uid.p2 != 0) && uid.instance > 0;
}

#define XPTI_TRACE_TYPE_CONSTANT_(name)                                                            \
	constexpr uint16_t trace_##name = static_cast<uint16_t>(trace_point_type_t::name);
#define XPTI_EVENT_TYPE_CONSTANT_(name)                                                            \
	constexpr uint16_t trace_##name##_event = static_cast<uint16_t>(trace_event_type_t::name);
XPTI_TRACE_TYPE_CONSTANT_(task_begin)
XPTI_TRACE_TYPE_CONSTANT_(task_end)
XPTI_TRACE_TYPE_CONSTANT_(wait_begin)
XPTI_TRACE_TYPE_CONSTANT_(wait_end)
XPTI_TRACE_TYPE_CONSTANT_(barrier_begin)
XPTI_TRACE_TYPE_CONSTANT_(barrier_end)
XPTI_TRACE_TYPE_CONSTANT_(graph_create)
XPTI_TRACE_TYPE_CONSTANT_(node_create)
XPTI_TRACE_TYPE_CONSTANT_(edge_create)
XPTI_TRACE_TYPE_CONSTANT_(signal)
XPTI_TRACE_TYPE_CONSTANT_(function_begin)
XPTI_TRACE_TYPE_CONSTANT_(function_end)
XPTI_TRACE_TYPE_CONSTANT_(function_with_args_begin)
XPTI_TRACE_TYPE_CONSTANT_(function_with_args_end)
XPTI_TRACE_TYPE_CONSTANT_(offload_alloc_memory_object_construct)
XPTI_TRACE_TYPE_CONSTANT_(offload_alloc_memory_object_associate)
XPTI_TRACE_TYPE_CONSTANT_(offload_alloc_memory_object_destruct)
XPTI_TRACE_TYPE_CONSTANT_(offload_alloc_memory_object_release)
XPTI_TRACE_TYPE_CONSTANT_(offload_alloc_accessor)
XPTI_TRACE_TYPE_CONSTANT_(queue_create)
XPTI_TRACE_TYPE_CONSTANT_(queue_destroy)
XPTI_TRACE_TYPE_CONSTANT_(diagnostics)
XPTI_EVENT_TYPE_CONSTANT_(graph)
XPTI_EVENT_TYPE_CONSTANT_(algorithm)
XPTI_EVENT_TYPE_CONSTANT_(offload_memory_object)
XPTI_EVENT_TYPE_CONSTANT_(offload_accessor)
} // namespace xpti

namespace std
{
template <> struct hash<xpti::uid128_t> {
	size_t operator()(const xpti::uid128_t &u) const
	{
		return xpti::uid_t{u.p1, u.p2, 0}.hash();
	}
};
template <> struct equal_to<xpti::uid128_t> {
	bool operator()(const xpti::uid128_t &a, const xpti::uid128_t &b) const
	{
		return a.p1 == b.p1 && a.p2 == b.p2;
	}
};
template <> struct less<xpti::uid128_t> {
	bool operator()(const xpti::uid128_t &a, const xpti::uid128_t &b) const
	{
		return a.p1 < b.p1 || (a.p1 == b.p1 && a.p2 < b.p2);
	}
};
template <> struct hash<xpti::uid_t> {
	size_t operator()(const xpti::uid_t &u) const
	{
		return u.hash();
	}
};
} // namespace std

using xpti_tp = xpti::trace_point_type_t;
using xpti_te = xpti::trace_event_type_t;
using xpti_at = xpti::trace_activity_type_t;
using xpti_td = xpti::trace_event_data_t;
#endif /* __cplusplus */

/*
 * Subscriber entry points. Declared here with C linkage so that a C++ collector defining them
 * exports the names the dispatcher looks up; xptiQuerySubscriberStreamDetailLevel is optional.
 */
XPTI_EXTERN_C_BEGIN_
XPTI_CALLBACK_API void xptiTraceInit(unsigned int major_version, unsigned int minor_version,
				     const char *version_str, const char *stream_name);
XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name);
XPTI_CALLBACK_API bool xptiQuerySubscriberStreamDetailLevel(const char *stream_name,
							    xpti_stream_detail_level_t *level);
XPTI_EXTERN_C_END_

/* ---- C helpers (C++ has the constructors and methods above) ---- */

#ifndef __cplusplus
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

static inline bool xpti_uid128_is_valid(const xpti_uid128_t *uid)
{
	return (uid->p1 != 0 || uid->p2 != 0) && uid->instance > 0;
}
#endif /* !__cplusplus */

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

#endif /* XPTI_DATA_TYPES_H */
