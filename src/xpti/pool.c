/*
 * The dispatcher's memory pool: every allocation made on a slow path (table chunks, indexes,
 * string arenas, callback vectors) comes from here, zeroed, and is kept until xptiReset. Never
 * freeing during normal operation is what makes the lock-free readers safe: a pointer a reader
 * loaded stays valid for the life of the framework. Memory stays bounded because tables only
 * grow with distinct strings, payloads and callback registrations.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "xpti_internal.h"

struct ht_xpti_block {
	struct ht_xpti_block *next;
	alignas(max_align_t) unsigned char data[]; /* calloc alignment */
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ht_xpti_block *pool_head;

void *ht_xpti_pool_alloc(size_t size)
{
	struct ht_xpti_block *b = calloc(1, sizeof(*b) + size);

	if (!b)
		return NULL;
	pthread_mutex_lock(&pool_lock);
	b->next = pool_head;
	pool_head = b;
	pthread_mutex_unlock(&pool_lock);
	return b->data;
}

void ht_xpti_pool_release_all(void)
{
	struct ht_xpti_block *b, *next;

	pthread_mutex_lock(&pool_lock);
	b = pool_head;
	pool_head = NULL;
	pthread_mutex_unlock(&pool_lock);
	for (; b; b = next) {
		next = b->next;
		free(b);
	}
}
