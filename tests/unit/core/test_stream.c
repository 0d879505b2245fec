/*
 * Unit tests for stream files: many packets through the reused
 * current-packet buffer, packet header/context values, trimmed packets,
 * exact discard accounting when packets cannot be written (and recovery when
 * space returns), and exclusive file creation. Read back through the
 * analysis reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "analysis/trace.h"
#include "core/stream.h"

#define PER_PACKET 247

static const uint8_t uuid[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};

static struct ht_stream *make(int dirfd, const char *name, uint64_t limit)
{
	struct ht_stream_params p = {
		.sc = HT_SC_THREAD,
		.vpid = 4242,
		.vtid = 4243,
		.procname = "unit-proc-name-is-long",
		.uuid = uuid,
		.instance_id = 7,
		.packet_size = 4096,
		.file_limit = limit,
	};
	return ht_stream_create(dirfd, name, &p);
}

/* A counter event: 4-byte header + u32 name + u64 value = 16 bytes. */
static int emit(struct ht_stream *s, uint64_t v)
{
	uint8_t *p = ht_stream_reserve(s, HT_EH_MAX_SIZE + 12);

	if (!p)
		return 0;
	p = ht_stream_header(s, p, HT_EV_COUNTER, ht_clock_raw());
	ht_put32(p, 1);
	ht_put64(p + 4, v);
	ht_stream_commit(s, p + 12);
	return 1;
}

/* Reads all counter values of a stream; checks every packet context. */
static unsigned int read_back(int dirfd, const char *name, uint64_t *vals, unsigned int cap,
			      uint64_t *discarded, uint64_t *packets, uint64_t *last_size)
{
	struct ht_trace_process p = {.fd = dirfd};
	struct ht_stream_reader r;
	struct ht_read_error err = {0};
	struct ht_event ev;
	unsigned int n = 0;
	int rc;

	memcpy(p.uuid, uuid, 16);
	strcpy(p.name, "unit");
	CHECK_EQ(ht_stream_reader_open(&r, &p, name, &err), 0);
	while ((rc = ht_stream_reader_next_packet(&r, &err)) > 0) {
		CHECK_EQ(r.pk.vpid, 4242);
		CHECK_EQ(r.pk.vtid, 4243);
		CHECK_STR(r.pk.procname, "unit-proc-name-i"); /* cut to 16 + NUL */
		CHECK_EQ(r.pk.instance, 7);
		CHECK_EQ(r.pk.sc, HT_SC_THREAD);
		CHECK_EQ(r.pk.ts_state, HT_TS_NS);
		CHECK(r.pk.ts_begin <= r.pk.ts_end);
		*last_size = r.pk.size;
		while ((rc = ht_event_iter_next(&r.it, &ev, &err)) > 0) {
			CHECK_EQ(ev.id, HT_EV_COUNTER);
			CHECK(ev.ts >= r.pk.ts_begin && ev.ts <= r.pk.ts_end);
			if (n < cap)
				vals[n] = ht_le64(ev.payload + 4);
			n++;
		}
		CHECK_EQ(rc, 0);
	}
	if (rc < 0)
		fprintf(stderr, "read error at %llu: %s\n", (unsigned long long)err.offset, err.msg);
	CHECK_EQ(rc, 0);
	CHECK(!r.torn);
	*discarded = r.prev_discarded;
	*packets = r.packets;
	ht_stream_reader_close(&r);
	return n;
}

/* Stream and current-packet files are created exclusively, never followed. */
static void test_create_refuses(int dirfd)
{
	CHECK(symlinkat("/etc/passwd", dirfd, "thread-3") == 0);
	CHECK(make(dirfd, "thread-3", UINT64_MAX) == NULL);
	CHECK_EQ(errno, EEXIST);
	unlinkat(dirfd, "thread-3", 0);
}

static void test_wrap(int dirfd)
{
	static uint64_t vals[4000];
	struct ht_stream *s = make(dirfd, "thread-1", UINT64_MAX);
	uint64_t disc, packets, last;
	struct stat st;
	unsigned int n;

	CHECK(s != NULL);
	for (uint64_t i = 0; i < 3000; i++)
		CHECK(emit(s, i));
	CHECK_EQ(s->discarded, 0);
	ht_stream_destroy(s);
	n = read_back(dirfd, "thread-1", vals, 4000, &disc, &packets, &last);
	CHECK_EQ(n, 3000);
	for (unsigned int i = 0; i < n && i < 3000; i++)
		if (vals[i] != i) {
			CHECK_EQ(vals[i], i);
			break;
		}
	/*
	 * 16-byte events; a reservation asks for the largest header (13 B), so a
	 * packet takes (4096 - 126 - 25) / 16 + 1 = 247 of them: 13 packets, 6 remaps.
	 */
	CHECK_EQ(packets, 13);
	CHECK_EQ(disc, 0);
	CHECK_EQ(last, 126 + (3000 - 12 * PER_PACKET) * 16);
	/* every packet is trimmed to its content on disk */
	CHECK_EQ(fstatat(dirfd, "thread-1", &st, 0), 0);
	CHECK_EQ(st.st_size, 12 * (126 + PER_PACKET * 16) + last);
}

static void test_discard(int dirfd)
{
	static uint64_t vals[4000];
	/* Room for 4 packets: the 5th to 8th cannot be written and are counted. */
	struct ht_stream *s = make(dirfd, "thread-2", 4 * 4096);
	uint64_t disc, packets, last;
	unsigned int n;

	CHECK(s != NULL);
	for (uint64_t i = 0; i < 2000; i++)
		CHECK(emit(s, i)); /* the program never waits and never fails */
	CHECK_EQ(s->written, 4);
	CHECK_EQ(s->discarded, 4 * PER_PACKET);
	CHECK_EQ(s->error, EFBIG);
	/* An event that can never fit a packet is dropped and counted too. */
	CHECK(ht_stream_reserve(s, 5000) == NULL);
	CHECK_EQ(s->discarded, 4 * PER_PACKET + 1);
	/* Space comes back: the packet in progress (24 + 100 events) is written. */
	s->p.file_limit = UINT64_MAX;
	for (uint64_t i = 2000; i < 2100; i++)
		CHECK(emit(s, i));
	ht_stream_destroy(s);
	n = read_back(dirfd, "thread-2", vals, 4000, &disc, &packets, &last);
	CHECK_EQ(n, 4 * PER_PACKET + 24 + 100);
	CHECK_EQ(disc, 4 * PER_PACKET + 1);
	CHECK_EQ(packets, 5);
	CHECK_EQ(vals[4 * PER_PACKET - 1], 4 * PER_PACKET - 1);
	CHECK_EQ(vals[4 * PER_PACKET], 8 * PER_PACKET); /* the first event after the gap */
	CHECK_EQ(vals[n - 1], 2099);
	/* the current-packet file is gone once the stream is closed */
	CHECK(faccessat(dirfd, ".thread-2.cur", F_OK, 0) != 0);
}

int main(void)
{
	char dir[] = "/tmp/ht-unit-stream.XXXXXX";
	int dirfd;

	ht_clock_setup(0, 0);
	CHECK(mkdtemp(dir) != NULL);
	dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	CHECK(dirfd >= 0);
	test_wrap(dirfd);
	test_discard(dirfd);
	test_create_refuses(dirfd);
	unlinkat(dirfd, "thread-1", 0);
	unlinkat(dirfd, "thread-2", 0);
	close(dirfd);
	rmdir(dir);
	CHECK_DONE();
}
