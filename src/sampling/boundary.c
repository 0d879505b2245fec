/*
 * Counters at API-call and region boundaries (--counters LIST, seed 002's
 * hardware counters; in libhetrace-preload.so): each thread that records
 * opens the counters on itself as one perf_event group, and the recorder
 * calls this source's hook after an API call's or region's begin and
 * before its end (core/source.h), where one read() of the group gives every
 * counter; each value is written as a `counter` event of the thread (the
 * counter's name, its running total), so readers show counter tracks and a
 * slice's cost is the difference across it. A read costs a system call
 * (~0.5 us here): this is for runs that ask for it.
 *
 * A counter the machine does not have (hardware counters on most VMs) is
 * left out; `record`, which opens the same list for its samples first, has
 * said so in one line.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "hetrace/hetrace.h"
#include "sampling/counters.h"

struct cstate {
	int fd; /* the group leader, -1 if none */
	int member[HT_COUNTERS_MAX];
	int n;				/* counters in the group, in list order */
	int index[HT_COUNTERS_MAX];	/* their place in the list */
	uint32_t name[HT_COUNTERS_MAX]; /* interned names */
	int busy;
};

static struct ht_counter_spec list[HT_COUNTERS_MAX];
static int nlist;
static __thread struct cstate *cs __attribute__((tls_model("initial-exec")));

static int open_one(const struct ht_counter_spec *c, int group)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = c->type;
	a.config = c->config;
	a.exclude_kernel = 1; /* what perf_event_paranoid 2 allows */
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void *bd_thread_open(struct ht_stream *s, int tid)
{
	struct cstate *st = calloc(1, sizeof *st);

	(void)s;
	(void)tid;
	if (!st)
		return NULL;
	st->fd = -1;
	for (int i = 0; i < nlist; i++) {
		int fd = open_one(&list[i], st->fd);

		if (fd < 0)
			continue; /* not on this machine: `record` said so */
		if (st->fd < 0)
			st->fd = fd;
		else
			st->member[st->n] = fd;
		st->index[st->n] = i;
		st->name[st->n] = ht_string_id(list[i].name);
		st->n++;
	}
	if (st->fd < 0) {
		free(st);
		return NULL;
	}
	cs = st;
	return st;
}

static void release(struct cstate *st)
{
	for (int i = 1; i < st->n; i++)
		close(st->member[i]);
	close(st->fd);
	free(st);
}

static void bd_thread_close(struct ht_stream *s, void *state)
{
	struct cstate *st = state;

	(void)s;
	if (cs == st)
		cs = NULL;
	release(st);
}

/* The boundary hook: every counter's value now, as counter events of the thread. */
static void read_counters(int end)
{
	struct cstate *st = cs;
	uint64_t buf[1 + HT_COUNTERS_MAX];
	struct ht_stream *s;

	(void)end;
	if (!st || st->busy)
		return;
	st->busy = 1;
	s = ht_session_borrow_thread_stream();
	if (s && read(st->fd, buf, sizeof buf) >= (ssize_t)(8 * (1 + (size_t)st->n)))
		for (int i = 0; i < st->n && i < (int)buf[0]; i++) {
			const struct ht_ev_counter e = {.name = st->name[i],
							.value = (int64_t)buf[1 + i]};

			HT_WRITE(s, counter, &e);
		}
	st->busy = 0;
}

static void bd_fork_child(void)
{
	struct cstate *st = cs;

	/* the parent thread's counters: this child's threads open their own */
	cs = NULL;
	if (st)
		release(st);
}

static const struct ht_source_hooks bd_hooks = {
    .name = "counters",
    .thread_open = bd_thread_open,
    .thread_close = bd_thread_close,
    .fork_child = bd_fork_child,
};

__attribute__((constructor)) static void boundary_load(void)
{
	const struct ht_config *cfg = ht_session_borrow_config();
	char bad[64];

	if (!cfg->dir || !cfg->counters)
		return;
	nlist = ht_counters_parse(cfg->counters, list, bad, sizeof bad);
	if (nlist <= 0 || ht_source_register(&bd_hooks))
		return; /* `record` checked the list; a bad one set by hand is ignored */
	__atomic_store_n(&ht_boundary_hook, read_counters, __ATOMIC_RELEASE);
}
