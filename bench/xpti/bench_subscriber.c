/*
 * A null subscriber for xpti-bench: for every stream it is initialised for, it registers one
 * empty callback on the 18 trace types the seed's harness uses, so that the benchmark measures
 * the real notification path (tracing enabled by a loaded subscriber) with a handler cost of
 * ~0; the events/s projection adds modelled handler costs on top.
 */
#include <xpti/xpti_trace_framework.h>

static const uint16_t bench_types[] = {
    XPTI_TRACE_GRAPH_CREATE, XPTI_TRACE_NODE_CREATE,   XPTI_TRACE_EDGE_CREATE,
    XPTI_TRACE_REGION_BEGIN, XPTI_TRACE_REGION_END,    XPTI_TRACE_TASK_BEGIN,
    XPTI_TRACE_TASK_END,     XPTI_TRACE_BARRIER_BEGIN, XPTI_TRACE_BARRIER_END,
    XPTI_TRACE_LOCK_BEGIN,   XPTI_TRACE_LOCK_END,      XPTI_TRACE_TRANSFER_BEGIN,
    XPTI_TRACE_TRANSFER_END, XPTI_TRACE_THREAD_BEGIN,  XPTI_TRACE_THREAD_END,
    XPTI_TRACE_WAIT_BEGIN,   XPTI_TRACE_WAIT_END,      XPTI_TRACE_SIGNAL,
};

static void bench_null_cb(uint16_t tt, xpti_trace_event_data_t *parent,
			  xpti_trace_event_data_t *event, uint64_t instance, const void *user_data)
{
	(void)tt, (void)parent, (void)event, (void)instance, (void)user_data;
}

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major, unsigned int minor,
				     const char *version_str, const char *stream_name)
{
	uint8_t sid = xptiRegisterStream(stream_name);

	(void)major, (void)minor, (void)version_str;
	for (unsigned int i = 0; i < sizeof(bench_types) / sizeof(bench_types[0]); i++)
		xptiRegisterCallback(sid, bench_types[i], bench_null_cb);
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name)
{
	(void)stream_name;
}
