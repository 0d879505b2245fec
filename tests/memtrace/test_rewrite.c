/*
 * The OpenCL C rewriter and producer on PoCL, without the interposer:
 * kernels with known access patterns are instrumented (rewrite.c), built
 * and run on PoCL's CPU device with a channel far smaller than what they
 * emit, drained by a consumer thread while they run (channel.c), and the
 * records (runs, which a unit-stride access of a work-group is one of) are
 * expanded and counted per site: exact loads, stores and atomics, the
 * addresses of each, the work-items, the buffer addresses the kernels
 * noted. The kernels' results must be what they compute uninstrumented.
 * Then discard mode with a consumer that naps: received + dropped is
 * exactly what was emitted. And the rewriter's site table: kinds, sizes,
 * arguments and lines, and a program it cannot parse.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../unit/check.h"
#include "memtrace/channel.h"
#include "format/format.h"
#include "memtrace/rewrite.h"
#include "memtrace/spawn.h"

#define N     4096
#define LOCAL 64
#define SLOT  5

static const char program[] =
    "#define ID get_global_id(0)\n"
    "__kernel void unit(__global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = ID;\n"
    "\tout[i] = in[i] * 2.0f;\n"
    "}\n"
    "__kernel void stride2(__global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = ID;\n"
    "\tout[i] = in[2 * i];\n"
    "}\n"
    "__kernel void scatter(__global const int *idx, __global const float *in, __global float "
    "*out)\n"
    "{\n"
    "\tint i = ID;\n"
    "\tout[idx[i]] = in[i];\n"
    "}\n"
    "__kernel void atomics(__global int *cnt)\n"
    "{\n"
    "\tatomic_inc(&cnt[ID % 4]);\n"
    "}\n"
    "float sum(__global const float *p, int n)\n"
    "{\n"
    "\tfloat s = 0;\n"
    "\tfor (int j = 0; j < n; j++)\n"
    "\t\ts += p[j];\n"
    "\treturn s;\n"
    "}\n"
    "__kernel void loop(__global const int *len, __global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = ID;\n"
    "\tif (len[i] < 0)\n"
    "\t\treturn;\n"
    "\tout[i] = sum(in, len[i]);\n"
    "}\n";

/* sites, in the order the rewriter numbers them */
enum {
	S_UNIT_ST,
	S_UNIT_LD,
	S_S2_ST,
	S_S2_LD,
	S_SC_ST,
	S_SC_IDX,
	S_SC_LD,
	S_AT,
	S_SUM_LD,
	S_LOOP_LEN1,
	S_LOOP_ST,
	S_LOOP_LEN2,
	S_COUNT
};

struct env {
	cl_context ctx;
	cl_device_id dev;
	cl_command_queue q;
	cl_program prog;
	struct ht_mt_chan chan;
	void *mem;
	cl_mem chan_buf;
	/* consumer */
	pthread_t th;
	int stop, nap;
	/* what arrived */
	uint64_t site[S_COUNT], records, runs, bad;
	uint64_t *addr[S_COUNT]; /* per site, by work-item: the last address */
	uint32_t *items;	 /* per global work-item: records */
};

static void sink(void *arg, const uint32_t *w, uint32_t n)
{
	struct env *e = arg;

	for (uint32_t i = 0; i < n; i++) {
		struct ht_mt_rec r;

		ht_mt_rec_decode(w, i, &r);
		if (!r.count || r.count > LOCAL)
			e->bad++;
		for (uint32_t j = 0; j < r.count && j < LOCAL; j++) { /* a record is a run */
			uint64_t gid = (uint64_t)r.group * LOCAL + r.item + j;

			if (r.slot != SLOT || r.site >= S_COUNT || gid >= N || r.size != 4 ||
			    r.item + j >= LOCAL) {
				e->bad++;
				continue;
			}
			e->site[r.site]++;
			e->addr[r.site][gid] = r.addr + (uint64_t)((int64_t)r.stride * j);
			e->items[gid]++;
			e->records++;
		}
		e->runs++;
	}
}

static void *consume(void *arg)
{
	struct env *e = arg;

	while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE))
		if (!ht_mt_chan_drain(&e->chan, 0, sink, e) || e->nap)
			usleep(e->nap ? 2000 : 50);
	return NULL;
}

static cl_kernel make(struct env *e, const char *name)
{
	cl_int err;
	cl_kernel k = clCreateKernel(e->prog, name, &err);
	cl_uint slot = SLOT, nargs = 0;

	CHECK(k && err == CL_SUCCESS);
	clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
	CHECK(clSetKernelArg(k, nargs - 2, sizeof e->chan_buf, &e->chan_buf) == CL_SUCCESS);
	CHECK(clSetKernelArg(k, nargs - 1, sizeof slot, &slot) == CL_SUCCESS);
	return k;
}

static void launch(struct env *e, cl_kernel k)
{
	size_t g = N, l = LOCAL;

	memset(e->site, 0, sizeof e->site);
	memset(e->items, 0, N * sizeof *e->items);
	e->records = e->runs = e->bad = 0;
	e->stop = 0;
	pthread_create(&e->th, NULL, consume, e);
	CHECK(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &g, &l, 0, NULL, NULL) == CL_SUCCESS);
	CHECK(clFinish(e->q) == CL_SUCCESS);
	__atomic_store_n(&e->stop, 1, __ATOMIC_RELEASE);
	pthread_join(e->th, NULL);
	ht_mt_chan_drain(&e->chan, HT_MT_DRAIN_FORCE, sink, e);
	CHECK_EQ(e->bad, 0);
}

static cl_mem buffer(struct env *e, size_t bytes, const void *init)
{
	cl_int err;
	cl_mem m = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
				  bytes, (void *)init, &err);

	CHECK(m && err == CL_SUCCESS);
	return m;
}

static const char *tool; /* hetrace-cl-rewrite: libclang beside PoCL's LLVM crashes PoCL */

/* The front end told of the build options only (clang's own predefinitions), macros expanded. */
static const struct ht_mt_front *front(const char *options)
{
	static struct ht_mt_front fe;

	fe = (struct ht_mt_front){.options = options, .device = "", .expand = 1};
	return &fe;
}

static int setup(struct env *e, int block)
{
	struct ht_mt_cl_params p = {
	    .nbins = 2, .cap = 512, .block = block, .sample = 1, .stage = 256};
	struct ht_mt_rewrite rw;
	size_t size = ht_mt_chan_size(p.nbins, p.cap);
	const char *src;
	cl_platform_id plat;
	cl_int err;

	memset(e, 0, sizeof *e);
	if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &e->dev, NULL) != CL_SUCCESS)
		return 77;
	e->ctx = clCreateContext(NULL, 1, &e->dev, NULL, NULL, &err);
	e->q = clCreateCommandQueueWithProperties(e->ctx, e->dev, NULL, &err);
	CHECK_EQ(ht_mt_rewrite_run(tool, program, sizeof program - 1, front(""), &p, &rw), 0);
	if (!rw.source)
		return 1;
	/* the site table */
	CHECK_EQ(rw.nsites, S_COUNT);
	CHECK_EQ(rw.nkernels, 5);
	CHECK_EQ(rw.skipped, 0);
	if (rw.nsites == S_COUNT) {
		CHECK_EQ(rw.sites[S_UNIT_ST].kind, HT_MEM_STORE);
		CHECK_EQ(rw.sites[S_UNIT_ST].arg, 1);
		CHECK_EQ(rw.sites[S_UNIT_ST].line, 5);
		CHECK_EQ(rw.sites[S_UNIT_LD].kind, HT_MEM_LOAD);
		CHECK_EQ(rw.sites[S_UNIT_LD].arg, 0);
		CHECK_EQ(rw.sites[S_UNIT_LD].col, 11);
		CHECK_EQ(rw.sites[S_SC_IDX].arg, 0);
		CHECK_EQ(rw.sites[S_AT].kind, HT_MEM_ATOMIC);
		CHECK_EQ(rw.sites[S_AT].arg, 0);
		CHECK_EQ(rw.sites[S_SUM_LD].arg, -1); /* in a helper: found by address later */
		CHECK_STR(rw.sites[S_SUM_LD].fn, "sum");
		CHECK_EQ(rw.sites[S_SUM_LD].line, 25);
		CHECK_EQ(rw.sites[S_LOOP_ST].size, 4);
	}
	if (rw.nkernels == 5) {
		CHECK_STR(rw.kernels[2].name, "scatter");
		CHECK_EQ(rw.kernels[2].nparams, 3);
		CHECK_EQ(rw.kernels[2].buffers, 7);
	}
	src = rw.source;
	e->prog = clCreateProgramWithSource(e->ctx, 1, &src, NULL, &err);
	err = clBuildProgram(e->prog, 1, &e->dev, "", NULL, NULL);
	if (err != CL_SUCCESS) {
		static char log[1 << 16];

		clGetProgramBuildInfo(e->prog, e->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
		fprintf(stderr, "build failed: %s\n", log);
		check_failures++;
		return 1;
	}
	ht_mt_rewrite_release(&rw);
	e->mem = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	CHECK_EQ(ht_mt_chan_init(&e->chan, e->mem, p.nbins, p.cap, block), 0);
	e->chan_buf = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
				     (size + 4095) & ~(size_t)4095, e->mem, &err);
	CHECK(e->chan_buf && err == CL_SUCCESS);
	for (int s = 0; s < S_COUNT; s++)
		e->addr[s] = calloc(N, sizeof(uint64_t));
	e->items = calloc(N, sizeof *e->items);
	return 0;
}

static void teardown(struct env *e)
{
	clReleaseMemObject(e->chan_buf);
	clReleaseProgram(e->prog);
	clReleaseCommandQueue(e->q);
	clReleaseContext(e->ctx);
	ht_mt_chan_release(&e->chan);
	free(e->mem);
	for (int s = 0; s < S_COUNT; s++)
		free(e->addr[s]);
	free(e->items);
}

static int no_device;

static void test_block(void)
{
	static float in[2 * N], out[N];
	static int idx[N], len[N], cnt[4];
	struct env e;
	cl_mem bin, bout, bidx, blen, bcnt;
	cl_kernel k;
	uint64_t want = 0;
	int rc = setup(&e, 1);

	if (rc) {
		if (rc == 77)
			no_device = 1;
		return;
	}
	for (int i = 0; i < 2 * N; i++)
		in[i] = (float)i;
	for (int i = 0; i < N; i++) {
		idx[i] = (i * 1031) % N; /* a permutation: 1031 is prime */
		len[i] = i % 7;
	}
	bin = buffer(&e, sizeof in, in);
	bout = buffer(&e, sizeof out, NULL);
	bidx = buffer(&e, sizeof idx, idx);
	blen = buffer(&e, sizeof len, len);
	bcnt = buffer(&e, sizeof cnt, cnt);

	/* unit stride: one load and one store per work-item, addresses 4 bytes apart */
	k = make(&e, "unit");
	clSetKernelArg(k, 0, sizeof bin, &bin);
	clSetKernelArg(k, 1, sizeof bout, &bout);
	launch(&e, k);
	CHECK_EQ(e.site[S_UNIT_LD], N);
	CHECK_EQ(e.site[S_UNIT_ST], N);
	CHECK_EQ(e.records, 2 * N);
	CHECK_EQ(e.runs, 2 * N / LOCAL); /* folded: a run per site and work-group */
	for (int i = 1; i < N; i++) {
		CHECK_EQ(e.addr[S_UNIT_LD][i] - e.addr[S_UNIT_LD][i - 1], 4);
		CHECK_EQ(e.items[i], 2);
	}
	/* the kernel noted its buffers: the first load is at in's address */
	CHECK_EQ(ht_mt_chan_slot_arg(&e.chan, SLOT, 0), e.addr[S_UNIT_LD][0]);
	CHECK_EQ(ht_mt_chan_slot_arg(&e.chan, SLOT, 1), e.addr[S_UNIT_ST][0]);
	clEnqueueReadBuffer(e.q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	CHECK(out[N - 1] == 2.0f * (N - 1) && out[7] == 14.0f);
	clReleaseKernel(k);

	/* stride 2 */
	k = make(&e, "stride2");
	clSetKernelArg(k, 0, sizeof bin, &bin);
	clSetKernelArg(k, 1, sizeof bout, &bout);
	launch(&e, k);
	CHECK_EQ(e.site[S_S2_LD], N);
	CHECK_EQ(e.site[S_S2_ST], N);
	for (int i = 1; i < N; i++)
		CHECK_EQ(e.addr[S_S2_LD][i] - e.addr[S_S2_LD][i - 1], 8);
	clReleaseKernel(k);

	/* scatter: stores at the permuted places */
	k = make(&e, "scatter");
	clSetKernelArg(k, 0, sizeof bidx, &bidx);
	clSetKernelArg(k, 1, sizeof bin, &bin);
	clSetKernelArg(k, 2, sizeof bout, &bout);
	launch(&e, k);
	CHECK_EQ(e.site[S_SC_ST], N);
	CHECK_EQ(e.site[S_SC_IDX], N);
	CHECK_EQ(e.site[S_SC_LD], N);
	for (int i = 0; i < N; i++)
		CHECK_EQ(e.addr[S_SC_ST][i] - ht_mt_chan_slot_arg(&e.chan, SLOT, 2),
			 (uint64_t)idx[i] * 4);
	clReleaseKernel(k);

	/* atomics */
	k = make(&e, "atomics");
	clSetKernelArg(k, 0, sizeof bcnt, &bcnt);
	launch(&e, k);
	CHECK_EQ(e.site[S_AT], N);
	CHECK_EQ(e.records, N);
	clEnqueueReadBuffer(e.q, bcnt, CL_TRUE, 0, sizeof cnt, cnt, 0, NULL, NULL);
	CHECK(cnt[0] == N / 4 && cnt[3] == N / 4);
	clReleaseKernel(k);

	/* a loop with a data-dependent trip count, in a helper function */
	k = make(&e, "loop");
	clSetKernelArg(k, 0, sizeof blen, &blen);
	clSetKernelArg(k, 1, sizeof bin, &bin);
	clSetKernelArg(k, 2, sizeof bout, &bout);
	launch(&e, k);
	for (int i = 0; i < N; i++)
		want += (uint64_t)len[i];
	CHECK_EQ(e.site[S_SUM_LD], want);
	CHECK_EQ(e.site[S_LOOP_LEN1], N);
	CHECK_EQ(e.site[S_LOOP_LEN2], N);
	CHECK_EQ(e.site[S_LOOP_ST], N);
	CHECK_EQ(e.records, want + 3 * N);
	CHECK(want > 10 * 2 * 512); /* many times what the channel holds */
	clEnqueueReadBuffer(e.q, bout, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	CHECK(out[6] == 15.0f && out[7] == 0.0f); /* 0+1+...+5, and nothing */
	clReleaseKernel(k);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	clReleaseMemObject(bidx);
	clReleaseMemObject(blen);
	clReleaseMemObject(bcnt);
	teardown(&e);
}

static void test_discard(void)
{
	static float in[N], out[N];
	static int idx[N];
	struct env e;
	cl_mem bin, bout, bidx;
	cl_kernel k;
	uint64_t dropped;

	if (setup(&e, 0))
		return;
	for (int i = 0; i < N; i++)
		idx[i] = (i * 1031) % N;
	bin = buffer(&e, sizeof in, in);
	bout = buffer(&e, sizeof out, NULL);
	bidx = buffer(&e, sizeof idx, idx);
	/* a scatter: every store its own record, far more than the channel holds */
	k = make(&e, "scatter");
	clSetKernelArg(k, 0, sizeof bidx, &bidx);
	clSetKernelArg(k, 1, sizeof bin, &bin);
	clSetKernelArg(k, 2, sizeof bout, &bout);
	e.nap = 1;
	ht_mt_chan_slot_take(&e.chan, SLOT);
	launch(&e, k);
	dropped = ht_mt_chan_slot_take(&e.chan, SLOT);
	printf("discard: %llu received, %llu dropped\n", (unsigned long long)e.records,
	       (unsigned long long)dropped);
	CHECK_EQ(e.records + dropped, 3 * N);
	CHECK(dropped > 0);
	CHECK_EQ(e.site[S_SC_ST] + e.site[S_SC_IDX] + e.site[S_SC_LD], e.records);
	clReleaseKernel(k);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	clReleaseMemObject(bidx);
	teardown(&e);
}

static void test_unparseable(void)
{
	static const char bad[] = "__kernel void k(__global int *a) { a[0] = undeclared; }\n";
	struct ht_mt_cl_params p = {.nbins = 1, .cap = 256, .block = 1, .sample = 1, .stage = 256};
	struct ht_mt_rewrite rw;

	CHECK_EQ(ht_mt_rewrite_run(tool, bad, sizeof bad - 1, front(""), &p, &rw), -1);
	CHECK(strstr(rw.error, "undeclared") != NULL);
	CHECK(rw.source == NULL);
	/* the application's -D reaches the front end */
	{
		static const char def[] = "__kernel void k(__global T *a) { a[0] = 1; }\n";

		CHECK_EQ(ht_mt_rewrite_run(tool, def, sizeof def - 1, front("-D T=int"), &p, &rw),
			 0);
		CHECK_EQ(rw.nsites, 1);
		ht_mt_rewrite_release(&rw);
	}
}

/*
 * Parameters that a preprocessor conditional leaves out follow the last one
 * (CLBlast's XgemmBody): the hidden parameters go before the ")" the body
 * follows, with the conditional off and on, and the result builds.
 */
static void test_conditional_params(void)
{
	static const char src[] = "void put(__global int *p, int v\n"
				  "#if EXTRA\n"
				  "\t, int extra\n"
				  "#endif\n"
				  "\t)\n"
				  "{\n"
				  "\tp[get_global_id(0)] = v;\n"
				  "}\n"
				  "__kernel void k(__global int *a\n"
				  "#if EXTRA\n"
				  "\t, int extra\n"
				  "#endif\n"
				  "\t)\n"
				  "{\n"
				  "#if EXTRA\n"
				  "\tput(a, 7, extra);\n"
				  "#else\n"
				  "\tput(a, 7);\n"
				  "#endif\n"
				  "}\n";
	static const char *const options[] = {"", "-D EXTRA=1"};
	struct ht_mt_cl_params p = {.nbins = 1, .cap = 256, .block = 1, .sample = 1, .stage = 256};
	cl_platform_id plat;
	cl_device_id dev;
	int have_dev = clGetPlatformIDs(1, &plat, NULL) == CL_SUCCESS &&
		       clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) == CL_SUCCESS;

	for (int o = 0; o < 2; o++) {
		struct ht_mt_rewrite rw;

		CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, front(options[o]), &p, &rw),
			 0);
		if (!rw.source) {
			fprintf(stderr, "conditional parameters (%s): %s\n", options[o], rw.error);
			continue;
		}
		CHECK_EQ(rw.nsites, 1);
		CHECK_EQ(rw.nkernels, 1);
		if (rw.nkernels == 1)
			CHECK_EQ(rw.kernels[0].nparams, (unsigned int)(o ? 2 : 1));
		CHECK(strstr(rw.source, "#endif\n\t, __local struct ht_mt_wg *ht_mt)\n{") != NULL);
		CHECK(strstr(rw.source, "#endif\n\t, __global volatile uint *ht_mt_chan, uint "
					"ht_mt_launch)\n{") != NULL);
		if (have_dev) {
			cl_int err;
			cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
			const char *text = rw.source;
			cl_program prog = clCreateProgramWithSource(ctx, 1, &text, NULL, &err);

			CHECK_EQ(clBuildProgram(prog, 1, &dev, options[o], NULL, NULL), CL_SUCCESS);
			clReleaseProgram(prog);
			clReleaseContext(ctx);
		}
		ht_mt_rewrite_release(&rw);
	}
}

/*
 * Qualifiers spelled through macros (hashcat's KERNEL_FQ and DECLSPEC): the
 * kernel is one, the "inline static" helper is not, and the result builds.
 */
static void test_macro_kernel(void)
{
	static const char src[] = "#define KERNEL_FQ __kernel\n"
				  "#define DECLSPEC inline static\n"
				  "#define KERN_ATTR(t) __global t *out, __global const t *in\n"
				  "DECLSPEC void put(__global int *p, int v)\n"
				  "{\n"
				  "\tp[get_global_id(0)] = v;\n"
				  "}\n"
				  "KERNEL_FQ void k(KERN_ATTR(int))\n"
				  "{\n"
				  "\tput(out, in[get_global_id(0)]);\n"
				  "}\n";
	struct ht_mt_cl_params p = {.nbins = 1, .cap = 256, .block = 1, .sample = 1, .stage = 256};
	struct ht_mt_rewrite rw;

	CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, front(""), &p, &rw), 0);
	if (!rw.source) {
		fprintf(stderr, "macro kernel: %s\n", rw.error);
		return;
	}
	CHECK_EQ(rw.nkernels, 1);
	if (rw.nkernels == 1) {
		CHECK_STR(rw.kernels[0].name, "k");
		CHECK_EQ(rw.kernels[0].nparams, 2);
		CHECK_EQ(rw.kernels[0].buffers, 3);
	}
	CHECK_EQ(rw.nsites, 2);
	CHECK(strstr(rw.source, "KERNEL_FQ void k(KERN_ATTR(int), __global volatile uint "
				"*ht_mt_chan, uint ht_mt_launch)") != NULL);
	CHECK(strstr(rw.source, "DECLSPEC void put(__global int *p, int v, __local struct "
				"ht_mt_wg *ht_mt)") != NULL);
	ht_mt_rewrite_release(&rw);
}

/*
 * Accesses and a call that macros hide (hashcat's MD5 steps, clpeak's
 * FETCH_2): the program is instrumented with its macros expanded, each
 * site on the application's line; the device's predefinitions decide its
 * conditionals (no cl_khr_fp16 here: no kernel "h"). Told not to expand, the
 * accesses are counted, and the call fails the program.
 */
static void test_macro_accesses(void)
{
	static const char src[] = "#define LOAD(p, i) ((p)[(i)] + 1)\n"
				  "#define STEP(d, s) d[get_global_id(0)] += LOAD(s, 0)\n"
				  "int get(__global const int *p) { return p[1]; }\n"
				  "#define GET(p) get(p)\n"
				  "#ifdef cl_khr_fp16\n"
				  "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
				  "__kernel void h(__global half *x) { x[0] = 0; }\n"
				  "#endif\n"
				  "__kernel void k(__global int *out, __global const int *in)\n"
				  "{\n"
				  "\tSTEP(out, in);\n"
				  "\tout[1] = GET(in);\n"
				  "}\n";
	static const char nocall[] = "#define LOAD(p, i) ((p)[(i)] + 1)\n"
				     "__kernel void k(__global int *out, __global const int *in)\n"
				     "{\n"
				     "\tout[0] = LOAD(in, 0) + LOAD(in, 1);\n"
				     "}\n";
	struct ht_mt_cl_params p = {.nbins = 1, .cap = 256, .block = 1, .sample = 1, .stage = 256};
	struct ht_mt_front fe = {.options = "", .device = "-cl-ext=-all,+cl_khr_fp64", .expand = 1};
	struct ht_mt_rewrite rw;
	unsigned int seen = 0;

	CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, &fe, &p, &rw), 0);
	if (!rw.source) {
		fprintf(stderr, "macro accesses: %s\n", rw.error);
		return;
	}
	CHECK_EQ(rw.expanded, 1);
	CHECK_EQ(rw.skipped, 0);
	CHECK_EQ(rw.nkernels, 1);
	CHECK_STR(rw.kernels[0].name, "k");
	CHECK(strstr(rw.source, "cl_khr_fp16") == NULL);
	for (size_t i = 0; i < rw.nsites; i++) {
		const struct ht_mt_site *t = &rw.sites[i];
		unsigned int what = !strcmp(t->fn, "get") ? t->line == 3 && t->kind == HT_MEM_LOAD
				    : t->line == 11 && t->arg == 0 ? t->kind == HT_MEM_LOAD ? 2 : 4
				    : t->line == 11 && t->arg == 1 ? 8 * (t->kind == HT_MEM_LOAD)
				    : t->line == 12 && t->arg == 0 ? 16 * (t->kind == HT_MEM_STORE)
								   : 0;

		CHECK(what != 0);
		seen |= what;
	}
	/* get's load; STEP's load and store of out; LOAD's load of in; the store of out[1] */
	CHECK_EQ(seen, 31);
	CHECK_EQ(rw.nsites, 5);
	ht_mt_rewrite_release(&rw);

	fe.expand = 0;
	CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, &fe, &p, &rw), -1);
	CHECK(strstr(rw.error, "the call of 'get' in 'k'") != NULL);
	CHECK_EQ(ht_mt_rewrite_run(tool, nocall, sizeof nocall - 1, &fe, &p, &rw), 0);
	CHECK_EQ(rw.expanded, 0);
	CHECK_EQ(rw.skipped, 2);
	CHECK_EQ(rw.nsites, 1);
	ht_mt_rewrite_release(&rw);
	fe.expand = 1;
	CHECK_EQ(ht_mt_rewrite_run(tool, nocall, sizeof nocall - 1, &fe, &p, &rw), 0);
	CHECK_EQ(rw.expanded, 1);
	CHECK_EQ(rw.skipped, 0);
	CHECK_EQ(rw.nsites, 3);
	for (size_t i = 0; i < rw.nsites; i++)
		CHECK_EQ(rw.sites[i].line, 4);
	ht_mt_rewrite_release(&rw);
}

/*
 * A helper defined in an #include'd file, and an #include inside a kernel's
 * body: reached once expanded, each site named with its own file and line.
 */
static void test_included(void)
{
	static const char src[] = "#include \"ht_inc.h\"\n"
				  "__kernel void k(__global int *out, __global const int *in)\n"
				  "{\n"
				  "\tput(out, in[get_global_id(0)]);\n"
				  "#include \"ht_body.h\"\n"
				  "}\n";
	struct ht_mt_cl_params p = {.nbins = 1, .cap = 256, .block = 1, .sample = 1, .stage = 256};
	char dir[] = "/tmp/ht-rewrite-XXXXXX", path[64], options[64];
	struct ht_mt_front fe = {.options = options, .device = "", .expand = 1};
	struct ht_mt_rewrite rw;
	unsigned int seen = 0;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/ht_inc.h", dir);
	f = fopen(path, "w");
	fputs("// a helper\nvoid put(__global int *p, int v)\n{\n\tp[get_global_id(0)] = v;\n}\n",
	      f);
	fclose(f);
	snprintf(path, sizeof path, "%s/ht_body.h", dir);
	f = fopen(path, "w");
	fputs("out[1] = in[2];\n", f);
	fclose(f);
	snprintf(options, sizeof options, "-I %s", dir);
	CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, &fe, &p, &rw), 0);
	if (rw.source) {
		CHECK_EQ(rw.expanded, 1);
		CHECK_EQ(rw.skipped, 0);
		CHECK_EQ(rw.nsites, 4);
		for (size_t i = 0; i < rw.nsites; i++) {
			const struct ht_mt_site *t = &rw.sites[i];
			const char *file = ht_mt_site_file(&rw, t), *base = strrchr(file, '/');

			base = base ? base + 1 : file;
			if (!strcmp(t->fn, "put"))
				seen |= (t->line == 4 && !strcmp(base, "ht_inc.h")) << 0;
			else if (t->line == 4 && !file[0] && t->arg == 1)
				seen |= 1 << 1;
			else if (t->line == 1 && !strcmp(base, "ht_body.h"))
				seen |= 1 << (t->arg == 0 ? 2 : 3);
		}
		CHECK_EQ(seen, 15);
		ht_mt_rewrite_release(&rw);
	} else {
		fprintf(stderr, "included: %s\n", rw.error);
	}
	fe.expand = 0; /* the helper is not instrumented, the body's accesses are counted */
	CHECK_EQ(ht_mt_rewrite_run(tool, src, sizeof src - 1, &fe, &p, &rw), 0);
	CHECK_EQ(rw.nsites, 1);
	CHECK_EQ(rw.skipped, 2);
	ht_mt_rewrite_release(&rw);
	snprintf(path, sizeof path, "%s/ht_inc.h", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/ht_body.h", dir);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_memtrace_rewrite HETRACE-CL-REWRITE\n");
		return 2;
	}
	tool = argv[1];
	test_unparseable();
	test_conditional_params();
	test_macro_kernel();
	test_macro_accesses();
	test_included();
	test_block();
	if (no_device) {
		printf("no OpenCL device: skipped\n");
		return 77;
	}
	test_discard();
	CHECK_DONE();
}
