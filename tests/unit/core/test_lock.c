/*
 * core/lock.h: mutual exclusion under contention (a plain counter shared by
 * 4 threads comes out exact, and no two threads are ever inside at once), a
 * holder that blocks for a while (the waiters sleep, then all get in, none
 * before it let go), and ht_lock_try on a held lock.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "../check.h"
#include "core/lock.h"

#define THREADS 4
#define ROUNDS	200000

static struct ht_lock lock;
static volatile uint64_t counter; /* updated without atomics: only the lock protects it */
static int inside;		  /* threads inside the section (atomic, for the check) */
static int overlaps;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		ht_lock_take(&lock);
		if (__atomic_add_fetch(&inside, 1, __ATOMIC_RELAXED) != 1)
			__atomic_add_fetch(&overlaps, 1, __ATOMIC_RELAXED);
		counter = counter + 1;
		__atomic_sub_fetch(&inside, 1, __ATOMIC_RELAXED);
		ht_lock_give(&lock);
	}
	return NULL;
}

static uint64_t released_at;

static void *late(void *arg)
{
	uint64_t *entered = arg;

	ht_lock_take(&lock);
	*entered = now_ns();
	ht_lock_give(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	uint64_t entered[THREADS];
	struct timespec hold = {0, 30000000};

	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, hammer, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CHECK_EQ(counter, (uint64_t)THREADS * ROUNDS);
	CHECK_EQ(overlaps, 0);
	CHECK_EQ(lock.held, 0);

	/* A holder that blocks: the waiters get in after it lets go, every one of them. */
	ht_lock_take(&lock);
	CHECK(!ht_lock_try(&lock));
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, late, &entered[i]);
	nanosleep(&hold, NULL);
	released_at = now_ns();
	ht_lock_give(&lock);
	for (int i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		CHECK(entered[i] >= released_at);
	}
	CHECK(ht_lock_try(&lock));
	ht_lock_give(&lock);
	CHECK_DONE();
}
