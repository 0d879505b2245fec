/*
 * The LTTng-UST tracepoint provider of lttng_prog.c: one event,
 * ht_test:tick, with the tick's value.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ht_test

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng_tp.h"

#if !defined(HT_TEST_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define HT_TEST_LTTNG_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ht_test, tick, LTTNG_UST_TP_ARGS(long, value),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(long, value, value)))

#endif

#include <lttng/tracepoint-event.h>
