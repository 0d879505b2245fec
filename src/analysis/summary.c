/*
 * Trace summary (see summary.h): one pass of the timeline, then each
 * stream's statistics (events per class, discards, torn tails, RAW packets).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/summary.h"
#include "analysis/timeline.h"

static struct ht_thread_summary *thread_slot(struct ht_proc_summary *s, int32_t tid)
{
	void *n;

	for (unsigned int i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	n = realloc(s->threads, (s->nthreads + 1) * sizeof *s->threads);
	if (!n)
		return NULL;
	s->threads = n;
	memset(&s->threads[s->nthreads], 0, sizeof *s->threads);
	s->threads[s->nthreads].tid = tid;
	return &s->threads[s->nthreads++];
}

static struct ht_device_summary *device_slot(struct ht_proc_summary *s, uint32_t dev)
{
	void *n;

	for (unsigned int i = 0; i < s->ndevices; i++)
		if (s->devices[i].device == dev)
			return &s->devices[i];
	n = realloc(s->devices, (s->ndevices + 1) * sizeof *s->devices);
	if (!n)
		return NULL;
	s->devices = n;
	memset(&s->devices[s->ndevices], 0, sizeof *s->devices);
	s->devices[s->ndevices].device = dev;
	return &s->devices[s->ndevices++];
}

static void span(struct ht_proc_summary *s, uint64_t ts)
{
	if (!ts)
		return;
	if (!s->first_ns || ts < s->first_ns)
		s->first_ns = ts;
	if (ts > s->last_ns)
		s->last_ns = ts;
}

static int take(struct ht_proc_summary *s, const struct ht_tl_record *x)
{
	struct ht_device_summary *d;
	struct ht_thread_summary *th;

	switch (x->kind) {
	case HT_TL_DEVICE:
		span(s, x->collected);
		if (!(d = device_slot(s, x->device)))
			return -ENOMEM;
		d->commands++;
		return 0;
	case HT_TL_CPU_STATE:
	case HT_TL_QUEUE:
	case HT_TL_STREAM_END:
		return 0;
	case HT_TL_THREAD:
		span(s, x->ts);
		if (x->name[0] && (th = thread_slot(s, x->tid)))
			snprintf(th->name, sizeof th->name, "%s", x->name);
		return 0;
	case HT_TL_LOST:
		span(s, x->ts);
		if (x->cmd_kind < HT_LOST_KIND_COUNT && x->cmd_kind < 8)
			s->lost[x->cmd_kind] += x->count;
		return 0;
	case HT_TL_ANCHOR:
		span(s, x->ts);
		s->have_exit |= x->value == HT_ANCHOR_EXIT;
		s->have_exec |= x->value == HT_ANCHOR_EXEC;
		return 0;
	case HT_TL_MEM_END:
		span(s, x->ts);
		s->mem_accesses += x->mem.records;
		s->mem_launches++;
		return 0;
	case HT_TL_OS_STATUS:
		span(s, x->ts);
		/* a problem (off, partial) outranks the plain "recorded" note */
		if (!s->os_note[0] || (s->os_note_kind == HT_OS_ON && x->value != HT_OS_ON)) {
			s->os_note_kind = (int)x->value;
			snprintf(s->os_note, sizeof s->os_note, "%s", x->text);
		}
		return 0;
	default:
		span(s, x->ts);
		return 0;
	}
}

/* Adds what the timeline counted per stream. */
static void streams(struct ht_timeline *tl, struct ht_proc_summary *out)
{
	for (unsigned int i = 0; i < ht_timeline_nstreams(tl); i++) {
		struct ht_tl_stream_stats st;
		struct ht_proc_summary *s;
		int device;

		ht_timeline_stream_stats(tl, i, &st);
		s = &out[st.proc];
		device = st.kind == HT_PK_DEVICE;
		if (st.kind == HT_PK_OS)
			s->os_streams++;
		else
			s->streams[device ? HT_SC_DEVICE : HT_SC_THREAD]++;
		s->bytes += st.bytes;
		s->events += st.events;
		s->discarded += st.discarded;
		s->raw_packets += st.raw_packets;
		s->torn_streams += st.torn;
		s->torn_bytes += st.torn ? st.torn_bytes : 0;
		for (unsigned int id = 0; id < 32; id++) {
			if (device && id < HT_EV_DEVICE_COUNT)
				s->events_device[id] += st.by_class[id];
			else if (!device && id < HT_EV_THREAD_COUNT)
				s->events_thread[id] += st.by_class[id];
		}
		s->strings += device ? 0 : st.by_class[HT_EV_STRING_DEF];
		if (st.kind == HT_PK_THREAD) {
			struct ht_thread_summary *th = thread_slot(s, st.vtid);

			if (th) {
				th->events += st.events;
				th->discarded = st.discarded;
			}
		}
	}
}

int ht_summary_compute(struct ht_trace *t, struct ht_proc_summary *out, struct ht_read_error *err)
{
	/* the accesses are counted from their launches' ends, not expanded */
	struct ht_tl_opts o = {
	    .no_args = 1, .allow_raw = 1, .meta = 1, .skip = 1u << HT_TL_MEM_ACCESS};
	struct ht_timeline tl;
	const struct ht_tl_record *x;
	int rc;

	memset(out, 0, t->nprocs * sizeof *out);
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		return rc;
	}
	for (unsigned int i = 0; i < t->nprocs; i++) {
		const struct ht_proc_info *pi = ht_timeline_proc(&tl, i);

		out[i].pid = pi->pid;
		out[i].ppid = pi->ppid;
		snprintf(out[i].comm, sizeof out[i].comm, "%s", pi->comm);
		snprintf(out[i].cmdline, sizeof out[i].cmdline, "%s",
			 pi->cmdline ? pi->cmdline : "");
	}
	while ((rc = ht_timeline_next(&tl, &x)) > 0)
		if ((rc = take(&out[x->proc], x)) < 0)
			break;
	if (rc < 0)
		*err = tl.err.msg[0] ? tl.err : (struct ht_read_error){.msg = "out of memory"};
	streams(&tl, out);
	for (unsigned int i = 0; i < ht_timeline_ndevices(&tl); i++) {
		const struct ht_clock_map *m;
		int32_t pid;
		uint32_t dev;

		ht_timeline_device(&tl, i, &pid, &dev, &m);
		for (unsigned int k = 0; k < t->nprocs; k++) {
			struct ht_device_summary *d;

			if (out[k].pid != pid || !(d = device_slot(&out[k], dev)))
				continue;
			d->map = *m;
		}
	}
	for (unsigned int k = 0; k < t->nprocs; k++)
		for (unsigned int i = 0; i < out[k].ndevices; i++) {
			const char *n =
			    ht_proc_device_name(ht_timeline_proc(&tl, k), out[k].devices[i].device);

			if (n)
				snprintf(out[k].devices[i].name, sizeof out[k].devices[i].name,
					 "%s", n);
		}
	ht_timeline_close(&tl);
	return rc < 0 ? rc : 0;
}

void ht_summary_release(struct ht_proc_summary *s)
{
	free(s->threads);
	free(s->devices);
	memset(s, 0, sizeof *s);
}
