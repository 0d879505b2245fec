/*
 * Unit tests for the string table (dense ids, lookups, growth, UTF-8-safe
 * cutting) and for size parsing of HETRACE_BUFFER / --buffer.
 */
#include <stdlib.h>

#include "../check.h"
#include "core/config.h"
#include "core/strtab.h"

static void test_strtab(void)
{
	struct ht_strtab t = {0};
	char name[32];
	int is_new;

	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof name, "s%d", i);
		CHECK_EQ(ht_strtab_intern(&t, name, &is_new), i + 1);
		CHECK(is_new);
	}
	for (int i = 9999; i >= 0; i -= 7) {
		snprintf(name, sizeof name, "s%d", i);
		CHECK_EQ(ht_strtab_intern(&t, name, &is_new), i + 1);
		CHECK(!is_new);
	}
	CHECK_STR(ht_strtab_get(&t, 1), "s0");
	CHECK_STR(ht_strtab_get(&t, 10000), "s9999");
	CHECK(!ht_strtab_get(&t, 0));
	CHECK(!ht_strtab_get(&t, 10001));
	CHECK_EQ(ht_strtab_intern(&t, "", &is_new), 10001);
	ht_strtab_clear(&t);
	CHECK_EQ(t.count, 0);

	/* "é" is two bytes: a cut never lands between them */
	CHECK_EQ(ht_str_cut("abc", 10), 3);
	CHECK_EQ(ht_str_cut("ab\xc3\xa9", 3), 2);
	CHECK_EQ(ht_str_cut("ab\xc3\xa9", 4), 4);
}

static void test_sizes(void)
{
	size_t v = 0;

	CHECK_EQ(ht_parse_size("4096", &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(ht_parse_size("64K", &v), 0);
	CHECK_EQ(v, 65536);
	CHECK_EQ(ht_parse_size("1MiB", &v), 0);
	CHECK_EQ(v, 1 << 20);
	CHECK_EQ(ht_parse_size("2g", &v), 0);
	CHECK_EQ(v, 2ull << 30);
	CHECK(ht_parse_size("", &v) < 0);
	CHECK(ht_parse_size("-1", &v) < 0);
	CHECK(ht_parse_size("12Q", &v) < 0);
	CHECK(ht_parse_size("K", &v) < 0);
	CHECK(ht_parse_size("99999999999999999999999", &v) < 0);
}

int main(void)
{
	test_strtab();
	test_sizes();
	CHECK_DONE();
}
