/*
 * Finalizing a process trace after recording: salvages packets that were
 * still in progress when their process died (the ".<stream>.cur" files),
 * trims torn packets at stream ends (a crash in the middle of an append) and
 * converts RAW packets, whose event timestamps (and the host_before times of
 * their device commands) are cycle-counter values, to CLOCK_MONOTONIC ns in
 * place.
 *
 * The conversion is exact at every packet boundary: each packet carries the
 * (counter, ns) anchor pair taken when it was opened and, once closed, the
 * pair taken when it was closed (the next packet's opening pair). Events in
 * between are interpolated linearly. A packet that was never closed (the
 * process crashed, or the thread was still running at exit) ends at the
 * process's exit anchor when there is one, else it uses the counter rate
 * fitted over all anchors of the process. Converted timestamps are clamped
 * into their packet so every stream stays monotonic.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <stdlib.h>
#include <sys/stat.h>

#include "analysis/finalize.h"
#include "format/io.h"
#include "format/ring.h"

struct fit {
	uint64_t lo_raw, lo_ns, hi_raw, hi_ns;
	int n;
	uint64_t exit_raw, exit_ns;
	int have_exit;
};

static void fit_add(struct fit *f, uint64_t raw, uint64_t ns)
{
	if (!raw || !ns)
		return;
	if (!f->n || raw < f->lo_raw)
		f->lo_raw = raw, f->lo_ns = ns;
	if (!f->n || raw > f->hi_raw)
		f->hi_raw = raw, f->hi_ns = ns;
	f->n++;
}

/* Return: ns per counter tick over the widest anchor baseline, or `nominal`. */
static double fit_slope(const struct fit *f, double nominal)
{
	if (f->n >= 2 && f->hi_raw > f->lo_raw && f->hi_ns > f->lo_ns &&
	    f->hi_raw - f->lo_raw > 1000000)
		return (double)(f->hi_ns - f->lo_ns) / (double)(f->hi_raw - f->lo_raw);
	return nominal;
}

/* Pass 1: gather anchors of all RAW packets and the exit anchor. */
static int gather(const struct ht_trace_process *p, struct fit *f, int *any_raw, int *any_torn,
		  struct ht_read_error *err)
{
	for (unsigned int i = 0; i < p->nstreams; i++) {
		struct ht_stream_reader r;
		int is_proc = !strcmp(p->streams[i].name, "process");
		int rc = ht_stream_reader_open(&r, p, p->streams[i].name, err);

		if (rc)
			return rc;
		while ((rc = ht_stream_reader_next_packet(&r, err)) > 0) {
			struct ht_event ev;

			if (r.pk.ts_state != HT_TS_RAW)
				continue;
			*any_raw = 1;
			fit_add(f, r.pk.tsc_begin, r.pk.ts_begin);
			if (r.pk.tsc_end)
				fit_add(f, r.pk.tsc_end, r.pk.ts_end);
			if (!is_proc)
				continue;
			while ((rc = ht_event_iter_next(&r.it, &ev, err)) > 0) {
				if (ev.id != HT_EV_CLOCK_ANCHOR)
					continue;
				uint64_t raw = ht_le64(ev.payload + 1),
					 ns = ht_le64(ev.payload + 9);

				fit_add(f, raw, ns);
				if (ev.payload[0] == HT_ANCHOR_EXIT || ev.payload[0] == HT_ANCHOR_EXEC) {
					f->exit_raw = raw;
					f->exit_ns = ns;
					f->have_exit = 1;
				}
			}
			if (rc < 0) {
				snprintf(err->file, sizeof err->file, "%s", r.path);
				break;
			}
		}
		*any_torn |= r.torn;
		ht_stream_reader_close(&r);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * A RAW device command's host_before (format.h, HT_DC_HOST_BEFORE):
 * converted with the packet's slope like the timestamps, but neither
 * clamped into the packet (the enqueue it stands for may precede the
 * packet) nor rounded to nearest: down, so it stays a lower bound.
 */
static void convert_host_before(uint8_t *p, uint64_t a_raw, uint64_t a_ns, double s)
{
	uint64_t raw = ht_le64(p);

	if (raw)
		ht_put64(p, a_ns + (uint64_t)(int64_t)floor((double)(int64_t)(raw - a_raw) * s));
}

static int convert_packet(struct ht_stream_reader *r, const struct fit *f, double slope,
			  struct ht_read_error *err)
{
	struct ht_packet *pk = &r->pk;
	uint64_t a_raw = pk->tsc_begin, a_ns = pk->ts_begin, prev_ns = pk->ts_begin;
	uint64_t hi_ns = UINT64_MAX;
	double s = slope;
	struct ht_event ev;
	int rc;

	if (pk->tsc_end && pk->tsc_end > a_raw && pk->ts_end >= a_ns) {
		s = (double)(pk->ts_end - a_ns) / (double)(pk->tsc_end - a_raw);
		hi_ns = pk->ts_end;
	} else if (f->have_exit && f->exit_raw > a_raw && f->exit_ns >= a_ns) {
		s = (double)(f->exit_ns - a_ns) / (double)(f->exit_raw - a_raw);
	}
	while ((rc = ht_event_iter_next(&r->it, &ev, err)) > 0) {
		uint8_t *h = (uint8_t *)ev.header;
		double d = ev.ts >= a_raw ? (double)(ev.ts - a_raw) * s : 0;
		uint64_t ns = a_ns + (uint64_t)(d + 0.5);

		if (ns < prev_ns)
			ns = prev_ns;
		if (ns > hi_ns)
			ns = hi_ns;
		if (ev.sc == HT_SC_DEVICE && ev.id == HT_EV_DEVICE_COMMAND && ev.size >= HT_DC_SIZE)
			convert_host_before((uint8_t *)ev.payload + HT_DC_HOST_BEFORE, a_raw, a_ns,
					    s);
		if (ev.header_size == HT_EH_COMPACT_SIZE) {
			if (ns - prev_ns >= ((uint64_t)1 << HT_EH_COMPACT_BITS))
				break; /* cannot happen with the writer's compact limit */
			ht_put32(h, ev.id | (uint32_t)(ns << 5));
		} else {
			ht_put64(h + 5, ns);
		}
		prev_ns = ns;
	}
	if (rc < 0)
		return rc;
	if (rc > 0) {
		snprintf(err->file, sizeof err->file, "%s", r->path);
		err->offset = pk->offset;
		snprintf(err->msg, sizeof err->msg,
			 "event timestamps too far apart to convert; the packet stays raw");
		return -ERANGE;
	}
	r->buf[HT_PC_TS_STATE] = HT_TS_NS;
	if (!pk->tsc_end || pk->ts_end < prev_ns)
		ht_put64(r->buf + HT_PC_TS_END, prev_ns);
	return 0;
}

/* Trims a torn tail of a stream to its last whole packet. */
static int trim_stream(const struct ht_trace_process *p, const char *name,
		       struct ht_finalize_stats *st, struct ht_read_error *err)
{
	struct ht_stream_reader r;
	int rc = ht_stream_reader_open(&r, p, name, err);

	if (rc)
		return rc;
	while ((rc = ht_stream_reader_next_packet(&r, err)) > 0)
		;
	if (rc == 0 && r.torn) {
		int wfd = openat(p->fd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

		if (wfd < 0 || ftruncate(wfd, (off_t)r.torn_offset)) {
			rc = -errno;
			snprintf(err->file, sizeof err->file, "%s", r.path);
			snprintf(err->msg, sizeof err->msg, "cannot trim: %s", strerror(-rc));
		} else {
			st->streams_trimmed++;
			st->bytes_trimmed += r.torn_bytes;
		}
		if (wfd >= 0)
			close(wfd);
	}
	ht_stream_reader_close(&r);
	return rc;
}

/* Pass 2 for one stream: convert RAW packets. */
static int finalize_stream(const struct ht_trace_process *p, const char *name, const struct fit *f,
			   double slope, struct ht_finalize_stats *st, struct ht_read_error *err)
{
	struct ht_stream_reader r;
	int wfd, rc = ht_stream_reader_open(&r, p, name, err);

	if (rc)
		return rc;
	wfd = openat(p->fd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (wfd < 0) {
		rc = -errno;
		snprintf(err->file, sizeof err->file, "%s", r.path);
		snprintf(err->msg, sizeof err->msg, "cannot open for writing: %s", strerror(-rc));
		goto out;
	}
	while ((rc = ht_stream_reader_next_packet(&r, err)) > 0) {
		if (r.pk.ts_state != HT_TS_RAW)
			continue;
		rc = convert_packet(&r, f, slope, err);
		if (rc == -ERANGE) {
			st->packets_left_raw++;
			continue;
		}
		if (rc)
			goto out;
		rc = ht_pwrite_all(wfd, r.buf, (size_t)r.pk.content, r.pk.offset);
		if (rc) {
			snprintf(err->file, sizeof err->file, "%s", r.path);
			snprintf(err->msg, sizeof err->msg, "cannot write: %s", strerror(-rc));
			goto out;
		}
		st->packets_converted++;
	}
out:
	if (wfd >= 0)
		close(wfd);
	ht_stream_reader_close(&r);
	return rc;
}

/*
 * Appends the packet left in `cur` (".<stream>.cur") to its stream unless it
 * is already there, then removes the file. Return: 0, or < 0 with err filled.
 */
static int salvage_one(const struct ht_trace_process *p, const char *cur, int died,
		       struct ht_finalize_stats *st, struct ht_read_error *err)
{
	char stream[256];
	size_t n = strlen(cur);
	struct ht_stream_reader r;
	struct ht_packet pk;
	uint8_t *buf = NULL;
	struct stat sb;
	int fd = -1, wfd = -1, rc = 0;

	snprintf(stream, sizeof stream, "%.*s", (int)(n - strlen(HT_CUR_SUFFIX) - 1), cur + 1);
	fd = openat(p->fd, cur, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) || sb.st_size > (1 << 28))
		goto drop;
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf || read(fd, buf, (size_t)sb.st_size) != sb.st_size)
		goto drop;
	if (ht_packet_decode(&pk, buf, (size_t)sb.st_size, 0, NULL) || pk.content <= pk.ctx_end ||
	    memcmp(pk.uuid, p->uuid, 16))
		goto drop; /* empty, never written, or not ours */
	/* Count the packets already in the stream: the current one comes next. */
	rc = ht_stream_reader_open(&r, p, stream, err);
	if (rc)
		goto out;
	while ((rc = ht_stream_reader_next_packet(&r, err)) > 0)
		;
	if (rc == 0 && !r.torn && r.packets == pk.seq) {
		wfd = openat(p->fd, stream, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		ht_put64(buf + HT_PC_PACKET, pk.content * 8);
		if (wfd < 0 || ht_pwrite_all(wfd, buf, (size_t)pk.content, r.file_size)) {
			rc = -EIO;
			snprintf(err->file, sizeof err->file, "%s/%s", p->name, stream);
			snprintf(err->msg, sizeof err->msg, "cannot append the salvaged packet");
		} else if (died) {
			st->packets_salvaged++;
		} else {
			st->packets_completed++;
		}
	}
	ht_stream_reader_close(&r);
	if (rc < 0)
		goto out;
drop:
	rc = 0;
	unlinkat(p->fd, cur, 0);
out:
	if (wfd >= 0)
		close(wfd);
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/*
 * Drains a ring file left by a recording whose consumer (`hetrace record`)
 * was killed: its published packets and the one in progress go to the
 * stream file, then the ring is removed. Return: 0, or < 0 with err filled.
 */
static int salvage_ring(const struct ht_trace_process *p, const char *name, int died,
			struct ht_finalize_stats *st, struct ht_read_error *err)
{
	struct ht_ring_file rf;
	struct ht_ring_drain_stats ds = {0};
	int rc = ht_ring_file_open(p->fd, name, &rf);

	if (rc == -EAGAIN || rc == -EBADMSG || rc == -ENOENT) {
		unlinkat(p->fd, name, 0); /* never set up, or not ours: nothing in it */
		return 0;
	}
	if (rc) {
		snprintf(err->file, sizeof err->file, "%s/%s", p->name, name);
		snprintf(err->msg, sizeof err->msg, "cannot open the ring: %s", strerror(-rc));
		return rc;
	}
	ht_ring_drain(rf.h, rf.fd, UINT64_MAX, 1, UINT64_MAX, &ds);
	ht_ring_file_close(&rf, p->fd, name, ds.error == 0);
	if (ds.error) {
		snprintf(err->file, sizeof err->file, "%s/%s", p->name, name);
		snprintf(err->msg, sizeof err->msg, "cannot append the ring's packets: %s",
			 strerror(ds.error));
		return -ds.error;
	}
	if (died)
		st->packets_salvaged += (unsigned int)ds.salvaged;
	else
		st->packets_completed += (unsigned int)ds.salvaged;
	return 0;
}

/* Return: nonzero when name ends in suffix (and has a stream name before it). */
static int has_suffix(const char *name, const char *suffix)
{
	size_t len = strlen(name), sl = strlen(suffix);

	return name[0] == '.' && len > sl + 1 && !strcmp(name + len - sl, suffix);
}

static int salvage(const struct ht_trace_process *p, struct ht_finalize_stats *st,
		   struct ht_read_error *err)
{
	int fd = dup(p->fd), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char names[64][256];
	unsigned int n = 0;
	/* A process that ran its exit path closed its process stream: what is
	 * left open then belongs to threads still running at exit and to shared
	 * streams, not to a crash. */
	int died = faccessat(p->fd, ".process" HT_CUR_SUFFIX, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
		   faccessat(p->fd, ".process" HT_RING_SUFFIX, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	for (;;) {
		/* Collect a batch first: unlinking while reading a directory skips entries. */
		while (n < 64 && (de = readdir(d))) {
			if (has_suffix(de->d_name, HT_CUR_SUFFIX) ||
			    has_suffix(de->d_name, HT_RING_SUFFIX))
				snprintf(names[n++], sizeof names[0], "%s", de->d_name);
		}
		if (!n)
			break;
		for (unsigned int i = 0; i < n && !rc; i++)
			rc = has_suffix(names[i], HT_RING_SUFFIX)
				 ? salvage_ring(p, names[i], died, st, err)
				 : salvage_one(p, names[i], died, st, err);
		if (rc || n < 64)
			break;
		n = 0;
		rewinddir(d);
	}
	closedir(d);
	return rc;
}

int ht_finalize_process(const struct ht_trace_process *p, double nominal_ns_per_tick,
			struct ht_finalize_stats *st, struct ht_read_error *err)
{
	struct fit f = {0};
	int any_raw = 0, any_torn = 0, rc;
	double slope;

	/* Torn tails first (a crash during an append), then what was in flight. */
	for (unsigned int i = 0; i < p->nstreams; i++) {
		rc = trim_stream(p, p->streams[i].name, st, err);
		if (rc)
			return rc;
	}
	rc = salvage(p, st, err);
	if (rc)
		return rc;
	rc = gather(p, &f, &any_raw, &any_torn, err);
	if (rc)
		return rc;
	if (!any_raw)
		return 0;
	slope = fit_slope(&f, nominal_ns_per_tick > 0 ? nominal_ns_per_tick : 1.0);
	for (unsigned int i = 0; i < p->nstreams; i++) {
		rc = finalize_stream(p, p->streams[i].name, &f, slope, st, err);
		if (rc)
			return rc;
	}
	st->processes++;
	return 0;
}

int ht_finalize_trace(const struct ht_trace *t, double nominal_ns_per_tick,
		      struct ht_finalize_stats *st, struct ht_read_error *err)
{
	memset(st, 0, sizeof *st);
	for (unsigned int i = 0; i < t->nprocs; i++) {
		int rc = ht_finalize_process(&t->procs[i], nominal_ns_per_tick, st, err);

		if (rc)
			return rc;
	}
	return 0;
}
