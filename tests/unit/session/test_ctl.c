/*
 * Unit tests of the session control page files (src/session/ctl.c) and of
 * reading settings from a page (core/config.c): what a candidate program
 * trusts, and what it refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "core/config.h"
#include "session/ctl.h"

static void test_names(void)
{
	CHECK(ht_ctl_name_valid("default"));
	CHECK(ht_ctl_name_valid("web-1_a.b"));
	CHECK(!ht_ctl_name_valid(""));
	CHECK(!ht_ctl_name_valid(".hidden"));
	CHECK(!ht_ctl_name_valid("a/b"));
	CHECK(!ht_ctl_name_valid("../x"));
	CHECK(!ht_ctl_name_valid("sp ace"));
	CHECK(
	    !ht_ctl_name_valid("0123456789012345678901234567890123456789012345678901234567890123"));
}

static void test_dir(const char *base)
{
	char dir[512], link[512], open_dir[512];

	snprintf(dir, sizeof dir, "%s/ctl", base);
	CHECK_EQ(ht_ctl_dir_check(dir, 0), -ENOENT);
	CHECK_EQ(ht_ctl_dir_check(dir, 1), 0);
	CHECK_EQ(ht_ctl_dir_check(dir, 0), 0);
	/* a symlink to it, or a directory others may enter, is refused */
	snprintf(link, sizeof link, "%s/link", base);
	CHECK_EQ(symlink(dir, link), 0);
	CHECK_EQ(ht_ctl_dir_check(link, 0), -EPERM);
	snprintf(open_dir, sizeof open_dir, "%s/open", base);
	CHECK_EQ(mkdir(open_dir, 0755), 0);
	CHECK_EQ(ht_ctl_dir_check(open_dir, 1), -EPERM);

	setenv("HETRACE_SESSION_DIR", dir, 1);
	CHECK_EQ(ht_ctl_dir(link, sizeof link), 0);
	CHECK_STR(link, dir);
	CHECK_EQ(ht_ctl_dir(link, 4), -ENAMETOOLONG);
}

static void test_page(const char *base)
{
	char path[512], bad[512], env[HT_CTL_ENV_MAX], dir[HT_CTL_DIR_MAX];
	struct ht_ctl_page *p;
	struct ht_config c;
	struct stat st;
	int fd;

	snprintf(path, sizeof path, "%s/ctl/s.ctl", base);
	CHECK_EQ(ht_ctl_open(path, 0), -ENOENT);
	fd = ht_ctl_open(path, 1);
	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_size, HT_CTL_SIZE);
	CHECK_EQ(st.st_mode & 0777, 0600);
	p = ht_ctl_map(fd);
	CHECK(p != NULL);
	close(fd);
	if (!p)
		return;
	/* opened again: the same page */
	fd = ht_ctl_open(path, 1);
	CHECK(fd >= 0);
	close(fd);

	/* a file of the wrong size, or open to others, is not a page */
	snprintf(bad, sizeof bad, "%s/ctl/short.ctl", base);
	fd = open(bad, O_RDWR | O_CREAT, 0600);
	CHECK_EQ(ftruncate(fd, 100), 0);
	close(fd);
	CHECK_EQ(ht_ctl_open(bad, 1), -EBADMSG);
	CHECK_EQ(chmod(path, 0644), 0);
	CHECK_EQ(ht_ctl_open(path, 0), -EPERM);
	CHECK_EQ(chmod(path, 0600), 0);

	/* settings as the daemon writes them, read back as the recorder does */
	p->gen = 7;
	strcpy(p->dir, "/trace/dir");
	memcpy(p->env, "HETRACE_MODE=block\0HETRACE_CLOCK=monotonic\0HETRACE_CAPTURE=region:step\0",
	       72);
	CHECK_EQ(ht_ctl_read_env(p, 6, env, dir), -EAGAIN); /* rewritten meanwhile */
	CHECK_EQ(ht_ctl_read_env(p, 7, env, dir), 0);
	CHECK_STR(dir, "/trace/dir");
	setenv("HETRACE_MODE", "discard", 1); /* the block wins over the environment */
	ht_config_load_block(&c, env);
	CHECK_EQ(c.block, 1);
	CHECK_EQ(c.use_tsc, 0);
	CHECK_STR(c.capture_region, "step");
	CHECK(c.dir == NULL);
	unsetenv("HETRACE_MODE");
	munmap(p, HT_CTL_SIZE);
}

int main(void)
{
	char base[] = "/tmp/ht-unit-ctl.XXXXXX";
	char cmd[600];

	if (!mkdtemp(base))
		return 1;
	test_names();
	test_dir(base);
	test_page(base);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", base);
	CHECK_DONE();
}
