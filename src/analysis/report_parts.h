/*
 * The report of a job's trace of parts (trace.h): each part is a recording
 * of its own, so each gets its report on its own (ht_report_compute_part),
 * in parallel (one thread per core, at most one per part), and the reports
 * are merged in rank order: tables row by row (the same statistics as one
 * pass: ht_stats_merge), processes, devices, queues and threads appended,
 * the MPI analysis finished on the whole (mpi.h). A part's report can also
 * be computed elsewhere and shipped as bytes (ht_report_wire_*): `mpirun
 * -np K hetrace report` computes the parts on K ranks and merges them on
 * rank 0 the same way, so its output is the serial one.
 */
#ifndef HT_REPORT_PARTS_H
#define HT_REPORT_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/report.h"

/* The whole report of t, computed part by part. Return: 0, or < 0 with err filled. */
int ht_report_compute_parts(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err);

/*
 * The report of part i of t, as ht_report_compute_part gives it.
 * Return: 0, or < 0 with err filled.
 */
int ht_report_compute_one_part(struct ht_trace *t, unsigned int i, struct ht_report *r,
			       struct ht_read_error *err);

/*
 * Merges src, the report of a later part whose processes are t's from
 * proc_base on, into dst (src is emptied; release it still).
 * Return: 0, or -ENOMEM.
 */
int ht_report_merge(struct ht_report *dst, struct ht_report *src, unsigned int proc_base);
/* After the last merge: tables sorted, the MPI analysis finished. Return: 0, or -ENOMEM. */
int ht_report_merge_done(struct ht_report *r);
/* Return: the index in t->procs of part i's first process. */
unsigned int ht_report_part_base(const struct ht_trace *t, unsigned int i);

/*
 * A part's report as bytes, for another process of the same hetrace build
 * (the layout is the build's memory layout, checked by a header).
 * Return: 0 with *buf (malloc'd, *len bytes), or -ENOMEM.
 */
int ht_report_wire_put(const struct ht_report *r, uint8_t **buf, size_t *len);
/* Return: 0 with r filled, -EBADMSG (not from this build, or cut), or -ENOMEM. */
int ht_report_wire_get(struct ht_report *r, const uint8_t *buf, size_t len);

#endif
