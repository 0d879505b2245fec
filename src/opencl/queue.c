/*
 * Command queues. Device timestamps need CL_QUEUE_PROFILING_ENABLE, so both
 * creation functions add it; the app must not notice: clGetCommandQueueInfo
 * answers CL_QUEUE_PROPERTIES and CL_QUEUE_PROPERTIES_ARRAY with what it
 * asked for, clGetEventProfilingInfo answers CL_PROFILING_INFO_NOT_AVAILABLE
 * for the commands of such a queue (as the runtime does untraced), and when
 * the runtime refuses the added flag the queue is created exactly as
 * requested (its commands are then recorded without timestamps).
 *
 * One record per created queue, never freed (a few hundred bytes each), in a
 * pointer map for the enqueue path and a list for collection. Each record
 * owns the device stream of its queue, created on first use.
 */
#include <stdlib.h>
#include <string.h>

#include "opencl/interpose.h"

#define MAX_PROPS 64 /* property pairs we are willing to rewrite */

int ht_cl_profiling_hidden;

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ht_cl_queue *all;
static unsigned int generation; /* bumped on every new record: invalidates thread caches */

static __thread struct {
	cl_command_queue q;
	struct ht_cl_queue *rec;
	unsigned int gen;
} last;

struct ht_cl_queue *ht_cl_queue_first(void)
{
	return __atomic_load_n(&all, __ATOMIC_ACQUIRE);
}

uint64_t ht_cl_queue_props_flags(const cl_queue_properties *array)
{
	for (unsigned int i = 0; array && array[i] && i < 2 * MAX_PROPS; i += 2)
		if (array[i] == CL_QUEUE_PROPERTIES)
			return array[i + 1];
	return 0;
}

static struct ht_cl_queue *record_add(cl_command_queue q, cl_device_id dev,
				      cl_command_queue_properties app_props, int added,
				      int with_array, const cl_queue_properties *app_array,
				      size_t app_len)
{
	struct ht_cl_queue *r = calloc(1, sizeof *r);
	cl_command_queue_properties eff = app_props;

	if (!r)
		return NULL;
	if (!dev)
		HT_CL_REAL(clGetCommandQueueInfo)(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL);
	if (!added)
		HT_CL_REAL(clGetCommandQueueInfo)(q, CL_QUEUE_PROPERTIES, sizeof eff, &eff, NULL);
	r->q = q;
	r->device = dev;
	r->device_index = ht_cl_device_index(dev);
	r->profiling_added = added;
	r->profiling = added || (eff & CL_QUEUE_PROFILING_ENABLE);
	if (!added && !app_props)
		app_props = eff; /* a queue we did not see created */
	r->out_of_order = !!(app_props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
	r->app_props = app_props;
	if (added)
		__atomic_store_n(&ht_cl_profiling_hidden, 1, __ATOMIC_RELAXED);
	if (added && with_array) {
		/* NULL properties read back as an empty list, like the runtime's. */
		r->app_array = app_array ? malloc(app_len * sizeof *app_array) : NULL;
		if (r->app_array) {
			memcpy(r->app_array, app_array, app_len * sizeof *app_array);
			r->app_array_len = app_len;
		}
		r->has_app_array = !app_array || r->app_array;
	}
	pthread_mutex_lock(&list_lock);
	r->all_next = all;
	__atomic_store_n(&all, r, __ATOMIC_RELEASE);
	__atomic_fetch_add(&generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&list_lock);
	ht_cl_map_put(&ht_cl_queues, q, r);
	ht_emit_queue_info((uintptr_t)q, r->device_index, app_props);
	return r;
}

struct ht_cl_queue *ht_cl_queue_find(cl_command_queue q)
{
	struct ht_cl_queue *r = ht_cl_map_get(&ht_cl_queues, q);

	/* Full map, or a queue made before tracing started: newest record first. */
	for (struct ht_cl_queue *i = ht_cl_queue_first(); !r && q && i; i = i->all_next)
		if (i->q == q)
			r = i;
	return r;
}

struct ht_cl_queue *ht_cl_queue_get(cl_command_queue q)
{
	unsigned int gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
	struct ht_cl_queue *r;

	if (last.q == q && last.gen == gen && q)
		return last.rec;
	r = ht_cl_queue_find(q);
	if (!r && q)
		r = record_add(q, NULL, 0, 0, 0, NULL, 0);
	last.q = q;
	last.rec = r;
	last.gen = gen;
	return r;
}

/*
 * A direct device/host timer pair for the clock sync, where the device has
 * one (OpenCL 2.1 clGetDeviceAndHostTimer; PoCL 3.1 answers
 * CL_INVALID_OPERATION). The host timer's clock is the implementation's
 * choice: the pair is kept only when its host value falls between two
 * CLOCK_MONOTONIC reads taken around the call, i.e. when it is our clock.
 */
static void timer_pair(struct ht_cl_queue *r, struct ht_stream *s)
{
	cl_ulong dev = 0, host = 0;
	uint64_t before = ht_now_ns(), after;

	if (HT_CL_REAL(clGetDeviceAndHostTimer)(r->device, &dev, &host) != CL_SUCCESS)
		return;
	after = ht_now_ns();
	if (dev && host >= before && host <= after)
		ht_emit_clock_pair(s, r->device_index, dev, host);
}

struct ht_stream *ht_cl_queue_stream(struct ht_cl_queue *r)
{
	struct ht_stream *s = __atomic_load_n(&r->stream, __ATOMIC_ACQUIRE);

	if (s || r->stream_failed)
		return s;
	ht_lock_take(&r->lock);
	if (!r->stream && !r->stream_failed) {
		s = ht_device_stream_create(r->device_index, (uintptr_t)r->q);
		if (s) {
			timer_pair(r, s);
			__atomic_store_n(&r->stream, s, __ATOMIC_RELEASE);
		} else {
			r->stream_failed = 1;
		}
	}
	s = r->stream;
	ht_lock_give(&r->lock);
	return s;
}

cl_command_queue ht_cl_queue_create(cl_context ctx, cl_device_id dev,
				    cl_command_queue_properties props,
				    const cl_queue_properties *array, int with_array,
				    cl_int *errcode_ret)
{
	cl_queue_properties mod[2 * MAX_PROPS + 3];
	cl_command_queue q;
	size_t n = 0;
	int added = 0;

	if (with_array) {
		props = ht_cl_queue_props_flags(array);
		while (array && array[n] && n < 2 * MAX_PROPS)
			n += 2;
	}
	if (!(props & CL_QUEUE_PROFILING_ENABLE) && (!array || !array[n])) {
		if (!with_array) {
			q = HT_CL_REAL(clCreateCommandQueue)(
			    ctx, dev, props | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
		} else {
			int found = 0;

			for (size_t i = 0; i < n; i += 2) {
				mod[i] = array[i];
				mod[i + 1] = array[i + 1];
				if (array[i] == CL_QUEUE_PROPERTIES) {
					mod[i + 1] |= CL_QUEUE_PROFILING_ENABLE;
					found = 1;
				}
			}
			if (!found) {
				mod[n] = CL_QUEUE_PROPERTIES;
				mod[n + 1] = props | CL_QUEUE_PROFILING_ENABLE;
			}
			mod[n + (found ? 0 : 2)] = 0;
			q = HT_CL_REAL(clCreateCommandQueueWithProperties)(ctx, dev, mod,
									   errcode_ret);
		}
		if (q) {
			added = 1;
			goto out;
		}
		/* Refused with the flag: give the app exactly what it asked for. */
	}
	if (!with_array)
		q = HT_CL_REAL(clCreateCommandQueue)(ctx, dev, props, errcode_ret);
	else
		q = HT_CL_REAL(clCreateCommandQueueWithProperties)(ctx, dev, array, errcode_ret);
out:
	if (q)
		record_add(q, dev, props, added, with_array, array, n + 1);
	return q;
}

cl_int ht_cl_queue_get_info(cl_command_queue q, cl_command_queue_info name, size_t size,
			    void *value, size_t *size_ret)
{
	struct ht_cl_queue *r;
	size_t need;
	cl_int ret;

	if (name == CL_QUEUE_REFERENCE_COUNT)
		ht_cl_collect_all(); /* our finished events must not hold the queue */
	if (name != CL_QUEUE_PROPERTIES && name != CL_QUEUE_PROPERTIES_ARRAY)
		return HT_CL_REAL(clGetCommandQueueInfo)(q, name, size, value, size_ret);
	r = ht_cl_queue_find(q);
	if (!r || !r->profiling_added || (name == CL_QUEUE_PROPERTIES_ARRAY && !r->has_app_array))
		return HT_CL_REAL(clGetCommandQueueInfo)(q, name, size, value, size_ret);
	if (name == CL_QUEUE_PROPERTIES) {
		ret = HT_CL_REAL(clGetCommandQueueInfo)(q, name, size, value, size_ret);
		if (ret == CL_SUCCESS && value && size >= sizeof(cl_command_queue_properties))
			*(cl_command_queue_properties *)value =
			    (*(cl_command_queue_properties *)value &
			     ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE) |
			    (r->app_props & CL_QUEUE_PROFILING_ENABLE);
		return ret;
	}
	/* The property list: the runtime validates, we answer with the app's own list. */
	ret = HT_CL_REAL(clGetCommandQueueInfo)(q, name, 0, NULL, &need);
	if (ret != CL_SUCCESS)
		return ret;
	need = r->app_array_len * sizeof(cl_queue_properties);
	if (value && size < need)
		return CL_INVALID_VALUE;
	if (value && need)
		memcpy(value, r->app_array, need);
	if (size_ret)
		*size_ret = need;
	return CL_SUCCESS;
}

cl_int ht_cl_queue_set_property(cl_command_queue q, cl_command_queue_properties props,
				cl_bool enable, cl_command_queue_properties *old)
{
	const cl_command_queue_properties prof = CL_QUEUE_PROFILING_ENABLE;
	struct ht_cl_queue *r = ht_cl_queue_find(q);
	cl_command_queue_properties was;
	cl_int ret;

	if (!r || !r->profiling_added)
		return HT_CL_REAL(clSetCommandQueueProperty)(q, props, enable, old);
	/* Our profiling stays on; the app's view of it follows its own requests. */
	was = r->app_props;
	ret = HT_CL_REAL(clSetCommandQueueProperty)(q, enable ? props : props & ~prof, enable, old);
	if (ret != CL_SUCCESS)
		return ret;
	if (props & prof)
		r->app_props = enable ? was | prof : was & ~prof;
	if (old)
		*old = (*old & ~prof) | (was & prof);
	return ret;
}

cl_int ht_cl_event_profiling_info(cl_event e, cl_profiling_info name, size_t size, void *value,
				  size_t *size_ret)
{
	cl_command_queue q = NULL;
	struct ht_cl_queue *r;
	int err = errno;

	/*
	 * A command of a queue the app made without profiling has no times for
	 * it, whatever we read ourselves: programs decide from this answer
	 * whether to profile. An invalid event or a user event (no queue) gets
	 * the runtime's own answer.
	 */
	if (__atomic_load_n(&ht_cl_profiling_hidden, __ATOMIC_RELAXED) &&
	    HT_CL_REAL(clGetEventInfo)(e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL) ==
		CL_SUCCESS &&
	    q && (r = ht_cl_queue_find(q)) && r->profiling_added &&
	    !(r->app_props & CL_QUEUE_PROFILING_ENABLE)) {
		errno = err;
		return CL_PROFILING_INFO_NOT_AVAILABLE;
	}
	errno = err;
	return HT_CL_REAL(clGetEventProfilingInfo)(e, name, size, value, size_ret);
}

void ht_cl_queues_after_fork(void)
{
	pthread_mutex_init(&list_lock, NULL);
	for (struct ht_cl_queue *r = all; r; r = r->all_next) {
		r->lock.held = 0; /* a thread that held it is gone */
		r->stream = NULL;
		r->stream_failed = 0;
		/* The parent's events mean nothing here: recycle their records as they are. */
		if (r->tail) {
			r->tail->next = r->free;
			r->free = r->head;
		}
		r->head = r->tail = NULL;
		r->npending = 0;
	}
	__atomic_fetch_add(&generation, 1, __ATOMIC_RELEASE);
}
