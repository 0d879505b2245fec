/*
 * Many-thread stress test, built with ThreadSanitizer: 8 threads concurrently intern strings,
 * make events (new instances) from the same payloads, look them up, notify, and release every
 * other instance (so slots are recycled through the free list while others are taken), while
 * one more thread keeps registering and unregistering a second callback. Checks that every
 * thread saw the same ids for the same strings and trace points, that the instance numbers of
 * a trace point are exactly 1..N with no duplicate, that a released instance never resolves
 * again, and that the always-registered callback saw every notification once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xpti/xpti_trace_framework.h>

#include "test_util.h"

#define NTHREADS 8
#define NSTR	 200
#define NTP	 64
#define ROUNDS	 40

static uint8_t sid;
static _Atomic int stop_churn;
static _Atomic uint64_t counted;
static _Atomic uint64_t churn_calls;
static xpti_string_id_t str_ids[NTHREADS][NSTR];
static uint64_t tp_keys[NTHREADS][NTP]; /* uid.p2 of the payload: the trace point */
/* seen[tp][instance] for shared trace points */
static _Atomic unsigned char seen[NTP][NTHREADS * ROUNDS + 1];
static _Atomic int dup_instances;

static void count_cb(uint16_t tt, xpti_trace_event_data_t *parent, xpti_trace_event_data_t *ev,
		     uint64_t instance, const void *ud)
{
	(void)tt, (void)parent, (void)ev, (void)instance, (void)ud;
	atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed);
}

static void churn_cb(uint16_t tt, xpti_trace_event_data_t *parent, xpti_trace_event_data_t *ev,
		     uint64_t instance, const void *ud)
{
	(void)tt, (void)parent, (void)ev, (void)instance, (void)ud;
	atomic_fetch_add_explicit(&churn_calls, 1, memory_order_relaxed);
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	char name[64], *interned;
	xpti_payload_t p;
	uint64_t inst;

	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < NSTR; i++) {
			snprintf(name, sizeof(name), "shared-string-%d", (i * 7 + t) % NSTR);
			str_ids[t][(i * 7 + t) % NSTR] = xptiRegisterString(name, &interned);
			if (!interned || strcmp(interned, name))
				atomic_fetch_add(&dup_instances, 1000);
		}
		for (int i = 0; i < NTP; i++) {
			int k = (i + t * 5) % NTP;
			xpti_trace_event_data_t *ev;

			snprintf(name, sizeof(name), "stress_fn_%d", k);
			xpti_payload_init_source(&p, name, "stress.c", (uint32_t)k, 1, NULL);
			ev = xptiMakeEvent(name, &p, XPTI_EVENT_ALGORITHM, XPTI_ACTIVITY_ACTIVE,
					   &inst);
			if (!ev || inst == 0 || inst > NTHREADS * ROUNDS) {
				atomic_fetch_add(&dup_instances, 1);
				continue;
			}
			if (atomic_exchange(&seen[k][inst], 1))
				atomic_fetch_add(&dup_instances, 1);
			tp_keys[t][k] = xptiQueryPayload(ev)->uid.p2;
			if (xptiFindEvent(ev->unique_id) != ev)
				atomic_fetch_add(&dup_instances, 1);
			xptiNotifySubscribers(sid, XPTI_TRACE_TASK_BEGIN, NULL, ev, inst, NULL);
			xptiNotifySubscribers(sid, XPTI_TRACE_TASK_END, NULL, ev, inst, NULL);
			xptiLookupString(str_ids[t][k % NSTR]);
			if (i % 2) {
				uint64_t uid = ev->unique_id;

				xptiReleaseEvent(ev);
				if (xptiFindEvent(uid) != NULL)
					atomic_fetch_add(&dup_instances, 1);
			}
		}
	}
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_churn)) {
		xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, churn_cb);
		xptiUnregisterCallback(sid, XPTI_TRACE_TASK_BEGIN, churn_cb);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS], ch;
	int same_str = 0, same_tp = 0, complete = 0;

	xptiForceSetTraceEnabled(true);
	sid = xptiRegisterStream("stress");
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, count_cb), XPTI_RESULT_SUCCESS);
	CHECK_EQ(xptiRegisterCallback(sid, XPTI_TRACE_TASK_END, count_cb), XPTI_RESULT_SUCCESS);
	pthread_create(&ch, NULL, churn, NULL);
	for (int t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	atomic_store(&stop_churn, 1);
	pthread_join(ch, NULL);

	for (int t = 1; t < NTHREADS; t++) {
		same_str += memcmp(str_ids[t], str_ids[0], sizeof(str_ids[0])) == 0;
		same_tp += memcmp(tp_keys[t], tp_keys[0], sizeof(tp_keys[0])) == 0;
	}
	CHECK_EQ(same_str, NTHREADS - 1);
	CHECK_EQ(same_tp, NTHREADS - 1);
	CHECK_EQ(atomic_load(&dup_instances), 0);
	for (int k = 0; k < NTP; k++) {
		int all = 1;

		for (int i = 1; i <= NTHREADS * ROUNDS; i++)
			all &= atomic_load(&seen[k][i]);
		complete += all;
	}
	CHECK_EQ(complete, NTP);
	CHECK_EQ(atomic_load(&counted), 2ULL * NTHREADS * ROUNDS * NTP);
	/* NSTR shared strings + NTP function names + the file name, all distinct */
	for (int i = 0; i < NSTR; i++) {
		CHECK(str_ids[0][i] >= 1 && str_ids[0][i] <= NSTR + NTP + 1);
		for (int j = 0; j < i; j++)
			if (str_ids[0][j] == str_ids[0][i])
				CHECK(!"two strings share an id");
	}
	xptiFrameworkFinalize();
	printf("churn callback ran %llu times\n", (unsigned long long)atomic_load(&churn_calls));
	return ht_test_result("xpti_stress");
}
