/*
 * The report's memory_access section (analysis.h computes it): a table per
 * kernel and buffer argument with the out-of-bounds accesses under it
 * (text), rows of a "memory" table (csv), and the "memory_access" key
 * (json). hetrace report calls these from src/cli/report.c.
 */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/escape.h"
#include "memtrace/cli.h"
#include "memtrace/layout.h"

#define TOP_STRIDES 16

static const char *kind_name(uint8_t k)
{
	return k == HT_MT_KIND_STORE ? "store" : k == HT_MT_KIND_ATOMIC ? "atomic" : "load";
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

void ht_mem_report_text(FILE *f, const struct ht_mem_report *m)
{
	char name[64];

	if (!m->n && !m->launches)
		return;
	fprintf(f, "\nMemory accesses (%" PRIu64 " launches, %" PRIu64 " records", m->launches,
		m->records);
	if (m->dropped)
		fprintf(f, ", %" PRIu64 " dropped: the tables undercount (--mode discard)",
			m->dropped);
	if (m->sampled)
		fprintf(f, "; sampled work-groups only");
	fprintf(f, ")\n  %-24s %4s %10s %10s %8s %12s %12s %21s %9s %7s  %s\n", "kernel", "arg",
		"reads", "writes", "atomics", "bytes read", "written", "range", "sectors", "ideal",
		"strides (bytes: count)");
	for (size_t i = 0; i < m->n; i++) {
		const struct ht_mem_row *r = &m->rows[i];
		int64_t s[4];
		uint64_t c[4];
		unsigned int ns = ht_mem_row_strides(r, s, c, 4);
		char range[48];

		if (r->arg >= 0)
			snprintf(range, sizeof range, "[%" PRId64 ", %" PRId64 ")", r->lo, r->hi);
		else
			snprintf(range, sizeof range, "-");
		fprintf(f,
			"  %-24s %4d %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %12" PRIu64
			" %12" PRIu64 " %21s %9.2f %7.2f ",
			ht_term_sstr(name, sizeof name, r->kernel), r->arg, r->reads, r->writes,
			r->atomics, r->bytes_read, r->bytes_written, range,
			ratio(r->sectors, r->accesses), ratio(r->ideal, r->accesses));
		for (unsigned int k = 0; k < ns; k++)
			fprintf(f, "%s%" PRId64 ":%" PRIu64, k ? " " : " ", s[k], c[k]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < m->n; i++) {
		const struct ht_mem_row *r = &m->rows[i];

		if (!r->out_of_bounds)
			continue;
		fprintf(f,
			"  out of bounds: kernel '%s' argument %d, %" PRIu64
			" access%s outside its %" PRIu64 "-byte buffer%s\n",
			ht_term_sstr(name, sizeof name, r->kernel), r->arg, r->out_of_bounds,
			r->out_of_bounds == 1 ? "" : "es", r->buffer_bytes,
			r->out_of_bounds > r->noob ? ", the first ones:" : ":");
		for (unsigned int k = 0; k < r->noob; k++) {
			const struct ht_mem_oob *o = &r->oob[k];

			fprintf(f,
				"    %s of %u bytes at offset %" PRId64
				" by work-item %u of group %u",
				kind_name(o->kind), o->size, o->offset, o->item, o->group);
			if (o->global != UINT64_MAX)
				fprintf(f, " (global id %" PRIu64 ")", o->global);
			if (o->line)
				fprintf(f, ", source line %u column %u", o->line, o->col);
			if (o->line && o->file)
				fprintf(f, " of %s", o->file);
			fputc('\n', f);
		}
	}
	fprintf(f, "  Reading: sectors are the 32-byte blocks one access of 32 neighbouring "
		   "work-items touches\n  (a warp's; \"ideal\" when its bytes are packed): more "
		   "sectors than ideal means\n  uncoalesced accesses. Strides are between "
		   "neighbouring work-items.\n");
}

void ht_mem_report_csv(FILE *f, const struct ht_mem_report *m)
{
	fprintf(f, "table,pid,kernel,arg,launches,reads,writes,atomics,bytes_read,bytes_written,"
		   "buffer_bytes,range_lo,range_hi,out_of_bounds,sectors_per_access,"
		   "ideal_sectors_per_access,top_stride,top_stride_count\n");
	for (size_t i = 0; i < m->n; i++) {
		const struct ht_mem_row *r = &m->rows[i];
		int64_t s = 0;
		uint64_t c = 0;

		ht_mem_row_strides(r, &s, &c, 1);
		fprintf(f, "memory,%d,", r->pid);
		ht_csv_str(f, r->kernel);
		fprintf(f,
			",%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%.4f,%.4f,%" PRId64
			",%" PRIu64 "\n",
			r->arg, r->launches, r->reads, r->writes, r->atomics, r->bytes_read,
			r->bytes_written, r->buffer_bytes, r->lo, r->hi, r->out_of_bounds,
			ratio(r->sectors, r->accesses), ratio(r->ideal, r->accesses), s, c);
	}
	fprintf(
	    f, "table,launches,records,dropped\nmemory_total,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
	    m->launches, m->records, m->dropped);
}

void ht_mem_report_json(FILE *f, const struct ht_mem_report *m)
{
	fprintf(f, ",\"memory_access\":[");
	for (size_t i = 0; i < m->n; i++) {
		const struct ht_mem_row *r = &m->rows[i];
		int64_t s[TOP_STRIDES];
		uint64_t c[TOP_STRIDES];
		unsigned int ns = ht_mem_row_strides(r, s, c, TOP_STRIDES);

		fprintf(f, "%s{\"kernel\":", i ? "," : "");
		ht_json_str(f, r->kernel);
		fprintf(f,
			",\"arg\":%d,\"reads\":%" PRIu64 ",\"writes\":%" PRIu64
			",\"atomics\":%" PRIu64 ",\"bytes_read\":%" PRIu64
			",\"bytes_written\":%" PRIu64 ",\"out_of_bounds\":%" PRIu64
			",\"strides\":{",
			r->arg, r->reads, r->writes, r->atomics, r->bytes_read, r->bytes_written,
			r->out_of_bounds);
		for (unsigned int k = 0; k < ns; k++)
			fprintf(f, "%s\"%" PRId64 "\":%" PRIu64, k ? "," : "", s[k], c[k]);
		fprintf(f,
			"},\"pid\":%d,\"launches\":%" PRIu64 ",\"bytes_atomic\":%" PRIu64
			",\"buffer_bytes\":%" PRIu64 ",\"range\":[%" PRId64 ",%" PRId64
			"],\"accesses_32\":%" PRIu64 ",\"sectors_per_access\":%.4f,"
			"\"ideal_sectors_per_access\":%.4f,\"out_of_bounds_examples\":[",
			r->pid, r->launches, r->bytes_atomic, r->buffer_bytes, r->lo, r->hi,
			r->accesses, ratio(r->sectors, r->accesses), ratio(r->ideal, r->accesses));
		for (unsigned int k = 0; k < r->noob; k++) {
			const struct ht_mem_oob *o = &r->oob[k];

			fprintf(f,
				"%s{\"kind\":\"%s\",\"size\":%u,\"offset\":%" PRId64
				",\"group\":%u,\"item\":%u,\"line\":%u,\"col\":%u",
				k ? "," : "", kind_name(o->kind), o->size, o->offset, o->group,
				o->item, o->line, o->col);
			if (o->global != UINT64_MAX)
				fprintf(f, ",\"global\":%" PRIu64, o->global);
			fputs(",\"file\":", f);
			ht_json_str(f, o->file ? o->file : "");
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f,
		"],\"memory_access_totals\":{\"launches\":%" PRIu64 ",\"records\":%" PRIu64
		",\"dropped\":%" PRIu64 ",\"sampled\":%s}",
		m->launches, m->records, m->dropped, m->sampled ? "true" : "false");
}
