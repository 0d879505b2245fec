/*
 * The spooled samples into the trace (see collect.h), once the command has
 * exited and the trace is finalized (its times are CLOCK_MONOTONIC ns).
 *
 * Whose: a pid's process directories (one per image: exec, a reused pid)
 * are ordered by their start anchors; one takes the samples from where
 * the one before ended (its exit or exec anchor; the first from the
 * beginning: a process that creates its directory late has samples from
 * before that) up to its own exec, or for good. A sample no directory
 * takes (a process that was not traced: a static program, a setuid one)
 * is counted, not written.
 *
 * Each image's samples are sorted by time, unwound from the sample's
 * registers and stack copy with the CFI of the files the image had mapped
 * at that time (its module_load/module_unload events; a file of another
 * build-id gives no rows, and the unwinder falls back on frame pointers),
 * interned in a tree of the image (stack_node, ids from
 * HT_CCT_SAMPLES_BASE), and written to the image's "samples" stream with
 * the counter values (each thread's running totals) and the kernel's
 * losses in their time.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/trace.h"
#include "common/grow.h"
#include "common/io.h"
#include "common/map.h"
#include "format/format.h"
#include "format/stream_file.h"
#include "sampling/cct.h"
#include "sampling/spool.h"
#include "sampling/unwind.h"

#define SAMPLES_STREAM	 "samples"
#define SAMPLES_INSTANCE (3ull << 32) /* above any instance id the recorder gives a stream */
#define ENTRY_MAX	 (sizeof(struct ht_spool_entry) + 8 * HT_COUNTERS_MAX + HT_SAMPLE_STACK + 8)

/* A module of an image, as the process recorded it. */
struct imod {
	struct ht_unwind_module u;
	char *path;
	char build_id[65];
	uint64_t loaded, unloaded; /* ns; unloaded 0: never */
	int opened;		   /* its file was looked for */
	struct ht_elf_map map;
};

/* A process image: its directory, span, modules, and the stream written into it. */
struct image {
	const struct ht_trace_process *tp;
	int32_t pid;
	char procname[HT_PROCNAME_LEN];
	uint64_t start, end; /* anchors, ns (end 0: none) */
	int exec;	     /* it ended in exec */
	uint64_t lo, hi;     /* the sample times it takes: [lo, hi) */
	struct imod *mods;
	size_t nmods, capmods;
	struct ht_sfile s; /* output: the samples stream */
	struct ht_cct tree;
	struct ht_unwind_cache *cache;
	int err;
};

struct writer {
	struct ht_trace *t;
	struct image *im;
	size_t n, cap;
	const struct ht_spool *sp;
	char *msg;
	size_t cap_msg;
	int err;
	/* counter values: (tid, ring, k) -> the last value of the thread's
	 * event on that ring's CPU; (tid, k) -> the thread's running total */
	struct ht_map counts;
};

/* A sample's place: its image and time, and where its entry is. */
struct placed {
	uint64_t time, off;
	uint32_t image;
	uint8_t lost;
};

static int fail(struct writer *w, const struct image *im, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->msg, w->cap_msg, "cannot write CPU samples to '%s/%s/%s': %s",
			 w->t->path, im->tp->name, SAMPLES_STREAM, what ? what : strerror(err));
	}
	return -err;
}

/* ---- the images ---- */

static int add_module(struct image *im, const struct ht_ev_module_load *e, uint64_t ts)
{
	struct imod *m;

	if (ht_grow((void **)&im->mods, &im->capmods, sizeof *im->mods, im->nmods + 1))
		return -ENOMEM;
	m = &im->mods[im->nmods];
	memset(m, 0, sizeof *m);
	m->path = strdup(e->path);
	if (!m->path)
		return -ENOMEM;
	snprintf(m->build_id, sizeof m->build_id, "%s", e->build_id);
	m->u.id = e->id;
	m->u.base = e->base;
	m->u.start = e->start;
	m->u.end = e->end;
	m->loaded = e->ns;
	(void)ts;
	im->nmods++;
	return 0;
}

/* Reads an image's process stream: who, when, which modules. */
static int read_image(struct image *im, struct ht_read_error *err)
{
	struct ht_stream_reader r;
	struct ht_event ev;
	int rc = ht_stream_reader_open(&r, im->tp, "process", err);

	if (rc)
		return rc;
	while ((rc = ht_stream_reader_next(&r, &ev, err)) > 0) {
		union ht_ev_any u;

		if (ev.sc != HT_SC_THREAD)
			continue;
		if (!im->procname[0] && r.have_packet)
			memcpy(im->procname, r.pk.procname, HT_PROCNAME_LEN);
		switch (ev.id) {
		case HT_EV_PROCESS_INFO:
			if (ht_ev_process_info_get(&u.process_info, ev.payload, ev.size) >= 0)
				im->pid = u.process_info.pid;
			break;
		case HT_EV_CLOCK_ANCHOR:
			if (ht_ev_clock_anchor_get(&u.clock_anchor, ev.payload, ev.size) < 0)
				break;
			if (u.clock_anchor.kind == HT_ANCHOR_START && !im->start)
				im->start = u.clock_anchor.ns;
			else if (u.clock_anchor.kind == HT_ANCHOR_EXIT ||
				 u.clock_anchor.kind == HT_ANCHOR_EXEC)
				im->end = u.clock_anchor.ns,
				im->exec = u.clock_anchor.kind == HT_ANCHOR_EXEC;
			break;
		case HT_EV_MODULE_LOAD:
			if (ht_ev_module_load_get(&u.module_load, ev.payload, ev.size) >= 0 &&
			    add_module(im, &u.module_load, ev.ts))
				rc = -ENOMEM;
			break;
		case HT_EV_MODULE_UNLOAD:
			if (ht_ev_module_unload_get(&u.module_unload, ev.payload, ev.size) < 0)
				break;
			for (size_t i = 0; i < im->nmods; i++)
				if (im->mods[i].u.id == u.module_unload.id)
					im->mods[i].unloaded = u.module_unload.ns;
			break;
		}
		if (rc < 0)
			break;
	}
	ht_stream_reader_close(&r);
	return rc < 0 ? rc : 0;
}

static int by_pid_start(const void *a, const void *b)
{
	const struct image *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void spans(struct writer *w)
{
	qsort(w->im, w->n, sizeof *w->im, by_pid_start);
	for (size_t i = 0; i < w->n; i++) {
		struct image *im = &w->im[i];
		int first = !i || w->im[i - 1].pid != im->pid;
		int last = i + 1 == w->n || w->im[i + 1].pid != im->pid;

		im->lo = first ? 0 : w->im[i - 1].hi;
		if (last)
			im->hi = im->exec ? im->end : UINT64_MAX;
		else
			im->hi = im->end ? im->end : w->im[i + 1].start;
		if (im->hi < im->lo)
			im->hi = im->lo;
	}
}

/* Return: the index of pid's image whose span holds t, or -1. */
static long find_image(const struct writer *w, int32_t pid, uint64_t t)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->im[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && w->im[lo].pid == pid; lo++)
		if (t >= w->im[lo].lo && t < w->im[lo].hi)
			return (long)lo;
	return -1;
}

/* ---- the samples stream of an image ---- */

/* Room for an event of class id with `payload` bytes at time t (stream_file.h). */
static uint8_t *event(struct writer *w, struct image *im, uint32_t id, size_t payload, uint64_t t)
{
	const struct ht_sfile_who who = {im->tp->uuid, SAMPLES_INSTANCE, im->pid, im->pid,
					 im->procname};
	uint8_t *p;
	int err = 0;

	if (im->s.out < 0) {
		im->s.out = openat(im->tp->fd, SAMPLES_STREAM,
				   O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (im->s.out < 0) {
			fail(w, im, errno, NULL);
			return NULL;
		}
	}
	p = ht_sfile_event(&im->s, &who, id, payload, t, &err);
	if (!p)
		fail(w, im, -err, NULL);
	return p;
}

#define SAMPLE_WRITE(w, im, cls, ev, t)                                                            \
	do {                                                                                       \
		uint8_t *p_ = event((w), (im), ht_ev_##cls##_id, ht_ev_##cls##_size(ev), (t));     \
		if (p_)                                                                            \
			(im)->s.pos = (size_t)(ht_ev_##cls##_put(p_, (ev)) - (im)->s.pkt);         \
	} while (0)

struct node_ctx {
	struct writer *w;
	struct image *im;
	uint64_t t;
};

static void put_node(void *ctx, const struct ht_ev_stack_node *e)
{
	struct node_ctx *c = ctx;

	SAMPLE_WRITE(c->w, c->im, stack_node, e, c->t);
}

/* ---- unwinding a sample ---- */

struct sample_ctx {
	struct image *im;
	uint64_t t;
	const uint8_t *stack;
	uint64_t sp, len;
};

/*
 * The module holding pc at the sample's time. A module's load time is when
 * the process noticed it (at its next call stack, dlclose or exit), so an
 * address no module held by then is looked up again without that bound.
 */
static const struct ht_unwind_module *find_module(void *ctx, uint64_t pc)
{
	struct sample_ctx *c = ctx;

	for (size_t k = 0; k < 2 * c->im->nmods; k++) {
		struct imod *m = &c->im->mods[k % c->im->nmods];

		if (pc < m->u.start || pc >= m->u.end || (m->unloaded && c->t >= m->unloaded) ||
		    (k < c->im->nmods && m->loaded && c->t < m->loaded))
			continue;
		if (!m->opened) {
			m->opened = 1;
			if (ht_elf_cfi_open(m->path, m->build_id, &m->u.cfi, &m->map))
				memset(&m->u.cfi, 0, sizeof m->u.cfi); /* frame pointers only */
		}
		return &m->u;
	}
	return NULL;
}

static int read_stack(void *ctx, uint64_t addr, uint64_t *v)
{
	const struct sample_ctx *c = ctx;

	if (addr < c->sp || addr - c->sp > c->len || c->len - (addr - c->sp) < 8)
		return -EFAULT;
	memcpy(v, c->stack + (addr - c->sp), 8);
	return 0;
}

static const struct ht_unwind_ops sample_ops = {find_module, read_stack};

/*
 * The thread's running total of counter k, given v, the value of its event
 * on the CPU of ring `cpu`: an inherited per-CPU event counts a thread per
 * CPU, so its values go back when the thread moves; the total sums the
 * growth on every CPU, as a counter opened on the thread itself reads.
 */
static uint64_t thread_total(struct writer *w, int32_t tid, unsigned int cpu, unsigned int k,
			     uint64_t v)
{
	uint64_t key = (uint64_t)(uint32_t)tid << 32 | (uint64_t)k;
	uint64_t *last = ht_map_u64(&w->counts, key | (uint64_t)(cpu + 1) << 8, 0, NULL);
	uint64_t *total;

	if (!last)
		return v;
	if (v > *last) {
		uint64_t d = v - *last;

		*last = v;
		total = ht_map_u64(&w->counts, key, 0, NULL);
		if (!total)
			return v;
		*total += d;
		return *total;
	}
	total = ht_map_find_u64(&w->counts, key);
	return total ? *total : v;
}

static void write_sample(struct writer *w, struct image *im, const struct ht_spool_entry *e,
			 const uint8_t *body)
{
	struct sample_ctx c = {.im = im, .t = e->time};
	struct ht_unwind_regs rg;
	uint64_t pcs[HT_UNWIND_MAX], frames[HT_UNWIND_MAX];
	const struct ht_unwind_module *mods[HT_UNWIND_MAX];
	const uint64_t *values = (const uint64_t *)(const void *)body;
	struct node_ctx nc = {w, im, e->time};
	int n;

	if (!im->cache && !(im->cache = calloc(1, sizeof *im->cache))) {
		fail(w, im, ENOMEM, NULL);
		return;
	}
	c.stack = body + 8 * (size_t)e->ncounters;
	c.sp = e->regs[HT_DW_RSP];
	c.len = e->stack;
	memcpy(rg.r, e->regs, sizeof rg.r);
	rg.valid = e->valid;
	n = ht_unwind(&sample_ops, &c, im->cache, &rg, pcs, mods, HT_UNWIND_MAX);
	if (!n)
		return;
	for (int i = 0; i < n; i++)
		frames[i] = ht_unwind_frame(mods[i], pcs[i]);
	im->tree.put = put_node;
	im->tree.ctx = &nc;
	{
		const struct ht_ev_cpu_sample s = {.tid = e->tid,
						   .node = ht_cct_intern(&im->tree, frames, n)};

		if (!s.node) {
			fail(w, im, ENOMEM, NULL);
			return;
		}
		SAMPLE_WRITE(w, im, cpu_sample, &s, e->time);
	}
	for (unsigned int k = 0; k < e->ncounters; k++) {
		const struct ht_ev_sample_counter s = {
		    .tid = e->tid,
		    .index = (uint8_t)k,
		    .value = thread_total(w, e->tid, e->cpu, k, values[k])};

		SAMPLE_WRITE(w, im, sample_counter, &s, e->time);
	}
}

/* ---- the spool, placed and written ---- */

static int by_image_time(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	if (x->image != y->image)
		return x->image < y->image ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int read_entry(const struct ht_spool *sp, uint64_t off, uint8_t *buf)
{
	struct ht_spool_entry e;
	ssize_t n = pread(sp->fd, &e, sizeof e, (off_t)off);

	if (n != (ssize_t)sizeof e || e.size < sizeof e || e.size > ENTRY_MAX)
		return -EIO;
	memcpy(buf, &e, sizeof e);
	if (e.size > sizeof e && pread(sp->fd, buf + sizeof e, e.size - sizeof e,
				       (off_t)(off + sizeof e)) != (ssize_t)(e.size - sizeof e))
		return -EIO;
	return 0;
}

/* Every entry's place: samples in their image, losses in every image alive then. */
static int place(struct writer *w, struct placed **out, size_t *nout, struct ht_sampler_stats *st)
{
	struct placed *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t off = 0;

	while (off + sizeof(struct ht_spool_entry) <= w->sp->size) {
		struct ht_spool_entry e;

		if (pread(w->sp->fd, &e, sizeof e, (off_t)off) != (ssize_t)sizeof e ||
		    e.size < sizeof e)
			break;
		if (e.kind == HT_SPOOL_SAMPLE) {
			long i = find_image(w, e.pid, e.time);

			if (i < 0) {
				st->unplaced++;
			} else {
				if (ht_grow((void **)&v, &cap, sizeof *v, n + 1))
					goto nomem;
				v[n++] = (struct placed){e.time, off, (uint32_t)i, 0};
			}
		} else if (e.kind == HT_SPOOL_LOST) {
			for (size_t i = 0; i < w->n; i++) {
				if (e.time < w->im[i].lo || e.time >= w->im[i].hi)
					continue;
				if (ht_grow((void **)&v, &cap, sizeof *v, n + 1))
					goto nomem;
				v[n++] = (struct placed){e.time, off, (uint32_t)i, 1};
			}
		}
		off += e.size;
	}
	qsort(v, n, sizeof *v, by_image_time);
	*out = v;
	*nout = n;
	return 0;
nomem:
	free(v);
	return -ENOMEM;
}

static void release(struct writer *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct image *im = &w->im[i];

		for (size_t k = 0; k < im->nmods; k++) {
			ht_elf_close(&im->mods[k].map);
			free(im->mods[k].path);
		}
		free(im->mods);
		ht_sfile_finish(&im->s);
		free(im->cache);
		ht_cct_release(&im->tree);
	}
	free(w->im);
	ht_map_release(&w->counts);
	if (w->t)
		ht_trace_close(w->t);
}

int ht_samples_write(const struct ht_spool *sp, const char *path, struct ht_sampler_stats *st,
		     char *msg, size_t cap)
{
	struct writer w = {.sp = sp, .msg = msg, .cap_msg = cap};
	struct ht_read_error err = {0};
	struct placed *pl = NULL;
	size_t npl = 0;
	uint8_t *buf = malloc(ENTRY_MAX);
	int r = buf ? ht_trace_open(&w.t, path, &err) : -ENOMEM;

	if (r == -ENOENT)
		r = 0; /* no process was traced: every sample is unplaced */
	if (r) {
		snprintf(msg, cap, "cannot read the trace for its CPU samples: %s",
			 err.msg[0] ? err.msg : strerror(-r));
		goto out;
	}
	for (unsigned int i = 0; w.t && i < w.t->nprocs; i++) {
		struct image im = {.tp = &w.t->procs[i], .s.out = -1};

		im.pid = atoi(im.tp->name);
		im.tree.first = HT_CCT_SAMPLES_BASE;
		if (read_image(&im, &err) ||
		    ht_grow((void **)&w.im, &w.cap, sizeof *w.im, w.n + 1)) {
			for (size_t k = 0; k < im.nmods; k++)
				free(im.mods[k].path);
			free(im.mods);
			continue; /* a process stream we cannot read takes no samples */
		}
		w.im[w.n++] = im;
	}
	spans(&w);
	r = place(&w, &pl, &npl, st);
	if (r) {
		snprintf(msg, cap, "cannot place CPU samples: %s", strerror(-r));
		goto out;
	}
	for (size_t i = 0; i < npl && !w.err; i++) {
		struct image *im = &w.im[pl[i].image];
		const struct ht_spool_entry *e = (const void *)buf;

		if (i == 0 || pl[i - 1].image != pl[i].image) {
			for (int k = 0; k < sp->ncounters; k++) {
				const struct ht_ev_counter_name cn = {.index = (uint8_t)k,
								      .name = sp->counters[k]};

				SAMPLE_WRITE(&w, im, counter_name, &cn, pl[i].time);
			}
		}
		if (read_entry(sp, pl[i].off, buf)) {
			fail(&w, im, EIO, "the sample spool is unreadable");
			break;
		}
		if (pl[i].lost) {
			const struct ht_ev_lost l = {.kind = HT_LOST_CPU_SAMPLE, .count = e->lost};

			SAMPLE_WRITE(&w, im, lost, &l, e->time);
		} else {
			write_sample(&w, im, e, buf + sizeof *e);
			st->samples++;
		}
	}
	for (size_t i = 0; i < w.n && !w.err; i++)
		if (w.im[i].s.out >= 0 && (r = ht_sfile_packet_close(&w.im[i].s)))
			fail(&w, &w.im[i], -r, NULL);
	r = -w.err;
out:
	free(pl);
	free(buf);
	release(&w);
	return r;
}
