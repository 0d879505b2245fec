/*
 * What the hetrace command (src/cli) calls for memory-access tracing:
 * record's options (record_opts.c) and the report's memory_access section
 * (report_mem.c).
 */
#ifndef HT_MEMTRACE_CLI_H
#define HT_MEMTRACE_CLI_H

#include <stdio.h>

#include "analysis/trace.h"
#include "memtrace/analysis.h"

/* Checks record's --memory-access* values. Return: 0, or 2 (usage error printed). */
int ht_memtrace_options(const char *glob, const char *sample, const char *buffer);
/* Sets (or clears) the HETRACE_MEMTRACE* variables for the traced program. */
void ht_memtrace_setenv(const char *glob, const char *sample, const char *buffer,
			const char *libdir);

/* The report's memory_access section: text, csv rows, the json key (",\"memory_access\":[...]"). */
void ht_mem_report_text(FILE *f, const struct ht_mem_report *m);
void ht_mem_report_csv(FILE *f, const struct ht_mem_report *m);
void ht_mem_report_json(FILE *f, const struct ht_mem_report *m);

#endif
