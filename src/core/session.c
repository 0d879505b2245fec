/*
 * Process lifecycle of the recorder (see session.h).
 *
 * - The constructor only reads HETRACE_* settings; the process directory is
 *   created lazily by the first event (or at exit, so that every traced
 *   process appears), never inside a runtime's initialisation.
 * - Each thread gets its own stream on its first event; a thread-exit key
 *   destructor closes it.
 * - After fork() the child drops every inherited stream without touching the
 *   files (they are the parent's) and starts its own process directory on
 *   its next event. Strings interned before the fork keep their ids: the
 *   child re-emits the whole table into its own process stream.
 * - exec() ends the image's recording as exit does (the interposer of
 *   libhetrace-preload.so calls ht_session_exec_prepare); the new image
 *   loads libhetrace again through LD_PRELOAD and starts over in a directory
 *   of its own. A failed exec starts over the same way.
 * - Sources that registered hooks (core/source.h) are called when a thread's
 *   stream opens and closes, at its packet switches, at fork, exec and exit.
 * - Sessions (session/ctl.h): with HETRACE_SESSION and no HETRACE_DIR the
 *   process is a candidate. The session's control page is mapped over the
 *   page that holds ht_active, so the daemon switches recording on and off
 *   here. Settings and the trace directory are read from the page when an
 *   event first finds a session running (its generation, `gen`, newer than
 *   the one this process recorded into): the process then starts over in a
 *   directory of its own in that trace, as after exec. Streams of an older
 *   generation belong to a finished trace; the daemon took their packets,
 *   so they are let go without a write (each thread lets go of its own).
 * - Capture ranges by region or by hetrace_start/hetrace_stop switch the
 *   flag of this process alone; time ranges are the control page's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/config.h"
#include "core/notice.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "ring/ring.h"
#include "format/tsdl.h"
#include "hetrace/hetrace.h"
#include "session/ctl.h"

/*
 * The page of ht_active and ht_watch (its first two words, by the aliases
 * below): private memory, or the control page mapped over it. It holds
 * nothing else, so the mapping covers no other variable.
 */
__attribute__((aligned(HT_CTL_SIZE))) union ht_ctl_area ht_ctl_area;
__asm__(".globl ht_active\n.type ht_active, @object\n.size ht_active, 4\n"
	".set ht_active, ht_ctl_area\n"
	".globl ht_watch\n.type ht_watch, @object\n.size ht_watch, 4\n"
	".set ht_watch, ht_ctl_area + 4\n");

__thread struct ht_stream *ht_tls_stream __attribute__((tls_model("initial-exec")));
__thread uint32_t ht_tls_gen __attribute__((tls_model("initial-exec")));
uint32_t ht_capture_id;

#define MAX_TABLES 16

static struct {
	struct ht_config cfg;
	pthread_mutex_t lock; /* registry, process stream, strings, tables */
	int ready;	      /* process directory open for this process */
	int closed;	      /* process exit has run */
	int failed;
	pid_t pid;
	int dirfd, procfd;
	char procdir[64];
	char procname[HT_PROCNAME_LEN];
	uint8_t uuid[16];
	struct ht_stream *proc;
	struct ht_stream *streams;
	struct ht_strtab strings;
	const struct ht_fn_table *tables[MAX_TABLES];
	unsigned int ntables;
	uint64_t next_instance;
	uint64_t file_limit;
	unsigned int ring_slots; /* ring mode (ring/ring.h): slots per stream, or 0 */
	pthread_key_t key;
	uint64_t lost_no_stream;
	int warned_io;
	int enabled;		    /* set up for recording: record's settings or a session */
	int session;		    /* a candidate of a session: settings come from its page */
	int mapped;		    /* ht_ctl_area is a control page */
	int clock_set;		    /* ht_clock_setup ran (a process keeps its first clock) */
	uint32_t gen;		    /* the generation this process records into */
	int capture_depth;	    /* region capture: capture regions open (all threads) */
	int capture_done;	    /* api capture, ending `stop`: the range was closed */
	struct ht_ctl_page *shared; /* session mode: a second view of the page, read while
				     * ht_ctl_area is this process's copy (in a capture range) */
	int private_;		    /* ht_ctl_area is that copy */
	char env[HT_CTL_ENV_MAX], dir[HT_CTL_DIR_MAX]; /* session: the page's settings */
} S = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .dirfd = -1,
    .procfd = -1,
};

static void private_check(void);

static void warn_once(const char *what, int err)
{
	if (__atomic_exchange_n(&S.warned_io, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr, "hetrace: %s: %s; events are dropped and counted, the program runs on\n",
		what, strerror(err));
}

static void on_stream_error(struct ht_stream *s, int err)
{
	char what[160];

	snprintf(what, sizeof what, "cannot write trace file '%s/%s/%s'", S.cfg.dir, S.procdir,
		 s->name);
	warn_once(what, err);
}

/* ---- process stream writers (S.lock held) ---- */

static void proc_string_def(uint32_t id, const char *str)
{
	const struct ht_ev_string_def e = {.id = id, .value = str};

	if (S.proc)
		HT_WRITE(S.proc, string_def, &e);
}

static void proc_fn_defs(const struct ht_fn_table *t)
{
	for (unsigned int i = 0; i < t->count && S.proc; i++) {
		const struct ht_fn_desc *fn = &t->fns[i];
		const struct ht_ev_fn_def e = {
		    .fn = (uint16_t)(t->base + i),
		    .name = fn->name,
		    .roles = fn->roles,
		    .args_n = fn->nargs,
		    .args = fn->args,
		};

		HT_WRITE(S.proc, fn_def, &e);
	}
}

static void proc_anchor(enum ht_anchor_kind kind)
{
	struct ht_anchor a;
	struct ht_ev_clock_anchor e = {.kind = (uint8_t)kind};

	if (!S.proc)
		return;
	ht_clock_anchor(&a);
	e.raw = a.raw;
	e.ns = a.ns;
	HT_WRITE(S.proc, clock_anchor, &e);
}

static void proc_lost(enum ht_lost_kind kind, uint64_t count)
{
	const struct ht_ev_lost e = {.kind = (uint8_t)kind, .count = count};

	if (S.proc)
		HT_WRITE(S.proc, lost, &e);
}

/* The command line, NULs turned into spaces, cut to HT_STR_MAX. */
static void read_cmdline(char *buf, size_t cap)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[ht_str_cut(buf, HT_STR_MAX)] = '\0';
}

static void proc_process_info(void)
{
	char cmd[HT_STR_MAX + 1];
	struct ht_ev_process_info e = {.pid = S.pid, .ppid = getppid(), .comm = S.procname};

	read_cmdline(cmd, sizeof cmd);
	e.cmdline = cmd;
	if (S.proc)
		HT_WRITE(S.proc, process_info, &e);
}

/* ---- process directory ---- */

static int write_metadata(void)
{
	struct ht_tsdl_params tp = {0};
	struct utsname un;
	struct timespec rt, mt;
	FILE *f;
	int fd, r;

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	int64_t off = ((int64_t)rt.tv_sec - mt.tv_sec) * 1000000000 + (rt.tv_nsec - mt.tv_nsec);

	memcpy(tp.uuid, S.uuid, 16);
	tp.hostname = uname(&un) == 0 ? un.nodename : "unknown";
	tp.trace_name = S.procdir;
	tp.clock_offset_s = off / 1000000000;
	tp.clock_offset_ns = off % 1000000000;
	tp.tables = S.tables;
	tp.ntables = S.ntables;

	unlinkat(S.procfd, ".metadata.tmp", 0);
	fd = openat(S.procfd, ".metadata.tmp", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	r = ht_tsdl_write(f, &tp);
	if (fclose(f) && !r)
		r = -errno;
	if (!r && renameat(S.procfd, ".metadata.tmp", S.procfd, "metadata"))
		r = -errno;
	return r;
}

static void sanitize_comm(char *c)
{
	for (; *c; c++)
		if (*c == '/' || (unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '_';
}

/*
 * Ring mode, when `hetrace record` asked for it: map its doorbell and size
 * the rings so a ring file stays within RLIMIT_FSIZE. Without a doorbell (an
 * old or foreign consumer) the streams write their packets themselves.
 */
static void ring_setup(void)
{
	unsigned int slots = S.cfg.ring_slots;
	char path[4096];
	void *m;
	int fd;

	while (slots >= 2 && ht_ring_file_size(slots, S.cfg.packet_size) > S.file_limit)
		slots--;
	S.ring_slots = slots >= 2 ? slots : 0;
	if (!S.ring_slots || ht_stream_doorbell)
		return;
	snprintf(path, sizeof path, "%s/" HT_DOORBELL_FILE, S.cfg.dir);
	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	m = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (m == MAP_FAILED)
		S.ring_slots = 0;
	else
		ht_stream_doorbell = m;
}

static struct ht_stream_params stream_params(enum ht_stream_class sc, int vtid)
{
	struct ht_stream_params p = {
	    .sc = sc,
	    .vpid = (int)S.pid,
	    .vtid = vtid,
	    .procname = S.procname,
	    .uuid = S.uuid,
	    .instance_id = S.next_instance++,
	    .packet_size = S.cfg.packet_size,
	    .block = S.cfg.block,
	    .file_limit = S.file_limit,
	    .ring_slots = S.ring_slots,
	};
	return p;
}

/* Creates `prefix-N` (first free N from `first`) in the process directory. */
static struct ht_stream *create_named(const char *prefix, long first,
				      const struct ht_stream_params *p)
{
	char name[48];

	for (int i = 0; i < 1000; i++) {
		struct ht_stream *s;

		if (i == 0)
			snprintf(name, sizeof name, "%s-%ld", prefix, first);
		else
			snprintf(name, sizeof name, "%s-%ld.%d", prefix, first, i);
		s = ht_stream_create(S.procfd, name, p);
		if (s || errno != EEXIST)
			return s;
	}
	errno = EEXIST;
	return NULL;
}

static void registry_add(struct ht_stream *s)
{
	s->prev = NULL;
	s->next = S.streams;
	if (S.streams)
		S.streams->prev = s;
	S.streams = s;
}

static void registry_remove(struct ht_stream *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else if (S.streams == s)
		S.streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->next = s->prev = NULL;
}

/* Creates the process directory and stream. S.lock held. Return: 0 or -errno. */
static int init_process(void)
{
	struct rlimit rl;
	struct ht_stream_params sp;
	const char *what = "cannot open trace directory";
	int r = 0;

	S.pid = getpid();
	if (S.dirfd < 0) {
		S.dirfd = open(S.cfg.dir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (S.dirfd < 0) {
			r = -errno;
			goto err;
		}
	}
	if (prctl(PR_GET_NAME, S.procname) != 0)
		strcpy(S.procname, "unknown");
	S.procname[HT_PROCNAME_LEN - 1] = '\0';
	sanitize_comm(S.procname);
	what = "cannot create process directory";
	for (int i = 0;; i++) {
		if (i == 0)
			snprintf(S.procdir, sizeof S.procdir, "%d-%s", (int)S.pid, S.procname);
		else
			snprintf(S.procdir, sizeof S.procdir, "%d-%s.%d", (int)S.pid, S.procname,
				 i);
		if (mkdirat(S.dirfd, S.procdir, 0700) == 0)
			break;
		if (errno != EEXIST || i >= 100) {
			r = -errno;
			goto err;
		}
	}
	S.procfd = openat(S.dirfd, S.procdir, O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (S.procfd < 0) {
		r = -errno;
		goto err;
	}
	if (getrandom(S.uuid, sizeof S.uuid, 0) != sizeof S.uuid) {
		for (unsigned int i = 0; i < sizeof S.uuid; i++)
			S.uuid[i] = (uint8_t)(ht_clock_raw() >> (i % 8));
	}
	S.uuid[6] = (uint8_t)((S.uuid[6] & 0x0f) | 0x40);
	S.uuid[8] = (uint8_t)((S.uuid[8] & 0x3f) | 0x80);
	S.file_limit = UINT64_MAX;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		S.file_limit = rl.rlim_cur;
	ring_setup();
	what = "cannot write trace metadata";
	r = write_metadata();
	if (r)
		goto err;
	what = "cannot create process stream";
	sp = stream_params(HT_SC_THREAD, (int)S.pid);
	S.proc = ht_stream_create(S.procfd, "process", &sp);
	if (!S.proc) {
		r = -errno;
		goto err;
	}
	proc_process_info();
	proc_anchor(HT_ANCHOR_START);
	for (unsigned int i = 0; i < S.ntables; i++)
		proc_fn_defs(S.tables[i]);
	for (uint32_t id = 1; id <= S.strings.count; id++)
		proc_string_def(id, ht_strtab_get(&S.strings, id));
	if (S.cfg.capture_region) {
		int is_new;
		uint32_t id = ht_strtab_intern(&S.strings, S.cfg.capture_region, &is_new);

		if (id && is_new)
			proc_string_def(id, ht_strtab_get(&S.strings, id));
		__atomic_store_n(&ht_capture_id, id, __ATOMIC_RELAXED);
	}
	ht_source_run_process_open(S.proc);
	__atomic_store_n(&S.ready, 1, __ATOMIC_RELEASE);
	return 0;
err:
	S.failed = 1;
	if (!S.mapped)
		__atomic_store_n(&ht_active, 0, __ATOMIC_RELAXED); /* the page is the daemon's */
	{
		char msg[400];

		snprintf(msg, sizeof msg, "%s '%s/%s'", what, S.cfg.dir,
			 S.procdir[0] ? S.procdir : "");
		fprintf(stderr, "hetrace: %s: %s; this process runs untraced\n", msg, strerror(-r));
		ht_notice_untraced(S.cfg.dir, -r); /* for the trace to say so */
	}
	return r;
}

/* The next event creates a new process directory (S.lock held). */
static void forget_process_dir(void)
{
	if (S.procfd >= 0)
		close(S.procfd);
	S.procfd = -1;
	S.procdir[0] = '\0';
	S.ready = 0;
	S.lost_no_stream = 0;
}

/* The generation of the page (0 for ever without a session). */
static inline uint32_t ctl_gen(void)
{
	return __atomic_load_n(&ht_ctl_area.p.gen, __ATOMIC_ACQUIRE);
}

/* The slow path's test of the flags: recording, or watching for a capture range. */
static int flags_on(void)
{
	return __atomic_load_n(&ht_active, __ATOMIC_RELAXED) ||
	       __atomic_load_n(&ht_watch, __ATOMIC_RELAXED);
}

/*
 * Session mode, S.lock held: when the page runs a generation this process
 * has not recorded into, lets go of the last one's process state and takes
 * the new settings (the next init_process opens the directory).
 */
static void session_join(void)
{
	uint32_t g = ctl_gen();

	if (g == S.gen || __atomic_load_n(&ht_ctl_area.p.state, __ATOMIC_ACQUIRE) != HT_CTL_RUNNING)
		return;
	if (ht_ctl_read_env(&ht_ctl_area.p, g, S.env, S.dir))
		return; /* being rewritten: the next event looks again */
	if (S.proc)
		ht_stream_abandon(S.proc); /* its packets are the daemon's now */
	S.proc = NULL;
	/*
	 * The registry held the last trace's streams: their owners (threads,
	 * sources) let go of them or move on to a successor; nothing at exit
	 * may write into that finished trace again.
	 */
	for (struct ht_stream *o = S.streams, *next; o; o = next) {
		next = o->next;
		o->next = o->prev = NULL;
	}
	S.streams = NULL;
	forget_process_dir();
	if (S.dirfd >= 0)
		close(S.dirfd);
	S.dirfd = -1;
	S.failed = 0;
	S.closed = 0;
	ht_config_load_block(&S.cfg, S.env);
	S.cfg.dir = S.dir;
	/* this session's capture ranges start afresh (init_process interns the region) */
	__atomic_store_n(&ht_capture_id, 0, __ATOMIC_RELAXED);
	S.capture_depth = 0;
	S.capture_done = 0;
	if (!S.clock_set) {
		ht_clock_setup(S.cfg.use_tsc, S.cfg.tsc_hz);
		S.clock_set = 1;
	}
	/* The last session's doorbell stays mapped: a stale stream may still ring it. */
	ht_stream_doorbell = NULL;
	S.gen = g;
}

/* Return: 1 when the process directory is ready for events. */
static int session_ready(void)
{
	if (__builtin_expect(__atomic_load_n(&S.ready, __ATOMIC_ACQUIRE), 1) && S.gen == ctl_gen())
		return 1;
	if (!flags_on())
		return 0;
	pthread_mutex_lock(&S.lock);
	if (S.session)
		session_join();
	if (!S.ready && !S.failed && !S.closed && S.cfg.dir)
		init_process();
	pthread_mutex_unlock(&S.lock);
	return S.ready && S.gen == ctl_gen();
}

/*
 * A thread stream of an older generation (S.lock not held): its trace is
 * finished and its packets taken; the owner thread lets go of it.
 */
static void retire_thread_stream(void)
{
	struct ht_stream *s = ht_tls_stream;

	if ((uintptr_t)s > (uintptr_t)HT_TLS_DEAD) {
		pthread_mutex_lock(&S.lock);
		registry_remove(s);
		ht_stream_abandon(s);
		pthread_mutex_unlock(&S.lock);
	}
	ht_tls_stream = HT_TLS_NONE;
}

/* ---- thread streams ---- */

struct ht_stream *ht_session_thread_stream_slow(void)
{
	struct ht_stream *s = ht_tls_stream;
	struct ht_stream_params sp;
	char tname[HT_PROCNAME_LEN] = "";
	pid_t tid;

	if (__builtin_expect(ht_tls_gen != ctl_gen(), 0) && s != HT_TLS_BUSY) {
		retire_thread_stream();
		s = HT_TLS_NONE;
	}
	if (s != HT_TLS_NONE || !session_ready())
		goto drop;
	ht_tls_stream = HT_TLS_BUSY;
	tid = gettid();
	pthread_mutex_lock(&S.lock);
	if (S.closed) {
		pthread_mutex_unlock(&S.lock);
		ht_tls_stream = HT_TLS_DEAD;
		goto drop;
	}
	sp = stream_params(HT_SC_THREAD, (int)tid);
	s = create_named("thread", (long)tid, &sp);
	if (s) {
		s->gen = S.gen;
		registry_add(s);
	}
	pthread_mutex_unlock(&S.lock);
	if (!s) {
		on_stream_error(&(struct ht_stream){.name = "thread stream"}, errno);
		ht_tls_stream = HT_TLS_DEAD;
		goto drop;
	}
	pthread_setspecific(S.key, s);
	ht_tls_gen = S.gen;
	ht_tls_stream = s;
	prctl(PR_GET_NAME, tname);
	tname[HT_PROCNAME_LEN - 1] = '\0';
	HT_WRITE(s, thread_info, (&(struct ht_ev_thread_info){.tid = (int32_t)tid, .name = tname}));
	ht_source_run_thread_open(s, (int)tid);
	return s;
drop:
	if (__atomic_load_n(&ht_active, __ATOMIC_RELAXED))
		__atomic_fetch_add(&S.lost_no_stream, 1, __ATOMIC_RELAXED);
	return NULL;
}

__attribute__((noinline)) struct ht_stream *ht_session_prepare(size_t payload)
{
	struct ht_stream *s;

	if (__builtin_expect(S.private_, 0))
		private_check();
	s = ht_session_thread_stream();

	if (!s || !ht_stream_reserve(s, HT_EH_MAX_SIZE + payload))
		return NULL;
	return s;
}

static void thread_exit(void *arg)
{
	struct ht_stream *s = arg;

	if (ht_tls_gen != ctl_gen()) {
		retire_thread_stream(); /* a finished trace's: nothing more to write */
		ht_tls_stream = HT_TLS_DEAD;
		return;
	}
	ht_source_run_thread_close(s);
	pthread_mutex_lock(&S.lock);
	registry_remove(s);
	ht_stream_destroy(s);
	pthread_mutex_unlock(&S.lock);
	ht_tls_stream = HT_TLS_DEAD;
}

HT_EXPORT_BOUND struct ht_stream *ht_session_stream_create(enum ht_stream_class sc,
							   const char *prefix, uint32_t device,
							   uint64_t queue)
{
	struct ht_stream_params sp;
	struct ht_stream *s = NULL;
	static long counter;

	if (!session_ready()) {
		errno = ENODEV;
		return NULL;
	}
	pthread_mutex_lock(&S.lock);
	if (!S.closed) {
		sp = stream_params(sc, 0);
		sp.device = device;
		sp.queue = queue;
		s = create_named(prefix, counter++, &sp);
		if (s) {
			s->gen = S.gen;
			s->prefix = prefix;
			registry_add(s);
		}
	} else {
		errno = ENODEV;
	}
	pthread_mutex_unlock(&S.lock);
	return s;
}

/*
 * A shared stream (a device queue's) that a source keeps from an earlier
 * session generation: its counterpart in the current one, created once.
 * Return: that stream, or NULL when nothing is recorded now.
 */
struct ht_stream *ht_session_stream_renew(struct ht_stream *s)
{
	struct ht_stream *n;

	if (!s->prefix || !session_ready())
		return NULL;
	pthread_mutex_lock(&S.lock);
	n = s->successor;
	pthread_mutex_unlock(&S.lock);
	if (n && n->gen == S.gen)
		return n;
	n = ht_session_stream_create(s->p.sc, s->prefix, s->p.device, s->p.queue);
	if (!n)
		return NULL;
	pthread_mutex_lock(&S.lock);
	if (s->successor && s->successor->gen == n->gen) {
		/* another thread renewed it first: keep theirs */
		registry_remove(n);
		ht_stream_destroy(n);
		n = s->successor;
	} else {
		s->successor = n;
	}
	pthread_mutex_unlock(&S.lock);
	return n;
}

HT_EXPORT_BOUND int
ht_session_with_process(int (*fn)(struct ht_stream *, struct ht_strtab *, void *), void *arg)
{
	int r = -ENODEV;

	if (!session_ready())
		return r;
	pthread_mutex_lock(&S.lock);
	if (S.proc)
		r = fn(S.proc, &S.strings, arg);
	pthread_mutex_unlock(&S.lock);
	return r;
}

uint32_t ht_session_intern(const char *str)
{
	uint32_t id = 0;
	int is_new;

	if (!str || !session_ready())
		return 0;
	pthread_mutex_lock(&S.lock);
	if (!S.closed) {
		id = ht_strtab_intern(&S.strings, str, &is_new);
		if (id && is_new)
			proc_string_def(id, ht_strtab_get(&S.strings, id));
	}
	pthread_mutex_unlock(&S.lock);
	return id;
}

uint32_t ht_session_intern_cached(struct ht_stream *s, const char *str)
{
	unsigned int h = (unsigned int)(((uintptr_t)str >> 3) ^ ((uintptr_t)str >> 9)) & 31;
	uint32_t id;

	if (s->strcache[h].key == str && !strcmp(str, s->strcache[h].interned))
		return s->strcache[h].id;
	id = ht_session_intern(str);
	if (id) {
		pthread_mutex_lock(&S.lock);
		s->strcache[h].interned = ht_strtab_get(&S.strings, id);
		pthread_mutex_unlock(&S.lock);
		s->strcache[h].key = s->strcache[h].interned ? str : NULL;
		s->strcache[h].id = id;
	}
	return id;
}

HT_EXPORT_BOUND struct ht_stream *ht_session_borrow_thread_stream(void)
{
	return ht_session_thread_stream();
}

HT_EXPORT_BOUND const struct ht_config *ht_session_borrow_config(void)
{
	return &S.cfg;
}

/*
 * The functions of t whose calls record their caller's stack (core/source.h):
 * with `launch`, those that submit, wait for or allocate device work.
 */
static void mark_stack_fns(const struct ht_fn_table *t)
{
	const uint32_t launch = HT_ROLE_LAUNCH | HT_ROLE_TRANSFER | HT_ROLE_ENQUEUE | HT_ROLE_SYNC |
				HT_ROLE_BLOCKING | HT_ROLE_ALLOC;

	if (S.cfg.callstacks == HT_STACKS_NONE)
		return;
	for (unsigned int i = 0; i < t->count; i++) {
		unsigned int fn = (unsigned int)t->base + i;

		if (fn < 65536 && (S.cfg.callstacks == HT_STACKS_ALL || (t->fns[i].roles & launch)))
			ht_api_stack_fns[fn >> 3] |= (uint8_t)(1u << (fn & 7));
	}
}

HT_EXPORT int ht_fn_table_register(const struct ht_fn_table *t)
{
	int r = 0;

	if (!t || !t->fns || t->count == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < t->count; i++)
		if (ht_fn_desc_check(&t->fns[i]))
			return -EINVAL;
	pthread_mutex_lock(&S.lock);
	if (S.ntables == MAX_TABLES) {
		r = -ENOSPC;
		goto out;
	}
	for (unsigned int i = 0; i < S.ntables; i++)
		if (S.tables[i] == t)
			goto out;
	S.tables[S.ntables++] = t;
	mark_stack_fns(t);
	if (S.ready) {
		/* Late registration: describe the new functions to both readers. */
		proc_fn_defs(t);
		r = write_metadata();
	}
out:
	pthread_mutex_unlock(&S.lock);
	return r;
}

/* ---- fork and exit ---- */

static void fork_prepare(void)
{
	pthread_mutex_lock(&S.lock);
	ht_source_run_fork_prepare();
}

static void fork_parent(void)
{
	ht_source_run_fork_parent();
	pthread_mutex_unlock(&S.lock);
}

static void fork_child(void)
{
	struct ht_stream *s, *next;

	S.pid = getpid(); /* what tells this child from a vfork child (ht_session_exit_now) */
	ht_source_run_fork_child();
	/* Everything mapped here is the parent's: let go without writing. */
	for (s = S.streams; s; s = next) {
		next = s->next;
		ht_stream_abandon(s);
	}
	S.streams = NULL;
	ht_stream_abandon(S.proc);
	S.proc = NULL;
	forget_process_dir();
	ht_tls_stream = HT_TLS_NONE;
	pthread_setspecific(S.key, NULL);
	pthread_mutex_unlock(&S.lock);
}

/*
 * Maps control page `path` over ht_ctl_area (session/ctl.h). Refused, with
 * one line, for a page that is not this user's or a program that holds a
 * copy of ht_active of its own (a non-PIE executable's copy relocation:
 * the page would not reach the flag it tests).
 * Return: 0 or -errno.
 */
static int ctl_attach(const char *path, int create, int quiet)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t active = (uintptr_t)&ht_active, watch = (uintptr_t)&ht_watch;
	void *m;
	int fd, r;

	/* The compiler takes two symbols for two objects: make it compare the addresses. */
	__asm__("" : "+r"(active), "+r"(watch));
	if (page != HT_CTL_SIZE || active != (uintptr_t)&ht_ctl_area ||
	    watch != (uintptr_t)&ht_ctl_area.p.watch) {
		r = -ENOTSUP;
		goto err;
	}
	fd = ht_ctl_open(path, create);
	if (fd < 0) {
		r = fd;
		goto err;
	}
	m = mmap(&ht_ctl_area, HT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	r = m == MAP_FAILED ? -errno : 0;
	if (!r)
		S.shared = ht_ctl_map(fd); /* NULL: no capture ranges of this process's own */
	close(fd);
	if (r)
		goto err;
	S.mapped = 1;
	return 0;
err:
	if (!quiet)
		fprintf(stderr,
			"hetrace: cannot use control page '%s': %s; this process runs "
			"untraced\n",
			path, r == -EPERM ? "not a private file of this user" : strerror(-r));
	return r;
}

/*
 * Session mode (HETRACE_SESSION=NAME): the page of this user's session NAME,
 * created when no session was ever started (so a later one is seen).
 * Silent: a candidate that cannot follow its session (another user's
 * variables, say) runs exactly as without them; `hetrace session status`
 * is where problems show.
 * Return: 0 or -errno.
 */
static int session_attach(const char *name)
{
	char dir[HT_CTL_DIR_MAX], path[HT_CTL_DIR_MAX + 80];
	int r;

	if (!ht_ctl_name_valid(name))
		return -EINVAL;
	r = ht_ctl_dir(dir, sizeof dir);
	if (!r)
		r = ht_ctl_dir_check(dir, 1);
	if (r)
		return r;
	snprintf(path, sizeof path, "%s/%s.ctl", dir, name);
	return ctl_attach(path, 1, 1);
}

__attribute__((constructor)) static void session_load(void)
{
	const char *name = getenv("HETRACE_SESSION"), *ctl = getenv("HETRACE_CONTROL");

	ht_config_load(&S.cfg);
	if (!S.cfg.dir && !(name && *name))
		return;
	S.pid = getpid();
	if (!S.cfg.dir) {
		/*
		 * A candidate: settings and clock come with the session it joins.
		 * The hetrace command in a shell that took `session env` is not
		 * one: its daemon and `status` must not appear in the trace.
		 */
		if (!strcmp(program_invocation_short_name, "hetrace") || session_attach(name))
			return;
		S.session = 1;
	} else {
		ht_clock_setup(S.cfg.use_tsc, S.cfg.tsc_hz);
		S.clock_set = 1;
		if (ctl && *ctl && ctl_attach(ctl, 0, 0))
			return;
	}
	if (pthread_key_create(&S.key, thread_exit) != 0)
		return;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	ht_stream_on_error = on_stream_error;
	ht_stream_on_packet = ht_source_run_packet_switch;
	S.enabled = 1;
	if (S.mapped)
		return; /* the page says when */
	if (S.cfg.capture_region)
		__atomic_store_n(&ht_watch, 1, __ATOMIC_RELEASE); /* regions reach us */
	else if (!S.cfg.capture_api)
		__atomic_store_n(&ht_active, 1, __ATOMIC_RELEASE);
}

/* Return: nonzero when this process's own flag may be switched (not a session's page). */
static int own_flag(void)
{
	return S.enabled && !S.mapped;
}

/*
 * Region capture ranges in a session (S.lock held): the page is the whole
 * session's, so inside a range of its own this process records through a
 * private copy of it with `active` set, put in place by mremap in one step
 * for all its threads; at the range's end the page itself comes back
 * (mremap of a shared mapping with old size 0 duplicates it). Same
 * generation in the copy: the process's streams stay valid.
 */
static int area_private(void)
{
	struct ht_ctl_page *n =
	    mmap(NULL, HT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (n == MAP_FAILED)
		return -errno;
	memcpy(n, S.shared, sizeof *n);
	n->active = 1;
	if (mremap(n, HT_CTL_SIZE, HT_CTL_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, &ht_ctl_area) ==
	    MAP_FAILED) {
		munmap(n, HT_CTL_SIZE);
		return -errno;
	}
	S.private_ = 1;
	return 0;
}

static void area_shared(void)
{
	if (S.private_ && mremap(S.shared, 0, HT_CTL_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED,
				 &ht_ctl_area) != MAP_FAILED)
		S.private_ = 0;
}

/* A session that stopped while this process was inside a range of its own: back to the page. */
static void private_check(void)
{
	if (__atomic_load_n(&S.shared->gen, __ATOMIC_ACQUIRE) == S.gen)
		return;
	pthread_mutex_lock(&S.lock);
	area_shared();
	S.capture_depth = 0;
	pthread_mutex_unlock(&S.lock);
}

static int session_capture_begin(uint32_t name)
{
	int r = 0;

	/* A new session is joined here: region names are cached ids, nothing else asks. */
	if (!S.shared || !session_ready() || __atomic_load_n(&S.capture_done, __ATOMIC_RELAXED) ||
	    name != __atomic_load_n(&ht_capture_id, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&S.lock);
	if (S.capture_depth > 0) {
		S.capture_depth++;
		r = 1;
	} else if (__atomic_load_n(&S.shared->gen, __ATOMIC_ACQUIRE) == S.gen &&
		   __atomic_load_n(&S.shared->watch, __ATOMIC_ACQUIRE) && !area_private()) {
		S.capture_depth = 1;
		r = 1;
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

static void session_capture_end(void)
{
	pthread_mutex_lock(&S.lock);
	if (S.capture_depth > 0 && --S.capture_depth == 0) {
		if (!S.cfg.capture_repeat)
			S.capture_done = 1;
		area_shared();
	}
	pthread_mutex_unlock(&S.lock);
}

/*
 * Region capture ranges (emit.c): a region `name` begins while watching.
 * Return: nonzero when the event is to be recorded (it opened a range).
 */
int ht_capture_region_begin(uint32_t name)
{
	if (S.session)
		return session_capture_begin(name);
	/* Watching: callers that call regardless of the flags (NVTX) find a range done. */
	if (!own_flag() || !name || name != __atomic_load_n(&ht_capture_id, __ATOMIC_RELAXED) ||
	    !__atomic_load_n(&ht_watch, __ATOMIC_ACQUIRE))
		return 0;
	if (__atomic_fetch_add(&S.capture_depth, 1, __ATOMIC_ACQ_REL) == 0)
		__atomic_store_n(&ht_active, 1, __ATOMIC_RELEASE);
	return 1;
}

/* Region `name` (the capture region) ended, its event written: the range may close. */
void ht_capture_region_end(void)
{
	if (S.session) {
		session_capture_end();
		return;
	}
	if (!own_flag() || __atomic_load_n(&S.capture_depth, __ATOMIC_RELAXED) <= 0)
		return;
	if (__atomic_sub_fetch(&S.capture_depth, 1, __ATOMIC_ACQ_REL) == 0) {
		if (!S.cfg.capture_repeat)
			__atomic_store_n(&ht_watch, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&ht_active, 0, __ATOMIC_RELEASE);
	}
}

HT_EXPORT void hetrace_start(void)
{
	if (own_flag() && !S.cfg.capture_region &&
	    !__atomic_load_n(&S.capture_done, __ATOMIC_RELAXED))
		__atomic_store_n(&ht_active, 1, __ATOMIC_RELEASE);
}

HT_EXPORT void hetrace_stop(void)
{
	if (!own_flag() || S.cfg.capture_region)
		return;
	/* --capture-range=api ends with the first range unless it repeats */
	if (S.cfg.capture_api && !S.cfg.capture_repeat)
		__atomic_store_n(&S.capture_done, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&ht_active, 0, __ATOMIC_RELEASE);
}

/*
 * Ends the process's recording as exit does (S.lock held): the calling
 * thread's stream closed, the sources' exit or exec hooks run (the OS
 * source drains every thread's ring), discard counts brought up to date,
 * then the final anchor (`how`: exit or exec) and the process stream
 * closed. Other threads' open packets are completed by `hetrace record`;
 * their streams stay registered.
 */
static void close_process(enum ht_anchor_kind how)
{
	struct ht_stream *s = ht_tls_stream;
	uint64_t lost = __atomic_load_n(&S.lost_no_stream, __ATOMIC_RELAXED);

	if ((uintptr_t)s > (uintptr_t)HT_TLS_DEAD) {
		ht_source_run_thread_close(s);
		registry_remove(s);
		ht_stream_destroy(s);
	}
	ht_source_run_process_end(S.proc, how == HT_ANCHOR_EXEC);
	for (struct ht_stream *o = S.streams; o; o = o->next)
		ht_stream_sync_discarded(o);
	if (lost) {
		proc_lost(HT_LOST_NO_STREAM, lost);
		/* Counted where babeltrace2 sees losses too; the record says why. */
		S.proc->discarded += lost;
	}
	proc_anchor(how);
	ht_stream_destroy(S.proc);
	S.proc = NULL;
	S.closed = 1;
}

/* Return: nonzero when this process's recording belongs to a trace still recorded (S.lock held). */
static int gen_current(void)
{
	return S.gen == ctl_gen();
}

__attribute__((destructor)) static void session_unload(void)
{
	if (!S.enabled)
		return;
	pthread_mutex_lock(&S.lock);
	if (S.session && ht_active)
		session_join(); /* a session runs: this process appears in it */
	if (!S.ready && !S.failed && !S.closed && flags_on() && S.cfg.dir && gen_current())
		init_process(); /* every traced process appears, with or without events */
	if (S.ready && !S.closed && gen_current())
		close_process(HT_ANCHOR_EXIT);
	ht_tls_stream = HT_TLS_DEAD;
	pthread_mutex_unlock(&S.lock);
}

HT_EXPORT_BOUND void ht_session_start(void)
{
	session_ready();
}

HT_EXPORT_BOUND void ht_session_exit_now(void)
{
	/* A vfork child (S.pid is the parent's: set at load and after fork) keeps off. */
	if (!S.enabled || getpid() != S.pid)
		return;
	session_unload();
}

HT_EXPORT_BOUND void ht_session_exec_prepare(void)
{
	/* A vfork child shares our memory but is another process: hands off. */
	if (!S.enabled || getpid() != S.pid)
		return;
	pthread_mutex_lock(&S.lock);
	if (S.ready && !S.closed && gen_current()) {
		close_process(HT_ANCHOR_EXEC);
		ht_tls_stream = HT_TLS_NONE;
		pthread_setspecific(S.key, NULL);
	}
	pthread_mutex_unlock(&S.lock);
}

HT_EXPORT_BOUND void ht_session_exec_failed(void)
{
	if (!S.enabled || getpid() != S.pid)
		return;
	pthread_mutex_lock(&S.lock);
	if (S.closed && S.ready) {
		/* Start over on the next event, in a new directory, as an exec'd image does. */
		forget_process_dir();
		S.closed = 0;
	}
	pthread_mutex_unlock(&S.lock);
}
