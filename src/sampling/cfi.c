/*
 * The CFI reader (see cfi.h): .eh_frame_hdr's binary-search table to the
 * FDE, the FDE's CIE, then the CIE's initial instructions and the FDE's
 * instructions run up to the address (DWARF 5 §6.4, the LSB's .eh_frame
 * pointer encodings). A row is computed once per address by its users and
 * cached there (an FDE walk costs ~0.3-1 µs; a cached row a few ns).
 */
#include <errno.h>
#include <string.h>

#include "sampling/cfi.h"

const uint8_t ht_cfi_tracked[HT_CFI_TRACKED] = {HT_DW_RBX, HT_DW_RBP, HT_DW_RSP, 12,
						13,	   14,	      15,	 HT_DW_RA};

/* A bounded reader over the source; `bad` once anything ran past its range. */
struct cur {
	const uint8_t *p, *end;
	const struct ht_cfi_source *s;
	int bad;
};

static void cur_at(struct cur *c, const struct ht_cfi_source *s, uint64_t addr, uint64_t len)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)(addr + (uint64_t)s->delta);

	c->s = s;
	c->bad = p < s->lo || p >= s->hi;
	c->p = p;
	c->end = c->bad ? p : (len && len < (uint64_t)(s->hi - p) ? p + len : s->hi);
}

static uint64_t cur_addr(const struct cur *c)
{
	return (uint64_t)(uintptr_t)c->p - (uint64_t)c->s->delta;
}

static int need(struct cur *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	return 1;
}

static uint64_t get_n(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (!need(c, n))
		return 0;
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; need(c, 1); shift += 7) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	while (need(c, 1)) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return (int64_t)v;
}

/* An encoded pointer (DW_EH_PE_*); datarel is relative to `data` (.eh_frame_hdr). */
static uint64_t enc_ptr(struct cur *c, uint8_t enc, uint64_t data)
{
	uint64_t at = cur_addr(c), v;

	if (enc == 0xff) /* omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00:
	case 0x04:
		v = get_n(c, 8);
		break;
	case 0x01:
		v = uleb(c);
		break;
	case 0x02:
		v = get_n(c, 2);
		break;
	case 0x03:
		v = get_n(c, 4);
		break;
	case 0x09:
		v = (uint64_t)sleb(c);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)get_n(c, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)get_n(c, 4);
		break;
	case 0x0c:
		v = get_n(c, 8);
		break;
	default:
		c->bad = 1;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10: /* pcrel */
		v += at;
		break;
	case 0x30: /* datarel */
		v += data;
		break;
	default: /* textrel, funcrel, aligned: not used on x86-64 */
		c->bad = 1;
	}
	return v;
}

/* ---- CIE and FDE ---- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra;
	uint8_t fde_enc;
	uint8_t has_z;
	uint8_t signal;
	const uint8_t *ins, *ins_end;
};

struct fde {
	uint64_t pc_begin, pc_range;
	const uint8_t *ins, *ins_end;
	struct cie cie;
};

/*
 * Reads a record's length at c. Return: the record's content length (c at
 * its content), or 0 for a terminator or when it does not fit.
 */
static uint64_t record_len(struct cur *c)
{
	uint64_t len = get_n(c, 4);

	if (len == 0xffffffffu)
		len = get_n(c, 8);
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return 0;
	return len;
}

static int parse_cie(const struct ht_cfi_source *s, uint64_t addr, struct cie *ci)
{
	struct cur c;
	uint64_t len;
	const uint8_t *end, *aug_end = NULL;
	const char *aug;
	uint8_t version;

	memset(ci, 0, sizeof *ci);
	ci->fde_enc = 0; /* absptr unless 'R' says */
	cur_at(&c, s, addr, 0);
	len = record_len(&c);
	if (!len)
		return -EINVAL;
	end = c.p + len;
	c.end = end;
	if (get_n(&c, 4) != 0)
		return -EINVAL; /* not a CIE */
	version = (uint8_t)get_n(&c, 1);
	if (version != 1 && version != 3 && version != 4)
		return -EINVAL;
	aug = (const char *)c.p;
	while (need(&c, 1) && *c.p)
		c.p++;
	if (!need(&c, 1))
		return -EINVAL;
	c.p++;
	if (aug[0] && aug[0] != 'z')
		return -EINVAL; /* "eh" and other pre-z augmentations: not produced today */
	if (version == 4)
		c.p += need(&c, 2) ? 2 : 0; /* address and segment selector sizes */
	ci->code_align = uleb(&c);
	ci->data_align = sleb(&c);
	ci->ra = version == 1 ? get_n(&c, 1) : uleb(&c);
	if (aug[0] == 'z') {
		uint64_t alen = uleb(&c);

		ci->has_z = 1;
		if (!need(&c, alen))
			return -EINVAL;
		aug_end = c.p + alen;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (uint8_t)get_n(&c, 1);
			} else if (*a == 'P') {
				uint8_t penc = (uint8_t)get_n(&c, 1);

				enc_ptr(&c, (uint8_t)(penc & 0x7f), 0); /* personality: skipped */
			} else if (*a == 'L') {
				get_n(&c, 1);
			} else if (*a == 'S') {
				ci->signal = 1;
			} else {
				break; /* unknown: the length lets us skip the rest */
			}
		}
		c.p = aug_end;
	}
	if (c.bad || ci->code_align == 0)
		return -EINVAL;
	ci->ins = c.p;
	ci->ins_end = end;
	return 0;
}

/* Parses the FDE at file address addr. Return: 0, -ENOENT (a CIE or terminator), -EINVAL. */
static int parse_fde(const struct ht_cfi_source *s, uint64_t addr, struct fde *f)
{
	struct cur c;
	uint64_t len, id_at, id;
	const uint8_t *end;

	cur_at(&c, s, addr, 0);
	len = record_len(&c);
	if (!len)
		return c.bad ? -EINVAL : -ENOENT;
	end = c.p + len;
	c.end = end;
	id_at = cur_addr(&c);
	id = get_n(&c, 4);
	if (c.bad)
		return -EINVAL;
	if (id == 0)
		return -ENOENT;
	if (parse_cie(s, id_at - id, &f->cie))
		return -EINVAL;
	f->pc_begin = enc_ptr(&c, f->cie.fde_enc, 0);
	f->pc_range = enc_ptr(&c, (uint8_t)(f->cie.fde_enc & 0x0f), 0);
	if (f->cie.has_z) {
		uint64_t alen = uleb(&c);

		if (!need(&c, alen))
			return -EINVAL;
		c.p += alen;
	}
	if (c.bad)
		return -EINVAL;
	f->ins = c.p;
	f->ins_end = end;
	return 0;
}

/* The FDE covering pc through .eh_frame_hdr. Return: 0, -ENOENT, -EINVAL, -ENOTSUP. */
static int search_hdr(const struct ht_cfi_source *s, uint64_t pc, struct fde *f)
{
	struct cur c;
	uint8_t version, ptr_enc, count_enc, table_enc;
	uint64_t count, lo = 0, hi, fde;
	const uint8_t *table;

	cur_at(&c, s, s->hdr, 0);
	version = (uint8_t)get_n(&c, 1);
	ptr_enc = (uint8_t)get_n(&c, 1);
	count_enc = (uint8_t)get_n(&c, 1);
	table_enc = (uint8_t)get_n(&c, 1);
	if (c.bad || version != 1)
		return -EINVAL;
	enc_ptr(&c, ptr_enc, s->hdr);
	count = enc_ptr(&c, count_enc, s->hdr);
	if (c.bad)
		return -EINVAL;
	if (table_enc != 0x3b || !count) /* datarel | sdata4: what every linker writes */
		return -ENOTSUP;
	if (!need(&c, 8 * count))
		return -EINVAL;
	table = c.p;
	hi = count;
	/* the last entry whose initial location is <= pc */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t loc;

		memcpy(&loc, table + 8 * mid, 4);
		if (s->hdr + (uint64_t)(int64_t)loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	{
		int32_t off;

		memcpy(&off, table + 8 * (lo - 1) + 4, 4);
		fde = s->hdr + (uint64_t)(int64_t)off;
	}
	if (parse_fde(s, fde, f))
		return -EINVAL;
	return pc >= f->pc_begin && pc - f->pc_begin < f->pc_range ? 0 : -ENOENT;
}

/* The FDE covering pc by walking .eh_frame (objects without a search table). */
static int search_linear(const struct ht_cfi_source *s, uint64_t pc, struct fde *f)
{
	uint64_t at = s->eh_frame;

	if (!at)
		return -ENOENT;
	for (unsigned int guard = 0; guard < (1u << 22); guard++) {
		struct cur c;
		uint64_t len;
		int r;

		if (s->eh_frame_end && at >= s->eh_frame_end)
			return -ENOENT;
		cur_at(&c, s, at, 0);
		len = record_len(&c);
		if (!len)
			return -ENOENT;
		r = parse_fde(s, at, f);
		if (!r && pc >= f->pc_begin && pc - f->pc_begin < f->pc_range)
			return 0;
		if (r == -EINVAL)
			return -EINVAL;
		at = cur_addr(&c) + len;
	}
	return -ENOENT;
}

/* ---- the CFA program ---- */

struct state {
	uint8_t cfa_expr, cfa_reg;
	int64_t cfa_off;
	const uint8_t *expr;
	struct ht_cfi_rule r[HT_DW_NREGS];
};

#define STATE_STACK 8

static void set_rule(struct state *st, uint64_t reg, uint8_t how, int64_t off, const uint8_t *expr)
{
	if (reg >= HT_DW_NREGS)
		return; /* vector registers and the like: not needed to unwind */
	st->r[reg].how = how;
	st->r[reg].off = (int32_t)off;
	st->r[reg].expr = expr;
}

/* Skips a DWARF block at c. Return: its start (the ULEB length). */
static const uint8_t *block(struct cur *c)
{
	const uint8_t *at = c->p;
	uint64_t n = uleb(c);

	if (need(c, n))
		c->p += n;
	return at;
}

/*
 * Runs instructions [ins, end) from location loc while it stays <= pc.
 * init: the CIE's rules (restore), or NULL while running the CIE itself.
 * Return: 0, or -EINVAL.
 */
static int run(const struct ht_cfi_source *s, const struct fde *f, const uint8_t *ins,
	       const uint8_t *end, uint64_t pc, struct state *st, const struct state *init)
{
	struct state stack[STATE_STACK];
	unsigned int depth = 0;
	uint64_t loc = f->pc_begin;
	const struct cie *ci = &f->cie;
	struct cur c = {.p = ins, .end = end, .s = s};

	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++, low = op & 0x3f;
		uint64_t reg, adv = 0;

		switch (op >> 6) {
		case 1: /* advance_loc */
			adv = low * ci->code_align;
			goto advance;
		case 2: /* offset */
			set_rule(st, low, HT_CFI_OFFSET, (int64_t)uleb(&c) * ci->data_align, NULL);
			continue;
		case 3: /* restore */
			if (init && low < HT_DW_NREGS)
				st->r[low] = init->r[low];
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			break;
		case 0x01: /* set_loc */
			adv = enc_ptr(&c, ci->fde_enc, 0);
			if (adv > pc)
				return 0;
			loc = adv;
			break;
		case 0x02:
			adv = get_n(&c, 1) * ci->code_align;
			goto advance;
		case 0x03:
			adv = get_n(&c, 2) * ci->code_align;
			goto advance;
		case 0x04:
			adv = get_n(&c, 4) * ci->code_align;
			goto advance;
		case 0x05: /* offset_extended */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_OFFSET, (int64_t)uleb(&c) * ci->data_align, NULL);
			break;
		case 0x06: /* restore_extended */
			reg = uleb(&c);
			if (init && reg < HT_DW_NREGS)
				st->r[reg] = init->r[reg];
			break;
		case 0x07: /* undefined */
			set_rule(st, uleb(&c), HT_CFI_UNDEF, 0, NULL);
			break;
		case 0x08: /* same_value */
			set_rule(st, uleb(&c), HT_CFI_SAME, 0, NULL);
			break;
		case 0x09: /* register */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_REGISTER, (int64_t)uleb(&c), NULL);
			break;
		case 0x0a: /* remember_state */
			if (depth == STATE_STACK)
				return -EINVAL;
			stack[depth++] = *st;
			break;
		case 0x0b: /* restore_state: every rule, the CFA's too (what GCC's epilogues expect)
			    */
			if (!depth)
				return -EINVAL;
			*st = stack[--depth];
			break;
		case 0x0c: /* def_cfa */
			st->cfa_reg = (uint8_t)uleb(&c);
			st->cfa_off = (int64_t)uleb(&c);
			st->cfa_expr = 0;
			break;
		case 0x0d: /* def_cfa_register */
			st->cfa_reg = (uint8_t)uleb(&c);
			st->cfa_expr = 0;
			break;
		case 0x0e: /* def_cfa_offset */
			st->cfa_off = (int64_t)uleb(&c);
			break;
		case 0x0f: /* def_cfa_expression */
			st->expr = block(&c);
			st->cfa_expr = 1;
			break;
		case 0x10: /* expression */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_EXPR, 0, block(&c));
			break;
		case 0x11: /* offset_extended_sf */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_OFFSET, sleb(&c) * ci->data_align, NULL);
			break;
		case 0x12: /* def_cfa_sf */
			st->cfa_reg = (uint8_t)uleb(&c);
			st->cfa_off = sleb(&c) * ci->data_align;
			st->cfa_expr = 0;
			break;
		case 0x13: /* def_cfa_offset_sf */
			st->cfa_off = sleb(&c) * ci->data_align;
			break;
		case 0x14: /* val_offset */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_VAL_OFFSET, (int64_t)uleb(&c) * ci->data_align,
				 NULL);
			break;
		case 0x15: /* val_offset_sf */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_VAL_OFFSET, sleb(&c) * ci->data_align, NULL);
			break;
		case 0x16: /* val_expression */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_VAL_EXPR, 0, block(&c));
			break;
		case 0x2e: /* GNU_args_size */
			uleb(&c);
			break;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(&c);
			set_rule(st, reg, HT_CFI_OFFSET, -(int64_t)uleb(&c) * ci->data_align, NULL);
			break;
		default:
			return -EINVAL;
		}
		continue;
	advance:
		if (loc + adv > pc)
			return 0;
		loc += adv;
	}
	return c.bad ? -EINVAL : 0;
}

int ht_cfi_find(const struct ht_cfi_source *src, uint64_t pc, struct ht_cfi_row *row)
{
	struct fde f;
	struct state st, init;
	int r = -ENOENT;

	if (src->hdr)
		r = search_hdr(src, pc, &f);
	if (r == -ENOTSUP || (!src->hdr && src->eh_frame))
		r = search_linear(src, pc, &f);
	if (r)
		return r;
	memset(&st, 0, sizeof st);
	for (unsigned int i = 0; i < HT_DW_NREGS; i++)
		st.r[i].how = HT_CFI_SAME;
	st.r[HT_DW_RA].how = HT_CFI_UNDEF;
	if (run(src, &f, f.cie.ins, f.cie.ins_end, UINT64_MAX, &st, NULL))
		return -EINVAL;
	init = st;
	if (run(src, &f, f.ins, f.ins_end, pc, &st, &init))
		return -EINVAL;
	if (st.cfa_off < INT32_MIN || st.cfa_off > INT32_MAX)
		return -EINVAL;
	memset(row, 0, sizeof *row);
	row->cfa_expr = st.cfa_expr;
	row->cfa_reg = st.cfa_reg;
	row->cfa_off = (int32_t)st.cfa_off;
	row->expr = st.expr;
	row->signal = f.cie.signal;
	for (unsigned int i = 0; i < HT_CFI_TRACKED; i++)
		row->reg[i] = st.r[ht_cfi_tracked[i]];
	/* the return address column the CIE names, whatever its number */
	if (f.cie.ra < HT_DW_NREGS)
		row->reg[HT_CFI_TRACKED - 1] = st.r[f.cie.ra];
	return 0;
}

/* ---- DWARF expressions ---- */

#define EVAL_STACK 16
#define EVAL_STEPS 256

int ht_cfi_eval(const uint8_t *blk, const uint64_t *regs, uint32_t valid, int push_it,
		uint64_t push, int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx,
		uint64_t *out)
{
	uint64_t st[EVAL_STACK];
	unsigned int n = 0, steps = 0;
	struct ht_cfi_source whole = {.lo = (const uint8_t *)1, .hi = (const uint8_t *)UINTPTR_MAX};
	struct cur c = {.p = blk, .end = (const uint8_t *)UINTPTR_MAX, .s = &whole};
	const uint8_t *start;
	uint64_t len = uleb(&c);

	c.end = c.p + len;
	start = c.p;
	if (push_it)
		st[n++] = push;
#define POP(v)                                                                                     \
	do {                                                                                       \
		if (!n)                                                                            \
			return -EINVAL;                                                            \
		(v) = st[--n];                                                                     \
	} while (0)
#define PUSH(v)                                                                                    \
	do {                                                                                       \
		uint64_t pv_ = (v);                                                                \
		if (n == EVAL_STACK)                                                               \
			return -EINVAL;                                                            \
		st[n++] = pv_;                                                                     \
	} while (0)
	while (c.p < c.end && !c.bad) {
		uint8_t op = *c.p++;
		uint64_t a, b, reg;

		if (++steps > EVAL_STEPS)
			return -EINVAL;
		if (op >= 0x30 && op <= 0x4f) { /* lit0..31 */
			PUSH((uint64_t)(op - 0x30));
			continue;
		}
		if ((op >= 0x50 && op <= 0x6f) || op == 0x90) { /* reg, regx */
			reg = op == 0x90 ? uleb(&c) : (uint64_t)(op - 0x50);
			if (reg >= HT_DW_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg]);
			continue;
		}
		if ((op >= 0x70 && op <= 0x8f) || op == 0x92) { /* breg, bregx */
			reg = op == 0x92 ? uleb(&c) : (uint64_t)(op - 0x70);
			a = (uint64_t)sleb(&c);
			if (reg >= HT_DW_NREGS || !(valid & (1u << reg)))
				return -EINVAL;
			PUSH(regs[reg] + a);
			continue;
		}
		switch (op) {
		case 0x03: /* addr */
			PUSH(get_n(&c, 8));
			break;
		case 0x06: /* deref */
			POP(a);
			if (read(ctx, a, &b))
				return -EFAULT;
			PUSH(b);
			break;
		case 0x94: /* deref_size */
			b = get_n(&c, 1);
			POP(a);
			if (b == 0 || b > 8 || read(ctx, a, &a))
				return -EFAULT;
			if (b < 8)
				a &= (1ull << (8 * b)) - 1;
			PUSH(a);
			break;
		case 0x08:
			PUSH(get_n(&c, 1));
			break;
		case 0x09:
			PUSH((uint64_t)(int64_t)(int8_t)get_n(&c, 1));
			break;
		case 0x0a:
			PUSH(get_n(&c, 2));
			break;
		case 0x0b:
			PUSH((uint64_t)(int64_t)(int16_t)get_n(&c, 2));
			break;
		case 0x0c:
			PUSH(get_n(&c, 4));
			break;
		case 0x0d:
			PUSH((uint64_t)(int64_t)(int32_t)get_n(&c, 4));
			break;
		case 0x0e:
		case 0x0f:
			PUSH(get_n(&c, 8));
			break;
		case 0x10:
			PUSH(uleb(&c));
			break;
		case 0x11:
			PUSH((uint64_t)sleb(&c));
			break;
		case 0x12: /* dup */
			if (!n)
				return -EINVAL;
			PUSH(st[n - 1]);
			break;
		case 0x13: /* drop */
			POP(a);
			break;
		case 0x14: /* over */
			if (n < 2)
				return -EINVAL;
			PUSH(st[n - 2]);
			break;
		case 0x15: /* pick */
			a = get_n(&c, 1);
			if (a >= n)
				return -EINVAL;
			PUSH(st[n - 1 - a]);
			break;
		case 0x16: /* swap */
			POP(a);
			POP(b);
			PUSH(a);
			PUSH(b);
			break;
		case 0x17: /* rot */
			if (n < 3)
				return -EINVAL;
			a = st[n - 1];
			st[n - 1] = st[n - 2];
			st[n - 2] = st[n - 3];
			st[n - 3] = a;
			break;
		case 0x19: /* abs */
			POP(a);
			PUSH((int64_t)a < 0 ? -a : a);
			break;
		case 0x1f: /* neg */
			POP(a);
			PUSH(-a);
			break;
		case 0x20: /* not */
			POP(a);
			PUSH(~a);
			break;
		case 0x23: /* plus_uconst */
			POP(a);
			PUSH(a + uleb(&c));
			break;
		case 0x28: /* bra */
			b = (uint64_t)(int64_t)(int16_t)get_n(&c, 2);
			POP(a);
			if (a)
				c.p += (int64_t)b;
			if (c.p < start || c.p > c.end)
				return -EINVAL;
			break;
		case 0x2f: /* skip */
			b = (uint64_t)(int64_t)(int16_t)get_n(&c, 2);
			c.p += (int64_t)b;
			if (c.p < start || c.p > c.end)
				return -EINVAL;
			break;
		case 0x96: /* nop */
			break;
		case 0x1a:
		case 0x1b:
		case 0x1c:
		case 0x1d:
		case 0x1e:
		case 0x21:
		case 0x22:
		case 0x24:
		case 0x25:
		case 0x26:
		case 0x27:
		case 0x29:
		case 0x2a:
		case 0x2b:
		case 0x2c:
		case 0x2d:
			POP(b);
			POP(a);
			switch (op) {
			case 0x1a:
				a &= b;
				break;
			case 0x1b:
				if (!b)
					return -EINVAL;
				a = (uint64_t)((int64_t)a / (int64_t)b);
				break;
			case 0x1c:
				a -= b;
				break;
			case 0x1d:
				if (!b)
					return -EINVAL;
				a %= b;
				break;
			case 0x1e:
				a *= b;
				break;
			case 0x21:
				a |= b;
				break;
			case 0x22:
				a += b;
				break;
			case 0x24:
				a = b < 64 ? a << b : 0;
				break;
			case 0x25:
				a = b < 64 ? a >> b : 0;
				break;
			case 0x26:
				a = b < 64 ? (uint64_t)((int64_t)a >> b) : 0;
				break;
			case 0x27:
				a ^= b;
				break;
			case 0x29:
				a = a == b;
				break;
			case 0x2a:
				a = (int64_t)a >= (int64_t)b;
				break;
			case 0x2b:
				a = (int64_t)a > (int64_t)b;
				break;
			case 0x2c:
				a = (int64_t)a <= (int64_t)b;
				break;
			case 0x2d:
				a = (int64_t)a < (int64_t)b;
				break;
			default:
				a = a != b;
			}
			PUSH(a);
			break;
		default:
			return -EINVAL;
		}
	}
#undef POP
#undef PUSH
	if (c.bad || !n)
		return -EINVAL;
	*out = st[n - 1];
	return 0;
}
