/*
 * The MPI section of `hetrace report` (report_mpi.c), printed after the
 * others when the trace holds MPI ranks: text, CSV tables, or the "mpi"
 * key of the JSON object (printed with its leading comma).
 */
#ifndef HT_CLI_REPORT_MPI_H
#define HT_CLI_REPORT_MPI_H

struct ht_report;
struct ht_trace;
struct ht_read_error;

enum ht_report_mpi_format { HT_REPORT_MPI_TEXT, HT_REPORT_MPI_CSV, HT_REPORT_MPI_JSON };

/* Prints r's MPI section on stdout (nothing when the trace has no rank). */
void ht_report_mpi_print(const struct ht_report *r, enum ht_report_mpi_format f);

/*
 * The report of t, as ht_report_compute gives it; under an MPI launcher
 * with K > 1 ranks (`mpirun -np K hetrace report T`), computed on the K
 * ranks and merged on rank 0 by libhetrace-mpireduce.so (mpi/reduce.h),
 * dlopened here so that hetrace itself never links libmpi. A trace that is
 * one recording (not a job's parts) rank 0 computes alone; so it does,
 * after one line that says why, without that library.
 * Return: 0 with *r (print it), 1 on ranks other than 0 (print nothing),
 * < 0 with err filled.
 */
int ht_report_mpi_compute(struct ht_trace *t, struct ht_report *r, struct ht_read_error *err);

#endif
