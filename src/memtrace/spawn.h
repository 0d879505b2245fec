/*
 * Running the rewriter helper from a traced process (spawn.c).
 */
#ifndef HT_MEMTRACE_SPAWN_H
#define HT_MEMTRACE_SPAWN_H

#include <stddef.h>

#include "memtrace/rewrite.h"

/* A program the helper cannot rewrite in this long runs uninstrumented. */
#define HT_MT_REWRITE_TIMEOUT_MS 60000

/*
 * Runs argv[0] (an absolute path) with argv, an empty environment and `in`
 * on its stdin, which it must read whole before it writes, and returns its
 * stdout, invisibly to the calling process (no SIGCHLD, not reapable by
 * its waits). Its exit status is not known: check what it wrote. Return: 0
 * with *out (malloc'd), or -errno (-ECHILD: it could not be started;
 * -ETIMEDOUT: killed after timeout_ms). errno is kept.
 */
int ht_mt_spawn(char *const argv[], const void *in, size_t inlen, char **out, size_t *outlen,
		int timeout_ms);

/*
 * Asks the helper `tool` to instrument src, built as fe says, for p. Return: 0 with *rw, -1
 * when the rewriter refused it (rw->error says why), or -errno when the
 * helper could not be run or answered nonsense (rw->error says so too).
 */
int ht_mt_rewrite_run(const char *tool, const char *src, size_t len, const struct ht_mt_front *fe,
		      const struct ht_mt_cl_params *p, struct ht_mt_rewrite *rw);

#endif
