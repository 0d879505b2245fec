/*
 * The Compute Sanitizer patch that records CUDA global-memory accesses into
 * the memory-access channel (seed 003), compiled by nvcc into
 * hetrace-memtrace-patches.fatbin (-Xptxas --compile-as-tools-patch) and
 * loaded by cuda_sanitizer.c with sanitizerAddPatchesFromFile; every
 * global load, store and atomic of an instrumented kernel calls it
 * (sanitizerPatchInstructions, SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS).
 *
 * Warp-scope reservation, the seed's answer to its deadlock: the active
 * lanes elect their lowest lane, which reserves room for all of them at
 * once (one CAS for the warp) while the others wait at the shuffle; the
 * whole warp then either writes or waits, so no lane ever holds a
 * reservation while a lane of its warp waits for room (channel.c). Each
 * lane writes its record at its rank among the active lanes; after
 * __syncwarp the elected lane fences and acknowledges the warp's records.
 */
#include <stdint.h>

#include "memtrace/cuda_producer.h"

/* SanitizerPatchResult: 0 is SANITIZER_PATCH_SUCCESS (sanitizer_patching.h). */
typedef int ht_mt_patch_result;

extern "C" __device__ __noinline__ ht_mt_patch_result
ht_mt_cuda_access(void *userdata, uint64_t pc, void *ptr, uint32_t size, uint32_t flags,
		  const void *data)
{
	const struct ht_mt_cuda_launch *l = (const struct ht_mt_cuda_launch *)userdata;
	uint32_t active, lane, leader, n, rank, group, item, bin = 0, at = 0;
	int ok = 0;

	(void)data;
	if (!l || !l->on)
		return 0;
	group = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	if (l->sample > 1 && group % l->sample)
		return 0;
	item = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	active = __activemask();
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	leader = __ffs(active) - 1;
	n = __popc(active);
	rank = __popc(active & ((1u << lane) - 1));
	if (lane == leader) {
		/* nothing is held while the warp waits: the consumer can empty a bin */
		while (!(ok = ht_mt_cuda_reserve(l, group, n, &bin, &at)) && l->block)
			__nanosleep(1000);
		if (!ok)
			ht_mt_cuda_drop(l, n);
	}
	ok = __shfl_sync(active, ok, leader);
	if (!ok)
		return 0;
	bin = __shfl_sync(active, bin, leader);
	at = __shfl_sync(active, at, leader);
	ht_mt_cuda_write(l, bin, at + rank, (uint64_t)ptr, group, (uint32_t)(pc - l->fn_pc), item,
			 size, ht_mt_cuda_kind(flags));
	__syncwarp(active);
	if (lane == leader)
		ht_mt_cuda_ack(l, bin, n);
	return 0;
}
