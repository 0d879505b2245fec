/*
 * The layout of a re-sorted CTF export (`hetrace export --format ctf`):
 * stream classes, packet context offsets and event ids, shared by the
 * exporter (ctf.c) and the metadata it writes (ctf_tsdl.c). Unlike the
 * recorder's own format, strings are inline and the event header is a plain
 * {u16 id; u64 timestamp}: the export is for readers, not for a hot path.
 */
#ifndef HT_EXPORT_CTF_TSDL_H
#define HT_EXPORT_CTF_TSDL_H

#include <stdint.h>
#include <stdio.h>

/* Stream classes. */
#define HT_XS_THREAD 0 /* the process stream and one per thread */
#define HT_XS_QUEUE  1 /* one per device queue */

/* Packet layout, bytes; the header and the context up to _procname match format.h. */
#define HT_XC_THREAD_END 109
#define HT_XC_DEVICE	 109 /* u32, queue streams only */
#define HT_XC_QUEUE	 113 /* u64 */
#define HT_XC_QUEUE_END	 121
#define HT_XE_HEADER	 10 /* u16 id, u64 timestamp */

/* Events of the thread stream class. */
enum ht_xthread_event {
	HT_XE_PROCESS_INFO = 0,
	HT_XE_THREAD_INFO = 1,
	HT_XE_API_BEGIN = 2,
	HT_XE_API_END = 3,
	HT_XE_REGION_BEGIN = 4,
	HT_XE_REGION_END = 5,
	HT_XE_INSTANT = 6,
	HT_XE_COUNTER = 7,	  /* integral values */
	HT_XE_COUNTER_DOUBLE = 8, /* the others */
	HT_XE_CPU_STATE = 9,	  /* OS scheduling: running/preempted/blocked until _end */
	HT_XE_CPU_SAMPLE = 10,	  /* a CPU sample: its call stack's functions, outermost first */
	HT_XE_TASK = 11,	  /* a process or thread began or ended (process stream) */
	HT_XE_MPI = 12,		  /* an MPI message endpoint, collective or one-sided access */
};

/* Events of the queue stream class. */
enum ht_xqueue_event {
	HT_XE_QUEUE_INFO = 0,
	HT_XE_COMMAND_BEGIN = 1,
	HT_XE_COMMAND_END = 2,
};

/* Argument value types (the `type` tag of an argument). */
enum ht_xarg_type {
	HT_XA_I64 = 0,
	HT_XA_U64 = 1,
	HT_XA_X64 = 2,
	HT_XA_F64 = 3,
	HT_XA_STR = 4,
};

struct ht_xtsdl_params {
	uint8_t uuid[16];
	const char *hostname;
	const char *trace_name;
	int64_t offset_s, offset_ns;
};

/* Writes the export's metadata. Return: 0, or -EIO. */
int ht_xtsdl_write(FILE *f, const struct ht_xtsdl_params *p);

#endif
