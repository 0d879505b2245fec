/*
 * hetrace-cl-rewrite: the OpenCL C rewriter as a program of its own, so that
 * libclang is never loaded into a traced process (rewrite.h says why).
 * libhetrace-opencl.so runs it with a request on stdin (rewrite_io.c) and
 * reads the result from stdout.
 *
 *   hetrace-cl-rewrite                    request on stdin, result on stdout
 *   hetrace-cl-rewrite FILE [OPTIONS [DEVICE]]
 *                                         prints FILE instrumented (its macros
 *                                         expanded where they hide accesses),
 *                                         and its sites on stderr (for people)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memtrace/rewrite.h"

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap) {
			if (ferror(f)) {
				free(buf);
				return NULL;
			}
			*len = n;
			return buf;
		}
		{
			char *b = realloc(buf, cap * 2);

			if (!b)
				free(buf);
			buf = b;
			cap *= 2;
		}
	}
	return NULL;
}

static int by_hand(const char *path, const char *options, const char *device)
{
	const struct ht_mt_front fe = {.options = options, .device = device, .expand = 1};
	struct ht_mt_cl_params p = {.nbins = 2, .cap = 4096, .block = 1, .sample = 1, .stage = 256};
	struct ht_mt_rewrite r;
	FILE *f = fopen(path, "r");
	size_t len;
	char *src = f ? read_all(f, &len) : NULL;

	if (f)
		fclose(f);
	if (!src) {
		fprintf(stderr, "hetrace-cl-rewrite: cannot read '%s': %s\n", path,
			strerror(errno));
		return 1;
	}
	if (ht_mt_rewrite_source(src, len, &fe, &p, &r)) {
		fprintf(stderr, "hetrace-cl-rewrite: cannot instrument '%s': %s\n", path, r.error);
		free(src);
		return 1;
	}
	fwrite(r.source, 1, r.len, stdout);
	for (size_t i = 0; i < r.nsites; i++) {
		const struct ht_mt_site *s = &r.sites[i];
		const char *file = ht_mt_site_file(&r, s);

		fprintf(stderr, "site %u: %s:%u:%u in %s, %s of %u bytes, argument %d\n", s->id,
			file[0] ? file : path, s->line, s->col, s->fn,
			s->kind == 0   ? "load"
			: s->kind == 1 ? "store"
				       : "atomic",
			s->size, s->arg);
	}
	if (r.expanded)
		fprintf(stderr, "macros and #include'd files expanded: they hide accesses\n");
	if (r.skipped)
		fprintf(stderr,
			"%u accesses not instrumented (spelled inside macros or #include'd text)\n",
			r.skipped);
	ht_mt_rewrite_release(&r);
	free(src);
	return 0;
}

int main(int argc, char **argv)
{
	struct ht_mt_cl_params p;
	struct ht_mt_front fe;
	struct ht_mt_rewrite r;
	size_t len, slen;
	const char *src;
	char *in, *strings = NULL;
	int ok, rc;

	if (argc > 1)
		return by_hand(argv[1], argc > 2 ? argv[2] : "", argc > 3 ? argv[3] : "");
	in = read_all(stdin, &len);
	if (!in)
		return 2;
	rc = ht_mt_rewrite_request_read(in, len, &p, &fe, &strings, &src, &slen);
	if (rc == -EINVAL) {
		fprintf(stderr, "hetrace-cl-rewrite: malformed request\n");
		free(in);
		return 2;
	}
	ok = !rc && !ht_mt_rewrite_source(src, slen, &fe, &p, &r);
	if (rc)
		snprintf(r.error, sizeof r.error, "out of memory");
	ht_mt_rewrite_write(stdout, &r, ok);
	if (ok)
		ht_mt_rewrite_release(&r);
	free(strings);
	free(in);
	return fflush(stdout) ? 2 : 0;
}
