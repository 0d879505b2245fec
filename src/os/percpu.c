/*
 * The per-CPU collector of `hetrace record` (see percpu.h): opening the
 * events, reading the rings, the state machine per thread, the spool.
 *
 * Order: each CPU's ring is in time order, a thread's records are not (it
 * moves between CPUs). A round notes the time, reads every ring, sorts what
 * it read with what is left from before, and applies the records older
 * than the noted time minus HORIZON_NS: a record the kernel had not
 * published when its ring was read carries a later time than that (it
 * stamps a record just before writing it). A record that still comes late
 * for its thread (older than the thread's current state: a vCPU stopped in
 * between) is ignored, so intervals never overlap.
 *
 * Which threads: the first process `record` forks is the command; a process
 * forked by a traced one is traced (PERF_RECORD_FORK), a pid reused by any
 * other process is not. Threads are known from their fork, when they start
 * out runnable (shown as preempted: waiting for a CPU). A thread that
 * exited (PERF_RECORD_EXIT) may still block and run again on its way out;
 * it ends at its last switch-out, which perf reports with thread id -1 once
 * its id is released (it is the thread that CPU switched in last). A
 * process's main thread keeps its id as a zombie: it ends at the blocking
 * switch-out it was left in. After lost
 * records every thread's state is unknown until its next record: a counted
 * gap, never a guessed interval.
 *
 * Ring size: 80 bytes per context switch (a switch-out and a switch-in
 * record of 40 bytes); a 2-thread pipe ping-pong on 2 vCPUs here writes
 * ~16 MB/s per CPU. The thread wakes at a quarter full or every 50 ms, so 4
 * MiB per CPU leaves it ~190 ms to get a CPU when the command keeps them
 * all busy; less where the locked-memory limit refuses (perf_event_mlock_kb,
 * ulimit -l), 64 MiB in all on large machines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/io.h"
#include "format/format.h"
#include "os/percpu.h"
#include "os/perf.h"

#define HORIZON_NS    1000000ull
#define POLL_MS	      50
#define RING_MAX      (4u << 20)
#define RING_MIN      (64u << 10)
#define RINGS_TOTAL   (64u << 20)
#define SPOOL_ENTRIES 2048

enum ev_kind { EV_IN, EV_OUT, EV_FORK, EV_EXIT, EV_LOST };

/* A record as read, before it is applied in time order. */
struct ev {
	uint64_t t;
	uint64_t n; /* lost records */
	uint32_t seq;
	uint32_t cpu;
	int32_t pid, tid, ppid;
	uint8_t kind;
	uint8_t preempt;
};

struct cpu_ring {
	int fd;
	uint8_t *base; /* metadata page, then data_size bytes */
	size_t map_size, data_size;
	int read_lost;	    /* PERF_FORMAT_LOST (Linux 6.0+) */
	uint64_t lost_seen; /* lost records counted so far */
};

/* An entry of a table keyed by thread id (the threads) or pid (the processes). */
struct ent {
	int32_t key; /* 0: free */
	int32_t pid;
	uint64_t since;
	uint32_t cpu;
	uint8_t state;
	uint8_t known;
	uint8_t exiting;
	uint8_t traced; /* process table */
};

struct table {
	struct ent *v;
	size_t cap, n; /* cap: a power of two */
};

struct ht_os_percpu {
	struct cpu_ring *rings;
	unsigned int nrings;
	int stop_fd;
	int started;
	pthread_t thread;
	pid_t self;
	struct ev *evs;
	size_t nev, evcap;
	uint32_t seq;
	struct table threads, procs;
	int32_t *cur; /* per CPU: the thread it switched in last */
	unsigned int ncpu;
	int spool_fd;
	struct ht_os_spool_ent buf[SPOOL_ENTRIES];
	size_t nbuf;
	uint64_t spool_off;
	int spool_err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- tables (open addressing, linear probing) ---- */

static size_t home(const struct table *t, int32_t key)
{
	return ((uint32_t)key * 2654435761u) & (t->cap - 1);
}

static int table_grow(struct table *t)
{
	struct table n = {.cap = t->cap ? t->cap * 2 : 64};

	n.v = calloc(n.cap, sizeof *n.v);
	if (!n.v)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->v[i].key)
			continue;
		for (j = home(&n, t->v[i].key); n.v[j].key; j = (j + 1) & (n.cap - 1))
			;
		n.v[j] = t->v[i];
		n.n++;
	}
	free(t->v);
	*t = n;
	return 0;
}

/* Return: key's entry (added, zeroed, when `add`), or NULL. */
static struct ent *table_get(struct table *t, int32_t key, int add)
{
	size_t i;

	if (!key || (!t->cap && !add))
		return NULL;
	if (add && (t->n + 1) * 2 > t->cap && table_grow(t))
		return NULL;
	for (i = home(t, key); t->v[i].key; i = (i + 1) & (t->cap - 1))
		if (t->v[i].key == key)
			return &t->v[i];
	if (!add)
		return NULL;
	memset(&t->v[i], 0, sizeof t->v[i]);
	t->v[i].key = key;
	t->n++;
	return &t->v[i];
}

/* Removes e, moving back the entries its slot kept from their home (Knuth's algorithm R). */
static void table_del(struct table *t, struct ent *e)
{
	size_t i = (size_t)(e - t->v), j = i;

	for (;;) {
		t->v[i].key = 0;
		for (;;) {
			size_t k;

			j = (j + 1) & (t->cap - 1);
			if (!t->v[j].key) {
				t->n--;
				return;
			}
			k = home(t, t->v[j].key);
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue; /* still reachable from its home */
			break;
		}
		t->v[i] = t->v[j];
		i = j;
	}
}

/* ---- the spool ---- */

static void spool_flush(struct ht_os_percpu *c)
{
	size_t len = c->nbuf * sizeof c->buf[0];
	int r = c->spool_err ? 0 : ht_pwrite_all(c->spool_fd, c->buf, len, c->spool_off);

	if (r)
		c->spool_err = -r;
	c->spool_off += len;
	c->nbuf = 0;
}

static void spool(struct ht_os_percpu *c, const struct ht_os_spool_ent *e)
{
	if (c->nbuf == SPOOL_ENTRIES)
		spool_flush(c);
	c->buf[c->nbuf++] = *e;
}

/* Ends th's current state at t as an interval. */
static void put_state(struct ht_os_percpu *c, const struct ent *th, uint64_t t)
{
	struct ht_os_spool_ent e = {.begin = th->since,
				    .end = t,
				    .pid = th->pid,
				    .tid = th->key,
				    .cpu = th->cpu,
				    .state = th->state};

	if (th->known && t > th->since)
		spool(c, &e);
}

static void put_lost(struct ht_os_percpu *c, uint64_t n, uint64_t t)
{
	struct ht_os_spool_ent e = {.begin = n, .end = t, .state = HT_OS_SPOOL_LOST};

	if (!n)
		return;
	spool(c, &e);
	for (size_t i = 0; i < c->threads.cap; i++)
		c->threads.v[i].known = 0; /* every thread may have missed a switch */
}

/* ---- the state machine ---- */

static int traced(struct ht_os_percpu *c, int32_t pid)
{
	struct ent *p = table_get(&c->procs, pid, 0);

	return p && p->traced;
}

static void apply(struct ht_os_percpu *c, const struct ev *e)
{
	struct ent *th;

	switch (e->kind) {
	case EV_FORK:
		if ((th = table_get(&c->threads, e->tid, 0)))
			table_del(&c->threads, th); /* a thread of that id is gone, unseen (lost) */
		if (e->pid != e->ppid) { /* a new process; a pid of a gone one is reused */
			int yes = e->ppid == c->self || traced(c, e->ppid);
			struct ent *p = table_get(&c->procs, e->pid, yes);

			if (p)
				p->traced = (uint8_t)yes;
		}
		if (!traced(c, e->pid) || !(th = table_get(&c->threads, e->tid, 1)))
			return;
		*th = (struct ent){.key = e->tid,
				   .pid = e->pid,
				   .since = e->t,
				   .cpu = e->cpu,
				   .state = HT_CPU_PREEMPTED,
				   .known = 1};
		return;
	case EV_EXIT:
		if ((th = table_get(&c->threads, e->tid, 0)))
			th->exiting = 1;
		return;
	case EV_LOST:
		put_lost(c, e->n, e->t);
		return;
	}
	if (e->kind == EV_IN && e->cpu < c->ncpu)
		c->cur[e->cpu] = e->tid;
	if (e->kind == EV_OUT && e->tid == -1 && e->cpu < c->ncpu) {
		/* a dead thread has no id left (perf says -1): the one this CPU ran */
		if (!(th = table_get(&c->threads, c->cur[e->cpu], 0)))
			return;
	} else if (!traced(c, e->pid) || !(th = table_get(&c->threads, e->tid, 1))) {
		return;
	}
	if (!th->pid)
		th->pid = e->pid; /* no fork seen (lost): known from now on */
	if (th->known && e->t < th->since)
		return; /* late for this thread */
	put_state(c, th, e->t);
	if (e->kind == EV_OUT && e->tid == -1) {
		table_del(&c->threads, th); /* its last switch */
		return;
	}
	if (e->kind == EV_IN)
		th->state = HT_CPU_RUNNING;
	else
		th->state = e->preempt ? HT_CPU_PREEMPTED : HT_CPU_BLOCKED;
	/* a waiting thread keeps the CPU it left; a running one has the CPU it got */
	th->cpu = e->cpu;
	th->since = e->t;
	th->known = 1;
}

static int by_time(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Applies the records older than horizon in time order; keeps the others. */
static void apply_until(struct ht_os_percpu *c, uint64_t horizon)
{
	size_t i;

	qsort(c->evs, c->nev, sizeof *c->evs, by_time);
	for (i = 0; i < c->nev && c->evs[i].t < horizon; i++)
		apply(c, &c->evs[i]);
	memmove(c->evs, c->evs + i, (c->nev - i) * sizeof *c->evs);
	c->nev -= i;
}

/* ---- reading ---- */

/* Decodes one record (its first n bytes, n == its size) into the batch. */
static void take(struct ht_os_percpu *c, const uint8_t *rec, size_t n)
{
	const struct perf_event_header *h = (const void *)rec;
	const uint8_t *id = rec + n - 24; /* sample_id_all: pid, tid, time, cpu */
	struct ev e = {.pid = (int32_t)ht_le32(id),
		       .tid = (int32_t)ht_le32(id + 4),
		       .t = ht_le64(id + 8),
		       .cpu = ht_le32(id + 16)};

	if (n < sizeof *h + 24)
		return;
	switch (h->type) {
	case PERF_RECORD_SWITCH_CPU_WIDE:
		e.kind = (h->misc & PERF_RECORD_MISC_SWITCH_OUT) ? EV_OUT : EV_IN;
		e.preempt = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT: /* pid, ppid, tid, ptid of the task itself */
		if (n < sizeof *h + 16 + 24)
			return;
		e.kind = h->type == PERF_RECORD_FORK ? EV_FORK : EV_EXIT;
		e.pid = (int32_t)ht_le32(rec + 8);
		e.ppid = (int32_t)ht_le32(rec + 12);
		e.tid = (int32_t)ht_le32(rec + 16);
		break;
	case PERF_RECORD_LOST:
		e.kind = EV_LOST;
		e.n = ht_le64(rec + 16);
		break;
	default:
		return;
	}
	if (ht_grow((void **)&c->evs, &c->evcap, sizeof *c->evs, c->nev + 1))
		return; /* out of memory: as if lost (the state after it may be off) */
	e.seq = c->seq++;
	c->evs[c->nev++] = e;
}

static void read_ring(struct ht_os_percpu *c, struct cpu_ring *r)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	const uint8_t *data = r->base + (r->map_size - r->data_size);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint8_t rec[HT_PERF_RECORD_MAX];

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;

		ht_perf_ring_copy(data, r->data_size, tail, &h, sizeof h);
		if (h.size < sizeof h || tail + h.size > head)
			break; /* cannot happen with a sane kernel */
		if (h.size <= sizeof rec) {
			ht_perf_ring_copy(data, r->data_size, tail, rec, h.size);
			if (h.type == PERF_RECORD_LOST && h.size >= 24)
				r->lost_seen += ht_le64(rec + 16);
			take(c, rec, h.size);
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, head, __ATOMIC_RELEASE);
}

/*
 * The last round: losses the rings do not show yet (the kernel writes
 * PERF_RECORD_LOST once there is room again), then every thread still
 * known ends its state now.
 */
static void finish_states(struct ht_os_percpu *c)
{
	uint64_t t = now_ns();

	for (unsigned int i = 0; i < c->nrings; i++) {
		struct cpu_ring *r = &c->rings[i];
		uint64_t v[2];

		if (r->read_lost && read(r->fd, v, sizeof v) == (ssize_t)sizeof v &&
		    v[1] > r->lost_seen) {
			put_lost(c, v[1] - r->lost_seen, t);
			r->lost_seen = v[1];
		}
	}
	for (size_t i = 0; i < c->threads.cap; i++) {
		const struct ent *th = &c->threads.v[i];

		/* an exited thread that blocked last ended there (a zombie keeps its id) */
		if (th->key && !(th->exiting && th->state == HT_CPU_BLOCKED))
			put_state(c, th, t);
	}
	spool_flush(c);
}

static void *collect(void *arg)
{
	struct ht_os_percpu *c = arg;
	struct pollfd pf[c->nrings + 1];
	int stop = 0;

	for (unsigned int i = 0; i < c->nrings; i++)
		pf[i] = (struct pollfd){.fd = c->rings[i].fd, .events = POLLIN};
	pf[c->nrings] = (struct pollfd){.fd = c->stop_fd, .events = POLLIN};
	while (!stop) {
		uint64_t t;

		poll(pf, c->nrings + 1, POLL_MS);
		stop = !!(pf[c->nrings].revents & POLLIN);
		t = now_ns();
		for (unsigned int i = 0; i < c->nrings; i++)
			read_ring(c, &c->rings[i]);
		apply_until(c, stop ? UINT64_MAX : t - HORIZON_NS);
	}
	finish_states(c);
	return NULL;
}

/* ---- opening ---- */

static int perf_open(int cpu, size_t data, int with_lost)
{
	struct perf_event_attr a;

	ht_perf_switch_attr(&a, with_lost);
	a.task = 1; /* fork and exit records: which threads are whose */
	a.watermark = 1;
	a.wakeup_watermark = (uint32_t)(data / 4);
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens and maps CPU cpu's event, data bytes or less. Return: 0, -ENODEV (offline) or -errno. */
static int ring_open(struct cpu_ring *r, int cpu, size_t data)
{
	long page = sysconf(_SC_PAGESIZE);
	int err;

	r->read_lost = 1;
	r->fd = perf_open(cpu, data, 1);
	if (r->fd < 0 && errno == EINVAL) {
		r->read_lost = 0;
		r->fd = perf_open(cpu, data, 0);
	}
	if (r->fd < 0)
		return -errno;
	for (; data >= RING_MIN; data /= 2) {
		void *m =
		    mmap(NULL, (size_t)page + data, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

		if (m != MAP_FAILED) {
			r->base = m;
			r->map_size = (size_t)page + data;
			r->data_size = data;
			return 0;
		}
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	err = errno;
	close(r->fd);
	r->fd = -1;
	return -err;
}

static void destroy(struct ht_os_percpu *c)
{
	for (unsigned int i = 0; c->rings && i < c->nrings; i++) {
		if (c->rings[i].base)
			munmap(c->rings[i].base, c->rings[i].map_size);
		close(c->rings[i].fd);
	}
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	if (c->spool_fd >= 0)
		close(c->spool_fd);
	free(c->rings);
	free(c->cur);
	free(c->evs);
	free(c->threads.v);
	free(c->procs.v);
	free(c);
}

/* An unlinked file in the trace directory (written as fast as the disk allows). */
static int spool_open(int dfd)
{
	static const char name[] = ".os-cpu.spool";
	int fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlinkat(dfd, name, 0);
	return fd;
}

struct ht_os_percpu *ht_os_percpu_open(int dfd)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct ht_os_percpu *c = calloc(1, sizeof *c);
	size_t data = RING_MAX;
	int err = ENOMEM;

	if (!c)
		return NULL;
	c->stop_fd = c->spool_fd = -1;
	c->self = getpid();
	if (ncpu < 1)
		ncpu = 1;
	while (data > RING_MIN && data * (size_t)ncpu > RINGS_TOTAL)
		data /= 2;
	c->rings = calloc((size_t)ncpu, sizeof *c->rings);
	c->cur = calloc((size_t)ncpu, sizeof *c->cur);
	c->ncpu = (unsigned int)ncpu;
	if (!c->rings || !c->cur)
		goto err;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int r = ring_open(&c->rings[c->nrings], cpu, data);

		if (r == -ENODEV)
			continue; /* offline */
		if (r) {
			err = -r;
			goto err;
		}
		data = c->rings[c->nrings++].data_size; /* the next ones no larger */
	}
	c->stop_fd = eventfd(0, EFD_CLOEXEC);
	c->spool_fd = spool_open(dfd);
	if (!c->nrings || c->stop_fd < 0 || c->spool_fd < 0) {
		err = !c->nrings ? ENODEV : errno;
		goto err;
	}
	return c;
err:
	destroy(c);
	errno = err;
	return NULL;
}

int ht_os_percpu_start(struct ht_os_percpu *c)
{
	int r = pthread_create(&c->thread, NULL, collect, c);

	if (r)
		return -r;
	c->started = 1;
	return 0;
}

int ht_os_percpu_finish(struct ht_os_percpu *c, int dfd, char *msg, size_t cap)
{
	uint64_t one = 1;
	int r = 0;

	if (!c)
		return 0;
	if (c->started) {
		if (write(c->stop_fd, &one, sizeof one) != (ssize_t)sizeof one)
			pthread_cancel(c->thread); /* cannot happen: an eventfd takes one write */
		pthread_join(c->thread, NULL);
	}
	if (c->spool_err) {
		snprintf(msg, cap, "cannot spool CPU states in the trace directory: %s",
			 strerror(c->spool_err));
		r = -c->spool_err;
	} else if (c->started) {
		r = ht_os_percpu_write_trace(c->spool_fd, dfd, msg, cap);
	}
	destroy(c);
	return r;
}
