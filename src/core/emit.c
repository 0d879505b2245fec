/*
 * Event emitters: the annotation API of hetrace.h and the source-facing
 * functions of recorder.h. Each writes one event with the layout that
 * format.c describes (a unit test decodes their output through those tables).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/recorder.h"
#include "core/session.h"
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

static inline void write_u32(struct ht_stream *s, uint32_t id, uint32_t v, uint64_t t)
{
	uint8_t *p = header(s, id, t);

	ht_put32(p, v);
	ht_stream_commit(s, p + 4);
}

static __attribute__((noinline)) void slow_u32(uint32_t id, uint32_t v)
{
	struct ht_stream *s = ht_session_prepare(4);

	if (s)
		write_u32(s, id, v, ht_clock_raw());
}

static inline void emit_u32(uint32_t id, uint32_t v)
{
	struct ht_stream *s = ht_tls_stream;

	if (fast(s, 4))
		write_u32(s, id, v, fast_clock());
	else
		slow_u32(id, v);
}

static inline void write_u32_u64(struct ht_stream *s, uint32_t id, uint32_t a, uint64_t b,
				 uint64_t t)
{
	uint8_t *p = header(s, id, t);

	ht_put32(p, a);
	ht_put64(p + 4, b);
	ht_stream_commit(s, p + 12);
}

static __attribute__((noinline)) void slow_u32_u64(uint32_t id, uint32_t a, uint64_t b)
{
	struct ht_stream *s = ht_session_prepare(12);

	if (s)
		write_u32_u64(s, id, a, b, ht_clock_raw());
}

static inline void emit_u32_u64(uint32_t id, uint32_t a, uint64_t b)
{
	struct ht_stream *s = ht_tls_stream;

	if (fast(s, 12))
		write_u32_u64(s, id, a, b, fast_clock());
	else
		slow_u32_u64(id, a, b);
}

HT_EXPORT void ht_region_begin_id(uint32_t name)
{
	emit_u32(HT_EV_REGION_BEGIN, name);
}

HT_EXPORT void ht_region_end_id(uint32_t name)
{
	emit_u32(HT_EV_REGION_END, name);
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
	uint32_t keys[HT_IARGS_MAX];
	uint64_t vals[HT_IARGS_MAX];
	uint8_t *p;

	if (!s)
		return;
	if (nargs > HT_IARGS_MAX)
		nargs = HT_IARGS_MAX;
	/* Interning may write string definitions: do it before reserving. */
	for (unsigned int i = 0; i < nargs; i++) {
		keys[i] = ht_session_intern_cached(s, args[i].key ? args[i].key : "");
		if (args[i].type == HT_ARG_STRING)
			vals[i] = ht_session_intern_cached(s, args[i].v.s ? args[i].v.s : "");
		else
			memcpy(&vals[i], &args[i].v, 8);
	}
	if (!(p = ht_event_begin(s, HT_EV_INSTANT, 5 + nargs * HT_IARG_SIZE)))
		return;
	ht_put32(p, name);
	p[4] = (uint8_t)nargs;
	p += 5;
	for (unsigned int i = 0; i < nargs; i++, p += HT_IARG_SIZE) {
		ht_put32(p, keys[i]);
		p[4] = args[i].type <= HT_ARG_STRING ? args[i].type : HT_ARG_UINT;
		ht_put64(p + 5, vals[i]);
	}
	ht_stream_commit(s, p);
}

HT_EXPORT uint32_t ht_string_id(const char *str)
{
	return ht_session_intern(str);
}

HT_EXPORT void ht_region_begin_dyn(const char *name)
{
	if (HT_ENABLED())
		ht_region_begin_id(ht_session_intern(name));
}

HT_EXPORT void ht_region_end_dyn(const char *name)
{
	if (HT_ENABLED())
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
	struct ht_stream *s;
	size_t n;
	uint8_t *p;

	if (!HT_ENABLED() || !name)
		return;
	s = ht_session_thread_stream();
	n = ht_str_cut(name, 255);
	if (!s || !(p = ht_event_begin(s, HT_EV_THREAD_INFO, 4 + n + 1)))
		return;
	ht_put32(p, (uint32_t)gettid());
	ht_stream_commit(s, ht_put_str(p + 4, name, n));
}

/* ---- source events ---- */

static inline void write_api_begin(struct ht_stream *s, uint16_t fn, uint64_t t)
{
	uint8_t *p = header(s, HT_EV_API_BEGIN, t);

	ht_put16(p, fn);
	ht_stream_commit(s, p + 2);
}

static __attribute__((noinline)) uint64_t slow_api_begin(uint16_t fn)
{
	struct ht_stream *s = ht_session_prepare(2);
	uint64_t t = ht_clock_raw();

	if (s)
		write_api_begin(s, fn, t);
	return t;
}

HT_EXPORT uint64_t ht_emit_api_begin(uint16_t fn)
{
	struct ht_stream *s = ht_tls_stream;
	uint64_t t;

	if (!fast(s, 2))
		return slow_api_begin(fn);
	t = fast_clock();
	write_api_begin(s, fn, t);
	return t;
}

static inline void write_api_end(struct ht_stream *s, uint16_t fn, int32_t ret,
				 const uint64_t *args, unsigned int nargs, uint64_t t)
{
	uint8_t *p = header(s, HT_EV_API_END, t);

	ht_put16(p, fn);
	ht_put32(p + 2, (uint32_t)ret);
	p[6] = (uint8_t)nargs;
	/* Not memcpy: GCC inlines a bounded one as `rep movsq`, ~15 ns to start here. */
	for (unsigned int i = 0; i < nargs; i++)
		ht_put64(p + 7 + 8 * i, args[i]);
	ht_stream_commit(s, p + 7 + 8 * nargs);
}

static __attribute__((noinline)) void slow_api_end(uint16_t fn, int32_t ret, const uint64_t *args,
						   unsigned int nargs)
{
	struct ht_stream *s = ht_session_prepare(7 + 8 * nargs);

	if (s)
		write_api_end(s, fn, ret, args, nargs, ht_clock_raw());
}

HT_EXPORT void ht_emit_api_end(uint16_t fn, int32_t ret, const uint64_t *args, unsigned int nargs)
{
	struct ht_stream *s = ht_tls_stream;

	if (nargs > HT_FNARGS_MAX)
		nargs = HT_FNARGS_MAX;
	if (fast(s, 7 + 8 * nargs))
		write_api_end(s, fn, ret, args, nargs, fast_clock());
	else
		slow_api_end(fn, ret, args, nargs);
}

HT_EXPORT void ht_emit_api_end_at(uint16_t fn, int32_t ret, const uint64_t *args,
				  unsigned int nargs, uint64_t t_raw)
{
	struct ht_stream *s = ht_tls_stream;

	if (nargs > HT_FNARGS_MAX)
		nargs = HT_FNARGS_MAX;
	if (t_raw && fast(s, 7 + 8 * nargs))
		write_api_end(s, fn, ret, args, nargs, t_raw);
	else
		ht_emit_api_end(fn, ret, args, nargs);
}

HT_EXPORT void ht_emit_lost(enum ht_lost_kind kind, uint64_t count)
{
	struct ht_stream *s = ht_session_thread_stream();
	uint8_t *p;

	if (!s || !(p = ht_event_begin(s, HT_EV_LOST, 9)))
		return;
	p[0] = (uint8_t)kind;
	ht_put64(p + 1, count);
	ht_stream_commit(s, p + 9);
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

struct device_info {
	uint32_t device;
	enum ht_device_type type;
	const char *name, *vendor;
};

static int write_device_info(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct device_info *d = arg;
	size_t nn = ht_str_cut(d->name, 255), nv = ht_str_cut(d->vendor, 255);
	uint8_t *p = ht_event_begin(proc, HT_EV_DEVICE_INFO, 5 + nn + 1 + nv + 1);

	(void)strs;
	if (!p)
		return -ENOSPC;
	ht_put32(p, d->device);
	p[4] = (uint8_t)d->type;
	p = ht_put_str(p + 5, d->name, nn);
	ht_stream_commit(proc, ht_put_str(p, d->vendor, nv));
	return 0;
}

HT_EXPORT void ht_emit_device_info(uint32_t device, enum ht_device_type type, const char *name,
				   const char *vendor)
{
	struct device_info d = {device, type, name ? name : "", vendor ? vendor : ""};

	if (HT_ENABLED())
		ht_session_with_process(write_device_info, &d);
}

struct queue_info {
	uint64_t queue;
	uint32_t device;
	uint64_t flags;
};

static int write_queue_info(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct queue_info *q = arg;
	uint8_t *p = ht_event_begin(proc, HT_EV_QUEUE_INFO, 20);

	(void)strs;
	if (!p)
		return -ENOSPC;
	ht_put64(p, q->queue);
	ht_put32(p + 8, q->device);
	ht_put64(p + 12, q->flags);
	ht_stream_commit(proc, p + 20);
	return 0;
}

HT_EXPORT void ht_emit_queue_info(uint64_t queue, uint32_t device, uint64_t flags)
{
	struct queue_info q = {queue, device, flags};

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
	uint8_t *p;

	if (!s)
		return;
	ht_lock_take(&s->lock);
	p = ht_event_begin_at(s, HT_EV_DEVICE_COMMAND, HT_DC_SIZE,
			      c->seen_raw ? c->seen_raw : ht_clock_raw());
	if (p) {
		ht_put64(p, c->corr);
		ht_put64(p + 8, c->queue);
		ht_put32(p + 16, c->device);
		p[20] = (uint8_t)c->kind;
		ht_put32(p + 21, c->cmd);
		ht_put32(p + 25, (uint32_t)c->status);
		p[29] = (uint8_t)c->ts_domain;
		ht_put64(p + HT_DC_QUEUED, c->queued);
		ht_put64(p + 38, c->submit);
		ht_put64(p + 46, c->start);
		ht_put64(p + HT_DC_END, c->end);
		ht_put64(p + 62, c->bytes);
		ht_put32(p + 70, c->name);
		memcpy(p + 74, c->global, 24);
		memcpy(p + 98, c->local, 24);
		ht_put64(p + HT_DC_HOST_BEFORE, c->host_before_raw);
		ht_stream_commit(s, p + HT_DC_SIZE);
	}
	ht_lock_give(&s->lock);
}

HT_EXPORT void ht_emit_clock_pair(struct ht_stream *s, uint32_t device, uint64_t device_ts,
				  uint64_t host_ns)
{
	uint8_t *p;

	if (!s)
		return;
	ht_lock_take(&s->lock);
	p = ht_event_begin(s, HT_EV_CLOCK_PAIR, 21);
	if (p) {
		ht_put32(p, device);
		p[4] = (uint8_t)HT_PAIR_EXACT;
		ht_put64(p + 5, device_ts);
		ht_put64(p + 13, host_ns);
		ht_stream_commit(s, p + 21);
	}
	ht_lock_give(&s->lock);
}
