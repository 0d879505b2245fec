/*
 * Run-time loading of libcupti (see cupti_lib.h). The order of candidates
 * avoids the worst hazard of CUDA tooling: two CUPTI copies in one process
 * (a PyTorch wheel ships its own libcupti.so.13), each believing it owns the
 * process's one subscriber.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cupti_lib.h"

#ifndef HT_CUPTI_BUILD_PATH
#define HT_CUPTI_BUILD_PATH ""
#endif

/* CUPTI_API_VERSION is xxyyzz (13.0 Update 1 = 130001); layouts change with yy. */
#define SAME_LAYOUT(a, b) ((a) / 100 == (b) / 100)

static void *open_candidate(const char *soname, char *why, size_t whylen, char *path,
			    size_t pathlen)
{
	const char *env = getenv("HETRACE_CUPTI_LIBRARY");
	void *h;

	h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
	if (h) {
		snprintf(path, pathlen, "%s (already loaded)", soname);
		return h;
	}
	if (env && *env) {
		h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			snprintf(why, whylen,
				 "cannot load libcupti from HETRACE_CUPTI_LIBRARY='%s'", env);
		snprintf(path, pathlen, "%s", env);
		return h;
	}
	if (HT_CUPTI_BUILD_PATH[0] && (h = dlopen(HT_CUPTI_BUILD_PATH, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(path, pathlen, "%s", HT_CUPTI_BUILD_PATH);
		return h;
	}
	h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		snprintf(why, whylen,
			 "%s not found (install the CUDA toolkit's CUPTI or set "
			 "HETRACE_CUPTI_LIBRARY)",
			 soname);
	snprintf(path, pathlen, "%s", soname);
	return h;
}

int ht_cupti_load(struct ht_cupti *c, char *why, size_t whylen)
{
	char soname[32];
	void *h;

	memset(c, 0, sizeof *c);
	snprintf(soname, sizeof soname, "libcupti.so.%d", CUPTI_API_VERSION / 10000);
	h = open_candidate(soname, why, whylen, c->path, sizeof c->path);
	if (!h)
		return -1;
#define HT_CUPTI_SYM(name, params)                                                                 \
	*(void **)&c->name = dlsym(h, #name);                                                      \
	if (!c->name) {                                                                            \
		snprintf(why, whylen, "%s has no %s", c->path, #name);                             \
		goto err;                                                                          \
	}
	HT_CUPTI_FUNCTIONS(HT_CUPTI_SYM)
#undef HT_CUPTI_SYM
	*(void **)&c->cuptiSubscribe_v2 = dlsym(h, "cuptiSubscribe_v2");
	if (c->cuptiGetVersion(&c->version) != CUPTI_SUCCESS) {
		snprintf(why, whylen, "%s does not report its version", c->path);
		goto err;
	}
	if (!SAME_LAYOUT(c->version, CUPTI_API_VERSION)) {
		snprintf(why, whylen, "%s is CUPTI %u, hetrace was built for %u", c->path,
			 c->version, (unsigned int)CUPTI_API_VERSION);
		goto err;
	}
	return 0;
err:
	/* never dlclose: a half-initialised CUPTI may have started threads */
	return -1;
}

const char *ht_cupti_strerror(const struct ht_cupti *c, CUptiResult r)
{
	const char *s = NULL;

	if (c->cuptiGetResultString && c->cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown CUPTI error";
}
