/*
 * Salvage of what a recording left in flight: the packet in progress of each
 * stream (".<stream>.cur") and the packets of rings whose consumer never
 * drained them (".<stream>.ring"), appended to their stream files after a
 * crash of the program or of `hetrace record`. Part of the ring transport:
 * only the files it and the recorder write are touched.
 */
#ifndef HT_SALVAGE_H
#define HT_SALVAGE_H

#include <stdint.h>

#include "format/packet.h"

struct ht_salvage_stats {
	unsigned int salvaged;	/* in-progress packets of processes that died */
	unsigned int completed; /* packets still open at a normal exit, appended here */
	uint64_t lost;		/* events of packets that could not be appended (counted in
				 * events_discarded: the stream's, or the process stream's
				 * when the stream has no packet) */
};

/*
 * Whether a live process still writes into process directory procfd (named
 * `name`, "<pid>-<comm>"): a stream's ring or packet file is locked (each
 * stream holds a shared flock on it while it lives) or mapped by process
 * <pid>. Salvaging then would take packets still being written.
 * Return: 1 with `what` naming the file, or 0.
 */
int ht_salvage_live_writer(int procfd, const char *name, char *what, size_t cap);

/*
 * Salvages the process directory procfd (named `name` in messages, trace
 * uuid `uuid`). Return: 0, or < 0 with err filled.
 */
int ht_salvage_process(int procfd, const char *name, const uint8_t uuid[16],
		       struct ht_salvage_stats *st, struct ht_read_error *err);

#endif
