/*
 * A minimal protobuf wire-format writer for the Perfetto exporter: fields
 * are appended to one growable buffer; a nested message is opened with
 * ht_pb_begin() (which reserves a 4-byte length) and closed with
 * ht_pb_end(), which writes the length as a minimal varint and slides the
 * body back over the unused reserve bytes. So encoding is single-pass and
 * the output is canonical (no redundant varints). Strings are written as
 * valid UTF-8: invalid bytes become U+FFFD.
 *
 * Errors (out of memory, a message over 256 MiB, nesting too deep) are
 * sticky in pb->error and checked once by the caller.
 */
#ifndef HT_PROTOBUF_H
#define HT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#define HT_PB_MAX_DEPTH 16

struct ht_pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[HT_PB_MAX_DEPTH]; /* body offsets of the open messages */
	unsigned int depth;
	int error; /* 0, or -ENOMEM / -EOVERFLOW */
};

void ht_pb_init(struct ht_pb *pb);
void ht_pb_fini(struct ht_pb *pb);
/* Empties the buffer (keeps its memory); all messages must be closed. */
void ht_pb_reset(struct ht_pb *pb);

void ht_pb_varint(struct ht_pb *pb, uint32_t field, uint64_t v);
/* int32/int64 fields: two's complement as a varint (10 bytes if negative). */
void ht_pb_int(struct ht_pb *pb, uint32_t field, int64_t v);
void ht_pb_fixed64(struct ht_pb *pb, uint32_t field, uint64_t v);
void ht_pb_double(struct ht_pb *pb, uint32_t field, double v);
/* A string field; NULL writes an empty string. */
void ht_pb_string(struct ht_pb *pb, uint32_t field, const char *s);
void ht_pb_begin(struct ht_pb *pb, uint32_t field);
void ht_pb_end(struct ht_pb *pb);

#endif
