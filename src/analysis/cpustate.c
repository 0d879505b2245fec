/*
 * CPU states per thread (see cpustate.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpustate.h"
#include "analysis/timeline.h"
#include "common/grow.h"

static uint64_t key(unsigned int proc, int32_t tid)
{
	return (uint64_t)proc << 32 | (uint32_t)tid;
}

static struct ht_cpu_thread *find_or_add(struct ht_cpu_states *cs, unsigned int proc, int32_t tid)
{
	int created;
	uint64_t *v = ht_map_u64(&cs->index, key(proc, tid), cs->n, &created);
	struct ht_cpu_thread *n;

	if (!v)
		return NULL;
	if (!created)
		return &cs->threads[*v];
	n = realloc(cs->threads, (cs->n + 1) * sizeof *n);
	if (!n) {
		ht_map_del_u64(&cs->index, key(proc, tid));
		return NULL;
	}
	cs->threads = n;
	n = &cs->threads[cs->n++];
	memset(n, 0, sizeof *n);
	n->proc = proc;
	n->tid = tid;
	return n;
}

struct ht_cpu_thread *ht_cpu_states_find(struct ht_cpu_states *cs, unsigned int proc, int32_t tid)
{
	uint64_t *v = ht_map_find_u64(&cs->index, key(proc, tid));

	return v ? &cs->threads[*v] : NULL;
}

static int take_interval(struct ht_cpu_states *cs, const struct ht_tl_record *x, int keep)
{
	uint8_t state = x->cmd_kind;
	uint64_t b = x->ts, e = x->end;
	struct ht_cpu_thread *th;

	if (state >= HT_CPU_STATE_COUNT || e < b)
		return 0; /* not ours to judge: skip a malformed record */
	th = find_or_add(cs, x->proc, x->tid);
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
	if (th->niv == th->cap && ht_grow((void **)&th->iv, &th->cap, sizeof *th->iv, th->niv + 1))
		return -ENOMEM;
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

int ht_cpu_states_load(struct ht_cpu_states *cs, struct ht_trace *t, const int32_t *keep_pids,
		       unsigned int nkeep, int32_t *proc_pid, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_OS | HT_PK_PROCESS, .no_args = 1, .meta = 1};
	struct ht_timeline tl;
	const struct ht_tl_record *x;
	int *keep = calloc(t->nprocs ? t->nprocs : 1, sizeof *keep);
	int rc;

	memset(cs, 0, sizeof *cs);
	if (!keep)
		return -ENOMEM;
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		free(keep);
		return rc;
	}
	for (unsigned int i = 0; i < t->nprocs; i++) {
		int32_t pid = ht_timeline_proc(&tl, i)->pid;

		if (proc_pid)
			proc_pid[i] = pid;
		for (unsigned int k = 0; k < nkeep; k++)
			keep[i] |= keep_pids[k] == pid;
	}
	while ((rc = ht_timeline_next(&tl, &x)) > 0) {
		rc = 0;
		if (x->kind == HT_TL_CPU_STATE)
			rc = take_interval(cs, x, keep[x->proc]);
		else if (x->kind == HT_TL_LOST && x->cmd_kind == HT_LOST_OS_RECORD)
			cs->lost += x->count;
		else if (x->kind == HT_TL_OS_STATUS && x->value != HT_OS_ON && !cs->note[0]) {
			cs->note_kind = (int)x->value;
			snprintf(cs->note, sizeof cs->note, "%s", x->text);
		}
		if (rc < 0)
			break;
	}
	if (rc < 0)
		*err = tl.err.msg[0] ? tl.err : (struct ht_read_error){.msg = "out of memory"};
	ht_timeline_close(&tl);
	free(keep);
	if (rc < 0)
		return rc;
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
	ht_map_release(&cs->index);
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
