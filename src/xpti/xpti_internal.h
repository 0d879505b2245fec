/*
 * Internal interfaces of the XPTI dispatcher (libxptifw.so): the tracked memory pool, the
 * lock-free-read intern tables (strings, objects, streams, vendors), the trace point table and
 * its instances, the callback registry and the framework lifecycle. C only; what the C++ units
 * (metadata.cpp, tracepoint.cpp) share with it is in cxx_bridge.h. Nothing here is exported;
 * the exported API is include/xpti/xpti_trace_framework.h.
 */
#ifndef HT_XPTI_INTERNAL_H
#define HT_XPTI_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cxx_bridge.h"

#define ht_likely(x)   __builtin_expect(!!(x), 1)
#define ht_unlikely(x) __builtin_expect(!!(x), 0)

/* ---- pool.c: zeroed allocations that live until xptiReset (never freed otherwise) ---- */
void *ht_xpti_pool_alloc(size_t size);
void ht_xpti_pool_release_all(void);

/* ---- hash.c-free helpers ---- */
static inline uint64_t ht_xpti_mix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* FNV-1a over bytes, finished with a 64-bit mixer (tag bits come from the high half). */
static inline uint64_t ht_xpti_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return ht_xpti_mix64(h ^ len);
}

/* Same hash for a NUL-terminated string; *len receives its length. */
static inline uint64_t ht_xpti_hash_str(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t n = 0;

	for (; p[n]; n++) {
		h ^= p[n];
		h *= 0x100000001b3ULL;
	}
	*len = n;
	return ht_xpti_mix64(h ^ n);
}

/* ---- intern.c: append-only tables with lock-free lookup ---- */
#define HT_XPTI_CHUNK_SHIFT 10
#define HT_XPTI_CHUNK_SIZE  (1u << HT_XPTI_CHUNK_SHIFT)
#define HT_XPTI_MAX_CHUNKS  16384 /* 16 M entries per table */

struct ht_xpti_index;

struct ht_xpti_intern_entry {
	const char *data; /* interned copy, always NUL-terminated */
	uint64_t hash;
	uint32_t len;
	uint8_t type;
};

struct ht_xpti_intern {
	pthread_mutex_t lock; /* writers only */
	uint32_t limit;	      /* maximum number of entries */
	_Atomic uint32_t count;
	_Atomic(struct ht_xpti_index *) index;
	char *arena;
	size_t arena_left;
	_Atomic(struct ht_xpti_intern_entry *) chunk[HT_XPTI_MAX_CHUNKS];
};

#define HT_XPTI_INTERN_INIT(max)                                                                   \
	{                                                                                          \
		.lock = PTHREAD_MUTEX_INITIALIZER, .limit = (max)                                  \
	}

/* Return: the 0-based index of these bytes, adding them if new; -1 when full/out of memory. */
long ht_xpti_intern_add(struct ht_xpti_intern *t, const void *data, size_t len, uint64_t hash,
			uint8_t type);
/* Return: the 0-based index or -1. Lock-free. */
long ht_xpti_intern_find(struct ht_xpti_intern *t, const void *data, size_t len, uint64_t hash);
/* Return: the entry at `idx`, NULL if there is none. Lock-free. */
const struct ht_xpti_intern_entry *ht_xpti_intern_get(struct ht_xpti_intern *t, uint64_t idx);
void ht_xpti_intern_reset(struct ht_xpti_intern *t);

/* ---- strings.c (and ht_xpti_string_add, declared in cxx_bridge.h) ---- */
extern struct ht_xpti_intern ht_xpti_strings;
extern struct ht_xpti_intern ht_xpti_streams;
/* Return: the stream id of `name` (1..254) if registered, else 0. Never adds. */
uint8_t ht_xpti_stream_find(const char *name);
const char *ht_xpti_stream_name(uint8_t sid);
void ht_xpti_strings_reset(void);

/* ---- points.c: one trace point per distinct payload ---- */

/* What identifies a trace point, compared exactly: interned string ids, line and column, and
 * the code pointer only when there is neither a name nor a file. */
struct ht_xpti_key {
	uint32_t name, file, stack, line, col, pad;
	uint64_t code;
};

struct ht_xpti_inst;

struct ht_xpti_point {
	struct ht_xpti_key key;
	uint64_t hash;
	xpti_payload_t payload;		       /* interned strings, uid filled, internal 0 */
	_Atomic uint64_t visits;	       /* instances made so far: the last instance number */
	_Atomic(struct ht_xpti_inst *) shared; /* HETRACE_XPTI_EVENTS=shared: the one event */
};

/* Return: the trace point of a payload, created on first sight; NULL for a payload that
 * names nothing (no name, file, stack trace or code pointer) or when out of memory. */
struct ht_xpti_point *ht_xpti_point_get(const xpti_payload_t *p);
void ht_xpti_points_reset(void);

/* ---- events.c: instances of trace points ---- */
void ht_xpti_events_reset(void);

/* ---- callbacks.c ---- */
/* Disable every callback of a stream. Return: true if the stream ever had a callback. */
bool ht_xpti_callbacks_disable_stream(uint8_t sid);
void ht_xpti_callbacks_reset(void);

/* ---- framework.c: lifecycle ---- */
enum ht_xpti_state {
	HT_XPTI_UNINIT = 0,
	HT_XPTI_LIVE = 1,
	HT_XPTI_FINALIZED = 2,
};

extern _Atomic int ht_xpti_state;
extern _Atomic bool ht_xpti_enabled;
/* HETRACE_XPTI_EVENTS=shared: one event per trace point (read once at start-up). */
extern bool ht_xpti_shared_events;

bool ht_xpti_live_slow(void);

/* True while the framework is usable (initialising it on first use). */
static inline bool ht_xpti_live(void)
{
	int s = atomic_load_explicit(&ht_xpti_state, memory_order_acquire);

	if (ht_likely(s == HT_XPTI_LIVE))
		return true;
	if (s == HT_XPTI_FINALIZED)
		return false;
	return ht_xpti_live_slow();
}

/*
 * Per-thread record of notifications in flight, so that the final finalize can wait for them.
 * Written only by its thread; read by the finalizing thread after a process-wide barrier.
 */
struct ht_xpti_thread {
	_Atomic uint32_t nest;
	_Atomic bool in_use;
	struct ht_xpti_thread *next;
} __attribute__((aligned(64)));

extern __thread struct ht_xpti_thread *ht_xpti_self __attribute__((tls_model("initial-exec")));
struct ht_xpti_thread *ht_xpti_thread_register(void);

void ht_xpti_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- tls.c ---- */
/* Forget thread and process defaults; the default stream becomes `default_stream`. */
void ht_xpti_defaults_reset(uint8_t default_stream);

#endif /* HT_XPTI_INTERNAL_H */
