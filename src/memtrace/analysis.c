/*
 * The memory-access analysis (analysis.h), one pass over the timeline's
 * memory records.
 *
 * An access belongs to the argument its site names (the rewriter knew the
 * pointer came from it), else to the buffer argument whose range holds its
 * address, else to the nearest buffer below it (an access past a buffer's
 * end is most often that buffer's). It is out of bounds when it leaves its
 * argument's buffer [base, base + size).
 *
 * Coalescing: a 32-lane access is the k-th execution of one site by the 32
 * work-items (threads) i*32 .. i*32+31 of one group -- a warp on CUDA; on
 * PoCL, which has no sub-groups, the 32 work-items a GPU would run together.
 * Its sectors are the distinct 32-byte blocks its lanes touch; the ideal is
 * what the same bytes need when packed. Strides are the address differences
 * between neighbouring lanes of one such access. Memory: the lanes of a
 * launch's accesses are held until the launch ends (8 bytes an access, plus
 * ~170 bytes per site, group and 32 work-items). Sites are told apart by
 * their low 20 bits (a CUDA function's first MiB of code).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/timeline.h"
#include "common/grow.h"
#include "memtrace/analysis.h"
#include "memtrace/layout.h"

#define NONE UINT32_MAX

struct site {
	int32_t arg;
	uint32_t line, col;
	const char *file; /* the timeline's string ("": the program's own) */
};

struct inst {
	uint64_t addr[HT_MEM_LANES];
	uint32_t mask;
};

struct warp {
	uint32_t row;
	uint32_t next; /* the same lanes and site into another row (NONE: none) */
	uint8_t size;
	uint32_t count[HT_MEM_LANES];
	struct inst *inst;
	size_t n, cap;
};

struct launch {
	unsigned int proc;
	int32_t pid;
	uint32_t module;
	char kernel[256];
	uint64_t global[3], local[3];
	uint64_t base[HT_MT_SLOT_ARGS], bytes[HT_MT_SLOT_ARGS];
	uint32_t argmask;
	uint32_t row[HT_MT_SLOT_ARGS + 1]; /* [HT_MT_SLOT_ARGS]: no argument */
	struct ht_map warps;		   /* (site, group, lane block) -> index in w */
	struct warp *w;
	size_t nw, capw;
	int live;
};

struct pass {
	struct ht_mem_report *r;
	struct ht_map rows;  /* "pid kernel arg" -> row */
	struct ht_map sites; /* (proc, module, site) -> index in site */
	struct site *site;
	size_t nsite, capsite;
	struct ht_map launches; /* (proc, corr) -> index in l */
	struct launch *l;
	size_t nl, capl;
	uint32_t *free;
	size_t nfree, capfree;
};

static uint64_t site_key(unsigned int proc, uint32_t module, uint32_t site)
{
	return (uint64_t)proc << 48 ^ (uint64_t)(module & 0xffff) << 32 ^ site;
}

static uint64_t launch_key(unsigned int proc, uint64_t corr)
{
	return (uint64_t)proc << 48 ^ corr;
}

static uint32_t row_of(struct pass *p, struct launch *l, int32_t arg)
{
	unsigned int i = arg < 0 ? HT_MT_SLOT_ARGS : (unsigned int)arg;
	struct ht_mem_report *r = p->r;
	char key[320];
	uint64_t *v;
	int created;

	if (l->row[i] != NONE)
		return l->row[i];
	snprintf(key, sizeof key, "%d\x1f%s\x1f%d", l->pid, l->kernel, arg);
	v = ht_map_str(&p->rows, key, r->n, &created);
	if (!v)
		return NONE;
	if (created) {
		struct ht_mem_row *row;

		if (ht_grow((void **)&r->rows, &r->cap, sizeof *r->rows, r->n + 1))
			return NONE;
		row = &r->rows[r->n];
		memset(row, 0, sizeof *row);
		row->pid = l->pid;
		row->arg = arg;
		row->kernel = strdup(l->kernel);
		row->lo = INT64_MAX;
		row->hi = INT64_MIN;
		if (!row->kernel)
			return NONE;
		r->n++;
	}
	l->row[i] = (uint32_t)*v;
	r->rows[*v].launches++;
	if (arg >= 0 && (unsigned int)arg < HT_MT_SLOT_ARGS &&
	    l->bytes[arg] > r->rows[*v].buffer_bytes)
		r->rows[*v].buffer_bytes = l->bytes[arg];
	return (uint32_t)*v;
}

/* The argument an access at addr belongs to (see the file's opening). */
static int32_t attribute(const struct launch *l, int32_t site_arg, uint64_t addr)
{
	int32_t below = -1;

	/* the site's argument, even with its buffer unknown: never another buffer */
	if (site_arg >= 0)
		return (unsigned int)site_arg < HT_MT_SLOT_ARGS ? site_arg : -1;
	for (unsigned int i = 0; i < HT_MT_SLOT_ARGS; i++) {
		if (!(l->argmask >> i & 1) || !l->base[i] || addr < l->base[i])
			continue;
		if (l->bytes[i] && addr < l->base[i] + l->bytes[i])
			return (int32_t)i;
		if (below < 0 || l->base[i] > l->base[below])
			below = (int32_t)i;
	}
	return below;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One 32-lane access into its row: the distinct sectors its lanes touch,
 * the ideal (the distinct bytes they touch, packed), the strides.
 */
static int account(struct ht_mem_row *row, const struct inst *in, uint8_t size)
{
	uint64_t sec[HT_MEM_LANES * 9], start[HT_MEM_LANES];
	unsigned int ns = 0, lanes = 0, distinct = 0;
	uint64_t span = size ? size : 1, bytes = 0, end = 0;

	for (unsigned int l = 0; l < HT_MEM_LANES; l++) {
		uint64_t a;

		if (!(in->mask >> l & 1))
			continue;
		start[lanes++] = in->addr[l];
		a = in->addr[l] / HT_MEM_SECTOR;
		for (uint64_t e = (in->addr[l] + span - 1) / HT_MEM_SECTOR; a <= e && ns < 9 * 32;
		     a++)
			sec[ns++] = a;
		if (l && (in->mask >> (l - 1) & 1)) {
			int created;
			uint64_t *v =
			    ht_map_u64(&row->strides, in->addr[l] - in->addr[l - 1], 0, &created);

			if (!v)
				return -ENOMEM;
			(*v)++;
		}
	}
	qsort(sec, ns, sizeof sec[0], u64_cmp);
	for (unsigned int i = 0; i < ns; i++)
		distinct += !i || sec[i] != sec[i - 1];
	qsort(start, lanes, sizeof start[0], u64_cmp);
	for (unsigned int i = 0; i < lanes; i++) { /* the union of [start, start + span) */
		uint64_t from = start[i] > end ? start[i] : end;

		if (start[i] + span > from)
			bytes += start[i] + span - from;
		if (start[i] + span > end)
			end = start[i] + span;
	}
	row->accesses++;
	row->sectors += distinct;
	row->ideal += (bytes + HT_MEM_SECTOR - 1) / HT_MEM_SECTOR;
	return 0;
}

static int launch_end(struct pass *p, uint32_t li)
{
	struct launch *l = &p->l[li];
	int rc = 0;

	for (size_t i = 0; i < l->nw; i++) {
		struct warp *w = &l->w[i];

		for (size_t k = 0; k < w->n && !rc && w->row != NONE; k++)
			rc = account(&p->r->rows[w->row], &w->inst[k], w->size);
		free(w->inst);
	}
	free(l->w);
	ht_map_release(&l->warps);
	l->w = NULL;
	l->nw = l->capw = 0;
	l->live = 0;
	if (!rc && ht_grow((void **)&p->free, &p->capfree, sizeof *p->free, p->nfree + 1))
		rc = -ENOMEM;
	if (!rc)
		p->free[p->nfree++] = li;
	return rc;
}

static int on_launch(struct pass *p, const struct ht_tl_record *x)
{
	uint32_t li;
	struct launch *l;
	uint64_t *v;
	int created;

	if (p->nfree) {
		li = p->free[--p->nfree];
	} else {
		if (ht_grow((void **)&p->l, &p->capl, sizeof *p->l, p->nl + 1))
			return -ENOMEM;
		li = (uint32_t)p->nl++;
	}
	l = &p->l[li];
	memset(l, 0, sizeof *l);
	l->live = 1;
	l->proc = x->proc;
	l->pid = x->pid;
	l->module = x->mem.module;
	snprintf(l->kernel, sizeof l->kernel, "%s", x->name ? x->name : "?");
	memcpy(l->global, x->global, sizeof l->global);
	memcpy(l->local, x->local, sizeof l->local);
	for (unsigned int i = 0; i <= HT_MT_SLOT_ARGS; i++)
		l->row[i] = NONE;
	if (x->mem.sample > 1)
		p->r->sampled = 1;
	p->r->launches++;
	v = ht_map_u64(&p->launches, launch_key(x->proc, x->corr), li, &created);
	if (!v)
		return -ENOMEM;
	if (!created) { /* a corr seen again: the older launch is over */
		uint32_t old = (uint32_t)*v;

		*v = li;
		if (old != li && p->l[old].live)
			return launch_end(p, old);
	}
	return 0;
}

static struct launch *launch_of(struct pass *p, const struct ht_tl_record *x)
{
	uint64_t *v = ht_map_find_u64(&p->launches, launch_key(x->proc, x->corr));

	return v && p->l[*v].live ? &p->l[*v] : NULL;
}

static void out_of_bounds(struct ht_mem_row *row, const struct launch *l,
			  const struct ht_tl_record *x, const struct site *s, int64_t off)
{
	struct ht_mem_oob *o;

	row->out_of_bounds++;
	if (row->noob == HT_MEM_EXAMPLES)
		return;
	o = &row->oob[row->noob++];
	o->group = x->mem.group;
	o->item = x->mem.item;
	o->offset = off;
	o->kind = x->mem.kind;
	o->size = x->mem.size;
	o->line = s ? s->line : 0;
	o->col = s ? s->col : 0;
	o->file =
	    s && s->file && s->file[0] ? strdup(s->file) : NULL; /* NULL: no name, or no memory */
	o->global = l->local[0] && l->global[1] == 1 && l->global[2] == 1
			? (uint64_t)x->mem.group * l->local[0] + x->mem.item
			: UINT64_MAX;
}

static int on_access(struct pass *p, const struct ht_tl_record *x)
{
	struct launch *l = launch_of(p, x);
	uint64_t *sv;
	const struct site *s;
	struct ht_mem_row *row;
	uint32_t ri, wi;
	int32_t arg;
	int64_t off = 0;
	struct warp *w;
	unsigned int lane;
	uint64_t *v;
	int created;

	if (!l) {
		p->r->unknown_launch++;
		return 0;
	}
	sv = ht_map_find_u64(&p->sites, site_key(l->proc, l->module, x->mem.site));
	s = sv ? &p->site[*sv] : NULL;
	arg = attribute(l, s ? s->arg : -1, x->mem.addr);
	ri = row_of(p, l, arg);
	if (ri == NONE)
		return -ENOMEM;
	row = &p->r->rows[ri];
	switch (x->mem.kind) {
	case HT_MT_KIND_STORE:
		row->writes++;
		row->bytes_written += x->mem.size;
		break;
	case HT_MT_KIND_ATOMIC:
		row->atomics++;
		row->bytes_atomic += x->mem.size;
		break;
	default:
		row->reads++;
		row->bytes_read += x->mem.size;
		break;
	}
	if (arg >= 0 && l->base[arg]) {
		uint64_t bytes = l->bytes[arg];

		off = (int64_t)(x->mem.addr - l->base[arg]);
		if (off < row->lo)
			row->lo = off;
		if (off + x->mem.size > row->hi)
			row->hi = off + x->mem.size;
		if (bytes && (off < 0 || (uint64_t)off + x->mem.size > bytes))
			out_of_bounds(row, l, x, s, off);
		else if (bytes)
			row->heat[(uint64_t)off * HT_MEM_HEAT / bytes]
				 [x->mem.kind == HT_MT_KIND_STORE]++;
	}
	/*
	 * The access's lane in its 32-lane access. A site whose pointer reaches
	 * several buffers (a helper's, chosen per work-item) makes one 32-lane
	 * access per buffer, chained from the first: each row counts the
	 * sectors of its own lanes only.
	 */
	v = ht_map_u64(&l->warps,
		       (uint64_t)x->mem.group << 32 | (uint64_t)(x->mem.site & 0xfffff) << 12 |
			   (x->mem.item / HT_MEM_LANES & 0xfff),
		       l->nw, &created);
	if (!v)
		return -ENOMEM;
	wi = created ? NONE : (uint32_t)*v;
	while (wi != NONE && l->w[wi].row != ri && l->w[wi].next != NONE)
		wi = l->w[wi].next;
	if (wi == NONE || l->w[wi].row != ri) {
		if (ht_grow((void **)&l->w, &l->capw, sizeof *l->w, l->nw + 1))
			return -ENOMEM;
		memset(&l->w[l->nw], 0, sizeof l->w[0]);
		l->w[l->nw].row = ri;
		l->w[l->nw].next = NONE;
		l->w[l->nw].size = x->mem.size;
		if (wi != NONE)
			l->w[wi].next = (uint32_t)l->nw;
		wi = (uint32_t)l->nw++;
	}
	w = &l->w[wi];
	lane = x->mem.item % HT_MEM_LANES;
	if (w->count[lane] >= w->n) {
		if (ht_grow((void **)&w->inst, &w->cap, sizeof *w->inst, w->n + 1))
			return -ENOMEM;
		memset(&w->inst[w->n], 0, sizeof w->inst[0]);
		w->n++;
	}
	w->inst[w->count[lane]].addr[lane] = x->mem.addr;
	w->inst[w->count[lane]].mask |= 1u << lane;
	w->count[lane]++;
	return 0;
}

static int on_record(struct pass *p, const struct ht_tl_record *x)
{
	switch (x->kind) {
	case HT_TL_MEM_ACCESS:
		return on_access(p, x);
	case HT_TL_MEM_SITE: {
		int created;
		uint64_t *v = ht_map_u64(&p->sites, site_key(x->proc, x->mem.module, x->mem.site),
					 p->nsite, &created);

		if (!v)
			return -ENOMEM;
		if (created) {
			if (ht_grow((void **)&p->site, &p->capsite, sizeof *p->site, p->nsite + 1))
				return -ENOMEM;
			p->nsite++;
		}
		p->site[*v] = (struct site){
		    .arg = x->mem.arg, .line = x->mem.line, .col = x->mem.col, .file = x->text};
		return 0;
	}
	case HT_TL_MEM_LAUNCH:
		return on_launch(p, x);
	case HT_TL_MEM_ARG: {
		struct launch *l = launch_of(p, x);

		if (l && x->mem.arg >= 0 && (unsigned int)x->mem.arg < HT_MT_SLOT_ARGS) {
			l->base[x->mem.arg] = x->mem.base;
			l->bytes[x->mem.arg] = x->mem.bytes;
			l->argmask |= 1u << x->mem.arg;
		}
		return 0;
	}
	case HT_TL_MEM_END: {
		uint64_t *v = ht_map_find_u64(&p->launches, launch_key(x->proc, x->corr));

		p->r->records += x->mem.records;
		p->r->dropped += x->mem.dropped;
		if (!v || !p->l[*v].live)
			return 0;
		ht_map_del_u64(&p->launches, launch_key(x->proc, x->corr));
		return launch_end(p, (uint32_t)*v);
	}
	default:
		return 0;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct ht_mem_row *x = a, *y = b;
	int c = x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : strcmp(x->kernel, y->kernel);

	if (c)
		return c;
	return x->arg < 0 || y->arg < 0 ? (x->arg < 0) - (y->arg < 0) : x->arg - y->arg;
}

int ht_mem_report_compute(struct ht_trace *t, struct ht_mem_report *r, struct ht_read_error *err)
{
	struct ht_tl_opts o = {
	    .kinds = HT_PK_DEVICE,
	    .no_args = 1,
	    .skip = 1u << HT_TL_DEVICE | 1u << HT_TL_QUEUE | 1u << HT_TL_CLOCK_PAIR,
	};
	struct pass p = {.r = r};
	struct ht_timeline tl;
	const struct ht_tl_record *x;
	int rc;

	memset(r, 0, sizeof *r);
	rc = ht_timeline_open(&tl, t, &o);
	if (rc) {
		*err = tl.err;
		return rc;
	}
	while ((rc = ht_timeline_next(&tl, &x)) > 0)
		if ((rc = on_record(&p, x)) < 0)
			break;
	if (rc < 0 && rc != -ENOMEM)
		*err = tl.err;
	for (size_t i = 0; i < p.nl && !rc; i++) /* launches whose end is not in the trace */
		if (p.l[i].live)
			rc = launch_end(&p, (uint32_t)i);
	ht_timeline_close(&tl);
	for (size_t i = 0; i < p.nl; i++) {
		for (size_t k = 0; k < p.l[i].nw; k++)
			free(p.l[i].w[k].inst);
		free(p.l[i].w);
		ht_map_release(&p.l[i].warps);
	}
	free(p.l);
	free(p.site);
	free(p.free);
	ht_map_release(&p.rows);
	ht_map_release(&p.sites);
	ht_map_release(&p.launches);
	if (rc < 0) {
		if (rc == -ENOMEM) {
			snprintf(err->file, sizeof err->file, "%s", t->path);
			snprintf(err->msg, sizeof err->msg,
				 "out of memory in the memory-access analysis");
		}
		ht_mem_report_release(r);
		return rc;
	}
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].lo > r->rows[i].hi)
			r->rows[i].lo = r->rows[i].hi = 0;
	if (r->n)
		qsort(r->rows, r->n, sizeof *r->rows, row_cmp);
	return 0;
}

void ht_mem_report_release(struct ht_mem_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].kernel);
		for (unsigned int k = 0; k < r->rows[i].noob; k++)
			free(r->rows[i].oob[k].file);
		ht_map_release(&r->rows[i].strides);
	}
	free(r->rows);
	memset(r, 0, sizeof *r);
}

unsigned int ht_mem_row_strides(const struct ht_mem_row *row, int64_t *s, uint64_t *n,
				unsigned int max)
{
	unsigned int k = 0;

	for (size_t i = 0; i < row->strides.cap; i++) {
		unsigned int j;

		if (!row->strides.used[i])
			continue;
		/* insertion into the top `max`, by count then by stride */
		for (j = k; j > 0 && (n[j - 1] < row->strides.vals[i] ||
				      (n[j - 1] == row->strides.vals[i] &&
				       s[j - 1] > (int64_t)row->strides.keys[i]));
		     j--) {
			if (j < max) {
				s[j] = s[j - 1];
				n[j] = n[j - 1];
			}
		}
		if (j < max) {
			s[j] = (int64_t)row->strides.keys[i];
			n[j] = row->strides.vals[i];
			if (k < max)
				k++;
		}
	}
	return k;
}
