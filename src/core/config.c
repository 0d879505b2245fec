/*
 * HETRACE_* environment parsing (see config.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "ring/ring.h"

/* Digits only (no sign or space, which strtoull would take): Return: 0, or -EINVAL. */
static int parse_digits(const char *s, unsigned long long *v, char **end)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -EINVAL : 0; /* ERANGE: beyond 2^64 - 1 */
}

int ht_parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (parse_digits(s, &v, &end))
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift) {
		end++;
		if (v > (SIZE_MAX >> shift))
			return -EINVAL; /* 18014398509482048K is 2^64 + 64K, not 64K */
		v <<= shift;
	}
	/* K, KB, KiB (and B alone) */
	if (shift && end[0] == 'i' && end[1] == 'B')
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end || v > SIZE_MAX)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

int ht_config_api_known(const char *name, size_t len)
{
	static const char *const names[] = {"opencl", "cuda", "nvtx", "xpti", "mpi"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (len == strlen(names[i]) && !strncmp(name, names[i], len))
			return 1;
	return 0;
}

static void warn_value(const char *var, const char *val, const char *expect, const char *dflt)
{
	fprintf(stderr, "hetrace: ignoring %s='%s': expected %s; using %s\n", var, val, expect,
		dflt);
}

/*
 * A setting: from the environment, or (session mode) from the settings
 * block of the session's control page, "NAME=value" strings one after the
 * other, an empty one last.
 */
static const char *get(const char *block, const char *name)
{
	size_t n = strlen(name);

	if (!block)
		return getenv(name);
	for (const char *p = block; *p; p += strlen(p) + 1)
		if (!strncmp(p, name, n) && p[n] == '=')
			return p + n + 1;
	return NULL;
}

void ht_config_load(struct ht_config *c)
{
	ht_config_load_block(c, NULL);
}

void ht_config_load_block(struct ht_config *c, const char *block)
{
	const char *v;

	memset(c, 0, sizeof *c);
	c->packet_size = HT_PACKET_DEFAULT;
	c->use_tsc = 0;
	c->os = HT_CONFIG_OS_THREAD;
	c->ring_slots = HT_RING_SLOTS_DEFAULT; /* used where `record`'s doorbell is found */
	c->callstacks = HT_STACKS_LAUNCH;

	v = get(block, "HETRACE_DIR");
	c->dir = (v && *v) ? v : NULL;

	v = get(block, "HETRACE_MODE");
	if (v && *v) {
		if (!strcmp(v, "block"))
			c->block = 1;
		else if (strcmp(v, "discard"))
			warn_value("HETRACE_MODE", v, "discard or block", "discard");
	}

	v = get(block, "HETRACE_BUFFER");
	if (v && *v) {
		size_t sz;

		if (ht_parse_size(v, &sz) || sz < HT_PACKET_MIN || sz > HT_PACKET_MAX ||
		    (sz & (sz - 1)))
			warn_value("HETRACE_BUFFER", v, "a power of two from 16K to 16M", "64K");
		else
			c->packet_size = sz;
	}

	/* `record` passes the rate it measured with the clock: tsc:HZ (one variable less). */
	v = get(block, "HETRACE_CLOCK");
	if (v && *v) {
		char *end;
		double hz;

		if (!strcmp(v, "tsc")) {
			c->use_tsc = 1;
		} else if (!strncmp(v, "tsc:", 4) && (hz = strtod(v + 4, &end)) >= 1e6 &&
			   hz <= 1e11 && !*end) {
			c->use_tsc = 1;
			c->tsc_hz = hz;
		} else if (strcmp(v, "monotonic")) {
			warn_value("HETRACE_CLOCK", v, "tsc, tsc:HZ or monotonic", "monotonic");
		}
	}

	v = get(block, "HETRACE_OS");
	if (v && *v) {
		if (!strcmp(v, "0"))
			c->os = HT_CONFIG_OS_OFF;
		else if (!strcmp(v, "cpu"))
			c->os = HT_CONFIG_OS_RECORD;
		else if (strcmp(v, "1"))
			warn_value("HETRACE_OS", v, "0, 1 or cpu", "1");
	}

	v = get(block, "HETRACE_RING");
	if (v && *v) {
		char *end;
		unsigned long long n;

		if (parse_digits(v, &n, &end) || *end || !(n == 0 || (n >= 2 && n <= 4096)))
			warn_value("HETRACE_RING", v, "0 or 2 to 4096 packets", "16");
		else
			c->ring_slots = (unsigned int)n;
	}

	v = get(block, "HETRACE_CALLSTACKS");
	if (v && *v) {
		if (!strcmp(v, "none"))
			c->callstacks = HT_STACKS_NONE;
		else if (!strcmp(v, "all"))
			c->callstacks = HT_STACKS_ALL;
		else if (strcmp(v, "launch"))
			warn_value("HETRACE_CALLSTACKS", v, "none, launch or all", "launch");
	}

	v = get(block, "HETRACE_SAMPLE");
	c->sampled = v && !strcmp(v, "1");

	v = get(block, "HETRACE_COUNTERS");
	c->counters = (v && *v) ? v : NULL;

	/* Capture ranges (--capture-range): region:NAME or api, ending stop or repeat. */
	v = get(block, "HETRACE_CAPTURE");
	if (v && *v) {
		if (!strncmp(v, "region:", 7) && v[7])
			c->capture_region = v + 7;
		else if (!strcmp(v, "api"))
			c->capture_api = 1;
		else if (!strcmp(v,
				 "cudaProfilerApi")) /* libhetrace-cuda calls hetrace_start/stop */
			c->capture_api = 1;
		else
			warn_value("HETRACE_CAPTURE", v, "region:NAME, api or cudaProfilerApi",
				   "no capture range");
	}
	v = get(block, "HETRACE_CAPTURE_END");
	if (v && *v) {
		if (!strcmp(v, "repeat"))
			c->capture_repeat = 1;
		else if (strcmp(v, "stop"))
			warn_value("HETRACE_CAPTURE_END", v, "stop or repeat", "stop");
	}

	/* The sources read HETRACE_API themselves; names none of them knows are typos. */
	v = get(block, "HETRACE_API");
	for (const char *p = v; p && *p;) {
		size_t len = strcspn(p, ",");

		if (!ht_config_api_known(p, len))
			fprintf(
			    stderr,
			    "hetrace: ignoring '%.*s' in HETRACE_API='%s': expected opencl, cuda, "
			    "nvtx, xpti or mpi\n",
			    (int)len, p, v);
		p += len + (p[len] == ',');
	}

	v = get(block, "HETRACE_TSC_HZ");
	if (v && *v) {
		char *end;
		double hz = strtod(v, &end);

		if (*end || !(hz >= 1e6 && hz <= 1e11))
			warn_value("HETRACE_TSC_HZ", v, "the counter rate in Hz",
				   "a measured rate");
		else
			c->tsc_hz = hz;
	}
}
