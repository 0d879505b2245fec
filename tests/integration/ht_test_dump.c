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

static void print_labels(const char *const *labels, uint32_t v, int flags)
{
	unsigned int k = 0;

	if (!flags) {
		while (labels[k] && k < v)
			k++;
		printf("%s", labels[k] ? labels[k] : "?");
		return;
	}
	for (int first = 1; labels[k]; k++)
		if (v & (1u << k)) {
			printf("%s%s", first ? "" : "|", labels[k]);
			first = 0;
		}
	if (!v)
		printf("0");
}

/* Prints the payload through its class's decoder (events.gen.h), field by field. */
static void print_fields(const struct ht_event *ev, char **tab, uint32_t n)
{
	const struct ht_event_class *ec = ev->ec;
	union ht_ev_any u;

	if (ec->get(&u, ev->payload, ev->size) < 0) {
		printf(" (undecodable)");
		return;
	}
	for (unsigned int i = 0; i < ec->nfields; i++) {
		const struct ht_field *f = &ec->fields[i];
		const void *m = (const uint8_t *)&u + f->member;
		uint8_t cnt = f->member_n ? *((const uint8_t *)&u + f->member_n) : 0;

		printf(" %s=", f->name);
		switch (f->type) {
		case HT_T_U8:
			printf("%u", *(const uint8_t *)m);
			break;
		case HT_T_ENUM8:
			print_labels(f->labels, *(const uint8_t *)m, 0);
			break;
		case HT_T_FLAGS32:
			print_labels(f->labels, *(const uint32_t *)m, 1);
			break;
		case HT_T_U16:
		case HT_T_FN:
			printf("%u", *(const uint16_t *)m);
			break;
		case HT_T_U32:
			printf("%u", *(const uint32_t *)m);
			break;
		case HT_T_I32:
			printf("%d", *(const int32_t *)m);
			break;
		case HT_T_STRID:
			printf("%s", str(tab, n, *(const uint32_t *)m));
			break;
		case HT_T_U64:
			printf("%llu", (unsigned long long)*(const uint64_t *)m);
			break;
		case HT_T_I64:
			printf("%lld", (long long)*(const int64_t *)m);
			break;
		case HT_T_HEX64:
			printf("0x%llx", (unsigned long long)*(const uint64_t *)m);
			break;
		case HT_T_F64:
			printf("%g", *(const double *)m);
			break;
		case HT_T_STR:
			printf("\"%s\"", *(const char *const *)m);
			break;
		case HT_T_U64X3: {
			const uint64_t *v = m;

			printf("%llu,%llu,%llu", (unsigned long long)v[0], (unsigned long long)v[1],
			       (unsigned long long)v[2]);
			break;
		}
		case HT_T_FNARGS:
			for (unsigned int k = 0; k < cnt; k++)
				printf("%s%llu", k ? "," : "",
				       (unsigned long long)(*(const uint64_t *const *)m)[k]);
			break;
		case HT_T_IARGS:
			for (unsigned int k = 0; k < cnt; k++) {
				const struct ht_iarg *a = &(*(const struct ht_iarg *const *)m)[k];
				double d;

				printf("%s%s:", k ? "," : "", str(tab, n, a->key));
				memcpy(&d, &a->value, 8);
				if (a->type == HT_ARG_INT)
					printf("%lld", (long long)a->value);
				else if (a->type == HT_ARG_DOUBLE)
					printf("%g", d);
				else if (a->type == HT_ARG_STRING)
					printf("%s", str(tab, n, (uint32_t)a->value));
				else
					printf("%llu", (unsigned long long)a->value);
			}
			break;
		case HT_T_SIG:
			for (unsigned int k = 0; k < cnt; k++) {
				const struct ht_fn_arg_desc *a =
				    &(*(const struct ht_fn_arg_desc *const *)m)[k];

				printf("%s%s:", k ? "," : "", a->name);
				print_labels(ht_arg_type_names, a->type, 0);
				putchar(':');
				print_labels(ht_arg_role_names, a->role, 0);
			}
			break;
		case HT_T_MEMRUNS: /* addr+stride*count@site:item:size:kind per run */
			for (uint32_t k = 0,
				      nr = *(const uint32_t *)(const void *)((const uint8_t *)&u +
									     f->member_n);
			     k < nr; k++) {
				struct ht_memrun r;

				ht_memrun_get(*(const uint8_t *const *)m, k, &r);
				printf("%s0x%llx%+d*%u@%u:%u:%u:", k ? "," : "",
				       (unsigned long long)r.addr, r.stride, r.count, r.site,
				       r.item, r.size);
				print_labels(ht_mem_kind_names, r.kind, 0);
			}
			break;
		}
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
			struct ht_ev_string_def d;
			uint32_t id;

			if (ev.id != HT_EV_STRING_DEF ||
			    ht_ev_string_def_get(&d, ev.payload, ev.size) < 0 || !d.id)
				continue;
			id = d.id;
			if (id > n) {
				tab = realloc(tab, id * sizeof *tab);
				memset(tab + n, 0, (id - n) * sizeof *tab);
				n = id;
			}
			tab[id - 1] = strdup(d.value);
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
