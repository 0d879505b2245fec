/*
 * Shared pieces of the hetrace command: sub-command entry points, error
 * reporting and option helpers. Every sub-command returns the process exit
 * status: 0 success, 1 failure, 2 usage error.
 */
#ifndef HT_CLI_H
#define HT_CLI_H

#include <stdio.h>

#include "format/packet.h"

#define HT_EXIT_USAGE 2

int ht_cmd_record(int argc, char **argv);
int ht_cmd_info(int argc, char **argv);
int ht_cmd_check(int argc, char **argv);
int ht_cmd_report(int argc, char **argv);
int ht_cmd_export(int argc, char **argv);
int ht_cmd_view(int argc, char **argv);
int ht_cmd_session(int argc, char **argv);

/* The report's output formats (--format). */
enum ht_format { HT_FORMAT_TEXT, HT_FORMAT_CSV, HT_FORMAT_JSON };
/*
 * report --diff BASE NEW (diff.c): threshold_pct < 0 for none.
 * Return: the exit status (1 on a regression beyond the threshold or an error).
 */
int ht_report_diff(const char *base, const char *cur, enum ht_format format, double threshold_pct);

/* Prints "hetrace: <message>" on stderr. Return: 1 (for `return ht_error(...)`). */
__attribute__((format(printf, 1, 2))) int ht_error(const char *fmt, ...);
/* Prints "hetrace: <sub>: <message>" and the sub-command's usage hint. Return: 2. */
__attribute__((format(printf, 2, 3))) int ht_usage_error(const char *sub, const char *fmt, ...);
/* Prints a reader error as "hetrace: TRACE/FILE: offset N: MESSAGE" ("hetrace: MESSAGE" when
 * it names no file: the environment). Return: 1. */
int ht_read_error_print(const char *trace, const struct ht_read_error *err);

/* Formats ns as seconds with the unit that fits ("1.234 s", "56.7 ms", "890 ns"). */
void ht_fmt_duration(char *buf, size_t cap, double ns);

#endif
