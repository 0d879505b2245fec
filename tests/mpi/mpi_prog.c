/*
 * An MPI job for the tests: ITERS rounds of compute, an allreduce, a ring
 * of blocking sends and receives, a ring of nonblocking ones, a broadcast
 * and a barrier; then a reduce, a sendrecv, and an allreduce on a
 * communicator split by rank parity. Rank SLOW computes SLOW_MS longer
 * before the allreduce and SLOW_MS / 4 longer before the nonblocking ring,
 * so the others wait for it at the collective and its ring successor waits
 * for its message (a late sender; that successor is then the last to reach
 * the barrier, by a hair, and is waited for there).
 *
 * Per rank and ITERS = N, the calls are: MPI_Init 1, MPI_Allreduce N + 1,
 * MPI_Send N, MPI_Recv N, MPI_Isend N, MPI_Irecv N, MPI_Waitall N,
 * MPI_Bcast N, MPI_Barrier N, MPI_Reduce 1, MPI_Sendrecv 1, MPI_Comm_split
 * 1, MPI_Comm_free 1, MPI_Finalize 1; it sends and receives 2N + 1
 * messages. It prints "rank R of S sum X" (X checks the data moved).
 *
 *   mpi_prog [ITERS [SLOW [SLOW_MS]]]     defaults: 4, 2, 40
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 4, slow = argc > 2 ? atoi(argv[2]) : 2;
	long slow_ms = argc > 3 ? atol(argv[3]) : 40;
	int rank, size, to, from, buf[4] = {0}, in = 0, out, got = 0;
	double x, sum = 0, total = 0;
	MPI_Comm half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	to = (rank + 1) % size;
	from = (rank + size - 1) % size;
	for (int i = 0; i < iters; i++) {
		MPI_Request req[2];

		sleep_ms(2 + (rank == slow ? slow_ms : 0));
		x = rank + i;
		MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		total += sum;
		out = rank * 100 + i;
		if (rank % 2 == 0) {
			MPI_Send(&out, 1, MPI_INT, to, 100 + i, MPI_COMM_WORLD);
			MPI_Recv(&in, 1, MPI_INT, from, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&in, 1, MPI_INT, from, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&out, 1, MPI_INT, to, 100 + i, MPI_COMM_WORLD);
		}
		got += in;
		if (rank == slow)
			sleep_ms(slow_ms / 4);
		MPI_Irecv(&in, 1, MPI_INT, from, 200 + i, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(&out, 1, MPI_INT, to, 200 + i, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		got += in;
		if (rank == 0)
			buf[0] = i + 1;
		MPI_Bcast(buf, 4, MPI_INT, 0, MPI_COMM_WORLD);
		got += buf[0];
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Sendrecv(&out, 1, MPI_INT, to, 300, &in, 1, MPI_INT, from, 300, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	got += in;
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	x = got;
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
	MPI_Comm_free(&half);
	printf("rank %d of %d sum %.0f\n", rank, size, sum);
	MPI_Finalize();
	return 0;
}
