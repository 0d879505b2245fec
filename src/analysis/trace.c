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

int ht_trace_open(struct ht_trace **out, const char *path, struct ht_read_error *err)
{
	struct ht_trace *t = calloc(1, sizeof *t);
	DIR *d = NULL;
	struct dirent *de;
	unsigned int cap = 0;
	int r, fd;

	if (!t)
		return -ENOMEM;
	snprintf(t->path, sizeof t->path, "%s", path);
	t->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0) {
		r = fail(err, path, HT_NO_OFFSET, -errno, strerror(errno));
		goto err;
	}
	fd = dup(t->fd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		r = fail(err, path, HT_NO_OFFSET, -errno, strerror(errno));
		goto err;
	}
	while ((de = readdir(d))) {
		struct ht_trace_process p = {.fd = -1};
		char file[4400];

		if (de->d_name[0] == '.')
			continue;
		p.fd = openat(t->fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (p.fd < 0)
			continue; /* not a directory */
		snprintf(file, sizeof file, "%s/%s/metadata", path, de->d_name);
		r = read_metadata(p.fd, p.uuid);
		if (r == 1) {
			close(p.fd);
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
			goto err;
		}
		snprintf(p.name, sizeof p.name, "%s", de->d_name);
		r = list_streams(&p);
		if (r) {
			close(p.fd);
			r = fail(err, file, HT_NO_OFFSET, r, strerror(-r));
			goto err;
		}
		if (t->nprocs == cap) {
			cap = cap ? cap * 2 : 8;
			void *n = realloc(t->procs, cap * sizeof *t->procs);

			if (!n) {
				close(p.fd);
				free(p.streams);
				r = -ENOMEM;
				goto err;
			}
			t->procs = n;
		}
		t->procs[t->nprocs++] = p;
	}
	closedir(d);
	d = NULL;
	if (t->nprocs == 0) {
		r = fail(err, path, HT_NO_OFFSET, -ENOENT,
			 "not a hetrace trace (no process directory with a metadata file)");
		goto err;
	}
	qsort(t->procs, t->nprocs, sizeof *t->procs, cmp_names);
	*out = t;
	return 0;
err:
	if (d)
		closedir(d);
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
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

int ht_trace_index_get(const struct ht_trace *t, const char *key, char *buf, size_t cap)
{
	return ht_trace_index_get_nth(t, key, 0, buf, cap);
}

int ht_trace_index_get_nth(const struct ht_trace *t, const char *key, unsigned int nth, char *buf,
			   size_t cap)
{
	int fd = openat(t->fd, HT_INDEX_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	char data[16384];
	ssize_t n;
	size_t klen = strlen(key);
	char *line, *save = NULL;

	if (fd < 0)
		return -ENOENT;
	n = read(fd, data, sizeof data - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	data[n] = '\0';
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, key, klen) && line[klen] == '=' && !nth--) {
			snprintf(buf, cap, "%s", line + klen + 1);
			return 0;
		}
	}
	return -ENOENT;
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
