/*
 * The report's kernel_source_lines section (kernel_lines.h): per kernel its
 * hottest source lines with their text, share and stall reasons, then its
 * hottest instructions; csv rows; the json key the issue fixes:
 *   "kernel_source_lines": [{"kernel", "file", "line", "samples",
 *                            "stall_reasons": {"name": N, ...}}, ...]
 * (lines of the program source, 1-based). Nothing is printed for a trace
 * recorded without --pc-sampling (the json key is then an empty list).
 */
#include <stdio.h>

#include "analysis/escape.h"
#include "pcsamp/cli.h"

#define TEXT_LINES 10 /* hottest lines shown per kernel */
#define TEXT_INSNS 5

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void text_stalls(FILE *f, const struct ht_kl_line *l)
{
	for (size_t s = 0; s < l->nstalls && s < 3; s++)
		fprintf(f, "%s%s %.0f%%", s ? ", " : "  [", l->stalls[s].name,
			pct(l->stalls[s].samples, l->samples));
	if (l->nstalls)
		fprintf(f, "%s]", l->nstalls > 3 ? ", ..." : "");
}

static void text_kernel(FILE *f, const struct ht_kernel_lines *kl, uint32_t k, size_t *li,
			size_t *ii)
{
	const struct ht_kl_kernel *kk = &kl->kernels[k];
	int shown = 0;

	fprintf(f, "  kernel %s: %llu sample(s) in %llu of %llu launch(es)", kk->name,
		(unsigned long long)kk->samples, (unsigned long long)kk->launches_sampled,
		(unsigned long long)kk->launches);
	if (kk->outside)
		fprintf(f, ", %llu while only other kernels ran", (unsigned long long)kk->outside);
	fprintf(f, "; %s%s\n", kk->file[0] ? "source " : "", kk->file[0] ? kk->file : "no source");
	if (!kk->stalls_known)
		fprintf(f, "    stall reasons: not available on this device\n");
	fprintf(f, "    %6s %8s %6s  %s\n", "line", "samples", "share", "source");
	for (; *li < kl->nlines && kl->lines[*li].kernel == k; (*li)++) {
		const struct ht_kl_line *l = &kl->lines[*li];
		int len = 0;
		const char *src = ht_kl_source_line(kk->source, l->line, &len);

		if (shown++ >= TEXT_LINES)
			continue;
		while (src && len && (*src == ' ' || *src == '\t'))
			src++, len--;
		fprintf(f, "    %6d %8llu %5.1f%%  %.*s", l->line, (unsigned long long)l->samples,
			pct(l->samples, kk->samples), src ? (len > 72 ? 72 : len) : 0,
			src ? src : "");
		text_stalls(f, l);
		fprintf(f, "\n");
	}
	if (kk->no_line)
		fprintf(f, "    %6s %8llu %5.1f%%  (instructions without a line of the program)\n",
			"-", (unsigned long long)kk->no_line, pct(kk->no_line, kk->samples));
	shown = 0;
	for (; *ii < kl->ninsns && kl->insns[*ii].kernel == k; (*ii)++) {
		const struct ht_kl_insn *in = &kl->insns[*ii];

		if (shown++ >= TEXT_INSNS)
			continue;
		fprintf(f, "%s%s+0x%llx", shown == 1 ? "    hottest instructions: " : ", ",
			in->module, (unsigned long long)in->addr);
		if (in->line > 0)
			fprintf(f, " (line %d)", in->line);
		fprintf(f, " %llu", (unsigned long long)in->samples);
	}
	if (shown)
		fprintf(f, "\n");
}

void ht_kernel_lines_text(FILE *f, const struct ht_kernel_lines *kl)
{
	size_t li = 0, ii = 0;

	if (!kl->asked)
		return;
	fprintf(f, "\nKernel hot lines (device PC samples");
	if (kl->period)
		fprintf(f, " every %.3f ms", kl->period / 1e6);
	fprintf(f, ": %llu in all%s%s)\n", (unsigned long long)kl->samples,
		kl->method && kl->method[0] ? "; " : "", kl->method ? kl->method : "");
	for (uint32_t k = 0; k < kl->nkernels && kl->kernels[k].samples; k++)
		text_kernel(f, kl, k, &li, &ii);
	for (size_t i = 0; i < kl->nnotes; i++)
		fprintf(f, "  %s\n", kl->notes[i]);
}

void ht_kernel_lines_csv(FILE *f, const struct ht_kernel_lines *kl)
{
	if (!kl->asked)
		return;
	fprintf(f, "table,kernel,file,line,samples,stall_reasons\n");
	for (size_t i = 0; i < kl->nlines; i++) {
		const struct ht_kl_line *l = &kl->lines[i];

		fprintf(f, "kernel_source_line,");
		ht_csv_str(f, kl->kernels[l->kernel].name);
		fprintf(f, ",");
		ht_csv_str(f, l->file);
		fprintf(f, ",%d,%llu,", l->line, (unsigned long long)l->samples);
		for (size_t s = 0; s < l->nstalls; s++) {
			char v[320];

			snprintf(v, sizeof v, "%s=%llu", l->stalls[s].name,
				 (unsigned long long)l->stalls[s].samples);
			fprintf(f, "%s", s ? ";" : "");
			ht_csv_str(f, v);
		}
		fprintf(f, "\n");
	}
}

void ht_kernel_lines_json(FILE *f, const struct ht_kernel_lines *kl)
{
	fprintf(f, ",\"kernel_source_lines\":[");
	for (size_t i = 0; i < kl->nlines; i++) {
		const struct ht_kl_line *l = &kl->lines[i];

		fprintf(f, "%s{\"kernel\":", i ? "," : "");
		ht_json_str(f, kl->kernels[l->kernel].name);
		fprintf(f, ",\"file\":");
		ht_json_str(f, l->file);
		fprintf(f, ",\"line\":%d,\"samples\":%llu,\"stall_reasons\":{", l->line,
			(unsigned long long)l->samples);
		for (size_t s = 0; s < l->nstalls; s++) {
			fprintf(f, "%s", s ? "," : "");
			ht_json_str(f, l->stalls[s].name);
			fprintf(f, ":%llu", (unsigned long long)l->stalls[s].samples);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "]");
}
