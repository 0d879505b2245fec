/*
 * Test helper: prints the timeline of a trace (analysis/timeline.h), one
 * record per line, for tests of ordering, clock sync and correlation:
 *   <kind> ts=<ns> [end=<ns>] pid=<pid> tid=<tid> [q=<queue>] name=<name> [corr=<c>] [args]
 * MPI records add: begin=<ns> mpi_kind=<k> rank=<r> comm=<id> peer_world=<r> tag=<t> bytes=<n>
 */
#include <stdio.h>

#include "analysis/timeline.h"

static const char *const kinds[] = {
    [HT_TL_PROCESS] = "process",     [HT_TL_THREAD] = "thread",
    [HT_TL_QUEUE] = "queue",	     [HT_TL_SLICE_BEGIN] = "begin",
    [HT_TL_SLICE_END] = "end",	     [HT_TL_INSTANT] = "instant",
    [HT_TL_COUNTER] = "counter",     [HT_TL_DEVICE] = "device",
    [HT_TL_LOST] = "lost",	     [HT_TL_CPU_STATE] = "cpu_state",
    [HT_TL_ANCHOR] = "anchor",	     [HT_TL_OS_STATUS] = "os_status",
    [HT_TL_STREAM_END] = "stream_end", [HT_TL_CLOCK_PAIR] = "clock_pair",
    [HT_TL_DEFINITION] = "definition", [HT_TL_MEM_SITE] = "mem_site",
    [HT_TL_MEM_LAUNCH] = "mem_launch", [HT_TL_MEM_ARG] = "mem_arg",
    [HT_TL_MEM_ACCESS] = "mem_access", [HT_TL_MEM_END] = "mem_end",
    [HT_TL_SAMPLE] = "sample",	     [HT_TL_TASK] = "task",
    [HT_TL_MPI] = "mpi",
};

int main(int argc, char **argv)
{
	struct ht_trace *t;
	struct ht_timeline tl;
	struct ht_read_error err = {0};
	const struct ht_tl_record *r;
	int rc;

	if (argc != 2 || ht_trace_open(&t, argv[1], &err)) {
		fprintf(stderr, "usage: ht_test_timeline TRACE (%s)\n", err.msg);
		return 2;
	}
	rc = ht_timeline_open(&tl, t, NULL);
	while (rc >= 0 && (rc = ht_timeline_next(&tl, &r)) > 0) {
		printf("%s ts=%llu",
		       r->kind < sizeof kinds / sizeof kinds[0] && kinds[r->kind] ? kinds[r->kind] : "?",
		       (unsigned long long)r->ts);
		if (r->kind == HT_TL_DEVICE)
			printf(" end=%llu q=0x%llx dev=%u status=%d bytes=%llu",
			       (unsigned long long)r->end, (unsigned long long)r->queue, r->device,
			       r->status, (unsigned long long)r->bytes);
		printf(" pid=%d tid=%d name=%s", r->pid, r->tid, r->name ? r->name : "-");
		if (r->corr)
			printf(" corr=%llu", (unsigned long long)r->corr);
		if (r->kind == HT_TL_MPI)
			printf(" begin=%llu mpi_kind=%u rank=%d comm=%llu peer_world=%d tag=%d "
			       "bytes=%llu",
			       (unsigned long long)r->begin, r->cmd_kind, r->mpi.rank,
			       (unsigned long long)r->mpi.comm, r->mpi.peer_world, r->mpi.tag,
			       (unsigned long long)r->bytes);
		if (r->kind == HT_TL_COUNTER || r->kind == HT_TL_LOST)
			printf(" value=%g", r->value);
		for (unsigned int i = 0; i < r->nargs; i++) {
			const struct ht_tl_arg *a = &r->args[i];

			printf(" %s=", a->key);
			if (a->type == HT_TL_STRING)
				printf("%s", a->v.s);
			else if (a->type == HT_TL_DOUBLE)
				printf("%g", a->v.f);
			else if (a->type == HT_TL_INT)
				printf("%lld", (long long)a->v.i);
			else if (a->type == HT_TL_HEX)
				printf("0x%llx", (unsigned long long)a->v.u);
			else
				printf("%llu", (unsigned long long)a->v.u);
		}
		putchar('\n');
	}
	if (rc < 0)
		fprintf(stderr, "ht_test_timeline: %s: %s\n", tl.err.file, tl.err.msg);
	printf("# device_commands=%llu reorder_overflows=%llu reorder_expired=%llu\n",
	       (unsigned long long)tl.device_commands, (unsigned long long)tl.reorder_overflows,
	       (unsigned long long)tl.reorder_expired);
	ht_timeline_close(&tl);
	ht_trace_close(t);
	return rc < 0;
}
