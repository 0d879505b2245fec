/*
 * Instantiates the probes of lttng_tp.h in the LTTng variant of the
 * recording benchmark (statically linked into the program).
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "lttng_tp.h"
