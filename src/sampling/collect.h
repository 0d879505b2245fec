/*
 * CPU sampling, run by `hetrace record` (none of it in the traced
 * process): one task-clock sampling event per CPU, opened on `record`
 * itself with inherit and enable_on_exec, so the command inherits it at
 * fork and it starts counting when the command's image starts; every
 * process and thread the command starts inherits it in turn. No thread is
 * added to the program and no signal reaches it: the kernel writes each
 * sample (user registers and a copy of the top of the user stack) into the
 * ring of the CPU it ran on, and a thread of `record` spools the samples.
 *
 * Once the command has exited and the trace is finalized, each sample is
 * unwound offline with the DWARF CFI of the files its process had mapped
 * (the module list each process recorded, matched by build-id), and
 * written into a "samples" stream in the directory of the process image it
 * belongs to: stack_node definitions of a tree per image (ids from
 * HT_CCT_SAMPLES_BASE) and cpu_sample events, plus counter values per
 * sample with --counters.
 */
#ifndef HT_COLLECT_H
#define HT_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "sampling/counters.h"

#define HT_SAMPLE_HZ_DEFAULT 1000
#define HT_SAMPLE_HZ_MAX     100000
#define HT_SAMPLE_STACK	     8192 /* bytes of user stack copied per sample (perf's default) */

struct ht_sampler;

struct ht_sampler_opts {
	unsigned int hz;
	const struct ht_counter_spec *counters; /* per-sample counter values */
	int ncounters;
};

/*
 * Opens the events (call before starting the command). Where perf_event
 * refuses (paranoid level, seccomp, no such counter), returns NULL with
 * errno set and a one-line reason in msg. A counter that cannot be opened
 * is left out, said in warn (cap bytes; empty when none was).
 */
struct ht_sampler *ht_sampler_open(int dfd, const struct ht_sampler_opts *o, char *msg, size_t cap,
				   char *warn, size_t wcap);

/* Starts reading the rings. Return: 0 or -errno. */
int ht_sampler_start(struct ht_sampler *s);

/* Stops reading (the command has exited). NULL: nothing. */
void ht_sampler_stop(struct ht_sampler *s);

/*
 * Writes the samples into the trace at path (finalized), then frees s.
 * stats: samples written, lost (by the kernel, or to no process image).
 * Return: 0, or -errno with msg saying what failed.
 */
struct ht_sampler_stats {
	uint64_t samples, lost, unplaced;
};
int ht_sampler_finish(struct ht_sampler *s, const char *path, struct ht_sampler_stats *st,
		      char *msg, size_t cap);

#endif
