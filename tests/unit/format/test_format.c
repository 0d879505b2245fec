/*
 * Unit tests for the format description (events.def and what
 * tools/gen-format.py makes of it): every event class round-trips through
 * its generated encoder and decoder (encode -> decode -> equal, sizes agree
 * with the generic walker, every truncation is refused), strings are cut on
 * UTF-8 boundaries, function descriptors are checked, and the TSDL names
 * every field of every class in wire order with the right type.
 */
#include <stdlib.h>

#include "../check.h"
#include "format/fntable.h"
#include "format/format.h"
#include "format/tsdl.h"
#include "sample.h"

static void roundtrip(const struct ht_event_class *ec, unsigned int seed)
{
	void *in = calloc(1, ec->struct_size), *out = calloc(1, ec->struct_size);
	uint8_t buf[8192];
	size_t size;
	uint8_t *end;

	for (unsigned int i = 0; i < ec->nfields; i++)
		ht_sample_fill(in, &ec->fields[i], seed + i);
	size = ec->size(in);
	end = ec->put(buf, in);
	CHECK_EQ(end - buf, size);
	if (ec->fixed)
		CHECK_EQ(size, ec->fixed);
	CHECK_EQ(ht_format_payload_size(ec, buf, size), size);
	CHECK_EQ(ec->get(out, buf, size), size);
	CHECK_EQ(ec->get(out, buf, size + 100), size); /* trailing bytes belong to the next event */
	for (unsigned int i = 0; i < ec->nfields; i++)
		if (!ht_sample_same(in, out, &ec->fields[i])) {
			fprintf(stderr, "%s.%s does not round-trip\n", ec->name,
				ec->fields[i].name);
			check_failures++;
		}
	/* every truncation is refused, never read past */
	for (size_t cut = 0; cut < size; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, buf, cut);
		if (ec->get(out, copy, cut) != -1 || ht_format_payload_size(ec, copy, cut) != -1) {
			fprintf(stderr, "%s: %zu of %zu bytes accepted\n", ec->name, cut, size);
			check_failures++;
		}
		free(copy);
	}
	free(in);
	free(out);
}

static void test_roundtrip(void)
{
	unsigned int classes = 0;

	for (int sc = 0; sc < HT_SC_COUNT; sc++)
		for (uint32_t id = 0; ht_format_event_class(sc, id); id++) {
			const struct ht_event_class *ec = ht_format_event_class(sc, id);

			CHECK_EQ(ec->id, id);
			roundtrip(ec, 0);
			roundtrip(ec, 7);
			classes++;
		}
	CHECK_EQ(classes, HT_EV_THREAD_COUNT + HT_EV_DEVICE_COUNT);
	CHECK(!ht_format_event_class(HT_SC_THREAD, HT_EV_THREAD_COUNT));
	CHECK(!ht_format_event_class(HT_SC_DEVICE, 99));
	CHECK(!ht_format_event_class(HT_SC_COUNT, 0));
}

/* Hostile counts and strings: bounded by the format's limits, not by the buffer. */
static void test_bounds(void)
{
	uint8_t b[512] = {0};
	struct ht_ev_api_end e;
	struct ht_ev_fn_def d;
	struct ht_ev_string_def s;
	char big[HT_STR_MAX + 16];

	b[HT_OFF_API_END_ARGS] = HT_FNARGS_MAX + 1;
	CHECK_EQ(ht_ev_api_end_get(&e, b, sizeof b), (unsigned long long)-1);
	b[HT_OFF_API_END_ARGS] = 3;
	CHECK_EQ(ht_ev_api_end_get(&e, b, sizeof b), HT_OFF_API_END_ARGS + 1 + 24);
	memset(b, 0, sizeof b);
	memcpy(b + 2, "f", 2);
	b[2 + 2 + 4] = HT_FNARGS_MAX + 1; /* fn, "f", roles, nargs */
	CHECK_EQ(ht_ev_fn_def_get(&d, b, sizeof b), (unsigned long long)-1);
	memset(b, 'x', sizeof b); /* a string_def with no NUL */
	CHECK_EQ(ht_ev_string_def_get(&s, b, sizeof b), (unsigned long long)-1);
	/* the empty string */
	{
		struct ht_ev_thread_info t = {.tid = 5, .name = ""}, r;
		uint8_t w[16];

		CHECK_EQ(ht_ev_thread_info_put(w, &t) - w, 5);
		CHECK_EQ(ht_ev_thread_info_get(&r, w, 5), 5);
		CHECK_STR(r.name, "");
		t.name = NULL; /* written as "" */
		CHECK_EQ(ht_ev_thread_info_put(w, &t) - w, 5);
		CHECK_EQ(w[4], 0);
	}
	/* writing cuts a string at HT_STR_MAX without splitting "é" */
	memset(big, 'a', sizeof big);
	memcpy(big + HT_STR_MAX - 1, "\xc3\xa9", 2);
	big[sizeof big - 1] = '\0';
	s.id = 1;
	s.value = big;
	CHECK_EQ(ht_ev_string_def_size(&s), 4 + HT_STR_MAX - 1 + 1);
	{
		uint8_t *w = malloc(ht_ev_string_def_size(&s));
		struct ht_ev_string_def r;

		CHECK_EQ(ht_ev_string_def_put(w, &s) - w, ht_ev_string_def_size(&s));
		CHECK_EQ(ht_ev_string_def_get(&r, w, ht_ev_string_def_size(&s)),
			 ht_ev_string_def_size(&s));
		CHECK_EQ(strlen(r.value), HT_STR_MAX - 1);
		free(w);
	}
}

static void test_fn_desc(void)
{
	static const struct ht_fn_arg_desc dup[2] = {{"corr", HT_FA_UINT, HT_AR_CORR},
						     {"corr2", HT_FA_UINT, HT_AR_CORR}};
	static const struct ht_fn_arg_desc bad_type[1] = {{"x", HT_FA_TYPE_COUNT, HT_AR_NONE}};
	static const struct ht_fn_arg_desc unnamed[1] = {{"", HT_FA_UINT, HT_AR_NONE}};
	struct ht_fn_desc f = {"clEnqueueReadBuffer", HT_ROLE_TRANSFER | HT_ROLE_BLOCKING, 3,
			       sig_sample};

	CHECK_EQ(ht_fn_desc_check(&f), 0);
	CHECK_EQ(ht_fn_arg_with_role(&f, HT_AR_BLOCKING), 1);
	CHECK_EQ(ht_fn_arg_with_role(&f, HT_AR_CORR), 2);
	CHECK_EQ(ht_fn_arg_with_role(&f, HT_AR_KERNEL), (unsigned long long)-1);
	f.args = dup;
	f.nargs = 2;
	CHECK(ht_fn_desc_check(&f) < 0);
	f.args = bad_type;
	f.nargs = 1;
	CHECK(ht_fn_desc_check(&f) < 0);
	f.args = unnamed;
	CHECK(ht_fn_desc_check(&f) < 0);
	f.args = NULL;
	CHECK(ht_fn_desc_check(&f) < 0);
	f.nargs = HT_FNARGS_MAX + 1;
	CHECK(ht_fn_desc_check(&f) < 0);
	f.nargs = 0;
	CHECK_EQ(ht_fn_desc_check(&f), 0);
}

/* The TSDL name and type a field should have (argument lists checked apart). */
static const char *tsdl_type(const struct ht_field *f)
{
	switch (f->type) {
	case HT_T_U8:
		return "uint8_t";
	case HT_T_U16:
		return "uint16_t";
	case HT_T_U32:
	case HT_T_STRID:
	case HT_T_FLAGS32:
		return "uint32_t";
	case HT_T_U64:
		return "uint64_t";
	case HT_T_I32:
		return "int32_t";
	case HT_T_I64:
		return "int64_t";
	case HT_T_F64:
		return "double_t";
	case HT_T_HEX64:
		return "hex64_t";
	case HT_T_STR:
		return "string";
	case HT_T_FN:
		return "ht_fn_t";
	default:
		return NULL;
	}
}

static void test_tsdl(void)
{
	static const struct ht_fn_arg_desc foo_args[2] = {{"queue", HT_FA_HEX, HT_AR_QUEUE},
							  {"size", HT_FA_UINT, HT_AR_BYTES}};
	static const struct ht_fn_desc fns[] = {{"fooCall", HT_ROLE_TRANSFER, 2, foo_args},
						{"barCall", 0, 0, NULL}};
	static const struct ht_fn_table tab = {"test", 0x1000, 2, fns};
	const struct ht_fn_table *tabs[] = {&tab};
	struct ht_tsdl_params p = {.hostname = "host\"x",
				   .trace_name = "t",
				   .clock_offset_s = 17,
				   .clock_offset_ns = 5,
				   .tables = tabs,
				   .ntables = 1};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	for (int i = 0; i < 16; i++)
		p.uuid[i] = (uint8_t)i;
	CHECK_EQ(ht_tsdl_write(f, &p), 0);
	fclose(f);
	CHECK(!strncmp(text, "/* CTF 1.8 */\n", 14));
	CHECK(strstr(text, "uuid = \"00010203-0405-0607-0809-0a0b0c0d0e0f\";"));
	CHECK(strstr(text, "tracer_name = \"hetrace\";"));
	CHECK(strstr(text, "domain = \"ust\";"));
	CHECK(strstr(text, "hostname = \"host\\\"x\";")); /* quotes escaped */
	CHECK(strstr(text, "absolute = true;"));
	CHECK(strstr(text, "offset_s = 17;"));
	CHECK(strstr(text, "fooCall = 4096,"));
	CHECK(strstr(text, "barCall = 4097,"));
	CHECK(strstr(text, "struct { hex64_t _queue; uint64_t _size; } fooCall;"));
	CHECK(strstr(text, "struct { } barCall;"));
	/* every class, with its id, stream and fields in wire order */
	for (int sc = 0; sc < HT_SC_COUNT; sc++)
		for (uint32_t id = 0; ht_format_event_class(sc, id); id++) {
			const struct ht_event_class *ec = ht_format_event_class(sc, id);
			char head[160], field[160];
			const char *at;

			snprintf(
			    head, sizeof head,
			    "event {\n\tname = \"hetrace:%s\";\n\tid = %u;\n\tstream_id = %d;\n",
			    ec->name, id, sc);
			at = strstr(text, head);
			CHECK(at);
			for (unsigned int i = 0; at && i < ec->nfields; i++) {
				const struct ht_field *fd = &ec->fields[i];
				const char *end = strstr(at, "\n};\n");
				const char *t = tsdl_type(fd);

				if (t)
					snprintf(field, sizeof field, "\t\t%s _%s;\n", t, fd->name);
				else if (fd->type == HT_T_U64X3)
					snprintf(field, sizeof field, "uint64_t _%s[3];\n",
						 fd->name);
				else if (fd->type == HT_T_ENUM8)
					snprintf(field, sizeof field, " %s = 0", fd->labels[0]);
				else if (fd->type == HT_T_MEMRUNS)
					snprintf(field, sizeof field, "} _%s[_%s_n];\n", fd->name,
						 fd->name);
				else
					snprintf(field, sizeof field, "_nargs;\n");
				at = strstr(at, field);
				if (!at || at > end) {
					fprintf(stderr, "TSDL of %s lacks field %s in order\n",
						ec->name, fd->name);
					check_failures++;
					break;
				}
				at += strlen(field) - 1;
			}
		}
	free(text);
}

int main(void)
{
	test_roundtrip();
	test_bounds();
	test_fn_desc();
	test_tsdl();
	CHECK_DONE();
}
