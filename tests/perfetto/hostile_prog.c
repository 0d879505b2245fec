/*
 * Test program for the exporters' escaping: names a thread, a region, an
 * instant (and its string argument) and a counter with a hostile string:
 * HTML markup, quotes, a backslash, a newline, a tab and an invalid UTF-8
 * byte (0xff). The tests check that every export decodes back to this text,
 * with the invalid byte as U+FFFD.
 *
 * `hostile_prog terminal`: names for terminals and spreadsheets instead: a
 * thread and regions whose names hold terminal escape sequences (colour,
 * window title, a C1 CSI), cells that a spreadsheet runs as formulas (= + -
 * @) and an invalid UTF-8 byte (report_hostile.sh).
 */
#include <string.h>

#include <hetrace/hetrace.h>

#define HOSTILE "<img src=x onerror=alert(1)> \"q\" \\ \nline2\t\xff end"

static const char *const terminal[] = {
    "\x1b[31mred\x1b[0m",
    "\x1b]0;pwned\x07title",
    "\xc2\x9b"
    "2Jcsi",
    "=HYPERLINK(\"http://x\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "bad\xff\xfeutf8",
};

int main(int argc, char **argv)
{
	struct ht_arg a = ht_arg_string("note", HOSTILE);

	if (argc > 1 && !strcmp(argv[1], "terminal")) {
		ht_thread_name(terminal[0]);
		for (unsigned int i = 0; i < sizeof terminal / sizeof terminal[0]; i++) {
			ht_region_begin_dyn(terminal[i]);
			ht_region_end_dyn(terminal[i]);
		}
		return 0;
	}

	ht_thread_name(HOSTILE);
	ht_region_begin_dyn(HOSTILE);
	ht_instant_dyn(HOSTILE, &a, 1);
	ht_counter_dyn(HOSTILE, 42);
	ht_region_end_dyn(HOSTILE);
	return 0;
}
