/*
 * Control page files (see ctl.h): where they live, and the checks both the
 * daemon and the candidate programs make before they trust one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/ctl.h"

int ht_ctl_dir(char *out, size_t cap)
{
	/* secure_getenv: a set-user-ID program does not take a directory from its caller */
	const char *v = secure_getenv("HETRACE_SESSION_DIR");
	int n;

	if (v && *v)
		n = snprintf(out, cap, "%s", v);
	else if ((v = secure_getenv("XDG_RUNTIME_DIR")) && *v == '/')
		n = snprintf(out, cap, "%s/hetrace", v);
	else
		n = snprintf(out, cap, "/tmp/hetrace-%u", (unsigned int)geteuid());
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

int ht_ctl_dir_check(const char *dir, int create)
{
	struct stat st;

	if (create && mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int ht_ctl_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n >= HT_CTL_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '_' || c == '.'))
			return 0;
	}
	return 1;
}

int ht_ctl_open(const char *path, int create)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0 && errno == ENOENT && create) {
		/* Sized before it gets its name: nobody maps a short file. */
		char tmp[4200];

		if ((size_t)snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid()) >=
		    sizeof tmp)
			return -ENAMETOOLONG;
		fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		if (ftruncate(fd, HT_CTL_SIZE) || link(tmp, path)) {
			r = -errno;
			unlink(tmp);
			close(fd);
			if (r != -EEXIST)
				return r;
			fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC); /* lost a race */
		} else {
			unlink(tmp);
		}
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		r = -errno;
		goto err;
	}
	r = -EPERM;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		goto err;
	r = -EBADMSG;
	if (st.st_size != HT_CTL_SIZE)
		goto err;
	return fd;
err:
	close(fd);
	return r;
}

struct ht_ctl_page *ht_ctl_map(int fd)
{
	void *m = mmap(NULL, HT_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return m == MAP_FAILED ? NULL : m;
}

int ht_ctl_read_env(const struct ht_ctl_page *p, uint32_t gen, char *env, char *dir)
{
	memcpy(env, p->env, HT_CTL_ENV_MAX);
	memcpy(dir, p->dir, HT_CTL_DIR_MAX);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&p->gen, __ATOMIC_RELAXED) != gen)
		return -EAGAIN;
	env[HT_CTL_ENV_MAX - 2] = '\0';
	env[HT_CTL_ENV_MAX - 1] = '\0';
	dir[HT_CTL_DIR_MAX - 1] = '\0';
	return 0;
}
