/*
 * The callback registry and notification path. Readers see, per (stream, trace type), an
 * immutable vector of the active callbacks in registration order; writers (subscriber setup,
 * rare) keep the full registration list under a mutex, rebuild the affected vector and publish
 * it with a release store. The old vector stays in the pool, so a notification that loaded it
 * can finish calling it. Notification therefore copies nothing, locks nothing, allocates
 * nothing, and never runs a callback under a lock.
 *
 * Lookup: ht_xpti_cb[stream][trace_type >> 8] points to 256 slots for the low byte (allocated
 * when a callback of that vendor byte is first registered); the table itself is zero BSS.
 */
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "xpti_internal.h"

struct ht_xpti_cbvec {
	uint32_t n;
	xpti_tracepoint_callback_api_t cb[];
};

typedef _Atomic(struct ht_xpti_cbvec *) ht_xpti_cbslot;

struct ht_xpti_reg {
	xpti_tracepoint_callback_api_t cb;
	uint16_t trace_type;
	uint8_t stream;
	bool active;
};

static _Atomic(ht_xpti_cbslot *) ht_xpti_cb[256][256];
/* Active registrations per stream, for xptiCheckTraceEnabled(stream, 0). */
static _Atomic uint32_t ht_xpti_stream_active[256];

static struct {
	pthread_mutex_t lock;
	struct ht_xpti_reg *regs;
	size_t n, cap;
} ht_xpti_regs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static ht_xpti_cbslot *ht_xpti_slot(uint8_t sid, uint16_t tt)
{
	ht_xpti_cbslot *row = atomic_load_explicit(&ht_xpti_cb[sid][tt >> 8], memory_order_acquire);

	return row ? &row[tt & 0xff] : NULL;
}

/* Writer: republish the vector of (sid, tt) and the stream's active count. */
static int ht_xpti_rebuild(uint8_t sid, uint16_t tt)
{
	ht_xpti_cbslot *row = atomic_load_explicit(&ht_xpti_cb[sid][tt >> 8], memory_order_relaxed);
	struct ht_xpti_cbvec *vec = NULL;
	uint32_t n = 0, stream_n = 0;

	for (size_t i = 0; i < ht_xpti_regs.n; i++) {
		const struct ht_xpti_reg *r = &ht_xpti_regs.regs[i];

		if (r->stream == sid && r->active) {
			stream_n++;
			n += r->trace_type == tt;
		}
	}
	if (!row) {
		row = ht_xpti_pool_alloc(256 * sizeof(*row));
		if (!row)
			return -1;
		atomic_store_explicit(&ht_xpti_cb[sid][tt >> 8], row, memory_order_release);
	}
	if (n) {
		vec = ht_xpti_pool_alloc(sizeof(*vec) + n * sizeof(vec->cb[0]));
		if (!vec)
			return -1;
		for (size_t i = 0; i < ht_xpti_regs.n; i++) {
			const struct ht_xpti_reg *r = &ht_xpti_regs.regs[i];

			if (r->stream == sid && r->trace_type == tt && r->active)
				vec->cb[vec->n++] = r->cb;
		}
	}
	atomic_store_explicit(&row[tt & 0xff], vec, memory_order_release);
	atomic_store_explicit(&ht_xpti_stream_active[sid], stream_n, memory_order_release);
	return 0;
}

static struct ht_xpti_reg *ht_xpti_reg_find(uint8_t sid, uint16_t tt,
					    xpti_tracepoint_callback_api_t cb)
{
	for (size_t i = 0; i < ht_xpti_regs.n; i++) {
		struct ht_xpti_reg *r = &ht_xpti_regs.regs[i];

		if (r->stream == sid && r->trace_type == tt && r->cb == cb)
			return r;
	}
	return NULL;
}

static bool ht_xpti_stream_valid(uint8_t sid)
{
	return sid != 0 &&
	       sid <= atomic_load_explicit(&ht_xpti_streams.count, memory_order_relaxed);
}

XPTI_EXPORT_API xpti_result_t xptiRegisterCallback(uint8_t stream_id, uint16_t trace_type,
						   xpti_tracepoint_callback_api_t cb)
{
	xpti_result_t ret = XPTI_RESULT_SUCCESS;
	struct ht_xpti_reg *r;

	if (!cb || trace_type == XPTI_TRACE_UNKNOWN_TYPE || trace_type == XPTI_INVALID_TRACE_TYPE)
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_live())
		return XPTI_RESULT_FAIL;
	if (!ht_xpti_stream_valid(stream_id))
		return XPTI_RESULT_INVALIDARG;
	pthread_mutex_lock(&ht_xpti_regs.lock);
	r = ht_xpti_reg_find(stream_id, trace_type, cb);
	if (r && r->active) {
		ret = XPTI_RESULT_DUPLICATE;
		goto out;
	}
	if (r) {
		r->active = true;
		ret = XPTI_RESULT_UNDELETE;
	} else {
		if (ht_grow((void **)&ht_xpti_regs.regs, &ht_xpti_regs.cap,
			    sizeof *ht_xpti_regs.regs, ht_xpti_regs.n + 1)) {
			ret = XPTI_RESULT_FAIL;
			goto out;
		}
		r = &ht_xpti_regs.regs[ht_xpti_regs.n++];
		r->cb = cb;
		r->trace_type = trace_type;
		r->stream = stream_id;
		r->active = true;
	}
	if (ht_xpti_rebuild(stream_id, trace_type)) {
		r->active = false;
		ret = XPTI_RESULT_FAIL;
	}
out:
	pthread_mutex_unlock(&ht_xpti_regs.lock);
	return ret;
}

XPTI_EXPORT_API xpti_result_t xptiUnregisterCallback(uint8_t stream_id, uint16_t trace_type,
						     xpti_tracepoint_callback_api_t cb)
{
	xpti_result_t ret = XPTI_RESULT_SUCCESS;
	struct ht_xpti_reg *r;

	if (!cb)
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_live())
		return XPTI_RESULT_FAIL;
	pthread_mutex_lock(&ht_xpti_regs.lock);
	r = ht_xpti_reg_find(stream_id, trace_type, cb);
	if (!r) {
		ret = XPTI_RESULT_NOTFOUND;
	} else if (!r->active) {
		ret = XPTI_RESULT_DUPLICATE;
	} else {
		r->active = false;
		ht_xpti_rebuild(stream_id, trace_type);
	}
	pthread_mutex_unlock(&ht_xpti_regs.lock);
	return ret;
}

bool ht_xpti_callbacks_disable_stream(uint8_t sid)
{
	bool any = false;

	pthread_mutex_lock(&ht_xpti_regs.lock);
	for (size_t i = 0; i < ht_xpti_regs.n; i++) {
		struct ht_xpti_reg *r = &ht_xpti_regs.regs[i];

		if (r->stream != sid)
			continue;
		any = true;
		if (r->active) {
			r->active = false;
			ht_xpti_rebuild(sid, r->trace_type);
		}
	}
	pthread_mutex_unlock(&ht_xpti_regs.lock);
	return any;
}

XPTI_EXPORT_API bool xptiCheckTraceEnabled(uint8_t stream, uint16_t trace_type)
{
	ht_xpti_cbslot *slot;

	if (!atomic_load_explicit(&ht_xpti_enabled, memory_order_relaxed) || stream == 0 ||
	    stream == XPTI_INVALID_STREAM_ID)
		return false;
	if (trace_type == 0)
		return atomic_load_explicit(&ht_xpti_stream_active[stream], memory_order_acquire);
	slot = ht_xpti_slot(stream, trace_type);
	return slot && atomic_load_explicit(slot, memory_order_acquire);
}

/* Trace types that may be notified without an event, as long as they carry user data. */
static bool ht_xpti_event_optional(uint16_t tt)
{
	static const uint64_t lo = (1ULL << XPTI_TRACE_FUNCTION_BEGIN) |
				   (1ULL << XPTI_TRACE_FUNCTION_END) |
				   (1ULL << XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN) |
				   (1ULL << XPTI_TRACE_FUNCTION_WITH_ARGS_END) |
				   (0x1ffULL << XPTI_TRACE_MEM_ALLOC_BEGIN); /* 32..40 */

	if (tt < 64)
		return (lo >> tt) & 1;
	return tt == XPTI_TRACE_DIAGNOSTICS;
}

XPTI_EXPORT_API xpti_result_t xptiNotifySubscribers(uint8_t stream_id, uint16_t trace_type,
						    xpti_trace_event_data_t *parent,
						    xpti_trace_event_data_t *event,
						    uint64_t instance, const void *user_data)
{
	struct ht_xpti_thread *self = ht_xpti_self;
	xpti_result_t ret = XPTI_RESULT_SUCCESS;
	const struct ht_xpti_cbvec *vec;
	ht_xpti_cbslot *row;
	uint32_t nest;

	if (ht_unlikely(!self)) {
		self = ht_xpti_thread_register();
		if (!self)
			return XPTI_RESULT_FAIL;
	}
	/* Announce the notification before reading the enable flag. The finalizing thread pairs
	 * this with a process-wide barrier (membarrier), so a compiler barrier is enough here. */
	nest = atomic_load_explicit(&self->nest, memory_order_relaxed);
	atomic_store_explicit(&self->nest, nest + 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);

	if (ht_unlikely(!atomic_load_explicit(&ht_xpti_enabled, memory_order_relaxed))) {
		ret = XPTI_RESULT_FALSE;
		goto out;
	}
	if (ht_unlikely(!ht_xpti_stream_valid(stream_id))) {
		ret = XPTI_RESULT_INVALIDARG;
		goto out;
	}
	if (ht_unlikely(!event) && !(user_data && ht_xpti_event_optional(trace_type))) {
		ret = XPTI_RESULT_INVALIDARG;
		goto out;
	}
	row = atomic_load_explicit(&ht_xpti_cb[stream_id][trace_type >> 8], memory_order_acquire);
	if (!row)
		goto out;
	vec = atomic_load_explicit(&row[trace_type & 0xff], memory_order_acquire);
	if (!vec)
		goto out;
	for (uint32_t i = 0; i < vec->n; i++)
		vec->cb[i](trace_type, parent, event, instance, user_data);
out:
	atomic_store_explicit(&self->nest, nest, memory_order_release);
	return ret;
}

void ht_xpti_callbacks_reset(void)
{
	for (int s = 0; s < 256; s++) {
		for (int v = 0; v < 256; v++)
			if (atomic_load_explicit(&ht_xpti_cb[s][v], memory_order_relaxed))
				atomic_store_explicit(&ht_xpti_cb[s][v], NULL,
						      memory_order_relaxed);
		atomic_store_explicit(&ht_xpti_stream_active[s], 0, memory_order_relaxed);
	}
	free(ht_xpti_regs.regs);
	ht_xpti_regs.regs = NULL;
	ht_xpti_regs.n = ht_xpti_regs.cap = 0;
}
