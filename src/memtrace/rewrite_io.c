/*
 * The rewriter helper's wire format (rewrite.h), both ways, without
 * libclang: libhetrace-opencl.so writes requests and reads results with it.
 *
 *   request:  "hetrace-cl-rewrite 2 NBINS CAP BLOCK SAMPLE STAGE EXPAND OPTLEN DEVLEN SRCLEN\n"
 *             OPTLEN bytes of build options, DEVLEN bytes of the device's
 *             predefinitions, SRCLEN bytes of source
 *   result:   "hetrace-cl-rewrite 2 ok|fail\n"
 *             "error TEXT\n"                        (fail)
 *             "skipped N\n"
 *             "expanded 0|1\n"
 *             "kernel NPARAMS BUFFERS NAME\n"...   (BUFFERS in hex)
 *             "file NAME\n"...                      (files 1, 2, ...)
 *             "site ID ARG KIND SIZE LINE COL FILE FN\n"...
 *             "source LEN\n" LEN bytes
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "memtrace/rewrite.h"

#define MAGIC "hetrace-cl-rewrite 2"

int ht_mt_rewrite_request_write(FILE *f, const struct ht_mt_cl_params *p,
				const struct ht_mt_front *fe, const char *src, size_t len)
{
	size_t olen = fe->options ? strlen(fe->options) : 0,
	       dlen = fe->device ? strlen(fe->device) : 0;

	fprintf(f, MAGIC " %u %u %d %u %u %d %zu %zu %zu\n", p->nbins, p->cap, p->block, p->sample,
		p->stage, fe->expand, olen, dlen, len);
	fwrite(fe->options ? fe->options : "", 1, olen, f);
	fwrite(fe->device ? fe->device : "", 1, dlen, f);
	fwrite(src, 1, len, f);
	return ferror(f) ? -EIO : 0;
}

int ht_mt_rewrite_request_read(const char *buf, size_t len, struct ht_mt_cl_params *p,
			       struct ht_mt_front *fe, char **strings, const char **src,
			       size_t *srclen)
{
	const char *nl = memchr(buf, '\n', len);
	size_t olen, dlen, slen, head;
	char *o;

	*strings = NULL;
	if (!nl || sscanf(buf, MAGIC " %u %u %d %u %u %d %zu %zu %zu", &p->nbins, &p->cap,
			  &p->block, &p->sample, &p->stage, &fe->expand, &olen, &dlen, &slen) != 9)
		return -EINVAL;
	head = (size_t)(nl + 1 - buf);
	if (olen > len || dlen > len || slen > len || head + olen + dlen + slen != len)
		return -EINVAL;
	o = malloc(olen + dlen + 2);
	if (!o)
		return -ENOMEM;
	memcpy(o, nl + 1, olen);
	o[olen] = '\0';
	memcpy(o + olen + 1, nl + 1 + olen, dlen);
	o[olen + 1 + dlen] = '\0';
	fe->options = o;
	fe->device = o + olen + 1;
	*strings = o;
	*src = nl + 1 + olen + dlen;
	*srclen = slen;
	return 0;
}

int ht_mt_rewrite_write(FILE *f, const struct ht_mt_rewrite *r, int ok)
{
	fprintf(f, MAGIC " %s\n", ok ? "ok" : "fail");
	if (!ok) {
		fputs("error ", f);
		for (const char *c = r->error; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
		fputc('\n', f);
		return ferror(f) ? -EIO : 0;
	}
	fprintf(f, "skipped %u\nexpanded %d\n", r->skipped, r->expanded);
	for (size_t i = 0; i < r->nkernels; i++)
		fprintf(f, "kernel %u %" PRIx64 " %s\n", r->kernels[i].nparams,
			r->kernels[i].buffers, r->kernels[i].name);
	for (size_t i = 1; i < r->nfiles; i++)
		fprintf(f, "file %s\n", r->files[i]);
	for (size_t i = 0; i < r->nsites; i++) {
		const struct ht_mt_site *s = &r->sites[i];

		fprintf(f, "site %u %d %u %u %u %u %u %s\n", s->id, s->arg, s->kind, s->size,
			s->line, s->col, s->file, s->fn[0] ? s->fn : "-");
	}
	fprintf(f, "source %zu\n", r->len);
	fwrite(r->source, 1, r->len, f);
	return ferror(f) ? -EIO : 0;
}

/* The next line of buf from *pos (NUL-terminated in a copy in line). Return: 0 or -1. */
static int next_line(const char *buf, size_t len, size_t *pos, char *line, size_t cap)
{
	const char *nl;
	size_t n;

	if (*pos >= len)
		return -1;
	nl = memchr(buf + *pos, '\n', len - *pos);
	if (!nl)
		return -1;
	n = (size_t)(nl - (buf + *pos));
	if (n >= cap)
		return -1;
	memcpy(line, buf + *pos, n);
	line[n] = '\0';
	*pos += n + 1;
	return 0;
}

int ht_mt_rewrite_read(const char *buf, size_t len, struct ht_mt_rewrite *r)
{
	char line[HT_MT_NAME_MAX + 128];
	size_t pos = 0, capk = 0, caps = 0;

	memset(r, 0, sizeof *r);
	if (next_line(buf, len, &pos, line, sizeof line) || strncmp(line, MAGIC " ", 21))
		return -EINVAL;
	if (!strcmp(line + 21, "fail")) {
		if (!next_line(buf, len, &pos, line, sizeof line) && !strncmp(line, "error ", 6))
			snprintf(r->error, sizeof r->error, "%s", line + 6);
		else
			snprintf(r->error, sizeof r->error, "no reason given");
		return -1;
	}
	if (strcmp(line + 21, "ok"))
		return -EINVAL;
	while (!next_line(buf, len, &pos, line, sizeof line)) {
		if (!strncmp(line, "skipped ", 8)) {
			r->skipped = (uint32_t)strtoul(line + 8, NULL, 10);
		} else if (!strncmp(line, "expanded ", 9)) {
			r->expanded = line[9] == '1';
		} else if (!strncmp(line, "kernel ", 7)) {
			struct ht_mt_kernel *k;
			int n = 0;

			if (ht_grow((void **)&r->kernels, &capk, sizeof *r->kernels,
				    r->nkernels + 1))
				goto nomem;
			k = &r->kernels[r->nkernels];
			if (sscanf(line + 7, "%u %" SCNx64 " %n", &k->nparams, &k->buffers, &n) <
				2 ||
			    !n || !line[7 + n] || strlen(line + 7 + n) >= sizeof k->name)
				goto bad;
			strcpy(k->name, line + 7 + n);
			r->nkernels++;
		} else if (!strncmp(line, "file ", 5)) {
			if (ht_mt_rewrite_file(r, line + 5) < 0)
				goto nomem;
		} else if (!strncmp(line, "site ", 5)) {
			struct ht_mt_site *s;
			unsigned int kind, size;
			int n = 0;

			if (ht_grow((void **)&r->sites, &caps, sizeof *r->sites, r->nsites + 1))
				goto nomem;
			s = &r->sites[r->nsites];
			if (sscanf(line + 5, "%u %d %u %u %u %u %u %n", &s->id, &s->arg, &kind,
				   &size, &s->line, &s->col, &s->file, &n) < 7 ||
			    !n || kind > 2 || size > 255 || strlen(line + 5 + n) >= sizeof s->fn ||
			    (s->file && s->file >= r->nfiles))
				goto bad;
			s->kind = (uint8_t)kind;
			s->size = (uint8_t)size;
			strcpy(s->fn, strcmp(line + 5 + n, "-") ? line + 5 + n : "");
			r->nsites++;
		} else if (!strncmp(line, "source ", 7)) {
			size_t n = strtoul(line + 7, NULL, 10);

			if (n > len - pos)
				goto bad;
			r->source = malloc(n + 1);
			if (!r->source)
				goto nomem;
			memcpy(r->source, buf + pos, n);
			r->source[n] = '\0';
			r->len = n;
			return 0;
		} else {
			goto bad;
		}
	}
bad:
	ht_mt_rewrite_release(r);
	return -EINVAL;
nomem:
	ht_mt_rewrite_release(r);
	return -ENOMEM;
}

int ht_mt_rewrite_file(struct ht_mt_rewrite *r, const char *name)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i], name))
			return (int)i;
	if (!r->nfiles && name[0] && ht_mt_rewrite_file(r, "") < 0) /* file 0 first */
		return -1;
	if (ht_grow((void **)&r->files, &r->capfiles, sizeof *r->files, r->nfiles + 1))
		return -1;
	r->files[r->nfiles] = strdup(name);
	if (!r->files[r->nfiles])
		return -1;
	return (int)r->nfiles++;
}

const char *ht_mt_site_file(const struct ht_mt_rewrite *r, const struct ht_mt_site *s)
{
	return s->file < r->nfiles ? r->files[s->file] : "";
}

void ht_mt_rewrite_release(struct ht_mt_rewrite *r)
{
	for (size_t i = 0; i < r->nfiles; i++)
		free(r->files[i]);
	free(r->files);
	r->files = NULL;
	r->nfiles = r->capfiles = 0;
	free(r->source);
	free(r->sites);
	free(r->kernels);
	r->source = NULL;
	r->sites = NULL;
	r->kernels = NULL;
	r->len = r->nsites = r->nkernels = 0;
}
