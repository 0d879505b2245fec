/*
 * What the hetrace command (src/cli) calls for device PC sampling:
 * record's --pc-sampling (options.c) and the report's kernel_source_lines
 * section (report_lines.c; the analysis is kernel_lines.h).
 */
#ifndef HT_PCSAMP_CLI_H
#define HT_PCSAMP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "pcsamp/kernel_lines.h"

#define HT_PCSAMP_PERIOD_DEFAULT                                                                   \
	1000000ull /* ns: 1 kHz of a kernel thread's CPU time (see bench/opencl.sh) */
#define HT_PCSAMP_PERIOD_MIN 10000ull /* the CPU sampler's highest rate, 100 kHz */
#define HT_PCSAMP_PERIOD_MAX 1000000000ull
#define HT_PCSAMP_POCL_CACHE "pocl-cache" /* PoCL's kernel cache, in the trace directory */

/*
 * Checks --pc-sampling's value (NULL: the option without one) and sets *ns.
 * Return: 0, or 2 (usage error printed).
 */
int ht_pcsamp_option(const char *period, uint64_t *ns);
/* Sets (ns > 0) or clears the variables the traced program and PoCL read. */
void ht_pcsamp_setenv(uint64_t ns, const char *absdir);
/* Return: the CPU sampler's rate for a period. */
unsigned int ht_pcsamp_hz(uint64_t ns);

/* The report's kernel_source_lines: text, csv rows, the json key
 * (",\"kernel_source_lines\":[...]"). */
void ht_kernel_lines_text(FILE *f, const struct ht_kernel_lines *kl);
void ht_kernel_lines_csv(FILE *f, const struct ht_kernel_lines *kl);
void ht_kernel_lines_json(FILE *f, const struct ht_kernel_lines *kl);

#endif
