/*
 * OS scheduling, per-CPU method, run by `hetrace record` itself: one perf
 * context-switch event per CPU (PERF_RECORD_SWITCH_CPU_WIDE, with fork and
 * exit records), read by a thread of `record`, filtered to the processes
 * `record` started and their descendants, and turned into running /
 * preempted / blocked intervals. The traced threads pay only the kernel's
 * writing of the records: no perf context of their own is switched with
 * them (the per-thread method's cost, os/switches.c) and nothing runs in
 * the traced process. It needs what a system-wide perf event needs (root,
 * CAP_PERFMON, or kernel.perf_event_paranoid <= 0); elsewhere `record`
 * leaves OS scheduling to the per-thread source of libhetrace-preload.so.
 *
 * While the command runs, intervals go to a spool file (unlinked, in the
 * trace directory) in the order they end. When it has exited, those of the
 * threads that recorded events are written into the directory of the
 * process image they belong to (told apart by the images' exec and exit
 * anchors), in a stream "os-cpu" of the classes the per-thread source
 * writes (cpu_state, lost), so readers need not know which method ran;
 * each process notes the method itself (os_status in its process stream:
 * `record` sets HETRACE_OS=cpu).
 */
#ifndef HT_OS_PERCPU_H
#define HT_OS_PERCPU_H

#include <stddef.h>
#include <stdint.h>

struct ht_os_percpu;

/*
 * Opens the events on every online CPU; call before starting the command
 * (its fork is how the collector knows it). Return: the collector, or NULL
 * with errno set (EACCES or EPERM: not permitted to this user).
 */
struct ht_os_percpu *ht_os_percpu_open(int dfd);

/* Starts the thread that reads the events. Return: 0 or -errno. */
int ht_os_percpu_start(struct ht_os_percpu *c);

/*
 * Stops reading and writes every traced process's CPU states into its
 * directory under dfd (the trace directory), then frees c. On failure msg
 * (cap bytes) says what could not be written. Return: 0 or -errno.
 */
int ht_os_percpu_finish(struct ht_os_percpu *c, int dfd, char *msg, size_t cap);

/* ---- internal to os/: the spool between collecting and writing ---- */

#define HT_OS_SPOOL_LOST 0xff /* state of an entry that counts lost records */

struct ht_os_spool_ent {
	uint64_t begin; /* lost entries: how many records */
	uint64_t end;	/* lost entries: when (ns) */
	int32_t pid, tid;
	uint32_t cpu;
	uint8_t state; /* HT_CPU_*, or HT_OS_SPOOL_LOST */
	uint8_t pad[3];
};

/*
 * Writes the spooled entries (fd, read from offset 0) into the process
 * directories under dfd. Return: 0 or -errno (msg says where).
 */
int ht_os_percpu_write_trace(int spool_fd, int dfd, char *msg, size_t cap);

#endif
