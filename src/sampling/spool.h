/*
 * Between collecting and writing (internal to src/sampling): the spool of
 * `record`'s sampler, a file of entries as the rings gave them, and what
 * writes them into the trace (samples.c).
 */
#ifndef HT_SPOOL_H
#define HT_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "sampling/cfi.h"
#include "sampling/collect.h"

enum { HT_SPOOL_SAMPLE = 1, HT_SPOOL_LOST = 2 };

/* An entry; a sample is followed by its counter values (u64 each) and its stack bytes. */
struct ht_spool_entry {
	uint32_t size; /* the whole entry, a multiple of 8 */
	uint8_t kind;
	uint8_t ncounters;
	uint16_t cpu; /* the ring (CPU) it came from: its counter values are the thread's there */
	int32_t pid, tid;
	uint32_t stack; /* bytes of stack, copied from regs[HT_DW_RSP] up */
	uint32_t valid; /* registers known, by DWARF number */
	uint64_t time;	/* CLOCK_MONOTONIC ns */
	uint64_t lost;	/* HT_SPOOL_LOST: samples the kernel dropped */
	uint64_t regs[HT_DW_NREGS];
};

struct ht_spool {
	int fd;
	uint64_t size;
	const char *counters[HT_COUNTERS_MAX];
	int ncounters;
};

/*
 * Writes the spooled samples into the trace at path: each into the samples
 * stream of its process image, unwound. Return: 0 or -errno (msg).
 */
int ht_samples_write(const struct ht_spool *sp, const char *path, struct ht_sampler_stats *st,
		     char *msg, size_t cap);

/* A module file mapped for its unwind tables (elf.c). */
struct ht_elf_map {
	void *map;
	size_t size;
	int owned; /* munmap at close (not the vdso) */
};

/*
 * Maps the ELF file at path ("[vdso]": this process's vDSO, the same as the
 * traced one's on this kernel) and points cfi at its unwind tables, in the
 * file's own addresses. build_id, when not empty, must match the file's.
 * Return: 0, -ENOENT (no file), -ESTALE (another build), -EINVAL.
 */
int ht_elf_cfi_open(const char *path, const char *build_id, struct ht_cfi_source *cfi,
		    struct ht_elf_map *m);
void ht_elf_close(struct ht_elf_map *m);

#endif
