/*
 * Per-kernel hot source lines from device PC samples (issue 14), one pass
 * over the timeline:
 *   - PoCL's CPU devices: a CPU sample (HT_TL_SAMPLE) whose sampled
 *     instruction lies in a PoCL kernel object (its function is
 *     _pocl_kernel_NAME[_workgroup[_fast]]) is a PC sample of kernel NAME;
 *     the instruction is resolved through the object's line table
 *     (symbols.h) to the innermost frame in the program's own source, whose
 *     line is a line of the string given to clCreateProgramWithSource. It is
 *     linked to the launch of NAME in the same process whose execution
 *     interval holds it (corr); only samples taken while a launch of
 *     their process ran are resolved at all. No stall reasons: a CPU
 *     reports none.
 *   - CUDA: pc_sample records (HT_TL_PC_SAMPLE) carry launch, instruction,
 *     stall reason and count; pc_line records give the instruction's line.
 * Lines are counted per (kernel, file, line) with a stall-reason breakdown,
 * instructions per (kernel, module, address). The report and the view read
 * the result.
 */
#ifndef HT_PCSAMP_KERNEL_LINES_H
#define HT_PCSAMP_KERNEL_LINES_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"
#include "common/map.h"

struct ht_symbols;

struct ht_kl_stall {
	const char *name;
	uint64_t samples;
};

/* A source line of a kernel with samples. */
struct ht_kl_line {
	uint32_t kernel; /* index into kernels */
	const char *file;
	int line; /* 1-based */
	uint64_t samples;
	struct ht_kl_stall *stalls; /* by count, largest first (after ht_kernel_lines_compute) */
	size_t nstalls, capstalls;
};

/* A sampled instruction. */
struct ht_kl_insn {
	uint32_t kernel;
	const char *module; /* its object's file name, or "cubin N" */
	uint64_t addr;	    /* file address in the object; CUDA: offset in the function */
	int line;	    /* 0 unknown */
	uint64_t samples;
};

struct ht_kl_kernel {
	const char *name;
	const char *file;   /* the name its lines carry ("" when none is known) */
	const char *source; /* the program's source text, NULL if not recorded */
	uint64_t samples;   /* PC samples in all */
	uint64_t no_line;   /* samples at instructions without a line of the program */
	uint64_t outside;   /* samples while only other kernels' launches ran */
	uint64_t launches, launches_sampled, device_ns;
	int stalls_known; /* the device reports stall reasons */
	uint32_t proc;	  /* the first process it was seen in (index), and its pid */
	int32_t pid;
};

struct ht_kernel_lines {
	int asked;	    /* a process recorded with --pc-sampling */
	uint64_t period;    /* ns, as asked (the first process's) */
	const char *method; /* how the first sampled process's device was sampled */
	const char **notes; /* one line each: a device without support, ... */
	size_t nnotes, capnotes;
	struct ht_kl_kernel *kernels; /* by samples, most first (after compute) */
	size_t nkernels, capkernels;
	struct ht_kl_line *lines; /* by kernel (in kernels' order), then samples */
	size_t nlines, caplines;
	struct ht_kl_insn *insns; /* by kernel, then samples */
	size_t ninsns, capinsns;
	uint64_t samples; /* PC samples in all */
	/* while computing */
	struct ht_map pool, kernel_of, line_of, insn_of, resolved, pc_lines;
	struct ht_map codes;	/* PoCL kernel objects mapped for matching (pocl_code.h) */
	struct ht_map pc_corrs; /* (process, corr) of the launches CUDA's samples name */
	struct ht_kl_sample {
		uint32_t proc;
		uint64_t ts, frame;
	} * pending; /* CPU samples waiting for the launches (PoCL) */
	size_t npending, cappending;
	struct ht_kl_launch {
		uint32_t proc, kernel;
		uint64_t ts, end, corr;
		int sampled;
	} * launches;
	size_t nlaunches, caplaunches;
	struct ht_symbols *sym;
};

/* Return: 0, or < 0 with err filled. kl is filled (release it either way). */
int ht_kernel_lines_compute(struct ht_trace *t, struct ht_kernel_lines *kl,
			    struct ht_read_error *err);
void ht_kernel_lines_release(struct ht_kernel_lines *kl);

/*
 * The view's part (view_lines.c): ",\"kernel_lines\":[...]", per kernel with
 * samples its pid, name and file (string ids from intern), source text (or
 * null), whether stall reasons are known, [line, samples] pairs and
 * ["0xaddr", samples] pairs of its hottest instructions.
 */
int ht_kernel_lines_view_json(FILE *f, struct ht_trace *t, uint32_t (*intern)(void *, const char *),
			      void *arg, struct ht_read_error *err);

/* Return: the text of line `line` (1-based) of source, its length in *len; NULL if none. */
const char *ht_kl_source_line(const char *source, int line, int *len);

#endif
