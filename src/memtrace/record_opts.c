/*
 * `hetrace record --memory-access[=GLOB] [--memory-access-sample N]
 * [--memory-access-buffer SIZE]`: checked before anything starts, then
 * handed to the traced program as HETRACE_MEMTRACE* variables (read by the
 * collector, collector.c), with the path of the OpenCL C rewriter helper.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/config.h"
#include "memtrace/cli.h"
#include "memtrace/collector.h"

int ht_memtrace_options(const char *glob, const char *sample, const char *buffer)
{
	if (!glob && (sample || buffer))
		return ht_usage_error("record", "%s needs --memory-access",
				      sample ? "--memory-access-sample" : "--memory-access-buffer");
	if (sample) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(sample, &end, 10);
		if (errno || *end || !n || n > UINT32_MAX || *sample == '-')
			return ht_usage_error("record",
					      "--memory-access-sample must be a count from 1, not "
					      "'%s'",
					      sample);
	}
	if (buffer) {
		size_t sz;

		if (ht_parse_size(buffer, &sz) || sz < HT_MT_BUFFER_MIN || sz > (1ull << 32))
			return ht_usage_error(
			    "record",
			    "--memory-access-buffer must be a size from %uK to 4G, "
			    "not '%s'",
			    HT_MT_BUFFER_MIN >> 10, buffer);
	}
	return 0;
}

void ht_memtrace_setenv(const char *glob, const char *sample, const char *buffer,
			const char *libdir)
{
	char tool[PATH_MAX + 64], real[PATH_MAX];

	unsetenv("HETRACE_MEMTRACE_SAMPLE");
	unsetenv("HETRACE_MEMTRACE_BUFFER");
	if (!glob) {
		unsetenv("HETRACE_MEMTRACE");
		unsetenv("HETRACE_MEMTRACE_TOOL");
		return;
	}
	setenv("HETRACE_MEMTRACE", glob, 1);
	if (sample)
		setenv("HETRACE_MEMTRACE_SAMPLE", sample, 1);
	if (buffer)
		setenv("HETRACE_MEMTRACE_BUFFER", buffer, 1);
	/* the rewriter helper sits beside this command: <libdir>/../bin */
	snprintf(tool, sizeof tool, "%s/../bin/hetrace-cl-rewrite", libdir);
	if (realpath(tool, real) && !access(real, X_OK))
		setenv("HETRACE_MEMTRACE_TOOL", real, 1);
	else
		fprintf(stderr,
			"hetrace: the OpenCL C rewriter '%s' is missing: OpenCL kernels run "
			"untraced (rebuild hetrace with libclang-14-dev installed)\n",
			tool);
}
