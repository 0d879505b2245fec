/*
 * A hetrace trace on disk: the top directory (index + one CTF trace per
 * process) and sequential reading of one stream file, packet by packet, in
 * memory bounded by the packet size. The k-way merge over all streams is
 * built on top of this.
 */
#ifndef HT_TRACE_H
#define HT_TRACE_H

#include <stdint.h>

#include "format/packet.h"

#define HT_INDEX_FILE "hetrace.index"

struct ht_trace_stream {
	char name[256];
};

struct ht_trace_process {
	char name[256]; /* directory name, "<pid>-<comm>" */
	int fd;
	uint8_t uuid[16];
	struct ht_trace_stream *streams;
	unsigned int nstreams;
};

struct ht_trace {
	char path[4096];
	int fd;
	struct ht_trace_process *procs;
	unsigned int nprocs;
};

/*
 * Opens a trace directory: every sub-directory with a hetrace `metadata`
 * file is a process. Return: 0, or -errno / -EBADMSG with err filled.
 */
int ht_trace_open(struct ht_trace **out, const char *path, struct ht_read_error *err);
void ht_trace_close(struct ht_trace *t);

/* Reads `key` from the top-level index into buf. Return: 0, or -ENOENT. */
int ht_trace_index_get(const struct ht_trace *t, const char *key, char *buf, size_t cap);
/* The same for the nth (from 0) line of a key that repeats (untraced=). */
int ht_trace_index_get_nth(const struct ht_trace *t, const char *key, unsigned int nth, char *buf,
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
