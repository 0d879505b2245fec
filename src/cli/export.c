/*
 * hetrace export DIR --format perfetto|chrome|otf2|ctf|sqlite|collapsed -o OUT, and
 * hetrace view DIR -o timeline.html. Output goes to a temporary name next to
 * OUT and is renamed into place only when complete: an error never leaves
 * half a file (or directory) under OUT. Everything it creates is 0600 (0700
 * for directories), as the trace is.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "export/export.h"
#include "export/sqlite.h"

enum what { PERFETTO, CHROME, OTF2, CTF, SQLITE, COLLAPSED, HTML };

static int is_dir_format(enum what w)
{
	return w == OTF2 || w == CTF;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Removes an output directory tree, never following symlinks. */
static void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int run(enum what w, const char *sub, const char *dir, const char *out, int force)
{
	struct ht_trace *t;
	struct ht_read_error err = {0};
	char tmp[4200];
	struct stat st;
	mode_t old_mask;
	int rc;

	if (!lstat(out, &st) && !force)
		return ht_error("'%s' exists; use --force to replace it, or choose another -o",
				out);
	rc = ht_trace_open(&t, dir, &err);
	if (rc)
		return ht_error("cannot open trace '%s': %s%s%s", dir,
				strcmp(err.file, dir) ? err.file : "",
				strcmp(err.file, dir) ? ": " : "", err.msg);
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", out, (int)getpid());
	/*
	 * Like the trace, only its owner may read what is made of it: 0600 files,
	 * 0700 directories, whoever creates them (libotf2 asks for 0666).
	 */
	old_mask = umask(077);
	if (is_dir_format(w)) {
		if (mkdir(tmp, 0700)) {
			rc = ht_error("cannot create '%s': %s", tmp, strerror(errno));
			goto out;
		}
		rc = w == OTF2 ? ht_export_otf2(t, tmp, &err) : ht_export_ctf(t, tmp, &err);
	} else if (w == SQLITE) { /* SQLite opens the (new, empty) file itself */
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd < 0) {
			rc = ht_error("cannot create '%s': %s", tmp, strerror(errno));
			goto out;
		}
		close(fd);
		rc = ht_export_sqlite(t, tmp, &err);
	} else {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

		if (!f) {
			rc = ht_error("cannot create '%s': %s", tmp, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
		rc = w == PERFETTO    ? ht_export_perfetto(t, f, &err)
		     : w == CHROME    ? ht_export_chrome(t, f, &err)
		     : w == COLLAPSED ? ht_export_collapsed(t, f, &err)
				      : ht_view_html(t, f, &err);
		if (fflush(f) || ferror(f)) {
			if (!rc) {
				rc = -EIO;
				snprintf(err.file, sizeof err.file, "%s", out);
				err.offset = HT_NO_OFFSET;
				snprintf(err.msg, sizeof err.msg, "write error: %s",
					 strerror(errno));
			}
		}
		fclose(f);
	}
	if (rc) {
		if (err.msg[0])
			ht_read_error_print(dir, &err);
		else
			ht_error("%s failed: %s", sub, strerror(-rc));
		rc = 1;
		if (is_dir_format(w))
			remove_tree(tmp);
		else
			unlink(tmp);
		goto out;
	}
	if (force && !lstat(out, &st) && S_ISDIR(st.st_mode))
		remove_tree(out);
	if (rename(tmp, out)) {
		rc = ht_error("cannot rename '%s' to '%s': %s", tmp, out, strerror(errno));
		if (is_dir_format(w))
			remove_tree(tmp);
		else
			unlink(tmp);
		goto out;
	}
	fprintf(stderr, "hetrace: wrote '%s'\n", out);
out:
	umask(old_mask);
	ht_trace_close(t);
	return rc;
}

static int parse(int argc, char **argv, const char *sub, int need_format, enum what *w,
		 const char **dir, const char **out, int *force)
{
	static const char *const names[] = {"perfetto", "chrome", "otf2", "ctf", "sqlite", "collapsed"};
	int have_format = !need_format;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			if (need_format)
				puts("usage: hetrace export DIR --format "
				     "perfetto|chrome|otf2|ctf|sqlite|collapsed -o OUT [--force]");
			else
				puts("usage: hetrace view DIR -o timeline.html [--force]");
			return -1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc)
				return ht_usage_error(sub, "-o needs a file name");
			*out = argv[++i];
		} else if (!strcmp(a, "--force") || !strcmp(a, "-f")) {
			*force = 1;
		} else if (need_format && !strcmp(a, "--format")) {
			const char *v = i + 1 < argc ? argv[++i] : "";
			unsigned int k;

			for (k = 0; k < sizeof names / sizeof names[0] && strcmp(v, names[k]); k++)
				;
			if (k == sizeof names / sizeof names[0])
				return ht_usage_error(sub,
						      "--format must be perfetto, chrome, otf2, "
						      "ctf, sqlite or collapsed, not '%s'",
						      v);
			*w = (enum what)k;
			have_format = 1;
		} else if (a[0] == '-') {
			return ht_usage_error(sub, "unknown option '%s'", a);
		} else if (*dir) {
			return ht_usage_error(sub, "expected one trace directory");
		} else {
			*dir = a;
		}
	}
	if (!*dir)
		return ht_usage_error(sub, "no trace directory given");
	if (!have_format)
		return ht_usage_error(sub, "--format is required (perfetto, chrome, otf2, ctf, sqlite "
					   "or collapsed)");
	if (!*out)
		return ht_usage_error(sub, "-o OUT is required");
	return 0;
}

int ht_cmd_export(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	enum what w = PERFETTO;
	int force = 0, rc = parse(argc, argv, "export", 1, &w, &dir, &out, &force);

	if (rc)
		return rc < 0 ? 0 : rc;
	return run(w, "export", dir, out, force);
}

int ht_cmd_view(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	enum what w = HTML;
	int force = 0, rc = parse(argc, argv, "view", 0, &w, &dir, &out, &force);

	if (rc)
		return rc < 0 ? 0 : rc;
	return run(w, "view", dir, out, force);
}
