/*
 * Unit test of the finalizer on hand-built raw packets with known anchors:
 * counter values map to exactly the expected CLOCK_MONOTONIC ns (closed
 * packet: its own anchors; open packet: the process exit anchor), both
 * header forms are rewritten, a torn tail is trimmed, and finalizing twice
 * changes nothing. The host_before times of RAW device commands are
 * converted too: extrapolated outside their packet and rounded down.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "analysis/finalize.h"
#include "format/tsdl.h"

#define PKT 512

static const uint8_t uuid[16] = {0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

static size_t start_packet_sized(uint8_t *b, size_t size, uint64_t seq, uint64_t tsc_b,
				 uint64_t ts_b, uint64_t tsc_e, uint64_t ts_e, int vtid)
{
	memset(b, 0, size);
	ht_put32(b + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(b + HT_PH_UUID, uuid, 16);
	ht_put64(b + HT_PC_TS_BEGIN, ts_b);
	ht_put64(b + HT_PC_TS_END, ts_e);
	ht_put64(b + HT_PC_PACKET, size * 8);
	ht_put64(b + HT_PC_SEQ, seq);
	ht_put32(b + HT_PC_VPID, 100);
	ht_put32(b + HT_PC_VTID, (uint32_t)vtid);
	ht_put64(b + HT_PC_TSC_BEGIN, tsc_b);
	ht_put64(b + HT_PC_TSC_END, tsc_e);
	b[HT_PC_TS_STATE] = HT_TS_RAW;
	return HT_PC_THREAD_END;
}

static size_t start_packet(uint8_t *b, uint64_t seq, uint64_t tsc_b, uint64_t ts_b, uint64_t tsc_e,
			   uint64_t ts_e, int vtid)
{
	return start_packet_sized(b, PKT, seq, tsc_b, ts_b, tsc_e, ts_e, vtid);
}

static size_t counter(uint8_t *b, size_t pos, uint64_t raw, int extended, uint64_t v)
{
	if (extended) {
		b[pos] = HT_EH_EXTENDED;
		ht_put32(b + pos + 1, HT_EV_COUNTER);
		ht_put64(b + pos + 5, raw);
		pos += HT_EH_EXTENDED_SIZE;
	} else {
		ht_put32(b + pos, HT_EV_COUNTER | (uint32_t)(raw << 5));
		pos += HT_EH_COMPACT_SIZE;
	}
	ht_put32(b + pos, 1);
	ht_put64(b + pos + 4, v);
	return pos + 12;
}

static size_t command(uint8_t *b, size_t pos, uint64_t raw, uint64_t host_before)
{
	ht_put32(b + pos, HT_EV_DEVICE_COMMAND | (uint32_t)(raw << 5));
	pos += HT_EH_COMPACT_SIZE;
	memset(b + pos, 0, HT_EV_DEVICE_COMMAND_SIZE);
	ht_put64(b + pos, 777); /* corr */
	ht_put64(b + pos + HT_OFF_DEVICE_COMMAND_HOST_BEFORE, host_before);
	return pos + HT_EV_DEVICE_COMMAND_SIZE;
}

static void end_packet(uint8_t *b, size_t pos)
{
	ht_put64(b + HT_PC_CONTENT, pos * 8);
}

static void write_file(int dirfd, const char *name, const uint8_t *b, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, b, len), len);
	close(fd);
}

static void build(int procfd)
{
	static uint8_t b[3 * PKT];
	struct ht_tsdl_params tp = {.hostname = "h", .trace_name = "t"};
	FILE *f;
	size_t pos;
	int fd;

	memcpy(tp.uuid, uuid, 16);
	fd = openat(procfd, "metadata", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	f = fdopen(fd, "w");
	CHECK_EQ(ht_tsdl_write(f, &tp), 0);
	fclose(f);

	/* packet 0, closed: raw 1e6..3e6 maps to ns 5e6..6e6 (0.5 ns per tick) */
	pos = start_packet(b, 0, 1000000, 5000000, 3000000, 6000000, 101);
	pos = counter(b, pos, 1000000, 0, 0);
	pos = counter(b, pos, 1500000, 0, 1);
	pos = counter(b, pos, 2999999, 1, 2);
	end_packet(b, pos);
	/* packet 1, open (the thread was running at exit) */
	pos = start_packet(b + PKT, 1, 3000000, 6000000, 0, 0, 101);
	pos = counter(b + PKT, pos, 3200000, 0, 3);
	end_packet(b + PKT, pos);
	/* 512 zero bytes: a packet reserved but never written (torn) */
	write_file(procfd, "thread-101", b, 3 * PKT);

	/* device stream, same anchors: host_before inside, before the packet, and none */
	pos = start_packet_sized(b, 2 * PKT, 0, 1000000, 5000000, 3000000, 6000000, 101);
	ht_put32(b + HT_PH_STREAM_ID, HT_SC_DEVICE);
	pos = HT_PC_DEVICE_END;
	pos = command(b, pos, 1000000, 999999);	 /* 4999999.5 -> down */
	pos = command(b, pos, 1000000, 1000001); /* 5000000.5 -> down */
	pos = command(b, pos, 1000000, 600000);	 /* before the packet */
	pos = command(b, pos, 1000000, 0);	 /* none: stays 0 */
	end_packet(b, pos);
	write_file(procfd, "device-0", b, 2 * PKT);

	/* process stream: the exit anchor (raw 4e6 = ns 6.5e6) */
	pos = start_packet(b, 0, 900000, 4950000, 0, 0, 100);
	ht_put32(b + pos, HT_EV_CLOCK_ANCHOR | (uint32_t)(4000000u << 5));
	b[pos + 4] = HT_ANCHOR_EXIT;
	ht_put64(b + pos + 5, 4000000);
	ht_put64(b + pos + 13, 6500000);
	end_packet(b, pos + 21);
	write_file(procfd, "process", b, PKT);
}

static void read_thread(const struct ht_trace_process *p, uint64_t *ts, unsigned int *n,
			uint64_t *last_end)
{
	struct ht_stream_reader r;
	struct ht_read_error err = {0};
	struct ht_event ev;
	int rc;

	*n = 0;
	CHECK_EQ(ht_stream_reader_open(&r, p, "thread-101", &err), 0);
	while ((rc = ht_stream_reader_next_packet(&r, &err)) > 0) {
		CHECK_EQ(r.pk.ts_state, HT_TS_NS);
		*last_end = r.pk.ts_end;
		while (ht_event_iter_next(&r.it, &ev, &err) > 0 && *n < 8)
			ts[(*n)++] = ev.ts;
	}
	CHECK_EQ(rc, 0);
	CHECK(!r.torn);
	ht_stream_reader_close(&r);
}

/* The host_before times of the device stream's commands. */
static void read_bounds(const struct ht_trace_process *p, uint64_t *host)
{
	struct ht_stream_reader r;
	struct ht_read_error err = {0};
	struct ht_event ev;
	unsigned int n = 0;

	CHECK_EQ(ht_stream_reader_open(&r, p, "device-0", &err), 0);
	CHECK_EQ(ht_stream_reader_next_packet(&r, &err), 1);
	CHECK_EQ(r.pk.ts_state, HT_TS_NS);
	while (ht_event_iter_next(&r.it, &ev, &err) > 0 && n < 4) {
		CHECK_EQ(ev.id, HT_EV_DEVICE_COMMAND);
		CHECK_EQ(ev.ts, 5000000);
		CHECK_EQ(ht_le64(ev.payload), 777);
		host[n++] = ht_le64(ev.payload + HT_OFF_DEVICE_COMMAND_HOST_BEFORE);
	}
	CHECK_EQ(n, 4);
	ht_stream_reader_close(&r);
}

int main(void)
{
	char dir[] = "/tmp/ht-unit-finalize.XXXXXX", path[256];
	struct ht_trace *t = NULL;
	struct ht_read_error err = {0};
	struct ht_finalize_stats st;
	uint64_t ts[8], last_end = 0, host[4];
	unsigned int n;
	struct stat sb;
	int dfd, pfd;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_DIRECTORY | O_RDONLY);
	CHECK_EQ(mkdirat(dfd, "100-proc", 0700), 0);
	pfd = openat(dfd, "100-proc", O_DIRECTORY | O_RDONLY);
	build(pfd);

	CHECK_EQ(ht_trace_open(&t, dir, &err), 0);
	CHECK_EQ(ht_finalize_trace(t, 0.5, &st, &err), 0);
	CHECK_EQ(st.packets_converted, 4);
	CHECK_EQ(st.streams_trimmed, 1);
	CHECK_EQ(st.bytes_trimmed, PKT);
	read_thread(&t->procs[0], ts, &n, &last_end);
	CHECK_EQ(n, 4);
	CHECK_EQ(ts[0], 5000000);
	CHECK_EQ(ts[1], 5250000);
	CHECK_EQ(ts[2], 6000000); /* 5999999.5 rounds up, and stays inside the packet */
	CHECK_EQ(ts[3], 6100000); /* open packet: interpolated to the exit anchor */
	CHECK_EQ(last_end, 6100000);
	CHECK_EQ(fstatat(pfd, "thread-101", &sb, 0), 0);
	CHECK_EQ(sb.st_size, 2 * PKT);
	read_bounds(&t->procs[0], host);
	CHECK_EQ(host[0], 4999999);
	CHECK_EQ(host[1], 5000000);
	CHECK_EQ(host[2], 4800000); /* 400000 ticks before the packet's first anchor */
	CHECK_EQ(host[3], 0);

	/* Finalizing again changes nothing. */
	CHECK_EQ(ht_finalize_trace(t, 0.5, &st, &err), 0);
	CHECK_EQ(st.packets_converted + st.streams_trimmed, 0);
	read_thread(&t->procs[0], ts, &n, &last_end);
	CHECK_EQ(ts[3], 6100000);
	read_bounds(&t->procs[0], host);
	CHECK_EQ(host[0], 4999999);
	CHECK_EQ(host[2], 4800000);

	/*
	 * A packet whose anchors give a slope of 1e15 ns per tick: its events
	 * would land past 2^64 ns. It stays raw, is counted and named (the float
	 * to integer conversion must not run: UBSan checks that in the asan build).
	 */
	{
		static uint8_t b[PKT];
		size_t pos = start_packet(b, 0, 1000, 5000000, 1001, 1000000000005000000ull, 102);

		pos = counter(b, pos, 1000, 0, 0);
		pos = counter(b, pos, 1000 + 20000, 1, 1);
		end_packet(b, pos);
		write_file(pfd, "thread-102", b, PKT);
		ht_trace_close(t);
		CHECK_EQ(ht_trace_open(&t, dir, &err), 0);
		memset(&st, 0, sizeof st);
		CHECK_EQ(ht_finalize_trace(t, 0.5, &st, &err), 0);
		CHECK_EQ(st.packets_left_raw, 1);
		CHECK(strstr(st.left_raw.file, "thread-102") != NULL);
		CHECK_EQ(st.left_raw.offset, 0);
		CHECK(strstr(st.left_raw.msg, "2^64") != NULL);
		ht_trace_close(t);
		unlinkat(pfd, "thread-102", 0);
	}

	unlinkat(pfd, "thread-101", 0);
	unlinkat(pfd, "device-0", 0);
	unlinkat(pfd, "process", 0);
	unlinkat(pfd, "metadata", 0);
	close(pfd);
	unlinkat(dfd, "100-proc", AT_REMOVEDIR);
	close(dfd);
	snprintf(path, sizeof path, "%s", dir);
	rmdir(path);
	CHECK_DONE();
}
