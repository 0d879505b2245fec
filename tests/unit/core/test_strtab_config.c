/*
 * Unit tests for the string table (dense ids, lookups, growth, UTF-8-safe
 * cutting), for size parsing of HETRACE_BUFFER / --buffer and for bad
 * HETRACE_* values.
 */
#include <stdlib.h>

#include "../check.h"
#include "core/config.h"
#include "core/strtab.h"
#include "ring/ring.h"

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
	CHECK(ht_parse_size("18446744073709551616", &v) < 0);
	CHECK_EQ(ht_parse_size("18446744073709551615", &v), 0);
	CHECK_EQ(v, 18446744073709551615ull);
	/* a suffix must not wrap: these are 2^64 + 64 KiB, 2^64 + 1 MiB, 2^64 */
	CHECK(ht_parse_size("18014398509482048K", &v) < 0);
	CHECK(ht_parse_size("17592186044417M", &v) < 0);
	CHECK(ht_parse_size("17179869184G", &v) < 0);
	CHECK_EQ(ht_parse_size("17179869183G", &v), 0);
	CHECK_EQ(v, 17179869183ull << 30);
	/* digits first, and whole suffixes only */
	CHECK(ht_parse_size(" 64K", &v) < 0);
	CHECK(ht_parse_size("+64K", &v) < 0);
	CHECK(ht_parse_size(" -1", &v) < 0);
	CHECK(ht_parse_size("64Ki", &v) < 0);
	CHECK(ht_parse_size("64KiBB", &v) < 0);
	CHECK_EQ(ht_parse_size("64KB", &v), 0);
	CHECK_EQ(v, 65536);
}

/* HETRACE_* values: a bad one keeps the default (and warns on stderr). */
static void test_env(void)
{
	struct ht_config c;

	setenv("HETRACE_BUFFER", "18014398509481985M", 1); /* 2^64 + 1 MiB */
	setenv("HETRACE_RING", "99999999999999999999", 1);
	ht_config_load(&c);
	CHECK_EQ(c.packet_size, HT_PACKET_DEFAULT);
	CHECK_EQ(c.ring_slots, HT_RING_SLOTS_DEFAULT);
	setenv("HETRACE_BUFFER", "1M", 1);
	setenv("HETRACE_RING", "+8", 1);
	ht_config_load(&c);
	CHECK_EQ(c.packet_size, 1 << 20);
	CHECK_EQ(c.ring_slots, HT_RING_SLOTS_DEFAULT);
	setenv("HETRACE_RING", "8", 1);
	setenv("HETRACE_TSC_HZ", "1e400", 1);
	ht_config_load(&c);
	CHECK_EQ(c.ring_slots, 8);
	CHECK(c.tsc_hz == 0);
	unsetenv("HETRACE_BUFFER");
	unsetenv("HETRACE_RING");
	unsetenv("HETRACE_TSC_HZ");
}

int main(void)
{
	test_strtab();
	test_sizes();
	test_env();
	CHECK_DONE();
}
