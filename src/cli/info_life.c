/*
 * `hetrace info`'s lines on a process's life (analysis/lifetimes.h): when
 * it started and how long it lived, how it ended and who said so, and the
 * threads it started, with their names and lifetimes.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "analysis/escape.h"
#include "analysis/lifetimes.h"
#include "cli/cli.h"
#include "cli/info_life.h"

#define THREADS_SHOWN 16

void ht_info_life_print(const struct ht_life *l, int exited)
{
	char dur[32], name[64];

	printf("  life        ");
	if (l->start && l->end > l->start) {
		ht_fmt_duration(dur, sizeof dur, (double)(l->end - l->start));
		printf("lived %s, ", dur);
	}
	switch (l->how) {
	case HT_LIFE_EXIT:
		printf("exit status %d (said by %s)\n", l->code, l->source);
		break;
	case HT_LIFE_SIGNAL:
		printf("killed by signal %d (%s) (said by %s)\n", l->signal, strsignal(l->signal),
		       l->source);
		break;
	case HT_LIFE_EXEC:
		printf("replaced by exec\n");
		break;
	default:
		if (exited) /* its own exit record, and no parent of ours saw its status */
			printf("exited, status not known (only a waiting parent sees it: "
			       "hetrace record, not a session)\n");
		else
			printf("end not recorded (killed before exit, or its parent did not "
			       "wait)\n");
	}
	if (!l->nthreads)
		return;
	printf("  threads     %zu started:", l->nthreads);
	for (size_t i = 0; i < l->nthreads && i < THREADS_SHOWN; i++) {
		const struct ht_life_thread *th = &l->threads[i];

		if (th->start && th->end >= th->start)
			ht_fmt_duration(dur, sizeof dur, (double)(th->end - th->start));
		else
			snprintf(dur, sizeof dur, "%s", th->start ? "to the end" : "?");
		printf(" %d \"%s\" %s%s", th->tid, ht_term_sstr(name, sizeof name, th->name), dur,
		       i + 1 < l->nthreads ? "," : "");
	}
	if (l->nthreads > THREADS_SHOWN)
		printf(" ...");
	printf("\n");
}
