/*
 * DWARF call-frame information of x86-64 code, read from a module's
 * .eh_frame through its .eh_frame_hdr search table: for a code address, the
 * row of the CFA program that says where the caller's frame is (the CFA,
 * canonical frame address) and where the callee-saved registers and the
 * return address were saved. This is what lets hetrace unwind ordinary -O2
 * code built without frame pointers (Debian's default), in the traced
 * process at an API call (callstack.c) and offline in `hetrace record` for
 * CPU samples (collect.c), over the same rows.
 *
 * Bytes are read through a source that maps the module's file addresses to
 * memory: in the traced process, the loaded image (pointer = address + load
 * bias); in `record`, the file mapped from disk (pointer = address + the
 * delta of the segment holding .eh_frame). Every read is bounded by the
 * source's range: a corrupt table gives "no row", never a fault.
 */
#ifndef HT_CFI_H
#define HT_CFI_H

#include <stddef.h>
#include <stdint.h>

/* DWARF register numbers of x86-64 (System V psABI). */
enum {
	HT_DW_RAX = 0,
	HT_DW_RDX = 1,
	HT_DW_RCX = 2,
	HT_DW_RBX = 3,
	HT_DW_RSI = 4,
	HT_DW_RDI = 5,
	HT_DW_RBP = 6,
	HT_DW_RSP = 7,
	HT_DW_R8 = 8,
	HT_DW_R12 = 12,
	HT_DW_R15 = 15,
	HT_DW_RA = 16, /* the return address column */
	HT_DW_NREGS = 17,
};

/* Where a register of the caller is (ht_cfi_rule.how). */
enum ht_cfi_how {
	HT_CFI_SAME,	   /* unchanged by this frame */
	HT_CFI_UNDEF,	   /* not recoverable */
	HT_CFI_OFFSET,	   /* saved at CFA + off */
	HT_CFI_VAL_OFFSET, /* its value is CFA + off */
	HT_CFI_REGISTER,   /* held in register off */
	HT_CFI_EXPR,	   /* saved at the address the expression computes */
	HT_CFI_VAL_EXPR,   /* its value is what the expression computes */
};

struct ht_cfi_rule {
	uint8_t how;
	int32_t off;
	const uint8_t *expr; /* HT_CFI_*EXPR: a DWARF block (ULEB128 length, then the ops) */
};

/* The registers an unwinder tracks: those a row may define for the caller. */
#define HT_CFI_TRACKED 8
extern const uint8_t ht_cfi_tracked[HT_CFI_TRACKED]; /* rbx rbp rsp r12-r15, RA last */

/* One row of a function's CFA program: how to find the caller's frame at one address. */
struct ht_cfi_row {
	uint8_t cfa_expr; /* the CFA is computed by cfa_rule.expr, else cfa_reg + cfa_off */
	uint8_t cfa_reg;  /* DWARF register */
	uint8_t signal;	  /* a signal trampoline's frame ('S' augmentation) */
	int32_t cfa_off;
	const uint8_t *expr;			/* cfa_expr: its DWARF block */
	struct ht_cfi_rule reg[HT_CFI_TRACKED]; /* by ht_cfi_tracked */
};

/* Where a module's unwind tables are readable. */
struct ht_cfi_source {
	const uint8_t *lo, *hi; /* readable bytes: [lo, hi) */
	intptr_t delta;		/* pointer = file address + delta */
	uint64_t hdr;		/* file address of .eh_frame_hdr (0: none) */
	uint64_t eh_frame;	/* file address of .eh_frame, for a linear search (0: none) */
	uint64_t eh_frame_end;	/* its end, when known (0: up to hi, or a zero terminator) */
};

/*
 * Finds the row that applies at file address pc (for a return address, the
 * caller passes the address of the call: ra - 1).
 * Return: 0 with *row filled; -ENOENT when no FDE covers pc; -EINVAL when
 * the tables are malformed or use what this reader does not know.
 */
int ht_cfi_find(const struct ht_cfi_source *src, uint64_t pc, struct ht_cfi_row *row);

/*
 * Evaluates a DWARF expression block (cfa rules and register rules): regs
 * holds the frame's registers (valid: bit i set for register i), `push`
 * an initial value pushed first (the CFA for register rules), or none when
 * push_it is 0. read() fetches 8 bytes of target memory.
 * Return: 0 with *out; < 0 when an operation is unknown, a register unknown,
 * or a read fails.
 */
int ht_cfi_eval(const uint8_t *block, const uint64_t *regs, uint32_t valid, int push_it,
		uint64_t push, int (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx,
		uint64_t *out);

#endif
