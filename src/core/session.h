/*
 * The recording session of this process (internal to libhetrace): settings,
 * the process directory, the process stream (definitions shared by all
 * threads), the registry of streams, and each thread's own stream.
 */
#ifndef HT_SESSION_H
#define HT_SESSION_H

#include <stdint.h>

#include "core/stream.h"
#include "core/strtab.h"
#include "session/ctl.h"

/* The calling thread's stream; small values are states, not pointers. */
#define HT_TLS_NONE ((struct ht_stream *)0) /* not created yet */
#define HT_TLS_BUSY ((struct ht_stream *)1) /* being created (nested calls drop) */
#define HT_TLS_DEAD ((struct ht_stream *)2) /* thread exited or recording closed */

extern __thread struct ht_stream *ht_tls_stream __attribute__((tls_model("initial-exec")));
/* The session generation (session/ctl.h) the thread's stream belongs to. */
extern __thread uint32_t ht_tls_gen __attribute__((tls_model("initial-exec")));
/* The page of ht_active: private, or a session's control page (session.c). */
extern union ht_ctl_area ht_ctl_area __attribute__((visibility("hidden")));
/* Capture ranges by region: the region's string id, 0 when none (session.c). */
extern uint32_t ht_capture_id __attribute__((visibility("hidden")));

struct ht_stream *ht_session_thread_stream_slow(void);

/*
 * Capture ranges by region (session.c): a region `name` begins while the
 * process only watches for its range. Return: nonzero when it opened the
 * range (record the begin).
 */
int ht_capture_region_begin(uint32_t name);
/* The capture region ended (its end recorded): the range closes with the outermost one. */
void ht_capture_region_end(void);

/*
 * The calling thread's stream as the emitters' fast paths take it: a
 * stream of an older session generation reads as HT_TLS_NONE, so the slow
 * path lets go of it. One more load, from the line ht_active is on.
 */
static inline struct ht_stream *ht_session_tls_stream(void)
{
	struct ht_stream *s = ht_tls_stream;

	if (__builtin_expect(ht_tls_gen != ht_ctl_area.p.gen, 0))
		return HT_TLS_NONE;
	return s;
}

/* Return: the calling thread's stream, or NULL when the event must be dropped. */
static inline struct ht_stream *ht_session_thread_stream(void)
{
	struct ht_stream *s = ht_session_tls_stream();

	if (__builtin_expect((uintptr_t)s > (uintptr_t)HT_TLS_DEAD, 1))
		return s;
	return ht_session_thread_stream_slow();
}

/*
 * Runs fn(arg) with the process stream and string table locked, after the
 * process directory exists. Return: fn's result, or -ENODEV when the process
 * is not being recorded.
 */
int ht_session_with_process(int (*fn)(struct ht_stream *proc, struct ht_strtab *strs, void *arg),
			    void *arg);

/*
 * A shared stream kept from an earlier session generation: its successor in
 * the current one (session.c). Return: it, or NULL when not recording.
 */
struct ht_stream *ht_session_stream_renew(struct ht_stream *s);

/* The stream a source keeps, for the current session generation (NULL: drop). */
static inline struct ht_stream *ht_session_stream_current(struct ht_stream *s)
{
	if (__builtin_expect(s->gen != ht_ctl_area.p.gen, 0))
		return ht_session_stream_renew(s);
	return s;
}

/* Creates a stream in the process directory and registers it. NULL + errno on failure. */
struct ht_stream *ht_session_stream_create(enum ht_stream_class sc, const char *prefix,
					   uint32_t device, uint64_t queue);

/* Interns s. Return: its id, or 0 when not recording. Takes the process lock. */
uint32_t ht_session_intern(const char *s);

/*
 * Interns str through the thread stream's small cache: a hit (same pointer,
 * same text) takes no lock. Return: the id, or 0.
 */
uint32_t ht_session_intern_cached(struct ht_stream *s, const char *str);

/*
 * Slow path of the thread emitters: the calling thread's stream with room
 * for an event of `payload` bytes, creating the stream or opening a packet
 * as needed. Return: the stream, or NULL when the event is dropped (counted).
 */
struct ht_stream *ht_session_prepare(size_t payload);

/* Reserves `payload` bytes plus an event header for event `id` stamped `t_raw`. */
static inline uint8_t *ht_event_begin_at(struct ht_stream *s, uint32_t id, size_t payload,
					 uint64_t t_raw)
{
	uint8_t *p = ht_stream_reserve(s, HT_EH_MAX_SIZE + payload);

	if (__builtin_expect(!p, 0))
		return NULL;
	return ht_stream_header(s, p, id, t_raw);
}

/* The same, stamped now. */
static inline uint8_t *ht_event_begin(struct ht_stream *s, uint32_t id, size_t payload)
{
	return ht_event_begin_at(s, id, payload, ht_clock_raw());
}

/*
 * Writes an event of class `cls` (events.def) from `ev`, a pointer to its
 * struct ht_ev_<cls>, stamped t_raw, through the class's generated encoder.
 * Return: nonzero when it was written, 0 when it was dropped (counted).
 */
#define HT_WRITE_AT(s, cls, ev, t_raw)                                                             \
	({                                                                                         \
		struct ht_stream *ws_ = (s);                                                       \
		const struct ht_ev_##cls *we_ = (ev);                                              \
		uint8_t *wp_ =                                                                     \
		    ht_event_begin_at(ws_, ht_ev_##cls##_id, ht_ev_##cls##_size(we_), (t_raw));    \
		if (wp_)                                                                           \
			ht_stream_commit(ws_, ht_ev_##cls##_put(wp_, we_));                        \
		wp_ != NULL;                                                                       \
	})
/* The same, stamped now. */
#define HT_WRITE(s, cls, ev) HT_WRITE_AT(s, cls, ev, ht_clock_raw())

#endif
