/*
 * CUPTI activity records -> hetrace device commands (see translate.h for the
 * mapping). Holds the little state translation needs: the device stream of
 * each CUDA stream, the device of each context, which devices and queues
 * have been described, a kernel-name cache, and the lost counters. One
 * mutex guards the maps; emitting a command locks only its device stream.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/recorder.h"
#include "cuda/translate.h"
#include "common/grow.h"
#include "common/map.h"
#include "hetrace/hetrace.h"

#define CTX_WIDE    0xffffffffu /* queue low half of context-wide synchronisations */
#define MAX_DEVICES 64
#define NAME_CACHE  1024 /* direct-mapped, by CUPTI's name pointer */

struct name_slot {
	const char *key;
	char *copy; /* the text the id was made from: a reused pointer must match it */
	uint32_t id;
};

struct ctx_slot {
	uint32_t context, device_plus1;
};

struct ht_cuda_xlate {
	pthread_mutex_t lock;
	struct ht_map queues; /* contextId << 32 | streamId -> struct ht_stream * (0: none yet) */
	struct ctx_slot *ctxs;
	size_t nctxs, capctxs;
	uint8_t described[MAX_DEVICES]; /* 1 generic name written, 2 CUPTI's name written */
	struct name_slot names[NAME_CACHE];
	uint64_t lost_ts, lost_records; /* atomics */
};

/* ---- correlation aliases (process-wide, lock-free) ---- */

#define ALIASES 65536
static uint64_t aliases[ALIASES]; /* inner << 32 | outer */

static inline uint32_t alias_slot(uint32_t id)
{
	return (id * 2654435761u) >> 16; /* 16 bits: ALIASES slots */
}

void ht_cuda_corr_alias(uint32_t inner, uint32_t outer)
{
	if (inner && inner != outer)
		__atomic_store_n(&aliases[alias_slot(inner)], (uint64_t)inner << 32 | outer,
				 __ATOMIC_RELAXED);
}

uint32_t ht_cuda_corr_resolve(uint32_t corr)
{
	uint64_t v = __atomic_load_n(&aliases[alias_slot(corr)], __ATOMIC_RELAXED);

	return corr && (uint32_t)(v >> 32) == corr ? (uint32_t)v : corr;
}

/* ---- lifecycle ---- */

struct ht_cuda_xlate *ht_cuda_xlate_create(void)
{
	struct ht_cuda_xlate *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	pthread_mutex_init(&x->lock, NULL);
	return x;
}

void ht_cuda_xlate_destroy(struct ht_cuda_xlate *x)
{
	if (!x)
		return;
	for (unsigned int i = 0; i < NAME_CACHE; i++)
		free(x->names[i].copy);
	ht_map_release(&x->queues);
	free(x->ctxs);
	pthread_mutex_destroy(&x->lock);
	free(x);
}

/* ---- maps (x->lock held) ---- */

static void ctx_set(struct ht_cuda_xlate *x, uint32_t context, uint32_t device)
{
	for (size_t i = 0; i < x->nctxs; i++)
		if (x->ctxs[i].context == context) {
			x->ctxs[i].device_plus1 = device + 1;
			return;
		}
	if (ht_grow((void **)&x->ctxs, &x->capctxs, sizeof *x->ctxs, x->nctxs + 1))
		return;
	x->ctxs[x->nctxs++] = (struct ctx_slot){context, device + 1};
}

/* Return: the device of a context, or 0 when unknown. */
static uint32_t ctx_device(struct ht_cuda_xlate *x, uint32_t context)
{
	for (size_t i = 0; i < x->nctxs; i++)
		if (x->ctxs[i].context == context)
			return x->ctxs[i].device_plus1 - 1;
	return 0;
}

static void describe_device(struct ht_cuda_xlate *x, uint32_t device, const char *name)
{
	char generic[32];

	if (device < MAX_DEVICES && x->described[device] >= (name ? 2 : 1))
		return;
	if (!name)
		snprintf(generic, sizeof generic, "CUDA device %u", device);
	ht_emit_device_info(device, HT_DEV_GPU, name ? name : generic, "NVIDIA");
	if (device < MAX_DEVICES)
		x->described[device] = name ? 2 : 1;
}

/* Return: the device stream of (context, stream), created on first use. */
static struct ht_stream *queue_stream(struct ht_cuda_xlate *x, uint32_t device, uint32_t context,
				      uint32_t stream, uint64_t *queue)
{
	uint64_t *v;
	struct ht_stream *s;

	*queue = (uint64_t)context << 32 | stream;
	v = ht_map_u64(&x->queues, *queue, 0, NULL);
	if (!v)
		return NULL;
	if (!*v) {
		describe_device(x, device, NULL);
		s = ht_device_stream_create(device, *queue);
		*v = (uintptr_t)s;
		if (s)
			ht_emit_queue_info(*queue, device, 0);
	}
	return (struct ht_stream *)(uintptr_t)*v;
}

static uint32_t kernel_name(struct ht_cuda_xlate *x, const char *name)
{
	struct name_slot *s;
	uint32_t id;

	if (!name)
		return 0;
	s = &x->names[(((uintptr_t)name >> 3) ^ ((uintptr_t)name >> 13)) & (NAME_CACHE - 1)];
	if (s->key == name && s->copy && !strcmp(s->copy, name))
		return s->id;
	id = ht_string_id(name);
	free(s->copy);
	s->copy = strdup(name);
	s->key = s->copy ? name : NULL;
	s->id = id;
	return id;
}

/* ---- records ---- */

static enum ht_cmd_kind copy_kind(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return HT_CMD_COPY_H2D;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return HT_CMD_COPY_D2H;
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return HT_CMD_COPY_D2D;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return HT_CMD_COPY_H2H;
	default:
		return HT_CMD_OTHER;
	}
}

/* The fields every command kind shares, before the kind-specific ones. */
struct common {
	uint32_t device, context, stream, corr;
	uint64_t start, end;
};

static int emit(struct ht_cuda_xlate *x, const struct common *k, struct ht_device_command *c)
{
	struct ht_stream *s;

	if (!k->start || !k->end || k->end < k->start) {
		__atomic_fetch_add(&x->lost_ts, 1, __ATOMIC_RELAXED);
		return -1;
	}
	s = queue_stream(x, k->device, k->context, k->stream, &c->ev.queue);
	c->ev.corr = ht_cuda_corr_resolve(k->corr);
	c->ev.device = k->device;
	c->ev.ts_domain = HT_DOM_HOST;
	c->ev.start = k->start;
	c->ev.end = k->end;
	ht_emit_device_command(s, c);
	return 1;
}

static int kernel(struct ht_cuda_xlate *x, const CUpti_ActivityKernel10 *r)
{
	struct common k = {r->deviceId,	     r->contextId, r->streamId,
			   r->correlationId, r->start,	   r->end};
	struct ht_device_command c = {
	    .ev = {
		.kind = HT_CMD_KERNEL,
		.cmd = (uint32_t)r->kind << 8 | r->launchType,
		.queued = r->queued,
		.submit = r->submitted,
		.global = {(uint64_t)r->gridX, (uint64_t)r->gridY, (uint64_t)r->gridZ},
		.local = {(uint64_t)r->blockX, (uint64_t)r->blockY, (uint64_t)r->blockZ},
	    }};

	if (k.start && k.end && k.end >= k.start)
		c.ev.name = kernel_name(x, r->name);
	return emit(x, &k, &c);
}

static int memcpy_record(struct ht_cuda_xlate *x, const CUpti_ActivityMemcpy6 *r)
{
	/* the runtime id links the copy to the runtime call we record */
	struct common k = {
	    r->deviceId, r->contextId,
	    r->streamId, r->runtimeCorrelationId ? r->runtimeCorrelationId : r->correlationId,
	    r->start,	 r->end};
	struct ht_device_command c = {.ev = {
					  .kind = copy_kind(r->copyKind),
					  .cmd = (uint32_t)r->kind << 8 | r->copyKind,
					  .bytes = r->bytes,
				      }};

	return emit(x, &k, &c);
}

static int peer_copy(struct ht_cuda_xlate *x, const CUpti_ActivityMemcpyPtoP4 *r)
{
	struct common k = {r->deviceId,	     r->contextId, r->streamId,
			   r->correlationId, r->start,	   r->end};
	struct ht_device_command c = {.ev = {
					  .kind = HT_CMD_COPY_D2D,
					  .cmd = (uint32_t)r->kind << 8 | r->copyKind,
					  .bytes = r->bytes,
				      }};

	return emit(x, &k, &c);
}

static int memset_record(struct ht_cuda_xlate *x, const CUpti_ActivityMemset4 *r)
{
	struct common k = {r->deviceId,	     r->contextId, r->streamId,
			   r->correlationId, r->start,	   r->end};
	struct ht_device_command c = {.ev = {
					  .kind = HT_CMD_FILL,
					  .cmd = (uint32_t)r->kind << 8 | (r->memoryKind & 0xff),
					  .bytes = r->bytes,
				      }};

	return emit(x, &k, &c);
}

static int sync_record(struct ht_cuda_xlate *x, const CUpti_ActivitySynchronization2 *r)
{
	struct common k = {ctx_device(x, r->contextId),
			   r->contextId,
			   r->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? CTX_WIDE
									      : r->streamId,
			   r->correlationId,
			   r->start,
			   r->end};
	struct ht_device_command c = {
	    .ev = {
		.kind = HT_CMD_SYNC,
		.cmd = (uint32_t)r->kind << 8 | (uint32_t)r->type,
		.status = r->returnValue == CUPTI_SYNCHRONIZATION_INVALID_VALUE
			      ? 0
			      : (int32_t)r->returnValue,
	    }};

	return emit(x, &k, &c);
}

int ht_cuda_xlate_record(struct ht_cuda_xlate *x, const CUpti_Activity *rec)
{
	int r = 0;

	if (!x || !rec)
		return 0;
	pthread_mutex_lock(&x->lock);
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
		r = kernel(x, (const CUpti_ActivityKernel10 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		r = memcpy_record(x, (const CUpti_ActivityMemcpy6 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		r = peer_copy(x, (const CUpti_ActivityMemcpyPtoP4 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		r = memset_record(x, (const CUpti_ActivityMemset4 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		r = sync_record(x, (const CUpti_ActivitySynchronization2 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_DEVICE: {
		const CUpti_ActivityDevice5 *d = (const CUpti_ActivityDevice5 *)rec;

		describe_device(x, d->id, d->name ? d->name : "");
		break;
	}
	case CUPTI_ACTIVITY_KIND_CONTEXT: {
		const CUpti_ActivityContext3 *c = (const CUpti_ActivityContext3 *)rec;

		ctx_set(x, c->contextId, c->deviceId);
		break;
	}
	default: /* API records (we trace calls by callback), overhead, ... */
		break;
	}
	pthread_mutex_unlock(&x->lock);
	return r;
}

void ht_cuda_xlate_context(struct ht_cuda_xlate *x, uint32_t context, uint32_t device)
{
	if (!x)
		return;
	pthread_mutex_lock(&x->lock);
	ctx_set(x, context, device);
	pthread_mutex_unlock(&x->lock);
}

void ht_cuda_xlate_add_dropped(struct ht_cuda_xlate *x, uint64_t n)
{
	if (x && n)
		__atomic_fetch_add(&x->lost_records, n, __ATOMIC_RELAXED);
}

uint64_t ht_cuda_xlate_take_lost(struct ht_cuda_xlate *x, enum ht_lost_kind kind)
{
	if (!x)
		return 0;
	uint64_t *n = kind == HT_LOST_DEVICE_TIMESTAMP ? &x->lost_ts
		      : kind == HT_LOST_DEVICE_RECORD  ? &x->lost_records
						       : NULL;

	/* a plain load first: callers poll this after every API call */
	if (!n || !__atomic_load_n(n, __ATOMIC_RELAXED))
		return 0;
	return __atomic_exchange_n(n, 0, __ATOMIC_RELAXED);
}
