/*
 * NVTX ranges and hetrace ticks, for --capture-range=nvtx:NAME: N rounds of
 * an NVTX range "warmup" with ticks 20r..20r+9, then a range "step" with
 * ticks 20r+10..20r+19.
 *   session_nvtx N
 */
#include <hetrace/hetrace.h>
#include <nvtx3/nvToolsExt.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5, tick = 0;

	for (long r = 0; r < n; r++) {
		nvtxRangePushA("warmup");
		for (int i = 0; i < 10; i++, tick++)
			HT_COUNTER("tick",
				   tick); /* the value is not evaluated when not recording */
		nvtxRangePop();
		nvtxRangePushA("step");
		for (int i = 0; i < 10; i++, tick++)
			HT_COUNTER("tick", tick);
		nvtxRangePop();
	}
	return 0;
}
