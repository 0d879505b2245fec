/*
 * The life of every traced process and thread (task events, written by
 * libhetrace-preload.so, src/preload/tasks.c): when each started and ended,
 * under which names, and how each process ended. An exit code comes from
 * the process itself (it called exit or _exit), else from the parent that
 * waited for it (the only place a death by signal is seen), else, for the
 * command `record` started, from the trace's index.
 */
#ifndef HT_LIFETIMES_H
#define HT_LIFETIMES_H

#include <stdint.h>

#include "analysis/trace.h"

enum ht_life_end {
	HT_LIFE_UNKNOWN, /* no exit seen (killed, or still running when the trace ended) */
	HT_LIFE_EXIT,	 /* exited; code */
	HT_LIFE_SIGNAL,	 /* killed by signal */
	HT_LIFE_EXEC,	 /* the image ended in exec; the process went on */
};

struct ht_life_thread {
	int32_t tid;
	char name[16];
	uint64_t start, end; /* ns; end 0: not seen */
};

struct ht_life {
	int32_t pid, ppid;
	uint64_t start, end; /* ns; 0 when not recorded */
	enum ht_life_end how;
	int code, signal;
	const char *source; /* who said how it ended: "itself", "its parent", "hetrace record" */
	struct ht_life_thread *threads;
	size_t nthreads, cap;
};

/*
 * Fills out[i] for each process of t (by index). Return: 0, or < 0 with err
 * filled (out released).
 */
int ht_lifetimes_compute(struct ht_trace *t, struct ht_life *out, struct ht_read_error *err);
void ht_lifetimes_release(struct ht_life *l);

#endif
