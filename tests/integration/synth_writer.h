/*
 * A writer of small synthetic hetrace traces with exact timestamps, for
 * tests that check analysis results against values computed by hand
 * (synth_trace.c, tests/os/os_synth.c). All times are ns after
 * HT_SYNTH_BASE; events use the extended header; each stream is one packet.
 * Test code only: one stream is built at a time, with module-level state.
 */
#ifndef HT_SYNTH_WRITER_H
#define HT_SYNTH_WRITER_H

#include <stdint.h>

#include "format/fntable.h"
#include "format/format.h"

#define HT_SYNTH_BASE  1000000000ull
#define HT_SYNTH_QUEUE 0xabc0ull

/*
 * Creates DIR/<pid>-<comm>/ with a metadata file describing function table
 * fns (or none). Return: the directory's fd (exits on error).
 */
int ht_synth_process(const char *dir, int pid, const char *comm, const uint8_t uuid[16],
		     const struct ht_fn_table *fns);

/* Starts a stream of class sc for thread vtid (device streams: device 0, queue HT_SYNTH_QUEUE). */
void ht_synth_begin(enum ht_stream_class sc, int vtid, uint64_t t0);
/* Writes the stream so far to dirfd/name (exits on error). */
void ht_synth_flush(int dirfd, const char *name);

/* Event header of class id at time t. Return: where its payload goes; then ht_synth_done(). */
uint8_t *ht_synth_event(uint32_t id, uint64_t t);
void ht_synth_done(size_t payload);
/* Writes an event of class cls (events.def) from ev (struct ht_ev_<cls> *) at time t. */
#define HT_SYNTH(cls, t, ev)                                                                       \
	do {                                                                                       \
		const struct ht_ev_##cls *se_ = (ev);                                              \
		uint8_t *sp_ = ht_synth_event(ht_ev_##cls##_id, (t));                              \
		ht_synth_done((size_t)(ht_ev_##cls##_put(sp_, se_) - sp_));                        \
	} while (0)

void ht_synth_string(uint64_t t, uint32_t id, const char *s);
/* Argument descriptors of clFinish (queue), a kernel launch (corr), a read (queue, blocking). */
extern const struct ht_fn_arg_desc ht_synth_finish_args[1], ht_synth_launch_args[1],
    ht_synth_read_args[2];
/* A function with role flags and n argument descriptors. */
void ht_synth_fn(uint64_t t, uint16_t id, const char *name, uint32_t roles,
		 const struct ht_fn_arg_desc *args, unsigned int n);
void ht_synth_thread_name(uint64_t t, int32_t tid, const char *name);
void ht_synth_anchor(uint64_t t, enum ht_anchor_kind kind);
/* A region_begin (begin != 0) or region_end of string id `name`. */
void ht_synth_region(int begin, uint64_t t, uint32_t name);
/* api_begin at t0, api_end (return 0) at t1 with arguments args[0..n). */
void ht_synth_api(uint64_t t0, uint64_t t1, uint16_t fn, const uint64_t *args, unsigned int n);
/* A device command collected at `collected`; the four times are ns after the base. */
void ht_synth_command(uint64_t collected, uint64_t corr, enum ht_cmd_kind kind,
		      enum ht_ts_domain dom, int64_t dev_offset, const uint64_t times[4],
		      uint64_t bytes, uint32_t name);
/* A clock pair: host time host_t, device time host_t - dev_behind. */
void ht_synth_pair(uint64_t collected, enum ht_pair_kind kind, uint64_t host_t,
		   uint64_t dev_behind);
/* The os_status note of a process that recorded OS scheduling. */
void ht_synth_os_on(uint64_t t);
/* A CPU-state interval [b, e) of thread tid on CPU 1, collected at `collected`. */
void ht_synth_cpu_state(uint64_t collected, int32_t tid, int state, uint64_t b, uint64_t e);

#endif
