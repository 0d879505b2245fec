/*
 * Field codecs: how each field type of events.def is written and read. The
 * generated per-class encoders and decoders (events.gen.h) are sequences of
 * these, so a layout is spelled in exactly one place. Writers trust their
 * input; every reader bounds-checks against the end of the payload, because
 * traces may be truncated, corrupt or hostile.
 */
#ifndef HT_CODEC_H
#define HT_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HT_STR_MAX    4000 /* longer strings are cut (on a UTF-8 boundary) */
#define HT_FNARGS_MAX 12
#define HT_IARGS_MAX  8
#define HT_IARG_SIZE  13 /* u32 key + u8 type + 8-byte value */

/* An instant argument (iargs): key string id, ht_iarg_type, 8 value bytes. */
struct ht_iarg {
	uint32_t key;
	uint8_t type;
	uint64_t value;
};

/*
 * A run of memory accesses (memruns): `count` accesses of one site by the
 * work-items item, item + 1, ... of a group, at addr, addr + stride, ...
 * Wire form, 22 bytes: u64 addr, i32 stride, u32 site, u16 item, u16 count,
 * u8 size, u8 kind.
 */
#define HT_MEMRUN_SIZE 22
struct ht_memrun {
	uint64_t addr;
	int32_t stride;
	uint32_t site;
	uint16_t item, count;
	uint8_t size, kind;
};

/* A function's argument descriptor (sig): see fntable.h. */
struct ht_fn_arg_desc {
	const char *name;
	uint8_t type; /* enum ht_arg_type */
	uint8_t role; /* enum ht_arg_role */
};

/* Little-endian accessors (x86: plain unaligned loads and stores). */
static inline uint64_t ht_le64(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline uint32_t ht_le32(const void *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline uint16_t ht_le16(const void *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return v;
}
static inline void ht_put64(void *p, uint64_t v)
{
	__builtin_memcpy(p, &v, 8);
}
static inline void ht_put32(void *p, uint32_t v)
{
	__builtin_memcpy(p, &v, 4);
}
static inline void ht_put16(void *p, uint16_t v)
{
	__builtin_memcpy(p, &v, 2);
}

/* Return: the length of s cut to at most max bytes without splitting a UTF-8 sequence. */
static inline size_t ht_str_cut(const char *s, size_t max)
{
	size_t n = 0;

	while (n <= max && s[n]) /* not strnlen: s may be a shorter array (GCC warns) */
		n++;
	if (n <= max)
		return n;
	n = max;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--; /* do not split a multi-byte sequence */
	return n;
}

/* ---- writers: store, return the end ---- */

static inline uint8_t *ht_fput_u8(uint8_t *p, uint8_t v)
{
	*p = v;
	return p + 1;
}
static inline uint8_t *ht_fput_u16(uint8_t *p, uint16_t v)
{
	ht_put16(p, v);
	return p + 2;
}
static inline uint8_t *ht_fput_u32(uint8_t *p, uint32_t v)
{
	ht_put32(p, v);
	return p + 4;
}
static inline uint8_t *ht_fput_u64(uint8_t *p, uint64_t v)
{
	ht_put64(p, v);
	return p + 8;
}
static inline uint8_t *ht_fput_f64(uint8_t *p, double v)
{
	__builtin_memcpy(p, &v, 8);
	return p + 8;
}
static inline size_t ht_fsize_str(const char *s, size_t max)
{
	return ht_str_cut(s ? s : "", max) + 1;
}
static inline uint8_t *ht_fput_str(uint8_t *p, const char *s, size_t max)
{
	size_t n = ht_str_cut(s ? s : "", max);

	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p + n + 1;
}
static inline uint8_t *ht_fput_u64x3(uint8_t *p, const uint64_t v[3])
{
	ht_put64(p, v[0]);
	ht_put64(p + 8, v[1]);
	ht_put64(p + 16, v[2]);
	return p + 24;
}
/* Not memcpy: GCC inlines a bounded one as `rep movsq`, ~15 ns to start here. */
static inline uint8_t *ht_fput_fnargs(uint8_t *p, uint8_t n, const uint64_t *v)
{
	*p++ = n;
	for (unsigned int i = 0; i < n; i++)
		ht_put64(p + 8 * i, v[i]);
	return p + 8 * (size_t)n;
}
static inline uint8_t *ht_fput_iargs(uint8_t *p, uint8_t n, const struct ht_iarg *v)
{
	*p++ = n;
	for (unsigned int i = 0; i < n; i++, p += HT_IARG_SIZE) {
		ht_put32(p, v[i].key);
		p[4] = v[i].type;
		ht_put64(p + 5, v[i].value);
	}
	return p;
}
static inline uint8_t *ht_memrun_put(uint8_t *p, const struct ht_memrun *r)
{
	ht_put64(p, r->addr);
	ht_put32(p + 8, (uint32_t)r->stride);
	ht_put32(p + 12, r->site);
	ht_put16(p + 16, r->item);
	ht_put16(p + 18, r->count);
	p[20] = r->size;
	p[21] = r->kind;
	return p + HT_MEMRUN_SIZE;
}
static inline uint8_t *ht_fput_memruns(uint8_t *p, uint32_t n, const uint8_t *runs)
{
	ht_put32(p, n);
	if (n)
		memcpy(p + 4, runs, (size_t)n * HT_MEMRUN_SIZE);
	return p + 4 + (size_t)n * HT_MEMRUN_SIZE;
}
static inline size_t ht_fsize_sig(uint8_t n, const struct ht_fn_arg_desc *v)
{
	size_t s = 1;

	for (unsigned int i = 0; i < n; i++)
		s += ht_fsize_str(v[i].name, 255) + 2;
	return s;
}
static inline uint8_t *ht_fput_sig(uint8_t *p, uint8_t n, const struct ht_fn_arg_desc *v)
{
	*p++ = n;
	for (unsigned int i = 0; i < n; i++) {
		p = ht_fput_str(p, v[i].name, 255);
		*p++ = v[i].type;
		*p++ = v[i].role;
	}
	return p;
}

/* ---- readers: load if it fits before end, return the end or NULL ---- */

static inline const uint8_t *ht_fget_u8(const uint8_t *p, const uint8_t *end, uint8_t *v)
{
	if (end - p < 1)
		return NULL;
	*v = *p;
	return p + 1;
}
static inline const uint8_t *ht_fget_u16(const uint8_t *p, const uint8_t *end, uint16_t *v)
{
	if (end - p < 2)
		return NULL;
	*v = ht_le16(p);
	return p + 2;
}
static inline const uint8_t *ht_fget_u32(const uint8_t *p, const uint8_t *end, uint32_t *v)
{
	if (end - p < 4)
		return NULL;
	*v = ht_le32(p);
	return p + 4;
}
static inline const uint8_t *ht_fget_i32(const uint8_t *p, const uint8_t *end, int32_t *v)
{
	if (end - p < 4)
		return NULL;
	*v = (int32_t)ht_le32(p);
	return p + 4;
}
static inline const uint8_t *ht_fget_u64(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (end - p < 8)
		return NULL;
	*v = ht_le64(p);
	return p + 8;
}
static inline const uint8_t *ht_fget_i64(const uint8_t *p, const uint8_t *end, int64_t *v)
{
	if (end - p < 8)
		return NULL;
	*v = (int64_t)ht_le64(p);
	return p + 8;
}
static inline const uint8_t *ht_fget_f64(const uint8_t *p, const uint8_t *end, double *v)
{
	if (end - p < 8)
		return NULL;
	__builtin_memcpy(v, p, 8);
	return p + 8;
}
static inline const uint8_t *ht_fget_str(const uint8_t *p, const uint8_t *end, const char **v)
{
	const uint8_t *nul = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;

	if (!nul)
		return NULL;
	*v = (const char *)p;
	return nul + 1;
}
static inline const uint8_t *ht_fget_u64x3(const uint8_t *p, const uint8_t *end, uint64_t v[3])
{
	if (end - p < 24)
		return NULL;
	v[0] = ht_le64(p);
	v[1] = ht_le64(p + 8);
	v[2] = ht_le64(p + 16);
	return p + 24;
}
static inline const uint8_t *ht_fget_fnargs(const uint8_t *p, const uint8_t *end, uint8_t *n,
					    uint64_t *store)
{
	if (end - p < 1 || p[0] > HT_FNARGS_MAX || end - p < 1 + 8 * (ptrdiff_t)p[0])
		return NULL;
	*n = *p++;
	for (unsigned int i = 0; i < *n; i++)
		store[i] = ht_le64(p + 8 * i);
	return p + 8 * (size_t)*n;
}
static inline const uint8_t *ht_fget_iargs(const uint8_t *p, const uint8_t *end, uint8_t *n,
					   struct ht_iarg *store)
{
	if (end - p < 1 || p[0] > HT_IARGS_MAX || end - p < 1 + HT_IARG_SIZE * (ptrdiff_t)p[0])
		return NULL;
	*n = *p++;
	for (unsigned int i = 0; i < *n; i++, p += HT_IARG_SIZE) {
		store[i].key = ht_le32(p);
		store[i].type = p[4];
		store[i].value = ht_le64(p + 5);
	}
	return p;
}
/* memruns: the runs stay in the payload (ht_memrun_get reads run i) */
static inline const uint8_t *ht_fget_memruns(const uint8_t *p, const uint8_t *end, uint32_t *n,
					     const uint8_t **runs)
{
	if (end - p < 4 || (uint64_t)ht_le32(p) * HT_MEMRUN_SIZE > (uint64_t)(end - p - 4))
		return NULL;
	*n = ht_le32(p);
	*runs = p + 4;
	return p + 4 + (size_t)*n * HT_MEMRUN_SIZE;
}
static inline void ht_memrun_get(const uint8_t *runs, uint32_t i, struct ht_memrun *r)
{
	const uint8_t *p = runs + (size_t)i * HT_MEMRUN_SIZE;

	r->addr = ht_le64(p);
	r->stride = (int32_t)ht_le32(p + 8);
	r->site = ht_le32(p + 12);
	r->item = ht_le16(p + 16);
	r->count = ht_le16(p + 18);
	r->size = p[20];
	r->kind = p[21];
}
static inline const uint8_t *ht_fget_sig(const uint8_t *p, const uint8_t *end, uint8_t *n,
					 struct ht_fn_arg_desc *store)
{
	if (end - p < 1 || p[0] > HT_FNARGS_MAX)
		return NULL;
	*n = *p++;
	for (unsigned int i = 0; i < *n; i++) {
		if (!(p = ht_fget_str(p, end, &store[i].name)) || end - p < 2)
			return NULL;
		store[i].type = p[0];
		store[i].role = p[1];
		p += 2;
	}
	return p;
}

#endif
