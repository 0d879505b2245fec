/*
 * The critical path of a run: the chain of dependencies that ends at the
 * run's last moment, walked back through what had to happen before each
 * step, with the time of every step attributed to what ran in it (an API
 * call, a kernel, a transfer, CPU work in a region, a launch or queue wait).
 * Shortening anything off the path does not make the run end sooner;
 * shortening something on it may.
 *
 * The dependency graph is the one the trace already holds, read through the
 * timeline (timeline.h): the report's passes hand their records over
 * (ht_critpath_take), so the path costs no pass of its own.
 *   thread order  a thread's outermost API calls, one after the other, with
 *                 the CPU time between them (split by its innermost region);
 *   launch        an enqueue call -> its device command(s), by correlation
 *                 id (every kernel of a CUDA Graph launch is a node of its own);
 *   queue order   a device queue's commands, in the order they ran;
 *   waits         a call that waits for the device (role sync, or blocking
 *                 with its blocking argument set) -> the command it waited
 *                 for: its own (corr), else the last one of its queue (its
 *                 queue argument), else of any queue of its process, among
 *                 those enqueued before the call began; and any enqueue call
 *                 that returned only after its own command had run (runtimes
 *                 that run it inside the call, as PoCL's basic device).
 * Walking back from the last event, each node's binding predecessor is the
 * one satisfied last (the latest time): that is the dependency it waited
 * for. Dependencies the trace does not hold (event wait lists across
 * queues, thread creation and joins, MPI messages until they are traced)
 * are not edges; the walk stays on the node's own thread or queue there.
 */
#ifndef HT_CRITPATH_H
#define HT_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/timeline.h"
#include "common/map.h"

/* What a piece of the path was spent on. */
enum ht_cp_kind {
	HT_CP_CPU,    /* a thread outside API calls: name = innermost region or HT_CP_NO_FRAME */
	HT_CP_API,    /* inside an API call: name = the function */
	HT_CP_LAUNCH, /* enqueue call returned (or began) -> its command started: name = the command
		       */
	HT_CP_KERNEL, /* a kernel ran: name = the kernel */
	HT_CP_TRANSFER, /* any other device command ran: name = its kind (copy_h2d, fill, ...) */
	HT_CP_QUEUE, /* the queue's previous command ended -> this one started: name = this one */
	HT_CP_KIND_COUNT
};
extern const char *const ht_cp_kind_names[HT_CP_KIND_COUNT]; /* "cpu", "api", ... */

#define HT_CP_NO_FRAME "(no API call or region)"
/* CPU steps when the report read slice ends only (no device): itemised per region in the table */
#define HT_CP_OUTSIDE_CALLS "(CPU outside API calls)"

/* One step of the path, on a thread (tid != 0) or on a device queue (tid == 0). */
struct ht_cp_segment {
	uint64_t start, end;
	int32_t pid, tid;
	uint32_t device;
	uint64_t queue;
	uint32_t name; /* ht_critpath.names index; CPU steps: their largest piece */
	uint8_t kind;  /* enum ht_cp_kind */
};

/* Time on the path per (kind, name), and the item's total time in the whole run. */
struct ht_cp_row {
	uint32_t name;
	uint8_t kind;
	uint64_t ns;	   /* on the path */
	uint64_t segments; /* path steps that add to it */
	uint64_t total_ns; /* calls, kernels, transfers: all of their time in the run; else 0 */
	uint64_t count;	   /* ... and how many there were */
};

struct ht_critpath {
	int32_t pid;		   /* the process the path runs in (0: empty trace) */
	uint64_t start, end;	   /* where it begins and ends, host ns */
	uint64_t length;	   /* sum of its steps (end - start unless clock-sync errors) */
	struct ht_cp_segment *seg; /* in time order */
	size_t nseg, capseg;
	struct ht_cp_row *rows; /* by time on the path, largest first */
	size_t nrows, caprows;
	char **names;
	size_t nnames, capnames;
	struct ht_map name_ids;		    /* string -> names index */
	uint32_t *row_of[HT_CP_KIND_COUNT]; /* while built: names index -> rows index + 1 */
	size_t caprow[HT_CP_KIND_COUNT];
	uint64_t calls, commands; /* nodes of the graph */
	uint64_t unlinked;	  /* commands whose correlation id named no call */
	int cut;		  /* the walk met a node twice (clock-sync errors) and stopped */
	struct ht_cp_build *b;	  /* the graph while it is built */
};

/*
 * Adds what record x of timeline tl brings to the graph: device commands
 * from any timeline; a thread stream's slices and its end from a timeline
 * opened with meta records and decoded arguments (every record of a thread
 * stream, in order). Other records are ignored. cp starts zeroed.
 * Return: 0, or -ENOMEM.
 */
int ht_critpath_take(struct ht_critpath *cp, const struct ht_timeline *tl,
		     const struct ht_tl_record *x);
/* Walks the path back from the run's last event and tables it. Return: 0, or -ENOMEM. */
int ht_critpath_finish(struct ht_critpath *cp);
void ht_critpath_release(struct ht_critpath *cp);

#endif
