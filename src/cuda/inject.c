/*
 * libhetrace-cuda.so's CUDA entry point: the driver loads it through
 * CUDA_INJECTION64_PATH (set by `hetrace record`) and calls
 * InitializeInjection() inside cuInit, on the first CUDA call. We then
 * subscribe to CUPTI's callbacks (callbacks.c), give CUPTI our clock
 * (CLOCK_MONOTONIC, so device timestamps need no later sync), enable the
 * activity kinds, and translate each completed activity buffer
 * (translate.c) on the thread CUPTI delivers it, never an application
 * thread of ours. Forced flush at exit; a forked child leaves CUPTI alone.
 * Any CUPTI problem (missing, other version, subscriber slot taken) is one
 * warning: the program runs on, untraced for CUDA, everything else recorded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/recorder.h"
#include "cuda/api.h"
#include "cuda/inject.h"
#include "cuda/pcsamp.h"
#include "hetrace/hetrace.h"
#include "memtrace/cuda_sanitizer.h"

#define BUFFER_SIZE	(4u << 20) /* per CUPTI activity buffer (Kineto: 4 MB) */
#define FLUSH_PERIOD_MS 200	   /* CUPTI hands over complete buffers this often */

struct ht_cuda_state ht_cuda;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized;

static const struct ht_fn_table rt_table = {"cuda_runtime", HT_FN_BASE_CUDA_RUNTIME, 0,
					    ht_cuda_rt_fns};
static const struct ht_fn_table drv_table = {"cuda_driver", HT_FN_BASE_CUDA_DRIVER, 0,
					     ht_cuda_drv_fns};
static struct ht_fn_table rt_fns, drv_fns;

static void warn(const char *why)
{
	fprintf(stderr,
		"hetrace: CUDA work is not traced: %s; the program runs on and everything "
		"else is recorded\n",
		why);
}

static uint64_t CUPTIAPI timestamp(void)
{
	return ht_now_ns();
}

static void CUPTIAPI buffer_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	void *p = NULL;

	*max_records = 0;
	/* a fresh buffer every time: CUPTI may hold several at once (per-thread buffers) */
	if (posix_memalign(&p, 8, BUFFER_SIZE) != 0)
		p = NULL;
	*buffer = p;
	*size = p ? BUFFER_SIZE : 0;
}

static void CUPTIAPI buffer_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				     size_t valid)
{
	const struct ht_cupti *c = &ht_cuda.cupti;
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;

	(void)size;
	if (__atomic_load_n(&ht_cuda.active, __ATOMIC_RELAXED)) {
		while (c->cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
			ht_cuda_xlate_record(ht_cuda.xlate, rec);
		if (c->cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
			ht_cuda_xlate_add_dropped(ht_cuda.xlate, dropped);
	}
	free(buffer);
}

void ht_cuda_flush(int forced)
{
	if (__atomic_load_n(&ht_cuda.active, __ATOMIC_RELAXED))
		ht_cuda.cupti.cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void ht_cuda_emit_lost(void)
{
	uint64_t n;

	if ((n = ht_cuda_xlate_take_lost(ht_cuda.xlate, HT_LOST_DEVICE_TIMESTAMP)))
		ht_emit_lost(HT_LOST_DEVICE_TIMESTAMP, n);
	if ((n = ht_cuda_xlate_take_lost(ht_cuda.xlate, HT_LOST_DEVICE_RECORD)))
		ht_emit_lost(HT_LOST_DEVICE_RECORD, n);
}

static void at_exit(void)
{
	if (!__atomic_load_n(&ht_cuda.active, __ATOMIC_RELAXED))
		return;
	/* a process that never made a CUDA call must not flush (HPCToolkit #196) */
	if (ht_cuda.used) {
		ht_cuda_pc_collect(NULL, 1);
		ht_cuda_flush(1);
	}
	ht_cuda_emit_lost();
}

static void fork_child(void)
{
	/* CUPTI's threads did not come along: flushing here would hang (HPCToolkit #195) */
	__atomic_store_n(&ht_cuda.active, 0, __ATOMIC_RELAXED);
}

/* Subscribes. Return: 0, or -1 after the warning. */
static int subscribe(struct ht_cupti *c)
{
	char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
	char why[300];
	CUptiResult r;

	if (c->cuptiSubscribe_v2) {
		CUpti_SubscriberParams p = {
		    .structSize = CUpti_SubscriberParams_STRUCT_SIZE,
		    .subscriberName = "hetrace",
		    .oldSubscriberName = old,
		    .oldSubscriberSize = sizeof old - 1,
		};

		r = c->cuptiSubscribe_v2(&ht_cuda.sub, ht_cuda_callback, NULL, &p);
	} else {
		r = c->cuptiSubscribe(&ht_cuda.sub, ht_cuda_callback, NULL);
	}
	if (r == CUPTI_SUCCESS)
		return 0;
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		snprintf(why, sizeof why,
			 "CUPTI is already in use by another tool%s%s (one subscriber per process)",
			 old[0] ? ": " : "", old);
	else
		snprintf(why, sizeof why, "CUPTI cannot subscribe: %s", ht_cupti_strerror(c, r));
	warn(why);
	return -1;
}

static int enable(struct ht_cupti *c)
{
	static const CUpti_ActivityKind kinds[] = {
	    CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
	    CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
	    CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
	};
	static const CUpti_CallbackDomain domains[] = {
	    CUPTI_CB_DOMAIN_RUNTIME_API,
	    CUPTI_CB_DOMAIN_DRIVER_API,
	    CUPTI_CB_DOMAIN_RESOURCE,
	};
	char why[300];
	CUptiResult r;

	/* the clock first: CUPTI must never stamp a record with its default (REALTIME) */
	r = c->cuptiActivityRegisterTimestampCallback(timestamp);
	if (r == CUPTI_SUCCESS)
		r = c->cuptiActivityRegisterCallbacks(buffer_request, buffer_complete);
	c->cuptiActivityEnableLatencyTimestamps(1); /* queued/submitted; optional */
	/* kernels before any module loads: CUPTI instruments modules at load time */
	if (r == CUPTI_SUCCESS)
		r = c->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, sizeof why, "CUPTI activity setup failed: %s",
			 ht_cupti_strerror(c, r));
		warn(why);
		return -1;
	}
	for (unsigned int i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		c->cuptiActivityEnable(kinds[i]); /* each optional */
	for (unsigned int i = 0; i < sizeof domains / sizeof domains[0]; i++)
		c->cuptiEnableDomain(1, ht_cuda.sub, domains[i]);
	c->cuptiActivityFlushPeriod(FLUSH_PERIOD_MS);
	return 0;
}

/* Records how device timestamps were taken, on the thread that initialised CUDA. */
static void note_clock(const struct ht_cupti *c)
{
	const struct ht_arg args[] = {
	    ht_arg_uint("cupti_version", c->version),
	    ht_arg_string("device_timestamps", "CLOCK_MONOTONIC"),
	    ht_arg_string("clock_source", "cuptiActivityRegisterTimestampCallback"),
	    ht_arg_string("cupti", c->path),
	};

	ht_instant_dyn("cuda.tracing", args, sizeof args / sizeof args[0]);
}

static void setup(void)
{
	struct ht_cupti *c = &ht_cuda.cupti;
	char why[600];

	rt_fns = rt_table;
	rt_fns.count = (uint16_t)ht_cuda_rt_count;
	drv_fns = drv_table;
	drv_fns.count = (uint16_t)ht_cuda_drv_count;
	ht_fn_table_register(&rt_fns);
	ht_fn_table_register(&drv_fns);
	ht_cuda_callbacks_setup();
	if (ht_cupti_load(c, why, sizeof why)) {
		warn(why);
		return;
	}
	ht_cuda.xlate = ht_cuda_xlate_create();
	if (!ht_cuda.xlate) {
		warn("out of memory");
		return;
	}
	if (subscribe(c))
		return;
	if (enable(c)) {
		c->cuptiUnsubscribe(ht_cuda.sub);
		return;
	}
	ht_cuda_pc_setup(c); /* --pc-sampling: before the first context */
	{
		const char *cap = getenv("HETRACE_CAPTURE");

		ht_cuda.profiler_range = cap && !strcmp(cap, "cudaProfilerApi");
	}
	pthread_atfork(NULL, NULL, fork_child);
	atexit(at_exit);
	__atomic_store_n(&ht_cuda.active, 1, __ATOMIC_RELEASE);
	note_clock(c);
	ht_mt_cuda_init(ht_cuda_current_corr); /* --memory-access: the Compute Sanitizer part */
}

int ht_cuda_may_record(void)
{
	/* --capture-range=api|cudaProfilerApi: both flags are 0 until a range opens */
	return HT_REGIONS_ON() || getenv("HETRACE_CAPTURE");
}

/*
 * Called by the CUDA driver inside cuInit. Only CUPTI configuration here: no
 * CUDA calls (we are inside cuInit). Idempotent.
 * Return: 1 (the library is loaded and has done what it could).
 */
HT_EXPORT int InitializeInjection(void)
{
	pthread_mutex_lock(&init_lock);
	if (!initialized) {
		initialized = 1;
		if (ht_cuda_may_record())
			setup();
	}
	pthread_mutex_unlock(&init_lock);
	return 1;
}
