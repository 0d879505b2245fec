/*
 * Macro expansion for the rewriter (rewrite_int.h: ht_mt_expand_macros). An
 * access spelled in a macro's body (clpeak's FETCH_2 loads) or in an
 * #include'd file (hashcat's COMPARE_M, its inc_*.cl helpers) has no text
 * of its own in the program's source, so the rewriter cannot wrap it where
 * it is written. clang's preprocessor, run with the very
 * arguments the rewriter parses with plus the device's predefinitions (its
 * OpenCL version, extensions and features, so that each #if goes the way
 * the device compiler takes it), writes the program with every macro
 * expanded; the rewriter instruments that text instead.
 *
 * clang -E writes GNU line markers: `# LINE "FILE" FLAGS`, flag 3 for a
 * system header. What comes from <built-in>, <command line> and system
 * headers (clang's OpenCL C headers, included by -finclude-default-header)
 * is taken out, as the device compiler includes its own; every other
 * marker becomes `#line LINE "FILE"`, the program's own (<stdin>) named as
 * the rewriter names it, so that each site keeps the application's file
 * and line: the program's own, or one of its #include'd files.
 *
 * clang's exit status cannot be seen (spawn.h), and a fatal error (an
 * #include not found) ends its output early: the input ends with a pragma
 * of ours, and an output without it is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memtrace/rewrite.h"
#include "memtrace/rewrite_int.h"
#include "memtrace/spawn.h"

#ifndef HT_CLANG_BIN
#define HT_CLANG_BIN ""
#endif

#define END_MARK "#pragma hetrace_expanded_end"

/* Parses a marker line `# LINE "FILE" FLAGS`. Return: 1 (a marker), else 0. */
static int marker(const char *l, size_t n, unsigned long *line, const char **file, size_t *flen,
		  int *system)
{
	const char *p = l + 2, *end = l + n, *q;
	char *after;

	if (n < 5 || l[0] != '#' || l[1] != ' ' || *p < '0' || *p > '9')
		return 0;
	*line = strtoul(p, &after, 10);
	p = after;
	if (p + 2 > end || p[0] != ' ' || p[1] != '"')
		return 0;
	q = p + 2;
	while (q < end && *q != '"')
		q += *q == '\\' && q + 1 < end ? 2 : 1;
	if (q >= end)
		return 0;
	*file = p + 2;
	*flen = (size_t)(q - (p + 2));
	*system = 0;
	for (q++; q + 1 < end; q++)
		if (q[0] == ' ' && q[1] == '3' && (q + 2 == end || q[2] == ' '))
			*system = 1;
	return 1;
}

/* Writes the kept part of clang's output (cpp, n bytes) to f. Return: 0, or -EINVAL (cut short). */
static int keep(FILE *f, const char *cpp, size_t n, const char *name)
{
	int kept = 1, ended = 0;

	for (size_t pos = 0; pos < n;) {
		const char *l = cpp + pos, *nl = memchr(l, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - l) : n - pos;
		unsigned long line;
		const char *file;
		size_t flen;
		int system;

		pos += len + (nl != NULL);
		if (marker(l, len, &line, &file, &flen, &system)) {
			int program = flen == 7 && !memcmp(file, "<stdin>", 7);

			kept = !system && (program || file[0] != '<');
			if (kept && program)
				fprintf(f, "#line %lu \"%s\"\n", line, name);
			else if (kept)
				fprintf(f, "#line %lu \"%.*s\"\n", line, (int)flen, file);
			continue;
		}
		if (len == sizeof END_MARK - 1 && !memcmp(l, END_MARK, len)) {
			ended = 1;
			continue;
		}
		if (kept) {
			fwrite(l, 1, len, f);
			fputc('\n', f);
		}
	}
	return ended ? 0 : -EINVAL;
}

int ht_mt_expand_macros(const char *src, size_t len, const char *const *args, int n,
			const char *name, char **out, size_t *outlen)
{
	char *argv[128], *in = NULL, *cpp = NULL, *buf = NULL;
	size_t inlen = 0, cpplen = 0, size = 0;
	int argc = 0, rc;
	FILE *f;

	*out = NULL;
	*outlen = 0;
	if (!HT_CLANG_BIN[0] || access(HT_CLANG_BIN, X_OK))
		return -ENOENT;
	if (n > 120)
		return -E2BIG;
	argv[argc++] = (char *)HT_CLANG_BIN;
	argv[argc++] = "-E";
	for (int i = 0; i < n; i++)
		argv[argc++] = (char *)args[i];
	argv[argc++] = "-"; /* stdin: its #include "..." are found from here, as in the parse */
	argv[argc] = NULL;
	f = open_memstream(&in, &inlen);
	if (!f)
		return -ENOMEM;
	fwrite(src, 1, len, f);
	fputs("\n" END_MARK "\n", f);
	if (fclose(f)) {
		free(in);
		return -ENOMEM;
	}
	rc = ht_mt_spawn(argv, in, inlen, &cpp, &cpplen, HT_MT_REWRITE_TIMEOUT_MS);
	free(in);
	if (rc)
		return rc;
	f = open_memstream(&buf, &size);
	if (!f) {
		free(cpp);
		return -ENOMEM;
	}
	rc = keep(f, cpp, cpplen, name);
	free(cpp);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*outlen = size;
	return 0;
}
