/*
 * Event emitters: the annotation API of hetrace.h and the source-facing
 * functions of recorder.h. Each writes one event through the encoder that
 * tools/gen-format.py generates from events.def (the layout is spelled
 * nowhere else); the hot ones inline it behind a fast path.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "core/config.h"
#include "hetrace/hetrace.h"

/* ---- thread events ---- */

/*
 * Each emitter has a fast path (the thread's stream has room: write the
 * event) and a slow path in a separate function reached by a tail call, so
 * the fast path saves no registers. ht_session_prepare() finds or creates
 * the stream and opens a packet when needed.
 */
static inline uint8_t *header(struct ht_stream *s, uint32_t id, uint64_t t)
{
	return ht_stream_header(s, s->pos, id, t);
}

/*
 * The fast path: the stream has room and the clock is the cycle counter
 * (reading it is one instruction; the clock_gettime fallback is a call,
 * which would cost every event saved registers, so it takes the slow path).
 */
static inline int fast(const struct ht_stream *s, size_t payload)
{
	return __builtin_expect(HT_HAVE_TSC && ht_clock_state.use_tsc &&
				    ht_stream_has_room(s, HT_EH_MAX_SIZE + payload),
				1);
}

static inline uint64_t fast_clock(void)
{
#if HT_HAVE_TSC
	return __rdtsc();
#else
	return 0;
#endif
}

HT_EXPORT_BOUND void (*ht_boundary_hook)(int end);

/* --counters: the values after a begin (end 0) and before an end (1); one load when off. */
static inline void boundary(int end)
{
	void (*hook)(int) = ht_boundary_hook;

	if (__builtin_expect(hook != NULL, 0))
		hook(end);
}

/*
 * Region begin/end share one layout (a string id); the counters one of a
 * string id and 8 value bytes. Both are written by their class's encoder.
 */
static inline void write_u32(struct ht_stream *s, uint32_t id, uint32_t v, uint64_t t)
{
	const struct ht_ev_region_begin e = {.name = v};
	uint8_t *p = header(s, id, t);

	ht_stream_commit(s, ht_ev_region_begin_put(p, &e));
}

static __attribute__((noinline)) void slow_u32(uint32_t id, uint32_t v)
{
	struct ht_stream *s = ht_session_prepare(HT_EV_REGION_BEGIN_SIZE);

	if (s)
		write_u32(s, id, v, ht_clock_raw());
}

static inline void emit_u32(uint32_t id, uint32_t v)
{
	struct ht_stream *s = ht_session_tls_stream();

	if (fast(s, HT_EV_REGION_BEGIN_SIZE))
		write_u32(s, id, v, fast_clock());
	else
		slow_u32(id, v);
}

static inline void write_u32_u64(struct ht_stream *s, uint32_t id, uint32_t a, uint64_t b,
				 uint64_t t)
{
	const struct ht_ev_counter e = {.name = a, .value = (int64_t)b};
	uint8_t *p = header(s, id, t);

	ht_stream_commit(s, ht_ev_counter_put(p, &e));
}

static __attribute__((noinline)) void slow_u32_u64(uint32_t id, uint32_t a, uint64_t b)
{
	struct ht_stream *s = ht_session_prepare(HT_EV_COUNTER_SIZE);

	if (s)
		write_u32_u64(s, id, a, b, ht_clock_raw());
}

static inline void emit_u32_u64(uint32_t id, uint32_t a, uint64_t b)
{
	struct ht_stream *s = ht_session_tls_stream();

	if (fast(s, HT_EV_COUNTER_SIZE))
		write_u32_u64(s, id, a, b, fast_clock());
	else
		slow_u32_u64(id, a, b);
}

/* One layout, two classes each: the shared writers above rely on it. */
_Static_assert(HT_EV_REGION_BEGIN_SIZE == HT_EV_REGION_END_SIZE, "region layouts differ");
_Static_assert(HT_EV_COUNTER_SIZE == HT_EV_COUNTER_DOUBLE_SIZE &&
		   HT_OFF_COUNTER_VALUE == HT_OFF_COUNTER_DOUBLE_VALUE,
	       "counter layouts differ");

/*
 * Regions also reach here while the process only watches for a capture
 * range (ht_watch: ht_active is 0); the range's region opens and closes
 * it. Everything else costs the two tests.
 */
HT_EXPORT void ht_region_begin_id(uint32_t name)
{
	if (__builtin_expect(!__atomic_load_n(&ht_active, __ATOMIC_RELAXED), 0) &&
	    !ht_capture_region_begin(name))
		return;
	emit_u32(HT_EV_REGION_BEGIN, name);
	boundary(0);
}

HT_EXPORT void ht_region_end_id(uint32_t name)
{
	if (__builtin_expect(!__atomic_load_n(&ht_active, __ATOMIC_RELAXED), 0))
		return;
	boundary(1);
	emit_u32(HT_EV_REGION_END, name);
	if (__builtin_expect(name == ht_capture_id, 0))
		ht_capture_region_end();
}

HT_EXPORT void ht_counter_id(uint32_t name, int64_t value)
{
	emit_u32_u64(HT_EV_COUNTER, name, (uint64_t)value);
}

HT_EXPORT void ht_counter_double_id(uint32_t name, double value)
{
	uint64_t bits;

	memcpy(&bits, &value, 8);
	emit_u32_u64(HT_EV_COUNTER_DOUBLE, name, bits);
}

HT_EXPORT void ht_instant_id(uint32_t name, const struct ht_arg *args, unsigned int nargs)
{
	struct ht_stream *s = ht_session_thread_stream();
	struct ht_iarg a[HT_IARGS_MAX];
	struct ht_ev_instant e;

	if (!s)
		return;
	if (nargs > HT_IARGS_MAX)
		nargs = HT_IARGS_MAX;
	/* Interning may write string definitions: do it before reserving. */
	for (unsigned int i = 0; i < nargs; i++) {
		a[i].key = ht_session_intern_cached(s, args[i].key ? args[i].key : "");
		a[i].type = args[i].type <= HT_ARG_STRING ? args[i].type : HT_ARG_UINT;
		if (args[i].type == HT_ARG_STRING)
			a[i].value = ht_session_intern_cached(s, args[i].v.s ? args[i].v.s : "");
		else
			memcpy(&a[i].value, &args[i].v, 8);
	}
	e.name = name;
	e.args_n = (uint8_t)nargs;
	e.args = a;
	HT_WRITE(s, instant, &e);
}

HT_EXPORT uint32_t ht_string_id(const char *str)
{
	return ht_session_intern(str);
}

HT_EXPORT void ht_region_begin_dyn(const char *name)
{
	if (HT_REGIONS_ON())
		ht_region_begin_id(ht_session_intern(name));
}

HT_EXPORT void ht_region_end_dyn(const char *name)
{
	if (HT_REGIONS_ON())
		ht_region_end_id(ht_session_intern(name));
}

HT_EXPORT void ht_instant_dyn(const char *name, const struct ht_arg *args, unsigned int nargs)
{
	if (HT_ENABLED())
		ht_instant_id(ht_session_intern(name), args, nargs);
}

HT_EXPORT void ht_counter_dyn(const char *name, int64_t value)
{
	if (HT_ENABLED())
		ht_counter_id(ht_session_intern(name), value);
}

HT_EXPORT void ht_thread_name(const char *name)
{
	struct ht_ev_thread_info e = {.tid = (int32_t)gettid(), .name = name};
	struct ht_stream *s;

	if (!HT_ENABLED() || !name)
		return;
	s = ht_session_thread_stream();
	if (s)
		HT_WRITE(s, thread_info, &e);
}

/* ---- source events ---- */

HT_EXPORT_BOUND void (*ht_api_stack_hook)(void);
HT_EXPORT_BOUND uint8_t ht_api_stack_fns[65536 / 8];

/* The caller's stack first, for the functions that want it (core/source.h): one load when off. */
static inline void api_stack(uint16_t fn)
{
	if (__builtin_expect(ht_api_stack_hook != NULL, 0) &&
	    (ht_api_stack_fns[fn >> 3] >> (fn & 7) & 1))
		ht_api_stack_hook();
}

HT_EXPORT void ht_emit_call_stack(int mode)
{
	void (*hook)(void) = ht_api_stack_hook;

	if (hook && HT_ENABLED() && ht_session_borrow_config()->callstacks >= mode)
		hook();
}

static inline void write_api_begin(struct ht_stream *s, uint16_t fn, uint64_t t)
{
	const struct ht_ev_api_begin e = {.fn = fn};
	uint8_t *p = header(s, HT_EV_API_BEGIN, t);

	ht_stream_commit(s, ht_ev_api_begin_put(p, &e));
}

static __attribute__((noinline)) uint64_t slow_api_begin(uint16_t fn)
{
	struct ht_stream *s = ht_session_prepare(HT_EV_API_BEGIN_SIZE);
	uint64_t t = ht_clock_raw();

	if (s)
		write_api_begin(s, fn, t);
	return t;
}

HT_EXPORT uint64_t ht_emit_api_begin(uint16_t fn)
{
	struct ht_stream *s;
	uint64_t t;

	api_stack(fn);
	s = ht_session_tls_stream();
	if (!fast(s, HT_EV_API_BEGIN_SIZE)) {
		t = slow_api_begin(fn);
	} else {
		t = fast_clock();
		write_api_begin(s, fn, t);
	}
	boundary(0);
	return t;
}

/*
 * The struct is filled member by member, not by an initializer: a
 * designated initializer would zero the 96-byte decode store that writing
 * never reads (`rep stosq`, ~15 ns to start here).
 */
static inline void write_api_end(struct ht_stream *s, uint16_t fn, int32_t ret,
				 const uint64_t *args, unsigned int nargs, uint64_t t)
{
	struct ht_ev_api_end e;
	uint8_t *p = header(s, HT_EV_API_END, t);

	e.fn = fn;
	e.ret = ret;
	e.args_n = (uint8_t)nargs;
	e.args = args;
	ht_stream_commit(s, ht_ev_api_end_put(p, &e));
}

/* Payload bytes of an api_end with n arguments (what ht_ev_api_end_size says). */
static inline size_t api_end_size(unsigned int n)
{
	return HT_OFF_API_END_ARGS + 1 + 8 * (size_t)n;
}

static __attribute__((noinline)) void slow_api_end(uint16_t fn, int32_t ret, const uint64_t *args,
						   unsigned int nargs)
{
	struct ht_stream *s = ht_session_prepare(api_end_size(nargs));

	if (s)
		write_api_end(s, fn, ret, args, nargs, ht_clock_raw());
}

HT_EXPORT void ht_emit_api_end(uint16_t fn, int32_t ret, const uint64_t *args, unsigned int nargs)
{
	struct ht_stream *s;

	boundary(1);
	s = ht_session_tls_stream();
	if (nargs > HT_FNARGS_MAX)
		nargs = HT_FNARGS_MAX;
	if (fast(s, api_end_size(nargs)))
		write_api_end(s, fn, ret, args, nargs, fast_clock());
	else
		slow_api_end(fn, ret, args, nargs);
}

HT_EXPORT void ht_emit_api_end_at(uint16_t fn, int32_t ret, const uint64_t *args,
				  unsigned int nargs, uint64_t t_raw)
{
	struct ht_stream *s = ht_session_tls_stream();

	if (nargs > HT_FNARGS_MAX)
		nargs = HT_FNARGS_MAX;
	if (t_raw && fast(s, api_end_size(nargs)) && !ht_boundary_hook)
		write_api_end(s, fn, ret, args, nargs, t_raw);
	else
		ht_emit_api_end(fn, ret, args, nargs);
}

HT_EXPORT void ht_emit_lost(enum ht_lost_kind kind, uint64_t count)
{
	const struct ht_ev_lost e = {.kind = (uint8_t)kind, .count = count};
	struct ht_stream *s = ht_session_thread_stream();

	if (s)
		HT_WRITE(s, lost, &e);
}

HT_EXPORT void ht_emit_discarded(uint64_t count)
{
	struct ht_stream *s = ht_session_thread_stream();

	/* Owned by this thread: its next packet (or exit) writes the running total. */
	if (s)
		s->discarded += count;
}

HT_EXPORT struct ht_stream *ht_emit_thread_stream(size_t payload)
{
	struct ht_stream *s = ht_session_tls_stream();

	if (__builtin_expect((uintptr_t)s > (uintptr_t)HT_TLS_DEAD &&
				 ht_stream_has_room(s, HT_EH_MAX_SIZE + payload),
			     1))
		return s;
	return ht_session_prepare(payload);
}

HT_EXPORT uint64_t ht_now_ns(void)
{
	return ht_clock_mono_ns();
}

HT_EXPORT uint64_t ht_now_raw(void)
{
	return ht_clock_raw();
}

/* ---- process-wide definitions ---- */

static int write_device_info(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	(void)strs;
	return HT_WRITE(proc, device_info, (const struct ht_ev_device_info *)arg) ? 0 : -ENOSPC;
}

HT_EXPORT void ht_emit_device_info(uint32_t device, enum ht_device_type type, const char *name,
				   const char *vendor)
{
	struct ht_ev_device_info d = {
	    .device = device, .type = (uint8_t)type, .name = name, .vendor = vendor};

	if (HT_ENABLED())
		ht_session_with_process(write_device_info, &d);
}

static int write_queue_info(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	(void)strs;
	return HT_WRITE(proc, queue_info, (const struct ht_ev_queue_info *)arg) ? 0 : -ENOSPC;
}

HT_EXPORT void ht_emit_queue_info(uint64_t queue, uint32_t device, uint64_t flags)
{
	struct ht_ev_queue_info q = {.queue = queue, .device = device, .flags = flags};

	if (HT_ENABLED())
		ht_session_with_process(write_queue_info, &q);
}

/* ---- device streams ---- */

HT_EXPORT struct ht_stream *ht_device_stream_create(uint32_t device, uint64_t queue)
{
	if (!HT_ENABLED()) {
		errno = ENODEV;
		return NULL;
	}
	return ht_session_stream_create(HT_SC_DEVICE, "device", device, queue);
}

/*
 * The command carries its clock-sync bounds itself (format.h,
 * HT_DC_HOST_BEFORE): host_before is a raw clock value, converted with the
 * timestamps when the packet is RAW, so the enqueue needs no clock_gettime.
 */
HT_EXPORT void ht_emit_device_command(struct ht_stream *s, const struct ht_device_command *c)
{
	if (!s || !(s = ht_session_stream_current(s)))
		return;
	ht_lock_take(&s->lock);
	HT_WRITE_AT(s, device_command, &c->ev, c->seen_raw ? c->seen_raw : ht_clock_raw());
	ht_lock_give(&s->lock);
}

HT_EXPORT void ht_emit_clock_pair(struct ht_stream *s, uint32_t device, uint64_t device_ts,
				  uint64_t host_ns)
{
	const struct ht_ev_clock_pair e = {
	    .device = device, .kind = HT_PAIR_EXACT, .device_ts = device_ts, .host_ns = host_ns};

	if (!s || !(s = ht_session_stream_current(s)))
		return;
	ht_lock_take(&s->lock);
	HT_WRITE(s, clock_pair, &e);
	ht_lock_give(&s->lock);
}
