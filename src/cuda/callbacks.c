/*
 * The CUPTI callback API side: every runtime and driver API call becomes
 * api_begin/api_end on the calling thread's stream (function id = table base
 * + CUPTI callback id; arguments from the generated api.gen.c, `corr` = the
 * CUPTI correlation id that the call's device commands carry). Driver calls
 * made inside a runtime call are the runtime's implementation: they are not
 * recorded, only their correlation id is aliased to the runtime call's.
 * A call that fails, or a launch into a stream being captured into a graph,
 * produces no device command: its `corr` is recorded as 0 so that the
 * analysis does not wait for one. Resource callbacks map contexts to
 * devices and flush before a context goes away.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/recorder.h"
#include "cuda/api.h"
#include "cuda/inject.h"
#include "cuda/pcsamp.h"
#include "hetrace/hetrace.h"

#define NEST_MAX 8
#define SYMBOLS	 64
#define CAPTURES 64

/* Per callback id, from the function tables: what the EXIT callback must do. */
enum {
	F_CORR = 1,	     /* args[0] is corr */
	F_CAPTURE_BEGIN = 2, /* cudaStreamBeginCapture*: its stream starts capturing */
	F_CAPTURE_END = 4,   /* cudaStreamEndCapture: its stream stops */
};
struct fn_info {
	uint8_t flags;
	int8_t stream; /* index of the "stream" argument, -1 if none */
};
static struct fn_info rt_info[4096], drv_info[4096];

/* Streams being captured into a graph (launches into them run later, as the graph). */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t capturing[CAPTURES];
static unsigned int ncapturing; /* read without the lock on the fast path */

/* The correlation id of the outermost call open on this thread (memory-access tracing). */
static __thread uint32_t enter_corr;

uint64_t ht_cuda_current_corr(void)
{
	return enter_corr;
}

/* Runtime calls open on this thread, innermost last. */
static __thread struct {
	unsigned int depth;
	uint32_t corr[NEST_MAX];
} rt;

static __thread struct {
	const char *key;
	char *copy;
	uint32_t id;
} symbols[SYMBOLS];

uint32_t ht_cuda_symbol_id(const char *symbol)
{
	unsigned int h;

	if (!symbol)
		return 0;
	h = (unsigned int)(((uintptr_t)symbol >> 4) ^ ((uintptr_t)symbol >> 11)) & (SYMBOLS - 1);
	if (symbols[h].key == symbol && !strcmp(symbols[h].copy, symbol))
		return symbols[h].id;
	free(symbols[h].copy);
	symbols[h].copy = strdup(symbol);
	symbols[h].key = symbols[h].copy ? symbol : NULL;
	symbols[h].id = ht_string_id(symbol);
	return symbols[h].id;
}

static int32_t return_code(const CUpti_CallbackData *cd)
{
	int32_t r = 0;

	/* cudaError_t and CUresult are both int-sized enums */
	if (cd->functionReturnValue)
		memcpy(&r, cd->functionReturnValue, sizeof r);
	return r;
}

static void info_init(struct fn_info *info, const struct ht_fn_desc *fns, unsigned int n)
{
	for (unsigned int i = 0; i < n && i < 4096; i++) {
		const char *name = fns[i].name;

		info[i].stream = (int8_t)ht_fn_arg_with_role(&fns[i], HT_AR_QUEUE);
		if (ht_fn_arg_with_role(&fns[i], HT_AR_CORR) == 0)
			info[i].flags |= F_CORR;
		if (strstr(name, "StreamBeginCapture"))
			info[i].flags |= F_CAPTURE_BEGIN;
		if (strstr(name, "StreamEndCapture"))
			info[i].flags |= F_CAPTURE_END;
	}
}

void ht_cuda_callbacks_setup(void)
{
	info_init(rt_info, ht_cuda_rt_fns, ht_cuda_rt_count);
	info_init(drv_info, ht_cuda_drv_fns, ht_cuda_drv_count);
}

static int captured(uint64_t stream)
{
	int r = 0;

	if (!__atomic_load_n(&ncapturing, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&capture_lock);
	for (unsigned int i = 0; i < ncapturing; i++)
		r |= capturing[i] == stream;
	pthread_mutex_unlock(&capture_lock);
	return r;
}

static void capture(uint64_t stream, int on)
{
	pthread_mutex_lock(&capture_lock);
	for (unsigned int i = 0; i < ncapturing; i++)
		if (capturing[i] == stream) {
			if (!on)
				capturing[i] = capturing[--ncapturing];
			goto out;
		}
	if (on && ncapturing < CAPTURES)
		capturing[ncapturing++] = stream;
out:
	pthread_mutex_unlock(&capture_lock);
}

/* Fixes up the arguments of a call that returned `ret` (see the file comment). */
static void exit_args(const struct fn_info *info, int32_t ret, uint64_t *a, unsigned int n)
{
	uint64_t stream = info->stream >= 0 && (unsigned int)info->stream < n ? a[info->stream] : 0;

	if (info->flags & F_CAPTURE_BEGIN && ret == 0 && info->stream >= 0)
		capture(stream, 1);
	if (info->flags & F_CAPTURE_END && info->stream >= 0)
		capture(stream, 0);
	if (info->flags & F_CORR && n && (ret != 0 || (info->stream >= 0 && captured(stream))))
		a[0] = 0;
}

static void runtime_call(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	uint16_t fn = (uint16_t)(HT_FN_BASE_CUDA_RUNTIME + cbid);
	uint64_t a[HT_FNARGS_MAX];
	unsigned int n;

	if (cd->callbackSite == CUPTI_API_ENTER) {
		if (!rt.depth)
			enter_corr = cd->correlationId;
		if (rt.depth < NEST_MAX)
			rt.corr[rt.depth] = cd->correlationId;
		rt.depth++;
		if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020)
			ht_cuda_flush(1);
		ht_emit_api_begin(fn);
		return;
	}
	int32_t ret = return_code(cd);

	n = ht_cuda_rt_args(cbid, cd->functionParams, cd->symbolName, cd->correlationId, a);
	exit_args(&rt_info[cbid], ret, a, n);
	ht_emit_api_end(fn, ret, a, n);
	if (rt.depth)
		rt.depth--;
}

static void driver_call(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
	uint16_t fn = (uint16_t)(HT_FN_BASE_CUDA_DRIVER + cbid);
	uint64_t a[HT_FNARGS_MAX];
	unsigned int n;

	if (rt.depth) {
		if (cd->callbackSite == CUPTI_API_ENTER)
			ht_cuda_corr_alias(
			    cd->correlationId,
			    rt.corr[(rt.depth < NEST_MAX ? rt.depth : NEST_MAX) - 1]);
		return;
	}
	if (cd->callbackSite == CUPTI_API_ENTER) {
		enter_corr = cd->correlationId;
		ht_emit_api_begin(fn);
		return;
	}
	int32_t ret = return_code(cd);

	n = ht_cuda_drv_args(cbid, cd->functionParams, cd->symbolName, cd->correlationId, a);
	exit_args(&drv_info[cbid], ret, a, n);
	ht_emit_api_end(fn, ret, a, n);
}

static void resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	const struct ht_cupti *c = &ht_cuda.cupti;
	uint32_t ctx, dev;

	switch (cbid) {
	case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
		if (c->cuptiGetContextId(rd->context, &ctx) == CUPTI_SUCCESS &&
		    c->cuptiGetDeviceId(rd->context, &dev) == CUPTI_SUCCESS) {
			ht_cuda_xlate_context(ht_cuda.xlate, ctx, dev);
			ht_cuda_pc_context(rd->context, ctx, dev); /* --pc-sampling */
		}
		break;
	case CUPTI_CBID_RESOURCE_MODULE_LOADED: {
		const CUpti_ModuleResourceData *m = rd->resourceDescriptor;

		if (m)
			ht_cuda_pc_module(m->pCubin, m->cubinSize);
		break;
	}
	case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
		ht_cuda_pc_collect(rd->context, 1);
		ht_cuda_flush(1);
		break;
	default:
		break;
	}
}

/*
 * --capture-range=cudaProfilerApi: 1 for cudaProfilerStart / cuProfilerStart,
 * -1 for the Stops, 0 for any other callback. The range opens as a Start
 * is entered (its slice is in it) and closes once a Stop has returned (its
 * slice too), through hetrace_start/hetrace_stop: the same switch as
 * --capture-range=api, whose end (stop or repeat) it follows.
 */
static int profiler_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000	 ? 1
		       : cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 ? -1
										 : 0;
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
		return cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart	? 1
		       : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop ? -1
									: 0;
	return 0;
}

static void cuda_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	if (!HT_ENABLED() || !__atomic_load_n(&ht_cuda.active, __ATOMIC_RELAXED))
		return;
	switch (domain) {
	case CUPTI_CB_DOMAIN_RUNTIME_API:
		if (!ht_cuda.used)
			ht_cuda.used = 1;
		if (cbid < ht_cuda_rt_count)
			runtime_call(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_DRIVER_API:
		if (!ht_cuda.used)
			ht_cuda.used = 1;
		if (cbid < ht_cuda_drv_count)
			driver_call(cbid, data);
		break;
	case CUPTI_CB_DOMAIN_RESOURCE:
		resource(cbid, data);
		return;
	default:
		return;
	}
	if (((const CUpti_CallbackData *)data)->callbackSite == CUPTI_API_EXIT) {
		ht_cuda_pc_collect(NULL, 0); /* rate-limited */
		ht_cuda_emit_lost();
	}
}

void CUPTIAPI ht_cuda_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			       const void *data)
{
	int pr = 0;

	(void)userdata;
	if (__builtin_expect(ht_cuda.profiler_range, 0) && data &&
	    (pr = profiler_call(domain, cbid)) != 0) {
		int site = ((const CUpti_CallbackData *)data)->callbackSite;

		if (pr > 0 && site == CUPTI_API_ENTER)
			hetrace_start();
		cuda_callback(domain, cbid, data);
		if (pr < 0 && site == CUPTI_API_EXIT)
			hetrace_stop();
		return;
	}
	cuda_callback(domain, cbid, data);
}
