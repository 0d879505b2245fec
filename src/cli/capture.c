/*
 * Capture ranges of `hetrace record` (see capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli/capture.h"
#include "cli/cli.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int seconds(const char *s, double *out, int positive)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0 && v <= 1e6) || (positive && v <= 0))
		return -1;
	*out = v;
	return 0;
}

int ht_capture_check(struct ht_capture *c, const char *sub)
{
	if (c->delay && seconds(c->delay, &c->delay_s, 0))
		return ht_usage_error(sub, "--delay must be a number of seconds, not '%s'",
				      c->delay);
	if (c->duration && seconds(c->duration, &c->duration_s, 1))
		return ht_usage_error(
		    sub, "--duration must be a positive number of seconds, not '%s'", c->duration);
	if (c->range) {
		if (strcmp(c->range, "api") && strcmp(c->range, "cudaProfilerApi") &&
		    (strncmp(c->range, "region:", 7) || !c->range[7]) &&
		    (strncmp(c->range, "nvtx:", 5) || !c->range[5]))
			return ht_usage_error(
			    sub,
			    "--capture-range must be region:NAME, nvtx:NAME, api or "
			    "cudaProfilerApi, not '%s'",
			    c->range);
		if (c->delay || c->duration)
			return ht_usage_error(sub, "--capture-range and --delay/--duration exclude "
						   "each other: give one kind of range");
	}
	if (c->end && strcmp(c->end, "stop") && strcmp(c->end, "repeat"))
		return ht_usage_error(sub, "--capture-range-end must be stop or repeat, not '%s'",
				      c->end);
	if (c->end && !c->range)
		return ht_usage_error(sub, "--capture-range-end needs --capture-range");
	return 0;
}

int ht_capture_setup(struct ht_capture *c, int dfd, const char *absdir)
{
	char path[4200];
	int fd;

	unsetenv("HETRACE_CAPTURE");
	unsetenv("HETRACE_CAPTURE_END");
	unsetenv("HETRACE_CONTROL");
	if (c->range) {
		char v[300];

		/* NVTX push/pop ranges are regions in the trace: one mechanism for both. */
		if (!strncmp(c->range, "nvtx:", 5))
			snprintf(v, sizeof v, "region:%s", c->range + 5);
		else
			snprintf(v, sizeof v, "%s", c->range);
		setenv("HETRACE_CAPTURE", v, 1);
		if (c->end)
			setenv("HETRACE_CAPTURE_END", c->end, 1);
	}
	if (!c->delay && !c->duration)
		return 0;
	fd = openat(dfd, HT_CTL_FILE, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, HT_CTL_SIZE) || !(c->pg = ht_ctl_map(fd))) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return ht_error("cannot create '%s/%s' for the capture range: %s", absdir,
				HT_CTL_FILE, strerror(e));
	}
	close(fd);
	snprintf(path, sizeof path, "%s/%s", absdir, HT_CTL_FILE);
	setenv("HETRACE_CONTROL", path, 1);
	c->pg->magic = HT_CTL_MAGIC;
	c->pg->state = HT_CTL_RUNNING;
	c->on_ns = mono_ns() + (uint64_t)(c->delay_s * 1e9);
	c->off_ns = c->duration ? c->on_ns + (uint64_t)(c->duration_s * 1e9) : UINT64_MAX;
	ht_capture_tick(c);
	return 0;
}

int ht_capture_tick(void *arg)
{
	struct ht_capture *c = arg;
	uint64_t now;

	if (!c->pg)
		return 0;
	now = mono_ns();
	if (!c->t_on && now >= c->on_ns) {
		/* Read before the flag rises: every recorded event is later. */
		c->t_on = mono_ns();
		__atomic_store_n(&c->pg->active, 1, __ATOMIC_SEQ_CST);
	}
	if (c->t_on && !c->t_off && now >= c->off_ns) {
		__atomic_store_n(&c->pg->active, 0, __ATOMIC_SEQ_CST);
		c->t_off = mono_ns();
	}
	return 0;
}

void ht_capture_finish(struct ht_capture *c, int dfd)
{
	int fd;
	FILE *f;

	if (!c->pg)
		return;
	if (c->t_on && !c->t_off)
		c->t_off = mono_ns(); /* the command ended inside the window */
	munmap(c->pg, HT_CTL_SIZE);
	c->pg = NULL;
	unlinkat(dfd, HT_CTL_FILE, 0);
	fd = openat(dfd, "hetrace.index", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	f = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(f, "capture_start_ns=%llu\ncapture_end_ns=%llu\n", (unsigned long long)c->t_on,
		(unsigned long long)c->t_off);
	fclose(f);
}
