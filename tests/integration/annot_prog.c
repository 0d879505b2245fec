/*
 * Test program for the recorder: emits a known set of annotation events in
 * one of several process/thread shapes, so integration tests can assert
 * exact counts and values.
 *   annot_prog single N     N x {region "loop", counter "i"=k}, then instant
 *   annot_prog threads T N  T threads named worker-K, N counters each (K*1e6+k)
 *   annot_prog fork N       parent N regions "parent", child 2N regions "child"
 *   annot_prog exec N       N regions "before-exec", then exec "single N"
 *   annot_prog execfail N   N regions "before", a failing execv (prints its errno),
 *                           N regions "after"
 *   annot_prog vfork N      N regions "parent", a vfork child execs "single N",
 *                           then N regions "parent-after"
 *   annot_prog system N     system("<self> single N") and posix_spawn of the same
 *   annot_prog spin         counters 0,1,2,...; prints "ready" after 100000, then
 *                           writes on, 1024 per ms, for 20 s at most (bounded: a
 *                           test that dies before it kills the program must not
 *                           leave it filling the disk)
 *   annot_prog big N        N counters (for loss and packet wrap-around tests)
 *   annot_prog exitrun N    a thread emits N counters "late" and is still running
 *                           when main returns (its packet is open at exit)
 *   annot_prog api N        a source's view: registers a function table, N x
 *                           api_begin/api_end of "fakeRead" with 3 arguments
 */
#include <hetrace/hetrace.h>

#include "core/recorder.h"
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long n_events;

static void single(long n)
{
	HT_THREAD_NAME("main-thread");
	for (long k = 0; k < n; k++) {
		HT_REGION_BEGIN("loop");
		HT_COUNTER("i", k);
		HT_REGION_END("loop");
	}
	HT_INSTANT_ARGS("done", ht_arg_int("n", n), ht_arg_string("tag", "ok"),
			ht_arg_double("half", n / 2.0));
}

static void *worker(void *arg)
{
	long idx = (long)arg;
	char name[32];

	snprintf(name, sizeof name, "worker-%ld", idx);
	ht_thread_name(name);
	for (long k = 0; k < n_events; k++)
		HT_COUNTER("w", idx * 1000000 + k);
	return NULL;
}

static volatile int late_done;

static void *late_worker(void *arg)
{
	HT_THREAD_NAME("late");
	for (long k = 0; k < (long)arg; k++)
		HT_COUNTER("late", k);
	__atomic_store_n(&late_done, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

static void regions(const char *name, long n)
{
	for (long k = 0; k < n; k++) {
		ht_region_begin_dyn(name);
		ht_region_end_dyn(name);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "single";
	long n = argc > 2 ? atol(argv[2]) : 10;

	if (!strcmp(mode, "single")) {
		single(n);
	} else if (!strcmp(mode, "threads")) {
		long t = n;
		pthread_t th[64];

		n_events = argc > 3 ? atol(argv[3]) : 1000;
		if (t > 64)
			t = 64;
		for (long i = 0; i < t; i++)
			pthread_create(&th[i], NULL, worker, (void *)i);
		for (long i = 0; i < t; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(mode, "fork")) {
		int st;
		pid_t pid;

		regions("parent", n);
		fflush(NULL);
		pid = fork();
		if (pid == 0) {
			regions("child", 2 * n);
			exit(0);
		}
		waitpid(pid, &st, 0);
		regions("parent-after", 1);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
	} else if (!strcmp(mode, "exec")) {
		char count[32];

		regions("before-exec", n);
		snprintf(count, sizeof count, "%ld", n);
		execl("/proc/self/exe", argv[0], "single", count, (char *)NULL);
		perror("exec");
		return 1;
	} else if (!strcmp(mode, "execfail")) {
		char *args[] = {"nothing", NULL};
		int r;

		regions("before", n);
		errno = 0;
		r = execv("/nonexistent/nothing", args);
		printf("execv: %d errno %s\n", r, errno == ENOENT ? "ENOENT" : "other");
		regions("after", n);
	} else if (!strcmp(mode, "vfork")) {
		char count[32];
		pid_t pid;
		int st;

		regions("parent", n);
		snprintf(count, sizeof count, "%ld", n);
		pid = vfork();
		if (pid == 0) {
			execl("/proc/self/exe", argv[0], "single", count, (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		regions("parent-after", n);
	} else if (!strcmp(mode, "system")) {
		char cmd[4200], self[4096], count[32];
		ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
		char *args[] = {self, "single", count, NULL};
		pid_t pid;
		int st;

		if (len <= 0)
			return 1;
		self[len] = '\0';
		snprintf(count, sizeof count, "%ld", n);
		snprintf(cmd, sizeof cmd, "'%s' single %ld", self, n);
		if (system(cmd) != 0)
			return 1;
		if (posix_spawn(&pid, self, NULL, NULL, args, environ))
			return 1;
		waitpid(pid, &st, 0);
	} else if (!strcmp(mode, "spin")) {
		time_t end = time(NULL) + 20;
		const struct timespec pause = {0, 1000000};

		for (long k = 0;; k++) {
			HT_COUNTER("spin", k);
			if (k == 100000) {
				puts("ready");
				fflush(stdout);
			}
			if (k < 100000 || (k & 1023))
				continue;
			nanosleep(&pause, NULL); /* about a million events a second */
			if (time(NULL) > end)
				return 1;
		}
	} else if (!strcmp(mode, "api")) {
		static const struct ht_fn_arg_desc read_args[] = {
		    {"queue", HT_FA_HEX, HT_AR_QUEUE},
		    {"size", HT_FA_UINT, HT_AR_BYTES},
		    {"offset", HT_FA_INT, HT_AR_NONE},
		};
		static const struct ht_fn_desc fns[] = {
		    {"fakeInit", HT_ROLE_CREATE, 0, NULL},
		    {"fakeRead", HT_ROLE_TRANSFER, 3, read_args},
		};
		static const struct ht_fn_table tab = {"fake", HT_FN_BASE_XPTI + 0x800, 2, fns};

		if (ht_fn_table_register(&tab))
			return 1;
		ht_emit_api_begin(tab.base);
		ht_emit_api_end(tab.base, 0, NULL, 0);
		for (long k = 0; k < n; k++) {
			uint64_t args[3] = {0xdead0000 + (uint64_t)k, 4096, (uint64_t)-k};

			ht_emit_api_begin(tab.base + 1);
			ht_emit_api_end(tab.base + 1, (int32_t)-k, args, 3);
		}
	} else if (!strcmp(mode, "exitrun")) {
		pthread_t th;

		if (pthread_create(&th, NULL, late_worker, (void *)n))
			return 1;
		while (!__atomic_load_n(&late_done, __ATOMIC_ACQUIRE))
			usleep(1000);
	} else if (!strcmp(mode, "big")) {
		for (long k = 0; k < n; k++)
			HT_COUNTER("big", k);
	} else {
		fprintf(stderr, "annot_prog: unknown mode '%s'\n", mode);
		return 2;
	}
	return 0;
}
