/*
 * The session daemon: one small process per user and session name that
 * does for programs it did not start what `hetrace record` does for its
 * command (drains their rings, writes the index, finalizes the trace). It
 * switches recording on by writing the control page (ctl.h) that every
 * candidate program has mapped, and off again at `stop`; the packets that
 * running programs still hold then are taken from their rings, so a
 * service is traced for a window without being restarted.
 *
 * It holds an exclusive flock on "NAME.lock" for its whole life: `status`
 * and `start` tell a live daemon from one killed with SIGKILL by trying
 * that lock (the kernel drops it with the process), never by a pid that
 * may have been reused. A page that says "running" with nobody holding the
 * lock is stale: recording is switched off and the trace finalized.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record_dir.h"
#include "cli/record_share.h"
#include "core/clock.h"
#include "core/config.h"
#include "ring/consumer.h"
#include "ring/ring.h"
#include "session/daemon.h"

/* In-flight events of programs that saw the flag just before it fell: how long to let them land. */
#define GRACE_NS 20000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void nap_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int ht_session_paths_get(const char *name, int create, struct ht_session_paths *p)
{
	int r;

	if (!ht_ctl_name_valid(name))
		return ht_usage_error("session",
				      "--name must be 1 to 63 letters, digits, '-', '_' "
				      "or '.', not '%s'",
				      name);
	if (ht_ctl_dir(p->dir, sizeof p->dir))
		return ht_error("session directory name too long (HETRACE_SESSION_DIR)");
	r = ht_ctl_dir_check(p->dir, create);
	if (r == -ENOENT && !create) {
		p->ctl[0] = '\0';
		return 0; /* no session was ever started */
	}
	if (r)
		return ht_error("cannot use session directory '%s': %s (it must be a directory "
				"of yours, mode 0700; remove it or set HETRACE_SESSION_DIR)",
				p->dir,
				r == -EPERM ? "it belongs to another user or others may use it"
					    : strerror(-r));
	snprintf(p->ctl, sizeof p->ctl, "%s/%s.ctl", p->dir, name);
	snprintf(p->lock, sizeof p->lock, "%s/%s.lock", p->dir, name);
	snprintf(p->log, sizeof p->log, "%s/%s.log", p->dir, name);
	return 0;
}

/*
 * Opens the lock file and tries its lock. Return: the fd holding the lock
 * (the caller is the only one at the session), -EWOULDBLOCK when a daemon
 * holds it, or -errno.
 */
static int lock_try(const char *path, int create)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* Switches recording off in every program of the session (the page's words). */
static void page_stop(struct ht_ctl_page *pg)
{
	__atomic_store_n(&pg->active, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->watch, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&pg->state, HT_CTL_IDLE, __ATOMIC_RELEASE);
	__atomic_add_fetch(&pg->gen, 1, __ATOMIC_RELEASE);
	pg->pid = 0;
}

/*
 * The end of a recording: nothing more is written (the page went idle),
 * the rings' last packets are taken, the index is completed and the trace
 * finalized. `c` may be NULL (a stale session: a consumer is made here).
 */
static int finish_trace(struct ht_consumer *c, const char *dir, double hz, const char *how,
			int quiet)
{
	unsigned int salvaged = 0;
	int dfd = open(dir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (dfd < 0) {
		ht_consumer_finish(c);
		return ht_error("cannot open session trace '%s': %s", dir, strerror(errno));
	}
	nap_ns(GRACE_NS);
	if (!c) {
		unlinkat(dfd, HT_DOORBELL_FILE, 0); /* the dead daemon's */
		c = ht_consumer_create(dfd, dir);
	}
	/* Packets still open in running programs are taken too: count them, not as deaths. */
	salvaged = ht_consumer_finish(c);
	ht_record_index_end(dfd, 0, how);
	close(dfd);
	if (!quiet && salvaged)
		fprintf(stderr,
			"hetrace: took %u packet(s) in progress from programs still running\n",
			salvaged);
	return ht_record_finalize(dir, hz, quiet, 0);
}

/*
 * A page left "running" by a daemon that was killed (nobody holds the
 * lock; the caller does now): recording off, trace finalized.
 */
static void clean_stale(struct ht_ctl_page *pg, const char *name)
{
	char dir[HT_CTL_DIR_MAX];
	int pid = pg->pid;

	memcpy(dir, pg->dir, sizeof dir);
	dir[sizeof dir - 1] = '\0';
	page_stop(pg);
	fprintf(stderr,
		"hetrace: session '%s': its daemon (pid %d) had died; recording stopped, "
		"finalizing its trace '%s'\n",
		name, pid, dir);
	finish_trace(NULL, dir, pg->tsc_hz, "daemon died", 1);
}

/* Maps the session's page (created when missing). NULL: printed. */
static struct ht_ctl_page *page_open(const struct ht_session_paths *p)
{
	struct ht_ctl_page *pg;
	int fd = ht_ctl_open(p->ctl, 1);

	if (fd < 0) {
		ht_error("cannot open session control page '%s': %s", p->ctl,
			 fd == -EPERM ? "not a private file of yours (remove it)" : strerror(-fd));
		return NULL;
	}
	pg = ht_ctl_map(fd);
	close(fd);
	if (!pg)
		ht_error("cannot map session control page '%s': %s", p->ctl, strerror(errno));
	return pg;
}

/* ---- the daemon ---- */

struct daemon_state {
	struct ht_ctl_page *pg;
	uint64_t on_ns, off_ns; /* capture window by time (off 0: none) */
	int on, over;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int daemon_tick(void *arg)
{
	struct daemon_state *d = arg;
	uint64_t now = mono_ns();

	if (stop_requested)
		return 1;
	if (d->over)
		return 0; /* the window is over; the session lasts until stop */
	if (!d->on && now >= d->on_ns) {
		d->on = 1;
		__atomic_store_n(&d->pg->active, 1, __ATOMIC_RELEASE);
	}
	if (d->on && d->off_ns && now >= d->off_ns) {
		d->on = 0;
		d->over = 1;
		__atomic_store_n(&d->pg->active, 0, __ATOMIC_RELEASE);
	}
	return 0;
}

/* The settings block of the page (ctl.h): "NAME=value" strings, an empty one last. */
static int env_put(char *env, size_t *len, const char *name, const char *value)
{
	int n = snprintf(env + *len, HT_CTL_ENV_MAX - 1 - *len, "%s=%s", name, value);

	if (n < 0 || (size_t)n >= HT_CTL_ENV_MAX - 1 - *len)
		return -1;
	*len += (size_t)n + 1;
	env[*len] = '\0';
	return 0;
}

static int fill_env(struct ht_ctl_page *pg, const struct ht_session_opts *o, const char *clock)
{
	char env[HT_CTL_ENV_MAX] = "", v[64];
	size_t len = 0;
	int r = 0;

	if (!strcmp(clock, "tsc") && pg->tsc_hz > 0) {
		snprintf(v, sizeof v, "tsc:%.0f", pg->tsc_hz);
		r |= env_put(env, &len, "HETRACE_CLOCK", v);
	} else {
		r |= env_put(env, &len, "HETRACE_CLOCK", "monotonic");
	}
	if (o->mode)
		r |= env_put(env, &len, "HETRACE_MODE", o->mode);
	if (o->buffer)
		r |= env_put(env, &len, "HETRACE_BUFFER", o->buffer);
	if (o->callstacks)
		r |= env_put(env, &len, "HETRACE_CALLSTACKS", o->callstacks);
	if (!o->os)
		r |= env_put(env, &len, "HETRACE_OS", "0");
	if (o->capture)
		r |= env_put(env, &len, "HETRACE_CAPTURE", o->capture);
	if (o->capture_end)
		r |= env_put(env, &len, "HETRACE_CAPTURE_END", o->capture_end);
	memcpy(pg->env, env, sizeof env);
	return r;
}

int ht_session_start(const struct ht_session_opts *o)
{
	struct ht_session_paths p;
	struct ht_ctl_page *pg;
	struct ht_consumer *c;
	struct daemon_state d = {0};
	char defdir[80], absdir[PATH_MAX];
	const char *out = o->out, *clock = o->clock;
	int lockfd, dfd, created, logfd, rc;
	uint64_t now;
	pid_t pid;

	if (ht_session_paths_get(o->name, 1, &p))
		return 1;
	lockfd = lock_try(p.lock, 1);
	if (lockfd == -EWOULDBLOCK) {
		pg = page_open(&p);
		ht_error(
		    "a session '%s' is running already (trace '%s', daemon pid %d); end it with "
		    "'hetrace session stop%s%s' or name another with --name",
		    o->name, pg ? pg->dir : "?", pg ? pg->pid : 0,
		    strcmp(o->name, "default") ? " --name " : "",
		    strcmp(o->name, "default") ? o->name : "");
		return 1;
	}
	if (lockfd < 0)
		return ht_error("cannot lock session file '%s': %s", p.lock, strerror(-lockfd));
	pg = page_open(&p);
	if (!pg)
		goto err_lock;
	if (pg->magic == HT_CTL_MAGIC && pg->state == HT_CTL_RUNNING)
		clean_stale(pg, o->name);

	if (!out) {
		ht_record_default_dir(defdir, sizeof defdir, "hetrace-session");
		out = defdir;
	}
	if (!clock)
		clock = ht_clock_tsc_is_invariant() ? "tsc" : "monotonic";
	/* One rate for every session of this name: a running program keeps the clock it set up. */
	if (!strcmp(clock, "tsc") && pg->tsc_hz <= 0)
		pg->tsc_hz = ht_clock_measure_tsc_hz(10);
	dfd = ht_record_dir_prepare(out, o->force, &created);
	if (dfd < 0)
		goto err_lock;
	if (!realpath(out, absdir) || strlen(absdir) >= HT_CTL_DIR_MAX) {
		ht_error("cannot resolve '%s': %s", out, errno ? strerror(errno) : "path too long");
		goto err_dir;
	}
	{
		char *argv[] = {"hetrace", "session", "start", (char *)o->name};

		rc = ht_record_index_write(dfd, 4, argv, clock, pg->tsc_hz);
	}
	if (rc) {
		ht_error("cannot write to trace directory '%s': %s", out, strerror(-rc));
		goto err_dir;
	}
	c = ht_consumer_create(dfd, absdir);
	if (!c) {
		ht_error("cannot create '%s/%s': %s", out, HT_DOORBELL_FILE, strerror(errno));
		goto err_dir;
	}
	if (fill_env(pg, o, clock)) {
		ht_consumer_finish(c);
		ht_error("session settings too long for the control page");
		goto err_dir;
	}
	logfd = open(p.log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (logfd < 0) {
		ht_consumer_finish(c);
		ht_error("cannot create session log '%s': %s", p.log, strerror(errno));
		goto err_dir;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ht_consumer_finish(c);
		ht_error("cannot start the session daemon: %s", strerror(errno));
		close(logfd);
		goto err_dir;
	}
	if (pid > 0) {
		/* The session runs once this returns: the page says so before we exit. */
		memcpy(pg->dir, absdir, strlen(absdir) + 1);
		now = mono_ns();
		pg->start_ns = now;
		pg->pid = (int32_t)pid;
		pg->magic = HT_CTL_MAGIC;
		__atomic_store_n(&pg->state, HT_CTL_RUNNING, __ATOMIC_RELEASE);
		__atomic_add_fetch(&pg->gen, 1, __ATOMIC_RELEASE);
		if (o->capture) /* each program records inside its own ranges */
			__atomic_store_n(&pg->watch, 1, __ATOMIC_RELEASE);
		else if (o->delay_s <= 0)
			__atomic_store_n(&pg->active, 1, __ATOMIC_RELEASE);
		if (!o->quiet)
			fprintf(stderr,
				"hetrace: session '%s' recording into '%s'; programs started with "
				"'hetrace session env' join it, and those running already\n",
				o->name, absdir);
		return 0;
	}

	/* The daemon: its own session, no terminal, messages into the log, no hold on a cwd. */
	setsid();
	if (chdir("/"))
		_exit(1);
	{
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			close(nul);
		}
		dup2(logfd, 2);
		close(logfd);
	}
	signal(SIGINT, on_stop_signal);
	signal(SIGTERM, on_stop_signal);
	signal(SIGHUP, on_stop_signal);
	signal(SIGPIPE, SIG_IGN);
	d.pg = pg;
	now = mono_ns();
	d.on = o->delay_s <= 0;
	d.over = o->capture != NULL; /* no time window: the page stays as it is */
	d.on_ns = now + (uint64_t)(o->delay_s * 1e9);
	d.off_ns = o->duration_s > 0 ? d.on_ns + (uint64_t)(o->duration_s * 1e9) : 0;
	ht_consumer_run(c, daemon_tick, &d);
	page_stop(pg);
	rc = finish_trace(c, absdir, pg->tsc_hz, "session stopped", o->quiet);
	close(dfd); /* the consumer's last scan needed it */
	_exit(rc);

err_dir:
	close(dfd);
	if (created)
		rmdir(out); /* empty unless the index was written: then the trace stays */
err_lock:
	close(lockfd);
	return 1;
}

/* Copies the daemon's log to stderr (what it said while finishing). */
static void print_log(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		if (write(2, buf, (size_t)n) < 0)
			break;
	close(fd);
}

int ht_session_stop(const char *name, int quiet)
{
	struct ht_session_paths p;
	struct ht_ctl_page *pg;
	int fd, pid;

	if (ht_session_paths_get(name, 0, &p))
		return 1;
	if (!p.ctl[0] || access(p.ctl, F_OK))
		return ht_error("no session '%s' is running", name);
	pg = page_open(&p);
	if (!pg)
		return 1;
	fd = lock_try(p.lock, 1);
	if (fd >= 0) {
		/* Nobody holds it: no daemon. */
		if (pg->magic == HT_CTL_MAGIC && pg->state == HT_CTL_RUNNING) {
			clean_stale(pg, name);
			close(fd);
			return 0;
		}
		close(fd);
		return ht_error("no session '%s' is running", name);
	}
	if (fd != -EWOULDBLOCK)
		return ht_error("cannot lock session file '%s': %s", p.lock, strerror(-fd));
	pid = pg->pid;
	if (pid <= 0 || kill(pid, SIGTERM))
		return ht_error("cannot stop the daemon of session '%s' (pid %d): %s", name, pid,
				pid <= 0 ? "it is still starting" : strerror(errno));
	/* Its lock falls when it has finished the trace. */
	fd = open(p.lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX))
		return ht_error("cannot wait for the session daemon: %s", strerror(errno));
	close(fd);
	if (!quiet)
		print_log(p.log);
	return 0;
}

int ht_session_status(const char *name)
{
	struct ht_session_paths p;
	struct ht_ctl_page *pg;
	int fd;

	if (ht_session_paths_get(name, 0, &p))
		return 2;
	if (!p.ctl[0] || access(p.ctl, F_OK)) {
		printf("session '%s': not running\n", name);
		return 1;
	}
	pg = page_open(&p);
	if (!pg)
		return 2;
	fd = lock_try(p.lock, 1);
	if (fd >= 0) {
		int stale = pg->magic == HT_CTL_MAGIC && pg->state == HT_CTL_RUNNING;

		if (stale)
			clean_stale(pg, name);
		close(fd);
		printf("session '%s': not running%s\n", name,
		       stale ? " (its daemon had died; cleaned up)" : "");
		return 1;
	}
	if (fd != -EWOULDBLOCK) {
		fprintf(stderr, "hetrace: cannot lock session file '%s': %s\n", p.lock,
			strerror(-fd));
		return 2;
	}
	printf("session '%s': %s into '%s', daemon pid %d, for %.1f s\n", name,
	       __atomic_load_n(&pg->active, __ATOMIC_ACQUIRE) ? "recording"
							      : "waiting (capture range)",
	       pg->dir, pg->pid, (double)(mono_ns() - pg->start_ns) / 1e9);
	return 0;
}
