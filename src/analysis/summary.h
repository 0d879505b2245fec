/*
 * Per-process summary of a trace, for `hetrace info` and the record
 * summary: processes, threads, streams, events per class, losses, time
 * span, devices and their clock sync. One pass of the timeline model over
 * every stream (RAW packets counted, not read), bounded memory.
 */
#ifndef HT_SUMMARY_H
#define HT_SUMMARY_H

#include <stdint.h>

#include "analysis/clocksync.h"
#include "analysis/trace.h"

struct ht_thread_summary {
	int32_t tid;
	char name[64];
	uint64_t events;
	uint64_t discarded;
};

struct ht_device_summary {
	uint32_t device;
	char name[128];
	uint64_t commands;
	struct ht_clock_map map; /* the timeline's */
};

struct ht_proc_summary {
	int32_t pid, ppid;
	char comm[64];
	char cmdline[512];
	unsigned int streams[HT_SC_COUNT];
	unsigned int os_streams; /* OS scheduling records (thread class, process-wide) */
	uint64_t events_thread[HT_EV_THREAD_COUNT];
	uint64_t events_device[HT_EV_DEVICE_COUNT];
	uint64_t events;
	uint64_t discarded; /* events_discarded totals of all streams */
	uint64_t lost[8];   /* lost events by ht_lost_kind */
	uint64_t first_ns, last_ns;
	uint64_t raw_packets; /* not finalized */
	unsigned int torn_streams;
	uint64_t torn_bytes; /* in the torn packets at stream ends: their events are lost */
	uint64_t strings;
	uint64_t mem_accesses, mem_launches; /* memory accesses recorded, of so many launches */
	struct ht_thread_summary *threads;
	unsigned int nthreads;
	int have_exit;
	int have_exec; /* the image ended in exec */
	uint64_t bytes;
	struct ht_device_summary *devices;
	unsigned int ndevices;
	char os_note[256]; /* the first os_status reason: why OS scheduling is off or partial */
	int os_note_kind;  /* its ht_os_status_kind */
};

/*
 * Summarises every process of t into s[0 .. t->nprocs). Return: 0, or < 0
 * with err filled (the summaries then hold what was read before the error).
 */
int ht_summary_compute(struct ht_trace *t, struct ht_proc_summary *s, struct ht_read_error *err);
void ht_summary_release(struct ht_proc_summary *s);

#endif
