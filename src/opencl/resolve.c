/*
 * Finding the real OpenCL functions, and keeping apps that find them on their
 * own traced.
 *
 * - Exported wrappers call ht_cl_real[i], which starts as a generated
 *   resolver stub: the first call of any function looks every function up in
 *   libOpenCL.so.1 (dlopen + dlsym on that handle, which never finds our own
 *   preloaded definitions). No lock: resolving twice stores the same values.
 * - dlsym() is interposed so that `dlsym(dlopen("libOpenCL.so.1"), "clX")`
 *   returns our wrapper of clX. Every other lookup is passed on as a tail
 *   call, so glibc still sees the caller's return address (RTLD_NEXT keeps
 *   meaning "next after the caller").
 * - clGetExtensionFunctionAddress[ForPlatform] returns our extension wrapper
 *   of a known function and remembers the platform's pointer for it.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/interpose.h"

int ht_cl_api_on;

typedef void *(*dlsym_fn)(void *, const char *);

static dlsym_fn real_dlsym;
static void *libopencl; /* our handle of libOpenCL.so.1 */

static dlsym_fn get_real_dlsym(void)
{
	dlsym_fn f = __atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!f)
		f = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	__atomic_store_n(&real_dlsym, f, __ATOMIC_RELEASE);
	return f;
}

static void *open_libopencl(void)
{
	void *h = __atomic_load_n(&libopencl, __ATOMIC_ACQUIRE);

	if (h)
		return h;
	h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		void *old = NULL;

		/* Keep one reference; a racing thread drops its own. */
		if (!__atomic_compare_exchange_n(&libopencl, &old, h, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			dlclose(h);
			h = old;
		}
	}
	return h;
}

void ht_cl_resolve(void)
{
	void *h = open_libopencl();
	dlsym_fn sym = get_real_dlsym();

	for (unsigned int i = 0; i < HT_CL_FN_COUNT; i++) {
		void *f = NULL;

		if (!ht_cl_fns[i].wrapper)
			continue;
		if (h && sym)
			f = sym(h, ht_cl_fns[i].name);
		/* Never call ourselves: a loader that is us would recurse. */
		if (!f || f == ht_cl_fns[i].wrapper)
			f = ht_cl_fns[i].missing;
		__atomic_store_n(&ht_cl_real[i], f, __ATOMIC_RELEASE);
	}
}

static int find_fn(const char *name)
{
	if (!name || name[0] != 'c' || name[1] != 'l')
		return -1;
	for (int i = 0; i < HT_CL_FN_COUNT; i++)
		if (strcmp(ht_cl_fns[i].name, name) == 0)
			return i;
	return -1;
}

/* Return: the wrapper that replaces `f`, the real function `name` resolved to. */
static void *wrap_ext(const char *name, void *f)
{
	int i = find_fn(name);
	void *old = NULL;

	if (!f || i < 0)
		return f;
	if (ht_cl_fns[i].wrapper && f == __atomic_load_n(&ht_cl_real[i], __ATOMIC_ACQUIRE))
		return ht_cl_fns[i].wrapper;
	if (!ht_cl_fns[i].ext_wrapper)
		return f;
	if (__atomic_compare_exchange_n(&ht_cl_ext_real[i], &old, f, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE) ||
	    old == f)
		return ht_cl_fns[i].ext_wrapper;
	/* Another platform's function: a single slot cannot dispatch both; stay untraced. */
	return f;
}

void *ht_cl_ext_address(cl_platform_id platform, const char *name, int for_platform)
{
	void *f;

	if (for_platform)
		f = HT_CL_REAL(clGetExtensionFunctionAddressForPlatform)(platform, name);
	else
		f = HT_CL_REAL(clGetExtensionFunctionAddress)(name);
	return wrap_ext(name, f);
}

static void *dlsym_slow(void *handle, const char *name)
{
	dlsym_fn sym = get_real_dlsym();
	void *f = sym ? sym(handle, name) : NULL;
	void *h;
	int i;

	if (!f || (i = find_fn(name)) < 0 || !ht_cl_fns[i].wrapper)
		return f;
	/* Only the loader's own exports are replaced, never a vendor library's. */
	h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (h)
		dlclose(h);
	if (h != handle)
		return f;
	return ht_cl_fns[i].wrapper;
}

/*
 * The interposed dlsym. Must stay a tail call on the common path: glibc's
 * dlsym reads its return address to resolve RTLD_NEXT and RTLD_DEFAULT.
 */
HT_CL_EXPORT __attribute__((optimize("optimize-sibling-calls"))) void *
dlsym(void *restrict handle, const char *restrict name)
{
	dlsym_fn sym;

	if (handle != RTLD_NEXT && handle != RTLD_DEFAULT && name[0] == 'c' && name[1] == 'l')
		return dlsym_slow(handle, name);
	sym = __atomic_load_n(&real_dlsym, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!sym, 0))
		sym = get_real_dlsym();
	return sym(handle, name);
}

static int api_enabled(const char *list)
{
	const char *p;

	if (!list)
		return 1;
	for (p = list; (p = strstr(p, "opencl")); p += 6)
		if ((p == list || p[-1] == ',') && (p[6] == ',' || p[6] == '\0'))
			return 1;
	return 0;
}

/* The core frees device streams in a fork child: forget ours and the parent's events. */
static void fork_child(void)
{
	ht_cl_objects_after_fork();
	ht_cl_queues_after_fork();
}

__attribute__((constructor)) static void opencl_load(void)
{
	get_real_dlsym();
	pthread_atfork(NULL, NULL, fork_child);
	if (api_enabled(getenv("HETRACE_API"))) {
		ht_fn_table_register(&ht_cl_fn_table);
		__atomic_store_n(&ht_cl_api_on, 1, __ATOMIC_RELEASE);
	}
}
