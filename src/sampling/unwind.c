/*
 * The unwinder (see unwind.h). For each frame: the module holding its pc,
 * the CFI row at that address (the call instruction's, ra - 1, for a
 * return address; the pc itself for the first frame and the frame a signal
 * interrupted), then the caller's CFA, registers and return address.
 */
#include <errno.h>
#include <string.h>

#include "sampling/unwind.h"

static const struct ht_cfi_row *row_at(const struct ht_unwind_ops *ops, void *ctx,
				       struct ht_unwind_cache *cache, uint64_t pc,
				       const struct ht_unwind_module **mod, struct ht_cfi_row *tmp)
{
	struct ht_unwind_slot *sl = NULL;
	const struct ht_unwind_module *m;

	if (cache) {
		sl = &cache->slot[(pc ^ (pc >> 9) ^ (pc >> 21)) % HT_UNWIND_CACHE];
		if (cache->by_pc && sl->pc == pc && sl->mod) {
			*mod = sl->mod;
			return sl->ok ? &sl->row : NULL;
		}
	}
	m = ops->find(ctx, pc);
	*mod = m;
	if (!m)
		return NULL;
	if (sl && sl->pc == pc && sl->mod == m)
		return sl->ok ? &sl->row : NULL;
	int ok = ht_cfi_find(&m->cfi, pc - m->base, tmp) == 0;

	if (sl) {
		sl->pc = pc;
		sl->mod = m;
		sl->ok = (int8_t)ok;
		if (ok)
			sl->row = *tmp;
		return ok ? &sl->row : NULL;
	}
	return ok ? tmp : NULL;
}

/*
 * The caller's registers by the row, from rg into out (two buffers that
 * alternate: copying a frame's registers back cost a fifth of a frame's
 * time, stores forwarded to wider loads). Return: 0, or < 0 when they
 * cannot be known.
 */
static int step_cfi(const struct ht_unwind_ops *ops, void *ctx, const struct ht_cfi_row *row,
		    const struct ht_unwind_regs *rg, struct ht_unwind_regs *out)
{
	uint64_t cfa;

	if (row->cfa_expr) {
		if (ht_cfi_eval(row->expr, rg->r, rg->valid, 0, 0, ops->read, ctx, &cfa))
			return -EINVAL;
	} else {
		if (row->cfa_reg >= HT_DW_NREGS || !(rg->valid & (1u << row->cfa_reg)))
			return -EINVAL;
		cfa = rg->r[row->cfa_reg] + (uint64_t)(int64_t)row->cfa_off;
	}
	/* only the registers marked valid are ever read: no memset (a rep stos,
	 * a third of a frame's time here) */
	out->r[HT_DW_RSP] = cfa; /* the caller's stack pointer, unless a rule says otherwise */
	out->valid = 1u << HT_DW_RSP;
	for (unsigned int i = 0; i < HT_CFI_TRACKED; i++) {
		const struct ht_cfi_rule *ru = &row->reg[i];
		unsigned int reg = ht_cfi_tracked[i];
		uint64_t v = 0, addr;

		switch (ru->how) {
		case HT_CFI_SAME: /* the stack pointer's default is the CFA */
			if (reg == HT_DW_RA || reg == HT_DW_RSP || !(rg->valid & (1u << reg)))
				continue;
			v = rg->r[reg];
			break;
		case HT_CFI_OFFSET:
			if (ops->read(ctx, cfa + (uint64_t)(int64_t)ru->off, &v))
				continue;
			break;
		case HT_CFI_VAL_OFFSET:
			v = cfa + (uint64_t)(int64_t)ru->off;
			break;
		case HT_CFI_REGISTER:
			if (ru->off < 0 || ru->off >= HT_DW_NREGS || !(rg->valid & (1u << ru->off)))
				continue;
			v = rg->r[ru->off];
			break;
		case HT_CFI_EXPR:
			if (ht_cfi_eval(ru->expr, rg->r, rg->valid, 1, cfa, ops->read, ctx,
					&addr) ||
			    ops->read(ctx, addr, &v))
				continue;
			break;
		case HT_CFI_VAL_EXPR:
			if (ht_cfi_eval(ru->expr, rg->r, rg->valid, 1, cfa, ops->read, ctx, &v))
				continue;
			break;
		default: /* undefined */
			continue;
		}
		out->r[reg] = v;
		out->valid |= 1u << reg;
	}
	if (!(out->valid & (1u << HT_DW_RA)))
		return -ENOENT; /* the outermost frame (_start, clone's child) */
	return 0;
}

/* The frame-pointer step: the caller's frame from rbp, from rg into out. Return: 0 or < 0. */
static int step_fp(const struct ht_unwind_ops *ops, void *ctx, const struct ht_unwind_regs *rg,
		   struct ht_unwind_regs *out)
{
	uint64_t fp = rg->r[HT_DW_RBP], ra, prev;

	if (!(rg->valid & (1u << HT_DW_RBP)) || !(rg->valid & (1u << HT_DW_RSP)) ||
	    fp < rg->r[HT_DW_RSP] || (fp & 7) || ops->read(ctx, fp, &prev) ||
	    ops->read(ctx, fp + 8, &ra))
		return -EINVAL;
	out->r[HT_DW_RBP] = prev;
	out->r[HT_DW_RSP] = fp + 16;
	out->r[HT_DW_RA] = ra;
	out->valid = 1u << HT_DW_RBP | 1u << HT_DW_RSP | 1u << HT_DW_RA;
	return 0;
}

int ht_unwind(const struct ht_unwind_ops *ops, void *ctx, struct ht_unwind_cache *cache,
	      struct ht_unwind_regs *regs, uint64_t *pcs, const struct ht_unwind_module **mods,
	      int max)
{
	struct ht_unwind_regs other, *rg = regs, *next = &other;
	int n = 0, exact = 1;

	if (!(rg->valid & (1u << HT_DW_RA)))
		return 0;
	while (n < max) {
		uint64_t pc = rg->r[HT_DW_RA], sp = rg->r[HT_DW_RSP];
		const struct ht_unwind_module *m;
		const struct ht_cfi_row *row;
		struct ht_unwind_regs *t;
		struct ht_cfi_row tmp;
		int r;

		if (pc < 4096)
			break; /* 0 ends the chain; small values are garbage */
		row = row_at(ops, ctx, cache, exact ? pc : pc - 1, &m, &tmp);
		pcs[n] = pc;
		mods[n++] = m;
		if (row) {
			exact = row->signal;
			r = step_cfi(ops, ctx, row, rg, next);
		} else {
			exact = 0;
			r = step_fp(ops, ctx, rg, next);
		}
		if (r)
			break;
		t = rg;
		rg = next;
		next = t;
		/* the stack grows down: a caller's frame lies above (a signal frame may not) */
		if (!exact && rg->r[HT_DW_RSP] <= sp)
			break;
	}
	return n;
}
