/*
 * Example: a small producer/consumer pipeline annotated with the hetrace API.
 * Build it normally and run it under `hetrace record` to see its stages,
 * queue depth and thread names on the timeline; build it with
 * -DHETRACE_DISABLE and every annotation disappears from the binary.
 *
 *   hetrace record -o out -- ./pipeline 200
 *   hetrace info out
 */
#include <hetrace/hetrace.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define QUEUE_CAP 16

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	long items[QUEUE_CAP];
	int head, count, done;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0};

static long work(long x)
{
	HT_SCOPED_REGION("work");
	long acc = x;

	for (int i = 0; i < 20000; i++)
		acc = (acc * 1103515245 + 12345) & 0x7fffffff;
	return acc;
}

static void *consumer(void *arg)
{
	long sum = 0;

	(void)arg;
	HT_THREAD_NAME("consumer");
	for (;;) {
		long item;

		pthread_mutex_lock(&q.lock);
		while (!q.count && !q.done)
			pthread_cond_wait(&q.cond, &q.lock);
		if (!q.count && q.done) {
			pthread_mutex_unlock(&q.lock);
			break;
		}
		item = q.items[q.head];
		q.head = (q.head + 1) % QUEUE_CAP;
		q.count--;
		HT_COUNTER("queue_depth", q.count);
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
		sum += work(item);
	}
	printf("consumer checksum %ld\n", sum % 1000003);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	pthread_t th;

	HT_THREAD_NAME("producer");
	pthread_create(&th, NULL, consumer, NULL);
	HT_REGION_BEGIN("produce");
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&q.lock);
		while (q.count == QUEUE_CAP)
			pthread_cond_wait(&q.cond, &q.lock);
		q.items[(q.head + q.count) % QUEUE_CAP] = i;
		q.count++;
		HT_COUNTER("queue_depth", q.count);
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
		if (i % 50 == 0)
			HT_INSTANT_ARGS("progress", ht_arg_int("item", i), ht_arg_int("of", n));
	}
	HT_REGION_END("produce");
	pthread_mutex_lock(&q.lock);
	q.done = 1;
	pthread_cond_broadcast(&q.cond);
	pthread_mutex_unlock(&q.lock);
	pthread_join(th, NULL);
	return 0;
}
