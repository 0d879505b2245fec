/*
 * Writes a small trace that `hetrace check` accepts but whose times cannot
 * be shown on the trace's clock (seen in the wild: a cpu_state whose end was
 * 17654116122945497726 ns): one thread with a region, and OS scheduling
 * with four CPU-state intervals of thread 101, the last two of which end
 * at or after that time (the last one also begins there). Used by check_agree.sh: check, report and
 * the exporters must agree on what is valid. (written with synth_writer.c) usage: bad_times DIR
 */
#include <stdio.h>

#include "synth_writer.h"

#define HUGE_END 17654116122945497726ull

static const uint8_t uuid[16] = {0xba, 0xd7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

int main(int argc, char **argv)
{
	int dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: bad_times DIR\n");
		return 2;
	}
	dirfd = ht_synth_process(argv[1], 100, "bad", uuid, NULL);
	ht_synth_begin(HT_SC_THREAD, 100, 400);
	ht_synth_string(400, 1, "work");
	ht_synth_anchor(500, HT_ANCHOR_START);
	ht_synth_os_on(600);
	ht_synth_cpu_state(9000, 101, HT_CPU_RUNNING, 1000, 2000);
	ht_synth_cpu_state(9000, 101, HT_CPU_BLOCKED, 2000, 3000);
	ht_synth_cpu_state(9000, 101, HT_CPU_RUNNING, 3000, HUGE_END - HT_SYNTH_BASE);
	ht_synth_cpu_state(9000, 101, HT_CPU_PREEMPTED, HUGE_END - HT_SYNTH_BASE,
			   HUGE_END - HT_SYNTH_BASE + 1000);
	ht_synth_anchor(10000, HT_ANCHOR_EXIT);
	ht_synth_flush(dirfd, "process");

	ht_synth_begin(HT_SC_THREAD, 101, 1000);
	ht_synth_thread_name(1000, 101, "main");
	ht_synth_region(1, 1500, 1);
	ht_synth_region(0, 4000, 1);
	ht_synth_flush(dirfd, "thread-101");
	return 0;
}
