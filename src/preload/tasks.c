/*
 * Every traced process and thread in the trace, with its life (in
 * libhetrace-preload.so, which `hetrace record` preloads): task events in
 * the process stream say when the process started (its image loaded, or
 * the fork that made it), when each thread started and ended and under
 * which name, how the process ended (its exit code where it called exit or
 * _exit), and how each child it waited for ended (code or signal: the only
 * place a death by signal is seen). A process that records nothing else
 * gets its directory when it starts (this library's constructor), so one
 * that is killed before it records anything is in the trace too; its
 * exit is written at exit or at _exit, which runs no destructor (dash ends
 * every shell that way).
 *
 * Interposed: pthread_create (the new thread notes its start, a key
 * destructor its end), exit, _exit and _Exit (the code), and the wait
 * family (the children's ends). Each calls the real function, found once at
 * load, and the program sees exactly what it returns, errno included. No
 * thread is added and nothing here runs per event.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/config.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "hetrace/hetrace.h"

#define EXPORT __attribute__((visibility("default")))

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef void (*exit_fn)(int);
typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);

static struct {
	create_fn create;
	exit_fn exit, exit_, Exit;
	wait4_fn wait4;
	waitid_fn waitid;
} real;

/* The real functions (once; the program may call them before our constructor). */
static void resolve(void)
{
	real.create = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
	real.exit = (exit_fn)dlsym(RTLD_NEXT, "exit");
	real.exit_ = (exit_fn)dlsym(RTLD_NEXT, "_exit");
	real.Exit = (exit_fn)dlsym(RTLD_NEXT, "_Exit");
	real.wait4 = (wait4_fn)dlsym(RTLD_NEXT, "wait4");
	real.waitid = (waitid_fn)dlsym(RTLD_NEXT, "waitid");
}

#define REAL(f) (real.f ? real.f : (resolve(), real.f))

static int on;		   /* recording: task events are written */
static pid_t self;	   /* this process (a vfork child is another) */
static uint64_t start_ns;  /* when this process image started (or was forked) */
static int exit_code = -1; /* what it passed to exit / _exit */
static pthread_key_t key;

struct task_note {
	enum ht_task_kind kind;
	int32_t tid, code, signal;
	uint64_t ns;
	const char *name;
};

static void put(struct ht_stream *proc, const struct task_note *n)
{
	const struct ht_ev_task e = {.kind = (uint8_t)n->kind,
				     .tid = n->tid,
				     .code = n->code,
				     .signal = n->signal,
				     .ns = n->ns,
				     .name = n->name ? n->name : ""};

	HT_WRITE(proc, task, &e);
}

static int put_locked(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	(void)strs;
	put(proc, arg);
	return 0;
}

/* Writes a task event into the process stream (which it creates when this is the first). */
static void note(enum ht_task_kind kind, int32_t tid, int32_t code, int32_t sig, const char *name)
{
	int err = errno;
	struct task_note n = {kind, tid, code, sig, ht_now_ns(), name};

	if (__atomic_load_n(&ht_active, __ATOMIC_RELAXED))
		ht_session_with_process(put_locked, &n);
	errno = err;
}

/* ---- threads ---- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void thread_ended(void *v)
{
	char name[16] = "";

	(void)v;
	prctl(PR_GET_NAME, name);
	note(HT_TASK_THREAD_EXIT, (int32_t)gettid(), -1, 0, name);
}

static void *thread_start(void *p)
{
	struct start st = *(struct start *)p;
	char name[16] = "";

	free(p);
	prctl(PR_GET_NAME, name);
	note(HT_TASK_THREAD_START, (int32_t)gettid(), -1, 0, name);
	pthread_setspecific(key, (void *)1); /* thread_ended at its end */
	return st.fn(st.arg);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *st;

	if (!on || !(st = malloc(sizeof *st)))
		return REAL(create)(t, attr, fn, arg);
	st->fn = fn;
	st->arg = arg;
	int r = REAL(create)(t, attr, thread_start, st);

	if (r)
		free(st);
	return r;
}

/* ---- exit ---- */

static void keep_code(int code)
{
	if (on && getpid() == self) /* a vfork child shares our memory */
		exit_code = code & 0xff;
}

EXPORT void exit(int code)
{
	keep_code(code);
	REAL(exit)(code);
	abort(); /* not reached */
}

EXPORT void _exit(int code)
{
	keep_code(code);
	if (on)
		ht_session_exit_now();
	REAL(exit_)(code);
	abort();
}

EXPORT void _Exit(int code)
{
	keep_code(code);
	if (on)
		ht_session_exit_now();
	REAL(Exit)(code);
	abort();
}

/* ---- children ---- */

static void child_status(pid_t pid, int status)
{
	if (!on || pid <= 0)
		return;
	if (WIFEXITED(status))
		note(HT_TASK_CHILD_EXIT, pid, WEXITSTATUS(status), 0, NULL);
	else if (WIFSIGNALED(status))
		note(HT_TASK_CHILD_EXIT, pid, -1, WTERMSIG(status), NULL);
}

EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r = REAL(wait4)(pid, &st, options, ru);

	if (r > 0) {
		if (status)
			*status = st;
		child_status(r, st);
	}
	return r;
}

EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}

EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

EXPORT pid_t wait(int *status)
{
	return wait4(-1, status, 0, NULL);
}

EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	siginfo_t mine;
	siginfo_t *si = info ? info : &mine;
	int r;

	memset(&mine, 0, sizeof mine);
	r = REAL(waitid)(idtype, id, si, options);
	if (r == 0 && si->si_pid > 0 && !(options & WNOWAIT)) {
		int err = errno;

		if (si->si_code == CLD_EXITED)
			child_status(si->si_pid, (si->si_status & 0xff) << 8);
		else if (si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED)
			child_status(si->si_pid, si->si_status & 0x7f);
		errno = err;
	}
	return r;
}

/* ---- source hooks ---- */

static void tasks_process_open(struct ht_stream *proc)
{
	char comm[16] = "";
	const struct task_note n = {HT_TASK_PROCESS_START, (int32_t)self, -1, 0, start_ns, comm};

	prctl(PR_GET_NAME, comm);
	put(proc, &n);
}

static void tasks_exit(struct ht_stream *proc)
{
	const struct task_note n = {
	    HT_TASK_PROCESS_EXIT, (int32_t)getpid(), exit_code, 0, ht_now_ns(), NULL};

	put(proc, &n);
}

static void tasks_fork_child(void)
{
	self = getpid();
	start_ns = ht_now_ns();
	exit_code = -1;
}

static const struct ht_source_hooks task_hooks = {
    .name = "tasks",
    .process_open = tasks_process_open,
    .fork_child = tasks_fork_child,
    .exit = tasks_exit,
};

__attribute__((constructor)) static void tasks_load(void)
{
	const struct ht_config *cfg = ht_session_borrow_config();

	resolve(); /* now, not at exit: dlsym may allocate */
	if (!cfg->dir || !real.create || !real.exit || !real.exit_ || !real.Exit || !real.wait4 ||
	    !real.waitid)
		return;
	self = getpid();
	start_ns = ht_now_ns();
	if (pthread_key_create(&key, thread_ended) || ht_source_register(&task_hooks))
		return;
	on = 1;
	/*
	 * The directory now: a process killed before its first event (or its
	 * exit) is then in the trace too, its end told by its parent. The
	 * call-stack source, registered by now or soon, writes its modules
	 * when it registers.
	 */
	ht_session_start();
}
