/*
 * Clock selection, anchors and TSC calibration (see clock.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "core/export.h"
#include "format/format.h"

/* Until set up: CLOCK_MONOTONIC ns, and a compact limit with a 2x margin. */
HT_EXPORT_BOUND struct ht_clock ht_clock_state = {0, 1u << (HT_EH_COMPACT_BITS - 1), 0};

void ht_clock_setup(int use_tsc, double tsc_hz)
{
	uint64_t limit = 1u << (HT_EH_COMPACT_BITS - 1);

	ht_clock_state.use_tsc = HT_HAVE_TSC && use_tsc;
	ht_clock_state.tsc_hz = tsc_hz;
	if (ht_clock_state.use_tsc) {
		/*
		 * A raw delta below the limit must stay below 2^26 ns once
		 * converted, so that the compact header (27 bits) cannot wrap
		 * twice. Cycles faster than 1 GHz only shrink deltas; slower ones
		 * need a smaller limit. Unknown rate: assume 100 MHz.
		 */
		double hz = tsc_hz > 0 ? tsc_hz : 1e8;

		if (hz < 1e9)
			limit = (uint64_t)((double)limit * hz / 1e9);
	}
	ht_clock_state.compact_limit = limit;
}

void ht_clock_anchor(struct ht_anchor *a)
{
	if (!ht_clock_state.use_tsc) {
		a->ns = a->raw = ht_clock_mono_ns();
		return;
	}
	/*
	 * Bracket the clock_gettime with two counter reads; keep the midpoint of
	 * the tightest of up to three brackets (one within 200 ns ends the
	 * search; a clean one takes ~40 ns here). One bracket alone is off by
	 * microseconds when the vCPU is preempted inside it, and a packet's two
	 * anchors set the slope that converts everything in it (and a command's
	 * host_before).
	 */
	uint64_t tight = (uint64_t)(ht_clock_state.tsc_hz * 2e-7), best = UINT64_MAX;

	for (int i = 0; i < 3 && best > tight; i++) {
		uint64_t r0 = ht_clock_raw();
		uint64_t ns = ht_clock_mono_ns();
		uint64_t r1 = ht_clock_raw();

		if (r1 - r0 < best) {
			best = r1 - r0;
			a->raw = r0 + (r1 - r0) / 2;
			a->ns = ns;
		}
	}
}

double ht_clock_measure_tsc_hz(unsigned int ms)
{
#if HT_HAVE_TSC
	struct timespec req = {0, (long)ms * 1000000L};
	uint64_t r0 = __rdtsc(), n0 = ht_clock_mono_ns();

	nanosleep(&req, NULL);
	uint64_t r1 = __rdtsc(), n1 = ht_clock_mono_ns();

	if (n1 <= n0 || r1 <= r0)
		return 0;
	return (double)(r1 - r0) * 1e9 / (double)(n1 - n0);
#else
	(void)ms;
	return 0;
#endif
}

int ht_clock_tsc_is_invariant(void)
{
#if HT_HAVE_TSC
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[4096];
	int constant = 0, nonstop = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
#else
	return 0;
#endif
}
