/*
 * The control page of a session: one 4096-byte file per user and session
 * name, mapped MAP_SHARED by the session's daemon (which writes it) and by
 * every candidate program (which only reads it). Its first word is the
 * recorder's enabled flag itself: a candidate maps the page over the page
 * of libhetrace.so that holds `ht_active`, so the flag that every
 * intercepted call tests is the daemon's, and a session starts and stops in
 * programs that are already running without a thread, a signal or a system
 * call in them. While no session runs that test is the same relaxed load of
 * a zero as in a program that is not preloaded with a session (measured as
 * session_idle_ns in bench/opencl.sh).
 *
 * `hetrace record` uses the same page, in its trace directory, when a
 * capture range switches recording on and off by time.
 *
 * The files live in a directory of the user's own, 0700, checked by both
 * sides before use: a program of another user never maps (or writes into)
 * the page, and so never learns where the trace is.
 */
#ifndef HT_SESSION_CTL_H
#define HT_SESSION_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HT_CTL_SIZE	4096
#define HT_CTL_MAGIC	0x48544354u /* "HTCT" */
#define HT_CTL_DIR_MAX	1024
#define HT_CTL_ENV_MAX	2048
#define HT_CTL_NAME_MAX 64
#define HT_CTL_FILE	".control" /* record's page, in the trace directory */

/* ht_ctl_page.state */
enum { HT_CTL_IDLE, HT_CTL_RUNNING };

struct ht_ctl_page {
	/*
	 * The hot words, aliased by libhetrace's ht_active and ht_watch in a
	 * program that maps the page: nonzero `active` records events;
	 * nonzero `watch` makes annotated regions reach the recorder while
	 * `active` is 0 (a capture range waits for its region).
	 */
	int32_t active;
	int32_t watch;
	uint32_t gen;	   /* bumped by every start and stop: a program's streams of an
			    * older generation belong to a finished trace */
	uint32_t magic;	   /* HT_CTL_MAGIC once the page was set up */
	uint32_t state;	   /* HT_CTL_IDLE | HT_CTL_RUNNING */
	int32_t pid;	   /* the daemon (or record) that runs it, 0 if none */
	uint64_t start_ns; /* CLOCK_MONOTONIC when it started */
	double tsc_hz;	   /* the counter rate the session's programs use (kept across
			    * sessions: a program keeps the clock it set up first) */
	uint8_t pad[24];
	char dir[HT_CTL_DIR_MAX]; /* the trace directory (absolute) */
	/* Recorder settings, "HETRACE_X=value" strings one after the other, each
	 * NUL-terminated, an empty one last (config.h reads them). */
	char env[HT_CTL_ENV_MAX];
};

_Static_assert(sizeof(struct ht_ctl_page) <= HT_CTL_SIZE, "control page fits a page");

/* A page that holds a control page (libhetrace maps one over its own). */
union ht_ctl_area {
	struct ht_ctl_page p;
	uint8_t bytes[HT_CTL_SIZE];
};

/*
 * The directory holding this user's session files: $HETRACE_SESSION_DIR,
 * else $XDG_RUNTIME_DIR/hetrace, else /tmp/hetrace-UID.
 * Return: 0, or -ENAMETOOLONG.
 */
int ht_ctl_dir(char *out, size_t cap);

/*
 * Checks that `dir` is a real directory (no symlink) owned by the
 * effective user and closed to everyone else; with `create`, makes it first
 * (0700) when missing. Return: 0, -ENOENT, -EPERM (someone else's or open
 * to others), or -errno.
 */
int ht_ctl_dir_check(const char *dir, int create);

/* Return: nonzero when `name` is a valid session name (letters, digits, -_., 1-63 chars). */
int ht_ctl_name_valid(const char *name);

/*
 * Opens (with `create`, creates: 0600, sized to a page) the control file
 * `path` and checks that it is a regular file of this user's, one page
 * long. Return: the fd (O_RDWR, close-on-exec), or -errno (-EPERM: not ours).
 */
int ht_ctl_open(const char *path, int create);

/* Maps the page of fd read-write, shared. Return: the page, or NULL with errno set. */
struct ht_ctl_page *ht_ctl_map(int fd);

/*
 * Copies the settings of page `p` into `env` (HT_CTL_ENV_MAX bytes) as they
 * were for generation `gen`: a copy that a daemon rewrote meanwhile is
 * refused. Return: 0, or -EAGAIN.
 */
int ht_ctl_read_env(const struct ht_ctl_page *p, uint32_t gen, char *env, char *dir);

#endif
