/*
 * CUPTI PC-sampling data to pc_line / pc_sample (see pcsamp_translate.h).
 * A buffer holds at most the PCs it was sized for (the library asks for
 * 5000 at a time); each costs a map lookup, the first sight of a PC one
 * SASS-to-source query.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/map.h"
#include "cuda/pcsamp_translate.h"
#include "cuda/translate.h"

struct cubin {
	uint64_t crc;
	void *bytes;
	size_t size;
};

struct ht_cuda_pcx {
	pthread_mutex_t lock;
	struct ht_map stalls; /* index -> strdup'ed name */
	struct cubin *cubins; /* module id - 1 */
	size_t ncubins, capcubins;
	struct ht_map described; /* (module, function, pc) -> 1 once its pc_line was given */
	uint64_t dropped;
};

struct ht_cuda_pcx *ht_cuda_pcx_create(void)
{
	struct ht_cuda_pcx *x = calloc(1, sizeof *x);

	if (x)
		pthread_mutex_init(&x->lock, NULL);
	return x;
}

void ht_cuda_pcx_destroy(struct ht_cuda_pcx *x)
{
	size_t pos = 0;
	uint64_t *v;

	if (!x)
		return;
	while ((v = ht_map_next(&x->stalls, &pos)))
		free((void *)(uintptr_t)*v);
	for (size_t i = 0; i < x->ncubins; i++)
		free(x->cubins[i].bytes);
	free(x->cubins);
	ht_map_release(&x->stalls);
	ht_map_release(&x->described);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

int ht_cuda_pcx_stall_names(struct ht_cuda_pcx *x, size_t n, const uint32_t *index,
			    char *const *names)
{
	int rc = 0;

	pthread_mutex_lock(&x->lock);
	for (size_t i = 0; i < n && !rc; i++) {
		uint64_t *v = ht_map_u64(&x->stalls, index[i], 0, NULL);
		char *copy = v ? strdup(names[i] ? names[i] : "?") : NULL;

		if (!copy) {
			rc = -ENOMEM;
			break;
		}
		free((void *)(uintptr_t)*v);
		*v = (uintptr_t)copy;
	}
	pthread_mutex_unlock(&x->lock);
	return rc;
}

uint32_t ht_cuda_pcx_cubin(struct ht_cuda_pcx *x, uint64_t crc, const void *cubin, size_t size)
{
	uint32_t id = 0;
	void *copy = size ? malloc(size) : NULL;

	if (size && !copy)
		return 0;
	if (size)
		memcpy(copy, cubin, size);
	pthread_mutex_lock(&x->lock);
	for (size_t i = 0; i < x->ncubins && !id; i++)
		if (x->cubins[i].crc == crc)
			id = (uint32_t)i + 1; /* the same cubin loaded again */
	if (!id &&
	    !ht_grow((void **)&x->cubins, &x->capcubins, sizeof *x->cubins, x->ncubins + 1)) {
		x->cubins[x->ncubins] = (struct cubin){crc, copy, size};
		copy = NULL;
		id = (uint32_t)++x->ncubins;
	}
	pthread_mutex_unlock(&x->lock);
	free(copy);
	return id;
}

static uint32_t module_of(const struct ht_cuda_pcx *x, uint64_t crc)
{
	for (size_t i = 0; i < x->ncubins; i++)
		if (x->cubins[i].crc == crc)
			return (uint32_t)i + 1;
	return 0;
}

/* Gives the PC's line once (lock held). */
static void describe(struct ht_cuda_pcx *x, uint32_t module, const CUpti_PCSamplingPCData *pc,
		     const struct ht_cuda_pcx_sink *sink)
{
	struct {
		uint32_t module, index;
		uint64_t pc;
	} key = {module, pc->functionIndex, pc->pcOffset};
	char file[1024] = "";
	uint32_t line = 0;
	int created;
	const struct cubin *c = module ? &x->cubins[module - 1] : NULL;

	if (!ht_map_bytes(&x->described, &key, sizeof key, 1, &created) || !created)
		return;
	if (!c || !c->bytes || !sink->resolve ||
	    sink->resolve(sink->ctx, c->bytes, c->size, pc->functionName, pc->pcOffset, file,
			  sizeof file, &line) < 0) {
		file[0] = '\0';
		line = 0;
	}
	sink->line(sink->ctx, module, pc->functionName, pc->pcOffset, file, line);
}

uint64_t ht_cuda_pcx_data(struct ht_cuda_pcx *x, const CUpti_PCSamplingData *d,
			  const struct ht_cuda_pcx_sink *sink)
{
	uint64_t n = 0;

	pthread_mutex_lock(&x->lock);
	x->dropped += d->droppedSamples;
	for (size_t i = 0; d->pPcData && i < d->totalNumPcs && i < d->collectNumPcs; i++) {
		const CUpti_PCSamplingPCData *pc = &d->pPcData[i];
		uint32_t module = module_of(x, pc->cubinCrc);
		uint64_t corr = ht_cuda_corr_resolve(pc->correlationId);
		const char *fn = pc->functionName ? pc->functionName : "?";
		CUpti_PCSamplingPCData named = *pc;

		named.functionName = (char *)fn;
		describe(x, module, &named, sink);
		for (size_t k = 0; pc->stallReason && k < pc->stallReasonCount; k++) {
			const CUpti_PCSamplingStallReason *r = &pc->stallReason[k];
			const uint64_t *v =
			    ht_map_find_u64(&x->stalls, r->pcSamplingStallReasonIndex);
			char unnamed[32];

			if (!r->samples)
				continue;
			if (!v)
				snprintf(unnamed, sizeof unnamed, "stall_%u",
					 r->pcSamplingStallReasonIndex);
			sink->sample(sink->ctx, corr, module, fn, pc->pcOffset,
				     v ? (const char *)(uintptr_t)*v : unnamed, r->samples);
			n += r->samples;
		}
	}
	pthread_mutex_unlock(&x->lock);
	return n;
}

uint64_t ht_cuda_pcx_take_dropped(struct ht_cuda_pcx *x)
{
	uint64_t n;

	pthread_mutex_lock(&x->lock);
	n = x->dropped;
	x->dropped = 0;
	pthread_mutex_unlock(&x->lock);
	return n;
}
