/* MPI messages as flows (mpi_flows.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "analysis/timeline.h"
#include "export/mpi_flows.h"

/* splitmix64's finaliser: a 64-bit mix of the message key. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

int ht_mpi_flow(struct ht_mpi_flows *f, const struct ht_tl_record *r, uint64_t *id)
{
	const struct ht_tl_mpi_fields *m = &r->mpi;
	int send = r->cmd_kind == HT_TL_MPI_SEND || r->cmd_kind == HT_TL_MPI_ISEND;
	int32_t src = send ? m->rank : m->peer_world, dst = send ? m->peer_world : m->rank;
	uint64_t key, *n;

	if (r->kind != HT_TL_MPI || src < 0 || dst < 0 || m->cancelled ||
	    (!send && r->cmd_kind != HT_TL_MPI_RECV && r->cmd_kind != HT_TL_MPI_IRECV))
		return HT_MPI_FLOW_NONE;
	key = mix(mix(mix(m->comm) ^ ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst)) ^
		  (uint32_t)m->tag);
	n = ht_map_u64(&f->seq, (key << 1 | (uint64_t)send) | 1ull << 63, 0, NULL);
	if (!n)
		return -ENOMEM;
	*id = (mix(key + *n) | 1ull << 63);
	++*n;
	if (send)
		return ht_map_u64(&f->open, *id, 1, NULL) ? HT_MPI_FLOW_START : -ENOMEM;
	if (ht_map_del_u64(&f->open, *id))
		return HT_MPI_FLOW_END;
	f->orphans++;
	return HT_MPI_FLOW_NONE;
}

void ht_mpi_flows_warn(const struct ht_mpi_flows *f)
{
	if (f->orphans)
		fprintf(stderr,
			"hetrace: warning: %" PRIu64 " MPI receive%s drawn without an arrow from "
			"%s send: the send is not in the trace, or it comes later on the trace's "
			"clock (ranks' clock offsets off by more than the message took: 'hetrace "
			"report' gives each rank's error bound)\n",
			f->orphans, f->orphans == 1 ? "" : "s", f->orphans == 1 ? "its" : "their");
}

void ht_mpi_flows_release(struct ht_mpi_flows *f)
{
	ht_map_release(&f->seq);
	ht_map_release(&f->open);
}
