/*
 * Writes a synthetic trace with CPU-state intervals and exact timestamps,
 * for os_synth_report.sh, which checks the report's CPU-state numbers, the
 * "device done but thread not running" measure and the GPU-idleness blame
 * against values computed by hand there. Times: BASE + ns below; device
 * commands are in host time (ts_domain host).
 *
 * thread 101 "main": 2000-2500 clEnqueueNDRangeKernel (corr 1),
 *   3000-9000 clFinish, 10000-14000 clEnqueueReadBuffer(blocking_read=1)
 *   states: running 1000-3500, blocked -7000, running -7500, blocked -8200,
 *   preempted -8800, running -10500, blocked -12100, preempted -13500,
 *   running -20000 (all collected at 20000)
 * thread 102 "helper": region poll 950-19500;
 *   states: running 1000-2000, blocked -20000 (collected at 20000)
 * device 0: kernel 4000-8000, copy_d2h 11000-12000
 * process: anchors at 500 and 20000
 *   usage: os_synth DIR
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
#define PKT  8192

static const uint8_t uuid[16] = {0x05, 0x17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15};
static uint8_t buf[PKT];
static size_t pos;
static uint64_t last;

static void begin(enum ht_stream_class sc, int vtid, uint64_t t0)
{
	static uint64_t instance;

	memset(buf, 0, sizeof buf);
	ht_put64(buf + HT_PH_INSTANCE, instance++); /* one stream per file for babeltrace2 */
	ht_put32(buf + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(buf + HT_PH_UUID, uuid, 16);
	ht_put32(buf + HT_PH_STREAM_ID, (uint32_t)sc);
	ht_put64(buf + HT_PC_TS_BEGIN, BASE + t0);
	ht_put32(buf + HT_PC_VPID, 100);
	ht_put32(buf + HT_PC_VTID, (uint32_t)vtid);
	memcpy(buf + HT_PC_PROCNAME, "synth", 5);
	buf[HT_PC_TS_STATE] = HT_TS_NS;
	if (sc == HT_SC_DEVICE) {
		ht_put32(buf + HT_PC_DEVICE, 0);
		ht_put64(buf + HT_PC_QUEUE, 0xabc0);
	}
	pos = ht_format_context_end(sc);
	last = BASE + t0;
}

/* Extended event header at BASE + t; returns the payload. */
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

static void done(size_t n)
{
	pos += n;
}

static void strdef(uint32_t id, const char *s)
{
	uint8_t *p = ev(HT_EV_STRING_DEF, 400);

	ht_put32(p, id);
	strcpy((char *)p + 4, s);
	done(4 + strlen(s) + 1);
}

static void fndef(uint16_t id, const char *name, const char *args)
{
	uint8_t *p = ev(HT_EV_FN_DEF, 400);

	ht_put16(p, id);
	strcpy((char *)p + 2, name);
	strcpy((char *)p + 2 + strlen(name) + 1, args);
	done(2 + strlen(name) + 1 + strlen(args) + 1);
}

static void thread_info(uint64_t t, int tid, const char *name)
{
	uint8_t *p = ev(HT_EV_THREAD_INFO, t);

	ht_put32(p, (uint32_t)tid);
	strcpy((char *)p + 4, name);
	done(4 + strlen(name) + 1);
}

static void region(uint32_t id, uint64_t t, uint32_t name)
{
	ht_put32(ev(id, t), name);
	done(4);
}

/* api call with arguments args[0..n) */
static void api(uint64_t t0, uint64_t t1, uint16_t f, const uint64_t *args, unsigned int n)
{
	uint8_t *p;

	ht_put16(ev(HT_EV_API_BEGIN, t0), f);
	done(2);
	p = ev(HT_EV_API_END, t1);
	ht_put16(p, f);
	ht_put32(p + 2, 0);
	p[6] = (uint8_t)n;
	memcpy(p + 7, args, 8 * n);
	done(7 + 8 * n);
}

static void state(uint64_t collected, int tid, int st, uint64_t b, uint64_t e)
{
	uint8_t *p = ev(HT_EV_CPU_STATE, collected);

	ht_put32(p, (uint32_t)tid);
	p[4] = (uint8_t)st;
	ht_put64(p + 5, BASE + b);
	ht_put64(p + 13, BASE + e);
	ht_put32(p + 21, 1);
	done(25);
}

static void anchor(uint64_t t, int kind)
{
	uint8_t *p = ev(HT_EV_CLOCK_ANCHOR, t);

	p[0] = (uint8_t)kind;
	ht_put64(p + 1, BASE + t);
	ht_put64(p + 9, BASE + t);
	done(17);
}

static void command(uint64_t collected, uint64_t corr, int kind, uint64_t st, uint64_t e)
{
	uint8_t *p = ev(HT_EV_DEVICE_COMMAND, collected);

	memset(p, 0, 122);
	ht_put64(p, corr);
	ht_put64(p + 8, 0xabc0);
	p[20] = (uint8_t)kind;
	p[29] = HT_DOM_HOST;
	ht_put64(p + 30, BASE + st - 100);
	ht_put64(p + 38, BASE + st - 50);
	ht_put64(p + 46, BASE + st);
	ht_put64(p + 54, BASE + e);
	ht_put64(p + 62, kind == HT_CMD_KERNEL ? 0 : 4096);
	ht_put32(p + 70, kind == HT_CMD_KERNEL ? 2 : 0);
	done(122);
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
	static const struct {
		uint64_t b, e;
		int st;
	} main_states[] = {
	    {1000, 3500, HT_CPU_RUNNING},   {3500, 7000, HT_CPU_BLOCKED},
	    {7000, 7500, HT_CPU_RUNNING},   {7500, 8200, HT_CPU_BLOCKED},
	    {8200, 8800, HT_CPU_PREEMPTED}, {8800, 10500, HT_CPU_RUNNING},
	    {10500, 12100, HT_CPU_BLOCKED}, {12100, 13500, HT_CPU_PREEMPTED},
	    {13500, 20000, HT_CPU_RUNNING},
	};
	const uint64_t corr = 1, read_args[2] = {0xabc0, 1};
	char path[4096];
	int dirfd;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: os_synth DIR\n");
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
	if (dirfd < 0 || !f || ht_tsdl_write(f, &tp) || fclose(f))
		return 1;

	begin(HT_SC_THREAD, 100, 400);
	strdef(1, "poll");
	strdef(2, "kern_a");
	fndef(0x1000, "clFinish", "command_queue:h");
	fndef(0x1001, "clEnqueueNDRangeKernel", "corr:u");
	fndef(0x1002, "clEnqueueReadBuffer", "command_queue:h,blocking_read:u");
	anchor(500, HT_ANCHOR_START);
	anchor(20000, HT_ANCHOR_EXIT);
	flush(dirfd, "process");

	begin(HT_SC_THREAD, 101, 900);
	thread_info(900, 101, "main");
	api(2000, 2500, 0x1001, &corr, 1);
	api(3000, 9000, 0x1000, read_args, 1);
	api(10000, 14000, 0x1002, read_args, 2);
	for (unsigned int i = 0; i < sizeof main_states / sizeof main_states[0]; i++)
		state(20000, 101, main_states[i].st, main_states[i].b, main_states[i].e);
	flush(dirfd, "thread-101");

	begin(HT_SC_THREAD, 102, 900);
	thread_info(900, 102, "helper");
	region(HT_EV_REGION_BEGIN, 950, 1);
	region(HT_EV_REGION_END, 19500, 1);
	state(20000, 102, HT_CPU_RUNNING, 1000, 2000);
	state(20000, 102, HT_CPU_BLOCKED, 2000, 20000);
	flush(dirfd, "thread-102");

	begin(HT_SC_DEVICE, 0, 8100);
	command(8100, 1, HT_CMD_KERNEL, 4000, 8000);
	command(12100, 2, HT_CMD_COPY_D2H, 11000, 12000);
	flush(dirfd, "device-0");
	close(dirfd);
	return 0;
}
