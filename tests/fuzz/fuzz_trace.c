/*
 * Fuzz target for everything that reads a trace: one file of an otherwise
 * valid trace is replaced by the input, and the trace then goes through the
 * whole path a user can take: `info` (summary), `report`, the Chrome,
 * Perfetto and CTF exports, the HTML view, `check --repair` (finalize) and a
 * second read. Built with ASan + UBSan (and float-cast-overflow) from the
 * sources, so every reader and exporter is instrumented.
 *
 * Seeds are whole trace directories recorded or written by fuzz.sh (a
 * program with API calls, threads, a synthetic trace with device commands
 * and clock pairs, CPU states, every event class). A case is a whole
 * trace in one file (entries "PROC/NAME\nLENGTH\n" then the bytes), so a
 * crashing input is a self-contained regression case:
 *   fuzz_trace run CASE...                        replays cases (CTest keeps
 *                                                 the ones that once failed)
 *   fuzz_trace mutate SEEDS_DIR ITERATIONS SECONDS  mutates one file of a seed
 *                                                 trace per run; the trace is
 *                                                 saved as ./last.case first,
 *                                                 so a crash leaves it behind
 * Any crash, leak or sanitizer report fails the test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/finalize.h"
#include "analysis/report.h"
#include "analysis/summary.h"
#include "export/export.h"

struct file {
	char rel[800]; /* SEED/PROC/NAME */
	uint8_t *data;
	size_t len;
};

static struct file files[512];
static unsigned int nfiles;
static char work[64];
static unsigned long long runs, rejected;

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		b = malloc((size_t)n + 1);
		if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return b;
}

/* Loads every file of every trace under dir: DIR/SEED/PROC/NAME. */
static int load_seeds(const char *dir)
{
	DIR *d = opendir(dir), *p, *s;
	struct dirent *a, *b, *c;
	char path[1100];

	if (!d)
		return -1;
	while ((a = readdir(d)))
		if (a->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, a->d_name);
			if (!(p = opendir(path)))
				continue;
			while ((b = readdir(p)))
				if (b->d_name[0] != '.') {
					snprintf(path, sizeof path, "%s/%s/%s", dir, a->d_name,
						 b->d_name);
					if (!(s = opendir(path)))
						continue; /* the index */
					while ((c = readdir(s)) && nfiles < 512) {
						struct file *f = &files[nfiles];

						if (c->d_name[0] == '.')
							continue;
						snprintf(f->rel, sizeof f->rel, "%s/%s/%s",
							 a->d_name, b->d_name, c->d_name);
						snprintf(path, sizeof path, "%s/%s", dir, f->rel);
						if ((f->data = load(path, &f->len)))
							nfiles++;
					}
					closedir(s);
				}
			closedir(p);
		}
	closedir(d);
	return nfiles ? 0 : -1;
}

static void put(const char *rel, const uint8_t *data, size_t len)
{
	char path[1024], *slash;
	int fd;

	snprintf(path, sizeof path, "%s/%s", work, rel);
	for (slash = strchr(path + strlen(work) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (len && write(fd, data, len) != (ssize_t)len))
		abort();
	close(fd);
}

static void rmtree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char sub[1024];

	if (!d) {
		unlink(path);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			rmtree(sub);
		}
	closedir(d);
	rmdir(path);
}

/* Every reader and exporter over the trace at dir. */
static void read_all(const char *dir)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	struct ht_finalize_stats st;
	char out[1024];

	if (ht_trace_open(&t, dir, &err)) {
		rejected++;
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		struct ht_proc_summary *s = calloc(t->nprocs, sizeof *s);
		struct ht_report r;
		FILE *f = fopen("/dev/null", "w");

		if (!s || !f)
			abort();
		rejected += ht_summary_compute(t, s, &err) != 0;
		for (unsigned int i = 0; i < t->nprocs; i++)
			ht_summary_release(&s[i]);
		free(s);
		if (ht_report_compute(t, &r, &err) == 0)
			ht_report_release(&r);
		ht_export_chrome(t, f, &err);
		ht_export_perfetto(t, f, &err);
		ht_view_html(t, f, &err);
		fclose(f);
		snprintf(out, sizeof out, "%s.ctf", work);
		ht_export_ctf(t, out, &err);
		rmtree(out);
		if (pass == 0)
			ht_finalize_trace(t, 0.4, &st, &err);
	}
	ht_trace_close(t);
	runs++;
}

/*
 * Writes the trace of seed file `rel` (its other files as they are, rel's
 * content replaced) to the work directory, and to ./last.case when saving.
 */
static void run(const char *rel, const uint8_t *data, size_t len, int save)
{
	size_t seedlen = strcspn(rel, "/");
	FILE *c = save ? fopen("last.case", "wb") : NULL;
	char dir[1024];

	rmtree(work);
	mkdir(work, 0700);
	for (unsigned int i = 0; i < nfiles; i++)
		if (!strncmp(files[i].rel, rel, seedlen) && files[i].rel[seedlen] == '/') {
			const uint8_t *d = strcmp(files[i].rel, rel) ? files[i].data : data;
			size_t n = strcmp(files[i].rel, rel) ? files[i].len : len;

			put(files[i].rel, d, n);
			if (c) {
				fprintf(c, "%s\n%zu\n", files[i].rel + seedlen + 1, n);
				fwrite(d, 1, n, c);
			}
		}
	if (c)
		fclose(c);
	snprintf(dir, sizeof dir, "%s/%.*s", work, (int)seedlen, rel);
	read_all(dir);
}

/* A case: entries "PROC/NAME\nLENGTH\n" + bytes, the files of one trace. */
static int run_case(const uint8_t *c, size_t len)
{
	char dir[1024], rel[1200];
	size_t pos = 0;

	rmtree(work);
	mkdir(work, 0700);
	while (pos < len) {
		const uint8_t *nl = memchr(c + pos, '\n', len - pos);
		const uint8_t *nl2 = nl ? memchr(nl + 1, '\n', len - (size_t)(nl + 1 - c)) : NULL;
		unsigned long long n;

		if (!nl || !nl2 || nl - (c + pos) > 900 ||
		    sscanf((const char *)nl + 1, "%llu", &n) != 1 ||
		    n > len - (size_t)(nl2 + 1 - c) || memchr(c + pos, '.', 1))
			return -1;
		snprintf(rel, sizeof rel, "case/%.*s", (int)(nl - (c + pos)),
			 (const char *)c + pos);
		if (strstr(rel, "/../"))
			return -1;
		put(rel, nl2 + 1, (size_t)n);
		pos = (size_t)(nl2 + 1 - c) + (size_t)n;
	}
	snprintf(dir, sizeof dir, "%s/case", work);
	read_all(dir);
	return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Offsets worth aiming at: packet context fields and the first event headers. */
static const size_t hot[] = {HT_PH_MAGIC,
			     HT_PH_STREAM_ID,
			     HT_PC_TS_BEGIN,
			     HT_PC_TS_END,
			     HT_PC_CONTENT,
			     HT_PC_PACKET,
			     HT_PC_SEQ,
			     HT_PC_DISCARDED,
			     HT_PC_TSC_BEGIN,
			     HT_PC_TSC_END,
			     HT_PC_TS_STATE,
			     126,
			     130,
			     134,
			     139,
			     143};
static const uint64_t values[] = {0,	      1,	  7,	      8,
				  0x7f,	      0xff,	  0x100,      0x3f0,
				  0x3f8,      0x400,	  4096 * 8,   65536 * 8,
				  0x7fffffff, 0xffffffff, UINT64_MAX, UINT64_MAX / 8,
				  1ull << 40, 0xfffffff0, 1ull << 63};

static size_t mutate(uint8_t *b, size_t len, size_t cap)
{
	unsigned int n = 1 + rnd() % 4;

	for (unsigned int k = 0; k < n && len; k++) {
		size_t off;

		switch (rnd() % 7) {
		case 0: /* bit flip anywhere */
			off = rnd() % len;
			b[off] ^= (uint8_t)(1u << (rnd() % 8));
			break;
		case 1: /* interesting value into a context field of some packet */
			off = (rnd() % (len / 4096 + 1)) * 4096 +
			      hot[rnd() % (sizeof hot / sizeof hot[0])];
			if (off + 8 <= len)
				ht_put64(b + off,
					 values[rnd() % (sizeof values / sizeof values[0])]);
			break;
		case 2: /* random bytes into the first events */
			off = 126 + rnd() % 256;
			if (off < len)
				b[off] = (uint8_t)rnd();
			break;
		case 3: /* interesting 32-bit value anywhere (ids, sizes, string ids) */
			off = rnd() % len;
			if (off + 4 <= len)
				ht_put32(
				    b + off,
				    (uint32_t)values[rnd() % (sizeof values / sizeof values[0])]);
			break;
		case 4: /* truncate */
			len = rnd() % len;
			break;
		case 5: /* duplicate a chunk (a repeated packet) */
			off = rnd() % len;
			if (len + (len - off) <= cap) {
				memcpy(b + len, b + off, len - off);
				len += len - off;
			}
			break;
		case 6: /* zero a run */
			off = rnd() % len;
			memset(b + off, 0, (len - off) < 64 ? len - off : 64);
			break;
		}
	}
	return len;
}

int main(int argc, char **argv)
{
	snprintf(work, sizeof work, "/dev/shm/ht-fuzz.%d", (int)getpid());
	if (access("/dev/shm", W_OK))
		snprintf(work, sizeof work, "/tmp/ht-fuzz.%d", (int)getpid());
	if (argc < 3 || (strcmp(argv[1], "run") && load_seeds(argv[2]))) {
		fprintf(stderr, "usage: fuzz_trace run CASE... | "
				"mutate SEEDS_DIR ITERATIONS SECONDS\n");
		return 2;
	}
	if (!strcmp(argv[1], "run")) {
		for (int i = 2; i < argc; i++) {
			size_t len;
			uint8_t *c = load(argv[i], &len);

			if (!c || run_case(c, len)) {
				fprintf(stderr, "fuzz_trace: bad case '%s'\n", argv[i]);
				return 2;
			}
			free(c);
		}
	} else {
		long iters = argc > 3 ? atol(argv[3]) : 1000;
		time_t stop = time(NULL) + (argc > 4 ? atol(argv[4]) : 120);
		size_t cap = 0;
		uint8_t *buf;
		long it;

		/* The seeds themselves must read cleanly. */
		for (unsigned int i = 0; i < nfiles; i++) {
			cap = files[i].len > cap ? files[i].len : cap;
			run(files[i].rel, files[i].data, files[i].len, 0);
		}
		if (rejected) {
			fprintf(stderr, "fuzz_trace: a seed does not read cleanly\n");
			return 1;
		}
		cap = 2 * cap + 64;
		buf = malloc(cap);
		for (it = 0; it < iters && time(NULL) < stop; it++) {
			const struct file *f = &files[rnd() % nfiles];
			size_t len;

			if (strstr(f->rel, "/metadata"))
				continue; /* TSDL text: the reader only checks it is ours */
			memcpy(buf, f->data, f->len);
			len = mutate(buf, f->len, cap);
			run(f->rel, buf, len, 1);
		}
		free(buf);
		printf("fuzz_trace: %ld iterations over %u seed files\n", it, nfiles);
	}
	for (unsigned int i = 0; i < nfiles; i++)
		free(files[i].data);
	rmtree(work);
	printf("fuzz_trace: %llu traces read through every path, %llu rejected\n", runs, rejected);
	return 0;
}
