/*
 * Writing strings taken from a trace into structured text safely: JSON
 * string literals (control characters, quotes, backslashes, and '<', '>',
 * '&' as \u escapes so the text is also safe inside HTML <script>), CSV
 * fields (quoted when needed), and HTML text.
 */
#ifndef HT_ESCAPE_H
#define HT_ESCAPE_H

#include <stdio.h>

/*
 * Return: the length (1..4) of the valid UTF-8 sequence at s, or 0 when it is
 * not one (bad lead or continuation byte, overlong form, surrogate, past
 * U+10FFFF).
 */
int ht_utf8_len(const unsigned char *s);

void ht_json_str(FILE *f, const char *s);
void ht_csv_str(FILE *f, const char *s);
void ht_html_str(FILE *f, const char *s);

#endif
