/*
 * An OpenCL program for sessions: a kernel and a blocking read every 2 ms
 * until FILE exists (60 s at most), so a test can watch its device
 * commands land in consecutive sessions while it runs.
 *   session_cl FILE    prints "ready" once the first command completed
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static const char *source = "__kernel void inc(__global int *a) { a[get_global_id(0)] += 1; }";

int main(int argc, char **argv)
{
	struct timespec nap = {0, 2000000};
	size_t g = 256;
	int host[256];
	cl_platform_id p;
	cl_device_id d;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k;
	cl_mem b;
	cl_int e;

	if (argc < 2 || clGetPlatformIDs(1, &p, NULL) ||
	    clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL)) {
		fprintf(stderr, "session_cl: no OpenCL device\n");
		return 77;
	}
	ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
	q = clCreateCommandQueueWithProperties(ctx, d, NULL, &e);
	prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &e);
	if (clBuildProgram(prog, 1, &d, NULL, NULL, NULL))
		return 1;
	k = clCreateKernel(prog, "inc", &e);
	b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &e);
	clSetKernelArg(k, 0, sizeof b, &b);
	for (int i = 0; i < 30000 && access(argv[1], F_OK); i++) {
		clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL);
		clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL);
		if (i == 0) {
			puts("ready");
			fflush(stdout);
		}
		nanosleep(&nap, NULL);
	}
	clReleaseMemObject(b);
	clReleaseKernel(k);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	return 0;
}
