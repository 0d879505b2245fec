/*
 * Calling contexts in the Perfetto export (perfetto_stacks.c): an API
 * slice's stack as TrackEvent.callstack (inline frames, outermost first),
 * and CPU samples as PerfSample packets on a sequence of their own, their
 * stacks interned there (InternedData function_names, frames, callstacks),
 * which trace_processor and the UI show as CPU profiles and flame graphs.
 */
#ifndef HT_PERFETTO_STACKS_H
#define HT_PERFETTO_STACKS_H

#include <stdint.h>

#include "analysis/timeline.h"
#include "export/protobuf.h"

struct ht_pf_stacks;

struct ht_pf_stacks *ht_pf_stacks_create(void);
void ht_pf_stacks_destroy(struct ht_pf_stacks *s);

/* The path of a slice's or sample's stack (0: none). */
uint32_t ht_pf_stacks_path(struct ht_pf_stacks *s, const struct ht_timeline *tl,
			   const struct ht_tl_record *r);

/* Adds TrackEvent.callstack for path to the TrackEvent open in pb. */
void ht_pf_stacks_inline(struct ht_pf_stacks *s, struct ht_pb *pb, uint32_t path);

/*
 * Writes a whole TracePacket for the sample r on sequence seq (flags: its
 * sequence_flags) into pb: new interned entries, then the PerfSample.
 */
void ht_pf_stacks_sample(struct ht_pf_stacks *s, struct ht_pb *pb, uint32_t seq, uint32_t flags,
			 const struct ht_tl_record *r, uint32_t path);

#endif
