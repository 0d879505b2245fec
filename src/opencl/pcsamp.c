/*
 * Device PC sampling of OpenCL kernels (record --pc-sampling), the part in
 * the traced process. On PoCL's CPU devices a kernel is native code in a
 * shared object PoCL compiles and dlopens; `record` samples every thread of
 * the command with perf_event (src/sampling) and points PoCL's kernel cache
 * into the trace with -g added to every build (src/pcsamp/options.c), so
 * the objects stay, with line tables, where the analysis finds them. The
 * -g changes no code: the .text of a kernel object built with and without
 * it was byte-identical when measured (PoCL 3.1 / LLVM 15), and the tests
 * compare the program's output traced and untraced byte for byte.
 *
 * What this file adds is what the analysis cannot get elsewhere: the
 * program source text as the application passed it (the line table names
 * a temporary file PoCL deletes), the kernels each built program holds
 * (kernel name -> program), and once per process how its devices are
 * sampled, or why they are not (a device other than a PoCL CPU device has
 * no sampler here: said once on stderr and in the trace).
 *
 * Cost: one clGetProgramInfo per successful build, the text copied once
 * per program (2 KiB pieces); nothing per enqueue.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/session.h"
#include "opencl/interpose.h"
#include "opencl/pcsamp.h"

#define PIECE 2048 /* bytes of source per program_source event (the field holds 3000) */

static uint64_t period_ns; /* HETRACE_PC_SAMPLING: 0 off */
static int status_written;

__attribute__((constructor)) static void pcsamp_load(void)
{
	const char *v = getenv("HETRACE_PC_SAMPLING");

	if (v && *v)
		period_ns = strtoull(v, NULL, 10);
}

int ht_cl_pc_on(void)
{
	return period_ns && !HT_CL_OFF();
}

struct status_arg {
	int error;
	const char *method, *reason;
};

static int put_status(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct status_arg *a = arg;
	struct ht_ev_pc_sampling e = {
	    .period = period_ns, .method = a->method, .error = a->error, .reason = a->reason};

	(void)strs;
	HT_WRITE(proc, pc_sampling, &e);
	return 0;
}

/*
 * Says once how this process's kernels are sampled: by perf_event when the
 * program's device is a CPU device of PoCL, else not at all (ENOTSUP).
 */
static void note_device(cl_program p)
{
	cl_device_id dev = NULL;
	cl_platform_id plat = NULL;
	cl_device_type type = 0;
	char pname[128] = "", dname[128] = "", reason[256] = "";
	struct status_arg a = {0,
			       "perf_event samples of the threads that run PoCL's CPU-device "
			       "kernels, resolved in its kernel objects",
			       ""};

	if (__atomic_exchange_n(&status_written, 1, __ATOMIC_RELAXED))
		return;
	if (HT_CL_REAL(clGetProgramInfo)(p, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL) ||
	    HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL) ||
	    HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) ||
	    HT_CL_REAL(clGetDeviceInfo)(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL) ||
	    HT_CL_REAL(clGetPlatformInfo)(plat, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL))
		snprintf(reason, sizeof reason, "the program's device could not be queried");
	else if (!(type & CL_DEVICE_TYPE_CPU) || !strstr(pname, "Portable Computing Language"))
		snprintf(reason, sizeof reason,
			 "PC sampling of OpenCL kernels on '%s' (%s) is not supported: only "
			 "PoCL's CPU devices and CUDA GPUs are sampled",
			 dname, pname);
	if (reason[0]) {
		a.error = -ENOTSUP;
		a.method = "none";
		a.reason = reason;
		fprintf(stderr, "hetrace: no PC samples recorded: %s; the rest is recorded\n",
			reason);
	}
	ht_session_with_process(put_status, &a);
}

struct source_arg {
	cl_program p;
	cl_uint count;
	const char **strings;
	const size_t *lengths;
	uint32_t total;
};

static size_t piece_len(const struct source_arg *a, cl_uint i)
{
	return a->lengths && a->lengths[i] ? a->lengths[i] : strlen(a->strings[i]);
}

/* Bytes at the end of buf[0..n) that begin a UTF-8 character it does not complete. */
static size_t partial_char(const char *buf, size_t n)
{
	size_t j = n, need;
	unsigned char c;

	while (j > 0 && n - j < 4 && ((unsigned char)buf[j - 1] & 0xC0) == 0x80)
		j--;
	if (!j)
		return 0;
	c = (unsigned char)buf[j - 1];
	need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
	return n - (j - 1) < need ? n - (j - 1) : 0;
}

/* Writes the concatenated strings in pieces that end on a UTF-8 character boundary. */
static int put_source(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct source_arg *a = arg;
	char buf[PIECE + 1];
	size_t fill = 0;
	uint32_t off = 0;

	(void)strs;
	for (cl_uint i = 0; i <= a->count; i++) {
		const char *s = i < a->count ? a->strings[i] : NULL;
		size_t n = s ? piece_len(a, i) : 0;

		/* the last round (s NULL) writes what is left */
		while (n || (!s && fill)) {
			size_t take = n < PIECE - fill ? n : PIECE - fill, keep;
			struct ht_ev_program_source e = {
			    .program = (uintptr_t)a->p, .length = a->total, .text = buf};

			memcpy(buf + fill, s ? s : "", take);
			fill += take;
			n -= take;
			s = s ? s + take : NULL;
			if (s && fill < PIECE)
				break; /* the next string continues this piece */
			keep = s ? partial_char(buf, fill) : 0;
			if (keep == fill)
				keep = 0;
			e.offset = off;
			{
				char saved[4];

				memcpy(saved, buf + fill - keep, keep);
				buf[fill - keep] = '\0';
				HT_WRITE(proc, program_source, &e);
				memcpy(buf, saved, keep);
			}
			off += (uint32_t)(fill - keep);
			fill = keep;
		}
	}
	return 0;
}

void ht_cl_pc_program_source(cl_program p, cl_uint count, const char **strings,
			     const size_t *lengths)
{
	struct source_arg a = {p, count, strings, lengths, 0};
	uint64_t total = 0;

	if (!p || !strings || !ht_cl_pc_on())
		return;
	for (cl_uint i = 0; i < count; i++) {
		if (!strings[i])
			return; /* the runtime refused it (CL_INVALID_VALUE) */
		total += piece_len(&a, i);
	}
	if (total > UINT32_MAX)
		return;
	a.total = (uint32_t)total;
	ht_session_with_process(put_source, &a);
}

struct kernels_arg {
	cl_program p;
	const char *names;
};

static int put_kernels(struct ht_stream *proc, struct ht_strtab *strs, void *arg)
{
	const struct kernels_arg *a = arg;
	struct ht_ev_program_kernels e = {.program = (uintptr_t)a->p, .names = a->names};

	(void)strs;
	HT_WRITE(proc, program_kernels, &e);
	return 0;
}

void ht_cl_pc_program_built(cl_program p, cl_int ret)
{
	size_t len = 0;
	char *names;

	if (ret != CL_SUCCESS || !ht_cl_pc_on())
		return;
	note_device(p);
	if (HT_CL_REAL(clGetProgramInfo)(p, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &len) || !len ||
	    !(names = calloc(1, len + 1)))
		return;
	if (!HT_CL_REAL(clGetProgramInfo)(p, CL_PROGRAM_KERNEL_NAMES, len, names, NULL)) {
		struct kernels_arg a = {p, names};

		ht_session_with_process(put_kernels, &a);
	}
	free(names);
}
