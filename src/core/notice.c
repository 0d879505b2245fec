/*
 * A process that cannot write into the trace runs untraced (a program that
 * dropped its privileges cannot enter the 0700 trace directory of the user
 * who recorded it, for one). Its stderr warning is easily lost; `hetrace
 * record`, which can write into the trace, records it instead
 * (hetrace.index, `untraced=` lines).
 *
 * The channel is a datagram to an abstract unix socket named after the
 * trace directory: it needs no file and no permission (a process that can
 * no longer reach the directory can still send), and leaves nothing open in
 * the program. Anyone on the host may send one, so record takes the
 * sender's pid, uid and gid from the kernel (SCM_CREDENTIALS), keeps only
 * an errno value and a sanitised name from the message, and takes 100 at
 * most.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/notice.h"

#define NOTICE_MAGIC 0x48544e31u /* "HTN1" */

struct wire {
	uint32_t magic;
	int32_t err;
	char comm[16];
};

/* The abstract address of trace `dir`: "\0hetrace/<FNV-1a of the path>". */
static socklen_t address(const char *dir, struct sockaddr_un *a)
{
	uint64_t h = 0xcbf29ce484222325ull;
	int n;

	for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "hetrace/%016llx",
		     (unsigned long long)h);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

void ht_notice_untraced(const char *dir, int err)
{
	struct wire w = {.magic = NOTICE_MAGIC, .err = err};
	struct sockaddr_un a;
	socklen_t len = address(dir, &a);
	int saved = errno, fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd >= 0) {
		prctl(PR_GET_NAME, w.comm);
		w.comm[sizeof w.comm - 1] = '\0';
		sendto(fd, &w, sizeof w, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a, len);
		close(fd);
	}
	errno = saved;
}

int ht_notice_listen(const char *dir)
{
	struct sockaddr_un a;
	socklen_t len = address(dir, &a);
	int one = 1, fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) ||
	    bind(fd, (struct sockaddr *)&a, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

int ht_notice_take(int fd, struct ht_notice *n)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct wire w;
	struct iovec iov = {&w, sizeof w};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	for (;;) {
		ssize_t got;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof ctl.buf;
		got = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return 0;
		c = CMSG_FIRSTHDR(&mh);
		if (got != sizeof w || w.magic != NOTICE_MAGIC || !c ||
		    c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
			continue; /* not one of ours */
		{
			struct ucred cr;

			memcpy(&cr, CMSG_DATA(c), sizeof cr);
			n->pid = cr.pid;
			n->uid = cr.uid;
			n->gid = cr.gid;
		}
		n->err = w.err;
		for (size_t i = 0; i < sizeof n->comm; i++) {
			char ch = i < sizeof w.comm - 1 ? w.comm[i] : '\0';

			if (ch && !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				    (ch >= '0' && ch <= '9') || strchr("._+-", ch)))
				ch = '_';
			n->comm[i] = ch;
			if (!ch)
				break;
		}
		return 1;
	}
}
