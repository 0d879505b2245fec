/*
 * hetrace annotation API: mark regions, instants, counters and thread names
 * in your program so they land on the same timeline as its CPU threads and
 * GPU work when it runs under `hetrace record`.
 *
 *   #include <hetrace/hetrace.h>        link with -lhetrace
 *
 *   HT_REGION_BEGIN("load");  ...  HT_REGION_END("load");
 *   { HT_SCOPED_REGION("step"); ... }          // ends at the closing brace
 *   HT_INSTANT("checkpoint");
 *   HT_INSTANT_ARGS("batch", ht_arg_int("n", 64), ht_arg_double("loss", 0.25));
 *   HT_COUNTER("queue_depth", 12);
 *   HT_THREAD_NAME("io-worker");
 *   hetrace_stop(); ... hetrace_start();       // record only part of the run
 *
 * Names given to the macros must be string literals (or strings that never
 * change for that call site): each call site looks its name up once. Use the
 * ht_*_dyn() functions for names computed at run time.
 *
 * Cost: when the program is not being recorded, a macro is one relaxed load
 * and a not-taken branch (< 1 ns). With -DHETRACE_DISABLE every macro
 * compiles to nothing and no library is needed. Thread-safe. Not
 * async-signal-safe: do not call from signal handlers.
 */
#ifndef HETRACE_HETRACE_H
#define HETRACE_HETRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An instant argument: build with ht_arg_int/uint/double/string. */
struct ht_arg {
	const char *key;
	uint8_t type; /* 0 int, 1 uint, 2 double, 3 string */
	union {
		int64_t i;
		uint64_t u;
		double f;
		const char *s;
	} v;
};

static inline struct ht_arg ht_arg_int(const char *key, int64_t v)
{
	struct ht_arg a;
	a.key = key;
	a.type = 0;
	a.v.i = v;
	return a;
}
static inline struct ht_arg ht_arg_uint(const char *key, uint64_t v)
{
	struct ht_arg a;
	a.key = key;
	a.type = 1;
	a.v.u = v;
	return a;
}
static inline struct ht_arg ht_arg_double(const char *key, double v)
{
	struct ht_arg a;
	a.key = key;
	a.type = 2;
	a.v.f = v;
	return a;
}
static inline struct ht_arg ht_arg_string(const char *key, const char *v)
{
	struct ht_arg a;
	a.key = key;
	a.type = 3;
	a.v.s = v;
	return a;
}

#ifndef HETRACE_DISABLE

/*
 * Weak references: a position-independent executable then reads the flags
 * through the GOT instead of keeping copies of its own (a copy relocation),
 * so the word it tests is the one a session switches (`hetrace session`).
 */
#ifndef HT_LIBRARY_BUILD
#define HT_FLAG_DECL_ __attribute__((weak))
#else
#define HT_FLAG_DECL_
#endif
/* Nonzero while this process is being recorded. Read it with HT_ENABLED(). */
extern int ht_active HT_FLAG_DECL_;
/*
 * Nonzero while a capture range waits for a region (`--capture-range=
 * region:NAME`): regions then reach the recorder even when ht_active is 0.
 */
extern int ht_watch HT_FLAG_DECL_;

#define HT_ENABLED() __builtin_expect(__atomic_load_n(&ht_active, __ATOMIC_RELAXED), 0)
#define HT_REGIONS_ON()                                                                    \
	__builtin_expect(__atomic_load_n(&ht_active, __ATOMIC_RELAXED) |                   \
			     __atomic_load_n(&ht_watch, __ATOMIC_RELAXED),                 \
			 0)

/*
 * Switch recording of this process on and off (Nsight's cudaProfilerStart/
 * Stop): under `hetrace record --capture-range=api` recording starts off and
 * only what lies between hetrace_start() and the first hetrace_stop() is
 * recorded (every such range with --capture-range-end=repeat); under a
 * plain `record` hetrace_stop() pauses it and hetrace_start() resumes. No effect when the
 * process is not recorded, in a `hetrace session` (the session decides) or
 * under a region capture range. Thread-safe, async-signal-safe.
 */
void hetrace_start(void);
void hetrace_stop(void);

/* Return: the id of `s` in this process's string table, 0 when not recording. */
uint32_t ht_string_id(const char *s);

void ht_region_begin_id(uint32_t name);
void ht_region_end_id(uint32_t name);
void ht_instant_id(uint32_t name, const struct ht_arg *args, unsigned int nargs);
void ht_counter_id(uint32_t name, int64_t value);
void ht_counter_double_id(uint32_t name, double value);

/* Dynamic-name forms: the name is looked up on every call. */
void ht_region_begin_dyn(const char *name);
void ht_region_end_dyn(const char *name);
void ht_instant_dyn(const char *name, const struct ht_arg *args, unsigned int nargs);
void ht_counter_dyn(const char *name, int64_t value);
/* Names the calling thread in the trace (and only there). */
void ht_thread_name(const char *name);

/* The per-call-site cached string id (GNU statement expression). */
#define HT_ID_(name)                                                                       \
	__extension__({                                                                    \
		static uint32_t ht_id_cache_;                                              \
		uint32_t ht_id_ = __atomic_load_n(&ht_id_cache_, __ATOMIC_RELAXED);        \
		if (!ht_id_) {                                                             \
			ht_id_ = ht_string_id(name);                                       \
			__atomic_store_n(&ht_id_cache_, ht_id_, __ATOMIC_RELAXED);         \
		}                                                                          \
		ht_id_;                                                                    \
	})

#define HT_REGION_BEGIN(name)                                                              \
	do {                                                                               \
		if (HT_REGIONS_ON())                                                       \
			ht_region_begin_id(HT_ID_(name));                                  \
	} while (0)

#define HT_REGION_END(name)                                                                \
	do {                                                                               \
		if (HT_REGIONS_ON())                                                       \
			ht_region_end_id(HT_ID_(name));                                    \
	} while (0)

#define HT_INSTANT(name)                                                                   \
	do {                                                                               \
		if (HT_ENABLED())                                                          \
			ht_instant_id(HT_ID_(name), 0, 0);                                 \
	} while (0)

#define HT_INSTANT_ARGS(name, ...)                                                         \
	do {                                                                               \
		if (HT_ENABLED()) {                                                        \
			const struct ht_arg ht_args_[] = {__VA_ARGS__};                    \
			ht_instant_id(HT_ID_(name), ht_args_,                              \
				      (unsigned int)(sizeof ht_args_ / sizeof ht_args_[0]));   \
		}                                                                          \
	} while (0)

#define HT_COUNTER(name, value)                                                            \
	do {                                                                               \
		if (HT_ENABLED())                                                          \
			ht_counter_id(HT_ID_(name), (int64_t)(value));                     \
	} while (0)

#define HT_COUNTER_DOUBLE(name, value)                                                     \
	do {                                                                               \
		if (HT_ENABLED())                                                          \
			ht_counter_double_id(HT_ID_(name), (double)(value));               \
	} while (0)

#define HT_THREAD_NAME(name)                                                               \
	do {                                                                               \
		if (HT_ENABLED())                                                          \
			ht_thread_name(name);                                              \
	} while (0)

static inline void ht_scope_end_(uint32_t *name)
{
	if (*name)
		ht_region_end_id(*name);
}

static inline uint32_t ht_scope_begin_(uint32_t name)
{
	if (name)
		ht_region_begin_id(name);
	return name;
}

#define HT_CAT2_(a, b) a##b
#define HT_CAT_(a, b) HT_CAT2_(a, b)
/* A region from here to the end of the enclosing block. */
#define HT_SCOPED_REGION(name)                                                             \
	uint32_t HT_CAT_(ht_scope_, __LINE__) __attribute__((cleanup(ht_scope_end_))) =     \
		HT_REGIONS_ON() ? ht_scope_begin_(HT_ID_(name)) : 0

#else /* HETRACE_DISABLE */

#define HT_ENABLED() 0
#define HT_REGIONS_ON() 0
#define hetrace_start() ((void)0)
#define hetrace_stop() ((void)0)
#define HT_REGION_BEGIN(name) ((void)0)
#define HT_REGION_END(name) ((void)0)
#define HT_INSTANT(name) ((void)0)
#define HT_INSTANT_ARGS(name, ...) ((void)0)
#define HT_COUNTER(name, value) ((void)0)
#define HT_COUNTER_DOUBLE(name, value) ((void)0)
#define HT_THREAD_NAME(name) ((void)0)
#define HT_SCOPED_REGION(name) ((void)0)

#endif /* HETRACE_DISABLE */

#ifdef __cplusplus
}
#endif

#endif
