/*
 * String escaping for JSON, CSV and HTML output (see escape.h). Invalid
 * UTF-8 bytes become U+FFFD so every output stays valid.
 */
#include <stdint.h>
#include <string.h>

#include "analysis/escape.h"

int ht_utf8_len(const unsigned char *s)
{
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if ((s[0] & 0xF0) == 0xE0)
		n = 3;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4;
	else
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	/* overlong 3/4-byte forms, UTF-16 surrogates, code points past U+10FFFF */
	if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
	    (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * Writes str to f: valid multi-byte UTF-8 sequences as they are, each
 * invalid byte as `bad` (U+FFFD in the output's syntax), each ASCII byte
 * through `ascii`, which escapes what the output format needs.
 */
static void write_utf8(FILE *f, const char *str, const char *bad,
		       void (*ascii)(FILE *f, unsigned char c))
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		int n = ht_utf8_len(s);

		if (!n) {
			fputs(bad, f);
			n = 1;
		} else if (n > 1) {
			fwrite(s, 1, (size_t)n, f);
		} else {
			ascii(f, *s);
		}
		s += n;
	}
}

static void json_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", f);
		break;
	case '\\':
		fputs("\\\\", f);
		break;
	case '\n':
		fputs("\\n", f);
		break;
	case '\t':
		fputs("\\t", f);
		break;
	case '<':
	case '>':
	case '&':
		fprintf(f, "\\u%04x", c);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

void ht_json_str(FILE *f, const char *str)
{
	fputc('"', f);
	write_utf8(f, str, "\\ufffd", json_ascii);
	fputc('"', f);
}

static void csv_ascii(FILE *f, unsigned char c)
{
	if (c == '"')
		fputc('"', f);
	if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
		fputc(' ', f); /* other control characters have no meaning in a cell */
	else
		fputc(c, f);
}

void ht_csv_str(FILE *f, const char *s)
{
	/*
	 * Spreadsheets run a cell that starts with = + - @ (or a tab or CR
	 * before one) as a formula: such a cell gets a leading apostrophe,
	 * which they show as text (the OWASP advice for CSV injection).
	 */
	int formula = s[0] && strchr("=+-@\t\r", s[0]);
	int plain = !formula;

	for (const unsigned char *p = (const unsigned char *)s; *p && plain;) {
		int n = ht_utf8_len(p);

		plain = n && (n > 1 || (*p >= 0x20 && *p != 0x7f && *p != ',' && *p != '"'));
		p += n ? n : 1;
	}
	if (plain) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	write_utf8(f, s, "\xef\xbf\xbd", csv_ascii);
	fputc('"', f);
}

/* Terminals: control characters (ESC sequences among them) shown as \xNN, never sent. */
static void term_ascii(FILE *f, unsigned char c)
{
	if (c < 0x20 || c == 0x7f || c == '\\')
		fprintf(f, "\\x%02x", c);
	else
		fputc(c, f);
}

void ht_term_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	/* C1 controls (U+0080..U+009F, also read as escapes by some terminals) as \u00NN */
	while (*p) {
		int n = ht_utf8_len(p);

		if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) {
			fprintf(f, "\\u%04x", p[1]);
		} else if (!n) {
			fprintf(f, "\\x%02x", *p);
			n = 1;
		} else if (n > 1) {
			fwrite(p, 1, (size_t)n, f);
		} else {
			term_ascii(f, *p);
		}
		p += n;
	}
}

const char *ht_term_sstr(char *buf, size_t cap, const char *s)
{
	FILE *f = fmemopen(buf, cap, "w");

	if (!f) {
		snprintf(buf, cap, "?");
		return buf;
	}
	setvbuf(f, NULL, _IONBF, 0);
	ht_term_str(f, s);
	fputc('\0', f);
	fclose(f);
	buf[cap - 1] = '\0';
	return buf;
}

const char *ht_term_tmp(const char *s)
{
	static char buf[8][2048];
	static unsigned int k;

	k = (k + 1) % 8;
	return ht_term_sstr(buf[k], sizeof buf[k], s ? s : "");
}
