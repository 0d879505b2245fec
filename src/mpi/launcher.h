/*
 * Who launched this process, as an MPI launcher tells its ranks through
 * the environment: Open MPI (OMPI_COMM_WORLD_RANK/_SIZE), PMIx (PMIX_RANK,
 * PMIX_NAMESPACE), PMI-1/2 (PMI_RANK/PMI_SIZE: MPICH's hydra) and Slurm
 * (SLURM_PROCID/SLURM_NTASKS). `hetrace record` uses it to write a rank's
 * part of a job's trace, the MPI interposer to name the job. No MPI needed.
 */
#ifndef HT_MPI_LAUNCHER_H
#define HT_MPI_LAUNCHER_H

struct ht_mpi_launcher {
	int rank;	 /* this process's rank in the job */
	int size;	 /* ranks in the job, -1 when the launcher does not say */
	char job[128];	 /* the job's id ("" when the launcher gives none) */
	const char *var; /* the variable that gave the rank */
};

/*
 * Reads the launcher's variables. Return: 1 under a launcher (l filled), 0
 * when none is set, -EINVAL when the rank variable holds no rank (l->var
 * names it).
 */
int ht_mpi_launcher_get(struct ht_mpi_launcher *l);

#endif
