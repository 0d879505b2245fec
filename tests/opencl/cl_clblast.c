/*
 * A CLBlast client (test opencl_clblast): a library that builds its own
 * kernels from generated source, reuses a program cache, launches through
 * events it waits on, and may pick different kernels for one routine by
 * size. SAXPY over N floats, then SGEMM of two M x M matrices (row-major),
 * from integer-valued inputs so every product is exact in float; prints
 * checksums that traced and untraced runs must print alike, and the
 * number of routines that ran.
 *
 *   cl_clblast [N M]      (defaults 4096 64)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <stdio.h>
#include <stdlib.h>

static int die(const char *what, int code)
{
	fprintf(stderr, "cl_clblast: %s failed (%d)\n", what, code);
	return 1;
}

int main(int argc, char **argv)
{
	size_t n = argc > 2 ? strtoul(argv[1], NULL, 10) : 4096;
	size_t m = argc > 2 ? strtoul(argv[2], NULL, 10) : 64;
	cl_platform_id platform;
	cl_device_id device;
	cl_context ctx;
	cl_command_queue q;
	cl_mem x, y, a, b, c;
	cl_event ev = NULL;
	cl_int err;
	float *hx = malloc(n * sizeof *hx), *hy = malloc(n * sizeof *hy);
	float *ha = malloc(m * m * sizeof *ha), *hb = malloc(m * m * sizeof *hb),
	      *hc = calloc(m * m, sizeof *hc);
	double sum_y = 0, sum_c = 0, trace_c = 0;
	int st;

	if (!hx || !hy || !ha || !hb || !hc || !n || !m)
		return die("allocation", 0);
	for (size_t i = 0; i < n; i++) {
		hx[i] = (float)(i % 17);
		hy[i] = (float)(i % 5);
	}
	for (size_t i = 0; i < m * m; i++) {
		ha[i] = (float)(i % 7) - 3;
		hb[i] = (float)(i % 11) - 5;
	}
	if ((err = clGetPlatformIDs(1, &platform, NULL)))
		return die("clGetPlatformIDs", err);
	if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL)))
		return die("clGetDeviceIDs", err);
	ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
	if (!ctx)
		return die("clCreateContext", err);
	q = clCreateCommandQueue(ctx, device, 0, &err);
	if (!q)
		return die("clCreateCommandQueue", err);
	x = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof *hx, hx, &err);
	y = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *hy, hy, &err);
	a = clCreateBuffer(ctx, CL_MEM_READ_ONLY, m * m * sizeof *ha, NULL, &err);
	b = clCreateBuffer(ctx, CL_MEM_READ_ONLY, m * m * sizeof *hb, NULL, &err);
	c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, m * m * sizeof *hc, NULL, &err);
	if (!x || !y || !a || !b || !c)
		return die("clCreateBuffer", err);
	if ((err = clEnqueueWriteBuffer(q, a, CL_FALSE, 0, m * m * sizeof *ha, ha, 0, NULL, NULL)) ||
	    (err = clEnqueueWriteBuffer(q, b, CL_FALSE, 0, m * m * sizeof *hb, hb, 0, NULL, NULL)) ||
	    (err = clEnqueueWriteBuffer(q, c, CL_FALSE, 0, m * m * sizeof *hc, hc, 0, NULL, NULL)))
		return die("clEnqueueWriteBuffer", err);

	st = CLBlastSaxpy(n, 2.0f, x, 0, 1, y, 0, 1, &q, &ev);
	if (st != CLBlastSuccess)
		return die("CLBlastSaxpy", st);
	clWaitForEvents(1, &ev);
	clReleaseEvent(ev);
	st = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, m, m,
			  1.0f, a, 0, m, b, 0, m, 0.0f, c, 0, m, &q, &ev);
	if (st != CLBlastSuccess)
		return die("CLBlastSgemm", st);
	clWaitForEvents(1, &ev);
	clReleaseEvent(ev);
	if ((err = clEnqueueReadBuffer(q, y, CL_TRUE, 0, n * sizeof *hy, hy, 0, NULL, NULL)) ||
	    (err = clEnqueueReadBuffer(q, c, CL_TRUE, 0, m * m * sizeof *hc, hc, 0, NULL, NULL)))
		return die("clEnqueueReadBuffer", err);
	for (size_t i = 0; i < n; i++)
		sum_y += hy[i];
	for (size_t i = 0; i < m * m; i++)
		sum_c += hc[i];
	for (size_t i = 0; i < m; i++)
		trace_c += hc[i * m + i];
	printf("saxpy n=%zu sum=%.1f\n", n, sum_y);
	printf("sgemm m=%zu sum=%.1f trace=%.1f c[0]=%.1f c[last]=%.1f\n", m, sum_c, trace_c,
	       hc[0], hc[m * m - 1]);
	printf("routines: 2\n");
	clReleaseMemObject(x);
	clReleaseMemObject(y);
	clReleaseMemObject(a);
	clReleaseMemObject(b);
	clReleaseMemObject(c);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	free(hx);
	free(hy);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}
