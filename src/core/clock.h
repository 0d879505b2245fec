/*
 * Host clock for the recorder. Events are stamped with a raw value read on
 * the hot path: the cycle counter (rdtsc, ~10 ns here) when it is invariant,
 * else CLOCK_MONOTONIC ns (~22 ns). Raw values are converted exactly to
 * CLOCK_MONOTONIC ns before the trace is read, using (raw, ns) anchor pairs
 * taken at every packet boundary (see analysis/finalize.c).
 */
#ifndef HT_CLOCK_H
#define HT_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HT_HAVE_TSC 1
#else
#define HT_HAVE_TSC 0
#endif

struct ht_clock {
	int use_tsc;	       /* raw values are cycles, not ns */
	uint64_t compact_limit; /* largest raw delta that still fits a compact header */
	double tsc_hz;	       /* nominal rate, for the compact limit only */
};

extern struct ht_clock ht_clock_state;

static inline uint64_t ht_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The hot-path timestamp. */
static inline uint64_t ht_clock_raw(void)
{
#if HT_HAVE_TSC
	if (__builtin_expect(ht_clock_state.use_tsc, 1))
		return __rdtsc();
#endif
	return ht_clock_mono_ns();
}

/* A (raw, ns) pair taken as close together as possible. */
struct ht_anchor {
	uint64_t raw;
	uint64_t ns;
};

void ht_clock_anchor(struct ht_anchor *a);

/*
 * Selects the clock. use_tsc is honoured only where a cycle counter exists;
 * tsc_hz <= 0 means "unknown" and makes the compact limit conservative.
 */
void ht_clock_setup(int use_tsc, double tsc_hz);

/* Measures the cycle counter rate over about `ms` milliseconds. Return: Hz, or 0. */
double ht_clock_measure_tsc_hz(unsigned int ms);

/* Return: 1 when /proc/cpuinfo says the TSC is constant and non-stop. */
int ht_clock_tsc_is_invariant(void);

#endif
