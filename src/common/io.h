/*
 * Small I/O helpers shared by the recorder and the reader: positional writes
 * and reads that finish or fail (short transfers retried, EINTR ignored).
 */
#ifndef HT_IO_H
#define HT_IO_H

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

#endif
