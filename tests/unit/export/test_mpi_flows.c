/*
 * MPI message flows of the Chrome and Perfetto exports (export/mpi_flows.h):
 * the k-th send and the k-th receive of a (communicator, source,
 * destination, tag) get one flow id; a receive the clocks put before its
 * send gets none, is counted, and the messages after it still pair.
 */
#include <stdint.h>

#include "../check.h"
#include "analysis/timeline.h"
#include "export/mpi_flows.h"

static struct ht_tl_record msg(int send, int32_t rank, int32_t peer, int32_t tag)
{
	struct ht_tl_record r;

	memset(&r, 0, sizeof r);
	r.kind = HT_TL_MPI;
	r.cmd_kind = send ? HT_TL_MPI_SEND : HT_TL_MPI_RECV;
	r.mpi.comm = 1;
	r.mpi.rank = rank;
	r.mpi.peer_world = peer;
	r.mpi.tag = tag;
	return r;
}

int main(void)
{
	struct ht_mpi_flows f = {0};
	struct ht_tl_record s = msg(1, 0, 1, 5), r = msg(0, 1, 0, 5), other = msg(1, 0, 1, 6);
	uint64_t a = 0, b = 0, c = 0;

	/* in order: one flow */
	CHECK_EQ(ht_mpi_flow(&f, &s, &a), HT_MPI_FLOW_START);
	CHECK_EQ(ht_mpi_flow(&f, &r, &b), HT_MPI_FLOW_END);
	CHECK_EQ(a, b);
	CHECK(a >> 63);
	/* another tag: its own sequence, its own id */
	CHECK_EQ(ht_mpi_flow(&f, &other, &c), HT_MPI_FLOW_START);
	CHECK(c != a);
	/* the second message's receive first (clocks): no flow, counted */
	CHECK_EQ(ht_mpi_flow(&f, &r, &b), HT_MPI_FLOW_NONE);
	CHECK_EQ(f.orphans, 1);
	CHECK_EQ(ht_mpi_flow(&f, &s, &a), HT_MPI_FLOW_START);
	/* the third message pairs as the third of each side */
	CHECK_EQ(ht_mpi_flow(&f, &s, &a), HT_MPI_FLOW_START);
	CHECK_EQ(ht_mpi_flow(&f, &r, &b), HT_MPI_FLOW_END);
	CHECK_EQ(a, b);
	CHECK_EQ(f.orphans, 1);
	/* an unknown peer or a cancelled receive: not a message, not an orphan */
	r.mpi.peer_world = -1;
	CHECK_EQ(ht_mpi_flow(&f, &r, &b), HT_MPI_FLOW_NONE);
	r.mpi.peer_world = 0;
	r.mpi.cancelled = 1;
	CHECK_EQ(ht_mpi_flow(&f, &r, &b), HT_MPI_FLOW_NONE);
	CHECK_EQ(f.orphans, 1);
	ht_mpi_flows_warn(&f);
	ht_mpi_flows_release(&f);
	CHECK_DONE();
}
