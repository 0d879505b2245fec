/*
 * Per-thread state of the XPTI API that is not on the notification path: the universal id
 * propagated down a software stack, the stash of (key, value) tuples (a small stack here,
 * where upstream kept one slot that was never cleared), and the process-wide defaults.
 */
#include "xpti_internal.h"

#define HT_XPTI_STASH_DEPTH 8

struct ht_xpti_stash {
	const char *key;
	uint64_t value;
};

static __thread uint64_t tls_universal_id;
static __thread struct ht_xpti_stash tls_stash[HT_XPTI_STASH_DEPTH];
static __thread unsigned int tls_stash_n;

static _Atomic uint8_t def_stream; /* set to "xpti.framework" when the framework starts */
static _Atomic uint16_t def_event_type = XPTI_EVENT_ALGORITHM;
static _Atomic uint16_t def_trace_type = XPTI_TRACE_FUNCTION_BEGIN;

XPTI_EXPORT_API uint64_t xptiGetUniversalId(void)
{
	return tls_universal_id;
}

XPTI_EXPORT_API void xptiSetUniversalId(uint64_t uid)
{
	tls_universal_id = uid;
}

XPTI_EXPORT_API xpti_result_t xptiStashTuple(const char *key, uint64_t value)
{
	if (!key || tls_stash_n == HT_XPTI_STASH_DEPTH)
		return XPTI_RESULT_FAIL;
	tls_stash[tls_stash_n].key = key;
	tls_stash[tls_stash_n].value = value;
	tls_stash_n++;
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_result_t xptiGetStashedTuple(char **key, uint64_t *value)
{
	if (!key || !value)
		return XPTI_RESULT_INVALIDARG;
	if (!tls_stash_n)
		return XPTI_RESULT_NOTFOUND;
	*key = (char *)tls_stash[tls_stash_n - 1].key;
	*value = tls_stash[tls_stash_n - 1].value;
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API void xptiUnstashTuple(void)
{
	if (tls_stash_n)
		tls_stash_n--;
}

XPTI_EXPORT_API uint8_t xptiGetDefaultStreamID(void)
{
	if (!ht_xpti_live())
		return 0;
	return atomic_load_explicit(&def_stream, memory_order_relaxed);
}

XPTI_EXPORT_API xpti_result_t xptiSetDefaultStreamID(uint8_t stream_id)
{
	if (stream_id == 0 || stream_id == XPTI_INVALID_STREAM_ID)
		return XPTI_RESULT_INVALIDARG;
	atomic_store_explicit(&def_stream, stream_id, memory_order_relaxed);
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_trace_event_type_t xptiGetDefaultEventType(void)
{
	return atomic_load_explicit(&def_event_type, memory_order_relaxed);
}

XPTI_EXPORT_API xpti_result_t xptiSetDefaultEventType(xpti_trace_event_type_t event_type)
{
	if (event_type == XPTI_EVENT_UNKNOWN)
		return XPTI_RESULT_INVALIDARG;
	atomic_store_explicit(&def_event_type, event_type, memory_order_relaxed);
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_trace_point_type_t xptiGetDefaultTraceType(void)
{
	return atomic_load_explicit(&def_trace_type, memory_order_relaxed);
}

XPTI_EXPORT_API xpti_result_t xptiSetDefaultTraceType(xpti_trace_point_type_t trace_type)
{
	if (trace_type == XPTI_TRACE_UNKNOWN_TYPE)
		return XPTI_RESULT_INVALIDARG;
	atomic_store_explicit(&def_trace_type, trace_type, memory_order_relaxed);
	return XPTI_RESULT_SUCCESS;
}

void ht_xpti_defaults_reset(uint8_t default_stream)
{
	tls_universal_id = 0;
	tls_stash_n = 0;
	atomic_store(&def_stream, default_stream);
	atomic_store(&def_event_type, XPTI_EVENT_ALGORITHM);
	atomic_store(&def_trace_type, XPTI_TRACE_FUNCTION_BEGIN);
}
