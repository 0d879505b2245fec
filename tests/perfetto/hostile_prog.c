/*
 * Test program for the exporters' escaping: names a thread, a region, an
 * instant (and its string argument) and a counter with a hostile string:
 * HTML markup, quotes, a backslash, a newline, a tab and an invalid UTF-8
 * byte (0xff). The tests check that every export decodes back to this text,
 * with the invalid byte as U+FFFD.
 */
#include <hetrace/hetrace.h>

#define HOSTILE "<img src=x onerror=alert(1)> \"q\" \\ \nline2\t\xff end"

int main(void)
{
	struct ht_arg a = ht_arg_string("note", HOSTILE);

	ht_thread_name(HOSTILE);
	ht_region_begin_dyn(HOSTILE);
	ht_instant_dyn(HOSTILE, &a, 1);
	ht_counter_dyn(HOSTILE, 42);
	ht_region_end_dyn(HOSTILE);
	return 0;
}
