/*
 * The HTML view's kernel source lines (kernel_lines.h): what a clicked
 * kernel shows under its details, its source with a bar per line of the
 * samples there (or, for a program without a recorded source, its hottest
 * instructions' addresses). At most VIEW_INSNS instructions per kernel.
 */
#include <inttypes.h>

#include "analysis/escape.h"
#include "pcsamp/kernel_lines.h"

#define VIEW_INSNS 32

int ht_kernel_lines_view_json(FILE *f, struct ht_trace *t, uint32_t (*intern)(void *, const char *),
			      void *arg, struct ht_read_error *err)
{
	struct ht_kernel_lines kl;
	size_t li = 0, ii = 0;
	int rc = ht_kernel_lines_compute(t, &kl, err);

	if (rc < 0) {
		ht_kernel_lines_release(&kl);
		return rc;
	}
	fputs(",\"kernel_lines\":[", f);
	for (uint32_t k = 0; k < kl.nkernels && kl.kernels[k].samples; k++) {
		const struct ht_kl_kernel *kk = &kl.kernels[k];
		int n = 0;

		fprintf(f,
			"%s{\"pid\":%d,\"kernel\":%u,\"file\":%u,\"samples\":%" PRIu64
			",\"no_line\":%" PRIu64 ",\"stalls\":%d,\"source\":",
			k ? "," : "", kk->pid, intern(arg, kk->name), intern(arg, kk->file),
			kk->samples, kk->no_line, kk->stalls_known);
		if (kk->source)
			ht_json_str(f, kk->source);
		else
			fputs("null", f);
		fputs(",\"lines\":[", f);
		for (n = 0; li < kl.nlines && kl.lines[li].kernel == k; li++, n++)
			fprintf(f, "%s[%d,%" PRIu64 "]", n ? "," : "", kl.lines[li].line,
				kl.lines[li].samples);
		fputs("],\"insns\":[", f);
		for (n = 0; ii < kl.ninsns && kl.insns[ii].kernel == k; ii++, n++)
			if (n < VIEW_INSNS) {
				char at[300];

				snprintf(at, sizeof at, "%s+0x%" PRIx64, kl.insns[ii].module,
					 kl.insns[ii].addr);
				fprintf(f, "%s[", n ? "," : "");
				ht_json_str(f, at);
				fprintf(f, ",%d,%" PRIu64 "]", kl.insns[ii].line,
					kl.insns[ii].samples);
			}
		fputs("]}", f);
	}
	fputs("]", f);
	ht_kernel_lines_release(&kl);
	return 0;
}
