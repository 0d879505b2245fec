/*
 * Unit tests for the hash map (common/map.h): a long random sequence of
 * inserts, lookups and deletions of u64 keys checked against a plain array,
 * so backward-shift deletion keeps every probe run reachable; string keys
 * are copied and found by content.
 */
#include <stdlib.h>

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

int main(void)
{
	test_u64();
	test_str();
	CHECK_DONE();
}
