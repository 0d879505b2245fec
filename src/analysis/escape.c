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

void ht_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void html_ascii(FILE *f, unsigned char c)
{
	switch (c) {
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '&':
		fputs("&amp;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	case '\'':
		fputs("&#39;", f);
		break;
	default:
		if (c < 0x20 && c != '\n' && c != '\t')
			fputc(' ', f);
		else
			fputc(c, f);
	}
}

void ht_html_str(FILE *f, const char *str)
{
	write_utf8(f, str, "&#xfffd;", html_ascii);
}
