/*
 * Stands in for a collector built against libc++ that reads xptiQueryMetadata's map: valid C
 * entry points, a call of xptiQueryMetadata, and a (weak, never called) reference to a libc++
 * symbol (std::__1), which is how such a library shows in its dynamic symbols. The dispatcher
 * must refuse it with one warning instead of letting it misread libstdc++'s tables.
 */
#include <xpti/xpti_trace_framework.h>

extern void ht_libcxx_marker(void) __asm__("_ZNSt3__112basic_stringIcE6appendEPKc")
    __attribute__((weak));

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major, unsigned int minor, const char *version,
				     const char *stream)
{
	(void)major, (void)minor, (void)version, (void)stream;
	if (ht_libcxx_marker)
		ht_libcxx_marker();
	xptiQueryMetadata(NULL);
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *stream)
{
	(void)stream;
}
