/*
 * Translation of CUPTI activity records into hetrace device commands: the
 * vendor-to-common step of the CUDA source (HPCToolkit's "translate"). It
 * is a function of the records alone, so tests feed it hand-built records;
 * the injection library feeds it the records of each completed CUPTI
 * buffer, on whatever thread CUPTI delivers them.
 *
 * Mapping: one hetrace device queue per CUDA stream, queue id
 * (contextId << 32 | streamId) on device deviceId; context-wide
 * synchronisations go to the queue (contextId << 32 | 0xffffffff).
 * Timestamps are already CLOCK_MONOTONIC ns (our CUPTI timestamp callback),
 * so commands carry ts_domain HT_DOM_HOST. global/local hold the grid and
 * block dimensions; cmd holds CUPTI's activity kind << 8 | its sub-kind
 * (copy kind, synchronisation type). A record without usable timestamps
 * (start or end 0, end before start) is not a command: it is counted as a
 * lost device timestamp.
 */
#ifndef HT_CUDA_TRANSLATE_H
#define HT_CUDA_TRANSLATE_H

#include <stdint.h>

#include <cupti_activity.h>

#include "format/format.h"

struct ht_cuda_xlate;

/* Return: a translator, or NULL (errno set). */
struct ht_cuda_xlate *ht_cuda_xlate_create(void);
void ht_cuda_xlate_destroy(struct ht_cuda_xlate *x);

/*
 * Translates one record. Thread-safe.
 * Return: 1 when it became a device command, 0 when its kind carries none
 * (or it only defined a device/context), -1 when it was counted as lost.
 */
int ht_cuda_xlate_record(struct ht_cuda_xlate *x, const CUpti_Activity *rec);

/* Tells the translator which device a context lives on (from callbacks). */
void ht_cuda_xlate_context(struct ht_cuda_xlate *x, uint32_t context, uint32_t device);

/* Adds records that CUPTI reports it dropped. */
void ht_cuda_xlate_add_dropped(struct ht_cuda_xlate *x, uint64_t n);

/*
 * Return: the lost count of `kind` (HT_LOST_DEVICE_TIMESTAMP or
 * HT_LOST_DEVICE_RECORD) since the previous call, and resets it. The caller
 * emits it on an application thread (CUPTI's threads have no stream).
 */
uint64_t ht_cuda_xlate_take_lost(struct ht_cuda_xlate *x, enum ht_lost_kind kind);

/*
 * Correlation aliases: a driver call made inside a runtime call may carry
 * its own CUPTI correlation id; activity records then name the driver id.
 * ht_cuda_corr_alias(inner, outer) makes the translator report `outer` for
 * `inner`. Lock-free, bounded (older aliases are overwritten).
 */
void ht_cuda_corr_alias(uint32_t inner, uint32_t outer);
uint32_t ht_cuda_corr_resolve(uint32_t corr);

#endif
