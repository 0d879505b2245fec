/*
 * An OpenCL program with known global-memory access patterns, for the
 * memtrace_* tests (run_case.sh), traced with --memory-access and not:
 *
 *   mt_prog patterns N   unit stride, stride 2, a scatter, atomics, a loop with
 *                        a data-dependent trip count (in a helper function),
 *                        N work-items each, groups of 64; prints each result's
 *                        checksum
 *   mt_prog oob N        reads in[i + 1] for i < N from a buffer of N floats:
 *                        work-item N - 1 reads past the end
 *   mt_prog linked N     patterns, from a program made as hashcat makes its own:
 *                        clCompileProgram, then clLinkProgram of it alone
 *   mt_prog loop N T     the loop kernel only, trip counts up to T (many records)
 *   mt_prog pick N       one site in a helper reads buffer a for even work-items,
 *                        b for odd ones
 *   mt_prog queries      what an application may ask about its program and
 *                        kernels (source, binaries, kernel names and info,
 *                        argument errors, reference counts) and a kernel whose
 *                        parameters are spelled through a macro (the rewriter
 *                        leaves that program alone), and the first program
 *                        made again from its binary (untraced: not source)
 *
 * Everything printed must be the same traced and untraced.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOCAL 64

static const char source[] =
    "float sum(__global const float *p, int n)\n"
    "{\n"
    "\tfloat s = 0;\n"
    "\tfor (int j = 0; j < n; j++)\n"
    "\t\ts += p[j];\n"
    "\treturn s;\n"
    "}\n"
    "__kernel void unit(__global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[i] = in[i] * 2.0f;\n"
    "}\n"
    "__kernel void stride2(__global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[i] = in[2 * i];\n"
    "}\n"
    "__kernel void scatter(__global const int *idx, __global const float *in,\n"
    "\t\t      __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[idx[i]] = in[i];\n"
    "}\n"
    "__kernel void atomics(__global int *cnt)\n"
    "{\n"
    "\tatomic_inc(&cnt[get_global_id(0) % 4]);\n"
    "}\n"
    "__kernel void loop(__global const int *len, __global const float *in,\n"
    "\t\t   __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[i] = sum(in, len[i]);\n"
    "}\n"
    "__kernel void oob(__global const float *in, __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[i] = in[i + 1];\n"
    "}\n"
    "float get(__global const float *p, int i)\n"
    "{\n"
    "\treturn p[i];\n"
    "}\n"
    "__kernel void pick(__global const float *a, __global const float *b, __global float *out)\n"
    "{\n"
    "\tint i = get_global_id(0);\n"
    "\tout[i] = get(i & 1 ? b : a, i);\n"
    "}\n";

/*
 * Macros: parameters spelled through one, a load in one's body and a helper
 * called through one: the rewriter reaches the load and extends the call
 * in the program with its macros expanded.
 */
static const char macro_source[] = "#define PARAMS __global int *a, __global const int *b\n"
				   "#define LOAD(p, i) ((p)[(i)] + 1)\n"
				   "#define CALL(p, v) put(p, v)\n"
				   "void put(__global int *p, int v)\n"
				   "{\n"
				   "\tp[get_global_id(0)] = v;\n"
				   "}\n"
				   "__kernel void viamacro(PARAMS)\n"
				   "{\n"
				   "\tCALL(a, LOAD(b, get_global_id(0)));\n"
				   "}\n";

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;
static cl_program prog;

static void die(const char *what, cl_int err)
{
	fprintf(stderr, "mt_prog: %s failed: %d\n", what, err);
	exit(1);
}

static cl_program build(const char *src, const char *options)
{
	cl_int err;
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);

	if (!p)
		die("clCreateProgramWithSource", err);
	err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
	if (err)
		die("clBuildProgram", err);
	return p;
}

/* Compiled, then linked alone into the program kernels come from (hashcat's way). */
static cl_program compile_link(const char *src, const char *options)
{
	cl_int err;
	cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err), linked;

	if (!p)
		die("clCreateProgramWithSource", err);
	err = clCompileProgram(p, 1, &dev, options, 0, NULL, NULL, NULL, NULL);
	if (err)
		die("clCompileProgram", err);
	linked = clLinkProgram(ctx, 1, &dev, "", 1, &p, NULL, NULL, &err);
	if (!linked || err)
		die("clLinkProgram", err);
	clReleaseProgram(p);
	return linked;
}

static void setup(int linked)
{
	cl_platform_id plat;
	cl_int err;

	if ((err = clGetPlatformIDs(1, &plat, NULL)) ||
	    (err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL)))
		die("finding a device", err);
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	if (!ctx)
		die("clCreateContext", err);
	q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
	if (!q)
		die("clCreateCommandQueueWithProperties", err);
	prog = linked ? compile_link(source, "-cl-kernel-arg-info")
		      : build(source, "-cl-kernel-arg-info");
}

static cl_mem buffer(size_t bytes, const void *init)
{
	cl_int err;
	cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
				  (void *)init, &err);

	if (!m)
		die("clCreateBuffer", err);
	return m;
}

/* Runs kernel `name` over n work-items with the buffers given. */
static void run(const char *name, size_t n, unsigned int nargs, cl_mem *args)
{
	cl_int err;
	cl_kernel k = clCreateKernel(prog, name, &err);
	size_t local = LOCAL;

	if (!k)
		die("clCreateKernel", err);
	for (unsigned int i = 0; i < nargs; i++)
		if ((err = clSetKernelArg(k, i, sizeof args[i], &args[i])))
			die("clSetKernelArg", err);
	if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, NULL)))
		die("clEnqueueNDRangeKernel", err);
	if ((err = clFinish(q)))
		die("clFinish", err);
	clReleaseKernel(k);
}

/*
 * The first program again, made from its binary (as hashcat loads its
 * kernels): not source, so it runs untraced, as it is; its unit kernel's
 * results are printed.
 */
static void from_binary(void)
{
	size_t size = 0, n = LOCAL;
	unsigned char *bin;
	const unsigned char *b;
	cl_int err, st;
	cl_program bp;
	cl_kernel k;
	cl_mem m[2];
	float in[LOCAL], out[LOCAL];

	clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
	bin = malloc(size ? size : 1);
	if (!bin || clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL))
		die("clGetProgramInfo", CL_OUT_OF_HOST_MEMORY);
	b = bin;
	bp = clCreateProgramWithBinary(ctx, 1, &dev, &size, &b, &st, &err);
	if (!bp)
		die("clCreateProgramWithBinary", err);
	if ((err = clBuildProgram(bp, 1, &dev, "", NULL, NULL)))
		die("clBuildProgram (binary)", err);
	free(bin);
	for (int i = 0; i < LOCAL; i++)
		in[i] = (float)i;
	m[0] = buffer(sizeof in, in);
	m[1] = buffer(sizeof out, NULL);
	k = clCreateKernel(bp, "unit", &err);
	if (!k)
		die("clCreateKernel (binary)", err);
	clSetKernelArg(k, 0, sizeof m[0], &m[0]);
	clSetKernelArg(k, 1, sizeof m[1], &m[1]);
	if ((err = clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL)))
		die("clEnqueueNDRangeKernel (binary)", err);
	clEnqueueReadBuffer(q, m[1], CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	printf("unit from the binary wrote %.1f ... %.1f\n", out[0], out[LOCAL - 1]);
	clReleaseKernel(k);
	clReleaseProgram(bp);
	clReleaseMemObject(m[0]);
	clReleaseMemObject(m[1]);
}

static double checksum(cl_mem m, size_t n)
{
	float *v = malloc(n * sizeof *v);
	double s = 0;

	clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof *v, v, 0, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		s += v[i] * (double)(i % 13 + 1);
	free(v);
	return s;
}

static void patterns(size_t n, int loop_only, int trip)
{
	float *in = malloc(2 * n * sizeof *in);
	int *idx = malloc(n * sizeof *idx), *len = malloc(n * sizeof *len), cnt[4] = {0};
	cl_mem bin, bout, bidx, blen, bcnt;
	uint64_t total = 0;

	for (size_t i = 0; i < 2 * n; i++)
		in[i] = (float)(i % 1000) * 0.5f;
	for (size_t i = 0; i < n; i++) {
		idx[i] = (int)((i * 1031) % n); /* a permutation when n is a power of two */
		len[i] = (int)((i * 5) % (size_t)(trip + 1));
		total += (uint64_t)len[i];
	}
	bin = buffer(2 * n * sizeof *in, in);
	bout = buffer(n * sizeof(float), NULL);
	bidx = buffer(n * sizeof *idx, idx);
	blen = buffer(n * sizeof *len, len);
	bcnt = buffer(sizeof cnt, cnt);
	if (!loop_only) {
		run("unit", n, 2, (cl_mem[]){bin, bout});
		printf("unit %.1f\n", checksum(bout, n));
		run("stride2", n, 2, (cl_mem[]){bin, bout});
		printf("stride2 %.1f\n", checksum(bout, n));
		run("scatter", n, 3, (cl_mem[]){bidx, bin, bout});
		printf("scatter %.1f\n", checksum(bout, n));
		run("atomics", n, 1, (cl_mem[]){bcnt});
		clEnqueueReadBuffer(q, bcnt, CL_TRUE, 0, sizeof cnt, cnt, 0, NULL, NULL);
		printf("atomics %d %d %d %d\n", cnt[0], cnt[1], cnt[2], cnt[3]);
	}
	run("loop", n, 3, (cl_mem[]){blen, bin, bout});
	printf("loop %.1f (%llu loads in the loop)\n", checksum(bout, n),
	       (unsigned long long)total);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	clReleaseMemObject(bidx);
	clReleaseMemObject(blen);
	clReleaseMemObject(bcnt);
	free(in);
	free(idx);
	free(len);
}

static void oob(size_t n)
{
	float *in = calloc(n + 64, sizeof *in);
	cl_mem bin, bout;

	for (size_t i = 0; i < n; i++)
		in[i] = (float)i;
	/* n floats: in[n] is past the end (the runtime's allocation has room: no crash) */
	bin = buffer(n * sizeof *in, in);
	bout = buffer(n * sizeof(float), NULL);
	run("oob", n, 2, (cl_mem[]){bin, bout});
	printf("oob ran over %zu work-items\n", n);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	free(in);
}

/*
 * An out-of-bounds read in a helper of an #include'd file (mt_get.h, in a
 * directory of its own named by -I): found on that file's line.
 */
static void included(size_t n)
{
	static const char src[] =
	    "#include \"mt_get.h\"\n"
	    "__kernel void incoob(__global const float *in, __global float *out)\n"
	    "{\n"
	    "\tint i = get_global_id(0);\n"
	    "\tout[i] = get_next(in, i);\n"
	    "}\n";
	char dir[] = "/tmp/mt-prog-XXXXXX", path[64], options[80];
	float *in = calloc(n + 64, sizeof *in);
	cl_mem bin, bout;
	FILE *f;

	if (!in || !mkdtemp(dir)) {
		perror("mt_prog: included");
		exit(1);
	}
	snprintf(path, sizeof path, "%s/mt_get.h", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs("/* the next element */\n"
	      "float get_next(__global const float *p, int i)\n"
	      "{\n"
	      "\treturn p[i + 1];\n"
	      "}\n",
	      f);
	fclose(f);
	snprintf(options, sizeof options, "-I %s", dir);
	clReleaseProgram(prog);
	prog = build(src, options);
	for (size_t i = 0; i < n; i++)
		in[i] = (float)i;
	/* n floats: in[n] is past the end (the runtime's allocation has room: no crash) */
	bin = buffer(n * sizeof *in, in);
	bout = buffer(n * sizeof(float), NULL);
	run("incoob", n, 2, (cl_mem[]){bin, bout});
	clEnqueueReadBuffer(q, bout, CL_TRUE, 0, sizeof(float), in, 0, NULL, NULL);
	printf("incoob ran over %zu work-items: out[0] %.1f\n", n, in[0]);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	free(in);
	unlink(path);
	rmdir(dir);
}

/*
 * A program whose expanded form does not build: clang's spir64 preprocessor
 * defines __SPIR__, PoCL's compiler does not, and the device has no
 * cl_khr_fp16, so the branch the expansion takes converts to a half PoCL
 * cannot compile. It runs instrumented as written, its load inside PICK
 * left out, with two warnings.
 */
static void fallback(size_t n)
{
	static const char src[] =
	    "#ifdef __SPIR__\n"
	    "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
	    "#define PICK(p, i) ((float)(half)(p)[i] + 1.0f)\n"
	    "#else\n"
	    "#define PICK(p, i) ((p)[i] + 1.0f)\n"
	    "#endif\n"
	    "__kernel void fallback(__global float *out, __global const float *in)\n"
	    "{\n"
	    "\tint i = get_global_id(0);\n"
	    "\tout[i] = PICK(in, i);\n"
	    "}\n";
	float *in = malloc(n * sizeof *in);
	cl_mem bin, bout;

	if (!in)
		die("malloc", CL_OUT_OF_HOST_MEMORY);
	clReleaseProgram(prog);
	prog = build(src, "");
	for (size_t i = 0; i < n; i++)
		in[i] = (float)i;
	bin = buffer(n * sizeof *in, in);
	bout = buffer(n * sizeof *in, NULL);
	run("fallback", n, 2, (cl_mem[]){bout, bin});
	clEnqueueReadBuffer(q, bout, CL_TRUE, 0, n * sizeof *in, in, 0, NULL, NULL);
	printf("fallback ran over %zu work-items: out[0] %.1f, out[%zu] %.1f\n", n, in[0], n - 1,
	       in[n - 1]);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	free(in);
}

/*
 * vloadn/vstoren: a pointer that is an expression (&in[4 * i]), a plain
 * one, and an offset that is itself a global load (idx[i]): each argument
 * evaluated once, n elements recorded as one access.
 */
static void vectors(size_t n)
{
	static const char src[] =
	    "__kernel void vec(__global const float *in, __global float *out,\n"
	    "\t\t  __global const int *idx)\n"
	    "{\n"
	    "\tint i = get_global_id(0);\n"
	    "\tfloat4 v = vload4(0, &in[4 * i]);\n"
	    "\tfloat4 w = vload4(i, in);\n"
	    "\tvstore4(v + w, idx[i], out);\n"
	    "}\n";
	float *in = malloc(4 * n * sizeof *in);
	int *idx = malloc(n * sizeof *idx);
	double sum = 0;
	cl_mem bin, bout, bidx;

	if (!in || !idx)
		die("malloc", CL_OUT_OF_HOST_MEMORY);
	clReleaseProgram(prog);
	prog = build(src, "");
	for (size_t i = 0; i < 4 * n; i++)
		in[i] = (float)(i % 7);
	for (size_t i = 0; i < n; i++)
		idx[i] = (int)i;
	bin = buffer(4 * n * sizeof *in, in);
	bout = buffer(4 * n * sizeof *in, NULL);
	bidx = buffer(n * sizeof *idx, idx);
	run("vec", n, 3, (cl_mem[]){bin, bout, bidx});
	clEnqueueReadBuffer(q, bout, CL_TRUE, 0, 4 * n * sizeof *in, in, 0, NULL, NULL);
	for (size_t i = 0; i < 4 * n; i++)
		sum += in[i];
	printf("vec ran over %zu work-items: out[0..3] %.1f %.1f %.1f %.1f, sum %.1f\n", n, in[0],
	       in[1], in[2], in[3], sum);
	clReleaseMemObject(bin);
	clReleaseMemObject(bout);
	clReleaseMemObject(bidx);
	free(in);
	free(idx);
}

static void pick(size_t n)
{
	float *in = malloc(n * sizeof *in);
	cl_mem ba, bb, bout;

	for (size_t i = 0; i < n; i++)
		in[i] = (float)(i % 100);
	ba = buffer(n * sizeof *in, in);
	bb = buffer(n * sizeof *in, in);
	bout = buffer(n * sizeof(float), NULL);
	run("pick", n, 3, (cl_mem[]){ba, bb, bout});
	printf("pick %.1f\n", checksum(bout, n));
	clReleaseMemObject(ba);
	clReleaseMemObject(bb);
	clReleaseMemObject(bout);
	free(in);
}

static void print_info_str(const char *what, cl_program p, cl_program_info name)
{
	size_t n = 0;
	char *v;

	clGetProgramInfo(p, name, 0, NULL, &n);
	v = calloc(n + 1, 1);
	clGetProgramInfo(p, name, n, v, NULL);
	printf("%s (%zu bytes): %s\n", what, n, v);
	free(v);
}

static cl_uint refs(cl_context c)
{
	cl_uint n = 0;

	clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n, &n, NULL);
	return n;
}

static void queries(void)
{
	cl_int err;
	cl_kernel k;
	cl_uint nargs = 0, kref = 0, pref = 0;
	size_t nkernels = 0, sizes = 0, wg = 0, n = 0;
	unsigned char *bin;
	unsigned long long h = 1469598103934665603ull;
	char name[64];
	float f = 1;
	cl_mem m, mb;
	cl_program mp;
	int out[LOCAL];

	printf("context references at start: %u\n", refs(ctx));
	print_info_str("source", prog, CL_PROGRAM_SOURCE);
	print_info_str("kernel names", prog, CL_PROGRAM_KERNEL_NAMES);
	clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nkernels, &nkernels, NULL);
	clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof sizes, &sizes, NULL);
	bin = malloc(sizes ? sizes : 1);
	clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
	for (size_t i = 0; i < sizes; i++)
		h = (h ^ bin[i]) * 1099511628211ull;
	printf("kernels %zu, binary %zu bytes, fnv-1a %016llx\n", nkernels, sizes, h);
	free(bin);

	k = clCreateKernel(prog, "scatter", &err);
	clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL);
	clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
	printf("kernel %s: %u arguments\n", name, nargs);
	for (cl_uint i = 0; i <= nargs; i++) {
		char an[64] = "";

		err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof an, an, NULL);
		printf("  argument %u: %s (%d)\n", i, an, err);
	}
	m = buffer(4096, NULL);
	printf("set argument 3 (one past the last): %d\n", clSetKernelArg(k, 3, sizeof m, &m));
	printf("set argument 4: %d\n", clSetKernelArg(k, 4, sizeof m, &m));
	printf("set argument 0 with a wrong size: %d\n", clSetKernelArg(k, 0, 3, &m));
	printf("set argument 1 to a float: %d\n", clSetKernelArg(k, 1, sizeof f, &f));
	printf("enqueue with arguments missing: %d\n",
	       clEnqueueNDRangeKernel(q, k, 1, NULL, (size_t[]){64}, NULL, 0, NULL, NULL));
	clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
	printf("work-group size %s\n", wg ? "known" : "unknown");
	clRetainKernel(k);
	clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof kref, &kref, NULL);
	clGetProgramInfo(prog, CL_PROGRAM_REFERENCE_COUNT, sizeof pref, &pref, NULL);
	printf("kernel references %u, program references %u\n", kref, pref);
	clReleaseKernel(k);
	clReleaseKernel(k);
	clReleaseMemObject(m);
	printf("context references now: %u\n", refs(ctx));

	/* the program whose accesses and calls macros hide */
	for (int i = 0; i < LOCAL; i++)
		out[i] = 6 + i % 3;
	mp = build(macro_source, "");
	k = clCreateKernel(mp, "viamacro", &err);
	m = buffer(sizeof out, NULL);
	mb = buffer(sizeof out, out);
	clSetKernelArg(k, 0, sizeof m, &m);
	clSetKernelArg(k, 1, sizeof mb, &mb);
	n = LOCAL;
	clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL);
	clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
	printf("viamacro wrote %d %d %d ... %d\n", out[0], out[1], out[2], out[LOCAL - 1]);
	clReleaseKernel(k);
	clReleaseProgram(mp);
	clReleaseMemObject(m);
	clReleaseMemObject(mb);
	from_binary();
	printf("context references at end: %u\n", refs(ctx));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;

	setup(!strcmp(what, "linked"));
	if (!strcmp(what, "patterns") || !strcmp(what, "linked"))
		patterns(n, 0, 6);
	else if (!strcmp(what, "loop"))
		patterns(n, 1, argc > 3 ? atoi(argv[3]) : 6);
	else if (!strcmp(what, "oob"))
		oob(n);
	else if (!strcmp(what, "pick"))
		pick(n);
	else if (!strcmp(what, "included"))
		included(n);
	else if (!strcmp(what, "fallback"))
		fallback(n);
	else if (!strcmp(what, "vectors"))
		vectors(n);
	else if (!strcmp(what, "queries"))
		queries();
	else {
		fprintf(stderr,
			"usage: mt_prog patterns|linked|loop|oob|included|fallback|pick|queries [N "
			"[TRIP]]\n");
		return 2;
	}
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	printf("context references before release: %u\n", refs(ctx));
	clReleaseContext(ctx);
	return 0;
}
