/*
 * Notices from traced processes to `hetrace record` about what they could
 * not put into the trace themselves (notice.c).
 */
#ifndef HT_NOTICE_H
#define HT_NOTICE_H

#include <sys/types.h>

struct ht_notice {
	pid_t pid; /* the sender's, as the kernel says (never the message) */
	uid_t uid;
	gid_t gid;
	int err;       /* why it could not write into the trace (an errno value) */
	char comm[16]; /* its name, reduced to [A-Za-z0-9._+-] */
};

/*
 * In a traced process that cannot write into trace directory `dir` (and so
 * runs untraced): tells the `hetrace record` writing that trace, if any.
 * errno is kept.
 */
void ht_notice_untraced(const char *dir, int err);

/* For record: Return: a socket receiving the notices of trace `dir` (absolute), or -1. */
int ht_notice_listen(const char *dir);

/* Return: 1 with *n filled, 0 when no notice is waiting. */
int ht_notice_take(int fd, struct ht_notice *n);

#endif
