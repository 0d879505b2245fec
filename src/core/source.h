/*
 * How an event source plugs into the recorder: it registers a table of hooks
 * (LTTng's probe registration, libbpf's ops), and the core calls every
 * registered table at the few points of a process's life where a source may
 * have work of its own: a thread's stream opened or closed, a packet switch,
 * fork, exec and exit. The core includes no source; a source that needs none
 * of these points (OpenCL, CUDA, XPTI) just calls the emitters of
 * core/recorder.h.
 *
 * Nothing here runs per event: the per-event path of a stream with hooked
 * state is the same as any other's (the packet-switch hook runs in
 * ht_stream_reserve_slow, once per packet). A source keeps per-thread state
 * in its slot of the thread's stream (what thread_open returned), handed
 * back to its other thread hooks.
 *
 * Exported from libhetrace.so for hetrace's own source libraries
 * (libhetrace-preload.so registers the OS source); not an installed API.
 */
#ifndef HT_SOURCE_H
#define HT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/stream.h"

struct ht_config;

/* Hooks of one source; any may be NULL. Locks: see each. */
struct ht_source_hooks {
	const char *name;
	/*
	 * The calling thread's stream s (thread id tid) was just created, no
	 * lock held. Return: the source's state for this thread, kept in its
	 * slot of s, or NULL for none.
	 */
	void *(*thread_open)(struct ht_stream *s, int tid);
	/* The calling thread's stream is closing (thread exit, or exit/exec of the process). */
	void (*thread_close)(struct ht_stream *s, void *state);
	/*
	 * s, a stream where this source has state, opened a new packet; run by
	 * s's owner. May write into s as long as `need` bytes stay free.
	 */
	void (*packet_switch)(struct ht_stream *s, void *state, size_t need);
	/*
	 * The process stream was just created (process_info and the start
	 * anchor written, the session lock held): definitions a source keeps
	 * for the whole process (modules, calling contexts) go into it here,
	 * also after fork, when the child starts its own directory.
	 */
	void (*process_open)(struct ht_stream *proc);
	/* fork(), inside the session's handlers (session lock held). */
	void (*fork_prepare)(void);
	void (*fork_parent)(void);
	void (*fork_child)(void);
	/*
	 * The image is about to exec, or the process exits: the calling
	 * thread's stream is closed already (thread_close ran), the session
	 * lock is held, proc is the process stream, still open.
	 */
	void (*exec)(struct ht_stream *proc);
	void (*exit)(struct ht_stream *proc);
};

/*
 * Registers a source's hooks (once, from its constructor: threads whose
 * stream opened earlier get no thread_open). The table must outlive the
 * process. Return: 0; -EINVAL; -ENOSPC when HT_SOURCES_MAX are registered.
 */
int ht_source_register(const struct ht_source_hooks *h);

/*
 * Calling contexts at API entry (sampling/callstack.c registers the hook):
 * ht_emit_api_begin calls ht_api_stack_hook first for the functions whose
 * bit is set in ht_api_stack_fns (by id), which the core sets from the
 * functions' roles when their table registers (HETRACE_CALLSTACKS: launch =
 * calls that submit, wait for or allocate device work; all). The hook
 * writes the caller's stack (an api_stack event) before the call's begin.
 */
extern void (*ht_api_stack_hook)(void);
extern uint8_t ht_api_stack_fns[65536 / 8];

/*
 * Counters at boundaries (sampling/boundary.c registers it): called after
 * an API call's or region's begin is written (end 0) and before its end is
 * (end 1); it writes the counters' values as counter events of the thread.
 */
extern void (*ht_boundary_hook)(int end);

/*
 * The calling thread's stream, created (thread_open hooks run) at its first
 * use; NULL when the thread records nothing (not recording, or closed).
 */
struct ht_stream *ht_session_borrow_thread_stream(void);

/* The recorder's settings (read-only, owned by the session). */
const struct ht_config *ht_session_borrow_config(void);

/*
 * For the exec interposer (libhetrace-preload.so): exec() of this process
 * is about to run: ends its recording as exit would, with an "exec" anchor.
 * Nothing in a vfork child or before any event.
 */
void ht_session_exec_prepare(void);
/* The exec failed: the process records on, in a new directory from its next event. */
void ht_session_exec_failed(void);

/*
 * For the exit interposers (libhetrace-preload.so): the process is about
 * to end with _exit() (no destructor will run): ends its recording as exit
 * does, creating its directory first if it recorded nothing yet. Nothing in
 * a vfork child.
 */
void ht_session_exit_now(void);

/*
 * Creates the process directory now rather than at the first event (the
 * preload library calls it once its sources are registered, so a process
 * killed before recording anything is still in the trace). Safe where no
 * runtime is initialising: it calls nothing but the recorder.
 */
void ht_session_start(void);

/* ---- called by the session (internal to libhetrace) ---- */

void ht_source_run_thread_open(struct ht_stream *s, int tid);
void ht_source_run_thread_close(struct ht_stream *s);
/* The packet hook of streams with source state (ht_stream_on_packet). */
void ht_source_run_packet_switch(struct ht_stream *s, size_t need);
void ht_source_run_process_open(struct ht_stream *proc);
void ht_source_run_fork_prepare(void);
void ht_source_run_fork_parent(void);
void ht_source_run_fork_child(void);
/* exec: nonzero for exec, 0 for exit. */
void ht_source_run_process_end(struct ht_stream *proc, int exec);

#endif
