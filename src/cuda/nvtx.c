/*
 * NVTX capture by injection: every DSO built with the NVTX v3 headers loads
 * NVTX_INJECTION64_PATH (set by `hetrace record`) on its first NVTX call and
 * calls InitializeInjectionNvtx2 with its own function tables, which we fill
 * (once per DSO: never short-cut a second call). No GPU and no CUPTI needed.
 *
 * Mapping onto the annotation API:
 *   push/pop (nvtxRangePush*, nvtxDomainRangePushEx/Pop)
 *       -> region begin/end on the calling thread; a per-thread stack per
 *          domain gives pop its name and NVTX's return levels.
 *   start/end (nvtxRangeStart*, nvtxRangeEnd, domain forms): these may end
 *       on another thread, which a region cannot express, so they are two
 *       instants with the range's name: at start {nvtx_range, phase=start},
 *       at end {nvtx_range, phase=end, duration_ns, start_tid} on the ending
 *       thread. (A core async-range event would show them as one slice.)
 *   marks -> instants.
 *   domains -> names prefixed "DOMAIN: "; the default domain has no prefix.
 *   registered strings -> interned once at registration.
 *   categories -> instant argument `category` (the name given by
 *       nvtx[Domain]NameCategory, else the number); the naming itself is an
 *       instant "nvtx.category" {category, name}.
 *   payloads -> instant argument `payload`; ARGB colours -> `color`.
 *   nvtxNameOsThread -> the thread's name in the trace (applied by the
 *       named thread itself at its next NVTX call when another thread names it).
 * Arguments go on instants only: regions carry a name and nothing else.
 */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "core/recorder.h"
#include "cuda/inject.h"
#include "hetrace/hetrace.h"

#define STACK_MAX    256
#define NAME_MAX_LEN 1024
#define NAMES_CACHE  64

struct nvtxDomainRegistration_st {
	char *name;
	struct nvtxDomainRegistration_st *next;
};

struct nvtxStringRegistration_st {
	uint32_t id; /* interned, domain prefix included */
};

struct category {
	nvtxDomainHandle_t domain;
	uint32_t id;
	char *name;
	struct category *next;
};

struct range {
	nvtxRangeId_t id;
	uint32_t name;
	uint64_t start_ns;
	int tid;
	struct range *next;
};

struct pending_name {
	int tid;
	char *name;
	struct pending_name *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct nvtxDomainRegistration_st *domains;
static struct category *categories;
static struct range *ranges; /* open start/end ranges (usually few) */
static struct pending_name *pending;
static unsigned int pending_gen; /* bumped when another thread's name is queued */
static uint64_t next_range = 1;

static __thread struct {
	int tid;
	unsigned int gen;
	unsigned int depth;
	nvtxDomainHandle_t domain[STACK_MAX];
	uint32_t name[STACK_MAX];
} me;

static __thread struct {
	nvtxDomainHandle_t domain;
	const char *key;
	char *copy;
	uint32_t id;
} cache[NAMES_CACHE];

static int my_tid(void)
{
	if (!me.tid)
		me.tid = (int)gettid();
	return me.tid;
}

/* Applies a name another thread gave this one (nvtxNameOsThread). */
static void adopt_name(void)
{
	struct pending_name **pp, *p;

	if (__builtin_expect(__atomic_load_n(&pending_gen, __ATOMIC_RELAXED) == me.gen, 1))
		return;
	pthread_mutex_lock(&lock);
	me.gen = pending_gen;
	for (pp = &pending; (p = *pp);) {
		if (p->tid == my_tid()) {
			ht_thread_name(p->name);
			*pp = p->next;
			free(p->name);
			free(p);
		} else {
			pp = &p->next;
		}
	}
	pthread_mutex_unlock(&lock);
}

/* UTF-32 (Linux wchar_t) to UTF-8, cut to the buffer. */
static const char *utf8(const wchar_t *w, char *out, size_t cap)
{
	size_t n = 0;

	if (!w)
		return NULL;
	for (; *w && n + 4 < cap; w++) {
		uint32_t c = (uint32_t)*w;

		if (c < 0x80) {
			out[n++] = (char)c;
		} else if (c < 0x800) {
			out[n++] = (char)(0xc0 | c >> 6);
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			out[n++] = (char)(0xe0 | c >> 12);
			out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x110000) {
			out[n++] = (char)(0xf0 | c >> 18);
			out[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
			out[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			out[n++] = (char)(0x80 | (c & 0x3f));
		}
	}
	out[n] = '\0';
	return out;
}

/* Interns "DOMAIN: text" (or text in the default domain). */
static uint32_t intern(nvtxDomainHandle_t d, const char *text)
{
	char buf[NAME_MAX_LEN];

	if (!text)
		text = "";
	if (!d)
		return ht_string_id(text);
	snprintf(buf, sizeof buf, "%s: %s", d->name, text);
	return ht_string_id(buf);
}

/* intern() through a per-thread cache keyed by the caller's string pointer. */
static uint32_t intern_cached(nvtxDomainHandle_t d, const char *text)
{
	unsigned int h;

	if (!text)
		return intern(d, text);
	h = (unsigned int)(((uintptr_t)text >> 3) ^ ((uintptr_t)d >> 4)) & (NAMES_CACHE - 1);
	if (cache[h].key == text && cache[h].domain == d && !strcmp(cache[h].copy, text))
		return cache[h].id;
	free(cache[h].copy);
	cache[h].copy = strdup(text);
	cache[h].key = cache[h].copy ? text : NULL;
	cache[h].domain = d;
	cache[h].id = intern(d, text);
	return cache[h].id;
}

/* Return: the name id of an event's message. */
static uint32_t message_id(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	char buf[NAME_MAX_LEN];

	if (!a)
		return intern(d, "");
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return intern_cached(d, a->message.ascii);
	case NVTX_MESSAGE_TYPE_UNICODE:
		return intern(d, utf8(a->message.unicode, buf, sizeof buf));
	case NVTX_MESSAGE_TYPE_REGISTERED:
		return a->message.registered ? a->message.registered->id : intern(d, "");
	default:
		return intern(d, "");
	}
}

/* Instant arguments from event attributes (category, payload, color). Return: count. */
static unsigned int attr_args(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a,
			      struct ht_arg *out)
{
	unsigned int n = 0;

	if (!a)
		return 0;
	if (a->category) {
		const char *name = NULL;

		pthread_mutex_lock(&lock);
		for (struct category *c = categories; c; c = c->next)
			if (c->domain == d && c->id == a->category)
				name = c->name; /* never freed while the process runs */
		pthread_mutex_unlock(&lock);
		out[n++] =
		    name ? ht_arg_string("category", name) : ht_arg_uint("category", a->category);
	}
	switch (a->payloadType) {
	case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
		out[n++] = ht_arg_uint("payload", a->payload.ullValue);
		break;
	case NVTX_PAYLOAD_TYPE_INT64:
		out[n++] = ht_arg_int("payload", a->payload.llValue);
		break;
	case NVTX_PAYLOAD_TYPE_DOUBLE:
		out[n++] = ht_arg_double("payload", a->payload.dValue);
		break;
	case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
		out[n++] = ht_arg_uint("payload", a->payload.uiValue);
		break;
	case NVTX_PAYLOAD_TYPE_INT32:
		out[n++] = ht_arg_int("payload", a->payload.iValue);
		break;
	case NVTX_PAYLOAD_TYPE_FLOAT:
		out[n++] = ht_arg_double("payload", a->payload.fValue);
		break;
	default:
		break;
	}
	if (a->colorType == NVTX_COLOR_ARGB)
		out[n++] = ht_arg_uint("color", a->color);
	return n;
}

/* ---- push / pop ---- */

static int push(nvtxDomainHandle_t d, uint32_t name)
{
	int level = 0;

	adopt_name();
	for (unsigned int i = 0; i < me.depth && i < STACK_MAX; i++)
		level += me.domain[i] == d;
	if (me.depth < STACK_MAX) {
		me.domain[me.depth] = d;
		me.name[me.depth] = name;
		ht_region_begin_id(name);
	}
	me.depth++;
	return level;
}

static int pop(nvtxDomainHandle_t d)
{
	int level = -1;

	adopt_name();
	if (me.depth > STACK_MAX) {
		me.depth--; /* beyond what we keep: nothing was emitted */
		return (int)me.depth;
	}
	for (unsigned int i = me.depth; i-- > 0;) {
		if (me.domain[i] != d)
			continue;
		level = 0;
		for (unsigned int j = 0; j < i; j++)
			level += me.domain[j] == d;
		ht_region_end_id(me.name[i]);
		memmove(&me.domain[i], &me.domain[i + 1], (me.depth - i - 1) * sizeof me.domain[0]);
		memmove(&me.name[i], &me.name[i + 1], (me.depth - i - 1) * sizeof me.name[0]);
		me.depth--;
		break;
	}
	return level;
}

static int NVTX_API push_a(const char *msg)
{
	return push(NULL, intern_cached(NULL, msg));
}

static int NVTX_API push_w(const wchar_t *msg)
{
	char buf[NAME_MAX_LEN];

	return push(NULL, intern(NULL, utf8(msg, buf, sizeof buf)));
}

static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
	return push(NULL, message_id(NULL, a));
}

static int NVTX_API pop_core(void)
{
	return pop(NULL);
}

static int NVTX_API domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	return push(d, message_id(d, a));
}

static int NVTX_API domain_pop(nvtxDomainHandle_t d)
{
	return pop(d);
}

/* ---- marks ---- */

static void mark(nvtxDomainHandle_t d, uint32_t name, const nvtxEventAttributes_t *a)
{
	struct ht_arg args[4];

	adopt_name();
	ht_instant_id(name, args, attr_args(d, a, args));
}

static void NVTX_API mark_a(const char *msg)
{
	mark(NULL, intern_cached(NULL, msg), NULL);
}

static void NVTX_API mark_w(const wchar_t *msg)
{
	char buf[NAME_MAX_LEN];

	mark(NULL, intern(NULL, utf8(msg, buf, sizeof buf)), NULL);
}

static void NVTX_API mark_ex(const nvtxEventAttributes_t *a)
{
	mark(NULL, message_id(NULL, a), a);
}

static void NVTX_API domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	mark(d, message_id(d, a), a);
}

/* ---- start / end ---- */

static nvtxRangeId_t start(nvtxDomainHandle_t d, uint32_t name, const nvtxEventAttributes_t *a)
{
	struct ht_arg args[6];
	struct range *r = malloc(sizeof *r);
	nvtxRangeId_t id = __atomic_fetch_add(&next_range, 1, __ATOMIC_RELAXED);
	unsigned int n;

	adopt_name();
	args[0] = ht_arg_uint("nvtx_range", id);
	args[1] = ht_arg_string("phase", "start");
	n = 2 + attr_args(d, a, args + 2);
	if (r) {
		*r = (struct range){id, name, ht_now_ns(), my_tid(), NULL};
		pthread_mutex_lock(&lock);
		r->next = ranges;
		ranges = r;
		pthread_mutex_unlock(&lock);
	}
	ht_instant_id(name, args, n);
	return id;
}

static void end(nvtxRangeId_t id)
{
	struct range **pp, *r = NULL;
	uint64_t now = ht_now_ns();

	adopt_name();
	pthread_mutex_lock(&lock);
	for (pp = &ranges; *pp; pp = &(*pp)->next)
		if ((*pp)->id == id) {
			r = *pp;
			*pp = r->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	if (!r)
		return; /* unknown id: NVTX says the behaviour is undefined; we ignore it */
	{
		const struct ht_arg args[] = {
		    ht_arg_uint("nvtx_range", id),
		    ht_arg_string("phase", "end"),
		    ht_arg_uint("duration_ns", now - r->start_ns),
		    ht_arg_int("start_tid", r->tid),
		};

		ht_instant_id(r->name, args, 4);
	}
	free(r);
}

static nvtxRangeId_t NVTX_API start_a(const char *msg)
{
	return start(NULL, intern_cached(NULL, msg), NULL);
}

static nvtxRangeId_t NVTX_API start_w(const wchar_t *msg)
{
	char buf[NAME_MAX_LEN];

	return start(NULL, intern(NULL, utf8(msg, buf, sizeof buf)), NULL);
}

static nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t *a)
{
	return start(NULL, message_id(NULL, a), a);
}

static nvtxRangeId_t NVTX_API domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	return start(d, message_id(d, a), a);
}

static void NVTX_API end_core(nvtxRangeId_t id)
{
	end(id);
}

static void NVTX_API domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d; /* ids are unique across domains */
	end(id);
}

/* ---- names ---- */

static void name_category(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
	struct category *c = malloc(sizeof *c);
	const struct ht_arg args[] = {ht_arg_uint("category", id),
				      ht_arg_string("name", name ? name : "")};

	adopt_name();
	if (c && (c->name = strdup(name ? name : ""))) {
		c->domain = d;
		c->id = id;
		pthread_mutex_lock(&lock);
		c->next = categories; /* newest first: a renamed category takes the new name */
		categories = c;
		pthread_mutex_unlock(&lock);
	} else {
		free(c);
	}
	ht_instant_id(intern(d, "nvtx.category"), args, 2);
}

static void NVTX_API name_category_a(uint32_t id, const char *name)
{
	name_category(NULL, id, name);
}

static void NVTX_API name_category_w(uint32_t id, const wchar_t *name)
{
	char buf[NAME_MAX_LEN];

	name_category(NULL, id, utf8(name, buf, sizeof buf));
}

static void NVTX_API domain_name_category_a(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
	name_category(d, id, name);
}

static void NVTX_API domain_name_category_w(nvtxDomainHandle_t d, uint32_t id, const wchar_t *name)
{
	char buf[NAME_MAX_LEN];

	name_category(d, id, utf8(name, buf, sizeof buf));
}

static void name_thread(uint32_t tid, const char *name)
{
	struct pending_name *p;

	if (!name)
		return;
	if ((int)tid == my_tid()) {
		ht_thread_name(name);
		return;
	}
	p = malloc(sizeof *p);
	if (!p || !(p->name = strdup(name))) {
		free(p);
		return;
	}
	p->tid = (int)tid;
	pthread_mutex_lock(&lock);
	p->next = pending;
	pending = p;
	__atomic_add_fetch(&pending_gen, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
}

static void NVTX_API name_thread_a(uint32_t tid, const char *name)
{
	name_thread(tid, name);
}

static void NVTX_API name_thread_w(uint32_t tid, const wchar_t *name)
{
	char buf[NAME_MAX_LEN];

	name_thread(tid, utf8(name, buf, sizeof buf));
}

/* ---- domains and registered strings ---- */

static nvtxDomainHandle_t domain_create(const char *name)
{
	struct nvtxDomainRegistration_st *d;

	if (!name)
		name = "";
	pthread_mutex_lock(&lock);
	for (d = domains; d; d = d->next)
		if (!strcmp(d->name, name))
			goto out;
	d = malloc(sizeof *d);
	if (d && !(d->name = strdup(name))) {
		free(d);
		d = NULL;
	}
	if (d) {
		d->next = domains;
		domains = d;
	}
out:
	pthread_mutex_unlock(&lock);
	return d;
}

static nvtxDomainHandle_t NVTX_API domain_create_a(const char *name)
{
	return domain_create(name);
}

static nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t *name)
{
	char buf[NAME_MAX_LEN];

	return domain_create(utf8(name, buf, sizeof buf));
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* kept: events already recorded and other DSOs may still name it */
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t d, const char *s)
{
	struct nvtxStringRegistration_st *r = malloc(sizeof *r);

	if (r)
		r->id = intern(d, s);
	return r;
}

static nvtxStringHandle_t NVTX_API register_string_a(nvtxDomainHandle_t d, const char *s)
{
	return register_string(d, s);
}

static nvtxStringHandle_t NVTX_API register_string_w(nvtxDomainHandle_t d, const wchar_t *s)
{
	char buf[NAME_MAX_LEN];

	return register_string(d, utf8(s, buf, sizeof buf));
}

static void NVTX_API initialize(const void *reserved)
{
	(void)reserved;
}

/* ---- injection entry point ---- */

struct slot {
	unsigned int id;
	NvtxFunctionPointer fn;
};

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

static const struct slot core[] = {
    {NVTX_CBID_CORE_MarkEx, FN(mark_ex)},
    {NVTX_CBID_CORE_MarkA, FN(mark_a)},
    {NVTX_CBID_CORE_MarkW, FN(mark_w)},
    {NVTX_CBID_CORE_RangeStartEx, FN(start_ex)},
    {NVTX_CBID_CORE_RangeStartA, FN(start_a)},
    {NVTX_CBID_CORE_RangeStartW, FN(start_w)},
    {NVTX_CBID_CORE_RangeEnd, FN(end_core)},
    {NVTX_CBID_CORE_RangePushEx, FN(push_ex)},
    {NVTX_CBID_CORE_RangePushA, FN(push_a)},
    {NVTX_CBID_CORE_RangePushW, FN(push_w)},
    {NVTX_CBID_CORE_RangePop, FN(pop_core)},
    {NVTX_CBID_CORE_NameCategoryA, FN(name_category_a)},
    {NVTX_CBID_CORE_NameCategoryW, FN(name_category_w)},
    {NVTX_CBID_CORE_NameOsThreadA, FN(name_thread_a)},
    {NVTX_CBID_CORE_NameOsThreadW, FN(name_thread_w)},
};

static const struct slot core2[] = {
    {NVTX_CBID_CORE2_DomainMarkEx, FN(domain_mark_ex)},
    {NVTX_CBID_CORE2_DomainRangeStartEx, FN(domain_start_ex)},
    {NVTX_CBID_CORE2_DomainRangeEnd, FN(domain_end)},
    {NVTX_CBID_CORE2_DomainRangePushEx, FN(domain_push_ex)},
    {NVTX_CBID_CORE2_DomainRangePop, FN(domain_pop)},
    {NVTX_CBID_CORE2_DomainNameCategoryA, FN(domain_name_category_a)},
    {NVTX_CBID_CORE2_DomainNameCategoryW, FN(domain_name_category_w)},
    {NVTX_CBID_CORE2_DomainRegisterStringA, FN(register_string_a)},
    {NVTX_CBID_CORE2_DomainRegisterStringW, FN(register_string_w)},
    {NVTX_CBID_CORE2_DomainCreateA, FN(domain_create_a)},
    {NVTX_CBID_CORE2_DomainCreateW, FN(domain_create_w)},
    {NVTX_CBID_CORE2_DomainDestroy, FN(domain_destroy)},
    {NVTX_CBID_CORE2_Initialize, FN(initialize)},
};

static int fill(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
		const struct slot *slots, unsigned int n)
{
	NvtxFunctionTable table = NULL;
	unsigned int size = 0;

	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
		return -1;
	for (unsigned int i = 0; i < n; i++)
		if (slots[i].id < size && table[slots[i].id])
			*table[slots[i].id] = slots[i].fn;
	return 0;
}

/*
 * Called by the NVTX loader of each DSO that uses NVTX, with that DSO's
 * tables. Return: 1 when attached; 0 (NVTX stays a no-op) when this process
 * is not being recorded or the tables are unusable.
 */
HT_EXPORT int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
	const NvtxExportTableCallbacks *cb;
	const NvtxExportTableVersionInfo *vi;

	/* Regions also while a capture range waits to open. */
	if (!ht_cuda_may_record() || !get_table)
		return 0;
	cb = get_table(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
		return 0;
	if (fill(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]) ||
	    fill(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]))
		return 0;
	vi = get_table(NVTX_ETID_VERSIONINFO);
	if (vi && vi->struct_size >= sizeof *vi && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(NVTX_VERSION);
	return 1;
}
