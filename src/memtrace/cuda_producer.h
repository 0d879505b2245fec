/*
 * The CUDA producer's steps of the channel protocol (channel.c), written
 * once for two compilers: nvcc builds them into the device patch
 * (cuda_patches.cu), where one lane of a warp reserves for all its active
 * lanes, every lane writes its record and that lane acknowledges; the
 * C compiler builds them into the host-side tests, which run a warp's
 * lanes through the same steps (tests/memtrace/test_cuda_host.c).
 *
 * The channel and the per-launch descriptors live in pinned host memory
 * (sanitizerAllocHost): the device writes over the bus, the consumer
 * thread reads it where it lies.
 */
#ifndef HT_MEMTRACE_CUDA_PRODUCER_H
#define HT_MEMTRACE_CUDA_PRODUCER_H

#include <stdint.h>

#include "memtrace/layout.h"

#ifdef __CUDACC__
#define HT_MT_DEV __device__ __forceinline__
static __device__ __forceinline__ uint32_t ht_mt_cas(uint32_t *p, uint32_t cmp, uint32_t val)
{
	return atomicCAS(p, cmp, val);
}
static __device__ __forceinline__ uint32_t ht_mt_load(const uint32_t *p)
{
	return *(const volatile uint32_t *)p;
}
static __device__ __forceinline__ void ht_mt_add(uint32_t *p, uint32_t n)
{
	__threadfence_system(); /* the records reach the host before the acknowledgement */
	atomicAdd(p, n);
}
static __device__ __forceinline__ void ht_mt_add64(uint64_t *p, uint64_t n)
{
	atomicAdd((unsigned long long *)p, (unsigned long long)n);
}
#else
#define HT_MT_DEV static inline
static inline uint32_t ht_mt_cas(uint32_t *p, uint32_t cmp, uint32_t val)
{
	__atomic_compare_exchange_n(p, &cmp, val, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	return cmp;
}
static inline uint32_t ht_mt_load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void ht_mt_add(uint32_t *p, uint32_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELEASE);
}
static inline void ht_mt_add64(uint64_t *p, uint64_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}
#endif

/* What one launch's patches read (userdata): one per launch slot, in pinned memory. */
struct ht_mt_cuda_launch {
	uint8_t *chan;	/* the channel */
	uint32_t nbins; /* its geometry */
	uint32_t cap;
	uint32_t slot;	 /* the launch's slot */
	uint32_t block;	 /* wait for room (1) or drop and count (0) */
	uint32_t sample; /* record 1 block in `sample` */
	uint32_t on;	 /* 0: the slot is idle, record nothing */
	uint64_t fn_pc;	 /* the function's first instruction: sites are offsets from it */
};

/*
 * Step 1 for n records (n <= cap), by the lane that reserves for its warp:
 * from bin `home` on, one pass. Return: 1 with *bin, *at; 0 when no bin had
 * room (nothing held).
 */
HT_MT_DEV int ht_mt_cuda_reserve(const struct ht_mt_cuda_launch *l, uint32_t home, uint32_t n,
				 uint32_t *bin, uint32_t *at)
{
	uint32_t b = home & (l->nbins - 1);

	for (uint32_t t = 0; t < l->nbins; t++, b = (b + 1) & (l->nbins - 1)) {
		uint32_t *res = (uint32_t *)(l->chan + HT_MT_OFF_BIN(b));
		uint32_t r = ht_mt_load(res);

		while (!(r & HT_MT_CLOSED)) {
			uint32_t o;

			if (r + n > l->cap) {
				ht_mt_cas(res, r,
					  r | HT_MT_CLOSED); /* full: the consumer takes it */
				break;
			}
			o = ht_mt_cas(res, r, r + n);
			if (o == r) {
				*bin = b;
				*at = r;
				return 1;
			}
			r = o;
		}
	}
	return 0;
}

/* Step 2: one lane's record at index i of bin b. */
HT_MT_DEV void ht_mt_cuda_write(const struct ht_mt_cuda_launch *l, uint32_t b, uint32_t i,
				uint64_t addr, uint32_t group, uint32_t site, uint32_t item,
				uint32_t size, uint32_t kind)
{
	uint32_t *w = (uint32_t *)(l->chan + HT_MT_OFF_RECS(l->nbins) +
				   ((uint64_t)b * l->cap + i) * HT_MT_REC_SIZE);

	w[0] = (uint32_t)addr;
	w[1] = (uint32_t)(addr >> 32);
	w[2] = l->slot;
	w[3] = group;
	w[4] = site;
	w[5] = (item & HT_MT_ITEM_MASK) | (size > 255 ? 255u : size) << 16 | kind << 24;
	w[6] = 1; /* one access a record: the consumer folds lanes into runs */
	w[7] = 0;
}

/* Step 3, by the lane that reserved: the warp's n records are written. */
HT_MT_DEV void ht_mt_cuda_ack(const struct ht_mt_cuda_launch *l, uint32_t b, uint32_t n)
{
	ht_mt_add((uint32_t *)(l->chan + HT_MT_OFF_BIN(b) + HT_MT_ACK), n);
}

/* Discard mode, no room: the warp's n records (one access each) are counted as dropped. */
HT_MT_DEV void ht_mt_cuda_drop(const struct ht_mt_cuda_launch *l, uint32_t n)
{
	ht_mt_add64((uint64_t *)(l->chan + HT_MT_OFF_SLOT(l->nbins, l->slot)), n);
}

/* The record kind of a Compute Sanitizer access (flags: read 0x1, write 0x2). */
HT_MT_DEV uint32_t ht_mt_cuda_kind(uint32_t flags)
{
	if ((flags & 3u) == 3u)
		return HT_MT_KIND_ATOMIC;
	return flags & 2u ? HT_MT_KIND_STORE : HT_MT_KIND_LOAD;
}

#endif
