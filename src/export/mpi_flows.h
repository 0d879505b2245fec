/*
 * MPI messages as flows in the Perfetto and Chrome exports: a send
 * (HT_TL_MPI_SEND/ISEND, on the sender's thread when the send started) and
 * the receive it went to (HT_TL_MPI_RECV/IRECV, on the receiver's thread
 * when it completed) get one flow id. MPI keeps the messages of one
 * (communicator, source, destination, tag) in order, so the k-th send and
 * the k-th receive of that key are one message: each side counts its own,
 * and nothing waits for the other side. A receive whose send was not seen
 * (an untraced rank, or clocks that put it first) gets no flow: a flow's
 * end without its start is an import error in both viewers.
 */
#ifndef HT_EXPORT_MPI_FLOWS_H
#define HT_EXPORT_MPI_FLOWS_H

#include <stdint.h>

#include "common/map.h"

struct ht_tl_record;

struct ht_mpi_flows {
	struct ht_map seq;  /* (message key, side) -> messages counted */
	struct ht_map open; /* flow ids of sends whose receive has not come */
	uint64_t orphans;   /* receives that got no flow: their send not seen before them */
};

enum ht_mpi_flow_side { HT_MPI_FLOW_NONE, HT_MPI_FLOW_START, HT_MPI_FLOW_END };

/*
 * The flow side of an MPI record, *id its flow id (high bit set: apart from
 * the enqueue flows of ht_export_flow_id). Return: an ht_mpi_flow_side, or
 * -ENOMEM.
 */
int ht_mpi_flow(struct ht_mpi_flows *f, const struct ht_tl_record *r, uint64_t *id);
/* One warning line on stderr when receives got no flow (f->orphans). */
void ht_mpi_flows_warn(const struct ht_mpi_flows *f);
void ht_mpi_flows_release(struct ht_mpi_flows *f);

#endif
