/*
 * Counters by name (--counters LIST): perf's names of the generic hardware
 * and software events (cycles, instructions, task-clock, page-faults,
 * context-switches, ...) and the PAPI presets that have a generic perf
 * equivalent (PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_BR_MSP, ...), each as the
 * perf_event type and config to open. Machines without hardware counters
 * (most VMs) refuse the hardware ones when they are opened, not here.
 */
#ifndef HT_COUNTERS_H
#define HT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#define HT_COUNTERS_MAX 8

struct ht_counter_spec {
	char name[48]; /* as the user gave it */
	uint32_t type; /* PERF_TYPE_* */
	uint64_t config;
};

/*
 * Parses a comma-separated list into out (at most HT_COUNTERS_MAX).
 * Return: the number of counters, or -EINVAL with the offending name in
 * bad (a name nobody knows, or too many).
 */
int ht_counters_parse(const char *list, struct ht_counter_spec *out, char *bad, size_t cap);

#endif
