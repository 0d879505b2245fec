/*
 * Runs the rewriter helper (hetrace-cl-rewrite) from inside a traced
 * process without the process noticing. libclang cannot be loaded into the
 * process itself: next to PoCL's LLVM 15 it crashed PoCL's next build (seen
 * here: LLVM 15's pass manager ran LLVM 14's verifier through an
 * interposed symbol).
 *
 * A child the application did not make must stay invisible to it: no
 * SIGCHLD for its handler, nothing for its wait()/waitpid(-1) to reap. A
 * clone with exit signal 0 is invisible so, but exec turns a child back
 * into a SIGCHLD child (seen here: waitpid(__WCLONE) found no child after
 * the helper's exec). So the helper is a grandchild: an intermediate
 * clone(CLONE_VM | CLONE_VFORK, exit signal 0) vforks it and exits at once;
 * the helper is reparented to init, which reaps it, and we wait only for
 * the intermediate (__WCLONE), then read the helper's answer to EOF.
 * Signals are blocked around the clone; the children reset every handler
 * before unblocking (they share the parent's memory until exec), close
 * every inherited descriptor but their pipes, and start the helper with an
 * empty environment (no LD_PRELOAD: it is not traced). The caller's errno
 * is kept.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "memtrace/rewrite.h"
#include "memtrace/spawn.h"

struct child_arg {
	char *const *argv; /* argv[0]: the program's absolute path */
	int in, out, null;
	sigset_t mask;
	pid_t helper; /* set by the intermediate */
};

/* The intermediate: vforks the helper, then exits (its parent waits with __WCLONE). */
static int child_main(void *p)
{
	struct child_arg *a = p;
	char *const envp[] = {NULL};
	struct sigaction dfl;
	pid_t pid;

	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL); /* ours: no CLONE_SIGHAND */
	pid = vfork();
	if (pid == 0) {
		if (dup2(a->in, 0) < 0 || dup2(a->out, 1) < 0 || dup2(a->null, 2) < 0)
			_exit(127);
		syscall(SYS_close_range, 3, ~0u, 0);
		sigprocmask(SIG_SETMASK, &a->mask, NULL);
		execve(a->argv[0], a->argv, envp);
		_exit(127);
	}
	a->helper = pid;
	_exit(pid < 0 ? 1 : 0);
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int ht_mt_spawn(char *const argv[], const void *in, size_t inlen, char **out, size_t *outlen,
		int timeout_ms)
{
	int saved = errno, to[2] = {-1, -1}, from[2] = {-1, -1}, rc = 0, status;
	struct child_arg a = {.argv = argv, .null = -1};
	size_t stack_size = 64 * 1024, cap = 0, n = 0, done = 0;
	char *stack = NULL, *buf = NULL;
	sigset_t all;
	uint64_t deadline;
	pid_t pid = -1;

	*out = NULL;
	*outlen = 0;
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC) ||
	    (a.null = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0 ||
	    !(stack = malloc(stack_size))) {
		rc = errno ? -errno : -ENOMEM;
		goto out;
	}
	a.in = to[0];
	a.out = from[1];
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &a.mask);
	pid = clone(child_main, stack + stack_size, CLONE_VM | CLONE_VFORK, &a);
	if (pid < 0)
		rc = -errno;
	pthread_sigmask(SIG_SETMASK, &a.mask, NULL);
	if (pid < 0)
		goto out;
	while (waitpid(pid, &status, __WCLONE) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) || a.helper <= 0) {
		rc = -ECHILD;
		goto out;
	}
	close(to[0]);
	close(from[1]);
	to[0] = from[1] = -1;
	/* the helper (and clang -E) reads all of its input before it writes */
	while (done < inlen) {
		ssize_t w = write(to[1], (const char *)in + done, inlen - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = -EPIPE;
			break;
		}
		done += (size_t)w;
	}
	close(to[1]);
	to[1] = -1;
	deadline = now_ms() + (uint64_t)timeout_ms;
	while (!rc) {
		struct pollfd pf = {.fd = from[0], .events = POLLIN};
		uint64_t t = now_ms();
		ssize_t r;
		int pr;

		if (t >= deadline) {
			rc = -ETIMEDOUT;
			break;
		}
		pr = poll(&pf, 1, (int)(deadline - t));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			rc = pr < 0 ? -errno : -ETIMEDOUT;
			break;
		}
		if (n == cap) {
			char *b = realloc(buf, cap ? cap * 2 : 65536);

			if (!b) {
				rc = -ENOMEM;
				break;
			}
			buf = b;
			cap = cap ? cap * 2 : 65536;
		}
		r = read(from[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (rc)
		kill(a.helper, SIGKILL); /* init reaps it */
out:
	for (int i = 0; i < 2; i++) {
		if (to[i] >= 0)
			close(to[i]);
		if (from[i] >= 0)
			close(from[i]);
	}
	if (a.null >= 0)
		close(a.null);
	free(stack);
	if (rc) {
		free(buf);
	} else {
		*out = buf;
		*outlen = n;
	}
	errno = saved;
	return rc;
}

int ht_mt_rewrite_run(const char *tool, const char *src, size_t len, const struct ht_mt_front *fe,
		      const struct ht_mt_cl_params *p, struct ht_mt_rewrite *rw)
{
	char *req = NULL, *res = NULL;
	size_t reqlen = 0, reslen = 0;
	FILE *f = open_memstream(&req, &reqlen);
	int rc;

	memset(rw, 0, sizeof *rw);
	if (!f)
		return -ENOMEM;
	rc = ht_mt_rewrite_request_write(f, p, fe, src, len);
	if (fclose(f) && !rc)
		rc = -ENOMEM;
	if (!rc) {
		char *const argv[] = {(char *)tool, NULL};

		rc = ht_mt_spawn(argv, req, reqlen, &res, &reslen, HT_MT_REWRITE_TIMEOUT_MS);
	}
	free(req);
	if (rc) {
		snprintf(rw->error, sizeof rw->error, "cannot run '%s': %s", tool,
			 rc == -ECHILD ? "it failed" : strerror(-rc));
		return rc;
	}
	rc = ht_mt_rewrite_read(res, reslen, rw);
	if (rc == -EINVAL)
		snprintf(rw->error, sizeof rw->error, "'%s' answered something unreadable", tool);
	free(res);
	return rc;
}
