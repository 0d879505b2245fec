/*
 * hetrace record: runs a command with the recorder preloaded, forwards
 * SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to hetrace itself, waits, finalizes the
 * trace (raw counter timestamps to CLOCK_MONOTONIC, torn packets trimmed)
 * and exits with the command's status (128 + signal if it was killed).
 *
 * Settings reach the recorder through HETRACE_* environment variables, which
 * children inherit, so everything the command starts is traced too.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/finalize.h"
#include "cli/capture.h"
#include "cli/cli.h"
#include "cli/record_dir.h"
#include "cli/record_mpi.h"
#include "cli/record_share.h"
#include "ring/consumer.h"
#include "core/clock.h"
#include "core/config.h"
#include "os/percpu.h"
#include "core/notice.h"
#include "ring/ring.h"
#include "memtrace/cli.h"
#include "pcsamp/cli.h"
#include "sampling/collect.h"

static const char usage[] =
    "usage: hetrace record [options] [--] COMMAND [ARGS...]\n"
    "\n"
    "  -o, --output DIR      trace directory (default: hetrace-YYYYmmdd-HHMMSS)\n"
    "  -f, --force           replace an earlier trace in DIR (only what hetrace\n"
    "                        wrote: anything else there is refused)\n"
    "      --api LIST        sources to enable, comma-separated: opencl,cuda,nvtx,xpti,\n"
    "                        mpi (default: all that the program uses)\n"
    "      --mode MODE       discard (default): drop and count events when no space is\n"
    "                        left; block: wait for space first (10 s in all)\n"
    "      --buffer SIZE     sub-buffer (packet) size, a power of two from 16K to 16M\n"
    "                        (default 64K)\n"
    "      --clock CLOCK     tsc (default where invariant) or monotonic\n"
    "      --os, --no-os     record OS scheduling of the traced threads (default: on\n"
    "                        where the kernel permits)\n"
    "      --memory-access[=GLOB]\n"
    "                        record every global-memory load, store and atomic of\n"
    "                        the kernels whose name matches GLOB (default: all)\n"
    "      --memory-access-sample N\n"
    "                        record the accesses of 1 work-group in N\n"
    "      --memory-access-buffer SIZE\n"
    "                        the device-visible channel they pass through (default 8M)\n"
    "      --callstacks MODE the caller's stack at API calls: launch (default: calls\n"
    "                        that submit, wait for or allocate device work), all, none\n"
    "      --sample-rate HZ  CPU samples per second of each thread's CPU time, with\n"
    "                        their call stacks (default 1000)\n"
    "      --no-sample       no CPU sampling\n"
    "      --pc-sampling[=PERIOD]\n"
    "                        sample the program counter of running kernels every\n"
    "                        PERIOD (default 1ms): PoCL's CPU devices (CPU samples\n"
    "                        of the kernel threads, on with --no-sample too), CUDA\n"
    "                        GPUs (CUPTI, with stall reasons); report's hot lines\n"
    "      --counters LIST   perf counters (task-clock, page-faults, cycles, ... or PAPI\n"
    "                        presets) read per CPU sample and at API calls and regions\n"
    "      --delay SECONDS   start recording this long after the command starts\n"
    "      --duration SECONDS\n"
    "                        record this long (then the command runs on unrecorded)\n"
    "      --capture-range=region:NAME|nvtx:NAME|api|cudaProfilerApi\n"
    "                        record only inside regions NAME (hetrace.h), NVTX\n"
    "                        push/pop ranges NAME, between hetrace_start() and\n"
    "                        hetrace_stop(), or between cudaProfilerStart() and\n"
    "                        cudaProfilerStop() (cuProfilerStart/Stop)\n"
    "      --capture-range-end=stop|repeat\n"
    "                        after the first such range (default) or every one\n"
    "  -q, --quiet           no summary line\n";

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	/*
	 * A terminal's Ctrl-C reaches the whole foreground group (si_code > 0,
	 * from the kernel): the child has it already. Forward only what was
	 * sent to us alone, with kill().
	 */
	if (child_pid > 0 && si->si_code <= 0 && si->si_pid != child_pid)
		kill(child_pid, sig);
}

static int valid_api_list(const char *list, char *bad, size_t cap)
{
	char copy[256], *tok, *save = NULL;

	if (strlen(list) >= sizeof copy)
		return 0;
	strcpy(copy, list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!ht_config_api_known(tok, strlen(tok))) {
			snprintf(bad, cap, "%s", tok);
			return 0;
		}
	}
	return 1;
}

int ht_record_find_libdir(char *out, size_t cap)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(path, sizeof path, "%s/../lib", exe);
	if (!realpath(path, out) || strlen(out) + 32 > cap)
		return -1;
	snprintf(path, sizeof path, "%s/libhetrace.so.0", out);
	return access(path, R_OK) ? -1 : 0;
}

/* Index values: one line each; control characters become spaces. */
static void put_value(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s=", key);
	for (; *v; v++)
		fputc((unsigned char)*v < 0x20 ? ' ' : *v, f);
	fputc('\n', f);
}

int ht_record_index_write(int dfd, int argc, char **argv, const char *clock, double hz)
{
	int fd = openat(dfd, "hetrace.index", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	struct utsname un;
	struct timespec rt, mt;
	char cmd[8192] = "";
	FILE *f;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -errno;
	}
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(cmd);

		snprintf(cmd + n, sizeof cmd - n, "%s%s", i ? " " : "", argv[i]);
	}
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	put_value(f, "hetrace_version", HT_VERSION);
	put_value(f, "host", uname(&un) == 0 ? un.nodename : "unknown");
	put_value(f, "command", cmd);
	fprintf(f, "start_realtime_ns=%lld\n", (long long)rt.tv_sec * 1000000000LL + rt.tv_nsec);
	fprintf(f, "start_monotonic_ns=%lld\n", (long long)mt.tv_sec * 1000000000LL + mt.tv_nsec);
	put_value(f, "clock", clock);
	fprintf(f, "tsc_hz=%.0f\n", hz);
	if (fclose(f))
		return -errno;
	return 0;
}

void ht_record_default_dir(char *out, size_t cap, const char *prefix)
{
	time_t now = time(NULL);
	struct tm tm;
	char when[32];

	localtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
	snprintf(out, cap, "%s-%s", prefix, when);
}

int ht_record_check_options(const char *sub, const char *mode, const char *buffer,
			    const char *clock, const char *callstacks)
{
	size_t sz;

	if (mode && strcmp(mode, "discard") && strcmp(mode, "block"))
		return ht_usage_error(sub, "--mode must be discard or block, not '%s'", mode);
	if (buffer && (ht_parse_size(buffer, &sz) || sz < HT_PACKET_MIN || sz > HT_PACKET_MAX ||
		       (sz & (sz - 1))))
		return ht_usage_error(
		    sub, "--buffer must be a power of two from 16K to 16M, not '%s'", buffer);
	if (clock && strcmp(clock, "tsc") && strcmp(clock, "monotonic"))
		return ht_usage_error(sub, "--clock must be tsc or monotonic, not '%s'", clock);
	if (callstacks && strcmp(callstacks, "none") && strcmp(callstacks, "launch") &&
	    strcmp(callstacks, "all"))
		return ht_usage_error(sub, "--callstacks must be none, launch or all, not '%s'",
				      callstacks);
	return 0;
}

void ht_record_index_end(int dfd, int status_code, const char *status_text)
{
	int fd = openat(dfd, "hetrace.index", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	struct timespec mt;
	char line[256];
	int n;

	if (fd < 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &mt);
	n = snprintf(line, sizeof line, "end_monotonic_ns=%lld\nexit_status=%d\nexit=%s\n",
		     (long long)mt.tv_sec * 1000000000LL + mt.tv_nsec, status_code, status_text);
	if (write(fd, line, (size_t)n) < 0)
		ht_error("cannot complete trace index: %s", strerror(errno));
	close(fd);
}

/*
 * Processes that could not write into the trace and ran untraced (a child
 * that dropped its privileges, say), as they told us (core/notice.h): one
 * index line each, "untraced=pid P uid U gid G comm C: REASON".
 * Return: how many.
 */
static unsigned int index_untraced(int dfd, int fd)
{
	struct ht_notice n;
	unsigned int count = 0;
	FILE *f;
	int ifd;

	if (fd < 0)
		return 0;
	ifd = openat(dfd, "hetrace.index", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	f = ifd >= 0 ? fdopen(ifd, "a") : NULL;
	while (f && count < 100 && ht_notice_take(fd, &n)) {
		fprintf(f,
			"untraced=pid %d uid %u gid %u comm %s: cannot write into the trace: %s\n",
			(int)n.pid, (unsigned int)n.uid, (unsigned int)n.gid,
			n.comm[0] ? n.comm : "?", strerror(n.err));
		count++;
	}
	if (f)
		fclose(f);
	else if (ifd >= 0)
		close(ifd);
	close(fd);
	return count;
}

static int api_enabled(const char *api, const char *name)
{
	size_t n = strlen(name);

	if (!api)
		return 1;
	for (const char *p = api; (p = strstr(p, name)); p += n)
		if ((p == api || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

int ht_record_set_preload(const char *libdir, const char *api, const char *cmd)
{
	static const struct {
		const char *api, *lib;
		int (*wanted)(const char *cmd);
	} sources[] = {
	    {NULL, "libhetrace-preload.so", NULL},
	    {"opencl", "libhetrace-opencl.so", NULL},
	    {"mpi", "libhetrace-mpi.so", ht_record_wants_mpi},
	};
	const char *old = getenv("LD_PRELOAD");
	char v[8192], lib[PATH_MAX + 64];
	size_t n;

	n = (size_t)snprintf(v, sizeof v, "%s/libhetrace.so.0", libdir);
	for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
		snprintf(lib, sizeof lib, "%s/%s", libdir, sources[i].lib);
		if ((!sources[i].api || api_enabled(api, sources[i].api)) &&
		    access(lib, R_OK) == 0 &&
		    (!sources[i].wanted || (api && api_enabled(api, sources[i].api)) ||
		     sources[i].wanted(cmd)))
			n += (size_t)snprintf(v + n, sizeof v - n, ":%s", lib);
	}
	if (old && *old)
		n += (size_t)snprintf(v + n, sizeof v - n, ":%s", old);
	if (n >= sizeof v)
		return -1;
	return setenv("LD_PRELOAD", v, 1);
}

/*
 * XPTI: point an instrumented runtime's proxy at our dispatcher and add the
 * recording subscriber after any subscribers the user listed. A dispatcher
 * the user chose is kept.
 */
static void set_xpti(const char *libdir, const char *api)
{
	char sub[PATH_MAX + 64], disp[PATH_MAX + 64], list[8192];
	const char *old = getenv("XPTI_SUBSCRIBERS");

	snprintf(sub, sizeof sub, "%s/libhetrace-xpti.so", libdir);
	snprintf(disp, sizeof disp, "%s/libxptifw.so", libdir);
	if (!api_enabled(api, "xpti") || access(sub, R_OK) || access(disp, R_OK))
		return;
	setenv("XPTI_TRACE_ENABLE", "1", 1);
	setenv("XPTI_FRAMEWORK_DISPATCHER", disp, 0);
	if (old && *old)
		snprintf(list, sizeof list, "%s,%s", old, sub);
	else
		snprintf(list, sizeof list, "%s", sub);
	setenv("XPTI_SUBSCRIBERS", list, 1);
}

/*
 * CUDA: the driver loads CUDA_INJECTION64_PATH (CUPTI callbacks and
 * activities) and NVTX loads NVTX_INJECTION64_PATH, both our one library.
 * A path the user set already is kept (one CUPTI subscriber per process).
 */
static void set_cuda(const char *libdir, const char *api)
{
	char lib[PATH_MAX + 64];

	snprintf(lib, sizeof lib, "%s/libhetrace-cuda.so", libdir);
	if (access(lib, R_OK))
		return;
	if (api_enabled(api, "cuda"))
		setenv("CUDA_INJECTION64_PATH", lib, 0);
	if (api_enabled(api, "nvtx") || api_enabled(api, "cuda"))
		setenv("NVTX_INJECTION64_PATH", lib, 0);
}

int ht_record_finalize(const char *dir, double hz, int quiet, unsigned int salvaged)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	struct ht_finalize_stats st;
	int rc = ht_trace_open(&t, dir, &err);

	if (rc == -ENOENT) {
		if (!quiet)
			ht_error("no process was traced into '%s'", dir);
		return 0;
	}
	if (rc)
		return ht_read_error_print(dir, &err);
	rc = ht_finalize_trace(t, hz > 0 ? 1e9 / hz : 1.0, &st, &err);
	if (!rc && st.packets_left_raw) {
		ht_read_error_print(dir, &st.left_raw);
		ht_error("%u packet(s) left raw; the rest of the trace reads", st.packets_left_raw);
	}
	if (rc) {
		ht_read_error_print(dir, &err);
		ht_error("trace left partly unconverted; run 'hetrace check --repair %s'", dir);
	} else if (!quiet) {
		fprintf(stderr,
			"hetrace: trace written to '%s' (%u process%s); see 'hetrace info %s'\n",
			dir, t->nprocs, t->nprocs == 1 ? "" : "es", dir);
		salvaged += st.packets_salvaged;
		if (salvaged)
			fprintf(stderr,
				"hetrace: salvaged %u packet(s) in progress when their "
				"process died\n",
				salvaged);
		if (st.streams_trimmed)
			fprintf(stderr, "hetrace: trimmed %u torn packet(s) (%llu bytes)\n",
				st.streams_trimmed, (unsigned long long)st.bytes_trimmed);
		if (st.events_lost)
			fprintf(stderr,
				"hetrace: %llu event(s) of packets in progress could not be "
				"written (no room) and are counted as discarded\n",
				(unsigned long long)st.events_lost);
	}
	ht_trace_close(t);
	return rc ? 1 : 0;
}

/* The CPU samples into the finalized trace: one line when some could not be written or were lost.
 */
static void finish_samples(struct ht_sampler *s, const char *dir, int quiet)
{
	struct ht_sampler_stats st;
	char msg[600];

	if (!s)
		return;
	if (ht_sampler_finish(s, dir, &st, msg, sizeof msg))
		ht_error("%s", msg);
	else if (!quiet && st.lost)
		ht_error("%llu CPU sample(s) lost: the kernel's rings were full (try a lower "
			 "--sample-rate)",
			 (unsigned long long)st.lost);
}

int ht_cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, 0, 'o'},
	    {"force", no_argument, 0, 'f'},
	    {"api", required_argument, 0, 'a'},
	    {"mode", required_argument, 0, 'm'},
	    {"buffer", required_argument, 0, 'b'},
	    {"clock", required_argument, 0, 'c'},
	    {"quiet", no_argument, 0, 'q'},
	    {"help", no_argument, 0, 'h'},
	    {"os", no_argument, 0, 'O'},
	    {"no-os", no_argument, 0, 'N'},
	    {"memory-access", optional_argument, 0, 'M'},
	    {"memory-access-sample", required_argument, 0, 'S'},
	    {"memory-access-buffer", required_argument, 0, 'B'},
	    {"callstacks", required_argument, 0, 'K'},
	    {"sample-rate", required_argument, 0, 'R'},
	    {"no-sample", no_argument, 0, 'X'},
	    {"counters", required_argument, 0, 'C'},
	    {"delay", required_argument, 0, 'y'},
	    {"duration", required_argument, 0, 'Y'},
	    {"capture-range", required_argument, 0, 'r'},
	    {"capture-range-end", required_argument, 0, 'e'},
	    {"pc-sampling", optional_argument, 0, 'P'},
	    {0, 0, 0, 0},
	};
	const char *out = NULL, *api = NULL, *mode = NULL, *buffer = NULL, *clock = NULL;
	const char *mem = NULL, *mem_sample = NULL, *mem_buffer = NULL;
	const char *callstacks = NULL, *rate = NULL, *counters = NULL, *pc_period = NULL;
	uint64_t pc_ns = 0;
	int pc = 0;
	struct ht_sampler_opts so = {.hz = HT_SAMPLE_HZ_DEFAULT};
	struct ht_counter_spec cspec[HT_COUNTERS_MAX];
	struct ht_sampler *sampler = NULL;
	int sample = 1;
	char defdir[64], libdir[PATH_MAX], absdir[PATH_MAX], bad[64];
	int force = 0, quiet = 0, os = 1, opt, dfd, created, pipefd[2], status, code;
	double hz = 0;
	struct sigaction sa;
	pid_t pid;
	struct ht_consumer *consumer;
	struct ht_os_percpu *percpu = NULL;
	char osmsg[512];
	unsigned int salvaged = 0, untraced;
	int notices;
	struct ht_record_part part;
	ssize_t n;
	int child_errno = 0;
	struct ht_capture cap = {0};

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+o:fqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'a':
			api = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'b':
			buffer = optarg;
			break;
		case 'c':
			clock = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'O':
			os = 1;
			break;
		case 'N':
			os = 0;
			break;
		case 'M':
			mem = optarg && *optarg ? optarg : "*";
			break;
		case 'S':
			mem_sample = optarg;
			break;
		case 'B':
			mem_buffer = optarg;
			break;
		case 'K':
			callstacks = optarg;
			break;
		case 'R':
			rate = optarg;
			break;
		case 'X':
			sample = 0;
			break;
		case 'C':
			counters = optarg;
			break;
		case 'y':
			cap.delay = optarg;
			break;
		case 'Y':
			cap.duration = optarg;
			break;
		case 'r':
			cap.range = optarg;
			break;
		case 'e':
			cap.end = optarg;
			break;
		case 'P':
			pc = 1;
			pc_period = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			if (optopt)
				return ht_usage_error("record", "option '-%c' %s", optopt,
						      strchr("oambcMSBKRCyYre", optopt)
							  ? "needs a value"
							  : "is unknown");
			return ht_usage_error("record", "unknown or incomplete option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return ht_usage_error("record", "no command given");
	if (ht_capture_check(&cap, "record"))
		return 2;
	if (ht_record_check_options("record", mode, buffer, clock, callstacks))
		return 2;
	if (ht_memtrace_options(mem, mem_sample, mem_buffer))
		return 2;
	if (pc && ht_pcsamp_option(pc_period, &pc_ns))
		return 2;
	if (rate) {
		char *end;
		unsigned long per_s = strtoul(rate, &end, 10);

		if (*end || !*rate || per_s < 1 || per_s > HT_SAMPLE_HZ_MAX)
			return ht_usage_error("record",
					      "--sample-rate must be a number of Hz from 1 to %d, "
					      "not '%s'",
					      HT_SAMPLE_HZ_MAX, rate);
		so.hz = (unsigned int)per_s;
	}
	if (counters) {
		int nc = ht_counters_parse(counters, cspec, bad, sizeof bad);

		if (nc < 0)
			return ht_usage_error(
			    "record",
			    "--counters: unknown counter '%s' (known: perf's "
			    "names such as task-clock, page-faults, "
			    "context-switches, cycles, instructions; PAPI presets "
			    "such as PAPI_TOT_CYC; at most %d)",
			    bad, HT_COUNTERS_MAX);
		so.counters = cspec;
		so.ncounters = nc;
	}
	if (api && !valid_api_list(api, bad, sizeof bad))
		return ht_usage_error("record",
				      "--api: unknown source '%s' (known: opencl, cuda, "
				      "nvtx, xpti, mpi)",
				      bad);
	if (ht_record_find_libdir(libdir, sizeof libdir))
		return ht_error("cannot find libhetrace.so.0 next to the hetrace command "
				"(expected in <bindir>/../lib); reinstall or rebuild hetrace");
	if (ht_record_part_setup(out, force, &part))
		return 1;
	if (part.active && !out)
		return ht_usage_error("record",
				      "under an MPI launcher (%s), -o DIR is needed: "
				      "every rank records its part of the same DIR",
				      part.var);
	if (part.active)
		out = part.path; /* this rank's part of the job's trace */
	if (!out) {
		ht_record_default_dir(defdir, sizeof defdir, "hetrace");
		out = defdir;
	}

	/* Clock: the cycle counter where it is invariant (10 ns vs 22 ns here). */
	if (!clock)
		clock = ht_clock_tsc_is_invariant() ? "tsc" : "monotonic";
	if (!strcmp(clock, "tsc")) {
		hz = ht_clock_measure_tsc_hz(10);
		if (hz <= 0)
			clock = "monotonic";
	}

	dfd = ht_record_dir_prepare(out, force, &created);
	if (dfd < 0)
		return 1;
	if (!realpath(out, absdir)) {
		close(dfd);
		return ht_error("cannot resolve '%s': %s", out, strerror(errno));
	}
	code = ht_record_index_write(dfd, argc - optind, argv + optind, clock, hz);
	if (!code)
		ht_record_part_note(dfd, &part);
	if (code) {
		close(dfd);
		return ht_error("cannot write to trace directory '%s': %s", out, strerror(-code));
	}

	if (ht_record_set_preload(libdir, api, argv[optind])) {
		close(dfd);
		return ht_error("LD_PRELOAD is too long to add the recorder to it");
	}
	/*
	 * As few variables as will do: a runtime may scan the environment on a
	 * hot path (PoCL calls getenv ~3.5 times per kernel enqueue), so each one
	 * costs every traced call a little. Defaults are left unset.
	 */
	setenv("HETRACE_DIR", absdir, 1);
	if (hz > 0) {
		char v[48];

		snprintf(v, sizeof v, "tsc:%.0f", hz);
		setenv("HETRACE_CLOCK", v, 1);
		unsetenv("HETRACE_TSC_HZ"); /* the rate measured here wins */
	} else {
		setenv("HETRACE_CLOCK", clock, 1);
	}
	if (mode)
		setenv("HETRACE_MODE", mode, 1);
	if (buffer)
		setenv("HETRACE_BUFFER", buffer, 1);
	if (api)
		setenv("HETRACE_API", api, 1);
	/*
	 * OS scheduling: read here from per-CPU events where this user may
	 * open them (the traced threads then pay only the kernel's writing of
	 * the records; the processes only note the method), else by each traced
	 * thread itself (libhetrace-preload.so, the default of HETRACE_OS).
	 */
	if (os)
		percpu = ht_os_percpu_open(dfd);
	if (percpu)
		setenv("HETRACE_OS", "cpu", 1);
	else if (os)
		unsetenv("HETRACE_OS");
	else
		setenv("HETRACE_OS", "0", 1);
	ht_memtrace_setenv(mem, mem_sample, mem_buffer, libdir);
	ht_pcsamp_setenv(pc_ns, absdir);
	if (callstacks)
		setenv("HETRACE_CALLSTACKS", callstacks, 1);
	else
		unsetenv("HETRACE_CALLSTACKS"); /* launch */
	if (counters)
		setenv("HETRACE_COUNTERS", counters, 1);
	else
		unsetenv("HETRACE_COUNTERS");
	/*
	 * CPU sampling: events opened here, inherited by the command at fork
	 * and enabled at its exec; the processes record their modules for them.
	 */
	unsetenv("HETRACE_SAMPLE");
	if (sample || counters || pc_ns) {
		char why[512], warn[512];

		if (!sample)
			so.hz = 1; /* counters per sample only: one a second */
		if (pc_ns && ht_pcsamp_hz(pc_ns) > so.hz)
			so.hz = ht_pcsamp_hz(pc_ns); /* PoCL's kernels: the PC sampling rate */
		sampler = ht_sampler_open(dfd, &so, why, sizeof why, warn, sizeof warn);
		if (!sampler)
			ht_error("CPU sampling%s not recorded: %s; the rest is recorded",
				 pc_ns ? " (and PC sampling of PoCL's kernels)" : "", why);
		else if (warn[0])
			ht_error("%s", warn);
		if (sampler)
			setenv("HETRACE_SAMPLE", "1", 1);
	}
	/*
	 * Ring mode: the traced threads publish packets, this process writes
	 * them; its doorbell in the trace directory is what turns rings on.
	 */
	consumer = ht_consumer_create(dfd, absdir);
	if (ht_capture_setup(&cap, dfd, absdir)) {
		ht_consumer_finish(consumer);
		close(dfd);
		return 1;
	}
	if (consumer && cap.pg)
		ht_consumer_set_tick(consumer, ht_capture_tick, &cap);
	notices = ht_notice_listen(absdir);
	set_xpti(libdir, api);
	set_cuda(libdir, api);

	if (pipe2(pipefd, O_CLOEXEC)) {
		ht_consumer_finish(consumer);
		ht_os_percpu_finish(percpu, dfd, osmsg, sizeof osmsg);
		finish_samples(sampler, out, 1);
		close(dfd);
		return ht_error("cannot create pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ht_consumer_finish(consumer);
		ht_os_percpu_finish(percpu, dfd, osmsg, sizeof osmsg);
		finish_samples(sampler, out, 1);
		close(dfd);
		return ht_error("cannot start '%s': %s", argv[optind], strerror(errno));
	}
	if (pid == 0) {
		int e;

		close(pipefd[0]);
		execvp(argv[optind], argv + optind);
		e = errno;
		if (write(pipefd[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	close(pipefd[1]);
	if (percpu && (code = ht_os_percpu_start(percpu))) {
		ht_error("cannot read OS scheduling events: %s; CPU states are not recorded",
			 strerror(-code));
		ht_os_percpu_finish(percpu, dfd, osmsg, sizeof osmsg);
		percpu = NULL;
	}
	if (sampler && (code = ht_sampler_start(sampler))) {
		ht_error("cannot read CPU samples: %s; they are not recorded", strerror(-code));
		ht_sampler_stop(sampler);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	do
		n = read(pipefd[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (consumer) {
		status = ht_consumer_wait(consumer, pid);
		salvaged = ht_consumer_finish(consumer);
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (ht_os_percpu_finish(percpu, dfd, osmsg, sizeof osmsg))
		ht_error("%s", osmsg);
	untraced = index_untraced(dfd, notices);
	ht_sampler_stop(sampler);
	if (n == sizeof child_errno) {
		/* exec failed: nothing was traced; leave no empty trace behind. */
		finish_samples(sampler, out, 1);
		unlinkat(dfd, "hetrace.index", 0);
		close(dfd);
		if (created)
			rmdir(out);
		ht_error("cannot run '%s': %s", argv[optind], strerror(child_errno));
		return child_errno == ENOENT ? 127 : 126;
	}
	if (WIFSIGNALED(status)) {
		code = 128 + WTERMSIG(status);
		char what[64];

		snprintf(what, sizeof what, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		ht_record_index_end(dfd, code, what);
		if (!quiet)
			ht_error("'%s' was %s", argv[optind], what);
	} else {
		code = WEXITSTATUS(status);
		ht_record_index_end(dfd, code, "exited");
	}
	ht_capture_finish(&cap, dfd);
	close(dfd);
	if (untraced && !quiet)
		ht_error(
		    "%u process(es) could not write into the trace and ran untraced (listed in "
		    "'%s/hetrace.index')",
		    untraced, out);
	if (ht_record_finalize(out, hz, quiet, salvaged) && code == 0)
		code = 1;
	finish_samples(sampler, out, quiet);
	return code;
}
