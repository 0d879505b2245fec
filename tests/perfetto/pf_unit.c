/*
 * Unit tests of the exporters' building blocks: the protobuf writer
 * (varints, negative ints, fixed64, nested lengths compacted to minimal
 * varints at every size class, UTF-8 repair), the byte-keyed map (including
 * deletion inside probe chains) and the device-queue lanes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_tracks.h"
#include "export/protobuf.h"

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static int bytes_eq(const struct ht_pb *pb, const char *want, size_t n)
{
	if (pb->len == n && !memcmp(pb->buf, want, n))
		return 1;
	fprintf(stderr, "got %zu bytes:", pb->len);
	for (size_t i = 0; i < pb->len && i < 32; i++)
		fprintf(stderr, " %02x", pb->buf[i]);
	fputc('\n', stderr);
	return 0;
}

static void test_scalars(void)
{
	struct ht_pb pb;

	ht_pb_init(&pb);
	ht_pb_varint(&pb, 1, 300);
	CHECK(bytes_eq(&pb, "\x08\xac\x02", 3));
	ht_pb_reset(&pb);
	ht_pb_int(&pb, 2, -1);
	CHECK(bytes_eq(&pb, "\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11));
	ht_pb_reset(&pb);
	ht_pb_fixed64(&pb, 47, 0x0102030405060708ull);
	CHECK(bytes_eq(&pb, "\xf9\x02\x08\x07\x06\x05\x04\x03\x02\x01", 10));
	ht_pb_reset(&pb);
	ht_pb_double(&pb, 5, 1.0);
	CHECK(bytes_eq(&pb, "\x29\x00\x00\x00\x00\x00\x00\xf0\x3f", 9));
	ht_pb_reset(&pb);
	/* an invalid byte, a truncated sequence, an overlong form, a surrogate */
	ht_pb_string(&pb, 3,
		     "a\xff"
		     "b\xc3");
	CHECK(bytes_eq(&pb,
		       "\x1a\x08"
		       "a\xef\xbf\xbd"
		       "b\xef\xbf\xbd",
		       10));
	ht_pb_reset(&pb);
	ht_pb_string(&pb, 3, "\xc0\xaf\xed\xa0\x80\xc3\xa9");
	CHECK(pb.len == 2 + 5 * 3 + 2 && pb.buf[1] == 17 && !memcmp(pb.buf + 17, "\xc3\xa9", 2));
	CHECK(!pb.error);
	ht_pb_fini(&pb);
}

static size_t varint_len(size_t v)
{
	size_t n = 1;

	for (; v >= 128; v >>= 7)
		n++;
	return n;
}

/* A message of body size n nested in another: both lengths minimal varints. */
static void test_nested(size_t n)
{
	static char body[70000];
	size_t str = 0, outer = 1 + varint_len(n) + n;
	struct ht_pb pb;

	/* the body is one string field: tag, length, str bytes (some n cannot be hit) */
	if (n) {
		for (str = n; str > 0 && 1 + varint_len(str) + str != n; str--)
			;
		if (!str)
			return;
	}
	memset(body, 'x', str);
	body[str] = '\0';
	ht_pb_init(&pb);
	ht_pb_begin(&pb, 1);
	ht_pb_begin(&pb, 2);
	if (n)
		ht_pb_string(&pb, 3, body);
	ht_pb_end(&pb);
	ht_pb_end(&pb);
	CHECK(!pb.error && pb.depth == 0);
	CHECK(pb.len == 1 + varint_len(outer) + outer);
	CHECK(pb.buf[0] == 0x0a && pb.buf[1 + varint_len(outer)] == 0x12);
	if (outer < 128)
		CHECK(pb.buf[1] == outer && pb.buf[3] == n);
	ht_pb_fini(&pb);
}

static int freed;

static void count_free(void *v)
{
	freed += *(int *)v;
	free(v);
}

/* Maps of objects (tracks): every value is handed to free_val exactly once. */
static void test_map(void)
{
	struct ht_map m = {0};
	char key[16];

	for (int i = 0; i < 5000; i++) {
		int *v = malloc(sizeof *v);

		CHECK(v);
		*v = 1;
		snprintf(key, sizeof key, "k%d", i);
		CHECK(ht_map_bytes(&m, key, strlen(key), (uintptr_t)v, NULL));
	}
	snprintf(key, sizeof key, "k%d", 4999);
	CHECK(*(int *)ht_export_map_ptr(ht_map_find_bytes(&m, key, strlen(key))) == 1);
	CHECK(ht_export_map_ptr(ht_map_find_bytes(&m, "k5000", 5)) == NULL);
	ht_export_map_destroy(&m, count_free);
	CHECK(freed == 5000 && m.n == 0);
}

static void test_lanes(void)
{
	struct ht_lanes l = {0};

	CHECK(ht_lanes_place(&l, 0, 10) == 0);
	CHECK(ht_lanes_place(&l, 5, 15) == 1);	/* overlaps lane 0 */
	CHECK(ht_lanes_place(&l, 10, 20) == 0); /* starts where lane 0 ended */
	CHECK(ht_lanes_place(&l, 12, 13) == 2); /* both busy */
	CHECK(ht_lanes_place(&l, 16, 17) == 1);
	CHECK(l.n == 3);
	ht_lanes_fini(&l);
}

int main(void)
{
	CHECK(ht_export_flow_id(1, 7) != ht_export_flow_id(2, 7));
	CHECK(ht_export_flow_id(1, 7) == ht_export_flow_id(1, 7));
	CHECK(ht_export_flow_id(1, 7) < (1ull << 53) && ht_export_flow_id(0, 0));
	test_scalars();
	for (size_t n = 0; n < 20000; n = n < 300 ? n + 1 : n * 3 / 2)
		test_nested(n);
	test_nested(16383);
	test_nested(16384);
	test_nested(65000);
	test_map();
	test_lanes();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		puts("ok");
	return failures != 0;
}
