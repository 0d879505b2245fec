/*
 * The PC-sampling test program (tests/pcsamp): two OpenCL kernels whose
 * time is spent on one known line each of the program string (the lines
 * are numbered in the comments of `src`; pcsamp_pocl.sh asserts them), a
 * third kernel too short to be sampled, and a checksum of every result so
 * that traced and untraced runs can be compared byte for byte.
 *   pcs_prog [N [time]]   N: loop trips per work-item (default 40000); time:
 *                         also print the two hot kernels' time, enqueue to
 *                         clFinish (bench/opencl.sh's pcsampling line)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *src =
    "__kernel void hot_a(__global float *x, int n) {\n"				/* 1 */
    "  int i = get_global_id(0);\n"						/* 2 */
    "  float v = x[i];\n"							/* 3 */
    "  for (int k = 0; k < n; k++) v = v * 1.0001f + 0.5f;\n"			/* 4: hot_a */
    "  x[i] = v;\n"								/* 5 */
    "}\n"									/* 6 */
    "__kernel void hot_b(__global float *x, int n) {\n"				/* 7 */
    "  int i = get_global_id(0);\n"						/* 8 */
    "  float v = x[i] * 0.5f;\n"						/* 9 */
    "  float w = 1.0f;\n"							/* 10 */
    "  for (int k = 0; k < n; k++) w = w * 0.9999f + v;\n"			/* 11: hot_b */
    "  x[i] = w - v;\n"								/* 12 */
    "}\n"									/* 13 */
    "__kernel void tiny(__global float *x) { x[get_global_id(0)] += 1.0f; }\n"; /* 14 */

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cl_int e_ = (x);                                                                   \
		if (e_ != CL_SUCCESS) {                                                            \
			fprintf(stderr, "pcs_prog: %s: %d\n", #x, e_);                             \
			exit(2);                                                                   \
		}                                                                                  \
	} while (0)

#define N_ITEMS 4096

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40000, timed = argc > 2 && !strcmp(argv[2], "time");
	cl_platform_id plat;
	cl_device_id dev;
	cl_int err;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel ka, kb, kt;
	cl_mem buf;
	size_t global = N_ITEMS;
	static float x[N_ITEMS];
	double sum = 0;
	struct timespec t0, t1;

	for (int i = 0; i < N_ITEMS; i++)
		x[i] = (float)(i % 97) / 97.0f;
	CHECK(clGetPlatformIDs(1, &plat, NULL));
	CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
	ka = clCreateKernel(prog, "hot_a", &err);
	CHECK(err);
	kb = clCreateKernel(prog, "hot_b", &err);
	CHECK(err);
	kt = clCreateKernel(prog, "tiny", &err);
	CHECK(err);
	buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
	CHECK(err);
	CHECK(clSetKernelArg(ka, 0, sizeof buf, &buf));
	CHECK(clSetKernelArg(ka, 1, sizeof n, &n));
	CHECK(clSetKernelArg(kb, 0, sizeof buf, &buf));
	CHECK(clSetKernelArg(kb, 1, sizeof n, &n));
	CHECK(clSetKernelArg(kt, 0, sizeof buf, &buf));
	if (timed) { /* PoCL compiles a kernel at its first launch: not in the timed span */
		int zero = 0;

		CHECK(clSetKernelArg(ka, 1, sizeof zero, &zero));
		CHECK(clSetKernelArg(kb, 1, sizeof zero, &zero));
		CHECK(clEnqueueNDRangeKernel(q, ka, 1, NULL, &global, NULL, 0, NULL, NULL));
		CHECK(clEnqueueNDRangeKernel(q, kb, 1, NULL, &global, NULL, 0, NULL, NULL));
		CHECK(clFinish(q));
		CHECK(clSetKernelArg(ka, 1, sizeof n, &n));
		CHECK(clSetKernelArg(kb, 1, sizeof n, &n));
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(clEnqueueNDRangeKernel(q, ka, 1, NULL, &global, NULL, 0, NULL, NULL));
	CHECK(clEnqueueNDRangeKernel(q, kb, 1, NULL, &global, NULL, 0, NULL, NULL));
	CHECK(clFinish(q));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(clEnqueueNDRangeKernel(q, kt, 1, NULL, &global, NULL, 0, NULL, NULL));
	CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
	for (int i = 0; i < N_ITEMS; i++)
		sum += x[i];
	printf("pcs_prog: checksum %.9e first %a last %a\n", sum, x[0], x[N_ITEMS - 1]);
	if (timed)
		printf("pcsampling_kernel_ns %.0f\n",
		       (t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec));
	clReleaseMemObject(buf);
	clReleaseKernel(ka);
	clReleaseKernel(kb);
	clReleaseKernel(kt);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}
