/*
 * The timeline's MPI records (HT_TL_MPI, timeline.h): what an MPI rank's
 * mpi_p2p, mpi_request, mpi_coll and mpi_rma events mean, resolved against
 * its definitions. Requests are paired here: a completion in a wait or test
 * becomes the completed receive (with the communicator of its post and the
 * actual source of its status) or the completed send; a persistent
 * request's MPI_Start becomes a post with its MPI_*_init arguments.
 * Communicator handles become job-wide ids, ranks in them world ranks.
 */
#ifndef HT_MPI_RECORDS_H
#define HT_MPI_RECORDS_H

#include "analysis/timeline.h"

/*
 * Completes r, an HT_TL_MPI record whose common part the timeline filled
 * (its process, thread, time, the begin of its MPI call), from MPI event
 * `id` with payload p[0..size). *have: r is a record (else nothing: a post
 * its completion will report, an unknown request). Return: 0, or -ENOMEM
 * (tl->err filled).
 */
int ht_tl_mpi_take(struct ht_timeline *tl, struct ht_tl_record *r, uint32_t id, const uint8_t *p,
		   size_t size, int *have);
void ht_tl_mpi_release(struct ht_tl_mpi *m);

#endif
