/*
 * A program not linked with libhetrace, as most traced programs are: under
 * `hetrace record` it finds the annotation functions in the preloaded
 * recorder (dlsym), so it has events, and its exec calls carry glibc's
 * symbol version (execv@GLIBC_2.2.5), which only an unversioned interposer
 * matches.
 *   exec_prog exec N    N regions "before-exec", then execv itself as "after N"
 *   exec_prog after N   N regions "after-exec"
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void regions(const char *name, long n)
{
	void (*begin)(const char *) =
	    (void (*)(const char *))dlsym(RTLD_DEFAULT, "ht_region_begin_dyn");
	void (*end)(const char *) =
	    (void (*)(const char *))dlsym(RTLD_DEFAULT, "ht_region_end_dyn");

	for (long i = 0; i < n && begin && end; i++) {
		begin(name);
		end(name);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "exec")) {
		char *args[] = {argv[0], "after", argv[2], NULL};

		regions("before-exec", atol(argv[2]));
		execv("/proc/self/exe", args);
		perror("exec_prog: execv");
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "after")) {
		regions("after-exec", atol(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: exec_prog exec|after N\n");
	return 2;
}
