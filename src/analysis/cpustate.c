/*
 * CPU states per thread (see cpustate.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpustate.h"

static struct ht_cpu_thread *find_or_add(struct ht_cpu_states *cs, unsigned int proc, int32_t tid)
{
	struct ht_cpu_thread *th = ht_cpu_states_find(cs, proc, tid), *n;

	if (th)
		return th;
	n = realloc(cs->threads, (cs->n + 1) * sizeof *n);
	if (!n)
		return NULL;
	cs->threads = n;
	th = &cs->threads[cs->n++];
	memset(th, 0, sizeof *th);
	th->proc = proc;
	th->tid = tid;
	return th;
}

struct ht_cpu_thread *ht_cpu_states_find(struct ht_cpu_states *cs, unsigned int proc, int32_t tid)
{
	for (unsigned int i = 0; i < cs->n; i++)
		if (cs->threads[i].tid == tid && cs->threads[i].proc == proc)
			return &cs->threads[i];
	return NULL;
}

static int take_interval(struct ht_cpu_states *cs, unsigned int proc, const uint8_t *p, int keep)
{
	int32_t tid = (int32_t)ht_le32(p);
	uint8_t state = p[4];
	uint64_t b = ht_le64(p + 5), e = ht_le64(p + 13);
	struct ht_cpu_thread *th;

	if (state >= HT_CPU_STATE_COUNT || e < b)
		return 0; /* not ours to judge: skip a malformed record */
	th = find_or_add(cs, proc, tid);
	if (!th)
		return -ENOMEM;
	th->time[state] += e - b;
	th->intervals++;
	if (!th->first || b < th->first)
		th->first = b;
	if (e > th->last)
		th->last = e;
	if (!keep || state == HT_CPU_RUNNING || e == b)
		return 0;
	if (th->niv == th->cap) {
		size_t cap = th->cap ? th->cap * 2 : 256;
		struct ht_cpu_iv *n = realloc(th->iv, cap * sizeof *n);

		if (!n)
			return -ENOMEM;
		th->iv = n;
		th->cap = cap;
	}
	th->iv[th->niv].begin = b;
	th->iv[th->niv].end = e;
	th->iv[th->niv++].state = state;
	return 0;
}

static int by_begin(const void *a, const void *b)
{
	const struct ht_cpu_iv *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

int ht_cpu_states_load(struct ht_cpu_states *cs, struct ht_trace *t, const int *keep_iv,
		       struct ht_read_error *err)
{
	memset(cs, 0, sizeof *cs);
	for (unsigned int i = 0; i < t->nprocs; i++) {
		const struct ht_trace_process *tp = &t->procs[i];
		int keep = !keep_iv || keep_iv[i];

		for (unsigned int j = 0; j < tp->nstreams; j++) {
			struct ht_stream_reader sr;
			struct ht_event ev;
			int rc;

			/* intervals, OS losses and notes live in the OS and process streams */
			if (strncmp(tp->streams[j].name, "os-", 3) &&
			    strcmp(tp->streams[j].name, "process"))
				continue;
			rc = ht_stream_reader_open(&sr, tp, tp->streams[j].name, err);
			if (rc)
				return rc;
			while ((rc = ht_stream_reader_next(&sr, &ev, err)) > 0) {
				const uint8_t *p = ev.payload;

				if (ev.sc != HT_SC_THREAD)
					continue;
				if (ev.id == HT_EV_CPU_STATE) {
					rc = take_interval(cs, i, p, keep);
					if (rc)
						break;
				} else if (ev.id == HT_EV_LOST && p[0] == HT_LOST_OS_RECORD) {
					cs->lost += ht_le64(p + 1);
				} else if (ev.id == HT_EV_OS_STATUS && p[0] != HT_OS_ON &&
					   !cs->note[0]) {
					cs->note_kind = p[0];
					snprintf(cs->note, sizeof cs->note, "%s",
						 (const char *)p + 9);
				}
			}
			ht_stream_reader_close(&sr);
			if (rc < 0)
				return rc;
		}
	}
	for (unsigned int i = 0; i < cs->n; i++)
		if (cs->threads[i].niv)
			qsort(cs->threads[i].iv, cs->threads[i].niv, sizeof *cs->threads[i].iv,
			      by_begin);
	return 0;
}

void ht_cpu_states_release(struct ht_cpu_states *cs)
{
	for (unsigned int i = 0; i < cs->n; i++)
		free(cs->threads[i].iv);
	free(cs->threads);
	memset(cs, 0, sizeof *cs);
}

/* Moves *cursor to the first interval that ends after x. */
static size_t seek(const struct ht_cpu_thread *th, uint64_t x, size_t *cursor)
{
	size_t k = *cursor;

	if (k > th->niv || (k > 0 && k <= th->niv && th->iv[k - 1].end > x))
		k = 0; /* the hint is past x: start over */
	while (k < th->niv && th->iv[k].end <= x)
		k++;
	*cursor = k;
	return k;
}

uint64_t ht_cpu_thread_time(const struct ht_cpu_thread *th, uint64_t a, uint64_t b, uint8_t state,
			    size_t *cursor)
{
	uint64_t total = 0;

	if (!th || b <= a)
		return 0;
	for (size_t k = seek(th, a, cursor); k < th->niv && th->iv[k].begin < b; k++) {
		const struct ht_cpu_iv *v = &th->iv[k];
		uint64_t s = v->begin > a ? v->begin : a, e = v->end < b ? v->end : b;

		if (v->state == state && e > s)
			total += e - s;
	}
	return total;
}

int ht_cpu_thread_waiting_at(const struct ht_cpu_thread *th, uint64_t x, uint64_t *next,
			     size_t *cursor)
{
	size_t k;

	*next = UINT64_MAX;
	if (!th)
		return 0;
	k = seek(th, x, cursor);
	if (k == th->niv)
		return 0;
	if (th->iv[k].begin <= x) {
		*next = th->iv[k].end;
		return 1;
	}
	*next = th->iv[k].begin;
	return 0;
}
