/*
 * The MPI section of `hetrace report` (report_mpi.c), printed after the
 * others when the trace holds MPI ranks: text, CSV tables, or the "mpi"
 * key of the JSON object (printed with its leading comma).
 */
#ifndef HT_CLI_REPORT_MPI_H
#define HT_CLI_REPORT_MPI_H

struct ht_report;

enum ht_report_mpi_format { HT_REPORT_MPI_TEXT, HT_REPORT_MPI_CSV, HT_REPORT_MPI_JSON };

/* Prints r's MPI section on stdout (nothing when the trace has no rank). */
void ht_report_mpi_print(const struct ht_report *r, enum ht_report_mpi_format f);

#endif
