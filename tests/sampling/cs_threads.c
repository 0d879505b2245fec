/*
 * Threads that record nothing themselves (tests/sampling): N workers named
 * worker-0.. spin ~30 ms each; worker-1 ends with pthread_exit.
 *   cs_threads N
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile double sink;

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *work(void *arg)
{
	long id = (long)arg;
	char name[16];
	double end = now_ms() + 30, x = 1;

	snprintf(name, sizeof name, "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	while (now_ms() < end)
		x = x * 1.0000001 + 1e-9;
	sink = x;
	if (id == 1)
		pthread_exit(NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	pthread_t t[64];

	if (n > 64)
		n = 64;
	for (long i = 0; i < n; i++) {
		pthread_create(&t[i], NULL, work, (void *)i);
		pthread_join(t[i], NULL); /* one after the other: their order is known */
	}
	printf("cs_threads: %d\n", n);
	return 0;
}
