/*
 * Calling contexts for the HTML view (see view_stacks.h). One pass over
 * the timeline feeds the tree of paths (analysis/callpaths.h) and indexes
 * each API call's stack by (pid, tid, start), the key the page's slices
 * have. Flame graphs leave out what is under 0.1% of their total and stop
 * at FLAME_NODES nodes each, so the page stays small whatever the trace.
 * Names are written as JSON strings (ht_json_str escapes '<', '>', '&').
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callpaths.h"
#include "analysis/escape.h"
#include "analysis/timeline.h"
#include "common/grow.h"
#include "export/view_stacks.h"

#define FLAME_NODES 4000
#define FLAME_DEPTH 64
#define API_MAX	    200000 /* API calls whose stack the page keeps */
#define NAMES	    512

struct api_call {
	int32_t pid, tid;
	uint64_t st;
	uint32_t path;
};

struct flame {
	FILE *f;
	const struct ht_callpaths *cp;
	int samples; /* the CPU samples' tree, else GPU time */
	uint64_t total;
	int nodes;
};

static uint64_t value(const struct flame *fl, uint32_t x)
{
	return fl->samples ? fl->cp->nodes[x].samples : fl->cp->nodes[x].device_ns;
}

static void flame_node(struct flame *fl, uint32_t x, int depth)
{
	const struct ht_cp_node *nd = &fl->cp->nodes[x];
	int first = 1;

	fputc('[', fl->f);
	ht_json_str(fl->f, x ? nd->name : "all");
	fprintf(fl->f, ",%" PRIu64 ",[", value(fl, x));
	for (uint32_t i = 0; i < nd->nkids && depth < FLAME_DEPTH; i++) {
		uint32_t k = nd->kids[i];

		if (!value(fl, k) || value(fl, k) * 1000 < fl->total || fl->nodes >= FLAME_NODES)
			continue;
		fl->nodes++;
		if (!first)
			fputc(',', fl->f);
		first = 0;
		flame_node(fl, k, depth + 1);
	}
	fputs("]]", fl->f);
}

static void flame(FILE *f, const struct ht_callpaths *cp, int samples)
{
	struct flame fl = {.f = f, .cp = cp, .samples = samples};

	fl.total = value(&fl, 0);
	fprintf(f, "{\"total\":%" PRIu64 ",\"tree\":", fl.total);
	flame_node(&fl, 0, 0);
	fputc('}', f);
}

int ht_view_stacks_write(struct ht_trace *t, FILE *f, uint64_t t0, struct ht_read_error *err)
{
	struct ht_tl_opts o = {.kinds = HT_PK_THREAD | HT_PK_PROCESS | HT_PK_DEVICE | HT_PK_SAMPLES,
			       .no_args = 1,
			       .skip = 1u << HT_TL_SLICE_BEGIN | 1u << HT_TL_INSTANT |
				       1u << HT_TL_COUNTER | 1u << HT_TL_CPU_STATE |
				       1u << HT_TL_TASK};
	struct ht_callpaths cp;
	struct ht_timeline tl;
	const struct ht_tl_record *r;
	struct api_call *calls = NULL;
	struct ht_map index = {0}; /* path node -> index + 1 into "paths" */
	uint32_t *paths = NULL;
	size_t ncalls = 0, capcalls = 0, npaths = 0, cappaths = 0;
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
		rc = ht_callpaths_take(&cp, &tl, r);
		if (!rc && r->kind == HT_TL_SLICE_END && r->api && r->stack && ncalls < API_MAX) {
			uint32_t path = ht_callpaths_of(&cp, &tl, r);
			uint64_t *v;
			int created;

			if (!path)
				continue;
			v = ht_map_u64(&index, path, 0, &created);
			if (!v || ht_grow((void **)&calls, &capcalls, sizeof *calls, ncalls + 1) ||
			    (created &&
			     ht_grow((void **)&paths, &cappaths, sizeof *paths, npaths + 1))) {
				rc = -ENOMEM;
				break;
			}
			if (created) {
				paths[npaths] = path;
				*v = ++npaths;
			}
			calls[ncalls++] = (struct api_call){
			    r->pid, r->tid, r->begin > t0 ? r->begin - t0 : 0, (uint32_t)*v - 1};
		}
		if (rc < 0)
			break;
	}
	if (rc < 0 && rc != -ENOMEM)
		*err = tl.err;
	ht_timeline_close(&tl);
	if (!rc)
		rc = ht_callpaths_finish(&cp);
	if (!rc && (cp.have_stacks || cp.have_samples)) {
		fputs(",\"callstacks\":{\"cpu\":", f);
		flame(f, &cp, 1);
		fputs(",\"gpu\":", f);
		flame(f, &cp, 0);
		fputs(",\"paths\":[", f);
		for (size_t i = 0; i < npaths; i++) {
			const char *names[NAMES];
			int n = ht_callpaths_names(&cp, paths[i], names, NAMES);

			fputs(i ? ",[" : "[", f);
			for (int k = 0; k < n; k++) {
				if (k)
					fputc(',', f);
				ht_json_str(f, names[k]);
			}
			fputc(']', f);
		}
		fputs("],\"api\":[", f);
		for (size_t i = 0; i < ncalls; i++)
			fprintf(f, "%s%d,%d,%" PRIu64 ",%u", i ? "," : "", calls[i].pid,
				calls[i].tid, calls[i].st, calls[i].path);
		fputs("]}", f);
	}
	if (rc == -ENOMEM && !err->msg[0])
		snprintf(err->msg, sizeof err->msg, "out of memory writing the view's call stacks");
	ht_callpaths_release(&cp);
	ht_map_release(&index);
	free(calls);
	free(paths);
	return rc;
}
