/*
 * The MPI benchmark's program (bench/mpi.sh), one rank: times two loops of
 * MPI calls with CLOCK_MONOTONIC and prints ns per call, so the same binary
 * run plain and under `hetrace record` gives the recording's cost per call.
 *
 *   test   MPI_Test of MPI_REQUEST_NULL: a call that does nearly nothing,
 *          so what is left is the interposer's api_begin/api_end
 *   p2p    a message to itself: MPI_Irecv, MPI_Send, MPI_Wait (the records
 *          of a message besides the calls: send, receive posted, completed)
 *
 * Each loop runs a tenth of its count untimed first (buffers touched, paths
 * warm).
 *
 *   ht-bench-mpi [TEST_CALLS [P2P_ROUNDS]]    defaults: 200000, 50000
 * Prints: result test_ns=X p2p_ns=Y
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void test_loop(long n)
{
	int flag;

	for (long i = 0; i < n; i++) {
		MPI_Request r = MPI_REQUEST_NULL;

		MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
	}
}

static void p2p_loop(long n, int *in, int *out)
{
	for (long i = 0; i < n; i++) {
		MPI_Request r;

		MPI_Irecv(in, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &r);
		MPI_Send(out, 1, MPI_INT, 0, 7, MPI_COMM_SELF);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
}

int main(int argc, char **argv)
{
	long tests = argc > 1 ? atol(argv[1]) : 200000, rounds = argc > 2 ? atol(argv[2]) : 50000;
	int in = 0, out = 1;
	double t0, test_ns, p2p_ns;

	MPI_Init(&argc, &argv);
	test_loop(tests / 10);
	t0 = now_ns();
	test_loop(tests);
	test_ns = (now_ns() - t0) / (double)tests;
	p2p_loop(rounds / 10, &in, &out);
	t0 = now_ns();
	p2p_loop(rounds, &in, &out);
	p2p_ns = (now_ns() - t0) / (double)(3 * rounds);
	printf("result test_ns=%.1f p2p_ns=%.1f\n", test_ns, p2p_ns);
	MPI_Finalize();
	return in != out;
}
