/*
 * vecadd: the bundled OpenCL example. Adds two vectors on the first OpenCL
 * device: builds a kernel, writes both inputs, runs the kernel, reads the
 * sum back and checks it. `hetrace record -- vecadd` shows every API call
 * and, on the device stream, the two writes, the kernel and the read with
 * their device timestamps.
 *
 *   vecadd [N]      N elements (default 1048576)
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source = "__kernel void vecadd(__global const float *a,\n"
			    "                     __global const float *b,\n"
			    "                     __global float *c)\n"
			    "{\n"
			    "\tsize_t i = get_global_id(0);\n"
			    "\tc[i] = a[i] + b[i];\n"
			    "}\n";

static int check(cl_int err, const char *what)
{
	if (err != CL_SUCCESS)
		fprintf(stderr, "vecadd: %s failed: OpenCL error %d\n", what, err);
	return err != CL_SUCCESS;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20, bytes, bad = 0;
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx = NULL;
	cl_command_queue q = NULL;
	cl_program prog = NULL;
	cl_kernel k = NULL;
	cl_mem a = NULL, b = NULL, c = NULL;
	float *ha, *hb, *hc;
	cl_int err;
	int rc = 1;

	if (n == 0)
		n = 1;
	bytes = n * sizeof(float);
	ha = malloc(bytes);
	hb = malloc(bytes);
	hc = malloc(bytes);
	if (!ha || !hb || !hc) {
		fprintf(stderr, "vecadd: out of memory for %zu elements\n", n);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ha[i] = (float)i;
		hb[i] = 2.0f * (float)i;
	}
	if (check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs") ||
	    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs"))
		goto out;
	ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	if (check(err, "clCreateContext"))
		goto out;
	q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
	if (check(err, "clCreateCommandQueueWithProperties"))
		goto out;
	prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	if (check(err, "clCreateProgramWithSource") ||
	    check(clBuildProgram(prog, 1, &device, "", NULL, NULL), "clBuildProgram"))
		goto out;
	k = clCreateKernel(prog, "vecadd", &err);
	if (check(err, "clCreateKernel"))
		goto out;
	a = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	b = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
	if (!a || !b || !c) {
		check(err, "clCreateBuffer");
		goto out;
	}
	if (check(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, bytes, ha, 0, NULL, NULL),
		  "clEnqueueWriteBuffer") ||
	    check(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, bytes, hb, 0, NULL, NULL),
		  "clEnqueueWriteBuffer") ||
	    check(clSetKernelArg(k, 0, sizeof a, &a), "clSetKernelArg") ||
	    check(clSetKernelArg(k, 1, sizeof b, &b), "clSetKernelArg") ||
	    check(clSetKernelArg(k, 2, sizeof c, &c), "clSetKernelArg") ||
	    check(clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL),
		  "clEnqueueNDRangeKernel") ||
	    check(clEnqueueReadBuffer(q, c, CL_TRUE, 0, bytes, hc, 0, NULL, NULL),
		  "clEnqueueReadBuffer") ||
	    check(clFinish(q), "clFinish"))
		goto out;
	for (size_t i = 0; i < n; i++)
		bad += hc[i] != 3.0f * (float)i;
	printf("vecadd: %zu elements, %zu wrong: %s\n", n, bad, bad ? "FAILED" : "ok");
	rc = bad != 0;
out:
	if (a)
		clReleaseMemObject(a);
	if (b)
		clReleaseMemObject(b);
	if (c)
		clReleaseMemObject(c);
	if (k)
		clReleaseKernel(k);
	if (prog)
		clReleaseProgram(prog);
	if (q)
		clReleaseCommandQueue(q);
	if (ctx)
		clReleaseContext(ctx);
	free(ha);
	free(hb);
	free(hc);
	return rc;
}
