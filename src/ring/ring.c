/*
 * Draining packet rings into stream files (see ring.h). Shared by the
 * consumer in `hetrace record` and by `hetrace check --repair`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "common/io.h"
#include "ring/ring.h"

int ht_ring_valid(const struct ht_ring_header *h, uint64_t size)
{
	uint64_t ps = h->packet_size;

	return size >= HT_RING_HEADER && h->magic == HT_RING_MAGIC && h->nslots >= 2 &&
	       h->nslots <= 4096 && ps >= 4096 && ps <= (1u << 24) && !(ps & (ps - 1)) &&
	       ht_ring_file_size(h->nslots, (size_t)ps) <= size;
}

int ht_ring_file_open(int dirfd, const char *name, struct ht_ring_file *rf)
{
	size_t n = strlen(name), sl = strlen(HT_RING_SUFFIX);
	char stream[256];
	struct stat sb;
	void *m;
	int fd, r;

	rf->h = NULL;
	rf->fd = -1;
	if (name[0] != '.' || n <= sl + 1 || n - sl - 1 >= sizeof stream ||
	    strcmp(name + n - sl, HT_RING_SUFFIX))
		return -EINVAL;
	snprintf(stream, sizeof stream, "%.*s", (int)(n - sl - 1), name + 1);
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || sb.st_size < HT_RING_HEADER) {
		close(fd);
		return -EAGAIN; /* created, not yet sized */
	}
	m = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	r = m == MAP_FAILED ? -errno : 0;
	close(fd);
	if (r)
		return r;
	rf->h = m;
	rf->size = (uint64_t)sb.st_size;
	if (!ht_ring_valid(rf->h, rf->size)) {
		r = __atomic_load_n(&rf->h->magic, __ATOMIC_ACQUIRE) ? -EBADMSG : -EAGAIN;
		munmap(m, (size_t)sb.st_size);
		rf->h = NULL;
		return r;
	}
	rf->fd = openat(dirfd, stream, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (rf->fd < 0) {
		r = -errno;
		munmap(m, (size_t)sb.st_size);
		rf->h = NULL;
		return r;
	}
	return 0;
}

void ht_ring_file_close(struct ht_ring_file *rf, int dirfd, const char *name, int remove)
{
	if (rf->h)
		munmap(rf->h, (size_t)rf->size);
	if (rf->fd >= 0)
		close(rf->fd);
	rf->h = NULL;
	rf->fd = -1;
	if (remove)
		unlinkat(dirfd, name, 0);
}

uint64_t ht_packet_count_events(const uint8_t *pkt, size_t len)
{
	enum ht_stream_class sc = (enum ht_stream_class)ht_le32(pkt + HT_PH_STREAM_ID);
	size_t ctx;
	uint64_t content, n = 0;
	const uint8_t *p, *end;

	if (len < HT_PC_THREAD_END || (unsigned)sc >= HT_SC_COUNT)
		return 0;
	ctx = ht_format_context_end(sc);
	content = ht_le64(pkt + HT_PC_CONTENT) / 8;
	if (content < ctx || content > len)
		return 0;
	p = pkt + ctx;
	end = pkt + content;
	while (p + HT_EH_COMPACT_SIZE <= end) {
		uint32_t id = p[0] & 0x1f;
		const struct ht_event_class *ec;
		long size;

		if (id == HT_EH_EXTENDED) {
			if (p + HT_EH_EXTENDED_SIZE > end)
				break;
			id = ht_le32(p + 1);
			p += HT_EH_EXTENDED_SIZE;
		} else {
			p += HT_EH_COMPACT_SIZE;
		}
		ec = ht_format_event_class(sc, id);
		size = ec ? ht_format_payload_size(ec, p, (size_t)(end - p)) : -1;
		if (size < 0)
			break;
		p += size;
		n++;
	}
	return n;
}

/* Return: the bytes of the packet at pkt (content when `open`, else its trimmed size), or 0. */
static uint64_t packet_len(const struct ht_ring_header *h, const uint8_t *pkt, int open)
{
	enum ht_stream_class sc = (enum ht_stream_class)ht_le32(pkt + HT_PH_STREAM_ID);
	uint64_t len = ht_le64(pkt + (open ? HT_PC_CONTENT : HT_PC_PACKET)) / 8;

	if (ht_le32(pkt + HT_PH_MAGIC) != HT_CTF_MAGIC || (unsigned)sc >= HT_SC_COUNT)
		return 0;
	if (len < ht_format_context_end(sc) || len > h->packet_size)
		return 0;
	if (open && len == ht_format_context_end(sc))
		return 0; /* opened, nothing in it */
	return len;
}

/*
 * Appends one packet (the slot is ours until released): renumbered, and
 * with the events this consumer lost added to its running discard total.
 */
static int append(struct ht_ring_header *h, uint8_t *pkt, uint64_t len, int fd,
		  uint64_t file_limit)
{
	uint64_t disc = ht_le64(pkt + HT_PC_DISCARDED) + h->lost_events;
	int r;

	if (h->file_end + len > file_limit)
		return -EFBIG; /* beyond RLIMIT_FSIZE the kernel would send SIGXFSZ */
	ht_put64(pkt + HT_PC_SEQ, h->written);
	ht_put64(pkt + HT_PC_DISCARDED, disc);
	r = ht_pwrite_all(fd, pkt, (size_t)len, h->file_end);
	if (r) {
		if (ftruncate(fd, (off_t)h->file_end))
			r = r ? r : -errno; /* keep whole packets only */
		return r;
	}
	/* This order is what reconcile() relies on after a crash in here. */
	h->last_off = h->file_end;
	h->last_discarded = disc;
	__atomic_store_n(&h->written, h->written + 1, __ATOMIC_RELEASE);
	h->file_end += len;
	return 0;
}

/*
 * A drain killed between appending a packet and releasing its slot (the
 * producer draining for itself, or `hetrace record`) left that packet both
 * in the file and in the ring. It is recognised by the number append() gave
 * it (written - 1; a packet not yet appended carries its ring index, which
 * is >= written): release it instead of appending it twice.
 */
static void reconcile(struct ht_ring_header *h, uint64_t committed)
{
	uint64_t seq = h->consumed;
	const uint8_t *pkt;
	uint64_t len;

	if (seq >= committed || !h->written)
		return;
	pkt = ht_ring_slot(h, seq);
	len = ht_le64(pkt + HT_PC_PACKET) / 8;
	if (ht_le64(pkt + HT_PC_SEQ) + 1 != h->written || len > h->packet_size)
		return;
	h->file_end = h->last_off + len;
	__atomic_store_n(&h->consumed, seq + 1, __ATOMIC_RELEASE);
}

/* A packet that will never be written: its events join the losses. */
static void lose(struct ht_ring_header *h, const uint8_t *pkt, uint64_t len,
		 struct ht_ring_drain_stats *st)
{
	uint64_t n = len ? ht_packet_count_events(pkt, (size_t)len) : 0;

	h->lost_events += n;
	st->lost += n;
}

uint64_t ht_ring_drain(struct ht_ring_header *h, int fd, uint64_t file_limit, int final,
		       uint64_t max, struct ht_ring_drain_stats *st)
{
	uint64_t committed = __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE);
	uint64_t seq = h->consumed, n = 0;
	uint64_t total;
	uint8_t v[8];

	if (committed - h->consumed > h->nslots)
		h->consumed = committed - h->nslots; /* a corrupt header: take what the slots hold */
	reconcile(h, committed);
	seq = h->consumed;
	if (max < committed - seq)
		committed = seq + max;
	while (seq < committed) {
		uint8_t *pkt = ht_ring_slot(h, seq);
		uint64_t len = packet_len(h, pkt, 0);
		int r = len ? append(h, pkt, len, fd, file_limit) : -EBADMSG;

		if (r) {
			if (!st->error)
				st->error = -r;
			if (!h->error)
				h->error = -r; /* for the consumer's warning, whoever drained */
			if (!final && r != -EBADMSG && r != -EFBIG)
				break; /* a full disk may clear: the producer drops meanwhile */
			lose(h, pkt, len, st);
		} else {
			n++;
			st->packets++;
		}
		__atomic_store_n(&h->consumed, ++seq, __ATOMIC_RELEASE);
	}
	if (!final || seq != __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE))
		return n;
	if (!__atomic_load_n(&h->closed, __ATOMIC_ACQUIRE)) {
		/* The packet in progress when its producer stopped. */
		uint8_t *pkt = ht_ring_slot(h, seq);
		uint64_t len = packet_len(h, pkt, 1);

		if (len && ht_le64(pkt + HT_PC_SEQ) == seq) {
			ht_put64(pkt + HT_PC_PACKET, len * 8);
			if (append(h, pkt, len, fd, file_limit) == 0) {
				st->salvaged++;
				n++;
			} else {
				lose(h, pkt, len, st);
			}
		}
	}
	/*
	 * Losses after the last packet written (the producer's drops with no
	 * packet open, packets no drain could write) go into that packet's
	 * running total: an 8-byte overwrite that a full disk allows.
	 */
	total = __atomic_load_n(&h->discarded, __ATOMIC_ACQUIRE) + h->lost_events;
	if (h->written && total > h->last_discarded) {
		ht_put64(v, total);
		if (ht_pwrite_all(fd, v, 8, h->last_off + HT_PC_DISCARDED) == 0)
			h->last_discarded = total;
	}
	/* Done: a later final drain (a repair) must not take the packet in progress again. */
	__atomic_store_n(&h->closed, 1, __ATOMIC_RELEASE);
	return n;
}
