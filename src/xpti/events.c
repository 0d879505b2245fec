/*
 * Instances of trace points: what xptiMakeEvent, xptiRegisterPayload and xptiCreateTracepoint
 * return. As in Intel's framework each call makes a new instance with its own event, unique
 * id, instance number (the trace point's visit count) and metadata table, and the instance
 * lives until it is released (xptiReleaseEvent, xptiDeleteTracepoint). Unlike upstream, the
 * instances of a trace point share its registered payload (event.reserved.payload, read-only
 * to users) instead of copying it: an instance is then 3 cache lines, not 5, and writing fresh
 * lines is what a never-released xptiMakeEvent costs (measured here, a VM where the first write
 * to a page traps: ~1,100 -> ~900 ns per call; ~130 ns when released slots are reused).
 *
 * Instances live in slots of chunks that are never moved or unmapped, so a stale pointer never
 * faults. A unique id is (slot generation << 32) | (slot + 1): finding an event is an array
 * index plus a comparison, against a dense per-chunk array of slot states, that rejects
 * released and reused slots. Released slots go to a lock-free free list (a tagged Treiber
 * stack), so instrumentation that creates and deletes a trace point per call (upstream's
 * tracepoint_scope_t) reuses the same few slots. Chunks come from the heap, so leak checkers
 * see the metadata tables the slots point to; prefaulting them (MAP_POPULATE) did not help
 * here: the first user write to each page still trapped into the hypervisor.
 *
 * HETRACE_XPTI_EVENTS=shared makes xptiMakeEvent and xptiRegisterPayload return one event per
 * trace point instead (its instance_id the latest visit), which keeps memory bounded for
 * instrumentation that never releases what it makes.
 */
#include <stdlib.h>
#include <string.h>

#include "xpti_internal.h"

#define HT_XPTI_INST_SHIFT 10
#define HT_XPTI_INST_CHUNK (1u << HT_XPTI_INST_SHIFT)
#define HT_XPTI_MAX_INSTS  ((uint32_t)HT_XPTI_MAX_CHUNKS << HT_XPTI_INST_SHIFT)

struct ht_xpti_inst {
	unsigned char iface[HT_XPTI_IFACE_SIZE]; /* first: the C++ interface object */
	xpti_trace_event_data_t ev;
	struct ht_xpti_point *point;
	uint32_t idx;	    /* the slot */
	uint32_t md_cursor; /* xpti_metadata_t iteration */
} __attribute__((aligned(64)));

/* What taking, releasing and finding a slot touch, kept apart from the slots (dense: finding
 * an event by id reads 16 bytes, cache-resident for 10,000s of events). */
struct ht_xpti_slot_state {
	_Atomic uint64_t uid;	    /* the unique id while live, 0 while free */
	_Atomic uint32_t next_free; /* free list: the next free slot + 1 */
	uint32_t gen;		    /* times the slot was taken again */
};

struct ht_xpti_chunk {
	struct ht_xpti_slot_state state[HT_XPTI_INST_CHUNK];
	struct ht_xpti_inst inst[HT_XPTI_INST_CHUNK];
};

static struct {
	_Atomic uint64_t free_head; /* (tag << 32) | (slot + 1); 0 = empty */
	_Atomic uint32_t used;	    /* slots handed out at least once */
	pthread_mutex_t grow_lock;  /* mapping a new chunk */
	_Atomic(struct ht_xpti_chunk *) chunk[HT_XPTI_MAX_CHUNKS];
} ht_xpti_insts = {.grow_lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic uint64_t ht_xpti_next_unique_id = 1;
static __thread const xpti_tracepoint_t *ht_xpti_scope_tp;
static _Atomic bool ht_xpti_scope_notify;

static struct ht_xpti_chunk *ht_xpti_chunk_of(uint32_t idx)
{
	return atomic_load_explicit(&ht_xpti_insts.chunk[idx >> HT_XPTI_INST_SHIFT],
				    memory_order_acquire);
}

/* The state of slot `idx` (its chunk exists). */
static struct ht_xpti_slot_state *ht_xpti_slot_of(uint32_t idx)
{
	return &ht_xpti_chunk_of(idx)->state[idx & (HT_XPTI_INST_CHUNK - 1)];
}

/* Return: the live instance with unique id `uid`, NULL if none. Lock-free. */
static struct ht_xpti_inst *ht_xpti_inst_find(uint64_t uid)
{
	uint32_t idx = (uint32_t)uid - 1, i = idx & (HT_XPTI_INST_CHUNK - 1);
	struct ht_xpti_chunk *chunk;

	if ((uint32_t)uid == 0 ||
	    idx >= atomic_load_explicit(&ht_xpti_insts.used, memory_order_acquire))
		return NULL;
	chunk = ht_xpti_chunk_of(idx);
	if (!chunk || atomic_load_explicit(&chunk->state[i].uid, memory_order_acquire) != uid)
		return NULL;
	return &chunk->inst[i];
}

/* The unique id of a live instance, 0 for a free slot. */
static uint64_t ht_xpti_inst_uid(const struct ht_xpti_inst *in)
{
	return atomic_load_explicit(&ht_xpti_slot_of(in->idx)->uid, memory_order_acquire);
}

/* Allocate chunk `c` and build the interface objects of its slots. */
static struct ht_xpti_chunk *ht_xpti_chunk_map(uint32_t c)
{
	struct ht_xpti_chunk *chunk;

	pthread_mutex_lock(&ht_xpti_insts.grow_lock);
	chunk = atomic_load_explicit(&ht_xpti_insts.chunk[c], memory_order_relaxed);
	if (!chunk) {
		chunk = aligned_alloc(64, sizeof(*chunk));
		if (chunk) {
			memset(chunk->state, 0, sizeof(chunk->state));
			for (uint32_t i = 0; i < HT_XPTI_INST_CHUNK; i++) {
				ht_xpti_iface_init(&chunk->inst[i]);
				chunk->inst[i].idx = c << HT_XPTI_INST_SHIFT | i;
			}
			atomic_store_explicit(&ht_xpti_insts.chunk[c], chunk, memory_order_release);
		}
	}
	pthread_mutex_unlock(&ht_xpti_insts.grow_lock);
	return chunk;
}

/* Take a free slot (reused first). Return: the slot, NULL when there is none. */
static struct ht_xpti_inst *ht_xpti_slot_take(void)
{
	uint64_t head = atomic_load_explicit(&ht_xpti_insts.free_head, memory_order_acquire);
	struct ht_xpti_chunk *chunk;
	uint32_t i;

	while ((uint32_t)head) {
		struct ht_xpti_slot_state *st = ht_xpti_slot_of((uint32_t)head - 1);
		uint64_t next = ((head >> 32) + 1) << 32 |
				atomic_load_explicit(&st->next_free, memory_order_relaxed);

		if (atomic_compare_exchange_weak_explicit(&ht_xpti_insts.free_head, &head, next,
							  memory_order_acquire,
							  memory_order_acquire)) {
			st->gen++;
			return &ht_xpti_chunk_of((uint32_t)head - 1)
				    ->inst[((uint32_t)head - 1) & (HT_XPTI_INST_CHUNK - 1)];
		}
	}
	if (atomic_load_explicit(&ht_xpti_insts.used, memory_order_relaxed) >= HT_XPTI_MAX_INSTS)
		return NULL;
	i = atomic_fetch_add_explicit(&ht_xpti_insts.used, 1, memory_order_acq_rel);
	if (i >= HT_XPTI_MAX_INSTS)
		return NULL;
	chunk = ht_xpti_chunk_of(i);
	if (!chunk && !(chunk = ht_xpti_chunk_map(i >> HT_XPTI_INST_SHIFT)))
		return NULL;
	chunk->state[i & (HT_XPTI_INST_CHUNK - 1)].gen = 0;
	return &chunk->inst[i & (HT_XPTI_INST_CHUNK - 1)];
}

static void ht_xpti_slot_put(uint32_t idx)
{
	struct ht_xpti_slot_state *st = ht_xpti_slot_of(idx);
	uint64_t head = atomic_load_explicit(&ht_xpti_insts.free_head, memory_order_relaxed);

	do
		atomic_store_explicit(&st->next_free, (uint32_t)head, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&ht_xpti_insts.free_head, &head,
						      ((head >> 32) + 1) << 32 | (idx + 1),
						      memory_order_release, memory_order_relaxed));
}

/* True for the one event of a point in HETRACE_XPTI_EVENTS=shared mode. */
static bool ht_xpti_inst_shared(struct ht_xpti_inst *in)
{
	return atomic_load_explicit(&in->point->shared, memory_order_acquire) == in;
}

/* A new instance of `pt` with visit number `instance`. Return: NULL when out of slots. */
static struct ht_xpti_inst *ht_xpti_inst_new(struct ht_xpti_point *pt, uint64_t instance,
					     uint16_t event_type, uint16_t activity)
{
	struct ht_xpti_inst *in = ht_xpti_slot_take();
	struct ht_xpti_slot_state *st;
	xpti_trace_event_data_t *ev;
	uint64_t uid;

	if (!in)
		return NULL;
	st = ht_xpti_slot_of(in->idx);
	uid = (uint64_t)st->gen << 32 | (in->idx + 1);
	in->point = pt;
	in->md_cursor = 0;
	ev = &in->ev;
	ev->unique_id = uid;
	ev->data_id = instance;
	ev->instance_id = instance;
	ev->event_type = event_type;
	ev->activity_type = activity;
	ev->unused = 0;
	ev->source_id = 0;
	ev->target_id = 0;
	ev->reserved.payload = &pt->payload;
	ht_xpti_md_init(ev);
	ev->global_user_data = NULL;
	ev->flags = XPTI_EVENT_FLAG_UID_AVAILABLE | XPTI_EVENT_FLAG_EVENT_TYPE_AVAILABLE |
		    XPTI_EVENT_FLAG_ACTIVITY_TYPE_AVAILABLE | XPTI_EVENT_FLAG_PAYLOAD_AVAILABLE;
	atomic_store_explicit(&st->uid, uid, memory_order_release);
	return in;
}

/* Release a live instance once (a second release, or a racing one, does nothing). */
static void ht_xpti_inst_release(struct ht_xpti_inst *in)
{
	struct ht_xpti_slot_state *st = ht_xpti_slot_of(in->idx);
	uint64_t uid = atomic_load_explicit(&st->uid, memory_order_acquire);

	if (!uid || !atomic_compare_exchange_strong(&st->uid, &uid, 0))
		return;
	ht_xpti_md_fini(&in->ev);
	ht_xpti_slot_put(in->idx);
}

/* A visit of `pt`: a new instance, or the point's one event in shared mode. */
static struct ht_xpti_inst *ht_xpti_visit(struct ht_xpti_point *pt, uint16_t event_type,
					  uint16_t activity, uint64_t *instance_no)
{
	uint64_t instance = atomic_fetch_add_explicit(&pt->visits, 1, memory_order_relaxed) + 1;
	struct ht_xpti_inst *in, *fresh, *none = NULL;

	*instance_no = instance;
	if (!ht_xpti_shared_events)
		return ht_xpti_inst_new(pt, instance, event_type, activity);
	in = atomic_load_explicit(&pt->shared, memory_order_acquire);
	if (!in) {
		fresh = ht_xpti_inst_new(pt, instance, event_type, activity);
		if (!fresh)
			return NULL;
		if (atomic_compare_exchange_strong(&pt->shared, &none, fresh))
			return fresh;
		ht_xpti_inst_release(fresh);
		in = none;
	}
	/* Racy by nature, as upstream's: callbacks must use their `instance` argument. */
	__atomic_store_n(&in->ev.instance_id, instance, __ATOMIC_RELAXED);
	__atomic_store_n(&in->ev.data_id, instance, __ATOMIC_RELAXED);
	return in;
}

/*
 * Fast path for a payload that went through xptiRegisterPayload: `internal` is the unique id
 * of its instance, which leads to the trace point. Checked against the point's interned copy,
 * so a reused or edited payload struct (or a released instance) falls back to a lookup.
 */
static struct ht_xpti_point *ht_xpti_point_of_registered(const xpti_payload_t *p)
{
	struct ht_xpti_inst *in;
	struct ht_xpti_point *pt;

	if (!(p->flags & XPTI_PAYLOAD_HASH_AVAILABLE) || !(in = ht_xpti_inst_find(p->internal)))
		return NULL;
	pt = in->point;
	if (pt->payload.name != p->name || pt->payload.source_file != p->source_file ||
	    pt->payload.stack_trace != p->stack_trace)
		return NULL;
	if ((p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE) && pt->key.line != p->line_no)
		return NULL;
	if ((p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE) && pt->key.col != p->column_no)
		return NULL;
	if (pt->key.code && pt->key.code != (uint64_t)(uintptr_t)p->code_ptr_va)
		return NULL;
	return pt;
}

static struct ht_xpti_point *ht_xpti_point_of(const xpti_payload_t *p)
{
	struct ht_xpti_point *pt = ht_xpti_point_of_registered(p);

	return pt ? pt : ht_xpti_point_get(p);
}

XPTI_EXPORT_API uint64_t xptiRegisterPayload(xpti_payload_t *payload)
{
	struct ht_xpti_point *pt;
	struct ht_xpti_inst *in;
	uint64_t instance;

	if (!payload || !payload->flags || !ht_xpti_live())
		return XPTI_INVALID_UID;
	pt = ht_xpti_point_of(payload);
	in = pt ? ht_xpti_visit(pt, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &instance) : NULL;
	if (!in)
		return XPTI_INVALID_UID;
	if (pt->payload.name)
		payload->name = pt->payload.name;
	if (pt->payload.source_file)
		payload->source_file = pt->payload.source_file;
	if (pt->payload.stack_trace)
		payload->stack_trace = pt->payload.stack_trace;
	payload->uid = pt->payload.uid;
	payload->internal = in->ev.unique_id;
	payload->flags |= XPTI_PAYLOAD_HASH_AVAILABLE | XPTI_PAYLOAD_REGISTERED;
	return in->ev.unique_id;
}

XPTI_EXPORT_API xpti_trace_event_data_t *xptiMakeEvent(const char *name, xpti_payload_t *payload,
						       uint16_t event_type,
						       xpti_trace_activity_type_t activity,
						       uint64_t *instance_no)
{
	struct ht_xpti_point *pt;
	struct ht_xpti_inst *in;

	(void)name; /* upstream ignores it too: the payload names the event */
	if (!payload || !instance_no || !payload->flags || !ht_xpti_live())
		return NULL;
	pt = ht_xpti_point_of(payload);
	in = pt ? ht_xpti_visit(pt, event_type, (uint16_t)activity, instance_no) : NULL;
	return in ? &in->ev : NULL;
}

/* ht_xpti_inst_find for the API: NULL once the framework is finalized. */
static struct ht_xpti_inst *ht_xpti_inst_lookup(uint64_t uid)
{
	return ht_xpti_live() ? ht_xpti_inst_find(uid) : NULL;
}

XPTI_EXPORT_API const xpti_trace_event_data_t *xptiFindEvent(uint64_t uid)
{
	struct ht_xpti_inst *in = ht_xpti_inst_lookup(uid);

	return in ? &in->ev : NULL;
}

XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayload(xpti_trace_event_data_t *event)
{
	if (!event || event->unique_id == XPTI_INVALID_UID || !ht_xpti_live())
		return NULL;
	return event->reserved.payload;
}

XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayloadByUID(uint64_t uid)
{
	struct ht_xpti_inst *in = ht_xpti_inst_lookup(uid);

	return in ? &in->point->payload : NULL;
}

XPTI_EXPORT_API const xpti_payload_iface_t *xptiLookupPayload(uint64_t uid)
{
	struct ht_xpti_inst *in = ht_xpti_inst_lookup(uid);

	return in ? ht_xpti_iface_payload(in) : NULL;
}

XPTI_EXPORT_API const xpti_trace_event_t *xptiLookupEvent(uint64_t uid)
{
	struct ht_xpti_inst *in = ht_xpti_inst_lookup(uid);

	return in ? ht_xpti_iface_event(in) : NULL;
}

XPTI_EXPORT_API void xptiReleaseEvent(xpti_trace_event_data_t *event)
{
	struct ht_xpti_inst *in = event ? ht_xpti_inst_lookup(event->unique_id) : NULL;

	if (in && &in->ev == event && !ht_xpti_inst_shared(in))
		ht_xpti_inst_release(in);
}

/* ---- trace points (Intel's tracepoint interface) ---- */

static xpti_tracepoint_t *ht_xpti_tracepoint_new(const char *func, const char *file, uint32_t line,
						 uint32_t col, void *code_ptr)
{
	struct ht_xpti_point *pt;
	struct ht_xpti_inst *in;
	xpti_payload_t p;
	uint64_t instance;

	if (!ht_xpti_live())
		return NULL;
	xpti_payload_init_source(&p, func, file, line, col, code_ptr);
	if (!(p.flags & (XPTI_PAYLOAD_NAME_AVAILABLE | XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE)))
		xpti_payload_init_source(&p, "unknown", "unknown-file", 0, 0, NULL);
	pt = ht_xpti_point_get(&p);
	if (!pt)
		return NULL;
	instance = atomic_fetch_add_explicit(&pt->visits, 1, memory_order_relaxed) + 1;
	in = ht_xpti_inst_new(pt, instance, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE);
	return in ? ht_xpti_iface_tracepoint(in) : NULL;
}

XPTI_EXPORT_API xpti_tracepoint_t *xptiCreateTracepoint(const char *func_name,
							const char *file_name, uint32_t line_no,
							uint32_t column_no, void *code_ptr_va)
{
	return ht_xpti_tracepoint_new(func_name, file_name, line_no, column_no, code_ptr_va);
}

XPTI_EXPORT_API const xpti_tracepoint_t *
xptiRegisterTracepointScope(const char *func_name, const char *file_name, uint32_t line_no,
			    uint32_t column_no, void *code_ptr_va)
{
	return ht_xpti_tracepoint_new(func_name, file_name, line_no, column_no, code_ptr_va);
}

/* Return: the live instance behind a trace point interface, NULL for anything else. */
static struct ht_xpti_inst *ht_xpti_inst_of_tracepoint(xpti_tracepoint_t *tp)
{
	struct ht_xpti_inst *in = tp ? ht_xpti_iface_inst(tp) : NULL;

	if (!in || ht_xpti_inst_lookup(ht_xpti_inst_uid(in)) != in)
		return NULL;
	return in;
}

XPTI_EXPORT_API xpti_result_t xptiDeleteTracepoint(xpti_tracepoint_t *tp)
{
	struct ht_xpti_inst *in = ht_xpti_inst_of_tracepoint(tp);

	if (!in || ht_xpti_inst_shared(in))
		return XPTI_RESULT_INVALIDARG;
	if (ht_xpti_scope_tp == tp)
		ht_xpti_scope_tp = NULL;
	ht_xpti_inst_release(in);
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_result_t xptiGetTracepointData(xpti_tracepoint_t *tp,
						    xpti_tracepoint_data_t *data)
{
	struct ht_xpti_inst *in = ht_xpti_inst_of_tracepoint(tp);

	if (!in || !data)
		return XPTI_RESULT_INVALIDARG;
	data->uid128 = ht_xpti_inst_uid128(in);
	data->payload = &in->point->payload;
	data->event = &in->ev;
	data->uid64 = in->ev.unique_id;
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API const xpti_tracepoint_t *xptiGetTracepointScopeData(void)
{
	return ht_xpti_scope_tp;
}

XPTI_EXPORT_API xpti_result_t xptiSetTracepointScopeData(xpti_tracepoint_t *tp)
{
	struct ht_xpti_inst *in = ht_xpti_inst_of_tracepoint(tp);

	if (!tp)
		return XPTI_RESULT_INVALIDARG;
	ht_xpti_scope_tp = tp;
	xptiSetUniversalId(in ? in->ev.unique_id : XPTI_INVALID_UID);
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API void xptiUnsetTracepointScopeData(void)
{
	ht_xpti_scope_tp = NULL;
	xptiSetUniversalId(XPTI_INVALID_UID);
}

XPTI_EXPORT_API void xptiEnableTracepointScopeNotification(bool yes)
{
	atomic_store_explicit(&ht_xpti_scope_notify, yes, memory_order_relaxed);
}

XPTI_EXPORT_API bool xptiCheckTracepointScopeNotification(void)
{
	return atomic_load_explicit(&ht_xpti_scope_notify, memory_order_relaxed);
}

/* ---- the instance, as the C++ units see it ---- */

xpti_trace_event_data_t *ht_xpti_inst_event(struct ht_xpti_inst *in)
{
	return &in->ev;
}

xpti_payload_t *ht_xpti_inst_payload(struct ht_xpti_inst *in)
{
	return &in->point->payload;
}

xpti_uid128_t ht_xpti_inst_uid128(struct ht_xpti_inst *in)
{
	const struct ht_xpti_key *k = &in->point->key;
	xpti_uid128_t u;

	u.p1 = (uint64_t)k->file << 32 | k->name;
	u.p2 = (uint64_t)k->col << 32 | k->line;
	u.instance = __atomic_load_n(&in->ev.instance_id, __ATOMIC_RELAXED);
	u.uid64 = in->ev.unique_id;
	return u;
}

uint32_t *ht_xpti_inst_cursor(struct ht_xpti_inst *in)
{
	return &in->md_cursor;
}

/* ---- ids ---- */

XPTI_EXPORT_API uint64_t xptiGetUniqueId(void)
{
	return atomic_fetch_add_explicit(&ht_xpti_next_unique_id, 1, memory_order_relaxed);
}

XPTI_EXPORT_API uint64_t xptiReserveUniqueId(uint64_t count)
{
	if (count == 0)
		return 0;
	return atomic_fetch_add_explicit(&ht_xpti_next_unique_id, count, memory_order_relaxed);
}

/* Forget every instance. The chunks stay mapped (and prefaulted) for the instances to come. */
void ht_xpti_events_reset(void)
{
	uint32_t n = atomic_load_explicit(&ht_xpti_insts.used, memory_order_relaxed);

	for (uint32_t i = 0; i < n && i < HT_XPTI_MAX_INSTS; i++) {
		struct ht_xpti_chunk *chunk = ht_xpti_chunk_of(i);
		uint32_t k = i & (HT_XPTI_INST_CHUNK - 1);

		if (chunk && atomic_load_explicit(&chunk->state[k].uid, memory_order_relaxed)) {
			ht_xpti_md_fini(&chunk->inst[k].ev);
			atomic_store_explicit(&chunk->state[k].uid, 0, memory_order_relaxed);
		}
	}
	atomic_store_explicit(&ht_xpti_insts.used, 0, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_insts.free_head, 0, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_next_unique_id, 1, memory_order_relaxed);
	ht_xpti_scope_tp = NULL;
}
