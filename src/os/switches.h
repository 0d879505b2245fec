/*
 * OS scheduling source (seed 000 §4.7, internal to libhetrace): context-switch
 * records of the traced threads from perf_event, turned into running /
 * preempted / blocked intervals (cpu_state events) on the trace.
 *
 * Each thread that gets a stream opens a perf "dummy" software event on
 * itself (unprivileged: own threads only) whose ring holds its switch-in /
 * switch-out records with CLOCK_MONOTONIC times. No thread is added and
 * nothing runs per application event: a ring is drained by its own thread
 * when that thread's stream switches packets (which also drains other
 * threads' rings that are filling up), at thread exit, and at process exit
 * (the exiting thread then drains every other thread's ring into the
 * process stream). An interval carries its thread id, so it may sit in any
 * stream of the process. A ring that fills up between drains makes the
 * kernel drop records; those are counted (lost, kind os_record).
 *
 * Locks: the session lock is taken before the OS lock, never after.
 */
#ifndef HT_OS_SWITCHES_H
#define HT_OS_SWITCHES_H

#include <stddef.h>

struct ht_stream;

/*
 * Opens the calling thread's perf ring and attaches it to s, the thread's
 * new stream. Where perf_event is refused, records the reason once in the
 * process stream (os_status) and stops trying when retrying cannot help.
 * Return: 0 or -errno.
 */
int ht_os_thread_open(struct ht_stream *s, int tid);

/* Packet-switch hook of thread streams: drains s's ring into s, leaving `need` bytes free. */
void ht_os_on_packet(struct ht_stream *s, size_t need);

/* Thread exit: last drain into s (the thread runs up to now), then closes its ring. */
void ht_os_thread_close(struct ht_stream *s);

/*
 * Process exit, session lock held: drains every remaining thread's ring into
 * the process stream proc, closing each thread's current state at now.
 */
void ht_os_process_exit(struct ht_stream *proc);

/* fork() handlers, called inside the session's (session lock held). */
void ht_os_fork_prepare(void);
void ht_os_fork_parent(void);
void ht_os_fork_child(void);

#endif
