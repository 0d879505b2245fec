/*
 * Unit tests for the format description: payload sizes of every kind of
 * field (and their bounds checks), function argument specs, and the TSDL
 * text (the parts babeltrace2 depends on).
 */
#include <stdlib.h>

#include "../check.h"
#include "format/format.h"
#include "format/tsdl.h"

static void test_payload_sizes(void)
{
	const struct ht_event_class *sd = ht_format_event_class(HT_SC_THREAD, HT_EV_STRING_DEF);
	const struct ht_event_class *end = ht_format_event_class(HT_SC_THREAD, HT_EV_API_END);
	const struct ht_event_class *inst = ht_format_event_class(HT_SC_THREAD, HT_EV_INSTANT);
	const struct ht_event_class *cmd =
		ht_format_event_class(HT_SC_DEVICE, HT_EV_DEVICE_COMMAND);
	uint8_t b[256] = {0};

	CHECK(sd && end && inst && cmd);
	CHECK(!ht_format_event_class(HT_SC_THREAD, HT_EV_THREAD_COUNT));
	CHECK(!ht_format_event_class(HT_SC_DEVICE, 99));
	/* string_def: u32 + "abc\0" */
	memcpy(b + 4, "abc", 4);
	CHECK_EQ(ht_format_payload_size(sd, b, 8), 8);
	CHECK_EQ(ht_format_payload_size(sd, b, 7), (unsigned long long)-1); /* no NUL */
	CHECK_EQ(ht_format_payload_size(sd, b, 3), (unsigned long long)-1);
	/* api_end: u16 fn, i32 ret, u8 n, n x 8 */
	memset(b, 0, sizeof b);
	b[6] = 3;
	CHECK_EQ(ht_format_payload_size(end, b, 64), 7 + 24);
	CHECK_EQ(ht_format_payload_size(end, b, 30), (unsigned long long)-1);
	b[6] = HT_FNARGS_MAX + 1;
	CHECK_EQ(ht_format_payload_size(end, b, 256), (unsigned long long)-1);
	/* instant: u32 name, u8 n, n x 13 */
	memset(b, 0, sizeof b);
	b[4] = 2;
	CHECK_EQ(ht_format_payload_size(inst, b, 64), 5 + 2 * HT_IARG_SIZE);
	/* device_command is fixed-size */
	CHECK_EQ(ht_format_payload_size(cmd, b, 256), HT_DC_SIZE);
	CHECK_EQ(ht_format_payload_size(cmd, b, HT_DC_SIZE - 1), (unsigned long long)-1);
}

static void test_fn_args(void)
{
	CHECK_EQ(ht_fn_args_count(""), 0);
	CHECK_EQ(ht_fn_args_count(NULL), 0);
	CHECK_EQ(ht_fn_args_count("queue:h"), 1);
	CHECK_EQ(ht_fn_args_count("queue:h,size:u,off:i,name:s"), 4);
	CHECK_EQ(ht_fn_args_count("queue"), (unsigned long long)-1);
	CHECK_EQ(ht_fn_args_count("queue:x"), (unsigned long long)-1);
	CHECK_EQ(ht_fn_args_count(":h"), (unsigned long long)-1);
	CHECK_EQ(ht_fn_args_count("a:hh"), (unsigned long long)-1);
	CHECK_EQ(ht_fn_args_count("a:u,b:u,c:u,d:u,e:u,f:u,g:u,h:u,i:u,j:u,k:u,l:u,m:u"),
		 (unsigned long long)-1);
}

static void test_tsdl(void)
{
	static const struct ht_fn_desc fns[] = {{"fooCall", "queue:h,size:u"}, {"barCall", ""}};
	static const struct ht_fn_table tab = {"test", 0x1000, 2, fns};
	const struct ht_fn_table *tabs[] = {&tab};
	struct ht_tsdl_params p = {.hostname = "host\"x", .trace_name = "t", .clock_offset_s = 17,
				   .clock_offset_ns = 5, .tables = tabs, .ntables = 1};
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
	CHECK(strstr(text, "name = \"hetrace:device_command\";"));
	free(text);
}

int main(void)
{
	test_payload_sizes();
	test_fn_args();
	test_tsdl();
	CHECK_DONE();
}
