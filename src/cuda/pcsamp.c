/*
 * CUDA PC sampling (record --pc-sampling), in the injection library: the
 * CUPTI PC Sampling API per context, in continuous collection mode (kernels
 * keep running concurrently; no serialisation), with every stall reason
 * the device reports, PARSED output into a buffer of BUFFER_PCS PCs, and
 * the cubins captured at module load for cuptiGetSassToSourceCorrelation.
 * The buffers go through pcsamp_translate.c into a device stream per
 * context (queue context << 32 | 0xfffffffe).
 *
 * What runs together: kernel, memcpy, memset and synchronisation activity
 * records stay on (the timeline links the samples to their launches by the
 * launches' correlation ids); CUPTI's legacy PC-sampling activity kind
 * (CUPTI_ACTIVITY_KIND_PC_SAMPLING) and the profiling API are never
 * enabled, as the PC Sampling API refuses to share the hardware with them.
 * A context where cuptiPCSamplingEnable or a configuration attribute is
 * refused records no samples: said once on stderr and in the trace
 * (pc_sampling's error and reason), the rest is recorded.
 *
 * Period: PERIOD ns is turned into CUPTI's 2^N SM cycles at 1.5 cycles per
 * ns (N from 5 to 31); the default 1 ms gives 2^20 cycles.
 *
 * The data is fetched (cuptiPCSamplingGetData) at most every COLLECT_NS on
 * the exit of an API call, when a context goes away and at exit.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_pcsampling.h>

#include "core/recorder.h"
#include "core/session.h"
#include "cuda/inject.h"
#include "cuda/pcsamp.h"
#include "cuda/pcsamp_translate.h"
#include "hetrace/hetrace.h"

#define BUFFER_PCS    5000
#define CONTEXTS      64
#define COLLECT_NS    10000000ull
#define PC_QUEUE      0xfffffffeu
#define STALLS_MAX    64
#define CYCLES_PER_NS 1.5

/* The PC Sampling API, resolved from the libcupti the library loaded. */
static struct {
	CUptiResult (*set_attr)(CUpti_PCSamplingConfigurationInfoParams *);
	CUptiResult (*get_data)(CUpti_PCSamplingGetDataParams *);
	CUptiResult (*enable)(CUpti_PCSamplingEnableParams *);
	CUptiResult (*disable)(CUpti_PCSamplingDisableParams *);
	CUptiResult (*num_stalls)(CUpti_PCSamplingGetNumStallReasonsParams *);
	CUptiResult (*stalls)(CUpti_PCSamplingGetStallReasonsParams *);
	CUptiResult (*sass_source)(CUpti_GetSassToSourceCorrelationParams *);
	CUptiResult (*cubin_crc)(CUpti_GetCubinCrcParams *);
} api;

struct pc_ctx {
	CUcontext ctx;
	uint32_t id, device;
	CUpti_PCSamplingData data;
	struct ht_stream *stream;
};

static uint64_t period_ns;
static struct ht_cuda_pcx *pcx;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pc_ctx ctxs[CONTEXTS];
static unsigned int nctxs;
static uint64_t last_collect;
static int noted;

struct note {
	int error;
	const char *reason;
};

static int put_note(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct note *n = arg;
	struct ht_ev_pc_sampling e = {.period = period_ns,
				      .method = n->error ? "none" : "CUPTI PC Sampling API",
				      .error = n->error,
				      .reason = n->reason};

	(void)strs;
	HT_WRITE(proc, pc_sampling, &e);
	return 0;
}

/* Says once per process how its kernels are sampled (or why not). */
static void note(int error, const char *reason)
{
	struct note n = {error, reason};

	if (__atomic_exchange_n(&noted, 1, __ATOMIC_RELAXED))
		return;
	if (error)
		fprintf(stderr, "hetrace: no CUDA PC samples recorded: %s; the rest is recorded\n",
			reason);
	ht_session_with_process(put_note, &n);
}

void ht_cuda_pc_setup(const struct ht_cupti *c)
{
	const char *v = getenv("HETRACE_PC_SAMPLING");
	void *h;

	if (!v || !*v || !(period_ns = strtoull(v, NULL, 10)))
		return;
	h = dlopen(c->path, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		*(void **)&api.set_attr = dlsym(h, "cuptiPCSamplingSetConfigurationAttribute");
		*(void **)&api.get_data = dlsym(h, "cuptiPCSamplingGetData");
		*(void **)&api.enable = dlsym(h, "cuptiPCSamplingEnable");
		*(void **)&api.disable = dlsym(h, "cuptiPCSamplingDisable");
		*(void **)&api.num_stalls = dlsym(h, "cuptiPCSamplingGetNumStallReasons");
		*(void **)&api.stalls = dlsym(h, "cuptiPCSamplingGetStallReasons");
		*(void **)&api.sass_source = dlsym(h, "cuptiGetSassToSourceCorrelation");
		*(void **)&api.cubin_crc = dlsym(h, "cuptiGetCubinCrc");
	}
	if (!api.set_attr || !api.get_data || !api.enable || !api.disable || !api.num_stalls ||
	    !api.stalls || !api.cubin_crc) {
		period_ns = 0;
		note(-ENOTSUP, "this libcupti has no PC Sampling API");
		return;
	}
	pcx = ht_cuda_pcx_create();
	if (!pcx)
		period_ns = 0;
}

static uint32_t period_exponent(void)
{
	double n = log2((double)period_ns * CYCLES_PER_NS);
	long e = lround(n);

	return (uint32_t)(e < 5 ? 5 : e > 31 ? 31 : e);
}

/* The context's stall reasons to the translator, and their indices for the configuration. */
static int stall_reasons(CUcontext ctx, uint32_t *index, size_t *n)
{
	CUpti_PCSamplingGetNumStallReasonsParams np = {
	    .size = CUpti_PCSamplingGetNumStallReasonsParamsSize, .ctx = ctx, .numStallReasons = n};
	CUpti_PCSamplingGetStallReasonsParams sp = {
	    .size = CUpti_PCSamplingGetStallReasonsParamsSize, .ctx = ctx};
	char *names[STALLS_MAX] = {0};
	int rc = -EINVAL;

	if (api.num_stalls(&np) != CUPTI_SUCCESS || !*n)
		return -ENOTSUP;
	if (*n > STALLS_MAX)
		*n = STALLS_MAX;
	for (size_t i = 0; i < *n; i++)
		if (!(names[i] = calloc(1, CUPTI_STALL_REASON_STRING_SIZE)))
			goto out;
	sp.numStallReasons = *n;
	sp.stallReasonIndex = index;
	sp.stallReasons = names;
	if (api.stalls(&sp) == CUPTI_SUCCESS)
		rc = ht_cuda_pcx_stall_names(pcx, *n, index, names);
out:
	for (size_t i = 0; i < *n; i++)
		free(names[i]);
	return rc;
}

/* The buffer CUPTI fills: BUFFER_PCS PCs with room for every stall reason each. */
static int alloc_data(CUpti_PCSamplingData *d, size_t nstalls)
{
	memset(d, 0, sizeof *d);
	d->size = sizeof *d;
	d->collectNumPcs = BUFFER_PCS;
	d->pPcData = calloc(BUFFER_PCS, sizeof *d->pPcData);
	if (!d->pPcData)
		return -ENOMEM;
	for (size_t i = 0; i < BUFFER_PCS; i++) {
		d->pPcData[i].size = sizeof d->pPcData[i];
		d->pPcData[i].stallReason = calloc(nstalls, sizeof *d->pPcData[i].stallReason);
		if (!d->pPcData[i].stallReason)
			return -ENOMEM;
	}
	return 0;
}

static void free_data(CUpti_PCSamplingData *d)
{
	for (size_t i = 0; d->pPcData && i < BUFFER_PCS; i++)
		free(d->pPcData[i].stallReason);
	free(d->pPcData);
	memset(d, 0, sizeof *d);
}

static CUptiResult configure(CUcontext ctx, uint32_t *index, size_t nstalls,
			     CUpti_PCSamplingData *d)
{
	CUpti_PCSamplingConfigurationInfo a[6];
	CUpti_PCSamplingConfigurationInfoParams p = {
	    .size = CUpti_PCSamplingConfigurationInfoParamsSize, .ctx = ctx};

	memset(a, 0, sizeof a);
	a[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
	a[0].attributeData.samplingPeriodData.samplingPeriod = period_exponent();
	a[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
	a[1].attributeData.stallReasonData.stallReasonCount = nstalls;
	a[1].attributeData.stallReasonData.pStallReasonIndex = index;
	a[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
	a[2].attributeData.collectionModeData.collectionMode =
	    CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
	a[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
	a[3].attributeData.enableStartStopControlData.enableStartStopControl = 0;
	a[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
	a[4].attributeData.outputDataFormatData.outputDataFormat =
	    CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
	a[5].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
	a[5].attributeData.samplingDataBufferData.samplingDataBuffer = d;
	p.numAttributes = sizeof a / sizeof a[0];
	p.pPCSamplingConfigurationInfo = a;
	return api.set_attr(&p);
}

void ht_cuda_pc_context(CUcontext ctx, uint32_t id, uint32_t device)
{
	CUpti_PCSamplingEnableParams ep = {.size = CUpti_PCSamplingEnableParamsSize, .ctx = ctx};
	uint32_t index[STALLS_MAX];
	size_t nstalls = 0;
	struct pc_ctx *c;
	CUptiResult r;
	char why[256];
	int rc;

	if (!period_ns)
		return;
	pthread_mutex_lock(&lock);
	if (nctxs == CONTEXTS) {
		pthread_mutex_unlock(&lock);
		return;
	}
	c = &ctxs[nctxs];
	r = api.enable(&ep);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, sizeof why, "cuptiPCSamplingEnable: %s",
			 ht_cupti_strerror(&ht_cuda.cupti, r));
		goto refused;
	}
	rc = stall_reasons(ctx, index, &nstalls);
	if (!rc)
		rc = alloc_data(&c->data, nstalls);
	if (rc) {
		snprintf(why, sizeof why, "the device's stall reasons: %s", strerror(-rc));
		goto disable;
	}
	r = configure(ctx, index, nstalls, &c->data);
	if (r != CUPTI_SUCCESS) {
		snprintf(why, sizeof why, "cuptiPCSamplingSetConfigurationAttribute: %s",
			 ht_cupti_strerror(&ht_cuda.cupti, r));
		goto disable;
	}
	c->ctx = ctx;
	c->id = id;
	c->device = device;
	nctxs++;
	pthread_mutex_unlock(&lock);
	note(0, "");
	return;
disable : {
	CUpti_PCSamplingDisableParams dp = {.size = CUpti_PCSamplingDisableParamsSize, .ctx = ctx};

	api.disable(&dp);
	free_data(&c->data);
}
refused:
	pthread_mutex_unlock(&lock);
	note(-ENOTSUP, why);
}

void ht_cuda_pc_module(const void *cubin, size_t size)
{
	CUpti_GetCubinCrcParams p = {.size = CUpti_GetCubinCrcParamsSize};

	if (!period_ns || !cubin || !size)
		return;
	p.cubinSize = size;
	p.cubin = cubin;
	if (api.cubin_crc(&p) == CUPTI_SUCCESS)
		ht_cuda_pcx_cubin(pcx, p.cubinCrc, cubin, size);
}

/* ---- the sink: events into the context's PC stream ---- */

static void sink_line(void *ctx, uint32_t module, const char *function, uint64_t pc,
		      const char *file, uint32_t line)
{
	struct pc_ctx *c = ctx;
	struct ht_ev_pc_line e = {.module = module,
				  .function = ht_string_id(function),
				  .pc = pc,
				  .file = ht_string_id(file),
				  .line = line};

	if (c->stream)
		HT_WRITE(c->stream, pc_line, &e);
}

static void sink_sample(void *ctx, uint64_t corr, uint32_t module, const char *function,
			uint64_t pc, const char *stall, uint32_t samples)
{
	struct pc_ctx *c = ctx;
	struct ht_ev_pc_sample e = {.corr = corr,
				    .module = module,
				    .function = ht_string_id(function),
				    .pc = pc,
				    .stall = ht_string_id(stall),
				    .samples = samples};

	if (c->stream)
		HT_WRITE(c->stream, pc_sample, &e);
}

static int sink_resolve(void *ctx, const void *cubin, size_t size, const char *function,
			uint64_t pc, char *file, size_t cap, uint32_t *line)
{
	CUpti_GetSassToSourceCorrelationParams p = {.size = sizeof p,
						    .cubin = cubin,
						    .functionName = function,
						    .cubinSize = size,
						    .pcOffset = pc};

	(void)ctx;
	if (!api.sass_source || api.sass_source(&p) != CUPTI_SUCCESS)
		return -1;
	snprintf(file, cap, "%s%s%s", p.dirName ? p.dirName : "",
		 p.dirName && p.dirName[0] ? "/" : "", p.fileName ? p.fileName : "");
	*line = p.lineNumber;
	free(p.fileName); /* CUPTI allocates both with malloc */
	free(p.dirName);
	return 0;
}

/* Fetches what CUPTI holds for c (lock held). */
static void collect_ctx(struct pc_ctx *c)
{
	struct ht_cuda_pcx_sink sink = {c, sink_line, sink_sample, sink_resolve};
	CUpti_PCSamplingGetDataParams p = {
	    .size = CUpti_PCSamplingGetDataParamsSize, .ctx = c->ctx, .pcSamplingData = &c->data};

	if (!c->stream)
		c->stream = ht_device_stream_create(c->device, (uint64_t)c->id << 32 | PC_QUEUE);
	for (int round = 0; round < 64; round++) {
		if (api.get_data(&p) != CUPTI_SUCCESS)
			break;
		ht_cuda_pcx_data(pcx, &c->data, &sink);
		if (!c->data.remainingNumPcs)
			break;
	}
	{
		uint64_t dropped = ht_cuda_pcx_take_dropped(pcx);

		if (dropped)
			ht_emit_lost(HT_LOST_DEVICE_RECORD, dropped);
	}
}

void ht_cuda_pc_collect(CUcontext ctx, int final)
{
	uint64_t now;

	if (!period_ns)
		return;
	now = ht_now_ns();
	if (!final && now - __atomic_load_n(&last_collect, __ATOMIC_RELAXED) < COLLECT_NS)
		return;
	pthread_mutex_lock(&lock);
	last_collect = now;
	for (unsigned int i = 0; i < nctxs; i++) {
		if (ctx && ctxs[i].ctx != ctx)
			continue;
		collect_ctx(&ctxs[i]);
		if (final && ctx) {
			CUpti_PCSamplingDisableParams dp = {
			    .size = CUpti_PCSamplingDisableParamsSize, .ctx = ctx};

			api.disable(&dp);
			free_data(&ctxs[i].data);
			ctxs[i] = ctxs[--nctxs];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}
