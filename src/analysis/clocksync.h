/*
 * CPU-GPU clock synchronisation (seed 000 §3.4): from pairs that bound a
 * device time by host times, find a linear map device -> host
 * (host = slope * device + intercept) with a stated error bound, by the
 * convex-hull method.
 *
 * - HOST_BEFORE pairs (host time before the device event, e.g. the enqueue
 *   call vs QUEUED) say the true line passes above them;
 * - HOST_AFTER pairs (completion seen vs END) say it passes below them;
 * - EXACT pairs count as both.
 * The feasible lines lie between the upper hull of the first set and the
 * lower hull of the second. The chosen line maximises the smallest gap to
 * both sides; the bound is the largest distance, over the samples' device
 * time range, between it and any feasible line.
 */
#ifndef HT_CLOCKSYNC_H
#define HT_CLOCKSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "format/format.h"

struct ht_sync_point {
	double x, y; /* device, host; relative to the first sample (precision) */
};

struct ht_clock_sync {
	uint64_t d0, h0;		     /* origin: the first sample */
	struct ht_sync_point *below, *above; /* line above `below`, below `above` */
	uint64_t nbelow, nabove;
	size_t cap_below, cap_above;
	double xmin, xmax;
	int have_origin;
};

enum ht_sync_quality {
	HT_SYNC_NONE = 0,	  /* no samples: identity map */
	HT_SYNC_ONE_SIDED = 1,	  /* bounds from one side only: offset guessed, no bound */
	HT_SYNC_OK = 2,		  /* consistent: the bound holds */
	HT_SYNC_INCONSISTENT = 3, /* no line satisfies every bound: best compromise */
};

struct ht_clock_map {
	enum ht_sync_quality quality;
	uint64_t d0;
	double h_at_d0; /* host time (ns) of device time d0 */
	double slope;
	double slope_min, slope_max; /* the slopes the samples allow (OK only) */
	int drift_known;	     /* the samples determine the drift: slope is more than a
				      * guess (else it is 1: none assumed); OK only */
	double bound_ns;	     /* error bound; the violation when INCONSISTENT */
	uint64_t samples;
};

/*
 * A slope range that contains 1 (no drift) and is wider than this does not
 * determine the drift: the map assumes none and says so (drift_known 0).
 * 1 ppm: over a 1 s run, 1 us of the bound, well below what the samples of
 * a short run can tell apart.
 */
#define HT_SYNC_DRIFT_NARROW 1e-6

/* One bounding pair, as a device-stream event holds it. */
struct ht_sync_sample {
	uint32_t device;
	enum ht_pair_kind kind;
	uint64_t device_ts, host_ns;
};

/*
 * The samples of a device command with a host_before time: two
 * (host_before <= QUEUED; END <= seen, the event's own time). Return: how
 * many were stored in out.
 */
unsigned int ht_sync_samples_command(const struct ht_ev_device_command *c, uint64_t seen,
				     struct ht_sync_sample out[2]);
/* The sample of a clock_pair event. Return: 1. */
unsigned int ht_sync_samples_pair(const struct ht_ev_clock_pair *p, struct ht_sync_sample out[1]);

void ht_clock_sync_add(struct ht_clock_sync *cs, enum ht_pair_kind kind, uint64_t device_ts,
		       uint64_t host_ns);
/* Computes the map from the samples so far. Return: 0, or -ENOMEM. */
int ht_clock_sync_solve(struct ht_clock_sync *cs, struct ht_clock_map *out);
void ht_clock_sync_release(struct ht_clock_sync *cs);

/* Return: the host time of a device time under map m. */
uint64_t ht_clock_map_apply(const struct ht_clock_map *m, uint64_t device_ts);
/* Return: drift in parts per million (slope - 1); NaN when the samples do not determine it. */
double ht_clock_map_drift_ppm(const struct ht_clock_map *m);
/*
 * The drift as the outputs say it: "drift +26.58 ppm (the samples allow
 * +20.10..+33.02)", or "drift not determined (...)" when they do not pin it.
 */
void ht_clock_map_drift_text(char *buf, size_t cap, const struct ht_clock_map *m);
/* Return: host - device at device time d0, in ns. */
double ht_clock_map_offset_ns(const struct ht_clock_map *m);

#endif
