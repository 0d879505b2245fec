/*
 * OpenCL call-cost microbenchmark (seed 000's methodology): times a few
 * synchronous calls, blocking reads of three sizes and kernel + clFinish,
 * and prints the mean cost per call of each, one "NAME NS" line per test.
 * bench/opencl.sh runs it untraced (Base), with the interposer preloaded but
 * not recording (Preload) and recorded (Trace), interleaved.
 *
 * With "profiled" it does itself, untraced, what tracing makes the runtime
 * do per command: a profiling queue, an event per enqueue, its status and
 * four timestamps read after completion, the event released. That run
 * (Pocl-prof) separates the runtime's own profiling cost from hetrace's.
 *
 *   cl_bench [SCALE [profiled]]   SCALE multiplies the iteration counts (default 1)
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int profiled;

/* In profiled mode: what the tracer's collection reads of a finished command, then release. */
static void collect(cl_event ev)
{
	cl_ulong ts;
	cl_int st;

	if (!ev)
		return;
	clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
	for (cl_profiling_info i = CL_PROFILING_COMMAND_QUEUED; i <= CL_PROFILING_COMMAND_END; i++)
		clGetEventProfilingInfo(ev, i, sizeof ts, &ts, NULL);
	clReleaseEvent(ev);
}

static const char *source = "__kernel void nop(__global int *a) { a[get_global_id(0)] += 1; }";

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0, t;
	cl_platform_id p;
	cl_device_id d;
	cl_uint n;
	cl_int err;
	char name[128];
	static char host[1 << 20];
	size_t gsz = 64;
	long iters;
	cl_event ev = NULL, *evp = NULL;
	cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};

	if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL)) {
		fprintf(stderr, "cl_bench: no OpenCL device\n");
		return 1;
	}
	profiled = argc > 2 && !strcmp(argv[2], "profiled");
	if (profiled)
		evp = &ev;
	cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
	cl_command_queue q =
	    clCreateCommandQueueWithProperties(ctx, d, profiled ? props : NULL, &err);
	cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	clBuildProgram(prog, 1, &d, NULL, NULL, NULL);
	cl_kernel k = clCreateKernel(prog, "nop", &err);
	clSetKernelArg(k, 0, sizeof b, &b);
	clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);

	iters = (long)(200000 * scale);
	t = now_ns();
	for (long i = 0; i < iters; i++)
		clGetPlatformIDs(0, NULL, &n);
	printf("clGetPlatformIDs %.1f\n", (now_ns() - t) / iters);

	t = now_ns();
	for (long i = 0; i < iters; i++)
		clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
	printf("clGetDeviceInfo %.1f\n", (now_ns() - t) / iters);

	static const size_t sizes[3] = {4, 4096, 1 << 20};
	static const char *const names[3] = {"read_4B", "read_4KiB", "read_1MiB"};
	for (int s = 0; s < 3; s++) {
		iters = (long)((s < 2 ? 20000 : 500) * scale);
		t = now_ns();
		for (long i = 0; i < iters; i++) {
			clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizes[s], host, 0, NULL, evp);
			collect(ev);
		}
		printf("%s %.1f\n", names[s], (now_ns() - t) / iters);
	}

	iters = (long)(5000 * scale);
	t = now_ns();
	for (long i = 0; i < iters; i++) {
		clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, NULL, 0, NULL, evp);
		clFinish(q);
		collect(ev);
	}
	printf("kernel_finish %.1f\n", (now_ns() - t) / iters);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseMemObject(b);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}
