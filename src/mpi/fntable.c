/*
 * The function table of the MPI interposer: every wrapped MPI function with
 * role comm (the report's time in MPI), creators and destructors marked as
 * such. Slices carry no arguments: what a call moved and with whom is in
 * the mpi_* events written inside it.
 */
#include "mpi/interpose.h"

#define HT_MPI_DESC(n, roles) [HT_MPI_FN_##n] = {"MPI_" #n, HT_ROLE_COMM | (roles), 0, NULL},

static const struct ht_fn_desc fns[HT_MPI_FN_COUNT] = {HT_MPI_FUNCTIONS(HT_MPI_DESC)};

const struct ht_fn_table ht_mpi_fn_table = {"mpi", HT_FN_BASE_MPI, HT_MPI_FN_COUNT, fns};
