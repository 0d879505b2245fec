/*
 * `hetrace export --format ctf`: a re-sorted CTF 1.8 copy of a trace for
 * babeltrace2 and Trace Compass, in which device commands sit at their
 * synced host times. The recorder's own trace keeps each device command as
 * one event stamped when it was *collected*; here every command becomes a
 * device_command_begin / device_command_end pair at its start / end mapped
 * to host time by clock sync, in a stream of its own per device queue.
 *
 * Layout: one CTF trace per process (the input's directory name) with a
 * `process` stream, one `thread-<tid>` stream per thread, one
 * `queue-<device>-<queue>` stream per device queue, and per thread a
 * `cpu-<tid>` stream of its OS scheduling states and a `samples-<tid>`
 * stream of its CPU samples (each sample's call stack as function names,
 * outermost first), which the recorder collects apart from the thread's
 * other events. A process's task events (starts and ends of its threads
 * and children) are in its `process` stream, MPI records in their
 * thread's. Events are re-encoded from the timeline (analysis/timeline.h)
 * with names inline, so the export stands alone; its metadata is
 * ctf_tsdl.c's, not the recorder's, so `hetrace check` does not apply to it
 * (babeltrace2 does).
 *
 * Every stream is in time order: the timeline gives each track in order,
 * device ends wait in a per-queue heap until nothing earlier can follow,
 * and a record that would still go back is clamped to its stream's last
 * time and counted. Losses become events_discarded (a running total from
 * 0, raised at a packet boundary) of the stream they were reported on.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/callpaths.h"
#include "analysis/timeline.h"
#include "export/ctf_source.h"
#include "export/ctf_tsdl.h"
#include "export/export.h"
#include "export/export_tracks.h"
#include "export/otf2_ends.h"
#include "format/format.h"
#include "common/grow.h"
#include "common/map.h"

#define PACKET (64u << 10)

struct xproc {
	int32_t pid;
	char dir[256]; /* directory name under the output */
	uint8_t uuid[16];
	char procname[HT_PROCNAME_LEN + 1];
	struct ht_ctf_source src;
};

struct xstream {
	uint32_t proc;
	int sc; /* HT_XS_* */
	char file[64];
	int32_t vtid;
	uint32_t device;
	uint64_t queue;
	uint64_t instance;
	uint8_t *buf;
	size_t cap, pos;
	uint64_t ts_begin, last;
	int started;	  /* the packet in buf has an event */
	uint64_t packets; /* written */
	uint64_t discarded, discarded_written;
	struct ht_ends ends;
};

/* A growable payload under construction. */
struct enc {
	uint8_t *p;
	size_t n, cap;
	int failed;
};

struct cx {
	struct ht_trace *trace;
	const char *dir;
	struct ht_timeline tl;
	int tl_open;
	struct ht_map keys;  /* "p:pid", "t:pid:tid", "q:pid:dev:queue" */
	struct ht_map names; /* device command names waiting for their end */
	char **name_v;
	uint32_t nnames;
	size_t capnames;
	struct xproc *procs;
	uint32_t nprocs;
	size_t capprocs;
	struct xstream *streams;
	uint32_t nstreams;
	size_t capstreams;
	struct enc e;
	struct ht_callpaths cp; /* samples' stacks, resolved as they come */
	int cp_open;
	uint64_t clamped;
	uint64_t dropped; /* records with times past HT_TIME_LIMIT_NS */
	int rc;
	struct ht_read_error *err;
};

static void fail(struct cx *c, int rc, const char *file, const char *what)
{
	if (c->rc)
		return;
	c->rc = rc;
	snprintf(c->err->file, sizeof c->err->file, "%s", file ? file : "");
	c->err->offset = HT_NO_OFFSET;
	snprintf(c->err->msg, sizeof c->err->msg, "CTF export: %s", what);
}

/* ---- payload encoding (little-endian, byte-aligned) ---- */

static void *enc_take(struct enc *e, size_t n)
{
	if (ht_grow((void **)&e->p, &e->cap, 1, e->n + n)) {
		e->failed = 1;
		return NULL;
	}
	e->n += n;
	return e->p + e->n - n;
}

static void put8(struct enc *e, uint8_t v)
{
	uint8_t *p = enc_take(e, 1);

	if (p)
		*p = v;
}

static void put32(struct enc *e, uint32_t v)
{
	void *p = enc_take(e, 4);

	if (p)
		ht_put32(p, v);
}

static void put64(struct enc *e, uint64_t v)
{
	void *p = enc_take(e, 8);

	if (p)
		ht_put64(p, v);
}

static void putf(struct enc *e, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	put64(e, u);
}

/* Strings as CTF reads them: NUL-terminated (a NUL inside cannot occur). */
static void putstr(struct enc *e, const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	void *p = enc_take(e, n);

	if (p)
		memcpy(p, s ? s : "", n);
}

static void putargs(struct enc *e, const struct ht_tl_record *r)
{
	unsigned int n = r->nargs < 255 ? r->nargs : 255;

	put8(e, (uint8_t)n);
	for (unsigned int i = 0; i < n; i++) {
		const struct ht_tl_arg *a = &r->args[i];

		putstr(e, a->key ? a->key : "arg");
		switch (a->type) {
		case HT_TL_INT:
			put8(e, HT_XA_I64);
			put64(e, (uint64_t)a->v.i);
			break;
		case HT_TL_UINT:
			put8(e, HT_XA_U64);
			put64(e, a->v.u);
			break;
		case HT_TL_HEX:
			put8(e, HT_XA_X64);
			put64(e, a->v.u);
			break;
		case HT_TL_DOUBLE:
			put8(e, HT_XA_F64);
			putf(e, a->v.f);
			break;
		case HT_TL_STRING:
			put8(e, HT_XA_STR);
			putstr(e, a->v.s);
			break;
		}
	}
}

/* ---- processes and streams ---- */

static uint32_t proc_of(struct cx *c, int32_t pid)
{
	char k[32];
	int created;
	uint64_t *v;
	uint32_t i;
	struct xproc *p;
	const struct ht_proc_info *pi = NULL;
	char path[4400];

	snprintf(k, sizeof k, "p:%d", (int)pid);
	v = ht_map_str(&c->keys, k, c->nprocs, &created);
	if (!v || (created &&
		   ht_grow((void **)&c->procs, &c->capprocs, sizeof *c->procs, c->nprocs + 1))) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return UINT32_MAX;
	}
	if (!created)
		return (uint32_t)*v;
	i = c->nprocs++;
	p = &c->procs[i];
	p->pid = pid;
	for (unsigned int j = 0; j < c->tl.trace->nprocs; j++)
		if (ht_timeline_proc(&c->tl, j)->pid == pid) {
			pi = ht_timeline_proc(&c->tl, j);
			break;
		}
	if (pi) {
		/* an MPI job's part per rank: "r00001-host/PID-COMM" */
		const char *base =
		    strrchr(pi->tp->name, '/') ? strrchr(pi->tp->name, '/') + 1 : pi->tp->name;

		snprintf(p->dir, sizeof p->dir, "%s", pi->tp->name);
		memcpy(p->uuid, pi->tp->uuid, 16);
		const char *comm =
		    pi->comm[0] || !strchr(base, '-') ? pi->comm : strchr(base, '-') + 1;

		memcpy(p->procname, comm, strnlen(comm, HT_PROCNAME_LEN - 1));
		if (ht_ctf_source_read(c->trace, pi->tp, &p->src))
			snprintf(p->src.hostname, sizeof p->src.hostname, "unknown");
	} else {
		snprintf(p->dir, sizeof p->dir, "%d", (int)pid);
		snprintf(p->src.hostname, sizeof p->src.hostname, "unknown");
	}
	/* a new trace: not the input's uuid */
	p->uuid[6] = (uint8_t)((p->uuid[6] & 0x0f) | 0x40);
	p->uuid[15] ^= 0xe5;
	p->uuid[14] ^= 0x0c;
	snprintf(path, sizeof path, "%s/%s", c->dir, p->dir);
	for (char *sl = path + strlen(c->dir) + 1; (sl = strchr(sl, '/')); sl++) {
		int bad;

		*sl = '\0'; /* the rank's directory first */
		bad = mkdir(path, 0755) && errno != EEXIST;
		*sl = '/';
		if (bad)
			break;
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		fail(c, -errno, p->dir, "cannot create the process directory");
	return i;
}

/*
 * The stream of a thread, its CPU states (cpu = 1: a stream of the thread
 * class of its own, as state intervals arrive later than the thread's
 * events), or a device queue.
 */
/* A thread's streams beside its own (stream_of's sub). */
enum { SUB_NONE, SUB_CPU, SUB_SAMPLES };

static struct xstream *stream_of(struct cx *c, int32_t pid, int sc, int32_t tid, uint32_t device,
				 uint64_t queue, int sub)
{
	char k[80];
	int created;
	uint64_t *v;
	uint32_t proc;
	struct xstream *s;

	if (sc == HT_XS_QUEUE)
		snprintf(k, sizeof k, "q:%d:%u:%" PRIx64, (int)pid, device, queue);
	else
		snprintf(k, sizeof k, "%c:%d:%d", "tcs"[sub], (int)pid, (int)tid);
	v = ht_map_str(&c->keys, k, c->nstreams, &created);
	if (!v) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return NULL;
	}
	if (!created)
		return &c->streams[*v];
	proc = proc_of(c, pid);
	if (proc == UINT32_MAX || c->rc)
		return NULL;
	if (ht_grow((void **)&c->streams, &c->capstreams, sizeof *c->streams, c->nstreams + 1)) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return NULL;
	}
	s = &c->streams[c->nstreams];
	s->proc = proc;
	s->sc = sc;
	s->instance = c->nstreams++;
	s->vtid = sc == HT_XS_QUEUE ? 0 : tid;
	s->device = device;
	s->queue = queue;
	if (sc == HT_XS_QUEUE)
		snprintf(s->file, sizeof s->file, "queue-%u-%" PRIx64, device, queue);
	else if (sub)
		snprintf(s->file, sizeof s->file, "%s-%d", sub == SUB_CPU ? "cpu" : "samples",
			 (int)tid);
	else if (tid == pid)
		snprintf(s->file, sizeof s->file, "process");
	else
		snprintf(s->file, sizeof s->file, "thread-%d", (int)tid);
	return s;
}

/* The process stream and the main thread are one stream, named "process". */
static struct xstream *thread_stream(struct cx *c, int32_t pid, int32_t tid)
{
	return stream_of(c, pid, HT_XS_THREAD, tid ? tid : pid, 0, 0, SUB_NONE);
}

static void packet_open(struct cx *c, struct xstream *s)
{
	const struct xproc *p = &c->procs[s->proc];
	size_t ctx = s->sc == HT_XS_QUEUE ? HT_XC_QUEUE_END : HT_XC_THREAD_END;

	if (ht_grow((void **)&s->buf, &s->cap, 1, PACKET)) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return;
	}
	memset(s->buf, 0, ctx);
	ht_put32(s->buf + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(s->buf + HT_PH_UUID, p->uuid, 16);
	ht_put32(s->buf + HT_PH_STREAM_ID, (uint32_t)s->sc);
	ht_put64(s->buf + HT_PH_INSTANCE, s->instance);
	ht_put32(s->buf + HT_PC_VPID, (uint32_t)p->pid);
	ht_put32(s->buf + HT_PC_VTID, (uint32_t)s->vtid);
	memcpy(s->buf + HT_PC_PROCNAME, p->procname, strnlen(p->procname, HT_PROCNAME_LEN - 1));
	if (s->sc == HT_XS_QUEUE) {
		ht_put32(s->buf + HT_XC_DEVICE, s->device);
		ht_put64(s->buf + HT_XC_QUEUE, s->queue);
	}
	s->pos = ctx;
	s->started = 0;
}

/* Writes the packet in buf (whole: packet_size = content_size) and opens the next. */
static void packet_flush(struct cx *c, struct xstream *s)
{
	const struct xproc *p = &c->procs[s->proc];
	char path[4400];
	int fd;

	if (!s->buf)
		packet_open(c, s);
	if (c->rc)
		return;
	ht_put64(s->buf + HT_PC_TS_BEGIN, s->started ? s->ts_begin : s->last);
	ht_put64(s->buf + HT_PC_TS_END, s->last);
	ht_put64(s->buf + HT_PC_CONTENT, (uint64_t)s->pos * 8);
	ht_put64(s->buf + HT_PC_PACKET, (uint64_t)s->pos * 8);
	ht_put64(s->buf + HT_PC_SEQ, s->packets);
	ht_put64(s->buf + HT_PC_DISCARDED, s->discarded);
	snprintf(path, sizeof path, "%s/%s/%s", c->dir, p->dir, s->file);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fail(c, -errno, s->file, "cannot create the stream file");
		return;
	}
	for (size_t off = 0; off < s->pos;) {
		ssize_t n = write(fd, s->buf + off, s->pos - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fail(c, n < 0 ? -errno : -EIO, s->file, "write error");
			close(fd);
			return;
		}
		off += (size_t)n;
	}
	if (close(fd)) {
		fail(c, -errno, s->file, "write error");
		return;
	}
	s->packets++;
	s->discarded_written = s->discarded;
	packet_open(c, s);
}

/* The time to stamp an event at on s: never before its last one. */
static uint64_t stamp(struct cx *c, struct xstream *s, uint64_t ts)
{
	if (ts < s->last) {
		c->clamped++;
		ts = s->last;
	}
	return ts;
}

/* Appends event id at ts with the payload in c->e. */
static void emit(struct cx *c, struct xstream *s, uint32_t id, uint64_t ts)
{
	size_t need = HT_XE_HEADER + c->e.n;

	if (c->e.failed) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return;
	}
	if (!s->buf)
		packet_open(c, s);
	if (c->rc)
		return;
	ts = stamp(c, s, ts);
	if (s->pos + need > PACKET && s->started)
		packet_flush(c, s);
	if (c->rc)
		return;
	/* one event larger than a packet: a larger packet */
	if (ht_grow((void **)&s->buf, &s->cap, 1, s->pos + need)) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return;
	}
	ht_put16(s->buf + s->pos, (uint16_t)id);
	ht_put64(s->buf + s->pos + 2, ts);
	memcpy(s->buf + s->pos + HT_XE_HEADER, c->e.p, c->e.n);
	s->pos += need;
	if (!s->started)
		s->ts_begin = ts;
	s->started = 1;
	s->last = ts;
	c->e.n = 0;
}

/* Losses are reported between packets: close the current one, raise the total. */
static void lost(struct cx *c, struct xstream *s, uint64_t ts, uint64_t n)
{
	if (!s->buf)
		packet_open(c, s);
	if (c->rc)
		return;
	s->last = stamp(c, s, ts);
	/* a first packet with a non-zero total reads as "may have lost": start at 0 */
	if (s->started || !s->packets)
		packet_flush(c, s);
	s->discarded += n;
}

/* ---- device commands ---- */

static uint32_t name_ref(struct cx *c, const char *name)
{
	int created;
	uint64_t *v = ht_map_str(&c->names, name ? name : "", c->nnames, &created);

	if (!v || (created &&
		   ht_grow((void **)&c->name_v, &c->capnames, sizeof *c->name_v, c->nnames + 1))) {
		fail(c, -ENOMEM, NULL, "out of memory");
		return 0;
	}
	if (created) {
		c->name_v[c->nnames] = strdup(name ? name : "");
		if (!c->name_v[c->nnames])
			fail(c, -ENOMEM, NULL, "out of memory");
		c->nnames++;
	}
	return (uint32_t)*v;
}

static void flush_ends(struct cx *c, struct xstream *s, uint64_t limit)
{
	struct ht_pending_end pe;

	while (!c->rc && ht_ends_pop_until(&s->ends, limit, &pe)) {
		putstr(&c->e, pe.ref < c->nnames ? c->name_v[pe.ref] : "?");
		put64(&c->e, pe.corr);
		emit(c, s, HT_XE_COMMAND_END, pe.end);
	}
}

static void queue_info(struct cx *c, const struct ht_tl_record *r)
{
	static const char *const quality[] = {"none", "one-sided", "ok", "inconsistent"};
	struct xstream *s = stream_of(c, r->pid, HT_XS_QUEUE, 0, r->device, r->queue, 0);
	const struct ht_clock_map *m = ht_timeline_clock_map(&c->tl, r->pid, r->device);

	if (!s)
		return;
	flush_ends(c, s, r->ts);
	put32(&c->e, r->device);
	put64(&c->e, r->queue);
	putstr(&c->e, m && m->quality <= HT_SYNC_INCONSISTENT ? quality[m->quality] : "none");
	putf(&c->e, m ? m->bound_ns : 0);
	putf(&c->e, m ? ht_clock_map_offset_ns(m) : 0);
	putf(&c->e, m ? ht_clock_map_drift_ppm(m) : 0);
	emit(c, s, HT_XE_QUEUE_INFO, r->ts);
}

static void command(struct cx *c, const struct ht_tl_record *r)
{
	struct xstream *s = stream_of(c, r->pid, HT_XS_QUEUE, 0, r->device, r->queue, 0);
	struct ht_pending_end pe = {0};

	if (!s)
		return;
	flush_ends(c, s, r->ts);
	putstr(&c->e, r->name);
	putstr(&c->e, r->category ? r->category : "other");
	put64(&c->e, r->corr);
	put32(&c->e, (uint32_t)r->status);
	put64(&c->e, r->queued);
	put64(&c->e, r->submit);
	put64(&c->e, r->end);
	put64(&c->e, r->bytes);
	for (int i = 0; i < 3; i++)
		put64(&c->e, r->global[i]);
	for (int i = 0; i < 3; i++)
		put64(&c->e, r->local[i]);
	emit(c, s, HT_XE_COMMAND_BEGIN, r->ts);
	pe.end = r->end < r->ts ? r->ts : r->end;
	pe.corr = r->corr;
	pe.ref = name_ref(c, r->name);
	if (!c->rc && ht_ends_push(&s->ends, &pe))
		fail(c, -ENOMEM, NULL, "out of memory");
}

/* ---- records ---- */

/* A CPU sample: its stack's function names, outermost first. */
static void sample(struct cx *c, const struct ht_tl_record *r)
{
	struct xstream *s =
	    stream_of(c, r->pid, HT_XS_THREAD, r->tid ? r->tid : r->pid, 0, 0, SUB_SAMPLES);
	const char *names[HT_STACK_DEPTH];
	uint32_t path;
	int n = 0;

	if (!s)
		return;
	path = ht_callpaths_of(&c->cp, &c->tl, r);
	if (path)
		n = ht_callpaths_names(&c->cp, path, names, HT_STACK_DEPTH);
	put32(&c->e, (uint32_t)r->tid);
	put32(&c->e, (uint32_t)n);
	for (int i = 0; i < n; i++)
		putstr(&c->e, names[i]);
	emit(c, s, HT_XE_CPU_SAMPLE, r->ts);
}

static void task(struct cx *c, const struct ht_tl_record *r)
{
	struct xstream *s = thread_stream(c, r->pid, 0);

	if (!s)
		return;
	putstr(&c->e, r->cmd_kind < HT_TASK_KIND_COUNT ? ht_task_kind_names[r->cmd_kind] : "?");
	put32(&c->e, (uint32_t)r->tid);
	put32(&c->e, (uint32_t)r->ret);
	put32(&c->e, (uint32_t)(int32_t)r->value);
	put64(&c->e, r->begin);
	putstr(&c->e, r->name ? r->name : "");
	emit(c, s, HT_XE_TASK, r->ts);
}

static void mpi(struct cx *c, const struct ht_tl_record *r)
{
	struct xstream *s = thread_stream(c, r->pid, r->tid);
	const struct ht_tl_mpi_fields *m = &r->mpi;

	if (!s)
		return;
	putstr(&c->e, r->name ? r->name : "?");
	put32(&c->e, (uint32_t)m->rank);
	put32(&c->e, (uint32_t)m->peer_world);
	put32(&c->e, (uint32_t)m->tag);
	put64(&c->e, r->bytes);
	put64(&c->e, m->received);
	put64(&c->e, m->comm);
	put64(&c->e, m->request);
	put64(&c->e, r->begin);
	emit(c, s, HT_XE_MPI, r->ts);
}

static void record(struct cx *c, const struct ht_tl_record *r)
{
	struct xstream *s;
	int api = r->category && !strcmp(r->category, "api");

	switch (r->kind) {
	case HT_TL_PROCESS:
		if (!(s = thread_stream(c, r->pid, 0)))
			break;
		put32(&c->e, (uint32_t)r->pid);
		put32(&c->e, (uint32_t)r->ppid);
		putstr(&c->e, r->name);
		putstr(&c->e, r->text);
		emit(c, s, HT_XE_PROCESS_INFO, r->ts);
		break;
	case HT_TL_THREAD:
		if (!(s = thread_stream(c, r->pid, r->tid)))
			break;
		put32(&c->e, (uint32_t)r->tid);
		putstr(&c->e, r->name);
		emit(c, s, HT_XE_THREAD_INFO, r->ts);
		break;
	case HT_TL_QUEUE:
		queue_info(c, r);
		break;
	case HT_TL_SLICE_BEGIN:
		if (!(s = thread_stream(c, r->pid, r->tid)))
			break;
		putstr(&c->e, r->name);
		emit(c, s, api ? HT_XE_API_BEGIN : HT_XE_REGION_BEGIN, r->ts);
		break;
	case HT_TL_SLICE_END:
		if (!(s = thread_stream(c, r->pid, r->tid)))
			break;
		putstr(&c->e, r->name);
		if (api) {
			put32(&c->e, (uint32_t)r->ret);
			put64(&c->e, r->corr);
			putargs(&c->e, r);
		}
		emit(c, s, api ? HT_XE_API_END : HT_XE_REGION_END, r->ts);
		break;
	case HT_TL_INSTANT:
		if (!(s = thread_stream(c, r->pid, r->tid)))
			break;
		putstr(&c->e, r->name);
		putargs(&c->e, r);
		emit(c, s, HT_XE_INSTANT, r->ts);
		break;
	case HT_TL_COUNTER:
		if (!(s = thread_stream(c, r->pid, r->tid)))
			break;
		putstr(&c->e, r->name);
		/* integral values exactly, as the recorder's counter class has them */
		if (r->value >= -9.2e18 && r->value <= 9.2e18 &&
		    r->value == (double)(int64_t)r->value) {
			put64(&c->e, (uint64_t)(int64_t)r->value);
			emit(c, s, HT_XE_COUNTER, r->ts);
		} else {
			putf(&c->e, r->value);
			emit(c, s, HT_XE_COUNTER_DOUBLE, r->ts);
		}
		break;
	case HT_TL_DEVICE:
		command(c, r);
		break;
	case HT_TL_CPU_STATE:
		if (!(s = stream_of(c, r->pid, HT_XS_THREAD, r->tid, 0, 0, SUB_CPU)))
			break;
		putstr(&c->e, r->name);
		put64(&c->e, r->end);
		put32(&c->e, r->nargs ? (uint32_t)r->args[0].v.u : 0);
		emit(c, s, HT_XE_CPU_STATE, r->ts);
		break;
	case HT_TL_LOST:
		if ((s = thread_stream(c, r->pid, r->tid)))
			lost(c, s, r->ts, r->count);
		break;
	case HT_TL_SAMPLE:
		sample(c, r);
		break;
	case HT_TL_TASK:
		task(c, r);
		break;
	case HT_TL_MPI:
		mpi(c, r);
		break;
	default:
		break; /* clock anchors, OS notes, stream ends: nothing to draw */
	}
	c->e.n = 0;
}

static void write_metadata(struct cx *c, const struct xproc *p)
{
	struct ht_xtsdl_params xp = {
	    .hostname = p->src.hostname,
	    .trace_name = p->dir,
	    .offset_s = p->src.offset_s,
	    .offset_ns = p->src.offset_ns,
	};
	char path[4400];
	FILE *f;
	int rc;

	memcpy(xp.uuid, p->uuid, 16);
	snprintf(path, sizeof path, "%s/%s/metadata", c->dir, p->dir);
	f = fopen(path, "wxe");
	if (!f) {
		fail(c, -errno, p->dir, "cannot create the metadata");
		return;
	}
	rc = ht_xtsdl_write(f, &xp);
	if (fclose(f) && !rc)
		rc = -EIO;
	if (rc)
		fail(c, rc, p->dir, "cannot write the metadata");
}

static void finish(struct cx *c)
{
	for (uint32_t i = 0; i < c->nstreams && !c->rc; i++) {
		struct xstream *s = &c->streams[i];

		flush_ends(c, s, UINT64_MAX);
		if (!c->rc && (s->started || !s->packets || s->discarded != s->discarded_written))
			packet_flush(c, s);
	}
	for (uint32_t i = 0; i < c->nprocs && !c->rc; i++)
		write_metadata(c, &c->procs[i]);
}

static void release(struct cx *c)
{
	for (uint32_t i = 0; i < c->nstreams; i++) {
		free(c->streams[i].buf);
		ht_ends_release(&c->streams[i].ends);
	}
	for (uint32_t i = 0; i < c->nnames; i++)
		free(c->name_v[i]);
	free(c->name_v);
	free(c->streams);
	free(c->procs);
	free(c->e.p);
	ht_map_release(&c->keys);
	ht_map_release(&c->names);
	if (c->cp_open)
		ht_callpaths_release(&c->cp);
	if (c->tl_open)
		ht_timeline_close(&c->tl);
}

int ht_export_ctf(struct ht_trace *t, const char *dir, struct ht_read_error *err)
{
	struct cx c = {0};
	const struct ht_tl_record *r;
	int rc;

	c.trace = t;
	c.dir = dir;
	c.err = err;
	if (ht_callpaths_init(&c.cp)) {
		snprintf(err->file, sizeof err->file, "%s", dir);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -ENOMEM;
	}
	c.cp_open = 1;
	rc = ht_timeline_open(&c.tl, t, NULL);
	c.tl_open = 1;
	if (rc) {
		*err = c.tl.err;
		goto out;
	}
	while (!c.rc && (rc = ht_export_next(&c.tl, &r, &c.dropped)) > 0)
		record(&c, r);
	if (!c.rc && rc < 0) {
		*err = c.tl.err;
		c.rc = rc;
	}
	if (!c.rc)
		finish(&c);
	if (!c.rc)
		ht_export_warn_dropped(c.dropped);
	if (!c.rc && c.clamped)
		fprintf(stderr,
			"hetrace: warning: %" PRIu64 " CTF events went back in time on their "
			"stream and were moved to its previous time\n",
			c.clamped);
	rc = c.rc;
out:
	release(&c);
	return rc;
}
