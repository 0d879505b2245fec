/*
 * Memory-access tracing of CUDA kernels through the Compute Sanitizer API
 * (cuda_sanitizer.c, in libhetrace-cuda.so): modules patched at load, a
 * launch slot and descriptor per launch of a selected kernel, launches
 * ended at stream or context synchronisation. The collector and the
 * sanitizer library are reached through tables so that the host side runs
 * in tests without a GPU (tests/memtrace/test_cuda_host.c).
 */
#ifndef HT_MEMTRACE_CUDA_SANITIZER_H
#define HT_MEMTRACE_CUDA_SANITIZER_H

#include "memtrace/collector.h"
#include "memtrace/sanitizer_api.h"

/* The collector's side (collector.h), replaceable by tests. */
struct ht_mt_cuda_ops {
	const struct ht_mt_config *(*config)(void);
	struct ht_mt_chan *(*channel)(unsigned int lanes, uint32_t min_cap,
				      void *(*alloc)(size_t bytes, void *arg), void *arg);
	int (*launch_start)(const struct ht_mt_launch *l);
	void (*launch_done)(int slot);
	uint64_t (*corr)(void); /* the correlation id of the launch call in progress */
};

/* The device callback the patches call (cuda_patches.cu). */
#define HT_MT_CUDA_PATCH "ht_mt_cuda_access"
/* The patches' file, beside libhetrace-cuda.so. */
#define HT_MT_CUDA_PATCHES "hetrace-memtrace-patches.fatbin"

/*
 * Subscribes to the sanitizer's resource, launch and synchronisation
 * callbacks with `patches` as the patch file. Return: 0, or -1 (warned once).
 */
int ht_mt_cuda_start(const struct ht_san_api *api, const struct ht_mt_cuda_ops *ops,
		     const char *patches);
/* The subscriber's callback (Sanitizer_CallbackFunc). */
void ht_mt_cuda_callback(void *userdata, int domain, uint32_t cbid, const void *data);
/* The descriptor the launch in `slot` runs with (tests), or NULL. */
const struct ht_mt_cuda_launch *ht_mt_cuda_descriptor(int slot);

/*
 * In libhetrace-cuda.so, from InitializeInjection when --memory-access is
 * on: loads libsanitizer-public.so and starts with the real collector.
 */
void ht_mt_cuda_init(uint64_t (*corr)(void));

#endif
