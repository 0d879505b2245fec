/*
 * Decoding of one packet held in memory: its context and its events. The
 * stream reader, `hetrace check` and the finalizer all go through here, so
 * a trace is validated the same way everywhere.
 */
#ifndef HT_PACKET_H
#define HT_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ht_packet {
	uint64_t offset; /* in the stream file */
	enum ht_stream_class sc;
	uint8_t uuid[16];
	uint64_t instance;
	uint64_t ts_begin, ts_end;
	uint64_t content; /* bytes */
	uint64_t size;	  /* bytes */
	uint64_t seq;
	uint64_t discarded;
	uint32_t cpu;
	int32_t vpid, vtid;
	char procname[HT_PROCNAME_LEN + 1];
	uint64_t tsc_begin, tsc_end;
	uint8_t ts_state;
	uint32_t device;
	uint64_t queue;
	size_t ctx_end;
};

/* What went wrong, where: for one-line messages naming file and offset. */
#define HT_NO_OFFSET UINT64_MAX /* the problem is the file as a whole */
struct ht_read_error {
	char file[4608];
	uint64_t offset;
	char msg[200];
};

/*
 * Decodes a packet context from the first `avail` bytes at file offset `off`.
 * Return: 0; -EAGAIN when the bytes end before the packet does (torn);
 * -EBADMSG when it is not a valid packet (err->msg says why).
 */
int ht_packet_decode(struct ht_packet *pk, const uint8_t *buf, size_t avail, uint64_t off,
		     struct ht_read_error *err);

/* An event inside a decoded packet. */
struct ht_event {
	enum ht_stream_class sc;
	uint32_t id;
	uint64_t ts;	       /* ns; raw counter value when the packet is RAW */
	const uint8_t *header; /* event header in the packet buffer */
	size_t header_size;
	const uint8_t *payload;
	size_t size; /* payload bytes */
	const struct ht_event_class *ec;
};

struct ht_event_iter {
	const struct ht_packet *pk;
	const uint8_t *buf; /* the packet */
	size_t pos;
	uint64_t last; /* full timestamp of the previous event */
};

void ht_event_iter_init(struct ht_event_iter *it, const struct ht_packet *pk, const uint8_t *buf);
/*
 * Return: 1 with *ev filled, 0 at the end of the packet's content,
 * -EBADMSG for a malformed event (err says where and why).
 */
int ht_event_iter_next(struct ht_event_iter *it, struct ht_event *ev, struct ht_read_error *err);

#endif
