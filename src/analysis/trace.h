/*
 * A hetrace trace on disk: the top directory (index + one CTF trace per
 * process) and sequential reading of one stream file, packet by packet, in
 * memory bounded by the packet size. The k-way merge over all streams is
 * built on top of this.
 *
 * An MPI job recorded rank by rank (`mpirun hetrace record -o T`) is a
 * trace of parts: T's index says layout=parts and lists them ("part=NAME
 * rank=R host=H" lines, cli/record_mpi.c), each T/NAME/ a trace of its own
 * (index, process directories). Opening T opens the processes of every
 * listed part whose directory exists; a process's name is then
 * "NAME/<pid>-<comm>".
 */
#ifndef HT_TRACE_H
#define HT_TRACE_H

#include <stdint.h>

#include "format/packet.h"

#define HT_INDEX_FILE "hetrace.index"

struct ht_trace_stream {
	char name[256];
};

/*
 * A process's clock against the job's reference clock (an MPI rank's
 * against rank 0's, mpi_defs.h): its trace times are local - offset(local),
 * offset(t) = off0 + (t - t0) x slope. n == 0: the process's clock is the
 * reference (every process of a trace that is no MPI job).
 */
struct ht_clock_shift {
	unsigned int n; /* clock measurements it comes from */
	uint64_t t0;
	int64_t off0;
	double slope;	/* drift, within +-1e-3 (so times keep their order) */
	uint64_t error; /* bound of the offset's error, ns */
};

/* Return: local time ts as trace time (0 stays 0: "unknown" in payloads). */
static inline uint64_t ht_clock_shift_apply(const struct ht_clock_shift *c, uint64_t ts)
{
	int64_t off;

	if (!c->n || !ts)
		return ts;
	off = c->off0 + (int64_t)((double)(int64_t)(ts - c->t0) * c->slope);
	if (off > 0 && (uint64_t)off >= ts)
		return 1;
	return ts - (uint64_t)off;
}

struct ht_trace_process {
	char name[256]; /* directory name, "<pid>-<comm>" ("<part>/<pid>-<comm>" in parts) */
	int fd;
	unsigned int part;	     /* index into ht_trace.parts (0 without parts) */
	struct ht_clock_shift shift; /* set by the timeline (mpi_defs.h) */
	uint8_t uuid[16];
	struct ht_trace_stream *streams;
	unsigned int nstreams;
};

/* A part of a job's trace: one rank's recording. */
struct ht_trace_part {
	char name[128]; /* its directory under the trace */
	char host[72];
	int rank;
	int fd;
};

struct ht_trace {
	char path[4096];
	int fd;
	struct ht_trace_process *procs;
	unsigned int nprocs;
	struct ht_trace_part *parts; /* in rank order; none for a trace of one recording */
	unsigned int nparts;
};

/*
 * Opens a trace directory: every sub-directory with a hetrace `metadata`
 * file is a process. Return: 0, or -errno / -EBADMSG with err filled.
 */
int ht_trace_open(struct ht_trace **out, const char *path, struct ht_read_error *err);
void ht_trace_close(struct ht_trace *t);

/*
 * Reads `key` from the top-level index into buf; in a trace of parts, a key
 * the top-level index lacks (command, start times, clock) is the first
 * part's. Return: 0, or -ENOENT.
 */
int ht_trace_index_get(const struct ht_trace *t, const char *key, char *buf, size_t cap);
/* The same for the nth (from 0) line of a key that repeats (untraced=). */
int ht_trace_index_get_nth(const struct ht_trace *t, const char *key, unsigned int nth, char *buf,
			   size_t cap);
/* The index file of directory dfd, NUL-terminated (caller frees). Return: 0, -ENOENT or -errno. */
int ht_trace_index_read(int dfd, char **text);
/* Reads `key` from part i's own index. Return: 0, or -ENOENT. */
int ht_trace_part_index_get(const struct ht_trace *t, unsigned int i, const char *key, char *buf,
			    size_t cap);

struct ht_stream_reader {
	int fd;
	char path[520]; /* for messages: "<proc>/<stream>" */
	const uint8_t *uuid;
	uint64_t file_size;
	uint64_t next; /* offset of the next packet */
	uint8_t *buf;
	size_t cap;
	struct ht_packet pk;
	struct ht_event_iter it;
	int have_packet;
	uint64_t packets;
	/* A torn tail: bytes at the end that do not form a whole packet. */
	int torn;
	uint64_t torn_offset, torn_bytes;
	/* Cross-packet checks. */
	uint64_t prev_seq, prev_discarded, prev_end, prev_instance;
	int32_t prev_vtid;
	enum ht_stream_class prev_sc;
};

/* Return: 0, or -errno with err filled. */
int ht_stream_reader_open(struct ht_stream_reader *r, const struct ht_trace_process *p,
			  const char *stream, struct ht_read_error *err);
void ht_stream_reader_close(struct ht_stream_reader *r);

/* Loads the next packet. Return: 1, 0 at the end (see r->torn), -EBADMSG/-errno. */
int ht_stream_reader_next_packet(struct ht_stream_reader *r, struct ht_read_error *err);

/* Return: 1 with the next event, 0 at the end of the stream, < 0 on error. */
int ht_stream_reader_next(struct ht_stream_reader *r, struct ht_event *ev,
			  struct ht_read_error *err);

#endif
