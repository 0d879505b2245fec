/*
 * The host side of CUDA memory-access tracing (src/memtrace/cuda_sanitizer.c)
 * without a GPU: a fake Compute Sanitizer library records what is asked of
 * it, the test delivers the callbacks a CUDA program would cause (module
 * loaded, allocations, launches, synchronisation), and the warps of the
 * launch are run on the host through the patch's own steps
 * (cuda_producer.h, what cuda_patches.cu executes per warp: the lowest
 * active lane reserves for the warp, every lane writes, that lane
 * acknowledges). Checked: the patching calls, the descriptor each launch
 * runs with, the buffers it notes, exact records out of the channel (kinds
 * from the sanitizer's flags, sites as offsets, work-items, partial warps),
 * launches ended by synchronisation, unselected kernels left without data,
 * and discard mode counting a full channel's drops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "memtrace/channel.h"
#include "memtrace/cuda_producer.h"
#include "memtrace/cuda_sanitizer.h"

/* ---- the fake sanitizer library ---- */

static struct {
	int subscribed, domains;
	ht_san_callback cb;
	int patches_added;
	char patches_file[256];
	CUcontext patches_ctx;
	int patched_instr, patched_modules;
	CUmodule last_module;
	CUfunction data_fn;
	const void *data;
	int data_calls;
} F;

static ht_san_result f_subscribe(ht_san_subscriber *sub, ht_san_callback cb, void *u)
{
	(void)u;
	*sub = (ht_san_subscriber)0x1;
	F.cb = cb;
	F.subscribed++;
	return 0;
}
static ht_san_result f_enable(uint32_t on, ht_san_subscriber s, int domain)
{
	(void)s;
	if (on)
		F.domains |= 1 << domain;
	return 0;
}
static ht_san_result f_add_patches(const char *file, CUcontext ctx)
{
	F.patches_added++;
	snprintf(F.patches_file, sizeof F.patches_file, "%s", file);
	F.patches_ctx = ctx;
	return 0;
}
static ht_san_result f_patch_instr(int id, CUmodule m, const char *cb)
{
	if (id == HT_SAN_INSTRUCTION_GLOBAL_MEMORY_ACCESS && !strcmp(cb, HT_MT_CUDA_PATCH))
		F.patched_instr++;
	F.last_module = m;
	return 0;
}
static ht_san_result f_patch_module(CUmodule m)
{
	F.patched_modules += m == F.last_module;
	return 0;
}
static ht_san_result f_set_data(CUfunction fn, const void *data)
{
	F.data_fn = fn;
	F.data = data;
	F.data_calls++;
	return 0;
}
static ht_san_result f_pc(CUmodule m, const char *name, uint64_t *pc, uint64_t *size)
{
	(void)m;
	(void)name;
	*pc = 0x7000;
	*size = 0x400;
	return 0;
}
static ht_san_result f_alloc_host(CUcontext ctx, void **p, size_t bytes)
{
	(void)ctx;
	*p = aligned_alloc(4096, (bytes + 4095) & ~(size_t)4095); /* never freed, as pinned */
	return *p ? 0 : 2;
}

/* ---- the fake collector ---- */

static struct ht_mt_config cfg = {.on = 1, .glob = "vec*", .sample = 1, .bytes = 300 << 10};
static struct ht_mt_chan chan;
static int have_chan, started, done[8], ndone;
static struct ht_mt_launch last;

static const struct ht_mt_config *o_config(void)
{
	return &cfg;
}
static struct ht_mt_chan *o_channel(unsigned int lanes, uint32_t min_cap,
				    void *(*alloc)(size_t, void *), void *arg)
{
	uint32_t nb, cap;
	size_t size;

	if (have_chan)
		return &chan;
	if (ht_mt_chan_geometry(cfg.bytes, lanes, min_cap, &nb, &cap))
		return NULL;
	size = ht_mt_chan_size(nb, cap);
	if (ht_mt_chan_init(&chan, alloc(size, arg), nb, cap, cfg.block))
		return NULL;
	have_chan = 1;
	return &chan;
}
static int o_start(const struct ht_mt_launch *l)
{
	last = *l;
	return 3 + started++; /* slots 3, 4, ... */
}
static void o_done(int slot)
{
	if (ndone < 8)
		done[ndone++] = slot;
}
static uint64_t o_corr(void)
{
	return 4242;
}

/* ---- a warp, run on the host through the patch's steps ---- */

/*
 * One access by the lanes in `active` of warp w of block `group`: lane l at
 * base + l * stride, of `size` bytes, flags as the sanitizer gives them.
 * Return: 1 written, 0 dropped.
 */
static int warp_access(const struct ht_mt_cuda_launch *l, uint32_t group, uint32_t w,
		       uint32_t active, uint64_t base, uint64_t stride, uint32_t size,
		       uint32_t flags, uint64_t pc)
{
	uint32_t leader = (uint32_t)__builtin_ctz(active), n = (uint32_t)__builtin_popcount(active);
	uint32_t bin = 0, at = 0;

	if (!ht_mt_cuda_reserve(l, group, n, &bin, &at)) { /* the leader, once (discard) */
		ht_mt_cuda_drop(l, n);
		return 0;
	}
	for (uint32_t lane = 0; lane < 32; lane++) {
		uint32_t rank = (uint32_t)__builtin_popcount(active & ((1u << lane) - 1));

		if (active >> lane & 1)
			ht_mt_cuda_write(l, bin, at + rank, base + lane * stride, group,
					 (uint32_t)(pc - l->fn_pc), w * 32 + lane, size,
					 ht_mt_cuda_kind(flags));
	}
	(void)leader;
	ht_mt_cuda_ack(l, bin, n);
	return 1;
}

struct seen {
	uint64_t n, loads, stores, atomics, bad;
	uint64_t items_of_partial; /* records of the partial warp */
};

static void sink(void *arg, const uint32_t *w, uint32_t n)
{
	struct seen *s = arg;

	for (uint32_t i = 0; i < n; i++) {
		struct ht_mt_rec r;

		ht_mt_rec_decode(w, i, &r);
		s->n++;
		s->loads += r.kind == HT_MT_KIND_LOAD;
		s->stores += r.kind == HT_MT_KIND_STORE;
		s->atomics += r.kind == HT_MT_KIND_ATOMIC;
		if (r.slot != 3 || r.size != 4 || r.group > 3)
			s->bad++;
		if (r.kind == HT_MT_KIND_LOAD &&
		    (r.site != 0x10 || r.addr != 0x1000 + (uint64_t)(r.item % 64) * 4))
			s->bad++;
		if (r.kind == HT_MT_KIND_STORE && r.site == 0x30) {
			s->items_of_partial++;
			if (r.item < 32 || r.item >= 52)
				s->bad++;
		}
	}
}

int main(void)
{
	struct ht_san_api api = {
	    .subscribe = f_subscribe,
	    .enable_domain = f_enable,
	    .add_patches_from_file = f_add_patches,
	    .patch_instructions = f_patch_instr,
	    .patch_module = f_patch_module,
	    .set_callback_data = f_set_data,
	    .get_function_pc_and_size = f_pc,
	    .alloc_host = f_alloc_host,
	};
	struct ht_mt_cuda_ops ops = {.config = o_config,
				     .channel = o_channel,
				     .launch_start = o_start,
				     .launch_done = o_done,
				     .corr = o_corr};
	CUcontext ctx = (CUcontext)0x10;
	struct ht_san_module_data m1 = {.context = ctx, .module = (CUmodule)0x20};
	struct ht_san_module_data m2 = {.context = ctx, .module = (CUmodule)0x21};
	struct ht_san_memory_data a1 = {.address = 0x1000, .size = 256, .context = ctx};
	struct ht_san_memory_data a2 = {.address = 0x9000, .size = 1024, .context = ctx};
	struct ht_san_memory_data a3 = {.address = 0x5000, .size = 64, .context = ctx};
	struct ht_san_launch_data ld = {.context = ctx,
					.stream = (CUstream)0x40,
					.hstream = (ht_san_stream)0x41,
					.module = (CUmodule)0x20,
					.function = (CUfunction)0x30,
					.function_name = "vecadd",
					.grid = {4, 1, 1},
					.block = {64, 1, 1}};
	struct ht_san_sync_data other = {
	    .context = ctx, .stream = (CUstream)0x50, .hstream = (ht_san_stream)0x51};
	struct ht_san_sync_data same = {
	    .context = ctx, .stream = (CUstream)0x40, .hstream = (ht_san_stream)0x41};
	const struct ht_mt_cuda_launch *d;
	struct seen s = {0};

	CHECK_EQ(ht_mt_cuda_start(&api, &ops, "/lib/hetrace-memtrace-patches.fatbin"), 0);
	CHECK_EQ(F.subscribed, 1);
	CHECK_EQ(F.domains, 1 << HT_SAN_DOMAIN_RESOURCE | 1 << HT_SAN_DOMAIN_LAUNCH |
				1 << HT_SAN_DOMAIN_SYNCHRONIZE);

	/* modules: the patches go into the context once, every module is patched */
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_MODULE_LOADED, &m1);
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_MODULE_LOADED, &m2);
	CHECK_EQ(F.patches_added, 1);
	CHECK_STR(F.patches_file, "/lib/hetrace-memtrace-patches.fatbin");
	CHECK(F.patches_ctx == ctx);
	CHECK_EQ(F.patched_instr, 2);
	CHECK_EQ(F.patched_modules, 2);

	/* allocations: a3 freed before the launch */
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC, &a1);
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC, &a3);
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_DEVICE_MEMORY_ALLOC, &a2);
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_DEVICE_MEMORY_FREE, &a3);

	/* a selected launch: a slot, its descriptor as the patches' data, its buffers */
	F.cb(NULL, HT_SAN_DOMAIN_LAUNCH, HT_SAN_LAUNCH_BEGIN, &ld);
	CHECK_EQ(started, 1);
	CHECK_EQ(last.corr, 4242);
	CHECK_STR(last.kernel, "vecadd");
	CHECK_EQ(last.global[0], 256);
	CHECK_EQ(last.local[0], 64);
	CHECK_EQ(last.buffers, 3);
	CHECK_EQ(last.arg_size[0], 256);
	CHECK_EQ(last.arg_size[1], 1024);
	d = ht_mt_cuda_descriptor(3);
	CHECK(d && F.data == d && F.data_fn == (CUfunction)0x30);
	if (!d || !have_chan)
		CHECK_DONE();
	CHECK_EQ(d->slot, 3);
	CHECK_EQ(d->on, 1);
	CHECK_EQ(d->fn_pc, 0x7000);
	CHECK(d->chan == chan.mem && d->nbins == chan.nbins && d->cap == chan.cap);
	CHECK_EQ(ht_mt_chan_slot_arg(&chan, 3, 0), 0x1000);
	CHECK_EQ(ht_mt_chan_slot_arg(&chan, 3, 1), 0x9000);

	/* its warps: 4 blocks x 2 warps load (pc 0x7010), store (0x7020), atomic (0x7028);
	   then one partial warp of 20 lanes stores (0x7030) */
	for (uint32_t g = 0; g < 4; g++)
		for (uint32_t w = 0; w < 2; w++) {
			warp_access(d, g, w, ~0u, 0x1000 + w * 128, 4, 4, HT_SAN_MEMORY_READ,
				    0x7010);
			warp_access(d, g, w, ~0u, 0x9000 + g * 256 + w * 128, 4, 4,
				    HT_SAN_MEMORY_WRITE, 0x7020);
			warp_access(d, g, w, ~0u, 0x1000, 0, 4,
				    HT_SAN_MEMORY_READ | HT_SAN_MEMORY_WRITE, 0x7028);
		}
	warp_access(d, 0, 1, 0xfffffu, 0x9000, 4, 4, HT_SAN_MEMORY_WRITE, 0x7030);
	ht_mt_chan_drain(&chan, HT_MT_DRAIN_FORCE, sink, &s);
	CHECK_EQ(s.n, 3 * 8 * 32 + 20);
	CHECK_EQ(s.loads, 256);
	CHECK_EQ(s.stores, 256 + 20);
	CHECK_EQ(s.atomics, 256);
	CHECK_EQ(s.items_of_partial, 20);
	CHECK_EQ(s.bad, 0);

	/* another stream's synchronisation ends nothing; this stream's ends the launch */
	F.cb(NULL, HT_SAN_DOMAIN_SYNCHRONIZE, HT_SAN_SYNC_STREAM, &other);
	CHECK_EQ(ndone, 0);
	F.cb(NULL, HT_SAN_DOMAIN_SYNCHRONIZE, HT_SAN_SYNC_STREAM, &same);
	CHECK_EQ(ndone, 1);
	CHECK_EQ(done[0], 3);
	CHECK_EQ(d->on, 0);

	/* an unselected kernel: no slot, NULL data (its patches return at once) */
	ld.function = (CUfunction)0x31;
	ld.function_name = "reduce";
	F.cb(NULL, HT_SAN_DOMAIN_LAUNCH, HT_SAN_LAUNCH_BEGIN, &ld);
	CHECK_EQ(started, 1);
	CHECK(F.data == NULL && F.data_fn == (CUfunction)0x31);

	/* discard mode: a full channel drops whole warps, counted in the slot */
	ld.function = (CUfunction)0x30;
	ld.function_name = "vecscale";
	F.cb(NULL, HT_SAN_DOMAIN_LAUNCH, HT_SAN_LAUNCH_BEGIN, &ld);
	d = ht_mt_cuda_descriptor(4);
	CHECK(d && d->on && d->block == 0);
	if (d) {
		unsigned int written = 0, warps = 0;

		ht_mt_chan_slot_take(&chan, 4);
		while (warps < 10 * (chan.cap / 32 + 1) * chan.nbins) {
			written += (unsigned int)warp_access(d, warps % 4, 0, ~0u, 0x1000, 4, 4,
							     HT_SAN_MEMORY_READ, 0x7010);
			warps++;
		}
		CHECK(written < warps);
		CHECK_EQ(ht_mt_chan_slot_take(&chan, 4), (uint64_t)(warps - written) * 32);
	}
	/* context teardown ends its launches */
	F.cb(NULL, HT_SAN_DOMAIN_RESOURCE, HT_SAN_RESOURCE_CONTEXT_DESTROY_STARTING,
	     &(struct ht_san_context_data){.context = ctx});
	CHECK_EQ(ndone, 2);
	CHECK_EQ(done[1], 4);
	CHECK_DONE();
}
