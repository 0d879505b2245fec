/*
 * State shared by the parts of the CUDA injection library: the CUPTI
 * functions, the translator, and whether collection is on in this process.
 */
#ifndef HT_CUDA_INJECT_H
#define HT_CUDA_INJECT_H

#include <cupti.h>

#include "cuda/cupti_lib.h"
#include "cuda/translate.h"

struct ht_cuda_state {
	struct ht_cupti cupti;
	struct ht_cuda_xlate *xlate;
	CUpti_SubscriberHandle sub;
	int active;	    /* CUPTI collects for this process (cleared in a forked child) */
	int used;	    /* an API callback has been seen */
	int profiler_range; /* --capture-range=cudaProfilerApi (HETRACE_CAPTURE) */
};

extern struct ht_cuda_state ht_cuda;

/*
 * Whether this process records, now or later: recording, watching for a
 * region, or under a capture range that a call may open later. CUPTI and
 * NVTX attach once, at their first use, so they must attach then.
 */
int ht_cuda_may_record(void);

/* The CUPTI subscriber callback (callbacks.c). */
void CUPTIAPI ht_cuda_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			       const void *data);

/* Derives what each API callback must do from the function tables (once, before subscribing). */
void ht_cuda_callbacks_setup(void);
/* The correlation id of the outermost API call open on this thread (0: none yet). */
uint64_t ht_cuda_current_corr(void);

/* Hands every buffer CUPTI holds to the translator (FORCED: also incomplete ones). */
void ht_cuda_flush(int forced);

/* Emits the lost counts gathered by the translator on the calling (application) thread. */
void ht_cuda_emit_lost(void);

#endif
