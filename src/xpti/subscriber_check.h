/*
 * The dispatcher's check of a subscriber library before it is used (subscriber_check.c).
 */
#ifndef HT_XPTI_SUBSCRIBER_CHECK_H
#define HT_XPTI_SUBSCRIBER_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Decide whether the subscriber at `path` (already loaded; `has_entry_points` when dlsym found
 * xptiTraceInit and xptiTraceFinish) can be used.
 * Return: 0 to use it; -1 to skip it, with the reason, one line, in `why`.
 */
int ht_xpti_subscriber_check(const char *path, bool has_entry_points, char *why, size_t n);

#endif /* HT_XPTI_SUBSCRIBER_CHECK_H */
