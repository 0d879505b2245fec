/*
 * Loads libhetrace-cuda.so the way the CUDA driver does (dlopen +
 * InitializeInjection, twice: the driver may call it again) on a machine
 * without a GPU, then uses NVTX: cuda_inject_nogpu checks that a CUPTI
 * problem is one warning and that everything else is still recorded.
 *   inject_prog LIBHETRACE_CUDA
 */
#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h;
	int (*init)(void);

	if (argc < 2)
		return 2;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "inject_prog: %s\n", dlerror());
		return 1;
	}
	*(void **)&init = dlsym(h, "InitializeInjection");
	if (!init || !dlsym(h, "InitializeInjectionNvtx2")) {
		fprintf(stderr, "inject_prog: entry points missing\n");
		return 1;
	}
	if (init() != 1 || init() != 1)
		return 1;
	nvtxRangePushA("after-init");
	nvtxRangePop();
	printf("inject_prog ok\n");
	return 0;
}
