/*
 * `hetrace record` under an MPI launcher (see record_mpi.h).
 *
 * The top-level index T/hetrace.index of a job names the job and lists its
 * parts, one line each:
 *     layout=parts
 *     job=<launcher's job id>
 *     size=<ranks>
 *     part=r00003-node7 rank=3 host=node7
 * Ranks start at once and T may sit on a shared file system, so each rank
 * updates the index under an open-file-description lock (fcntl
 * F_OFD_SETLKW; on NFS the kernel forwards it to the server's lock manager)
 * and appends its line with one write. A rank that finds the index of
 * another job (other id or size, or its own rank listed already) refuses,
 * or with --force starts the index anew for its job; the ranks after it
 * then find their job's index and append. A part is listed before its
 * directory exists, so readers skip listed parts that never started and
 * read nothing that is not listed (parts of a replaced job).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analysis/trace.h"
#include "cli/cli.h"
#include "cli/record_mpi.h"
#include "mpi/launcher.h"

/* Host names go into directory names and index lines: letters, digits, '.', '-', '_'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
			*s = '_';
}

/* The value of `key=` on a line of its own in text, into v. Return: 1 found, 0 not. */
static int index_value(const char *text, const char *key, char *v, size_t cap)
{
	size_t k = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, key, k) && l[k] == '=') {
			size_t n = strcspn(l + k + 1, "\n");

			snprintf(v, cap, "%.*s", (int)(n < cap ? n : cap - 1), l + k + 1);
			return 1;
		}
	return 0;
}

/* Return: 1 when the index lists a part of rank `rank`. */
static int lists_rank(const char *text, int rank)
{
	char pat[32];

	snprintf(pat, sizeof pat, " rank=%d ", rank);
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "part=", 5)) {
			size_t n = strcspn(l, "\n");
			const char *r = strstr(l, pat);

			if (r && (size_t)(r - l) < n)
				return 1;
		}
	return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Adds this rank's line to the index at dfd (locked while it runs).
 * Return: 0, or 1 after an error line.
 */
static int register_part(int dfd, const char *out, int force, const struct ht_record_part *p)
{
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	char *text = NULL, job[160] = "", size[32] = "", layout[32] = "", line[512];
	int fd, rc = 1, fresh, n;

	fd = openat(dfd, HT_INDEX_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return ht_error("cannot open the index of trace '%s': %s", out, strerror(errno));
	while (fcntl(fd, F_OFD_SETLKW, &lk) < 0 && errno == EINTR)
		;
	/* without a lock (a file system that has none), one appended line stays whole */
	n = ht_trace_index_read(dfd, &text);
	if (n) {
		ht_error("cannot read the index of trace '%s': %s", out, strerror(-n));
		goto out;
	}
	fresh = !text[0];
	if (!fresh) {
		char mine[32];

		snprintf(mine, sizeof mine, "%d", p->size);
		index_value(text, "layout", layout, sizeof layout);
		index_value(text, "job", job, sizeof job);
		index_value(text, "size", size, sizeof size);
		if (strcmp(layout, "parts") || strcmp(job, p->job) || strcmp(size, mine) ||
		    lists_rank(text, p->rank)) {
			if (!force) {
				ht_error("trace directory '%s' holds another trace (%s%s); use "
					 "--force to replace it, or choose another -o",
					 out, strcmp(layout, "parts") ? "not an MPI job's" : "job ",
					 strcmp(layout, "parts") ? "" : job);
				goto out;
			}
			if (ftruncate(fd, 0)) {
				ht_error("cannot replace the index of trace '%s': %s", out,
					 strerror(errno));
				goto out;
			}
			fresh = 1;
		}
	}
	if (fresh) {
		n = snprintf(line, sizeof line,
			     "hetrace_version=%s\nlayout=parts\njob=%s\nsize=%d\n", HT_VERSION,
			     p->job, p->size);
		if (write_all(fd, line, (size_t)n)) {
			ht_error("cannot write the index of trace '%s': %s", out, strerror(errno));
			goto out;
		}
	}
	n = snprintf(line, sizeof line, "part=%s rank=%d host=%s\n", p->name, p->rank, p->host);
	if (lseek(fd, 0, SEEK_END) < 0 || write_all(fd, line, (size_t)n)) {
		ht_error("cannot write the index of trace '%s': %s", out, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(text);
	close(fd); /* releases the lock */
	return rc;
}

int ht_record_part_setup(const char *out, int force, struct ht_record_part *p)
{
	struct ht_mpi_launcher l;
	struct utsname un;
	struct stat st;
	int r, dfd;

	memset(p, 0, sizeof *p);
	r = ht_mpi_launcher_get(&l);
	if (r < 0)
		return ht_error("%s='%s' is not a rank; unset it or fix the launcher", l.var,
				getenv(l.var));
	if (r == 0)
		return 0;
	p->active = 1;
	p->rank = l.rank;
	p->size = l.size;
	p->var = l.var;
	snprintf(p->job, sizeof p->job, "%s", l.job);
	sanitize(p->job);
	snprintf(p->host, sizeof p->host, "%s", uname(&un) == 0 ? un.nodename : "unknown");
	sanitize(p->host);
	snprintf(p->name, sizeof p->name, "r%05d-%s", p->rank, p->host);
	if (!out)
		return 0; /* the caller says -o is needed */
	if (snprintf(p->path, sizeof p->path, "%s/%s", out, p->name) >= (int)sizeof p->path)
		return ht_error("trace directory name '%s' is too long", out);
	if (mkdir(out, 0700) && errno != EEXIST)
		return ht_error("cannot create trace directory '%s': %s", out, strerror(errno));
	if (lstat(out, &st) || !S_ISDIR(st.st_mode))
		return ht_error("'%s' exists and is not a directory; choose another -o", out);
	dfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return ht_error("cannot open trace directory '%s': %s", out, strerror(errno));
	r = register_part(dfd, out, force, p);
	close(dfd);
	return r;
}

void ht_record_part_note(int dfd, const struct ht_record_part *p)
{
	char text[512];
	int fd, n;

	if (!p->active)
		return;
	fd = openat(dfd, HT_INDEX_FILE, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	n = snprintf(text, sizeof text, "mpi_rank=%d\nmpi_size=%d\njob=%s\nlauncher=%s\n", p->rank,
		     p->size, p->job, p->var);
	if (write_all(fd, text, (size_t)n))
		ht_error("cannot complete the index of part '%s': %s", p->name, strerror(errno));
	close(fd);
}

/* ---- does the command use MPI? ---- */

/* Resolves cmd like execvp: a name without '/' is looked up in PATH. */
static int resolve(const char *cmd, char *out, size_t cap)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return snprintf(out, cap, "%s", cmd) < (int)cap ? 0 : -1;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");

		if (snprintf(out, cap, "%.*s/%s", (int)n, n ? p : ".", cmd) < (int)cap &&
		    access(out, X_OK) == 0)
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

static int mpi_library(const char *soname)
{
	static const char *const prefixes[] = {"libmpi.",  "libmpi_", "libmpich.", "libopen-rte.",
					       "libpmix.", "libpmi.", "libpmi2.",  "libprrte."};

	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (!strncmp(soname, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * Return: 1 when the ELF file fd names an MPI library among its DT_NEEDED,
 * 0 when it names none, -1 when it is no 64-bit ELF file we can read.
 */
static int needs_mpi(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	Elf64_Dyn *dyn = NULL;
	char *strtab = NULL;
	uint64_t str_addr = 0, str_size = 0, str_off = 0;
	size_t ndyn = 0;
	int r = -1;

	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, 4) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof *ph || eh.e_phnum == 0 ||
	    eh.e_phnum > 256)
		return -1;
	ph = calloc(eh.e_phnum, sizeof *ph);
	if (!ph || pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) !=
		       (ssize_t)(eh.e_phnum * sizeof *ph))
		goto out;
	for (unsigned int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC && ph[i].p_filesz < (1u << 20)) {
			ndyn = ph[i].p_filesz / sizeof *dyn;
			dyn = calloc(ndyn ? ndyn : 1, sizeof *dyn);
			if (!dyn || pread(fd, dyn, ndyn * sizeof *dyn, (off_t)ph[i].p_offset) !=
					(ssize_t)(ndyn * sizeof *dyn))
				goto out;
		}
	r = 0;
	if (!dyn)
		goto out; /* static: nothing to preload into */
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			str_addr = dyn[i].d_un.d_ptr;
		if (dyn[i].d_tag == DT_STRSZ)
			str_size = dyn[i].d_un.d_val;
	}
	/* the string table's file offset, from the load segment that maps it */
	for (unsigned int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && str_addr >= ph[i].p_vaddr &&
		    str_addr - ph[i].p_vaddr < ph[i].p_filesz)
			str_off = str_addr - ph[i].p_vaddr + ph[i].p_offset;
	if (!str_off || !str_size || str_size > (1u << 24))
		goto out;
	strtab = malloc(str_size + 1);
	if (!strtab || pread(fd, strtab, str_size, (off_t)str_off) != (ssize_t)str_size)
		goto out;
	strtab[str_size] = '\0';
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < str_size &&
		    mpi_library(strtab + dyn[i].d_un.d_val))
			r = 1;
out:
	free(ph);
	free(dyn);
	free(strtab);
	return r;
}

int ht_record_wants_mpi(const char *cmd)
{
	static const char *const launchers[] = {"mpirun",  "mpiexec", "orterun",       "oshrun",
						"prterun", "srun",    "mpiexec.hydra", "prun"};
	const char *base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	char path[PATH_MAX];
	int fd, r;

	struct ht_mpi_launcher l;

	for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
		if (!strcmp(base, launchers[i]))
			return 1;
	/*
	 * A rank of a job (`mpirun -np K hetrace record -- CMD`): whatever CMD
	 * is, an interpreter (mpi4py loads libmpi later) or a program linked
	 * with it, it is there to call MPI.
	 */
	if (ht_mpi_launcher_get(&l) != 0)
		return 1;
	if (resolve(cmd, path, sizeof path))
		return 0; /* exec will fail and say so */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = needs_mpi(fd);
	close(fd);
	return r != 0; /* not ELF: a script, whose programs may use MPI */
}
