/*
 * Packet rings: how a recorded stream hands finished packets to a consumer
 * (`hetrace record`) instead of writing them itself, so the traced thread
 * never pays for copying packets into the page cache (measured here: about
 * 5.5 of 15.5 ns per 8-byte event went to the pwrite of full packets).
 *
 * A ring is the file ".<stream>.ring" next to the stream file: one header
 * page, then `nslots` packet slots, mapped MAP_SHARED by both sides. The
 * producer fills slot `committed % nslots` and publishes it by advancing
 * `committed`; it opens a new packet only in a slot the consumer has released
 * (`consumed`), and while there is none it drops events and counts them. The
 * consumer appends published packets to the stream file and advances
 * `consumed`. The file outlives its processes, so after a crash (of the
 * program or of `hetrace record`) the final drain of `check --repair` still
 * finds every published packet and the one in progress.
 *
 * The doorbell (".doorbell" in the trace directory) is a page of futex
 * words: a producer bumps `ring` and wakes the consumer when a ring is a
 * quarter full or a new ring appears (`rings` is bumped then too). The wake
 * is a system call (a few microseconds here), so a producer makes it only
 * while the consumer says it sleeps (`sleeping`); both sides order their
 * store before their load with a full barrier, so neither misses the other.
 */
#ifndef HT_RING_H
#define HT_RING_H

#include <stddef.h>
#include <stdint.h>

#define HT_RING_MAGIC 0x48545247u /* "HTRG" */
#define HT_RING_SUFFIX ".ring"
#define HT_RING_HEADER 4096
#define HT_RING_SLOTS_DEFAULT 16
#define HT_DOORBELL_FILE ".doorbell"

struct ht_doorbell {
	uint32_t ring;	   /* bumped on every wake-up */
	uint32_t rings;	   /* bumped when a ring is created */
	uint32_t sleeping; /* the consumer waits on `ring` (or is about to) */
};

struct ht_ring_header {
	uint32_t magic;
	uint32_t nslots;
	uint64_t packet_size;
	uint32_t closed; /* producer: done (last packet published) */
	uint8_t pad0[44];
	/* Producer's line. */
	uint64_t committed; /* packets published */
	uint64_t discarded; /* its running discard total */
	uint8_t pad1[48];
	/* Consumer's line. */
	uint64_t consumed;	 /* packets released (written or lost) */
	uint64_t written;	 /* packets in the stream file */
	uint64_t file_end;	 /* bytes in the stream file */
	uint64_t lost_events;	 /* events of packets it could not write */
	uint64_t last_off;	 /* the last packet written: offset */
	uint64_t last_discarded; /* and its running total */
	uint32_t busy;		 /* held by whoever drains (ht_ring_trylock) */
	int32_t error;		 /* errno of the first failed append, by whoever drained */
	uint8_t pad2[8];
};

/*
 * Draining is exclusive: the consumer drains, and so does the producer
 * itself when it finds its ring full (the consumer did not get the CPU in
 * time), rather than drop events. Return: nonzero when taken.
 */
static inline int ht_ring_trylock(struct ht_ring_header *h)
{
	uint32_t free_ = 0;

	return __atomic_compare_exchange_n(&h->busy, &free_, 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void ht_ring_unlock(struct ht_ring_header *h)
{
	__atomic_store_n(&h->busy, 0, __ATOMIC_RELEASE);
}

/* Return: the slot for packet `seq` in the mapped ring `h`. */
static inline uint8_t *ht_ring_slot(struct ht_ring_header *h, uint64_t seq)
{
	return (uint8_t *)h + HT_RING_HEADER + (seq % h->nslots) * h->packet_size;
}

/* Return: the size of a ring file of `nslots` packets of `packet_size` bytes. */
static inline uint64_t ht_ring_file_size(unsigned int nslots, size_t packet_size)
{
	return HT_RING_HEADER + (uint64_t)nslots * packet_size;
}

/* Return: nonzero when the mapped file of `size` bytes holds a sound ring header. */
int ht_ring_valid(const struct ht_ring_header *h, uint64_t size);

/* A ring file as a consumer holds it. */
struct ht_ring_file {
	struct ht_ring_header *h; /* mapped */
	uint64_t size;
	int fd; /* the stream file, opened for writing */
};

/*
 * Opens ring file `name` (".<stream>.ring") in dirfd and its stream file.
 * Return: 0, -EAGAIN when its producer has not finished setting it up, or
 * -errno (-EBADMSG: not a ring).
 */
int ht_ring_file_open(int dirfd, const char *name, struct ht_ring_file *rf);
/* Unmaps and closes; remove: also deletes the ring file. */
void ht_ring_file_close(struct ht_ring_file *rf, int dirfd, const char *name, int remove);

struct ht_ring_drain_stats {
	uint64_t packets;  /* appended */
	uint64_t salvaged; /* packets in progress taken by a final drain */
	uint64_t lost;	   /* events in packets that could not be written */
	int error;	   /* errno of the first failed write, 0 if none */
};

/*
 * Appends the published packets of ring `h`, `max` at most, to the stream file `fd` (never
 * past `file_limit` bytes) and releases their slots. Packets are renumbered
 * so the file has no sequence gaps, and events the consumer lost are added
 * to the running discard totals. Not final: stops at the first failed write
 * and retries next time (the producer drops while the ring is full). Final:
 * also takes the packet in progress, counts packets it cannot write as lost,
 * brings the last written packet's discard total up to date, and marks the
 * ring closed (a stream with no packet written keeps its losses in the ring:
 * see ring/salvage.h).
 * Return: packets appended.
 */
uint64_t ht_ring_drain(struct ht_ring_header *h, int fd, uint64_t file_limit, int final,
		       uint64_t max, struct ht_ring_drain_stats *st);

/*
 * Return: the number of events in the packet at pkt (`len` bytes readable),
 * counted by walking them; stops at the first undecodable event.
 */
uint64_t ht_packet_count_events(const uint8_t *pkt, size_t len);

#endif
