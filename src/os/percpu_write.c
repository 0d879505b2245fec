/*
 * The per-CPU method's intervals into the trace (see percpu.h), once the
 * command has exited and `record` has written every stream: each process
 * directory gets a stream "os-cpu" with the cpu_state intervals and OS lost
 * counts that are its own. (The process noted the method in its process
 * stream itself, os_status, told by HETRACE_OS=cpu.)
 *
 * Which: the threads that have a stream of their own in the directory (that
 * recorded events), as the per-thread method covers; a runtime's helper
 * threads that record nothing are left out, as they are of every view.
 *
 * Whose: a pid's directories (one per image: exec, a failed exec, a reused
 * pid) are ordered by their start anchors; one ends where its exit or exec
 * anchor says, else where the next begins, the last one never (after an
 * exit the process still switches a few times on its way out) unless it
 * ended in exec: what comes after is an image that records nothing. An
 * interval belongs to the directory whose span holds its beginning. Lost
 * records are counted in every directory whose span holds the loss.
 *
 * The stream's events are stamped with the end of what they describe,
 * never earlier than the previous one (the spool is in that order but for
 * a record that came late), in CLOCK_MONOTONIC ns packets that the
 * finalizer leaves alone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/io.h"
#include "format/format.h"
#include "format/stream_file.h"
#include "format/packet.h"
#include "os/percpu.h"

#define OS_STREAM   "os-cpu"
#define OS_INSTANCE (1ull << 32) /* above any instance id the recorder gives a stream */
#define SPOOL_READ  4096	 /* entries per read */

/* A process directory and its os stream. */
struct pdir {
	char name[256];
	int fd;
	int32_t pid;
	uint8_t uuid[16];
	char procname[HT_PROCNAME_LEN];
	uint64_t start, end; /* anchors (ns); end 0: none */
	int exec;	     /* the image ended in exec */
	uint64_t lo, hi;     /* the beginnings it takes: [lo, hi) */
	int32_t *tids;	     /* threads with a stream, sorted */
	size_t ntids, tcap;
	struct ht_sfile s; /* the stream, opened at its first event */
};

struct writer {
	struct pdir *dirs;
	size_t n, cap;
	int err;
	char *msg;
	size_t cap_msg;
};

static int fail(struct writer *w, const struct pdir *d, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		snprintf(w->msg, w->cap_msg, "cannot write CPU states to '%s/%s': %s", d->name,
			 OS_STREAM, what ? what : strerror(err));
	}
	return -err;
}

/* ---- the process directories ---- */

/* Reads dir's process stream: uuid, command name, start and end anchors. Return: 0 or -errno. */
static int read_process(struct pdir *d)
{
	int fd = openat(d->fd, "process", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	uint64_t off = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (ht_grow((void **)&buf, &cap, 1, len + 65536)) {
			close(fd);
			free(buf);
			return -ENOMEM;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	while (off < len) {
		struct ht_packet pk;
		struct ht_event_iter it;
		struct ht_event ev;

		if (ht_packet_decode(&pk, buf + off, len - off, off, NULL))
			break; /* torn or bad: what came before is what there is */
		if (!off) {
			memcpy(d->uuid, pk.uuid, 16);
			memcpy(d->procname, pk.procname, HT_PROCNAME_LEN);
		}
		ht_event_iter_init(&it, &pk, buf + off);
		while (ht_event_iter_next(&it, &ev, NULL) > 0) {
			struct ht_ev_clock_anchor a;

			if (ev.sc != HT_SC_THREAD || ev.id != HT_EV_CLOCK_ANCHOR ||
			    ht_ev_clock_anchor_get(&a, ev.payload, ev.size) < 0)
				continue;
			if (a.kind == HT_ANCHOR_START && !d->start)
				d->start = a.ns;
			else if (a.kind == HT_ANCHOR_EXIT || a.kind == HT_ANCHOR_EXEC)
				d->end = a.ns, d->exec = a.kind == HT_ANCHOR_EXEC;
		}
		off += pk.size;
	}
	free(buf);
	return d->start ? 0 : -ENODATA;
}

static int by_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

/* Lists the threads that have a stream in d ("thread-<tid>", maybe with a ".N"). */
static int read_threads(struct pdir *d)
{
	DIR *dir = ht_dir_dup(d->fd);
	struct dirent *de;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strncmp(de->d_name, "thread-", 7) ? 0 : strtol(de->d_name + 7, &end, 10);

		if (tid <= 0 || (*end && *end != '.'))
			continue;
		if (ht_grow((void **)&d->tids, &d->tcap, sizeof *d->tids, d->ntids + 1)) {
			closedir(dir);
			return -ENOMEM;
		}
		d->tids[d->ntids++] = (int32_t)tid;
	}
	closedir(dir);
	qsort(d->tids, d->ntids, sizeof *d->tids, by_tid);
	return 0;
}

/* Collects the process directories of the trace (those with a start anchor). */
static int scan(struct writer *w, int dfd)
{
	DIR *dir = ht_dir_dup(dfd);
	struct dirent *de;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		struct pdir d = {.s.out = -1};
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (de->d_name[0] == '.' || *end != '-' || pid <= 0 ||
		    strlen(de->d_name) >= sizeof d.name)
			continue;
		d.fd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (d.fd < 0)
			continue;
		strcpy(d.name, de->d_name);
		d.pid = (int32_t)pid;
		if (faccessat(d.fd, "metadata", F_OK, AT_SYMLINK_NOFOLLOW) || read_process(&d) ||
		    read_threads(&d) || ht_grow((void **)&w->dirs, &w->cap, sizeof d, w->n + 1)) {
			close(d.fd);
			free(d.tids);
			continue;
		}
		w->dirs[w->n++] = d;
	}
	closedir(dir);
	return 0;
}

static int by_pid_start(const void *a, const void *b)
{
	const struct pdir *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sorts the directories by pid and start and gives each its span. */
static void spans(struct writer *w)
{
	qsort(w->dirs, w->n, sizeof *w->dirs, by_pid_start);
	for (size_t i = 0; i < w->n; i++) {
		struct pdir *d = &w->dirs[i];
		int first = !i || w->dirs[i - 1].pid != d->pid;
		int last = i + 1 == w->n || w->dirs[i + 1].pid != d->pid;

		d->lo = first ? 0 : w->dirs[i - 1].hi;
		if (last)
			d->hi = d->exec ? d->end : UINT64_MAX;
		else
			d->hi = d->end ? d->end : w->dirs[i + 1].start;
		if (d->hi < d->lo)
			d->hi = d->lo; /* anchors out of order: takes nothing */
	}
}

/* Return: pid's directory whose span holds t, or NULL. */
static struct pdir *find(struct writer *w, int32_t pid, uint64_t t)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) { /* the first directory of pid */
		size_t mid = (lo + hi) / 2;

		if (w->dirs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n && w->dirs[lo].pid == pid; lo++)
		if (t >= w->dirs[lo].lo && t < w->dirs[lo].hi)
			return &w->dirs[lo];
	return NULL;
}

/* ---- the os stream of a directory ---- */

/* Writes an event of class `cls` (events.def) from *ev at time t into d's stream. */
#define OS_WRITE(w, d, cls, ev, t)                                                                 \
	do {                                                                                       \
		const struct ht_sfile_who who_ = {(d)->uuid, OS_INSTANCE, (d)->pid, 0,             \
						  (d)->procname};                                  \
		int err_ = 0;                                                                      \
		HT_SFILE_WRITE(&(d)->s, &who_, cls, ev, t, &err_);                                 \
		if (err_)                                                                          \
			fail((w), (d), -err_, NULL);                                               \
	} while (0)

/* Opens d's stream (at its first event). Return: 0 or -errno. */
static int stream_open(struct writer *w, struct pdir *d)
{
	d->s.out =
	    openat(d->fd, OS_STREAM, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (d->s.out < 0)
		return fail(w, d, errno, NULL);
	return 0;
}

static void put_state(struct writer *w, const struct ht_os_spool_ent *e)
{
	struct pdir *d = find(w, e->pid, e->begin);
	const struct ht_ev_cpu_state ev = {.tid = e->tid,
					   .state = e->state,
					   .begin_ns = e->begin,
					   .end_ns = e->end,
					   .cpu = e->cpu};

	if (e->state >= HT_CPU_STATE_COUNT || !d ||
	    !bsearch(&e->tid, d->tids, d->ntids, sizeof *d->tids, by_tid) ||
	    (d->s.out < 0 && stream_open(w, d)))
		return;
	OS_WRITE(w, d, cpu_state, &ev, e->end);
}

static void put_lost(struct writer *w, const struct ht_os_spool_ent *e)
{
	const struct ht_ev_lost ev = {.kind = HT_LOST_OS_RECORD, .count = e->begin};

	for (size_t i = 0; i < w->n; i++) {
		struct pdir *d = &w->dirs[i];

		if (e->end < d->lo || e->end >= d->hi || (d->s.out < 0 && stream_open(w, d)))
			continue;
		OS_WRITE(w, d, lost, &ev, e->end);
	}
}

int ht_os_percpu_write_trace(int spool_fd, int dfd, char *msg, size_t cap)
{
	struct writer w = {.msg = msg, .cap_msg = cap};
	struct ht_os_spool_ent *buf = malloc(SPOOL_READ * sizeof *buf);
	uint64_t off = 0;
	int r = buf ? scan(&w, dfd) : -ENOMEM;

	if (r) {
		snprintf(msg, cap, "cannot read the trace directory for CPU states: %s",
			 strerror(-r));
		goto out;
	}
	spans(&w);
	for (;;) { /* the spool, in order */
		ssize_t n = pread(spool_fd, buf, SPOOL_READ * sizeof *buf, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)sizeof *buf)
			break;
		off += (uint64_t)n - (uint64_t)n % sizeof *buf;
		for (size_t i = 0; i < (size_t)n / sizeof *buf && !w.err; i++) {
			if (buf[i].state == HT_OS_SPOOL_LOST)
				put_lost(&w, &buf[i]);
			else
				put_state(&w, &buf[i]);
		}
	}
	for (size_t i = 0; i < w.n && !w.err; i++)
		if (w.dirs[i].s.out >= 0 && (r = ht_sfile_packet_close(&w.dirs[i].s)))
			fail(&w, &w.dirs[i], -r, NULL);
	r = -w.err;
out:
	for (size_t i = 0; i < w.n; i++) {
		ht_sfile_finish(&w.dirs[i].s); /* its last packet is out unless it failed */
		close(w.dirs[i].fd);
		free(w.dirs[i].tids);
	}
	free(w.dirs);
	free(buf);
	return r;
}
