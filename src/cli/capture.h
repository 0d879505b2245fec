/*
 * Capture ranges of `hetrace record` (capture.c): --delay, --duration,
 * --capture-range=region:NAME|api and --capture-range-end=stop|repeat.
 * Ranges by region or by hetrace_start/hetrace_stop are kept by each
 * process itself (HETRACE_CAPTURE); ranges by time are switched by record
 * through a control page (session/ctl.h) in the trace directory that every
 * traced process maps, so outside them an event costs what a disabled one
 * costs.
 */
#ifndef HT_CLI_CAPTURE_H
#define HT_CLI_CAPTURE_H

#include <stdint.h>

#include "session/ctl.h"

struct ht_capture {
	const char *delay, *duration, *range, *end; /* the options' values, NULL if not given */
	double delay_s, duration_s;
	struct ht_ctl_page *pg; /* time ranges: the mapped page */
	uint64_t on_ns, off_ns; /* when to switch (CLOCK_MONOTONIC) */
	uint64_t t_on, t_off;	/* when it was switched (0: not yet) */
};

/* Checks the options. Return: 0, or 2 after a usage error naming `sub`. */
int ht_capture_check(struct ht_capture *c, const char *sub);
/*
 * Before the command starts: sets HETRACE_CAPTURE* and, for time ranges,
 * creates the page (HETRACE_CONTROL). Return: 0, or 1 (printed).
 */
int ht_capture_setup(struct ht_capture *c, int dfd, const char *absdir);
/* Switches the page when the time comes (a consumer tick). Return: 0. */
int ht_capture_tick(void *arg);
/* After the command: the window into hetrace.index, the page removed. */
void ht_capture_finish(struct ht_capture *c, int dfd);

#endif
