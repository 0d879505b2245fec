/*
 * A stream: one CTF stream file written through a window of the file mapped
 * MAP_SHARED. Each sub-buffer of the window is one CTF packet. The producer
 * writes events straight into the page cache, so no thread is added to the
 * traced process and every committed event survives SIGKILL (the kernel
 * writes the pages back). Packets are reserved with fallocate() so a full
 * disk shows up as a failed reservation (counted losses), never as SIGBUS.
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
#include "format/format.h"

struct ht_stream_params {
	enum ht_stream_class sc;
	int vpid;
	int vtid;
	uint32_t device; /* device streams */
	uint64_t queue;
	const char *procname;
	const uint8_t *uuid;   /* 16 bytes, the process trace's uuid */
	uint64_t instance_id;  /* stream_instance_id */
	size_t packet_size;    /* bytes, power of two, >= 4096 */
	unsigned int window;   /* packets mapped at once */
	int block;	       /* block mode: wait for space instead of dropping */
	uint64_t file_limit;   /* RLIMIT_FSIZE, or UINT64_MAX */
};

struct ht_stream {
	/* Producer fields, touched by every event: keep them on one line. */
	uint8_t *pos; /* next free byte in the current packet */
	uint8_t *end; /* end of the current packet; pos == end == NULL when none */
	uint8_t *pkt; /* start of the current packet */
	uint64_t last; /* raw timestamp of the last event */
	uint64_t discarded; /* running total, written in each packet context */
	uint64_t retry_at;  /* raw time of the next attempt after a failure */
	uint64_t events;    /* committed events (statistics) */

	/* Cold fields. */
	int fd;
	int error; /* errno of the last failed packet reservation, 0 if none */
	uint8_t *last_pkt; /* the packet closed last, while still mapped */
	uint8_t *map;
	size_t map_len;
	uint64_t map_off;  /* file offset of map[0] */
	uint64_t pkt_off;  /* file offset of the current packet */
	uint64_t file_end; /* bytes reserved in the file */
	uint64_t seq;
	size_t ctx_end;
	struct ht_stream_params p;
	char procname[HT_PROCNAME_LEN];
	uint8_t uuid[16];
	pthread_mutex_t lock; /* for streams shared between threads */
	struct ht_stream *next, *prev; /* session registry */
	char name[48];
};

/*
 * Creates the stream file `name` in dirfd (O_EXCL, O_NOFOLLOW, 0600) and
 * opens its first packet. Return: the stream, or NULL with errno set.
 */
struct ht_stream *ht_stream_create(int dirfd, const char *name, const struct ht_stream_params *p);
/* Closes the current packet (trimmed to its content), unmaps, closes, frees. */
void ht_stream_destroy(struct ht_stream *s);
/* After fork, in the child: drop the parent's stream without touching the file. */
void ht_stream_abandon(struct ht_stream *s);
/*
 * Writes the running discard total into the open packet, or into the last
 * closed one when none is open, so losses after the last packet switch are
 * not lost themselves. Racy by design when another thread owns s (a single
 * aligned store of a counter); used at process exit.
 */
void ht_stream_sync_discarded(struct ht_stream *s);

/* Slow path of ht_stream_reserve. Return: a pointer to `need` bytes, or NULL (counted). */
uint8_t *ht_stream_reserve_slow(struct ht_stream *s, size_t need);

/* Called once per process when a reservation first fails; set by the session. */
extern void (*ht_stream_on_error)(struct ht_stream *s, int err);

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
	s->events++;
	/* The content size in the mapped packet is what makes the event durable. */
	__atomic_store_n((uint64_t *)(void *)(s->pkt + HT_PC_CONTENT), bits, __ATOMIC_RELEASE);
}

#endif
