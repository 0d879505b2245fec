/*
 * TSDL of the re-sorted CTF export (layout in ctf_tsdl.h). It keeps the
 * rules of ref/trace-formats.md §1: the CTF 1.8 signature line,
 * sizes in bits, byte alignment everywhere, a clock named `monotonic` with
 * the trace's epoch offset and `absolute = true`, env domain "ust" and our
 * own tracer_name; no payload field is mapped to the clock (device
 * begin/end times are event timestamps; the others are plain u64 ns).
 */
#include <errno.h>
#include <stdio.h>

#include "export/ctf_tsdl.h"
#include "format/format.h"
#include "format/tsdl.h"

static void put_stream(FILE *f, int id)
{
	fprintf(f,
		"stream {\n"
		"\tid = %d;\n"
		"\tevent.header := struct {\n"
		"\t\tuint16_t id;\n"
		"\t\tuint64_clock_monotonic_t timestamp;\n"
		"\t} align(8);\n",
		id);
	ht_tsdl_write_context_start(f);
	if (id == HT_XS_QUEUE)
		fputs("\t\tuint32_t device;\n\t\thex64_t queue;\n", f);
	fputs("\t};\n};\n\n", f);
}

static void put_event(FILE *f, int stream, int id, const char *name, const char *fields)
{
	fprintf(f,
		"event {\n\tname = \"hetrace:%s\";\n\tid = %d;\n\tstream_id = %d;\n"
		"\tfields := struct {\n%s\t};\n};\n\n",
		name, id, stream, fields);
}

int ht_xtsdl_write(FILE *f, const struct ht_xtsdl_params *p)
{
	struct ht_tsdl_preamble pre = {
	    .uuid = p->uuid,
	    .hostname = p->hostname,
	    .trace_name = p->trace_name,
	    .env_extra = "\texport = \"ctf-sorted\";\n", /* not a recording: check refuses it */
	    .clock_description = "CLOCK_MONOTONIC; device commands mapped by clock sync",
	    .clock_offset_s = p->offset_s,
	    .clock_offset_ns = p->offset_ns,
	};

	ht_tsdl_write_preamble(f, &pre);
	fputs("typealias struct {\n"
	      "\tstring key;\n"
	      "\tenum : uint8_t { i64 = 0, u64 = 1, x64 = 2, f64 = 3, str = 4 } type;\n"
	      "\tvariant <type> { int64_t i64; uint64_t u64; hex64_t x64; double_t f64; "
	      "string str; } value;\n"
	      "} := ht_arg_t;\n\n",
	      f);
	put_stream(f, HT_XS_THREAD);
	put_stream(f, HT_XS_QUEUE);
	put_event(
	    f, HT_XS_THREAD, HT_XE_PROCESS_INFO, "process_info",
	    "\t\tint32_t _pid;\n\t\tint32_t _ppid;\n\t\tstring _name;\n\t\tstring _cmdline;\n");
	put_event(f, HT_XS_THREAD, HT_XE_THREAD_INFO, "thread_info",
		  "\t\tint32_t _tid;\n\t\tstring _name;\n");
	put_event(f, HT_XS_THREAD, HT_XE_API_BEGIN, "api_begin", "\t\tstring _name;\n");
	put_event(f, HT_XS_THREAD, HT_XE_API_END, "api_end",
		  "\t\tstring _name;\n\t\tint32_t _ret;\n\t\tuint64_t _corr;\n"
		  "\t\tuint8_t _nargs;\n\t\tht_arg_t _args[_nargs];\n");
	put_event(f, HT_XS_THREAD, HT_XE_REGION_BEGIN, "region_begin", "\t\tstring _name;\n");
	put_event(f, HT_XS_THREAD, HT_XE_REGION_END, "region_end", "\t\tstring _name;\n");
	put_event(f, HT_XS_THREAD, HT_XE_INSTANT, "instant",
		  "\t\tstring _name;\n\t\tuint8_t _nargs;\n\t\tht_arg_t _args[_nargs];\n");
	put_event(f, HT_XS_THREAD, HT_XE_COUNTER, "counter",
		  "\t\tstring _name;\n\t\tint64_t _value;\n");
	put_event(f, HT_XS_THREAD, HT_XE_COUNTER_DOUBLE, "counter_double",
		  "\t\tstring _name;\n\t\tdouble_t _value;\n");
	put_event(f, HT_XS_THREAD, HT_XE_CPU_STATE, "cpu_state",
		  "\t\tstring _state;\n\t\tuint64_t _end;\n\t\tuint32_t _cpu;\n");
	put_event(f, HT_XS_THREAD, HT_XE_CPU_SAMPLE, "cpu_sample",
		  "\t\tint32_t _tid;\n\t\tuint32_t _depth;\n\t\tstring _stack[_depth];\n");
	put_event(f, HT_XS_THREAD, HT_XE_TASK, "task",
		  "\t\tstring _kind;\n\t\tint32_t _tid;\n\t\tint32_t _code;\n"
		  "\t\tint32_t _signal;\n\t\tuint64_t _ns;\n\t\tstring _name;\n");
	put_event(f, HT_XS_THREAD, HT_XE_MPI, "mpi",
		  "\t\tstring _what;\n\t\tint32_t _rank;\n\t\tint32_t _peer;\n"
		  "\t\tint32_t _tag;\n\t\tuint64_t _bytes;\n\t\tuint64_t _received;\n"
		  "\t\tuint64_t _comm;\n\t\thex64_t _request;\n\t\tuint64_t _call_begin;\n");
	put_event(f, HT_XS_QUEUE, HT_XE_QUEUE_INFO, "queue_info",
		  "\t\tuint32_t _device;\n\t\thex64_t _queue;\n"
		  "\t\tstring _clock_sync;\n\t\tdouble_t _sync_bound_ns;\n"
		  "\t\tdouble_t _clock_offset_ns;\n\t\tdouble_t _clock_drift_ppm;\n");
	put_event(f, HT_XS_QUEUE, HT_XE_COMMAND_BEGIN, "device_command_begin",
		  "\t\tstring _name;\n\t\tstring _kind;\n\t\tuint64_t _corr;\n"
		  "\t\tint32_t _status;\n\t\tuint64_t _queued;\n\t\tuint64_t _submit;\n"
		  "\t\tuint64_t _end;\n\t\tuint64_t _bytes;\n"
		  "\t\tuint64_t _global[3];\n\t\tuint64_t _local[3];\n");
	put_event(f, HT_XS_QUEUE, HT_XE_COMMAND_END, "device_command_end",
		  "\t\tstring _name;\n\t\tuint64_t _corr;\n");
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
