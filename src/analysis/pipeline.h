/*
 * Parallel decoding of a trace's streams, packet by packet: the bottom of
 * the timeline model (timeline.h), and nothing else reads raw events for an
 * analysis.
 *
 * A packet is the unit of work. Claiming a packet (reading its context,
 * checking it continues its stream: sequence number, discard total, times)
 * is sequential per stream and cheap (one small pread); decoding it (the
 * whole packet read, every event header and payload walked and indexed) is
 * the expensive part and runs on worker threads, one per core beside the
 * consumer. Each stream keeps at most HT_PIPE_AHEAD packets decoded ahead of
 * the consumer, so memory is bounded by streams x packet size whatever the
 * trace's size. When the consumer needs a packet nobody has claimed yet it
 * decodes it itself, so the pipeline also runs (and is tested) with no
 * worker at all.
 */
#ifndef HT_PIPELINE_H
#define HT_PIPELINE_H

#include <pthread.h>
#include <stdint.h>

#include "analysis/trace.h"

#define HT_PIPE_AHEAD 4		 /* packets decoded ahead per stream */
#define HT_PIPE_SMALL (4u << 20) /* bytes: a trace this small gets no worker by default */

/* What kind of stream a file is, by its name (process, thread-*, device-*, os-*, samples). */
enum ht_pipe_kind {
	HT_PK_PROCESS = 1 << 0,
	HT_PK_THREAD = 1 << 1,
	HT_PK_DEVICE = 1 << 2,
	HT_PK_OS = 1 << 3,
	HT_PK_SAMPLES = 1 << 4, /* CPU samples `record` wrote (sampling/collect.h) */
	HT_PK_ALL = 0x1f,
};

/* An event of a decoded packet: its full timestamp and where its payload is. */
struct ht_evref {
	uint64_t ts;
	uint32_t off; /* payload offset in the packet */
	uint16_t size;
	uint16_t id;
};

/* A decoded packet. */
struct ht_batch {
	unsigned int stream;
	struct ht_packet pk;
	uint8_t *buf; /* the whole packet */
	size_t cap;
	struct ht_evref *ev;
	size_t n, cap_ev;
	uint32_t by_class[32]; /* events per class id (ids >= 32 not counted) */
	int raw; /* RAW timestamps (not finalized): no events decoded, see ht_pipe_opts.allow_raw */
};

struct ht_pipe_stream {
	const struct ht_trace_process *tp;
	unsigned int proc; /* index into the trace's processes */
	char name[256];
	enum ht_pipe_kind kind;
	int fd;
	uint64_t file_size;
	char path[520]; /* "<proc>/<stream>" for messages */
	/* claiming state (pipe lock) */
	uint64_t next_off;
	uint64_t claimed, taken; /* packets claimed / handed to the consumer */
	int end;		 /* no packet left to claim */
	int torn;		 /* the file ends inside a packet */
	uint64_t torn_offset, torn_bytes;
	uint64_t prev_seq, prev_discarded, prev_end, prev_instance;
	int32_t prev_vtid;
	enum ht_stream_class prev_sc;
	/* the stream's first packet context, once claimed (vtid, device, queue) */
	int have_first;
	struct ht_packet first;
	/* decode slots, indexed by packet number % HT_PIPE_AHEAD */
	struct ht_pipe_slot {
		int state; /* SLOT_* in pipeline.c */
		struct ht_batch b;
		struct ht_read_error err;
		int rc;
	} slot[HT_PIPE_AHEAD];
	uint64_t raw_packets;
	uint64_t packets; /* handed to the consumer */
};

struct ht_pipe_opts {
	unsigned int kinds; /* enum ht_pipe_kind mask: which streams to read */
	int workers;	    /* decoding threads; < 0: one per core beside the consumer (none for a
			     * trace under HT_PIPE_SMALL) */
	int allow_raw;	    /* RAW packets are counted and skipped, not an error */
};

struct ht_pipe {
	struct ht_trace *trace;
	struct ht_pipe_stream *streams;
	unsigned int nstreams;
	struct ht_pipe_opts opts;
	pthread_mutex_t lock;
	pthread_cond_t work; /* a slot became free, or the pipe stops */
	pthread_cond_t done; /* a packet was decoded */
	pthread_t *threads;
	unsigned int nthreads;
	unsigned int rr; /* round-robin start of the workers' search */
	int stop;
};

/*
 * Opens every stream of the kinds asked for and starts the workers.
 * Return: 0, or < 0 with err filled and nothing left to close.
 */
int ht_pipe_open(struct ht_pipe *p, struct ht_trace *t, const struct ht_pipe_opts *o,
		 struct ht_read_error *err);
/*
 * The next decoded packet of stream s, in order; the previous one it returned
 * for s is released (its buffers reused). Return: 1 with *out, 0 at the end
 * of the stream, < 0 on a read error (err filled). Consumer thread only.
 */
int ht_pipe_next(struct ht_pipe *p, unsigned int s, const struct ht_batch **out,
		 struct ht_read_error *err);
void ht_pipe_close(struct ht_pipe *p);

/* Return: the stream kind of a stream file name. */
enum ht_pipe_kind ht_pipe_kind_of(const char *name);

#endif
