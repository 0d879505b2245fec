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
 *   running -20000 (all collected at 20000, in the OS stream os-0)
 * thread 102 "helper": region poll 950-19500;
 *   states: running 1000-2000, blocked -20000 (collected at 20000)
 * device 0: kernel 4000-8000, copy_d2h 11000-12000
 * process: anchors at 500 and 20000
 *   usage: os_synth DIR
 */
#include <stdio.h>
#include <unistd.h>

#include "synth_writer.h"

static const uint8_t uuid[16] = {0x05, 0x17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15};

/* A command in host time (ts_domain host): queued 100 and submitted 50 before it starts. */
static void command(uint64_t collected, uint64_t corr, enum ht_cmd_kind kind, uint64_t st,
		    uint64_t e)
{
	const uint64_t t[4] = {st - 100, st - 50, st, e};

	ht_synth_command(collected, corr, kind, HT_DOM_HOST, 0, t, kind == HT_CMD_KERNEL ? 0 : 4096,
			 kind == HT_CMD_KERNEL ? 2 : 0);
}

int main(int argc, char **argv)
{
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
	int dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: os_synth DIR\n");
		return 2;
	}
	dirfd = ht_synth_process(argv[1], 100, "synth", uuid, NULL);

	ht_synth_begin(HT_SC_THREAD, 100, 400);
	ht_synth_string(400, 1, "poll");
	ht_synth_string(400, 2, "kern_a");
	ht_synth_fn(400, 0x1000, "clFinish", HT_ROLE_SYNC, ht_synth_finish_args, 1);
	ht_synth_fn(400, 0x1001, "clEnqueueNDRangeKernel", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE,
		    ht_synth_launch_args, 1);
	ht_synth_fn(400, 0x1002, "clEnqueueReadBuffer",
		    HT_ROLE_TRANSFER | HT_ROLE_ENQUEUE | HT_ROLE_BLOCKING, ht_synth_read_args, 2);
	ht_synth_anchor(500, HT_ANCHOR_START);
	ht_synth_os_on(500);
	ht_synth_anchor(20000, HT_ANCHOR_EXIT);
	ht_synth_flush(dirfd, "process");

	ht_synth_begin(HT_SC_THREAD, 101, 900);
	ht_synth_thread_name(900, 101, "main");
	ht_synth_api(2000, 2500, 0x1001, &corr, 1);
	ht_synth_api(3000, 9000, 0x1000, read_args, 1);
	ht_synth_api(10000, 14000, 0x1002, read_args, 2);
	ht_synth_thread_name(20000, 101, "main"); /* alive (has events) until 20000 */
	ht_synth_flush(dirfd, "thread-101");

	ht_synth_begin(HT_SC_THREAD, 102, 900);
	ht_synth_thread_name(900, 102, "helper");
	ht_synth_region(1, 950, 1);
	ht_synth_region(0, 19500, 1);
	ht_synth_thread_name(20000, 102, "helper");
	ht_synth_flush(dirfd, "thread-102");

	/* the OS stream: both threads' intervals, collected at 20000 */
	ht_synth_begin(HT_SC_THREAD, 0, 20000);
	for (unsigned int i = 0; i < sizeof main_states / sizeof main_states[0]; i++)
		ht_synth_cpu_state(20000, 101, main_states[i].st, main_states[i].b,
				   main_states[i].e);
	ht_synth_cpu_state(20000, 102, HT_CPU_RUNNING, 1000, 2000);
	ht_synth_cpu_state(20000, 102, HT_CPU_BLOCKED, 2000, 20000);
	ht_synth_flush(dirfd, "os-0");

	ht_synth_begin(HT_SC_DEVICE, 0, 8100);
	command(8100, 1, HT_CMD_KERNEL, 4000, 8000);
	command(12100, 2, HT_CMD_COPY_D2H, 11000, 12000);
	ht_synth_flush(dirfd, "device-0");
	close(dirfd);
	return 0;
}
