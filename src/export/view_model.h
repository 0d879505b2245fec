/*
 * The HTML view's model of a trace: tracks (a thread's slices, a device
 * queue's kernels or transfers, a counter series) with interned strings, in
 * memory bounded whatever the trace's size. Built in two passes over the
 * timeline: the first counts what each track holds, then a budget decides
 * which tracks keep every slice or sample; the second fills them. A track
 * over its share is aggregated: per time bucket its busy time, slice count
 * and dominant name (slices) or min/max/last value (counters), plus its
 * longest slices. view.c writes the model out as the page's JSON.
 */
#ifndef HT_VIEW_MODEL_H
#define HT_VIEW_MODEL_H

#include <stdint.h>

#include "analysis/timeline.h"
#include "common/map.h"

/* Slices and counter samples kept in full, over all tracks (about 25 bytes each in the page). */
#define HT_VIEW_SLICE_BUDGET  200000
#define HT_VIEW_SAMPLE_BUDGET 200000
/* Time buckets of aggregated slice tracks, over all of them and their depths. */
#define HT_VIEW_BUCKET_BUDGET 524288
#define HT_VIEW_BUCKET_DEPTHS 4
#define HT_VIEW_LANES	      16

enum ht_view_track_kind {
	HT_VIEW_THREAD,	   /* API calls, regions, instants of one thread */
	HT_VIEW_COUNTER,   /* one counter series of one thread */
	HT_VIEW_CPU,	   /* OS scheduling of one thread: running / preempted / blocked */
	HT_VIEW_KERNELS,   /* kernels of one device queue */
	HT_VIEW_TRANSFERS, /* every other command of that queue */
};

/* Slice categories (thread tracks); device slices carry their command kind instead. */
enum ht_view_cat { HT_VIEW_API, HT_VIEW_REGION, HT_VIEW_INSTANT, HT_VIEW_LOST };
#define HT_VIEW_UNFINISHED 8 /* flag on the category: no end seen, closed at the trace end */

struct ht_view_slice {
	uint64_t ts, dur, corr, bytes;
	int64_t host_wait, dev_wait; /* device: SUBMIT-QUEUED, START-SUBMIT; -1 unknown */
	char *args;		     /* "key=value, ..." (owned), NULL if none */
	uint32_t name;
	int32_t status;
	uint16_t depth; /* stack depth (threads) or lane (queues) */
	uint8_t cat;	/* enum ht_view_cat | flags, or the command kind */
};

struct ht_view_bucket {
	uint64_t busy, dom_ns; /* busy ns; overlap of the dominant slice */
	uint32_t count, dom;   /* slices starting here; dominant name */
};

struct ht_view_cbucket {
	double min, max, last;
	uint32_t n;
};

struct ht_view_open {
	uint64_t ts;
	uint32_t name;
	uint8_t cat;
};

struct ht_view_track {
	enum ht_view_track_kind kind;
	int32_t pid, tid;
	uint32_t device;
	uint64_t queue;
	uint32_t name;	/* thread name / counter name */
	uint64_t total; /* pass 1: slices or samples seen */
	int agg;
	uint64_t keep; /* aggregated: longest slices kept */
	/* slices: all (full) or a min-heap by duration (aggregated) */
	struct ht_view_slice *s;
	uint64_t n;
	size_t cap;
	unsigned int maxdepth;
	/* counter samples (full): ts, value pairs */
	double *cv;
	uint64_t ncv, capcv;
	double vmin, vmax;
	/* aggregation */
	uint32_t nb;
	uint64_t bw;
	struct ht_view_bucket *b[HT_VIEW_BUCKET_DEPTHS];
	struct ht_view_cbucket *cb;
	/* building state */
	struct ht_view_open *stack;
	unsigned int depth, capstack;
	uint64_t lane_end[HT_VIEW_LANES];
	unsigned int nlanes;
	uint64_t last_ts;
	uint64_t lost;
};

struct ht_view_proc {
	int32_t pid, ppid;
	uint32_t name, cmd;
	int is_rank;  /* an MPI rank: its rows are grouped and ordered by rank */
	int32_t rank; /* its world rank */
	uint32_t host;
};

struct ht_view_model {
	/* interned strings; id 0 is "" */
	char **str;
	uint32_t nstr, capstr;
	struct ht_map strtab; /* string -> id */
	/* tracks, indexed by their key */
	struct ht_view_track *tracks;
	uint32_t ntracks, captracks;
	struct ht_map tracktab; /* kind, pid, tid or device, name or queue -> index */
	struct ht_view_proc *procs;
	unsigned int nprocs, capprocs;
	uint64_t t0, t1; /* span of every record, host ns */
	int pass;
	int aggregated; /* some track is aggregated */
	uint64_t slices, samples, kept_slices, kept_samples;
	uint64_t lost;
	uint64_t reorder_overflows;
	uint64_t dropped; /* records with times past HT_TIME_LIMIT_NS, left out */
};

/* Builds the model of a trace (two timeline passes). Return: 0, or < 0 with err filled. */
int ht_view_model_build(struct ht_view_model *m, struct ht_trace *t, struct ht_read_error *err);
void ht_view_model_release(struct ht_view_model *m);

/* Return: the id of s among the model's strings, or < 0 (-ENOMEM). */
int64_t ht_view_model_intern(struct ht_view_model *m, const char *s);

#endif
