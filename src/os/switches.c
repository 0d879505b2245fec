/*
 * OS scheduling source, per-thread method (seed 000 §4.7): context-switch
 * records of the traced threads from perf_event, turned into running /
 * preempted / blocked intervals (cpu_state events) on the trace. It runs in
 * the traced process (libhetrace-preload.so) where `hetrace record` cannot
 * read per-CPU events itself (os/percpu.c, which the traced threads pay
 * nothing for); it plugs into the recorder through hooks (core/source.h).
 *
 * Each thread that gets a stream opens a perf "dummy" software event on
 * itself (unprivileged: own threads only) whose ring holds its switch-in /
 * switch-out records with CLOCK_MONOTONIC times. No thread is added and
 * nothing runs per application event: a ring is drained by its own thread
 * when that thread's stream switches packets (which also drains other
 * threads' rings that are filling up), at thread exit, and at process exit
 * or exec (the exiting thread then drains every other thread's ring). The
 * kernel switches each traced thread's perf context with the thread, which
 * the thread pays for at every context switch. A ring that fills up between
 * drains makes the kernel drop records; those are counted (lost, kind
 * os_record).
 *
 * Locks: the session lock is taken before the OS lock, never after.
 *
 * Ring protocol: the kernel is the only producer (data_head), and one
 * consumer at a time moves data_tail; `busy` elects that consumer between
 * the owning thread (packet switch, thread exit), other threads at their
 * packet switch (rings over 1/8 full) and the exiting thread at process
 * exit. The consumer that finds the ring busy skips it: the owner's
 * packet-switch hook also uses this as its recursion guard (writing the
 * intervals can itself switch packets).
 *
 * Records: PERF_RECORD_SWITCH with sample_id_all (TID|TIME|CPU) is 32 bytes.
 * Switch-out carries MISC_SWITCH_OUT, plus MISC_SWITCH_OUT_PREEMPT when the
 * thread was still runnable. State machine per ring: the state since the
 * last record is pending; each record closes it as one interval. After a
 * PERF_RECORD_LOST the state is unknown until the next record (a counted
 * gap, never a guessed interval).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "os/perf.h"

/*
 * Ring data size: 4 packets of the thread's stream, then smaller when the
 * locked-memory limit (kernel.perf_event_mlock_kb, then ulimit -l) refuses.
 * A ring is drained at packet switches, so it must hold what the kernel
 * writes while a packet fills: a thread that switches once per event it
 * records (a blocking call per event) fills 32 bytes of ring per 8-16 bytes
 * of packet. Measured on a 2-thread pipe ping-pong, 64 KiB packets: a
 * 128 KiB ring lost 18% of its records, 256 KiB none.
 */
#define RING_PACKETS 4
#define RING_MIN     (8u * 1024)
#define RECORD_MAX   HT_PERF_RECORD_MAX

struct ht_os_ring {
	int fd;
	int tid;
	uint8_t *base; /* metadata page, then data_size bytes of data */
	size_t map_size, data_size;
	int busy; /* a consumer is draining (atomic) */
	int done; /* the last interval is written: ignore the rest */
	/* The pending state: since `since` (ns), on `cpu`; unknown after a loss. */
	int known;
	uint8_t state;
	uint32_t cpu;
	uint64_t since;
	uint64_t lost;	    /* records the kernel lost, not yet written to the trace */
	uint64_t lost_seen; /* the kernel's lost count (PERF_FORMAT_LOST) already accounted */
	int read_lost;	    /* the kernel supports PERF_FORMAT_LOST */
	struct ht_os_ring *next, *prev;
};

static pthread_mutex_t os_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ht_os_ring *rings;
static int os_off;	  /* perf_event refused: do not try again */
static int noted_off;	  /* os_status "off" written */
static int noted_partial; /* os_status "partial" written */
static int noted_on;	  /* os_status "on" written: readers know to look for states */
/*
 * Where intervals go: one "os-N" stream per process (shared, written under
 * its lock), so readers that want CPU states read only it, not every event.
 */
static struct ht_stream *os_out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the os_status note ---- */

struct note {
	enum ht_os_status_kind kind;
	int err;
	int paranoid;
	char reason[240];
};

static int write_note(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct note *n = arg;
	const struct ht_ev_os_status e = {.kind = (uint8_t)n->kind,
					  .error = n->err,
					  .paranoid = n->paranoid,
					  .reason = n->reason};

	(void)strs;
	return HT_WRITE(proc, os_status, &e) ? 0 : -ENOSPC;
}

/* Records once per process why OS recording is off (kind OFF) or incomplete (PARTIAL). */
static void note(enum ht_os_status_kind kind, int err, const char *fmt, const char *what)
{
	int *flag = kind == HT_OS_OFF ? &noted_off : kind == HT_OS_ON ? &noted_on : &noted_partial;
	struct note n = {.kind = kind, .err = err, .paranoid = ht_perf_paranoid()};

	if (__atomic_exchange_n(flag, 1, __ATOMIC_RELAXED))
		return;
	snprintf(n.reason, sizeof n.reason, fmt, what, strerror(err), n.paranoid);
	ht_session_with_process(write_note, &n);
}

/* ---- opening ---- */

/* Opens the event; with_lost: ask for the lost-record count on read() (Linux 6.0+). */
static int perf_open(int tid, int with_lost)
{
	struct perf_event_attr a;

	ht_perf_switch_attr(&a, with_lost);
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void ring_free(struct ht_os_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_size);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

/* The process's OS stream, created on first use. Never called with the session lock held. */
static struct ht_stream *out_stream(void)
{
	struct ht_stream *o = __atomic_load_n(&os_out, __ATOMIC_ACQUIRE);

	if (o)
		return o;
	pthread_mutex_lock(&out_lock);
	if (!os_out)
		__atomic_store_n(&os_out, ht_session_stream_create(HT_SC_THREAD, "os", 0, 0),
				 __ATOMIC_RELEASE);
	o = os_out;
	pthread_mutex_unlock(&out_lock);
	return o;
}

/*
 * thread_open hook: opens the calling thread's perf ring for s, the thread's
 * new stream. Where perf_event is refused, records the reason once in the
 * process stream (os_status) and stops trying when retrying cannot help.
 * Return: the ring, or NULL.
 */
static void *os_thread_open(struct ht_stream *s, int tid)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ht_os_ring *r;
	int err = ENOMEM;

	if (ht_session_borrow_config()->os == HT_CONFIG_OS_RECORD) {
		/* `hetrace record` reads per-CPU events (os/percpu.h): only say so */
		note(HT_OS_ON, 0, "%s%.0s (perf_event_paranoid %d)",
		     "per-CPU context switches, read by hetrace record");
		return NULL;
	}
	if (__atomic_load_n(&os_off, __ATOMIC_RELAXED))
		return NULL;
	if (!out_stream())
		return NULL; /* no stream to write intervals to: counted by the session */
	r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->tid = tid;
	r->read_lost = 1;
	r->fd = perf_open(tid, 1);
	if (r->fd < 0 && errno == EINVAL) {
		r->read_lost = 0;
		r->fd = perf_open(tid, 0);
	}
	if (r->fd < 0) {
		err = errno;
		free(r);
		switch (err) {
		case EMFILE:
		case ENFILE:
		case ENOMEM:
		case ESRCH: /* a thread gone while being set up: nothing to record */
			if (err != ESRCH)
				note(HT_OS_PARTIAL, err,
				     "%s: perf_event_open failed for a thread: %s "
				     "(perf_event_paranoid "
				     "%d); its CPU states are not recorded",
				     "OS scheduling partial");
			return NULL;
		default:
			/* Refused (paranoid level, seccomp, container) or unsupported: for good. */
			__atomic_store_n(&os_off, 1, __ATOMIC_RELAXED);
			note(HT_OS_OFF, err,
			     "%s: perf_event_open: %s (kernel.perf_event_paranoid = %d)",
			     "OS scheduling not recorded");
			return NULL;
		}
	}
	for (size_t data = s->p.packet_size * RING_PACKETS;
	     data >= RING_MIN && data >= (size_t)page; data /= 4) {
		size_t size = (size_t)page + data; /* a power of two of pages: packet sizes are */
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

		if (m != MAP_FAILED) {
			r->base = m;
			r->map_size = size;
			r->data_size = data;
			break;
		}
		err = errno;
		if (err != EPERM && err != ENOMEM)
			break;
	}
	if (!r->base) {
		ring_free(r);
		note(HT_OS_PARTIAL, err,
		     "%s: cannot map a perf ring for a thread: %s (perf_event_paranoid %d; raise "
		     "ulimit -l or kernel.perf_event_mlock_kb); its CPU states are not recorded",
		     "OS scheduling partial");
		return NULL;
	}
	/* the method, as `info` shows it after the intervals */
	note(HT_OS_ON, 0, "%s%.0s (perf_event_paranoid %d)", "per-thread context switches");
	/* The thread runs now: that is its first state. */
	r->known = 1;
	r->state = HT_CPU_RUNNING;
	r->since = ht_now_ns();
	r->cpu = (uint32_t)(sched_getcpu() < 0 ? 0 : sched_getcpu());
	pthread_mutex_lock(&os_lock);
	r->next = rings;
	if (rings)
		rings->prev = r;
	rings = r;
	pthread_mutex_unlock(&os_lock);
	return r;
}

/* ---- draining ---- */

/* Copies n bytes at ring offset off (wrapping) into dst. */
static void ring_copy(const struct ht_os_ring *r, uint64_t off, void *dst, size_t n)
{
	ht_perf_ring_copy(r->base + (r->map_size - r->data_size), r->data_size, off, dst, n);
}

/* Return: nonzero when `out` can take an interval and a lost event and still keep `keep` bytes. */
static int room(struct ht_stream *out, size_t keep)
{
	return !keep || ht_stream_has_room(out, 2 * HT_EH_MAX_SIZE + HT_EV_CPU_STATE_SIZE +
						    HT_EV_LOST_SIZE + keep);
}

static void put_state(struct ht_stream *out, const struct ht_os_ring *r, uint64_t end)
{
	const struct ht_ev_cpu_state e = {
	    .tid = r->tid, .state = r->state, .begin_ns = r->since, .end_ns = end, .cpu = r->cpu};

	if (r->known && end > r->since)
		HT_WRITE(out, cpu_state, &e); /* or dropped and counted by the stream */
}

static void put_lost(struct ht_stream *out, struct ht_os_ring *r)
{
	const struct ht_ev_lost e = {.kind = HT_LOST_OS_RECORD, .count = r->lost};

	if (r->lost && HT_WRITE(out, lost, &e))
		r->lost = 0;
}

/* Applies one record to the state machine, writing the interval it closes. */
static void take_record(struct ht_stream *out, struct ht_os_ring *r, const uint8_t *rec,
			size_t size)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_SWITCH && size >= 32) {
		uint64_t t = ht_le64(rec + 16);
		uint32_t cpu = ht_le32(rec + 24);

		put_state(out, r, t);
		if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
			r->state = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
				       ? HT_CPU_PREEMPTED
				       : HT_CPU_BLOCKED;
		} else {
			r->state = HT_CPU_RUNNING;
		}
		/* a waiting thread keeps the CPU it left; a running one has the CPU it got */
		r->cpu = cpu;
		r->since = t;
		r->known = 1;
	} else if (h->type == PERF_RECORD_LOST && size >= 24) {
		r->lost += ht_le64(rec + 16);
		r->lost_seen += ht_le64(rec + 16);
		r->known = 0;
	}
}

/*
 * Losses the ring does not show yet: the kernel writes PERF_RECORD_LOST only
 * once there is room again, so a ring still full at its last drain would
 * hide them. The event's own count (PERF_FORMAT_LOST) tells. Return: 1 when
 * records were lost after the ones read so far.
 */
static int hidden_losses(struct ht_os_ring *r)
{
	uint64_t v[2];

	if (!r->read_lost || read(r->fd, v, sizeof v) != (ssize_t)sizeof v || v[1] <= r->lost_seen)
		return 0;
	r->lost += v[1] - r->lost_seen;
	r->lost_seen = v[1];
	return 1;
}

/*
 * Drains r into out. keep > 0: stop while `keep` bytes are still free in
 * out's packet (the packet-switch hook); keep == 0: drain everything. final:
 * also write the pending state up to now and ignore the ring from then on.
 * The caller holds r->busy.
 */
static void drain(struct ht_os_ring *r, struct ht_stream *out, size_t keep, int final)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint8_t rec[RECORD_MAX];

	if (r->done)
		return;
	while (tail + sizeof(struct perf_event_header) <= head && room(out, keep)) {
		struct perf_event_header h;

		ring_copy(r, tail, &h, sizeof h);
		if (h.size < sizeof h || tail + h.size > head) {
			/* cannot happen with a sane kernel: drop the rest, counted */
			r->lost++;
			r->known = 0;
			tail = head;
			break;
		}
		ring_copy(r, tail, rec, h.size < RECORD_MAX ? h.size : RECORD_MAX);
		take_record(out, r, rec, h.size < RECORD_MAX ? h.size : RECORD_MAX);
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	if (final && hidden_losses(r))
		r->known = 0; /* the state after the last record read is unknown */
	if (!keep || ht_stream_has_room(out, HT_EH_MAX_SIZE + HT_EV_LOST_SIZE + keep))
		put_lost(out, r);
	if (final) {
		put_state(out, r, ht_now_ns());
		r->done = 1;
	}
}

static int try_busy(struct ht_os_ring *r)
{
	return !__atomic_exchange_n(&r->busy, 1, __ATOMIC_ACQUIRE);
}

static void release_busy(struct ht_os_ring *r)
{
	__atomic_store_n(&r->busy, 0, __ATOMIC_RELEASE);
}

/* Return: bytes waiting in r. */
static uint64_t pending(const struct ht_os_ring *r)
{
	const struct perf_event_mmap_page *meta = (const void *)r->base;

	return __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
}

/* packet_switch hook of thread streams: drains the thread's ring (intervals go to the OS stream).
 */
static void os_packet_switch(struct ht_stream *s, void *state, size_t need)
{
	struct ht_os_ring *own = state;
	struct ht_stream *out = __atomic_load_n(&os_out, __ATOMIC_ACQUIRE);

	(void)s;
	(void)need; /* intervals go to the OS stream, not into s */
	if (!own || !out || !try_busy(own))
		return; /* busy: process exit is draining it */
	ht_lock_take(&out->lock);
	drain(own, out, 0, 0);
	/*
	 * A thread with few events of its own has no packet switch to drain
	 * at: rings filling up are drained here too. Skipped when another thread
	 * walks the list (lock order: os_lock, then the stream's lock).
	 */
	if (pthread_mutex_trylock(&os_lock) == 0) {
		for (struct ht_os_ring *r = rings; r; r = r->next) {
			if (r == own || pending(r) < r->data_size / 8 || !try_busy(r))
				continue;
			drain(r, out, 0, 0);
			release_busy(r);
		}
		pthread_mutex_unlock(&os_lock);
	}
	ht_lock_give(&out->lock);
	release_busy(own);
}

/* Waits (briefly) to become r's consumer. Return: 1, or 0 when the other side holds on. */
static int wait_busy(struct ht_os_ring *r)
{
	for (int i = 0; i < 10000; i++) {
		if (try_busy(r))
			return 1;
		sched_yield();
	}
	return 0;
}

/* thread_close hook: last drain (the thread runs up to now), then closes its ring. */
static void os_thread_close(struct ht_stream *s, void *state)
{
	struct ht_os_ring *r = state;

	(void)s;
	pthread_mutex_lock(&os_lock);
	if (r->prev)
		r->prev->next = r->next;
	else if (rings == r)
		rings = r->next;
	if (r->next)
		r->next->prev = r->prev;
	pthread_mutex_unlock(&os_lock);
	/* Unlisted: only a process-exit drain that started before can still hold it. */
	if (wait_busy(r) && os_out) {
		ht_lock_take(&os_out->lock);
		drain(r, os_out, 0, 1);
		ht_lock_give(&os_out->lock);
	}
	ring_free(r);
}

/*
 * exit and exec hooks (session lock held): drains every remaining thread's
 * ring into the OS stream (else proc), closing each thread's state at now.
 */
static void os_process_end(struct ht_stream *proc)
{
	struct ht_stream *out = os_out ? os_out : proc;

	pthread_mutex_lock(&os_lock);
	for (struct ht_os_ring *r = rings; r; r = r->next) {
		if (!wait_busy(r))
			continue;
		if (out != proc)
			ht_lock_take(&out->lock);
		drain(r, out, 0, 1);
		if (out != proc)
			ht_lock_give(&out->lock);
		/* The owner may still run until the process ends: it frees its ring itself. */
		release_busy(r);
	}
	pthread_mutex_unlock(&os_lock);
}

static void os_fork_prepare(void)
{
	pthread_mutex_lock(&os_lock);
}

static void os_fork_parent(void)
{
	pthread_mutex_unlock(&os_lock);
}

static void os_fork_child(void)
{
	struct ht_os_ring *r, *next;

	/*
	 * The parent's rings: perf mappings are not copied into a child
	 * (VM_DONTCOPY), so only the inherited descriptors are closed. The
	 * child's threads open their own on their next event.
	 */
	for (r = rings; r; r = next) {
		next = r->next;
		close(r->fd);
		free(r);
	}
	rings = NULL;
	/* a new process directory: its notes are written again, its OS stream is new */
	noted_off = noted_partial = noted_on = 0;
	os_out = NULL; /* the parent's: the session has let go of it */
	pthread_mutex_unlock(&os_lock);
}

static const struct ht_source_hooks os_hooks = {
    .name = "os",
    .thread_open = os_thread_open,
    .thread_close = os_thread_close,
    .packet_switch = os_packet_switch,
    .fork_prepare = os_fork_prepare,
    .fork_parent = os_fork_parent,
    .fork_child = os_fork_child,
    .exec = os_process_end,
    .exit = os_process_end,
};

/*
 * Registers the source where this process records with OS scheduling on
 * (HETRACE_OS): per thread, or only the note when `record` reads per CPU.
 */
__attribute__((constructor)) static void os_load(void)
{
	const struct ht_config *cfg = ht_session_borrow_config();

	if (cfg->dir && cfg->os)
		ht_source_register(&os_hooks);
}
