/*
 * The recorder's interface to event sources (OpenCL, CUDA, XPTI, OS): what a
 * source calls to put events into the trace. Exported from libhetrace.so,
 * not installed. Sources check ht_active (HT_ENABLED) before computing
 * anything, then call one emitter per event.
 */
#ifndef HT_RECORDER_H
#define HT_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/export.h"
#include "format/fntable.h"
#include "format/format.h"

struct ht_stream;

/* Registers a source's function table (once, from its constructor). Return: 0 or -errno. */
int ht_fn_table_register(const struct ht_fn_table *t);

/*
 * Thread events: on the calling thread's stream. Dropped and counted when there is no room.
 * ht_emit_api_begin returns the raw clock value it read (see ht_device_command).
 */
uint64_t ht_emit_api_begin(uint16_t fn);
void ht_emit_api_end(uint16_t fn, int32_t ret, const uint64_t *args, unsigned int nargs);
/*
 * ht_emit_api_end stamped with a raw clock value the source already read
 * after the call returned (ht_now_raw; 0: read it now). The clock costs
 * ~10 ns a read here: a wrapper that read it anyway to date a completion
 * shares that read with its call's end.
 */
void ht_emit_api_end_at(uint16_t fn, int32_t ret, const uint64_t *args, unsigned int nargs,
			uint64_t t_raw);
void ht_emit_lost(enum ht_lost_kind kind, uint64_t count);
/*
 * Counts `count` events that were meant for a stream that could not be
 * created (a device queue's, say) in the calling thread's stream's
 * events_discarded, where babeltrace2 and info see them.
 */
void ht_emit_discarded(uint64_t count);
/*
 * Records the calling thread's stack for the slice (API call or region) it
 * begins next, where --callstacks asks for calls of this kind: mode
 * HT_STACKS_LAUNCH (work is submitted, waited for or allocated) or
 * HT_STACKS_ALL (core/config.h). API calls get theirs from
 * ht_emit_api_begin by their roles; regions that stand for such calls
 * (XPTI, NVTX) call this first.
 */
void ht_emit_call_stack(int mode);
/*
 * For a source that writes event classes of its own (the MPI interposer)
 * with HT_WRITE (core/session.h): the calling thread's stream with room for
 * one event of `payload` bytes. Return: the stream, or NULL when the event
 * is dropped (counted).
 */
struct ht_stream *ht_emit_thread_stream(size_t payload);

/* Process-wide definitions (written to the process stream). */
void ht_emit_device_info(uint32_t device, enum ht_device_type type, const char *name,
			 const char *vendor);
void ht_emit_queue_info(uint64_t queue, uint32_t device, uint64_t flags);

/*
 * A device command as a source hands it over: the device_command event
 * (events.def) plus when it was seen complete. ev.host_before is the host
 * clock (raw, as ht_emit_api_begin returns it: that saves the enqueue a
 * clock read) just before the enqueue, 0 if unknown; with queued and end it
 * makes the command its own pair of clock-sync bounds.
 */
struct ht_device_command {
	struct ht_ev_device_command ev;
	/*
	 * The host clock (raw, ht_now_raw) read after the command was seen
	 * complete, or 0 to read it when writing. It stamps the event, the
	 * bound against END; a stream's events stay in order (a value older
	 * than the stream's last event is raised to it, still a bound).
	 */
	uint64_t seen_raw;
};

/*
 * Device streams: one per device queue, shared by the threads that collect
 * the queue's completions (writes are serialised inside). The stream
 * belongs to the recorder; it is closed at exit.
 * Return: the stream, or NULL when not recording (errno set).
 */
struct ht_stream *ht_device_stream_create(uint32_t device, uint64_t queue);
void ht_emit_device_command(struct ht_stream *s, const struct ht_device_command *c);
/* A host/device timer pair read together (HT_PAIR_EXACT), host in CLOCK_MONOTONIC ns. */
void ht_emit_clock_pair(struct ht_stream *s, uint32_t device, uint64_t device_ts, uint64_t host_ns);

/* CLOCK_MONOTONIC now, in ns (for payload fields that hold host times). */
uint64_t ht_now_ns(void);
/* The recorder's raw clock now (what event times and ht_emit_api_begin use). */
uint64_t ht_now_raw(void);

#endif
