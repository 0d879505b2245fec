/*
 * A stand-in libcupti for cuda_inject_nogpu: reports the version in
 * $FAKE_CUPTI_VERSION and fails cuptiSubscribe with $FAKE_CUPTI_SUBSCRIBE,
 * so the injection library's refusal paths (other version, subscriber slot
 * taken) can be exercised without a GPU. With FAKE_CUPTI_OK=1 every call
 * succeeds and fake_cupti_fire() runs the subscriber's callback as CUPTI
 * would around an API call (cuda_profiler_range).
 */
#include <stdlib.h>

#include <cupti.h>

#define EXPORT __attribute__((visibility("default")))

static unsigned long env(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
	*version = (uint32_t)env("FAKE_CUPTI_VERSION", CUPTI_API_VERSION);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	*s = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
		 ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
		 : "CUPTI_ERROR_UNKNOWN";
	return CUPTI_SUCCESS;
}

static CUpti_CallbackFunc subscriber;
static void *subscriber_data;

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
	CUptiResult r = (CUptiResult)env("FAKE_CUPTI_SUBSCRIBE", CUPTI_SUCCESS);

	*s = NULL;
	if (r == CUPTI_SUCCESS) {
		subscriber = cb;
		subscriber_data = ud;
	}
	return r;
}

/* Runs the subscriber for API function cbid of domain, entering then leaving it. */
EXPORT int fake_cupti_fire(int domain, unsigned int cbid, const char *name)
{
	static uint64_t corr;
	int ret = 0;
	CUpti_CallbackData d = {
	    .functionName = name, .correlationId = (uint32_t)++corr, .functionReturnValue = &ret};

	if (!subscriber)
		return -1;
	d.callbackSite = CUPTI_API_ENTER;
	subscriber(subscriber_data, (CUpti_CallbackDomain)domain, cbid, &d);
	d.callbackSite = CUPTI_API_EXIT;
	subscriber(subscriber_data, (CUpti_CallbackDomain)domain, cbid, &d);
	return 0;
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud,
				     CUpti_SubscriberParams *p)
{
	if (p && p->oldSubscriberName && p->oldSubscriberSize > 12)
		__builtin_strcpy(p->oldSubscriberName, "Nsight Test");
	return cuptiSubscribe(s, cb, ud);
}

#define STUB(name, params)                                                                         \
	EXPORT CUptiResult name params                                                             \
	{                                                                                          \
		return env("FAKE_CUPTI_OK", 0) ? CUPTI_SUCCESS : CUPTI_ERROR_NOT_INITIALIZED;      \
	}

STUB(cuptiEnableDomain, (uint32_t e, CUpti_SubscriberHandle s, CUpti_CallbackDomain d))
STUB(cuptiActivityRegisterCallbacks,
     (CUpti_BuffersCallbackRequestFunc a, CUpti_BuffersCallbackCompleteFunc b))
STUB(cuptiActivityRegisterTimestampCallback, (CUpti_TimestampCallbackFunc f))
STUB(cuptiActivityEnable, (CUpti_ActivityKind k))
STUB(cuptiActivityGetNextRecord, (uint8_t * b, size_t n, CUpti_Activity **r))
STUB(cuptiActivityGetNumDroppedRecords, (CUcontext c, uint32_t s, size_t *n))
STUB(cuptiActivityFlushAll, (uint32_t f))
STUB(cuptiActivityFlushPeriod, (uint32_t ms))
STUB(cuptiActivityEnableLatencyTimestamps, (uint8_t e))
STUB(cuptiGetContextId, (CUcontext c, uint32_t *id))
STUB(cuptiGetDeviceId, (CUcontext c, uint32_t *id))
STUB(cuptiUnsubscribe, (CUpti_SubscriberHandle s))
