/*
 * The launchers' environment variables (see launcher.h). The first rank
 * variable found wins: Open MPI sets its own and PMIx's, and a Slurm
 * allocation leaves SLURM_PROCID=0 in the batch script of an mpirun that
 * then gives every rank OMPI_COMM_WORLD_RANK, so the MPI library's own
 * variables come before Slurm's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/launcher.h"

static int parse_int(const char *v, int *out)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	if (*end || n < 0 || n > 1 << 30)
		return -1;
	*out = (int)n;
	return 0;
}

int ht_mpi_launcher_get(struct ht_mpi_launcher *l)
{
	static const struct {
		const char *rank, *size, *job, *step;
	} vars[] = {
	    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_NAMESPACE",
	     "OMPI_MCA_ess_base_jobid"},
	    {"PMIX_RANK", "PMIX_SIZE", "PMIX_NAMESPACE", NULL},
	    {"PMI_RANK", "PMI_SIZE", "PMI_KVSNAME", NULL},
	    {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_JOB_ID", "SLURM_STEP_ID"},
	};

	memset(l, 0, sizeof *l);
	l->rank = -1;
	l->size = -1;
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i].rank), *job, *step;

		if (!v)
			continue;
		l->var = vars[i].rank;
		if (parse_int(v, &l->rank))
			return -EINVAL;
		if (parse_int(getenv(vars[i].size), &l->size))
			l->size = -1;
		job = getenv(vars[i].job);
		step = vars[i].step ? getenv(vars[i].step) : NULL;
		if (job && step)
			snprintf(l->job, sizeof l->job, "%s.%s", job, step);
		else if (job || step)
			snprintf(l->job, sizeof l->job, "%s", job ? job : step);
		return 1;
	}
	return 0;
}
