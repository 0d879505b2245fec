/*
 * cudaProfilerStart/Stop as CUPTI reports them, without a GPU (test
 * cuda_profiler_range): loads libhetrace-cuda.so the way the driver does,
 * against the fake libcupti (FAKE_CUPTI_OK=1), then has the fake run the
 * subscriber around runtime and driver profiler calls between NVTX ranges:
 *   before | cudaProfilerStart inside cudaProfilerStop | after |
 *   cuProfilerStart again cuProfilerStop | last
 *   profiler_prog LIBHETRACE_CUDA LIBFAKECUPTI
 */
#include <cupti.h>
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>

static int (*fire)(int domain, unsigned int cbid, const char *name);

static void range(const char *name)
{
	nvtxRangePushA(name);
	nvtxRangePop();
}

int main(int argc, char **argv)
{
	void *h, *f;
	int (*init)(void);

	if (argc < 3)
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	*(void **)&init = h ? dlsym(h, "InitializeInjection") : NULL;
	if (!init || init() != 1) {
		fprintf(stderr, "profiler_prog: cannot initialise %s\n", argv[1]);
		return 1;
	}
	f = dlopen(argv[2], RTLD_NOW | RTLD_NOLOAD);
	*(void **)&fire = f ? dlsym(f, "fake_cupti_fire") : NULL;
	if (!fire) {
		fprintf(stderr, "profiler_prog: %s is not loaded\n", argv[2]);
		return 1;
	}
	range("before");
	if (fire(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
		 "cudaProfilerStart"))
		return 1;
	range("inside");
	fire(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
	     "cudaProfilerStop");
	range("after");
	fire(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart,
	     "cuProfilerStart");
	range("again");
	fire(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, "cuProfilerStop");
	range("last");
	printf("profiler_prog ok\n");
	return 0;
}
