/*
 * Test helper: prints every event of a trace, one line each, with string ids
 * resolved, through hetrace's own reader. Integration tests assert on this
 * output with grep/awk:
 *   <process-dir> <stream> <ts-ns> <event> field=value ...
 * Streams are printed one after the other (not merged).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trace.h"
#include "core/strtab.h"

static const char *str(char **tab, uint32_t n, uint32_t id)
{
	return id && id <= n && tab[id - 1] ? tab[id - 1] : "?";
}

static void print_fields(const struct ht_event *ev, char **tab, uint32_t n)
{
	const struct ht_event_class *ec = ev->ec;
	const uint8_t *p = ev->payload;

	for (unsigned int i = 0; i < ec->nfields; i++) {
		const struct ht_field *f = &ec->fields[i];

		printf(" %s=", f->name);
		switch (f->type) {
		case HT_T_U8:
			printf("%u", p[0]);
			break;
		case HT_T_ENUM8: {
			unsigned int k = 0;

			while (f->labels[k] && k < p[0])
				k++;
			printf("%s", f->labels[k] ? f->labels[k] : "?");
			break;
		}
		case HT_T_U16:
		case HT_T_FN:
			printf("%u", ht_le16(p));
			break;
		case HT_T_U32:
			printf("%u", ht_le32(p));
			break;
		case HT_T_I32:
			printf("%d", (int32_t)ht_le32(p));
			break;
		case HT_T_STRID:
			printf("%s", str(tab, n, ht_le32(p)));
			break;
		case HT_T_U64:
			printf("%llu", (unsigned long long)ht_le64(p));
			break;
		case HT_T_I64:
			printf("%lld", (long long)ht_le64(p));
			break;
		case HT_T_HEX64:
			printf("0x%llx", (unsigned long long)ht_le64(p));
			break;
		case HT_T_F64: {
			double d;

			memcpy(&d, p, 8);
			printf("%g", d);
			break;
		}
		case HT_T_STR:
			printf("\"%s\"", (const char *)p);
			break;
		case HT_T_U64X3:
			printf("%llu,%llu,%llu", (unsigned long long)ht_le64(p),
			       (unsigned long long)ht_le64(p + 8), (unsigned long long)ht_le64(p + 16));
			break;
		case HT_T_FNARGS:
			for (unsigned int k = 0; k < p[0]; k++)
				printf("%s%llu", k ? "," : "",
				       (unsigned long long)ht_le64(p + 1 + 8 * k));
			p += 1 + 8 * p[0];
			continue;
		case HT_T_IARGS:
			for (unsigned int k = 0; k < p[0]; k++) {
				const uint8_t *a = p + 1 + HT_IARG_SIZE * k;
				uint64_t v = ht_le64(a + 5);
				double d;

				printf("%s%s:", k ? "," : "", str(tab, n, ht_le32(a)));
				memcpy(&d, &v, 8);
				if (a[4] == HT_ARG_INT)
					printf("%lld", (long long)v);
				else if (a[4] == HT_ARG_DOUBLE)
					printf("%g", d);
				else if (a[4] == HT_ARG_STRING)
					printf("%s", str(tab, n, (uint32_t)v));
				else
					printf("%llu", (unsigned long long)v);
			}
			p += 1 + HT_IARG_SIZE * p[0];
			continue;
		}
		p += f->type == HT_T_STR ? strlen((const char *)p) + 1 : ht_format_field_size(f->type);
	}
}

static int dump_process(const struct ht_trace_process *p)
{
	struct ht_read_error err = {0};
	struct ht_stream_reader r;
	struct ht_event ev;
	char **tab = NULL;
	uint32_t n = 0;
	int rc;

	/* Strings first: they are defined in the process stream. */
	if (ht_stream_reader_open(&r, p, "process", &err) == 0) {
		while ((rc = ht_stream_reader_next(&r, &ev, &err)) > 0) {
			uint32_t id;

			if (ev.id != HT_EV_STRING_DEF)
				continue;
			id = ht_le32(ev.payload);
			if (id > n) {
				tab = realloc(tab, id * sizeof *tab);
				memset(tab + n, 0, (id - n) * sizeof *tab);
				n = id;
			}
			tab[id - 1] = strdup((const char *)ev.payload + 4);
		}
		ht_stream_reader_close(&r);
	}
	for (unsigned int i = 0; i < p->nstreams; i++) {
		rc = ht_stream_reader_open(&r, p, p->streams[i].name, &err);
		if (rc)
			goto bad;
		while ((rc = ht_stream_reader_next(&r, &ev, &err)) > 0) {
			printf("%s %s %llu %s", p->name, p->streams[i].name,
			       (unsigned long long)ev.ts, ev.ec->name);
			print_fields(&ev, tab, n);
			putchar('\n');
		}
		if (r.packets)
			printf("%s %s - discarded %llu\n", p->name, p->streams[i].name,
			       (unsigned long long)r.prev_discarded);
		ht_stream_reader_close(&r);
		if (rc < 0)
			goto bad;
	}
	for (uint32_t i = 0; i < n; i++)
		free(tab[i]);
	free(tab);
	return 0;
bad:
	fprintf(stderr, "ht_test_dump: %s: offset %llu: %s\n", err.file,
		(unsigned long long)err.offset, err.msg);
	return 1;
}

int main(int argc, char **argv)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	int status = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ht_test_dump TRACE\n");
		return 2;
	}
	if (ht_trace_open(&t, argv[1], &err)) {
		fprintf(stderr, "ht_test_dump: %s: %s\n", err.file, err.msg);
		return 1;
	}
	for (unsigned int i = 0; i < t->nprocs; i++)
		status |= dump_process(&t->procs[i]);
	ht_trace_close(t);
	return status;
}
