/*
 * The trace as a SQLite 3 database (`hetrace export DIR --format sqlite -o
 * FILE`): a table per concept (processes, threads, API calls, kernels,
 * transfers, regions, instants, counters, OS states, call stacks and CPU
 * samples, memory-access summaries, MPI ranks and operations), host times in ns
 * on the trace clock, strings interned, described in docs/sqlite-schema.md.
 *
 * The schema is versioned: meta.schema_version changes with every change
 * of it, and meta.schema_compat is the oldest version whose queries still
 * work on it (it moves only when a column or table is renamed, removed or
 * changes meaning; adding a table or column leaves it). A query written for
 * version V runs on a file when schema_compat <= V <= schema_version.
 * tests/sqlite/schema_version.sh fails when the schema changes and these
 * stay as they were.
 */
#ifndef HT_EXPORT_SQLITE_H
#define HT_EXPORT_SQLITE_H

#include "analysis/trace.h"

#define HT_SQLITE_SCHEMA_VERSION 2
#define HT_SQLITE_SCHEMA_COMPAT	 1

/*
 * Writes the database to path, a new empty file the caller created.
 * Return: 0, or < 0 with err filled (-ENOTSUP when hetrace was built without SQLite).
 */
int ht_export_sqlite(struct ht_trace *t, const char *path, struct ht_read_error *err);

#endif
