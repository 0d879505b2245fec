/*
 * Function tables: how an API source (OpenCL, CUDA, NVTX, XPTI) describes the
 * functions it traces. A function id is table base + index. Each function
 * carries role flags (what it does: launches work, transfers, waits, ...)
 * and typed descriptors of the arguments its api_end records, each with a
 * role of its own (the correlation id of the command it enqueued, the
 * blocking flag, the queue, ...). The core writes every registered table
 * into the trace twice: as fn_def events (our reader) and as a TSDL enum +
 * variant (babeltrace2 prints names). Analyses ask for roles, never for
 * function names; the generators in tools/ produce the tables.
 */
#ifndef HT_FNTABLE_H
#define HT_FNTABLE_H

#include <stdint.h>

#include "format/format.h"

/*
 * One traced function. roles: enum ht_fn_role flags. args: what its api_end
 * carries, every value stored as 8 bytes (at most HT_FNARGS_MAX); each
 * descriptor is {name, enum ht_arg_type, enum ht_arg_role}.
 */
struct ht_fn_desc {
	const char *name;
	uint32_t roles;
	uint8_t nargs;
	const struct ht_fn_arg_desc *args;
};

struct ht_fn_table {
	const char *domain; /* "opencl", "cuda_runtime", ... */
	uint16_t base;	    /* first id; ids are base .. base+count-1 */
	uint16_t count;
	const struct ht_fn_desc *fns;
};

/* Id ranges of the sources (one 4096-id block each). */
#define HT_FN_BASE_OPENCL	0x1000
#define HT_FN_BASE_CUDA_RUNTIME 0x2000
#define HT_FN_BASE_CUDA_DRIVER	0x3000
#define HT_FN_BASE_NVTX		0x4000
#define HT_FN_BASE_XPTI		0x5000
#define HT_FN_BASE_MPI		0x6000

/*
 * Checks a function's descriptors: at most HT_FNARGS_MAX arguments, each
 * with a name, a known type and role, and no role but `none` twice.
 * Return: 0, or -EINVAL.
 */
int ht_fn_desc_check(const struct ht_fn_desc *fn);

/* Return: the index of fn's first argument with `role`, or -1. */
static inline int ht_fn_arg_with_role(const struct ht_fn_desc *fn, enum ht_arg_role role)
{
	for (unsigned int i = 0; i < fn->nargs; i++)
		if (fn->args[i].role == role)
			return (int)i;
	return -1;
}

#endif
