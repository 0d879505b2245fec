/*
 * The report's sections on calling contexts and CPU samples
 * (report_callpaths.c), printed to stdout in the report's three formats.
 */
#ifndef HT_REPORT_CALLPATHS_H
#define HT_REPORT_CALLPATHS_H

struct ht_callpaths;

void ht_report_callpaths_text(const struct ht_callpaths *cp);
void ht_report_callpaths_csv(const struct ht_callpaths *cp);
/* The keys "calling_contexts" and "cpu_samples", each preceded by a comma. */
void ht_report_callpaths_json(const struct ht_callpaths *cp);

#endif
