/*
 * Writes a trace that holds every event class of events.def (each twice,
 * with the sample values of tests/unit/format/sample.h), for
 * format_every_class.sh: babeltrace2 must read from it, through the TSDL,
 * exactly the values our own decoders read. The TSDL and the layouts come
 * from one description; this is the check that they agree on disk.
 *
 *   every_class DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include "../unit/format/sample.h"
#include "synth_writer.h"

static const uint8_t uuid[16] = {0xe7, 0xe1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};

/* Functions 0x1000..0x100f with five unsigned arguments: what the sample api_end carries. */
static const struct ht_fn_arg_desc five[5] = {{"a0", HT_FA_UINT, HT_AR_NONE},
					      {"a1", HT_FA_UINT, HT_AR_NONE},
					      {"a2", HT_FA_UINT, HT_AR_NONE},
					      {"a3", HT_FA_UINT, HT_AR_NONE},
					      {"a4", HT_FA_UINT, HT_AR_NONE}};
static struct ht_fn_desc fns[16];
static char fn_names[16][16];

static void write_class(const struct ht_event_class *ec, uint64_t t, unsigned int seed)
{
	void *ev = calloc(1, ec->struct_size);
	uint8_t *p;

	for (unsigned int i = 0; i < ec->nfields; i++)
		ht_sample_fill(ev, &ec->fields[i], seed + i);
	p = ht_synth_event(ec->id, t);
	ht_synth_done((size_t)(ec->put(p, ev) - p));
	free(ev);
}

int main(int argc, char **argv)
{
	struct ht_fn_table tab = {"sample", 0x1000, 16, fns};
	uint64_t t = 1000;
	int dirfd;

	if (argc != 2) {
		fprintf(stderr, "usage: every_class DIR\n");
		return 2;
	}
	for (int i = 0; i < 16; i++) {
		snprintf(fn_names[i], sizeof fn_names[i], "sampleFn%d", i);
		fns[i] = (struct ht_fn_desc){fn_names[i], 0, 5, five};
	}
	dirfd = ht_synth_process(argv[1], 300, "every", uuid, &tab);

	/* the strings the samples' string ids refer to (iargs keys 7, 9; value 3) */
	ht_synth_begin(HT_SC_THREAD, 300, 100);
	ht_synth_string(100, 3, "three");
	ht_synth_string(100, 7, "seven");
	ht_synth_string(100, 9, "nine");
	ht_synth_flush(dirfd, "process");

	for (int sc = 0; sc < HT_SC_COUNT; sc++) {
		char name[32];

		ht_synth_begin(sc, 301, t);
		for (unsigned int seed = 0; seed <= 7; seed += 7)
			for (uint32_t id = 0; ht_format_event_class(sc, id); id++)
				write_class(ht_format_event_class(sc, id), t += 10, seed);
		snprintf(name, sizeof name, "%s-1", sc == HT_SC_DEVICE ? "device" : "thread");
		ht_synth_flush(dirfd, name);
	}
	return 0;
}
