/*
 * Exporters: a hetrace trace written in the formats other tools read. Each
 * reads the trace through the timeline (analysis/timeline.h), so device
 * commands are at their synced host times, and escapes every string that
 * comes from the trace. `hetrace export` / `hetrace view` write to a
 * temporary name and rename it into place, so an error never leaves half a
 * file under the name asked for.
 */
#ifndef HT_EXPORT_H
#define HT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"

/*
 * The latest time an output may hold: 2^62 ns, 146 years of
 * CLOCK_MONOTONIC. CTF readers add the clock's offset from the epoch (1.8e18
 * ns today) to every time and fail past INT64_MAX (babeltrace2 could not
 * read an export holding a CPU state that ended at 17654116122945497726 ns);
 * a later time is no clock reading. `hetrace check` calls such host times
 * invalid, and the exporters and the view leave out the records that hold
 * one (counted, one warning), so the two agree.
 */
#define HT_TIME_LIMIT_NS (1ull << 62)

/* Perfetto protobuf (a Trace message) to f. Return: 0, or < 0 with err filled. */
int ht_export_perfetto(struct ht_trace *t, FILE *f, struct ht_read_error *err);
/* Chrome trace-event JSON to f. */
int ht_export_chrome(struct ht_trace *t, FILE *f, struct ht_read_error *err);
/* OTF2 archive in the (new, empty) directory dir: dir/traces.otf2, ... */
int ht_export_otf2(struct ht_trace *t, const char *dir, struct ht_read_error *err);
/* CTF 1.8 in the (new, empty) directory dir, device commands at synced times. */
int ht_export_ctf(struct ht_trace *t, const char *dir, struct ht_read_error *err);
/* CPU samples as folded stacks ("process;frame;frame count", outermost first) to f. */
int ht_export_collapsed(struct ht_trace *t, FILE *f, struct ht_read_error *err);
/* One self-contained HTML timeline to f. */
int ht_view_html(struct ht_trace *t, FILE *f, struct ht_read_error *err);

#endif
