/*
 * `hetrace export --format otf2`: the timeline written through libotf2
 * (ref/trace-formats.md §3), for Vampir, Score-P tools and otf2-print.
 *
 * Mapping: a PROCESS location group per process and a CPU_THREAD location
 * per thread; an ACCELERATOR location group per (process, device), created
 * by the process, with an ACCELERATOR_STREAM location per device queue.
 * Regions per API function (FUNCTION), annotated region (CODE, USER),
 * instant (ARTIFICIAL, an Enter/Leave pair at one time: OTF2 has no instant
 * with arguments), kernel (FUNCTION) and transfer (DATA_TRANSFER), the
 * device ones in the accelerator paradigm the API calls show (OpenCL, CUDA,
 * HIP). API arguments, return codes, correlation ids and byte counts are
 * attributes; counters and losses are single-member metric classes.
 *
 * Time: host CLOCK_MONOTONIC ns, device commands already mapped by clock
 * sync; one global clock of 1 GHz whose offset is the first timestamp.
 * Timestamps are absolute (otf2-print shows them as recorded), and the
 * realtime of the offset comes from the trace's epoch offset. Each location
 * must be in time order: the timeline guarantees it per track, and a record
 * that would still go back is clamped to its location's last time and
 * counted (libotf2 would drop it).
 *
 * Definitions are only known at the end, which OTF2 wants anyway: events
 * are written as they stream by, definitions once the timeline is done.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "export/export_tracks.h"

#ifndef HT_HAVE_OTF2

int ht_export_otf2(struct ht_trace *t, const char *dir, struct ht_read_error *err)
{
	(void)t;
	(void)dir;
	err->file[0] = '\0';
	err->offset = HT_NO_OFFSET;
	snprintf(err->msg, sizeof err->msg,
		 "this hetrace was built without libotf2: install libotf2-trace-dev and "
		 "rebuild to export OTF2");
	return -ENOTSUP;
}

#else

#include <otf2/otf2.h>

#include "analysis/timeline.h"
#include "export/ctf_source.h"
#include "export/otf2_ends.h"
#include "common/grow.h"
#include "common/map.h"

/*
 * libotf2 keeps every chunk in memory unless an allocator says "full": ours
 * holds at most CHUNKS_MAX chunks per buffer, then libotf2 flushes them to
 * the file and frees them. Memory stays bounded by locations x 2 MiB.
 */
#define EVT_CHUNK   (256u << 10) /* libotf2's minimum */
#define DEF_CHUNK   (256u << 10)
#define CHUNKS_MAX  8
#define NAME_LEN    128
#define LOST_METRIC "hetrace lost events"

enum region_kind { R_API, R_REGION, R_INSTANT, R_DEVICE };

struct loc {
	OTF2_EvtWriter *w;
	uint64_t last;
	uint64_t events;
	uint32_t group;
	int is_queue;
	int32_t pid;
	uint32_t device;
	char name[NAME_LEN];
	struct ht_ends ends; /* queues: commands begun, not ended */
	uint32_t *stack;     /* threads: regions entered, not left */
	uint32_t depth;
	size_t cap;
	uint32_t name_ref; /* set at the end */
};

struct group {
	int accel;
	uint32_t creator; /* accelerator groups: the process group */
	char name[NAME_LEN];
	uint32_t name_ref;
};

struct region {
	uint32_t name; /* string ref */
	enum region_kind kind;
	OTF2_RegionRole role;
	OTF2_Paradigm paradigm; /* R_DEVICE: decided at the end */
	uint32_t desc;
};

struct attr {
	uint32_t name;
	OTF2_Type type;
};

/* A counter's samples: integral ones as INT64 (exact), others as DOUBLE. */
struct metric {
	uint32_t name;
	OTF2_Type type;
};

/* MPI (mpi_*() below): communicators by job-wide id, ranks' locations. */
struct mpi_comm {
	uint64_t id;
	int32_t *world; /* world rank by rank in the communicator, -1 unknown */
	uint32_t n;
	size_t cap;
	uint32_t name; /* string ref */
};

struct ox_mpi {
	struct mpi_comm *comms; /* OTF2 comm ref i = comms[i] */
	uint32_t ncomms;
	size_t capcomms;
	uint32_t *rank_loc; /* location + 1 of each world rank's MPI calls (0: none) */
	size_t nrank_loc, caprank_loc;
	uint32_t *members; /* the locations group: locations of ranks 0.. that have one */
	uint32_t nmembers;
	uint32_t locations_name, comm_group_name;
};

struct ox {
	OTF2_Archive *ar;
	struct ht_timeline tl;
	int tl_open;
	struct ht_map strs, keys;
	char **strings;
	uint32_t nstrings;
	size_t capstrings;
	struct loc *locs;
	uint32_t nlocs;
	size_t caplocs;
	struct group *groups;
	uint32_t ngroups;
	size_t capgroups;
	struct region *regions;
	uint32_t nregions;
	size_t capregions;
	struct attr *attrs;
	uint32_t nattrs;
	size_t capattrs;
	struct metric *metrics; /* metric member i = metric class i */
	uint32_t nmetrics;
	size_t capmetrics;
	OTF2_AttributeList *al;
	uint64_t tmin, tmax, clamped;
	uint64_t dropped;		/* records with times past HT_TIME_LIMIT_NS */
	uint64_t unmatched, unfinished; /* Leaves without Enter; Enters without Leave */
	OTF2_Paradigm accel_paradigm;
	struct ox_mpi mpi;
	int frozen; /* strings written: no new ones */
	int rc;	    /* first error */
	struct ht_read_error *err;
};

static void fail(struct ox *o, int rc, const char *what)
{
	if (o->rc)
		return;
	o->rc = rc;
	o->err->file[0] = '\0';
	o->err->offset = HT_NO_OFFSET;
	snprintf(o->err->msg, sizeof o->err->msg, "cannot write the OTF2 archive: %s", what);
}

/* Checks a libotf2 call. */
static void ok(struct ox *o, OTF2_ErrorCode e, const char *what)
{
	char msg[160];

	if (e == OTF2_SUCCESS)
		return;
	snprintf(msg, sizeof msg, "%s: %s", what, OTF2_Error_GetDescription(e));
	fail(o, -EIO, msg);
}

#define GROW(o, arr, n, cap) (ht_grow((void **)&(o)->arr, &(o)->cap, sizeof *(o)->arr, (o)->n + 1))

/* The string ref of s (interned). Errors go to o->rc; 0 is then returned. */
static uint32_t str_ref(struct ox *o, const char *s)
{
	int created;
	uint64_t *v = ht_map_str(&o->strs, s ? s : "", o->nstrings, &created);

	if (!v || (created && GROW(o, strings, nstrings, capstrings))) {
		fail(o, -ENOMEM, "out of memory");
		return 0;
	}
	if (created && o->frozen) {
		fail(o, -EINVAL, "internal error: string defined after the definitions");
		return 0;
	}
	if (created) {
		o->strings[o->nstrings] = strdup(s ? s : "");
		if (!o->strings[o->nstrings]) {
			fail(o, -ENOMEM, "out of memory");
			return 0;
		}
		o->nstrings++;
	}
	return (uint32_t)*v;
}

/* Index of composite key k, with *created when new (the caller appends). */
static uint32_t key_index(struct ox *o, const char *k, uint32_t fresh, int *created)
{
	uint64_t *v = ht_map_str(&o->keys, k, fresh, created);

	if (!v) {
		fail(o, -ENOMEM, "out of memory");
		*created = 0;
		return UINT32_MAX;
	}
	return (uint32_t)*v;
}

static uint32_t proc_group(struct ox *o, int32_t pid)
{
	char k[32];
	int created;
	uint32_t g;

	snprintf(k, sizeof k, "p:%d", (int)pid);
	g = key_index(o, k, o->ngroups, &created);
	if (created) {
		if (GROW(o, groups, ngroups, capgroups))
			return fail(o, -ENOMEM, "out of memory"), UINT32_MAX;
		snprintf(o->groups[g].name, NAME_LEN, "process %d", (int)pid);
		o->ngroups++;
	}
	return g;
}

static uint32_t accel_group(struct ox *o, int32_t pid, uint32_t device)
{
	char k[48];
	int created;
	uint32_t g, creator = proc_group(o, pid);

	snprintf(k, sizeof k, "g:%d:%u", (int)pid, device);
	g = key_index(o, k, o->ngroups, &created);
	if (created) {
		if (GROW(o, groups, ngroups, capgroups))
			return fail(o, -ENOMEM, "out of memory"), UINT32_MAX;
		o->groups[g].accel = 1;
		o->groups[g].creator = creator;
		snprintf(o->groups[g].name, NAME_LEN, "device %u (process %d)", device, (int)pid);
		o->ngroups++;
	}
	return g;
}

static struct loc *new_loc(struct ox *o, uint32_t group)
{
	struct loc *l;

	if (GROW(o, locs, nlocs, caplocs)) {
		fail(o, -ENOMEM, "out of memory");
		return NULL;
	}
	l = &o->locs[o->nlocs];
	l->w = OTF2_Archive_GetEvtWriter(o->ar, o->nlocs);
	if (!l->w) {
		fail(o, -EIO, "no event writer");
		return NULL;
	}
	l->group = group;
	o->nlocs++;
	return l;
}

static struct loc *thread_loc(struct ox *o, int32_t pid, int32_t tid)
{
	char k[48];
	int created;
	uint32_t i, g;
	struct loc *l;

	snprintf(k, sizeof k, "t:%d:%d", (int)pid, (int)tid);
	i = key_index(o, k, o->nlocs, &created);
	if (!created)
		return i == UINT32_MAX ? NULL : &o->locs[i];
	g = proc_group(o, pid);
	if (o->rc || !(l = new_loc(o, g)))
		return NULL;
	l->pid = pid;
	snprintf(l->name, NAME_LEN, "thread %d", (int)tid);
	return l;
}

/* A thread's OS scheduling states, beside its own location. */
static struct loc *cpu_loc(struct ox *o, int32_t pid, int32_t tid)
{
	char k[48];
	int created;
	uint32_t i, g;
	struct loc *l;

	snprintf(k, sizeof k, "c:%d:%d", (int)pid, (int)tid);
	i = key_index(o, k, o->nlocs, &created);
	if (!created)
		return i == UINT32_MAX ? NULL : &o->locs[i];
	g = proc_group(o, pid);
	if (o->rc || !(l = new_loc(o, g)))
		return NULL;
	l->pid = pid;
	snprintf(l->name, NAME_LEN, "CPU state of thread %d", (int)tid);
	return l;
}

static struct loc *queue_loc(struct ox *o, int32_t pid, uint32_t device, uint64_t queue)
{
	char k[64];
	int created;
	uint32_t i, g;
	struct loc *l;

	snprintf(k, sizeof k, "q:%d:%u:%" PRIx64, (int)pid, device, queue);
	i = key_index(o, k, o->nlocs, &created);
	if (!created)
		return i == UINT32_MAX ? NULL : &o->locs[i];
	g = accel_group(o, pid, device);
	if (o->rc || !(l = new_loc(o, g)))
		return NULL;
	l->pid = pid;
	l->device = device;
	l->is_queue = 1;
	snprintf(l->name, NAME_LEN, "queue 0x%" PRIx64, queue);
	return l;
}

static OTF2_Paradigm api_paradigm(const char *name)
{
	if (!strncmp(name, "cl", 2) && name[2] >= 'A' && name[2] <= 'Z')
		return OTF2_PARADIGM_OPENCL;
	if (!strncmp(name, "cu", 2) && ((name[2] >= 'A' && name[2] <= 'Z') || name[2] == 'd'))
		return OTF2_PARADIGM_CUDA;
	if (!strncmp(name, "hip", 3) && name[3] >= 'A' && name[3] <= 'Z')
		return OTF2_PARADIGM_HIP;
	return OTF2_PARADIGM_USER;
}

static OTF2_RegionRole device_role(const char *kind)
{
	if (!strcmp(kind, "kernel"))
		return OTF2_REGION_ROLE_FUNCTION;
	if (!strncmp(kind, "copy_", 5) || !strcmp(kind, "fill") || !strcmp(kind, "map") ||
	    !strcmp(kind, "unmap") || !strcmp(kind, "migrate"))
		return OTF2_REGION_ROLE_DATA_TRANSFER;
	if (!strcmp(kind, "barrier"))
		return OTF2_REGION_ROLE_BARRIER;
	return OTF2_REGION_ROLE_ARTIFICIAL;
}

/* The region of a name in a kind (device: kind is the command kind). */
static uint32_t region(struct ox *o, enum region_kind kind, const char *sub, const char *name)
{
	char k[600];
	int created;
	uint32_t i;
	struct region *r;

	name = name && *name ? name : "?";
	snprintf(k, sizeof k, "r:%d:%s:%s", (int)kind, sub ? sub : "", name);
	i = key_index(o, k, o->nregions, &created);
	if (!created || GROW(o, regions, nregions, capregions)) {
		if (created)
			fail(o, -ENOMEM, "out of memory");
		return i;
	}
	r = &o->regions[i];
	r->kind = kind;
	r->name = str_ref(o, name);
	switch (kind) {
	case R_API:
		r->role = OTF2_REGION_ROLE_FUNCTION;
		r->paradigm = api_paradigm(name);
		r->desc = str_ref(o, "API call");
		if (r->paradigm != OTF2_PARADIGM_USER && o->accel_paradigm == OTF2_PARADIGM_UNKNOWN)
			o->accel_paradigm = r->paradigm;
		break;
	case R_REGION:
		r->role = OTF2_REGION_ROLE_CODE;
		r->paradigm = OTF2_PARADIGM_USER;
		r->desc = str_ref(o, "annotated region");
		break;
	case R_INSTANT:
		r->role = OTF2_REGION_ROLE_ARTIFICIAL;
		r->paradigm = OTF2_PARADIGM_USER;
		r->desc = str_ref(o, "instant");
		break;
	case R_DEVICE:
		r->role = device_role(sub);
		r->paradigm = OTF2_PARADIGM_UNKNOWN;
		r->desc = str_ref(o, sub);
		break;
	}
	o->nregions++;
	return i;
}

/*
 * The index of the named, typed definition of `kind` ('a' attribute, 'm'
 * metric) among n; *name becomes dflt when empty. created: it is new.
 */
static uint32_t typed_index(struct ox *o, char kind, const char **name, const char *dflt,
			    OTF2_Type type, uint32_t n, int *created)
{
	char k[300];

	if (!*name || !**name)
		*name = dflt;
	snprintf(k, sizeof k, "%c:%d:%s", kind, (int)type, *name);
	return key_index(o, k, n, created);
}

static uint32_t attribute(struct ox *o, const char *name, OTF2_Type type)
{
	int created;
	uint32_t i = typed_index(o, 'a', &name, "arg", type, o->nattrs, &created);

	if (created) {
		if (GROW(o, attrs, nattrs, capattrs))
			return fail(o, -ENOMEM, "out of memory"), 0;
		o->attrs[i].name = str_ref(o, name);
		o->attrs[i].type = type;
		o->nattrs++;
	}
	return i;
}

static uint32_t metric(struct ox *o, const char *name, OTF2_Type type)
{
	int created;
	uint32_t i = typed_index(o, 'm', &name, "?", type, o->nmetrics, &created);

	if (created) {
		if (GROW(o, metrics, nmetrics, capmetrics))
			return fail(o, -ENOMEM, "out of memory"), 0;
		o->metrics[i].name = str_ref(o, name);
		o->metrics[i].type = type;
		o->nmetrics++;
	}
	return i;
}

/* The time to write at on l: never before its last record. */
static uint64_t stamp(struct ox *o, struct loc *l, uint64_t ts)
{
	if (ts < l->last) {
		o->clamped++;
		ts = l->last;
	}
	l->last = ts;
	if (ts < o->tmin)
		o->tmin = ts;
	if (ts > o->tmax)
		o->tmax = ts;
	return ts;
}

static void add_u64(struct ox *o, const char *name, uint64_t v)
{
	ok(o, OTF2_AttributeList_AddUint64(o->al, attribute(o, name, OTF2_TYPE_UINT64), v),
	   "attribute");
}

static void add_arg(struct ox *o, const struct ht_tl_arg *a)
{
	OTF2_ErrorCode e;

	switch (a->type) {
	case HT_TL_INT:
		e = OTF2_AttributeList_AddInt64(o->al, attribute(o, a->key, OTF2_TYPE_INT64),
						a->v.i);
		break;
	case HT_TL_DOUBLE:
		e = OTF2_AttributeList_AddDouble(o->al, attribute(o, a->key, OTF2_TYPE_DOUBLE),
						 a->v.f);
		break;
	case HT_TL_STRING:
		e = OTF2_AttributeList_AddStringRef(o->al, attribute(o, a->key, OTF2_TYPE_STRING),
						    str_ref(o, a->v.s));
		break;
	default:
		e = OTF2_AttributeList_AddUint64(o->al, attribute(o, a->key, OTF2_TYPE_UINT64),
						 a->v.u);
	}
	ok(o, e, "attribute");
}

/* A list another attribute of the same name is already in makes libotf2 fail. */
static int has_key(const struct ht_tl_record *r, unsigned int upto, const char *key)
{
	for (unsigned int i = 0; i < upto; i++)
		if (r->args[i].key && !strcmp(r->args[i].key, key))
			return 1;
	return 0;
}

static void add_args(struct ox *o, const struct ht_tl_record *r)
{
	for (unsigned int i = 0; i < r->nargs; i++)
		if (r->args[i].key && strcmp(r->args[i].key, "corr") &&
		    strcmp(r->args[i].key, "ret") && !has_key(r, i, r->args[i].key))
			add_arg(o, &r->args[i]);
}

/*
 * Before the Leave of reg on a thread: OTF2 readers want regions properly
 * nested, so regions entered inside reg and still open are left first (at
 * the same time), and a Leave with no matching Enter (a call that began
 * before tracing) is dropped. Both are counted. Return: 1 to write the Leave.
 */
static int leave_to(struct ox *o, struct loc *l, uint32_t reg, uint64_t ts)
{
	uint32_t i = l->depth;

	while (i > 0 && l->stack[i - 1] != reg)
		i--;
	if (!i) {
		o->unmatched++;
		return 0;
	}
	while (l->depth > i) {
		o->unfinished++;
		ok(o, OTF2_EvtWriter_Leave(l->w, NULL, stamp(o, l, ts), l->stack[--l->depth]),
		   "Leave");
	}
	l->depth--;
	return 1;
}

/* Writes the queue's ends up to limit (all with UINT64_MAX). */
static void flush_ends(struct ox *o, struct loc *l, uint64_t limit)
{
	struct ht_pending_end pe;

	while (!o->rc && ht_ends_pop_until(&l->ends, limit, &pe))
		ok(o, OTF2_EvtWriter_Leave(l->w, NULL, stamp(o, l, pe.end), pe.ref), "Leave");
}

/* A sample of counter `name`: exact as INT64 when integral. */
static void metric_event(struct ox *o, struct loc *l, uint64_t ts, const char *name, double v)
{
	int integral = v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v;
	OTF2_Type type = integral ? OTF2_TYPE_INT64 : OTF2_TYPE_DOUBLE;
	uint32_t m = metric(o, name, type);
	OTF2_MetricValue mv;

	if (integral)
		mv.signed_int = (int64_t)v;
	else
		mv.floating_point = v;
	ok(o, OTF2_EvtWriter_Metric(l->w, NULL, stamp(o, l, ts), m, 1, &type, &mv), "Metric");
}

static void device(struct ox *o, const struct ht_tl_record *r)
{
	struct loc *l = queue_loc(o, r->pid, r->device, r->queue);
	struct ht_pending_end pe = {0};
	uint32_t reg;

	if (!l)
		return;
	reg = region(o, R_DEVICE, r->category ? r->category : "other", r->name);
	flush_ends(o, l, r->ts);
	if (r->corr)
		add_u64(o, "corr", r->corr);
	if (r->bytes)
		add_u64(o, "bytes", r->bytes);
	if (r->queued)
		add_u64(o, "queued_ns", r->queued);
	if (r->submit)
		add_u64(o, "submit_ns", r->submit);
	if (r->status)
		ok(o,
		   OTF2_AttributeList_AddInt32(o->al, attribute(o, "status", OTF2_TYPE_INT32),
					       r->status),
		   "attribute");
	for (int i = 0; i < 3; i++) {
		static const char *const gk[] = {"global_x", "global_y", "global_z"};
		static const char *const lk[] = {"local_x", "local_y", "local_z"};

		if (r->global[i])
			add_u64(o, gk[i], r->global[i]);
		if (r->local[i])
			add_u64(o, lk[i], r->local[i]);
	}
	ok(o, OTF2_EvtWriter_Enter(l->w, o->al, stamp(o, l, r->ts), reg), "Enter");
	pe.end = r->end;
	pe.corr = r->corr;
	pe.ref = reg;
	if (!o->rc && ht_ends_push(&l->ends, &pe))
		fail(o, -ENOMEM, "out of memory");
}

/* ---- MPI: communicators, messages, collectives ---- */

/* The OTF2 comm ref of job-wide communicator id (created at its first use). */
static uint32_t mpi_comm_ref(struct ox *o, uint64_t id)
{
	struct ox_mpi *m = &o->mpi;
	char k[40];
	int created;
	uint32_t c;

	snprintf(k, sizeof k, "c:%" PRIu64, id);
	c = key_index(o, k, m->ncomms, &created);
	if (created) {
		if (GROW(m, comms, ncomms, capcomms))
			return fail(o, -ENOMEM, "out of memory"), UINT32_MAX;
		memset(&m->comms[c], 0, sizeof m->comms[c]);
		m->comms[c].id = id;
		m->ncomms++;
	}
	return c;
}

/* Notes that world rank `world` is rank `rank` of communicator c. */
static void mpi_member(struct ox *o, uint32_t c, int32_t rank, int32_t world)
{
	struct mpi_comm *mc = &o->mpi.comms[c];

	if (rank < 0 || world < 0)
		return;
	if (ht_grow((void **)&mc->world, &mc->cap, sizeof *mc->world, (size_t)rank + 1)) {
		fail(o, -ENOMEM, "out of memory");
		return;
	}
	while (mc->n <= (uint32_t)rank)
		mc->world[mc->n++] = -1;
	mc->world[rank] = world;
}

static const OTF2_CollectiveOp coll_ops[HT_MPI_COLL_OP_COUNT] = {
    [HT_MPI_COLL_BARRIER] = OTF2_COLLECTIVE_OP_BARRIER,
    [HT_MPI_COLL_BCAST] = OTF2_COLLECTIVE_OP_BCAST,
    [HT_MPI_COLL_GATHER] = OTF2_COLLECTIVE_OP_GATHER,
    [HT_MPI_COLL_GATHERV] = OTF2_COLLECTIVE_OP_GATHERV,
    [HT_MPI_COLL_SCATTER] = OTF2_COLLECTIVE_OP_SCATTER,
    [HT_MPI_COLL_SCATTERV] = OTF2_COLLECTIVE_OP_SCATTERV,
    [HT_MPI_COLL_ALLGATHER] = OTF2_COLLECTIVE_OP_ALLGATHER,
    [HT_MPI_COLL_ALLGATHERV] = OTF2_COLLECTIVE_OP_ALLGATHERV,
    [HT_MPI_COLL_ALLTOALL] = OTF2_COLLECTIVE_OP_ALLTOALL,
    [HT_MPI_COLL_ALLTOALLV] = OTF2_COLLECTIVE_OP_ALLTOALLV,
    [HT_MPI_COLL_ALLTOALLW] = OTF2_COLLECTIVE_OP_ALLTOALLW,
    [HT_MPI_COLL_REDUCE] = OTF2_COLLECTIVE_OP_REDUCE,
    [HT_MPI_COLL_ALLREDUCE] = OTF2_COLLECTIVE_OP_ALLREDUCE,
    [HT_MPI_COLL_REDUCE_SCATTER] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER,
    [HT_MPI_COLL_REDUCE_SCATTER_BLOCK] = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
    [HT_MPI_COLL_SCAN] = OTF2_COLLECTIVE_OP_SCAN,
    [HT_MPI_COLL_EXSCAN] = OTF2_COLLECTIVE_OP_EXSCAN,
};

/*
 * An HT_TL_MPI record as OTF2's MPI event records, on the thread's
 * location inside its call's Enter/Leave: sends and receives with the peer
 * as a rank of the communicator, nonblocking ones with their request, a
 * collective as CollectiveBegin at its call's begin and CollectiveEnd at
 * its end. One-sided accesses have no OTF2 MPI record here (their calls
 * are regions like any other).
 */
static void mpi_event(struct ox *o, const struct ht_tl_record *r)
{
	const struct ht_tl_mpi_fields *f = &r->mpi;
	struct loc *l = thread_loc(o, r->pid, r->tid);
	uint32_t c = l ? mpi_comm_ref(o, f->comm) : UINT32_MAX;
	uint32_t peer = f->peer >= 0 ? (uint32_t)f->peer : OTF2_UNDEFINED_UINT32;
	uint32_t tag = (uint32_t)f->tag;
	OTF2_EvtWriter *w;

	if (o->rc || c == UINT32_MAX)
		return;
	w = l->w;
	mpi_member(o, c, f->comm_rank, f->rank);
	if (f->rank >= 0 && !o->rc) {
		size_t k = (size_t)f->rank;

		if (ht_grow((void **)&o->mpi.rank_loc, &o->mpi.caprank_loc, sizeof *o->mpi.rank_loc,
			    k + 1))
			return (void)fail(o, -ENOMEM, "out of memory");
		while (o->mpi.nrank_loc <= k)
			o->mpi.rank_loc[o->mpi.nrank_loc++] = 0;
		if (!o->mpi.rank_loc[k])
			o->mpi.rank_loc[k] = (uint32_t)(l - o->locs) + 1;
	}
	switch ((enum ht_tl_mpi_kind)r->cmd_kind) {
	case HT_TL_MPI_SEND:
		ok(o, OTF2_EvtWriter_MpiSend(w, NULL, stamp(o, l, r->ts), peer, c, tag, r->bytes),
		   "MpiSend");
		break;
	case HT_TL_MPI_ISEND:
		ok(o,
		   OTF2_EvtWriter_MpiIsend(w, NULL, stamp(o, l, r->ts), peer, c, tag, r->bytes,
					   f->request),
		   "MpiIsend");
		break;
	case HT_TL_MPI_ISEND_DONE:
		ok(o, OTF2_EvtWriter_MpiIsendComplete(w, NULL, stamp(o, l, r->ts), f->request),
		   "MpiIsendComplete");
		break;
	case HT_TL_MPI_RECV:
		ok(o, OTF2_EvtWriter_MpiRecv(w, NULL, stamp(o, l, r->ts), peer, c, tag, r->bytes),
		   "MpiRecv");
		break;
	case HT_TL_MPI_IRECV_POST:
		ok(o, OTF2_EvtWriter_MpiIrecvRequest(w, NULL, stamp(o, l, r->ts), f->request),
		   "MpiIrecvRequest");
		break;
	case HT_TL_MPI_IRECV:
		ok(o,
		   OTF2_EvtWriter_MpiIrecv(w, NULL, stamp(o, l, r->ts), peer, c, tag, r->bytes,
					   f->request),
		   "MpiIrecv");
		break;
	case HT_TL_MPI_COLL:
		if (f->op >= HT_MPI_COLL_OP_COUNT)
			break;
		ok(o, OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, stamp(o, l, r->begin)),
		   "MpiCollectiveBegin");
		ok(o,
		   OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, stamp(o, l, r->ts), coll_ops[f->op], c,
						   peer, r->bytes, f->received),
		   "MpiCollectiveEnd");
		break;
	default:
		break;
	}
}

/*
 * Before the strings are written: every rank's communicators from its
 * definitions (its rank in each), their names, and the locations group
 * (the locations of the ranks' MPI calls, in world rank order).
 */
static void mpi_prepare(struct ox *o)
{
	struct ox_mpi *m = &o->mpi;
	char name[64];

	if (!m->ncomms)
		return;
	for (unsigned int k = 0; k < o->tl.trace->nprocs && !o->rc; k++) {
		const struct ht_proc_mpi *pm = &ht_timeline_proc(&o->tl, k)->mpi;

		for (size_t i = 0; pm->is_rank && i < pm->ncomms && !o->rc; i++) {
			uint32_t c = mpi_comm_ref(o, pm->comms[i].id);

			if (c != UINT32_MAX)
				mpi_member(o, c, pm->comms[i].rank, pm->rank);
		}
	}
	m->members = calloc(m->nrank_loc ? m->nrank_loc : 1, sizeof *m->members);
	if (!m->members)
		return (void)fail(o, -ENOMEM, "out of memory");
	for (size_t k = 0; k < m->nrank_loc; k++)
		if (m->rank_loc[k])
			m->members[m->nmembers++] = m->rank_loc[k] - 1;
	for (uint32_t c = 0; c < m->ncomms && !o->rc; c++) {
		if (m->comms[c].id == 1)
			snprintf(name, sizeof name, "MPI_COMM_WORLD");
		else
			snprintf(name, sizeof name, "communicator %" PRIu64, m->comms[c].id);
		m->comms[c].name = str_ref(o, name);
	}
	m->locations_name = str_ref(o, "MPI ranks");
	m->comm_group_name = str_ref(o, "");
}

/*
 * After the locations: group 0 the ranks' locations (OTF2's COMM_LOCATIONS,
 * so world rank k is member k where every rank has one), then per
 * communicator a group of its members' world ranks and the Comm.
 */
static void mpi_write_defs(struct ox *o, OTF2_GlobalDefWriter *g)
{
	struct ox_mpi *m = &o->mpi;
	uint64_t *members;

	if (!m->ncomms)
		return;
	members = calloc(m->nmembers ? m->nmembers : 1, sizeof *members);
	if (!members)
		return (void)fail(o, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < m->nmembers; i++)
		members[i] = m->members[i];
	ok(o,
	   OTF2_GlobalDefWriter_WriteGroup(g, 0, m->locations_name, OTF2_GROUP_TYPE_COMM_LOCATIONS,
					   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, m->nmembers,
					   members),
	   "Group");
	free(members);
	for (uint32_t c = 0; c < m->ncomms && !o->rc; c++) {
		const struct mpi_comm *mc = &m->comms[c];
		uint64_t *ranks = calloc(mc->n ? mc->n : 1, sizeof *ranks);
		uint32_t n = 0;

		if (!ranks)
			return (void)fail(o, -ENOMEM, "out of memory");
		for (uint32_t i = 0; i < mc->n; i++)
			if (mc->world[i] >= 0)
				ranks[n++] = (uint64_t)mc->world[i];
		ok(o,
		   OTF2_GlobalDefWriter_WriteGroup(g, c + 1, m->comm_group_name,
						   OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						   OTF2_GROUP_FLAG_NONE, n, ranks),
		   "Group");
		free(ranks);
		ok(o,
		   OTF2_GlobalDefWriter_WriteComm(g, c, mc->name, c + 1, OTF2_UNDEFINED_COMM,
						  OTF2_COMM_FLAG_NONE),
		   "Comm");
	}
}

static void mpi_release(struct ox_mpi *m)
{
	for (uint32_t c = 0; c < m->ncomms; c++)
		free(m->comms[c].world);
	free(m->comms);
	free(m->rank_loc);
	free(m->members);
}

static void record(struct ox *o, const struct ht_tl_record *r)
{
	struct loc *l;
	uint32_t reg, g;

	switch (r->kind) {
	case HT_TL_PROCESS:
		g = proc_group(o, r->pid);
		if (g != UINT32_MAX)
			snprintf(o->groups[g].name, NAME_LEN, "%s (pid %d)",
				 r->name && *r->name ? r->name : "process", (int)r->pid);
		break;
	case HT_TL_THREAD:
		l = thread_loc(o, r->pid, r->tid);
		if (l && r->name && *r->name)
			snprintf(l->name, NAME_LEN, "%s (tid %d)", r->name, (int)r->tid);
		break;
	case HT_TL_QUEUE:
		/* the name is its first command's: the location is named by its queue */
		queue_loc(o, r->pid, r->device, r->queue);
		break;
	case HT_TL_SLICE_BEGIN:
	case HT_TL_SLICE_END:
		l = thread_loc(o, r->pid, r->tid);
		if (!l)
			break;
		reg = region(o, r->category && !strcmp(r->category, "api") ? R_API : R_REGION, NULL,
			     r->name);
		if (r->kind == HT_TL_SLICE_BEGIN) {
			if (ht_grow((void **)&l->stack, &l->cap, sizeof *l->stack, l->depth + 1)) {
				fail(o, -ENOMEM, "out of memory");
				return;
			}
			l->stack[l->depth++] = reg;
			ok(o, OTF2_EvtWriter_Enter(l->w, NULL, stamp(o, l, r->ts), reg), "Enter");
			break;
		}
		if (!leave_to(o, l, reg, r->ts))
			break;
		if (r->category && !strcmp(r->category, "api")) {
			ok(o,
			   OTF2_AttributeList_AddInt32(o->al, attribute(o, "ret", OTF2_TYPE_INT32),
						       r->ret),
			   "attribute");
			if (r->corr)
				add_u64(o, "corr", r->corr);
			add_args(o, r);
		}
		ok(o, OTF2_EvtWriter_Leave(l->w, o->al, stamp(o, l, r->ts), reg), "Leave");
		break;
	case HT_TL_INSTANT:
		l = thread_loc(o, r->pid, r->tid ? r->tid : r->pid);
		if (!l)
			break;
		reg = region(o, R_INSTANT, NULL, r->name);
		add_args(o, r);
		ok(o, OTF2_EvtWriter_Enter(l->w, o->al, stamp(o, l, r->ts), reg), "Enter");
		ok(o, OTF2_EvtWriter_Leave(l->w, NULL, stamp(o, l, r->ts), reg), "Leave");
		break;
	case HT_TL_COUNTER:
		l = thread_loc(o, r->pid, r->tid ? r->tid : r->pid);
		if (l)
			metric_event(o, l, r->ts, r->name, r->value);
		break;
	case HT_TL_DEVICE:
		device(o, r);
		break;
	case HT_TL_MPI:
		mpi_event(o, r);
		break;
	case HT_TL_CPU_STATE:
		/* running / preempted / blocked as regions on the thread's CPU-state location */
		l = cpu_loc(o, r->pid, r->tid);
		if (!l)
			break;
		reg = region(o, R_REGION, NULL, r->name);
		ok(o, OTF2_EvtWriter_Enter(l->w, NULL, stamp(o, l, r->ts), reg), "Enter");
		ok(o,
		   OTF2_EvtWriter_Leave(l->w, NULL, stamp(o, l, r->end > r->ts ? r->end : r->ts),
					reg),
		   "Leave");
		break;
	case HT_TL_LOST:
		/* losses of device or process streams go to the main thread */
		l = thread_loc(o, r->pid, r->tid ? r->tid : r->pid);
		if (l)
			metric_event(o, l, r->ts, LOST_METRIC, r->value);
		break;
	default:
		break; /* clock anchors, OS notes, stream ends: nothing to draw */
	}
	/* a list a failed call left filled must not stick to the next record */
	if (OTF2_AttributeList_GetNumberOfElements(o->al))
		OTF2_AttributeList_RemoveAllAttributes(o->al);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType ft, OTF2_LocationRef loc,
				void *callerdata, bool final)
{
	(void)user;
	(void)ft;
	(void)loc;
	(void)callerdata;
	(void) final;
	return OTF2_FLUSH;
}

/*
 * No post-flush callback: libotf2 then writes no BUFFER_FLUSH records, which
 * would only tell when this exporter wrote its chunks.
 */
static OTF2_FlushCallbacks flush_callbacks = {
    .otf2_pre_flush = pre_flush,
    .otf2_post_flush = NULL,
};

/* The chunks of one libotf2 buffer. */
struct chunks {
	void *v[CHUNKS_MAX];
	unsigned int n;
};

static void *chunk_allocate(void *user, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
			    uint64_t size)
{
	struct chunks *c = *per_buffer;

	(void)user;
	(void)ft;
	(void)loc;
	if (!c) {
		c = calloc(1, sizeof *c);
		if (!c)
			return NULL;
		*per_buffer = c;
	}
	if (c->n == CHUNKS_MAX)
		return NULL; /* full: libotf2 flushes, frees all, and asks again */
	c->v[c->n] = malloc(size);
	return c->v[c->n] ? c->v[c->n++] : NULL;
}

static void chunk_free_all(void *user, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
			   bool final)
{
	struct chunks *c = *per_buffer;

	(void)user;
	(void)ft;
	(void)loc;
	if (!c)
		return;
	for (unsigned int i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
	if (final) {
		free(c);
		*per_buffer = NULL;
	}
}

static OTF2_MemoryCallbacks memory_callbacks = {
    .otf2_allocate = chunk_allocate,
    .otf2_free_all = chunk_free_all,
};

/* Clock-sync parameters of a device queue, as location properties. */
static const char *const sync_quality[] = {"none", "one-sided", "ok", "inconsistent"};
static const char *const sync_names[] = {"hetrace::clock_sync", "hetrace::clock_sync_bound_ns",
					 "hetrace::clock_offset_ns", "hetrace::clock_drift_ppm"};

static void sync_properties(struct ox *o, OTF2_GlobalDefWriter *g, uint32_t i)
{
	const struct loc *l = &o->locs[i];
	const struct ht_clock_map *m = ht_timeline_clock_map(&o->tl, l->pid, l->device);
	OTF2_AttributeValue v;

	if (!m)
		return;
	v.stringRef = str_ref(o, sync_quality[m->quality <= HT_SYNC_INCONSISTENT ? m->quality : 0]);
	ok(o,
	   OTF2_GlobalDefWriter_WriteLocationProperty(g, i, str_ref(o, sync_names[0]),
						      OTF2_TYPE_STRING, v),
	   "LocationProperty");
	v.float64 = m->bound_ns;
	ok(o,
	   OTF2_GlobalDefWriter_WriteLocationProperty(g, i, str_ref(o, sync_names[1]),
						      OTF2_TYPE_DOUBLE, v),
	   "LocationProperty");
	v.float64 = ht_clock_map_offset_ns(m);
	ok(o,
	   OTF2_GlobalDefWriter_WriteLocationProperty(g, i, str_ref(o, sync_names[2]),
						      OTF2_TYPE_DOUBLE, v),
	   "LocationProperty");
	v.float64 = ht_clock_map_drift_ppm(m);
	ok(o,
	   OTF2_GlobalDefWriter_WriteLocationProperty(g, i, str_ref(o, sync_names[3]),
						      OTF2_TYPE_DOUBLE, v),
	   "LocationProperty");
}

static const char *paradigm_name(OTF2_Paradigm p)
{
	return p == OTF2_PARADIGM_OPENCL ? "OpenCL" : p == OTF2_PARADIGM_CUDA ? "CUDA" : "HIP";
}

/* Global definitions, strings first: everything after refers to them. */
static void write_globals(struct ox *o, OTF2_GlobalDefWriter *g, const struct ht_ctf_source *src)
{
	uint32_t node_name = str_ref(o, src->hostname), node_class = str_ref(o, "node");
	uint32_t unit_none = str_ref(o, ""), unit_events = str_ref(o, "events");
	uint32_t desc_counter = str_ref(o, "hetrace counter");
	uint32_t desc_lost = str_ref(o, "events the recorder lost");
	uint32_t accel_name = 0;
	uint64_t offset = o->tmin <= o->tmax ? o->tmin : 0;
	uint64_t length = o->tmin <= o->tmax ? o->tmax - o->tmin : 0;
	int64_t epoch = src->offset_s * 1000000000ll + src->offset_ns;
	OTF2_Paradigm accel = o->accel_paradigm;

	if (accel != OTF2_PARADIGM_UNKNOWN)
		accel_name = str_ref(o, paradigm_name(accel));
	for (uint32_t i = 0; i < o->ngroups; i++)
		o->groups[i].name_ref = str_ref(o, o->groups[i].name);
	for (uint32_t i = 0; i < o->nlocs; i++)
		o->locs[i].name_ref = str_ref(o, o->locs[i].name);
	for (unsigned int i = 0; i < 4; i++) {
		str_ref(o, sync_quality[i]);
		str_ref(o, sync_names[i]);
	}
	if (o->rc)
		return;
	o->frozen = 1;

	ok(o,
	   OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, offset, length,
						     epoch > 0 ? (uint64_t)((int64_t)offset + epoch)
							       : OTF2_UNDEFINED_TIMESTAMP),
	   "ClockProperties");
	for (uint32_t i = 0; i < o->nstrings && !o->rc; i++)
		ok(o, OTF2_GlobalDefWriter_WriteString(g, i, o->strings[i]), "String");
	if (accel != OTF2_PARADIGM_UNKNOWN)
		ok(o,
		   OTF2_GlobalDefWriter_WriteParadigm(g, accel, accel_name,
						      OTF2_PARADIGM_CLASS_ACCELERATOR),
		   "Paradigm");
	for (uint32_t i = 0; i < o->nattrs && !o->rc; i++)
		ok(o,
		   OTF2_GlobalDefWriter_WriteAttribute(g, i, o->attrs[i].name, o->attrs[i].name,
						       o->attrs[i].type),
		   "Attribute");
	ok(o,
	   OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, node_name, node_class,
						    OTF2_UNDEFINED_SYSTEM_TREE_NODE),
	   "SystemTreeNode");
	/* process groups before the accelerator groups that name them as creator */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < o->ngroups && !o->rc; i++) {
			const struct group *gr = &o->groups[i];

			if (gr->accel != pass)
				continue;
			ok(o,
			   OTF2_GlobalDefWriter_WriteLocationGroup(
			       g, i, gr->name_ref,
			       gr->accel ? OTF2_LOCATION_GROUP_TYPE_ACCELERATOR
					 : OTF2_LOCATION_GROUP_TYPE_PROCESS,
			       0, gr->accel ? gr->creator : OTF2_UNDEFINED_LOCATION_GROUP),
			   "LocationGroup");
		}
	for (uint32_t i = 0; i < o->nlocs && !o->rc; i++)
		ok(o,
		   OTF2_GlobalDefWriter_WriteLocation(g, i, o->locs[i].name_ref,
						      o->locs[i].is_queue
							  ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
							  : OTF2_LOCATION_TYPE_CPU_THREAD,
						      o->locs[i].events, o->locs[i].group),
		   "Location");
	mpi_write_defs(o, g);
	for (uint32_t i = 0; i < o->nregions && !o->rc; i++) {
		const struct region *r = &o->regions[i];
		OTF2_Paradigm p = r->kind == R_DEVICE ? accel : r->paradigm;

		ok(o,
		   OTF2_GlobalDefWriter_WriteRegion(g, i, r->name, r->name, r->desc, r->role, p,
						    OTF2_REGION_FLAG_NONE, unit_none, 0, 0),
		   "Region");
	}
	for (uint32_t i = 0; i < o->nmetrics && !o->rc; i++) {
		OTF2_MetricMemberRef m = i;
		int lost = !strcmp(o->strings[o->metrics[i].name], LOST_METRIC);

		ok(o,
		   OTF2_GlobalDefWriter_WriteMetricMember(
		       g, i, o->metrics[i].name, lost ? desc_lost : desc_counter,
		       OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT, o->metrics[i].type,
		       OTF2_BASE_DECIMAL, 0, lost ? unit_events : unit_none),
		   "MetricMember");
		ok(o,
		   OTF2_GlobalDefWriter_WriteMetricClass(g, i, 1, &m, OTF2_METRIC_ASYNCHRONOUS,
							 OTF2_RECORDER_KIND_ABSTRACT),
		   "MetricClass");
	}
	for (uint32_t i = 0; i < o->nlocs && !o->rc; i++)
		if (o->locs[i].is_queue)
			sync_properties(o, g, i);
}

/* Ends every location's events, then writes the definitions. */
static void finish(struct ox *o, const struct ht_ctf_source *src)
{
	OTF2_GlobalDefWriter *g;

	for (uint32_t i = 0; i < o->nlocs && !o->rc; i++) {
		struct loc *l = &o->locs[i];

		flush_ends(o, l, UINT64_MAX);
		/* calls still open at the end of the trace end with their thread */
		while (l->depth && !o->rc) {
			o->unfinished++;
			ok(o, OTF2_EvtWriter_Leave(l->w, NULL, l->last, l->stack[--l->depth]),
			   "Leave");
		}
		ok(o, OTF2_EvtWriter_GetNumberOfEvents(l->w, &l->events), "GetNumberOfEvents");
		ok(o, OTF2_Archive_CloseEvtWriter(o->ar, l->w), "CloseEvtWriter");
		l->w = NULL;
	}
	ok(o, OTF2_Archive_CloseEvtFiles(o->ar), "CloseEvtFiles");
	if (o->rc)
		return;
	/* one (empty) local definition file per location */
	ok(o, OTF2_Archive_OpenDefFiles(o->ar), "OpenDefFiles");
	for (uint32_t i = 0; i < o->nlocs && !o->rc; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(o->ar, i);

		if (!dw) {
			fail(o, -EIO, "no definition writer");
			return;
		}
		ok(o, OTF2_Archive_CloseDefWriter(o->ar, dw), "CloseDefWriter");
	}
	ok(o, OTF2_Archive_CloseDefFiles(o->ar), "CloseDefFiles");
	if (o->rc)
		return;
	g = OTF2_Archive_GetGlobalDefWriter(o->ar);
	if (!g) {
		fail(o, -EIO, "no global definition writer");
		return;
	}
	write_globals(o, g, src);
	ok(o, OTF2_Archive_CloseGlobalDefWriter(o->ar, g), "CloseGlobalDefWriter");
}

static void release(struct ox *o)
{
	for (uint32_t i = 0; i < o->nlocs; i++) {
		ht_ends_release(&o->locs[i].ends);
		free(o->locs[i].stack);
	}
	for (uint32_t i = 0; i < o->nstrings; i++)
		free(o->strings[i]);
	free(o->strings);
	free(o->locs);
	free(o->groups);
	free(o->regions);
	free(o->attrs);
	free(o->metrics);
	ht_map_release(&o->strs);
	ht_map_release(&o->keys);
	mpi_release(&o->mpi);
	if (o->al)
		OTF2_AttributeList_Delete(o->al);
	if (o->tl_open)
		ht_timeline_close(&o->tl);
}

int ht_export_otf2(struct ht_trace *t, const char *dir, struct ht_read_error *err)
{
	struct ht_ctf_source src = {.hostname = "unknown"};
	struct ox o = {0};
	const struct ht_tl_record *r;
	int rc;

	o.err = err;
	o.tmin = UINT64_MAX;
	o.accel_paradigm = OTF2_PARADIGM_UNKNOWN;
	if (t->nprocs && ht_ctf_source_read(t, &t->procs[0], &src))
		snprintf(src.hostname, sizeof src.hostname, "unknown");
	rc = ht_timeline_open(&o.tl, t, NULL);
	o.tl_open = 1;
	if (rc) {
		*err = o.tl.err;
		goto out;
	}
	o.al = OTF2_AttributeList_New();
	o.ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, EVT_CHUNK, DEF_CHUNK,
				 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!o.al || !o.ar) {
		fail(&o, -EIO, "cannot open the archive");
		goto out;
	}
	ok(&o, OTF2_Archive_SetFlushCallbacks(o.ar, &flush_callbacks, &o), "SetFlushCallbacks");
	ok(&o, OTF2_Archive_SetMemoryCallbacks(o.ar, &memory_callbacks, NULL),
	   "SetMemoryCallbacks");
	ok(&o, OTF2_Archive_SetSerialCollectiveCallbacks(o.ar), "SetSerialCollectiveCallbacks");
	ok(&o, OTF2_Archive_OpenEvtFiles(o.ar), "OpenEvtFiles");
	while (!o.rc && (rc = ht_export_next(&o.tl, &r, &o.dropped)) > 0)
		record(&o, r);
	if (!o.rc && rc < 0) {
		*err = o.tl.err;
		o.rc = rc;
	}
	if (!o.rc)
		mpi_prepare(&o);
	if (!o.rc)
		finish(&o, &src);
	if (!o.rc)
		ht_export_warn_dropped(o.dropped);
	if (!o.rc && o.clamped)
		fprintf(stderr,
			"hetrace: warning: %" PRIu64 " OTF2 records went back in time on their "
			"location and were moved to its previous time\n",
			o.clamped);
	if (!o.rc && (o.unmatched || o.unfinished))
		fprintf(stderr,
			"hetrace: note: OTF2 regions nested: %" PRIu64 " left at their parent's "
			"end or the trace's end, %" PRIu64 " ends without a begin dropped\n",
			o.unfinished, o.unmatched);
	rc = o.rc;
out:
	if (o.ar && OTF2_Archive_Close(o.ar) != OTF2_SUCCESS && !rc) {
		o.ar = NULL;
		fail(&o, -EIO, "closing the archive failed");
		rc = o.rc;
	}
	release(&o);
	return rc;
}

#endif
