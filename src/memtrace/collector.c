/*
 * The memory-access collector (collector.h): in libhetrace.so, because it
 * writes events; the instrumenting sources reach it through its exported
 * functions.
 *
 * The consumer thread. Seed 003's host consumer evacuates full bins while
 * the kernel runs, which is what lets a kernel emit more records than the
 * channel holds; on PoCL's CPU devices the kernel runs inside the
 * application's own threads (clFinish on the basic device), so nothing else
 * could drain it. DESIGN.md §3 adds no thread to a traced program, except
 * lazily, excluded from tracing, and measured; this one is all three:
 *   - created at the first launch of an instrumented kernel (never when
 *     --memory-access is off or no kernel matches);
 *   - it never gets a thread stream (it writes only its device stream),
 *     so no thread_info, OS switches or API events come from it, it runs
 *     with every signal blocked (the application's handlers never run on
 *     it), and it is named "hetrace-memory";
 *   - its cost is in bench/opencl.sh's memtrace line (the slowdown of a
 *     memory-bound kernel with every access recorded, records per second).
 * It sleeps on a condition variable while no instrumented launch is in
 * flight and polls the channel every 20-200 us (backing off) while one is.
 *
 * Per launch, in its stream: mem_launch and one mem_arg per buffer argument
 * before the launch's first access, then its accesses in mem_accesses
 * events, then mem_launch_end with the counts (accesses recorded, and
 * accesses dropped in discard mode) once the launch is done and its last
 * bins are taken.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/config.h"
#include "core/recorder.h"
#include "core/session.h"
#include "memtrace/collector.h"
#include "memtrace/runs.h"

enum { FREE, RUNNING, DONE };

struct launch {
	int state;
	int announced;
	struct ht_mt_launch d;
	uint32_t kernel; /* string id */
	uint64_t records;
};

static struct {
	pthread_mutex_t lock; /* slots, done list, channel and stream creation */
	pthread_cond_t wake;
	struct ht_mt_config cfg;
	int cfg_read;
	int dead; /* a fork child: the channel and thread are the parent's */
	struct ht_mt_chan chan;
	int have_chan;
	void *(*alloc)(size_t, void *); /* where the channel's memory came from */
	struct ht_stream *stream;
	int stream_failed;
	struct launch launch[HT_MT_SLOTS];
	uint32_t free[HT_MT_SLOTS];
	unsigned int nfree;
	uint32_t done[HT_MT_SLOTS];
	unsigned int ndone;
	unsigned int inflight;
	uint32_t next_module;
	pthread_t thread;
	int started, stop;
} M = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
};

static void config_read(struct ht_mt_config *c)
{
	const char *v = getenv("HETRACE_MEMTRACE");
	char *end;

	memset(c, 0, sizeof *c);
	c->sample = 1;
	c->bytes = HT_MT_BUFFER_DEFAULT;
	if (!v)
		return;
	c->on = 1;
	snprintf(c->glob, sizeof c->glob, "%s", *v ? v : "*");
	v = getenv("HETRACE_MEMTRACE_SAMPLE");
	if (v && *v) {
		unsigned long n = strtoul(v, &end, 10);

		if (*end || !n || n > UINT32_MAX)
			fprintf(stderr,
				"hetrace: ignoring HETRACE_MEMTRACE_SAMPLE='%s': expected a count "
				"from 1; recording every work-group\n",
				v);
		else
			c->sample = (uint32_t)n;
	}
	v = getenv("HETRACE_MEMTRACE_BUFFER");
	if (v && *v && (ht_parse_size(v, &c->bytes) || c->bytes < HT_MT_BUFFER_MIN)) {
		fprintf(stderr,
			"hetrace: ignoring HETRACE_MEMTRACE_BUFFER='%s': expected a size from %uK; "
			"using 8M\n",
			v, HT_MT_BUFFER_MIN >> 10);
		c->bytes = HT_MT_BUFFER_DEFAULT;
	}
	v = getenv("HETRACE_MODE");
	c->block = v && !strcmp(v, "block");
	v = getenv("HETRACE_MEMTRACE_TOOL");
	snprintf(c->tool, sizeof c->tool, "%s", v ? v : "");
	v = getenv("HETRACE_MEMTRACE_NAP");
	if (v && *v)
		c->nap_us = strtol(v, NULL, 10) > 0 ? strtol(v, NULL, 10) : 0;
}

HT_EXPORT const struct ht_mt_config *ht_mt_config_get(void)
{
	pthread_mutex_lock(&M.lock);
	if (!M.cfg_read) {
		config_read(&M.cfg);
		M.cfg_read = 1;
	}
	pthread_mutex_unlock(&M.lock);
	return &M.cfg;
}

/* The collector's stream (M.lock held). */
static struct ht_stream *stream_locked(void)
{
	if (!M.stream && !M.stream_failed) {
		M.stream = ht_session_stream_create(HT_SC_DEVICE, "device-memory", 0, 0);
		M.stream_failed = !M.stream;
	}
	return M.stream;
}

HT_EXPORT struct ht_mt_chan *ht_mt_channel(unsigned int lanes, uint32_t min_cap,
					   void *(*alloc)(size_t bytes, void *arg), void *arg)
{
	struct ht_mt_chan *c = NULL;

	ht_mt_config_get();
	pthread_mutex_lock(&M.lock);
	if (M.have_chan) {
		if (M.alloc != alloc)
			errno = EBUSY;
		else if (min_cap > M.chan.cap)
			errno = ENOSPC;
		else
			c = &M.chan;
	} else if (M.cfg.on && !M.dead) {
		uint32_t nbins, cap;
		void *mem;
		size_t size;

		if (ht_mt_chan_geometry(M.cfg.bytes, lanes, min_cap, &nbins, &cap)) {
			errno = EINVAL;
			goto out;
		}
		size = (ht_mt_chan_size(nbins, cap) + 4095) & ~(size_t)4095;
		mem = alloc ? alloc(size, arg) : aligned_alloc(4096, size);
		if (!mem || ht_mt_chan_init(&M.chan, mem, nbins, cap, M.cfg.block)) {
			if (!alloc)
				free(mem);
			errno = ENOMEM;
			goto out;
		}
		for (unsigned int s = 0; s < HT_MT_SLOTS; s++)
			M.free[s] = HT_MT_SLOTS - 1 - s;
		M.nfree = HT_MT_SLOTS;
		M.have_chan = 1;
		M.alloc = alloc;
		c = &M.chan;
	} else {
		errno = ENODEV;
	}
out:
	pthread_mutex_unlock(&M.lock);
	return c;
}

HT_EXPORT uint32_t ht_mt_module_create(const struct ht_mt_site_desc *sites, size_t n)
{
	struct ht_stream *s;
	uint32_t id = 0;

	pthread_mutex_lock(&M.lock);
	s = stream_locked();
	if (s)
		id = ++M.next_module;
	pthread_mutex_unlock(&M.lock);
	if (!s)
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct ht_ev_mem_site e = {
		    .module = id,
		    .site = sites[i].site,
		    .kernel = ht_session_intern(sites[i].fn ? sites[i].fn : ""),
		    .arg = sites[i].arg,
		    .kind = sites[i].kind,
		    .size = sites[i].size,
		    .line = sites[i].line,
		    .col = sites[i].col,
		    .file = ht_session_intern(sites[i].file ? sites[i].file : ""),
		};

		ht_lock_take(&s->lock);
		HT_WRITE(s, mem_site, &e);
		ht_lock_give(&s->lock);
	}
	return id;
}

/* ---- the consumer ---- */

/* mem_launch and its buffers (the stream's lock held). */
static void announce(struct ht_stream *s, struct launch *l, uint32_t slot)
{
	struct ht_ev_mem_launch e = {
	    .corr = l->d.corr,
	    .module = l->d.module,
	    .kernel = l->kernel,
	    .sample = l->d.sample,
	};

	memcpy(e.global, l->d.global, sizeof e.global);
	memcpy(e.local, l->d.local, sizeof e.local);
	HT_WRITE(s, mem_launch, &e);
	for (unsigned int i = 0; i < HT_MT_SLOT_ARGS; i++) {
		struct ht_ev_mem_arg a = {.corr = l->d.corr, .arg = i};

		if (!(l->d.buffers & (1u << i)))
			continue;
		a.base = ht_mt_chan_slot_arg(&M.chan, slot, i);
		a.size = l->d.arg_size[i];
		HT_WRITE(s, mem_arg, &a);
	}
	l->announced = 1;
}

/*
 * The mem_accesses event being written: the runs of one launch slot and
 * group (runs.h joins the channel's records, runs already from OpenCL's
 * producer, single accesses from CUDA's, and hands them over grouped so),
 * stamped with the clock read of the batch (its records were all taken at
 * that moment), written straight into the stream's packet and committed
 * when the slot or group changes or the packet is full. An event per
 * access cost the consumer ~12 ns and 34 bytes; a unit-stride kernel's
 * runs take ~0.5 bytes an access (bench/opencl.sh's memtrace line).
 */
struct block {
	struct ht_stream *s;
	uint64_t now;
	int open;
	uint32_t slot, group, n;
	struct launch *l;
	uint8_t *count; /* where its run count goes */
	uint8_t *p, *end;
};

static void block_close(struct block *b)
{
	if (!b->open)
		return;
	ht_put32(b->count, b->n);
	ht_stream_commit(b->s, b->p);
	b->open = 0;
}

/* Return: 0, or -1 when the stream has no room (the stream counts the loss). */
static int block_open(struct block *b, uint32_t slot, uint32_t group)
{
	enum { MIN_EVENT = HT_EH_MAX_SIZE + HT_OFF_MEM_ACCESSES_RUNS + 4 + HT_MEMRUN_SIZE };
	struct launch *l = &M.launch[slot % HT_MT_SLOTS];
	uint8_t *p;

	/* cannot happen: a slot is freed after its last records */
	if (__atomic_load_n(&l->state, __ATOMIC_ACQUIRE) == FREE)
		return -1;
	if (!l->announced)
		announce(b->s, l, slot);
	p = ht_stream_reserve(b->s, MIN_EVENT);
	if (!p)
		return -1;
	p = ht_stream_header(b->s, p, HT_EV_MEM_ACCESSES, b->now);
	p = ht_fput_u64(p, l->d.corr);
	p = ht_fput_u32(p, group);
	b->count = p;
	b->p = p + 4;
	b->end = b->s->end;
	b->n = 0;
	b->l = l;
	b->slot = slot;
	b->group = group;
	b->open = 1;
	return 0;
}

static void put_run(void *arg, uint32_t slot, uint32_t group, const struct ht_memrun *r)
{
	struct block *b = arg;

	if (b->open && (slot != b->slot || group != b->group || b->end - b->p < HT_MEMRUN_SIZE))
		block_close(b);
	if (!b->open && block_open(b, slot, group))
		return;
	b->p = ht_memrun_put(b->p, r);
	b->n++;
	b->l->records += r->count;
}

/* A bin's records, as runs (runs.h) in mem_accesses events. */
static void sink(void *arg, const uint32_t *w, uint32_t n)
{
	struct block b = {.s = arg, .now = ht_clock_raw()};
	struct ht_mt_runs runs;

	ht_mt_runs_init(&runs);
	ht_lock_take(&b.s->lock);
	for (uint32_t i = 0; i < n; i++)
		ht_mt_runs_add(&runs, w + (size_t)i * (HT_MT_REC_SIZE / 4), put_run, &b);
	ht_mt_runs_flush(&runs, put_run, &b);
	block_close(&b);
	ht_lock_give(&b.s->lock);
}

/* The launch in slot is done and its records taken: its end, and the slot freed. */
static void finish(struct ht_stream *s, uint32_t slot)
{
	struct launch *l = &M.launch[slot];
	struct ht_ev_mem_launch_end e = {.corr = l->d.corr, .records = l->records};

	e.dropped = ht_mt_chan_slot_take(&M.chan, slot);
	if (s) {
		ht_lock_take(&s->lock);
		if (!l->announced)
			announce(s, l, slot);
		HT_WRITE(s, mem_launch_end, &e);
		ht_lock_give(&s->lock);
	}
	pthread_mutex_lock(&M.lock);
	__atomic_store_n(&l->state, FREE, __ATOMIC_RELEASE);
	M.free[M.nfree++] = slot;
	M.inflight--;
	pthread_mutex_unlock(&M.lock);
}

static void *consume(void *arg)
{
	static uint32_t done[HT_MT_SLOTS];
	struct ht_stream *s;
	long nap_ns = 20000;

	(void)arg;
	pthread_mutex_lock(&M.lock);
	s = stream_locked();
	pthread_mutex_unlock(&M.lock);
	for (;;) {
		unsigned int ndone, inflight;
		int stop;
		uint64_t taken;

		pthread_mutex_lock(&M.lock);
		ndone = M.ndone;
		memcpy(done, M.done, ndone * sizeof *done);
		M.ndone = 0;
		inflight = M.inflight;
		stop = M.stop;
		pthread_mutex_unlock(&M.lock);
		/* a launch that is done has acknowledged all it reserved: take every bin */
		taken =
		    s ? ht_mt_chan_drain(&M.chan, ndone || stop ? HT_MT_DRAIN_FORCE : 0, sink, s)
		      : 0;
		for (unsigned int i = 0; i < ndone; i++)
			finish(s, done[i]);
		if (stop && !ndone && inflight == 0)
			break;
		if (M.cfg.nap_us) {
			struct timespec t = {M.cfg.nap_us / 1000000, M.cfg.nap_us % 1000000 * 1000};

			nanosleep(&t, NULL);
		}
		if (taken || ndone) {
			nap_ns = 20000;
			continue;
		}
		pthread_mutex_lock(&M.lock);
		if (!M.inflight && !M.ndone && !M.stop) {
			pthread_cond_wait(&M.wake, &M.lock);
			pthread_mutex_unlock(&M.lock);
			continue;
		}
		pthread_mutex_unlock(&M.lock);
		{
			struct timespec t = {0, nap_ns};

			nanosleep(&t, NULL);
			if (nap_ns < 200000)
				nap_ns *= 2;
		}
	}
	return NULL;
}

/* At exit: launches still marked running end now (their bins are taken as they are). */
static void at_exit(void)
{
	pthread_mutex_lock(&M.lock);
	if (!M.started || M.dead) {
		pthread_mutex_unlock(&M.lock);
		return;
	}
	for (uint32_t s = 0; s < HT_MT_SLOTS; s++)
		if (M.launch[s].state == RUNNING) {
			M.launch[s].state = DONE;
			M.done[M.ndone++] = s;
		}
	M.stop = 1;
	pthread_cond_signal(&M.wake);
	pthread_mutex_unlock(&M.lock);
	pthread_join(M.thread, NULL);
	M.started = 0;
}

static void fork_child(void)
{
	/* The channel's launches and thread are the parent's. */
	M.dead = 1;
	M.started = 0;
	pthread_mutex_init(&M.lock, NULL);
	pthread_cond_init(&M.wake, NULL);
}

/* Starts the consumer thread (M.lock held). Return: 0 or -errno. */
static int start_locked(void)
{
	sigset_t all, old;
	int r;

	if (M.started)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&M.thread, NULL, consume, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r)
		return -r;
	pthread_setname_np(M.thread, "hetrace-memory");
	M.started = 1;
	{
		static int hooked;

		if (!hooked) {
			hooked = 1;
			atexit(at_exit);
			pthread_atfork(NULL, NULL, fork_child);
		}
	}
	return 0;
}

HT_EXPORT int ht_mt_launch_start(const struct ht_mt_launch *d)
{
	struct launch *l;
	uint32_t slot;
	uint32_t kernel = ht_session_intern(d->kernel ? d->kernel : "");

	pthread_mutex_lock(&M.lock);
	if (!M.have_chan || M.dead || !M.nfree || start_locked()) {
		pthread_mutex_unlock(&M.lock);
		return -1;
	}
	slot = M.free[--M.nfree];
	l = &M.launch[slot];
	l->d = *d;
	l->d.kernel = NULL;
	l->kernel = kernel;
	l->records = 0;
	l->announced = 0;
	ht_mt_chan_slot_take(&M.chan, slot);
	__atomic_store_n(&l->state, RUNNING, __ATOMIC_RELEASE);
	if (!M.inflight++)
		pthread_cond_signal(&M.wake);
	pthread_mutex_unlock(&M.lock);
	return (int)slot;
}

HT_EXPORT void ht_mt_launch_cancel(int slot)
{
	if (slot < 0 || slot >= (int)HT_MT_SLOTS)
		return;
	pthread_mutex_lock(&M.lock);
	if (M.launch[slot].state == RUNNING) {
		__atomic_store_n(&M.launch[slot].state, FREE, __ATOMIC_RELEASE);
		M.free[M.nfree++] = (uint32_t)slot;
		M.inflight--;
	}
	pthread_mutex_unlock(&M.lock);
}

HT_EXPORT void ht_mt_launch_done(int slot)
{
	if (slot < 0 || slot >= (int)HT_MT_SLOTS)
		return;
	pthread_mutex_lock(&M.lock);
	if (M.launch[slot].state == RUNNING) {
		M.launch[slot].state = DONE;
		M.done[M.ndone++] = (uint32_t)slot;
		pthread_cond_signal(&M.wake);
	}
	pthread_mutex_unlock(&M.lock);
}
