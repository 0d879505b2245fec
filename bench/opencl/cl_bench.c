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
 * With "inproc", run under `hetrace record`, it measures hetrace's own share
 * inside one process: blocks of kernel + clFinish (and of blocking 4 KiB
 * reads) alternate between recorded and not recorded (ht_active, the flag
 * the wrappers test, cleared for a block), and the unrecorded blocks do the
 * profiled work above themselves. Blocks last ~1 ms, so a slow phase of the
 * machine (they last seconds here) hits both sides of a pair alike; it
 * prints the median over pairs of the per-call difference.
 *
 *   cl_bench [SCALE [profiled|inproc]]   SCALE multiplies the iteration counts (default 1)
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

/* hetrace's recording flag (hetrace.h), present when run under `hetrace record`. */
extern int ht_active __attribute__((weak));
/* the recorder's calling-context hook (core/source.h), set by --callstacks=launch|all */
extern void (*ht_api_stack_hook)(void) __attribute__((weak));

/* main, STACK_DEPTH - 2 levels of nested() and stack_block(): the frames above a launch */
#define STACK_DEPTH 10

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One block of `n` kernel + clFinish (read: blocking 4 KiB reads); ns per call. */
static double block(cl_command_queue q, cl_kernel k, cl_mem b, void *host, int read, long n,
		    int recorded)
{
	size_t gsz = 64;
	cl_event ev = NULL, *evp = recorded ? NULL : &ev;
	double t;

	__atomic_store_n(&ht_active, recorded, __ATOMIC_RELAXED);
	t = now_ns();
	for (long i = 0; i < n; i++) {
		if (read)
			clEnqueueReadBuffer(q, b, CL_TRUE, 0, 4096, host, 0, NULL, evp);
		else
			clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, NULL, 0, NULL, evp);
		if (!read)
			clFinish(q);
		collect(ev);
		ev = NULL;
	}
	t = (now_ns() - t) / n;
	__atomic_store_n(&ht_active, 1, __ATOMIC_RELAXED);
	return t;
}

/* The inproc mode (see the top); `pairs` block pairs per test, order alternating. */
static int inproc(cl_command_queue q, cl_kernel k, cl_mem b, void *host, int pairs)
{
	static const char *const names[2] = {"inproc_kernel_share", "inproc_read4k_share"};
	double *diff = malloc(pairs * sizeof *diff);

	if (!&ht_active || !ht_active || !diff) {
		fprintf(stderr, "cl_bench: inproc needs to run under `hetrace record`\n");
		free(diff);
		return 1;
	}
	for (int read = 0; read < 2; read++) {
		for (int i = 0; i < pairs; i++) {
			double on, off;

			if (i & 1) {
				off = block(q, k, b, host, read, 2000, 0);
				on = block(q, k, b, host, read, 2000, 1);
			} else {
				on = block(q, k, b, host, read, 2000, 1);
				off = block(q, k, b, host, read, 2000, 0);
			}
			diff[i] = on - off;
		}
		qsort(diff, pairs, sizeof *diff, cmp_double);
		printf("%s %.1f\n", names[read], diff[pairs / 2]);
	}
	free(diff);
	return 0;
}

/* `n` kernel + clFinish with `depth` more frames of nested() above; ns per launch. */
static __attribute__((noinline)) double nested(int depth, cl_command_queue q, cl_kernel k, long n)
{
	size_t gsz = 64;
	double t;

	if (depth > 0) {
		t = nested(depth - 1, q, k, n);
		__asm__ volatile("" ::: "memory"); /* not a tail call: the frame stays */
		return t;
	}
	t = now_ns();
	for (long i = 0; i < n; i++) {
		clEnqueueNDRangeKernel(q, k, 1, NULL, &gsz, NULL, 0, NULL, NULL);
		clFinish(q);
	}
	return (now_ns() - t) / n;
}

static __attribute__((noinline)) double stack_block(cl_command_queue q, cl_kernel k, int on,
						    void (*hook)(void))
{
	double t;

	ht_api_stack_hook = on ? hook : NULL;
	t = nested(STACK_DEPTH - 3, q, k, 200);
	ht_api_stack_hook = hook;
	return t;
}

/* The stacks mode (see the top); `pairs` block pairs, order alternating. */
static int stacks(cl_command_queue q, cl_kernel k, int pairs)
{
	void (*hook)(void) = &ht_api_stack_hook ? ht_api_stack_hook : NULL;
	double *diff = malloc(pairs * sizeof *diff);

	if (!hook || !diff) {
		fprintf(stderr, "cl_bench: stacks needs `hetrace record --callstacks=launch`\n");
		free(diff);
		return 1;
	}
	for (int i = 0; i < pairs; i++) {
		double on, off;

		if (i & 1) {
			off = stack_block(q, k, 0, hook);
			on = stack_block(q, k, 1, hook);
		} else {
			on = stack_block(q, k, 1, hook);
			off = stack_block(q, k, 0, hook);
		}
		diff[i] = on - off;
	}
	qsort(diff, pairs, sizeof *diff, cmp_double);
	printf("callstack_kernel_share %.1f\n", diff[pairs / 2]);
	free(diff);
	return 0;
}

int main(int argc, char **argv)
{
	double scale = argc > 1 ? atof(argv[1]) : 1.0, t;
	cl_platform_id p;
	cl_device_id d;
	cl_uint n;
	cl_int err;
	int mode_inproc;
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
	mode_inproc = argc > 2 && !strcmp(argv[2], "inproc");
	cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
	cl_command_queue q =
	    clCreateCommandQueueWithProperties(ctx, d, profiled ? props : NULL, &err);
	cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
	cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	clBuildProgram(prog, 1, &d, NULL, NULL, NULL);
	cl_kernel k = clCreateKernel(prog, "nop", &err);
	clSetKernelArg(k, 0, sizeof b, &b);
	clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);
	if (mode_inproc)
		return inproc(q, k, b, host, (int)(100 * scale) | 1);
	if (argc > 2 && !strcmp(argv[2], "stacks"))
		return stacks(q, k, (int)(100 * scale) | 1);

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
