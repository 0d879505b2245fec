/*
 * The critical path's graph while it is built (internal to critpath.c,
 * which fills it from timeline records, and critpath_walk.c, which links
 * and walks it): threads with their chains of outermost calls and the CPU
 * time between them, device commands per queue, per-process lookups.
 */
#ifndef HT_CRITPATH_GRAPH_H
#define HT_CRITPATH_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/critpath.h"
#include "common/map.h"

#define NONE UINT32_MAX

/* How a call waits for the device (the strongest of its nested calls'). */
enum { WAIT_NONE, WAIT_ANY, WAIT_QUEUE, WAIT_CORR };

struct cp_piece {
	uint32_t name;
	uint64_t ns;
};

struct cp_span {
	uint32_t first, n;
};

/*
 * A nesting level of a thread, when the timeline gives slice ends only: the
 * time its ended frames' children covered, and the regions' own CPU time
 * waiting to learn whether a call encloses them (then it is the call's).
 */
struct cp_level {
	uint64_t covered;
	struct cp_piece *pend;
	size_t npend, cappend;
};

struct cp_call {
	uint64_t begin, end;
	uint64_t corr;	    /* of the call it waits by (WAIT_CORR) */
	uint64_t enqueued;  /* the corr of what it enqueued (of its last nested call), 0 none */
	uint64_t queue;	    /* its queue argument (WAIT_QUEUE) */
	uint32_t prev;	    /* the thread's previous outermost call */
	uint32_t thread;    /* timeline stream index */
	uint32_t name;	    /* the function */
	uint32_t gap, ngap; /* pieces of the CPU time before it */
	uint8_t wait;
	uint8_t has_queue;
	uint8_t seen; /* walk: bit 0 end visited, bit 1 begin */
};

struct cp_cmd {
	uint64_t start, end, corr;
	uint32_t queue; /* index into b->queues */
	uint32_t name;
	uint32_t prev; /* the command that ran before it on its queue */
	uint32_t call; /* its enqueue call, or NONE */
	uint8_t kind;  /* HT_CP_KERNEL or HT_CP_TRANSFER */
	uint8_t seen;
};

struct cp_queue {
	uint32_t proc, device;
	uint64_t handle;
	double slack;	    /* its device's clock-sync bound: ends may be this late */
	uint32_t *by_start; /* command indices */
	uint32_t *by_end;
	size_t n, cap;
};

struct cp_frame {
	uint32_t id; /* fn id (calls) or cp name (regions) */
	uint8_t api;
};

struct cp_thread {
	int started;
	uint32_t proc;
	int32_t tid;
	uint64_t first, last, mark; /* mark: where the current CPU piece began */
	struct cp_frame *stack;
	size_t depth, cap;
	uint32_t api_depth;
	uint32_t open; /* the outermost call in progress */
	uint32_t tail; /* the last outermost call finished */
	struct cp_piece *cur;
	size_t ncur, capcur;
	uint32_t gap, ngap; /* pieces after the last call, up to the thread's end */
	/* ends only: per nesting level, what its frames' children covered */
	struct cp_level *lv;
	size_t caplv, used;	/* levels allocated, levels that may hold something */
	struct cp_piece *items; /* its CPU time outside calls, per innermost region */
	size_t nitems, capitems;
	uint32_t last_id; /* the last region at the top without children (its string id) */
	size_t last_item; /* and its item (fast path of eo_end) */
};

/* Whether a function waits for the device, from its roles and argument descriptors. */
struct cp_fn_wait {
	uint8_t known, sync;
	int8_t blocking, queue; /* its blocking and queue arguments, -1 none */
};

struct cp_proc {
	int32_t pid;
	struct ht_map call_by_corr; /* corr -> call */
	struct ht_map cmd_by_corr;  /* corr -> its latest-ending command */
	struct ht_map queue_ids;    /* queue handle -> queue */
	/* names by the process's ids (+1; 0 not looked up yet): no string hashing per event */
	uint32_t *by_string, *by_fn;
	size_t capstring, capfn;
	struct cp_fn_wait *wait; /* by function id */
	size_t capwait;
};

struct ht_cp_build {
	struct ht_critpath *cp;
	struct cp_call *calls;
	size_t ncalls, capcalls;
	struct cp_cmd *cmds;
	size_t ncmds, capcmds;
	struct cp_queue *queues;
	size_t nqueues, capqueues;
	uint32_t last_queue;	   /* the queue of the last command */
	struct cp_thread *threads; /* by timeline stream index */
	size_t capthreads;
	struct cp_proc *procs; /* by trace process index */
	size_t capprocs;
	struct cp_piece *pieces;
	size_t npieces, cappieces;
	struct cp_span *segp; /* per path step: its pieces (CPU steps) */
	size_t capsegp;
	uint32_t no_frame, outside;		/* names: no frame; CPU outside calls (ends only) */
	uint32_t kind_names[HT_CMD_KIND_COUNT]; /* names of the command kinds, + 1 (0: unset) */
	const struct ht_timeline *tl;		/* the timeline of the last record taken */
	int ends_only;	      /* the timeline gives no slice begins (see eo_end) */
	size_t absorbed;      /* calls found nested in a later-ending one (ends only) */
	uint32_t path_thread; /* the thread whose end the path ends at, or NONE */
};

/* The row of (kind, name), made when new. Return: NULL when out of memory. */
struct ht_cp_row *ht_cp_row(struct ht_critpath *cp, enum ht_cp_kind kind, uint32_t name);
/*
 * Links the graph (queue order, calls by corr), walks the path back from
 * the run's last event into cp and tables it. Return: 0, or -ENOMEM.
 */
int ht_cp_walk(struct ht_cp_build *b);

#endif
