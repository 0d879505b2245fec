/*
 * The report's sections on calling contexts and CPU samples (numbers from
 * analysis/callpaths.c; report.c calls these): GPU time by calling context
 * top-down (a tree from main, device time of the work submitted below each
 * frame) and bottom-up (each API call's path, the call first), CPU samples
 * by function (self and total, where the function is defined) and by call
 * path (a tree). The JSON keys are the ones scripts rely on:
 *   "calling_contexts": [{"frames": [...outermost first...], "calls", "api_ns",
 *                         "device_ns", "kernels": {"name": device_ns}}]
 *   "cpu_samples": {"total", "functions": [{"name", "self", "total", "file", "line"}],
 *                   "paths": [{"frames": [...], "samples"}]}
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callpaths.h"
#include "analysis/escape.h"
#include "cli/cli.h"
#include "cli/report_callpaths.h"

#define TREE_LINES 60 /* lines of a tree in the text report */
#define TREE_DEPTH 40
#define NAMES	   512

static void dur(char *b, size_t cap, double ns)
{
	ht_fmt_duration(b, cap, ns);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* ---- text ---- */

struct tree_print {
	const struct ht_callpaths *cp;
	int lines, cut;
	int samples; /* the CPU tree, else the GPU one */
};

static uint64_t weight(const struct tree_print *tp, uint32_t x)
{
	return tp->samples ? tp->cp->nodes[x].samples : tp->cp->nodes[x].device_ns;
}

static int by_weight(const void *a, const void *b, void *arg)
{
	const struct tree_print *tp = arg;
	uint64_t x = weight(tp, *(const uint32_t *)a), y = weight(tp, *(const uint32_t *)b);

	return x > y ? -1 : x < y;
}

static void tree_node(struct tree_print *tp, uint32_t x, int depth)
{
	const struct ht_cp_node *nd = &tp->cp->nodes[x];
	const struct ht_cp_node *root = &tp->cp->nodes[0];
	uint32_t *kids;
	char a[32], b[32], name[256];

	if (x) {
		if (tp->lines >= TREE_LINES || depth > TREE_DEPTH ||
		    weight(tp, x) * 200 < weight(tp, 0)) { /* under 0.5%: left out */
			tp->cut = 1;
			return;
		}
		tp->lines++;
		ht_term_sstr(name, sizeof name, nd->name);
		if (tp->samples) {
			printf("  %8llu %6.1f%% %8llu  %*s%s\n", (unsigned long long)nd->samples,
			       pct(nd->samples, root->samples),
			       (unsigned long long)nd->self_samples, 2 * (depth - 1), "", name);
		} else {
			dur(a, sizeof a, (double)nd->device_ns);
			dur(b, sizeof b, (double)nd->api_ns);
			printf("  %11s %6.1f%% %7llu %11s  %*s%s\n", a,
			       pct(nd->device_ns, root->device_ns), (unsigned long long)nd->calls,
			       b, 2 * (depth - 1), "", name);
		}
	}
	if (!nd->nkids)
		return;
	kids = malloc(nd->nkids * sizeof *kids);
	if (!kids)
		return;
	memcpy(kids, nd->kids, nd->nkids * sizeof *kids);
	qsort_r(kids, nd->nkids, sizeof *kids, by_weight, tp);
	for (uint32_t i = 0; i < nd->nkids; i++)
		if (weight(tp, kids[i]))
			tree_node(tp, kids[i], depth + 1);
	free(kids);
}

static void text_contexts(const struct ht_callpaths *cp)
{
	struct tree_print tp = {.cp = cp};
	const char *names[NAMES];
	char a[32], b[32], name[256];

	if (!cp->nctx)
		return;
	printf("\nGPU time by calling context, top-down (device time of the work submitted "
	       "below each frame)\n");
	printf("  %11s %7s %7s %11s  %s\n", "device", "share", "calls", "API time", "frame");
	tree_node(&tp, 0, 0);
	if (tp.cut)
		printf("  (smaller paths left out)\n");
	printf("\nGPU time by calling context, bottom-up (each path from the API call up)\n");
	printf("  %11s %7s %7s %11s  %s\n", "device", "share", "calls", "API time", "path");
	for (size_t i = 0; i < cp->nctx && i < TREE_LINES; i++) {
		const struct ht_cp_context *c = &cp->ctx[i];
		int n = ht_callpaths_names(cp, c->node, names, NAMES);

		dur(a, sizeof a, (double)c->device_ns);
		dur(b, sizeof b, (double)c->api_ns);
		printf("  %11s %6.1f%% %7llu %11s  ", a, pct(c->device_ns, cp->nodes[0].device_ns),
		       (unsigned long long)c->calls, b);
		for (int k = n - 1; k >= 0; k--)
			printf("%s%s", k == n - 1 ? "" : " <- ",
			       ht_term_sstr(name, sizeof name, names[k]));
		for (size_t k = 0; k < c->nkernels; k++) {
			dur(a, sizeof a, (double)c->kernels[k].device_ns);
			printf("%s%s %s", k ? ", " : "  [",
			       ht_term_sstr(name, sizeof name, c->kernels[k].name), a);
		}
		printf("%s\n", c->nkernels ? "]" : "");
	}
	if (cp->device_unmatched)
		printf("  (%llu device command(s) were enqueued by calls without a stack)\n",
		       (unsigned long long)cp->device_unmatched);
}

static void text_samples(const struct ht_callpaths *cp)
{
	struct tree_print tp = {.cp = cp, .samples = 1};
	char name[256], file[256];
	int shown = 0;

	if (!cp->have_samples)
		return;
	printf("\nCPU samples: %llu", (unsigned long long)cp->samples);
	if (cp->samples_lost)
		printf(" (%llu lost)", (unsigned long long)cp->samples_lost);
	printf("\n");
	if (!cp->samples)
		return;
	printf("  %8s %7s %8s %7s  %-32s %s\n", "self", "self%", "total", "total%", "function",
	       "defined at");
	for (size_t i = 0; i < cp->nfns && shown < 30; i++) {
		const struct ht_cp_function *f = &cp->fns[i];

		if (!f->self)
			continue;
		shown++;
		printf("  %8llu %6.1f%% %8llu %6.1f%%  %-32s %s", (unsigned long long)f->self,
		       pct(f->self, cp->samples), (unsigned long long)f->total,
		       pct(f->total, cp->samples), ht_term_sstr(name, sizeof name, f->name),
		       ht_term_sstr(file, sizeof file, f->file));
		if (f->line)
			printf(":%d", f->line);
		printf("\n");
	}
	printf("\nCPU samples by call path, top-down (samples below each frame, and in it)\n");
	printf("  %8s %7s %8s  %s\n", "samples", "share", "self", "frame");
	tree_node(&tp, 0, 0);
	if (tp.cut)
		printf("  (smaller paths left out)\n");
}

void ht_report_callpaths_text(const struct ht_callpaths *cp)
{
	text_contexts(cp);
	text_samples(cp);
}

/* ---- CSV ---- */

static void csv_path(const struct ht_callpaths *cp, uint32_t node)
{
	const char *names[NAMES];
	char *joined;
	size_t len = 1, at = 0;
	int n = ht_callpaths_names(cp, node, names, NAMES);

	for (int k = 0; k < n; k++)
		len += strlen(names[k]) + 1;
	joined = malloc(len);
	if (!joined)
		return;
	joined[0] = '\0';
	for (int k = 0; k < n; k++)
		at += (size_t)sprintf(joined + at, "%s%s", k ? ";" : "", names[k]);
	ht_csv_str(stdout, joined);
	free(joined);
}

void ht_report_callpaths_csv(const struct ht_callpaths *cp)
{
	if (cp->nctx) {
		printf("table,path,calls,api_ns,device_ns,commands,kernels\n");
		for (size_t i = 0; i < cp->nctx; i++) {
			const struct ht_cp_context *c = &cp->ctx[i];

			printf("calling_context,");
			csv_path(cp, c->node);
			printf(",%llu,%llu,%llu,%llu,", (unsigned long long)c->calls,
			       (unsigned long long)c->api_ns, (unsigned long long)c->device_ns,
			       (unsigned long long)c->commands);
			for (size_t k = 0; k < c->nkernels; k++) {
				printf("%s", k ? ";" : "");
				ht_csv_str(stdout, c->kernels[k].name);
				printf("=%llu", (unsigned long long)c->kernels[k].device_ns);
			}
			printf("\n");
		}
	}
	if (!cp->have_samples)
		return;
	printf("table,function,self,total,file,line\n");
	for (size_t i = 0; i < cp->nfns; i++) {
		const struct ht_cp_function *f = &cp->fns[i];

		if (!f->total)
			continue;
		printf("cpu_function,");
		ht_csv_str(stdout, f->name);
		printf(",%llu,%llu,", (unsigned long long)f->self, (unsigned long long)f->total);
		ht_csv_str(stdout, f->file);
		printf(",%d\n", f->line);
	}
	printf("table,path,samples\n");
	for (size_t i = 1; i < cp->n; i++) {
		if (!cp->nodes[i].self_samples)
			continue;
		printf("cpu_path,");
		csv_path(cp, (uint32_t)i);
		printf(",%llu\n", (unsigned long long)cp->nodes[i].self_samples);
	}
}

/* ---- JSON ---- */

static void json_frames(const struct ht_callpaths *cp, uint32_t node)
{
	const char *names[NAMES];
	int n = ht_callpaths_names(cp, node, names, NAMES);

	printf("\"frames\":[");
	for (int k = 0; k < n; k++) {
		printf("%s", k ? "," : "");
		ht_json_str(stdout, names[k]);
	}
	printf("]");
}

void ht_report_callpaths_json(const struct ht_callpaths *cp)
{
	printf(",\"calling_contexts\":[");
	for (size_t i = 0, first = 1; i < cp->nctx; i++) {
		const struct ht_cp_context *c = &cp->ctx[i];

		if (!c->commands)
			continue; /* paths that submitted device work */
		printf("%s{", first ? "" : ",");
		first = 0;
		json_frames(cp, c->node);
		printf(",\"calls\":%llu,\"api_ns\":%llu,\"device_ns\":%llu,\"kernels\":{",
		       (unsigned long long)c->calls, (unsigned long long)c->api_ns,
		       (unsigned long long)c->device_ns);
		for (size_t k = 0; k < c->nkernels; k++) {
			printf("%s", k ? "," : "");
			ht_json_str(stdout, c->kernels[k].name);
			printf(":%llu", (unsigned long long)c->kernels[k].device_ns);
		}
		printf("}}");
	}
	printf("],\"cpu_samples\":{\"total\":%llu,\"lost\":%llu,\"functions\":[",
	       (unsigned long long)cp->samples, (unsigned long long)cp->samples_lost);
	for (size_t i = 0, first = 1; i < cp->nfns; i++) {
		const struct ht_cp_function *f = &cp->fns[i];

		if (!f->total)
			continue;
		printf("%s{\"name\":", first ? "" : ",");
		first = 0;
		ht_json_str(stdout, f->name);
		printf(",\"self\":%llu,\"total\":%llu,\"file\":", (unsigned long long)f->self,
		       (unsigned long long)f->total);
		ht_json_str(stdout, f->file);
		printf(",\"line\":%d}", f->line);
	}
	printf("],\"paths\":[");
	for (size_t i = 1, first = 1; i < cp->n; i++) {
		if (!cp->nodes[i].self_samples)
			continue;
		printf("%s{", first ? "" : ",");
		first = 0;
		json_frames(cp, (uint32_t)i);
		printf(",\"samples\":%llu}", (unsigned long long)cp->nodes[i].self_samples);
	}
	printf("]}");
}
