/*
 * Test helper: an independent reader of the Perfetto traces that
 * `hetrace export --format perfetto` writes. It walks the protobuf wire
 * format by hand, applies the rules trace_processor applies (incremental
 * state per trusted_packet_sequence_id, interning, TracePacketDefaults,
 * BEGIN/END pairing per track, flows) and prints what the tests assert:
 *
 *   track uuid=U kind=process|thread|custom|counter pid=P tid=T name="N" parent=U
 *   slice track="T" name="N" cat="C" ts=NS dur=NS args={k=v;...}
 *   instant track="T" name="N" ts=NS args={...}
 *   counters track="T" parent="P" n=N first=V last=V
 *   flow from="N"@"T" to="N"@"T"
 *   clock primary=C snapshot=ID:TS,...
 *   summary packets=N sequences=N tracks=N slices=N instants=N counter_values=N flows=N
 *
 * Violations (an iid never interned on its sequence, a sequence whose first
 * packet does not clear its state, an END without a BEGIN, a flow end
 * without a start, an undeclared track, malformed wire data) are printed as
 * "error: ..." and make the exit status 1.
 *   usage: pf_decode FILE.pftrace
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct str {
	char *s;
	size_t len, cap;
};

struct interned {
	uint64_t iid;
	int tab;
	char *name;
};

struct seq {
	uint32_t id;
	int cleared;
	uint64_t def_track;
	int def_clock;
	struct interned *in;
	size_t nin;
};

struct track {
	uint64_t uuid, parent;
	int kind; /* 0 custom, 1 process, 2 thread, 3 counter */
	int32_t pid, tid;
	char *name;
	size_t *stack; /* open slices */
	size_t depth;
	uint64_t nvalues;
	double first, last;
	int referenced;
};

struct slice {
	uint64_t track, ts, end;
	char *name, *cat;
	struct str args;
	int ended;
};

/* The events of one flow id; trace_processor links them in time order. */
struct flow {
	uint64_t id;
	long at[2]; /* slice indices */
	int n, terminating;
};

static struct seq *seqs;
static size_t nseqs;
static struct track *tracks;
static size_t ntracks;
static struct slice *slices;
static size_t nslices;
static struct flow *flows;
static size_t nflows;
static unsigned long packets, instants, counter_values, errors;
static int primary_clock = -1;
static struct str snapshot;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("pf_decode");
		exit(2);
	}
	return p;
}

static void error(const char *fmt, ...);

/* Return: whether s[0..n) is valid UTF-8 (shortest forms, no surrogates). */
static int utf8_valid(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t c = s[i];
		size_t k;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xE0) == 0xC0)
			k = 1;
		else if ((c & 0xF0) == 0xE0)
			k = 2;
		else if ((c & 0xF8) == 0xF0)
			k = 3;
		else
			return 0;
		if (i + k >= n)
			return 0;
		c &= 0x3Fu >> k;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xC0) != 0x80)
				return 0;
			c = c << 6 | (s[i + j] & 0x3F);
		}
		if ((k == 1 && c < 0x80) || (k == 2 && c < 0x800) || (k == 3 && c < 0x10000) ||
		    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return 0;
		i += k + 1;
	}
	return 1;
}

/* A copy of a string field, C-escaped so every output line stays one line. */
/*
 * Room for element n of an array that grows by doubling (n: the count
 * before adding): reallocates only when n is 0 or a power of two, so a
 * long trace costs O(n) copying, not O(n^2).
 */
static void *grow(void *p, size_t n, size_t size)
{
	if (n & (n - 1))
		return p;
	return xrealloc(p, (n ? 2 * n : 1) * size);
}

static char *xstrndup(const uint8_t *s, size_t n)
{
	char *d = xrealloc(NULL, 4 * n + 1), *o = d;

	if (!utf8_valid(s, n))
		error("string field '%.*s' is not valid UTF-8", (int)n, s);

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			*o++ = '\\';
			*o++ = (char)s[i];
		} else if (s[i] == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			o += sprintf(o, "\\x%02x", s[i]);
		} else {
			*o++ = (char)s[i];
		}
	}
	*o = '\0';
	return d;
}

static void error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("error: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	errors++;
}

static void str_add(struct str *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(s->s ? s->s + s->len : NULL, s->s ? s->cap - s->len : 0, fmt, ap);
		va_end(ap);
		if (s->s && s->len + (size_t)n < s->cap)
			break;
		s->cap = (s->cap + (size_t)n + 1) * 2;
		s->s = xrealloc(s->s, s->cap);
	}
	s->len += (size_t)n;
}

/* ---- wire format ---- */

struct rd {
	const uint8_t *p, *end;
	int bad;
};

struct field {
	uint32_t num;
	int wt;
	uint64_t v; /* varint / fixed64 */
	const uint8_t *data;
	size_t len;
};

static int get_varint(struct rd *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end)
			return -1;
		*v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return 0;
	}
	return -1;
}

/* Return: 1 with the next field, 0 at the end, -1 on malformed data. */
static int next(struct rd *r, struct field *f)
{
	uint64_t key;

	if (r->bad || r->p == r->end)
		return r->bad ? -1 : 0;
	if (get_varint(r, &key))
		goto bad;
	f->num = (uint32_t)(key >> 3);
	f->wt = (int)(key & 7);
	switch (f->wt) {
	case 0:
		if (get_varint(r, &f->v))
			goto bad;
		return 1;
	case 1:
		if (r->end - r->p < 8)
			goto bad;
		memcpy(&f->v, r->p, 8); /* little-endian host assumed (x86-64, arm64) */
		r->p += 8;
		return 1;
	case 2:
		if (get_varint(r, &f->v) || f->v > (uint64_t)(r->end - r->p))
			goto bad;
		f->data = r->p;
		f->len = (size_t)f->v;
		r->p += f->len;
		return 1;
	case 5:
		if (r->end - r->p < 4)
			goto bad;
		r->p += 4;
		return 1;
	}
bad:
	r->bad = 1;
	error("malformed protobuf at byte %ld of a message", (long)(r->end - r->p));
	return -1;
}

static struct rd sub(const struct field *f)
{
	struct rd r = {f->data, f->data + f->len, 0};

	return r;
}

/* ---- model ---- */

static struct seq *seq_get(uint32_t id)
{
	for (size_t i = 0; i < nseqs; i++)
		if (seqs[i].id == id)
			return &seqs[i];
	seqs = grow(seqs, nseqs, sizeof *seqs);
	memset(&seqs[nseqs], 0, sizeof *seqs);
	seqs[nseqs].id = id;
	seqs[nseqs].def_clock = -1;
	return &seqs[nseqs++];
}

static const char *lookup(const struct seq *s, int tab, uint64_t iid)
{
	for (size_t i = 0; s && i < s->nin; i++)
		if (s->in[i].tab == tab && s->in[i].iid == iid)
			return s->in[i].name;
	error("iid %" PRIu64 " of table %d not interned on sequence %u", iid, tab, s ? s->id : 0);
	return "?";
}

static struct track *track_find(uint64_t uuid)
{
	for (size_t i = 0; i < ntracks; i++)
		if (tracks[i].uuid == uuid)
			return &tracks[i];
	return NULL;
}

static const char *track_name(uint64_t uuid)
{
	static char buf[64];
	struct track *t = track_find(uuid);

	if (t && t->name)
		return t->name;
	if (t && t->kind == 2)
		snprintf(buf, sizeof buf, "thread %d", t->tid);
	else if (t && t->kind == 1)
		snprintf(buf, sizeof buf, "process %d", t->pid);
	else
		snprintf(buf, sizeof buf, "track %" PRIu64, uuid);
	return buf;
}

static void descriptor(struct rd r)
{
	struct field f, g;
	struct track t = {0}, *old;

	while (next(&r, &f) > 0) {
		struct rd s = sub(&f);

		switch (f.num) {
		case 1:
			t.uuid = f.v;
			break;
		case 2:
			free(t.name);
			t.name = xstrndup(f.data, f.len);
			break;
		case 5:
			t.parent = f.v;
			break;
		case 8:
			t.kind = 3;
			break;
		case 3:
		case 4:
			t.kind = f.num == 3 ? 1 : 2;
			while (next(&s, &g) > 0) {
				if (g.num == 1)
					t.pid = (int32_t)g.v;
				else if (g.num == 2 && f.num == 4)
					t.tid = (int32_t)g.v;
				else if ((g.num == 6 && f.num == 3) || (g.num == 5 && f.num == 4)) {
					free(t.name);
					t.name = xstrndup(g.data, g.len);
				}
			}
			break;
		}
	}
	if (!t.uuid) {
		error("track descriptor without uuid");
		return;
	}
	old = track_find(t.uuid);
	if (old) { /* a re-description (thread renamed): keep state, take the new facts */
		if (t.name) {
			free(old->name);
			old->name = t.name;
		}
		old->kind = t.kind;
		old->pid = t.pid;
		old->tid = t.tid;
		old->parent = t.parent;
		return;
	}
	tracks = grow(tracks, ntracks, sizeof *tracks);
	tracks[ntracks++] = t;
}

static void interned(struct seq *s, struct rd r)
{
	struct field f, g;

	while (next(&r, &f) > 0) {
		struct rd e = sub(&f);
		struct interned in = {0, (int)f.num, NULL};

		if (f.num < 1 || f.num > 3)
			continue;
		while (next(&e, &g) > 0) {
			if (g.num == 1)
				in.iid = g.v;
			else if (g.num == 2)
				in.name = xstrndup(g.data, g.len);
		}
		if (!s || !s->cleared) {
			error("interned data on sequence %u before its state was cleared",
			      s ? s->id : 0);
			free(in.name);
			continue;
		}
		s->in = grow(s->in, s->nin, sizeof *s->in);
		s->in[s->nin++] = in;
	}
}

static void annotation(struct seq *s, struct rd r, struct str *out)
{
	struct field f;
	const char *name = "?";
	char *own = NULL;
	double d;

	while (next(&r, &f) > 0) {
		switch (f.num) {
		case 1:
			name = lookup(s, 3, f.v);
			break;
		case 10:
			name = own = xstrndup(f.data, f.len);
			break;
		case 3:
			str_add(out, "%s%s=%" PRIu64, out->len ? ";" : "", name, f.v);
			break;
		case 4:
			str_add(out, "%s%s=%" PRId64, out->len ? ";" : "", name, (int64_t)f.v);
			break;
		case 5:
			memcpy(&d, &f.v, 8);
			str_add(out, "%s%s=%g", out->len ? ";" : "", name, d);
			break;
		case 6: {
			char *v = xstrndup(f.data, f.len);

			str_add(out, "%s%s=%s", out->len ? ";" : "", name, v);
			free(v);
			break;
		}
		case 7:
			str_add(out, "%s%s=0x%" PRIx64, out->len ? ";" : "", name, f.v);
			break;
		}
	}
	free(own);
}

static struct flow *flow_get(uint64_t id)
{
	for (size_t i = 0; i < nflows; i++)
		if (flows[i].id == id)
			return &flows[i];
	flows = grow(flows, nflows, sizeof *flows);
	memset(&flows[nflows], 0, sizeof *flows);
	flows[nflows].id = id;
	return &flows[nflows++];
}

static void flow_add(uint64_t id, long slice, int terminating)
{
	struct flow *w = flow_get(id);

	if (w->n == 2) {
		error("flow %" PRIx64 " has more than two events", id);
		return;
	}
	w->at[w->n++] = slice;
	w->terminating |= terminating;
}

static void track_event(struct seq *s, uint64_t ts, struct rd r)
{
	struct field f;
	uint64_t track = s ? s->def_track : 0, fl[8], term[8];
	int type = 0, nfl = 0, nterm = 0, has_value = 0;
	const char *name = NULL, *cat = NULL;
	char *own_name = NULL;
	struct str args = {0};
	double value = 0;
	struct track *t;

	while (next(&r, &f) > 0) {
		switch (f.num) {
		case 9:
			type = (int)f.v;
			break;
		case 11:
			track = f.v;
			break;
		case 10:
			name = lookup(s, 2, f.v);
			break;
		case 23:
			name = own_name = xstrndup(f.data, f.len);
			break;
		case 3:
			cat = lookup(s, 1, f.v);
			break;
		case 4:
			annotation(s, sub(&f), &args);
			break;
		case 30:
			value = (double)(int64_t)f.v;
			has_value = 1;
			break;
		case 44:
			memcpy(&value, &f.v, 8);
			has_value = 1;
			break;
		case 47:
			if (nfl < 8)
				fl[nfl++] = f.v;
			break;
		case 48:
			if (nterm < 8)
				term[nterm++] = f.v;
			break;
		}
	}
	t = track_find(track);
	if (!t) {
		error("event at %" PRIu64 " on undeclared track %" PRIu64, ts, track);
		goto out;
	}
	t->referenced = 1;
	if (type == 1 || type == 3) {
		struct slice *sl;

		slices = grow(slices, nslices, sizeof *slices);
		sl = &slices[nslices];
		memset(sl, 0, sizeof *sl);
		sl->track = track;
		sl->ts = sl->end = ts;
		sl->name = strdup(name ? name : "");
		sl->cat = strdup(cat ? cat : "");
		sl->args = args;
		args.s = NULL;
		sl->ended = type == 3 ? 2 : 0;
		if (type == 1) {
			t->stack = grow(t->stack, t->depth, sizeof *t->stack);
			t->stack[t->depth++] = nslices;
		} else {
			instants++;
		}
		for (int i = 0; i < nfl + nterm; i++)
			flow_add(i < nfl ? fl[i] : term[i - nfl], (long)nslices, i >= nfl);
		nslices++;
	} else if (type == 2) {
		struct slice *sl;

		if (!t->depth) {
			error("SLICE_END at %" PRIu64 " on '%s' without a BEGIN", ts,
			      track_name(track));
			goto out;
		}
		sl = &slices[t->stack[--t->depth]];
		if (ts < sl->ts)
			error("slice '%s' ends before it begins", sl->name);
		sl->end = ts;
		sl->ended = 1;
		if (args.len)
			str_add(&sl->args, "%s%s", sl->args.len ? ";" : "", args.s);
		for (int i = 0; i < nfl + nterm; i++)
			flow_add(i < nfl ? fl[i] : term[i - nfl], (long)(sl - slices), i >= nfl);
	} else if (type == 4) {
		if (t->kind != 3)
			error("counter value on non-counter track '%s'", track_name(track));
		if (!has_value)
			error("counter event without a value");
		if (!t->nvalues++)
			t->first = value;
		t->last = value;
		counter_values++;
	} else {
		error("track event of type %d", type);
	}
out:
	free(own_name);
	free(args.s);
}

static void clock_snapshot(struct rd r)
{
	struct field f, g;

	while (next(&r, &f) > 0) {
		if (f.num == 2)
			primary_clock = (int)f.v;
		if (f.num != 1)
			continue;
		struct rd c = sub(&f);
		uint64_t id = 0, ts = 0;

		while (next(&c, &g) > 0) {
			if (g.num == 1)
				id = g.v;
			else if (g.num == 2)
				ts = g.v;
		}
		str_add(&snapshot, "%s%" PRIu64 ":%" PRIu64, snapshot.len ? "," : "", id, ts);
	}
}

static void packet(struct rd r)
{
	struct field f;
	uint64_t ts = 0, flags = 0;
	uint32_t seq_id = 0;
	struct seq *s = NULL;
	struct rd start = r;

	packets++;
	/* first pass: the header fields, wherever they sit in the packet */
	while (next(&r, &f) > 0) {
		if (f.num == 8)
			ts = f.v;
		else if (f.num == 10)
			seq_id = (uint32_t)f.v;
		else if (f.num == 13)
			flags = f.v;
	}
	if (seq_id)
		s = seq_get(seq_id);
	if (s && (flags & 1)) {
		for (size_t i = 0; i < s->nin; i++)
			free(s->in[i].name);
		s->nin = 0;
		s->cleared = 1;
		s->def_track = 0;
		s->def_clock = -1;
	}
	if ((flags & 2) && (!s || !s->cleared))
		error("packet needs incremental state, but sequence %u never cleared it", seq_id);
	r = start;
	while (next(&r, &f) > 0) {
		struct rd m = sub(&f);
		struct field g;

		switch (f.num) {
		case 6:
			clock_snapshot(m);
			break;
		case 12:
			interned(s, m);
			break;
		case 59:
			if (!s || !s->cleared) {
				error("packet defaults outside a cleared sequence");
				break;
			}
			while (next(&m, &g) > 0) {
				if (g.num == 58)
					s->def_clock = (int)g.v;
				if (g.num == 11) {
					struct rd te = sub(&g);
					struct field h;

					while (next(&te, &h) > 0)
						if (h.num == 11)
							s->def_track = h.v;
				}
			}
			break;
		case 60:
			descriptor(m);
			break;
		}
	}
	/* the event last: it may use what the same packet interned */
	r = start;
	while (next(&r, &f) > 0)
		if (f.num == 11) {
			if (s && s->def_clock != 3)
				error("event on sequence %u without the MONOTONIC clock default",
				      seq_id);
			track_event(s, ts, sub(&f));
		}
}

static const char *kinds[] = {"custom", "process", "thread", "counter"};

int main(int argc, char **argv)
{
	FILE *fp;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;
	struct rd r;
	struct field f;
	unsigned long nflow = 0;

	if (argc != 2 || !(fp = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: pf_decode FILE.pftrace\n");
		return 2;
	}
	do {
		if (len == cap)
			buf = xrealloc(buf, cap = cap ? cap * 2 : 1 << 16);
		n = fread(buf + len, 1, cap - len, fp);
		len += n;
	} while (n);
	fclose(fp);
	r.p = buf;
	r.end = buf + len;
	r.bad = 0;
	while (next(&r, &f) > 0) {
		if (f.num != 1 || f.wt != 2) {
			error("top-level field %u is not Trace.packet", f.num);
			continue;
		}
		packet(sub(&f));
	}
	free(buf); /* what is left is reachable from the model (no leak under ASan) */
	printf("clock primary=%d snapshot=%s\n", primary_clock, snapshot.s ? snapshot.s : "");
	for (size_t i = 0; i < ntracks; i++) {
		struct track *t = &tracks[i];

		printf("track uuid=%" PRIu64 " kind=%s pid=%d tid=%d name=\"%s\" parent=%" PRIu64
		       "\n",
		       t->uuid, kinds[t->kind], t->pid, t->tid, track_name(t->uuid), t->parent);
		if (t->depth)
			printf("open %zu slices on \"%s\"\n", t->depth, track_name(t->uuid));
		if (t->parent && !track_find(t->parent))
			error("track %" PRIu64 " has an undeclared parent", t->uuid);
		if (t->kind == 3) {
			char parent[256];

			snprintf(parent, sizeof parent, "%s", track_name(t->parent));
			printf("counters track=\"%s\" parent=\"%s\" n=%" PRIu64
			       " first=%.17g last=%.17g\n",
			       track_name(t->uuid), parent, t->nvalues, t->first, t->last);
		}
	}
	for (size_t i = 0; i < nslices; i++) {
		struct slice *s = &slices[i];

		if (s->ended == 2)
			printf("instant track=\"%s\" name=\"%s\" cat=\"%s\" ts=%" PRIu64
			       " args={%s}\n",
			       track_name(s->track), s->name, s->cat, s->ts,
			       s->args.s ? s->args.s : "");
		else
			printf("slice track=\"%s\" name=\"%s\" cat=\"%s\" ts=%" PRIu64
			       " dur=%" PRIu64 " args={%s}\n",
			       track_name(s->track), s->name, s->cat, s->ts, s->end - s->ts,
			       s->args.s ? s->args.s : "");
	}
	for (size_t i = 0; i < nflows; i++) {
		struct flow *w = &flows[i];
		struct slice *a, *b;
		char from[256];

		if (w->n < 2) {
			if (w->terminating)
				error("flow %" PRIx64 " ends without a start", w->id);
			continue;
		}
		a = &slices[w->at[0]];
		b = &slices[w->at[1]];
		if (b->ts < a->ts) { /* the earlier event is the source */
			struct slice *t = a;

			a = b;
			b = t;
		}
		snprintf(from, sizeof from, "%s", track_name(a->track));
		printf("flow from=\"%s\"@\"%s\" to=\"%s\"@\"%s\"\n", a->name, from, b->name,
		       track_name(b->track));
		nflow++;
	}
	printf("summary packets=%lu sequences=%zu tracks=%zu slices=%zu instants=%lu "
	       "counter_values=%lu flows=%lu errors=%lu\n",
	       packets, nseqs, ntracks, nslices - instants, instants, counter_values, nflow,
	       errors);
	return errors ? 1 : 0;
}
