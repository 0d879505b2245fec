/*
 * Framework lifecycle of the dispatcher: lazy start on the first API call (read
 * XPTI_TRACE_ENABLE and HETRACE_XPTI_EVENTS, register the default stream "xpti.framework",
 * load the XPTI_SUBSCRIBERS libraries in the order listed), stream announcement to subscribers
 * (xptiTraceInit once per subscriber and stream, upstream calls it on every xptiInitialize;
 * the first announcement also announces the default stream, as upstream does) with the
 * stream's effective detail level, the reference count of xptiFrameworkInitialize/Finalize,
 * and shutdown. Shutdown turns tracing off, waits for notifications in flight (per-thread
 * counters + a process-wide barrier, so the notification path pays no fence), then calls
 * xptiTraceFinish for every stream still open. Subscribers are never unloaded and memory is
 * kept, so nothing can be used after it is gone; API calls after shutdown return inert values.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "subscriber_check.h"
#include "xpti_internal.h"

#define HT_XPTI_MAX_SUBSCRIBERS 64
#define HT_XPTI_CLOSING		3 /* shutdown in progress: still usable, no new notifications */
#define HT_XPTI_DEFAULT_STREAM	"xpti.framework"

struct ht_xpti_subscriber {
	char *path;
	void *handle;
	xpti_plugin_init_t init;
	xpti_plugin_fini_t fini;
	xpti_query_subscriber_stream_detail_level_t detail; /* optional */
};

_Atomic int ht_xpti_state;
_Atomic bool ht_xpti_enabled;
bool ht_xpti_shared_events;
__thread struct ht_xpti_thread *ht_xpti_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t fw_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread bool fw_in_init;
static _Atomic int fw_refs;
static bool fw_membarrier_expedited;

static struct ht_xpti_subscriber fw_subs[HT_XPTI_MAX_SUBSCRIBERS];
static _Atomic int fw_nsubs;
/* Per stream id: bit i set once subscriber i got xptiTraceInit for it. */
static _Atomic uint64_t fw_stream_inited[256];
/* Per stream id: the effective detail level (NORMAL until the stream is announced). */
static _Atomic uint8_t fw_detail[256] = {[0 ... 255] = XPTI_STREAM_DETAIL_LEVEL_NORMAL};
/* The default stream was announced / finished (once each, on the first xptiInitialize /
 * xptiFinalize). */
static _Atomic bool fw_default_announced, fw_default_finished;

static _Atomic(struct ht_xpti_thread *) thr_head;
static pthread_key_t thr_key;
static pthread_once_t thr_once = PTHREAD_ONCE_INIT;

void ht_xpti_warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	for (char *p = line; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	fprintf(stderr, "xpti: %s\n", line);
}

/* ---- per-thread in-flight counters ---- */

static void ht_xpti_thread_exit(void *arg)
{
	struct ht_xpti_thread *t = arg;

	ht_xpti_self = NULL;
	atomic_store_explicit(&t->nest, 0, memory_order_relaxed);
	atomic_store_explicit(&t->in_use, false, memory_order_release);
}

static void ht_xpti_thread_key(void)
{
	pthread_key_create(&thr_key, ht_xpti_thread_exit);
}

struct ht_xpti_thread *ht_xpti_thread_register(void)
{
	struct ht_xpti_thread *t;
	bool free_rec = false;

	pthread_once(&thr_once, ht_xpti_thread_key);
	for (t = atomic_load_explicit(&thr_head, memory_order_acquire); t; t = t->next) {
		free_rec = false;
		if (!atomic_load_explicit(&t->in_use, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&t->in_use, &free_rec, true))
			goto found;
	}
	t = aligned_alloc(64, sizeof(*t));
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	atomic_store_explicit(&t->in_use, true, memory_order_relaxed);
	t->next = atomic_load_explicit(&thr_head, memory_order_relaxed);
	while (!atomic_compare_exchange_weak_explicit(&thr_head, &t->next, t, memory_order_release,
						      memory_order_relaxed))
		;
found:
	atomic_store_explicit(&t->nest, 0, memory_order_relaxed);
	pthread_setspecific(thr_key, t);
	ht_xpti_self = t;
	return t;
}

static uint64_t ht_xpti_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Make every thread's earlier stores visible (the heavy side of the asymmetric fence). */
static void ht_xpti_membarrier(void)
{
	static _Atomic int fence;

	atomic_exchange(&fence, 0); /* a full fence here (a locked instruction; TSan-friendly) */
	if (fw_membarrier_expedited &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
		return;
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) == 0)
		return;
	usleep(1000); /* no membarrier: store buffers drain in far less than this */
}

/* Wait until no other thread is inside a notification (tracing is already off). */
static void ht_xpti_drain(uint64_t timeout_ms)
{
	uint64_t deadline = ht_xpti_now_ms() + timeout_ms;
	struct ht_xpti_thread *self = ht_xpti_self;

	ht_xpti_membarrier();
	for (struct ht_xpti_thread *t = atomic_load_explicit(&thr_head, memory_order_acquire); t;
	     t = t->next) {
		if (t == self)
			continue;
		while (atomic_load_explicit(&t->nest, memory_order_acquire)) {
			if (ht_xpti_now_ms() > deadline) {
				ht_xpti_warn("finalize: a thread is still inside a callback after "
					     "%llu ms; continuing without it",
					     (unsigned long long)timeout_ms);
				return;
			}
			sched_yield();
		}
	}
}

/* ---- start-up ---- */

static bool ht_xpti_env_enabled(void)
{
	const char *v = getenv("XPTI_TRACE_ENABLE");

	if (!v)
		return true; /* upstream behaviour: unset means enabled */
	if (!strcmp(v, "1") || !strcasecmp(v, "true"))
		return true;
	if (!strcmp(v, "0") || !strcasecmp(v, "false"))
		return false;
	ht_xpti_warn("XPTI_TRACE_ENABLE='%.64s' is not 1, true, 0 or false; tracing disabled", v);
	return false;
}

static void ht_xpti_load_subscriber(const char *path)
{
	struct ht_xpti_subscriber *s;
	char real[PATH_MAX], why[256];
	int n = atomic_load_explicit(&fw_nsubs, memory_order_relaxed);
	void *h;

	if (!realpath(path, real)) {
		ht_xpti_warn("subscriber '%s' skipped: %s", path, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(fw_subs[i].path, real))
			return; /* listed twice */
	if (n == HT_XPTI_MAX_SUBSCRIBERS) {
		ht_xpti_warn("subscriber '%s' skipped: more than %d subscribers", path,
			     HT_XPTI_MAX_SUBSCRIBERS);
		return;
	}
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		ht_xpti_warn("subscriber '%s' skipped: %s", path, dlerror());
		return;
	}
	s = &fw_subs[n];
	*(void **)&s->init = dlsym(h, "xptiTraceInit");
	*(void **)&s->fini = dlsym(h, "xptiTraceFinish");
	*(void **)&s->detail = dlsym(h, "xptiQuerySubscriberStreamDetailLevel");
	s->path = strdup(real);
	if (!s->path || ht_xpti_subscriber_check(real, s->init && s->fini, why, sizeof(why)) != 0) {
		ht_xpti_warn("subscriber '%s' skipped: %s", path, s->path ? why : strerror(ENOMEM));
		free(s->path);
		memset(s, 0, sizeof(*s));
		dlclose(h);
		return;
	}
	s->handle = h;
	atomic_store_explicit(&fw_nsubs, n + 1, memory_order_release);
}

/* Load XPTI_SUBSCRIBERS in list order; blanks around names and empty entries are ignored. */
static void ht_xpti_load_subscribers(void)
{
	const char *list = getenv("XPTI_SUBSCRIBERS");
	char *copy, *tok, *save = NULL;

	if (!list || !list[0])
		return;
	copy = strdup(list);
	if (!copy)
		return;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end = tok + strlen(tok);

		while (*tok == ' ' || *tok == '\t')
			tok++;
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*tok)
			ht_xpti_load_subscriber(tok);
	}
	free(copy);
}

/* HETRACE_XPTI_EVENTS: "instance" (Intel's model, the default) or "shared". */
static bool ht_xpti_env_shared_events(void)
{
	const char *v = getenv("HETRACE_XPTI_EVENTS");

	if (!v || !v[0] || !strcmp(v, "instance"))
		return false;
	if (!strcmp(v, "shared"))
		return true;
	ht_xpti_warn("HETRACE_XPTI_EVENTS='%.64s' is not instance or shared; using instance", v);
	return false;
}

static void ht_xpti_shutdown(uint64_t drain_ms);

static void ht_xpti_at_exit(void)
{
	ht_xpti_shutdown(100);
}

bool ht_xpti_live_slow(void)
{
	int s, uninit = HT_XPTI_UNINIT;
	bool on;

	if (fw_in_init)
		return true; /* a subscriber's constructor calling back while it is loaded */
	s = atomic_load_explicit(&ht_xpti_state, memory_order_acquire);
	if (s != HT_XPTI_UNINIT)
		return s == HT_XPTI_LIVE || s == HT_XPTI_CLOSING;
	pthread_mutex_lock(&fw_lock);
	if (atomic_load_explicit(&ht_xpti_state, memory_order_acquire) == HT_XPTI_UNINIT) {
		fw_in_init = true;
		fw_membarrier_expedited =
		    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
		ht_xpti_shared_events = ht_xpti_env_shared_events();
		xptiSetDefaultStreamID(xptiRegisterStream(HT_XPTI_DEFAULT_STREAM));
		on = ht_xpti_env_enabled();
		if (on)
			ht_xpti_load_subscribers();
		atomic_store(&ht_xpti_enabled,
			     on && atomic_load_explicit(&fw_nsubs, memory_order_relaxed) > 0);
		if (atomic_compare_exchange_strong(&ht_xpti_state, &uninit, HT_XPTI_LIVE))
			atexit(ht_xpti_at_exit);
		fw_in_init = false;
	}
	pthread_mutex_unlock(&fw_lock);
	s = atomic_load_explicit(&ht_xpti_state, memory_order_acquire);
	return s == HT_XPTI_LIVE || s == HT_XPTI_CLOSING;
}

bool ht_xpti_is_live(void)
{
	return ht_xpti_live();
}

/* ---- streams ---- */

static void ht_xpti_stream_finish(uint8_t sid)
{
	uint64_t bits = atomic_exchange(&fw_stream_inited[sid], 0);
	int n = atomic_load_explicit(&fw_nsubs, memory_order_acquire);
	const char *name = ht_xpti_stream_name(sid);

	for (int i = 0; i < n; i++)
		if (bits & (1ULL << i))
			fw_subs[i].fini(name);
}

/* xptiTraceInit for the subscribers that have not seen the stream, then its detail level:
 * the highest any subscriber asks for (NORMAL when it does not say), NONE without any. */
static void ht_xpti_stream_announce(uint8_t sid, uint32_t maj, uint32_t min, const char *version)
{
	const char *name = ht_xpti_stream_name(sid);
	int n = atomic_load_explicit(&fw_nsubs, memory_order_acquire);
	uint8_t level = XPTI_STREAM_DETAIL_LEVEL_NONE;

	for (int i = 0; i < n; i++) {
		uint64_t bit = 1ULL << i;
		xpti_stream_detail_level_t want = XPTI_STREAM_DETAIL_LEVEL_NORMAL;

		/* Claim the (subscriber, stream) pair first: init runs once, with no lock held. */
		if (!(atomic_fetch_or(&fw_stream_inited[sid], bit) & bit))
			fw_subs[i].init(maj, min, version, name);
		if (fw_subs[i].detail && !fw_subs[i].detail(name, &want))
			want = XPTI_STREAM_DETAIL_LEVEL_NORMAL;
		if (want > XPTI_STREAM_DETAIL_LEVEL_VERBOSE)
			want = XPTI_STREAM_DETAIL_LEVEL_VERBOSE;
		if (want > level)
			level = want;
	}
	atomic_store_explicit(&fw_detail[sid], level, memory_order_release);
}

XPTI_EXPORT_API xpti_result_t xptiInitialize(const char *stream, uint32_t maj, uint32_t min,
					     const char *version)
{
	uint8_t sid;

	if (!stream || !stream[0] || !version)
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_live())
		return XPTI_RESULT_FAIL;
	sid = xptiRegisterStream(stream);
	if (sid == XPTI_INVALID_STREAM_ID)
		return XPTI_RESULT_FAIL;
	if (!atomic_exchange(&fw_default_announced, true))
		ht_xpti_stream_announce(ht_xpti_stream_find(HT_XPTI_DEFAULT_STREAM), 1, 0, "1.0.0");
	ht_xpti_stream_announce(sid, maj, min, version);
	return XPTI_RESULT_SUCCESS;
}

XPTI_EXPORT_API xpti_stream_detail_level_t xptiGetEffectiveStreamDetailLevel(uint8_t stream)
{
	return atomic_load_explicit(&fw_detail[stream], memory_order_acquire);
}

XPTI_EXPORT_API xpti_result_t xptiUnregisterStream(const char *stream_name)
{
	uint8_t sid;

	if (!stream_name || !stream_name[0])
		return XPTI_RESULT_INVALIDARG;
	if (!ht_xpti_live())
		return XPTI_RESULT_FAIL;
	sid = ht_xpti_stream_find(stream_name);
	if (!sid)
		return XPTI_RESULT_NOTFOUND;
	ht_xpti_stream_finish(sid);
	return ht_xpti_callbacks_disable_stream(sid) ? XPTI_RESULT_SUCCESS : XPTI_RESULT_NOTFOUND;
}

XPTI_EXPORT_API void xptiFinalize(const char *stream)
{
	if (ht_xpti_live() && !atomic_exchange(&fw_default_finished, true))
		(void)xptiUnregisterStream(HT_XPTI_DEFAULT_STREAM);
	(void)xptiUnregisterStream(stream);
}

/* ---- lifetime ---- */

XPTI_EXPORT_API void xptiFrameworkInitialize(void)
{
	if (ht_xpti_live())
		atomic_fetch_add(&fw_refs, 1);
}

static void ht_xpti_shutdown(uint64_t drain_ms)
{
	int live = HT_XPTI_LIVE, uninit = HT_XPTI_UNINIT;

	/* Never started: just make sure it never starts. */
	if (atomic_compare_exchange_strong(&ht_xpti_state, &uninit, HT_XPTI_FINALIZED))
		return;
	if (!atomic_compare_exchange_strong(&ht_xpti_state, &live, HT_XPTI_CLOSING))
		return; /* already closing or closed */
	atomic_store(&ht_xpti_enabled, false);
	ht_xpti_drain(drain_ms);
	for (int sid = 1; sid < 255; sid++)
		if (atomic_load_explicit(&fw_stream_inited[sid], memory_order_relaxed))
			ht_xpti_stream_finish((uint8_t)sid);
	atomic_store_explicit(&ht_xpti_state, HT_XPTI_FINALIZED, memory_order_release);
}

XPTI_EXPORT_API void xptiFrameworkFinalize(void)
{
	int r = atomic_load(&fw_refs);

	/* Drop one reference, clamped at 0; an unmatched finalize also shuts down. */
	while (r > 0 && !atomic_compare_exchange_weak(&fw_refs, &r, r - 1))
		;
	if (r > 1)
		return;
	ht_xpti_shutdown(2000);
}

XPTI_EXPORT_API bool xptiTraceEnabled(void)
{
	return ht_xpti_live() && atomic_load_explicit(&ht_xpti_enabled, memory_order_relaxed);
}

XPTI_EXPORT_API void xptiForceSetTraceEnabled(bool yes)
{
	if (ht_xpti_live() &&
	    atomic_load_explicit(&ht_xpti_state, memory_order_acquire) == HT_XPTI_LIVE)
		atomic_store(&ht_xpti_enabled, yes);
}

XPTI_EXPORT_API void xptiTraceTryToEnable(void)
{
	/* Proxy only: the dispatcher is, by definition, already loaded. */
}

XPTI_EXPORT_API void xptiReset(void)
{
	if (!ht_xpti_live())
		return;
	ht_xpti_callbacks_reset();
	ht_xpti_events_reset();
	ht_xpti_points_reset();
	ht_xpti_strings_reset();
	ht_xpti_pool_release_all();
	for (int i = 0; i < 256; i++) {
		atomic_store(&fw_stream_inited[i], 0);
		atomic_store(&fw_detail[i], XPTI_STREAM_DETAIL_LEVEL_NORMAL);
	}
	atomic_store(&fw_default_announced, false);
	atomic_store(&fw_default_finished, false);
	ht_xpti_defaults_reset(xptiRegisterStream(HT_XPTI_DEFAULT_STREAM));
}

XPTI_EXPORT_API void xptiGetVersion(uint32_t *major, uint32_t *minor, uint32_t *patch)
{
	if (major)
		*major = XPTI_VERSION_MAJOR;
	if (minor)
		*minor = XPTI_VERSION_MINOR;
	if (patch)
		*patch = XPTI_VERSION_PATCH;
}
