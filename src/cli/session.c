/*
 * hetrace session start|stop|status|env: system-wide and attach-later
 * tracing. `env` prints the shell assignments that make a program a
 * candidate (the recorder preloaded, told which session to follow); while
 * no session runs such a program records nothing and writes nothing.
 * `start` leaves a per-user daemon (session/daemon.c) that switches
 * recording on in every candidate, already running or started later, and
 * `stop` ends it and finalizes the trace.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/capture.h"
#include "cli/cli.h"
#include "cli/record_share.h"
#include "core/config.h"
#include "session/daemon.h"

static const char usage[] =
    "usage: hetrace session start [-o DIR] [options]\n"
    "       hetrace session stop|status|env [--name NAME]\n"
    "\n"
    "  env                   print the shell assignments (eval \"$(hetrace session env)\")\n"
    "                        that make programs join this user's session\n"
    "  start                 start recording them (programs running already too)\n"
    "  stop                  stop, finalize the trace and print where it is\n"
    "  status                whether a session runs, and into which trace\n"
    "\n"
    "      --name NAME       a session other than 'default' (one per name and user)\n"
    "  -o, --output DIR      start: trace directory (default: hetrace-session-DATE-TIME)\n"
    "  -f, --force           start: replace an earlier trace in DIR\n"
    "      --mode MODE       start: discard (default) or block, as for record\n"
    "      --buffer SIZE     start: packet size, a power of two from 16K to 16M\n"
    "      --clock CLOCK     start: tsc (default where invariant) or monotonic\n"
    "      --callstacks MODE start: launch (default), all or none\n"
    "      --no-os           start: no OS scheduling records\n"
    "      --delay SECONDS   start: begin recording this long after the start\n"
    "      --duration SECONDS\n"
    "                        start: record this long, then wait idle for stop\n"
    "      --capture-range=region:NAME|nvtx:NAME\n"
    "                        start: each program records only inside its regions\n"
    "                        (NVTX push/pop ranges) NAME\n"
    "      --capture-range-end=stop|repeat\n"
    "                        start: after its first such range (default) or every one\n"
    "  -q, --quiet           no messages but errors\n";

/* Prints `export NAME='value'` with the value quoted for any POSIX shell. */
static void print_export(const char *name, const char *v)
{
	printf("export %s='", name);
	for (; *v; v++) {
		if (*v == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*v);
	}
	puts("'");
}

static int session_env(const char *name)
{
	struct ht_session_paths p;
	char libdir[PATH_MAX];
	int fd;

	if (ht_session_paths_get(name, 1, &p))
		return 1;
	/* The page exists before any candidate starts, so every one of them can map it. */
	fd = ht_ctl_open(p.ctl, 1);
	if (fd < 0)
		return ht_error("cannot create session control page '%s': %s", p.ctl,
				strerror(-fd));
	close(fd);
	if (ht_record_find_libdir(libdir, sizeof libdir))
		return ht_error("cannot find libhetrace.so.0 next to the hetrace command (expected "
				"in <bindir>/../lib); reinstall or rebuild hetrace");
	unsetenv("LD_PRELOAD"); /* the user's own preloads stay theirs to add */
	/* The recorder and the interposers every program may use (no MPI: it asks a launch). */
	if (ht_record_set_preload(libdir, "opencl", "true"))
		return ht_error("library path too long for LD_PRELOAD");
	print_export("LD_PRELOAD", getenv("LD_PRELOAD"));
	print_export("HETRACE_SESSION", name);
	/* Always: a service manager's programs may lack the XDG_RUNTIME_DIR it came from. */
	print_export("HETRACE_SESSION_DIR", p.dir);
	return 0;
}

int ht_cmd_session(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"name", required_argument, 0, 'n'},
	    {"output", required_argument, 0, 'o'},
	    {"force", no_argument, 0, 'f'},
	    {"mode", required_argument, 0, 'm'},
	    {"buffer", required_argument, 0, 'b'},
	    {"clock", required_argument, 0, 'c'},
	    {"callstacks", required_argument, 0, 'K'},
	    {"no-os", no_argument, 0, 'N'},
	    {"delay", required_argument, 0, 'd'},
	    {"duration", required_argument, 0, 'D'},
	    {"capture-range", required_argument, 0, 'r'},
	    {"capture-range-end", required_argument, 0, 'e'},
	    {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0},
	};
	struct ht_session_opts o = {.name = "default", .os = 1};
	struct ht_capture cap = {0};
	const char *sub;
	int opt, start;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	sub = argv[1];
	start = !strcmp(sub, "start");
	if (!start && strcmp(sub, "stop") && strcmp(sub, "status") && strcmp(sub, "env"))
		return ht_usage_error("session", "unknown action '%s' (start, stop, status, env)",
				      sub);
	optind = 2;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "o:fqh", opts, NULL)) != -1) {
		if (!start && opt != 'n' && opt != 'q' && opt != 'h')
			return ht_usage_error("session", "'%s' takes only --name and --quiet", sub);
		switch (opt) {
		case 'n':
			o.name = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			o.force = 1;
			break;
		case 'm':
			o.mode = optarg;
			break;
		case 'b':
			o.buffer = optarg;
			break;
		case 'c':
			o.clock = optarg;
			break;
		case 'K':
			o.callstacks = optarg;
			break;
		case 'N':
			o.os = 0;
			break;
		case 'd':
			cap.delay = optarg;
			break;
		case 'D':
			cap.duration = optarg;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'r':
			cap.range = optarg;
			break;
		case 'e':
			cap.end = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return ht_usage_error("session", "unknown or incomplete option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind < argc)
		return ht_usage_error("session", "unexpected argument '%s'", argv[optind]);
	if (!ht_ctl_name_valid(o.name))
		return ht_usage_error("session",
				      "--name must be 1 to 63 letters, digits, '-', "
				      "'_' or '.', not '%s'",
				      o.name);
	if (!strcmp(sub, "env"))
		return session_env(o.name);
	if (!strcmp(sub, "stop"))
		return ht_session_stop(o.name, o.quiet);
	if (!strcmp(sub, "status"))
		return ht_session_status(o.name);

	if (ht_record_check_options("session", o.mode, o.buffer, o.clock, o.callstacks))
		return 2;
	if (ht_capture_check(&cap, "session"))
		return 2;
	if (cap.range && (!strcmp(cap.range, "api") || !strcmp(cap.range, "cudaProfilerApi")))
		return ht_usage_error("session",
				      "--capture-range=%s is for record: in a session "
				      "hetrace_start/hetrace_stop and cudaProfilerStart/Stop have "
				      "no effect (use region:NAME or nvtx:NAME)",
				      cap.range);
	if (cap.range) {
		/* NVTX push/pop ranges are regions in the trace (capture.c does the same) */
		static char region[300];

		snprintf(region, sizeof region, "region:%s",
			 cap.range + (strncmp(cap.range, "nvtx:", 5) ? 7 : 5));
		o.capture = region;
		o.capture_end = cap.end;
	}
	o.delay_s = cap.delay_s;
	o.duration_s = cap.duration_s;
	return ht_session_start(&o);
}
