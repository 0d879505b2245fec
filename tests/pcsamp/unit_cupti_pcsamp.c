/*
 * The CUPTI PC-sampling translation (src/cuda/pcsamp_translate.c) on
 * hand-built CUpti_PCSamplingData, no GPU: stall reasons named by the
 * context's table (an index it lacks as stall_N), cubins numbered in load
 * order (an unknown CRC as module 0, never resolved), one pc_line per
 * (module, function, offset) before its first sample and never again,
 * zero counts left out, correlation ids through the driver-in-runtime
 * alias, the lines of the resolver, dropped samples counted once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/pcsamp_translate.h"
#include "cuda/translate.h"

static int failures;
#define CHECK(c, ...)                                                                              \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #c);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fprintf(stderr, "\n");                                                     \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static char out[8192];
static size_t used;
static int resolves;

static void put_line(void *ctx, uint32_t module, const char *function, uint64_t pc,
		     const char *file, uint32_t line)
{
	(void)ctx;
	used += (size_t)snprintf(out + used, sizeof out - used, "L %u %s 0x%llx %s:%u\n", module,
				 function, (unsigned long long)pc, file, line);
}

static void put_sample(void *ctx, uint64_t corr, uint32_t module, const char *function, uint64_t pc,
		       const char *stall, uint32_t samples)
{
	(void)ctx;
	used += (size_t)snprintf(out + used, sizeof out - used, "S %llu %u %s 0x%llx %s %u\n",
				 (unsigned long long)corr, module, function, (unsigned long long)pc,
				 stall, samples);
}

static const char cubin_a[] = "cubin-a bytes", cubin_b[] = "cubin-b";

/* Module a's lines are 100 + pc in k.cu; module b has no line information. */
static int resolve(void *ctx, const void *cubin, size_t size, const char *function, uint64_t pc,
		   char *file, size_t cap, uint32_t *line)
{
	(void)ctx;
	(void)function;
	resolves++;
	if (size == sizeof cubin_a && !memcmp(cubin, cubin_a, size)) {
		snprintf(file, cap, "/src/k.cu");
		*line = (uint32_t)(100 + pc);
		return 0;
	}
	return -1;
}

int main(void)
{
	struct ht_cuda_pcx *x = ht_cuda_pcx_create();
	struct ht_cuda_pcx_sink sink = {NULL, put_line, put_sample, resolve};
	uint32_t index[3] = {1, 3, 7};
	char *names[3] = {"long_scoreboard", "selected", "math_pipe_throttle"};
	CUpti_PCSamplingStallReason s0[3] = {{1, 10}, {3, 0}, {7, 2}}, s1[1] = {{3, 4}},
				    s2[1] = {{99, 3}}, s3[1] = {{1, 1}};
	CUpti_PCSamplingPCData pcs[4] = {
	    {sizeof(CUpti_PCSamplingPCData), 0xAAA, 0x10, 0, 0, "k1", 3, s0, 5},
	    {sizeof(CUpti_PCSamplingPCData), 0xAAA, 0x20, 0, 0, "k1", 1, s1, 5},
	    {sizeof(CUpti_PCSamplingPCData), 0xBBB, 0x10, 0, 0, "k2", 1, s2, 55},
	    {sizeof(CUpti_PCSamplingPCData), 0xCCC, 0x30, 0, 0, NULL, 1, s3, 6},
	};
	CUpti_PCSamplingData d = {.size = sizeof d,
				  .collectNumPcs = 4,
				  .totalSamples = 27,
				  .droppedSamples = 7,
				  .totalNumPcs = 4,
				  .pPcData = pcs};
	const char *want = "L 1 k1 0x10 /src/k.cu:116\n"
			   "S 5 1 k1 0x10 long_scoreboard 10\n"
			   "S 5 1 k1 0x10 math_pipe_throttle 2\n"
			   "L 1 k1 0x20 /src/k.cu:132\n"
			   "S 5 1 k1 0x20 selected 4\n"
			   "L 2 k2 0x10 :0\n"
			   "S 5 2 k2 0x10 stall_99 3\n"
			   "L 0 ? 0x30 :0\n"
			   "S 6 0 ? 0x30 long_scoreboard 1\n";
	uint64_t n;

	CHECK(x != NULL, "create");
	CHECK(ht_cuda_pcx_stall_names(x, 3, index, names) == 0, "stall names");
	CHECK(ht_cuda_pcx_cubin(x, 0xAAA, cubin_a, sizeof cubin_a) == 1, "first cubin");
	CHECK(ht_cuda_pcx_cubin(x, 0xBBB, cubin_b, sizeof cubin_b) == 2, "second cubin");
	CHECK(ht_cuda_pcx_cubin(x, 0xAAA, cubin_a, sizeof cubin_a) == 1, "a cubin loaded again");
	ht_cuda_corr_alias(55, 5); /* a driver launch inside runtime call 5 */

	n = ht_cuda_pcx_data(x, &d, &sink);
	CHECK(n == 20, "samples translated: %llu", (unsigned long long)n);
	CHECK(!strcmp(out, want), "events:\n%s\nexpected:\n%s", out, want);
	/* module a's two PCs, module b's one (it fails); never module 0's (no cubin) */
	CHECK(resolves == 3, "resolver calls: %d", resolves);
	CHECK(ht_cuda_pcx_take_dropped(x) == 7, "dropped");
	CHECK(ht_cuda_pcx_take_dropped(x) == 0, "dropped, taken");

	/* the same PCs again (the next buffer of a loop): samples only, no line twice */
	used = 0;
	out[0] = '\0';
	d.totalNumPcs = 2;
	n = ht_cuda_pcx_data(x, &d, &sink);
	CHECK(n == 16, "second buffer: %llu", (unsigned long long)n);
	CHECK(!strcmp(out, "S 5 1 k1 0x10 long_scoreboard 10\nS 5 1 k1 0x10 math_pipe_throttle "
			   "2\nS 5 1 k1 0x20 selected 4\n"),
	      "second buffer's events:\n%s", out);

	/* totalNumPcs beyond what the buffer holds: only collectNumPcs are read */
	used = 0;
	d.totalNumPcs = 9;
	d.collectNumPcs = 1;
	n = ht_cuda_pcx_data(x, &d, &sink);
	CHECK(n == 12, "a short buffer: %llu", (unsigned long long)n);
	ht_cuda_pcx_destroy(x);
	if (failures)
		return 1;
	printf("unit_cupti_pcsamp: ok\n");
	return 0;
}
