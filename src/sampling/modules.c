/*
 * The module table of the traced process (see modules.h).
 *
 * Readers (every stack capture, on any thread) take no lock: the loaded
 * modules are published as a sorted table behind one pointer, replaced
 * whole when dlopen or dlclose changed the list. A replaced table is freed
 * HT_MOD_RETIRE replacements later (a reader holds one for a few hundred
 * nanoseconds); module records themselves are never freed, so a reader
 * never sees freed memory. Taking the list (dl_iterate_phdr, reading each
 * object's program headers and build-id note in memory) costs ~20 µs for a
 * program with 15 objects.
 *
 * Locks: the module lock is never held while taking the session lock;
 * writing into the process stream (session lock held) takes the module lock.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "common/grow.h"
#include "core/recorder.h"
#include "core/session.h"
#include "sampling/modules.h"

#define HT_MOD_RETIRE 64

struct table {
	size_t n;
	struct ht_module *m[]; /* loaded modules by start address */
};

static pthread_mutex_t mod_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ht_module **all; /* every module seen, by id - 1 */
static size_t nall, capall;
static struct table *cur;
static struct table *retired[HT_MOD_RETIRE];
static unsigned int nretired;
static int taken; /* the list was taken once: later modules come with a load time */

/* A GPU runtime's or hetrace's own library: call stacks start outside them. */
static int runtime_module(const char *path)
{
	static const char *const names[] = {
	    "libhetrace",    "libOpenCL.so",   "libcuda.so", "libcudart.so", "libcupti.so",
	    "libnvToolsExt", "libxptifw",      "libsycl.so", "libpocl.so",   "libze_loader",
	    "libamdhip64",   "libhsa-runtime", "libnvidia-"};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strncmp(base, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* The GNU build-id from a PT_NOTE segment in memory, as hex into out (41 bytes). */
static void note_build_id(const uint8_t *p, size_t len, char *out)
{
	size_t off = 0;

	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at, next;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		desc_at = name_at + ((namesz + 3) & ~3u);
		next = desc_at + ((descsz + 3) & ~3u);
		if (next > len || next <= off)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_at, "GNU", 4) &&
		    descsz && descsz <= 20) {
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(out + 2 * i, 3, "%02x", p[desc_at + i]);
			return;
		}
		off = next;
	}
}

/* What one object of dl_iterate_phdr gives. */
struct seen {
	struct ht_module m;
	char path[PATH_MAX];
};

struct scan {
	struct seen *v;
	size_t n, cap;
	int err;
};

static void object_path(const char *name, uint64_t start, char *out, size_t cap)
{
	static char exe[PATH_MAX];

	if (!name || !*name) { /* the program itself */
		if (!exe[0]) {
			ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

			exe[n > 0 ? n : 0] = '\0';
		}
		snprintf(out, cap, "%s", exe[0] ? exe : "[exe]");
	} else if (start == (getauxval(AT_SYSINFO_EHDR) & ~4095ul)) {
		snprintf(out, cap, "[vdso]");
	} else if (name[0] != '/' && strchr(name, '/') && realpath(name, out)) {
		/* dlopen'ed by a relative path: resolved while the directory is the same */
	} else {
		snprintf(out, cap, "%s", name);
	}
}

static int on_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan *sc = arg;
	struct seen *s;
	uint64_t lo = UINT64_MAX, hi = 0, hdr = 0;
	const ElfW(Phdr) *seg = NULL;

	(void)size;
	if (ht_grow((void **)&sc->v, &sc->cap, sizeof *sc->v, sc->n + 1)) {
		sc->err = -ENOMEM;
		return 1;
	}
	s = &sc->v[sc->n];
	memset(s, 0, sizeof *s);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD) {
			if (ph->p_vaddr < lo)
				lo = ph->p_vaddr;
			if (ph->p_vaddr + ph->p_memsz > hi)
				hi = ph->p_vaddr + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			hdr = ph->p_vaddr;
		} else if (ph->p_type == PT_NOTE && !s->m.build_id[0]) {
			note_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
				      s->m.build_id);
		}
	}
	if (lo >= hi)
		return 0; /* nothing loaded */
	for (int i = 0; hdr && i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && hdr >= ph->p_vaddr && hdr < ph->p_vaddr + ph->p_memsz)
			seg = ph;
	}
	s->m.u.base = info->dlpi_addr;
	s->m.u.start = info->dlpi_addr + lo;
	s->m.u.end = info->dlpi_addr + hi;
	if (seg) {
		s->m.u.cfi.lo = (const uint8_t *)(info->dlpi_addr + seg->p_vaddr);
		s->m.u.cfi.hi = s->m.u.cfi.lo + seg->p_memsz;
		s->m.u.cfi.delta = (intptr_t)info->dlpi_addr;
		s->m.u.cfi.hdr = hdr;
	}
	object_path(info->dlpi_name, s->m.u.start & ~4095ull, s->path, sizeof s->path);
	s->m.u.skip = (uint8_t)runtime_module(s->path);
	sc->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct ht_module *x = *(struct ht_module *const *)a,
			       *y = *(struct ht_module *const *)b;

	return x->u.start < y->u.start ? -1 : x->u.start > y->u.start;
}

/* The module of the list matching s (same object at the same place), or NULL. */
static struct ht_module *known(const struct seen *s)
{
	for (size_t i = 0; i < nall; i++)
		if (!all[i]->unloaded_ns && all[i]->u.base == s->m.u.base &&
		    all[i]->u.start == s->m.u.start && !strcmp(all[i]->path, s->path))
			return all[i];
	return NULL;
}

int ht_modules_refresh(void)
{
	struct scan sc = {0};
	struct table *t = NULL;
	uint64_t now = ht_now_ns();
	size_t loaded = 0;
	int r = 0;

	pthread_mutex_lock(&mod_lock);
	dl_iterate_phdr(on_object, &sc);
	if (sc.err) {
		r = sc.err;
		goto out;
	}
	for (size_t i = 0; i < nall; i++)
		all[i]->u.skip |= 0x80; /* not seen yet in this list */
	for (size_t i = 0; i < sc.n; i++) {
		struct ht_module *m = known(&sc.v[i]);

		if (!m) {
			if (ht_grow((void **)&all, &capall, sizeof *all, nall + 1) ||
			    !(m = malloc(sizeof *m)) || !(sc.v[i].m.path = strdup(sc.v[i].path))) {
				free(m);
				r = -ENOMEM;
				goto out;
			}
			*m = sc.v[i].m;
			m->u.id = (uint32_t)(nall + 1);
			m->loaded_ns = taken ? now : 0;
			all[nall++] = m;
		}
		m->u.skip &= 0x7f;
	}
	for (size_t i = 0; i < nall; i++) {
		if (all[i]->u.skip & 0x80) {
			all[i]->u.skip &= 0x7f;
			if (!all[i]->unloaded_ns)
				all[i]->unloaded_ns = now;
		}
		loaded += !all[i]->unloaded_ns;
	}
	t = malloc(sizeof *t + loaded * sizeof t->m[0]);
	if (!t) {
		r = -ENOMEM;
		goto out;
	}
	t->n = 0;
	for (size_t i = 0; i < nall; i++)
		if (!all[i]->unloaded_ns)
			t->m[t->n++] = all[i];
	qsort(t->m, t->n, sizeof t->m[0], by_start);
	free(retired[nretired % HT_MOD_RETIRE]);
	retired[nretired++ % HT_MOD_RETIRE] = cur;
	__atomic_store_n(&cur, t, __ATOMIC_RELEASE);
	taken = 1;
out:
	pthread_mutex_unlock(&mod_lock);
	free(sc.v);
	return r;
}

const struct ht_unwind_module *ht_modules_find(uint64_t pc)
{
	const struct table *t = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	hi = t->n;
	while (lo < hi) { /* the first module starting after pc */
		size_t mid = (lo + hi) / 2;

		if (t->m[mid]->u.start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc < t->m[lo - 1]->u.end)
		return &t->m[lo - 1]->u;
	return NULL;
}

void ht_modules_write(struct ht_stream *proc, int everything)
{
	pthread_mutex_lock(&mod_lock);
	for (size_t i = 0; i < nall; i++) {
		struct ht_module *m = all[i];

		if (everything)
			m->written = m->unload_written = 0;
		if (!m->written) {
			const struct ht_ev_module_load e = {.id = m->u.id,
							    .base = m->u.base,
							    .start = m->u.start,
							    .end = m->u.end,
							    .ns = m->loaded_ns,
							    .build_id = m->build_id,
							    .path = m->path};

			m->written = HT_WRITE(proc, module_load, &e);
		}
		if (m->unloaded_ns && m->written && !m->unload_written) {
			const struct ht_ev_module_unload e = {.id = m->u.id, .ns = m->unloaded_ns};

			m->unload_written = HT_WRITE(proc, module_unload, &e);
		}
	}
	pthread_mutex_unlock(&mod_lock);
}

void ht_modules_fork_prepare(void)
{
	pthread_mutex_lock(&mod_lock);
}

void ht_modules_fork_parent(void)
{
	pthread_mutex_unlock(&mod_lock);
}

void ht_modules_fork_child(void)
{
	pthread_mutex_unlock(&mod_lock);
}
