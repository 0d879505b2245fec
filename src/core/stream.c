/*
 * Stream files: packet reservation, the mapped window, packet open/close and
 * loss accounting (see stream.h). Everything here runs once per packet or
 * less, never per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/stream.h"

void (*ht_stream_on_error)(struct ht_stream *s, int err);

/* After a failed reservation, try again at most this often (ns). */
#define HT_RETRY_NS 50000000ull
/* Block mode waits this long for space before it gives up and drops. */
#define HT_BLOCK_WAIT_NS 10000000000ull

static uint64_t retry_interval_raw(void)
{
	if (ht_clock_state.use_tsc && ht_clock_state.tsc_hz > 0)
		return (uint64_t)(ht_clock_state.tsc_hz * (HT_RETRY_NS / 1e9));
	return HT_RETRY_NS;
}

/* Reserves the next packet's bytes on disk. Return: 0 or -errno. */
static int reserve_file(struct ht_stream *s)
{
	uint64_t off = s->file_end, len = s->p.packet_size;
	int r;

	if (off + len > s->p.file_limit)
		return -EFBIG; /* beyond RLIMIT_FSIZE the kernel would send SIGXFSZ */
	r = fallocate(s->fd, 0, (off_t)off, (off_t)len);
	if (r < 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
		r = posix_fallocate(s->fd, (off_t)off, (off_t)len);
		if (r)
			return -r;
	} else if (r < 0) {
		return -errno;
	}
	s->file_end = off + len;
	return 0;
}

/* Makes sure [pkt_off, pkt_off + packet_size) is mapped. Return: 0 or -errno. */
static int map_window(struct ht_stream *s)
{
	uint64_t off = s->pkt_off;
	size_t psz = s->p.packet_size;
	void *m;

	if (s->map && off >= s->map_off && off + psz <= s->map_off + s->map_len)
		return 0;
	if (s->map)
		munmap(s->map, s->map_len);
	s->map = NULL;
	s->last_pkt = NULL;
	/* Mapping past EOF is allowed; only reserved packets are ever touched. */
	m = mmap(NULL, psz * s->p.window, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
	if (m == MAP_FAILED)
		return -errno;
	s->map = m;
	s->map_len = psz * s->p.window;
	s->map_off = off;
	return 0;
}

static void write_context(struct ht_stream *s, const struct ht_anchor *a)
{
	uint8_t *k = s->pkt;
	int cpu = sched_getcpu();

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
	/* The magic goes last: a packet with a magic has a whole context. */
	__atomic_store_n((uint32_t *)(void *)(k + HT_PH_MAGIC), HT_CTF_MAGIC, __ATOMIC_RELEASE);
}

/*
 * Stamps the end anchor and the discard total (a running count at the end
 * of the packet, as LTTng writes it) into the current packet.
 */
static void close_packet(struct ht_stream *s, const struct ht_anchor *a)
{
	ht_put64(s->pkt + HT_PC_TSC_END, a->raw ? a->raw : 1);
	ht_put64(s->pkt + HT_PC_TS_END, a->ns);
	ht_put64(s->pkt + HT_PC_DISCARDED, s->discarded);
	s->last_pkt = s->pkt;
	s->pkt = s->pos = s->end = NULL;
}

void ht_stream_sync_discarded(struct ht_stream *s)
{
	uint8_t *k = s->pkt ? s->pkt : s->last_pkt;

	if (k)
		__atomic_store_n((uint64_t *)(void *)(k + HT_PC_DISCARDED), s->discarded,
				 __ATOMIC_RELAXED);
}

/* Opens the next packet. Return: 0 or -errno (nothing is open then). */
static int open_packet(struct ht_stream *s, const struct ht_anchor *a)
{
	int r = reserve_file(s);

	if (r)
		return r;
	s->pkt_off = s->file_end - s->p.packet_size;
	r = map_window(s);
	if (r) {
		/* Give the reservation back so the file keeps whole packets only. */
		if (ftruncate(s->fd, (off_t)s->pkt_off) == 0)
			s->file_end = s->pkt_off;
		return r;
	}
	s->pkt = s->map + (s->pkt_off - s->map_off);
#ifdef MADV_POPULATE_WRITE
	/* One syscall instead of a page fault per 4 KiB on the hot path. */
	madvise(s->pkt, s->p.packet_size, MADV_POPULATE_WRITE);
#endif
	write_context(s, a);
	s->seq++;
	s->pos = s->pkt + s->ctx_end;
	s->end = s->pkt + s->p.packet_size;
	s->last = a->raw;
	return 0;
}

static void fail(struct ht_stream *s, int err)
{
	if (!s->error && ht_stream_on_error)
		ht_stream_on_error(s, err);
	s->error = err;
	s->retry_at = ht_clock_raw() + retry_interval_raw();
}

static int open_blocking(struct ht_stream *s)
{
	struct timespec nap = {0, 10000000};
	uint64_t deadline = ht_clock_mono_ns() + HT_BLOCK_WAIT_NS;
	struct ht_anchor a;
	int r;

	for (;;) {
		ht_clock_anchor(&a);
		r = open_packet(s, &a);
		if (r != -ENOSPC && r != -EDQUOT)
			return r; /* success, or an error that waiting cannot cure */
		if (ht_clock_mono_ns() > deadline)
			return r;
		nanosleep(&nap, NULL);
	}
}

uint8_t *ht_stream_reserve_slow(struct ht_stream *s, size_t need)
{
	struct ht_anchor a;
	int r;

	if (need > s->p.packet_size - s->ctx_end)
		goto drop; /* can never fit */
	if (!s->pkt && s->error && ht_clock_raw() < s->retry_at)
		goto drop;
	ht_clock_anchor(&a);
	if (s->pkt)
		close_packet(s, &a);
	r = open_packet(s, &a);
	if (r && s->p.block)
		r = open_blocking(s);
	if (r) {
		fail(s, -r);
		goto drop;
	}
	s->error = 0;
	return s->pos;
drop:
	s->discarded++;
	return NULL;
}

struct ht_stream *ht_stream_create(int dirfd, const char *name, const struct ht_stream_params *p)
{
	struct ht_stream *s = calloc(1, sizeof *s);
	struct ht_anchor a;
	int r, err;

	if (!s)
		return NULL;
	s->p = *p;
	s->fd = -1;
	s->ctx_end = ht_format_context_end(p->sc);
	strncpy(s->procname, p->procname ? p->procname : "", HT_PROCNAME_LEN - 1);
	memcpy(s->uuid, p->uuid, 16);
	snprintf(s->name, sizeof s->name, "%s", name);
	pthread_mutex_init(&s->lock, NULL);
	s->fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0)
		goto err;
	ht_clock_anchor(&a);
	r = open_packet(s, &a);
	if (r && s->p.block)
		r = open_blocking(s);
	if (r) {
		errno = -r;
		goto err;
	}
	return s;
err:
	err = errno;
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
	if (!s)
		return;
	ht_stream_sync_discarded(s);
	if (s->pkt) {
		struct ht_anchor a;
		uint64_t content = (uint64_t)(s->pos - s->pkt);

		/* The last packet ends at its content: no padding on disk. */
		ht_put64(s->pkt + HT_PC_PACKET, content * 8);
		ht_clock_anchor(&a);
		close_packet(s, &a);
		if (ftruncate(s->fd, (off_t)(s->pkt_off + content)) == 0)
			s->file_end = s->pkt_off + content;
	}
	ht_stream_abandon(s);
}

void ht_stream_abandon(struct ht_stream *s)
{
	if (!s)
		return;
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
