/*
 * The sampler of `hetrace record` (see collect.h): opening the per-CPU
 * events, the thread that drains their rings into a spool file, and the
 * spool's entries. Writing the samples into the trace is samples.c.
 *
 * Sizes: a sample with an 8 KiB stack copy is ~8.4 KiB in the ring; at
 * 1 kHz a busy thread writes 8.4 MB/s into the ring of its CPU. A ring of
 * 2 MiB per CPU (less where the locked-memory limit refuses: 516 KiB per
 * user at kernel.perf_event_mlock_kb's default) wakes the thread at a
 * quarter full, ~60 ms of samples, and holds ~240 ms before the kernel
 * drops samples (counted). The spool keeps only the part of each stack
 * copy the kernel filled (dyn_size), ~1-3 KiB for a C program.
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

#include "common/io.h"
#include "format/codec.h"
#include "sampling/cfi.h"
#include "sampling/collect.h"
#include "sampling/spool.h"

#define RING_MAX  (2u << 20)
#define RING_MIN  (16u << 10)
#define POLL_MS	  100
#define SPOOL_BUF (256u << 10)
#define REC_MAX	  (HT_SAMPLE_STACK + 1024) /* a sample record's largest size */

/* The user registers asked for, in perf's order (asm/perf_regs.h, x86-64): AX..IP, R8..R15. */
#define REGS_MASK 0xff01ffull
static const uint8_t regs_dwarf[17] = {HT_DW_RAX, HT_DW_RBX, HT_DW_RCX, HT_DW_RDX, HT_DW_RSI,
				       HT_DW_RDI, HT_DW_RBP, HT_DW_RSP, HT_DW_RA,  8,
				       9,	  10,	     11,	12,	   13,
				       14,	  15};

struct ring {
	int fd;
	int members[HT_COUNTERS_MAX];
	uint8_t *base;
	size_t map_size, data_size;
};

struct ht_sampler {
	struct ring *rings;
	unsigned int nrings;
	int ncounters;
	struct ht_counter_spec counters[HT_COUNTERS_MAX];
	int stop_fd;
	int started, stopped;
	pthread_t thread;
	/* the spool */
	int spool_fd;
	uint8_t *buf;
	size_t nbuf;
	uint64_t spool_off;
	int spool_err;
	uint64_t samples, lost;
	uint8_t rec[REC_MAX];
};

static int perf_open(struct perf_event_attr *a, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

static void leader_attr(struct perf_event_attr *a, unsigned int hz, int read_group)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK; /* CPU time of the thread: where it runs */
	a->sample_period = 1000000000ull / hz;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (read_group) {
		a->sample_type |= PERF_SAMPLE_READ;
		a->read_format = PERF_FORMAT_GROUP;
	}
	a->sample_regs_user = REGS_MASK;
	a->sample_stack_user = HT_SAMPLE_STACK;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->exclude_kernel = 1; /* what perf_event_paranoid 2 allows */
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sample_id_all = 1;
	a->watermark = 1;
}

static void member_attr(struct perf_event_attr *a, const struct ht_counter_spec *c)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = c->type;
	a->config = c->config;
	a->inherit = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->use_clockid = 1; /* the kernel groups only events of one clock (else EINVAL) */
	a->clockid = CLOCK_MONOTONIC;
}

static void close_rings(struct ht_sampler *s)
{
	for (unsigned int i = 0; i < s->nrings; i++) {
		struct ring *r = &s->rings[i];

		if (r->base)
			munmap(r->base, r->map_size);
		for (int k = 0; k < s->ncounters; k++)
			if (r->members[k] >= 0)
				close(r->members[k]);
		if (r->fd >= 0)
			close(r->fd);
	}
	free(s->rings);
	s->rings = NULL;
	s->nrings = 0;
}

/* Maps r's ring, halving down to RING_MIN where the locked-memory limit refuses. */
static int map_ring(struct ring *r, long page)
{
	int err = ENOMEM;

	for (size_t data = RING_MAX; data >= RING_MIN && data >= (size_t)page; data /= 2) {
		void *m =
		    mmap(NULL, (size_t)page + data, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);

		if (m != MAP_FAILED) {
			r->base = m;
			r->map_size = (size_t)page + data;
			r->data_size = data;
			return 0;
		}
		err = errno;
		if (err != EPERM && err != ENOMEM)
			break;
	}
	return -err;
}

static void refused(char *msg, size_t cap, int err, const char *what)
{
	char buf[16] = "?";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf - 1);

		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		close(fd);
	}
	snprintf(msg, cap, "%s: %s (kernel.perf_event_paranoid = %s)", what, strerror(err), buf);
}

/* Opens the leader of every online CPU, with the counters that open on the first. */
static int open_all(struct ht_sampler *s, unsigned int hz, char *msg, size_t cap, char *warn,
		    size_t wcap)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a, m;
	size_t wlen = strlen(warn);

	s->rings = calloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof *s->rings);
	if (!s->rings)
		return -ENOMEM;
	for (long cpu = 0; cpu < ncpu; cpu++) {
		struct ring *r = &s->rings[s->nrings];
		int err;

		for (int k = 0; k < HT_COUNTERS_MAX; k++)
			r->members[k] = -1;
		leader_attr(&a, hz, s->ncounters > 0);
		r->fd = perf_open(&a, (int)cpu, -1);
		if (r->fd < 0 && s->ncounters && errno == EINVAL && !s->nrings) {
			/* an older kernel: no counter values in inherited samples */
			snprintf(warn + wlen, wcap - wlen,
				 "%scounters are not read per sample: this kernel refuses "
				 "PERF_SAMPLE_READ with inherited events",
				 wlen ? "; " : "");
			wlen = strlen(warn);
			s->ncounters = 0;
			leader_attr(&a, hz, 0);
			r->fd = perf_open(&a, (int)cpu, -1);
		}
		if (r->fd < 0) {
			err = errno;
			if (err == ENODEV || err == ENXIO)
				continue; /* an offline CPU */
			refused(msg, cap, err, "perf_event_open");
			return -err;
		}
		for (int k = 0; k < s->ncounters; k++) {
			member_attr(&m, &s->counters[k]);
			r->members[k] = perf_open(&m, (int)cpu, r->fd);
			if (r->members[k] >= 0 || s->nrings)
				continue;
			/* not on this machine: left out, said once */
			snprintf(warn + wlen, wcap - wlen, "%scounter '%s' is not available: %s",
				 wlen ? "; " : "", s->counters[k].name, strerror(errno));
			wlen = strlen(warn);
			memmove(&s->counters[k], &s->counters[k + 1],
				(size_t)(s->ncounters - k - 1) * sizeof s->counters[0]);
			s->ncounters--;
			k--;
		}
		err = map_ring(r, page);
		if (err) {
			refused(msg, cap, -err, "cannot map a perf ring");
			return err;
		}
		s->nrings++;
	}
	if (!s->nrings) {
		snprintf(msg, cap, "perf_event_open: no CPU to sample");
		return -ENODEV;
	}
	return 0;
}

struct ht_sampler *ht_sampler_open(int dfd, const struct ht_sampler_opts *o, char *msg, size_t cap,
				   char *warn, size_t wcap)
{
	struct ht_sampler *s = calloc(1, sizeof *s);
	int err;

	warn[0] = '\0';
	if (!s || !(s->buf = malloc(SPOOL_BUF))) {
		snprintf(msg, cap, "out of memory");
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->stop_fd = s->spool_fd = -1;
	s->ncounters = o->ncounters < HT_COUNTERS_MAX ? o->ncounters : HT_COUNTERS_MAX;
	memcpy(s->counters, o->counters, (size_t)s->ncounters * sizeof s->counters[0]);
	err = open_all(s, o->hz ? o->hz : HT_SAMPLE_HZ_DEFAULT, msg, cap, warn, wcap);
	if (!err) {
		s->stop_fd = eventfd(0, EFD_CLOEXEC);
		s->spool_fd = openat(dfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (s->stop_fd < 0 || s->spool_fd < 0) {
			err = -errno;
			snprintf(msg, cap,
				 "cannot create the sample spool in the trace directory: %s",
				 strerror(errno));
		}
	}
	if (err) {
		close_rings(s);
		if (s->stop_fd >= 0)
			close(s->stop_fd);
		if (s->spool_fd >= 0)
			close(s->spool_fd);
		free(s->buf);
		free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

/* ---- the spool ---- */

static void spool_flush(struct ht_sampler *s)
{
	int r;

	if (!s->nbuf)
		return;
	r = s->spool_err ? 0 : ht_pwrite_all(s->spool_fd, s->buf, s->nbuf, s->spool_off);
	if (r)
		s->spool_err = -r;
	else
		s->spool_off += s->nbuf;
	s->nbuf = 0;
}

static uint8_t *spool_reserve(struct ht_sampler *s, size_t n)
{
	if (s->nbuf + n > SPOOL_BUF)
		spool_flush(s);
	return s->buf + s->nbuf;
}

/* Reads u64 number i of a sample record (bounded). */
static uint64_t rec64(const uint8_t *rec, size_t size, size_t *at)
{
	uint64_t v = 0;

	if (*at + 8 <= size)
		memcpy(&v, rec + *at, 8);
	*at += 8;
	return v;
}

/* One PERF_RECORD_SAMPLE of ring `cpu` into the spool (layout: the fields of leader_attr, in
 * order). */
static void take_sample(struct ht_sampler *s, unsigned int cpu, const uint8_t *rec, size_t size)
{
	struct ht_spool_entry e;
	uint64_t counters[HT_COUNTERS_MAX] = {0}, abi, stack_size, dyn = 0;
	size_t at = sizeof(struct perf_event_header), stack_at = 0;
	uint8_t *p;

	memset(&e, 0, sizeof e);
	e.kind = HT_SPOOL_SAMPLE;
	e.cpu = (uint16_t)cpu;
	e.regs[HT_DW_RA] = rec64(rec, size, &at);
	{
		uint64_t pt = rec64(rec, size, &at);

		e.pid = (int32_t)(uint32_t)pt;
		e.tid = (int32_t)(uint32_t)(pt >> 32);
	}
	e.time = rec64(rec, size, &at);
	if (s->ncounters) {
		uint64_t nr = rec64(rec, size, &at);

		for (uint64_t k = 0; k < nr; k++) {
			uint64_t v = rec64(rec, size, &at);

			if (k >= 1 && k - 1 < (uint64_t)s->ncounters) /* the leader first */
				counters[k - 1] = v;
		}
		e.ncounters = (uint8_t)s->ncounters;
	}
	abi = rec64(rec, size, &at);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		for (unsigned int i = 0; i < 17; i++)
			e.regs[regs_dwarf[i]] = rec64(rec, size, &at);
		e.valid = (1u << HT_DW_NREGS) - 1;
	} else {
		e.valid = 1u << HT_DW_RA; /* a sample in the kernel on behalf of the thread */
	}
	stack_size = rec64(rec, size, &at);
	if (stack_size) {
		stack_at = at;
		at += stack_size;
		dyn = rec64(rec, size, &at);
		if (dyn > stack_size)
			dyn = stack_size;
	}
	if (at > size)
		return; /* a record shorter than its fields: not ours to guess */
	e.stack = (uint32_t)dyn;
	e.size = (uint32_t)((sizeof e + e.ncounters * 8 + dyn + 7) & ~7ull);
	p = spool_reserve(s, e.size);
	memcpy(p, &e, sizeof e);
	memcpy(p + sizeof e, counters, e.ncounters * 8u);
	memcpy(p + sizeof e + e.ncounters * 8u, rec + stack_at, dyn);
	memset(p + sizeof e + e.ncounters * 8u + dyn, 0,
	       e.size - sizeof e - e.ncounters * 8u - dyn);
	s->nbuf += e.size;
	s->samples++;
}

static void take_lost(struct ht_sampler *s, uint64_t n, uint64_t t)
{
	struct ht_spool_entry e;

	memset(&e, 0, sizeof e);
	e.kind = HT_SPOOL_LOST;
	e.size = sizeof e;
	e.time = t;
	e.lost = n;
	memcpy(spool_reserve(s, sizeof e), &e, sizeof e);
	s->nbuf += sizeof e;
	s->lost += n;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void drain(struct ht_sampler *s, struct ring *r)
{
	struct perf_event_mmap_page *meta = (void *)r->base;
	const uint8_t *data = r->base + (r->map_size - r->data_size);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t o = (size_t)(tail % r->data_size), first;

		memcpy(&h, data + o, sizeof h); /* headers are 8-byte aligned: never split */
		if (h.size < sizeof h || tail + h.size > head)
			break;
		if (h.size <= REC_MAX &&
		    (h.type == PERF_RECORD_SAMPLE || h.type == PERF_RECORD_LOST ||
		     h.type == PERF_RECORD_LOST_SAMPLES)) {
			first = r->data_size - o;
			if (first >= h.size) {
				memcpy(s->rec, data + o, h.size);
			} else {
				memcpy(s->rec, data + o, first);
				memcpy(s->rec + first, data, h.size - first);
			}
			if (h.type == PERF_RECORD_SAMPLE)
				take_sample(s, (unsigned int)(r - s->rings), s->rec, h.size);
			else if (h.size >= 16) /* LOST: id, count; LOST_SAMPLES: count */
				take_lost(s,
					  ht_le64(s->rec + (h.type == PERF_RECORD_LOST ? 16 : 8)),
					  now_ns());
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void *reader(void *arg)
{
	struct ht_sampler *s = arg;
	struct pollfd *pfd = calloc(s->nrings + 1, sizeof *pfd);

	for (unsigned int i = 0; pfd && i < s->nrings; i++) {
		pfd[i].fd = s->rings[i].fd;
		pfd[i].events = POLLIN;
	}
	if (pfd) {
		pfd[s->nrings].fd = s->stop_fd;
		pfd[s->nrings].events = POLLIN;
	}
	for (;;) {
		int stop;

		if (pfd)
			poll(pfd, s->nrings + 1, POLL_MS);
		else
			usleep(POLL_MS * 1000);
		stop = pfd && (pfd[s->nrings].revents & POLLIN);
		for (unsigned int i = 0; i < s->nrings; i++)
			drain(s, &s->rings[i]);
		if (stop)
			break;
	}
	spool_flush(s);
	free(pfd);
	return NULL;
}

int ht_sampler_start(struct ht_sampler *s)
{
	int r = pthread_create(&s->thread, NULL, reader, s);

	if (r)
		return -r;
	s->started = 1;
	return 0;
}

void ht_sampler_stop(struct ht_sampler *s)
{
	uint64_t one = 1;

	if (!s || s->stopped)
		return;
	s->stopped = 1;
	if (s->started) {
		if (write(s->stop_fd, &one, sizeof one) < 0)
			pthread_cancel(s->thread);
		pthread_join(s->thread, NULL);
	} else {
		for (unsigned int i = 0; i < s->nrings; i++)
			drain(s, &s->rings[i]);
		spool_flush(s);
	}
	close_rings(s);
}

int ht_sampler_finish(struct ht_sampler *s, const char *path, struct ht_sampler_stats *st,
		      char *msg, size_t cap)
{
	int r;

	memset(st, 0, sizeof *st);
	if (!s)
		return 0;
	ht_sampler_stop(s);
	st->lost = s->lost;
	if (s->spool_err) {
		snprintf(msg, cap, "cannot spool CPU samples in '%s': %s; they are lost", path,
			 strerror(s->spool_err));
		r = -s->spool_err;
	} else {
		struct ht_spool sp = {.fd = s->spool_fd, .size = s->spool_off};

		for (int k = 0; k < s->ncounters; k++)
			sp.counters[k] = s->counters[k].name;
		sp.ncounters = s->ncounters;
		r = ht_samples_write(&sp, path, st, msg, cap);
	}
	close(s->spool_fd);
	close(s->stop_fd);
	free(s->buf);
	free(s);
	return r;
}
