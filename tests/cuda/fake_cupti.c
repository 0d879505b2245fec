/*
 * A stand-in libcupti for cuda_inject_nogpu: reports the version in
 * $FAKE_CUPTI_VERSION and fails cuptiSubscribe with $FAKE_CUPTI_SUBSCRIBE,
 * so the injection library's refusal paths (other version, subscriber slot
 * taken) can be exercised without a GPU.
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

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *s, CUpti_CallbackFunc cb, void *ud)
{
	(void)cb;
	(void)ud;
	*s = NULL;
	return (CUptiResult)env("FAKE_CUPTI_SUBSCRIBE", CUPTI_SUCCESS);
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
		return CUPTI_ERROR_NOT_INITIALIZED;                                                \
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
