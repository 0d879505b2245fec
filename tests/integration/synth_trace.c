/*
 * Writes a small synthetic trace with exact timestamps, for tests that check
 * the report's numbers against hand-computed values (see report_synth.sh,
 * which lists them). Host times are BASE + the offsets below; the device
 * clock runs exactly 1 ms behind the host (exact clock pairs say so).
 *
 * thread 101:  1000 region step { 2000-2500 enqueue kernel (corr 1),
 *              3000-9000 clFinish } 9500;  10000-10100 clFinish;
 *              20000 region step { } 21000
 * device 0:    kernel kern_a  queued 2200 submit 2300 start 4000 end 8000
 *              copy_d2h 1e6 B start 12000 end 13000 (queued 11000, submit 11500)
 * process:     start anchor at 500, exit anchor at 21000
 *
 * Scenario "hostile" (for the HTML view) adds strings that must stay text:
 *   thread 101 named   render<i>x</i>
 *   14000-14200        enqueue (corr 3) of kernel <img src=x onerror=alert(1)>,
 *                      which runs 17000-19000 on the same queue
 *   15000-16000        region </script><script>alert(2)</script>
 * Scenario "reorder" (for the reorder window) replaces the device part: three
 * enqueues at 30000, 31000, 32000 (corr 10, 11, 12) whose commands are
 * collected in reverse order (12, 11, 10 at 40000, 40100, 40200) and ran
 * 35000-36000 (10), 36000-37000 (11), 37000-38000 (12).
 *   usage: synth_trace DIR [base|hostile|reorder]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/format.h"
#include "format/tsdl.h"

#define BASE 1000000000ull
#define DEV_BEHIND 1000000ull /* device clock = host - 1 ms */
#define PKT 4096

static const uint8_t uuid[16] = {0x5e, 0x17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
static uint8_t buf[PKT];
static size_t pos;
static uint64_t last;


static void begin(enum ht_stream_class sc, int vtid, uint64_t t0)
{
	memset(buf, 0, sizeof buf);

	ht_put32(buf + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(buf + HT_PH_UUID, uuid, 16);
	ht_put32(buf + HT_PH_STREAM_ID, (uint32_t)sc);
	ht_put64(buf + HT_PC_TS_BEGIN, t0);
	ht_put32(buf + HT_PC_VPID, 100);
	ht_put32(buf + HT_PC_VTID, (uint32_t)vtid);
	memcpy(buf + HT_PC_PROCNAME, "synth", 5);
	buf[HT_PC_TS_STATE] = HT_TS_NS;
	if (sc == HT_SC_DEVICE) {
		ht_put32(buf + HT_PC_DEVICE, 0);
		ht_put64(buf + HT_PC_QUEUE, 0xabc0);
	}
	pos = ht_format_context_end(sc);
	last = t0;
}

/* Event header (extended: simplest) at host time BASE + t; returns the payload. */
static uint8_t *ev(uint32_t id, uint64_t t)
{
	uint8_t *p = buf + pos;

	p[0] = HT_EH_EXTENDED;
	ht_put32(p + 1, id);
	ht_put64(p + 5, BASE + t);
	last = BASE + t;
	pos += HT_EH_EXTENDED_SIZE;
	return buf + pos;
}

static void done(size_t payload)
{
	pos += payload;
}

static void str(uint32_t id, const char *s)
{
	uint8_t *p = ev(HT_EV_STRING_DEF, 400);

	ht_put32(p, id);
	strcpy((char *)p + 4, s);
	done(4 + strlen(s) + 1);
}

static void fn(uint16_t id, const char *name, const char *args)
{
	uint8_t *p = ev(HT_EV_FN_DEF, 400);

	ht_put16(p, id);
	strcpy((char *)p + 2, name);
	strcpy((char *)p + 2 + strlen(name) + 1, args);
	done(2 + strlen(name) + 1 + strlen(args) + 1);
}

static void u32ev(uint32_t id, uint64_t t, uint32_t v)
{
	ht_put32(ev(id, t), v);
	done(4);
}

static void api(uint64_t t0, uint64_t t1, uint16_t f, uint64_t corr)
{
	uint8_t *p;

	ht_put16(ev(HT_EV_API_BEGIN, t0), f);
	done(2);
	p = ev(HT_EV_API_END, t1);
	ht_put16(p, f);
	ht_put32(p + 2, 0);
	p[6] = corr ? 1 : 0;
	if (corr)
		ht_put64(p + 7, corr);
	done(7 + (corr ? 8 : 0));
}

static void thread_name(uint64_t t, int32_t tid, const char *name)
{
	uint8_t *p = ev(HT_EV_THREAD_INFO, t);

	ht_put32(p, (uint32_t)tid);
	strcpy((char *)p + 4, name);
	done(4 + strlen(name) + 1);
}

static void anchor(uint64_t t, int kind)
{
	uint8_t *p = ev(HT_EV_CLOCK_ANCHOR, t);

	p[0] = (uint8_t)kind;
	ht_put64(p + 1, BASE + t);
	ht_put64(p + 9, BASE + t);
	done(17);
}

static void command(uint64_t collected, uint64_t corr, int kind, uint64_t q, uint64_t s,
		    uint64_t st, uint64_t e, uint64_t bytes, uint32_t name)
{
	uint8_t *p = ev(HT_EV_DEVICE_COMMAND, collected);
	uint64_t dq = BASE + q - DEV_BEHIND, ds = BASE + s - DEV_BEHIND,
		 dst = BASE + st - DEV_BEHIND, de = BASE + e - DEV_BEHIND;

	memset(p, 0, 122);
	ht_put64(p, corr);
	ht_put64(p + 8, 0xabc0);
	p[20] = (uint8_t)kind;
	ht_put64(p + 30, dq);
	ht_put64(p + 38, ds);
	ht_put64(p + 46, dst);
	ht_put64(p + 54, de);
	ht_put64(p + 62, bytes);
	ht_put32(p + 70, name);
	if (kind == HT_CMD_KERNEL)
		ht_put64(p + 74, 1024);
	done(122);
}

static void pair(uint64_t collected, int kind, uint64_t host_t)
{
	uint8_t *p = ev(HT_EV_CLOCK_PAIR, collected);

	ht_put32(p, 0);
	p[4] = (uint8_t)kind;
	ht_put64(p + 5, BASE + host_t - DEV_BEHIND);
	ht_put64(p + 13, BASE + host_t);
	done(21);
}

static void flush(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	ht_put64(buf + HT_PC_TS_END, last);
	ht_put64(buf + HT_PC_CONTENT, pos * 8);
	ht_put64(buf + HT_PC_PACKET, pos * 8);
	if (fd < 0 || write(fd, buf, pos) != (ssize_t)pos) {
		perror(name);
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	struct ht_tsdl_params tp = {.hostname = "synth", .trace_name = "synth"};
	char path[4096];
	int dirfd;
	FILE *f;

	const char *scenario = argc > 2 ? argv[2] : "base";
	int hostile = !strcmp(scenario, "hostile"), reorder = !strcmp(scenario, "reorder");

	if (argc < 2 || argc > 3 || (!hostile && !reorder && strcmp(scenario, "base"))) {
		fprintf(stderr, "usage: synth_trace DIR [base|hostile|reorder]\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/100-synth", argv[1]);
	if (mkdir(argv[1], 0700) || mkdir(path, 0700)) {
		perror(path);
		return 1;
	}
	dirfd = open(path, O_DIRECTORY | O_RDONLY);
	memcpy(tp.uuid, uuid, 16);
	snprintf(path, sizeof path, "%s/100-synth/metadata", argv[1]);
	f = fopen(path, "w");
	if (!f || ht_tsdl_write(f, &tp) || fclose(f))
		return 1;

	begin(HT_SC_THREAD, 100, BASE + 400);
	str(1, "step");
	str(2, "kern_a");
	str(3, "<img src=x onerror=alert(1)>");
	str(4, "</script><script>alert(2)</script>");
	fn(0x1000, "clFinish", "command_queue:h");
	fn(0x1001, "clEnqueueNDRangeKernel", "corr:u");
	anchor(500, HT_ANCHOR_START);
	anchor(21000, HT_ANCHOR_EXIT);
	flush(dirfd, "process");

	begin(HT_SC_THREAD, 101, BASE + 1000);
	if (hostile)
		thread_name(1000, 101, "render<i>x</i>");
	u32ev(HT_EV_REGION_BEGIN, 1000, 1);
	api(2000, 2500, 0x1001, 1);
	api(3000, 9000, 0x1000, 0);
	u32ev(HT_EV_REGION_END, 9500, 1);
	api(10000, 10100, 0x1000, 0);
	if (hostile) {
		api(14000, 14200, 0x1001, 3);
		u32ev(HT_EV_REGION_BEGIN, 15000, 4);
		u32ev(HT_EV_REGION_END, 16000, 4);
	}
	u32ev(HT_EV_REGION_BEGIN, 20000, 1);
	u32ev(HT_EV_REGION_END, 21000, 1);
	if (reorder) {
		api(30000, 30100, 0x1001, 10);
		api(31000, 31100, 0x1001, 11);
		api(32000, 32100, 0x1001, 12);
	}
	flush(dirfd, "thread-101");

	begin(HT_SC_DEVICE, 0, BASE + 9100);
	command(9100, 1, HT_CMD_KERNEL, 2200, 2300, 4000, 8000, 0, 2);
	pair(9100, HT_PAIR_EXACT, 2200);
	command(13500, 2, HT_CMD_COPY_D2H, 11000, 11500, 12000, 13000, 1000000, 0);
	pair(13500, HT_PAIR_EXACT, 13000);
	pair(13500, HT_PAIR_HOST_BEFORE, 10900);
	pair(13500, HT_PAIR_HOST_AFTER, 13400);
	if (hostile) {
		command(19500, 3, HT_CMD_KERNEL, 14100, 14150, 17000, 19000, 0, 3);
		pair(19500, HT_PAIR_EXACT, 19000);
	}
	if (reorder) {
		command(40000, 12, HT_CMD_KERNEL, 32050, 32060, 37000, 38000, 0, 2);
		command(40100, 11, HT_CMD_KERNEL, 31050, 31060, 36000, 37000, 0, 2);
		command(40200, 10, HT_CMD_KERNEL, 30050, 30060, 35000, 36000, 0, 2);
	}
	flush(dirfd, "device-0");
	close(dirfd);
	return 0;
}
