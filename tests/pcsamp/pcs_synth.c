/*
 * A synthetic trace of CUDA PC samples (pc_sampling, pc_line, pc_sample,
 * as src/cuda/pcsamp.c writes them) with one kernel launch, for
 * pcsamp_cuda_synth.sh: the analysis of CUDA's samples without a GPU.
 *   kernel "spin", corr 5: line 12 of /src/k.cu (pc 0x10) 30 long_scoreboard
 *   + 10 selected, and again 0x18 on line 12: 5 selected; line 13 (pc 0x20)
 *   4 math_pipe_throttle; pc 0x30 without a line: 2 selected.
 *
 *   pcs_synth DIR
 */
#include <stdio.h>

#include "../integration/synth_writer.h"

static const uint8_t uuid[16] = {0x9c, 0x5a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

static void line(uint64_t t, uint64_t pc, uint32_t file, uint32_t l)
{
	HT_SYNTH(pc_line, t,
		 (&(struct ht_ev_pc_line){
		     .module = 1, .function = 2, .pc = pc, .file = file, .line = l}));
}

static void sample(uint64_t t, uint64_t pc, uint32_t stall, uint32_t n)
{
	HT_SYNTH(
	    pc_sample, t,
	    (&(struct ht_ev_pc_sample){
		.corr = 5, .module = 1, .function = 2, .pc = pc, .stall = stall, .samples = n}));
}

int main(int argc, char **argv)
{
	const uint64_t times[4] = {1000, 1100, 2000, 9000};
	int dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: pcs_synth DIR\n");
		return 2;
	}
	dirfd = ht_synth_process(argv[1], 100, "synth", uuid, NULL);
	ht_synth_begin(HT_SC_THREAD, 100, 400);
	ht_synth_string(400, 1, "spin");
	ht_synth_string(400, 2, "spin");
	ht_synth_string(400, 3, "/src/k.cu");
	ht_synth_string(400, 4, "long_scoreboard");
	ht_synth_string(400, 5, "selected");
	ht_synth_string(400, 6, "math_pipe_throttle");
	ht_synth_string(400, 7, "");
	ht_synth_anchor(500, HT_ANCHOR_START);
	HT_SYNTH(pc_sampling, 600,
		 (&(struct ht_ev_pc_sampling){
		     .period = 1000000, .method = "CUPTI PC Sampling API", .reason = ""}));
	ht_synth_anchor(20000, HT_ANCHOR_EXIT);
	ht_synth_flush(dirfd, "process");

	ht_synth_begin(HT_SC_DEVICE, 0, 9100);
	ht_synth_command(9100, 5, HT_CMD_KERNEL, HT_DOM_HOST, 0, times, 0, 1);
	line(9200, 0x10, 3, 12);
	line(9200, 0x18, 3, 12);
	line(9200, 0x20, 3, 13);
	line(9200, 0x30, 7, 0);
	sample(9300, 0x10, 4, 30);
	sample(9300, 0x10, 5, 10);
	sample(9300, 0x18, 5, 5);
	sample(9300, 0x20, 6, 4);
	sample(9300, 0x30, 5, 2);
	ht_synth_flush(dirfd, "device-0");
	return 0;
}
