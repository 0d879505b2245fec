/*
 * The hetrace command: dispatches to one sub-command per file in src/cli.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const char usage[] =
	"usage: hetrace <command> [options]\n"
	"\n"
	"commands:\n"
	"  record [-o DIR] [options] -- COMMAND [ARGS...]   trace a program and its children\n"
	"  info DIR                                         processes, threads, events, losses\n"
	"  check [--repair] DIR                             validate a trace; repair a torn one\n"
	"  report DIR [--format text|csv|json]              where the time went, why the GPU idled\n"
	"  report --diff BASE NEW [--threshold PCT]         what changed between two runs (CI)\n"
	"  export DIR --format perfetto|chrome|otf2|ctf|sqlite -o OUT   Perfetto, Vampir, SQL, ...\n"
	"  view DIR -o timeline.html                        a self-contained interactive timeline\n"
	"  session start|stop|status|env                    trace programs already running, or\n"
	"                                                   started anywhere, for a window\n"
	"\n"
	"Run 'hetrace <command> --help' for a command's options.\n";

int ht_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hetrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int ht_usage_error(const char *sub, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hetrace %s: ", sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'hetrace %s --help')\n", sub);
	return HT_EXIT_USAGE;
}

int ht_read_error_print(const char *trace, const struct ht_read_error *err)
{
	if (!err->file[0]) /* not about a file of the trace (the environment) */
		return ht_error("%s", err->msg);
	if (err->offset != HT_NO_OFFSET)
		return ht_error("%s/%s: offset %llu: %s", trace, err->file,
				(unsigned long long)err->offset, err->msg);
	return ht_error("%s/%s: %s", trace, err->file, err->msg);
}

void ht_fmt_duration(char *buf, size_t cap, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, cap, "%.3f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, cap, "%.3f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, cap, "%.3f us", ns / 1e3);
	else
		snprintf(buf, cap, "%.0f ns", ns);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{"record", ht_cmd_record},
		{"info", ht_cmd_info},
		{"check", ht_cmd_check},
		{"report", ht_cmd_report},
		{"export", ht_cmd_export},
		{"view", ht_cmd_view},
		{"session", ht_cmd_session},
	};

	if (argc < 2) {
		fputs(usage, stderr);
		return HT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("hetrace " HT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hetrace: unknown command '%s'\n%s", argv[1], usage);
	return HT_EXIT_USAGE;
}
