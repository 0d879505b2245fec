/*
 * Memory-access tracing cost (bench/opencl.sh's memtrace line): a
 * memory-bound kernel, y[i] = a * x[i] + y[i] (two loads and a store per
 * work-item, nothing else), launched ITER times over N floats; prints the
 * median nanoseconds of one launch + clFinish, wall-clock and CPU time of
 * the whole process (the consumer thread's included; on a loaded machine a
 * long launch waits for a CPU more often than a short one, CPU time does
 * not), and the accesses it makes. Run untraced and under `hetrace record
 * --memory-access --mode block` (every access recorded), the ratio is the
 * slowdown.
 *
 *   mt_bench N ITER
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *source = "__kernel void saxpy(float a, __global const float *x, "
			    "__global float *y)\n"
			    "{\n"
			    "\tsize_t i = get_global_id(0);\n"
			    "\ty[i] = a * x[i] + y[i];\n"
			    "}\n";

static double now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1 << 20, local = 64;
	int iter = argc > 2 ? atoi(argv[2]) : 5;
	cl_platform_id plat;
	cl_device_id dev;
	cl_int err;
	cl_context ctx;
	cl_command_queue q;
	cl_program p;
	cl_kernel k;
	cl_mem x, y;
	float a = 2.0f, *host = malloc(n * sizeof *host);
	double *t = malloc((size_t)(iter > 0 ? iter : 1) * sizeof *t);
	double *cpu = malloc((size_t)(iter > 0 ? iter : 1) * sizeof *cpu);

	if (!host || !t || !cpu || iter < 1 || clGetPlatformIDs(1, &plat, NULL) ||
	    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
		return 1;
	for (size_t i = 0; i < n; i++)
		host[i] = (float)(i % 100);
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
	p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	if (clBuildProgram(p, 1, &dev, "", NULL, NULL))
		return 1;
	k = clCreateKernel(p, "saxpy", &err);
	x = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, host, &err);
	y = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, host, &err);
	clSetKernelArg(k, 0, sizeof a, &a);
	clSetKernelArg(k, 1, sizeof x, &x);
	clSetKernelArg(k, 2, sizeof y, &y);
	/* one launch first: PoCL compiles the work-group function for this size */
	clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, NULL);
	clFinish(q);
	for (int i = 0; i < iter; i++) {
		double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);

		clEnqueueNDRangeKernel(q, k, 1, NULL, &n, &local, 0, NULL, NULL);
		clFinish(q);
		t[i] = now_ns(CLOCK_MONOTONIC) - t0;
		cpu[i] = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	qsort(t, (size_t)iter, sizeof *t, cmp);
	qsort(cpu, (size_t)iter, sizeof *cpu, cmp);
	printf("memtrace_kernel_ns %.0f\n", t[iter / 2]);
	printf("memtrace_kernel_cpu_ns %.0f\n", cpu[iter / 2]);
	printf("accesses_per_launch %zu\n", 3 * n);
	printf("launches %d\n", iter + 1);
	clReleaseMemObject(x);
	clReleaseMemObject(y);
	clReleaseKernel(k);
	clReleaseProgram(p);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	free(host);
	free(t);
	free(cpu);
	return 0;
}
