/*
 * The rewriter's inside, private to its three files: its state (rewrite.c
 * walks the functions of a parsed program, rewrite_driver.c parses, emits
 * and expands) and the preprocessor run that expands (rewrite_cpp.c).
 */
#ifndef HT_MEMTRACE_REWRITE_INT_H
#define HT_MEMTRACE_REWRITE_INT_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "common/map.h"
#include "memtrace/rewrite.h"

#define AS_GLOBAL 1 /* clang's address space of __global on spir64 */
#define MAX_ARGS  128

/* An insertion into the source (del: bytes of the source it replaces). */
struct ins {
	size_t off, del;
	int cls;    /* at one offset: 0 closing, 1 point, 2 opening */
	long key;   /* closing: inner (shorter) first; opening: outer (longer) first */
	size_t seq; /* then in the order they were made */
	char *text;
};

struct tok {
	unsigned int off, end;
	CXTokenKind kind;
	char s[8]; /* the spelling's start (punctuation is short) */
};

struct fn {
	char name[HT_MT_NAME_MAX];
	int kernel;
	unsigned int off; /* the declaration's start */
};

struct rw {
	const char *src;
	size_t len;
	CXTranslationUnit tu;
	CXFile file;
	struct tok *toks;
	size_t ntoks;
	struct ins *ins;
	size_t nins, capins;
	size_t capsites, capkernels;
	struct fn *fns;
	size_t nfns, capfns;
	struct ht_map wrapped; /* text ranges wrapped already (a macro argument used twice) */
	struct ht_mt_rewrite *out;
	const char *name; /* the program's file name (#line directives of expanded text name it) */
	int expanded;	  /* src is the program with its macros expanded */
	int hidden;	  /* a macro or an #include hides an access or call: expand */
	/* the function being walked */
	int in_kernel;
	const char *fn_name;
	CXCursor params[MAX_ARGS];
	unsigned int nparams;
	CXCursor stack[256];
	unsigned int depth;
	int err;
};

/*
 * Finds w's functions, then instruments each: insertions into w->ins, sites
 * and kernels into w->out (w->err set on a failure, w->hidden when a
 * macro or an #include hides something).
 */
void ht_mt_rw_functions(struct rw *w);

/*
 * clang -E of src with the front end's arguments (args, n), run as the
 * rewriter parses: the text the rewriter instruments when macros hide
 * accesses. What the system headers (clang's OpenCL C headers) declare is
 * taken out again, as the device compiler adds its own; line markers become
 * #line directives naming `name` for the program's own lines. Return: 0
 * with *out (malloc'd, NUL-terminated), -ENOENT (no clang), or -errno.
 */
int ht_mt_expand_macros(const char *src, size_t len, const char *const *args, int n,
			const char *name, char **out, size_t *outlen);

#endif
