/*
 * A program carrying both hetrace and LTTng-UST events, for the test that
 * babeltrace2 merges the two traces in time order: N rounds of a hetrace
 * counter "tick" = k, 300 us, the tracepoint ht_test:tick = k, 300 us.
 *   lttng_prog N
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"

#include <hetrace/hetrace.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	struct timespec nap = {0, 300000};

	for (long k = 0; k < n; k++) {
		HT_COUNTER("tick", k);
		nanosleep(&nap, NULL);
		lttng_ust_tracepoint(ht_test, tick, k);
		nanosleep(&nap, NULL);
	}
	return 0;
}
