/*
 * Trace summary (see summary.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/summary.h"

static struct ht_thread_summary *thread_slot(struct ht_proc_summary *s, int32_t tid)
{
	for (unsigned int i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid == tid)
			return &s->threads[i];
	void *n = realloc(s->threads, (s->nthreads + 1) * sizeof *s->threads);

	if (!n)
		return NULL;
	s->threads = n;
	memset(&s->threads[s->nthreads], 0, sizeof *s->threads);
	s->threads[s->nthreads].tid = tid;
	return &s->threads[s->nthreads++];
}

static struct ht_device_summary *device_slot(struct ht_proc_summary *s, uint32_t dev)
{
	for (unsigned int i = 0; i < s->ndevices; i++)
		if (s->devices[i].device == dev)
			return &s->devices[i];
	void *n = realloc(s->devices, (s->ndevices + 1) * sizeof *s->devices);

	if (!n)
		return NULL;
	s->devices = n;
	memset(&s->devices[s->ndevices], 0, sizeof *s->devices);
	s->devices[s->ndevices].device = dev;
	return &s->devices[s->ndevices++];
}

static void copy_str(char *dst, size_t cap, const uint8_t *p)
{
	snprintf(dst, cap, "%s", (const char *)p);
}

static void take_event(struct ht_proc_summary *s, struct ht_thread_summary *th,
		       const struct ht_event *ev)
{
	const uint8_t *p = ev->payload;

	s->events++;
	if (th)
		th->events++;
	if (!s->first_ns || ev->ts < s->first_ns)
		s->first_ns = ev->ts;
	if (ev->ts > s->last_ns)
		s->last_ns = ev->ts;
	if (ev->sc == HT_SC_DEVICE) {
		struct ht_device_summary *d;

		struct ht_sync_sample smp[2];
		unsigned int n = ht_sync_samples(ev, smp);

		s->events_device[ev->id]++;
		for (unsigned int i = 0; i < n; i++)
			if ((d = device_slot(s, smp[i].device)))
				ht_clock_sync_add(&d->cs, smp[i].kind, smp[i].device_ts,
						  smp[i].host_ns);
		if (ev->id == HT_EV_DEVICE_COMMAND && (d = device_slot(s, ht_le32(p + 16))))
			d->commands++;
		return;
	}
	s->events_thread[ev->id]++;
	switch (ev->id) {
	case HT_EV_PROCESS_INFO:
		s->pid = (int32_t)ht_le32(p);
		s->ppid = (int32_t)ht_le32(p + 4);
		copy_str(s->comm, sizeof s->comm, p + 8);
		copy_str(s->cmdline, sizeof s->cmdline, p + 8 + strlen((const char *)p + 8) + 1);
		break;
	case HT_EV_THREAD_INFO:
		if (th && (int32_t)ht_le32(p) == th->tid)
			copy_str(th->name, sizeof th->name, p + 4);
		break;
	case HT_EV_LOST:
		if (p[0] < 8)
			s->lost[p[0]] += ht_le64(p + 1);
		break;
	case HT_EV_STRING_DEF:
		s->strings++;
		break;
	case HT_EV_CLOCK_ANCHOR:
		s->have_exit |= p[0] == HT_ANCHOR_EXIT;
		s->have_exec |= p[0] == HT_ANCHOR_EXEC;
		break;
	case HT_EV_OS_STATUS:
		/* a problem (off, partial) outranks the plain "recorded" note */
		if (!s->os_note[0] || (s->os_note_kind == HT_OS_ON && p[0] != HT_OS_ON)) {
			s->os_note_kind = p[0];
			copy_str(s->os_note, sizeof s->os_note, p + 9);
		}
		break;
	case HT_EV_DEVICE_INFO: {
		struct ht_device_summary *d = device_slot(s, ht_le32(p));

		if (d)
			copy_str(d->name, sizeof d->name, p + 5);
		break;
	}
	}
}

int ht_summary_process(const struct ht_trace_process *p, struct ht_proc_summary *s,
		       struct ht_read_error *err)
{
	memset(s, 0, sizeof *s);
	for (unsigned int i = 0; i < p->nstreams; i++) {
		struct ht_stream_reader r;
		struct ht_thread_summary *th = NULL;
		int is_thread = !strncmp(p->streams[i].name, "thread-", 7);
		struct ht_event ev;
		int rc = ht_stream_reader_open(&r, p, p->streams[i].name, err);

		if (rc)
			return rc;
		s->bytes += r.file_size;
		while ((rc = ht_stream_reader_next_packet(&r, err)) > 0) {
			if (r.packets == 1) {
				if (!strncmp(p->streams[i].name, "os-", 3))
					s->os_streams++;
				else
					s->streams[r.pk.sc]++;
				if (is_thread && !(th = thread_slot(s, r.pk.vtid))) {
					rc = -ENOMEM;
					break;
				}
			}
			if (r.pk.ts_state == HT_TS_RAW) {
				s->raw_packets++;
				continue; /* timestamps are not ns yet */
			}
			while ((rc = ht_event_iter_next(&r.it, &ev, err)) > 0)
				take_event(s, th, &ev);
			if (rc < 0) {
				snprintf(err->file, sizeof err->file, "%s", r.path);
				break;
			}
		}
		/* events_discarded is a running total: the last packet has it all. */
		s->discarded += r.prev_discarded;
		if (th)
			th->discarded = r.prev_discarded;
		s->torn_streams += r.torn;
		ht_stream_reader_close(&r);
		if (rc < 0)
			return rc;
	}
	for (unsigned int i = 0; i < s->ndevices; i++)
		if (ht_clock_sync_solve(&s->devices[i].cs, &s->devices[i].map))
			return -ENOMEM;
	return 0;
}

void ht_summary_release(struct ht_proc_summary *s)
{
	free(s->threads);
	s->threads = NULL;
	for (unsigned int i = 0; i < s->ndevices; i++)
		ht_clock_sync_release(&s->devices[i].cs);
	free(s->devices);
	s->devices = NULL;
	s->ndevices = 0;
}
