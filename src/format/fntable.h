/*
 * Function tables: how an API source (OpenCL, CUDA, ...) names the functions
 * it traces and the arguments it records at api_end. A function id is
 * table base + index; every argument is stored as 8 bytes. The core writes
 * each registered table into the trace twice: as fn_def events (for our
 * reader) and as a TSDL enum + variant (so babeltrace2 prints names).
 */
#ifndef HT_FNTABLE_H
#define HT_FNTABLE_H

#include <stdint.h>

/*
 * args: comma-separated "name:t" with t one of
 *   h  handle or address (u64, shown in hex)
 *   u  unsigned integer
 *   i  signed integer
 *   s  string id (u32 in the low half; see string_def)
 * e.g. "queue:h,blocking:u,offset:u,size:u". At most HT_FNARGS_MAX arguments.
 */
struct ht_fn_desc {
	const char *name;
	const char *args;
};

struct ht_fn_table {
	const char *domain; /* "opencl", "cuda_runtime", ... */
	uint16_t base;	    /* first id; ids are base .. base+count-1 */
	uint16_t count;
	const struct ht_fn_desc *fns;
};

/* Id ranges of the sources (one 4096-id block each). */
#define HT_FN_BASE_OPENCL 0x1000
#define HT_FN_BASE_CUDA_RUNTIME 0x2000
#define HT_FN_BASE_CUDA_DRIVER 0x3000
#define HT_FN_BASE_NVTX 0x4000
#define HT_FN_BASE_XPTI 0x5000

/* Return: number of arguments in an args spec, or -1 if it is malformed. */
int ht_fn_args_count(const char *args);

#endif
