/*
 * The traced process's loaded objects (in libhetrace-preload.so): each
 * module's address range, load bias, build-id, path and unwind tables, as
 * dl_iterate_phdr shows them, taken at load (constructor) and again after
 * every dlopen and dlclose. Modules get ids from 1 and are described to the
 * trace (module_load / module_unload in the process stream) so that frames
 * can say "module 3, file address 0x1234" and be resolved at analysis time
 * by build-id (src/symbols). Stack frames of hetrace's own libraries and of
 * the GPU runtimes are flagged `skip`: a call stack at an API call starts at
 * the first frame outside them.
 */
#ifndef HT_MODULES_H
#define HT_MODULES_H

#include <stdint.h>

#include "sampling/unwind.h"

struct ht_stream;

struct ht_module {
	struct ht_unwind_module u;
	char build_id[41]; /* hex, "" if none */
	char *path;
	uint64_t loaded_ns;   /* CLOCK_MONOTONIC when seen first (0: at process start) */
	uint64_t unloaded_ns; /* when seen gone, 0 while loaded */
	int written;	      /* its module_load is in the current process stream */
	int unload_written;
};

/* Takes the module list now (and again whenever it may have changed). Return: 0 or -errno. */
int ht_modules_refresh(void);

/* Return: the module holding address pc, or NULL. Lock-free; any thread. */
const struct ht_unwind_module *ht_modules_find(uint64_t pc);

/*
 * Writes module_load (and module_unload) events for the modules proc has
 * not seen yet; all = every module (a new process stream). The session lock
 * is held (called from ht_session_with_process or the process_open hook).
 */
void ht_modules_write(struct ht_stream *proc, int all);

/* fork(): the table is held across it (the session lock is held already). */
void ht_modules_fork_prepare(void);
void ht_modules_fork_parent(void);
void ht_modules_fork_child(void);

#endif
