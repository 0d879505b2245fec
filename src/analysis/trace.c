/*
 * Trace directory enumeration and stream reading (see trace.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "analysis/trace.h"
#include "common/grow.h"

static int fail(struct ht_read_error *err, const char *file, uint64_t off, int code,
		const char *msg)
{
	if (err) {
		snprintf(err->file, sizeof err->file, "%s", file);
		err->offset = off;
		snprintf(err->msg, sizeof err->msg, "%s", msg);
	}
	return code;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	unsigned int n = 0;

	for (; *s && n < 32; s++) {
		int v;

		if (*s == '-')
			continue;
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			v = *s - 'a' + 10;
		else
			return -1;
		if (n % 2 == 0)
			out[n / 2] = (uint8_t)(v << 4);
		else
			out[n / 2] |= (uint8_t)v;
		n++;
	}
	return n == 32 ? 0 : -1;
}

/* Checks that `metadata` is ours and takes the uuid. Return: 0, 1 (not ours), or -errno. */
static int read_metadata(int procfd, uint8_t uuid[16])
{
	char buf[2048];
	int fd = openat(procfd, "metadata", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n;
	const char *u;

	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (strncmp(buf, "/* CTF 1.8 */", 13))
		return -EBADMSG;
	if (!strstr(buf, "tracer_name = \"" HT_TRACER_NAME "\""))
		return -EBADMSG;
	if (strstr(buf, "export = \""))
		return -EMEDIUMTYPE; /* `hetrace export --format ctf` output, not a recording */
	u = strstr(buf, "uuid = \"");
	if (!u || parse_uuid(u + 8, uuid))
		return -EBADMSG;
	return 0;
}

static int list_streams(struct ht_trace_process *p)
{
	DIR *d;
	struct dirent *de;
	int fd = dup(p->fd);
	unsigned int cap = 0;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata"))
			continue;
		if (fstatat(p->fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (p->nstreams == cap) {
			cap = cap ? cap * 2 : 16;
			void *n = realloc(p->streams, cap * sizeof *p->streams);

			if (!n) {
				closedir(d);
				return -ENOMEM;
			}
			p->streams = n;
		}
		snprintf(p->streams[p->nstreams++].name, sizeof p->streams[0].name, "%s",
			 de->d_name);
	}
	closedir(d);
	if (p->nstreams)
		qsort(p->streams, p->nstreams, sizeof *p->streams, cmp_names);
	return 0;
}

/*
 * Adds the processes of the directory dfd (the trace, or a part of it:
 * prefix "NAME/") to t. Return: 0, or < 0 with err filled.
 */
static int add_processes(struct ht_trace *t, int dfd, const char *dir, const char *prefix,
			 unsigned int part, size_t *cap, struct ht_read_error *err)
{
	int fd = dup(dfd), r = 0;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		r = fail(err, dir, HT_NO_OFFSET, -errno, strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	rewinddir(d); /* a dup shares its offset with dfd's earlier scans */
	while ((de = readdir(d))) {
		struct ht_trace_process p = {.fd = -1, .part = part};
		char file[4400];

		if (de->d_name[0] == '.')
			continue;
		p.fd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (p.fd < 0)
			continue; /* not a directory */
		snprintf(file, sizeof file, "%s/%s/metadata", dir, de->d_name);
		r = read_metadata(p.fd, p.uuid);
		if (r == 1) {
			close(p.fd);
			r = 0;
			continue;
		}
		if (r < 0) {
			close(p.fd);
			r = fail(err, file, HT_NO_OFFSET, r,
				 r == -EBADMSG ? "not hetrace CTF metadata (signature, tracer "
						 "name or uuid missing)"
				 : r == -EMEDIUMTYPE
				     ? "a CTF export (hetrace export --format ctf), not a "
				       "recording: read it with babeltrace2 or Trace Compass"
				     : strerror(-r));
			break;
		}
		snprintf(p.name, sizeof p.name, "%s%s", prefix, de->d_name);
		r = list_streams(&p);
		if (r) {
			close(p.fd);
			r = fail(err, file, HT_NO_OFFSET, r, strerror(-r));
			break;
		}
		if (ht_grow((void **)&t->procs, cap, sizeof *t->procs, t->nprocs + 1)) {
			close(p.fd);
			free(p.streams);
			r = -ENOMEM;
			break;
		}
		t->procs[t->nprocs++] = p;
	}
	closedir(d);
	return r;
}

static int cmp_parts(const void *a, const void *b)
{
	const struct ht_trace_part *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * A trace of parts: the parts its index lists (layout=parts), each opened
 * when its directory exists. Return: 1 (parts read into t), 0 (not a trace
 * of parts), < 0 with err filled.
 */
static int open_parts(struct ht_trace *t, struct ht_read_error *err)
{
	char *text = NULL, *line, *save = NULL;
	size_t cap = 0;
	int r = ht_trace_index_read(t->fd, &text);

	if (r)
		return r == -ENOENT ? 0 : fail(err, t->path, HT_NO_OFFSET, r, strerror(-r));
	if (!strstr(text, "\nlayout=parts\n") && strncmp(text, "layout=parts\n", 13)) {
		free(text);
		return 0;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct ht_trace_part p = {.fd = -1};
		int n = 0;

		if (strncmp(line, "part=", 5) ||
		    sscanf(line, "part=%127s rank=%d host=%71s%n", p.name, &p.rank, p.host, &n) <
			3 ||
		    strchr(p.name, '/') || p.name[0] == '.')
			continue; /* not a part line (or one naming no directory of T) */
		p.fd = openat(t->fd, p.name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (p.fd < 0)
			continue; /* listed, but the rank never started recording */
		if (ht_grow((void **)&t->parts, &cap, sizeof *t->parts, t->nparts + 1)) {
			close(p.fd);
			free(text);
			return fail(err, t->path, HT_NO_OFFSET, -ENOMEM, "out of memory");
		}
		t->parts[t->nparts++] = p;
	}
	free(text);
	if (t->nparts)
		qsort(t->parts, t->nparts, sizeof *t->parts, cmp_parts);
	return 1;
}

int ht_trace_open(struct ht_trace **out, const char *path, struct ht_read_error *err)
{
	struct ht_trace *t = calloc(1, sizeof *t);
	size_t cap = 0;
	int r;

	if (!t)
		return -ENOMEM;
	snprintf(t->path, sizeof t->path, "%s", path);
	t->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0) {
		r = fail(err, path, HT_NO_OFFSET, -errno, strerror(errno));
		goto err;
	}
	r = open_parts(t, err);
	if (r < 0)
		goto err;
	if (r == 0) {
		r = add_processes(t, t->fd, path, "", 0, &cap, err);
		if (r)
			goto err;
	}
	for (unsigned int i = 0; i < t->nparts; i++) {
		char dir[4400], prefix[136];

		snprintf(dir, sizeof dir, "%s/%s", path, t->parts[i].name);
		snprintf(prefix, sizeof prefix, "%s/", t->parts[i].name);
		r = add_processes(t, t->parts[i].fd, dir, prefix, i, &cap, err);
		if (r)
			goto err;
	}
	if (t->nprocs == 0) {
		r = fail(err, path, HT_NO_OFFSET, -ENOENT,
			 "not a hetrace trace (no process directory with a metadata file)");
		goto err;
	}
	qsort(t->procs, t->nprocs, sizeof *t->procs, cmp_names);
	*out = t;
	return 0;
err:
	ht_trace_close(t);
	return r;
}

void ht_trace_close(struct ht_trace *t)
{
	if (!t)
		return;
	for (unsigned int i = 0; i < t->nprocs; i++) {
		close(t->procs[i].fd);
		free(t->procs[i].streams);
	}
	free(t->procs);
	for (unsigned int i = 0; i < t->nparts; i++)
		close(t->parts[i].fd);
	free(t->parts);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

int ht_trace_index_read(int dfd, char **text)
{
	int fd = openat(dfd, HT_INDEX_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	for (;;) {
		ssize_t got;

		if (ht_grow((void **)&buf, &cap, 1, n + 16385)) {
			close(fd);
			free(buf);
			return -ENOMEM;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			int e = got < 0 ? errno : 0;

			close(fd);
			if (e) {
				free(buf);
				return -e;
			}
			break;
		}
		n += (size_t)got;
	}
	buf[n] = '\0';
	*text = buf;
	return 0;
}

/* The nth (from 0) `key=` in the index of directory dfd, into buf. Return: 0, or -ENOENT. */
static int index_get(int dfd, const char *key, unsigned int nth, char *buf, size_t cap)
{
	char *text = NULL, *line, *save = NULL;
	size_t klen = strlen(key);
	int r = -ENOENT;

	if (ht_trace_index_read(dfd, &text))
		return -ENOENT;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == '=' && !nth--) {
			snprintf(buf, cap, "%s", line + klen + 1);
			r = 0;
			break;
		}
	}
	free(text);
	return r;
}

int ht_trace_index_get(const struct ht_trace *t, const char *key, char *buf, size_t cap)
{
	return ht_trace_index_get_nth(t, key, 0, buf, cap);
}

int ht_trace_index_get_nth(const struct ht_trace *t, const char *key, unsigned int nth, char *buf,
			   size_t cap)
{
	if (!index_get(t->fd, key, nth, buf, cap))
		return 0;
	return t->nparts ? index_get(t->parts[0].fd, key, nth, buf, cap) : -ENOENT;
}

int ht_trace_part_index_get(const struct ht_trace *t, unsigned int i, const char *key, char *buf,
			    size_t cap)
{
	return i < t->nparts ? index_get(t->parts[i].fd, key, 0, buf, cap) : -ENOENT;
}

int ht_stream_reader_open(struct ht_stream_reader *r, const struct ht_trace_process *p,
			  const char *stream, struct ht_read_error *err)
{
	struct stat st;

	memset(r, 0, sizeof *r);
	snprintf(r->path, sizeof r->path, "%s/%s", p->name, stream);
	r->uuid = p->uuid;
	r->fd = openat(p->fd, stream, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		int e = errno;

		if (r->fd >= 0)
			close(r->fd);
		r->fd = -1;
		return fail(err, r->path, HT_NO_OFFSET, -e, strerror(e));
	}
	r->file_size = (uint64_t)st.st_size;
	return 0;
}

void ht_stream_reader_close(struct ht_stream_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	r->fd = -1;
	r->buf = NULL;
}

static int ensure_cap(struct ht_stream_reader *r, size_t need)
{
	if (r->cap >= need)
		return 0;
	uint8_t *b = realloc(r->buf, need);

	if (!b)
		return -ENOMEM;
	r->buf = b;
	r->cap = need;
	return 0;
}

/* Cross-packet invariants of one stream. */
static int check_sequence(struct ht_stream_reader *r, struct ht_read_error *err)
{
	const struct ht_packet *pk = &r->pk;
	const char *why = NULL;
	char msg[200];

	if (memcmp(pk->uuid, r->uuid, 16))
		why = "packet uuid differs from the metadata uuid";
	else if (r->packets && pk->sc != r->prev_sc)
		why = "stream class changes within the stream";
	else if (r->packets && pk->instance != r->prev_instance)
		why = "stream instance id changes within the stream";
	else if (r->packets && pk->vtid != r->prev_vtid)
		why = "thread id changes within the stream";
	else if (r->packets && pk->discarded < r->prev_discarded)
		why = "events_discarded decreases (it is a running total)";
	else if (!r->packets && pk->seq != 0)
		why = "first packet_seq_num is not 0";
	else if (r->packets && pk->seq != r->prev_seq + 1)
		why = "packet_seq_num is not consecutive";
	else if (pk->ts_state == HT_TS_NS && r->packets && pk->ts_begin < r->prev_end)
		why = "packet begins before the previous one ends";
	if (why) {
		snprintf(msg, sizeof msg, "%s", why);
		return fail(err, r->path, pk->offset, -EBADMSG, msg);
	}
	r->prev_sc = pk->sc;
	r->prev_instance = pk->instance;
	r->prev_vtid = pk->vtid;
	r->prev_discarded = pk->discarded;
	r->prev_seq = pk->seq;
	r->prev_end = pk->ts_end ? pk->ts_end : pk->ts_begin;
	return 0;
}

int ht_stream_reader_next_packet(struct ht_stream_reader *r, struct ht_read_error *err)
{
	uint64_t off = r->next, left;
	int n, rc;

	r->have_packet = 0;
	if (off >= r->file_size)
		return 0;
	left = r->file_size - off;
	rc = ensure_cap(r, HT_PC_DEVICE_END);
	if (rc)
		return fail(err, r->path, off, rc, strerror(-rc));
	n = (int)ht_pread_full(r->fd, r->buf,
			       left < HT_PC_DEVICE_END ? (size_t)left : HT_PC_DEVICE_END, off);
	if (n < 0)
		return fail(err, r->path, off, n, strerror(-n));
	rc = ht_packet_decode(&r->pk, r->buf, (size_t)n, off, err);
	if (rc == 0 || (rc == -EAGAIN && r->pk.size && r->pk.size <= left)) {
		rc = ensure_cap(r, r->pk.size);
		if (rc)
			return fail(err, r->path, off, rc, strerror(-rc));
		n = (int)ht_pread_full(r->fd, r->buf, r->pk.size, off);
		if (n < 0)
			return fail(err, r->path, off, n, strerror(-n));
		rc = ht_packet_decode(&r->pk, r->buf, (size_t)n, off, err);
	}
	if (rc == -EAGAIN) {
		r->torn = 1;
		r->torn_offset = off;
		r->torn_bytes = left;
		r->next = r->file_size;
		return 0;
	}
	if (rc < 0) {
		snprintf(err->file, sizeof err->file, "%s", r->path);
		return rc;
	}
	rc = check_sequence(r, err);
	if (rc)
		return rc;
	r->packets++;
	r->next = off + r->pk.size;
	ht_event_iter_init(&r->it, &r->pk, r->buf);
	r->have_packet = 1;
	return 1;
}

int ht_stream_reader_next(struct ht_stream_reader *r, struct ht_event *ev,
			  struct ht_read_error *err)
{
	for (;;) {
		int rc;

		if (r->have_packet) {
			rc = ht_event_iter_next(&r->it, ev, err);
			if (rc < 0) {
				snprintf(err->file, sizeof err->file, "%s", r->path);
				return rc;
			}
			if (rc > 0)
				return 1;
		}
		rc = ht_stream_reader_next_packet(r, err);
		if (rc <= 0)
			return rc;
	}
}
