/*
 * Lifetimes (see lifetimes.h): one pass over the process streams (task
 * events live there), then each process's end is completed from its
 * parent's child_exit records (the last image of that pid: exec keeps the
 * pid) and, for the command record started (the one process whose parent
 * was not traced), from the index.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lifetimes.h"
#include "analysis/timeline.h"
#include "common/grow.h"

struct child_end {
	int32_t ppid, pid;
	int code, signal;
};

static void thread_event(struct ht_life *l, const struct ht_tl_record *r)
{
	struct ht_life_thread *th = NULL;

	for (size_t i = l->nthreads; i-- > 0;)
		if (l->threads[i].tid == r->tid && !l->threads[i].end) {
			th = &l->threads[i];
			break;
		}
	if (!th) {
		if (ht_grow((void **)&l->threads, &l->cap, sizeof *l->threads, l->nthreads + 1))
			return;
		th = &l->threads[l->nthreads++];
		th->tid = r->tid;
	}
	snprintf(th->name, sizeof th->name, "%s", r->name ? r->name : "");
	if (r->cmd_kind == HT_TASK_THREAD_START)
		th->start = r->begin;
	else
		th->end = r->begin;
}

/* The index's word on the command's end: "exited" (status) or "killed by signal N (...)". */
static void from_index(struct ht_trace *t, struct ht_life *l)
{
	char how[128], code[32];

	if (ht_trace_index_get(t, "exit", how, sizeof how) ||
	    ht_trace_index_get(t, "exit_status", code, sizeof code))
		return;
	if (!strcmp(how, "exited")) {
		l->how = HT_LIFE_EXIT;
		l->code = atoi(code);
	} else if (!strncmp(how, "killed by signal ", 17)) {
		l->how = HT_LIFE_SIGNAL;
		l->signal = atoi(how + 17);
	} else {
		return;
	}
	l->source = "hetrace record";
}

int ht_lifetimes_compute(struct ht_trace *t, struct ht_life *out, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_PROCESS, .no_args = 1, .meta = 1};
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	struct child_end *ends = NULL;
	size_t nends = 0, capends = 0;
	int rc, roots = 0;
	long root = -1;

	memset(out, 0, t->nprocs * sizeof *out);
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		return rc;
	}
	for (unsigned int i = 0; i < t->nprocs; i++) {
		out[i].pid = ht_timeline_proc(&tl, i)->pid;
		out[i].ppid = ht_timeline_proc(&tl, i)->ppid;
	}
	while ((rc = ht_timeline_next(&tl, &r)) > 0) {
		struct ht_life *l = &out[r->proc];

		if (r->kind == HT_TL_ANCHOR && r->value == HT_ANCHOR_EXEC) {
			l->how = HT_LIFE_EXEC;
			l->end = r->ts;
			l->source = "itself";
		}
		if (r->kind != HT_TL_TASK)
			continue;
		switch (r->cmd_kind) {
		case HT_TASK_PROCESS_START:
			l->start = r->begin;
			break;
		case HT_TASK_PROCESS_EXIT:
			l->end = r->begin;
			if (r->ret >= 0) {
				l->how = HT_LIFE_EXIT;
				l->code = r->ret;
				l->source = "itself";
			}
			break;
		case HT_TASK_THREAD_START:
		case HT_TASK_THREAD_EXIT:
			thread_event(l, r);
			break;
		case HT_TASK_CHILD_EXIT:
			if (ht_grow((void **)&ends, &capends, sizeof *ends, nends + 1)) {
				rc = -ENOMEM;
				break;
			}
			ends[nends++] = (struct child_end){l->pid, r->tid, r->ret, (int)r->value};
			break;
		}
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		if (rc == -ENOMEM) {
			snprintf(err->file, sizeof err->file, "%s", t->path);
			snprintf(err->msg, sizeof err->msg, "out of memory");
		} else {
			*err = tl.err;
		}
	}
	ht_timeline_close(&tl);
	free(rc < 0 ? ends : NULL);
	if (rc < 0) {
		for (unsigned int i = 0; i < t->nprocs; i++)
			ht_lifetimes_release(&out[i]);
		return rc;
	}
	for (size_t k = 0; k < nends; k++) {
		long last = -1;

		/* the image of that pid its parent saw end: the one that did not exec */
		for (unsigned int i = 0; i < t->nprocs; i++)
			if (out[i].pid == ends[k].pid && out[i].how != HT_LIFE_EXEC &&
			    (last < 0 || out[i].start >= out[last].start))
				last = i;
		if (last < 0 || out[last].how == HT_LIFE_EXIT)
			continue; /* the process's own word stands */
		out[last].how = ends[k].signal ? HT_LIFE_SIGNAL : HT_LIFE_EXIT;
		out[last].code = ends[k].code;
		out[last].signal = ends[k].signal;
		out[last].source = "its parent";
	}
	free(ends);
	for (unsigned int i = 0; i < t->nprocs; i++) {
		int traced_parent = 0;

		for (unsigned int k = 0; k < t->nprocs; k++)
			traced_parent |= out[k].pid == out[i].ppid && k != i;
		if (!traced_parent && out[i].how != HT_LIFE_EXEC &&
		    (root < 0 || out[i].pid != out[root].pid))
			roots++, root = i;
		else if (!traced_parent && out[i].how != HT_LIFE_EXEC &&
			 out[i].start >= out[root].start)
			root = i;
	}
	if (roots == 1 && out[root].how == HT_LIFE_UNKNOWN)
		from_index(t, &out[root]);
	return 0;
}

void ht_lifetimes_release(struct ht_life *l)
{
	free(l->threads);
	l->threads = NULL;
	l->nthreads = l->cap = 0;
}
