/*
 * The OpenCL C rewriter (rewrite.h): libclang parses the program as the
 * application builds it (its -D/-I/-cl-std options, OpenCL C headers of
 * clang, a spir64 target so that address spaces and sizes are OpenCL's),
 * and every global-memory access of every function is wrapped where it is
 * spelled. The output is the source text with insertions only (and one
 * deletion: a "void" parameter list), so everything else the application
 * wrote, pragmas and macros included, stays as it was.
 *
 * What counts as an access: an lvalue of a __global-qualified type
 * (a[i], *p, p->f, s[i].f, v[i] under a vector component) that is read
 * (load), assigned (store), or both (++, --, compound assignment: a load
 * site and a store site); the pointer argument of the atomic_* and atom_*
 * built-ins (atomic); the pointer of vloadn/vstoren (n elements). Not: an
 * address taken (&a[i]), an operand of sizeof, __constant and __local
 * memory, an access spelled inside a macro's definition (counted in
 * `skipped`: its text is not the application's at that place; the program
 * is then rewritten again with its macros expanded, rewrite_cpp.c).
 *
 *   a[i] = b[i] + 1;
 * becomes
 *   (*({ __auto_type ht_p0 = &(a[i]); ht_mt_acc(ht_mt, ht_p0, 0u, HT_MT_INFO(sizeof(*ht_p0),
 *   1)); ht_p0; })) = (*({ __auto_type ht_p1 = &(b[i]); ... ht_p1; })) + 1;
 * which evaluates each operand once, keeps its type and lvalue-ness, and
 * nests. A kernel gains two parameters after the application's
 * (__global volatile uint *ht_mt_chan, uint ht_mt_launch), a staging block
 * in local memory set up at its start (devcode_cl.c), the addresses of its
 * buffer arguments noted, and ht_mt_end() before every return and at its
 * end; every other function defined in the program gains a parameter
 * (__local struct ht_mt_wg *ht_mt), and every call to one passes it on.
 */
#include <clang-c/Index.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/map.h"
#include "format/format.h"
#include "memtrace/rewrite.h"
#include "memtrace/rewrite_int.h"

/* ---- helpers ---- */

static int add_ins(struct rw *w, size_t off, size_t del, int cls, long key, const char *fmt, ...)
{
	va_list ap;
	char *t;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0 || ht_grow((void **)&w->ins, &w->capins, sizeof *w->ins, w->nins + 1)) {
		if (n >= 0)
			free(t);
		w->err = -ENOMEM;
		return -ENOMEM;
	}
	w->ins[w->nins] =
	    (struct ins){.off = off, .del = del, .cls = cls, .key = key, .seq = w->nins, .text = t};
	w->nins++;
	return 0;
}

/*
 * The file offsets of a cursor's extent, where its text is written: a
 * macro argument where the argument is written, anything else from a macro
 * at the macro's use (libclang's spelling location is that too, so the
 * callers check that the text there has the shape of the node: an access
 * that comes from a macro's body has the macro's text, not its own).
 * Return: 0, or -1 when it is not text of the program's file.
 */
static int extent(struct rw *w, CXCursor c, unsigned int *start, unsigned int *end)
{
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile fa, fb;
	unsigned int sa, sb;

	clang_getFileLocation(clang_getRangeStart(r), &fa, NULL, NULL, &sa);
	clang_getFileLocation(clang_getRangeEnd(r), &fb, NULL, NULL, &sb);
	if (!fa || !fb || !clang_File_isEqual(fa, w->file) || !clang_File_isEqual(fb, w->file) ||
	    sb < sa || sb > w->len)
		return -1;
	*start = sa;
	*end = sb;
	return 0;
}

/*
 * Whether declaration c is the program's to instrument: in its text, which
 * is, once expanded, its #include'd files' too (the system headers taken out).
 */
static int in_program(const struct rw *w, CXCursor c)
{
	CXFile file;

	clang_getExpansionLocation(clang_getCursorLocation(c), &file, NULL, NULL, NULL);
	return file && clang_File_isEqual(file, w->file);
}

/*
 * Whether the function call c refers to is defined in a file the
 * application #include'd: its accesses are reached once expanded.
 */
static int in_own_header(const struct rw *w, CXCursor f)
{
	CXCursor d = clang_getCursorDefinition(f);
	CXSourceLocation l;
	CXFile file;

	if (clang_Cursor_isNull(d))
		return 0;
	l = clang_getCursorLocation(d);
	clang_getExpansionLocation(l, &file, NULL, NULL, NULL);
	return file && !clang_File_isEqual(file, w->file) && !clang_Location_isInSystemHeader(l);
}

/* Return: the index of the first token at or after offset off. */
static size_t tok_at(const struct rw *w, unsigned int off)
{
	size_t lo = 0, hi = w->ntoks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int tok_is(const struct rw *w, size_t i, const char *s)
{
	return i < w->ntoks && !strcmp(w->toks[i].s, s);
}

/* Return: the index of the token that ends at offset e, or w->ntoks. */
static size_t tok_ending(const struct rw *w, unsigned int e)
{
	size_t i = tok_at(w, e);

	while (i > 0 && w->toks[i - 1].end > e)
		i--;
	return i > 0 && w->toks[i - 1].end == e ? i - 1 : w->ntoks;
}

/* Is the text at [s, e) a token spelled `str`... at s (first) or ending at e (!first)? */
static int text_is(const struct rw *w, unsigned int s, unsigned int e, int first, const char *str)
{
	size_t n = strlen(str);
	size_t i = first ? tok_at(w, s) : tok_ending(w, e);

	if (i >= w->ntoks || (first && w->toks[i].off != s))
		return 0;
	return w->toks[i].end - w->toks[i].off == n && !strncmp(w->src + w->toks[i].off, str, n);
}

/* The text of c is its own (not a macro's): it has the shape of c's kind. */
static int own_text(struct rw *w, CXCursor c, unsigned int s, unsigned int e)
{
	CXString name;
	int ok;

	switch (clang_getCursorKind(c)) {
	case CXCursor_ArraySubscriptExpr:
		return text_is(w, s, e, 0, "]");
	case CXCursor_UnaryOperator:
		return text_is(w, s, e, 1, "*");
	case CXCursor_MemberRefExpr:
	case CXCursor_CallExpr: {
		size_t i;

		name = clang_getCursorSpelling(c);
		if (clang_getCursorKind(c) == CXCursor_CallExpr) {
			ok =
			    text_is(w, s, e, 1, clang_getCString(name)) && text_is(w, s, e, 0, ")");
		} else {
			i = tok_ending(w, e);
			ok = text_is(w, s, e, 0, clang_getCString(name)) && i > 0 &&
			     (tok_is(w, i - 1, ".") || tok_is(w, i - 1, "->"));
		}
		clang_disposeString(name);
		return ok;
	}
	case CXCursor_ReturnStmt:
		return text_is(w, s, e, 1, "return");
	default:
		return 1;
	}
}

static CXCursor child(CXCursor c, unsigned int n);

struct nth {
	unsigned int want, seen;
	CXCursor found;
};

static enum CXChildVisitResult nth_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct nth *n = d;

	(void)parent;
	if (n->seen++ == n->want) {
		n->found = c;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/* Child n of c, or a null cursor. */
static CXCursor child(CXCursor c, unsigned int n)
{
	struct nth x = {.want = n, .found = clang_getNullCursor()};

	clang_visitChildren(c, nth_visit, &x);
	return x.found;
}

/* Skips implicit casts, parentheses and explicit casts down to the expression beneath. */
static CXCursor strip(CXCursor c)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);

		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr)
			return c;
		if (k == CXCursor_CStyleCastExpr) {
			/* its children: the type reference(s), then the operand */
			CXCursor last = clang_getNullCursor();

			for (unsigned int i = 0;; i++) {
				CXCursor x = child(c, i);

				if (clang_Cursor_isNull(x))
					break;
				last = x;
			}
			if (clang_Cursor_isNull(last))
				return c;
			c = last;
			continue;
		}
		{
			CXCursor x = child(c, 0);

			if (clang_Cursor_isNull(x) || !clang_Cursor_isNull(child(c, 1)))
				return c;
			c = x;
		}
	}
}

static int type_global(CXType t)
{
	return t.kind != CXType_Invalid && clang_getAddressSpace(t) == AS_GLOBAL;
}

static int is_pointer(CXType t)
{
	return clang_getCanonicalType(t).kind == CXType_Pointer;
}

static int pointee_global(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind == CXType_Pointer && type_global(clang_getPointeeType(t));
}

static int is_array(CXType t)
{
	enum CXTypeKind k = clang_getCanonicalType(t).kind;

	return k == CXType_ConstantArray || k == CXType_IncompleteArray ||
	       k == CXType_VariableArray || k == CXType_DependentSizedArray;
}

/* The operator of a unary expression c: its first token, or the one after its operand (postfix). */
static const char *unary_op(struct rw *w, CXCursor c)
{
	unsigned int s, e, os, oe;
	CXCursor op = child(c, 0);
	size_t i;

	if (extent(w, c, &s, &e))
		return "";
	if (!clang_Cursor_isNull(op) && !extent(w, op, &os, &oe) && os == s) {
		i = tok_at(w, oe);
		return i < w->ntoks && w->toks[i].off < e ? w->toks[i].s : "";
	}
	i = tok_at(w, s);
	return i < w->ntoks ? w->toks[i].s : "";
}

/* The operator token of a binary expression: the first token after its left operand. */
static const char *binary_op(struct rw *w, CXCursor c)
{
	unsigned int s, e;
	CXCursor l = child(c, 0);
	size_t i;

	if (clang_Cursor_isNull(l) || extent(w, l, &s, &e))
		return "";
	i = tok_at(w, e);
	return i < w->ntoks ? w->toks[i].s : "";
}

/* Return: the parameter index of the kernel argument a pointer expression comes from, or -1. */
static int pointer_arg(struct rw *w, CXCursor p);

/* The argument an access (an lvalue cursor) reads or writes through, or -1. */
static int access_arg(struct rw *w, CXCursor a)
{
	enum CXCursorKind k;

	a = strip(a);
	k = clang_getCursorKind(a);
	if (k == CXCursor_ArraySubscriptExpr) {
		CXCursor b = child(a, 0), i = child(a, 1);

		if (!clang_Cursor_isNull(i) && is_pointer(clang_getCursorType(strip(i))) &&
		    !is_pointer(clang_getCursorType(strip(b))))
			b = i; /* i[a] */
		if (is_array(clang_getCursorType(strip(b))))
			return access_arg(w, b); /* s[i].arr[j]: through s */
		return pointer_arg(w, b);
	}
	if (k == CXCursor_UnaryOperator)
		return pointer_arg(w, child(a, 0));
	if (k == CXCursor_MemberRefExpr) {
		CXCursor b = child(a, 0);

		if (is_pointer(clang_getCursorType(b)) || is_pointer(clang_getCursorType(strip(b))))
			return pointer_arg(w, b);
		return access_arg(w, b);
	}
	return -1;
}

static int pointer_arg(struct rw *w, CXCursor p)
{
	enum CXCursorKind k;

	p = strip(p);
	k = clang_getCursorKind(p);
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(p);

		if (!w->in_kernel || clang_getCursorKind(d) != CXCursor_ParmDecl)
			return -1;
		for (unsigned int i = 0; i < w->nparams; i++)
			if (clang_equalCursors(d, w->params[i]))
				return (int)i;
		return -1;
	}
	if (k == CXCursor_BinaryOperator) {
		CXCursor l = child(p, 0), r = child(p, 1);

		if (is_pointer(clang_getCursorType(strip(l))))
			return pointer_arg(w, l);
		if (is_pointer(clang_getCursorType(strip(r))))
			return pointer_arg(w, r);
		return -1;
	}
	if (k == CXCursor_UnaryOperator && !strcmp(unary_op(w, p), "&"))
		return access_arg(w, child(p, 0));
	if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_MemberRefExpr)
		return access_arg(w, p); /* an array member decayed to a pointer */
	return -1;
}

/*
 * Return: 1 the first time the text [s, e) is wrapped, 0 after: a macro
 * argument used twice in its expansion gives two nodes of one text, and its
 * one wrapping is expanded twice (two records per use, one site).
 */
static int first_wrap(struct rw *w, unsigned int s, unsigned int e)
{
	int created = 0;

	if (!ht_map_u64(&w->wrapped, (uint64_t)s << 32 | e, 1, &created))
		w->err = -ENOMEM;
	return created;
}

/* ---- sites ---- */

static int new_site(struct rw *w, CXCursor at, CXType t, unsigned int kind, int arg)
{
	struct ht_mt_rewrite *o = w->out;
	struct ht_mt_site *s;
	unsigned int line = 0, col = 0;
	long long size = t.kind != CXType_Invalid ? clang_Type_getSizeOf(t) : -1;
	CXString name;
	int file;

	if (ht_grow((void **)&o->sites, &w->capsites, sizeof *o->sites, o->nsites + 1)) {
		w->err = -ENOMEM;
		return -1;
	}
	/* the application's file and line: expanded text says them in #line directives */
	clang_getPresumedLocation(clang_getRangeStart(clang_getCursorExtent(at)), &name, &line,
				  &col);
	file = strcmp(clang_getCString(name), w->name)
		   ? ht_mt_rewrite_file(o, clang_getCString(name))
		   : 0;
	clang_disposeString(name);
	if (file < 0) {
		w->err = -ENOMEM;
		return -1;
	}
	s = &o->sites[o->nsites];
	memset(s, 0, sizeof *s);
	s->id = (uint32_t)o->nsites;
	s->arg = arg;
	s->kind = (uint8_t)kind;
	s->size = (uint8_t)(size < 0 ? 0 : size > 255 ? 255 : size);
	s->line = line;
	s->col = col;
	s->file = (uint32_t)file;
	snprintf(s->fn, sizeof s->fn, "%s", w->fn_name ? w->fn_name : "");
	o->nsites++;
	return (int)s->id;
}

/* One access a at [s, e): loads, stores or both (two sites). */
static void wrap_access(struct rw *w, CXCursor a, unsigned int s, unsigned int e, int load,
			int store)
{
	int arg = access_arg(w, a);
	CXType t = clang_getCursorType(a);
	int first = -1, second = -1;
	long len = (long)(e - s);

	if (load)
		first = new_site(w, a, t, HT_MEM_LOAD, arg);
	if (store)
		second = new_site(w, a, t, HT_MEM_STORE, arg);
	if (w->err)
		return;
	if (first < 0)
		first = second, second = -1;
	add_ins(w, s, 0, 2, -len, "(*({ __auto_type ht_p%d = &(", first);
	if (second < 0)
		add_ins(
		    w, e, 0, 0, len,
		    "); ht_mt_acc(ht_mt, ht_p%d, %du, HT_MT_INFO(sizeof(*ht_p%d), %d)); ht_p%d; "
		    "}))",
		    first, first, first, store && !load ? HT_MEM_STORE : HT_MEM_LOAD, first);
	else
		add_ins(
		    w, e, 0, 0, len,
		    "); ht_mt_acc(ht_mt, ht_p%d, %du, HT_MT_INFO(sizeof(*ht_p%d), %d)); "
		    "ht_mt_acc(ht_mt, ht_p%d, %du, HT_MT_INFO(sizeof(*ht_p%d), %d)); ht_p%d; }))",
		    first, first, first, HT_MEM_LOAD, first, second, first, HT_MEM_STORE, first);
}

/*
 * A candidate access c (its type is __global and not an array): decides
 * from its ancestors whether and how it is accessed, and wraps it.
 */
static void access(struct rw *w, CXCursor c)
{
	unsigned int s, e;
	int i = (int)w->depth - 2; /* the parent */
	CXCursor cur = c;

	if (is_array(clang_getCursorType(c)))
		return;
	for (int j = i; j >= 0; j--) /* unevaluated */
		if (clang_getCursorKind(w->stack[j]) == CXCursor_UnaryExpr)
			return;
	/* up through parentheses and lvalue wrappers that keep the __global lvalue (v[i].x) */
	for (; i >= 0; i--) {
		CXCursor p = w->stack[i];
		enum CXCursorKind k = clang_getCursorKind(p);

		if (k == CXCursor_ParenExpr ||
		    (k == CXCursor_UnexposedExpr && type_global(clang_getCursorType(p)) &&
		     !is_pointer(clang_getCursorType(p)))) {
			cur = p;
			continue;
		}
		break;
	}
	if (i >= 0) {
		CXCursor p = w->stack[i];
		enum CXCursorKind k = clang_getCursorKind(p);

		if (k == CXCursor_MemberRefExpr && clang_equalCursors(child(p, 0), cur))
			return; /* s[i].f: the member is the access */
		if (k == CXCursor_UnaryOperator && !strcmp(unary_op(w, p), "&"))
			return;
	}
	if (extent(w, c, &s, &e) || !own_text(w, c, s, e)) {
		w->out->skipped++;
		return;
	}
	if (!first_wrap(w, s, e))
		return;
	if (i < 0)
		goto load;
	{
		CXCursor p = w->stack[i];
		enum CXCursorKind k = clang_getCursorKind(p);
		int lhs = clang_equalCursors(child(p, 0), cur);
		const char *op;

		if (k == CXCursor_CompoundAssignOperator && lhs) {
			wrap_access(w, c, s, e, 1, 1);
			return;
		}
		if (k == CXCursor_BinaryOperator && lhs && !strcmp(binary_op(w, p), "=")) {
			wrap_access(w, c, s, e, 0, 1);
			return;
		}
		if (k == CXCursor_UnaryOperator) {
			op = unary_op(w, p);
			if (!strcmp(op, "++") || !strcmp(op, "--")) {
				wrap_access(w, c, s, e, 1, 1);
				return;
			}
		}
	}
load:
	wrap_access(w, c, s, e, 1, 0);
}

/* atomic_*, atom_*: the pointer argument, wrapped; vloadn/vstoren: the offset, wrapped. */
static void builtin_call(struct rw *w, CXCursor c, const char *name)
{
	int nargs = clang_Cursor_getNumArguments(c);
	unsigned int s, e, cs, ce;
	int own = !extent(w, c, &cs, &ce) && own_text(w, c, cs, ce);

	if (!strncmp(name, "atomic_", 7) || !strncmp(name, "atom_", 5)) {
		CXCursor p;
		CXType t;
		int site;

		if (nargs < 1)
			return;
		p = clang_Cursor_getArgument(c, 0);
		t = clang_getCanonicalType(clang_getCursorType(strip(p)));
		if (!pointee_global(t))
			return;
		if (!own || extent(w, p, &s, &e)) {
			w->out->skipped++;
			return;
		}
		if (!first_wrap(w, s, e))
			return;
		site = new_site(w, c, clang_getPointeeType(t), HT_MEM_ATOMIC, pointer_arg(w, p));
		if (site < 0)
			return;
		add_ins(w, s, 0, 2, -(long)(e - s), "({ __auto_type ht_p%d = (", site);
		add_ins(
		    w, e, 0, 0, (long)(e - s),
		    "); ht_mt_acc(ht_mt, ht_p%d, %du, HT_MT_INFO(sizeof(*ht_p%d), %d)); ht_p%d; })",
		    site, site, site, HT_MEM_ATOMIC, site);
		return;
	}
	{
		int store = !strncmp(name, "vstore", 6), n;
		const char *digits = name + 5 + store;
		char *end;
		CXCursor p;
		CXType t;
		int site;
		unsigned int as[3], ae[3];
		long key;
		char call[96];

		if (strncmp(name, "vload", 5) && !store)
			return;
		n = (int)strtol(digits, &end, 10);
		if (*end || !(n == 2 || n == 3 || n == 4 || n == 8 || n == 16) ||
		    nargs != 2 + store)
			return; /* the half forms and others: not traced */
		p = clang_Cursor_getArgument(c, (unsigned int)(1 + store));
		t = clang_getCanonicalType(clang_getCursorType(strip(p)));
		if (!pointee_global(t))
			return;
		/*
		 * Each argument is bound once, in the order written, and the call
		 * made on the bindings:
		 *   vstore4(d, o, &q[i])  becomes
		 *   ({ __auto_type ht_aK_0 = (d); __auto_type ht_aK_1 = (o);
		 *      __auto_type ht_aK_2 = (&q[i]); ht_mt_vo(ht_mt, ht_aK_1, ht_aK_2, ...);
		 *      vstore4(ht_aK_0, ht_aK_1, ht_aK_2); })
		 * The arguments' text stays where it is (what is instrumented inside
		 * them too); only the call's name, commas and closing parenthesis go.
		 */
		if (!own) {
			w->out->skipped++;
			return;
		}
		for (int a = 0; a < nargs; a++)
			if (extent(w, clang_Cursor_getArgument(c, (unsigned int)a), &as[a],
				   &ae[a]) ||
			    as[a] < (a ? ae[a - 1] : cs + 1) || ae[a] >= ce) {
				w->out->skipped++;
				return;
			}
		if (!first_wrap(w, cs, ce))
			return;
		site = new_site(w, c, clang_getPointeeType(t), store ? HT_MEM_STORE : HT_MEM_LOAD,
				pointer_arg(w, p));
		if (site < 0)
			return;
		/* the site's size: n elements */
		{
			long long es = clang_Type_getSizeOf(clang_getPointeeType(t));
			long long sz = es > 0 ? es * n : 0;

			w->out->sites[site].size = (uint8_t)(sz > 255 ? 255 : sz);
		}
		key = (long)(ce - cs);
		add_ins(w, cs, as[0] - cs, 2, -key, "({ __auto_type ht_a%d_0 = (", site);
		for (int a = 1; a < nargs; a++)
			add_ins(w, ae[a - 1], as[a] - ae[a - 1], 0, key,
				"); __auto_type ht_a%d_%d = (", site, a);
		snprintf(call, sizeof call,
			 store ? "%s(ht_a%d_0, ht_a%d_1, ht_a%d_2)" : "%s(ht_a%d_0, ht_a%d_1)",
			 name, site, site, site);
		add_ins(w, ae[nargs - 1], ce - ae[nargs - 1], 0, key,
			"); ht_mt_vo(ht_mt, ht_a%d_%d, ht_a%d_%d, sizeof(*ht_a%d_%d), %d, %du, "
			"%d); %s; })",
			site, store, site, store + 1, site, store + 1, n, site,
			store ? HT_MEM_STORE : HT_MEM_LOAD, call);
	}
}

/* A call of a function defined in this program: pass the staging block on. */
static void program_call(struct rw *w, CXCursor c)
{
	unsigned int s, e;

	if (extent(w, c, &s, &e) || !own_text(w, c, s, e)) {
		CXString n = clang_getCursorSpelling(c);

		/* the callee gains a parameter: a call we cannot extend would not build */
		w->hidden = 1;
		snprintf(w->out->error, sizeof w->out->error,
			 "cannot instrument the call of '%s' in '%s': it is spelled inside a macro",
			 clang_getCString(n), w->fn_name ? w->fn_name : "?");
		clang_disposeString(n);
		w->err = -EINVAL;
		return;
	}
	add_ins(w, e - 1, 0, 1, 0, "%sht_mt", clang_Cursor_getNumArguments(c) > 0 ? ", " : "");
}

/* Return: the program's function f is (NULL: not defined or declared here). */
static const struct fn *find_fn(const struct rw *w, CXCursor f)
{
	CXString name;
	const struct fn *r = NULL;

	if (clang_getCursorKind(f) != CXCursor_FunctionDecl)
		return NULL;
	if (!in_program(w, f))
		return NULL;
	name = clang_getCursorSpelling(f);
	for (size_t i = 0; i < w->nfns; i++)
		if (!strcmp(w->fns[i].name, clang_getCString(name)))
			r = &w->fns[i];
	clang_disposeString(name);
	return r;
}

/* ---- the walk of a function body ---- */

static enum CXChildVisitResult body_visit(CXCursor c, CXCursor parent, CXClientData d);

static void walk(struct rw *w, CXCursor c)
{
	if (w->depth == sizeof w->stack / sizeof w->stack[0]) {
		w->err = -E2BIG;
		return;
	}
	w->stack[w->depth++] = c;
	switch (clang_getCursorKind(c)) {
	case CXCursor_ArraySubscriptExpr:
	case CXCursor_MemberRefExpr:
		if (type_global(clang_getCursorType(c)))
			access(w, c);
		break;
	case CXCursor_UnaryOperator:
		if (type_global(clang_getCursorType(c)) && !strcmp(unary_op(w, c), "*"))
			access(w, c);
		break;
	case CXCursor_CallExpr: {
		CXCursor f = clang_getCursorReferenced(c);
		const struct fn *pf = find_fn(w, f);
		CXString n = clang_getCursorSpelling(c);

		if (pf && !pf->kernel)
			program_call(w, c);
		else if (!pf && !w->expanded && in_own_header(w, f))
			w->hidden = 1; /* so is a helper of an #include'd file */
		if (!pf && !clang_Cursor_isNull(f))
			builtin_call(w, c, clang_getCString(n));
		clang_disposeString(n);
		break;
	}
	case CXCursor_ReturnStmt:
		if (w->in_kernel) {
			unsigned int s, e;
			size_t t;

			if (extent(w, c, &s, &e) || !own_text(w, c, s, e)) {
				w->out->skipped++;
				break;
			}
			t = tok_at(w, e);
			if (!tok_is(w, t, ";")) {
				w->out->skipped++;
				break;
			}
			add_ins(w, s, 0, 2, -(long)(w->toks[t].end - s), "{ ht_mt_end(ht_mt); ");
			add_ins(w, w->toks[t].end, 0, 0, (long)(w->toks[t].end - s), " }");
		}
		break;
	default:
		break;
	}
	clang_visitChildren(c, body_visit, w);
	w->depth--;
}

static enum CXChildVisitResult body_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct rw *w = d;

	(void)parent;
	if (w->err)
		return CXChildVisit_Break;
	walk(w, c);
	return CXChildVisit_Continue;
}

/* ---- functions ---- */

struct fn_parts {
	CXCursor params[MAX_ARGS];
	unsigned int nparams;
	CXCursor body;
	int has_body;
};

static enum CXChildVisitResult parts_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	struct fn_parts *p = d;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_ParmDecl && p->nparams < MAX_ARGS)
		p->params[p->nparams++] = c;
	else if (clang_getCursorKind(c) == CXCursor_CompoundStmt) {
		p->body = c;
		p->has_body = 1;
	}
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_UnexposedAttr)
		return CXChildVisit_Continue;
	*(int *)d = 1;
	return CXChildVisit_Break;
}

/*
 * Is f a kernel: __kernel or kernel among the tokens before its name, or,
 * for a qualifier spelled through a macro (hashcat: "KERNEL_FQ void
 * m00000_sxx (KERN_ATTR_VECTOR ())"), an attribute that libclang shows only
 * as unexposed and prints as __kernel in the declaration. (Its calling
 * convention does not tell: on the spir64 target every function's is
 * unexposed.)
 */
static int is_kernel(struct rw *w, CXCursor f)
{
	unsigned int s, e, name;
	size_t i;
	int attr = 0;

	if (extent(w, f, &s, &e))
		return 0;
	clang_getExpansionLocation(clang_getCursorLocation(f), NULL, NULL, NULL, &name);
	for (i = tok_at(w, s); i < w->ntoks && w->toks[i].off < name; i++)
		if (w->toks[i].kind == CXToken_Keyword || w->toks[i].kind == CXToken_Identifier) {
			unsigned int n = w->toks[i].end - w->toks[i].off;

			if ((n == 8 && !strncmp(w->src + w->toks[i].off, "__kernel", 8)) ||
			    (n == 6 && !strncmp(w->src + w->toks[i].off, "kernel", 6)))
				return 1;
		}
	clang_visitChildren(f, attr_visit, &attr);
	if (attr) {
		CXPrintingPolicy pp = clang_getCursorPrintingPolicy(f);
		CXString decl;

		clang_PrintingPolicy_setProperty(pp, CXPrintingPolicy_TerseOutput, 1);
		decl = clang_getCursorPrettyPrinted(f, pp);
		attr = strstr(clang_getCString(decl), "__kernel") != NULL;
		clang_disposeString(decl);
		clang_PrintingPolicy_dispose(pp);
	}
	return attr;
}

/* The parameter list's ")": the token after the last parameter, or after "(" following the name. */
static int param_close(struct rw *w, CXCursor f, const struct fn_parts *p, size_t *close,
		       int *is_void)
{
	unsigned int name, s, e, body_end;
	size_t i;

	*is_void = 0;
	if (p->nparams) {
		if (extent(w, p->params[p->nparams - 1], &s, &e))
			return -1;
		i = tok_at(w, e);
		if (tok_is(w, i, ")")) {
			*close = i;
			return 0;
		}
		/*
		 * Parameters that preprocessor conditionals leave out follow the
		 * last one (CLBlast: "const real beta #if SA == 1 , LOCAL_PTR
		 * realM* alm #endif )"): in a definition, the ")" just before the
		 * body's "{" closes the list.
		 */
		if (!p->has_body || extent(w, p->body, &s, &body_end))
			return -1;
		i = tok_at(w, s);
		if (!tok_is(w, i, "{") || !i || !tok_is(w, i - 1, ")") || w->toks[i - 1].off < e)
			return -1;
		*close = i - 1;
		return 0;
	}
	clang_getExpansionLocation(clang_getCursorLocation(f), NULL, NULL, NULL, &name);
	i = tok_at(w, name) + 1;
	if (!tok_is(w, i, "("))
		return -1;
	if (tok_is(w, i + 1, ")")) {
		*close = i + 1;
		return 0;
	}
	if (tok_is(w, i + 2, ")") && w->toks[i + 1].end - w->toks[i + 1].off == 4 &&
	    !strncmp(w->src + w->toks[i + 1].off, "void", 4)) {
		*close = i + 2;
		*is_void = 1;
		return 0;
	}
	return -1;
}

static void function(struct rw *w, CXCursor f)
{
	struct fn_parts p = {.nparams = 0};
	const struct fn *me = find_fn(w, f);
	size_t close;
	int is_void;
	CXString name;

	if (!me)
		return;
	clang_visitChildren(f, parts_visit, &p);
	if (p.nparams >= MAX_ARGS || param_close(w, f, &p, &close, &is_void)) {
		snprintf(w->out->error, sizeof w->out->error,
			 "cannot instrument function '%s': its parameter list is spelled through "
			 "a macro",
			 me->name);
		w->err = -EINVAL;
		return;
	}
	if (is_void)
		add_ins(w, w->toks[close - 1].off, 4, 1, 0, "%s",
			me->kernel ? "__global volatile uint *ht_mt_chan, uint ht_mt_launch"
				   : "__local struct ht_mt_wg *ht_mt");
	else
		add_ins(w, w->toks[close].off, 0, 1, 0, "%s%s", p.nparams ? ", " : "",
			me->kernel ? "__global volatile uint *ht_mt_chan, uint ht_mt_launch"
				   : "__local struct ht_mt_wg *ht_mt");
	if (!p.has_body)
		return;
	name = clang_getCursorSpelling(f);
	w->fn_name = clang_getCString(name);
	w->in_kernel = me->kernel;
	w->nparams = p.nparams;
	memcpy(w->params, p.params, sizeof p.params[0] * p.nparams);
	if (me->kernel) {
		struct ht_mt_rewrite *o = w->out;
		struct ht_mt_kernel *k;
		unsigned int bs, be;

		if (ht_grow((void **)&o->kernels, &w->capkernels, sizeof *o->kernels,
			    o->nkernels + 1)) {
			w->err = -ENOMEM;
			goto out;
		}
		k = &o->kernels[o->nkernels++];
		memset(k, 0, sizeof *k);
		snprintf(k->name, sizeof k->name, "%s", me->name);
		k->nparams = p.nparams;
		if (extent(w, p.body, &bs, &be) || w->src[bs] != '{' || w->src[be - 1] != '}') {
			snprintf(
			    o->error, sizeof o->error,
			    "cannot instrument kernel '%s': its body is spelled through a macro",
			    me->name);
			w->err = -EINVAL;
			goto out;
		}
		add_ins(w, bs + 1, 0, 1, 0,
			" __local struct ht_mt_wg ht_mt_wg_; __local struct ht_mt_wg *ht_mt = "
			"&ht_mt_wg_; ht_mt_begin(ht_mt, ht_mt_chan, ht_mt_launch);");
		for (unsigned int i = 0; i < p.nparams; i++) {
			CXString pn;

			if (!pointee_global(clang_getCursorType(p.params[i])))
				continue;
			if (i < 64)
				k->buffers |= 1ull << i;
			pn = clang_getCursorSpelling(p.params[i]);
			add_ins(w, bs + 1, 0, 1, 0, " ht_mt_arg(ht_mt, %uu, %s);", i,
				clang_getCString(pn));
			clang_disposeString(pn);
		}
		add_ins(w, be - 1, 0, 1, 0, " ht_mt_end(ht_mt); ");
	}
	w->depth = 0;
	clang_visitChildren(p.body, body_visit, w);
out:
	clang_disposeString(name);
	w->fn_name = NULL;
	w->in_kernel = 0;
}

static enum CXChildVisitResult collect_fns(CXCursor c, CXCursor parent, CXClientData d)
{
	struct rw *w = d;
	CXString name;

	(void)parent;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl || !in_program(w, c))
		return CXChildVisit_Continue;
	name = clang_getCursorSpelling(c);
	for (size_t i = 0; i < w->nfns; i++)
		if (!strcmp(w->fns[i].name, clang_getCString(name)))
			goto out;
	if (ht_grow((void **)&w->fns, &w->capfns, sizeof *w->fns, w->nfns + 1)) {
		w->err = -ENOMEM;
		goto out;
	}
	snprintf(w->fns[w->nfns].name, sizeof w->fns[0].name, "%s", clang_getCString(name));
	w->fns[w->nfns].kernel = is_kernel(w, c);
	w->nfns++;
out:
	clang_disposeString(name);
	return CXChildVisit_Continue;
}

static enum CXChildVisitResult each_fn(CXCursor c, CXCursor parent, CXClientData d)
{
	struct rw *w = d;

	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_FunctionDecl && !w->err)
		function(w, c);
	return w->err ? CXChildVisit_Break : CXChildVisit_Continue;
}

void ht_mt_rw_functions(struct rw *w)
{
	clang_visitChildren(clang_getTranslationUnitCursor(w->tu), collect_fns, w);
	if (!w->err)
		clang_visitChildren(clang_getTranslationUnitCursor(w->tu), each_fn, w);
}
