/*
 * Test program for the analysis on real OpenCL traces: N iterations of
 * {write a, write b, kernel `scale`, blocking read}, each followed by an
 * annotated CPU region "cpu_work" during which the device has nothing to do,
 * so the report's GPU-idleness blame must put that region first.
 *   cl_loop N
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <hetrace/hetrace.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
	"__kernel void scale(__global float *a, __global const float *b)\n"
	"{ size_t i = get_global_id(0); float x = a[i];\n"
	"  for (int k = 0; k < 64; k++) x = x * 0.5f + b[i];\n"
	"  a[i] = x; }\n";

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	size_t len = 1 << 16, g = len;
	float *h = malloc(len * sizeof *h);
	cl_platform_id p;
	cl_device_id d;
	cl_int e;
	volatile double sink = 0;

	for (size_t i = 0; i < len; i++)
		h[i] = (float)i;
	if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL))
		return 1;
	cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &e);
	cl_program pr = clCreateProgramWithSource(c, 1, &source, NULL, &e);

	if (clBuildProgram(pr, 1, &d, "", NULL, NULL))
		return 1;
	cl_kernel k = clCreateKernel(pr, "scale", &e);
	cl_mem a = clCreateBuffer(c, CL_MEM_READ_WRITE, len * 4, NULL, &e);
	cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, len * 4, NULL, &e);

	clSetKernelArg(k, 0, sizeof a, &a);
	clSetKernelArg(k, 1, sizeof b, &b);
	for (int it = 0; it < n; it++) {
		clEnqueueWriteBuffer(q, a, CL_FALSE, 0, len * 4, h, 0, NULL, NULL);
		clEnqueueWriteBuffer(q, b, CL_FALSE, 0, len * 4, h, 0, NULL, NULL);
		clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
		clEnqueueReadBuffer(q, a, CL_TRUE, 0, len * 4, h, 0, NULL, NULL);
		HT_REGION_BEGIN("cpu_work");
		for (int i = 0; i < 3000000; i++)
			sink += i * 0.5;
		HT_REGION_END("cpu_work");
	}
	clFinish(q);
	printf("cl_loop: %d iterations, h[3]=%g\n", n, (double)h[3]);
	return 0;
}
