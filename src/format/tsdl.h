/*
 * TSDL (CTF 1.8 metadata) generation from the event class tables and the
 * registered function tables. Used by the recorder for each process
 * directory and by the CTF exporter.
 */
#ifndef HT_TSDL_H
#define HT_TSDL_H

#include <stdint.h>
#include <stdio.h>

#include "format/fntable.h"

struct ht_tsdl_params {
	uint8_t uuid[16];
	const char *hostname;
	const char *trace_name;
	int64_t clock_offset_s; /* CLOCK_REALTIME - CLOCK_MONOTONIC, seconds part */
	int64_t clock_offset_ns;
	const struct ht_fn_table *const *tables;
	unsigned int ntables;
};

/* What every hetrace TSDL starts with. */
struct ht_tsdl_preamble {
	const uint8_t *uuid; /* 16 bytes */
	const char *hostname, *trace_name;
	const char *env_extra;	       /* more env lines ("\tkey = value;\n"), or NULL */
	const char *clock_description;
	int64_t clock_offset_s, clock_offset_ns;
};

/*
 * Writes the signature, the byte-aligned integer and float types, the trace
 * (packet header), env and clock blocks, and uint64_clock_monotonic_t.
 */
void ht_tsdl_write_preamble(FILE *f, const struct ht_tsdl_preamble *p);
/*
 * Writes the opening of a stream's packet.context and the fields every
 * hetrace stream shares (timestamps, sizes, sequence, discards, cpu, vpid,
 * vtid, procname); the caller adds its own fields and closes it.
 */
void ht_tsdl_write_context_start(FILE *f);
/* Writes s as a TSDL string literal (quotes and backslashes escaped, control bytes dropped). */
void ht_tsdl_put_quoted(FILE *f, const char *s);

/* Writes the whole metadata text. Return: 0, or -errno on a write error. */
int ht_tsdl_write(FILE *f, const struct ht_tsdl_params *p);

/* Formats a uuid as 8-4-4-4-12 hex into out (37 bytes). */
void ht_uuid_format(const uint8_t uuid[16], char out[37]);

#endif
