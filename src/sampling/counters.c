/*
 * Counter names (see counters.h). The PAPI presets map to the generic perf
 * events PAPI's own perf_event component uses for them on x86.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "sampling/counters.h"

#define HW(c) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c
#define SW(c) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c
#define CACHE(c, op, res)                                                                          \
	PERF_TYPE_HW_CACHE, (PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 |          \
			     PERF_COUNT_HW_CACHE_RESULT_##res << 16)

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} known[] = {
    {"cycles", HW(CPU_CYCLES)},
    {"cpu-cycles", HW(CPU_CYCLES)},
    {"instructions", HW(INSTRUCTIONS)},
    {"cache-references", HW(CACHE_REFERENCES)},
    {"cache-misses", HW(CACHE_MISSES)},
    {"branches", HW(BRANCH_INSTRUCTIONS)},
    {"branch-instructions", HW(BRANCH_INSTRUCTIONS)},
    {"branch-misses", HW(BRANCH_MISSES)},
    {"bus-cycles", HW(BUS_CYCLES)},
    {"ref-cycles", HW(REF_CPU_CYCLES)},
    {"stalled-cycles-frontend", HW(STALLED_CYCLES_FRONTEND)},
    {"stalled-cycles-backend", HW(STALLED_CYCLES_BACKEND)},
    {"L1-dcache-load-misses", CACHE(L1D, READ, MISS)},
    {"L1-icache-load-misses", CACHE(L1I, READ, MISS)},
    {"dTLB-load-misses", CACHE(DTLB, READ, MISS)},
    {"cpu-clock", SW(CPU_CLOCK)},
    {"task-clock", SW(TASK_CLOCK)},
    {"page-faults", SW(PAGE_FAULTS)},
    {"faults", SW(PAGE_FAULTS)},
    {"minor-faults", SW(PAGE_FAULTS_MIN)},
    {"major-faults", SW(PAGE_FAULTS_MAJ)},
    {"context-switches", SW(CONTEXT_SWITCHES)},
    {"cs", SW(CONTEXT_SWITCHES)},
    {"cpu-migrations", SW(CPU_MIGRATIONS)},
    {"migrations", SW(CPU_MIGRATIONS)},
    {"alignment-faults", SW(ALIGNMENT_FAULTS)},
    {"emulation-faults", SW(EMULATION_FAULTS)},
    /* PAPI presets */
    {"PAPI_TOT_CYC", HW(CPU_CYCLES)},
    {"PAPI_TOT_INS", HW(INSTRUCTIONS)},
    {"PAPI_REF_CYC", HW(REF_CPU_CYCLES)},
    {"PAPI_BR_INS", HW(BRANCH_INSTRUCTIONS)},
    {"PAPI_BR_MSP", HW(BRANCH_MISSES)},
    {"PAPI_L3_TCA", HW(CACHE_REFERENCES)},
    {"PAPI_L3_TCM", HW(CACHE_MISSES)},
    {"PAPI_STL_ICY", HW(STALLED_CYCLES_FRONTEND)},
    {"PAPI_RES_STL", HW(STALLED_CYCLES_BACKEND)},
    {"PAPI_L1_DCM", CACHE(L1D, READ, MISS)},
    {"PAPI_L1_ICM", CACHE(L1I, READ, MISS)},
    {"PAPI_TLB_DM", CACHE(DTLB, READ, MISS)},
};

int ht_counters_parse(const char *list, struct ht_counter_spec *out, char *bad, size_t cap)
{
	int n = 0;

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof known / sizeof known[0]; i++)
			if (strlen(known[i].name) == len && !strncmp(p, known[i].name, len))
				break;
		if (len == 0 || i == sizeof known / sizeof known[0] || n == HT_COUNTERS_MAX) {
			snprintf(bad, cap, "%.*s", (int)(len < 64 ? len : 64), p);
			return -EINVAL;
		}
		snprintf(out[n].name, sizeof out[n].name, "%s", known[i].name);
		out[n].type = known[i].type;
		out[n].config = known[i].config;
		n++;
		p += len + (p[len] == ',');
	}
	return n;
}
