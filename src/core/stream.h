/*
 * A stream: one CTF stream file plus its current packet.
 *
 * Ring mode (under `hetrace record`, ring/ring.h): packets are slots of a
 * ring file (".<name>.ring") mapped MAP_SHARED; a full packet is trimmed and
 * published, and `record` appends it to the stream file, so the producer
 * thread never copies packets into the page cache (measured: 15.5 -> 11.3 ns
 * per event). If the ring reaches half full (record gets no CPU), the
 * producer drains it itself; no thread is added to the traced process.
 *
 * Otherwise the current packet lives in a small file of its own
 * (".<name>.cur", one packet long) mapped MAP_SHARED, and a full packet is
 * appended to the stream file with one pwrite() from the producer thread.
 * (Measured here: writing through a growing MAP_SHARED file window cost
 * 30-40 ns per 16-byte event in page-cache faults; pwrite of a reused packet
 * costs about 3.5 ns per event.)
 *
 * Either way the pages of the current packet are reused, so events cost no
 * page faults, and a packet in progress survives SIGKILL (`hetrace record`
 * or `check --repair` salvages it).
 *
 * A packet that cannot be written (disk full, RLIMIT_FSIZE, I/O error) is
 * dropped and its events are counted in the running events_discarded total;
 * block mode waits for space first, up to 10 s in all per process.
 *
 * Hot path: ht_stream_reserve / ht_stream_header / ht_stream_commit, by the
 * owning thread only (shared streams are written under their own lock).
 * No malloc, lock, syscall or stdio per event.
 */
#ifndef HT_STREAM_H
#define HT_STREAM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/clock.h"
#include "core/lock.h"
#include "format/format.h"

/* Sources that may register hooks with the core (core/source.h). */
#define HT_SOURCES_MAX 4

struct ht_stream_params {
	enum ht_stream_class sc;
	int vpid;
	int vtid;
	uint32_t device; /* device streams */
	uint64_t queue;
	const char *procname;
	const uint8_t *uuid;	 /* 16 bytes, the process trace's uuid */
	uint64_t instance_id;	 /* stream_instance_id */
	size_t packet_size;	 /* bytes, power of two, >= 4096 */
	int block;		 /* block mode: wait for space instead of dropping */
	unsigned int ring_slots; /* > 1: hand packets to `hetrace record` through a ring
				  * (ring/ring.h) of this many packets */
	uint64_t file_limit;	 /* RLIMIT_FSIZE, or UINT64_MAX */
};

struct ht_stream {
	/* Producer fields, touched by every event: keep them on one line. */
	uint8_t *pos;		 /* next free byte in the current packet */
	uint8_t *end;		 /* end of the current packet; pos == end == NULL when none */
	uint8_t *pkt;		 /* start of the current packet */
	uint64_t last;		 /* raw timestamp of the last event */
	uint64_t discarded;	 /* running total, written in each packet context */
	uint64_t written;	 /* packets appended to the stream file */
	uint64_t last_off;	 /* offset of the last packet appended */
	uint64_t last_discarded; /* events_discarded as written in that packet */

	/* Cold fields. */
	int fd;	    /* the stream file (appended with pwrite; by the consumer in ring mode) */
	int cur_fd; /* the current-packet file, or the ring file */
	struct ht_ring_header *ring; /* ring mode: the mapped ring, else NULL */
	size_t map_size;	     /* bytes mapped at buf (ring mode: at ring) */
	uint64_t ring_retry;	     /* ring mode, dropping: when to try the full ring again */
	uint64_t ring_populated; /* ring mode: slots faulted in so far (each at its first use) */
	int dirfd;
	int error;	   /* errno of the last failed packet write, 0 if none */
	uint8_t *buf;	   /* the mapped current-packet file */
	uint64_t file_end; /* bytes written to the stream file */
	uint64_t seq;
	size_t ctx_end;
	struct ht_stream_params p;
	char procname[HT_PROCNAME_LEN];
	uint8_t uuid[16];
	struct ht_lock lock; /* for streams shared between threads */
	/* Thread streams: strings this thread interned lately (see ht_session_intern_cached). */
	struct {
		const char *key;      /* the caller's pointer */
		const char *interned; /* the table's copy, to verify the key still says the same */
		uint32_t id;
	} strcache[32];
	struct ht_stream *next, *prev; /* session registry */
	/* Thread streams: each registered source's state for this thread (core/source.h). */
	void *source[HT_SOURCES_MAX];
	unsigned int sources; /* bit i: source[i] is set (the packet hook runs) */
	char name[48];
	/* Sessions (core/session.c): the generation the stream records for, and
	 * for a shared stream a source keeps, its stream in a later one. */
	uint32_t gen;
	const char *prefix;	     /* shared streams: the file name prefix, for the successor */
	struct ht_stream *successor; /* (S.lock) */
};

/*
 * Creates the stream file `name` and its current-packet file in dirfd
 * (O_EXCL, O_NOFOLLOW, 0600) and opens the first packet.
 * Return: the stream, or NULL with errno set.
 */
struct ht_stream *ht_stream_create(int dirfd, const char *name, const struct ht_stream_params *p);
/* Writes the current packet out, removes the current-packet file, frees. */
void ht_stream_destroy(struct ht_stream *s);
/* After fork, in the child: drop the parent's stream without touching its files. */
void ht_stream_abandon(struct ht_stream *s);
/*
 * Makes the running discard total reach the disk: into the current packet,
 * and into the last packet written when later packets were lost (an 8-byte
 * overwrite in place, which a full disk cannot refuse). Racy by design when
 * another thread owns s; used at stream close and process exit.
 */
void ht_stream_sync_discarded(struct ht_stream *s);

/* Slow path of ht_stream_reserve. Return: a pointer to `need` bytes, or NULL (counted). */
uint8_t *ht_stream_reserve_slow(struct ht_stream *s, size_t need);

/* Ring mode: the consumer's doorbell (ring/ring.h), or NULL. Set by the session. */
extern struct ht_doorbell *ht_stream_doorbell;

/* Called when a packet write first fails after a success; set by the session. */
extern void (*ht_stream_on_error)(struct ht_stream *s, int err);
/*
 * Called after a stream where sources keep state (s->sources) opened a new
 * packet, by its owner; may write events as long as `need` bytes stay free.
 * Set by the session.
 */
extern void (*ht_stream_on_packet)(struct ht_stream *s, size_t need);

/* Return: nonzero when s is a stream with room for `need` bytes (header included). */
static inline int ht_stream_has_room(const struct ht_stream *s, size_t need)
{
	return (uintptr_t)s > 2 && (size_t)(s->end - s->pos) >= need;
}

/* Return: room for an event of at most `need` bytes (header included), or NULL (counted). */
static inline uint8_t *ht_stream_reserve(struct ht_stream *s, size_t need)
{
	if (__builtin_expect((size_t)(s->end - s->pos) < need, 0))
		return ht_stream_reserve_slow(s, need);
	return s->pos;
}

/*
 * Writes the event header for event `id` at time `t` (raw clock) and returns
 * where the payload goes. Timestamps never go backwards within a stream.
 */
static inline uint8_t *ht_stream_header(struct ht_stream *s, uint8_t *p, uint32_t id, uint64_t t)
{
	uint64_t prev = s->last;

	if (__builtin_expect(t < prev, 0))
		t = prev;
	s->last = t;
	if (__builtin_expect(t - prev < ht_clock_state.compact_limit && id < HT_EH_EXTENDED, 1)) {
		uint32_t w = id | (uint32_t)(t << 5);

		memcpy(p, &w, 4);
		return p + HT_EH_COMPACT_SIZE;
	}
	p[0] = HT_EH_EXTENDED;
	memcpy(p + 1, &id, 4);
	memcpy(p + 5, &t, 8);
	return p + HT_EH_EXTENDED_SIZE;
}

/* Publishes the event ending at `end`: a reader (or a crash) sees it from now on. */
static inline void ht_stream_commit(struct ht_stream *s, uint8_t *end)
{
	uint64_t bits = (uint64_t)(end - s->pkt) * 8;

	s->pos = end;
	/* The content size in the mapped packet is what makes the event durable. */
	__atomic_store_n((uint64_t *)(void *)(s->pkt + HT_PC_CONTENT), bits, __ATOMIC_RELEASE);
}

#endif
