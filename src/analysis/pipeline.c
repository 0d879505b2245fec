/*
 * Parallel packet decoding (see pipeline.h).
 *
 * Slots of a stream cycle FREE -> CLAIMED (a worker or the consumer decodes
 * it) -> READY -> TAKEN (the consumer reads its events) -> FREE (when the
 * consumer asks for the stream's next packet). Claims happen in packet
 * order under the pipe lock; a slot can be claimed only while FREE, and the
 * consumer's TAKEN slot stops the claims from wrapping past it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "analysis/pipeline.h"
#include "common/grow.h"

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_READY, SLOT_TAKEN, SLOT_ERROR };

enum ht_pipe_kind ht_pipe_kind_of(const char *name)
{
	if (!strcmp(name, "process"))
		return HT_PK_PROCESS;
	if (!strncmp(name, "device-", 7))
		return HT_PK_DEVICE;
	if (!strncmp(name, "os-", 3))
		return HT_PK_OS;
	if (!strcmp(name, "samples"))
		return HT_PK_SAMPLES;
	return HT_PK_THREAD;
}

static int fail(struct ht_read_error *err, const char *file, uint64_t off, int code,
		const char *msg)
{
	snprintf(err->file, sizeof err->file, "%s", file);
	err->offset = off;
	snprintf(err->msg, sizeof err->msg, "%s", msg);
	return code;
}

/* The invariants that tie a packet to the one before it in its stream. */
static const char *sequence_error(const struct ht_pipe_stream *s, const struct ht_packet *pk,
				  const uint8_t *uuid)
{
	uint64_t n = s->claimed;

	if (memcmp(pk->uuid, uuid, 16))
		return "packet uuid differs from the metadata uuid";
	if (n && pk->sc != s->prev_sc)
		return "stream class changes within the stream";
	if (n && pk->instance != s->prev_instance)
		return "stream instance id changes within the stream";
	if (n && pk->vtid != s->prev_vtid)
		return "thread id changes within the stream";
	if (n && pk->discarded < s->prev_discarded)
		return "events_discarded decreases (it is a running total)";
	if (!n && pk->seq != 0)
		return "first packet_seq_num is not 0";
	if (n && pk->seq != s->prev_seq + 1)
		return "packet_seq_num is not consecutive";
	if (pk->ts_state == HT_TS_NS && n && pk->ts_begin < s->prev_end)
		return "packet begins before the previous one ends";
	return NULL;
}

/*
 * Claims stream s's next packet into its slot (pipe lock held): reads and
 * checks its context. Return: the slot (CLAIMED, or ERROR with the error
 * stored in it), or NULL when the stream has no packet left (s->end set).
 */
static struct ht_pipe_slot *claim(struct ht_pipe *p, struct ht_pipe_stream *s)
{
	struct ht_pipe_slot *sl = &s->slot[s->claimed % HT_PIPE_AHEAD];
	uint8_t ctx[HT_PC_DEVICE_END];
	uint64_t off = s->next_off, left;
	const char *why;
	int n, rc;

	if (s->end || sl->state != SLOT_FREE)
		return NULL;
	if (off >= s->file_size) {
		s->end = 1;
		return NULL;
	}
	left = s->file_size - off;
	n = (int)ht_pread_full(s->fd, ctx, left < sizeof ctx ? (size_t)left : sizeof ctx, off);
	memset(&sl->err, 0, sizeof sl->err);
	if (n < 0) {
		sl->rc = fail(&sl->err, s->path, off, n, strerror(-n));
		goto error;
	}
	rc = ht_packet_decode(&sl->b.pk, ctx, (size_t)n, off, &sl->err);
	if (rc == -EAGAIN && !(sl->b.pk.size && sl->b.pk.size <= left)) {
		/* a torn tail: bytes that do not form a whole packet */
		s->torn = 1;
		s->torn_offset = off;
		s->torn_bytes = left;
		s->end = 1;
		return NULL;
	}
	if (rc < 0 && rc != -EAGAIN) {
		snprintf(sl->err.file, sizeof sl->err.file, "%s", s->path);
		sl->rc = rc;
		goto error;
	}
	why = sequence_error(s, &sl->b.pk, s->tp->uuid);
	if (why) {
		sl->rc = fail(&sl->err, s->path, off, -EBADMSG, why);
		goto error;
	}
	if (!s->have_first) {
		s->first = sl->b.pk;
		s->have_first = 1;
	}
	s->prev_sc = sl->b.pk.sc;
	s->prev_instance = sl->b.pk.instance;
	s->prev_vtid = sl->b.pk.vtid;
	s->prev_discarded = sl->b.pk.discarded;
	s->prev_seq = sl->b.pk.seq;
	s->prev_end = sl->b.pk.ts_end ? sl->b.pk.ts_end : sl->b.pk.ts_begin;
	s->next_off = off + sl->b.pk.size;
	s->claimed++;
	sl->state = SLOT_CLAIMED;
	sl->b.stream = (unsigned int)(s - p->streams);
	return sl;
error:
	s->end = 1; /* nothing after a bad packet is read */
	s->claimed++;
	sl->state = SLOT_ERROR;
	return sl;
}

static int index_events(struct ht_pipe_stream *s, struct ht_pipe_slot *sl);

/* Reads and indexes a claimed packet (no lock held). Return: 0, or < 0 with sl->err filled. */
static int decode(struct ht_pipe *p, struct ht_pipe_stream *s, struct ht_pipe_slot *sl)
{
	struct ht_batch *b = &sl->b;
	uint64_t off = b->pk.offset, size = b->pk.size;
	int n, rc;

	b->n = 0;
	b->raw = 0;
	if (size > b->cap) {
		uint8_t *nb = realloc(b->buf, size);

		if (!nb)
			return fail(&sl->err, s->path, off, -ENOMEM, "out of memory");
		b->buf = nb;
		b->cap = size;
	}
	n = (int)ht_pread_full(s->fd, b->buf, size, off);
	if (n < 0)
		return fail(&sl->err, s->path, off, n, strerror(-n));
	rc = ht_packet_decode(&b->pk, b->buf, (size_t)n, off, &sl->err);
	if (rc) {
		snprintf(sl->err.file, sizeof sl->err.file, "%s", s->path);
		return rc == -EAGAIN ? fail(&sl->err, s->path, off, -EBADMSG,
					    "the packet changed while it was read")
				     : rc;
	}
	if (b->pk.ts_state != HT_TS_NS) {
		if (p->opts.allow_raw) {
			b->raw = 1;
			return 0;
		}
		return fail(&sl->err, s->path, off, -EBADMSG,
			    "packet holds raw counter timestamps; run 'hetrace check --repair'");
	}
	return index_events(s, sl);
}

/*
 * Indexes the events of a packet: each one's full timestamp, payload offset,
 * size and class. The same checks as ht_event_iter_next (format/packet.c),
 * which `check` uses, in one loop that knows the fixed payload sizes (most
 * events): the per-event function calls of the iterator cost this loop more
 * than half of its time.
 */
static int index_events(struct ht_pipe_stream *s, struct ht_pipe_slot *sl)
{
	struct ht_batch *b = &sl->b;
	const uint8_t *buf = b->buf;
	size_t pos = b->pk.ctx_end, end = b->pk.content;
	uint64_t last = b->pk.ts_begin, base_off = b->pk.offset;
	enum ht_stream_class sc = b->pk.sc;
	unsigned int nclasses = ht_format_class_count[sc];
	const struct ht_event_class *classes = ht_format_classes[sc];
	/* an MPI rank's clock against the job's reference (mpi_defs.h); most have none */
	const struct ht_clock_shift *shift = s->tp->shift.n ? &s->tp->shift : NULL;

	memset(b->by_class, 0, sizeof b->by_class);
	/* room for the most events the packet can hold: no check per event */
	if (ht_grow((void **)&b->ev, &b->cap_ev, sizeof *b->ev,
		    (end - pos) / HT_EH_COMPACT_SIZE + 1))
		return fail(&sl->err, s->path, base_off, -ENOMEM, "out of memory");
	while (pos < end) {
		uint64_t off = base_off + pos, ts;
		uint32_t w, id;
		size_t hs;
		long n;

		if (end - pos < HT_EH_COMPACT_SIZE)
			return fail(&sl->err, s->path, off, -EBADMSG,
				    "event header cut by the content end");
		w = ht_le32(buf + pos);
		id = w & 0x1f;
		if (__builtin_expect(id != HT_EH_EXTENDED, 1)) {
			ts = (last & ~(uint64_t)HT_EH_COMPACT_MASK) | (w >> 5);
			if (ts < last)
				ts += (uint64_t)1 << HT_EH_COMPACT_BITS;
			hs = HT_EH_COMPACT_SIZE;
		} else {
			if (end - pos < HT_EH_EXTENDED_SIZE)
				return fail(&sl->err, s->path, off, -EBADMSG,
					    "extended header cut by the content end");
			id = ht_le32(buf + pos + 1);
			ts = ht_le64(buf + pos + 5);
			if (ts < last)
				return fail(&sl->err, s->path, off, -EBADMSG,
					    "timestamp goes back within the packet");
			hs = HT_EH_EXTENDED_SIZE;
		}
		if (id >= nclasses) {
			char msg[96];

			snprintf(msg, sizeof msg, "unknown event id %u in a %s stream", id,
				 ht_format_stream_class_name(sc));
			return fail(&sl->err, s->path, off, -EBADMSG, msg);
		}
		pos += hs;
		n = classes[id].fixed
			? (classes[id].fixed <= end - pos ? (long)classes[id].fixed : -1)
			: ht_format_payload_size(&classes[id], buf + pos, end - pos);
		if (n < 0 || n > UINT16_MAX) {
			char msg[128];

			snprintf(msg, sizeof msg, "payload of event '%s' runs past the content end",
				 classes[id].name);
			return fail(&sl->err, s->path, off, -EBADMSG, msg);
		}
		b->by_class[id & 31] += id < 32;
		b->ev[b->n].ts = shift ? ht_clock_shift_apply(shift, ts) : ts;
		b->ev[b->n].off = (uint32_t)pos;
		b->ev[b->n].size = (uint16_t)n;
		b->ev[b->n].id = (uint16_t)id;
		b->n++;
		pos += (size_t)n;
		last = ts;
	}
	return 0;
}

/* Decodes a slot claimed by this thread and publishes it (takes the lock). */
static void finish(struct ht_pipe *p, struct ht_pipe_stream *s, struct ht_pipe_slot *sl,
		   int state_ok)
{
	int rc = decode(p, s, sl);

	pthread_mutex_lock(&p->lock);
	sl->rc = rc;
	sl->state = rc ? SLOT_ERROR : state_ok;
	pthread_cond_broadcast(&p->done);
}

static void *worker(void *arg)
{
	struct ht_pipe *p = arg;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct ht_pipe_slot *sl = NULL;
		struct ht_pipe_stream *s = NULL;

		for (unsigned int k = 0; k < p->nstreams && !sl; k++) {
			s = &p->streams[(p->rr + k) % p->nstreams];
			sl = claim(p, s);
			if (sl && sl->state == SLOT_ERROR) {
				pthread_cond_broadcast(&p->done);
				sl = NULL;
			}
		}
		if (!sl) {
			pthread_cond_wait(&p->work, &p->lock);
			continue;
		}
		p->rr = (unsigned int)(s - p->streams) + 1;
		pthread_mutex_unlock(&p->lock);
		finish(p, s, sl, SLOT_READY); /* returns with the lock held */
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int ht_pipe_next(struct ht_pipe *p, unsigned int si, const struct ht_batch **out,
		 struct ht_read_error *err)
{
	struct ht_pipe_stream *s = &p->streams[si];
	struct ht_pipe_slot *sl;
	int rc = 0;

	pthread_mutex_lock(&p->lock);
	if (s->taken) {
		struct ht_pipe_slot *prev = &s->slot[(s->taken - 1) % HT_PIPE_AHEAD];

		if (prev->state == SLOT_TAKEN) {
			prev->state = SLOT_FREE;
			/*
			 * Workers decode faster than the consumer reads: waking one
			 * for every freed slot costs two context switches a packet.
			 * Wake them when half the stream's slots are free (or
			 * nothing is decoded ahead): they refill in a burst.
			 */
			if (s->claimed - s->taken <= HT_PIPE_AHEAD / 2)
				pthread_cond_broadcast(&p->work);
		}
	}
	for (;;) {
		sl = &s->slot[s->taken % HT_PIPE_AHEAD];
		if (sl->state == SLOT_READY)
			break;
		if (sl->state == SLOT_ERROR) {
			*err = sl->err;
			rc = sl->rc < 0 ? sl->rc : -EBADMSG;
			goto out;
		}
		if (sl->state == SLOT_CLAIMED) {
			pthread_cond_wait(&p->done, &p->lock);
			continue;
		}
		/* FREE: nobody has claimed it; the consumer decodes it itself */
		if (s->claimed != s->taken || !(sl = claim(p, s))) {
			rc = 0; /* the stream has ended */
			goto out;
		}
		if (sl->state == SLOT_ERROR)
			continue;
		pthread_mutex_unlock(&p->lock);
		finish(p, s, sl, SLOT_READY);
	}
	sl->state = SLOT_TAKEN;
	s->taken++;
	s->packets++;
	s->raw_packets += sl->b.raw;
	*out = &sl->b;
	rc = 1;
out:
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int ht_pipe_open(struct ht_pipe *p, struct ht_trace *t, const struct ht_pipe_opts *o,
		 struct ht_read_error *err)
{
	unsigned int total = 0;
	uint64_t bytes = 0;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int rc = 0, workers;

	memset(p, 0, sizeof *p);
	p->trace = t;
	p->opts = *o;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (unsigned int i = 0; i < t->nprocs; i++)
		total += t->procs[i].nstreams;
	p->streams = calloc(total ? total : 1, sizeof *p->streams);
	if (!p->streams) {
		rc = fail(err, t->path, HT_NO_OFFSET, -ENOMEM, "out of memory");
		goto err;
	}
	for (unsigned int i = 0; i < t->nprocs; i++)
		for (unsigned int j = 0; j < t->procs[i].nstreams; j++) {
			const struct ht_trace_process *tp = &t->procs[i];
			struct ht_pipe_stream *s = &p->streams[p->nstreams];
			struct stat st;

			if (!(ht_pipe_kind_of(tp->streams[j].name) & o->kinds))
				continue;
			s->tp = tp;
			s->proc = i;
			s->kind = ht_pipe_kind_of(tp->streams[j].name);
			snprintf(s->name, sizeof s->name, "%s", tp->streams[j].name);
			snprintf(s->path, sizeof s->path, "%s/%s", tp->name, s->name);
			s->fd = openat(tp->fd, s->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
			if (s->fd < 0 || fstat(s->fd, &st)) {
				int e = errno;

				if (s->fd >= 0)
					close(s->fd);
				rc = fail(err, s->path, HT_NO_OFFSET, -e, strerror(e));
				goto err;
			}
			s->file_size = (uint64_t)st.st_size;
			bytes += s->file_size;
			p->nstreams++;
		}
	workers = o->workers >= 0 ? o->workers : (int)(cores > 1 ? cores - 1 : 0);
	/* a small trace is read before a thread would have started (~50 us each) */
	if (o->workers < 0 && bytes < HT_PIPE_SMALL)
		workers = 0;
	if (workers > 16)
		workers = 16;
	if (workers > (int)p->nstreams * HT_PIPE_AHEAD)
		workers = (int)p->nstreams * HT_PIPE_AHEAD;
	p->threads = calloc(workers > 0 ? (size_t)workers : 1, sizeof *p->threads);
	if (!p->threads) {
		rc = fail(err, t->path, HT_NO_OFFSET, -ENOMEM, "out of memory");
		goto err;
	}
	for (int i = 0; i < workers; i++) {
		if (pthread_create(&p->threads[i], NULL, worker, p))
			break; /* fewer workers: the consumer decodes the rest */
		p->nthreads++;
	}
	return 0;
err:
	ht_pipe_close(p);
	return rc;
}

void ht_pipe_close(struct ht_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	free(p->threads);
	for (unsigned int i = 0; p->streams && i < p->nstreams; i++) {
		close(p->streams[i].fd);
		for (int k = 0; k < HT_PIPE_AHEAD; k++) {
			free(p->streams[i].slot[k].b.buf);
			free(p->streams[i].slot[k].b.ev);
		}
	}
	free(p->streams);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	memset(p, 0, sizeof *p);
}
