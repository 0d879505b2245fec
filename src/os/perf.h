/*
 * What both OS methods need of perf_event: the paranoid level (for the
 * os_status note) and reading records out of a perf ring (a metadata page,
 * then a power-of-two data area the kernel writes at data_head and the
 * reader frees up to data_tail; a record may wrap around its end).
 */
#ifndef HT_OS_PERF_H
#define HT_OS_PERF_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Bytes of a record either method ever looks at (its largest is 56, PERF_RECORD_FORK). */
#define HT_PERF_RECORD_MAX 64

/* Return: kernel.perf_event_paranoid, or -100 when unknown. */
static inline int ht_perf_paranoid(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? atoi(buf) : -100;
}

/*
 * The event both methods open: a software "dummy" event whose ring gets
 * the context-switch records (sample_id_all: pid/tid, CLOCK_MONOTONIC time,
 * CPU). with_lost: read() also returns the count of records the kernel
 * dropped (PERF_FORMAT_LOST, Linux 6.0+; older kernels refuse it, EINVAL).
 */
static inline void ht_perf_switch_attr(struct perf_event_attr *a, int with_lost)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a->sample_id_all = 1;
	a->context_switch = 1;
	a->exclude_kernel = 1; /* what perf_event_paranoid 2 allows; switches are still reported */
	a->exclude_hv = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (with_lost)
		a->read_format = PERF_FORMAT_LOST;
}

/* Copies n bytes at offset off (wrapping) of a ring's data area (data_size bytes) into dst. */
static inline void ht_perf_ring_copy(const uint8_t *data, size_t data_size, uint64_t off, void *dst,
				     size_t n)
{
	size_t o = (size_t)(off % data_size), first = data_size - o;

	if (first >= n) {
		memcpy(dst, data + o, n);
	} else {
		memcpy(dst, data + o, first);
		memcpy((uint8_t *)dst + first, data, n - first);
	}
}

#endif
