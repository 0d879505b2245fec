/*
 * The OpenCL C rewriter of memory-access tracing: a program's source in,
 * the same program with every global-memory access instrumented out
 * (rewrite.c, on libclang), plus what the collector and the analysis need
 * to know about it: its kernels and their buffer arguments, and one site
 * per instrumented access (kind, size, argument, source line).
 *
 * libclang is loaded into a helper program (hetrace-cl-rewrite,
 * tool_rewrite.c), never into the traced process: PoCL already carries its
 * own LLVM, and a front-end crash must not take the application with it.
 * rewrite_io.c carries the result over a pipe (ht_mt_rewrite_write/read),
 * so libhetrace-opencl.so links no libclang.
 */
#ifndef HT_MEMTRACE_REWRITE_H
#define HT_MEMTRACE_REWRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "memtrace/devcode_cl.h"

#define HT_MT_NAME_MAX 256

struct ht_mt_site {
	uint32_t id;
	int32_t arg;  /* kernel argument the pointer comes from, -1 when not known */
	uint8_t kind; /* HT_MEM_LOAD/STORE/ATOMIC */
	uint8_t size; /* bytes (255 for 255 and more) */
	uint32_t line, col;
	uint32_t file;		 /* index in files: the file of line (0: the program's own) */
	char fn[HT_MT_NAME_MAX]; /* the function holding it */
};

struct ht_mt_kernel {
	char name[HT_MT_NAME_MAX];
	uint32_t nparams; /* as the application declared it (the hidden ones follow) */
	uint64_t buffers; /* bit i: parameter i is a __global pointer (i < 64) */
};

struct ht_mt_rewrite {
	char *source; /* the instrumented program, NUL-terminated */
	size_t len;
	struct ht_mt_site *sites;
	size_t nsites;
	struct ht_mt_kernel *kernels;
	size_t nkernels;
	char **files; /* files[0] "": the program's own source; then its #include'd files */
	size_t nfiles, capfiles;
	uint32_t skipped; /* accesses left alone (spelled inside a macro, ...) */
	int expanded;	  /* the source is the program with its macros expanded */
	char error[512];  /* why it failed (the front end's first error) */
};

/* Each instrumented kernel has two parameters more, after the application's. */
#define HT_MT_HIDDEN_ARGS 2

/* How the runtime builds the program, as far as the front end must know. */
struct ht_mt_front {
	const char *options; /* the application's build options: -D, -U, -I, -cl-std honoured */
	const char *device;  /* the device's own predefinitions: -D, -U, -cl-ext=+EXT,... */
	int expand;	     /* may expand the application's macros (rewrite_cpp.c) */
};

/*
 * Instruments src (len bytes) as built as fe says for a channel as in p.
 * Accesses and calls spelled inside macros, or in #include'd text, have no
 * text of their own to wrap: with fe->expand, such a program (or one that
 * calls a helper of an #include'd file) is instrumented with its macros and
 * #includes expanded by clang's preprocessor (out->expanded), the device's
 * predefinitions deciding its conditionals as the device compiler would;
 * otherwise (or when that fails) those accesses are counted in
 * out->skipped, a helper of an #include'd file is not instrumented, and a
 * call in a macro fails it.
 * Return: 0, or -1 with out->error set (a parse error, an unsupported form).
 */
int ht_mt_rewrite_source(const char *src, size_t len, const struct ht_mt_front *fe,
			 const struct ht_mt_cl_params *p, struct ht_mt_rewrite *out);

void ht_mt_rewrite_release(struct ht_mt_rewrite *r);
/* The index of file `name` in r->files, added if new (file 0, "", first). Return: it, or -1. */
int ht_mt_rewrite_file(struct ht_mt_rewrite *r, const char *name);
/* The name of site s's file ("" for the program's own). */
const char *ht_mt_site_file(const struct ht_mt_rewrite *r, const struct ht_mt_site *s);

/* The helper's wire form of a result (text lines, then the source's bytes). */
int ht_mt_rewrite_write(FILE *f, const struct ht_mt_rewrite *r, int ok);
/* Parses it. Return: 0, -1 (the rewrite failed: error set), -EINVAL (malformed). */
int ht_mt_rewrite_read(const char *buf, size_t len, struct ht_mt_rewrite *r);

/* The helper's input: one header line, then the options and the source. */
int ht_mt_rewrite_request_write(FILE *f, const struct ht_mt_cl_params *p,
				const struct ht_mt_front *fe, const char *src, size_t len);
/*
 * Parses a request. Return: 0 with *p, *fe (its strings in *strings, to
 * free) and the source at *src (in buf), -EINVAL (malformed) or -ENOMEM.
 */
int ht_mt_rewrite_request_read(const char *buf, size_t len, struct ht_mt_cl_params *p,
			       struct ht_mt_front *fe, char **strings, const char **src,
			       size_t *srclen);

#endif
