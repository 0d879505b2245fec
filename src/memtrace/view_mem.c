/*
 * The view's memory-access data (analysis.h computes it; src/export/view.c
 * calls this): per kernel and buffer argument of each process, the counts
 * and the heat map of HT_MEM_HEAT buckets over the buffer, loads (atomics
 * included) and stores per bucket, as the page's "memory" key. The page
 * draws the heat maps of a kernel when one of its launches is clicked; they
 * add up all launches of that kernel in the process. Kernel names go
 * through the view's string table (intern), like every trace string.
 */
#include <inttypes.h>
#include <stdio.h>

#include "memtrace/analysis.h"

int ht_mem_view_json(FILE *f, struct ht_trace *t, uint32_t (*intern)(void *, const char *),
		     void *arg, struct ht_read_error *err)
{
	struct ht_mem_report m;
	int rc = ht_mem_report_compute(t, &m, err);

	if (rc < 0)
		return rc;
	fputs(",\"memory\":[", f);
	for (size_t i = 0; i < m.n; i++) {
		const struct ht_mem_row *r = &m.rows[i];

		fprintf(f,
			"%s{\"pid\":%d,\"kernel\":%u,\"arg\":%d,\"launches\":%" PRIu64
			",\"reads\":%" PRIu64 ",\"writes\":%" PRIu64 ",\"atomics\":%" PRIu64
			",\"oob\":%" PRIu64 ",\"buffer\":%" PRIu64 ",\"heat\":[",
			i ? "," : "", r->pid, intern(arg, r->kernel), r->arg, r->launches, r->reads,
			r->writes, r->atomics, r->out_of_bounds, r->buffer_bytes);
		for (unsigned int b = 0; b < HT_MEM_HEAT; b++)
			fprintf(f, "%s%" PRIu64 ",%" PRIu64, b ? "," : "", r->heat[b][0],
				r->heat[b][1]);
		fputs("]}", f);
	}
	fprintf(f, "],\"memory_dropped\":%" PRIu64, m.dropped);
	ht_mem_report_release(&m);
	return 0;
}
