/*
 * Code addresses to functions, source files and lines, at analysis time
 * (report, view, exports): a module is found by the path the traced
 * process recorded and checked by its GNU build-id (else the same build-id
 * under /usr/lib/debug/.build-id, where Debian's -dbgsym packages put
 * it), then read with elfutils' libdw: the symbol table for the function,
 * the DWARF line table for file and line, and the DWARF scopes for the
 * calls inlined at the address, so -O2 code shows every function of the
 * source, inlined or not. C++ names are demangled. What cannot be resolved
 * (a stripped module, a file gone or rebuilt, an address in no module)
 * shows as "module+0xoffset", never dropped.
 *
 * Used by the CPU-side analyses (callpaths.h) and meant for device code
 * too (kernels' objects): nothing here knows where an address came from.
 * Results are cached per (module, address); a resolver is single-threaded.
 */
#ifndef HT_SYMBOLS_H
#define HT_SYMBOLS_H

#include <stdint.h>

#define HT_SYM_INLINE_MAX 16 /* frames an address expands to, at most */

struct ht_symbols;

/* One source-level frame. Strings are borrowed: valid until the resolver is destroyed. */
struct ht_sym_frame {
	const char *function;  /* demangled; "module+0xoffset" when unknown */
	const char *module;    /* the module's file name (no directory) */
	const char *file;      /* source file of the address in this function, NULL if unknown */
	int line;	       /* 0 if unknown */
	const char *decl_file; /* where the function is defined, NULL if unknown */
	int decl_line;
	int inlined; /* this frame was inlined into the next (outer) one */
};

/* Return: a resolver, or NULL (ENOMEM). */
struct ht_symbols *ht_symbols_create(void);
void ht_symbols_destroy(struct ht_symbols *s);

/*
 * Resolves the file address addr of the module at path (build_id: its hex
 * GNU build-id as recorded, "" or NULL if none; path NULL: no module, addr
 * is absolute). return_addr: addr is a return address, so the call before
 * it is looked up (addr - 1). Writes frames innermost first, inlined calls
 * expanded, the real (outermost) function last. Return: how many, >= 1.
 */
int ht_symbols_resolve(struct ht_symbols *s, const char *path, const char *build_id, uint64_t addr,
		       int return_addr, struct ht_sym_frame *out, int max);

/* Return: 1 when DWARF and symbol tables can be read (libdw was built in). */
int ht_symbols_available(void);

#endif
