/*
 * libcupti, loaded at run time: the CUPTI entry points the injection library
 * calls, resolved with dlsym from the one copy of libcupti this process
 * should use. Loading at run time turns "no libcupti", "another CUPTI
 * version" and "no such symbol" into one warning instead of a loader error.
 */
#ifndef HT_CUDA_CUPTI_LIB_H
#define HT_CUDA_CUPTI_LIB_H

#include <cupti.h>

/* X(name, return, params): every function we resolve. */
#define HT_CUPTI_FUNCTIONS(X)                                                                      \
	X(cuptiGetVersion, (uint32_t * version))                                                   \
	X(cuptiGetResultString, (CUptiResult result, const char **str))                            \
	X(cuptiSubscribe, (CUpti_SubscriberHandle * sub, CUpti_CallbackFunc cb, void *ud))         \
	X(cuptiEnableDomain,                                                                       \
	  (uint32_t enable, CUpti_SubscriberHandle sub, CUpti_CallbackDomain domain))              \
	X(cuptiActivityRegisterCallbacks,                                                          \
	  (CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done))          \
	X(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc fn))                \
	X(cuptiActivityEnable, (CUpti_ActivityKind kind))                                          \
	X(cuptiActivityGetNextRecord, (uint8_t * buf, size_t valid, CUpti_Activity * *rec))        \
	X(cuptiActivityGetNumDroppedRecords, (CUcontext ctx, uint32_t stream, size_t * n))         \
	X(cuptiActivityFlushAll, (uint32_t flag))                                                  \
	X(cuptiActivityFlushPeriod, (uint32_t ms))                                                 \
	X(cuptiActivityEnableLatencyTimestamps, (uint8_t enable))                                  \
	X(cuptiGetContextId, (CUcontext ctx, uint32_t * id))                                       \
	X(cuptiGetDeviceId, (CUcontext ctx, uint32_t * id))                                        \
	X(cuptiUnsubscribe, (CUpti_SubscriberHandle sub))

struct ht_cupti {
#define HT_CUPTI_PTR(name, params) CUptiResult(*name) params;
	HT_CUPTI_FUNCTIONS(HT_CUPTI_PTR)
#undef HT_CUPTI_PTR
	/* optional: tells who holds the one subscriber slot */
	CUptiResult (*cuptiSubscribe_v2)(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc cb,
					 void *ud, CUpti_SubscriberParams *params);
	uint32_t version; /* cuptiGetVersion() */
	char path[512];	  /* the file it came from */
};

/*
 * Loads libcupti: a copy already in the process (e.g. a framework's), else
 * $HETRACE_CUPTI_LIBRARY (only that one when set), else the library this
 * build was compiled against, else libcupti.so.N on the search path. Checks
 * that its major.minor version is the one whose record layouts we compiled.
 * Return: 0, or -1 with a one-line reason in why.
 */
int ht_cupti_load(struct ht_cupti *c, char *why, size_t whylen);

/* Return: CUPTI's name for r (never NULL). */
const char *ht_cupti_strerror(const struct ht_cupti *c, CUptiResult r);

#endif
