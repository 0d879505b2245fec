/*
 * The merged reader: every event of every stream of every process of a
 * trace, in timestamp order (k-way merge with a binary heap), in memory
 * bounded by the number of streams times the packet size. It also keeps
 * each process's string and function tables, fed by the process stream as
 * the merge passes its definitions (a definition is never later than its
 * first use; ties go to the process stream).
 */
#ifndef HT_MERGE_H
#define HT_MERGE_H

#include <stdint.h>

#include "analysis/trace.h"

/* A traced function as its fn_def describes it (fntable.h). */
struct ht_fn_info {
	char *name;
	uint32_t roles; /* enum ht_fn_role flags */
	uint8_t nargs;
	struct ht_fn_arg_info {
		char *name;
		uint8_t type; /* enum ht_arg_type */
		uint8_t role; /* enum ht_arg_role */
	} * args;
};

/* What the merge knows about one process. */
struct ht_proc_info {
	const struct ht_trace_process *tp;
	int32_t pid, ppid;
	char comm[64];
	char **strings; /* strings[id - 1] */
	uint32_t nstrings;
	struct ht_fn_info *fns; /* indexed by function id */
	uint32_t nfns;
	char (*devices)[128]; /* device names by device index (device_info) */
	uint32_t ndevices;
	int os_status; /* the process noted its OS recording (on, off or partial) */
};

/* Return: the name of a process's device, or NULL when it was not described. */
const char *ht_proc_device_name(const struct ht_proc_info *p, uint32_t device);

/* One source stream of the merge. */
struct ht_merge_stream {
	struct ht_stream_reader r;
	unsigned int proc; /* index into procs */
	int is_shared;	   /* process-wide: the process stream or the OS stream, not a thread's */
	int32_t vtid;	   /* thread streams: the thread; device streams: 0 */
	uint32_t device;   /* device streams */
	uint64_t queue;
	uint64_t lost;	    /* events_discarded total so far */
	struct ht_event ev; /* next event */
	int done;
};

struct ht_merge {
	struct ht_trace *trace;
	struct ht_proc_info *procs;
	unsigned int nprocs;
	struct ht_merge_stream *streams;
	unsigned int nstreams;
	unsigned int *heap; /* stream indices, min-heap on (ts, order) */
	unsigned int nheap;
	uint64_t events;
	struct ht_read_error err;
	int failed;
	struct ht_event cur; /* the event ht_merge_next returned last */
	uint8_t *keep;	     /* its payload, when its packet buffer moved on */
	size_t keep_cap;
};

/* A merged event: the event and where it came from. */
struct ht_merged {
	const struct ht_event *ev;
	struct ht_merge_stream *stream;
	struct ht_proc_info *proc;
	unsigned int stream_index;
};

/* Return: 0, or < 0 with m->err filled. */
int ht_merge_open(struct ht_merge *m, struct ht_trace *t);
/*
 * Return: 1 with *out (valid until the next call), 0 at the end, < 0 on a
 * read error (m->err).
 */
int ht_merge_next(struct ht_merge *m, struct ht_merged *out);
void ht_merge_close(struct ht_merge *m);

/*
 * Reads a process's definitions (strings, functions, process info) from its
 * process stream. Return: 0, or < 0 with err filled.
 */
int ht_proc_info_load(struct ht_proc_info *p, const struct ht_trace_process *tp,
		      struct ht_read_error *err);
void ht_proc_info_release(struct ht_proc_info *p);

/* Return: the index of fn's first argument with `role` (enum ht_arg_role), or -1. */
int ht_fn_info_arg(const struct ht_fn_info *fn, uint8_t role);

/* Return: the string of id in a process (borrowed), or "?" when unknown. */
const char *ht_proc_string(const struct ht_proc_info *p, uint32_t id);
/* Return: the function name of id, or NULL. */
const struct ht_fn_info *ht_proc_fn(const struct ht_proc_info *p, uint16_t id);

#endif
