/*
 * The recording subscriber (libhetrace-xpti.so): records the notifications of every XPTI stream
 * into the hetrace trace, on the notifying thread. `hetrace record` loads it through
 * XPTI_SUBSCRIBERS; when the process is not being recorded it registers no callback, so the
 * instrumented code sees no subscriber for its streams and pays nothing.
 *
 * Mapping (one XPTI notification -> hetrace events):
 * - A begin/end pair (region, task, barrier, lock, transfer, thread, wait, function,
 *   function_with_args, mem_alloc, mem_release) -> region_begin / region_end. The region's name
 *   is, in this order: the function name in user_data (function_*: a string;
 *   function_with_args_*: its function_name), the event's payload name, or "<stream>:<pair>"
 *   (e.g. "sycl:task", the same for begin and end). Regions carry no stream: a payload name is
 *   what users wrote, and prefixing it would make it differ from the same name elsewhere.
 * - Every other type (graph/node/edge create, signal, metadata, queue create/destroy, the offload
 *   alloc/accessor points, diagnostics, user-defined types) -> one instant named
 *   "<stream>:<type>" (e.g. "sycl:node_create"; user-defined: "<stream>:user_defined_<vendor>_<n>")
 *   with arguments, in this order: uid (event unique_id), instance, parent (the parent event's
 *   uid: the graph of a node or edge), source and target (an edge's node uids), the decoded
 *   user_data (mem / offload structs; a bare pointer as "user_data"), name, file and line (from
 *   the payload), then the event's metadata as key=value (strings, integers, floats, booleans;
 *   binary values as hex). mem_alloc_end and mem_release_end also add an instant
 *   "<stream>:mem_alloc" / "<stream>:mem_release" with handle, pointer and size.
 *   An instant holds at most HT_IARGS_MAX arguments; the rest follow in "xpti.more" instants on
 *   the same thread right after it, each starting with the same uid.
 * - xptiTraceInit adds an instant "xpti.stream" (stream, id, major, minor, version).
 *
 * Hot path: no lock, no allocation per notification. The callback receives no stream id, so
 * each stream id has its own tiny thunk that passes it on. Interned name ids are cached in
 * tables owned here, filled on first use (the only time ht_string_id, which locks, runs):
 * per payload name (its XPTI string id, dense in our dispatcher and the same for every
 * instance of a trace point) in a chunked array, per stream and type in fixed arrays, per name
 * pointer (function names in user_data, which, like the names given to the HT_* macros, must
 * not change their text) in a lock-free open-addressing table.
 *
 * User-defined types: the framework has no catch-all registration, so callbacks are registered
 * for every user-defined value of the first HT_XPTI_REC_VENDORS tool ids (tools are numbered
 * from 1 in the order they register types); types of later tools are not recorded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hetrace/hetrace.h>
#include <xpti/xpti_trace_framework.h>

#include "format/format.h"

#define HT_XPTI_REC_VENDORS 4

enum rec_kind {
	REC_NONE = 0,
	REC_BEGIN,
	REC_END,
	REC_INSTANT,
};

/* How to read a notification's user_data. */
enum rec_data {
	REC_UD_PTR = 0,	 /* opaque: recorded as a pointer value */
	REC_UD_FNNAME,	 /* const char *: the function name */
	REC_UD_FNARGS,	 /* xpti_function_with_args_t */
	REC_UD_MEM,	 /* xpti_mem_alloc_data_t */
	REC_UD_BUFFER,	 /* xpti_offload_buffer_data_t */
	REC_UD_ASSOC,	 /* xpti_offload_association_data_t */
	REC_UD_ACCESSOR, /* xpti_offload_accessor_data_t */
};

struct rec_type {
	const char *name; /* instant name suffix, or the pair's name for regions */
	uint8_t kind;
	uint8_t data;
};

/* The predefined trace types (values < 128). */
static const struct rec_type rec_types[128] = {
    [XPTI_TRACE_GRAPH_CREATE] = {"graph_create", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_NODE_CREATE] = {"node_create", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_EDGE_CREATE] = {"edge_create", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_REGION_BEGIN] = {"region", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_REGION_END] = {"region", REC_END, REC_UD_PTR},
    [XPTI_TRACE_TASK_BEGIN] = {"task", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_TASK_END] = {"task", REC_END, REC_UD_PTR},
    [XPTI_TRACE_BARRIER_BEGIN] = {"barrier", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_BARRIER_END] = {"barrier", REC_END, REC_UD_PTR},
    [XPTI_TRACE_LOCK_BEGIN] = {"lock", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_LOCK_END] = {"lock", REC_END, REC_UD_PTR},
    [XPTI_TRACE_SIGNAL] = {"signal", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_TRANSFER_BEGIN] = {"transfer", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_TRANSFER_END] = {"transfer", REC_END, REC_UD_PTR},
    [XPTI_TRACE_THREAD_BEGIN] = {"thread", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_THREAD_END] = {"thread", REC_END, REC_UD_PTR},
    [XPTI_TRACE_WAIT_BEGIN] = {"wait", REC_BEGIN, REC_UD_PTR},
    [XPTI_TRACE_WAIT_END] = {"wait", REC_END, REC_UD_PTR},
    [XPTI_TRACE_FUNCTION_BEGIN] = {"function", REC_BEGIN, REC_UD_FNNAME},
    [XPTI_TRACE_FUNCTION_END] = {"function", REC_END, REC_UD_FNNAME},
    [XPTI_TRACE_METADATA] = {"metadata", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN] = {"function_with_args", REC_BEGIN, REC_UD_FNARGS},
    [XPTI_TRACE_FUNCTION_WITH_ARGS_END] = {"function_with_args", REC_END, REC_UD_FNARGS},
    [XPTI_TRACE_MEM_ALLOC_BEGIN] = {"mem_alloc", REC_BEGIN, REC_UD_MEM},
    [XPTI_TRACE_MEM_ALLOC_END] = {"mem_alloc", REC_END, REC_UD_MEM},
    [XPTI_TRACE_MEM_RELEASE_BEGIN] = {"mem_release", REC_BEGIN, REC_UD_MEM},
    [XPTI_TRACE_MEM_RELEASE_END] = {"mem_release", REC_END, REC_UD_MEM},
    /* Object lifetimes, not scopes of the notifying thread: points, not regions. */
    [XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT] = {"offload_alloc_memory_object_construct",
							  REC_INSTANT, REC_UD_BUFFER},
    [XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT] = {"offload_alloc_memory_object_destruct",
							 REC_INSTANT, REC_UD_BUFFER},
    [XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE] = {"offload_alloc_memory_object_associate",
							  REC_INSTANT, REC_UD_ASSOC},
    [XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE] = {"offload_alloc_memory_object_release",
							REC_INSTANT, REC_UD_ASSOC},
    [XPTI_TRACE_OFFLOAD_ALLOC_ACCESSOR] = {"offload_alloc_accessor", REC_INSTANT, REC_UD_ACCESSOR},
    [XPTI_TRACE_QUEUE_CREATE] = {"queue_create", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_QUEUE_DESTROY] = {"queue_destroy", REC_INSTANT, REC_UD_PTR},
    [XPTI_TRACE_DIAGNOSTICS] = {"diagnostics", REC_INSTANT, REC_UD_PTR},
};

/* Per stream id: its name and the ids of its "<stream>:<type>" names (0 = not interned yet). */
static struct rec_stream {
	const char *name; /* interned by the framework: stable */
	uint32_t id[128];
} rec_streams[256];

/* ---- name id per XPTI name string id: chunked array, chunks allocated on first use ---- */

#define REC_CHUNK_SHIFT 10
#define REC_CHUNK_SIZE	(1u << REC_CHUNK_SHIFT)
#define REC_NCHUNKS	16384	   /* 16 M strings, the dispatcher's own limit */
#define REC_NO_NAME	UINT32_MAX /* the payload has no name */

static uint32_t *rec_sid_chunk[REC_NCHUNKS];

/* ---- name id per pointer (function names) or synthetic key: open addressing ---- */

#define REC_PTR_SLOTS 4096 /* power of two */
#define REC_PTR_PROBE 32
#define REC_KEY_USER  ((uintptr_t)1 << 63) /* user-defined type names: never a user pointer */

static struct {
	uintptr_t key;
	uint32_t id;
} rec_ptrs[REC_PTR_SLOTS];

static inline uint32_t rec_ptr_find(uintptr_t key)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0; i < REC_PTR_PROBE; i++) {
		unsigned int s = (unsigned int)((h >> 40) + i) & (REC_PTR_SLOTS - 1);
		uintptr_t k = __atomic_load_n(&rec_ptrs[s].key, __ATOMIC_ACQUIRE);

		if (k == key)
			return __atomic_load_n(&rec_ptrs[s].id, __ATOMIC_RELAXED);
		if (!k)
			return 0;
	}
	return 0;
}

/* A racing inserter of the same key stores the same id: ht_string_id is idempotent. When the
 * table is full the name is simply looked up again next time. */
static void rec_ptr_put(uintptr_t key, uint32_t id)
{
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0; i < REC_PTR_PROBE; i++) {
		unsigned int s = (unsigned int)((h >> 40) + i) & (REC_PTR_SLOTS - 1);
		uintptr_t k = 0;

		if (__atomic_compare_exchange_n(&rec_ptrs[s].key, &k, key, false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) ||
		    k == key) {
			__atomic_store_n(&rec_ptrs[s].id, id, __ATOMIC_RELAXED);
			return;
		}
	}
}

static __attribute__((noinline)) uint32_t rec_ptr_id_slow(const char *s)
{
	uint32_t id = ht_string_id(s);

	if (id)
		rec_ptr_put((uintptr_t)s, id);
	return id;
}

static inline uint32_t rec_ptr_id(const char *s)
{
	uint32_t id = rec_ptr_find((uintptr_t)s);

	return id ? id : rec_ptr_id_slow(s);
}

static const char *rec_stream_name(uint8_t sid)
{
	const char *n = __atomic_load_n(&rec_streams[sid].name, __ATOMIC_ACQUIRE);

	return n ? n : "xpti";
}

/* "<stream>:<type>" for a predefined type (regions use the pair's name, see rec_types). */
static __attribute__((noinline)) uint32_t rec_type_id_slow(uint8_t sid, uint16_t tt,
							   const char *what)
{
	char buf[512];
	uint32_t id;

	snprintf(buf, sizeof buf, "%s:%s", rec_stream_name(sid), what);
	id = ht_string_id(buf);
	__atomic_store_n(&rec_streams[sid].id[tt], id, __ATOMIC_RELAXED);
	return id;
}

static inline uint32_t rec_type_id(uint8_t sid, uint16_t tt)
{
	uint32_t id = __atomic_load_n(&rec_streams[sid].id[tt], __ATOMIC_RELAXED);

	return id ? id : rec_type_id_slow(sid, tt, rec_types[tt].name);
}

static __attribute__((noinline)) uint32_t rec_user_type_id(uint8_t sid, uint16_t tt)
{
	uintptr_t key = REC_KEY_USER | ((uintptr_t)sid << 16) | tt;
	uint32_t id = rec_ptr_find(key);
	char buf[512];

	if (id)
		return id;
	snprintf(buf, sizeof buf, "%s:user_defined_%u_%u", rec_stream_name(sid),
		 (unsigned int)XPTI_TOOL_ID(tt), (unsigned int)XPTI_EXTRACT_USER_DEFINED_ID(tt));
	id = ht_string_id(buf);
	if (id)
		rec_ptr_put(key, id);
	return id;
}

static const xpti_payload_t *rec_payload(xpti_trace_event_data_t *ev)
{
	return ev ? xptiQueryPayload(ev) : NULL;
}

static const char *rec_payload_name(const xpti_payload_t *p)
{
	if (p && (p->flags & XPTI_PAYLOAD_NAME_AVAILABLE) && p->name && p->name[0])
		return p->name;
	return NULL;
}

static __attribute__((noinline)) uint32_t rec_event_id_slow(const xpti_payload_t *p)
{
	const char *name = rec_payload_name(p);
	uint64_t idx = p ? (uint64_t)xpti_payload_name_sid(p) - 1 : UINT64_MAX;
	uint32_t id = name ? ht_string_id(name) : REC_NO_NAME;
	uint32_t *chunk;

	/* Only a named payload's own string id is a cache key (not a nameless one's 0). */
	if (!id || !name || idx >= (uint64_t)REC_NCHUNKS * REC_CHUNK_SIZE)
		return id;
	chunk = __atomic_load_n(&rec_sid_chunk[idx >> REC_CHUNK_SHIFT], __ATOMIC_ACQUIRE);
	if (!chunk) {
		uint32_t *fresh = calloc(REC_CHUNK_SIZE, sizeof(*fresh));

		if (!fresh)
			return id;
		chunk = NULL;
		if (__atomic_compare_exchange_n(&rec_sid_chunk[idx >> REC_CHUNK_SHIFT], &chunk,
						fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			chunk = fresh;
		else
			free(fresh);
	}
	__atomic_store_n(&chunk[idx & (REC_CHUNK_SIZE - 1)], id, __ATOMIC_RELAXED);
	return id;
}

/* Return: the name id of the event's payload, REC_NO_NAME when it has none, 0 on failure. */
static inline uint32_t rec_event_id(xpti_trace_event_data_t *ev)
{
	const xpti_payload_t *p = rec_payload(ev);
	uint64_t idx = p ? (uint64_t)xpti_payload_name_sid(p) - 1 : UINT64_MAX;
	uint32_t *chunk;
	uint32_t id;

	if (__builtin_expect(idx < (uint64_t)REC_NCHUNKS * REC_CHUNK_SIZE, 1)) {
		chunk = __atomic_load_n(&rec_sid_chunk[idx >> REC_CHUNK_SHIFT], __ATOMIC_ACQUIRE);
		if (chunk) {
			id = __atomic_load_n(&chunk[idx & (REC_CHUNK_SIZE - 1)], __ATOMIC_RELAXED);
			if (id)
				return id;
		}
	}
	return rec_event_id_slow(p);
}

/* The region name of a begin/end notification (see the mapping above). */
static inline uint32_t rec_region_id(uint8_t sid, uint16_t tt, xpti_trace_event_data_t *ev,
				     const void *ud)
{
	uint32_t id;

	if (ud && rec_types[tt].data == REC_UD_FNNAME)
		return rec_ptr_id(ud);
	if (ud && rec_types[tt].data == REC_UD_FNARGS) {
		const char *fn = ((const xpti_function_with_args_t *)ud)->function_name;

		if (fn && fn[0])
			return rec_ptr_id(fn);
	}
	if (ev) {
		id = rec_event_id(ev);
		if (id != REC_NO_NAME)
			return id;
	}
	/* Both halves of a pair share one name: index it by the begin type. */
	return rec_type_id(sid, tt & 0xfffe);
}

/* ---- instants ---- */

/* Arguments of one instant and its "xpti.more" continuations. */
struct rec_inst {
	uint32_t name;
	uint64_t uid;
	unsigned int n;
	bool emitted;
	struct ht_arg a[HT_IARGS_MAX];
	char scratch[HT_IARGS_MAX][72]; /* text of formatted values, per argument slot */
};

static uint32_t rec_more_id(void)
{
	static uint32_t more;
	uint32_t id = __atomic_load_n(&more, __ATOMIC_RELAXED);

	if (!id) {
		id = ht_string_id("xpti.more");
		__atomic_store_n(&more, id, __ATOMIC_RELAXED);
	}
	return id;
}

static void rec_flush(struct rec_inst *b)
{
	ht_instant_id(b->emitted ? rec_more_id() : b->name, b->a, b->n);
	b->emitted = true;
	b->n = 0;
	b->a[b->n++] = ht_arg_uint("uid", b->uid);
}

/* Return: the slot the argument goes to (for its scratch text). */
static unsigned int rec_slot(struct rec_inst *b)
{
	if (b->n == HT_IARGS_MAX)
		rec_flush(b);
	return b->n++;
}

static void rec_put(struct rec_inst *b, struct ht_arg a)
{
	b->a[rec_slot(b)] = a;
}

static void rec_put_hex(struct rec_inst *b, const char *key, const void *data, size_t size)
{
	unsigned int i = rec_slot(b);
	char *s = b->scratch[i];
	const unsigned char *p = data;
	size_t n = size < 32 ? size : 32, o = 2;

	memcpy(s, "0x", 3);
	for (size_t k = 0; k < n; k++, o += 2)
		snprintf(s + o, 3, "%02x", p[k]);
	if (n < size)
		memcpy(s + o, "..", 3);
	b->a[i] = ht_arg_string(key, s);
}

static void rec_put_metadata(struct rec_inst *b, xpti_string_id_t key, xpti_object_id_t value)
{
	const char *k = xptiLookupString(key);
	xpti_object_data_t o = xptiLookupObject(value);
	union {
		int8_t i8;
		int16_t i16;
		int32_t i32;
		int64_t i64;
		float f;
		double d;
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
	} v = {.u64 = 0};

	if (!k)
		return;
	if (!o.data) {
		rec_put(b, ht_arg_string(k, ""));
		return;
	}
	if (o.type != XPTI_METADATA_STRING && o.size <= 8)
		memcpy(&v, o.data, o.size);
	switch (o.type) {
	case XPTI_METADATA_STRING:
		rec_put(b, ht_arg_string(k, o.data)); /* interned copies end with a NUL */
		return;
	case XPTI_METADATA_SIGNED_INTEGER:
		if (o.size == 1 || o.size == 2 || o.size == 4 || o.size == 8) {
			rec_put(b, ht_arg_int(k, o.size == 1   ? v.i8
						 : o.size == 2 ? v.i16
						 : o.size == 4 ? v.i32
							       : v.i64));
			return;
		}
		break;
	case XPTI_METADATA_UNSIGNED_INTEGER:
	case XPTI_METADATA_BOOLEAN:
		if (o.size == 1 || o.size == 2 || o.size == 4 || o.size == 8) {
			rec_put(b, ht_arg_uint(k, o.size == 1	? v.u8
						  : o.size == 2 ? v.u16
						  : o.size == 4 ? v.u32
								: v.u64));
			return;
		}
		break;
	case XPTI_METADATA_FLOATING:
		if (o.size == 4 || o.size == 8) {
			rec_put(b, ht_arg_double(k, o.size == 4 ? v.f : v.d));
			return;
		}
		break;
	default:
		break;
	}
	rec_put_hex(b, k, o.data, o.size);
}

static void rec_put_user_data(struct rec_inst *b, uint8_t data, const void *ud)
{
	switch (data) {
	case REC_UD_BUFFER: {
		const xpti_offload_buffer_data_t *d = ud;

		rec_put(b, ht_arg_uint("handle", d->user_object_handle));
		rec_put(b, ht_arg_uint("host_handle", d->host_object_handle));
		if (d->element_type)
			rec_put(b, ht_arg_string("element_type", d->element_type));
		rec_put(b, ht_arg_uint("element_size", d->element_size));
		rec_put(b, ht_arg_uint("dim", d->dim));
		for (uint32_t i = 0; i < d->dim && i < 3; i++)
			rec_put(b, ht_arg_uint(i == 0	? "range0"
					       : i == 1 ? "range1"
							: "range2",
					       d->range[i]));
		break;
	}
	case REC_UD_ASSOC: {
		const xpti_offload_association_data_t *d = ud;

		rec_put(b, ht_arg_uint("handle", d->user_object_handle));
		rec_put(b, ht_arg_uint("mem_handle", d->mem_object_handle));
		break;
	}
	case REC_UD_ACCESSOR: {
		const xpti_offload_accessor_data_t *d = ud;

		rec_put(b, ht_arg_uint("buffer_handle", d->buffer_handle));
		rec_put(b, ht_arg_uint("accessor_handle", d->accessor_handle));
		rec_put(b, ht_arg_uint("target", d->target));
		rec_put(b, ht_arg_uint("mode", d->mode));
		break;
	}
	default:
		rec_put(b, ht_arg_uint("user_data", (uintptr_t)ud));
		break;
	}
}

static __attribute__((noinline)) void rec_instant(uint32_t name, uint8_t data,
						  xpti_trace_event_data_t *parent,
						  xpti_trace_event_data_t *ev, uint64_t instance,
						  const void *ud)
{
	const xpti_payload_t *p = rec_payload(ev);
	xpti_metadata_map_t *md = ev ? xptiQueryMetadata(ev) : NULL;
	size_t nmd = md ? xptiMetadataCount(md) : 0;
	struct rec_inst b;
	const char *s;

	if (!name)
		return;
	b.name = name;
	b.uid = ev ? ev->unique_id : 0;
	b.n = 0;
	b.emitted = false;
	rec_put(&b, ht_arg_uint("uid", b.uid));
	rec_put(&b, ht_arg_uint("instance", instance));
	if (parent)
		rec_put(&b, ht_arg_uint("parent", parent->unique_id));
	if (ev && (ev->source_id || ev->target_id)) {
		rec_put(&b, ht_arg_uint("source", ev->source_id));
		rec_put(&b, ht_arg_uint("target", ev->target_id));
	}
	if (ud)
		rec_put_user_data(&b, data, ud);
	if ((s = rec_payload_name(p)))
		rec_put(&b, ht_arg_string("name", s));
	if (p && (p->flags & XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE) && p->source_file &&
	    p->source_file[0]) {
		rec_put(&b, ht_arg_string("file", p->source_file));
		if ((p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE) && p->line_no != XPTI_INVALID_ID)
			rec_put(&b, ht_arg_uint("line", p->line_no));
	}
	for (size_t i = 0; i < nmd; i++) {
		xpti_string_id_t key;
		xpti_object_id_t value;

		if (xptiMetadataGet(md, i, &key, &value) == XPTI_RESULT_SUCCESS)
			rec_put_metadata(&b, key, value);
	}
	if (!b.emitted || b.n > 1)
		ht_instant_id(b.emitted ? rec_more_id() : b.name, b.a, b.n);
}

/* The allocation itself, at the end of mem_alloc / mem_release. */
static __attribute__((noinline)) void rec_mem_instant(uint8_t sid, uint16_t tt,
						      xpti_trace_event_data_t *ev,
						      const xpti_mem_alloc_data_t *d)
{
	struct ht_arg a[5];
	unsigned int n = 0;

	if (ev)
		a[n++] = ht_arg_uint("uid", ev->unique_id);
	a[n++] = ht_arg_uint("handle", d->mem_object_handle);
	a[n++] = ht_arg_uint("pointer", d->alloc_pointer);
	a[n++] = ht_arg_uint("size", d->alloc_size);
	a[n++] = ht_arg_uint("guard_zone", d->guard_zone_size);
	ht_instant_id(rec_type_id(sid, tt & 0xfffe), a, n);
}

static __attribute__((noinline)) void rec_notify(uint8_t sid, uint16_t tt,
						 xpti_trace_event_data_t *parent,
						 xpti_trace_event_data_t *ev, uint64_t instance,
						 const void *ud)
{
	const struct rec_type *t;
	uint32_t id;

	if (!HT_ENABLED())
		return;
	if (__builtin_expect(tt >= 128, 0)) {
		rec_instant(rec_user_type_id(sid, tt), REC_UD_PTR, parent, ev, instance, ud);
		return;
	}
	t = &rec_types[tt];
	switch (t->kind) {
	case REC_BEGIN:
		id = rec_region_id(sid, tt, ev, ud);
		if (id)
			ht_region_begin_id(id);
		break;
	case REC_END:
		id = rec_region_id(sid, tt, ev, ud);
		if (id)
			ht_region_end_id(id);
		if (t->data == REC_UD_MEM && ud)
			rec_mem_instant(sid, tt, ev, ud);
		break;
	case REC_INSTANT:
		rec_instant(rec_type_id(sid, tt), t->data, parent, ev, instance, ud);
		break;
	default:
		break;
	}
}

/* One callback per stream id: the framework does not tell a callback which stream notified. */
#define REC_THUNK(n)                                                                               \
	static void rec_cb_##n(uint16_t tt, xpti_trace_event_data_t *parent,                       \
			       xpti_trace_event_data_t *ev, uint64_t instance, const void *ud)     \
	{                                                                                          \
		rec_notify(n, tt, parent, ev, instance, ud);                                       \
	}
#define REC_THUNK16(h)                                                                             \
	REC_THUNK(h##0)                                                                            \
	REC_THUNK(h##1)                                                                            \
	REC_THUNK(h##2)                                                                            \
	REC_THUNK(h##3)                                                                            \
	REC_THUNK(h##4)                                                                            \
	REC_THUNK(h##5)                                                                            \
	REC_THUNK(h##6)                                                                            \
	REC_THUNK(h##7)                                                                            \
	REC_THUNK(h##8)                                                                            \
	REC_THUNK(h##9)                                                                            \
	REC_THUNK(h##a)                                                                            \
	REC_THUNK(h##b)                                                                            \
	REC_THUNK(h##c)                                                                            \
	REC_THUNK(h##d)                                                                            \
	REC_THUNK(h##e)                                                                            \
	REC_THUNK(h##f)
#define REC_NAME16(h)                                                                              \
	rec_cb_##h##0, rec_cb_##h##1, rec_cb_##h##2, rec_cb_##h##3, rec_cb_##h##4, rec_cb_##h##5,  \
	    rec_cb_##h##6, rec_cb_##h##7, rec_cb_##h##8, rec_cb_##h##9, rec_cb_##h##a,             \
	    rec_cb_##h##b, rec_cb_##h##c, rec_cb_##h##d, rec_cb_##h##e, rec_cb_##h##f

REC_THUNK16(0x0)
REC_THUNK16(0x1)
REC_THUNK16(0x2)
REC_THUNK16(0x3)
REC_THUNK16(0x4)
REC_THUNK16(0x5)
REC_THUNK16(0x6)
REC_THUNK16(0x7)
REC_THUNK16(0x8)
REC_THUNK16(0x9)
REC_THUNK16(0xa)
REC_THUNK16(0xb)
REC_THUNK16(0xc)
REC_THUNK16(0xd)
REC_THUNK16(0xe)
REC_THUNK16(0xf)

static const xpti_tracepoint_callback_api_t rec_thunks[256] = {
    REC_NAME16(0x0), REC_NAME16(0x1), REC_NAME16(0x2), REC_NAME16(0x3),
    REC_NAME16(0x4), REC_NAME16(0x5), REC_NAME16(0x6), REC_NAME16(0x7),
    REC_NAME16(0x8), REC_NAME16(0x9), REC_NAME16(0xa), REC_NAME16(0xb),
    REC_NAME16(0xc), REC_NAME16(0xd), REC_NAME16(0xe), REC_NAME16(0xf),
};

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major, unsigned int minor,
				     const char *version_str, const char *stream_name)
{
	xpti_tracepoint_callback_api_t cb;
	struct ht_arg a[5];
	char *interned = NULL;
	uint8_t sid;

	if (!HT_ENABLED() || !stream_name || !stream_name[0])
		return;
	sid = xptiRegisterStream(stream_name);
	if (sid == 0 || sid == XPTI_INVALID_STREAM_ID)
		return;
	xptiRegisterString(stream_name, &interned);
	if (!interned)
		return;
	__atomic_store_n(&rec_streams[sid].name, interned, __ATOMIC_RELEASE);
	cb = rec_thunks[sid];
	for (uint16_t tt = 0; tt < 128; tt++)
		if (rec_types[tt].kind != REC_NONE)
			xptiRegisterCallback(sid, tt, cb);
	for (uint16_t v = 1; v <= HT_XPTI_REC_VENDORS; v++)
		for (uint16_t u = 0; u < 128; u++)
			xptiRegisterCallback(sid, XPTI_VENDOR_DEFINED_TRACE_TYPE16(v, u), cb);
	a[0] = ht_arg_string("stream", interned);
	a[1] = ht_arg_uint("id", sid);
	a[2] = ht_arg_uint("major", major);
	a[3] = ht_arg_uint("minor", minor);
	a[4] = ht_arg_string("version", version_str ? version_str : "");
	ht_instant_id(ht_string_id("xpti.stream"), a, 5);
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name)
{
	/* Nothing to flush: every notification was written when it happened. */
	(void)stream_name;
}
