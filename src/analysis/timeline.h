/*
 * The timeline model: a trace as one time-ordered stream of decoded,
 * clock-mapped, reordered records (processes, threads, API calls, regions,
 * instants, counters, device commands, CPU states, losses...). It is the
 * only reader of raw events for analysis: `report`, `info`, every export and
 * `view` consume it, so they cannot disagree.
 *
 * Underneath, the pipeline (pipeline.h) decodes packets in parallel; the
 * timeline merges the streams by time (a heap of streams, refreshed only
 * when the front stream's next event passes another stream's), resolves
 * every id against the process's definitions (defs.h), maps device times to
 * host time with one clock-sync solver (the convex hull of seed 000 §3.4,
 * clocksync.h) run over the device streams first, and pairs API begin/end
 * per thread.
 *
 * Times: every host time is the trace's (CLOCK_MONOTONIC of the process,
 * or for an MPI rank of another node, of the job's reference rank: the
 * pipeline shifts event times, the timeline payload times, mpi_defs.h).
 *
 * Order: records of one track (a thread, or a device queue) come in
 * non-decreasing time order; across tracks, device commands and CPU states
 * arrive later than the CPU records around them (they are collected after
 * they end).
 *
 * Device-time order uses the bounded reorder window of seed 000 §3.3.2: a
 * command is held until every command enqueued before it (by its enqueue
 * call's begin time) has been seen, so nothing seen later can start earlier;
 * if more than HT_REORDER_MAX commands are held, the earliest is released
 * anyway and counted in ht_timeline.reorder_overflows; an enqueue whose command
 * has not arrived within HT_REORDER_EXPIRE_NS stops holding the others
 * (counted in reorder_expired). The window needs the thread streams: a
 * timeline of device streams alone gives commands in collection order.
 */
#ifndef HT_TIMELINE_H
#define HT_TIMELINE_H

#include <stdint.h>

#include "analysis/clocksync.h"
#include "analysis/defs.h"
#include "analysis/pipeline.h"

#define HT_REORDER_MAX	     65536
#define HT_REORDER_EXPIRE_NS 10000000000ull /* an enqueue waits this long for its command */
#define HT_TL_ARGS	     16

enum ht_tl_kind {
	HT_TL_PROCESS,	   /* first record of a process: pid, ppid, name (comm), text (cmdline) */
	HT_TL_THREAD,	   /* a thread's first record, or a new name: pid, tid, name */
	HT_TL_QUEUE,	   /* a device queue's first command: pid, device, queue, name = the
			      device's name (device_info) or "device" */
	HT_TL_SLICE_BEGIN, /* pid, tid, name, category "api" or "region"; fn, name_id */
	HT_TL_SLICE_END,   /* same, begin = its begin's time; api: ret, args, corr (its
			      device command, 0 if none) */
	HT_TL_INSTANT,	   /* pid, tid, name, args */
	HT_TL_COUNTER,	   /* pid, tid, name, value (also a sampled counter: samples stream) */
	HT_TL_DEVICE,	   /* pid, device, queue, name, category (kind), ts..end, corr, ...;
			      text = the device's name */
	HT_TL_LOST,	   /* pid, tid (0: device or process streams), count = events (and
			      value, as a double, for display),
			      cmd_kind = ht_lost_kind, or HT_LOST_KIND_COUNT for the
			      recorder's own discards (events_discarded) */
	/*
	 * OS scheduling: pid, tid, name = "running" | "preempted" | "blocked",
	 * category "cpu_state", ts..end (host ns), args[0] = cpu (uint). A
	 * thread's CPU-state records come in time order among themselves but
	 * later than its other records (collected in batches, like device
	 * commands); they may also name a thread whose records came from
	 * another stream of the process.
	 */
	HT_TL_CPU_STATE,
	HT_TL_ANCHOR,	  /* a clock anchor: value = its ht_anchor_kind */
	HT_TL_OS_STATUS,  /* pid, value = ht_os_status_kind, text = the reason */
	HT_TL_STREAM_END, /* a stream's events are over: ts = its last event's, pid, tid */
	HT_TL_CLOCK_PAIR, /* a host/device time pair: pid, device, cmd_kind = ht_pair_kind,
			     host_before = its host time, queued = its device time mapped */
	HT_TL_DEFINITION, /* a string, function, device, queue or process definition (the
			     timeline resolves them itself): ts, name = the event class */
	/*
	 * Device memory accesses (src/memtrace), from a process's device-memory
	 * stream, in its order: a module's sites before the launches that use
	 * them; per launch its MEM_LAUNCH and MEM_ARGs before its accesses and
	 * its MEM_END after them. Fields in r->mem; corr links a launch to its
	 * enqueue and device command.
	 */
	HT_TL_MEM_SITE,	  /* name = the function holding it, text = the file of its line
			     ("": the program's own); mem: module, site, arg, kind, size,
			     line, col */
	HT_TL_MEM_LAUNCH, /* corr, name = the kernel, global, local; mem: module, sample */
	HT_TL_MEM_ARG,	  /* corr; mem: arg, base, bytes (0: unknown) */
	HT_TL_MEM_ACCESS, /* corr; mem: addr, group, item, site, size, kind */
	HT_TL_MEM_END,	  /* corr; mem: records, dropped (also given as an HT_TL_LOST of
			     kind HT_LOST_MEMORY_ACCESS when not 0) */
	/*
	 * A CPU sample (samples stream, written by `record`): pid, tid, ts,
	 * stack = its calling context (the sampled instruction innermost),
	 * category "cpu_sample". Samples come in time order among themselves,
	 * not among the thread's other records.
	 */
	HT_TL_SAMPLE,
	/*
	 * A process's or thread's life (task events): pid, tid, cmd_kind =
	 * ht_task_kind, begin = when it happened (ts is when it was written:
	 * a process start is written when its directory is made), ret = exit
	 * code (-1: unknown), value = the signal that killed it (child_exit),
	 * name = the thread's name. child_exit: tid is the child's pid.
	 */
	HT_TL_TASK,
	/*
	 * MPI (mpi_records.c): a message endpoint, a collective, a one-sided
	 * access, of an MPI rank's thread. cmd_kind = ht_tl_mpi_kind, name =
	 * what it is ("send", "allreduce", ...), category "mpi", begin = the
	 * begin of the MPI call it happened in, bytes, the mpi fields. The
	 * rank's definitions (rank, communicators) are its process's
	 * (ht_timeline_proc()->mpi).
	 */
	HT_TL_MPI,
	/*
	 * Device PC samples (CUDA's pc_sample and pc_line, device stream): the
	 * fields in r->pc. PC_LINE: name = the function, pc.module, pc.pc,
	 * pc.file, pc.line; it comes before the samples that name it.
	 * PC_SAMPLE: corr = the launch, name = the function, pc.module, pc.pc,
	 * pc.stall (NULL: none reported), count = samples. (PoCL's PC samples
	 * are CPU samples: HT_TL_SAMPLE; src/pcsamp/kernel_lines.h.)
	 */
	HT_TL_PC_LINE,
	HT_TL_PC_SAMPLE,
};

/* What an HT_TL_MPI record is. */
enum ht_tl_mpi_kind {
	HT_TL_MPI_SEND,	      /* a blocking send started (its call began at `begin`) */
	HT_TL_MPI_ISEND,      /* a nonblocking send posted, or a persistent one started */
	HT_TL_MPI_ISEND_DONE, /* a nonblocking send completed (in the wait or test at `begin`) */
	HT_TL_MPI_RECV,	      /* a blocking receive completed: actual source, tag, bytes */
	HT_TL_MPI_IRECV_POST, /* a nonblocking receive posted (peer and tag as asked, -1 any) */
	HT_TL_MPI_IRECV,      /* it completed: actual source, tag, bytes */
	HT_TL_MPI_COLL,	      /* a collective ended: mpi.op, root in peer, bytes sent */
	HT_TL_MPI_COLL_POST,  /* a nonblocking collective posted (mpi.request) */
	HT_TL_MPI_RMA,	      /* a one-sided access: mpi.op, target in peer */
	HT_TL_MPI_KIND_COUNT
};

enum ht_tl_arg_type {
	HT_TL_INT,
	HT_TL_UINT,
	HT_TL_HEX,
	HT_TL_DOUBLE,
	HT_TL_STRING,
};

struct ht_tl_arg {
	const char *key;
	enum ht_tl_arg_type type;
	union {
		int64_t i;
		uint64_t u;
		double f;
		const char *s;
	} v;
};

struct ht_tl_record {
	enum ht_tl_kind kind;
	uint64_t ts;	/* host ns; device commands: start */
	uint64_t end;	/* device commands, CPU states: end */
	uint64_t begin; /* slice ends: when the slice began */
	int32_t pid, ppid, tid;
	unsigned int proc;   /* the process's index in the trace */
	unsigned int stream; /* the pipeline stream it came from */
	uint8_t source;	     /* that stream's ht_pipe_kind (thread, process, device, os) */
	uint32_t device;
	uint64_t queue;
	const char *name;
	const char *category;
	const char *text;
	const struct ht_fn_info *fn; /* API slices: the function (roles, arguments) */
	uint32_t name_id;	     /* regions, instants, counters, kernels: the string id, 0 if undefined */
	uint16_t fn_id;		     /* API slices: the function id */
	uint8_t cmd_kind;	     /* device commands: ht_cmd_kind; losses: ht_lost_kind;
				      CPU states: ht_cpu_state */
	uint8_t api;		     /* slices: an API call (else a region) */
	uint8_t paired;		     /* slice ends: its begin was found (else begin = ts) */
	uint32_t depth;		     /* slices: open calls and regions of the thread after it */
	uint32_t stack;		     /* slices, samples: the calling context, a stack node of
				      * the process (stacks.h; defs->stacks), 0 if none */
	uint64_t corr;
	int32_t ret;
	double value;
	uint64_t count; /* losses: how many */
	unsigned int nargs;
	/* device commands only: other records leave these unset */
	uint64_t queued, submit; /* host ns (0 if unknown) */
	uint64_t bytes;
	int32_t status;
	uint8_t timed;	      /* completed with device timestamps */
	uint64_t host_before; /* its clock-sync bounds: host time before the enqueue (0 if */
	uint64_t collected;   /* unknown) <= QUEUED, END <= when it was seen complete */
	uint64_t global[3], local[3];
	/* MPI records only (HT_TL_MPI): other records leave these unset */
	struct ht_tl_mpi_fields {
		uint64_t comm;	    /* the communicator's job-wide id (0 unknown; 1 world) */
		uint64_t request;   /* nonblocking operations: the request handle */
		uint64_t received;  /* collectives: bytes received (bytes: sent) */
		int32_t peer;	    /* partner, root or target: its rank in comm (-1 none or any) */
		int32_t peer_world; /* the same as a world rank (-1 unknown) */
		int32_t tag;
		int32_t rank;	   /* this process's world rank */
		int32_t comm_rank; /* its rank in comm (-1 unknown) */
		uint8_t op;	   /* collectives: ht_mpi_coll_op; one-sided: ht_mpi_rma_op */
		uint8_t cancelled;
	} mpi;
	struct ht_tl_arg args[HT_TL_ARGS];
	/* memory-access records only (HT_TL_MEM_*): other records leave these unset */
	struct {
		uint64_t addr, base, bytes, records, dropped;
		uint32_t module, site, group, item, line, col, sample;
		int32_t arg;
		uint8_t kind, size;
	} mem;
	/* device PC-sample records only (HT_TL_PC_*): other records leave these unset */
	struct {
		uint64_t pc;
		uint32_t module, line;
		const char *file, *stall;
	} pc;
};

struct ht_tl_device; /* per (process, device): clock map */
struct ht_tl_mpi;    /* MPI requests and communicators (mpi_records.c) */
struct ht_tl_proc;   /* per process: reorder state */
struct ht_tl_stream; /* per stream: position, announcements, open API calls */

struct ht_tl_opts {
	unsigned int kinds; /* ht_pipe_kind mask of the streams to read; 0: all */
	int no_args;	    /* leave api_end/instant arguments undecoded (report) */
	int meta; /* also give clock anchors, OS notes, clock pairs, definitions, stream ends */
	int allow_raw;	   /* count and skip RAW packets instead of failing (info) */
	unsigned int skip; /* record kinds not wanted: bit (1 << kind) set; the timeline does
			    * not build them (their events still count) */
	int workers;	   /* decoding threads: 0 one per core beside the consumer
			    * (HETRACE_ANALYSIS_THREADS overrides), > 0 that many, < 0 none */
};

struct ht_timeline {
	struct ht_trace *trace;
	struct ht_tl_opts opts;
	struct ht_pipe pipe;
	struct ht_proc_info *defs; /* per process */
	struct ht_tl_proc *procs;
	struct ht_tl_stream *streams; /* by pipeline stream index */
	unsigned int *heap;	      /* stream indices, ordered by their next event */
	unsigned int nheap;
	unsigned int second; /* the heap child that comes next after the top (nheap > 1) */
	uint64_t limit;	     /* its next event's time (UINT64_MAX with one stream) */
	int started;
	int reorder;	  /* device commands wait for the enqueues before them (reorder window) */
	uint8_t noop[32]; /* thread-class event ids that give no record (see skip_run) */
	struct ht_tl_device *devs;
	unsigned int ndevs;
	struct ht_tl_record rec;
	/* queued output: records waiting to be handed out (announcements, device releases) */
	struct ht_tl_record *out;
	size_t nout, capout, outpos;
	int merge_done;
	uint64_t events; /* raw events read */
	uint64_t reorder_overflows;
	uint64_t reorder_expired; /* enqueues whose command never came */
	uint64_t device_commands;
	struct ht_tl_mpi *mpi; /* created at the first MPI record */
	struct ht_read_error err;
};

/*
 * Opens the timeline of trace t (definitions, then the clock-sync pass when
 * device streams are read). opts NULL: every stream, arguments decoded, no
 * meta records (what the exporters draw).
 * Return: 0, or < 0 with tl->err filled and nothing left to close.
 */
int ht_timeline_open(struct ht_timeline *tl, struct ht_trace *t, const struct ht_tl_opts *opts);
/* Return: 1 with *out (valid until the next call), 0 at the end, < 0 on error (tl->err). */
int ht_timeline_next(struct ht_timeline *tl, const struct ht_tl_record **out);
void ht_timeline_close(struct ht_timeline *tl);

/* Return: the clock map of a process's device (NULL if none). */
const struct ht_clock_map *ht_timeline_clock_map(const struct ht_timeline *tl, int32_t pid,
						 uint32_t device);
/* The devices the clock-sync pass saw: index i < ht_timeline_ndevices. */
unsigned int ht_timeline_ndevices(const struct ht_timeline *tl);
void ht_timeline_device(const struct ht_timeline *tl, unsigned int i, int32_t *pid,
			uint32_t *device, const struct ht_clock_map **map);
/* Return: the definitions of the process with index proc (borrowed). */
const struct ht_proc_info *ht_timeline_proc(const struct ht_timeline *tl, unsigned int proc);

/* What one stream held, for `info` (valid after the timeline ended). */
struct ht_tl_stream_stats {
	const char *name;
	unsigned int proc;
	enum ht_pipe_kind kind;
	int32_t vtid;
	uint64_t bytes, packets, raw_packets, events, discarded;
	uint64_t first_ts, last_ts; /* its first and last event's times (0: none) */
	uint64_t by_class[32];	    /* events per class id (ids >= 32 not counted) */
	int torn;
	uint64_t torn_offset, torn_bytes;
};
unsigned int ht_timeline_nstreams(const struct ht_timeline *tl);
void ht_timeline_stream_stats(const struct ht_timeline *tl, unsigned int i,
			      struct ht_tl_stream_stats *st);

#endif
