/*
 * Synthetic trace writer for tests (see synth_writer.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/tsdl.h"
#include "synth_writer.h"

#define PKT 8192

static uint8_t uuid[16];
static char procname[HT_PROCNAME_LEN];
static int vpid;
static uint8_t buf[PKT];
static size_t pos;
static uint64_t last, instance;

int ht_synth_process(const char *dir, int pid, const char *comm, const uint8_t id[16])
{
	struct ht_tsdl_params tp = {.hostname = "synth", .trace_name = comm};
	char path[4096];
	FILE *f;
	int fd;

	memcpy(uuid, id, 16);
	memcpy(tp.uuid, id, 16);
	snprintf(procname, sizeof procname, "%s", comm);
	vpid = pid;
	mkdir(dir, 0700);
	snprintf(path, sizeof path, "%s/%d-%s", dir, pid, comm);
	if (mkdir(path, 0700) || (fd = open(path, O_DIRECTORY | O_RDONLY)) < 0) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof path, "%s/%d-%s/metadata", dir, pid, comm);
	f = fopen(path, "w");
	if (!f || ht_tsdl_write(f, &tp) || fclose(f)) {
		perror(path);
		exit(1);
	}
	return fd;
}

void ht_synth_begin(enum ht_stream_class sc, int vtid, uint64_t t0)
{
	memset(buf, 0, sizeof buf);
	ht_put32(buf + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(buf + HT_PH_UUID, uuid, 16);
	ht_put32(buf + HT_PH_STREAM_ID, (uint32_t)sc);
	ht_put64(buf + HT_PH_INSTANCE, instance++); /* one stream per file for babeltrace2 */
	ht_put64(buf + HT_PC_TS_BEGIN, HT_SYNTH_BASE + t0);
	ht_put32(buf + HT_PC_VPID, (uint32_t)vpid);
	ht_put32(buf + HT_PC_VTID, (uint32_t)vtid);
	memcpy(buf + HT_PC_PROCNAME, procname, strlen(procname));
	buf[HT_PC_TS_STATE] = HT_TS_NS;
	if (sc == HT_SC_DEVICE) {
		ht_put32(buf + HT_PC_DEVICE, 0);
		ht_put64(buf + HT_PC_QUEUE, HT_SYNTH_QUEUE);
	}
	pos = ht_format_context_end(sc);
	last = HT_SYNTH_BASE + t0;
}

uint8_t *ht_synth_event(uint32_t id, uint64_t t)
{
	uint8_t *p = buf + pos;

	p[0] = HT_EH_EXTENDED;
	ht_put32(p + 1, id);
	ht_put64(p + 5, HT_SYNTH_BASE + t);
	last = HT_SYNTH_BASE + t;
	pos += HT_EH_EXTENDED_SIZE;
	return buf + pos;
}

void ht_synth_done(size_t payload)
{
	pos += payload;
}

void ht_synth_flush(int dirfd, const char *name)
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

void ht_synth_string(uint64_t t, uint32_t id, const char *s)
{
	uint8_t *p = ht_synth_event(HT_EV_STRING_DEF, t);

	ht_put32(p, id);
	strcpy((char *)p + 4, s);
	ht_synth_done(4 + strlen(s) + 1);
}

void ht_synth_fn(uint64_t t, uint16_t id, const char *name, const char *args)
{
	uint8_t *p = ht_synth_event(HT_EV_FN_DEF, t);

	ht_put16(p, id);
	strcpy((char *)p + 2, name);
	strcpy((char *)p + 2 + strlen(name) + 1, args);
	ht_synth_done(2 + strlen(name) + 1 + strlen(args) + 1);
}

void ht_synth_thread_name(uint64_t t, int32_t tid, const char *name)
{
	uint8_t *p = ht_synth_event(HT_EV_THREAD_INFO, t);

	ht_put32(p, (uint32_t)tid);
	strcpy((char *)p + 4, name);
	ht_synth_done(4 + strlen(name) + 1);
}

void ht_synth_anchor(uint64_t t, enum ht_anchor_kind kind)
{
	uint8_t *p = ht_synth_event(HT_EV_CLOCK_ANCHOR, t);

	p[0] = (uint8_t)kind;
	ht_put64(p + 1, HT_SYNTH_BASE + t);
	ht_put64(p + 9, HT_SYNTH_BASE + t);
	ht_synth_done(17);
}

void ht_synth_u32(uint32_t id, uint64_t t, uint32_t v)
{
	ht_put32(ht_synth_event(id, t), v);
	ht_synth_done(4);
}

void ht_synth_api(uint64_t t0, uint64_t t1, uint16_t fn, const uint64_t *args, unsigned int n)
{
	uint8_t *p;

	ht_put16(ht_synth_event(HT_EV_API_BEGIN, t0), fn);
	ht_synth_done(2);
	p = ht_synth_event(HT_EV_API_END, t1);
	ht_put16(p, fn);
	ht_put32(p + 2, 0);
	p[6] = (uint8_t)n;
	if (n)
		memcpy(p + 7, args, 8 * n);
	ht_synth_done(7 + 8 * n);
}

void ht_synth_command(uint64_t collected, uint64_t corr, enum ht_cmd_kind kind,
		      enum ht_ts_domain dom, int64_t dev_offset, const uint64_t times[4],
		      uint64_t bytes, uint32_t name)
{
	uint8_t *p = ht_synth_event(HT_EV_DEVICE_COMMAND, collected);

	memset(p, 0, HT_DC_SIZE); /* host_before 0: bounds come from the pairs written apart */
	ht_put64(p, corr);
	ht_put64(p + 8, HT_SYNTH_QUEUE);
	p[20] = (uint8_t)kind;
	p[29] = (uint8_t)dom;
	for (int i = 0; i < 4; i++)
		ht_put64(p + 30 + 8 * i,
			 (uint64_t)((int64_t)(HT_SYNTH_BASE + times[i]) + dev_offset));
	ht_put64(p + 62, bytes);
	ht_put32(p + 70, name);
	if (kind == HT_CMD_KERNEL)
		ht_put64(p + 74, 1024);
	ht_synth_done(HT_DC_SIZE);
}

void ht_synth_pair(uint64_t collected, enum ht_pair_kind kind, uint64_t host_t, uint64_t dev_behind)
{
	uint8_t *p = ht_synth_event(HT_EV_CLOCK_PAIR, collected);

	ht_put32(p, 0);
	p[4] = (uint8_t)kind;
	ht_put64(p + 5, HT_SYNTH_BASE + host_t - dev_behind);
	ht_put64(p + 13, HT_SYNTH_BASE + host_t);
	ht_synth_done(21);
}

void ht_synth_cpu_state(uint64_t collected, int32_t tid, int state, uint64_t b, uint64_t e)
{
	uint8_t *p = ht_synth_event(HT_EV_CPU_STATE, collected);

	ht_put32(p, (uint32_t)tid);
	p[4] = (uint8_t)state;
	ht_put64(p + 5, HT_SYNTH_BASE + b);
	ht_put64(p + 13, HT_SYNTH_BASE + e);
	ht_put32(p + 21, 1);
	ht_synth_done(25);
}

void ht_synth_os_on(uint64_t t)
{
	static const char reason[] = "OS scheduling recorded (synthetic)";
	uint8_t *p = ht_synth_event(HT_EV_OS_STATUS, t);

	p[0] = HT_OS_ON;
	memset(p + 1, 0, 8);
	strcpy((char *)p + 9, reason);
	ht_synth_done(9 + sizeof reason);
}
