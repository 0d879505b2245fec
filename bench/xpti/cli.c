/*
 * Command line of xpti-bench, the same flags as the seed's run_test harness:
 *   --type|-y semantic|performance  --trace-points|-t N  --test-id|-i LIST
 *   --num-threads|-n LIST  [--tp-frequency|-f F] [--overhead|-o O] [--report|-r] [--verbose|-v]
 * plus --repeat|-R K (median of K runs, default 5) and --summary (the one-line result).
 * LIST is comma-separated values and begin:end:step ranges, e.g. 0:2:1,4.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpti_bench.h"

static void ht_bench_usage(FILE *f)
{
	fprintf(
	    f, "usage: xpti-bench --type semantic|performance --trace-points N --test-id LIST\n"
	       "                  --num-threads LIST [--tp-frequency F] [--overhead O]\n"
	       "                  [--repeat K] [--report] [--verbose] [--summary]\n"
	       "  LIST: values and begin:end:step ranges, e.g. 0:2:1,4 (threads 0 = serial)\n"
	       "  semantic tests: 1 string table, 2 trace points, 3 notifications\n"
	       "  performance tests: 1 data structures, 2 instrumentation (events/s projection)\n");
}

/* Parse "1,2,4:16:4" into out[]. Return: count, or -1 if malformed. */
static int ht_bench_parse_list(const char *s, int *out, int max)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int n = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long b, e = 0, st = 1;
		char *end;

		b = strtol(tok, &end, 10);
		if (end == tok)
			goto bad;
		if (*end == ':') {
			char *p = end + 1;

			e = strtol(p, &end, 10);
			if (end == p)
				goto bad;
			if (*end == ':') {
				p = end + 1;
				st = strtol(p, &end, 10);
				if (end == p || st <= 0)
					goto bad;
			}
		} else {
			e = b;
		}
		if (*end || b < 0 || e < b || e > 1024)
			goto bad;
		for (long v = b; v <= e; v += st) {
			if (n == max)
				goto bad;
			out[n++] = (int)v;
		}
	}
	free(copy);
	return n;
bad:
	free(copy);
	return -1;
}

int ht_bench_parse(int argc, char **argv, struct ht_bench_opts *o)
{
	static const struct option longopts[] = {
	    {"type", required_argument, NULL, 'y'},
	    {"trace-points", required_argument, NULL, 't'},
	    {"test-id", required_argument, NULL, 'i'},
	    {"num-threads", required_argument, NULL, 'n'},
	    {"tp-frequency", required_argument, NULL, 'f'},
	    {"overhead", required_argument, NULL, 'o'},
	    {"repeat", required_argument, NULL, 'R'},
	    {"report", optional_argument, NULL, 'r'},
	    {"verbose", optional_argument, NULL, 'v'},
	    {"summary", no_argument, NULL, 'S'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	bool have_type = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->trace_points = -1;
	o->overhead = 1.0;
	o->repeat = 5;
	while ((c = getopt_long(argc, argv, "y:t:i:n:f:o:R:r::v::h", longopts, NULL)) != -1) {
		switch (c) {
		case 'y':
			have_type = true;
			if (!strcmp(optarg, "semantic")) {
				o->semantic = true;
			} else if (strcmp(optarg, "performance")) {
				fprintf(stderr,
					"xpti-bench: --type must be semantic or performance\n");
				return 2;
			}
			break;
		case 't':
			o->trace_points = atoi(optarg);
			break;
		case 'i':
			o->ntests = ht_bench_parse_list(optarg, o->tests, HT_BENCH_MAX_LIST);
			if (o->ntests <= 0) {
				fprintf(stderr, "xpti-bench: bad --test-id list '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			o->nthreads = ht_bench_parse_list(optarg, o->threads, HT_BENCH_MAX_LIST);
			if (o->nthreads <= 0) {
				fprintf(stderr, "xpti-bench: bad --num-threads list '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'f':
			o->tp_frequency = atof(optarg);
			break;
		case 'o':
			o->overhead = atof(optarg);
			break;
		case 'R':
			o->repeat = atoi(optarg);
			break;
		case 'r':
			o->report = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'S':
			o->summary = true;
			break;
		case 'h':
			ht_bench_usage(stdout);
			exit(0);
		default:
			ht_bench_usage(stderr);
			return 2;
		}
	}
	if (!have_type || o->trace_points < 0 || !o->ntests || !o->nthreads || optind < argc) {
		fprintf(stderr, "xpti-bench: --type, --trace-points, --test-id and --num-threads "
				"are required\n");
		ht_bench_usage(stderr);
		return 2;
	}
	/* The seed's clamping rules. */
	if (o->trace_points > 100000)
		o->trace_points = 100000;
	if (o->trace_points < 10)
		o->trace_points = 10;
	if (o->overhead < 0.1)
		o->overhead = 0.1;
	if (o->overhead > 15)
		o->overhead = 15;
	if (o->tp_frequency > 100)
		o->tp_frequency = 100;
	if (o->tp_frequency < 0)
		o->tp_frequency = 1;
	if (o->repeat < 1)
		o->repeat = 1;
	if (o->repeat > 51)
		o->repeat = 51;
	return 0;
}
