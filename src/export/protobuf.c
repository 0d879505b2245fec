/*
 * Protobuf wire-format writer (see protobuf.h). Wire types used: 0 varint,
 * 1 fixed64 and 2 length-delimited.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/escape.h"
#include "common/grow.h"
#include "export/protobuf.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

#define RESERVE	   4	      /* bytes reserved for a nested length */
#define MAX_NESTED (1u << 28) /* what 4 varint bytes can hold */

void ht_pb_init(struct ht_pb *pb)
{
	memset(pb, 0, sizeof *pb);
}

void ht_pb_fini(struct ht_pb *pb)
{
	free(pb->buf);
	ht_pb_init(pb);
}

void ht_pb_reset(struct ht_pb *pb)
{
	pb->len = 0;
	pb->depth = 0;
}

/* Return: room for n more bytes at pb->buf + pb->len, or NULL (error set). */
static uint8_t *room(struct ht_pb *pb, size_t n)
{
	if (pb->error)
		return NULL;
	if (ht_grow((void **)&pb->buf, &pb->cap, 1, pb->len + n)) {
		pb->error = -ENOMEM;
		return NULL;
	}
	return pb->buf + pb->len;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void raw_varint(struct ht_pb *pb, uint64_t v)
{
	uint8_t *p = room(pb, 10);

	if (p)
		pb->len += put_varint(p, v);
}

static void tag(struct ht_pb *pb, uint32_t field, unsigned int wt)
{
	raw_varint(pb, (uint64_t)field << 3 | wt);
}

void ht_pb_varint(struct ht_pb *pb, uint32_t field, uint64_t v)
{
	tag(pb, field, WT_VARINT);
	raw_varint(pb, v);
}

void ht_pb_int(struct ht_pb *pb, uint32_t field, int64_t v)
{
	ht_pb_varint(pb, field, (uint64_t)v);
}

void ht_pb_fixed64(struct ht_pb *pb, uint32_t field, uint64_t v)
{
	uint8_t *p;

	tag(pb, field, WT_I64);
	p = room(pb, 8);
	if (!p)
		return;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	pb->len += 8;
}

void ht_pb_double(struct ht_pb *pb, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	ht_pb_fixed64(pb, field, u);
}

void ht_pb_string(struct ht_pb *pb, uint32_t field, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t out = 0, i;
	int clean = 1;
	uint8_t *p;

	for (i = 0; s[i];) {
		int n = ht_utf8_len(s + i);

		out += n ? (size_t)n : 3;
		clean &= n != 0;
		i += n ? (size_t)n : 1;
	}
	tag(pb, field, WT_LEN);
	raw_varint(pb, out);
	p = room(pb, out);
	if (!p)
		return;
	if (clean) {
		memcpy(p, s, out);
	} else {
		for (i = 0; s[i];) {
			int n = ht_utf8_len(s + i);

			if (n) {
				memcpy(p, s + i, (size_t)n);
				p += n;
				i += (size_t)n;
			} else {
				memcpy(p, "\xEF\xBF\xBD", 3); /* U+FFFD */
				p += 3;
				i++;
			}
		}
	}
	pb->len += out;
}

void ht_pb_begin(struct ht_pb *pb, uint32_t field)
{
	if (pb->depth == HT_PB_MAX_DEPTH) {
		pb->error = -EOVERFLOW;
		return;
	}
	tag(pb, field, WT_LEN);
	if (!room(pb, RESERVE))
		return;
	pb->len += RESERVE;
	pb->open[pb->depth++] = pb->len;
}

void ht_pb_end(struct ht_pb *pb)
{
	size_t body, size, n;
	uint8_t len[10];

	if (pb->error || !pb->depth)
		return;
	body = pb->open[--pb->depth];
	size = pb->len - body;
	if (size >= MAX_NESTED) {
		pb->error = -EOVERFLOW;
		return;
	}
	/* Only this message lies after `body`: every other open one starts earlier. */
	n = put_varint(len, size);
	memmove(pb->buf + body - RESERVE + n, pb->buf + body, size);
	memcpy(pb->buf + body - RESERVE, len, n);
	pb->len -= RESERVE - n;
}
