/*
 * Recorder settings, read once from HETRACE_* environment variables that
 * `hetrace record` sets. A bad value gives one warning and the default.
 */
#ifndef HT_CONFIG_H
#define HT_CONFIG_H

#include <stddef.h>

struct ht_config {
	const char *dir;      /* HETRACE_DIR: trace directory; NULL = not recording */
	int block;	      /* HETRACE_MODE: discard (0, default) | block (1) */
	size_t packet_size;   /* HETRACE_BUFFER: sub-buffer (packet) bytes */
	int use_tsc;	      /* HETRACE_CLOCK: tsc[:HZ] | monotonic */
	double tsc_hz;	      /* HETRACE_TSC_HZ, else HZ of HETRACE_CLOCK=tsc:HZ */
	int os;		      /* HETRACE_OS: HT_CONFIG_OS_* */
	unsigned int ring_slots; /* HETRACE_RING: packets per stream ring for `hetrace
				  * record` to drain (ring/ring.h, 16 by default, used
				  * where its doorbell is); 0 = write them here */
	int callstacks;		 /* HETRACE_CALLSTACKS: HT_STACKS_* (default launch) */
	int sampled;		 /* HETRACE_SAMPLE=1: `record` samples the process's CPU
				  * time, so its modules are recorded for the samples */
	const char *counters;	 /* HETRACE_COUNTERS: counters read at API calls and
				  * regions (sampling/counters.c), NULL = none */
	const char *capture_region; /* HETRACE_CAPTURE=region:NAME: record only inside
				     * regions NAME (NULL: from the start) */
	int capture_api;	    /* HETRACE_CAPTURE=api: only between hetrace_start()
				     * and hetrace_stop() */
	int capture_repeat;	    /* HETRACE_CAPTURE_END=repeat: every such range, not
				     * only the first */
};

/* HETRACE_OS: who records OS scheduling. */
#define HT_CONFIG_OS_OFF    0 /* "0": nobody */
#define HT_CONFIG_OS_THREAD 1 /* unset or "1" (default): each traced thread, per thread */
#define HT_CONFIG_OS_RECORD 2 /* "cpu": `hetrace record`, per CPU; the process only notes it */
/* Which API calls record the caller's stack (--callstacks). */
enum { HT_STACKS_NONE, HT_STACKS_LAUNCH, HT_STACKS_ALL };

#define HT_PACKET_DEFAULT (64u * 1024)
#define HT_PACKET_MIN	  (16u * 1024)
#define HT_PACKET_MAX	  (16u * 1024 * 1024)

/* Return: nonzero when name[0..len) is a source HETRACE_API / --api may name. */
int ht_config_api_known(const char *name, size_t len);

/* Fills c from the environment; warnings go to stderr prefixed "hetrace: ". */
void ht_config_load(struct ht_config *c);
/*
 * The same from a session's settings block ("NAME=value" strings, each
 * NUL-terminated, an empty one last; session/ctl.h) instead of the
 * environment; c's strings point into `block`. NULL: the environment.
 */
void ht_config_load_block(struct ht_config *c, const char *block);

/*
 * Parses a size: decimal digits, then optionally K, M or G (powers of 1024;
 * also KB, KiB, ...) or B. Return: 0, or -EINVAL (also for a size that does
 * not fit a size_t).
 */
int ht_parse_size(const char *s, size_t *out);

#endif
