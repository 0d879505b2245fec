// Compiled as C++ by the xpti_cxx_header test: the public XPTI headers must be valid C++ and
// usable by C++ collectors unchanged (extern "C" linkage, inline helpers, macros).
#include <xpti/xpti_trace_framework.h>
#include <xpti/xpti_data_types.h>

extern "C" XPTI_CALLBACK_API void xptiTraceInit(unsigned int, unsigned int, const char *,
						const char *stream_name)
{
	xpti_payload_t p;
	xpti_payload_init_source(&p, "fn", "file.cpp", 1, 2, nullptr);
	uint64_t inst = 0;
	xpti_trace_event_data_t *ev =
	    xptiMakeEvent("fn", &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE, &inst);
	uint8_t sid = xptiRegisterStream(stream_name);
	xpti_scope_t s = xptiScopeBegin(sid, XPTI_TRACE_TASK_BEGIN, nullptr, ev, inst, nullptr);
	xptiScopeEnd(&s);
	static_assert(XPTI_TRACE_POINT_END(4) == 9, "region_end");
	static_assert(sizeof(xpti_payload_t) == 80, "payload layout");
}

extern "C" XPTI_CALLBACK_API void xptiTraceFinish(const char *)
{
}
