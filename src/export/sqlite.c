/*
 * The SQLite export (see sqlite.h; the schema is described, with example
 * queries, in docs/sqlite-schema.md). The schema is data: one description
 * per table below (its columns, its key, its index, and the timeline record
 * kind whose records fill it), from which the DDL, the inserts and the
 * dispatch of records are made. A table for a new concept is one more
 * description and its fill function, keyed by the record kind the timeline
 * gives it; then the schema version moves (sqlite.h).
 *
 * Rows reach SQLite in batches on a writer thread (sqlite_rows.h: ~2.2 M
 * rows/s of CPU on a 2-vCPU VM, what SQLite itself manages). An index on
 * time built after the load cost 0.7 us per row there, more than the
 * insert; the event tables are therefore WITHOUT ROWID tables keyed (time,
 * id): the key is the time index, and rows, which come nearly in time
 * order, are appended (2.0 M rows/s). One transaction, no journal, and
 * 64 KiB pages (set before the first table): 16 times fewer page splits and
 * writes than SQLite's default 4 KiB, the export 22% faster (bench/sqlite.sh
 * on 30 M events, 5.4 s -> 4.2 s, medians of 3 interleaved runs), the
 * database the same size.
 *
 * What needs more than one record is made where it is known: a calling
 * context's rows (call_stacks, stack_frames) when an API call or a CPU
 * sample first names it, its frames resolved by src/symbols (loading the
 * DWARF of the modules sampled costs ~0.15 s and ~20 MB once, measured on
 * the bench's trace, whose recorder sampled 38 times); the memory-access
 * summary by the report's own analysis after the pass (one more pass over
 * the device streams, only when the trace holds memory-access launches);
 * how processes ended by the lifetimes analysis (a pass over the process
 * streams). Records of no such kind cost nothing more: bench/sqlite.sh on
 * 9 M events (38 of them samples) took 1.92 s before these tables, 1.95 s
 * with them (medians of 3, the same machine).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/defs.h"
#include "analysis/escape.h"
#include "analysis/lifetimes.h"
#include "analysis/stacks.h"
#include "analysis/timeline.h"
#include "common/grow.h"
#include "common/map.h"
#include "export/sqlite.h"
#include "memtrace/analysis.h"
#include "symbols/symbols.h"

#ifdef HT_HAVE_SQLITE
#include "export/sqlite_rows.h"

#define SQ_PER_KIND 4 /* tables filled from one record kind, at most */

enum {
	T_META,
	T_STRINGS,
	T_PROCESSES,
	T_THREADS,
	T_QUEUES,
	T_DEVICES,
	T_API_CALLS,
	T_KERNELS,
	T_TRANSFERS,
	T_REGIONS,
	T_INSTANTS,
	T_COUNTERS,
	T_OS_STATES,
	T_LOSSES,
	T_CALL_STACKS,
	T_STACK_FRAMES,
	T_CPU_SAMPLES,
	T_MEMORY_ACCESS,
	T_MEM_LAUNCHES,
	T_MPI_RANKS,
	T_MPI_OPS,
	T_COUNT
};

struct sq;

struct sq_table {
	const char *name;
	const char *cols[HT_SQ_MAXCOLS + 1]; /* column definitions, NULL-terminated */
	const char *key;		     /* the PRIMARY KEY of a WITHOUT ROWID table, or NULL */
	const char *index; /* "name ON table(...)" built after the load, or NULL */
	int kind;	   /* enum ht_tl_kind of the records that fill it, -1 none */
	int (*fill)(struct sq *s, const struct ht_tl_record *x);
};

struct sq_thread {
	uint32_t proc;
	int32_t tid;
	int64_t name; /* string id, 0 none */
	uint64_t start, end;
};

struct sq_proc {
	int32_t pid, ppid;
	int64_t name, cmdline;
	uint64_t start, end;
	int seen;
	struct ht_map queues; /* handle -> queue id */
	/* the process's string ids (as shown, as recorded) and function ids -> string ids */
	int64_t *by_string, *by_recorded, *by_fn;
	size_t capstring, caprecorded, capfn;
	struct ht_map stacks; /* calling-context node << 1 | sampled -> call_stacks id */
};

/* A memory-access launch waiting for its end (memory_access_launches). */
struct sq_launch {
	uint64_t corr, records, dropped;
	unsigned int proc;
	int64_t kernel;
	uint32_t sample;
	int live, ended;
};

struct sq {
	sqlite3 *db;
	struct ht_sq_rows rows;
	struct ht_timeline *tl;
	struct ht_trace *trace;
	int64_t next_id[T_COUNT]; /* the last id given per table */
	const struct sq_table *by_kind[HT_TL_MPI + 1][SQ_PER_KIND];
	/* strings, processes, threads, queues */
	struct ht_map strings;
	struct sq_proc *procs;
	size_t capprocs;
	struct ht_map thread_ids; /* proc << 32 | tid -> thread id */
	struct ht_map devices;	  /* proc << 32 | device of every queue -> 1, 2 once written */
	uint64_t *devlist;	  /* the same keys, in the order seen */
	size_t ndevs, capdevs;
	struct sq_thread *threads;
	size_t capthreads;
	uint64_t last_tkey;
	int64_t last_tid;
	struct ht_life *lives; /* per process: how it ended (lifetimes.h), NULL if unknown */
	/* calling contexts: frames resolved once per node */
	struct ht_symbols *sym;
	/* memory-access launches by (proc, corr) -> index + 1 into launches */
	struct ht_map launch_of;
	struct sq_launch *launches;
	size_t nlaunches, caplaunches;
	/* JSON of arguments */
	FILE *js;
	char *jsbuf;
	size_t jslen;
	int nomem;
};

/* ---- the schema ---- */

static int fill_process(struct sq *s, const struct ht_tl_record *x);
static int fill_thread(struct sq *s, const struct ht_tl_record *x);
static int fill_queue(struct sq *s, const struct ht_tl_record *x);
static int fill_api_call(struct sq *s, const struct ht_tl_record *x);
static int fill_kernel(struct sq *s, const struct ht_tl_record *x);
static int fill_transfer(struct sq *s, const struct ht_tl_record *x);
static int fill_region(struct sq *s, const struct ht_tl_record *x);
static int fill_instant(struct sq *s, const struct ht_tl_record *x);
static int fill_counter(struct sq *s, const struct ht_tl_record *x);
static int fill_os_state(struct sq *s, const struct ht_tl_record *x);
static int fill_loss(struct sq *s, const struct ht_tl_record *x);
static int fill_sample(struct sq *s, const struct ht_tl_record *x);
static int fill_mem_launch(struct sq *s, const struct ht_tl_record *x);
static int fill_mem_end(struct sq *s, const struct ht_tl_record *x);
static int fill_mpi(struct sq *s, const struct ht_tl_record *x);

#define STR(c)	c " INTEGER REFERENCES strings(id)"
#define PROC	"process_id INTEGER NOT NULL REFERENCES processes(id)"
#define THREAD	"thread_id INTEGER NOT NULL REFERENCES threads(id)"
#define QUEUE	"queue_id INTEGER NOT NULL REFERENCES queues(id)"
#define ID	"id INTEGER NOT NULL"
#define TIME(c) c " INTEGER NOT NULL"

static const struct sq_table tables[T_COUNT] = {
    [T_META] = {"meta", {"key TEXT NOT NULL", "value TEXT"}, "key", NULL, -1, NULL},
    [T_STRINGS] =
	{"strings", {"id INTEGER PRIMARY KEY", "value TEXT NOT NULL"}, NULL, NULL, -1, NULL},
    [T_PROCESSES] = {"processes",
		     {"id INTEGER PRIMARY KEY", "pid INTEGER NOT NULL", "ppid INTEGER",
		      STR("name_id"), STR("cmdline_id"), "start INTEGER", "end INTEGER",
		      "exit_code INTEGER", "exit_signal INTEGER"},
		     NULL,
		     NULL,
		     HT_TL_PROCESS,
		     fill_process},
    [T_THREADS] = {"threads",
		   {"id INTEGER PRIMARY KEY", PROC, "tid INTEGER NOT NULL", STR("name_id"),
		    "start INTEGER", "end INTEGER"},
		   NULL,
		   NULL,
		   HT_TL_THREAD,
		   fill_thread},
    [T_QUEUES] = {"queues",
		  {"id INTEGER PRIMARY KEY", PROC, "device INTEGER NOT NULL",
		   "handle INTEGER NOT NULL", STR("device_name_id")},
		  NULL,
		  NULL,
		  HT_TL_QUEUE,
		  fill_queue},
    [T_DEVICES] = {"devices",
		   {PROC, "device INTEGER NOT NULL", STR("name_id"), "sync TEXT NOT NULL",
		    "offset_ns REAL", "drift_ppm REAL", "bound_ns REAL", "samples INTEGER"},
		   "process_id, device",
		   NULL,
		   -1,
		   NULL},
    [T_API_CALLS] = {"api_calls",
		     {ID, THREAD, "function_id INTEGER NOT NULL REFERENCES strings(id)",
		      TIME("start"), TIME("end"), "status INTEGER NOT NULL",
		      "correlation_id INTEGER", "callstack_id INTEGER", "depth INTEGER NOT NULL",
		      "args TEXT"},
		     "start, id",
		     "api_calls_correlation ON api_calls(correlation_id) WHERE correlation_id "
		     "IS NOT NULL",
		     HT_TL_SLICE_END,
		     fill_api_call},
    [T_KERNELS] = {"kernels",
		   {ID, PROC, QUEUE, "device INTEGER NOT NULL",
		    "name_id INTEGER NOT NULL REFERENCES strings(id)",
		    "demangled_id INTEGER NOT NULL REFERENCES strings(id)", "queued INTEGER",
		    "submit INTEGER", TIME("start"), TIME("end"), "grid_x INTEGER",
		    "grid_y INTEGER", "grid_z INTEGER", "block_x INTEGER", "block_y INTEGER",
		    "block_z INTEGER", "correlation_id INTEGER", "status INTEGER NOT NULL",
		    "timed INTEGER NOT NULL"},
		   "start, id",
		   "kernels_correlation ON kernels(correlation_id) WHERE correlation_id IS NOT "
		   "NULL",
		   HT_TL_DEVICE,
		   fill_kernel},
    [T_TRANSFERS] = {"transfers",
		     {ID, PROC, QUEUE, "device INTEGER NOT NULL", "kind TEXT NOT NULL",
		      "bytes INTEGER NOT NULL", "queued INTEGER", "submit INTEGER", TIME("start"),
		      TIME("end"), "correlation_id INTEGER", "status INTEGER NOT NULL",
		      "timed INTEGER NOT NULL"},
		     "start, id",
		     "transfers_correlation ON transfers(correlation_id) WHERE correlation_id IS "
		     "NOT NULL",
		     HT_TL_DEVICE,
		     fill_transfer},
    [T_REGIONS] = {"regions",
		   {ID, THREAD, "name_id INTEGER NOT NULL REFERENCES strings(id)", TIME("start"),
		    TIME("end"), "depth INTEGER NOT NULL"},
		   "start, id",
		   NULL,
		   HT_TL_SLICE_END,
		   fill_region},
    [T_INSTANTS] = {"instants",
		    {ID, THREAD, "name_id INTEGER NOT NULL REFERENCES strings(id)", TIME("ts"),
		     "args TEXT"},
		    "ts, id",
		    NULL,
		    HT_TL_INSTANT,
		    fill_instant},
    [T_COUNTERS] = {"counters",
		    {ID, THREAD, "name_id INTEGER NOT NULL REFERENCES strings(id)", TIME("ts"),
		     "value REAL NOT NULL"},
		    "ts, id",
		    NULL,
		    HT_TL_COUNTER,
		    fill_counter},
    [T_OS_STATES] = {"os_states",
		     {ID, THREAD, "state TEXT NOT NULL", TIME("start"), TIME("end"), "cpu INTEGER"},
		     "start, id",
		     NULL,
		     HT_TL_CPU_STATE,
		     fill_os_state},
    [T_LOSSES] = {"losses",
		  {ID, PROC, "thread_id INTEGER REFERENCES threads(id)", TIME("ts"),
		   "kind TEXT NOT NULL", "count INTEGER NOT NULL"},
		  "ts, id",
		  NULL,
		  HT_TL_LOST,
		  fill_loss},
    [T_CALL_STACKS] = {"call_stacks",
		       {"id INTEGER PRIMARY KEY", PROC, "node INTEGER NOT NULL",
			"parent_id INTEGER REFERENCES call_stacks(id)", STR("module_id"),
			"address INTEGER NOT NULL", "sampled INTEGER NOT NULL"},
		       NULL,
		       NULL,
		       -1,
		       NULL},
    [T_STACK_FRAMES] = {"stack_frames",
			{"stack_id INTEGER NOT NULL REFERENCES call_stacks(id)",
			 "level INTEGER NOT NULL",
			 "function_id INTEGER NOT NULL REFERENCES strings(id)", STR("module_id"),
			 STR("file_id"), "line INTEGER", "inlined INTEGER NOT NULL"},
			"stack_id, level",
			NULL,
			-1,
			NULL},
    [T_CPU_SAMPLES] = {"cpu_samples",
		       {ID, THREAD, TIME("ts"), "stack_id INTEGER REFERENCES call_stacks(id)"},
		       "ts, id",
		       NULL,
		       HT_TL_SAMPLE,
		       fill_sample},
    [T_MEMORY_ACCESS] =
	{"memory_access",
	 {"id INTEGER PRIMARY KEY", PROC, "kernel_id INTEGER NOT NULL REFERENCES strings(id)",
	  "arg INTEGER NOT NULL", "launches INTEGER NOT NULL", "reads INTEGER NOT NULL",
	  "writes INTEGER NOT NULL", "atomics INTEGER NOT NULL", "bytes_read INTEGER NOT NULL",
	  "bytes_written INTEGER NOT NULL", "bytes_atomic INTEGER NOT NULL", "buffer_bytes INTEGER",
	  "range_lo INTEGER", "range_hi INTEGER", "accesses_32 INTEGER NOT NULL",
	  "sectors INTEGER NOT NULL", "ideal_sectors INTEGER NOT NULL",
	  "out_of_bounds INTEGER NOT NULL", "strides TEXT"},
	 NULL,
	 NULL,
	 -1,
	 NULL},
    [T_MEM_LAUNCHES] = {"memory_access_launches",
			{"id INTEGER PRIMARY KEY", PROC, "correlation_id INTEGER NOT NULL",
			 "kernel_id INTEGER NOT NULL REFERENCES strings(id)", "sample INTEGER",
			 "records INTEGER", "dropped INTEGER"},
			NULL,
			"memory_access_launches_correlation ON "
			"memory_access_launches(correlation_id)",
			HT_TL_MEM_LAUNCH,
			fill_mem_launch},
    [T_MPI_RANKS] = {"mpi_ranks",
		     {"process_id INTEGER PRIMARY KEY REFERENCES processes(id)",
		      "rank INTEGER NOT NULL", "size INTEGER NOT NULL", STR("host_id"),
		      STR("job_id"), "clock_offset_ns INTEGER", "clock_error_ns INTEGER",
		      "clock_drift_ppm REAL", "clock_measurements INTEGER NOT NULL"},
		     NULL,
		     NULL,
		     -1,
		     NULL},
    [T_MPI_OPS] = {"mpi_ops",
		   {ID, THREAD, "kind TEXT NOT NULL",
		    "name_id INTEGER NOT NULL REFERENCES strings(id)", TIME("ts"), TIME("begin"),
		    "rank INTEGER NOT NULL", "comm INTEGER", "comm_rank INTEGER", "peer INTEGER",
		    "peer_world INTEGER", "tag INTEGER", "bytes INTEGER NOT NULL",
		    "received INTEGER", "request INTEGER", "cancelled INTEGER NOT NULL"},
		   "ts, id",
		   NULL,
		   HT_TL_MPI,
		   fill_mpi},
};

/* Records that complete a row of a table filled from another kind: a memory-access launch's end. */
static const struct sq_table updates[] = {
    {"memory_access_launches", {NULL}, NULL, NULL, HT_TL_MEM_END, fill_mem_end},
};

/* ---- rows ---- */

static struct ht_sq_cell *row(struct sq *s, int t)
{
	return ht_sq_rows_add(&s->rows, (unsigned int)t);
}

static inline void put_int(struct ht_sq_cell *c, int64_t v)
{
	ht_sq_int(c, v);
}

/* A time or other quantity where 0 means unknown. */
static inline void put_known(struct ht_sq_cell *c, uint64_t v)
{
	if (v)
		put_int(c, (int64_t)v);
}

static inline void put_real(struct ht_sq_cell *c, double v)
{
	if (isfinite(v)) {
		c->kind = HT_SQ_REAL;
		c->v.f = v;
	}
}

static void put_str(struct sq *s, int t, struct ht_sq_cell *c, const char *v)
{
	ht_sq_rows_text(&s->rows, (unsigned int)t, c, v, strlen(v));
}

/* Return: the id of string v in the strings table (added when new), 0 when out of memory. */
static int64_t intern(struct sq *s, const char *v)
{
	int created;
	uint64_t *id = ht_map_str(&s->strings, v ? v : "", 0, &created);
	struct ht_sq_cell *c;

	if (!id) {
		s->nomem = 1;
		return 0;
	}
	if (!created)
		return (int64_t)*id;
	*id = (uint64_t)++s->next_id[T_STRINGS];
	c = row(s, T_STRINGS);
	if (!c)
		return 0;
	put_int(&c[0], (int64_t)*id);
	put_str(s, T_STRINGS, &c[1], v ? v : "");
	return s->next_id[T_STRINGS];
}

static struct sq_proc *proc(struct sq *s, unsigned int p)
{
	if (p >= s->capprocs &&
	    ht_grow((void **)&s->procs, &s->capprocs, sizeof *s->procs, (size_t)p + 1)) {
		s->nomem = 1;
		return NULL;
	}
	return &s->procs[p];
}

/* A process's string (or function) id as a strings id, looked up once per id. */
static int64_t cached(struct sq *s, int64_t **tab, size_t *cap, uint32_t id, const char *v)
{
	if (id >= *cap && ht_grow((void **)tab, cap, sizeof **tab, (size_t)id + 1)) {
		s->nomem = 1;
		return 0;
	}
	if (!(*tab)[id])
		(*tab)[id] = intern(s, v);
	return (*tab)[id];
}

static int64_t name_of(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_proc *p = proc(s, x->proc);

	return p ? cached(s, &p->by_string, &p->capstring, x->name_id, x->name) : 0;
}

/* The thread (proc, tid), created on first sight. Return: its id, 0 when out of memory. */
static int64_t thread_of(struct sq *s, unsigned int p, int32_t tid)
{
	uint64_t key = (uint64_t)p << 32 | (uint32_t)tid;
	int created;
	uint64_t *v;

	if (key == s->last_tkey && s->last_tid)
		return s->last_tid;
	v = ht_map_u64(&s->thread_ids, key, 0, &created);
	if (!v || (created && ht_grow((void **)&s->threads, &s->capthreads, sizeof *s->threads,
				      (size_t)s->next_id[T_THREADS] + 1))) {
		s->nomem = 1;
		return 0;
	}
	if (created) {
		*v = (uint64_t)++s->next_id[T_THREADS];
		s->threads[*v - 1].proc = p;
		s->threads[*v - 1].tid = tid;
	}
	s->last_tkey = key;
	s->last_tid = (int64_t)*v;
	return s->last_tid;
}

static int64_t queue_of(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_proc *p = proc(s, x->proc);
	const char *dev;
	struct ht_sq_cell *c;
	int created;
	uint64_t *v;

	if (!p || !(v = ht_map_u64(&p->queues, x->queue, 0, &created))) {
		s->nomem = 1;
		return 0;
	}
	if (!created)
		return (int64_t)*v;
	*v = (uint64_t)++s->next_id[T_QUEUES];
	if (!ht_map_u64(&s->devices, (uint64_t)x->proc << 32 | x->device, 1, &created) ||
	    ht_grow((void **)&s->devlist, &s->capdevs, sizeof *s->devlist, s->ndevs + 1))
		s->nomem = 1;
	else if (created)
		s->devlist[s->ndevs++] = (uint64_t)x->proc << 32 | x->device;
	dev = ht_proc_device_name(ht_timeline_proc(s->tl, x->proc), x->device);
	c = row(s, T_QUEUES);
	if (!c)
		return 0;
	put_int(&c[0], (int64_t)*v);
	put_int(&c[1], (int64_t)x->proc + 1);
	put_int(&c[2], x->device);
	put_int(&c[3], (int64_t)x->queue);
	if (dev)
		put_int(&c[4], intern(s, dev));
	return s->next_id[T_QUEUES];
}

/* x's arguments as a JSON object into the text of table t's current row cell c. */
static void put_args(struct sq *s, int t, struct ht_sq_cell *c, const struct ht_tl_record *x)
{
	long n;

	if (!x->nargs)
		return;
	rewind(s->js);
	fputc('{', s->js);
	for (unsigned int i = 0; i < x->nargs; i++) {
		const struct ht_tl_arg *a = &x->args[i];

		if (i)
			fputc(',', s->js);
		ht_json_str(s->js, a->key);
		fputc(':', s->js);
		switch (a->type) {
		case HT_TL_INT:
			fprintf(s->js, "%" PRId64, a->v.i);
			break;
		case HT_TL_HEX:
			fprintf(s->js, "\"0x%" PRIx64 "\"", a->v.u);
			break;
		case HT_TL_DOUBLE:
			if (isfinite(a->v.f))
				fprintf(s->js, "%.17g", a->v.f);
			else
				fputs("null", s->js);
			break;
		case HT_TL_STRING:
			ht_json_str(s->js, a->v.s);
			break;
		default:
			fprintf(s->js, "%" PRIu64, a->v.u);
		}
	}
	fputc('}', s->js);
	n = ftell(s->js);
	if (fflush(s->js) || n < 0) {
		s->nomem = 1;
		return;
	}
	ht_sq_rows_text(&s->rows, (unsigned int)t, c, s->jsbuf, (size_t)n);
}

/* ---- calling contexts: call_stacks and stack_frames ---- */

/* The call_stacks row of node (parent: its parent's row, 0 none), with its frames resolved. */
static int64_t stack_row(struct sq *s, unsigned int p, struct sq_proc *sp,
			 const struct ht_stacks *st, uint32_t node, int64_t parent, int sampled)
{
	const uint64_t *v = ht_map_find_u64(&st->nodes, node);
	uint64_t frame = st->node[*v - 1].frame;
	const struct ht_stack_module *m = ht_stacks_module(st, frame);
	struct ht_sym_frame sf[HT_SYM_INLINE_MAX];
	struct ht_sq_cell *c;
	int64_t id;
	int n;

	if (!s->sym && !(s->sym = ht_symbols_create())) {
		s->nomem = 1;
		return 0;
	}
	id = ++s->next_id[T_CALL_STACKS];
	if (!ht_map_u64(&sp->stacks, (uint64_t)node << 1 | (sampled != 0), (uint64_t)id, NULL)) {
		s->nomem = 1;
		return 0;
	}
	c = row(s, T_CALL_STACKS);
	if (!c)
		return 0;
	put_int(&c[0], id);
	put_int(&c[1], (int64_t)p + 1);
	put_int(&c[2], node);
	if (parent)
		put_int(&c[3], parent);
	if (m)
		put_int(&c[4], intern(s, m->path));
	put_int(&c[5], (int64_t)(m ? ht_frame_addr(frame) : frame));
	put_int(&c[6], sampled);
	n = ht_symbols_resolve(s->sym, m ? m->path : NULL, m ? m->build_id : NULL,
			       m ? ht_frame_addr(frame) : frame, !sampled, sf, HT_SYM_INLINE_MAX);
	for (int i = 0; i < n; i++) {
		c = row(s, T_STACK_FRAMES);
		if (!c)
			return 0;
		put_int(&c[0], id);
		put_int(&c[1], i);
		put_int(&c[2], intern(s, sf[i].function));
		if (sf[i].module)
			put_int(&c[3], intern(s, sf[i].module));
		if (sf[i].file)
			put_int(&c[4], intern(s, sf[i].file));
		if (sf[i].line > 0)
			put_int(&c[5], sf[i].line);
		put_int(&c[6], sf[i].inlined);
	}
	return id;
}

/*
 * The call_stacks id of process p's calling-context node, its row and its
 * callers' written on first sight (callers first: a parent's id is smaller).
 * sampled: node is a CPU sample's innermost frame, the instruction itself;
 * else, and always for its callers, the frame is a return address. A node
 * can be both (a sample taken right at a return address): two rows then,
 * each resolved as what it is. Return: 0 for no node or an undefined one.
 */
static int64_t stack_of(struct sq *s, unsigned int p, uint32_t node, int sampled)
{
	const struct ht_proc_info *pi = ht_timeline_proc(s->tl, p);
	struct sq_proc *sp = proc(s, p);
	uint32_t chain[HT_STACK_DEPTH];
	int64_t id = 0;
	int n = 0;

	if (!node || !sp || !pi->stacks)
		return 0;
	while (node && n < HT_STACK_DEPTH) {
		const uint64_t *seen =
		    ht_map_find_u64(&sp->stacks, (uint64_t)node << 1 | (sampled && !n));
		const uint64_t *v;

		if (seen) {
			id = (int64_t)*seen;
			break;
		}
		if (!(v = ht_map_find_u64(&pi->stacks->nodes, node)))
			break; /* undefined: its callers are unknown */
		chain[n++] = node;
		node = pi->stacks->node[*v - 1].parent;
	}
	while (n-- > 0 && !s->nomem)
		id = stack_row(s, p, sp, pi->stacks, chain[n], id, sampled && n == 0);
	return s->nomem ? 0 : id;
}

/* ---- fill functions: one per table, from the records of its kind ---- */

static int fill_process(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_proc *p = proc(s, x->proc);

	if (!p)
		return -ENOMEM;
	p->seen = 1;
	p->pid = x->pid;
	p->ppid = x->ppid;
	p->name = intern(s, x->name);
	p->cmdline = intern(s, x->text);
	return 0;
}

static int fill_thread(struct sq *s, const struct ht_tl_record *x)
{
	int64_t id = thread_of(s, x->proc, x->tid);

	if (id && x->name && x->name[0])
		s->threads[id - 1].name = intern(s, x->name);
	return 0;
}

static int fill_queue(struct sq *s, const struct ht_tl_record *x)
{
	queue_of(s, x);
	return 0;
}

static int fill_api_call(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_proc *p;
	struct ht_sq_cell *c;
	int64_t fn;

	if (!x->api || !x->paired) /* an end whose begin was lost is in no table */
		return 0;
	p = proc(s, x->proc);
	fn = p ? cached(s, &p->by_fn, &p->capfn, x->fn_id, x->name) : 0;
	c = row(s, T_API_CALLS);
	if (!c)
		return -ENOMEM;
	put_int(&c[0], ++s->next_id[T_API_CALLS]);
	put_int(&c[1], thread_of(s, x->proc, x->tid));
	put_int(&c[2], fn);
	put_int(&c[3], (int64_t)x->begin);
	put_int(&c[4], (int64_t)x->ts);
	put_int(&c[5], x->ret);
	put_known(&c[6], x->corr);
	if (x->stack)
		put_known(&c[7], (uint64_t)stack_of(s, x->proc, x->stack, 0));
	put_int(&c[8], x->depth);
	put_args(s, T_API_CALLS, &c[9], x);
	return 0;
}

/* The columns kernels and transfers share: id, process, queue, device. */
static struct ht_sq_cell *command_row(struct sq *s, int t, const struct ht_tl_record *x)
{
	int64_t q = queue_of(s, x);
	struct ht_sq_cell *c = row(s, t);

	if (!c)
		return NULL;
	put_int(&c[0], ++s->next_id[t]);
	put_int(&c[1], (int64_t)x->proc + 1);
	put_int(&c[2], q);
	put_int(&c[3], x->device);
	return c;
}

static int fill_kernel(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_proc *p;
	struct ht_sq_cell *c;

	if (x->cmd_kind != HT_CMD_KERNEL)
		return 0;
	p = proc(s, x->proc);
	c = command_row(s, T_KERNELS, x);
	if (!c || !p)
		return -ENOMEM;
	put_int(&c[4],
		cached(s, &p->by_recorded, &p->caprecorded, x->name_id,
		       ht_proc_string_recorded(ht_timeline_proc(s->tl, x->proc), x->name_id)));
	put_int(&c[5], name_of(s, x));
	put_known(&c[6], x->queued);
	put_known(&c[7], x->submit);
	put_int(&c[8], (int64_t)x->ts);
	put_int(&c[9], (int64_t)x->end);
	for (int i = 0; i < 3; i++) {
		put_int(&c[10 + i], (int64_t)x->global[i]);
		put_int(&c[13 + i], (int64_t)x->local[i]);
	}
	put_known(&c[16], x->corr);
	put_int(&c[17], x->status);
	put_int(&c[18], x->timed);
	return 0;
}

static int fill_transfer(struct sq *s, const struct ht_tl_record *x)
{
	struct ht_sq_cell *c;

	if (x->cmd_kind == HT_CMD_KERNEL)
		return 0;
	c = command_row(s, T_TRANSFERS, x);
	if (!c)
		return -ENOMEM;
	put_str(s, T_TRANSFERS, &c[4], x->category);
	put_int(&c[5], (int64_t)x->bytes);
	put_known(&c[6], x->queued);
	put_known(&c[7], x->submit);
	put_int(&c[8], (int64_t)x->ts);
	put_int(&c[9], (int64_t)x->end);
	put_known(&c[10], x->corr);
	put_int(&c[11], x->status);
	put_int(&c[12], x->timed);
	return 0;
}

/* A row of a thread's table that begins with id, thread, name and a time. */
static struct ht_sq_cell *thread_row(struct sq *s, int t, const struct ht_tl_record *x,
				     uint64_t time)
{
	int64_t th = thread_of(s, x->proc, x->tid), name = name_of(s, x);
	struct ht_sq_cell *c = row(s, t);

	if (!c)
		return NULL;
	put_int(&c[0], ++s->next_id[t]);
	put_int(&c[1], th);
	put_int(&c[2], name);
	put_int(&c[3], (int64_t)time);
	return c;
}

static int fill_region(struct sq *s, const struct ht_tl_record *x)
{
	struct ht_sq_cell *c;

	if (x->api || !x->paired)
		return 0;
	c = thread_row(s, T_REGIONS, x, x->begin);
	if (!c)
		return -ENOMEM;
	put_int(&c[4], (int64_t)x->ts);
	put_int(&c[5], x->depth);
	return 0;
}

static int fill_instant(struct sq *s, const struct ht_tl_record *x)
{
	struct ht_sq_cell *c = thread_row(s, T_INSTANTS, x, x->ts);

	if (!c)
		return -ENOMEM;
	put_args(s, T_INSTANTS, &c[4], x);
	return 0;
}

static int fill_counter(struct sq *s, const struct ht_tl_record *x)
{
	struct ht_sq_cell *c = thread_row(s, T_COUNTERS, x, x->ts);

	if (!c)
		return -ENOMEM;
	put_real(&c[4], x->value);
	return 0;
}

static int fill_os_state(struct sq *s, const struct ht_tl_record *x)
{
	int64_t th = thread_of(s, x->proc, x->tid);
	struct ht_sq_cell *c = row(s, T_OS_STATES);

	if (!c)
		return -ENOMEM;
	put_int(&c[0], ++s->next_id[T_OS_STATES]);
	put_int(&c[1], th);
	put_str(s, T_OS_STATES, &c[2], x->name);
	put_int(&c[3], (int64_t)x->ts);
	put_int(&c[4], (int64_t)x->end);
	put_int(&c[5], (int64_t)x->args[0].v.u);
	return 0;
}

static int fill_loss(struct sq *s, const struct ht_tl_record *x)
{
	int64_t th = x->tid ? thread_of(s, x->proc, x->tid) : 0;
	struct ht_sq_cell *c = row(s, T_LOSSES);

	if (!c)
		return -ENOMEM;
	put_int(&c[0], ++s->next_id[T_LOSSES]);
	put_int(&c[1], (int64_t)x->proc + 1);
	if (th)
		put_int(&c[2], th);
	put_int(&c[3], (int64_t)x->ts);
	put_str(s, T_LOSSES, &c[4],
		x->cmd_kind < HT_LOST_KIND_COUNT ? ht_lost_kind_names[x->cmd_kind] : "discarded");
	put_int(&c[5], (int64_t)x->count);
	return 0;
}

static int fill_sample(struct sq *s, const struct ht_tl_record *x)
{
	int64_t th = thread_of(s, x->proc, x->tid), st = stack_of(s, x->proc, x->stack, 1);
	struct ht_sq_cell *c = row(s, T_CPU_SAMPLES);

	if (!c)
		return -ENOMEM;
	put_int(&c[0], ++s->next_id[T_CPU_SAMPLES]);
	put_int(&c[1], th);
	put_int(&c[2], (int64_t)x->ts);
	if (st)
		put_int(&c[3], st);
	return 0;
}

static uint64_t launch_key(unsigned int p, uint64_t corr)
{
	return (uint64_t)p << 48 ^ corr;
}

/* The memory_access_launches row of launch l (records and dropped NULL when it never ended). */
static void launch_row(struct sq *s, struct sq_launch *l)
{
	struct ht_sq_cell *c = row(s, T_MEM_LAUNCHES);

	l->live = 0;
	if (!c)
		return;
	put_int(&c[0], l - s->launches + 1);
	put_int(&c[1], (int64_t)l->proc + 1);
	put_int(&c[2], (int64_t)l->corr);
	put_int(&c[3], l->kernel);
	if (l->sample > 1)
		put_int(&c[4], l->sample);
	if (l->ended) {
		put_int(&c[5], (int64_t)l->records);
		put_int(&c[6], (int64_t)l->dropped);
	}
}

static int fill_mem_launch(struct sq *s, const struct ht_tl_record *x)
{
	struct sq_launch *l;
	int created;
	uint64_t *v = ht_map_u64(&s->launch_of, launch_key(x->proc, x->corr), 0, &created);

	if (!v ||
	    ht_grow((void **)&s->launches, &s->caplaunches, sizeof *s->launches, s->nlaunches + 1))
		return -ENOMEM;
	if (!created && s->launches[*v - 1].live) /* the corr again: the older launch is over */
		launch_row(s, &s->launches[*v - 1]);
	l = &s->launches[s->nlaunches++];
	*l = (struct sq_launch){.corr = x->corr,
				.proc = x->proc,
				.kernel = intern(s, x->name ? x->name : "?"),
				.sample = x->mem.sample,
				.live = 1};
	*v = s->nlaunches;
	return 0;
}

static int fill_mem_end(struct sq *s, const struct ht_tl_record *x)
{
	uint64_t *v = ht_map_find_u64(&s->launch_of, launch_key(x->proc, x->corr));
	struct sq_launch *l;

	if (!v || !s->launches[*v - 1].live)
		return 0;
	l = &s->launches[*v - 1];
	l->ended = 1;
	l->records = x->mem.records;
	l->dropped = x->mem.dropped;
	launch_row(s, l);
	return 0;
}

static int fill_mpi(struct sq *s, const struct ht_tl_record *x)
{
	static const char *const kinds[HT_TL_MPI_KIND_COUNT] = {"send", "isend",      "isend_done",
								"recv", "irecv_post", "irecv",
								"coll", "coll_post",  "rma"};
	int64_t th = thread_of(s, x->proc, x->tid), name = intern(s, x->name ? x->name : "?");
	int p2p = x->cmd_kind < HT_TL_MPI_COLL, coll = !p2p && x->cmd_kind != HT_TL_MPI_RMA;
	struct ht_sq_cell *c = row(s, T_MPI_OPS);

	if (!c)
		return -ENOMEM;
	put_int(&c[0], ++s->next_id[T_MPI_OPS]);
	put_int(&c[1], th);
	put_str(s, T_MPI_OPS, &c[2], x->cmd_kind < HT_TL_MPI_KIND_COUNT ? kinds[x->cmd_kind] : "?");
	put_int(&c[3], name);
	put_int(&c[4], (int64_t)x->ts);
	put_int(&c[5], (int64_t)x->begin);
	put_int(&c[6], x->mpi.rank);
	put_known(&c[7], x->mpi.comm);
	if (x->mpi.comm_rank >= 0)
		put_int(&c[8], x->mpi.comm_rank);
	put_int(&c[9], x->mpi.peer);
	if (x->mpi.peer_world >= 0)
		put_int(&c[10], x->mpi.peer_world);
	if (p2p)
		put_int(&c[11], x->mpi.tag);
	put_int(&c[12], (int64_t)x->bytes);
	if (coll)
		put_int(&c[13], (int64_t)x->mpi.received);
	put_known(&c[14], x->mpi.request);
	put_int(&c[15], x->mpi.cancelled);
	return 0;
}

/* ---- what is known at the end: processes, threads, devices, meta ---- */

static void meta(struct sq *s, const char *key, const char *value)
{
	struct ht_sq_cell *c = row(s, T_META);

	if (!c)
		return;
	put_str(s, T_META, &c[0], key);
	if (value)
		put_str(s, T_META, &c[1], value);
}

static void meta_u64(struct sq *s, const char *key, uint64_t v)
{
	char b[32];

	snprintf(b, sizeof b, "%" PRIu64, v);
	meta(s, key, b);
}

static void write_meta(struct sq *s, uint64_t first, uint64_t last)
{
	static const char *const index_keys[] = {"hetrace_version",
						 "host",
						 "command",
						 "clock",
						 "start_realtime_ns",
						 "start_monotonic_ns",
						 "end_monotonic_ns",
						 "exit_status",
						 "exit"};
	char buf[8192];

	meta_u64(s, "schema_version", HT_SQLITE_SCHEMA_VERSION);
	meta_u64(s, "schema_compat", HT_SQLITE_SCHEMA_COMPAT);
	meta(s, "exporter", "hetrace " HT_VERSION);
	meta(s, "time_unit", "ns");
	meta(s, "time_clock", "CLOCK_MONOTONIC");
	meta(s, "trace", s->trace->path);
	for (size_t i = 0; i < sizeof index_keys / sizeof index_keys[0]; i++)
		meta(s, index_keys[i],
		     ht_trace_index_get(s->trace, index_keys[i], buf, sizeof buf) ? NULL : buf);
	meta_u64(s, "first_ns", first);
	meta_u64(s, "last_ns", last);
	meta_u64(s, "events", s->tl->events);
	meta_u64(s, "device_commands", s->tl->device_commands);
	meta_u64(s, "reorder_overflows", s->tl->reorder_overflows);
}

/* A device row: clock-sync quality and map m, or NULL when the device had no samples. */
static void device_row(struct sq *s, unsigned int p, uint32_t dev, const struct ht_clock_map *m)
{
	static const char *const quality[] = {"none", "one-sided", "ok", "inconsistent"};
	const char *name = ht_proc_device_name(ht_timeline_proc(s->tl, p), dev);
	struct ht_sq_cell *c = row(s, T_DEVICES);

	if (!c)
		return;
	put_int(&c[0], (int64_t)p + 1);
	put_int(&c[1], dev);
	if (name)
		put_int(&c[2], intern(s, name));
	put_str(s, T_DEVICES, &c[3], quality[m ? m->quality & 3 : HT_SYNC_NONE]);
	if (m && m->quality != HT_SYNC_NONE) {
		put_real(&c[4], ht_clock_map_offset_ns(m));
		put_real(&c[5], ht_clock_map_drift_ppm(m));
		put_real(&c[6], m->bound_ns);
	}
	put_int(&c[7], m ? (int64_t)m->samples : 0);
}

/* The devices with clock-sync samples, then those with commands but none. */
static void write_devices(struct sq *s)
{
	for (unsigned int i = 0; i < ht_timeline_ndevices(s->tl); i++) {
		const struct ht_clock_map *m;
		int32_t pid;
		uint32_t dev;
		unsigned int p;
		uint64_t *v;

		ht_timeline_device(s->tl, i, &pid, &dev, &m);
		for (p = 0; p < s->trace->nprocs && ht_timeline_proc(s->tl, p)->pid != pid; p++)
			;
		if (p == s->trace->nprocs)
			continue;
		device_row(s, p, dev, m);
		v = ht_map_u64(&s->devices, (uint64_t)p << 32 | dev, 2, NULL);
		if (v)
			*v = 2;
	}
	for (size_t i = 0; i < s->ndevs; i++)
		if (*ht_map_find_u64(&s->devices, s->devlist[i]) == 1)
			device_row(s, (unsigned int)(s->devlist[i] >> 32), (uint32_t)s->devlist[i],
				   NULL);
}

/* The MPI ranks among the processes, with their clock against the job's reference rank. */
static void write_mpi_ranks(struct sq *s)
{
	for (unsigned int i = 0; i < s->trace->nprocs; i++) {
		const struct ht_proc_mpi *m = &ht_timeline_proc(s->tl, i)->mpi;
		const struct ht_clock_shift *sh = &s->trace->procs[i].shift;
		struct ht_sq_cell *c;

		if (!m->is_rank)
			continue;
		c = row(s, T_MPI_RANKS);
		if (!c)
			return;
		put_int(&c[0], (int64_t)i + 1);
		put_int(&c[1], m->rank);
		put_int(&c[2], m->size);
		put_int(&c[3], intern(s, m->host));
		put_int(&c[4], intern(s, m->job));
		if (m->nclocks) {
			put_int(&c[5], sh->off0);
			put_int(&c[6], (int64_t)sh->error);
			put_real(&c[7], sh->slope * 1e6);
		}
		put_int(&c[8], (int64_t)m->nclocks);
	}
}

/*
 * The memory-access summary per kernel and argument: the report's own
 * analysis (memtrace/analysis.h), one more pass over the device streams,
 * run only when the trace holds memory-access launches.
 */
static int write_memory_access(struct sq *s, struct ht_read_error *err)
{
	struct ht_mem_report m = {0};
	int rc = ht_mem_report_compute(s->trace, &m, err);

	if (rc)
		return rc;
	for (size_t i = 0; i < m.n && !s->nomem; i++) {
		const struct ht_mem_row *r = &m.rows[i];
		int64_t st[4];
		uint64_t cnt[4];
		unsigned int ns = ht_mem_row_strides(r, st, cnt, 4), p;
		struct ht_sq_cell *c;
		long len;

		for (p = 0; p < s->trace->nprocs && ht_timeline_proc(s->tl, p)->pid != r->pid; p++)
			;
		c = row(s, T_MEMORY_ACCESS);
		if (!c)
			break;
		put_int(&c[0], (int64_t)i + 1);
		put_int(&c[1], (int64_t)p + 1);
		put_int(&c[2], intern(s, r->kernel));
		put_int(&c[3], r->arg);
		put_int(&c[4], (int64_t)r->launches);
		put_int(&c[5], (int64_t)r->reads);
		put_int(&c[6], (int64_t)r->writes);
		put_int(&c[7], (int64_t)r->atomics);
		put_int(&c[8], (int64_t)r->bytes_read);
		put_int(&c[9], (int64_t)r->bytes_written);
		put_int(&c[10], (int64_t)r->bytes_atomic);
		put_known(&c[11], r->buffer_bytes);
		if (r->hi > r->lo) {
			put_int(&c[12], r->lo);
			put_int(&c[13], r->hi);
		}
		put_int(&c[14], (int64_t)r->accesses);
		put_int(&c[15], (int64_t)r->sectors);
		put_int(&c[16], (int64_t)r->ideal);
		put_int(&c[17], (int64_t)r->out_of_bounds);
		rewind(s->js);
		fputc('{', s->js);
		for (unsigned int k = 0; k < ns; k++)
			fprintf(s->js, "%s\"%" PRId64 "\":%" PRIu64, k ? "," : "", st[k], cnt[k]);
		fputc('}', s->js);
		len = ftell(s->js);
		if (fflush(s->js) || len < 0)
			s->nomem = 1;
		else
			ht_sq_rows_text(&s->rows, T_MEMORY_ACCESS, &c[18], s->jsbuf, (size_t)len);
	}
	ht_mem_report_release(&m);
	return 0;
}

static void write_end(struct sq *s)
{
	uint64_t first = 0, last = 0;
	struct ht_read_error lerr = {0};

	/* how each process ended: a pass over the process streams (small); none if it fails */
	s->lives = calloc(s->trace->nprocs ? s->trace->nprocs : 1, sizeof *s->lives);
	if (s->lives && ht_lifetimes_compute(s->trace, s->lives, &lerr)) {
		free(s->lives);
		s->lives = NULL;
	}

	/* spans from every event of each stream, recorded or not */
	for (unsigned int i = 0; i < ht_timeline_nstreams(s->tl); i++) {
		struct ht_tl_stream_stats st;
		struct sq_proc *p;

		ht_timeline_stream_stats(s->tl, i, &st);
		if (!st.events || !(p = proc(s, st.proc)))
			continue;
		if (!first || st.first_ts < first)
			first = st.first_ts;
		last = st.last_ts > last ? st.last_ts : last;
		if (!p->start || st.first_ts < p->start)
			p->start = st.first_ts;
		p->end = st.last_ts > p->end ? st.last_ts : p->end;
		if (st.kind == HT_PK_THREAD) {
			int64_t id = thread_of(s, st.proc, st.vtid);
			struct sq_thread *th = id ? &s->threads[id - 1] : NULL;

			if (th && (!th->start || st.first_ts < th->start))
				th->start = st.first_ts;
			if (th && st.last_ts > th->end)
				th->end = st.last_ts;
		}
	}
	for (size_t i = 0; i < s->capprocs; i++) {
		struct sq_proc *p = &s->procs[i];
		struct ht_sq_cell *c;

		if (!p->seen && !p->start)
			continue;
		if (!p->seen) { /* only a process stream: as its definitions say */
			const struct ht_proc_info *pi = ht_timeline_proc(s->tl, (unsigned int)i);

			p->pid = pi->pid;
			p->ppid = pi->ppid;
			p->name = intern(s, pi->comm[0] ? pi->comm : pi->tp->name);
			p->cmdline = intern(s, pi->cmdline ? pi->cmdline : "");
		}
		c = row(s, T_PROCESSES);
		if (!c)
			return;
		put_int(&c[0], (int64_t)i + 1);
		put_int(&c[1], p->pid);
		put_int(&c[2], p->ppid);
		put_int(&c[3], p->name);
		put_int(&c[4], p->cmdline);
		put_known(&c[5], p->start);
		put_known(&c[6], p->end);
		if (s->lives && s->lives[i].how == HT_LIFE_EXIT)
			put_int(&c[7], s->lives[i].code);
		if (s->lives && s->lives[i].how == HT_LIFE_SIGNAL)
			put_int(&c[8], s->lives[i].signal);
	}
	for (int64_t i = 0; i < s->next_id[T_THREADS]; i++) {
		const struct sq_thread *th = &s->threads[i];
		struct ht_sq_cell *c = row(s, T_THREADS);

		if (!c)
			return;
		put_int(&c[0], i + 1);
		put_int(&c[1], (int64_t)th->proc + 1);
		put_int(&c[2], th->tid);
		if (th->name)
			put_int(&c[3], th->name);
		put_known(&c[4], th->start);
		put_known(&c[5], th->end);
	}
	write_devices(s);
	write_mpi_ranks(s);
	for (size_t i = 0; i < s->nlaunches; i++)
		if (s->launches[i].live)
			launch_row(s, &s->launches[i]);
	write_meta(s, first, last);
}

/* ---- the database ---- */

static int sql_error(struct sq *s, struct ht_read_error *err, const char *what)
{
	snprintf(err->msg, sizeof err->msg, "%s: %.120s", what,
		 s->rows.err ? s->rows.errmsg : sqlite3_errmsg(s->db));
	return -EIO;
}

/* The records of d's kind go to d->fill. */
static void dispatch(struct sq *s, const struct sq_table *d)
{
	for (int k = 0; d->kind >= 0 && k < SQ_PER_KIND; k++)
		if (!s->by_kind[d->kind][k]) {
			s->by_kind[d->kind][k] = d;
			break;
		}
}

static int create_schema(struct sq *s, struct ht_read_error *err)
{
	static const char pragmas[] = "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; "
				      "PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
				      "PRAGMA cache_size=-8192; PRAGMA temp_store=MEMORY; BEGIN";
	char sql[4096];

	if (sqlite3_exec(s->db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
	    ht_sq_rows_open(&s->rows, s->db) != SQLITE_OK)
		return sql_error(s, err, "cannot set the database up");
	for (int t = 0; t < T_COUNT; t++) {
		const struct sq_table *d = &tables[t];
		unsigned int ncols;
		size_t n;

		n = (size_t)snprintf(sql, sizeof sql, "CREATE TABLE %s (", d->name);
		for (ncols = 0; d->cols[ncols]; ncols++)
			n += (size_t)snprintf(sql + n, sizeof sql - n, "%s%s", ncols ? ", " : "",
					      d->cols[ncols]);
		if (d->key)
			snprintf(sql + n, sizeof sql - n, ", PRIMARY KEY (%s)) WITHOUT ROWID",
				 d->key);
		else
			snprintf(sql + n, sizeof sql - n, ")");
		if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return sql_error(s, err, "cannot create the tables");
		if (ht_sq_rows_table(&s->rows, (unsigned int)t, d->name, ncols) != SQLITE_OK)
			return sql_error(s, err, "cannot prepare the inserts");
		dispatch(s, d);
	}
	for (size_t i = 0; i < sizeof updates / sizeof updates[0]; i++)
		dispatch(s, &updates[i]);
	return 0;
}

static int finish_db(struct sq *s, struct ht_read_error *err)
{
	char sql[512];

	for (int t = 0; t < T_COUNT; t++) {
		if (!tables[t].index)
			continue;
		snprintf(sql, sizeof sql, "CREATE INDEX %s", tables[t].index);
		if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return sql_error(s, err, "cannot create the indexes");
	}
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return sql_error(s, err, "cannot write the database");
	return 0;
}

static void sq_release(struct sq *s)
{
	ht_sq_rows_close(&s->rows);
	for (size_t i = 0; i < s->capprocs; i++) {
		ht_map_release(&s->procs[i].queues);
		free(s->procs[i].by_string);
		free(s->procs[i].by_recorded);
		free(s->procs[i].by_fn);
		ht_map_release(&s->procs[i].stacks);
	}
	if (s->sym)
		ht_symbols_destroy(s->sym);
	ht_map_release(&s->launch_of);
	free(s->launches);
	for (size_t i = 0; s->lives && i < s->trace->nprocs; i++)
		ht_lifetimes_release(&s->lives[i]);
	free(s->lives);
	free(s->procs);
	free(s->threads);
	ht_map_release(&s->strings);
	ht_map_release(&s->thread_ids);
	ht_map_release(&s->devices);
	free(s->devlist);
	if (s->js)
		fclose(s->js);
	free(s->jsbuf);
}

int ht_export_sqlite(struct ht_trace *t, const char *path, struct ht_read_error *err)
{
	struct sq s = {.trace = t};
	struct ht_timeline tl;
	const struct ht_tl_record *x;
	int rc;

	s.js = open_memstream(&s.jsbuf, &s.jslen);
	rc = ht_timeline_open(&tl, t, NULL);
	if (rc) {
		*err = tl.err;
		sq_release(&s);
		return rc;
	}
	s.tl = &tl;
	if (!s.js) {
		rc = -ENOMEM;
		goto out;
	}
	if (sqlite3_open_v2(path, &s.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		snprintf(err->msg, sizeof err->msg, "cannot open '%s': %s", path,
			 s.db ? sqlite3_errmsg(s.db) : "out of memory");
		rc = -EIO;
		goto out;
	}
	rc = create_schema(&s, err);
	if (rc)
		goto out;
	ht_sq_rows_start(&s.rows);
	while ((rc = ht_timeline_next(&tl, &x)) > 0 && !s.nomem && !s.rows.nomem &&
	       !ht_sq_rows_error(&s.rows)) {
		if (x->kind > HT_TL_MPI)
			continue;
		for (int k = 0; k < SQ_PER_KIND && s.by_kind[x->kind][k]; k++)
			if (s.by_kind[x->kind][k]->fill(&s, x) < 0)
				s.nomem = 1;
	}
	if (rc < 0) {
		*err = tl.err;
		ht_sq_rows_stop(&s.rows);
		goto out;
	}
	if (!s.nomem && !s.rows.nomem)
		write_end(&s);
	if (s.nlaunches && !s.nomem && !s.rows.nomem) {
		rc = write_memory_access(&s, err);
		if (rc) {
			ht_sq_rows_stop(&s.rows);
			goto out;
		}
	}
	if (ht_sq_rows_stop(&s.rows))
		rc = sql_error(&s, err, "cannot write the database");
	else if (s.nomem || s.rows.nomem)
		rc = -ENOMEM;
	else
		rc = finish_db(&s, err);
out:
	if (rc == -ENOMEM && !err->msg[0])
		snprintf(err->msg, sizeof err->msg, "out of memory");
	if (rc && !err->file[0]) {
		snprintf(err->file, sizeof err->file, "%s", path);
		err->offset = HT_NO_OFFSET;
	}
	sq_release(&s);
	if (s.db && sqlite3_close(s.db) != SQLITE_OK && !rc) {
		snprintf(err->file, sizeof err->file, "%s", path);
		err->offset = HT_NO_OFFSET;
		snprintf(err->msg, sizeof err->msg, "cannot close the database");
		rc = -EIO;
	}
	ht_timeline_close(&tl);
	return rc;
}

#else /* !HT_HAVE_SQLITE */

int ht_export_sqlite(struct ht_trace *t, const char *path, struct ht_read_error *err)
{
	(void)t;
	snprintf(err->file, sizeof err->file, "%s", path);
	err->offset = HT_NO_OFFSET;
	snprintf(err->msg, sizeof err->msg,
		 "this hetrace was built without SQLite: install libsqlite3-dev (make deps) "
		 "and rebuild");
	return -ENOTSUP;
}

#endif
