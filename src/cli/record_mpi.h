/*
 * `hetrace record` in MPI jobs (record_mpi.c). Two launch forms:
 *   hetrace record -o T -- mpirun -np N ./app   one record, the launcher and every
 *                                               rank traced into T as processes
 *   mpirun -np N hetrace record -o T -- ./app   one record per rank, on any node:
 *                                               each writes its own part of T
 * Under a launcher (launcher.h) record writes T/<part>/, a trace of its own
 * (index, process directories) named after the rank and host, and lists the
 * part in T's top-level index, which every rank updates under a lock.
 */
#ifndef HT_CLI_RECORD_MPI_H
#define HT_CLI_RECORD_MPI_H

#include <stddef.h>

struct ht_record_part {
	int active; /* under a launcher: record into a part */
	int rank, size;
	char job[128];
	char host[65];
	char name[96];	 /* the part's directory under T */
	char path[4200]; /* T/name: where this rank records */
	const char *var; /* the launcher variable that gave the rank */
};

/*
 * Under a launcher: registers this rank's part in out's top-level index
 * (creating out if needed; another job's trace there is replaced only with
 * force) and fills part (part->path is where to record); with out NULL it
 * only fills part. Elsewhere: part->active = 0.
 * Return: 0, or 1 after printing one error line.
 */
int ht_record_part_setup(const char *out, int force, struct ht_record_part *part);

/* Adds the rank's keys to its part's own index (dfd: the part directory). */
void ht_record_part_note(int dfd, const struct ht_record_part *part);

/*
 * Whether record should preload libhetrace-mpi.so for `cmd`: it links
 * libmpi (or a launcher's runtime), is an MPI launcher by name, or is not
 * an ELF file (a script: whatever it starts may be an MPI program).
 */
int ht_record_wants_mpi(const char *cmd);

#endif
