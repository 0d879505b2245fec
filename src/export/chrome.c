/*
 * `hetrace export --format chrome`: the timeline as Chrome trace-event JSON
 * ({"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}), written
 * as the timeline streams (one event per line), for chrome://tracing, the
 * Perfetto UI's legacy importer and scripts.
 *
 * - ts/dur are microseconds relative to the trace start (the session's
 *   start anchor from the index, else the first record) with three
 *   decimals, so nanoseconds survive a double (ref trace-formats.md §2.4);
 * - API calls and regions are B/E pairs on their thread (an API call's
 *   return code and arguments on its E); instants are "i", counters "C"
 *   with id = the thread's tid (counters are process-scoped in this format);
 * - each device queue is a pseudo-thread (tid 0x40000000 + n, named
 *   "GPU d / queue 0x..." by an M event, sorted after the real threads)
 *   carrying its commands as X events; commands that overlap go to extra
 *   "lane" pseudo-threads so every thread nests; OS scheduling intervals
 *   likewise go to a pseudo-thread per thread (0x50000000 + n);
 * - a flow ("s" inside the enqueue call, "f" with bp "e" inside the
 *   command) links each enqueue to its device command, in whichever order
 *   the two arrive;
 * - MPI messages are flows too ("s" inside the send, "f" inside the call
 *   the receive completed in: mpi_flows.h);
 * - every string from the trace goes through ht_json_str (escape.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/escape.h"
#include "analysis/timeline.h"
#include "export/export.h"
#include "export/export_tracks.h"
#include "export/mpi_flows.h"
#include "common/grow.h"

#define QUEUE_TID_BASE 0x40000000
#define CPU_TID_BASE   0x50000000

struct ch_thread {
	uint64_t *begin; /* stack of open slices' begin times */
	unsigned int depth;
	size_t cap;
	int32_t cpu_tid; /* pseudo-thread of its CPU states, 0 until needed */
};

struct ch_queue {
	struct ht_lanes lanes;
	int32_t *tid; /* per lane */
	unsigned int ntid;
	size_t captid;
};

struct ch_queue_key {
	int32_t pid;
	uint32_t device;
	uint64_t queue;
};

struct ch {
	FILE *f;
	struct ht_trace *trace;
	uint64_t base;
	int have_base;
	uint64_t events;
	int32_t next_qtid, next_cputid;
	struct ht_map threads; /* pid << 32 | tid -> struct ch_thread * */
	struct ht_map queues;  /* struct ch_queue_key -> struct ch_queue * */
	struct ht_map flows; /* flow id -> struct ch_flow *: one side seen, waiting for the other */
	struct ht_mpi_flows mpi;
};

/*
 * One side of a flow. Usually the enqueue's END comes first; a blocking
 * call ends after its command, so then the command's "f" waits here.
 */
struct ch_flow {
	int device; /* 1: the command was seen (and waits), 0: the enqueue */
	int32_t pid, tid;
	uint64_t ts;
};

static void thread_free(void *v)
{
	struct ch_thread *th = v;

	free(th->begin);
	free(th);
}

static void queue_free(void *v)
{
	struct ch_queue *q = v;

	ht_lanes_fini(&q->lanes);
	free(q->tid);
	free(q);
}

/* A time or duration in µs with ns precision, from a signed ns count. */
static void put_us(FILE *f, int64_t ns)
{
	uint64_t mag = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	fprintf(f, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", mag / 1000, (unsigned int)(mag % 1000));
}

static int64_t rel(const struct ch *c, uint64_t ts)
{
	return (int64_t)(ts - c->base);
}

static void put_double(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v >= -9e15 && v <= 9e15 && v == (double)(int64_t)v)
		fprintf(f, "%" PRId64, (int64_t)v);
	else
		fprintf(f, "%.17g", v);
}

/* Opens one event: {"ph":..,"name":..,"cat":..,"pid":..,"tid":..,"ts":.. (no closing brace). */
static void ev_open(struct ch *c, const char *ph, const char *name, const char *cat, int32_t pid,
		    int32_t tid, uint64_t ts)
{
	fputs(c->events++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"", c->f);
	fputs(ph, c->f);
	fputc('"', c->f);
	if (name) {
		fputs(",\"name\":", c->f);
		ht_json_str(c->f, name);
	}
	if (cat) {
		fputs(",\"cat\":", c->f);
		ht_json_str(c->f, cat);
	}
	fprintf(c->f, ",\"pid\":%" PRId32 ",\"tid\":%" PRId32 ",\"ts\":", pid, tid);
	put_us(c->f, rel(c, ts));
}

static void arg_key(FILE *f, int *first, const char *key)
{
	fputs(*first ? "" : ",", f);
	*first = 0;
	ht_json_str(f, key ? key : "?");
	fputc(':', f);
}

static void args_from(FILE *f, int *first, const struct ht_tl_record *r)
{
	for (unsigned int i = 0; i < r->nargs; i++) {
		const struct ht_tl_arg *a = &r->args[i];

		arg_key(f, first, a->key);
		switch (a->type) {
		case HT_TL_INT:
			fprintf(f, "%" PRId64, a->v.i);
			break;
		case HT_TL_UINT:
			fprintf(f, "%" PRIu64, a->v.u);
			break;
		case HT_TL_HEX:
			fprintf(f, "\"0x%" PRIx64 "\"", a->v.u);
			break;
		case HT_TL_DOUBLE:
			put_double(f, a->v.f);
			break;
		case HT_TL_STRING:
			ht_json_str(f, a->v.s ? a->v.s : "");
			break;
		}
	}
}

static void arg_u64(FILE *f, int *first, const char *key, uint64_t v)
{
	arg_key(f, first, key);
	fprintf(f, "%" PRIu64, v);
}

static void meta_name(struct ch *c, const char *what, int32_t pid, int32_t tid, const char *name)
{
	fputs(c->events++ ? ",\n{" : "\n{", c->f);
	fprintf(c->f,
		"\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
		",\"args\":{\"name\":",
		what, pid, tid);
	ht_json_str(c->f, name);
	fputs("}}", c->f);
}

static void flow(struct ch *c, const char *ph, uint64_t id, int32_t pid, int32_t tid, uint64_t ts)
{
	ev_open(c, ph, "enqueue", "flow", pid, tid, ts);
	fprintf(c->f, "%s,\"id\":\"%" PRIx64 "\"}", *ph == 'f' ? ",\"bp\":\"e\"" : "", id);
}

/*
 * Records one side of flow `id` or, when the other side is waiting,
 * completes it. Only complete flows get their "f": an "f" without its "s"
 * is an import error, while a lone "s" (command never recorded) is not.
 */
static int flow_side(struct ch *c, uint64_t id, int device, int32_t pid, int32_t tid, uint64_t ts)
{
	struct ch_flow *w = ht_export_map_ptr(ht_map_find_u64(&c->flows, id));
	uint64_t *v;

	if (w && w->device != device) {
		if (device)
			flow(c, "f", id, pid, tid, ts);
		else
			flow(c, "f", id, w->pid, w->tid, w->ts);
		free(w);
		ht_map_del_u64(&c->flows, id);
		return 0;
	}
	if (!w) {
		w = malloc(sizeof *w);
		v = w ? ht_map_u64(&c->flows, id, (uintptr_t)w, NULL) : NULL;
		if (!v) {
			free(w);
			return -ENOMEM;
		}
	}
	w->device = device;
	w->pid = pid;
	w->tid = tid;
	w->ts = ts;
	return 0;
}

/* An MPI message's side: the flow's "s" in the send, its "f" where the receive completed. */
static int mpi_flow(struct ch *c, const struct ht_tl_record *r)
{
	uint64_t id;
	int side = ht_mpi_flow(&c->mpi, r, &id);

	if (side <= 0)
		return side;
	ev_open(c, side == HT_MPI_FLOW_START ? "s" : "f", "message", "mpi", r->pid, r->tid, r->ts);
	fprintf(c->f, "%s,\"id\":\"%" PRIx64 "\"}", side == HT_MPI_FLOW_END ? ",\"bp\":\"e\"" : "",
		id);
	return 0;
}

static struct ch_thread *thread_get(struct ch *c, int32_t pid, int32_t tid)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	struct ch_thread *th = ht_export_map_ptr(ht_map_find_u64(&c->threads, key));

	if (th)
		return th;
	th = calloc(1, sizeof *th);
	if (!th || !ht_map_u64(&c->threads, key, (uintptr_t)th, NULL)) {
		free(th);
		return NULL;
	}
	return th;
}

static void sort_index(struct ch *c, int32_t pid, int32_t tid)
{
	fputs(c->events++ ? ",\n{" : "\n{", c->f);
	fprintf(c->f,
		"\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%" PRId32 ",\"tid\":%" PRId32
		",\"args\":{\"sort_index\":%" PRId32 "}}",
		pid, tid, tid);
}

/* OS scheduling: X events on a pseudo-thread "tid N: CPU state" next to the thread. */
static int cpu_state(struct ch *c, const struct ht_tl_record *r)
{
	struct ch_thread *th = thread_get(c, r->pid, r->tid);
	int first = 1;

	if (!th)
		return -ENOMEM;
	if (!th->cpu_tid) {
		char name[64];

		th->cpu_tid = CPU_TID_BASE + c->next_cputid++;
		snprintf(name, sizeof name, "tid %" PRId32 ": CPU state", r->tid);
		meta_name(c, "thread_name", r->pid, th->cpu_tid, name);
		sort_index(c, r->pid, th->cpu_tid);
	}
	ev_open(c, "X", r->name ? r->name : "?", r->category, r->pid, th->cpu_tid, r->ts);
	fputs(",\"dur\":", c->f);
	put_us(c->f, r->end > r->ts ? (int64_t)(r->end - r->ts) : 0);
	fputs(",\"args\":{", c->f);
	args_from(c->f, &first, r);
	fputs("}}", c->f);
	return 0;
}

static int slice_begin(struct ch *c, const struct ht_tl_record *r)
{
	struct ch_thread *th = thread_get(c, r->pid, r->tid);

	if (!th)
		return -ENOMEM;
	if (ht_grow((void **)&th->begin, &th->cap, sizeof *th->begin, (size_t)th->depth + 1))
		return -ENOMEM;
	th->begin[th->depth++] = r->ts;
	ev_open(c, "B", r->name ? r->name : "?", r->category, r->pid, r->tid, r->ts);
	fputc('}', c->f);
	return 0;
}

static int slice_end(struct ch *c, const struct ht_tl_record *r)
{
	struct ch_thread *th = thread_get(c, r->pid, r->tid);
	int api = r->category && !strcmp(r->category, "api"), first = 1;
	uint64_t begin = r->ts;

	if (!th)
		return -ENOMEM;
	if (th->depth)
		begin = th->begin[--th->depth];
	ev_open(c, "E", r->name ? r->name : "?", r->category, r->pid, r->tid, r->ts);
	if (api || r->nargs) {
		fputs(",\"args\":{", c->f);
		if (api) {
			arg_key(c->f, &first, "ret");
			fprintf(c->f, "%" PRId32, r->ret);
		}
		args_from(c->f, &first, r);
		fputc('}', c->f);
	}
	fputc('}', c->f);
	if (api && r->corr) {
		/* inside the call, so it binds to this slice */
		flow(c, "s", ht_export_flow_id(r->pid, r->corr), r->pid, r->tid,
		     begin + (r->ts - begin) / 2);
		return flow_side(c, ht_export_flow_id(r->pid, r->corr), 0, r->pid, r->tid, 0);
	}
	return 0;
}

/* Return: the pseudo-thread of a lane of the queue (named on first use), or 0 on error. */
static int32_t queue_tid(struct ch *c, const struct ht_tl_record *r, uint64_t end)
{
	struct ch_queue_key key = {r->pid, r->device, r->queue};
	struct ch_queue *q = ht_export_map_ptr(ht_map_find_bytes(&c->queues, &key, sizeof key));
	const char *devname = r->kind == HT_TL_QUEUE ? r->name : r->text;
	int lane;

	if (devname && (!*devname || !strcmp(devname, "device")))
		devname = NULL;
	if (!q) {
		q = calloc(1, sizeof *q);
		if (!q || !ht_map_bytes(&c->queues, &key, sizeof key, (uintptr_t)q, NULL)) {
			free(q);
			return 0;
		}
	}
	lane = end ? ht_lanes_place(&q->lanes, r->ts, end) : 0;
	if (lane < 0)
		return 0;
	while (q->ntid <= (unsigned int)lane) {
		char name[320];

		if (ht_grow((void **)&q->tid, &q->captid, sizeof *q->tid, q->ntid + 1))
			return 0;
		q->tid[q->ntid] = QUEUE_TID_BASE + c->next_qtid++;
		/* "GPU 0 / queue 0x..", "GPU 0 (name) / queue 0x.. (lane 2)" */
		snprintf(name, sizeof name, "GPU %u%s%.256s%s / queue 0x%" PRIx64, r->device,
			 devname ? " (" : "", devname ? devname : "", devname ? ")" : "", r->queue);
		if (q->ntid)
			snprintf(name + strlen(name), sizeof name - strlen(name), " (lane %u)",
				 q->ntid + 1);
		meta_name(c, "thread_name", r->pid, q->tid[q->ntid], name);
		sort_index(c, r->pid, q->tid[q->ntid]);
		q->ntid++;
	}
	return q->tid[lane];
}

static int device_command(struct ch *c, const struct ht_tl_record *r)
{
	int32_t tid = queue_tid(c, r, r->end > r->ts ? r->end : r->ts + 1);
	int first = 1;
	FILE *f = c->f;

	if (!tid)
		return -ENOMEM;
	ev_open(c, "X", r->name ? r->name : "?", r->category, r->pid, tid, r->ts);
	fputs(",\"dur\":", f);
	put_us(f, (int64_t)(r->end - r->ts));
	fputs(",\"args\":{", f);
	if (r->corr)
		arg_u64(f, &first, "corr", r->corr);
	if (r->status) {
		arg_key(f, &first, "status");
		fprintf(f, "%" PRId32, r->status);
	}
	if (r->bytes)
		arg_u64(f, &first, "bytes", r->bytes);
	for (int k = 0; k < 2; k++) {
		const uint64_t *v = k ? r->local : r->global;

		if (!v[0])
			continue;
		arg_key(f, &first, k ? "local_work_size" : "global_work_size");
		fprintf(f, "[%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", v[0], v[1], v[2]);
	}
	if (r->queued) {
		arg_key(f, &first, "queued_us");
		put_us(f, rel(c, r->queued));
	}
	if (r->submit) {
		arg_key(f, &first, "submit_us");
		put_us(f, rel(c, r->submit));
	}
	if (r->queued && r->submit >= r->queued)
		arg_u64(f, &first, "host_queue_wait_ns", r->submit - r->queued);
	if (r->submit && r->ts >= r->submit)
		arg_u64(f, &first, "device_queue_wait_ns", r->ts - r->submit);
	fputs("}}", f);
	if (r->corr)
		return flow_side(c, ht_export_flow_id(r->pid, r->corr), 1, r->pid, tid,
				 r->ts + (r->end - r->ts) / 2);
	return 0;
}

static int record(struct ch *c, const struct ht_tl_record *r)
{
	int first = 1;

	if (!c->have_base) {
		char mono[32];

		c->have_base = 1;
		c->base = r->ts;
		if (!ht_trace_index_get(c->trace, "start_monotonic_ns", mono, sizeof mono))
			c->base = strtoull(mono, NULL, 10);
	}
	switch (r->kind) {
	case HT_TL_PROCESS:
		meta_name(c, "process_name", r->pid, r->pid, r->name ? r->name : "");
		break;
	case HT_TL_THREAD:
		if (r->name && *r->name)
			meta_name(c, "thread_name", r->pid, r->tid, r->name);
		break;
	case HT_TL_QUEUE:
		return queue_tid(c, r, 0) ? 0 : -ENOMEM;
	case HT_TL_SLICE_BEGIN:
		return slice_begin(c, r);
	case HT_TL_SLICE_END:
		return slice_end(c, r);
	case HT_TL_INSTANT:
		ev_open(c, "i", r->name ? r->name : "?", r->category, r->pid, r->tid, r->ts);
		fputs(",\"s\":\"t\",\"args\":{", c->f);
		args_from(c->f, &first, r);
		fputs("}}", c->f);
		break;
	case HT_TL_COUNTER:
		ev_open(c, "C", r->name ? r->name : "?", NULL, r->pid, r->tid, r->ts);
		fprintf(c->f, ",\"id\":\"%" PRId32 "\",\"args\":{\"value\":", r->tid);
		put_double(c->f, r->value);
		fputs("}}", c->f);
		break;
	case HT_TL_DEVICE:
		return device_command(c, r);
	case HT_TL_CPU_STATE:
		return cpu_state(c, r);
	case HT_TL_MPI:
		return mpi_flow(c, r);
	case HT_TL_LOST:
		ev_open(c, "i", "hetrace: events lost", "hetrace", r->pid, r->tid ? r->tid : r->pid,
			r->ts);
		fprintf(c->f, ",\"s\":\"%s\",\"args\":{\"events\":%" PRIu64 "}}",
			r->tid ? "t" : "p", r->count);
		break;
	default:
		break; /* clock anchors, OS notes, stream ends: nothing to draw */
	}
	return 0;
}

/* otherData: where the times are relative to, and what the trace was. */
static void other_data(struct ch *c, const struct ht_timeline *tl)
{
	static const char *const keys[] = {"hetrace_version", "host", "command"};
	char buf[4096];

	fprintf(c->f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"hetrace\"");
	for (unsigned int i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (ht_trace_index_get(c->trace, keys[i], buf, sizeof buf))
			continue;
		fprintf(c->f, ",\"%s\":", keys[i]);
		ht_json_str(c->f, buf);
	}
	fprintf(c->f,
		",\"clock\":\"CLOCK_MONOTONIC\",\"trace_start_ns\":%" PRIu64
		",\"device_commands\":%" PRIu64 ",\"reorder_overflows\":%" PRIu64 "}}\n",
		c->base, tl->device_commands, tl->reorder_overflows);
}

int ht_export_chrome(struct ht_trace *t, FILE *f, struct ht_read_error *err)
{
	struct ch c = {.f = f, .trace = t};
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	uint64_t dropped = 0;
	int rc = 0, trc;

	trc = ht_timeline_open(&tl, t, NULL);
	if (trc) {
		*err = tl.err; /* a failed open leaves nothing to close */
		return trc;
	}
	fputs("{\"traceEvents\":[", f);
	while ((trc = ht_export_next(&tl, &r, &dropped)) > 0) {
		rc = record(&c, r);
		if (rc)
			break;
	}
	if (trc < 0) {
		rc = trc;
		*err = tl.err;
	} else if (!rc) {
		other_data(&c, &tl);
		if (ferror(f))
			rc = -EIO;
		ht_export_warn_dropped(dropped);
		ht_mpi_flows_warn(&c.mpi);
	}
	if (rc && !err->msg[0])
		snprintf(err->msg, sizeof err->msg, "writing the Chrome JSON trace: %s",
			 strerror(-rc));
	ht_timeline_close(&tl);
	ht_export_map_destroy(&c.threads, thread_free);
	ht_export_map_destroy(&c.queues, queue_free);
	ht_export_map_destroy(&c.flows, free);
	ht_mpi_flows_release(&c.mpi);
	return rc;
}
