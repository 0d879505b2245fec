/*
 * `hetrace export --format collapsed -o out.folded`: the CPU samples as
 * folded stacks, one line per distinct path and process, "process;frame;
 * frame;... count", outermost first, the form flamegraph.pl, inferno and
 * speedscope read. Frames are the source functions of analysis/callpaths.h
 * (inlined calls expanded, unknown ones as module+offset); a ';' inside a
 * name becomes ':' and control characters become spaces, so every line
 * parses. Lines come by count, largest first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callpaths.h"
#include "analysis/defs.h"
#include "analysis/timeline.h"
#include "common/grow.h"
#include "export/export.h"

#define NAMES 512

struct line {
	unsigned int proc;
	uint32_t path;
	uint64_t count;
};

static int by_count(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->path < y->path ? -1 : x->path > y->path;
}

static void frame(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (unsigned char)*s < 0x20 ? ' ' : *s, f);
}

int ht_export_collapsed(struct ht_trace *t, FILE *f, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_PROCESS | HT_PK_SAMPLES, .no_args = 1};
	struct ht_callpaths cp;
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	struct ht_map at = {0}; /* (proc, path) -> line index + 1 */
	struct line *lines = NULL;
	size_t n = 0, cap = 0;
	int rc = ht_callpaths_init(&cp);

	if (rc)
		return rc;
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		ht_callpaths_release(&cp);
		return rc;
	}
	while ((rc = ht_timeline_next(&tl, &r)) > 0) {
		uint32_t path;
		uint64_t *v;
		int created;

		if (r->kind != HT_TL_SAMPLE)
			continue;
		path = ht_callpaths_of(&cp, &tl, r);
		if (!path)
			continue;
		v = ht_map_u64(&at, (uint64_t)r->proc << 32 | path, 0, &created);
		if (!v || (created && ht_grow((void **)&lines, &cap, sizeof *lines, n + 1))) {
			rc = -ENOMEM;
			break;
		}
		if (created) {
			lines[n] = (struct line){r->proc, path, 0};
			*v = ++n;
		}
		lines[*v - 1].count++;
	}
	if (rc < 0 && rc != -ENOMEM)
		*err = tl.err;
	if (!rc) {
		qsort(lines, n, sizeof *lines, by_count);
		for (size_t i = 0; i < n; i++) {
			const struct ht_proc_info *pi = ht_timeline_proc(&tl, lines[i].proc);
			const char *names[NAMES];
			int k = ht_callpaths_names(&cp, lines[i].path, names, NAMES);

			frame(f, pi->comm[0] ? pi->comm : pi->tp->name);
			for (int j = 0; j < k; j++) {
				fputc(';', f);
				frame(f, names[j]);
			}
			fprintf(f, " %llu\n", (unsigned long long)lines[i].count);
		}
	}
	ht_timeline_close(&tl);
	ht_callpaths_release(&cp);
	ht_map_release(&at);
	free(lines);
	return rc;
}
