/*
 * The resolver (see symbols.h). One libdw session (Dwfl) per module file,
 * reported at its own file addresses (base 0, no p_vaddr added), which is
 * what frame words hold. Measured on cs_prog's report: ~40 distinct
 * addresses, 12 ms in all, almost all of it opening libLLVM's and libc's
 * tables once; a cached address costs a hash lookup.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/map.h"
#include "symbols/symbols.h"

#if __has_include(<elfutils/libdwfl.h>)
#define HT_HAVE_LIBDW 1
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#endif

/* libstdc++'s Itanium C++ ABI demangler (extern "C"); the result is malloc'd. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* A module file, opened once. */
struct smod {
	char *name; /* file name */
	int ok;	    /* its tables are readable */
	int names_only; /* the dynamic loader: symbol table, never DWARF (see module()) */
#ifdef HT_HAVE_LIBDW
	Dwfl *dwfl;
	Dwfl_Module *mod;
#endif
	struct ht_map addrs; /* address looked up -> index + 1 into results */
};

/* A resolved address: frames [first, first + n) of the resolver's frame array. */
struct result {
	size_t first;
	int n;
};

struct ht_symbols {
	struct ht_map mods; /* "build-id|path" -> struct smod * */
	struct ht_map pool; /* interned strings: text -> its copy */
	struct smod nomod;  /* addresses outside any module */
	struct result *res;
	size_t nres, capres;
	struct ht_sym_frame *fr;
	size_t nfr, capfr;
};

int ht_symbols_available(void)
{
#ifdef HT_HAVE_LIBDW
	return 1;
#else
	return 0;
#endif
}

/* Return: s interned (borrowed until destroy), or NULL on ENOMEM. */
static const char *intern(struct ht_symbols *sy, const char *s)
{
	int created;
	uint64_t *v;

	if (!s)
		return NULL;
	v = ht_map_str(&sy->pool, s, 0, &created);
	if (!v)
		return NULL;
	if (created) {
		char *copy = strdup(s);

		if (!copy)
			return NULL;
		*v = (uint64_t)(uintptr_t)copy;
	}
	return (const char *)(uintptr_t)*v;
}

/* A function name as shown: C++ demangled, else as it is. */
static const char *pretty(struct ht_symbols *sy, const char *name)
{
	const char *r;
	char *d;
	int status = -1;

	if (!name || name[0] != '_' || name[1] != 'Z')
		return intern(sy, name);
	d = __cxa_demangle(name, NULL, NULL, &status);
	r = intern(sy, status == 0 && d ? d : name);
	free(d);
	return r;
}

struct ht_symbols *ht_symbols_create(void)
{
	return calloc(1, sizeof(struct ht_symbols)); /* maps take their kind at the first insert */
}

static void smod_free(struct smod *m)
{
#ifdef HT_HAVE_LIBDW
	if (m->dwfl)
		dwfl_end(m->dwfl);
#endif
	ht_map_release(&m->addrs);
	free(m->name);
}

void ht_symbols_destroy(struct ht_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->mods.cap; i++)
		if (s->mods.used[i]) {
			struct smod *m = (struct smod *)(uintptr_t)s->mods.vals[i];

			smod_free(m);
			free(m);
		}
	for (size_t i = 0; i < s->pool.cap; i++)
		if (s->pool.used[i])
			free((void *)(uintptr_t)s->pool.vals[i]);
	smod_free(&s->nomod);
	ht_map_release(&s->mods);
	ht_map_release(&s->pool);
	free(s->res);
	free(s->fr);
	free(s);
}

/* ---- opening modules ---- */

#ifdef HT_HAVE_LIBDW
static char *no_debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &no_debuginfo_path,
};

/* The hex build-id of the ELF file at path ("" if none). */
static void file_build_id(const char *path, char *out, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;
	const void *id;
	ssize_t n;

	out[0] = '\0';
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && (n = dwelf_elf_gnu_build_id(e, &id)) > 0 && (size_t)n * 2 < cap)
		for (ssize_t i = 0; i < n; i++)
			snprintf(out + 2 * i, 3, "%02x", ((const uint8_t *)id)[i]);
	if (e)
		elf_end(e);
	close(fd);
}

/* Opens the module's file for m: the recorded path when its build-id matches, else debuginfo. */
static void smod_open(struct smod *m, const char *path, const char *build_id)
{
	char have[130], dbg[4200];
	const char *use = path;

	if (build_id && build_id[0]) {
		file_build_id(path, have, sizeof have);
		if (strcmp(have, build_id)) {
			/* the file is gone or another build: its separate debug file, by build-id
			 */
			snprintf(dbg, sizeof dbg, "/usr/lib/debug/.build-id/%.2s/%s.debug",
				 build_id, build_id + 2);
			file_build_id(dbg, have, sizeof have);
			if (strcmp(have, build_id))
				return;
			use = dbg;
		}
	} else if (access(path, R_OK)) {
		return;
	}
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, m->name, use, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	m->ok = m->mod != NULL;
}
#endif

static struct smod *module(struct ht_symbols *sy, const char *path, const char *build_id)
{
	char key[4300];
	int created;
	uint64_t *v;
	struct smod *m;
	const char *base;

	if (!path)
		return &sy->nomod;
	snprintf(key, sizeof key, "%s|%s", build_id ? build_id : "", path);
	v = ht_map_str(&sy->mods, key, 0, &created);
	if (!v)
		return NULL;
	if (!created)
		return (struct smod *)(uintptr_t)*v;
	m = calloc(1, sizeof *m);
	base = strrchr(path, '/');
	if (m)
		m->name = strdup(base ? base + 1 : path);
	if (!m || !m->name) {
		free(m);
		ht_map_release(&sy->mods); /* cannot happen twice: drop the cache rather than lie */
		return NULL;
	}
	*v = (uint64_t)(uintptr_t)m;
	/*
	 * The dynamic loader's frames are relocation and symbol binding before
	 * main, or dlopen: a function name is all a user reads there. Its DWARF
	 * (Debian's libc6-dbg, compressed) is inflated whole by libdw at the
	 * first look: 100-130 ms of every report of a sampled program, a third
	 * of a 30 M-event report (measured with perf on annot_prog single).
	 */
	m->names_only = !strncmp(m->name, "ld-linux", 8) || !strncmp(m->name, "ld64.so", 7);
#ifdef HT_HAVE_LIBDW
	if (path[0] != '[') /* [vdso] and the like: no file */
		smod_open(m, path, build_id);
#endif
	return m;
}

/* ---- resolving ---- */

static struct ht_sym_frame *new_frame(struct ht_symbols *sy)
{
	if (ht_grow((void **)&sy->fr, &sy->capfr, sizeof *sy->fr, sy->nfr + 1))
		return NULL;
	memset(&sy->fr[sy->nfr], 0, sizeof sy->fr[0]);
	return &sy->fr[sy->nfr++];
}

/* The frame of an address nothing resolves: "module+0xoffset". */
static void unknown(struct ht_symbols *sy, struct smod *m, uint64_t addr, struct ht_sym_frame *f)
{
	char buf[300];

	snprintf(buf, sizeof buf, "%s+0x%llx", m->name ? m->name : "[unknown]",
		 (unsigned long long)addr);
	f->function = intern(sy, buf);
	f->module = m->name ? intern(sy, m->name) : intern(sy, "[unknown]");
}

#ifdef HT_HAVE_LIBDW
/* The function name of a subprogram or inlined subroutine DIE (its origin's). */
static const char *die_name(struct ht_symbols *sy, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n ? pretty(sy, n) : NULL;
}

static void decl(struct ht_symbols *sy, Dwarf_Die *die, struct ht_sym_frame *f)
{
	int line = 0;
	const char *file = dwarf_decl_file(die);

	if (file && dwarf_decl_line(die, &line) == 0) {
		f->decl_file = intern(sy, file);
		f->decl_line = line;
	}
}

/*
 * The frames of addr in m by DWARF scopes: innermost first, each inlined
 * call's caller at the call's file and line. Return: frames added (0: no DWARF).
 */
/*
 * The compile unit holding addr by the units' own address ranges, for
 * objects without .debug_aranges (clang emits none by default, and
 * elfutils 0.188 finds no unit without them): PoCL's kernel objects.
 */
static Dwarf_Die *cu_by_ranges(struct smod *m, uint64_t addr, Dwarf_Die *die, Dwarf_Addr *bias)
{
	Dwarf *dw = dwfl_module_getdwarf(m->mod, bias);
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dw && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, die) && dwarf_haspc(die, addr - *bias) > 0)
			return die;
		off = next;
	}
	return NULL;
}

static int by_dwarf(struct ht_symbols *sy, struct smod *m, uint64_t addr, const char *symname)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &bias), *scopes = NULL, cu_die;
	Dwfl_Line *ln = dwfl_module_getsrc(m->mod, addr);
	const char *file = NULL;
	int line = 0, nsc, added = 0;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;

	if (ln) {
		file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
	} else if (!cu && (cu = cu_by_ranges(m, addr, &cu_die, &bias))) {
		Dwarf_Line *dl = dwarf_getsrc_die(cu, addr - bias);

		if (dl && (file = dwarf_linesrc(dl, NULL, NULL)))
			dwarf_lineno(dl, &line);
	}
	if (!cu || (nsc = dwarf_getscopes(cu, addr - bias, &scopes)) <= 0) {
		if (!file)
			return 0;
		struct ht_sym_frame *f = new_frame(sy);

		if (!f)
			return 0;
		f->function = pretty(sy, symname);
		f->file = intern(sy, file);
		f->line = line;
		f->module = intern(sy, m->name);
		return f->function ? 1 : 0;
	}
	dwarf_getsrcfiles(cu, &files, &nfiles);
	for (int i = 0; i < nsc; i++) {
		int tag = dwarf_tag(&scopes[i]);
		struct ht_sym_frame *f;
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		f = new_frame(sy);
		if (!f)
			break;
		f->function = die_name(sy, &scopes[i]);
		if (!f->function)
			f->function = pretty(sy, symname ? symname : "?");
		f->module = intern(sy, m->name);
		f->file = file ? intern(sy, file) : NULL;
		f->line = line;
		decl(sy, &scopes[i], f);
		added++;
		if (tag == DW_TAG_subprogram)
			break; /* the function of this physical frame */
		f->inlined = 1;
		/* the caller's place is where this was inlined */
		file = NULL;
		line = 0;
		if (dwarf_attr(&scopes[i], DW_AT_call_file, &a) && !dwarf_formudata(&a, &cf) &&
		    files)
			file = dwarf_filesrc(files, cf, NULL, NULL);
		if (dwarf_attr(&scopes[i], DW_AT_call_line, &a) && !dwarf_formudata(&a, &cl))
			line = (int)cl;
	}
	free(scopes);
	return added;
}
#endif

/* Resolves addr (already moved to the call for a return address) into new frames. */
static int lookup(struct ht_symbols *sy, struct smod *m, uint64_t addr)
{
	struct ht_sym_frame *f;

#ifdef HT_HAVE_LIBDW
	if (m->ok) {
		GElf_Off off = 0;
		GElf_Sym sym;
		const char *name = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
		int n = m->names_only ? 0 : by_dwarf(sy, m, addr, name);

		if (n)
			return n;
		if (name) { /* symbols, no DWARF: the function alone */
			f = new_frame(sy);
			if (!f)
				return 0;
			f->function = pretty(sy, name);
			f->module = intern(sy, m->name);
			return 1;
		}
	}
#endif
	f = new_frame(sy);
	if (!f)
		return 0;
	unknown(sy, m, addr, f);
	return 1;
}

int ht_symbols_resolve(struct ht_symbols *sy, const char *path, const char *build_id, uint64_t addr,
		       int return_addr, struct ht_sym_frame *out, int max)
{
	struct smod *m = module(sy, path, build_id);
	uint64_t look = return_addr && addr ? addr - 1 : addr;
	uint64_t *v;
	struct result *r;
	int created, n;

	if (!m || max < 1) {
		static struct ht_sym_frame none = {.function = "?", .module = "?"};

		if (max >= 1)
			out[0] = none;
		return max >= 1;
	}
	v = ht_map_u64(&m->addrs, look, 0, &created);
	if (v && !created) {
		r = &sy->res[*v - 1];
	} else {
		size_t first = sy->nfr;

		n = lookup(sy, m, look);
		if (!v || !n ||
		    ht_grow((void **)&sy->res, &sy->capres, sizeof *sy->res, sy->nres + 1)) {
			struct ht_sym_frame tmp;

			if (v)
				ht_map_del_u64(&m->addrs, look);
			unknown(sy, m, addr, &tmp);
			out[0] = tmp;
			return 1;
		}
		sy->res[sy->nres].first = first;
		sy->res[sy->nres].n = n;
		*v = ++sy->nres;
		r = &sy->res[sy->nres - 1];
	}
	n = r->n < max ? r->n : max;
	memcpy(out, &sy->fr[r->first], (size_t)n * sizeof *out);
	/* the innermost frames are dropped when out is short: the real function stays last */
	if (r->n > max)
		memcpy(out, &sy->fr[r->first + (size_t)(r->n - max)], (size_t)max * sizeof *out);
	return n;
}
