/*
 * Translation of CUPTI's PC-sampling data (cupti_pcsampling.h) into
 * hetrace's pc_line and pc_sample events: the vendor-to-common step of
 * CUDA's PC sampling, a function of CUPTI's buffers alone, so tests feed
 * it hand-built CUpti_PCSamplingData (as translate.h's records).
 *
 * Per sampled PC (cubin CRC, function, offset, correlation id) CUPTI gives
 * a count per stall reason index. The translator names the reasons by the
 * table cuptiPCSamplingGetStallReasons gave for the context, numbers the
 * cubins in load order (module 1, 2, ...; 0: a CRC it was never shown),
 * asks the line resolver once per (module, function, offset) and emits
 * pc_line before the first sample naming it, then one pc_sample per
 * (launch, PC, stall reason) with samples > 0. The correlation id goes
 * through ht_cuda_corr_resolve: a launch made by a driver call inside a
 * runtime call is linked to the runtime call, as its device command is.
 */
#ifndef HT_CUDA_PCSAMP_TRANSLATE_H
#define HT_CUDA_PCSAMP_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>

#include <cupti_pcsampling.h>

struct ht_cuda_pcx;

/* Where events go (the injection library writes them; tests collect them). */
struct ht_cuda_pcx_sink {
	void *ctx;
	void (*line)(void *ctx, uint32_t module, const char *function, uint64_t pc,
		     const char *file, uint32_t line);
	void (*sample)(void *ctx, uint64_t corr, uint32_t module, const char *function, uint64_t pc,
		       const char *stall, uint32_t samples);
	/*
	 * The source line of (cubin, function, pc): cuptiGetSassToSourceCorrelation
	 * in the library. Return: 0 with file (cap bytes) and *line set, or < 0.
	 */
	int (*resolve)(void *ctx, const void *cubin, size_t size, const char *function, uint64_t pc,
		       char *file, size_t cap, uint32_t *line);
};

/* Return: a translator, or NULL (ENOMEM). */
struct ht_cuda_pcx *ht_cuda_pcx_create(void);
void ht_cuda_pcx_destroy(struct ht_cuda_pcx *x);

/* The stall reasons of the sampled devices: index -> name (copied). Return: 0 or -ENOMEM. */
int ht_cuda_pcx_stall_names(struct ht_cuda_pcx *x, size_t n, const uint32_t *index,
			    char *const *names);

/* A cubin loaded (module-load callback): its CRC and bytes (copied). Return: its module id, 0 on
 * ENOMEM. */
uint32_t ht_cuda_pcx_cubin(struct ht_cuda_pcx *x, uint64_t crc, const void *cubin, size_t size);

/*
 * Translates one buffer of parsed PC data (CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED).
 * Thread-safe. Return: samples translated.
 */
uint64_t ht_cuda_pcx_data(struct ht_cuda_pcx *x, const CUpti_PCSamplingData *d,
			  const struct ht_cuda_pcx_sink *sink);

/* Samples CUPTI dropped (droppedSamples, a full hardware buffer) since the last call. */
uint64_t ht_cuda_pcx_take_dropped(struct ht_cuda_pcx *x);

#endif
