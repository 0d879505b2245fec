/*
 * Stream files: the current packet, packet switch (trim + pwrite, or publish
 * to the consumer's ring), loss accounting (see stream.h). Everything here
 * runs once per packet or less, never per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/stream.h"
#include "core/export.h"
#include "common/io.h"
#include "ring/ring.h"

struct ht_doorbell *ht_stream_doorbell;
void (*ht_stream_on_error)(struct ht_stream *s, int err);
void (*ht_stream_on_packet)(struct ht_stream *s, size_t need);

/*
 * Block mode waits for space at most this long in all, per process (the
 * waits of all its threads added up); then it drops and counts like
 * discard mode. A wait per packet instead held a 0.04 s program on a disk
 * that stayed full for more than 300 s, 10 s at every packet switch.
 */
#define HT_BLOCK_BUDGET_NS 10000000000ull
static uint64_t block_waited_ns;
/*
 * A full ring whose consumer is writing a packet (it holds the drain lock
 * for one packet at a time, tens of microseconds) is waited for this long
 * before events are dropped: a consumer that lost its CPU in the middle gets
 * it back within a scheduler slice or two.
 */
#define HT_RING_BUSY_WAIT_NS 20000000ull
/* While dropping, a full ring is looked at again after this long (not per event). */
#define HT_RING_RETRY_NS 100000000ull

/* Return: nonzero while a stream of params p may still wait for space (block mode, budget left). */
static int may_block(const struct ht_stream_params *p)
{
	return p->block && __atomic_load_n(&block_waited_ns, __ATOMIC_RELAXED) < HT_BLOCK_BUDGET_NS;
}

/* Block mode: sleeps `ns` out of the budget. Return: 0, or -1 when it is spent. */
static int block_wait(uint64_t ns)
{
	struct timespec nap = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	if (__atomic_add_fetch(&block_waited_ns, ns, __ATOMIC_RELAXED) > HT_BLOCK_BUDGET_NS)
		return -1;
	nanosleep(&nap, NULL);
	return 0;
}

static void write_context(struct ht_stream *s, const struct ht_anchor *a)
{
	uint8_t *k = s->buf;
	int cpu = sched_getcpu();

	/* A stale magic first: a crash in here leaves no half-written context. */
	__atomic_store_n((uint32_t *)(void *)(k + HT_PH_MAGIC), 0, __ATOMIC_RELEASE);
	memcpy(k + HT_PH_UUID, s->uuid, 16);
	ht_put32(k + HT_PH_STREAM_ID, (uint32_t)s->p.sc);
	ht_put64(k + HT_PH_INSTANCE, s->p.instance_id);
	ht_put64(k + HT_PC_TS_BEGIN, a->ns);
	ht_put64(k + HT_PC_TS_END, 0);
	ht_put64(k + HT_PC_CONTENT, (uint64_t)s->ctx_end * 8);
	ht_put64(k + HT_PC_PACKET, (uint64_t)s->p.packet_size * 8);
	ht_put64(k + HT_PC_SEQ, s->seq);
	ht_put64(k + HT_PC_DISCARDED, s->discarded);
	ht_put32(k + HT_PC_CPU, cpu < 0 ? 0 : (uint32_t)cpu);
	ht_put32(k + HT_PC_VPID, (uint32_t)s->p.vpid);
	ht_put32(k + HT_PC_VTID, (uint32_t)s->p.vtid);
	memcpy(k + HT_PC_PROCNAME, s->procname, HT_PROCNAME_LEN);
	ht_put64(k + HT_PC_TSC_BEGIN, a->raw);
	ht_put64(k + HT_PC_TSC_END, 0);
	k[HT_PC_TS_STATE] = ht_clock_state.use_tsc ? HT_TS_RAW : HT_TS_NS;
	if (s->p.sc == HT_SC_DEVICE) {
		ht_put32(k + HT_PC_DEVICE, s->p.device);
		ht_put64(k + HT_PC_QUEUE, s->p.queue);
	}
	__atomic_store_n((uint32_t *)(void *)(k + HT_PH_MAGIC), HT_CTF_MAGIC, __ATOMIC_RELEASE);
}

static void open_packet(struct ht_stream *s, const struct ht_anchor *a)
{
	s->pkt = s->buf;
	write_context(s, a);
	s->pos = s->pkt + s->ctx_end;
	s->end = s->pkt + s->p.packet_size;
	s->last = a->raw;
}

/*
 * Events in the current packet, counted by walking it: only needed when a
 * packet is lost, so the hot path keeps no per-event counter.
 */
static uint64_t count_events(const struct ht_stream *s)
{
	return ht_packet_count_events(s->pkt, (size_t)(s->pos - s->pkt));
}

/* Ring mode: wakes the consumer if it sleeps (one futex call; rare, see ring_publish). */
static void ring_wake(void)
{
	struct ht_doorbell *d = ht_stream_doorbell;

	if (!d)
		return;
	__atomic_add_fetch(&d->ring, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&d->sleeping, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &d->ring, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * Ring mode: drains the ring from this thread. Return: 1 if it made room,
 * 0 if it could not (write errors), -1 if someone else is draining it.
 */
static int ring_drain_here(struct ht_stream *s)
{
	struct ht_ring_header *h = s->ring;
	struct ht_ring_drain_stats st = {0};
	uint64_t before;

	if (!ht_ring_trylock(h))
		return -1;
	before = h->consumed;
	ht_ring_drain(h, s->fd, s->p.file_limit, 0, UINT64_MAX, &st);
	ht_ring_unlock(h);
	return h->consumed != before; /* written, or lost for good (counted) */
}

/*
 * Ring mode: publishes the closed packet. The consumer is woken at a quarter
 * full; at half full it evidently has no CPU to spare (every core busy with
 * the program), so this thread writes the packets itself, as it would
 * without a consumer, rather than let the ring fill.
 */
static void ring_publish(struct ht_stream *s)
{
	struct ht_ring_header *h = s->ring;
	uint64_t c = h->committed + 1, pending;

	__atomic_store_n(&h->discarded, s->discarded, __ATOMIC_RELAXED);
	__atomic_store_n(&h->committed, c, __ATOMIC_RELEASE);
	s->seq = c;
	s->written++;
	pending = c - __atomic_load_n(&h->consumed, __ATOMIC_ACQUIRE);
	if (pending >= h->nslots / 2)
		ring_drain_here(s);
	else if (pending >= h->nslots / 4)
		ring_wake();
}

/*
 * Ring mode: faults in slot `seq` on its first use, in one call rather than
 * a page fault per page while events are written. Slots are faulted in as
 * the ring first fills, not when it is made: a thread that writes little
 * holds one packet of memory, not the whole ring (200 threads of 100 events
 * each: 212 MB of RSS when the 16 slots were faulted in up front, 18 MB now).
 */
static void ring_populate(struct ht_stream *s, uint64_t seq)
{
	s->ring_populated = seq + 1;
#ifdef MADV_POPULATE_WRITE
	madvise(ht_ring_slot(s->ring, seq), s->p.packet_size, MADV_POPULATE_WRITE);
#endif
}

/*
 * Ring mode: points buf at a free slot for the next packet. Return: 1, or 0
 * when the consumer has released none (block mode waits first, within its
 * budget).
 */
static int ring_slot(struct ht_stream *s)
{
	struct ht_ring_header *h = s->ring;
	uint64_t busy_until = 0;

	while (h->committed - __atomic_load_n(&h->consumed, __ATOMIC_ACQUIRE) >= h->nslots) {
		/* Dropping already (disk full, consumer stuck): retry only now and then. */
		if (s->error && !may_block(&s->p) && ht_clock_mono_ns() < s->ring_retry)
			return 0;
		int r = ring_drain_here(s);

		if (r > 0)
			continue;
		if (r < 0) {
			/* The consumer is writing one packet: that frees a slot soon. */
			uint64_t now = ht_clock_mono_ns();

			if (!busy_until)
				busy_until = now + HT_RING_BUSY_WAIT_NS;
			if (now < busy_until) {
				struct timespec brief = {0, 50000};

				/* Yield first; sleep if the consumer shares this CPU. */
				if (busy_until - now > HT_RING_BUSY_WAIT_NS - 200000)
					sched_yield();
				else
					nanosleep(&brief, NULL);
				continue;
			}
		}
		if (may_block(&s->p) || !s->error)
			ring_wake(); /* once per episode of drops */
		s->error = ENOBUFS;
		s->ring_retry = ht_clock_mono_ns() + HT_RING_RETRY_NS;
		if (!may_block(&s->p) || block_wait(1000000))
			return 0;
	}
	s->error = 0;
	/* The first pass only: a slot keeps its pages (a madvise is ~3.5 us here). */
	if (h->committed >= s->ring_populated && h->committed < h->nslots)
		ring_populate(s, h->committed);
	s->buf = ht_ring_slot(h, h->committed);
	return 1;
}

/* Appends the packet (already trimmed). Return: 0 or -errno. */
static int append(struct ht_stream *s, size_t len)
{
	int r;

	if (s->file_end + len > s->p.file_limit)
		return -EFBIG; /* beyond RLIMIT_FSIZE the kernel would send SIGXFSZ */
	r = ht_pwrite_all(s->fd, s->buf, len, s->file_end);
	if (r && ftruncate(s->fd, (off_t)s->file_end))
		r = r ? r : -errno; /* keep whole packets only */
	return r;
}

static int append_blocking(struct ht_stream *s, size_t len)
{
	int r;

	for (;;) {
		r = append(s, len);
		if (r != -ENOSPC && r != -EDQUOT)
			return r; /* written, or an error that waiting cannot cure */
		if (!may_block(&s->p) || block_wait(10000000))
			return r;
	}
}

/*
 * Ends the current packet at anchor a: stamps the end anchor and discard
 * total, trims it to its content and appends it. A packet that cannot be
 * written is dropped and its events counted.
 */
static void close_packet(struct ht_stream *s, const struct ht_anchor *a)
{
	uint8_t *k = s->pkt;
	size_t len = (size_t)(s->pos - k);
	int r;

	ht_put64(k + HT_PC_TSC_END, a->raw ? a->raw : 1);
	ht_put64(k + HT_PC_TS_END, a->ns);
	ht_put64(k + HT_PC_DISCARDED, s->discarded);
	ht_put64(k + HT_PC_PACKET, (uint64_t)len * 8);
	if (s->ring) {
		ring_publish(s);
		s->pkt = s->pos = s->end = NULL;
		return;
	}
	r = may_block(&s->p) ? append_blocking(s, len) : append(s, len);
	if (r) {
		if (!s->error && ht_stream_on_error)
			ht_stream_on_error(s, -r);
		s->error = -r;
		s->discarded += count_events(s);
	} else {
		s->error = 0;
		s->last_off = s->file_end;
		s->last_discarded = s->discarded;
		s->file_end += len;
		s->written++;
		s->seq++;
	}
	s->pkt = s->pos = s->end = NULL;
}

HT_EXPORT_BOUND uint8_t *ht_stream_reserve_slow(struct ht_stream *s, size_t need)
{
	struct ht_anchor a;

	if (!s->buf || need > s->p.packet_size - s->ctx_end) {
		s->discarded++; /* closed, or can never fit */
		return NULL;
	}
	ht_clock_anchor(&a);
	if (s->pkt)
		close_packet(s, &a);
	if (s->ring && !ring_slot(s)) {
		s->discarded++; /* the consumer is behind: drop and count */
		return NULL;
	}
	open_packet(s, &a);
	if (s->sources && ht_stream_on_packet)
		ht_stream_on_packet(s, need); /* leaves `need` bytes free */
	return s->pos;
}

void ht_stream_sync_discarded(struct ht_stream *s)
{
	uint64_t total = s->discarded;
	uint8_t v[8];

	if (s->pkt)
		__atomic_store_n((uint64_t *)(void *)(s->pkt + HT_PC_DISCARDED), total,
				 __ATOMIC_RELAXED);
	if (s->ring) {
		/* The consumer brings the last packet it wrote up to date. */
		__atomic_store_n(&s->ring->discarded, total, __ATOMIC_RELEASE);
		return;
	}
	if (s->written && total != s->last_discarded) {
		ht_put64(v, total);
		if (pwrite(s->fd, v, 8, (off_t)(s->last_off + HT_PC_DISCARDED)) == 8)
			s->last_discarded = total;
	}
}

static void cur_name(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, HT_CUR_PREFIX "%s" HT_CUR_SUFFIX, name);
}

/*
 * Ring mode: creates and maps ".<name>.ring" and tells the consumer. Fails
 * (errno set, nothing left behind) where the disk or RLIMIT_FSIZE has no
 * room for it; the caller then falls back to writing packets itself.
 */
static int ring_create(struct ht_stream *s, const char *name)
{
	const struct ht_stream_params *p = &s->p;
	uint64_t size = ht_ring_file_size(p->ring_slots, p->packet_size);
	struct ht_ring_header *h;
	char file[80];
	int fd, err;

	if (!ht_stream_doorbell || size > p->file_limit) {
		errno = EFBIG;
		return -1;
	}
	snprintf(file, sizeof file, HT_CUR_PREFIX "%s" HT_RING_SUFFIX, name);
	fd = openat(s->dirfd, file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	flock(fd, LOCK_SH); /* while held, this stream is alive: see ht_salvage_live_writer() */
	/* Reserve the blocks now: a full disk fails here, never as SIGBUS later. */
	err = posix_fallocate(fd, 0, (off_t)size);
	h = err ? MAP_FAILED : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED) {
		err = err ? err : errno;
		close(fd);
		unlinkat(s->dirfd, file, 0);
		errno = err;
		return -1;
	}
#ifdef MADV_POPULATE_WRITE
	madvise(h, HT_RING_HEADER, MADV_POPULATE_WRITE); /* slots: see ring_populate() */
#endif
	h->nslots = p->ring_slots;
	h->packet_size = p->packet_size;
	__atomic_store_n(&h->magic, HT_RING_MAGIC, __ATOMIC_RELEASE);
	s->ring = h;
	s->map_size = size;
	s->cur_fd = fd;
	ring_populate(s, 0);
	s->buf = ht_ring_slot(h, 0);
	__atomic_add_fetch(&ht_stream_doorbell->rings, 1, __ATOMIC_RELEASE);
	ring_wake();
	return 0;
}

/*
 * Reserves a stream file's first packet; in block mode a full disk is waited
 * for out of the same budget as packet switches (a stream that could not be
 * created at once lost everything its thread recorded). Return: 0 or an errno.
 */
static int reserve_blocking(const struct ht_stream_params *p, int fd, off_t size)
{
	int err;

	while ((err = posix_fallocate(fd, 0, size)) == ENOSPC || err == EDQUOT)
		if (!may_block(p) || block_wait(10000000))
			break;
	return err;
}

struct ht_stream *ht_stream_create(int dirfd, const char *name, const struct ht_stream_params *p)
{
	struct ht_stream *s = calloc(1, sizeof *s);
	char cur[80];
	struct ht_anchor a;
	void *m;
	int err;

	if (!s)
		return NULL;
	s->p = *p;
	s->fd = s->cur_fd = -1;
	s->dirfd = dirfd;
	s->ctx_end = ht_format_context_end(p->sc);
	strncpy(s->procname, p->procname ? p->procname : "", HT_PROCNAME_LEN - 1);
	memcpy(s->uuid, p->uuid, 16);
	snprintf(s->name, sizeof s->name, "%s", name);
	cur_name(cur, sizeof cur, s->name);
	s->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0)
		goto err;
	if (p->ring_slots > 1 && ring_create(s, name) == 0) {
		ht_clock_anchor(&a);
		open_packet(s, &a);
		return s;
	}
	s->cur_fd = openat(dirfd, cur, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->cur_fd < 0)
		goto err;
	flock(s->cur_fd, LOCK_SH);
	/* Reserve the blocks now: a full disk fails here, never as SIGBUS later. */
	errno = reserve_blocking(p, s->cur_fd, (off_t)p->packet_size);
	if (errno)
		goto err;
	m = mmap(NULL, p->packet_size, PROT_READ | PROT_WRITE, MAP_SHARED, s->cur_fd, 0);
	if (m == MAP_FAILED)
		goto err;
	s->buf = m;
	s->map_size = p->packet_size;
#ifdef MADV_POPULATE_WRITE
	madvise(s->buf, p->packet_size, MADV_POPULATE_WRITE); /* fault it in once */
#endif
	ht_clock_anchor(&a);
	open_packet(s, &a);
	return s;
err:
	err = errno;
	if (s->cur_fd >= 0) {
		close(s->cur_fd);
		unlinkat(dirfd, cur, 0);
	}
	if (s->fd >= 0) {
		close(s->fd);
		unlinkat(dirfd, name, 0);
	}
	free(s);
	errno = err;
	return NULL;
}

void ht_stream_destroy(struct ht_stream *s)
{
	char cur[80];

	if (!s)
		return;
	if (s->pkt) {
		struct ht_anchor a;

		ht_clock_anchor(&a);
		close_packet(s, &a);
	}
	ht_stream_sync_discarded(s);
	if (s->ring) {
		/* The consumer writes what is left, then removes the ring. */
		__atomic_store_n(&s->ring->closed, 1, __ATOMIC_RELEASE);
		ring_wake();
	} else if (s->written || !s->discarded) {
		/* Written out (or counted as lost): the current-packet file has done its job. */
		cur_name(cur, sizeof cur, s->name);
		unlinkat(s->dirfd, cur, 0);
	}
	/*
	 * Else no packet of the stream could be written (a full disk): the last one
	 * stays in its file with the losses in its context, for the salvage at the
	 * end of the recording to append (if there is room by then) or count.
	 */
	ht_stream_abandon(s);
}

void ht_stream_abandon(struct ht_stream *s)
{
	if (!s)
		return;
	if (s->ring)
		munmap(s->ring, s->map_size);
	else if (s->buf)
		munmap(s->buf, s->map_size);
	if (s->fd >= 0)
		close(s->fd);
	if (s->cur_fd >= 0)
		close(s->cur_fd);
	free(s);
}
