/*
 * The trace directory of `hetrace record` (see record_dir.h).
 *
 * A trace holds what the program did, and whoever owns a directory or may
 * write to it can read, replace or remove the files in it: an existing
 * directory is taken only when it is ours and closed to writes by others
 * (ssh reasons the same way about ~/.ssh).
 *
 * --force replaces an earlier trace and nothing else. Every entry is first
 * recognised as one hetrace writes: the index (its first line names the
 * hetrace version), record's doorbell, and process directories whose
 * metadata is a hetrace recording's, holding only stream files (CTF packet
 * magic, or empty with a stream's name) and the recorder's hidden packet,
 * ring and metadata files, and PoCL's kernel cache that --pc-sampling
 * keeps in the trace (pcsamp/cli.h: directories and regular files only).
 * One entry that is not makes record refuse, naming it, before anything
 * is removed or started.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "cli/cli.h"
#include "cli/record_dir.h"
#include "format/format.h"
#include "pcsamp/cli.h"
#include "ring/ring.h"

#define INDEX_FILE "hetrace.index"

/* Return: nonzero when regular file `name` in dfd begins with the n bytes at `head`. */
static int begins_with(int dfd, const char *name, const void *head, size_t n)
{
	char buf[64];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = pread(fd, buf, n < sizeof buf ? n : sizeof buf, 0);
	close(fd);
	return got == (ssize_t)n && !memcmp(buf, head, n);
}

/*
 * Return: nonzero for a stream name the recorder gives: lowercase words and
 * numbers joined by '-', starting with a word, maybe with a ".<number>" (process,
 * thread-12, os-cpu, os-0.1, device-memory-3).
 */
static int stream_name(const char *s)
{
	const char *p = s;

	if (!(*p >= 'a' && *p <= 'z'))
		return 0;
	for (;;) {
		size_t w = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");

		if (!w)
			return 0;
		p += w;
		if (*p != '-')
			break;
		p++;
	}
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		p += 1 + strspn(p + 1, "0123456789");
	return *p == '\0';
}

/* Return: nonzero for ".<stream>.cur" and ".<stream>.ring". */
static int hidden_stream_file(const char *s)
{
	static const char *const suffixes[] = {HT_CUR_SUFFIX, HT_RING_SUFFIX};
	char stream[64];
	size_t n = strlen(s);

	for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
		size_t sl = strlen(suffixes[i]);

		if (s[0] != '.' || n <= sl + 1 || n - sl - 1 >= sizeof stream ||
		    strcmp(s + n - sl, suffixes[i]))
			continue;
		snprintf(stream, sizeof stream, "%.*s", (int)(n - sl - 1), s + 1);
		return stream_name(stream);
	}
	return 0;
}

/* Return: nonzero when `name` in process directory pfd is a file the recorder writes. */
static int recorder_file(int pfd, const char *name)
{
	static const uint8_t magic[4] = {HT_CTF_MAGIC & 0xff, (HT_CTF_MAGIC >> 8) & 0xff,
					 (HT_CTF_MAGIC >> 16) & 0xff, HT_CTF_MAGIC >> 24};
	struct stat st;

	if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	if (!strcmp(name, "metadata") || !strcmp(name, ".metadata.tmp"))
		return 1; /* the directory was recognised by its metadata */
	if (name[0] == '.')
		return hidden_stream_file(name);
	return stream_name(name) && (st.st_size == 0 || begins_with(pfd, name, magic, 4));
}

/* Return: nonzero when pfd holds the metadata of a hetrace recording (not of an export). */
static int recording_metadata(int pfd)
{
	char buf[2048];
	int fd = openat(pfd, "metadata", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return !strncmp(buf, "/* CTF 1.8 */", 13) &&
	       strstr(buf, "tracer_name = \"" HT_TRACER_NAME "\"") && !strstr(buf, "export = \"");
}

/*
 * Looks through (remove = 0) or removes (remove = 1) process directory
 * `name` of dfd. Return: 0, 1 with `what` naming what hetrace did not write
 * there, or -errno.
 */
static int process_dir(int dfd, const char *name, int remove, char *what, size_t cap)
{
	int pfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int r = 0, removed;

	if (pfd < 0 || !recording_metadata(pfd)) {
		if (pfd >= 0)
			close(pfd);
		snprintf(what, cap, "%s", name);
		return 1;
	}
	d = ht_dir_of(pfd);
	if (!d)
		return -errno;
	do { /* removing entries while reading a directory may skip some: again until none */
		removed = 0;
		rewinddir(d);
		while (!r && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (!recorder_file(dirfd(d), de->d_name)) {
				snprintf(what, cap, "%s/%s", name, de->d_name);
				r = 1;
			} else if (remove) {
				if (unlinkat(dirfd(d), de->d_name, 0))
					r = -errno;
				removed++;
			}
		}
	} while (remove && removed && !r);
	closedir(d);
	if (!r && remove && unlinkat(dfd, name, AT_REMOVEDIR))
		r = -errno;
	return r;
}

/*
 * PoCL's kernel cache in the trace (record --pc-sampling): a tree of
 * directories and regular files, removed when remove is set.
 * Return: 0, 1 (something else in it: its name in what), or -errno.
 */
static int pocl_cache(int dfd, const char *name, int remove, char *what, size_t cap, int depth)
{
	DIR *d = ht_dir_of(openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	struct dirent *de;
	struct stat st;
	int r = 0;

	if (!d)
		return -errno;
	while (!r && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			r = -errno;
		} else if (S_ISDIR(st.st_mode) && depth < 16) {
			r = pocl_cache(dirfd(d), de->d_name, remove, what, cap, depth + 1);
		} else if (!S_ISREG(st.st_mode)) {
			snprintf(what, cap, "%s/%s", name, de->d_name);
			r = 1;
		} else if (remove && unlinkat(dirfd(d), de->d_name, 0)) {
			r = -errno;
		}
	}
	closedir(d);
	if (!r && remove && unlinkat(dfd, name, AT_REMOVEDIR))
		r = -errno;
	return r;
}

/* The same for the whole trace directory dfd. */
static int trace_dir(int dfd, int remove, char *what, size_t cap)
{
	static const char index_head[] = "hetrace_version=";
	DIR *d = ht_dir_dup(dfd);
	struct dirent *de;
	struct stat st;
	int r = 0, removed;

	if (!d)
		return -errno;
	do {
		removed = 0;
		rewinddir(d); /* a dup shares the offset of an earlier scan */
		while (!r && (de = readdir(d))) {
			const char *n = de->d_name;
			int file =
			    !fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			if ((!strcmp(n, INDEX_FILE) && file &&
			     begins_with(dfd, n, index_head, sizeof index_head - 1)) ||
			    (!strcmp(n, HT_DOORBELL_FILE) && file)) {
				if (remove && unlinkat(dfd, n, 0))
					r = -errno;
			} else if (!strcmp(n, HT_PCSAMP_POCL_CACHE) &&
				   !fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) &&
				   S_ISDIR(st.st_mode)) {
				r = pocl_cache(dfd, n, remove, what, cap, 0);
			} else {
				r = process_dir(dfd, n, remove, what, cap);
			}
			removed += remove;
		}
	} while (remove && removed && !r);
	closedir(d);
	return r;
}

/* Return: 1 when directory fd is empty, 0 when not, or -errno. */
static int empty(int fd)
{
	DIR *d = ht_dir_dup(fd);
	struct dirent *de;
	int r = 1;

	if (!d)
		return -errno;
	while (r && (de = readdir(d)))
		r = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return r;
}

/* Return: nonzero (after saying why) when others could read or change what we write in fd. */
static int not_ours_alone(const char *dir, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return ht_error("cannot inspect trace directory '%s': %s", dir, strerror(errno));
	if (st.st_uid != geteuid())
		return ht_error("trace directory '%s' belongs to another user (uid %u), who could "
				"read or change the trace; choose a directory of your own with -o",
				dir, (unsigned int)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return ht_error("trace directory '%s' is writable by others (mode %04o), who could "
				"change the trace; run 'chmod go-w %s' or choose another -o",
				dir, (unsigned int)(st.st_mode & 07777), dir);
	return 0;
}

int ht_record_dir_prepare(const char *dir, int force, int *created)
{
	struct stat st;
	char what[512];
	int fd, r;

	*created = 0;
	if (mkdir(dir, 0700) == 0) {
		*created = 1;
	} else if (errno != EEXIST) {
		ht_error("cannot create trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode)) {
		ht_error("'%s' exists and is not a directory; choose another -o", dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ht_error("cannot open trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (*created)
		return fd;
	if (not_ours_alone(dir, fd))
		goto err;
	r = empty(fd);
	if (r > 0)
		return fd;
	if (r == 0 && !force) {
		ht_error("trace directory '%s' is not empty; use --force to replace the trace in "
			 "it, or choose another -o",
			 dir);
		goto err;
	}
	what[0] = '\0';
	if (r == 0)
		r = trace_dir(fd, 0, what, sizeof what);
	if (r < 0) {
		ht_error("cannot read trace directory '%s': %s", dir, strerror(-r));
		goto err;
	}
	if (r > 0) {
		ht_error("trace directory '%s' holds '%s', which hetrace did not write; --force "
			 "replaces only an earlier trace: move it away or choose another -o",
			 dir, what);
		goto err;
	}
	r = trace_dir(fd, 1, what, sizeof what);
	if (r) {
		ht_error("cannot remove the earlier trace in '%s': %s", dir,
			 r > 0 ? "it changed while being removed" : strerror(-r));
		goto err;
	}
	return fd;
err:
	close(fd);
	return -1;
}
