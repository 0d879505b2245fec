/*
 * An app that never links libOpenCL: it dlopens libOpenCL.so.1 and calls
 * through dlsym pointers (opencl_dlopen checks that the calls are traced).
 * A constructor calls OpenCL before main, i.e. possibly before the tracer's
 * own initialisation (it must behave exactly as untraced).
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>

typedef cl_int (*get_platforms_fn)(cl_uint, cl_platform_id *, cl_uint *);
typedef cl_int (*get_devices_fn)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *,
				 cl_uint *);
typedef cl_context (*create_context_fn)(const cl_context_properties *, cl_uint,
					const cl_device_id *, void *, void *, cl_int *);
typedef cl_command_queue (*create_queue_fn)(cl_context, cl_device_id, const cl_queue_properties *,
					    cl_int *);
typedef cl_mem (*create_buffer_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
typedef cl_int (*rw_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
			const cl_event *, cl_event *);
typedef cl_int (*release_fn)(void *);
typedef cl_int (*finish_fn)(cl_command_queue);

static int early_status = 1;

__attribute__((constructor)) static void early(void)
{
	void *h = dlopen("libOpenCL.so.1", RTLD_NOW);
	get_platforms_fn gp = h ? (get_platforms_fn)dlsym(h, "clGetPlatformIDs") : NULL;
	cl_uint n = 0;

	if (gp)
		early_status = gp(0, NULL, &n) == CL_SUCCESS && n > 0 ? 0 : 2;
}

int main(void)
{
	void *h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	cl_platform_id p;
	cl_device_id d;
	cl_int err, in[32], out[32];
	int bad = 0;

	if (!h) {
		fprintf(stderr, "cl_dlopen: %s\n", dlerror());
		return 1;
	}
	get_platforms_fn gp = (get_platforms_fn)dlsym(h, "clGetPlatformIDs");
	get_devices_fn gd = (get_devices_fn)dlsym(h, "clGetDeviceIDs");
	create_context_fn cc = (create_context_fn)dlsym(h, "clCreateContext");
	create_queue_fn cq = (create_queue_fn)dlsym(h, "clCreateCommandQueueWithProperties");
	create_buffer_fn cb = (create_buffer_fn)dlsym(h, "clCreateBuffer");
	rw_fn wr = (rw_fn)dlsym(h, "clEnqueueWriteBuffer");
	rw_fn rd = (rw_fn)dlsym(h, "clEnqueueReadBuffer");
	finish_fn fin = (finish_fn)dlsym(h, "clFinish");
	release_fn rm = (release_fn)dlsym(h, "clReleaseMemObject");
	release_fn rq = (release_fn)dlsym(h, "clReleaseCommandQueue");
	release_fn rc = (release_fn)dlsym(h, "clReleaseContext");

	printf("early: %d\n", early_status);
	printf("missing symbol: %d\n", dlsym(h, "clNoSuchFunction") == NULL);
	if (!gp || !gd || !cc || !cq || !cb || !wr || !rd || !fin || !rm || !rq || !rc)
		return 1;
	printf("platforms: %d\n", gp(1, &p, NULL));
	printf("devices: %d\n", gd(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
	cl_context ctx = cc(NULL, 1, &d, NULL, NULL, &err);
	cl_command_queue q = cq(ctx, d, NULL, &err);
	cl_mem b = cb(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
	for (int i = 0; i < 32; i++)
		in[i] = i * i;
	printf("write: %d\n", wr(q, b, CL_FALSE, 0, sizeof in, in, 0, NULL, NULL));
	printf("read: %d\n", rd(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
	printf("finish: %d\n", fin(q));
	for (int i = 0; i < 32; i++)
		bad += out[i] != in[i];
	printf("wrong: %d\n", bad);
	rm(b);
	rq(q);
	rc(ctx);
	dlclose(h);
	return bad != 0;
}
