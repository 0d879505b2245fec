/*
 * Ring consumer (see consumer.h): discovers ring files in the process
 * directories when the doorbell says a ring appeared (and every 200 ms in
 * case a wake-up was missed), drains them when woken or every 10 ms, and
 * removes a ring once its producer closed it and everything is written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/io.h"
#include "ring/consumer.h"
#include "common/grow.h"
#include "ring/ring.h"

struct ring_ent {
	struct ht_ring_file rf;
	int dirfd; /* the process directory */
	char name[256];
	char path[512]; /* process dir / stream, for messages */
	int dead;	/* final drain: its process died */
};

struct ht_consumer {
	int dfd;
	const char *dir;
	struct ht_doorbell *bell;
	uint32_t rings_seen;
	uint64_t last_scan_ns;
	uint64_t file_limit;
	int warned;
	unsigned int salvaged; /* packets in progress of processes that died */
	struct ring_ent *ents;
	size_t n, cap;
	int (*tick)(void *);
	void *tick_arg;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct ht_consumer *ht_consumer_create(int dfd, const char *dir)
{
	struct ht_consumer *c = calloc(1, sizeof *c);
	struct rlimit rl;
	int fd, err;

	if (!c)
		return NULL;
	c->dfd = dfd;
	c->dir = dir;
	c->file_limit = UINT64_MAX;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		c->file_limit = rl.rlim_cur;
	fd =
	    openat(dfd, HT_DOORBELL_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto err;
	if (posix_fallocate(fd, 0, 4096) == 0)
		c->bell = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (!c->bell || c->bell == MAP_FAILED) {
		unlinkat(dfd, HT_DOORBELL_FILE, 0);
		errno = err ? err : ENOSPC;
		goto err;
	}
	return c;
err:
	free(c);
	return NULL;
}

static int known(const struct ht_consumer *c, const char *proc, const char *name)
{
	size_t pl = strlen(proc);

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->ents[i].name, name) && !strncmp(c->ents[i].path, proc, pl) &&
		    c->ents[i].path[pl] == '/')
			return 1;
	return 0;
}

static void add(struct ht_consumer *c, int pfd, const char *proc, const char *name)
{
	struct ring_ent *e;

	if (known(c, proc, name))
		return;
	if (ht_grow((void **)&c->ents, &c->cap, sizeof *c->ents, c->n + 1))
		return;
	e = &c->ents[c->n];
	if (ht_ring_file_open(pfd, name, &e->rf))
		return; /* not set up yet (found again by a later scan) */
	e->dirfd = dup(pfd);
	if (e->dirfd < 0) {
		ht_ring_file_close(&e->rf, pfd, name, 0);
		return;
	}
	snprintf(e->name, sizeof e->name, "%s", name);
	snprintf(e->path, sizeof e->path, "%s/%.*s", proc, (int)(strlen(name) - 6), name + 1);
	c->n++;
}

/* Finds ring files in every process directory. */
static void scan(struct ht_consumer *c)
{
	DIR *d = ht_dir_dup(c->dfd);
	struct dirent *de;

	c->last_scan_ns = now_ns();
	if (!d)
		return;
	while ((de = readdir(d))) {
		DIR *pd;
		struct dirent *pe;

		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue; /* DT_UNKNOWN: O_DIRECTORY below sorts it out */
		pd = ht_dir_of(
		    openat(c->dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
		if (!pd)
			continue;
		while ((pe = readdir(pd))) {
			size_t len = strlen(pe->d_name), sl = strlen(HT_RING_SUFFIX);

			if (pe->d_name[0] == '.' && len > sl + 1 &&
			    !strcmp(pe->d_name + len - sl, HT_RING_SUFFIX))
				add(c, dirfd(pd), de->d_name, pe->d_name);
		}
		closedir(pd);
	}
	closedir(d);
}

/* Return: nonzero when e's process died: its process stream is still open. */
static int died(const struct ht_consumer *c, const struct ring_ent *e)
{
	size_t pl = (size_t)(strchr(e->path, '/') - e->path);

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->ents[i].name, "."
					     "process" HT_RING_SUFFIX) &&
		    !strncmp(c->ents[i].path, e->path, pl + 1) &&
		    !__atomic_load_n(&c->ents[i].rf.h->closed, __ATOMIC_ACQUIRE))
			return 1;
	return 0;
}

/* Takes a ring's drain lock; final: waits up to 100 ms, then drains anyway. */
static int lock(struct ht_ring_header *h, int final)
{
	struct timespec nap = {0, 1000000};

	for (int i = 0; i < 100; i++) {
		if (ht_ring_trylock(h))
			return 1;
		if (!final)
			return 0;
		nanosleep(&nap, NULL);
	}
	return 1; /* a holder that died keeps it forever */
}

/* Drains every ring; removes those whose producer is done. */
static void drain(struct ht_consumer *c, int final)
{
	for (size_t i = 0; final && i < c->n; i++)
		c->ents[i].dead = died(c, &c->ents[i]);
	for (size_t i = 0; i < c->n;) {
		struct ring_ent *e = &c->ents[i];
		struct ht_ring_header *h = e->rf.h;
		struct ht_ring_drain_stats st = {0};
		int closed = __atomic_load_n(&h->closed, __ATOMIC_ACQUIRE);
		int done;

		/* One packet per hold of the lock: a producer that finds its ring
		 * full waits at most for one packet write. */
		for (;;) {
			uint64_t before = h->consumed;

			if (!lock(h, final))
				break;
			ht_ring_drain(h, e->rf.fd, c->file_limit, 0, 1, &st);
			ht_ring_unlock(h);
			if (h->consumed == before)
				break;
		}
		done = final ||
		       (closed && h->consumed == __atomic_load_n(&h->committed, __ATOMIC_ACQUIRE));
		if (done) {
			lock(h, 1);
			ht_ring_drain(h, e->rf.fd, c->file_limit, 1, UINT64_MAX, &st);
			ht_ring_unlock(h);
		}
		if (final && e->dead)
			c->salvaged += (unsigned int)st.salvaged;
		if (h->error && !c->warned) {
			c->warned = 1;
			fprintf(
			    stderr,
			    "hetrace: cannot write trace file '%s/%s': %s; events are dropped and "
			    "counted, the program runs on\n",
			    c->dir, e->path, strerror(h->error));
		}
		if (!done) {
			i++;
			continue;
		}
		/*
		 * A stream with no packet written has nowhere to count its losses:
		 * its ring stays for finalize's salvage, which carries them by the
		 * process stream once every other stream of the process is complete.
		 */
		ht_ring_file_close(&e->rf, e->dirfd, e->name,
				   h->written || !(h->discarded + h->lost_events));
		close(e->dirfd);
		c->ents[i] = c->ents[--c->n];
	}
}

static void poll_once(struct ht_consumer *c, int final)
{
	uint32_t rings = __atomic_load_n(&c->bell->rings, __ATOMIC_ACQUIRE);

	if (final || rings != c->rings_seen || now_ns() - c->last_scan_ns > 200000000u) {
		c->rings_seen = rings;
		scan(c);
	}
	drain(c, final);
}

/* One round: drain, then sleep until a producer rings or 10 ms pass. */
static void round_once(struct ht_consumer *c, uint32_t seen)
{
	struct timespec tick = {0, 10000000};

	poll_once(c, 0);
	/*
	 * Sleep until a producer rings (quarter-full ring, new ring, close)
	 * or the tick. `sleeping` before the wait compares `ring` with
	 * `seen`: a producer that bumped it since either saw the flag or
	 * makes the wait return at once.
	 */
	__atomic_store_n(&c->bell->sleeping, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &c->bell->ring, FUTEX_WAIT, seen, &tick, NULL, 0);
	__atomic_store_n(&c->bell->sleeping, 0, __ATOMIC_RELAXED);
}

void ht_consumer_set_tick(struct ht_consumer *c, int (*tick)(void *arg), void *arg)
{
	c->tick = tick;
	c->tick_arg = arg;
}

int ht_consumer_wait(struct ht_consumer *c, pid_t pid)
{
	int status = 0;

	for (;;) {
		uint32_t seen = __atomic_load_n(&c->bell->ring, __ATOMIC_ACQUIRE);
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return status;
		if (c->tick)
			c->tick(c->tick_arg);
		round_once(c, seen);
	}
}

void ht_consumer_run(struct ht_consumer *c, int (*tick)(void *arg), void *arg)
{
	for (;;) {
		uint32_t seen = __atomic_load_n(&c->bell->ring, __ATOMIC_ACQUIRE);

		if (tick(arg))
			return;
		round_once(c, seen);
	}
}

unsigned int ht_consumer_finish(struct ht_consumer *c)
{
	unsigned int salvaged;

	if (!c)
		return 0;
	poll_once(c, 1);
	salvaged = c->salvaged;
	munmap(c->bell, 4096);
	unlinkat(c->dfd, HT_DOORBELL_FILE, 0);
	free(c->ents);
	free(c);
	return salvaged;
}
