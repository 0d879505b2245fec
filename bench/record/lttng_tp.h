/*
 * LTTng-UST tracepoint provider for the recording benchmark: one event,
 * ht_bench:value, with the payload of an HT_COUNTER event (a u32 id and an
 * i64 value), so both tracers record the same two integers.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER ht_bench

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(HT_BENCH_LTTNG_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define HT_BENCH_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(ht_bench, value, TP_ARGS(uint32_t, id, int64_t, v),
		 TP_FIELDS(ctf_integer(uint32_t, id, id) ctf_integer(int64_t, value, v)))

#endif

#include <lttng/tracepoint-event.h>
