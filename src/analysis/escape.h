/*
 * Writing strings taken from a trace into structured text safely: JSON
 * string literals (control characters, quotes, backslashes, and '<', '>',
 * '&' as \u escapes so the text is also safe inside HTML <script>), CSV
 * fields, and text for terminals.
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
/*
 * A CSV field: as it is when plain, else quoted with quotes doubled, invalid
 * UTF-8 as U+FFFD, and a leading apostrophe when a spreadsheet would take
 * the cell for a formula.
 */
void ht_csv_str(FILE *f, const char *s);
/*
 * Text for a terminal: control characters (escape sequences included) and
 * backslashes as \xNN, C1 controls as \u00NN, invalid UTF-8 bytes as \xNN.
 */
void ht_term_str(FILE *f, const char *s);
/* The same into buf (cut to cap, NUL-terminated). Return: buf. */
const char *ht_term_sstr(char *buf, size_t cap, const char *s);
/*
 * The same into one of 8 rotating static buffers of 2 KiB, for printf
 * arguments (not thread-safe). Return: the text, valid for 7 more calls.
 */
const char *ht_term_tmp(const char *s);

#endif
