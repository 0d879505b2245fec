/*
 * Enqueue bookkeeping: every successful clEnqueue* becomes one device_command
 * on its queue's device stream, linked to the enqueue's api_end by a
 * correlation id.
 *
 * The wrapper asks for an event when the app passed none (and releases it
 * after collection), or takes one extra reference on the app's event (hidden
 * from CL_EVENT_REFERENCE_COUNT). The event goes on its queue's pending
 * list; nothing waits for the device. Finished events are collected later,
 * on an app thread, where the app already synchronises or releases:
 * after blocking enqueues, clFinish, clWaitForEvents, before releases and
 * reference-count queries, when a queue has many pending events, and at
 * exit. Collection reads the status and the four profiling timestamps,
 * emits the command with its two clock-sync bounds (host before the
 * enqueue ≤ device QUEUED; device END ≤ the command's own time, after
 * completion was seen), and releases our reference.
 *
 * HETRACE_CL_COLLECT=callback collects instead from a completion callback
 * (clSetEventCallback) on the runtime's thread, to measure the two against
 * each other (bench/opencl.sh). Measured on PoCL 3.1 (ns over untraced,
 * medians of 7, quiet runs): basic device read 4 KiB 130-137 deferred /
 * 136-150 callback, kernel+finish 186 / 199-223; on the pthread device the
 * two are within its noise (thousands of ns). Deferred stays the default
 * (callbacks were cheaper in three of four cases before deferred collection
 * lost its clock_gettime calls). Callbacks also lose commands: PoCL never calls
 * back for a command aborted by a failed user-event dependency
 * (opencl_transparency_events fails in that mode), nothing claims commands
 * still running at exit, and our reference on an app event is not hidden
 * from CL_EVENT_REFERENCE_COUNT meanwhile. Deferred is the default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/interpose.h"

#define POLL_PENDING 64	  /* a queue with this many pending events is polled on enqueue */
#define CORR_BLOCK   1024 /* correlation ids a thread takes at once */

static uint64_t corr_global = 1;
static __thread uint64_t corr_next, corr_end;
static int exit_hooked;

static uint64_t next_corr(void)
{
	if (__builtin_expect(corr_next == corr_end, 0)) {
		corr_next = __atomic_fetch_add(&corr_global, CORR_BLOCK, __ATOMIC_RELAXED);
		corr_end = corr_next + CORR_BLOCK;
	}
	return corr_next++;
}

cl_event *ht_cl_cmd_begin(struct ht_cl_cmd *c, uint64_t host_raw, cl_command_queue q,
			  cl_event *app_event, int inject)
{
	/* Field by field: a memset of the whole struct is a `rep stosq`, slow to start. */
	c->q = q;
	c->ev = NULL;
	c->corr = next_corr();
	c->host_raw = host_raw;
	c->bytes = 0;
	c->name = c->cmd = 0;
	c->kind = HT_CMD_OTHER;
	c->seen_raw = 0;
	memset(c->global, 0, sizeof c->global);
	memset(c->local, 0, sizeof c->local);
	if (app_event)
		return app_event;
	return inject ? &c->ev : NULL;
}

void ht_cl_cmd_kernel(struct ht_cl_cmd *c, cl_kernel k, cl_uint work_dim, const size_t *global,
		      const size_t *local)
{
	c->name = ht_cl_kernel_name(k);
	for (unsigned int i = 0; i < 3; i++) {
		if (i < work_dim) {
			c->global[i] = global ? global[i] : 0;
			c->local[i] = local ? local[i] : 0;
		} else {
			c->global[i] = 1;
			c->local[i] = work_dim == 0 || local ? 1 : 0;
		}
	}
}

void ht_cl_cmd_native(struct ht_cl_cmd *c)
{
	c->name = ht_cl_str("<native kernel>");
}

uint64_t ht_cl_image_bytes(cl_mem image, const size_t *region)
{
	size_t elem = 0;

	if (HT_CL_REAL(clGetImageInfo)(image, CL_IMAGE_ELEMENT_SIZE, sizeof elem, &elem, NULL) !=
	    CL_SUCCESS)
		return 0;
	return elem * ht_cl_prod3(region);
}

static void at_exit(void)
{
	ht_cl_collect_final();
}

static int emit(struct ht_cl_queue *r, struct ht_cl_pending *p, int inferred, uint64_t seen_raw);

/* HETRACE_CL_COLLECT: deferred (0, default) or callback (1). */
static int collect_by_callback(void)
{
	static int mode = -1;

	if (__builtin_expect(mode < 0, 0)) {
		const char *v = getenv("HETRACE_CL_COLLECT");

		mode = v && !strcmp(v, "callback");
		if (v && *v && !mode && strcmp(v, "deferred"))
			fprintf(stderr,
				"hetrace: ignoring HETRACE_CL_COLLECT='%s': expected deferred or "
				"callback; using deferred\n",
				v);
	}
	return mode;
}

static void CL_CALLBACK completed(cl_event ev, cl_int status, void *arg)
{
	struct ht_cl_pending *p = arg;

	p->status = status;
	emit(p->queue, p, 0, 0);
	HT_CL_REAL(clReleaseEvent)(ev);
	free(p);
}

void ht_cl_cmd_end(struct ht_cl_cmd *c, cl_int code, cl_event *app_event, cl_bool blocking)
{
	struct ht_cl_queue *r;
	struct ht_cl_pending *p;
	cl_event ev;
	unsigned int n;

	if (code != CL_SUCCESS || !(ev = app_event ? *app_event : c->ev)) {
		c->corr = 0; /* no command: nothing to link */
		return;
	}
	r = ht_cl_queue_get(c->q);
	if (!r) {
		if (!app_event)
			HT_CL_REAL(clReleaseEvent)(ev);
		c->corr = 0;
		return;
	}
	if (app_event)
		HT_CL_REAL(clRetainEvent)(ev);
	/* One lock hold: a free record is filled and queued (callback mode: taken). */
	ht_lock_take(&r->lock);
	p = r->free;
	if (p)
		r->free = p->next;
	else if (!(p = malloc(sizeof *p)))
		goto lost_locked;
	p->next = NULL;
	p->ev = ev;
	p->app_event = app_event != NULL;
	p->queue = r;
	p->dc.ev.corr = c->corr;
	p->dc.ev.queue = (uintptr_t)r->q;
	p->dc.ev.device = r->device_index;
	p->dc.ev.kind = c->kind;
	p->dc.ev.cmd = c->cmd;
	p->dc.ev.ts_domain = HT_DOM_DEVICE;
	p->dc.ev.bytes = c->bytes;
	p->dc.ev.name = c->name;
	memcpy(p->dc.ev.global, c->global, sizeof p->dc.ev.global);
	memcpy(p->dc.ev.local, c->local, sizeof p->dc.ev.local);
	p->dc.ev.host_before = c->host_raw;
	if (collect_by_callback()) {
		ht_lock_give(&r->lock);
		if (HT_CL_REAL(clSetEventCallback)(ev, CL_COMPLETE, completed, p) == CL_SUCCESS)
			return;
		free(p);
		goto lost;
	}
	if (r->tail)
		r->tail->next = p;
	else
		r->head = p;
	r->tail = p;
	n = ++r->npending;
	__atomic_store_n(&r->tail_corr, p->dc.ev.corr, __ATOMIC_RELAXED);
	ht_lock_give(&r->lock);
	if (!__atomic_load_n(&exit_hooked, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&exit_hooked, 1, __ATOMIC_RELAXED))
		atexit(at_exit); /* after the runtime's own: ours runs first */
	if (blocking)
		c->seen_raw = ht_cl_collect_rec(r, 0, r->out_of_order ? 0 : c->corr);
	else if (n >= POLL_PENDING)
		ht_cl_collect_rec(r, 0, 0);
	return;
lost_locked:
	ht_lock_give(&r->lock);
lost:
	HT_CL_REAL(clReleaseEvent)(ev);
	ht_emit_lost(HT_LOST_DEVICE_RECORD, 1);
	c->corr = 0;
}

/*
 * Emits a finished command with what the runtime knows of it. `inferred`:
 * its completion was inferred from a wait, not asked. `seen_raw`: the raw
 * clock read after its completion was known (0: now). Return: 0 when that
 * inference was wrong (it still runs: keep it), else 1.
 */
static int emit(struct ht_cl_queue *r, struct ht_cl_pending *p, int inferred, uint64_t seen_raw)
{
	struct ht_stream *s = ht_cl_queue_stream(r);
	struct ht_device_command *dc = &p->dc;
	cl_ulong ts[4] = {0, 0, 0, 0};
	cl_command_type type = dc->ev.cmd;
	cl_int status = p->status;
	int have = 0;

	if (!s) {
		ht_emit_discarded(1); /* the queue's stream could not be created */
		return 1;
	}
	if (!type)
		HT_CL_REAL(clGetEventInfo)(p->ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL);
	if (status == CL_COMPLETE && r->profiling) {
		ht_cl_clGetEventProfilingInfo_t get = HT_CL_REAL(clGetEventProfilingInfo);

		/* Error codes are negative, CL_SUCCESS 0: all four succeeded when their OR is 0. */
		have = (get(p->ev, CL_PROFILING_COMMAND_QUEUED, sizeof ts[0], &ts[0], NULL) |
			get(p->ev, CL_PROFILING_COMMAND_SUBMIT, sizeof ts[0], &ts[1], NULL) |
			get(p->ev, CL_PROFILING_COMMAND_START, sizeof ts[0], &ts[2], NULL) |
			get(p->ev, CL_PROFILING_COMMAND_END, sizeof ts[0], &ts[3], NULL)) ==
		       CL_SUCCESS;
	}
	/*
	 * No timestamps for a completion we inferred: ask the runtime what really
	 * happened. On an in-order queue a blocking call of one thread can
	 * overtake the queuing here of another thread's later command, which may
	 * still run (not on PoCL 3.1, whose blocking calls finish the whole queue).
	 */
	if (status == CL_COMPLETE && r->profiling && !have &&
	    HT_CL_REAL(clGetEventInfo)(p->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
				       &status, NULL) == CL_SUCCESS &&
	    status > CL_COMPLETE && inferred) {
		p->status = status;
		return 0;
	}
	dc->ev.cmd = type;
	dc->ev.status = status;
	dc->ev.queued = ts[0];
	dc->ev.submit = ts[1];
	dc->ev.start = ts[2];
	dc->ev.end = ts[3];
	/* the enqueue began before QUEUED; completion was seen before this event */
	if (!have)
		dc->ev.host_before = 0;
	dc->seen_raw = seen_raw;
	ht_emit_device_command(s, dc);
	if (ht_cl_mt_on && dc->ev.kind == HT_CMD_KERNEL)
		ht_cl_mt_command_done(dc->ev.corr); /* memory-access tracing: the launch is over */
	if (!have)
		ht_emit_lost(HT_LOST_DEVICE_TIMESTAMP, 1);
	return 1;
}

uint64_t ht_cl_collect_rec(struct ht_cl_queue *r, int final, uint64_t upto)
{
	struct ht_cl_pending *list, *p, *next, *keep = NULL, **keep_tail = &keep, *done = NULL;
	struct ht_cl_pending *done_tail = NULL, *keep_last = NULL;
	unsigned int nkeep = 0;
	uint64_t seen;
	int blocked = 0;

	ht_lock_take(&r->lock);
	list = r->head;
	r->head = r->tail = NULL;
	r->npending = 0;
	ht_lock_give(&r->lock);
	if (!list)
		return 0;
	/*
	 * Statuses first: each emission's time is after every completion we saw.
	 * `upto` (a correlation id) ends a run of commands a blocking call has
	 * just waited for: they are complete without asking (saves a query
	 * each). Another collector may have taken it already.
	 */
	for (p = list; p && p->dc.ev.corr != upto; p = p->next)
		;
	if (!p)
		upto = 0;
	for (p = list; p; p = p->next) {
		p->inferred = upto != 0;
		if (upto) {
			p->status = CL_COMPLETE;
			if (p->dc.ev.corr == upto)
				upto = 0;
			continue;
		}
		if (blocked && !final) {
			p->status = CL_QUEUED;
			continue;
		}
		if (HT_CL_REAL(clGetEventInfo)(p->ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
					       sizeof p->status, &p->status, NULL) != CL_SUCCESS)
			p->status = CL_INVALID_EVENT;
		/* In order: nothing after an unfinished command has finished. */
		if (p->status > CL_COMPLETE && !r->out_of_order)
			blocked = 1;
	}
	/*
	 * Every completion above is known now: one clock read dates them all
	 * (a runtime sets END before it reports CL_COMPLETE). Reading it after
	 * the timestamps instead cost ~20 ns a command here (in-process A/B,
	 * 3 runs) for one case only: an inferred completion that was wrong and
	 * ended between here and the read of its END (not on PoCL 3.1).
	 */
	seen = ht_now_raw();
	for (p = list; p; p = next) {
		next = p->next;
		p->next = NULL;
		if ((p->status > CL_COMPLETE && !final) ||
		    !emit(r, p, p->inferred && !final, seen)) {
			*keep_tail = p;
			keep_tail = &p->next;
			keep_last = p;
			nkeep++;
			continue;
		}
		HT_CL_REAL(clReleaseEvent)(p->ev);
		if (done_tail)
			done_tail->next = p;
		else
			done = p;
		done_tail = p;
	}
	ht_lock_take(&r->lock);
	if (keep) {
		/* Older than anything enqueued meanwhile: back to the front. */
		*keep_tail = r->head;
		if (!r->head)
			r->tail = keep_last;
		r->head = keep;
		r->npending += nkeep;
	}
	if (done) {
		done_tail->next = r->free;
		r->free = done;
	}
	ht_lock_give(&r->lock);
	return seen;
}

cl_int ht_cl_finish(cl_command_queue q, uint64_t *seen_raw)
{
	struct ht_cl_queue *r = ht_cl_map_get(&ht_cl_queues, q);
	/*
	 * The newest command queued before the call (by any thread: its enqueue
	 * returned before it was queued here) is complete when clFinish succeeds.
	 */
	uint64_t upto = r ? __atomic_load_n(&r->tail_corr, __ATOMIC_RELAXED) : 0;
	cl_int ret;
	int err;

	ret = HT_CL_REAL(clFinish)(q);
	err = errno;
	*seen_raw = r ? ht_cl_collect_rec(r, 0, ret == CL_SUCCESS ? upto : 0) : 0;
	errno = err; /* the app sees the runtime's */
	return ret;
}

void ht_cl_collect_queue(cl_command_queue q)
{
	struct ht_cl_queue *r = ht_cl_map_get(&ht_cl_queues, q);

	if (r)
		ht_cl_collect_rec(r, 0, 0);
}

void ht_cl_collect_all(void)
{
	for (struct ht_cl_queue *r = ht_cl_queue_first(); r; r = r->all_next)
		if (__atomic_load_n(&r->head, __ATOMIC_RELAXED))
			ht_cl_collect_rec(r, 0, 0);
}

void ht_cl_collect_final(void)
{
	for (struct ht_cl_queue *r = ht_cl_queue_first(); r; r = r->all_next)
		ht_cl_collect_rec(r, 1, 0);
}

/* Return: how many references we hold on the app's event e. */
static cl_uint held_refs(cl_event e)
{
	cl_uint n = 0;

	for (struct ht_cl_queue *r = ht_cl_queue_first(); r; r = r->all_next) {
		ht_lock_take(&r->lock);
		for (struct ht_cl_pending *p = r->head; p; p = p->next)
			n += p->ev == e && p->app_event;
		ht_lock_give(&r->lock);
	}
	return n;
}

cl_int ht_cl_event_get_info(cl_event e, cl_event_info name, size_t size, void *value,
			    size_t *size_ret)
{
	cl_int ret;

	if (name != CL_EVENT_REFERENCE_COUNT || !ht_cl_queue_first())
		return HT_CL_REAL(clGetEventInfo)(e, name, size, value, size_ret);
	ht_cl_collect_all();
	ret = HT_CL_REAL(clGetEventInfo)(e, name, size, value, size_ret);
	if (ret == CL_SUCCESS && value && size >= sizeof(cl_uint))
		*(cl_uint *)value -= held_refs(e);
	return ret;
}
