/*
 * Sample values for every field type of events.def, filled into and compared
 * on any event class's struct through the member offsets of its field table.
 * Shared by the format unit test (round trips) and the every-class trace
 * that babeltrace2 reads (tests/integration/every_class.c).
 */
#ifndef HT_TEST_FORMAT_SAMPLE_H
#define HT_TEST_FORMAT_SAMPLE_H

#include <string.h>

#include "format/fntable.h"
#include "format/format.h"

static const struct ht_fn_arg_desc sig_sample[3] = {
    {"command_queue", HT_FA_HEX, HT_AR_QUEUE},
    {"blocking_read", HT_FA_UINT, HT_AR_BLOCKING},
    {"corr", HT_FA_UINT, HT_AR_CORR},
};
static const uint64_t fnargs_sample[5] = {1, 0xffffffffffffffffull, 0, 42, 1ull << 63};
static const struct ht_iarg iargs_sample[2] = {{7, HT_ARG_INT, (uint64_t)-5},
					       {9, HT_ARG_STRING, 3}};
/*
 * No empty string here: babeltrace2 2.0 prints an empty string field with
 * the value the same field had in the previous event of its class (seen on
 * this trace; the bytes are right). test_bounds round-trips "" apart.
 */
/* Three runs in their wire form (codec.h): a unit-stride load, a negative stride, a scatter. */
static const struct ht_memrun memruns_sample[3] = {
    {0x7f0000001000ull, 4, 3, 0, 256, 4, 0},
    {0x7f0000002000ull, -8, 5, 17, 2, 8, 1},
    {0x10ull, 0, 0x1230, 65535, 1, 255, 2},
};
static uint8_t memruns_wire[3 * HT_MEMRUN_SIZE];

static const char *const str_sample[] = {"x", "kernel_a", "h\xc3\xa9llo \xe2\x82\xac"};

/* Fills member f of struct ev with a value derived from seed k. */
static inline void ht_sample_fill(void *ev, const struct ht_field *f, unsigned int k)
{
	uint8_t *m = (uint8_t *)ev + f->member;
	uint64_t v = 0x0102030405060708ull * (k + 1) + k;

	switch (f->type) {
	case HT_T_U8:
		*m = (uint8_t)(k + 1);
		break;
	case HT_T_ENUM8: { /* a labelled value: babeltrace2 reads what readers read */
		unsigned int n = 0;

		while (f->labels[n])
			n++;
		*m = (uint8_t)(k % n);
		break;
	}
	case HT_T_U16:
	case HT_T_FN:
		*(uint16_t *)(void *)m = (uint16_t)(0x1000 + k);
		break;
	case HT_T_U32:
	case HT_T_FLAGS32:
		*(uint32_t *)(void *)m = (uint32_t)v;
		break;
	case HT_T_STRID: /* ids the every-class trace defines */
		*(uint32_t *)(void *)m = k % 3 == 0 ? 3 : k % 3 == 1 ? 7 : 9;
		break;
	case HT_T_I32:
		*(int32_t *)(void *)m = -(int32_t)(k + 2);
		break;
	case HT_T_U64:
	case HT_T_HEX64:
		*(uint64_t *)(void *)m = v;
		break;
	case HT_T_I64:
		*(int64_t *)(void *)m = -(int64_t)v;
		break;
	case HT_T_F64:
		*(double *)(void *)m = 0.25 + k;
		break;
	case HT_T_STR:
		*(const char **)(void *)m = str_sample[k % 3];
		break;
	case HT_T_U64X3:
		for (int i = 0; i < 3; i++)
			((uint64_t *)(void *)m)[i] = v + (uint64_t)i;
		break;
	case HT_T_FNARGS:
		*((uint8_t *)ev + f->member_n) = 5;
		*(const uint64_t **)(void *)m = fnargs_sample;
		break;
	case HT_T_IARGS:
		*((uint8_t *)ev + f->member_n) = 2;
		*(const struct ht_iarg **)(void *)m = iargs_sample;
		break;
	case HT_T_SIG:
		*((uint8_t *)ev + f->member_n) = 3;
		*(const struct ht_fn_arg_desc **)(void *)m = sig_sample;
		break;
	case HT_T_MEMRUNS:
		for (unsigned int i = 0; i < 3; i++)
			ht_memrun_put(memruns_wire + i * HT_MEMRUN_SIZE, &memruns_sample[i]);
		*(uint32_t *)(void *)((uint8_t *)ev + f->member_n) = 3;
		*(const uint8_t **)(void *)m = memruns_wire;
		break;
	}
}

/* Return: nonzero when member f of a and b holds the same value. */
static inline int ht_sample_same(const void *a, const void *b, const struct ht_field *f)
{
	const uint8_t *x = (const uint8_t *)a + f->member, *y = (const uint8_t *)b + f->member;
	size_t n = ht_format_field_size(f->type);

	if (n)
		return f->type == HT_T_F64
			   ? *(const double *)(const void *)x == *(const double *)(const void *)y
			   : !memcmp(x, y, f->type == HT_T_U64X3 ? 24 : n);
	if (f->type == HT_T_STR)
		return !strcmp(*(const char *const *)(const void *)x,
			       *(const char *const *)(const void *)y);
	if (f->type == HT_T_MEMRUNS) {
		uint32_t ra = *(const uint32_t *)(const void *)((const uint8_t *)a + f->member_n);
		uint32_t rb = *(const uint32_t *)(const void *)((const uint8_t *)b + f->member_n);

		return ra == rb && !memcmp(*(const uint8_t *const *)(const void *)x,
					   *(const uint8_t *const *)(const void *)y,
					   (size_t)ra * HT_MEMRUN_SIZE);
	}
	uint8_t na = *((const uint8_t *)a + f->member_n), nb = *((const uint8_t *)b + f->member_n);

	if (na != nb)
		return 0;
	for (unsigned int i = 0; i < na; i++) {
		if (f->type == HT_T_FNARGS) {
			if ((*(const uint64_t *const *)(const void *)x)[i] !=
			    (*(const uint64_t *const *)(const void *)y)[i])
				return 0;
		} else if (f->type == HT_T_IARGS) {
			const struct ht_iarg *p = *(const struct ht_iarg *const *)(const void *)x;
			const struct ht_iarg *q = *(const struct ht_iarg *const *)(const void *)y;

			if (p[i].key != q[i].key || p[i].type != q[i].type ||
			    p[i].value != q[i].value)
				return 0;
		} else {
			const struct ht_fn_arg_desc *p =
			    *(const struct ht_fn_arg_desc *const *)(const void *)x;
			const struct ht_fn_arg_desc *q =
			    *(const struct ht_fn_arg_desc *const *)(const void *)y;

			if (strcmp(p[i].name, q[i].name) || p[i].type != q[i].type ||
			    p[i].role != q[i].role)
				return 0;
		}
	}
	return 1;
}

#endif
