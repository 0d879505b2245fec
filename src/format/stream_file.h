/*
 * A thread-class stream that `hetrace record` writes after the fact (CPU
 * states read per CPU, CPU samples unwound offline), not a traced thread
 * through a ring: whole packets built in memory and written with pwrite,
 * event headers as the recorder writes them (LTTng's compact header where
 * the time delta fits). The OS and the sampling writers both use it.
 */
#ifndef HT_FORMAT_STREAM_FILE_H
#define HT_FORMAT_STREAM_FILE_H

#include <stddef.h>
#include <stdint.h>

#define HT_SFILE_PACKET (64u * 1024) /* bytes of one packet */

/* Whose stream it is: the packet header's and context's identity. */
struct ht_sfile_who {
	const uint8_t *uuid; /* the process's trace uuid (16 bytes) */
	uint64_t instance;   /* above any instance id the recorder gives a stream */
	int32_t pid, tid;
	const char *procname; /* HT_PROCNAME_LEN bytes */
};

struct ht_sfile {
	int out;      /* the stream file, -1 until its owner opens it */
	uint8_t *pkt; /* HT_SFILE_PACKET bytes, allocated by ht_sfile_event */
	size_t pos;   /* bytes of the open packet, 0: none open */
	uint64_t seq, last, off;
};

/* Writes the open packet, if any. Return: 0 or -errno. */
int ht_sfile_packet_close(struct ht_sfile *f);
/*
 * Room for an event of class id with `payload` bytes at time t (raised to
 * the stream's last): the header written, the payload's place returned;
 * the caller then sets f->pos past the payload (HT_SFILE_WRITE does).
 * Return: NULL with *err = -errno when a packet could not be written.
 */
uint8_t *ht_sfile_event(struct ht_sfile *f, const struct ht_sfile_who *who, uint32_t id,
			size_t payload, uint64_t t, int *err);
/* Closes the stream (its last packet written) and frees it. Return: 0 or -errno. */
int ht_sfile_finish(struct ht_sfile *f);

/* Writes an event of class `cls` (events.def) from *ev at time t; *errp set on failure. */
#define HT_SFILE_WRITE(f, who, cls, ev, t, errp)                                                   \
	do {                                                                                       \
		uint8_t *p_ = ht_sfile_event((f), (who), ht_ev_##cls##_id, ht_ev_##cls##_size(ev), \
					     (t), (errp));                                         \
		if (p_)                                                                            \
			(f)->pos = (size_t)(ht_ev_##cls##_put(p_, (ev)) - (f)->pkt);               \
	} while (0)

#endif
