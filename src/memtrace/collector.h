/*
 * The memory-access collector, part of libhetrace.so and exported to the
 * sources that instrument kernels (libhetrace-opencl.so through
 * src/memtrace/cl_glue.c, libhetrace-cuda.so through cuda_sanitizer.c): the
 * process's one channel (channel.h), its launch slots, and the consumer
 * thread that drains the channel into a device stream of its own
 * ("device-memory-N") while kernels run. Vendor-neutral: sources hand over
 * sites and launches in hetrace's terms.
 */
#ifndef HT_MEMTRACE_COLLECTOR_H
#define HT_MEMTRACE_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "memtrace/channel.h"
#include "memtrace/layout.h"

/* Settings, from what `hetrace record --memory-access...` put in the environment. */
struct ht_mt_config {
	int on;		 /* HETRACE_MEMTRACE is set */
	char glob[256];	 /* HETRACE_MEMTRACE: kernels to instrument (fnmatch), "*" all */
	uint32_t sample; /* HETRACE_MEMTRACE_SAMPLE: 1 work-group in N (1: all) */
	size_t bytes;	 /* HETRACE_MEMTRACE_BUFFER: the channel's size */
	int block;	 /* HETRACE_MODE=block: producers wait instead of dropping */
	char tool[4096]; /* HETRACE_MEMTRACE_TOOL: the OpenCL C rewriter helper */
	long nap_us;	 /* HETRACE_MEMTRACE_NAP: the consumer naps this long after each drain
			    (tests: a consumer that cannot keep up); 0 */
};

#define HT_MT_BUFFER_DEFAULT (8u << 20)
#define HT_MT_BUFFER_MIN     (512u << 10) /* the launch slots take 256 KiB of it */
#define HT_MT_STAGE_MAX	     256u /* records a work-group (OpenCL) stages before reserving */

/* A launch of an instrumented kernel, as its source describes it. */
struct ht_mt_launch {
	uint64_t corr;
	uint32_t module;
	const char *kernel;
	uint32_t device; /* the device's trace index */
	uint64_t global[3], local[3];
	uint32_t sample;
	uint32_t buffers;		    /* bit i: argument i is a buffer */
	uint64_t arg_size[HT_MT_SLOT_ARGS]; /* bytes bound to argument i, 0 if unknown */
};

/* A site of an instrumented module, as handed to ht_mt_module_create. */
struct ht_mt_site_desc {
	uint32_t site;
	int32_t arg;
	uint8_t kind, size;
	uint32_t line, col;
	const char *fn;
	const char *file; /* of line, when not the program's own source (NULL: it is) */
};

/* Return: the settings (read once; on == 0 when memory-access tracing is off). */
const struct ht_mt_config *ht_mt_config_get(void);

/*
 * The process's channel, created on first use with bins for `lanes`
 * parallel producers and at least `min_cap` records a bin (the largest
 * group a producer reserves at once), in memory from alloc(bytes, arg)
 * (NULL: ordinary memory, for devices that work in host memory; CUDA
 * passes pinned host memory). Never freed. Return: the channel, or NULL
 * with errno (EBUSY: it exists in memory from another allocator).
 */
struct ht_mt_chan *ht_mt_channel(unsigned int lanes, uint32_t min_cap,
				 void *(*alloc)(size_t bytes, void *arg), void *arg);

/*
 * Describes an instrumented module (an OpenCL program build, a CUDA
 * function): its sites go into the trace as mem_site events.
 * Return: the module's id (> 0), or 0 when not recording.
 */
uint32_t ht_mt_module_create(const struct ht_mt_site_desc *sites, size_t n);

/*
 * Starts a launch: takes a slot and starts the consumer thread (once). The
 * launch's accesses carry the slot. Return: the slot, or -1 when none is
 * free (HT_MT_SLOTS launches in flight) or the channel is missing: the
 * launch runs uninstrumented.
 */
int ht_mt_launch_start(const struct ht_mt_launch *l);
/* The launch in `slot` will not run (its enqueue failed): the slot is free again. */
void ht_mt_launch_cancel(int slot);
/*
 * The launch in `slot` has finished on the device (any thread, a runtime's
 * callback included): the consumer takes its last records and closes it.
 */
void ht_mt_launch_done(int slot);

#endif
