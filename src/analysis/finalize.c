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
#include "common/io.h"
#include "ring/salvage.h"

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
				if (ev.payload[0] == HT_ANCHOR_EXIT ||
				    ev.payload[0] == HT_ANCHOR_EXEC) {
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
 * A RAW device command's host_before (format.h, HT_OFF_DEVICE_COMMAND_HOST_BEFORE):
 * converted with the packet's slope like the timestamps, but neither
 * clamped into the packet (the enqueue it stands for may precede the
 * packet) nor rounded to nearest: down, so it stays a lower bound.
 */
static void convert_host_before(uint8_t *p, uint64_t a_raw, uint64_t a_ns, double s)
{
	uint64_t raw = ht_le64(p);
	double d;

	if (!raw)
		return;
	d = floor((double)(int64_t)(raw - a_raw) * s);
	/* a hostile or corrupt anchor pair can make it any double: unknown then, not garbage */
	if (!(d > -9.0e18 && d < 9.0e18) || (d < 0 && (uint64_t) - (int64_t)d > a_ns))
		ht_put64(p, 0);
	else
		ht_put64(p, a_ns + (uint64_t)(int64_t)d);
}

/*
 * ns = a_ns + d, rounded. Return: 0, or -1 when it does not fit in 64 bits
 * (d negative, NaN or too large: anchors that are corrupt or hostile).
 */
static int add_ns(uint64_t a_ns, double d, uint64_t *ns)
{
	if (!(d >= 0 && d < 1.8e19 - (double)a_ns))
		return -1;
	*ns = a_ns + (uint64_t)(d + 0.5);
	return *ns < a_ns ? -1 : 0;
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
		uint64_t ns;

		if (add_ns(a_ns, d, &ns)) {
			snprintf(err->file, sizeof err->file, "%s", r->path);
			err->offset = pk->offset;
			snprintf(err->msg, sizeof err->msg,
				 "its clock anchors put an event's time past 2^64 ns (slope %g ns "
				 "per tick); the packet stays raw",
				 s);
			return -ERANGE;
		}

		if (ns < prev_ns)
			ns = prev_ns;
		if (ns > hi_ns)
			ns = hi_ns;
		if (ev.sc == HT_SC_DEVICE && ev.id == HT_EV_DEVICE_COMMAND &&
		    ev.size >= HT_EV_DEVICE_COMMAND_SIZE)
			convert_host_before((uint8_t *)ev.payload +
						HT_OFF_DEVICE_COMMAND_HOST_BEFORE,
					    a_raw, a_ns, s);
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
			if (!st->packets_left_raw++)
				st->left_raw = *err; /* the first, to name it */
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

int ht_finalize_process(const struct ht_trace_process *p, double nominal_ns_per_tick,
			struct ht_finalize_stats *st, struct ht_read_error *err)
{
	struct fit f = {0};
	struct ht_salvage_stats sv = {0};
	int any_raw = 0, any_torn = 0, rc;
	double slope;

	/* Torn tails first (a crash during an append), then what was in flight. */
	for (unsigned int i = 0; i < p->nstreams; i++) {
		rc = trim_stream(p, p->streams[i].name, st, err);
		if (rc)
			return rc;
	}
	rc = ht_salvage_process(p->fd, p->name, p->uuid, &sv, err);
	if (rc)
		return rc;
	st->packets_salvaged += sv.salvaged;
	st->packets_completed += sv.completed;
	st->events_lost += sv.lost;
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
