/*
 * CUDA PC sampling in the injection library (pcsamp.c): set up once CUPTI
 * is loaded, per context when it is created, cubins at module load, data
 * fetched on API exits (rate-limited), at context destruction and at exit.
 */
#ifndef HT_CUDA_PCSAMP_H
#define HT_CUDA_PCSAMP_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "cuda/cupti_lib.h"

/* Reads HETRACE_PC_SAMPLING and resolves the PC Sampling API from c's libcupti. */
void ht_cuda_pc_setup(const struct ht_cupti *c);
/* A context was created: enables and configures PC sampling on it. */
void ht_cuda_pc_context(CUcontext ctx, uint32_t id, uint32_t device);
/* A module was loaded: its cubin, for the samples' source lines. */
void ht_cuda_pc_module(const void *cubin, size_t size);
/* Fetches the samples of ctx (NULL: every context); final: ctx goes away (or exit). */
void ht_cuda_pc_collect(CUcontext ctx, int final);

#endif
