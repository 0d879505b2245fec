#include "format/stream_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io.h"
#include "format/codec.h"
#include "format/format.h"

int ht_sfile_packet_close(struct ht_sfile *f)
{
	int r;

	if (!f->pos)
		return 0;
	ht_put64(f->pkt + HT_PC_TS_END, f->last);
	ht_put64(f->pkt + HT_PC_CONTENT, (uint64_t)f->pos * 8);
	ht_put64(f->pkt + HT_PC_PACKET, (uint64_t)f->pos * 8);
	r = ht_pwrite_all(f->out, f->pkt, f->pos, f->off);
	if (r)
		return r;
	f->off += f->pos;
	f->seq++;
	f->pos = 0;
	return 0;
}

static void packet_open(struct ht_sfile *f, const struct ht_sfile_who *who, uint64_t t)
{
	uint8_t *k = f->pkt;

	memset(k, 0, HT_PC_THREAD_END);
	ht_put32(k + HT_PH_MAGIC, HT_CTF_MAGIC);
	memcpy(k + HT_PH_UUID, who->uuid, 16);
	ht_put32(k + HT_PH_STREAM_ID, HT_SC_THREAD);
	ht_put64(k + HT_PH_INSTANCE, who->instance);
	ht_put64(k + HT_PC_TS_BEGIN, t);
	ht_put64(k + HT_PC_SEQ, f->seq);
	ht_put32(k + HT_PC_VPID, (uint32_t)who->pid);
	ht_put32(k + HT_PC_VTID, (uint32_t)who->tid);
	memcpy(k + HT_PC_PROCNAME, who->procname, HT_PROCNAME_LEN);
	k[HT_PC_TS_STATE] = HT_TS_NS;
	f->pos = ht_format_context_end(HT_SC_THREAD);
	f->last = t;
}

uint8_t *ht_sfile_event(struct ht_sfile *f, const struct ht_sfile_who *who, uint32_t id,
			size_t payload, uint64_t t, int *err)
{
	uint8_t *p;
	int r;

	if (!f->pkt && !(f->pkt = malloc(HT_SFILE_PACKET))) {
		*err = -ENOMEM;
		return NULL;
	}
	if (t < f->last)
		t = f->last;
	if (f->pos && f->pos + HT_EH_MAX_SIZE + payload > HT_SFILE_PACKET &&
	    (r = ht_sfile_packet_close(f))) {
		*err = r;
		return NULL;
	}
	if (!f->pos)
		packet_open(f, who, t);
	p = f->pkt + f->pos;
	/* LTTng's compact header where the time delta fits its 27 bits (with a 2x margin) */
	if (id < HT_EH_EXTENDED && t - f->last < (1ull << (HT_EH_COMPACT_BITS - 1))) {
		ht_put32(p, id | (uint32_t)(t << 5));
		p += HT_EH_COMPACT_SIZE;
	} else {
		p[0] = HT_EH_EXTENDED;
		ht_put32(p + 1, id);
		ht_put64(p + 5, t);
		p += HT_EH_EXTENDED_SIZE;
	}
	f->last = t;
	return p;
}

int ht_sfile_finish(struct ht_sfile *f)
{
	int r = f->out >= 0 ? ht_sfile_packet_close(f) : 0;

	if (f->out >= 0)
		close(f->out);
	f->out = -1;
	free(f->pkt);
	f->pkt = NULL;
	return r;
}
