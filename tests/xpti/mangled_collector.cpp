// A collector whose entry points end up with C++ linkage: it declares them itself, without
// extern "C" and without including the XPTI headers, as a collector written against a header
// that lacks the C declarations would. The dispatcher must skip it with one warning that
// names the mangled symbol it found (_Z13xptiTraceInitjjPKcS0_).
#define EXPORT __attribute__((visibility("default")))

EXPORT void xptiTraceInit(unsigned int, unsigned int, const char *, const char *)
{
}

EXPORT void xptiTraceFinish(const char *)
{
}
