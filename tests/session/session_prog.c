/*
 * Test program for sessions and capture ranges: annotates a counter "tick"
 * = 0, 1, 2, ... so a test can tell exactly which part of the run a trace
 * holds (a window is a run of consecutive values).
 *   session_prog run FILE    a tick every 200 us until FILE exists (60 s at most),
 *                            "ready" on stdout after the first tick,
 *                            then the last tick on stdout
 *   session_prog regions N   N rounds of: region "warmup" with 10 ticks, region
 *                            "step" with 10 ticks; then 10 ticks outside
 *   session_prog regions-run FILE  the same rounds, a tick every 200 us, until FILE
 *                            exists (60 s at most); "ready" after the first round
 *   session_prog api N [R]   R times (default 1): 10 ticks, hetrace_start(), N ticks,
 *                            hetrace_stop(); then 10 ticks
 *   session_prog print       prints its arguments and environment size (for byte-
 *                            identical output with and without the session variables)
 */
#include <hetrace/hetrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long tick;

static void one(void)
{
	HT_COUNTER("tick", tick);
	tick++;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "run")) {
		struct timespec nap = {0, 200000};

		for (long i = 0; i < 300000 && access(argv[2], F_OK); i++) {
			one();
			if (i == 0) {
				puts("ready");
				fflush(stdout);
			}
			nanosleep(&nap, NULL);
		}
		printf("%ld\n", tick - 1);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "regions")) {
		long n = atol(argv[2]);

		for (long r = 0; r < n; r++) {
			HT_REGION_BEGIN("warmup");
			for (int i = 0; i < 10; i++)
				one();
			HT_REGION_END("warmup");
			HT_REGION_BEGIN("step");
			for (int i = 0; i < 10; i++)
				one();
			HT_REGION_END("step");
		}
		for (int i = 0; i < 10; i++)
			one();
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "regions-run")) {
		struct timespec nap = {0, 200000};

		for (long r = 0; r < 15000 && access(argv[2], F_OK); r++) {
			HT_REGION_BEGIN("warmup");
			for (int i = 0; i < 10; i++, nanosleep(&nap, NULL))
				one();
			HT_REGION_END("warmup");
			HT_REGION_BEGIN("step");
			for (int i = 0; i < 10; i++, nanosleep(&nap, NULL))
				one();
			HT_REGION_END("step");
			if (r == 0) {
				puts("ready");
				fflush(stdout);
			}
		}
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "api")) {
		long n = atol(argv[2]), rounds = argc > 3 ? atol(argv[3]) : 1;

		for (long r = 0; r < rounds; r++) {
			for (int i = 0; i < 10; i++)
				one();
			hetrace_start();
			for (long i = 0; i < n; i++)
				one();
			hetrace_stop();
		}
		for (int i = 0; i < 10; i++)
			one();
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "print")) {
		for (int i = 0; i < 1000; i++)
			one();
		for (int i = 0; i < argc; i++)
			printf("arg %d: %s\n", i, argv[i]);
		printf("ticks %ld\n", tick);
		return 3;
	}
	fprintf(stderr, "usage: session_prog run FILE | regions N | api N | print\n");
	return 2;
}
