/*
 * The per-user session daemon (daemon.c): what `hetrace session start`
 * leaves running in place of `hetrace record`, and how `stop` and `status`
 * find it, end it, or clean up after one that was killed.
 */
#ifndef HT_SESSION_DAEMON_H
#define HT_SESSION_DAEMON_H

#include "session/ctl.h"

struct ht_session_opts {
	const char *name; /* session name (default "default") */
	const char *out;  /* trace directory, NULL: hetrace-session-YYYYmmdd-HHMMSS */
	int force;	  /* replace an earlier trace there */
	int quiet;
	const char *mode;   /* HETRACE_MODE or NULL */
	const char *buffer; /* HETRACE_BUFFER or NULL */
	const char *clock;  /* tsc | monotonic | NULL (tsc where invariant) */
	const char *callstacks;
	int os;			 /* 1: each thread records its OS scheduling; 0: none */
	double delay_s;		 /* --delay: recording starts this long after start */
	double duration_s;	 /* --duration: and lasts this long (0: until stop) */
	const char *capture;	 /* region:NAME or nvtx:NAME (as region:NAME), or NULL */
	const char *capture_end; /* stop | repeat | NULL */
};

/* A session's files: the control page, the daemon's lock and its log. */
struct ht_session_paths {
	char dir[HT_CTL_DIR_MAX];
	char ctl[HT_CTL_DIR_MAX + 80], lock[HT_CTL_DIR_MAX + 80], log[HT_CTL_DIR_MAX + 80];
};

/* Fills p for session `name`, making the directory when `create`. Return: 0, or 1 (printed). */
int ht_session_paths_get(const char *name, int create, struct ht_session_paths *p);

/* `session start`: prepares the trace, leaves the daemon running. Return: exit status. */
int ht_session_start(const struct ht_session_opts *o);
/* `session stop`: ends the daemon, waits for the trace. Return: exit status. */
int ht_session_stop(const char *name, int quiet);
/* `session status`. Return: 0 when a session runs, 1 when none does, 2... on errors. */
int ht_session_status(const char *name);

#endif
