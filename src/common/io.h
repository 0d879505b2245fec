/*
 * Small I/O helper shared by the recorder and the reader: a positional write
 * that finishes or fails (short writes retried, EINTR ignored).
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

#endif
