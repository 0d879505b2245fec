/*
 * Salvage of packets left in flight (see salvage.h). A stream's packets are
 * counted by walking their headers, so a packet is appended only when it is
 * the next one the stream lacks (its sequence number equals the count).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/io.h"
#include "ring/ring.h"
#include "ring/salvage.h"

/*
 * Counts the whole packets of stream file fd; *last: the offset of the last
 * one. Return: the count, or -1 when the file ends inside a packet or holds
 * something that is not a packet.
 */
static int64_t count_packets(int fd, uint64_t size, uint64_t *last)
{
	uint8_t ctx[HT_PC_DEVICE_END];
	uint64_t off = 0;
	int64_t n = 0;

	while (off < size) {
		struct ht_packet pk;
		size_t want = size - off < sizeof ctx ? (size_t)(size - off) : sizeof ctx;
		ssize_t got = pread(fd, ctx, want, (off_t)off);

		if (got <= 0 || ht_packet_decode(&pk, ctx, (size_t)got, off, NULL) == -EBADMSG)
			return -1;
		if (!pk.size || pk.size > size - off)
			return -1;
		*last = off;
		off += pk.size;
		n++;
	}
	return n;
}

/*
 * Makes losses visible in the running discard total of the last packet of
 * stream `name`: raises it to `total` (add: adds `total` to it), an 8-byte
 * overwrite that a full disk allows. Return: 0, -ENOENT when the stream
 * has no packet, or -errno.
 */
static int put_discarded(int procfd, const char *name, uint64_t total, int add)
{
	int fd = openat(procfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	uint64_t last = 0, was;
	uint8_t v[8];
	struct stat sb;
	int r = -ENOENT;

	if (fd < 0)
		return -errno;
	if (!fstat(fd, &sb) && sb.st_size > 0 &&
	    count_packets(fd, (uint64_t)sb.st_size, &last) > 0 &&
	    pread(fd, v, 8, (off_t)(last + HT_PC_DISCARDED)) == 8) {
		was = ht_le64(v);
		ht_put64(v, add ? was + total : total > was ? total : was);
		r = ht_pwrite_all(fd, v, 8, last + HT_PC_DISCARDED);
	}
	close(fd);
	return r;
}

/*
 * The running discard total `total` of stream `name`, whose last packets
 * could not be written: in its own last packet, or, when none of its packets
 * is there, carried by the process stream (*carry, written at the end of
 * the salvage: no packet may follow the one that carries it).
 */
static void count_lost(int procfd, const char *name, uint64_t total, uint64_t *carry)
{
	if (put_discarded(procfd, name, total, 0) == -ENOENT)
		*carry += total;
}

/*
 * Appends the packet left in `cur` (".<stream>.cur") to its stream unless it
 * is already there, then removes the file. Return: 0, or < 0 with err filled.
 */
static int salvage_one(int procfd, const char *pname, const uint8_t *uuid, const char *cur,
		       int died, struct ht_salvage_stats *st, uint64_t *carry,
		       struct ht_read_error *err)
{
	char stream[256];
	size_t n = strlen(cur);
	struct ht_packet pk;
	uint8_t *buf = NULL;
	struct stat sb, ss;
	int fd = -1, wfd = -1, rc = 0;
	uint64_t last = 0;
	int64_t have;

	snprintf(stream, sizeof stream, "%.*s", (int)(n - strlen(HT_CUR_SUFFIX) - 1), cur + 1);
	fd = openat(procfd, cur, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fstat(fd, &sb) || sb.st_size > (1 << 28))
		goto drop;
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf || read(fd, buf, (size_t)sb.st_size) != sb.st_size)
		goto drop;
	if (ht_packet_decode(&pk, buf, (size_t)sb.st_size, 0, NULL) || pk.content <= pk.ctx_end ||
	    memcmp(pk.uuid, uuid, 16))
		goto drop; /* empty, never written, or not ours */
	/* Count the packets already in the stream: the current one comes next. */
	wfd = openat(procfd, stream, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (wfd < 0 || fstat(wfd, &ss)) {
		rc = -errno;
		snprintf(err->file, sizeof err->file, "%s/%s", pname, stream);
		snprintf(err->msg, sizeof err->msg, "%s", strerror(-rc));
		goto out;
	}
	have = count_packets(wfd, (uint64_t)ss.st_size, &last);
	if (have >= 0 && (uint64_t)have == pk.seq) {
		ht_put64(buf + HT_PC_PACKET, pk.content * 8);
		if (ht_pwrite_all(wfd, buf, (size_t)pk.content, (uint64_t)ss.st_size)) {
			/* No room (a full disk): whole packets only; its events are lost. */
			uint64_t events = ht_packet_count_events(buf, (size_t)pk.content);

			if (ftruncate(wfd, ss.st_size)) {
				rc = -errno;
				snprintf(err->file, sizeof err->file, "%s/%s", pname, stream);
				snprintf(err->msg, sizeof err->msg,
					 "cannot append the salvaged packet, nor remove what "
					 "was written of it: %s",
					 strerror(-rc));
				goto out;
			}
			st->lost += events;
			count_lost(procfd, stream, pk.discarded + events, carry);
		} else if (died) {
			st->salvaged++;
		} else {
			st->completed++;
		}
	}
drop:
	rc = 0;
	unlinkat(procfd, cur, 0);
out:
	if (wfd >= 0)
		close(wfd);
	if (fd >= 0)
		close(fd);
	free(buf);
	return rc;
}

/*
 * Drains a ring file left by a recording whose consumer (`hetrace record`)
 * was killed: its published packets and the one in progress go to the
 * stream file, then the ring is removed. Return: 0, or < 0 with err filled.
 */
static int salvage_ring(int procfd, const char *pname, const char *name, int died,
			struct ht_salvage_stats *st, uint64_t *carry, struct ht_read_error *err)
{
	struct ht_ring_file rf;
	struct ht_ring_drain_stats ds = {0};
	char stream[256];
	int rc = ht_ring_file_open(procfd, name, &rf);

	if (rc == -EAGAIN || rc == -EBADMSG || rc == -ENOENT) {
		unlinkat(procfd, name, 0); /* never set up, or not ours: nothing in it */
		return 0;
	}
	if (rc) {
		snprintf(err->file, sizeof err->file, "%s/%s", pname, name);
		snprintf(err->msg, sizeof err->msg, "cannot open the ring: %s", strerror(-rc));
		return rc;
	}
	/* A final drain counts the packets it cannot write (a full disk) as lost. */
	ht_ring_drain(rf.h, rf.fd, UINT64_MAX, 1, UINT64_MAX, &ds);
	st->lost += ds.lost;
	if (!rf.h->written) {
		snprintf(stream, sizeof stream, "%.*s",
			 (int)(strlen(name) - strlen(HT_RING_SUFFIX) - 1), name + 1);
		count_lost(procfd, stream, rf.h->discarded + rf.h->lost_events, carry);
	}
	ht_ring_file_close(&rf, procfd, name, 1);
	if (died)
		st->salvaged += (unsigned int)ds.salvaged;
	else
		st->completed += (unsigned int)ds.salvaged;
	return 0;
}

/* Return: nonzero when name ends in suffix (and has a stream name before it). */
static int has_suffix(const char *name, const char *suffix)
{
	size_t len = strlen(name), sl = strlen(suffix);

	return name[0] == '.' && len > sl + 1 && !strcmp(name + len - sl, suffix);
}

/* Return: nonzero when process `pid` maps the file of `st` (a line of its /proc/PID/maps). */
static int mapped_by(pid_t pid, const struct stat *st)
{
	char path[64], line[512];
	unsigned int maj, min;
	unsigned long long ino;
	FILE *f;
	int found = 0;

	snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0; /* gone, or not ours to read (then not the trace's writer) */
	while (!found && fgets(line, sizeof line, f))
		found = sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 &&
			ino == (unsigned long long)st->st_ino && makedev(maj, min) == st->st_dev;
	fclose(f);
	return found;
}

int ht_salvage_live_writer(int procfd, const char *name, char *what, size_t cap)
{
	int fd = dup(procfd), live = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	pid_t pid = (pid_t)strtol(name, NULL, 10);
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while (!live && (de = readdir(d))) {
		struct stat st;
		int ffd;

		if (!has_suffix(de->d_name, HT_CUR_SUFFIX) &&
		    !has_suffix(de->d_name, HT_RING_SUFFIX))
			continue;
		ffd = openat(procfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (ffd < 0)
			continue;
		live = (flock(ffd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) ||
		       (pid > 0 && !fstat(ffd, &st) && mapped_by(pid, &st));
		close(ffd);
		if (live)
			snprintf(what, cap, "%s/%s", name, de->d_name);
	}
	closedir(d);
	return live;
}

int ht_salvage_process(int procfd, const char *pname, const uint8_t uuid[16],
		       struct ht_salvage_stats *st, struct ht_read_error *err)
{
	int fd = dup(procfd), rc = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char names[64][256];
	unsigned int n = 0;
	uint64_t carry = 0;
	/* A process that ran its exit path closed its process stream: what is
	 * left open then belongs to threads still running at exit and to shared
	 * streams, not to a crash. */
	int died = faccessat(procfd, ".process" HT_CUR_SUFFIX, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
		   faccessat(procfd, ".process" HT_RING_SUFFIX, F_OK, AT_SYMLINK_NOFOLLOW) == 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	for (;;) {
		/* Collect a batch first: unlinking while reading a directory skips entries. */
		while (n < 64 && (de = readdir(d))) {
			if (has_suffix(de->d_name, HT_CUR_SUFFIX) ||
			    has_suffix(de->d_name, HT_RING_SUFFIX))
				snprintf(names[n++], sizeof names[0], "%s", de->d_name);
		}
		if (!n)
			break;
		for (unsigned int i = 0; i < n && !rc; i++)
			rc =
			    has_suffix(names[i], HT_RING_SUFFIX)
				? salvage_ring(procfd, pname, names[i], died, st, &carry, err)
				: salvage_one(procfd, pname, uuid, names[i], died, st, &carry, err);
		if (rc || n < 64)
			break;
		n = 0;
		rewinddir(d);
	}
	closedir(d);
	/* Losses of streams with no packet at all: babeltrace2 shows them here. */
	if (!rc && carry)
		put_discarded(procfd, "process", carry, 1);
	return rc;
}
