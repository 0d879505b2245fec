/*
 * The growable array of the project: one function for every "append, and
 * double the capacity when full" (exporters, the ring consumer, the CUDA
 * translator, XPTI registrations).
 */
#ifndef HT_GROW_H
#define HT_GROW_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Makes *v (an array of *cap elements of `elem` bytes) hold at least `need`
 * elements: the capacity doubles from 16, new elements are zeroed.
 * Return: 0, or -ENOMEM with *v and *cap unchanged.
 */
static inline int ht_grow(void **v, size_t *cap, size_t elem, size_t need)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*v, c * elem);
	if (!n)
		return -ENOMEM;
	memset((char *)n + *cap * elem, 0, (c - *cap) * elem);
	*v = n;
	*cap = c;
	return 0;
}

#endif
