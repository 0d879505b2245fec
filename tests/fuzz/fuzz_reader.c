/*
 * Fuzz target for the trace reader: the input becomes a stream file of an
 * otherwise valid trace, which then goes through everything that reads
 * traces (summary, event decoding, finalization and a second read).
 *
 * Built two ways: with -DHT_LIBFUZZER as a libFuzzer target (clang
 * -fsanitize=fuzzer), and by default as a deterministic mutation fuzzer for
 * CTest, built with ASan + UBSan:
 *   fuzz_reader ITERATIONS SEED_FILE...
 * Each iteration takes a seed (a real recorded stream), applies a few
 * mutations aimed at the packet context and event headers (bit flips,
 * interesting values in size/offset fields, truncation, duplication), and
 * runs the input. Any crash, leak or sanitizer report fails the test.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/finalize.h"
#include "analysis/summary.h"
#include "format/tsdl.h"

static char root[64];
static unsigned long long decoded, rejected;
static const uint8_t uuid[16] = {0xc1, 0xfc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

static void setup(void)
{
	struct ht_tsdl_params tp = {.hostname = "fuzz", .trace_name = "fuzz"};
	char path[128];
	FILE *f;

	snprintf(root, sizeof root, "/dev/shm/ht-fuzz.%d", (int)getpid());
	if (mkdir(root, 0700) &&
	    mkdir((snprintf(root, sizeof root, "/tmp/ht-fuzz.%d", (int)getpid()), root), 0700))
		abort();
	snprintf(path, sizeof path, "%s/1-fuzz", root);
	mkdir(path, 0700);
	snprintf(path, sizeof path, "%s/1-fuzz/metadata", root);
	memcpy(tp.uuid, uuid, 16);
	f = fopen(path, "w");
	if (!f || ht_tsdl_write(f, &tp))
		abort();
	fclose(f);
}

static void put_input(const uint8_t *data, size_t size)
{
	char path[128];
	int fd;

	snprintf(path, sizeof path, "%s/1-fuzz/thread-1", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	close(fd);
}

/* Reads the whole trace through every reader path. */
static void read_all(void)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	struct ht_finalize_stats st;

	if (ht_trace_open(&t, root, &err))
		return;
	for (int pass = 0; pass < 2; pass++) {
		struct ht_proc_summary s[1];

		if (t->nprocs > 1)
			abort(); /* the fuzzer writes one process */
		if (ht_summary_compute(t, s, &err))
			rejected++;
		decoded += s[0].events;
		ht_summary_release(&s[0]);
		if (pass == 0)
			ht_finalize_trace(t, 0.4, &st, &err);
	}
	ht_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	put_input(data, size);
	read_all();
	return 0;
}

#ifndef HT_LIBFUZZER
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
static const uint64_t values[] = {
    0,	       1,     7,	8,	   0x7f,       0xff,	   0x100,      0x3f0,
    0x3f8,     0x400, 4096 * 8, 65536 * 8, 0x7fffffff, 0xffffffff, UINT64_MAX, UINT64_MAX / 8,
    1ull << 40};

static size_t mutate(uint8_t *b, size_t len, size_t cap)
{
	unsigned int n = 1 + rnd() % 4;

	for (unsigned int k = 0; k < n && len; k++) {
		size_t off;

		switch (rnd() % 6) {
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
		case 2: /* random byte into the first events */
			off = 126 + rnd() % 64;
			if (off < len)
				b[off] = (uint8_t)rnd();
			break;
		case 3: /* truncate */
			len = rnd() % len;
			break;
		case 4: /* duplicate a chunk (a repeated packet) */
			off = rnd() % len;
			if (len + (len - off) <= cap) {
				memcpy(b + len, b + off, len - off);
				len += len - off;
			}
			break;
		case 5: /* zero a run */
			off = rnd() % len;
			memset(b + off, 0, (len - off) < 64 ? len - off : 64);
			break;
		}
	}
	return len;
}

/* Seeds come from other traces: give every packet this trace's uuid. */
static void adopt_uuid(uint8_t *b, size_t len)
{
	size_t off = 0;

	while (off + HT_PC_THREAD_END <= len) {
		uint64_t size = ht_le64(b + off + HT_PC_PACKET) / 8;

		memcpy(b + off + HT_PH_UUID, uuid, 16);
		if (size < HT_PC_THREAD_END || size > len - off)
			break;
		off += size;
	}
}

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 1000;
	uint8_t *seeds[16], *buf;
	size_t lens[16], cap = 0;
	int nseeds = 0;
	char cmd[160];

	for (int i = 2; i < argc && nseeds < 16; i++) {
		seeds[nseeds] = load(argv[i], &lens[nseeds]);
		if (!seeds[nseeds]) {
			fprintf(stderr, "fuzz_reader: cannot read seed '%s'\n", argv[i]);
			return 2;
		}
		adopt_uuid(seeds[nseeds], lens[nseeds]);
		if (lens[nseeds] > cap)
			cap = lens[nseeds];
		nseeds++;
	}
	if (!nseeds) {
		fprintf(stderr, "usage: fuzz_reader ITERATIONS SEED_FILE...\n");
		return 2;
	}
	cap *= 2;
	buf = malloc(cap);
	setup();
	/* The seeds themselves must read cleanly. */
	for (int i = 0; i < nseeds; i++)
		LLVMFuzzerTestOneInput(seeds[i], lens[i]);
	if (rejected) {
		fprintf(stderr, "fuzz_reader: a seed does not read cleanly\n");
		return 1;
	}
	for (long it = 0; it < iters; it++) {
		int s = (int)(rnd() % (uint64_t)nseeds);
		size_t len = lens[s];

		memcpy(buf, seeds[s], len);
		len = mutate(buf, len, cap);
		LLVMFuzzerTestOneInput(buf, len);
	}
	printf("fuzz_reader: %ld inputs from %d seeds, no crash; %llu events decoded, %llu "
	       "inputs rejected with a message\n",
	       iters, nseeds, decoded, rejected);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 1;
	for (int i = 0; i < nseeds; i++)
		free(seeds[i]);
	free(buf);
	return 0;
}
#endif
