/*
 * Writes CTF 1.8 metadata (TSDL) describing hetrace streams and events, as
 * laid out in format.h. Pitfalls this avoids (ref/trace-formats.md §1.2):
 * the plain-text signature line, sizes in bits, byte alignment (align = 8),
 * a clock named "monotonic" with the epoch offset and absolute = true so
 * babeltrace2 can merge us with LTTng kernel traces.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "format/fntable.h"
#include "format/format.h"
#include "format/tsdl.h"

void ht_uuid_format(const uint8_t u[16], char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

int ht_fn_desc_check(const struct ht_fn_desc *fn)
{
	uint32_t roles_seen = 0;

	if (!fn->name || !*fn->name || fn->nargs > HT_FNARGS_MAX || (fn->nargs && !fn->args))
		return -EINVAL;
	for (unsigned int i = 0; i < fn->nargs; i++) {
		const struct ht_fn_arg_desc *a = &fn->args[i];

		if (!a->name || !*a->name || a->type >= HT_FA_TYPE_COUNT ||
		    a->role >= HT_AR_ROLE_COUNT)
			return -EINVAL;
		if (a->role != HT_AR_NONE && (roles_seen & (1u << a->role)))
			return -EINVAL;
		roles_seen |= 1u << a->role;
	}
	return 0;
}

void ht_tsdl_put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fputc('\\', f);
		if (c >= 0x20)
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *arg_type(uint8_t t)
{
	switch (t) {
	case HT_FA_HEX:
		return "hex64_t";
	case HT_FA_INT:
		return "int64_t";
	default:
		return "uint64_t"; /* unsigned, and string ids */
	}
}

static void put_fn_enum(FILE *f, const struct ht_tsdl_params *p)
{
	fputs("typealias enum : uint16_t {\n\tnone = 0,\n", f);
	for (unsigned int t = 0; t < p->ntables; t++) {
		const struct ht_fn_table *tab = p->tables[t];

		for (unsigned int i = 0; i < tab->count; i++)
			fprintf(f, "\t%s = %u,\n", tab->fns[i].name, (unsigned)(tab->base + i));
	}
	fputs("} := ht_fn_t;\n\n", f);
}

/* One struct per function, selected by the fn enum. */
static void put_fn_variant(FILE *f, const struct ht_tsdl_params *p)
{
	fputs("\t\tvariant <_fn> {\n\t\t\tstruct { } none;\n", f);
	for (unsigned int t = 0; t < p->ntables; t++) {
		const struct ht_fn_table *tab = p->tables[t];

		for (unsigned int i = 0; i < tab->count; i++) {
			const struct ht_fn_desc *fn = &tab->fns[i];

			fputs("\t\t\tstruct {", f);
			for (unsigned int k = 0; k < fn->nargs; k++)
				fprintf(f, " %s _%s;", arg_type(fn->args[k].type),
					fn->args[k].name);
			fprintf(f, " } %s;\n", fn->name);
		}
	}
	fputs("\t\t} args;\n", f);
}

static void put_labels(FILE *f, const char *const *labels)
{
	fputs("enum : uint8_t {", f);
	for (unsigned int i = 0; labels[i]; i++)
		fprintf(f, "%s %s = %u", i ? "," : "", labels[i], i);
	fputs(" }", f);
}

static void put_field(FILE *f, const struct ht_field *fd, const struct ht_tsdl_params *p)
{
	switch (fd->type) {
	case HT_T_U8:
		fprintf(f, "\t\tuint8_t _%s;\n", fd->name);
		break;
	case HT_T_U16:
		fprintf(f, "\t\tuint16_t _%s;\n", fd->name);
		break;
	case HT_T_U32:
	case HT_T_STRID:
	case HT_T_FLAGS32:
		fprintf(f, "\t\tuint32_t _%s;\n", fd->name);
		break;
	case HT_T_U64:
		fprintf(f, "\t\tuint64_t _%s;\n", fd->name);
		break;
	case HT_T_I32:
		fprintf(f, "\t\tint32_t _%s;\n", fd->name);
		break;
	case HT_T_I64:
		fprintf(f, "\t\tint64_t _%s;\n", fd->name);
		break;
	case HT_T_F64:
		fprintf(f, "\t\tdouble_t _%s;\n", fd->name);
		break;
	case HT_T_HEX64:
		fprintf(f, "\t\thex64_t _%s;\n", fd->name);
		break;
	case HT_T_STR:
		fprintf(f, "\t\tstring _%s;\n", fd->name);
		break;
	case HT_T_FN:
		fprintf(f, "\t\tht_fn_t _%s;\n", fd->name);
		break;
	case HT_T_FNARGS:
		fputs("\t\tuint8_t _nargs;\n", f);
		put_fn_variant(f, p);
		break;
	case HT_T_IARGS:
		fputs("\t\tuint8_t _nargs;\n"
		      "\t\tstruct {\n"
		      "\t\t\tuint32_t key;\n"
		      "\t\t\tenum : uint8_t { i64 = 0, u64 = 1, f64 = 2, str = 3 } type;\n"
		      "\t\t\tvariant <type> { int64_t i64; uint64_t u64; double_t f64; "
		      "uint64_t str; } value;\n"
		      "\t\t} _args[_nargs];\n",
		      f);
		break;
	case HT_T_SIG:
		fputs("\t\tuint8_t _nargs;\n\t\tstruct {\n\t\t\tstring name;\n\t\t\t", f);
		put_labels(f, ht_arg_type_names);
		fputs(" type;\n\t\t\t", f);
		put_labels(f, ht_arg_role_names);
		fprintf(f, " role;\n\t\t} _%s[_nargs];\n", fd->name);
		break;
	case HT_T_MEMRUNS:
		fprintf(f,
			"\t\tuint32_t _%s_n;\n\t\tstruct {\n\t\t\thex64_t addr;\n"
			"\t\t\tint32_t stride;\n\t\t\tuint32_t site;\n"
			"\t\t\tuint16_t item;\n\t\t\tuint16_t count;\n\t\t\tuint8_t size;\n\t\t\t",
			fd->name);
		put_labels(f, ht_mem_kind_names);
		fprintf(f, " kind;\n\t\t} _%s[_%s_n];\n", fd->name, fd->name);
		break;
	case HT_T_U64X3:
		fprintf(f, "\t\tuint64_t _%s[3];\n", fd->name);
		break;
	case HT_T_ENUM8:
		fputs("\t\t", f);
		put_labels(f, fd->labels);
		fprintf(f, " _%s;\n", fd->name);
		break;
	}
}

void ht_tsdl_write_context_start(FILE *f)
{
	fprintf(f,
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\t\tuint64_clock_monotonic_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n"
		"\t\tuint64_t packet_seq_num;\n"
		"\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n"
		"\t\tint32_t _vpid;\n"
		"\t\tint32_t _vtid;\n"
		"\t\tinteger { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; } "
		"_procname[%d];\n",
		HT_PROCNAME_LEN);
}

static void put_stream(FILE *f, enum ht_stream_class sc)
{
	fprintf(f,
		"stream {\n"
		"\tid = %d;\n"
		"\tevent.header := struct {\n"
		"\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
		"\t\tvariant <id> {\n"
		"\t\t\tstruct { uint27_clock_monotonic_t timestamp; } compact;\n"
		"\t\t\tstruct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;\n"
		"\t\t} v;\n"
		"\t} align(8);\n",
		(int)sc);
	ht_tsdl_write_context_start(f);
	fputs("\t\tuint64_t tsc_begin;\n"
	      "\t\tuint64_t tsc_end;\n"
	      "\t\tuint8_t ts_state;\n",
	      f);
	if (sc == HT_SC_DEVICE)
		fputs("\t\tuint32_t device;\n\t\thex64_t queue;\n", f);
	fputs("\t};\n};\n\n", f);
}

static void put_events(FILE *f, enum ht_stream_class sc, const struct ht_tsdl_params *p)
{
	const struct ht_event_class *ec;

	for (uint32_t id = 0; (ec = ht_format_event_class(sc, id)); id++) {
		fprintf(f, "event {\n\tname = \"hetrace:%s\";\n\tid = %u;\n\tstream_id = %d;\n",
			ec->name, ec->id, (int)sc);
		fputs("\tfields := struct {\n", f);
		for (unsigned int i = 0; i < ec->nfields; i++)
			put_field(f, &ec->fields[i], p);
		fputs("\t};\n};\n\n", f);
	}
}

void ht_tsdl_write_preamble(FILE *f, const struct ht_tsdl_preamble *p)
{
	char uuid[37];

	ht_uuid_format(p->uuid, uuid);
	fputs(
	    "/* CTF 1.8 */\n\n"
	    "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
	    "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
	    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
	    "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
	    "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
	    "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n"
	    "typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;\n"
	    "typealias floating_point { exp_dig = 11; mant_dig = 53; align = 8; } := double_t;\n\n",
	    f);
	fprintf(f,
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		uuid);
	fputs("env {\n\thostname = ", f);
	ht_tsdl_put_quoted(f, p->hostname ? p->hostname : "unknown");
	fputs(";\n\tdomain = \"ust\";\n\ttracer_name = \"" HT_TRACER_NAME "\";\n"
	      "\ttracer_major = 0;\n\ttracer_minor = 1;\n",
	      f);
	if (p->env_extra)
		fputs(p->env_extra, f);
	fputs("\ttrace_name = ", f);
	ht_tsdl_put_quoted(f, p->trace_name ? p->trace_name : "hetrace");
	fputs(";\n};\n\n", f);
	fprintf(f, "clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n\tdescription = ", uuid);
	ht_tsdl_put_quoted(f, p->clock_description ? p->clock_description : "CLOCK_MONOTONIC");
	fprintf(f,
		";\n\tfreq = 1000000000;\n\tprecision = 1;\n"
		"\toffset_s = %lld;\n\toffset = %lld;\n\tabsolute = true;\n};\n\n",
		(long long)p->clock_offset_s, (long long)p->clock_offset_ns);
	fputs("typealias integer { size = 64; align = 8; signed = false; "
	      "map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n",
	      f);
}

int ht_tsdl_write(FILE *f, const struct ht_tsdl_params *p)
{
	struct ht_tsdl_preamble pre = {
	    .uuid = p->uuid,
	    .hostname = p->hostname,
	    .trace_name = p->trace_name,
	    .clock_offset_s = p->clock_offset_s,
	    .clock_offset_ns = p->clock_offset_ns,
	};

	ht_tsdl_write_preamble(f, &pre);
	/* the compact event header: a 5-bit id and the low 27 bits of the time */
	fputs("typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
	      "typealias integer { size = 27; align = 1; signed = false; "
	      "map = clock.monotonic.value; } := uint27_clock_monotonic_t;\n\n",
	      f);
	put_fn_enum(f, p);
	put_stream(f, HT_SC_THREAD);
	put_stream(f, HT_SC_DEVICE);
	put_events(f, HT_SC_THREAD, p);
	put_events(f, HT_SC_DEVICE, p);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
