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
 *
 * Ranks that read one clock need no estimate: CLOCK_MONOTONIC is the same
 * clock for every process of one boot of one kernel in one time namespace.
 * Rank 0's replies carry its clock domain (clock_domain() below); a rank in
 * the same domain records offset 0 with error 0, exact, where a measured
 * offset would be off by up to half a round trip: on an oversubscribed
 * node that is tens of microseconds, enough to put a small message's
 * receive before its send.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpi/interpose.h"

#define HT_MPI_CLOCK_ROUNDS 20
#define HT_MPI_CLOCK_TAG    0x4854 /* on the private communicator only */

/*
 * Return: a 64-bit name of the clock this process reads: the kernel's boot
 * id and the time namespace (none on kernels without them: then every
 * process of the boot shares the clock), or 0 when the boot id is unknown.
 */
static uint64_t clock_domain(void)
{
	char id[64] = "";
	struct stat ns = {0};
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, id, sizeof id - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 32)
		return 0;
	(void)stat("/proc/self/ns/time", &ns);
	for (ssize_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)id[i]) * 1099511628211ull;
	h = (h ^ (uint64_t)ns.st_dev) * 1099511628211ull;
	h = (h ^ (uint64_t)ns.st_ino) * 1099511628211ull;
	return h ? h : 1;
}

static void write_clock(struct ht_stream *proc, const void *ev)
{
	HT_WRITE(proc, mpi_clock, (const struct ht_ev_mpi_clock *)ev);
}

/* Rank 0: answers every other rank's pings with its clock. */
static void serve(MPI_Comm comm, int size)
{
	uint64_t reply[2] = {0, clock_domain()}; /* time, domain */

	for (int r = 1; r < size; r++)
		for (int k = 0; k < HT_MPI_CLOCK_ROUNDS; k++) {
			HT_PMPI(Recv)(NULL, 0, MPI_BYTE, r, HT_MPI_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
			reply[0] = ht_now_ns();
			HT_PMPI(Send)(reply, 2, MPI_UINT64_T, r, HT_MPI_CLOCK_TAG, comm);
		}
}

void ht_mpi_clock_measure(MPI_Comm comm, enum ht_mpi_clock_phase phase)
{
	struct ht_ev_mpi_clock e = {.phase = (uint8_t)phase, .ref = 0};
	uint64_t best = UINT64_MAX, reply[2] = {0, 0}, domain;
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
	domain = clock_domain();
	for (int k = 0; k < HT_MPI_CLOCK_ROUNDS; k++) {
		uint64_t t0, t1;

		t0 = ht_now_ns();
		HT_PMPI(Send)(NULL, 0, MPI_BYTE, 0, HT_MPI_CLOCK_TAG, comm);
		HT_PMPI(Recv)(reply, 2, MPI_UINT64_T, 0, HT_MPI_CLOCK_TAG, comm, MPI_STATUS_IGNORE);
		t1 = ht_now_ns();
		if (t1 - t0 < best) {
			best = t1 - t0;
			e.time = t0 + best / 2;
			e.offset = (int64_t)(e.time - reply[0]);
		}
	}
	e.error = (best + 1) / 2;
	if (domain && reply[1] == domain) { /* one clock: exactly 0 */
		e.offset = 0;
		e.error = 0;
	}
	e.samples = HT_MPI_CLOCK_ROUNDS;
	ht_mpi_define(write_clock, &e);
}
