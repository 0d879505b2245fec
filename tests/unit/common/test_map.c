/*
 * Unit tests for the hash map (common/map.h): a long random sequence of
 * inserts, lookups and deletions of u64 keys checked against a plain array,
 * so backward-shift deletion keeps every probe run reachable; string keys
 * are copied and found by content; byte keys the same (NULs inside, keys
 * that are prefixes of others), deleted as u64 keys are, and iteration
 * visits every entry once.
 */
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "common/map.h"

#define KEYS 4096

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_u64(void)
{
	static uint64_t want[KEYS];
	static uint8_t present[KEYS];
	struct ht_map m = {0};
	size_t n = 0;

	for (int step = 0; step < 400000; step++) {
		unsigned int k = (unsigned int)(rnd() % KEYS);
		/* keys that collide a lot: multiples of a large power of two */
		uint64_t key = (uint64_t)k << 40;
		int op = (int)(rnd() % 3), created;

		if (op == 0) {
			uint64_t *v = ht_map_u64(&m, key, step, &created);

			CHECK(v);
			CHECK_EQ(created, !present[k]);
			if (!present[k]) {
				want[k] = (uint64_t)step;
				present[k] = 1;
				n++;
			}
			CHECK_EQ(*v, want[k]);
		} else if (op == 1) {
			uint64_t *v = ht_map_find_u64(&m, key);

			CHECK_EQ(v != NULL, present[k]);
			if (v)
				CHECK_EQ(*v, want[k]);
		} else {
			CHECK_EQ(ht_map_del_u64(&m, key), present[k]);
			if (present[k])
				n--;
			present[k] = 0;
		}
		CHECK_EQ(m.n, n);
		if (check_failures)
			break;
	}
	for (unsigned int k = 0; k < KEYS; k++) {
		uint64_t *v = ht_map_find_u64(&m, (uint64_t)k << 40);

		CHECK_EQ(v != NULL, present[k]);
	}
	ht_map_release(&m);
	CHECK(!ht_map_find_u64(&m, 0));
}

static void test_str(void)
{
	struct ht_map m = {0};
	char key[32];
	int created;

	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "name-%d", i);
		CHECK_EQ(*ht_map_str(&m, key, (uint64_t)i, &created), i);
		CHECK(created);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof key, "name-%d", i); /* another buffer, same text */
		CHECK(ht_map_find_str(&m, key));
		CHECK_EQ(*ht_map_find_str(&m, key), i);
		CHECK_EQ(*ht_map_str(&m, key, 99999, &created), i);
		CHECK(!created);
	}
	CHECK(!ht_map_find_str(&m, "name-1000"));
	CHECK_EQ(m.n, 1000);
	ht_map_release(&m);
}

/* Byte key k: 2 to 13 bytes, NULs and then k / 12; keys are prefixes of others. */
static size_t bytes_key(unsigned int k, unsigned char *out)
{
	size_t len = 2 + k % 12;

	memset(out, 0, len);
	out[len - 2] = (unsigned char)(k / 12 >> 8);
	out[len - 1] = (unsigned char)(k / 12);
	return len;
}

static void test_bytes(void)
{
	static uint64_t want[KEYS];
	static uint8_t present[KEYS];
	struct ht_map m = {0};
	unsigned char key[16];
	size_t n = 0, pos = 0, seen = 0;
	uint64_t *v, sum = 0, want_sum = 0;

	for (int step = 0; step < 200000 && !check_failures; step++) {
		unsigned int k = (unsigned int)(rnd() % KEYS);
		size_t len = bytes_key(k, key);
		int op = (int)(rnd() % 3), created;

		if (op == 0) {
			v = ht_map_bytes(&m, key, len, (uint64_t)step, &created);
			CHECK(v);
			CHECK_EQ(created, !present[k]);
			if (!present[k]) {
				want[k] = (uint64_t)step;
				present[k] = 1;
				n++;
			}
			CHECK_EQ(*v, want[k]);
		} else if (op == 1) {
			v = ht_map_find_bytes(&m, key, len);
			CHECK_EQ(v != NULL, present[k]);
			if (v)
				CHECK_EQ(*v, want[k]);
		} else {
			CHECK_EQ(ht_map_del_bytes(&m, key, len), present[k]);
			n -= present[k];
			present[k] = 0;
		}
		CHECK_EQ(m.n, n);
	}
	/* the key is the bytes, not a pointer or a C string: a copy finds it */
	for (unsigned int k = 0; k < KEYS; k++) {
		size_t len = bytes_key(k, key);
		unsigned char copy[16];

		memcpy(copy, key, len);
		CHECK_EQ(ht_map_find_bytes(&m, copy, len) != NULL, present[k]);
		if (present[k])
			want_sum += want[k];
	}
	while ((v = ht_map_next(&m, &pos))) {
		seen++;
		sum += *v;
	}
	CHECK_EQ(seen, n);
	CHECK_EQ(sum, want_sum);
	CHECK(!ht_map_find_u64(&m, 1)); /* another kind of key: never found */
	ht_map_release(&m);
	pos = 0;
	CHECK(!ht_map_next(&m, &pos));
}

int main(void)
{
	test_u64();
	test_str();
	test_bytes();
	CHECK_DONE();
}
