/*
 * Reads the host name and the clock offset back from a process's TSDL (see
 * ctf_source.h). The metadata is ours (format/tsdl.c writes it), so a small
 * scan for `key = value;` inside the env and clock blocks is enough.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/ctf_source.h"

#define META_MAX (4u << 20)

/* The value after `key = ` inside the block starting at `block`, or NULL. */
static const char *find_value(const char *text, const char *block, const char *key)
{
	const char *b = strstr(text, block), *end, *p;
	size_t klen = strlen(key);

	if (!b)
		return NULL;
	end = strstr(b, "};");
	for (p = b; (p = strstr(p, key)) && (!end || p < end); p += klen) {
		const char *q = p + klen;

		if ((p[-1] != '\t' && p[-1] != ' ' && p[-1] != '\n'))
			continue;
		while (*q == ' ')
			q++;
		if (*q == '=') {
			for (q++; *q == ' '; q++)
				;
			return q;
		}
	}
	return NULL;
}

int ht_ctf_source_read(const struct ht_trace *t, const struct ht_trace_process *p,
		       struct ht_ctf_source *out)
{
	char path[4400];
	const char *v;
	char *text = NULL;
	size_t n = 0;
	FILE *f;
	int rc = 0;

	memset(out, 0, sizeof *out);
	snprintf(out->hostname, sizeof out->hostname, "unknown");
	snprintf(path, sizeof path, "%s/%s/metadata", t->path, p->name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	text = malloc(META_MAX + 1);
	if (!text) {
		rc = -ENOMEM;
		goto out;
	}
	n = fread(text, 1, META_MAX, f);
	if (ferror(f)) {
		rc = -EIO;
		goto out;
	}
	text[n] = '\0';
	v = find_value(text, "\nenv {", "hostname");
	if (v && *v == '"') {
		size_t i = 0;

		for (v++; *v && *v != '"' && i + 1 < sizeof out->hostname; v++) {
			if (*v == '\\' && v[1])
				v++;
			out->hostname[i++] = *v;
		}
		out->hostname[i] = '\0';
	}
	v = find_value(text, "\nclock {", "offset_s");
	if (v)
		out->offset_s = strtoll(v, NULL, 10);
	v = find_value(text, "\nclock {", "offset");
	if (v)
		out->offset_ns = strtoll(v, NULL, 10);
out:
	free(text);
	fclose(f);
	return rc;
}
