/*
 * Test program for OS scheduling records: induces known blocked and
 * preempted time, and the thread/process shapes the OS source must follow.
 *   os_prog block MS      thread "blocker": region "wait" around a read() on a
 *                         pipe that another thread writes MS ms later
 *   os_prog preempt MS    threads "victim" and "hog" pinned to one CPU, both
 *                         busy; the victim's region "contended" lasts 2*MS ms
 *                         of wall time, about MS of it preempted
 *   os_prog threads N     N short-lived threads "short-K", one instant each
 *   os_prog fork MS       a child blocks MS ms (as "block"), then execs
 *                         "block MS"; the parent waits
 *   os_prog pingpong N A  threads "ping" and "pong" exchange a byte N times
 *                         over two pipes; A=1 adds a region per round trip;
 *                         prints "pingpong wall_ns=W cpu_ns=C": the loop's wall
 *                         time and the process's CPU time in it (for bench/os.sh)
 */
#include <hetrace/hetrace.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long ms_arg;
static int fds[2], back[2];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void *writer(void *arg)
{
	(void)arg;
	sleep_ms(ms_arg);
	if (write(fds[1], "x", 1) != 1)
		perror("write");
	return NULL;
}

static int block(long ms)
{
	pthread_t t;
	char c;

	ms_arg = ms;
	if (pipe(fds))
		return 1;
	HT_THREAD_NAME("blocker");
	HT_REGION_BEGIN("wait");
	pthread_create(&t, NULL, writer, NULL);
	if (read(fds[0], &c, 1) != 1)
		perror("read");
	HT_REGION_END("wait");
	pthread_join(t, NULL);
	return 0;
}

static int cpu_pick;
static volatile int hog_ready, victim_done;

static int pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu_pick, &set);
	return sched_setaffinity(0, sizeof set, &set);
}

static void *hog(void *arg)
{
	(void)arg;
	if (pin())
		perror("sched_setaffinity");
	HT_THREAD_NAME("hog");
	hog_ready = 1;
	while (!victim_done)
		;
	return NULL;
}

static int preempt(long ms)
{
	pthread_t t;
	uint64_t end;

	cpu_pick = sched_getcpu() < 0 ? 0 : sched_getcpu();
	if (pin()) {
		perror("sched_setaffinity");
		return 1;
	}
	HT_THREAD_NAME("victim");
	pthread_create(&t, NULL, hog, NULL);
	while (!hog_ready)
		sched_yield(); /* let the hog start on our CPU */
	HT_REGION_BEGIN("contended");
	end = now_ns() + (uint64_t)ms * 2 * 1000000;
	while (now_ns() < end)
		;
	HT_REGION_END("contended");
	victim_done = 1;
	pthread_join(t, NULL);
	return 0;
}

static void *short_thread(void *arg)
{
	char name[32];

	snprintf(name, sizeof name, "short-%ld", (long)arg);
	ht_thread_name(name);
	HT_INSTANT("hello");
	return NULL;
}

static int threads(long n)
{
	HT_THREAD_NAME("spawner");
	for (long i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, (void *)i))
			return 1;
		if (i % 2)
			pthread_join(t, NULL); /* half joined at once, half still running below */
		else
			pthread_detach(t);
	}
	sleep_ms(50);
	return 0;
}

static int do_fork(const char *self, long ms)
{
	char arg[32];
	pid_t pid;
	int st;

	HT_THREAD_NAME("parent");
	HT_INSTANT("forking");
	pid = fork();
	if (pid == 0) {
		block(ms);
		snprintf(arg, sizeof arg, "%ld", ms);
		execl(self, self, "block", arg, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static long rounds;
static int annotate;

static void *pong(void *arg)
{
	char c;

	(void)arg;
	HT_THREAD_NAME("pong");
	for (long i = 0; i < rounds; i++) {
		if (read(fds[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

/* CPU time of the whole process (both threads), user and system, in ns. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

static int pingpong(long n, int a)
{
	pthread_t t;
	char c = 'p';
	uint64_t t0, c0;

	rounds = n;
	annotate = a;
	if (pipe(fds) || pipe(back))
		return 1;
	HT_THREAD_NAME("ping");
	t0 = now_ns();
	c0 = cpu_ns();
	pthread_create(&t, NULL, pong, NULL);
	for (long i = 0; i < n; i++) {
		if (annotate)
			HT_REGION_BEGIN("round");
		if (write(fds[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			return 1;
		if (annotate)
			HT_REGION_END("round");
	}
	pthread_join(t, NULL);
	printf("pingpong wall_ns=%llu cpu_ns=%llu\n", (unsigned long long)(now_ns() - t0),
	       (unsigned long long)(cpu_ns() - c0));
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "block"))
		return block(n);
	if (!strcmp(argv[1], "preempt"))
		return preempt(n);
	if (!strcmp(argv[1], "threads"))
		return threads(n);
	if (!strcmp(argv[1], "fork"))
		return do_fork(argv[0], n);
	if (!strcmp(argv[1], "pingpong"))
		return pingpong(n, argc > 3 && atoi(argv[3]));
usage:
	fprintf(stderr, "usage: os_prog block|preempt|threads|fork|pingpong N [A]\n");
	return 2;
}
