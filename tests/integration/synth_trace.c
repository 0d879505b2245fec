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
 * (written with synth_writer.c)
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "synth_writer.h"

#define DEV_BEHIND 1000000ull /* device clock = host - 1 ms */

static const uint8_t uuid[16] = {0x5e, 0x17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

static void api(uint64_t t0, uint64_t t1, uint16_t f, uint64_t corr)
{
	ht_synth_api(t0, t1, f, &corr, corr ? 1 : 0);
}

/* A command in the device's clock: times are host times, shifted by DEV_BEHIND. */
static void command(uint64_t collected, uint64_t corr, enum ht_cmd_kind kind, uint64_t q,
		    uint64_t s, uint64_t st, uint64_t e, uint64_t bytes, uint32_t name)
{
	const uint64_t t[4] = {q, s, st, e};

	ht_synth_command(collected, corr, kind, HT_DOM_DEVICE, -(int64_t)DEV_BEHIND, t, bytes,
			 name);
}

static void pair(uint64_t collected, enum ht_pair_kind kind, uint64_t host_t)
{
	ht_synth_pair(collected, kind, host_t, DEV_BEHIND);
}

int main(int argc, char **argv)
{
	const char *scenario = argc > 2 ? argv[2] : "base";
	int hostile = !strcmp(scenario, "hostile"), reorder = !strcmp(scenario, "reorder");
	int badids = !strcmp(scenario, "badids");
	int dirfd;

	if (argc < 2 || argc > 3 || (!hostile && !reorder && !badids && strcmp(scenario, "base"))) {
		fprintf(stderr, "usage: synth_trace DIR [base|hostile|reorder|badids]\n");
		return 2;
	}
	dirfd = ht_synth_process(argv[1], 100, "synth", uuid, NULL);

	ht_synth_begin(HT_SC_THREAD, 100, 400);
	ht_synth_string(400, 1, "step");
	ht_synth_string(400, 2, "kern_a");
	ht_synth_string(400, 3, "<img src=x onerror=alert(1)>");
	ht_synth_string(400, 4, "</script><script>alert(2)</script>");
	ht_synth_fn(400, 0x1000, "clFinish", HT_ROLE_SYNC, ht_synth_finish_args, 1);
	ht_synth_fn(400, 0x1001, "clEnqueueNDRangeKernel", HT_ROLE_LAUNCH | HT_ROLE_ENQUEUE,
		    ht_synth_launch_args, 1);
	ht_synth_anchor(500, HT_ANCHOR_START);
	ht_synth_anchor(21000, HT_ANCHOR_EXIT);
	ht_synth_flush(dirfd, "process");

	ht_synth_begin(HT_SC_THREAD, 101, 1000);
	if (hostile)
		ht_synth_thread_name(1000, 101, "render<i>x</i>");
	ht_synth_region(1, 1000, 1);
	api(2000, 2500, 0x1001, 1);
	api(3000, 9000, 0x1000, 0);
	ht_synth_region(0, 9500, 1);
	api(10000, 10100, 0x1000, 0);
	if (hostile) {
		api(14000, 14200, 0x1001, 3);
		ht_synth_region(1, 15000, 4);
		ht_synth_region(0, 16000, 4);
	}
	ht_synth_region(1, 20000, 1);
	ht_synth_region(0, 21000, 1);
	if (badids) {
		/* ids the trace never defined, near 2^32 (an id + 64 wraps) and 0xffff */
		ht_synth_region(1, 22000, 0xfffffff0u);
		ht_synth_region(0, 22100, 0xfffffff0u);
		ht_synth_region(1, 22200, 0xffffffc1u);
		ht_synth_region(0, 22300, 0xffffffc1u);
		ht_synth_api(22400, 22500, 0xffff, NULL, 0);
		HT_SYNTH(counter, 22600,
			 (&(struct ht_ev_counter){.name = 0xffffffffu, .value = 1}));
	}
	if (reorder) {
		api(30000, 30100, 0x1001, 10);
		api(31000, 31100, 0x1001, 11);
		api(32000, 32100, 0x1001, 12);
	}
	ht_synth_flush(dirfd, "thread-101");

	ht_synth_begin(HT_SC_DEVICE, 0, 9100);
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
	if (badids) /* a kernel named by an undefined string id */
		command(15500, 5, HT_CMD_KERNEL, 14100, 14150, 14200, 15000, 0, 0xffffffffu);
	if (reorder) {
		command(40000, 12, HT_CMD_KERNEL, 32050, 32060, 37000, 38000, 0, 2);
		command(40100, 11, HT_CMD_KERNEL, 31050, 31060, 36000, 37000, 0, 2);
		command(40200, 10, HT_CMD_KERNEL, 30050, 30060, 35000, 36000, 0, 2);
	}
	ht_synth_flush(dirfd, "device-0");
	close(dirfd);
	return 0;
}
