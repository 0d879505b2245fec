/*
 * Synthetic traces with known contents for the SQLite export, the critical
 * path and `report --diff` (the tests in tests/sqlite hold the expected values).
 * Times are ns after HT_SYNTH_BASE; commands carry host-domain times.
 *
 * "queues": one thread (tid 101), two queues Q1 = 0xa1 and Q2 = 0xb2.
 *   500              thread name "main"
 *   1000-1200        enqueue kern_a (corr 1)   Q1 2000-10000
 *   1300-1500        enqueue kern_b (corr 2)   Q2 1800-4000 (queued 1400, submit 1600)
 *   1600-1800        enqueue kern_c (corr 3)   Q2 4500-6000
 *   2000-3000        region prep;  2500 instant mark {n=7, what="x"};  2600 counter depth=3;
 *                    2700 three device records lost
 *   3000-6100        clFinish(Q2)
 *   6200-6300        enqueue kern_d (corr 4)   Q2 6400-12000 (recorded as _Z6kern_dPf)
 *   6400-6500        clEnqueueReadBuffer, non-blocking (corr 5): copy_d2h 4096 B, Q1 10100-10400
 *   7000-10500       clFinish(Q1)
 *   10600-12100      clFinish(Q2)
 *   12100-12300      region post
 *  The critical path (11800 ns, 500 -> 12300) runs through Q2: kern_b, kern_c
 *  and kern_d; kern_a (8000 ns, the longest kernel) is off it.
 * "queues-slow": the same, kern_b runs 1800-4400, and a region "extra"
 *   12300-12400 is added (the base for `report --diff`).
 * "graph": a CUDA Graph launch (corr 9) 1000-1100 whose three kernels g1
 *   1500-2500, g2 2600-3600, g3 3700-5000 share its corr on queue 0xc3, then
 *   a device-wide synchronize 1200-5100 (no arguments).
 *   usage: synth_queues DIR queues|queues-slow|graph
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "synth_writer.h"

enum {
	S_FINISH = 1,
	S_KERN_A,
	S_KERN_B,
	S_KERN_C,
	S_KERN_D,
	S_PREP,
	S_MARK,
	S_DEPTH,
	S_N,
	S_WHAT,
	S_X,
	S_POST,
	S_EXTRA,
	S_G1,
	S_G2,
	S_G3
};

#define FN_FINISH 0x1000
#define FN_LAUNCH 0x1001
#define FN_READ	  0x1002
#define FN_GRAPH  0x2000
#define FN_SYNC	  0x2001

static const uint8_t uuid[16] = {0x5e, 0x17, 0x51, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
static const struct ht_fn_arg_desc read_args[3] = {{"command_queue", HT_FA_HEX, HT_AR_QUEUE},
						   {"blocking_read", HT_FA_UINT, HT_AR_BLOCKING},
						   {"corr", HT_FA_UINT, HT_AR_CORR}};

static void api(uint64_t t0, uint64_t t1, uint16_t fn, uint64_t arg)
{
	ht_synth_api(t0, t1, fn, &arg, 1);
}

static void command(uint64_t collected, uint64_t queue, uint64_t corr, enum ht_cmd_kind kind,
		    uint32_t name, uint64_t queued, uint64_t submit, uint64_t start, uint64_t end,
		    uint64_t bytes)
{
	struct ht_ev_device_command c = {
	    .corr = corr,
	    .queue = queue,
	    .kind = (uint8_t)kind,
	    .ts_domain = HT_DOM_HOST,
	    .queued = queued ? HT_SYNTH_BASE + queued : 0,
	    .submit = submit ? HT_SYNTH_BASE + submit : 0,
	    .start = HT_SYNTH_BASE + start,
	    .end = HT_SYNTH_BASE + end,
	    .bytes = bytes,
	    .name = name,
	    .global = {kind == HT_CMD_KERNEL ? 256 : 0, kind == HT_CMD_KERNEL ? 2 : 0, 0},
	    .local = {kind == HT_CMD_KERNEL ? 64 : 0, kind == HT_CMD_KERNEL ? 1 : 0, 0},
	};

	HT_SYNTH(device_command, collected, &c);
}

static void process_stream(int dirfd)
{
	static const char *const s[] = {
	    NULL, "clFinish", "kern_a", "kern_b", "kern_c", "_Z6kern_dPf", "prep", "mark", "depth",
	    "n",  "what",     "x",	"post",	  "extra",  "g1",	   "g2",   "g3"};

	ht_synth_begin(HT_SC_THREAD, 100, 400);
	for (uint32_t i = 1; i < sizeof s / sizeof s[0]; i++)
		ht_synth_string(400, i, s[i]);
	ht_synth_fn(400, FN_FINISH, "clFinish", HT_ROLE_SYNC, ht_synth_finish_args, 1);
	ht_synth_fn(400, FN_LAUNCH, "clEnqueueNDRangeKernel", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE,
		    ht_synth_launch_args, 1);
	ht_synth_fn(400, FN_READ, "clEnqueueReadBuffer",
		    HT_ROLE_TRANSFER | HT_ROLE_ENQUEUE | HT_ROLE_BLOCKING, read_args, 3);
	ht_synth_fn(400, FN_GRAPH, "cudaGraphLaunch", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE,
		    ht_synth_launch_args, 1);
	ht_synth_fn(400, FN_SYNC, "cudaDeviceSynchronize", HT_ROLE_SYNC, NULL, 0);
	ht_synth_anchor(450, HT_ANCHOR_START);
	ht_synth_flush(dirfd, "process");
}

static void queues(int dirfd, int slow)
{
	const uint64_t read[3] = {0xa1, 0, 5};
	uint64_t b_end = slow ? 4400 : 4000;

	ht_synth_begin(HT_SC_THREAD, 101, 500);
	ht_synth_thread_name(500, 101, "main");
	api(1000, 1200, FN_LAUNCH, 1);
	api(1300, 1500, FN_LAUNCH, 2);
	api(1600, 1800, FN_LAUNCH, 3);
	ht_synth_region(1, 2000, S_PREP);
	HT_SYNTH(
	    instant, 2500,
	    (&(struct ht_ev_instant){
		.name = S_MARK,
		.args_n = 2,
		.args = (struct ht_iarg[]){{S_N, HT_ARG_INT, 7}, {S_WHAT, HT_ARG_STRING, S_X}}}));
	HT_SYNTH(counter, 2600, (&(struct ht_ev_counter){.name = S_DEPTH, .value = 3}));
	HT_SYNTH(lost, 2700, (&(struct ht_ev_lost){.kind = HT_LOST_DEVICE_RECORD, .count = 3}));
	ht_synth_region(0, 3000, S_PREP);
	api(3000, 6100, FN_FINISH, 0xb2);
	api(6200, 6300, FN_LAUNCH, 4);
	ht_synth_api(6400, 6500, FN_READ, read, 3);
	api(7000, 10500, FN_FINISH, 0xa1);
	api(10600, 12100, FN_FINISH, 0xb2);
	ht_synth_region(1, 12100, S_POST);
	ht_synth_region(0, 12300, S_POST);
	if (slow) {
		ht_synth_region(1, 12300, S_EXTRA);
		ht_synth_region(0, 12400, S_EXTRA);
	}
	ht_synth_flush(dirfd, "thread-101");

	ht_synth_begin(HT_SC_DEVICE, 0, 10500);
	command(10500, 0xa1, 1, HT_CMD_KERNEL, S_KERN_A, 1100, 1150, 2000, 10000, 0);
	command(10500, 0xa1, 5, HT_CMD_COPY_D2H, 0, 6450, 6460, 10100, 10400, 4096);
	ht_synth_flush(dirfd, "device-1");

	ht_synth_begin(HT_SC_DEVICE, 0, 6100);
	command(6100, 0xb2, 2, HT_CMD_KERNEL, S_KERN_B, 1400, 1600, 1800, b_end, 0);
	command(6100, 0xb2, 3, HT_CMD_KERNEL, S_KERN_C, 1700, 1750, 4500, 6000, 0);
	command(12100, 0xb2, 4, HT_CMD_KERNEL, S_KERN_D, 6250, 6260, 6400, 12000, 0);
	ht_synth_flush(dirfd, "device-2");
}

static void graph(int dirfd)
{
	ht_synth_begin(HT_SC_THREAD, 101, 500);
	ht_synth_thread_name(500, 101, "main");
	api(1000, 1100, FN_GRAPH, 9);
	ht_synth_api(1200, 5100, FN_SYNC, NULL, 0);
	ht_synth_flush(dirfd, "thread-101");

	ht_synth_begin(HT_SC_DEVICE, 0, 5100);
	command(5100, 0xc3, 9, HT_CMD_KERNEL, S_G1, 1050, 1060, 1500, 2500, 0);
	command(5100, 0xc3, 9, HT_CMD_KERNEL, S_G2, 1050, 1060, 2600, 3600, 0);
	command(5100, 0xc3, 9, HT_CMD_KERNEL, S_G3, 1050, 1060, 3700, 5000, 0);
	ht_synth_flush(dirfd, "device-3");
}

int main(int argc, char **argv)
{
	const char *sc = argc == 3 ? argv[2] : "";
	int dirfd;

	if (strcmp(sc, "queues") && strcmp(sc, "queues-slow") && strcmp(sc, "graph")) {
		fprintf(stderr, "usage: synth_queues DIR queues|queues-slow|graph\n");
		return 2;
	}
	dirfd = ht_synth_process(argv[1], 100, "synth", uuid, NULL);
	process_stream(dirfd);
	if (!strcmp(sc, "graph"))
		graph(dirfd);
	else
		queues(dirfd, !strcmp(sc, "queues-slow"));
	close(dirfd);
	return 0;
}
