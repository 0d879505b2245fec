/*
 * Internal interface of libhetrace-opencl.so, the OpenCL interposer: what the
 * generated wrappers (wrappers.gen.c) call into the hand-written parts.
 *
 *   resolve.c  finds the real functions (lazily, in libOpenCL.so.1), the
 *              dlsym() interposition and extension function addresses
 *   queue.c    command queues: profiling added and hidden, device streams
 *   objects.c  pointer maps (queues, kernel names), devices, strings
 *   command.c  enqueue bookkeeping: correlation ids, injected events, the
 *              per-queue pending lists and their deferred collection
 *
 * Vendor types stay in this directory; the core sees only hetrace types.
 */
#ifndef HT_OPENCL_INTERPOSE_H
#define HT_OPENCL_INTERPOSE_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

/* The API's own declarations must stay default-visible: we define them. */
#pragma GCC visibility push(default)
#include <CL/cl.h>
#include <CL/cl_egl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#pragma GCC visibility pop

#include "core/lock.h"
#include "core/recorder.h"
#include "hetrace/hetrace.h"
#include "opencl/api.gen.h"
#include "memtrace/cl_glue.h"

#define HT_CL_EXPORT __attribute__((visibility("default")))

/* Set once at load: HETRACE_API allows "opencl". */
extern int ht_cl_api_on;

/* Nonzero when this call must not be traced (one hidden load + ht_active). */
#define HT_CL_OFF()                                                                                \
	__builtin_expect(!(ht_cl_api_on && __atomic_load_n(&ht_active, __ATOMIC_RELAXED)), 1)

/* ---- resolve.c ---- */

/* The real functions, indexed by enum ht_cl_fn (exported ones start as resolver stubs). */
extern void *ht_cl_real[HT_CL_FN_COUNT];
/* Real functions of extension wrappers, set from clGetExtensionFunctionAddress*. */
extern void *ht_cl_ext_real[HT_CL_FN_COUNT];

struct ht_cl_fn_info {
	const char *name;
	void *wrapper;	   /* exported wrapper, NULL if not exported */
	void *ext_wrapper; /* wrapper handed out by extension lookups, NULL for cl.h */
	void *missing;	   /* stub used when libOpenCL lacks the function */
};
extern const struct ht_cl_fn_info ht_cl_fns[HT_CL_FN_COUNT];
extern const struct ht_fn_table ht_cl_fn_table;

/* Resolves every exported function in libOpenCL.so.1 (idempotent, lock-free). */
void ht_cl_resolve(void);
/* clGetExtensionFunctionAddress[ForPlatform] with wrapping of known functions. */
void *ht_cl_ext_address(cl_platform_id platform, const char *name, int for_platform);

/* ---- objects.c ---- */

/* Return: the string id of s (0 for NULL or when not recording). */
uint32_t ht_cl_str(const char *s);
/* Remembers a new kernel's name. */
void ht_cl_kernel_created(cl_kernel k, const char *name);
/* Return: the string id of the kernel's function name (cached). */
uint32_t ht_cl_kernel_name(cl_kernel k);
/* Return: the trace's index of a device, emitting device_info on first use. */
uint32_t ht_cl_device_index(cl_device_id d);
/* In a fork child: forget which devices were described (the child has its own trace). */
void ht_cl_objects_after_fork(void);

/* A lock-free-read map from an OpenCL handle to a pointer (insert under a lock). */
struct ht_cl_map;
void *ht_cl_map_get(struct ht_cl_map *m, const void *key);
void ht_cl_map_put(struct ht_cl_map *m, const void *key, void *val);
extern struct ht_cl_map ht_cl_queues, ht_cl_kernels;

/* ---- queue.c ---- */

/* One tracked command (pooled per queue). */
struct ht_cl_pending {
	struct ht_cl_pending *next;
	cl_event ev;
	int app_event;		   /* the app's event: we hold one extra reference */
	struct ht_cl_queue *queue; /* callback collection: where to emit */
	cl_int status;		   /* scratch while collecting */
	int inferred;		   /* status inferred from a wait, not asked */
	/* The event to write, filled at enqueue (host_before_raw: the enqueue's time). */
	struct ht_device_command dc;
};

struct ht_cl_queue {
	cl_command_queue q;
	cl_device_id device;
	uint32_t device_index;
	int profiling_added; /* we added CL_QUEUE_PROFILING_ENABLE (hidden from the app) */
	int profiling;	     /* timestamps can be read */
	int out_of_order;
	cl_command_queue_properties
	    app_props;			/* as the app asked (clSetCommandQueueProperty too) */
	cl_queue_properties *app_array; /* what the app passed to ...WithProperties */
	size_t app_array_len;		/* entries, terminating 0 included */
	int has_app_array;		/* CL_QUEUE_PROPERTIES_ARRAY is answered from app_array */
	struct ht_stream *stream;	/* created on first emission */
	int stream_failed;
	struct ht_lock lock; /* pending list and free records */
	struct ht_cl_pending *head, *tail, *free;
	unsigned int npending;
	uint64_t tail_corr; /* corr of the last command queued (atomic; written under lock) */
	struct ht_cl_queue *all_next; /* every queue record, never freed */
};

/*
 * Creates a queue with CL_QUEUE_PROFILING_ENABLE added (from `props`, or from
 * `array` when with_array) and records what the app asked for.
 */
cl_command_queue ht_cl_queue_create(cl_context ctx, cl_device_id dev,
				    cl_command_queue_properties props,
				    const cl_queue_properties *array, int with_array,
				    cl_int *errcode_ret);
cl_int ht_cl_queue_get_info(cl_command_queue q, cl_command_queue_info name, size_t size,
			    void *value, size_t *size_ret);
cl_int ht_cl_queue_set_property(cl_command_queue q, cl_command_queue_properties props,
				cl_bool enable, cl_command_queue_properties *old);
/* clGetEventProfilingInfo: no times for commands of a queue the app did not profile. */
cl_int ht_cl_event_profiling_info(cl_event e, cl_profiling_info name, size_t size, void *value,
				  size_t *size_ret);
/* Set once a queue has profiling the app did not ask for (ht_cl_event_profiling_info checks). */
extern int ht_cl_profiling_hidden;
/* Return: the CL_QUEUE_PROPERTIES value of a property list (0 if none). */
uint64_t ht_cl_queue_props_flags(const cl_queue_properties *array);
/* Return: the record of a queue, or NULL for one we have none of. */
struct ht_cl_queue *ht_cl_queue_find(cl_command_queue q);
/* Return: the record of a queue, created for queues we did not see created. */
struct ht_cl_queue *ht_cl_queue_get(cl_command_queue q);
/* Return: the queue's device stream, creating it on first use (NULL: not recording). */
struct ht_stream *ht_cl_queue_stream(struct ht_cl_queue *rec);
/* First element of the list of all queue records. */
struct ht_cl_queue *ht_cl_queue_first(void);
/* In a fork child: drop every stream and pending list (they belong to the parent). */
void ht_cl_queues_after_fork(void);

/* ---- command.c ---- */

/* One enqueue in flight inside a wrapper. */
struct ht_cl_cmd {
	cl_command_queue q;
	cl_event ev; /* the event we asked for when the app passed none */
	uint64_t corr;
	uint64_t host_raw; /* raw clock, just before the real enqueue (api_begin's) */
	uint64_t bytes;
	uint32_t name;
	uint32_t cmd;
	enum ht_cmd_kind kind;
	uint64_t global[3], local[3];
	uint64_t seen_raw; /* raw clock a blocking call's collection read, or 0 */
};

/*
 * Starts an enqueue: correlation id, host time (`host_raw`: ht_emit_api_begin's).
 * Return: the event pointer to pass on.
 */
cl_event *ht_cl_cmd_begin(struct ht_cl_cmd *c, uint64_t host_raw, cl_command_queue q,
			  cl_event *app_event, int inject);
/* Finishes an enqueue: tracks its event; collects the queue after a blocking call. */
void ht_cl_cmd_end(struct ht_cl_cmd *c, cl_int code, cl_event *app_event, cl_bool blocking);
void ht_cl_cmd_kernel(struct ht_cl_cmd *c, cl_kernel k, cl_uint work_dim, const size_t *global,
		      const size_t *local);
void ht_cl_cmd_native(struct ht_cl_cmd *c);

/*
 * clFinish, then collects the queue: what was pending when it was called is
 * complete. *seen_raw: the raw clock the collection read, or 0.
 */
cl_int ht_cl_finish(cl_command_queue q, uint64_t *seen_raw);
/* Collects finished commands of one queue / of all queues (never waits for the device). */
void ht_cl_collect_queue(cl_command_queue q);
void ht_cl_collect_all(void);
/*
 * Collects a queue; `upto`: the corr of a command that a blocking call on an
 * in-order queue just completed (with all before it), or 0. Return: the raw
 * clock read once the statuses were known (it stamps the commands), or 0
 * when nothing was pending.
 */
uint64_t ht_cl_collect_rec(struct ht_cl_queue *r, int final, uint64_t upto);
/* At exit: records every pending command, unfinished ones with their status. */
void ht_cl_collect_final(void);
/* clGetEventInfo that hides the references we hold. */
cl_int ht_cl_event_get_info(cl_event e, cl_event_info name, size_t size, void *value,
			    size_t *size_ret);

/* Helpers for byte counts of the generated enqueue wrappers. */
static inline uint64_t ht_cl_prod3(const size_t *r)
{
	return r ? (uint64_t)r[0] * r[1] * r[2] : 0;
}
uint64_t ht_cl_image_bytes(cl_mem image, const size_t *region);

#endif
