/*
 * libhetrace-mpireduce.so: `mpirun -np K hetrace report` (reduce.h). The
 * reduction is MPI's point-to-point in part order: rank 0 takes part i from
 * rank i mod K (one header, then the bytes), so merging needs no sorting
 * and a rank that failed still sends its error in its part's place; no
 * rank ever waits for a message that will not come.
 */
#include <errno.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "analysis/trace.h"
#include "mpi/reduce.h"

#define CHUNK	   (1 << 16) /* bytes per message (a failed receiver drains them in one) */
#define TAG_HEADER 1
#define TAG_BYTES  2

static void send_bytes(const uint8_t *p, size_t n)
{
	do {
		int k = n > CHUNK ? CHUNK : (int)n;

		MPI_Send(p, k, MPI_BYTE, 0, TAG_BYTES, MPI_COMM_WORLD);
		p += k;
		n -= (size_t)k;
	} while (n);
}

static void recv_bytes(uint8_t *p, size_t n, int from)
{
	do {
		int k = n > CHUNK ? CHUNK : (int)n;

		MPI_Recv(p, k, MPI_BYTE, from, TAG_BYTES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		p += k;
		n -= (size_t)k;
	} while (n);
}

/* A rank's part i to rank 0: header = its length in bytes, or the error (< 0) and err. */
static void ship(const struct ht_mpi_reduce_ops *ops, struct ht_trace *t, unsigned int i)
{
	struct ht_report r;
	struct ht_read_error err = {0};
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t h;
	int rc = ops->compute_one(t, i, &r, &err);

	if (!rc) {
		rc = ops->put(&r, &buf, &len);
		ops->release(&r);
		if (rc)
			snprintf(err.msg, sizeof err.msg, "out of memory");
	}
	h = rc ? rc : (int64_t)len;
	MPI_Send(&h, 1, MPI_INT64_T, 0, TAG_HEADER, MPI_COMM_WORLD);
	if (rc)
		send_bytes((const uint8_t *)&err, sizeof err);
	else
		send_bytes(buf, len);
	free(buf);
}

/* Rank 0: part i from rank `from`. Return: 0 with *r, or < 0 with err. */
static int take(const struct ht_mpi_reduce_ops *ops, int from, struct ht_report *r,
		struct ht_read_error *err)
{
	int64_t h;
	uint8_t *buf;
	int rc;

	MPI_Recv(&h, 1, MPI_INT64_T, from, TAG_HEADER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (h < 0) {
		recv_bytes((uint8_t *)err, sizeof *err, from);
		err->msg[sizeof err->msg - 1] = '\0';
		err->file[sizeof err->file - 1] = '\0';
		return (int)h;
	}
	buf = malloc(h ? (size_t)h : 1);
	if (!buf) {
		/* take the bytes all the same: the sender must not wait forever */
		static uint8_t drain[CHUNK];

		for (int64_t left = h; left > 0; left -= CHUNK)
			recv_bytes(drain, left > CHUNK ? CHUNK : (size_t)left, from);
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -ENOMEM;
	}
	if (h)
		recv_bytes(buf, (size_t)h, from);
	rc = ops->get(r, buf, (size_t)h);
	free(buf);
	if (rc)
		snprintf(err->msg, sizeof err->msg,
			 "a part's report from rank %d is unreadable (%s)", from,
			 rc == -EBADMSG ? "another hetrace build?" : "out of memory");
	return rc;
}

__attribute__((visibility("default"))) int ht_mpi_reduce_report(const struct ht_mpi_reduce_ops *ops,
								struct ht_trace *t,
								struct ht_report *r,
								struct ht_read_error *err)
{
	int rank = 0, size = 1, inited = 0, rc = 0;

	MPI_Initialized(&inited);
	if (!inited && MPI_Init(NULL, NULL) != MPI_SUCCESS) {
		snprintf(err->msg, sizeof err->msg, "MPI_Init failed");
		return -EIO;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	memset(r, 0, sizeof *r);
	if (rank) {
		for (unsigned int i = (unsigned int)rank; i < t->nparts; i += (unsigned int)size)
			ship(ops, t, i);
		MPI_Finalize();
		return 1;
	}
	for (unsigned int i = 0; i < t->nparts; i++) {
		struct ht_report part = {0};
		struct ht_read_error perr = {0};
		int from = (int)(i % (unsigned int)size),
		    prc =
			from ? take(ops, from, &part, &perr) : ops->compute_one(t, i, &part, &perr);

		/* after an error the other parts are still taken, not merged */
		if (!prc && !rc)
			prc = ops->merge(r, &part, ops->part_base(t, i));
		ops->release(&part);
		if (prc && !rc) {
			rc = prc;
			*err = perr;
			if (!err->msg[0])
				snprintf(err->msg, sizeof err->msg, "out of memory");
		}
	}
	if (!rc)
		rc = ops->merge_done(r);
	if (rc) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof err->msg, "out of memory");
		ops->release(r);
	}
	MPI_Finalize();
	return rc;
}
