/*
 * Calling contexts in the Perfetto export (see perfetto_stacks.h). Frames
 * are resolved once (analysis/callpaths.h) and interned per function name:
 * one Frame per function, one Callstack per path, so a profile of 100k
 * samples over 50 paths costs a PerfSample of ~12 bytes each.
 */
#include <stdlib.h>

#include "analysis/callpaths.h"
#include "export/perfetto_stacks.h"

/* TracePacket */
#define PKT_TIMESTAMP	8
#define PKT_SEQ_ID	10
#define PKT_INTERNED	12
#define PKT_SEQ_FLAGS	13
#define PKT_PERF_SAMPLE 66
/* InternedData */
#define IN_FUNCTION_NAMES 5
#define IN_FRAMES	  6
#define IN_CALLSTACKS	  7
/* PerfSample */
#define PS_PID	     2
#define PS_TID	     3
#define PS_CALLSTACK 4
#define PS_CPU_MODE  5
#define MODE_USER    2
/* TrackEvent.callstack (inline) */
#define TE_CALLSTACK 55

#define NAMES 512

struct ht_pf_stacks {
	struct ht_callpaths cp;
	struct ht_map fn_iid;	 /* interned name pointer -> iid (function name and frame) */
	struct ht_map stack_iid; /* path node -> callstack iid */
	uint64_t next_fn, next_stack;
};

struct ht_pf_stacks *ht_pf_stacks_create(void)
{
	struct ht_pf_stacks *s = calloc(1, sizeof *s);

	if (s && ht_callpaths_init(&s->cp)) {
		free(s);
		return NULL;
	}
	return s;
}

void ht_pf_stacks_destroy(struct ht_pf_stacks *s)
{
	if (!s)
		return;
	ht_callpaths_release(&s->cp);
	ht_map_release(&s->fn_iid);
	ht_map_release(&s->stack_iid);
	free(s);
}

uint32_t ht_pf_stacks_path(struct ht_pf_stacks *s, const struct ht_timeline *tl,
			   const struct ht_tl_record *r)
{
	return ht_callpaths_of(&s->cp, tl, r);
}

void ht_pf_stacks_inline(struct ht_pf_stacks *s, struct ht_pb *pb, uint32_t path)
{
	const char *names[NAMES];
	int n = ht_callpaths_names(&s->cp, path, names, NAMES);

	ht_pb_begin(pb, TE_CALLSTACK);
	for (int i = 0; i < n; i++) {
		ht_pb_begin(pb, 1); /* Frame */
		ht_pb_string(pb, 1, names[i]);
		ht_pb_end(pb);
	}
	ht_pb_end(pb);
}

static void open_interned(struct ht_pb *pb, int *open)
{
	if (!*open)
		ht_pb_begin(pb, PKT_INTERNED);
	*open = 1;
}

void ht_pf_stacks_sample(struct ht_pf_stacks *s, struct ht_pb *pb, uint32_t seq, uint32_t flags,
			 const struct ht_tl_record *r, uint32_t path)
{
	const char *names[NAMES];
	uint64_t fids[NAMES], stack = 0, *v;
	int n = path ? ht_callpaths_names(&s->cp, path, names, NAMES) : 0, open = 0, created;

	ht_pb_begin(pb, 1); /* Trace.packet */
	ht_pb_varint(pb, PKT_TIMESTAMP, r->ts);
	ht_pb_varint(pb, PKT_SEQ_ID, seq);
	ht_pb_varint(pb, PKT_SEQ_FLAGS, flags);
	for (int i = 0; i < n; i++) {
		v = ht_map_u64(&s->fn_iid, (uintptr_t)names[i], 0, &created);
		if (!v) {
			pb->error = -12; /* -ENOMEM */
			break;
		}
		if (created) {
			*v = ++s->next_fn;
			open_interned(pb, &open);
			ht_pb_begin(pb, IN_FUNCTION_NAMES);
			ht_pb_varint(pb, 1, *v);
			ht_pb_string(pb, 2, names[i]);
			ht_pb_end(pb);
			ht_pb_begin(pb, IN_FRAMES); /* a frame per function, no mapping */
			ht_pb_varint(pb, 1, *v);
			ht_pb_varint(pb, 2, *v);
			ht_pb_end(pb);
		}
		fids[i] = *v;
	}
	if (n && (v = ht_map_u64(&s->stack_iid, path, 0, &created))) {
		if (created) {
			*v = ++s->next_stack;
			open_interned(pb, &open);
			ht_pb_begin(pb, IN_CALLSTACKS);
			ht_pb_varint(pb, 1, *v);
			for (int i = 0; i < n; i++) /* outermost first */
				ht_pb_varint(pb, 2, fids[i]);
			ht_pb_end(pb);
		}
		stack = *v;
	}
	if (open)
		ht_pb_end(pb);
	ht_pb_begin(pb, PKT_PERF_SAMPLE);
	ht_pb_varint(pb, PS_PID, (uint32_t)r->pid);
	ht_pb_varint(pb, PS_TID, (uint32_t)r->tid);
	if (stack)
		ht_pb_varint(pb, PS_CALLSTACK, stack);
	ht_pb_varint(pb, PS_CPU_MODE, MODE_USER);
	ht_pb_end(pb);
	ht_pb_end(pb);
}
