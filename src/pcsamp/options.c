/*
 * `hetrace record --pc-sampling[=PERIOD]`: the period checked before
 * anything starts, then handed to the traced program and its runtimes.
 *
 * On PoCL's CPU devices the samples are `record`'s perf_event samples
 * (src/sampling) of the threads that run the kernels, taken every PERIOD of
 * their CPU time; what they need from PoCL is its kernel objects kept, with
 * DWARF line tables, until the analysis reads them. PoCL 3.1 documents
 * POCL_CACHE_DIR (where its kernel cache lives), POCL_KERNEL_CACHE (keep
 * it) and POCL_EXTRA_BUILD_FLAGS (appended to every clBuildProgram's
 * options): the cache goes into the trace directory (pocl-cache/), so the
 * objects travel with the trace and a kernel the user's own cache holds
 * without line tables is compiled afresh; "-g" is added to the options.
 * The machine code does not change with -g (the .text of a kernel object
 * built with and without it was byte-identical when measured), so neither
 * do the program's results (the tests compare its output traced and not). On CUDA the period goes to CUPTI (src/cuda/pcsamp.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "pcsamp/cli.h"

int ht_pcsamp_option(const char *period, uint64_t *ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"ns", 1}, {"us", 1000}, {"", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	char *end;
	unsigned long long v;

	*ns = HT_PCSAMP_PERIOD_DEFAULT;
	if (!period)
		return 0;
	errno = 0;
	v = strtoull(period, &end, 10);
	if (!errno && end != period && *period != '-')
		for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
			if (!strcmp(end, units[i].unit) && v <= UINT64_MAX / units[i].ns) {
				*ns = v * units[i].ns;
				if (*ns >= HT_PCSAMP_PERIOD_MIN && *ns <= HT_PCSAMP_PERIOD_MAX)
					return 0;
			}
	return ht_usage_error("record",
			      "--pc-sampling=PERIOD must be a time from 10us to 1s (e.g. 250us, "
			      "1ms; a bare number is microseconds), not '%s'",
			      period);
}

/* Adds -g to PoCL's extra build flags, once. */
static void pocl_debug_flag(void)
{
	const char *old = getenv("POCL_EXTRA_BUILD_FLAGS");
	char *v;

	if (!old || !*old) {
		setenv("POCL_EXTRA_BUILD_FLAGS", "-g", 1);
		return;
	}
	if (!strcmp(old, "-g") || strstr(old, " -g ") || !strncmp(old, "-g ", 3))
		return;
	if (asprintf(&v, "%s -g", old) < 0)
		return;
	setenv("POCL_EXTRA_BUILD_FLAGS", v, 1);
	free(v);
}

void ht_pcsamp_setenv(uint64_t ns, const char *absdir)
{
	char v[32], *cache;

	if (!ns) {
		unsetenv("HETRACE_PC_SAMPLING");
		return;
	}
	snprintf(v, sizeof v, "%llu", (unsigned long long)ns);
	setenv("HETRACE_PC_SAMPLING", v, 1);
	if (asprintf(&cache, "%s/" HT_PCSAMP_POCL_CACHE, absdir) >= 0) {
		setenv("POCL_CACHE_DIR", cache, 1);
		free(cache);
	}
	setenv("POCL_KERNEL_CACHE", "1", 1);
	pocl_debug_flag();
}

unsigned int ht_pcsamp_hz(uint64_t ns)
{
	return (unsigned int)((1000000000ull + ns / 2) / ns);
}
