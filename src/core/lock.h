/*
 * A lock for the short critical sections on event paths: a shared stream's
 * write (device commands), an OpenCL queue's pending list. Taking it is one
 * compare-and-swap and releasing it one plain store, where a pthread mutex
 * pays an atomic on both and ~55 instructions a pair. An OpenCL kernel +
 * clFinish takes 4 pairs; with pthread mutexes hetrace's own share of that
 * cycle was ~100 ns here, with this lock ~75 (in-process A/B, the method of
 * bench/opencl.sh's inproc line).
 *
 * A waiter spins briefly, then yields, then sleeps 50 us at a time, so a
 * holder that blocks (a drain, a full ring in block mode) costs the others
 * little CPU. Not fair, not recursive. All zeroes is unlocked.
 */
#ifndef HT_LOCK_H
#define HT_LOCK_H

#include <sched.h>
#include <time.h>

struct ht_lock {
	int held;
};

static inline int ht_lock_try(struct ht_lock *l)
{
	int free_ = 0;

	return __atomic_compare_exchange_n(&l->held, &free_, 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static __attribute__((noinline, cold, unused)) void ht_lock_wait(struct ht_lock *l)
{
	for (unsigned int n = 0;; n++) {
		if (!__atomic_load_n(&l->held, __ATOMIC_RELAXED) && ht_lock_try(l))
			return;
		if (n < 64) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
		} else if (n < 1024) {
			sched_yield();
		} else {
			struct timespec nap = {0, 50000};

			nanosleep(&nap, NULL);
		}
	}
}

static inline void ht_lock_take(struct ht_lock *l)
{
	if (__builtin_expect(!ht_lock_try(l), 0))
		ht_lock_wait(l);
}

static inline void ht_lock_give(struct ht_lock *l)
{
	__atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

#endif
