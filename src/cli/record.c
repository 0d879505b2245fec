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
#include <dirent.h>

#include "analysis/finalize.h"
#include "cli/cli.h"
#include "cli/record_mpi.h"
#include "ring/consumer.h"
#include "core/clock.h"
#include "core/config.h"
#include "ring/ring.h"

static const char usage[] =
	"usage: hetrace record [options] [--] COMMAND [ARGS...]\n"
	"\n"
	"  -o, --output DIR      trace directory (default: hetrace-YYYYmmdd-HHMMSS)\n"
	"  -f, --force           record into DIR even if it is not empty (an earlier\n"
	"                        trace there is replaced)\n"
	"      --api LIST        sources to enable, comma-separated: opencl,cuda,nvtx,xpti,\n"
	"                        mpi (default: all that the program uses)\n"
	"      --mode MODE       discard (default): drop and count events when no space is\n"
	"                        left; block: wait up to 10 s for space first\n"
	"      --buffer SIZE     sub-buffer (packet) size, a power of two from 16K to 16M\n"
	"                        (default 64K)\n"
	"      --clock CLOCK     tsc (default where invariant) or monotonic\n"
	"      --os, --no-os     record OS scheduling of the traced threads (default: on\n"
	"                        where the kernel permits)\n"
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

/* The directory holding libhetrace.so.0: <dir of hetrace>/../lib. */
static int find_libdir(char *out, size_t cap)
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

/* Removes an earlier hetrace trace's files in dir (only what hetrace writes). */
static int clear_old_trace(int dfd)
{
	DIR *d = fdopendir(dup(dfd));
	struct dirent *de;
	int r = 0;

	if (!d)
		return -errno;
	rewinddir(d); /* a dup shares the offset of the emptiness scan */
	while ((de = readdir(d))) {
		int pfd;
		DIR *pd;
		struct dirent *pe;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!strcmp(de->d_name, "hetrace.index")) {
			unlinkat(dfd, de->d_name, 0);
			continue;
		}
		pfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (pfd < 0 || faccessat(pfd, "metadata", F_OK, AT_SYMLINK_NOFOLLOW)) {
			if (pfd >= 0)
				close(pfd);
			continue; /* not ours: leave it */
		}
		pd = fdopendir(pfd);
		if (!pd) {
			close(pfd);
			r = -errno;
			continue;
		}
		while ((pe = readdir(pd)))
			if (strcmp(pe->d_name, ".") && strcmp(pe->d_name, ".."))
				unlinkat(dirfd(pd), pe->d_name, 0);
		closedir(pd);
		if (unlinkat(dfd, de->d_name, AT_REMOVEDIR))
			r = -errno;
	}
	closedir(d);
	return r;
}

/* Creates (or, with force, reuses) the trace directory. Return: its fd, or -1. */
static int prepare_dir(const char *dir, int force, int *created)
{
	struct stat st;
	int fd;

	*created = 0;
	if (mkdir(dir, 0700) == 0) {
		*created = 1;
	} else if (errno != EEXIST) {
		ht_error("cannot create trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode)) {
		ht_error("'%s' exists and is not a directory; choose another -o", dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ht_error("cannot open trace directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	if (!*created) {
		DIR *d = fdopendir(dup(fd));
		struct dirent *de;
		int empty = 1;

		if (d)
			rewinddir(d);
		while (d && (de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				empty = 0;
		if (d)
			closedir(d);
		if (!empty && !force) {
			ht_error("trace directory '%s' is not empty; use --force to replace "
				 "the trace in it, or choose another -o",
				 dir);
			close(fd);
			return -1;
		}
		if (!empty)
			clear_old_trace(fd);
	}
	return fd;
}

/* Index values: one line each; control characters become spaces. */
static void put_value(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s=", key);
	for (; *v; v++)
		fputc((unsigned char)*v < 0x20 ? ' ' : *v, f);
	fputc('\n', f);
}

static int write_index(int dfd, int argc, char **argv, const char *clock, double hz)
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

static void append_index(int dfd, int status_code, const char *status_text)
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

/*
 * LD_PRELOAD: the recorder, then each source interposer that is built and
 * enabled (libhetrace-preload.so always: exec interposer, OS source; the
 * MPI interposer where the command may run MPI: record_mpi.c), then
 * whatever the user preloaded already.
 */
static int set_preload(const char *libdir, const char *api, const char *cmd)
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
		if ((!sources[i].api || api_enabled(api, sources[i].api)) && access(lib, R_OK) == 0 &&
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

static int finalize(const char *dir, double hz, int quiet, unsigned int salvaged)
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
		fprintf(stderr, "hetrace: trace written to '%s' (%u process%s); see 'hetrace info %s'\n",
			dir, t->nprocs, t->nprocs == 1 ? "" : "es", dir);
		salvaged += st.packets_salvaged;
		if (salvaged)
			fprintf(stderr, "hetrace: salvaged %u packet(s) in progress when their "
					"process died\n",
				salvaged);
		if (st.streams_trimmed)
			fprintf(stderr, "hetrace: trimmed %u torn packet(s) (%llu bytes)\n",
				st.streams_trimmed, (unsigned long long)st.bytes_trimmed);
	}
	ht_trace_close(t);
	return rc ? 1 : 0;
}

int ht_cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
		{"api", required_argument, 0, 'a'},    {"mode", required_argument, 0, 'm'},
		{"buffer", required_argument, 0, 'b'}, {"clock", required_argument, 0, 'c'},
		{"quiet", no_argument, 0, 'q'},	       {"help", no_argument, 0, 'h'},
		{"os", no_argument, 0, 'O'},	       {"no-os", no_argument, 0, 'N'},
		{0, 0, 0, 0},
	};
	const char *out = NULL, *api = NULL, *mode = NULL, *buffer = NULL, *clock = NULL;
	char defdir[64], libdir[PATH_MAX], absdir[PATH_MAX], bad[64];
	int force = 0, quiet = 0, os = 1, opt, dfd, created, pipefd[2], status, code;
	double hz = 0;
	struct sigaction sa;
	pid_t pid;
	struct ht_consumer *consumer;
	struct ht_record_part part;
	unsigned int salvaged = 0;
	ssize_t n;
	int child_errno = 0;

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
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			if (optopt)
				return ht_usage_error("record", "option '-%c' %s", optopt,
						      strchr("oambc", optopt) ? "needs a value"
									     : "is unknown");
			return ht_usage_error("record", "unknown or incomplete option '%s'",
					      argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return ht_usage_error("record", "no command given");
	if (mode && strcmp(mode, "discard") && strcmp(mode, "block"))
		return ht_usage_error("record", "--mode must be discard or block, not '%s'", mode);
	if (buffer) {
		size_t sz;

		if (ht_parse_size(buffer, &sz) || sz < HT_PACKET_MIN || sz > HT_PACKET_MAX ||
		    (sz & (sz - 1)))
			return ht_usage_error("record",
					      "--buffer must be a power of two from 16K to 16M, "
					      "not '%s'",
					      buffer);
	}
	if (clock && strcmp(clock, "tsc") && strcmp(clock, "monotonic"))
		return ht_usage_error("record", "--clock must be tsc or monotonic, not '%s'", clock);
	if (api && !valid_api_list(api, bad, sizeof bad))
		return ht_usage_error("record", "--api: unknown source '%s' (known: opencl, cuda, "
						"nvtx, xpti, mpi)",
				      bad);
	if (find_libdir(libdir, sizeof libdir))
		return ht_error("cannot find libhetrace.so.0 next to the hetrace command "
				"(expected in <bindir>/../lib); reinstall or rebuild hetrace");
	if (ht_record_part_setup(out, force, &part))
		return 1;
	if (part.active && !out)
		return ht_usage_error("record", "under an MPI launcher (%s), -o DIR is needed: "
						"every rank records its part of the same DIR",
				      part.var);
	if (part.active)
		out = part.path; /* this rank's part of the job's trace */
	if (!out) {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(defdir, sizeof defdir, "hetrace-%Y%m%d-%H%M%S", &tm);
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

	dfd = prepare_dir(out, force, &created);
	if (dfd < 0)
		return 1;
	if (!realpath(out, absdir)) {
		close(dfd);
		return ht_error("cannot resolve '%s': %s", out, strerror(errno));
	}
	code = write_index(dfd, argc - optind, argv + optind, clock, hz);
	if (!code)
		ht_record_part_note(dfd, &part);
	if (code) {
		close(dfd);
		return ht_error("cannot write to trace directory '%s': %s", out, strerror(-code));
	}

	if (set_preload(libdir, api, argv[optind])) {
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
	if (os)
		unsetenv("HETRACE_OS"); /* on by default */
	else
		setenv("HETRACE_OS", "0", 1);
	/*
	 * Ring mode: the traced threads publish packets, this process writes
	 * them; its doorbell in the trace directory is what turns rings on.
	 */
	consumer = ht_consumer_create(dfd, absdir);
	set_xpti(libdir, api);
	set_cuda(libdir, api);

	if (pipe2(pipefd, O_CLOEXEC)) {
		ht_consumer_finish(consumer);
		close(dfd);
		return ht_error("cannot create pipe: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ht_consumer_finish(consumer);
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
	if (n == sizeof child_errno) {
		/* exec failed: nothing was traced; leave no empty trace behind. */
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
		append_index(dfd, code, what);
		if (!quiet)
			ht_error("'%s' was %s", argv[optind], what);
	} else {
		code = WEXITSTATUS(status);
		append_index(dfd, code, "exited");
	}
	close(dfd);
	if (finalize(out, hz, quiet, salvaged) && code == 0)
		code = 1;
	return code;
}
