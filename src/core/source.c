/*
 * The registry of source hooks and the calls into them (see source.h).
 * Sources register from constructors, before the program's threads run;
 * the table only grows, and a reader sees a registered entry complete
 * (published by the count, release/acquire), so calling the hooks takes no
 * lock. Fork hooks run in the order of pthread_atfork: prepare in reverse
 * order of registration, parent and child in order.
 */
#include <errno.h>
#include <pthread.h>

#include "core/recorder.h"
#include "core/source.h"

static const struct ht_source_hooks *hooks[HT_SOURCES_MAX];
static unsigned int nhooks;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned int count(void)
{
	return __atomic_load_n(&nhooks, __ATOMIC_ACQUIRE);
}

HT_EXPORT_BOUND int ht_source_register(const struct ht_source_hooks *h)
{
	int r = 0;

	if (!h)
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	for (unsigned int i = 0; i < nhooks; i++)
		if (hooks[i] == h)
			goto out;
	if (nhooks == HT_SOURCES_MAX) {
		r = -ENOSPC;
		goto out;
	}
	hooks[nhooks] = h;
	__atomic_store_n(&nhooks, nhooks + 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&reg_lock);
	return r;
}

void ht_source_run_thread_open(struct ht_stream *s, int tid)
{
	for (unsigned int i = 0, n = count(); i < n; i++) {
		void *state;

		if (!hooks[i]->thread_open || !(state = hooks[i]->thread_open(s, tid)))
			continue;
		s->source[i] = state;
		s->sources |= 1u << i;
	}
}

void ht_source_run_thread_close(struct ht_stream *s)
{
	for (unsigned int i = 0, n = count(); i < n; i++) {
		if (!(s->sources & (1u << i)))
			continue;
		if (hooks[i]->thread_close)
			hooks[i]->thread_close(s, s->source[i]);
		s->source[i] = NULL;
		s->sources &= ~(1u << i);
	}
}

void ht_source_run_packet_switch(struct ht_stream *s, size_t need)
{
	for (unsigned int i = 0, n = count(); i < n; i++)
		if ((s->sources & (1u << i)) && hooks[i]->packet_switch)
			hooks[i]->packet_switch(s, s->source[i], need);
}

void ht_source_run_process_open(struct ht_stream *proc)
{
	for (unsigned int i = 0, n = count(); i < n; i++)
		if (hooks[i]->process_open)
			hooks[i]->process_open(proc);
}

void ht_source_run_fork_prepare(void)
{
	for (unsigned int i = count(); i-- > 0;)
		if (hooks[i]->fork_prepare)
			hooks[i]->fork_prepare();
}

void ht_source_run_fork_parent(void)
{
	for (unsigned int i = 0, n = count(); i < n; i++)
		if (hooks[i]->fork_parent)
			hooks[i]->fork_parent();
}

void ht_source_run_fork_child(void)
{
	for (unsigned int i = 0, n = count(); i < n; i++)
		if (hooks[i]->fork_child)
			hooks[i]->fork_child();
}

void ht_source_run_process_end(struct ht_stream *proc, int exec)
{
	for (unsigned int i = 0, n = count(); i < n; i++) {
		void (*fn)(struct ht_stream *) = exec ? hooks[i]->exec : hooks[i]->exit;

		if (fn)
			fn(proc);
	}
}
