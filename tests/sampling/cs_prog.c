/*
 * The calling-context test program (tests/sampling): ordinary -O2 -g C built
 * without frame pointers (Debian's default), so unwinding needs DWARF CFI.
 * Two call paths launch two different kernels through one helper:
 *   main -> phase_a -> launch_helper -> clEnqueueNDRangeKernel(kern_a)
 *   main -> phase_b -> launch_helper -> clEnqueueNDRangeKernel(kern_b)
 * kern_b does 4x kern_a's work. Then burn_cpu spins on the CPU for a while
 * (CPU samples land there), and a dlopen'ed plugin (cs_plugin.c) launches
 * kern_a from its own function and burns CPU in its own code.
 *   cs_prog [RUNS [BURN_MS [PLUGIN.so]]]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *src = "__kernel void kern_a(__global float *x, int n) {\n"
			 "  int i = get_global_id(0); float v = x[i];\n"
			 "  for (int k = 0; k < n; k++) v = v * 1.0001f + 0.5f;\n"
			 "  x[i] = v; }\n"
			 "__kernel void kern_b(__global float *x, int n) {\n"
			 "  int i = get_global_id(0); float v = x[i];\n"
			 "  for (int k = 0; k < 4 * n; k++) v = v * 0.9999f + 0.25f;\n"
			 "  x[i] = v; }\n";

static cl_command_queue q;
static cl_kernel ka, kb;
static cl_mem buf;
volatile double sink;

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cl_int e_ = (x);                                                                   \
		if (e_ != CL_SUCCESS) {                                                            \
			fprintf(stderr, "cs_prog: %s: %d\n", #x, e_);                              \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

/* The one helper both paths launch through (not inlined: the report names it). */
__attribute__((noinline)) void launch_helper(cl_kernel k, size_t n)
{
	CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
	sink += 1;
}

__attribute__((noinline)) void phase_a(int runs)
{
	for (int i = 0; i < runs; i++)
		launch_helper(ka, 4096);
	CHECK(clFinish(q));
	sink += runs;
}

__attribute__((noinline)) void phase_b(int runs)
{
	for (int i = 0; i < runs; i++)
		launch_helper(kb, 4096);
	CHECK(clFinish(q));
	sink -= runs;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The CPU-bound function: most CPU samples of the run land here. */
__attribute__((noinline)) void burn_cpu(int ms)
{
	double end = now_ms() + ms, x = 1.0;

	while (now_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 1.0000001 + 1e-9;
	sink = x;
}

/* Handed to the plugin: its kernel launches go through here. */
void cs_launch(int which, size_t n)
{
	CHECK(clEnqueueNDRangeKernel(q, which ? kb : ka, 1, NULL, &n, NULL, 0, NULL, NULL));
	CHECK(clFinish(q));
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 20, burn = argc > 2 ? atoi(argv[2]) : 600, n = 200;
	cl_platform_id p;
	cl_device_id d;
	cl_context ctx;
	cl_program prog;
	cl_int err;

	CHECK(clGetPlatformIDs(1, &p, NULL));
	CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
	ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
	CHECK(err);
	q = clCreateCommandQueue(ctx, d, 0, &err);
	CHECK(err);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &d, NULL, NULL, NULL));
	ka = clCreateKernel(prog, "kern_a", &err);
	CHECK(err);
	kb = clCreateKernel(prog, "kern_b", &err);
	CHECK(err);
	buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096 * sizeof(float), NULL, &err);
	CHECK(err);
	CHECK(clSetKernelArg(ka, 0, sizeof buf, &buf));
	CHECK(clSetKernelArg(ka, 1, sizeof n, &n));
	CHECK(clSetKernelArg(kb, 0, sizeof buf, &buf));
	CHECK(clSetKernelArg(kb, 1, sizeof n, &n));

	phase_a(runs);
	phase_b(runs);
	burn_cpu(burn);
	if (argc > 3) {
		void *h = dlopen(argv[3], RTLD_NOW);
		void (*run)(void (*)(int, size_t), int);

		if (!h) {
			fprintf(stderr, "cs_prog: %s\n", dlerror());
			return 2;
		}
		*(void **)&run = dlsym(h, "plugin_run");
		if (!run)
			return 2;
		run(cs_launch, burn / 2);
		dlclose(h);
	}
	clReleaseMemObject(buf);
	clReleaseKernel(ka);
	clReleaseKernel(kb);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	printf("cs_prog: done\n");
	return 0;
}
