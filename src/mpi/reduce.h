/*
 * `mpirun -np K hetrace report T`: the parts of a job's trace computed on K
 * ranks and merged on rank 0 with MPI itself (libhetrace-mpireduce.so, the
 * only piece of the command that links libmpi; the CLI dlopens it under a
 * launcher, so a plain hetrace runs where Open MPI is absent). Part i goes
 * to rank i mod K; each rank ships its parts' reports as bytes
 * (report_parts.h) to rank 0, which merges them in part order, as the
 * serial report does: the output is the same.
 *
 * The library calls back into the command for the analysis (ops), so the
 * analysis code exists once, in the command.
 */
#ifndef HT_MPI_REDUCE_H
#define HT_MPI_REDUCE_H

#include <stddef.h>
#include <stdint.h>

struct ht_trace;
struct ht_report;
struct ht_read_error;

struct ht_mpi_reduce_ops {
	int (*compute_one)(struct ht_trace *t, unsigned int i, struct ht_report *r,
			   struct ht_read_error *err);
	int (*put)(const struct ht_report *r, uint8_t **buf, size_t *len);
	int (*get)(struct ht_report *r, const uint8_t *buf, size_t len);
	int (*merge)(struct ht_report *dst, struct ht_report *src, unsigned int proc_base);
	int (*merge_done)(struct ht_report *r);
	unsigned int (*part_base)(const struct ht_trace *t, unsigned int i);
	void (*release)(struct ht_report *r);
};

/*
 * Initialises MPI, computes this rank's parts of t, gathers and merges the
 * whole report on rank 0, finalises MPI.
 * Return: 0 on rank 0 (*r filled), 1 on the other ranks (nothing to print),
 * < 0 with err filled (on rank 0: any rank's first error, in part order).
 */
typedef int (*ht_mpi_reduce_report_fn)(const struct ht_mpi_reduce_ops *ops, struct ht_trace *t,
				       struct ht_report *r, struct ht_read_error *err);
#define HT_MPI_REDUCE_SYMBOL "ht_mpi_reduce_report"

#endif
