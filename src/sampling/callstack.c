/*
 * Call stacks at API entry, in the traced process (libhetrace-preload.so):
 * ht_emit_api_begin calls the hook registered here for the functions
 * --callstacks selects (core/source.h); it unwinds the calling thread's own
 * stack by the modules' DWARF CFI (unwind.h; frame pointers are not needed),
 * drops the frames of hetrace and of the GPU runtime at its top (the stack
 * starts at the user's call), interns the rest in the process's
 * calling-context tree (cct.h) and writes an api_stack event before the
 * call's api_begin, so the unwinding does not count as the call's time.
 *
 * Cost per call with a 10-frame stack, all rows cached (the steady state):
 * the module list's generation check (dl_iterate_phdr stopped at its first
 * object, ~33 ns here), ~10 ns per frame, and the comparison with the
 * thread's few last stacks, which a loop of launches and waits repeats, so
 * the tree is locked only for a stack not seen lately on this thread.
 * bench/opencl.sh measures it (callstack_kernel_ns).
 *
 * This source also records the module list (modules.h) for `record`'s CPU
 * samples, when those are on and call stacks are not.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/recorder.h"
#include "core/session.h"
#include "core/source.h"
#include "sampling/callstack.h"
#include "sampling/cct.h"
#include "sampling/modules.h"

/* Stacks a thread saw last: a loop of launch and wait repeats two or three. */
#define RECENT 4

struct tstate {
	struct ht_unwind_cache *cache; /* allocated at the thread's first stack */
	uint64_t lo, hi;	       /* the thread's stack */
	int busy;		       /* a capture runs (a nested API call is not unwound) */
	unsigned int next;	       /* the recent entry replaced next */
	struct recent {
		int n;
		uint32_t node;
		uint64_t frames[HT_UNWIND_MAX];
	} recent[RECENT];
};

static __thread struct tstate *ts __attribute__((tls_model("initial-exec")));

/* The process's tree: ids from 1, nodes written into the process stream (session lock held). */
static void put_node(void *ctx, const struct ht_ev_stack_node *e)
{
	HT_WRITE((struct ht_stream *)ctx, stack_node, e);
}

static struct ht_cct tree = {.first = 1, .put = put_node};
static unsigned long long generation = ~0ull; /* dlpi_adds and dlpi_subs of the list taken */
static int registered;			      /* the source runs: modules are tracked */

/* ---- the module list's generation ---- */

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_adds * 0x10001ull ^ info->dlpi_subs;
	return 1;
}

static int write_modules(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	(void)strs;
	(void)arg;
	ht_modules_write(proc, 0);
	return 0;
}

void ht_callstack_modules_check(int write)
{
	unsigned long long g = 0;

	dl_iterate_phdr(first_object, &g);
	if (g == __atomic_load_n(&generation, __ATOMIC_RELAXED) || ht_modules_refresh())
		return;
	__atomic_store_n(&generation, g, __ATOMIC_RELAXED);
	if (write)
		ht_session_with_process(write_modules, NULL);
}

/* ---- unwinding the live stack ---- */

static const struct ht_unwind_module *find_live(void *ctx, uint64_t pc)
{
	(void)ctx;
	return ht_modules_find(pc);
}

/* Reads the thread's own stack, and nothing else. */
static int read_live(void *ctx, uint64_t addr, uint64_t *v)
{
	const struct tstate *t = ctx;

	if (addr < t->lo || addr > t->hi - 8 || (addr & 7))
		return -EFAULT;
	*v = *(const uint64_t *)(uintptr_t)addr;
	return 0;
}

static const struct ht_unwind_ops live_ops = {find_live, read_live};

/*
 * The registers at a point inside this function: its CFI row at that point
 * is the first step of the unwind. All read in one asm block, so they agree
 * with the address taken there.
 */
static __attribute__((noinline)) void take_regs(struct ht_unwind_regs *r)
{
	uint64_t v[8];

	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, 0(%0)\n\t"
			 "mov %%rsp, 8(%0)\n\t"
			 "mov %%rbp, 16(%0)\n\t"
			 "mov %%rbx, 24(%0)\n\t"
			 "mov %%r12, 32(%0)\n\t"
			 "mov %%r13, 40(%0)\n\t"
			 "mov %%r14, 48(%0)\n\t"
			 "mov %%r15, 56(%0)\n\t"
			 :
			 : "r"(v)
			 : "rax", "memory");
	memset(r, 0, sizeof *r);
	r->r[HT_DW_RA] = v[0];
	r->r[HT_DW_RSP] = v[1];
	r->r[HT_DW_RBP] = v[2];
	r->r[HT_DW_RBX] = v[3];
	for (int i = 0; i < 4; i++)
		r->r[12 + i] = v[4 + i];
	r->valid =
	    1u << HT_DW_RA | 1u << HT_DW_RSP | 1u << HT_DW_RBP | 1u << HT_DW_RBX | 0xfu << 12;
}

/* The thread's stack bounds and row cache, at its first stack. Return: 0 or -errno. */
static int thread_setup(struct tstate *t)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &a))
		return -EINVAL;
	if (pthread_attr_getstack(&a, &addr, &size)) {
		pthread_attr_destroy(&a);
		return -EINVAL;
	}
	pthread_attr_destroy(&a);
	t->lo = (uint64_t)(uintptr_t)addr;
	t->hi = t->lo + size;
	t->cache = calloc(1, sizeof *t->cache);
	if (!t->cache)
		return -ENOMEM;
	t->cache->by_pc = 1;
	t->cache->stamp = ~0ull; /* cleared (again) at its first use */
	return 0;
}

struct intern_arg {
	const uint64_t *frames;
	int n;
	uint32_t node;
};

static int intern_locked(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	struct intern_arg *a = arg;

	(void)strs;
	tree.ctx = proc;
	a->node = ht_cct_intern(&tree, a->frames, a->n);
	return 0;
}

/* The calling thread's stack as frame words, hetrace's and the runtime's frames left out. */
static int live_frames(struct tstate *t, uint64_t *frames)
{
	struct ht_unwind_regs rg;
	uint64_t pcs[HT_UNWIND_MAX];
	const struct ht_unwind_module *mods[HT_UNWIND_MAX];
	int n, first = 0, k = 0;

	take_regs(&rg);
	n = ht_unwind(&live_ops, t, t->cache, &rg, pcs, mods, HT_UNWIND_MAX);
	/* hetrace's and the runtime's frames at the top; an unknown module ends them too */
	while (first < n && mods[first] && mods[first]->skip)
		first++;
	for (int i = first; i < n; i++)
		frames[k++] = ht_unwind_frame(mods[i], pcs[i]);
	return k;
}

/* The api_stack hook (core/source.h). */
static void capture(void)
{
	struct tstate *t;
	struct ht_stream *s = ht_session_borrow_thread_stream(); /* runs thread_open first */
	uint64_t frames[HT_UNWIND_MAX];
	struct intern_arg a = {.frames = frames};

	t = ts;
	if (!s || !t || t->busy)
		return;
	t->busy = 1;
	if (!t->cache && thread_setup(t))
		goto out;
	ht_callstack_modules_check(1);
	if (t->cache->stamp != __atomic_load_n(&generation, __ATOMIC_RELAXED)) {
		/* another module list: rows found by address alone may be of another file */
		memset(t->cache->slot, 0, sizeof t->cache->slot);
		t->cache->stamp = __atomic_load_n(&generation, __ATOMIC_RELAXED);
	}
	a.n = live_frames(t, frames);
	if (!a.n)
		goto out;
	for (int i = 0; i < RECENT && !a.node; i++)
		if (t->recent[i].n == a.n && !memcmp(frames, t->recent[i].frames, (size_t)a.n * 8))
			a.node = t->recent[i].node;
	if (!a.node) {
		struct recent *r = &t->recent[t->next++ % RECENT];

		ht_session_with_process(intern_locked, &a);
		if (!a.node)
			goto out;
		memcpy(r->frames, frames, (size_t)a.n * sizeof *frames);
		r->n = a.n;
		r->node = a.node;
	}
	HT_WRITE(s, api_stack, (&(struct ht_ev_api_stack){.node = a.node}));
out:
	t->busy = 0;
}

/* ---- source hooks ---- */

static void *cs_thread_open(struct ht_stream *s, int tid)
{
	(void)s;
	(void)tid;
	ts = calloc(1, sizeof *ts);
	return ts;
}

static void cs_thread_close(struct ht_stream *s, void *state)
{
	struct tstate *t = state;

	(void)s;
	if (ts == t)
		ts = NULL;
	free(t->cache);
	free(t);
}

static void cs_process_open(struct ht_stream *proc)
{
	ht_modules_write(proc, 1);
	tree.ctx = proc;
	ht_cct_put_all(&tree);
}

/* Exit or exec: the list as it ends (what `record` maps the samples with). */
static void cs_process_end(struct ht_stream *proc)
{
	ht_callstack_modules_check(0);
	ht_modules_write(proc, 0);
}

static void cs_fork_child(void)
{
	ht_modules_fork_child();
	if (ts) { /* this thread's copy of the parent's state; the child makes its own */
		free(ts->cache);
		free(ts);
		ts = NULL;
	}
}

static const struct ht_source_hooks cs_hooks = {
    .name = "callstacks",
    .thread_open = cs_thread_open,
    .thread_close = cs_thread_close,
    .process_open = cs_process_open,
    .fork_prepare = ht_modules_fork_prepare,
    .fork_parent = ht_modules_fork_parent,
    .fork_child = cs_fork_child,
    .exec = cs_process_end,
    .exit = cs_process_end,
};

__attribute__((constructor)) static void callstack_load(void)
{
	const struct ht_config *cfg = ht_session_borrow_config();

	if (!cfg->dir || (cfg->callstacks == HT_STACKS_NONE && !cfg->sampled))
		return;
	ht_callstack_modules_check(0);
	if (ht_source_register(&cs_hooks))
		return;
	__atomic_store_n(&registered, 1, __ATOMIC_RELAXED);
	/* a process directory made before this registered has no modules yet */
	ht_session_with_process(write_modules, NULL);
	if (cfg->callstacks != HT_STACKS_NONE)
		__atomic_store_n(&ht_api_stack_hook, capture, __ATOMIC_RELEASE);
}

/*
 * dlclose, interposed: the module list is taken before (a library loaded
 * since the last look is still there to be seen, with its load) and after
 * (its unload). dlopen is not interposed: the real one resolves a relative
 * name against its caller's RUNPATH, which an interposer would change; a
 * new object is seen by the generation check of the next stack instead.
 */
typedef int (*dlclose_fn)(void *);
static dlclose_fn real_dlclose;

__attribute__((constructor)) static void dlclose_load(void)
{
	real_dlclose = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
	int tracked = __atomic_load_n(&registered, __ATOMIC_RELAXED), r, err;

	if (!real_dlclose)
		dlclose_load();
	if (tracked)
		ht_callstack_modules_check(1);
	r = real_dlclose(handle);
	if (tracked) {
		err = errno;
		ht_callstack_modules_check(1);
		errno = err;
	}
	return r;
}
