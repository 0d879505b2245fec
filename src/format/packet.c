/*
 * Packet context and event decoding (see packet.h). Every length read from
 * the file is checked before it is used: traces may be truncated, corrupt or
 * hostile.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/packet.h"

#define HT_PACKET_SIZE_MAX (256ull * 1024 * 1024)

__attribute__((format(printf, 3, 4))) static int bad(struct ht_read_error *err, uint64_t off,
							const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->offset = off;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

int ht_packet_decode(struct ht_packet *pk, const uint8_t *b, size_t avail, uint64_t off,
		     struct ht_read_error *err)
{
	uint32_t magic;

	memset(pk, 0, sizeof *pk);
	pk->offset = off;
	if (avail < HT_PC_THREAD_END) {
		/* A short tail: torn if it is all we have of a packet. */
		return -EAGAIN;
	}
	magic = ht_le32(b + HT_PH_MAGIC);
	if (magic != HT_CTF_MAGIC) {
		for (size_t i = 0; i < HT_PC_THREAD_END; i++)
			if (b[i])
				return bad(err, off, "bad packet magic 0x%08x", magic);
		return -EAGAIN; /* zeros: a packet reserved but never written */
	}
	memcpy(pk->uuid, b + HT_PH_UUID, 16);
	pk->sc = (enum ht_stream_class)ht_le32(b + HT_PH_STREAM_ID);
	if ((unsigned)pk->sc >= HT_SC_COUNT)
		return bad(err, off, "unknown stream class %u", (unsigned)pk->sc);
	pk->ctx_end = ht_format_context_end(pk->sc);
	if (avail < pk->ctx_end)
		return -EAGAIN;
	pk->instance = ht_le64(b + HT_PH_INSTANCE);
	pk->ts_begin = ht_le64(b + HT_PC_TS_BEGIN);
	pk->ts_end = ht_le64(b + HT_PC_TS_END);
	uint64_t content_bits = ht_le64(b + HT_PC_CONTENT);
	uint64_t packet_bits = ht_le64(b + HT_PC_PACKET);
	pk->seq = ht_le64(b + HT_PC_SEQ);
	pk->discarded = ht_le64(b + HT_PC_DISCARDED);
	pk->cpu = ht_le32(b + HT_PC_CPU);
	pk->vpid = (int32_t)ht_le32(b + HT_PC_VPID);
	pk->vtid = (int32_t)ht_le32(b + HT_PC_VTID);
	memcpy(pk->procname, b + HT_PC_PROCNAME, HT_PROCNAME_LEN);
	pk->procname[HT_PROCNAME_LEN] = '\0';
	pk->tsc_begin = ht_le64(b + HT_PC_TSC_BEGIN);
	pk->tsc_end = ht_le64(b + HT_PC_TSC_END);
	pk->ts_state = b[HT_PC_TS_STATE];
	if (pk->sc == HT_SC_DEVICE) {
		pk->device = ht_le32(b + HT_PC_DEVICE);
		pk->queue = ht_le64(b + HT_PC_QUEUE);
	}
	if (packet_bits % 8 || content_bits % 8)
		return bad(err, off, "packet size %llu / content size %llu bits not whole bytes",
			   (unsigned long long)packet_bits, (unsigned long long)content_bits);
	pk->size = packet_bits / 8;
	pk->content = content_bits / 8;
	if (pk->size < pk->ctx_end || pk->size > HT_PACKET_SIZE_MAX)
		return bad(err, off, "packet size %llu bytes out of range (context is %zu)",
			   (unsigned long long)pk->size, pk->ctx_end);
	if (pk->content < pk->ctx_end || pk->content > pk->size)
		return bad(err, off, "content size %llu bytes outside the packet (%llu bytes)",
			   (unsigned long long)pk->content, (unsigned long long)pk->size);
	if (pk->ts_state > HT_TS_NS)
		return bad(err, off, "unknown timestamp state %u", pk->ts_state);
	if (pk->ts_state == HT_TS_NS && pk->ts_end && pk->ts_end < pk->ts_begin)
		return bad(err, off, "packet ends (%llu) before it begins (%llu)",
			   (unsigned long long)pk->ts_end, (unsigned long long)pk->ts_begin);
	if (avail < pk->size)
		return -EAGAIN;
	return 0;
}

void ht_event_iter_init(struct ht_event_iter *it, const struct ht_packet *pk, const uint8_t *buf)
{
	it->pk = pk;
	it->buf = buf;
	it->pos = pk->ctx_end;
	it->last = pk->ts_state == HT_TS_RAW ? pk->tsc_begin : pk->ts_begin;
}

int ht_event_iter_next(struct ht_event_iter *it, struct ht_event *ev, struct ht_read_error *err)
{
	const uint8_t *b = it->buf;
	size_t end = it->pk->content, pos = it->pos;
	uint64_t off = it->pk->offset + pos;
	uint32_t w, id;
	uint64_t ts;
	long n;

	if (pos >= end)
		return 0;
	if (end - pos < HT_EH_COMPACT_SIZE)
		return bad(err, off, "event header cut by the content end (%zu bytes left)", end - pos);
	w = ht_le32(b + pos);
	id = w & 0x1f;
	ev->header = b + pos;
	if (id != HT_EH_EXTENDED) {
		uint64_t low = w >> 5;

		ts = (it->last & ~(uint64_t)HT_EH_COMPACT_MASK) | low;
		if (ts < it->last)
			ts += (uint64_t)1 << HT_EH_COMPACT_BITS;
		ev->header_size = HT_EH_COMPACT_SIZE;
	} else {
		if (end - pos < HT_EH_EXTENDED_SIZE)
			return bad(err, off, "extended header cut by the content end");
		id = ht_le32(b + pos + 1);
		ts = ht_le64(b + pos + 5);
		if (ts < it->last)
			return bad(err, off, "timestamp %llu goes back (previous %llu)",
				   (unsigned long long)ts, (unsigned long long)it->last);
		ev->header_size = HT_EH_EXTENDED_SIZE;
	}
	ev->ec = ht_format_event_class(it->pk->sc, id);
	if (!ev->ec)
		return bad(err, off, "unknown event id %u in a %s stream", id,
			   ht_format_stream_class_name(it->pk->sc));
	pos += ev->header_size;
	n = ht_format_payload_size(ev->ec, b + pos, end - pos);
	if (n < 0)
		return bad(err, off, "payload of event '%s' runs past the content end",
			   ev->ec->name);
	ev->sc = it->pk->sc;
	ev->id = id;
	ev->ts = ts;
	ev->payload = b + pos;
	ev->size = (size_t)n;
	it->pos = pos + (size_t)n;
	it->last = ts;
	return 1;
}
