/*
 * Memory-access tracing of CUDA kernels (cuda_sanitizer.h): the host side
 * of the Compute Sanitizer part, in libhetrace-cuda.so.
 *
 *   module loaded     the patches (cuda_patches.cu, a fatbin beside
 *                     libhetrace-cuda.so) added to its context once, every
 *                     global-memory access of the module patched to call
 *                     ht_mt_cuda_access;
 *   launch begins     a kernel matching --memory-access=GLOB gets a launch
 *                     slot (collector.h) and a descriptor in pinned memory
 *                     (cuda_producer.h) as the patches' userdata; others get
 *                     NULL, and their patches return at once;
 *   synchronised      a stream's (or a context's) launches are over: their
 *                     last records are taken and the launches closed;
 *   memory alloc/free live device allocations: a launch notes the 15 most
 *                     recent as its buffers (mem_arg "arguments" 0-14, in
 *                     the order allocated), so that an access is attributed
 *                     to the allocation that holds it and one that leaves
 *                     every allocation is found out of bounds. (The kernel's
 *                     own parameters are not visible from here.)
 *
 * The channel is the process's one (collector.c), made here in pinned host
 * memory (sanitizerAllocHost) so that the device writes into what the
 * consumer thread reads. Sites are instruction offsets from the function's
 * start (sanitizerGetFunctionPcAndSize); no source lines.
 *
 * Not run on a GPU in this session (no GPU here): the host side is tested
 * against a fake sanitizer library (memtrace_cuda_host), the patch compiles
 * with nvcc, and memtrace_cuda_gpu checks exact counts where a GPU is.
 */
#include <dlfcn.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/cuda_producer.h"
#include "memtrace/cuda_sanitizer.h"

#ifdef HT_HAVE_SANITIZER_H
#include <sanitizer.h>
#define SAME(a, fa, b, fb) _Static_assert(offsetof(a, fa) == offsetof(b, fb), #b "." #fb)
SAME(struct ht_san_launch_data, function, Sanitizer_LaunchData, function);
SAME(struct ht_san_launch_data, function_name, Sanitizer_LaunchData, functionName);
SAME(struct ht_san_launch_data, grid, Sanitizer_LaunchData, gridDim_x);
SAME(struct ht_san_launch_data, block, Sanitizer_LaunchData, blockDim_x);
SAME(struct ht_san_launch_data, hlaunch, Sanitizer_LaunchData, hLaunch);
SAME(struct ht_san_module_data, module, Sanitizer_ResourceModuleData, module);
SAME(struct ht_san_memory_data, size, Sanitizer_ResourceMemoryData, size);
SAME(struct ht_san_sync_data, hstream, Sanitizer_SynchronizeData, hStream);
_Static_assert(HT_SAN_INSTRUCTION_GLOBAL_MEMORY_ACCESS ==
		   SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS,
	       "instruction id");
_Static_assert(HT_SAN_DOMAIN_LAUNCH == SANITIZER_CB_DOMAIN_LAUNCH, "domain");
#endif

#define MAX_CONTEXTS 64
#define MAX_ALLOCS   4096
#define MAX_PENDING  HT_MT_SLOTS

struct alloc {
	uint64_t addr, size, seq;
};

struct pending {
	CUcontext ctx;
	CUstream stream;
	ht_san_stream hstream;
	int slot;
};

static struct {
	pthread_mutex_t lock;
	struct ht_san_api api;
	struct ht_mt_cuda_ops ops;
	const struct ht_mt_config *cfg;
	char patches[4096];
	ht_san_subscriber sub;
	int started, warned;
	CUcontext patched[MAX_CONTEXTS]; /* contexts with the patches added */
	unsigned int npatched;
	struct alloc allocs[MAX_ALLOCS];
	unsigned int nallocs;
	uint64_t seq;
	struct pending pending[MAX_PENDING];
	unsigned int npending;
	struct ht_mt_chan *chan;
	struct ht_mt_cuda_launch *desc; /* HT_MT_SLOTS descriptors, pinned */
	CUcontext chan_ctx;
} C = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void warn(const char *what, const char *detail)
{
	if (C.warned++)
		return;
	fprintf(stderr,
		"hetrace: CUDA memory accesses are not recorded: %s%s%s; the program runs on\n",
		what, detail ? ": " : "", detail ? detail : "");
}

/* Pinned host memory in the launch's context (the channel's allocator). */
static void *pinned(size_t bytes, void *arg)
{
	void *p = NULL;

	if (C.api.alloc_host((CUcontext)arg, &p, bytes) != HT_SAN_SUCCESS)
		return NULL;
	return p;
}

/* ---- callbacks ---- */

static void module_loaded(const struct ht_san_module_data *m)
{
	unsigned int i;

	for (i = 0; i < C.npatched && C.patched[i] != m->context; i++)
		;
	if (i == C.npatched) {
		if (C.api.add_patches_from_file(C.patches, m->context) != HT_SAN_SUCCESS) {
			warn("the patches cannot be loaded", C.patches);
			return;
		}
		if (C.npatched < MAX_CONTEXTS)
			C.patched[C.npatched++] = m->context;
	}
	if (C.api.patch_instructions(HT_SAN_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->module,
				     HT_MT_CUDA_PATCH) != HT_SAN_SUCCESS ||
	    C.api.patch_module(m->module) != HT_SAN_SUCCESS)
		warn("a module cannot be patched", NULL);
}

static void memory(uint32_t cbid, const struct ht_san_memory_data *d)
{
	if (cbid == HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC) {
		if (C.nallocs == MAX_ALLOCS) /* the oldest goes */
			memmove(C.allocs, C.allocs + 1, --C.nallocs * sizeof C.allocs[0]);
		C.allocs[C.nallocs++] =
		    (struct alloc){.addr = d->address, .size = d->size, .seq = ++C.seq};
		return;
	}
	for (unsigned int i = 0; i < C.nallocs; i++)
		if (C.allocs[i].addr == d->address) {
			memmove(C.allocs + i, C.allocs + i + 1,
				(--C.nallocs - i) * sizeof C.allocs[0]);
			return;
		}
}

/* The channel and its descriptors, made in ctx on the first selected launch. */
static int channel(CUcontext ctx)
{
	void *d = NULL;

	if (C.chan)
		return 0;
	C.chan = C.ops.channel(HT_MT_MAX_BINS > 128 ? 128 : HT_MT_MAX_BINS, 32, pinned, ctx);
	if (!C.chan) {
		warn("no channel in pinned host memory", NULL);
		return -1;
	}
	if (C.api.alloc_host(ctx, &d, HT_MT_SLOTS * sizeof *C.desc) != HT_SAN_SUCCESS || !d) {
		warn("no pinned memory for the launch descriptors", NULL);
		C.chan = NULL;
		return -1;
	}
	C.desc = d;
	memset(C.desc, 0, HT_MT_SLOTS * sizeof *C.desc);
	C.chan_ctx = ctx;
	return 0;
}

static void launch_begin(const struct ht_san_launch_data *d)
{
	struct ht_mt_launch l = {.sample = C.cfg->sample};
	struct ht_mt_cuda_launch *desc;
	uint64_t pc = 0, size = 0, *slot_words;
	unsigned int nb = 0, order[HT_MT_SLOT_ARGS];
	int slot;

	if (!d->function_name || fnmatch(C.cfg->glob, d->function_name, 0) || channel(d->context))
		goto none;
	l.corr = C.ops.corr ? C.ops.corr() : 0;
	l.kernel = d->function_name;
	for (unsigned int i = 0; i < 3; i++) {
		l.global[i] = (uint64_t)d->grid[i] * d->block[i];
		l.local[i] = d->block[i];
	}
	/* the most recent allocations, in the order they were made */
	for (unsigned int i = C.nallocs; i > 0 && nb < HT_MT_SLOT_ARGS; i--)
		order[nb++] = i - 1;
	for (unsigned int k = 0; k < nb; k++) {
		l.buffers |= 1u << k;
		l.arg_size[k] = C.allocs[order[nb - 1 - k]].size;
	}
	slot = C.ops.launch_start(&l);
	if (slot < 0)
		goto none;
	slot_words = (uint64_t *)(C.chan->mem + HT_MT_OFF_SLOT(C.chan->nbins, (uint32_t)slot));
	for (unsigned int k = 0; k < nb; k++)
		slot_words[1 + k] = C.allocs[order[nb - 1 - k]].addr;
	C.api.get_function_pc_and_size(d->module, d->function_name, &pc, &size);
	desc = &C.desc[slot];
	*desc = (struct ht_mt_cuda_launch){.chan = C.chan->mem,
					   .nbins = C.chan->nbins,
					   .cap = C.chan->cap,
					   .slot = (uint32_t)slot,
					   .block = (uint32_t)C.cfg->block,
					   .sample = C.cfg->sample,
					   .on = 1,
					   .fn_pc = pc};
	if (C.api.set_launch_callback_data && d->hlaunch)
		C.api.set_launch_callback_data(d->hlaunch, d->function, d->hstream, desc);
	else
		C.api.set_callback_data(d->function, desc);
	if (C.npending < MAX_PENDING)
		C.pending[C.npending++] = (struct pending){
		    .ctx = d->context, .stream = d->stream, .hstream = d->hstream, .slot = slot};
	else
		C.ops.launch_done(slot); /* taken at the next drain, closed at once */
	return;
none:
	/* patched all the same: the patch returns at once for NULL */
	if (C.api.set_launch_callback_data && d->hlaunch)
		C.api.set_launch_callback_data(d->hlaunch, d->function, d->hstream, NULL);
	else
		C.api.set_callback_data(d->function, NULL);
}

/* The launches of a stream (stream) or of a context (!stream) are over. */
static void synchronized(CUcontext ctx, const struct ht_san_sync_data *s, int stream)
{
	for (unsigned int i = 0; i < C.npending;) {
		struct pending *p = &C.pending[i];
		int match =
		    p->ctx == ctx &&
		    (!stream || (s->hstream ? p->hstream == s->hstream : p->stream == s->stream));

		if (!match) {
			i++;
			continue;
		}
		C.desc[p->slot].on = 0;
		C.ops.launch_done(p->slot);
		*p = C.pending[--C.npending];
	}
}

void ht_mt_cuda_callback(void *userdata, int domain, uint32_t cbid, const void *data)
{
	(void)userdata;
	pthread_mutex_lock(&C.lock);
	switch (domain) {
	case HT_SAN_DOMAIN_RESOURCE:
		if (cbid == HT_SAN_RESOURCE_MODULE_LOADED)
			module_loaded(data);
		else if (cbid == HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC ||
			 cbid == HT_SAN_RESOURCE_DEVICE_MEMORY_FREE)
			memory(cbid, data);
		else if (cbid == HT_SAN_RESOURCE_CONTEXT_DESTROY_STARTING)
			synchronized(((const struct ht_san_context_data *)data)->context, NULL, 0);
		break;
	case HT_SAN_DOMAIN_LAUNCH:
		if (cbid == HT_SAN_LAUNCH_BEGIN)
			launch_begin(data);
		break;
	case HT_SAN_DOMAIN_SYNCHRONIZE: {
		const struct ht_san_sync_data *s = data;

		synchronized(s->context, s, cbid == HT_SAN_SYNC_STREAM);
		break;
	}
	default:
		break;
	}
	pthread_mutex_unlock(&C.lock);
}

const struct ht_mt_cuda_launch *ht_mt_cuda_descriptor(int slot)
{
	return C.desc && slot >= 0 && slot < (int)HT_MT_SLOTS ? &C.desc[slot] : NULL;
}

int ht_mt_cuda_start(const struct ht_san_api *api, const struct ht_mt_cuda_ops *ops,
		     const char *patches)
{
	static const int domains[] = {HT_SAN_DOMAIN_RESOURCE, HT_SAN_DOMAIN_LAUNCH,
				      HT_SAN_DOMAIN_SYNCHRONIZE};

	pthread_mutex_lock(&C.lock);
	C.api = *api;
	C.ops = *ops;
	C.cfg = ops->config();
	snprintf(C.patches, sizeof C.patches, "%s", patches);
	if (C.api.subscribe(&C.sub, ht_mt_cuda_callback, NULL) != HT_SAN_SUCCESS) {
		warn("the Compute Sanitizer has a subscriber already", NULL);
		pthread_mutex_unlock(&C.lock);
		return -1;
	}
	for (unsigned int i = 0; i < sizeof domains / sizeof domains[0]; i++)
		C.api.enable_domain(1, C.sub, domains[i]);
	C.started = 1;
	pthread_mutex_unlock(&C.lock);
	return 0;
}

/* ---- in libhetrace-cuda.so ---- */

#ifndef HT_MT_CUDA_NO_INIT
static const struct ht_mt_config *real_config(void)
{
	return ht_mt_config_get();
}

static void *sym(void *lib, const char *name, int *missing)
{
	void *f = dlsym(lib, name);

	*missing |= !f;
	return f;
}

void ht_mt_cuda_init(uint64_t (*corr)(void))
{
	static const char *const names[] = {
	    "libsanitizer-public.so",
	    "/usr/local/cuda/compute-sanitizer/libsanitizer-public.so",
	};
	const struct ht_mt_config *cfg = ht_mt_config_get();
	struct ht_mt_cuda_ops ops = {
	    .config = real_config,
	    .channel = ht_mt_channel,
	    .launch_start = ht_mt_launch_start,
	    .launch_done = ht_mt_launch_done,
	    .corr = corr,
	};
	struct ht_san_api api = {0};
	char patches[4096], *slash;
	const char *home = getenv("CUDA_HOME");
	void *lib = NULL;
	Dl_info self;
	int missing = 0;

	if (!cfg->on)
		return;
	if (home && *home) {
		snprintf(patches, sizeof patches, "%s/compute-sanitizer/libsanitizer-public.so",
			 home);
		lib = dlopen(patches, RTLD_NOW | RTLD_LOCAL);
	}
	for (unsigned int i = 0; !lib && i < sizeof names / sizeof names[0]; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		warn("libsanitizer-public.so (the Compute Sanitizer API) was not found", dlerror());
		return;
	}
	*(void **)&api.subscribe = sym(lib, "sanitizerSubscribe", &missing);
	*(void **)&api.enable_domain = sym(lib, "sanitizerEnableDomain", &missing);
	*(void **)&api.add_patches_from_file = sym(lib, "sanitizerAddPatchesFromFile", &missing);
	*(void **)&api.patch_instructions = sym(lib, "sanitizerPatchInstructions", &missing);
	*(void **)&api.patch_module = sym(lib, "sanitizerPatchModule", &missing);
	*(void **)&api.set_callback_data = sym(lib, "sanitizerSetCallbackData", &missing);
	*(void **)&api.get_function_pc_and_size =
	    sym(lib, "sanitizerGetFunctionPcAndSize", &missing);
	*(void **)&api.alloc_host = sym(lib, "sanitizerAllocHost", &missing);
	*(void **)&api.set_launch_callback_data = dlsym(lib, "sanitizerSetLaunchCallbackData");
	if (missing) {
		warn("libsanitizer-public.so lacks functions of the Compute Sanitizer API", NULL);
		return;
	}
	/* the patches sit beside this library */
	if (!dladdr((void *)ht_mt_cuda_init, &self) || !self.dli_fname) {
		warn("cannot find the patches", NULL);
		return;
	}
	snprintf(patches, sizeof patches, "%s", self.dli_fname);
	slash = strrchr(patches, '/');
	snprintf(slash ? slash + 1 : patches,
		 sizeof patches - (size_t)(slash ? slash + 1 - patches : 0), "%s",
		 HT_MT_CUDA_PATCHES);
	ht_mt_cuda_start(&api, &ops, patches);
}
#endif
