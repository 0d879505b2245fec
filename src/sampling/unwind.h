/*
 * A DWARF CFI unwinder of x86-64 user stacks (cfi.h gives the rows): from
 * a frame's registers, the caller's, up to the outermost frame. One
 * algorithm for both places hetrace unwinds: the traced thread's own stack
 * at an API call (its live memory, callstack.c) and a CPU sample's copy of
 * the stack in `hetrace record` (collect.c). The caller says where modules
 * and memory are (ht_unwind_ops) and keeps a cache of rows by address, so a
 * steady-state stack costs a cache probe and two loads per frame.
 *
 * Frame pointers are only the fallback where no CFI covers an address (code
 * without .eh_frame, JIT code): a frame whose rbp points into the stack
 * above it gives its return address at rbp + 8.
 */
#ifndef HT_UNWIND_H
#define HT_UNWIND_H

#include <stdint.h>

#include "sampling/cfi.h"

#define HT_UNWIND_MAX 128 /* frames kept per stack */

/* A module as the unwinder needs it. */
struct ht_unwind_module {
	struct ht_cfi_source cfi;
	uint64_t base; /* load bias: file address = address - base */
	uint64_t start, end;
	uint32_t id;  /* the trace's module id */
	uint8_t skip; /* hetrace's own or a GPU runtime's code (callstack.c) */
};

struct ht_unwind_ops {
	/* The module holding address pc, or NULL. */
	const struct ht_unwind_module *(*find)(void *ctx, uint64_t pc);
	/* Reads 8 bytes at addr. Return: 0, or < 0 where the stack is not readable. */
	int (*read)(void *ctx, uint64_t addr, uint64_t *v);
};

/*
 * Rows by address: direct-mapped, owned by the caller (per thread, or per
 * process image). With by_pc set, a slot is taken on its address alone,
 * without asking ops->find (a binary search and an indirect call per
 * frame): for a caller whose module list does not change under the cache
 * (the live unwinder clears it, stamp, when the process's list changes).
 */
#define HT_UNWIND_CACHE 512
struct ht_unwind_cache {
	int by_pc;
	unsigned long long stamp; /* the caller's: the module list the slots are of */
	struct ht_unwind_slot {
		uint64_t pc; /* the address looked up (0: empty) */
		const struct ht_unwind_module *mod;
		int8_t ok; /* 1: row, 0: no CFI here */
		struct ht_cfi_row row;
	} slot[HT_UNWIND_CACHE];
};

/* Registers of a frame by DWARF number (HT_DW_RA holds its pc); valid: bit per register. */
struct ht_unwind_regs {
	uint64_t r[HT_DW_NREGS];
	uint32_t valid;
};

/*
 * Unwinds from regs (the pc in r[HT_DW_RA] is where the frame is: exact,
 * not a return address). Writes up to max frames, innermost first: pcs[i]
 * (return addresses after the first) and mods[i] (NULL when no module holds
 * it). cache may be NULL; regs is scratch space afterwards. Return: the
 * number of frames (>= 1 when the pc is valid).
 */
int ht_unwind(const struct ht_unwind_ops *ops, void *ctx, struct ht_unwind_cache *cache,
	      struct ht_unwind_regs *regs, uint64_t *pcs, const struct ht_unwind_module **mods,
	      int max);

/* The frame word of the format (events.def): module id and file address, or the address. */
static inline uint64_t ht_unwind_frame(const struct ht_unwind_module *m, uint64_t pc)
{
	if (!m || m->id >= 0xffff)
		return pc;
	return (uint64_t)m->id << 48 | ((pc - m->base) & ((1ull << 48) - 1));
}

#endif
