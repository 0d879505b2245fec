/*
 * Runs a command with perf_event_open refused (seccomp filter returning
 * EACCES), like a container or perf_event_paranoid 3 would: tests that
 * recording goes on without the OS source and says why. With --cpu-wide
 * only system-wide events (pid -1) are refused, as perf_event_paranoid >= 1
 * refuses them to a user without CAP_PERFMON: `hetrace record` then falls
 * back to the per-thread method, which such a user may use.
 *   os_deny [--cpu-wide] COMMAND [ARGS...]
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The low 32 bits of argument i (little-endian). */
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))

int main(int argc, char **argv)
{
	struct sock_filter all[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter cpu_wide[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 3),
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)), /* pid */
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	int only_cpu_wide = argc > 1 && !strcmp(argv[1], "--cpu-wide");
	struct sock_fprog prog = {sizeof all / sizeof all[0], all};

	if (only_cpu_wide) {
		prog = (struct sock_fprog){sizeof cpu_wide / sizeof cpu_wide[0], cpu_wide};
		argv++, argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: os_deny [--cpu-wide] COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("os_deny: seccomp");
		return 77;
	}
	execvp(argv[1], argv + 1);
	perror("os_deny: exec");
	return 127;
}
