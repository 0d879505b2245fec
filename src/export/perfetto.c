/*
 * `hetrace export --format perfetto`: the timeline as a Perfetto Trace
 * protobuf, hand-encoded (protobuf.h), streamed packet by packet.
 *
 * Layout of the output (field numbers: shared/ref/trace-formats.md §2):
 *  - sequence 1: a ClockSnapshot declaring CLOCK_MONOTONIC the primary trace
 *    clock (plus REALTIME when the trace index has the session's start
 *    anchors), the process track descriptors, and process-wide marks;
 *  - one sequence per thread track and one per device queue, each opening
 *    with SEQ_INCREMENTAL_STATE_CLEARED|SEQ_NEEDS_INCREMENTAL_STATE and
 *    TracePacketDefaults {timestamp_clock_id = MONOTONIC, track_uuid = its
 *    track}; names, categories and annotation keys are interned per
 *    sequence in the packet that first uses them;
 *  - API calls and regions are SLICE_BEGIN/END on the thread track, an API
 *    call's arguments and return code as debug annotations; counters are
 *    COUNTER events on a counter track under the thread; device commands are
 *    slices on their queue's track (overlapping commands on extra "lane"
 *    tracks, so each track nests), linked from their enqueue call by a flow;
 *    OS scheduling intervals are slices on a "CPU state" track per thread;
 *    an MPI message is a flow between an instant "send" in its send and an
 *    instant "receive" where its receive completed (mpi_flows.h).
 *
 * An API call's BEGIN is held back until its END (or the thread's next
 * record) so the flow id, known only at the END, sits on the BEGIN event.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "export/export.h"
#include "export/mpi_flows.h"
#include "export/export_tracks.h"
#include "export/perfetto_stacks.h"
#include "export/protobuf.h"
#include "common/grow.h"

/* TracePacket */
#define PKT_CLOCK_SNAPSHOT 6
#define PKT_TIMESTAMP	   8
#define PKT_SEQ_ID	   10
#define PKT_TRACK_EVENT	   11
#define PKT_INTERNED	   12
#define PKT_SEQ_FLAGS	   13
#define PKT_DEFAULTS	   59
#define PKT_TRACK_DESC	   60
#define SEQ_CLEARED	   1
#define SEQ_NEEDS	   2
/* ClockSnapshot */
#define CS_CLOCKS	  1
#define CS_PRIMARY	  2
#define CS_CLOCK_ID	  1
#define CS_CLOCK_TS	  2
#define CLOCK_REALTIME_ID 1
#define CLOCK_MONO_ID	  3
/* TracePacketDefaults */
#define DEF_CLOCK_ID	58
#define DEF_TRACK_EVENT 11
/* TrackDescriptor */
#define TD_UUID	   1
#define TD_NAME	   2
#define TD_PROCESS 3
#define TD_THREAD  4
#define TD_PARENT  5
#define TD_COUNTER 8
#define PD_PID	   1
#define PD_CMDLINE 2
#define PD_NAME	   6
#define THD_PID	   1
#define THD_TID	   2
#define THD_NAME   5
/* TrackEvent */
#define TE_CATEGORY_IID	  3
#define TE_ANNOTATION	  4
#define TE_TYPE		  9
#define TE_NAME_IID	  10
#define TE_TRACK	  11
#define TE_COUNTER_INT	  30
#define TE_COUNTER_DOUBLE 44
#define TE_FLOW		  47
#define TYPE_BEGIN	  1
#define TYPE_END	  2
#define TYPE_INSTANT	  3
#define TYPE_COUNTER	  4
/* DebugAnnotation */
#define DA_NAME_IID 1
#define DA_UINT	    3
#define DA_INT	    4
#define DA_DOUBLE   5
#define DA_STRING   6
#define DA_POINTER  7
/* InternedData tables, also the index into pf_seq.intern */
#define IN_CATEGORIES  1
#define IN_NAMES       2
#define IN_ANNOTATIONS 3

#define GLOBAL_SEQ 1
#define MAX_ARGS   (HT_TL_ARGS + 12)

struct pf_seq {
	uint32_t id;
	struct ht_map intern[4]; /* by IN_*: string -> iid */
	uint64_t next_iid[4];
};

struct pf_proc {
	int32_t pid;
	uint64_t uuid;
};

struct pf_thread {
	struct pf_seq seq;
	struct pf_proc *proc;
	int32_t tid;
	uint64_t uuid;
	uint64_t cpu_uuid; /* its "CPU state" child track, 0 until needed */
	/* an API call's BEGIN held back until its END */
	int pending;
	uint64_t pending_ts;
	char *pending_name;
	size_t pending_cap;
	uint32_t pending_path; /* its calling context (perfetto_stacks.h) */
};

struct pf_queue {
	struct pf_seq seq;
	struct pf_proc *proc;
	uint32_t device;
	uint64_t queue;
	char *devname; /* the device's name, NULL if unknown */
	struct ht_lanes lanes;
	uint64_t *lane_uuid;
	unsigned int nlane_uuid;
	size_t cap_lane_uuid;
};

struct pf_queue_key {
	int32_t pid;
	uint32_t device;
	uint64_t queue;
};

/* One event to write: everything interned before the TrackEvent opens. */
struct pf_event {
	struct pf_seq *seq;
	uint64_t ts;
	int type;
	uint64_t track; /* 0: the sequence's default track */
	const char *name, *cat;
	struct ht_tl_arg args[MAX_ARGS];
	unsigned int nargs;
	uint64_t flow;
	int has_value;
	double value;
	uint32_t path; /* API slices: the calling context, written as TrackEvent.callstack */
};

struct pf {
	FILE *f;
	struct ht_trace *trace;
	struct ht_pb pb;
	struct ht_map procs;		/* pid -> struct pf_proc * */
	struct ht_map threads;		/* pid << 32 | tid -> struct pf_thread * */
	struct ht_map queues;		/* struct pf_queue_key -> struct pf_queue * */
	struct ht_map counters;		/* pid, tid and name -> track uuid */
	struct pf_thread **thread_list; /* in creation order: flushed and freed in it */
	size_t nthreads, cap_threads;
	struct pf_seq global;
	uint64_t next_uuid;
	uint32_t next_seq;
	int clock_written;
	struct pf_event ev;
	char work[2][64]; /* work-size strings of the current device command */
	const struct ht_timeline *tl;
	struct ht_pf_stacks *stacks; /* calling contexts and CPU samples */
	uint32_t sample_seq;	     /* the samples' sequence, 0 until the first */
	struct ht_mpi_flows mpi;
};

static uint64_t new_uuid(struct pf *p)
{
	return ++p->next_uuid;
}

static void seq_fini(struct pf_seq *s)
{
	for (int i = 0; i < 4; i++)
		ht_map_release(&s->intern[i]);
}

static void thread_free(void *v)
{
	struct pf_thread *th = v;

	seq_fini(&th->seq);
	free(th->pending_name);
	free(th);
}

static void queue_free(void *v)
{
	struct pf_queue *q = v;

	seq_fini(&q->seq);
	free(q->devname);
	ht_lanes_fini(&q->lanes);
	free(q->lane_uuid);
	free(q);
}

static void pkt_open(struct pf *p, uint32_t seq, uint64_t ts, uint32_t flags)
{
	ht_pb_begin(&p->pb, 1); /* Trace.packet */
	if (ts)
		ht_pb_varint(&p->pb, PKT_TIMESTAMP, ts);
	ht_pb_varint(&p->pb, PKT_SEQ_ID, seq);
	if (flags)
		ht_pb_varint(&p->pb, PKT_SEQ_FLAGS, flags);
}

/* Writes out the packets in pb. */
static int flush(struct pf *p)
{
	if (p->pb.error)
		return p->pb.error;
	if (fwrite(p->pb.buf, 1, p->pb.len, p->f) != p->pb.len)
		return -EIO;
	ht_pb_reset(&p->pb);
	return 0;
}

static int pkt_close(struct pf *p)
{
	ht_pb_end(&p->pb);
	return flush(p);
}

/*
 * The first packet of a sequence: clears its incremental state and sets
 * the defaults (our timestamps are CLOCK_MONOTONIC; events go to `track`
 * unless they name another).
 */
static int seq_start(struct pf *p, struct pf_seq *s, uint64_t track)
{
	s->id = ++p->next_seq;
	pkt_open(p, s->id, 0, SEQ_CLEARED | SEQ_NEEDS);
	ht_pb_begin(&p->pb, PKT_DEFAULTS);
	ht_pb_varint(&p->pb, DEF_CLOCK_ID, CLOCK_MONO_ID);
	if (track) {
		ht_pb_begin(&p->pb, DEF_TRACK_EVENT);
		ht_pb_varint(&p->pb, TE_TRACK, track);
		ht_pb_end(&p->pb);
	}
	ht_pb_end(&p->pb);
	return pkt_close(p);
}

/* Return: the iid of str in table `tab` of the sequence, adding it to the open packet. */
static uint64_t intern(struct pf *p, struct pf_seq *s, int tab, const char *str, int *open)
{
	int created;
	uint64_t *v = ht_map_str(&s->intern[tab], str, s->next_iid[tab] + 1, &created);

	if (!v) {
		p->pb.error = -ENOMEM;
		return 0;
	}
	if (!created)
		return *v;
	s->next_iid[tab]++;
	if (!*open) {
		ht_pb_begin(&p->pb, PKT_INTERNED);
		*open = 1;
	}
	ht_pb_begin(&p->pb, (uint32_t)tab);
	ht_pb_varint(&p->pb, 1, s->next_iid[tab]);
	ht_pb_string(&p->pb, 2, str);
	ht_pb_end(&p->pb);
	return s->next_iid[tab];
}

static void ev_reset(struct pf_event *e, struct pf_seq *seq, uint64_t ts, int type)
{
	e->seq = seq;
	e->ts = ts;
	e->type = type;
	e->track = 0;
	e->name = e->cat = NULL;
	e->nargs = 0;
	e->flow = 0;
	e->has_value = 0;
	e->path = 0;
}

static void ev_arg(struct pf_event *e, const char *key, enum ht_tl_arg_type type, uint64_t u)
{
	struct ht_tl_arg *a;

	if (e->nargs == MAX_ARGS)
		return;
	a = &e->args[e->nargs++];
	a->key = key;
	a->type = type;
	a->v.u = u;
}

static void ev_arg_str(struct pf_event *e, const char *key, const char *v)
{
	if (e->nargs == MAX_ARGS)
		return;
	e->args[e->nargs].key = key;
	e->args[e->nargs].type = HT_TL_STRING;
	e->args[e->nargs++].v.s = v;
}

static void ev_args_from(struct pf_event *e, const struct ht_tl_record *r)
{
	for (unsigned int i = 0; i < r->nargs && e->nargs < MAX_ARGS; i++)
		e->args[e->nargs++] = r->args[i];
}

static int ev_write(struct pf *p, struct pf_event *e)
{
	uint64_t name = 0, cat = 0, keys[MAX_ARGS];
	int open = 0;

	pkt_open(p, e->seq->id, e->ts, SEQ_NEEDS);
	if (e->name)
		name = intern(p, e->seq, IN_NAMES, e->name, &open);
	if (e->cat)
		cat = intern(p, e->seq, IN_CATEGORIES, e->cat, &open);
	for (unsigned int i = 0; i < e->nargs; i++)
		keys[i] =
		    intern(p, e->seq, IN_ANNOTATIONS, e->args[i].key ? e->args[i].key : "?", &open);
	if (open)
		ht_pb_end(&p->pb);
	ht_pb_begin(&p->pb, PKT_TRACK_EVENT);
	ht_pb_varint(&p->pb, TE_TYPE, (uint64_t)e->type);
	if (e->track)
		ht_pb_varint(&p->pb, TE_TRACK, e->track);
	if (name)
		ht_pb_varint(&p->pb, TE_NAME_IID, name);
	if (cat)
		ht_pb_varint(&p->pb, TE_CATEGORY_IID, cat);
	for (unsigned int i = 0; i < e->nargs; i++) {
		const struct ht_tl_arg *a = &e->args[i];

		ht_pb_begin(&p->pb, TE_ANNOTATION);
		ht_pb_varint(&p->pb, DA_NAME_IID, keys[i]);
		switch (a->type) {
		case HT_TL_INT:
			ht_pb_int(&p->pb, DA_INT, a->v.i);
			break;
		case HT_TL_UINT:
			ht_pb_varint(&p->pb, DA_UINT, a->v.u);
			break;
		case HT_TL_HEX:
			ht_pb_varint(&p->pb, DA_POINTER, a->v.u);
			break;
		case HT_TL_DOUBLE:
			ht_pb_double(&p->pb, DA_DOUBLE, a->v.f);
			break;
		case HT_TL_STRING:
			ht_pb_string(&p->pb, DA_STRING, a->v.s);
			break;
		}
		ht_pb_end(&p->pb);
	}
	if (e->has_value) {
		if (e->value >= -9e18 && e->value <= 9e18 && e->value == (double)(int64_t)e->value)
			ht_pb_int(&p->pb, TE_COUNTER_INT, (int64_t)e->value);
		else
			ht_pb_double(&p->pb, TE_COUNTER_DOUBLE, e->value);
	}
	if (e->flow)
		ht_pb_fixed64(&p->pb, TE_FLOW, e->flow);
	if (e->path)
		ht_pf_stacks_inline(p->stacks, &p->pb, e->path);
	ht_pb_end(&p->pb);
	return pkt_close(p);
}

/* Writes the clock snapshot once, before anything that carries a timestamp. */
static int clock_snapshot(struct pf *p, uint64_t first_ts)
{
	char mono[32], real[32];
	uint64_t m = first_ts, rt = 0;
	int rc;

	if (p->clock_written)
		return 0;
	p->clock_written = 1;
	if (!ht_trace_index_get(p->trace, "start_monotonic_ns", mono, sizeof mono) &&
	    !ht_trace_index_get(p->trace, "start_realtime_ns", real, sizeof real)) {
		m = strtoull(mono, NULL, 10);
		rt = strtoull(real, NULL, 10);
	}
	pkt_open(p, GLOBAL_SEQ, 0, 0);
	ht_pb_begin(&p->pb, PKT_CLOCK_SNAPSHOT);
	ht_pb_begin(&p->pb, CS_CLOCKS);
	ht_pb_varint(&p->pb, CS_CLOCK_ID, CLOCK_MONO_ID);
	ht_pb_varint(&p->pb, CS_CLOCK_TS, m);
	ht_pb_end(&p->pb);
	if (rt) {
		ht_pb_begin(&p->pb, CS_CLOCKS);
		ht_pb_varint(&p->pb, CS_CLOCK_ID, CLOCK_REALTIME_ID);
		ht_pb_varint(&p->pb, CS_CLOCK_TS, rt);
		ht_pb_end(&p->pb);
	}
	ht_pb_varint(&p->pb, CS_PRIMARY, CLOCK_MONO_ID);
	ht_pb_end(&p->pb);
	rc = pkt_close(p);
	if (rc)
		return rc;
	/* sequence 1 (process tracks and process-wide marks) */
	p->next_seq = GLOBAL_SEQ - 1;
	return seq_start(p, &p->global, 0);
}

static int proc_descriptor(struct pf *p, struct pf_proc *pr, const char *name, const char *cmd)
{
	pkt_open(p, GLOBAL_SEQ, 0, 0);
	ht_pb_begin(&p->pb, PKT_TRACK_DESC);
	ht_pb_varint(&p->pb, TD_UUID, pr->uuid);
	ht_pb_begin(&p->pb, TD_PROCESS);
	ht_pb_int(&p->pb, PD_PID, pr->pid);
	if (cmd && *cmd)
		ht_pb_string(&p->pb, PD_CMDLINE, cmd);
	if (name && *name)
		ht_pb_string(&p->pb, PD_NAME, name);
	ht_pb_end(&p->pb);
	ht_pb_end(&p->pb);
	return pkt_close(p);
}

/*
 * Return: the process's track, created and described on first use (named
 * `name`, which may be NULL); NULL with *rc set on error.
 */
static struct pf_proc *proc_get(struct pf *p, int32_t pid, const char *name, const char *cmd,
				int *rc)
{
	struct pf_proc *pr = ht_export_map_ptr(ht_map_find_u64(&p->procs, (uint32_t)pid));

	if (pr)
		return name ? (*rc = proc_descriptor(p, pr, name, cmd)) ? NULL : pr : pr;
	pr = calloc(1, sizeof *pr);
	if (!pr || !ht_map_u64(&p->procs, (uint32_t)pid, (uintptr_t)pr, NULL)) {
		free(pr);
		*rc = -ENOMEM;
		return NULL;
	}
	pr->pid = pid;
	pr->uuid = new_uuid(p);
	*rc = proc_descriptor(p, pr, name, cmd);
	return *rc ? NULL : pr;
}

static int thread_descriptor(struct pf *p, struct pf_thread *th, const char *name)
{
	pkt_open(p, th->seq.id, 0, 0);
	ht_pb_begin(&p->pb, PKT_TRACK_DESC);
	ht_pb_varint(&p->pb, TD_UUID, th->uuid);
	ht_pb_varint(&p->pb, TD_PARENT, th->proc->uuid);
	ht_pb_begin(&p->pb, TD_THREAD);
	ht_pb_int(&p->pb, THD_PID, th->proc->pid);
	ht_pb_int(&p->pb, THD_TID, th->tid);
	if (name && *name)
		ht_pb_string(&p->pb, THD_NAME, name);
	ht_pb_end(&p->pb);
	ht_pb_end(&p->pb);
	return pkt_close(p);
}

/* Return: the thread's track, created on first use; a name (may be NULL) is (re)described. */
static struct pf_thread *thread_get(struct pf *p, int32_t pid, int32_t tid, const char *name,
				    int *rc)
{
	uint64_t key = (uint64_t)(uint32_t)pid << 32 | (uint32_t)tid;
	struct pf_thread *th = ht_export_map_ptr(ht_map_find_u64(&p->threads, key));
	struct pf_proc *pr;

	if (th)
		return name ? (*rc = thread_descriptor(p, th, name)) ? NULL : th : th;
	pr = proc_get(p, pid, NULL, NULL, rc);
	if (!pr)
		return NULL;
	if (ht_grow((void **)&p->thread_list, &p->cap_threads, sizeof *p->thread_list,
		    p->nthreads + 1)) {
		*rc = -ENOMEM;
		return NULL;
	}
	th = calloc(1, sizeof *th);
	if (!th || !ht_map_u64(&p->threads, key, (uintptr_t)th, NULL)) {
		free(th);
		*rc = -ENOMEM;
		return NULL;
	}
	p->thread_list[p->nthreads++] = th;
	th->proc = pr;
	th->tid = tid;
	th->uuid = new_uuid(p);
	*rc = seq_start(p, &th->seq, th->uuid);
	if (!*rc)
		*rc = thread_descriptor(p, th, name);
	return *rc ? NULL : th;
}

static int queue_lane_descriptor(struct pf *p, struct pf_queue *q, unsigned int lane)
{
	char name[320];

	/* "GPU 0 / queue 0x..", "GPU 0 (name) / queue 0x.. (lane 2)"; cut names are repaired */
	snprintf(name, sizeof name, "GPU %u%s%.256s%s / queue 0x%" PRIx64, q->device,
		 q->devname ? " (" : "", q->devname ? q->devname : "", q->devname ? ")" : "",
		 q->queue);
	if (lane)
		snprintf(name + strlen(name), sizeof name - strlen(name), " (lane %u)", lane + 1);
	pkt_open(p, q->seq.id, 0, 0);
	ht_pb_begin(&p->pb, PKT_TRACK_DESC);
	ht_pb_varint(&p->pb, TD_UUID, q->lane_uuid[lane]);
	ht_pb_varint(&p->pb, TD_PARENT, q->proc->uuid);
	ht_pb_string(&p->pb, TD_NAME, name);
	ht_pb_end(&p->pb);
	return pkt_close(p);
}

static struct pf_queue *queue_get(struct pf *p, const struct ht_tl_record *r, int *rc)
{
	struct pf_queue_key key = {r->pid, r->device, r->queue};
	struct pf_queue *q = ht_export_map_ptr(ht_map_find_bytes(&p->queues, &key, sizeof key));
	struct pf_proc *pr;
	const char *devname;

	if (q)
		return q;
	pr = proc_get(p, r->pid, NULL, NULL, rc);
	if (!pr)
		return NULL;
	q = calloc(1, sizeof *q);
	if (!q || ht_grow((void **)&q->lane_uuid, &q->cap_lane_uuid, sizeof *q->lane_uuid, 1) ||
	    !ht_map_bytes(&p->queues, &key, sizeof key, (uintptr_t)q, NULL)) {
		if (q)
			free(q->lane_uuid);
		free(q);
		*rc = -ENOMEM;
		return NULL;
	}
	q->proc = pr;
	q->device = r->device;
	q->queue = r->queue;
	devname = r->kind == HT_TL_QUEUE ? r->name : r->text;
	if (devname && *devname && strcmp(devname, "device"))
		q->devname = strdup(devname); /* NULL (no name) if out of memory */
	q->lane_uuid[0] = new_uuid(p);
	q->nlane_uuid = 1;
	*rc = seq_start(p, &q->seq, q->lane_uuid[0]);
	if (!*rc)
		*rc = queue_lane_descriptor(p, q, 0);
	return *rc ? NULL : q;
}

/* Return: the track of lane `lane` of the queue (described on first use), 0 on error. */
static uint64_t queue_lane(struct pf *p, struct pf_queue *q, unsigned int lane, int *rc)
{
	if (lane >= q->nlane_uuid) {
		if (ht_grow((void **)&q->lane_uuid, &q->cap_lane_uuid, sizeof *q->lane_uuid,
			    (size_t)lane + 1)) {
			*rc = -ENOMEM;
			return 0;
		}
		while (q->nlane_uuid <= lane) {
			q->lane_uuid[q->nlane_uuid] = new_uuid(p);
			*rc = queue_lane_descriptor(p, q, q->nlane_uuid++);
			if (*rc)
				return 0;
		}
	}
	return q->lane_uuid[lane];
}

static uint64_t counter_track(struct pf *p, struct pf_thread *th, const char *name, int *rc)
{
	size_t n = strlen(name);
	char stack[256], *key = n + 8 <= sizeof stack ? stack : malloc(n + 8);
	uint64_t uuid = 0, *v;
	int created;

	if (!key) {
		*rc = -ENOMEM;
		return 0;
	}
	memcpy(key, &th->proc->pid, 4);
	memcpy(key + 4, &th->tid, 4);
	memcpy(key + 8, name, n);
	v = ht_map_bytes(&p->counters, key, n + 8, p->next_uuid + 1, &created);
	if (!v) {
		*rc = -ENOMEM;
		goto out;
	}
	uuid = *v;
	if (!created)
		goto out;
	new_uuid(p);
	pkt_open(p, th->seq.id, 0, 0);
	ht_pb_begin(&p->pb, PKT_TRACK_DESC);
	ht_pb_varint(&p->pb, TD_UUID, uuid);
	ht_pb_varint(&p->pb, TD_PARENT, th->uuid);
	ht_pb_string(&p->pb, TD_NAME, name);
	ht_pb_begin(&p->pb, TD_COUNTER);
	ht_pb_end(&p->pb);
	ht_pb_end(&p->pb);
	*rc = pkt_close(p);
	if (*rc)
		uuid = 0;
out:
	if (key != stack)
		free(key);
	return uuid;
}

/* Writes a held-back API BEGIN without a flow (something else came first). */
static int flush_pending(struct pf *p, struct pf_thread *th)
{
	struct pf_event *e = &p->ev;

	if (!th->pending)
		return 0;
	th->pending = 0;
	ev_reset(e, &th->seq, th->pending_ts, TYPE_BEGIN);
	e->name = th->pending_name;
	e->cat = "api";
	e->path = th->pending_path;
	return ev_write(p, e);
}

static int hold_begin(struct pf *p, struct pf_thread *th, const struct ht_tl_record *r)
{
	const char *name = r->name ? r->name : "?";
	size_t n = strlen(name) + 1;

	if (ht_grow((void **)&th->pending_name, &th->pending_cap, 1, n))
		return -ENOMEM;
	memcpy(th->pending_name, name, n);
	th->pending_ts = r->ts;
	th->pending_path = ht_pf_stacks_path(p->stacks, p->tl, r);
	th->pending = 1;
	return 0;
}

static int slice_end(struct pf *p, struct pf_thread *th, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	int api = r->category && !strcmp(r->category, "api");
	uint64_t flow = api && r->corr ? ht_export_flow_id(r->pid, r->corr) : 0;
	const char *name = r->name ? r->name : "?";
	int rc;

	if (th->pending && !strcmp(th->pending_name, name)) {
		/* the common case: a leaf API call, written BEGIN (with all) + END */
		th->pending = 0;
		ev_reset(e, &th->seq, th->pending_ts, TYPE_BEGIN);
		e->name = name;
		e->cat = r->category;
		e->flow = flow;
		e->path = th->pending_path;
		if (api)
			ev_arg(e, "ret", HT_TL_INT, (uint64_t)(int64_t)r->ret);
		ev_args_from(e, r);
		rc = ev_write(p, e);
		if (rc)
			return rc;
		ev_reset(e, &th->seq, r->ts, TYPE_END);
		return ev_write(p, e);
	}
	rc = flush_pending(p, th);
	if (rc)
		return rc;
	ev_reset(e, &th->seq, r->ts, TYPE_END);
	e->flow = flow;
	if (api)
		ev_arg(e, "ret", HT_TL_INT, (uint64_t)(int64_t)r->ret);
	ev_args_from(e, r);
	return ev_write(p, e);
}

static const char *work_size(char *buf, size_t cap, const uint64_t v[3])
{
	int dims = v[2] ? 3 : v[1] ? 2 : 1;

	if (dims == 1)
		snprintf(buf, cap, "%" PRIu64, v[0]);
	else if (dims == 2)
		snprintf(buf, cap, "%" PRIu64 "x%" PRIu64, v[0], v[1]);
	else
		snprintf(buf, cap, "%" PRIu64 "x%" PRIu64 "x%" PRIu64, v[0], v[1], v[2]);
	return buf;
}

static int device_command(struct pf *p, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	struct pf_queue *q;
	uint64_t track;
	int rc = 0, lane;

	q = queue_get(p, r, &rc);
	if (!q)
		return rc;
	lane = ht_lanes_place(&q->lanes, r->ts, r->end);
	if (lane < 0)
		return lane;
	track = queue_lane(p, q, (unsigned int)lane, &rc);
	if (!track)
		return rc;
	ev_reset(e, &q->seq, r->ts, TYPE_BEGIN);
	e->track = lane ? track : 0;
	e->name = r->name ? r->name : "?";
	e->cat = r->category;
	/*
	 * The same flow id as its enqueue call: trace_processor links the
	 * events of one id in time order, whichever comes first in the file
	 * (a blocking call's END, and so its BEGIN, follows its command here).
	 */
	e->flow = r->corr ? ht_export_flow_id(r->pid, r->corr) : 0;
	if (r->corr)
		ev_arg(e, "corr", HT_TL_UINT, r->corr);
	if (r->status)
		ev_arg(e, "status", HT_TL_INT, (uint64_t)(int64_t)r->status);
	if (r->bytes)
		ev_arg(e, "bytes", HT_TL_UINT, r->bytes);
	if (r->global[0])
		ev_arg_str(e, "global_work_size",
			   work_size(p->work[0], sizeof p->work[0], r->global));
	if (r->local[0])
		ev_arg_str(e, "local_work_size",
			   work_size(p->work[1], sizeof p->work[1], r->local));
	if (r->queued)
		ev_arg(e, "queued_ns", HT_TL_UINT, r->queued);
	if (r->submit)
		ev_arg(e, "submit_ns", HT_TL_UINT, r->submit);
	if (r->queued && r->submit >= r->queued)
		ev_arg(e, "host_queue_wait_ns", HT_TL_UINT, r->submit - r->queued);
	if (r->submit && r->ts >= r->submit)
		ev_arg(e, "device_queue_wait_ns", HT_TL_UINT, r->ts - r->submit);
	rc = ev_write(p, e);
	if (rc)
		return rc;
	ev_reset(e, &q->seq, r->end, TYPE_END);
	e->track = lane ? track : 0;
	return ev_write(p, e);
}

/* OS scheduling: a slice per interval on the thread's "CPU state" track. */
static int cpu_state(struct pf *p, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	struct pf_thread *th;
	int rc = 0;

	th = thread_get(p, r->pid, r->tid, NULL, &rc);
	if (!th)
		return rc;
	if (!th->cpu_uuid) {
		th->cpu_uuid = new_uuid(p);
		pkt_open(p, th->seq.id, 0, 0);
		ht_pb_begin(&p->pb, PKT_TRACK_DESC);
		ht_pb_varint(&p->pb, TD_UUID, th->cpu_uuid);
		ht_pb_varint(&p->pb, TD_PARENT, th->uuid);
		ht_pb_string(&p->pb, TD_NAME, "CPU state");
		ht_pb_end(&p->pb);
		rc = pkt_close(p);
		if (rc)
			return rc;
	}
	/* on the thread's sequence, but its own track: the API-call hold is unaffected */
	ev_reset(e, &th->seq, r->ts, TYPE_BEGIN);
	e->track = th->cpu_uuid;
	e->name = r->name ? r->name : "?";
	e->cat = r->category ? r->category : "cpu_state";
	ev_args_from(e, r);
	rc = ev_write(p, e);
	if (rc)
		return rc;
	ev_reset(e, &th->seq, r->end > r->ts ? r->end : r->ts, TYPE_END);
	e->track = th->cpu_uuid;
	return ev_write(p, e);
}

static int lost(struct pf *p, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	struct pf_thread *th = NULL;
	struct pf_proc *pr;
	int rc = 0;

	if (r->tid) {
		th = thread_get(p, r->pid, r->tid, NULL, &rc);
		if (!th || (rc = flush_pending(p, th)))
			return rc;
		ev_reset(e, &th->seq, r->ts, TYPE_INSTANT);
	} else {
		pr = proc_get(p, r->pid, NULL, NULL, &rc);
		if (!pr)
			return rc;
		ev_reset(e, &p->global, r->ts, TYPE_INSTANT);
		e->track = pr->uuid;
	}
	e->name = "hetrace: events lost";
	e->cat = "hetrace";
	ev_arg(e, "events", HT_TL_UINT, r->count);
	return ev_write(p, e);
}

/* A CPU sample: a PerfSample on the samples' sequence (perfetto_stacks.h). */
static int cpu_sample(struct pf *p, const struct ht_tl_record *r)
{
	uint32_t flags = SEQ_NEEDS;

	if (!p->sample_seq) {
		struct pf_seq s = {0};
		int rc = seq_start(p, &s, 0);

		if (rc)
			return rc;
		p->sample_seq = s.id;
	}
	ht_pf_stacks_sample(p->stacks, &p->pb, p->sample_seq, flags, r,
			    ht_pf_stacks_path(p->stacks, p->tl, r));
	return flush(p);
}

/* An MPI message's side as an instant on the thread, carrying the message's flow. */
static int mpi_flow(struct pf *p, struct pf_thread *th, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	uint64_t id;
	int side = ht_mpi_flow(&p->mpi, r, &id);

	if (side <= 0)
		return side;
	ev_reset(e, &th->seq, r->ts, TYPE_INSTANT);
	e->name = side == HT_MPI_FLOW_START ? "send" : "receive";
	e->cat = "mpi";
	e->flow = id;
	return ev_write(p, e);
}

static int record(struct pf *p, const struct ht_tl_record *r)
{
	struct pf_event *e = &p->ev;
	struct pf_thread *th;
	int rc = clock_snapshot(p, r->ts);

	if (rc)
		return rc;
	switch (r->kind) {
	case HT_TL_PROCESS:
		return proc_get(p, r->pid, r->name ? r->name : "", r->text, &rc) ? 0 : rc;
	case HT_TL_QUEUE:
		return queue_get(p, r, &rc) ? 0 : rc;
	case HT_TL_DEVICE:
		return device_command(p, r);
	case HT_TL_LOST:
		return lost(p, r);
	case HT_TL_CPU_STATE:
		return cpu_state(p, r);
	case HT_TL_SAMPLE:
		return cpu_sample(p, r);
	case HT_TL_TASK:
	case HT_TL_ANCHOR:
	case HT_TL_OS_STATUS:
	case HT_TL_STREAM_END:
	case HT_TL_CLOCK_PAIR:
	case HT_TL_DEFINITION:
		return 0; /* nothing to draw */
	default:
		break;
	}
	if (r->kind == HT_TL_THREAD) {
		th = thread_get(p, r->pid, r->tid, r->name ? r->name : "", &rc);
		return th ? flush_pending(p, th) : rc;
	}
	th = thread_get(p, r->pid, r->tid, NULL, &rc);
	if (!th)
		return rc;
	if (r->kind == HT_TL_SLICE_END)
		return slice_end(p, th, r);
	rc = flush_pending(p, th);
	if (rc)
		return rc;
	switch (r->kind) {
	case HT_TL_SLICE_BEGIN:
		if (r->category && !strcmp(r->category, "api"))
			return hold_begin(p, th, r);
		ev_reset(e, &th->seq, r->ts, TYPE_BEGIN);
		e->name = r->name ? r->name : "?";
		e->cat = r->category;
		return ev_write(p, e);
	case HT_TL_INSTANT:
		ev_reset(e, &th->seq, r->ts, TYPE_INSTANT);
		e->name = r->name ? r->name : "?";
		e->cat = r->category ? r->category : "instant";
		ev_args_from(e, r);
		return ev_write(p, e);
	case HT_TL_MPI:
		return mpi_flow(p, th, r);
	case HT_TL_COUNTER:
		ev_reset(e, &th->seq, r->ts, TYPE_COUNTER);
		e->track = counter_track(p, th, r->name ? r->name : "?", &rc);
		if (!e->track)
			return rc;
		e->has_value = 1;
		e->value = r->value;
		return ev_write(p, e);
	default:
		return 0;
	}
}

static int flush_all_pending(struct pf *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		int rc = flush_pending(p, p->thread_list[i]);

		if (rc)
			return rc;
	}
	return 0;
}

int ht_export_perfetto(struct ht_trace *t, FILE *f, struct ht_read_error *err)
{
	struct ht_timeline tl;
	struct pf *p = calloc(1, sizeof *p);
	const struct ht_tl_record *r;
	uint64_t dropped = 0;
	int rc = 0, trc;

	if (!p)
		return -ENOMEM;
	p->f = f;
	p->trace = t;
	p->tl = &tl;
	ht_pb_init(&p->pb);
	p->stacks = ht_pf_stacks_create();
	if (!p->stacks) {
		free(p);
		return -ENOMEM;
	}
	rc = ht_timeline_open(&tl, t, NULL);
	if (rc) {
		*err = tl.err; /* a failed open leaves nothing to close */
		goto out_free;
	}
	while ((trc = ht_export_next(&tl, &r, &dropped)) > 0) {
		rc = record(p, r);
		if (rc)
			break;
	}
	if (trc < 0) {
		rc = trc;
		*err = tl.err;
	} else if (!rc) {
		rc = flush_all_pending(p);
		ht_export_warn_dropped(dropped);
		ht_mpi_flows_warn(&p->mpi);
	}
	if (rc && !err->msg[0])
		snprintf(err->msg, sizeof err->msg, "writing the Perfetto trace: %s",
			 strerror(-rc));
	ht_timeline_close(&tl);
out_free:
	ht_pb_fini(&p->pb);
	for (size_t i = 0; i < p->nthreads; i++)
		thread_free(p->thread_list[i]);
	free(p->thread_list);
	ht_map_release(&p->threads);
	ht_export_map_destroy(&p->queues, queue_free);
	ht_export_map_destroy(&p->procs, free);
	ht_map_release(&p->counters);
	seq_fini(&p->global);
	ht_pf_stacks_destroy(p->stacks);
	ht_mpi_flows_release(&p->mpi);
	free(p);
	return rc < 0 ? rc : 0;
}
