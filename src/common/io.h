/*
 * Small I/O helpers shared by the recorder and the reader: positional writes
 * and reads that finish or fail (short transfers retried, EINTR ignored).
 */
#ifndef HT_IO_H
#define HT_IO_H

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

/* Writes all len bytes at off. Return: 0, or -errno (-EIO for a zero-byte write). */
static inline int ht_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *b = buf;

	while (len) {
		ssize_t n = pwrite(fd, b, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		b += n, len -= (size_t)n, off += (uint64_t)n;
	}
	return 0;
}

/*
 * Reads up to len bytes at off, retrying short reads until the end of the
 * file. Return: the bytes read (fewer than len only at the end), or -errno.
 */
static inline long ht_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *b = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, b + got, len - got, (off_t)(off + got));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

/*
 * A directory stream on fd, which it takes over (fd < 0: an error passed
 * on, errno kept). Return: the stream, or NULL with errno set (fd closed).
 */
static inline DIR *ht_dir_of(int fd)
{
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

/*
 * A directory stream on a duplicate of dfd, at its first entry (a
 * duplicate shares the offset an earlier scan of dfd left). NULL: errno.
 */
static inline DIR *ht_dir_dup(int dfd)
{
	DIR *d = ht_dir_of(dup(dfd));

	if (d)
		rewinddir(d);
	return d;
}

#endif
