/*
 * What the exporters need from an input process's own CTF metadata that the
 * timeline does not carry: the host name and the clock's epoch offset
 * (CLOCK_REALTIME - CLOCK_MONOTONIC), so exports keep absolute time.
 */
#ifndef HT_EXPORT_CTF_SOURCE_H
#define HT_EXPORT_CTF_SOURCE_H

#include <stdint.h>

#include "analysis/trace.h"

struct ht_ctf_source {
	char hostname[256];
	int64_t offset_s, offset_ns; /* clock offset_s / offset, as written */
};

/*
 * Reads the metadata of process directory p of trace t. Missing values stay
 * at their defaults ("unknown", offset 0). Return: 0, or -errno when the
 * metadata cannot be read.
 */
int ht_ctf_source_read(const struct ht_trace *t, const struct ht_trace_process *p,
		       struct ht_ctf_source *out);

#endif
