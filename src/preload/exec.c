/*
 * The exec family, interposed (in libhetrace-preload.so, which `hetrace
 * record` preloads; a program linked with -lhetrace for annotations keeps
 * the real ones): before an exec replaces the image, its recording is ended
 * as at exit (ht_session_exec_prepare: the calling thread's stream and the
 * process stream closed, the sources' exec hooks run, so the OS source
 * drains every thread's switches, an "exec" anchor), so the image ends like
 * one that exited instead of looking killed, and its last context switches
 * are kept. The new image loads libhetrace again and records into its own
 * directory. When the exec fails, the process records on, in a new
 * directory too.
 *
 * glibc's exec functions call execve internally, past any interposer, so
 * each entry point is wrapped. The l-variants build their argument vector
 * on the stack as glibc does. posix_spawn and system() start other
 * processes and need nothing here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include "core/recorder.h"
#include "core/source.h"

extern char **environ;

enum exec_kind { EXEC_VE, EXEC_VPE, EXEC_FD, EXEC_AT };

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

static void *real(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/*
 * Ends the recording, runs the real function, and on failure lets the
 * recording go on. The app sees the real function's return and errno.
 */
static int run(enum exec_kind kind, int fd, const char *path, char *const argv[],
	       char *const envp[], int flags)
{
	static void *fns[4];
	static const char *const names[4] = {"execve", "execvpe", "fexecve", "execveat"};
	void *fn = __atomic_load_n(&fns[kind], __ATOMIC_RELAXED);
	int r, err;

	if (!fn) {
		fn = real(names[kind]);
		if (!fn) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&fns[kind], fn, __ATOMIC_RELAXED);
	}
	ht_session_exec_prepare();
	switch (kind) {
	case EXEC_VE:
	case EXEC_VPE: /* the same signature */
		r = ((execve_fn)fn)(path, argv, envp);
		break;
	case EXEC_FD:
		r = ((fexecve_fn)fn)(fd, argv, envp);
		break;
	default:
		r = ((execveat_fn)fn)(fd, path, argv, envp, flags);
		break;
	}
	err = errno;
	ht_session_exec_failed();
	errno = err;
	return r;
}

HT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return run(EXEC_VE, -1, path, argv, envp, 0);
}

HT_EXPORT int execv(const char *path, char *const argv[])
{
	return run(EXEC_VE, -1, path, argv, environ, 0);
}

HT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return run(EXEC_VPE, -1, file, argv, envp, 0);
}

HT_EXPORT int execvp(const char *file, char *const argv[])
{
	return run(EXEC_VPE, -1, file, argv, environ, 0);
}

HT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return run(EXEC_FD, fd, NULL, argv, envp, 0);
}

HT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		       int flags)
{
	return run(EXEC_AT, dirfd, path, argv, envp, flags);
}

/* Counts the arguments after arg0 up to the terminating NULL. */
static size_t count_args(va_list ap)
{
	size_t n = 0;

	while (va_arg(ap, const char *))
		n++;
	return n;
}

/*
 * The l-variants: arg0 (never NULL: glibc declares it nonnull), ..., NULL,
 * then for execle envp. The vector lives on the stack, like glibc's.
 */
#define EXEC_L(kind, name, with_env)                                                               \
	HT_EXPORT int name(const char *path, const char *arg0, ...)                                \
	{                                                                                          \
		va_list ap;                                                                        \
		size_t n;                                                                          \
                                                                                                   \
		va_start(ap, arg0);                                                                \
		n = count_args(ap);                                                                \
		va_end(ap);                                                                        \
		const char *argv[n + 2];                                                           \
		char *const *envp = environ;                                                       \
                                                                                                   \
		argv[0] = arg0;                                                                    \
		va_start(ap, arg0);                                                                \
		for (size_t i = 1; i <= n + 1; i++)                                                \
			argv[i] = va_arg(ap, const char *);                                        \
		if (with_env)                                                                      \
			envp = va_arg(ap, char *const *);                                          \
		va_end(ap);                                                                        \
		return run(kind, -1, path, (char *const *)argv, envp, 0);                          \
	}

EXEC_L(EXEC_VE, execl, 0)
EXEC_L(EXEC_VE, execle, 1)
EXEC_L(EXEC_VPE, execlp, 0)
