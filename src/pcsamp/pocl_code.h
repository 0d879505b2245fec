/*
 * PoCL's kernel objects (pocl_code.c): PoCL 3.1 wraps a kernel's
 * work-group function _pocl_kernel_NAME in a launcher,
 * _pocl_kernel_NAME_workgroup[_fast], that LLVM inlines it into; the
 * launcher has no debug information, so the instructions that run carry
 * no line while the same instructions of _pocl_kernel_NAME (never called)
 * carry theirs. An instruction of the launcher is matched to the kernel
 * function's by the instructions around it (capstone disassembles both),
 * and takes the line its matches agree on.
 */
#ifndef HT_PCSAMP_POCL_CODE_H
#define HT_PCSAMP_POCL_CODE_H

#include <stdint.h>

struct ht_pocl_code;

/* Maps the ELF file at path. Return: NULL when it cannot be read as one. */
struct ht_pocl_code *ht_pocl_code_open(const char *path);
void ht_pocl_code_close(struct ht_pocl_code *c);

/*
 * The file addresses in function kernel_fn whose instructions match the
 * one at file address pc, with the most neighbours alike (at least 3).
 * Return: how many were written to match (at most max), 0 if none.
 */
int ht_pocl_code_match(const struct ht_pocl_code *c, const char *kernel_fn, uint64_t pc,
		       uint64_t *match, int max);

#endif
