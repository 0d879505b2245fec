/*
 * What a process's trace defines for the events that refer to it: its
 * string table, its traced functions (names, roles, argument descriptors),
 * its devices, and who it is (pid, parent, command). Loaded from the
 * process stream before the timeline reads anything else, so every id an
 * event carries is resolved, or shown as unknown, against what the trace
 * defines: never used to size or index anything beyond that.
 */
#ifndef HT_DEFS_H
#define HT_DEFS_H

#include <stdint.h>

#include "analysis/stacks.h"
#include "analysis/mpi_defs.h"
#include "analysis/trace.h"

/* A traced function as its fn_def describes it (fntable.h). */
struct ht_fn_info {
	char *name;
	uint32_t roles; /* enum ht_fn_role flags */
	uint8_t nargs;
	struct ht_fn_arg_info {
		char *name;
		uint8_t type; /* enum ht_arg_type */
		uint8_t role; /* enum ht_arg_role */
	} * args;
};

struct ht_proc_info {
	const struct ht_trace_process *tp;
	int32_t pid, ppid;
	char comm[64];
	char *cmdline;
	char **strings; /* strings[id - 1], demangled where C++ */
	char **mangled; /* mangled[id - 1]: as recorded, where strings[id - 1] was demangled */
	uint32_t nstrings;
	struct ht_fn_info *fns; /* indexed by function id */
	uint32_t nfns;
	char (*devices)[128]; /* device names by device index (device_info) */
	uint32_t ndevices;
	int os_status; /* the process noted its OS recording (on, off or partial) */
	/* modules and calling contexts (stacks.h): the process stream's, then its samples' */
	struct ht_stacks *stacks;
	struct ht_proc_mpi mpi; /* an MPI rank's definitions (mpi_defs.h) */
};

/*
 * Reads a process's definitions from its process stream.
 * Return: 0, or < 0 with err filled.
 */
int ht_proc_info_load(struct ht_proc_info *p, const struct ht_trace_process *tp,
		      struct ht_read_error *err);
void ht_proc_info_release(struct ht_proc_info *p);

/* Return: the string of id (borrowed), or "?" when the trace does not define it. */
static inline const char *ht_proc_string(const struct ht_proc_info *p, uint32_t id)
{
	if (id && id <= p->nstrings && p->strings[id - 1])
		return p->strings[id - 1];
	return "?";
}
/* Return: id where the trace defines it, else 0 (ids from a trace never size anything). */
static inline uint32_t ht_proc_string_id(const struct ht_proc_info *p, uint32_t id)
{
	return id && id <= p->nstrings && p->strings[id - 1] ? id : 0;
}
/* Return: the string of id as the trace recorded it (a C++ name not demangled), borrowed. */
static inline const char *ht_proc_string_recorded(const struct ht_proc_info *p, uint32_t id)
{
	if (id && id <= p->nstrings && p->mangled[id - 1])
		return p->mangled[id - 1];
	return ht_proc_string(p, id);
}
/* Return: the function of id (borrowed), or NULL when undefined. */
const struct ht_fn_info *ht_proc_fn(const struct ht_proc_info *p, uint16_t id);
/* Return: the name of a process's device, or NULL when it was not described. */
const char *ht_proc_device_name(const struct ht_proc_info *p, uint32_t device);
/* Return: the index of fn's first argument with `role` (enum ht_arg_role), or -1. */
int ht_fn_info_arg(const struct ht_fn_info *fn, uint8_t role);

#endif
