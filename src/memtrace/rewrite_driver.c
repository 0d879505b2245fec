/*
 * The rewriter's driver (rewrite.h: ht_mt_rewrite_source): the application's
 * build options made front-end arguments, the program parsed by libclang and
 * tokenized, its functions instrumented (rewrite.c), the insertions applied
 * after the producer's prelude; and when macros or #includes hide accesses,
 * all of that again on the program expanded (rewrite_cpp.c).
 */
#include <clang-c/Index.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/map.h"
#include "memtrace/rewrite.h"
#include "memtrace/rewrite_int.h"

#ifndef HT_CLANG_INCLUDE
#define HT_CLANG_INCLUDE "/usr/lib/llvm-14/lib/clang/14.0.6/include"
#endif

/* Splits build options into front-end arguments (-D, -U, -I, -cl-std; a device's -cl-ext). */
static int build_args(const char *options, char **argv, int max, char **store)
{
	char *copy = strdup(options ? options : ""), *p, *save = NULL;
	int n = 0;

	*store = copy;
	if (!copy)
		return -1;
	for (p = strtok_r(copy, " \t\n", &save); p && n < max - 2;
	     p = strtok_r(NULL, " \t\n", &save)) {
		if (!strncmp(p, "-D", 2) || !strncmp(p, "-U", 2) || !strncmp(p, "-I", 2)) {
			argv[n++] = p;
			if (!p[2]) { /* -D NAME: the value follows */
				p = strtok_r(NULL, " \t\n", &save);
				if (p)
					argv[n++] = p;
			}
		} else if (!strncmp(p, "-cl-std=", 8)) {
			argv[n++] = p;
		} else if (!strncmp(p, "-cl-ext=", 8)) { /* the device's extensions and features */
			argv[n++] = "-Xclang";
			argv[n++] = p;
		}
	}
	return n;
}

static int cmp_ins(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int emit(struct rw *w, const struct ht_mt_cl_params *p)
{
	FILE *f;
	char *buf = NULL, prelude[16384];
	size_t size = 0, pos = 0;
	int n = ht_mt_cl_prelude(prelude, sizeof prelude, p);

	if (n < 0)
		return -EINVAL;
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fputs(prelude, f);
	fputs("#line 1\n", f);
	qsort(w->ins, w->nins, sizeof *w->ins, cmp_ins);
	for (size_t i = 0; i < w->nins; i++) {
		const struct ins *x = &w->ins[i];

		if (x->off > pos) {
			fwrite(w->src + pos, 1, x->off - pos, f);
			pos = x->off;
		}
		fputs(x->text, f);
		if (x->off + x->del > pos)
			pos = x->off + x->del;
	}
	fwrite(w->src + pos, 1, w->len - pos, f);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	w->out->source = buf;
	w->out->len = size;
	return 0;
}

static int tokenize(struct rw *w)
{
	CXSourceRange all =
	    clang_getRange(clang_getLocationForOffset(w->tu, w->file, 0),
			   clang_getLocationForOffset(w->tu, w->file, (unsigned int)w->len));
	CXToken *t;
	unsigned int n;

	clang_tokenize(w->tu, all, &t, &n);
	w->toks = calloc(n ? n : 1, sizeof *w->toks);
	if (!w->toks) {
		clang_disposeTokens(w->tu, t, n);
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < n; i++) {
		CXSourceRange r = clang_getTokenExtent(w->tu, t[i]);
		CXString s = clang_getTokenSpelling(w->tu, t[i]);
		unsigned int a, b;

		clang_getSpellingLocation(clang_getRangeStart(r), NULL, NULL, NULL, &a);
		clang_getSpellingLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &b);
		w->toks[w->ntoks].off = a;
		w->toks[w->ntoks].end = b;
		w->toks[w->ntoks].kind = clang_getTokenKind(t[i]);
		snprintf(w->toks[w->ntoks].s, sizeof w->toks[0].s, "%s", clang_getCString(s));
		clang_disposeString(s);
		w->ntoks++;
	}
	clang_disposeTokens(w->tu, t, n);
	return 0;
}

/* Instruments w->src, parsed with argv. Return: 0, or -1 with w->out->error set. */
static int pass(struct rw *w, const char **argv, int argc, const struct ht_mt_cl_params *p)
{
	struct CXUnsavedFile uf = {
	    .Filename = w->name, .Contents = w->src, .Length = (unsigned long)w->len};
	CXIndex idx = clang_createIndex(0, 0);
	struct ht_mt_rewrite *out = w->out;
	int rc = -1;

	if (clang_parseTranslationUnit2(idx, w->name, argv, argc, &uf, 1,
					CXTranslationUnit_KeepGoing, &w->tu) != CXError_Success ||
	    !w->tu) {
		snprintf(out->error, sizeof out->error, "the front end could not parse it");
		goto out;
	}
	for (unsigned int i = 0; i < clang_getNumDiagnostics(w->tu); i++) {
		CXDiagnostic d = clang_getDiagnostic(w->tu, i);

		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_formatDiagnostic(d, CXDiagnostic_DisplaySourceLocation |
								   CXDiagnostic_DisplayColumn);

			snprintf(out->error, sizeof out->error, "%s", clang_getCString(s));
			clang_disposeString(s);
			clang_disposeDiagnostic(d);
			goto out;
		}
		clang_disposeDiagnostic(d);
	}
	w->file = clang_getFile(w->tu, w->name);
	if (!w->file || tokenize(w)) {
		snprintf(out->error, sizeof out->error, "the front end could not read it");
		goto out;
	}
	ht_mt_rw_functions(w);
	if (!w->err)
		w->err = emit(w, p);
	if (w->err) {
		if (!out->error[0])
			snprintf(out->error, sizeof out->error, "%s", strerror(-w->err));
		goto out;
	}
	out->expanded = w->expanded;
	rc = 0;
out:
	for (size_t i = 0; i < w->nins; i++)
		free(w->ins[i].text);
	free(w->ins);
	free(w->toks);
	free(w->fns);
	ht_map_release(&w->wrapped);
	if (w->tu)
		clang_disposeTranslationUnit(w->tu);
	clang_disposeIndex(idx);
	if (rc) {
		char keep[sizeof out->error];

		memcpy(keep, out->error, sizeof keep);
		ht_mt_rewrite_release(out);
		memcpy(out->error, keep, sizeof keep);
	}
	return rc;
}

/*
 * The program again, with the macros that hid accesses (or a call) expanded
 * (rewrite.h). Its result replaces *out only when it instruments it.
 */
static void expand(const struct rw *first, const char **argv, int argc, const char *device,
		   const struct ht_mt_cl_params *p, struct ht_mt_rewrite *out)
{
	const char *args[96];
	char *store = NULL, *text = NULL;
	size_t len = 0;
	int n = 0, d;
	struct ht_mt_rewrite second;
	struct rw w = {.name = first->name, .expanded = 1, .out = &second};

	for (int i = 0; i < argc && n < 80; i++)
		args[n++] = argv[i];
	d = build_args(device, (char **)args + n, 96 - n, &store);
	if (d < 0 ||
	    ht_mt_expand_macros(first->src, first->len, args, n + d, first->name, &text, &len)) {
		free(store);
		return;
	}
	w.src = text;
	w.len = len;
	memset(&second, 0, sizeof second);
	if (!pass(&w, argv, argc, p)) { /* it reaches all the first did, and more */
		ht_mt_rewrite_release(out);
		*out = second;
	}
	free(text);
	free(store);
}

int ht_mt_rewrite_source(const char *src, size_t len, const struct ht_mt_front *fe,
			 const struct ht_mt_cl_params *p, struct ht_mt_rewrite *out)
{
	const char *argv[80] = {"-x",		"cl",
				"-target",	"spir64",
				"-isystem",	HT_CLANG_INCLUDE,
				"-Xclang",	"-finclude-default-header",
				"-cl-std=CL1.2"};
	int argc = 9, n, rc;
	char *store = NULL;
	struct rw w = {.src = src, .len = len, .out = out, .name = "program.cl"};

	memset(out, 0, sizeof *out);
	n = build_args(fe->options, (char **)argv + argc, 80 - argc, &store);
	if (n < 0) {
		snprintf(out->error, sizeof out->error, "out of memory");
		return -1;
	}
	for (int i = argc; i < argc + n; i++) /* the application's -cl-std wins */
		if (!strncmp(argv[i], "-cl-std=", 8))
			argv[8] = "-w";
	argc += n;
	rc = pass(&w, argv, argc, p);
	if (fe->expand && (w.hidden || (!rc && out->skipped))) {
		expand(&w, argv, argc, fe->device, p, out);
		if (out->expanded)
			rc = 0;
	}
	free(store);
	return rc;
}
