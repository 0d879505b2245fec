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

int ht_synth_process(const char *dir, int pid, const char *comm, const uint8_t id[16],
		     const struct ht_fn_table *fns)
{
	struct ht_tsdl_params tp = {.hostname = "synth", .trace_name = comm};

	if (fns) {
		tp.tables = &fns;
		tp.ntables = 1;
	}
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

const struct ht_fn_arg_desc ht_synth_finish_args[1] = {{"command_queue", HT_FA_HEX, HT_AR_QUEUE}};
const struct ht_fn_arg_desc ht_synth_launch_args[1] = {{"corr", HT_FA_UINT, HT_AR_CORR}};
const struct ht_fn_arg_desc ht_synth_read_args[2] = {{"command_queue", HT_FA_HEX, HT_AR_QUEUE},
						     {"blocking_read", HT_FA_UINT, HT_AR_BLOCKING}};

void ht_synth_string(uint64_t t, uint32_t id, const char *s)
{
	HT_SYNTH(string_def, t, (&(struct ht_ev_string_def){.id = id, .value = s}));
}

void ht_synth_fn(uint64_t t, uint16_t id, const char *name, uint32_t roles,
		 const struct ht_fn_arg_desc *args, unsigned int n)
{
	HT_SYNTH(fn_def, t,
		 (&(struct ht_ev_fn_def){
		     .fn = id, .name = name, .roles = roles, .args_n = (uint8_t)n, .args = args}));
}

void ht_synth_thread_name(uint64_t t, int32_t tid, const char *name)
{
	HT_SYNTH(thread_info, t, (&(struct ht_ev_thread_info){.tid = tid, .name = name}));
}

void ht_synth_anchor(uint64_t t, enum ht_anchor_kind kind)
{
	HT_SYNTH(clock_anchor, t,
		 (&(struct ht_ev_clock_anchor){
		     .kind = (uint8_t)kind, .raw = HT_SYNTH_BASE + t, .ns = HT_SYNTH_BASE + t}));
}

void ht_synth_region(int begin, uint64_t t, uint32_t name)
{
	if (begin)
		HT_SYNTH(region_begin, t, (&(struct ht_ev_region_begin){.name = name}));
	else
		HT_SYNTH(region_end, t, (&(struct ht_ev_region_end){.name = name}));
}

void ht_synth_api(uint64_t t0, uint64_t t1, uint16_t fn, const uint64_t *args, unsigned int n)
{
	HT_SYNTH(api_begin, t0, (&(struct ht_ev_api_begin){.fn = fn}));
	HT_SYNTH(api_end, t1,
		 (&(struct ht_ev_api_end){.fn = fn, .args_n = (uint8_t)n, .args = args}));
}

void ht_synth_command(uint64_t collected, uint64_t corr, enum ht_cmd_kind kind,
		      enum ht_ts_domain dom, int64_t dev_offset, const uint64_t times[4],
		      uint64_t bytes, uint32_t name)
{
	/* host_before 0: bounds come from the pairs written apart */
	struct ht_ev_device_command c = {
	    .corr = corr,
	    .queue = HT_SYNTH_QUEUE,
	    .kind = (uint8_t)kind,
	    .ts_domain = (uint8_t)dom,
	    .bytes = bytes,
	    .name = name,
	    .global = {kind == HT_CMD_KERNEL ? 1024 : 0},
	};
	uint64_t *t[4] = {&c.queued, &c.submit, &c.start, &c.end};

	for (int i = 0; i < 4; i++)
		*t[i] = (uint64_t)((int64_t)(HT_SYNTH_BASE + times[i]) + dev_offset);
	HT_SYNTH(device_command, collected, &c);
}

void ht_synth_pair(uint64_t collected, enum ht_pair_kind kind, uint64_t host_t, uint64_t dev_behind)
{
	HT_SYNTH(clock_pair, collected,
		 (&(struct ht_ev_clock_pair){.kind = (uint8_t)kind,
					     .device_ts = HT_SYNTH_BASE + host_t - dev_behind,
					     .host_ns = HT_SYNTH_BASE + host_t}));
}

void ht_synth_cpu_state(uint64_t collected, int32_t tid, int state, uint64_t b, uint64_t e)
{
	HT_SYNTH(cpu_state, collected,
		 (&(struct ht_ev_cpu_state){.tid = tid,
					    .state = (uint8_t)state,
					    .begin_ns = HT_SYNTH_BASE + b,
					    .end_ns = HT_SYNTH_BASE + e,
					    .cpu = 1}));
}

void ht_synth_os_on(uint64_t t)
{
	HT_SYNTH(os_status, t,
		 (&(struct ht_ev_os_status){.kind = HT_OS_ON,
					    .reason = "OS scheduling recorded (synthetic)"}));
}
