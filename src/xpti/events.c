/*
 * Payloads and trace-point events (G2 model): one event per distinct payload, identified by
 * an exact key (interned name, file and stack-trace ids, line, column; the code pointer only
 * when there is neither name nor file), so two different payloads can never share an id.
 * unique_id is a dense sequence number, so xptiFindEvent is an array index. Events live in
 * pool chunks that never move; each visit (xptiMakeEvent) bumps the event's instance counter
 * atomically. Lookups are lock-free; only the creation of a new event takes the table mutex.
 */
#include <string.h>

#include "index.h"

#define HT_XPTI_MAX_EVENTS (HT_XPTI_MAX_CHUNKS * HT_XPTI_CHUNK_SIZE)

struct ht_xpti_key {
	uint32_t name, file, stack, line, col, pad;
	uint64_t code;
};

struct ht_xpti_event {
	xpti_trace_event_data_t ev; /* first: the public part */
	xpti_payload_t payload;	    /* the registered copy, with interned strings */
	struct ht_xpti_key key;
	uint64_t hash;
	struct xpti_metadata md;
};

static struct {
	pthread_mutex_t lock; /* creators only */
	_Atomic uint32_t count;
	_Atomic(struct ht_xpti_index *) index;
	_Atomic(struct ht_xpti_event *) chunk[HT_XPTI_MAX_CHUNKS];
} ht_xpti_events = {.lock = PTHREAD_MUTEX_INITIALIZER};

static _Atomic uint64_t ht_xpti_next_unique_id = 1;

/* Return: the event with unique_id `uid`, NULL if none. Lock-free. */
static struct ht_xpti_event *ht_xpti_event_get(uint64_t uid)
{
	struct ht_xpti_event *chunk;
	uint64_t idx = uid - 1;

	if (uid == 0 || idx >= atomic_load_explicit(&ht_xpti_events.count, memory_order_acquire))
		return NULL;
	chunk = atomic_load_explicit(&ht_xpti_events.chunk[idx >> HT_XPTI_CHUNK_SHIFT],
				     memory_order_acquire);
	return &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
}

static uint64_t ht_xpti_key_hash(const struct ht_xpti_key *k)
{
	uint64_t h = ht_xpti_mix64(((uint64_t)k->name << 32) ^ k->file ^ 0x9e3779b97f4a7c15ULL);

	h = ht_xpti_mix64(h ^ (((uint64_t)k->stack << 32) | k->line));
	h = ht_xpti_mix64(h ^ k->col ^ ((uint64_t)k->col << 40));
	return ht_xpti_mix64(h ^ k->code);
}

static bool ht_xpti_key_eq(const void *ctx, uint32_t idx)
{
	const struct ht_xpti_event *e = ht_xpti_event_get((uint64_t)idx + 1);

	return e && memcmp(&e->key, ctx, sizeof(e->key)) == 0;
}

static struct ht_xpti_event *ht_xpti_event_lookup(const struct ht_xpti_key *k, uint64_t hash)
{
	struct ht_xpti_index *ix =
	    atomic_load_explicit(&ht_xpti_events.index, memory_order_acquire);
	uint32_t found = ht_xpti_index_find(ix, hash, ht_xpti_key_eq, k);

	return found ? ht_xpti_event_get(found) : NULL;
}

/* The interned strings of a payload, as its key refers to them. */
struct ht_xpti_names {
	const char *name, *file, *stack;
};

/* Return: 0, or -1 for a payload with nothing to identify it (or out of memory). */
static int ht_xpti_key_make(const xpti_payload_t *p, struct ht_xpti_key *k, struct ht_xpti_names *n)
{
	memset(k, 0, sizeof(*k));
	memset(n, 0, sizeof(*n));
	if ((p->flags & XPTI_PAYLOAD_NAME_AVAILABLE) && p->name && p->name[0]) {
		k->name = ht_xpti_string_add(p->name, &n->name);
		if (k->name == XPTI_INVALID_ID)
			return -1;
	}
	if ((p->flags & XPTI_PAYLOAD_SOURCE_FILE_AVAILABLE) && p->source_file &&
	    p->source_file[0]) {
		k->file = ht_xpti_string_add(p->source_file, &n->file);
		if (k->file == XPTI_INVALID_ID)
			return -1;
	}
	if ((p->flags & XPTI_PAYLOAD_STACK_TRACE_AVAILABLE) && p->stack_trace &&
	    p->stack_trace[0]) {
		k->stack = ht_xpti_string_add(p->stack_trace, &n->stack);
		if (k->stack == XPTI_INVALID_ID)
			return -1;
	}
	if (p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE)
		k->line = p->line_no;
	if (p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE)
		k->col = p->column_no;
	/* The code pointer only identifies a payload that has no name and no file: the same
	 * source location reached through different lambdas is one trace point. */
	if (!k->name && !k->file && (p->flags & XPTI_PAYLOAD_CODE_POINTER_AVAILABLE))
		k->code = (uint64_t)(uintptr_t)p->code_ptr_va;
	if (!k->name && !k->file && !k->stack && !k->code)
		return -1;
	return 0;
}

static void ht_xpti_uid_fill(xpti_uid_t *uid, const struct ht_xpti_key *k, const xpti_payload_t *p)
{
	uid->p1 = ((uint64_t)k->file << 32) | k->line;
	uid->p2 = ((uint64_t)k->stack << 32) | k->name;
	uid->p3 = (p->flags & XPTI_PAYLOAD_CODE_POINTER_AVAILABLE) ? (uintptr_t)p->code_ptr_va : 0;
}

/* Creator (table mutex held): a new event for key `k`. */
static struct ht_xpti_event *ht_xpti_event_create(const struct ht_xpti_key *k, uint64_t hash,
						  const xpti_payload_t *p,
						  const struct ht_xpti_names *n,
						  uint16_t event_type, uint16_t activity)
{
	uint32_t idx = atomic_load_explicit(&ht_xpti_events.count, memory_order_relaxed);
	struct ht_xpti_index *ix =
	    atomic_load_explicit(&ht_xpti_events.index, memory_order_relaxed);
	struct ht_xpti_event *chunk, *e;

	if (idx >= HT_XPTI_MAX_EVENTS)
		return NULL;
	if (ht_xpti_index_full(ix)) {
		struct ht_xpti_index *nix = ht_xpti_index_create(ix ? (ix->mask + 1) * 2 : 4096);

		if (!nix)
			return NULL;
		for (uint32_t i = 0; i < idx; i++)
			ht_xpti_index_put(nix, ht_xpti_event_get((uint64_t)i + 1)->hash, i);
		atomic_store_explicit(&ht_xpti_events.index, nix, memory_order_release);
		ix = nix;
	}
	chunk = atomic_load_explicit(&ht_xpti_events.chunk[idx >> HT_XPTI_CHUNK_SHIFT],
				     memory_order_relaxed);
	if (!chunk) {
		chunk = ht_xpti_pool_alloc(HT_XPTI_CHUNK_SIZE * sizeof(*chunk));
		if (!chunk)
			return NULL;
		atomic_store_explicit(&ht_xpti_events.chunk[idx >> HT_XPTI_CHUNK_SHIFT], chunk,
				      memory_order_release);
	}
	e = &chunk[idx & (HT_XPTI_CHUNK_SIZE - 1)];
	e->key = *k;
	e->hash = hash;
	e->payload = *p;
	e->payload.name = n->name;
	e->payload.source_file = n->file;
	e->payload.stack_trace = n->stack;
	e->payload.internal = (uint64_t)idx + 1;
	e->payload.flags |= XPTI_PAYLOAD_HASH_AVAILABLE | XPTI_PAYLOAD_REGISTERED;
	ht_xpti_uid_fill(&e->payload.uid, k, p);
	e->ev.unique_id = (uint64_t)idx + 1;
	e->ev.event_type = event_type;
	e->ev.activity_type = activity;
	e->ev.reserved.payload = &e->payload;
	e->ev.reserved.metadata = &e->md;
	e->ev.flags = XPTI_EVENT_FLAG_UID_AVAILABLE | XPTI_EVENT_FLAG_PAYLOAD_AVAILABLE;
	atomic_flag_clear(&e->md.busy);
	atomic_store_explicit(&ht_xpti_events.count, idx + 1, memory_order_release);
	ht_xpti_index_put(ix, hash, idx);
	return e;
}

/* The event of a payload, created on first sight. */
static struct ht_xpti_event *ht_xpti_event_of(const xpti_payload_t *p, struct ht_xpti_key *k,
					      struct ht_xpti_names *n, uint16_t event_type,
					      uint16_t activity)
{
	struct ht_xpti_event *e;
	uint64_t hash;

	if (ht_xpti_key_make(p, k, n))
		return NULL;
	hash = ht_xpti_key_hash(k);
	e = ht_xpti_event_lookup(k, hash);
	if (e)
		return e;
	pthread_mutex_lock(&ht_xpti_events.lock);
	e = ht_xpti_event_lookup(k, hash);
	if (!e)
		e = ht_xpti_event_create(k, hash, p, n, event_type, activity);
	pthread_mutex_unlock(&ht_xpti_events.lock);
	return e;
}

/*
 * Fast path for a payload that went through xptiRegisterPayload: `internal` is its unique_id.
 * Checked against the stored copy so a reused or edited payload struct falls back to a lookup.
 */
static struct ht_xpti_event *ht_xpti_event_of_registered(const xpti_payload_t *p)
{
	struct ht_xpti_event *e;

	if (!(p->flags & XPTI_PAYLOAD_HASH_AVAILABLE))
		return NULL;
	e = ht_xpti_event_get(p->internal);
	if (!e || e->payload.name != p->name || e->payload.source_file != p->source_file ||
	    e->payload.stack_trace != p->stack_trace)
		return NULL;
	if ((p->flags & XPTI_PAYLOAD_LINE_INFO_AVAILABLE) && e->key.line != p->line_no)
		return NULL;
	if ((p->flags & XPTI_PAYLOAD_COLUMN_INFO_AVAILABLE) && e->key.col != p->column_no)
		return NULL;
	if (e->key.code && e->key.code != (uint64_t)(uintptr_t)p->code_ptr_va)
		return NULL;
	return e;
}

XPTI_EXPORT_API uint64_t xptiRegisterPayload(xpti_payload_t *payload)
{
	struct ht_xpti_names n;
	struct ht_xpti_key k;
	struct ht_xpti_event *e;

	if (!payload || !payload->flags || !ht_xpti_live())
		return XPTI_INVALID_UID;
	e = ht_xpti_event_of_registered(payload);
	if (e)
		return e->ev.unique_id;
	e = ht_xpti_event_of(payload, &k, &n, XPTI_EVENT_UNKNOWN, XPTI_ACTIVITY_UNKNOWN);
	if (!e)
		return XPTI_INVALID_UID;
	if (n.name)
		payload->name = n.name;
	if (n.file)
		payload->source_file = n.file;
	if (n.stack)
		payload->stack_trace = n.stack;
	ht_xpti_uid_fill(&payload->uid, &k, payload);
	payload->internal = e->ev.unique_id;
	payload->flags |= XPTI_PAYLOAD_HASH_AVAILABLE | XPTI_PAYLOAD_REGISTERED;
	return e->ev.unique_id;
}

/* Set a type that was unknown when the event was created (first caller wins). */
static void ht_xpti_set_if_unknown(uint16_t *field, uint16_t value)
{
	uint16_t expected = 0;

	if (value && __atomic_load_n(field, __ATOMIC_RELAXED) == 0)
		__atomic_compare_exchange_n(field, &expected, value, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
}

XPTI_EXPORT_API xpti_trace_event_data_t *xptiMakeEvent(const char *name, xpti_payload_t *payload,
						       uint16_t event_type,
						       xpti_trace_activity_type_t activity,
						       uint64_t *instance_no)
{
	struct ht_xpti_names n;
	struct ht_xpti_key k;
	struct ht_xpti_event *e;

	(void)name; /* upstream ignores it too: the payload names the event */
	if (!payload || !instance_no || !payload->flags || !ht_xpti_live())
		return NULL;
	e = ht_xpti_event_of_registered(payload);
	if (!e)
		e = ht_xpti_event_of(payload, &k, &n, event_type, (uint16_t)activity);
	if (!e)
		return NULL;
	ht_xpti_set_if_unknown(&e->ev.event_type, event_type);
	ht_xpti_set_if_unknown(&e->ev.activity_type, (uint16_t)activity);
	*instance_no = __atomic_add_fetch(&e->ev.instance_id, 1, __ATOMIC_RELAXED);
	return &e->ev;
}

XPTI_EXPORT_API const xpti_trace_event_data_t *xptiFindEvent(uint64_t uid)
{
	struct ht_xpti_event *e;

	if (!ht_xpti_live())
		return NULL;
	e = ht_xpti_event_get(uid);
	return e ? &e->ev : NULL;
}

XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayload(xpti_trace_event_data_t *event)
{
	if (!event || event->unique_id == XPTI_INVALID_UID || !ht_xpti_live())
		return NULL;
	return event->reserved.payload;
}

XPTI_EXPORT_API const xpti_payload_t *xptiQueryPayloadByUID(uint64_t uid)
{
	struct ht_xpti_event *e;

	if (!ht_xpti_live())
		return NULL;
	e = ht_xpti_event_get(uid);
	return e ? &e->payload : NULL;
}

XPTI_EXPORT_API void xptiReleaseEvent(xpti_trace_event_data_t *event)
{
	(void)event;
}

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

void ht_xpti_events_reset(void)
{
	uint32_t n = atomic_load_explicit(&ht_xpti_events.count, memory_order_relaxed);

	for (uint32_t i = 0; i < n; i++)
		ht_xpti_metadata_release(&ht_xpti_event_get((uint64_t)i + 1)->md);
	for (uint32_t c = 0; c <= (n >> HT_XPTI_CHUNK_SHIFT) && c < HT_XPTI_MAX_CHUNKS; c++)
		atomic_store_explicit(&ht_xpti_events.chunk[c], NULL, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_events.count, 0, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_events.index, NULL, memory_order_relaxed);
	atomic_store_explicit(&ht_xpti_next_unique_id, 1, memory_order_relaxed);
}
