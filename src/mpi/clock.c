/*
 * Clock offsets between ranks, the method of Intel Trace Collector and
 * Score-P: each rank exchanges HT_MPI_CLOCK_ROUNDS ping-pongs with rank 0
 * (the reference) and keeps the one with the shortest round trip. If the
 * rank read t0 before sending and t1 after the reply that carries rank 0's
 * time tr, then rank 0 read tr somewhere inside [t0, t1] of the rank's
 * clock: offset = (t0 + t1) / 2 - tr, wrong by at most (t1 - t0) / 2, the
 * error bound stored with it. Nothing about the network is assumed, so the
 * bound holds on an oversubscribed node too; it is only wider there.
 *
 * Rank 0 serves the ranks one after the other: (size - 1) x rounds round
 * trips, ~2 us each through shared memory here, 20 ms for 500 ranks. The
 * times are CLOCK_MONOTONIC, the trace's clock, read with clock_gettime
 * (the vDSO, so a rank in a time namespace reads its own).
 */
#include "mpi/interpose.h"

#define HT_MPI_CLOCK_ROUNDS 20
#define HT_MPI_CLOCK_TAG    0x4854 /* on the private communicator only */

static void write_clock(struct ht_stream *proc, const void *ev)
{
	HT_WRITE(proc, mpi_clock, (const struct ht_ev_mpi_clock *)ev);
}

/* Rank 0: answers every other rank's pings with its clock. */
static void serve(MPI_Comm comm, int size)
{
	for (int r = 1; r < size; r++)
		for (int k = 0; k < HT_MPI_CLOCK_ROUNDS; k++) {
			uint64_t t;

			HT_PMPI(Recv)(NULL, 0, MPI_BYTE, r, HT_MPI_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
			t = ht_now_ns();
			HT_PMPI(Send)(&t, 1, MPI_UINT64_T, r, HT_MPI_CLOCK_TAG, comm);
		}
}

void ht_mpi_clock_measure(MPI_Comm comm, enum ht_mpi_clock_phase phase)
{
	struct ht_ev_mpi_clock e = {.phase = (uint8_t)phase, .ref = 0};
	uint64_t best = UINT64_MAX;
	int rank, size;

	if (HT_PMPI(Comm_rank)(comm, &rank) != MPI_SUCCESS ||
	    HT_PMPI(Comm_size)(comm, &size) != MPI_SUCCESS)
		return;
	if (rank == 0) {
		serve(comm, size);
		e.time = ht_now_ns(); /* the reference: offset 0, exact */
		ht_mpi_define(write_clock, &e);
		return;
	}
	for (int k = 0; k < HT_MPI_CLOCK_ROUNDS; k++) {
		uint64_t t0, t1, tr = 0;

		t0 = ht_now_ns();
		HT_PMPI(Send)(NULL, 0, MPI_BYTE, 0, HT_MPI_CLOCK_TAG, comm);
		HT_PMPI(Recv)(&tr, 1, MPI_UINT64_T, 0, HT_MPI_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
		t1 = ht_now_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			e.time = t0 + best / 2;
			e.offset = (int64_t)(e.time - tr);
		}
	}
	e.error = (best + 1) / 2;
	e.samples = HT_MPI_CLOCK_ROUNDS;
	ht_mpi_define(write_clock, &e);
}
