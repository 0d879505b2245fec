/*
 * A subscriber for the end-to-end tests, built several times with a different
 * TEST_SUBSCRIBER_NAME (and, for the "nofini" variant, without xptiTraceFinish). It subscribes
 * to task_begin/task_end of every stream it is initialised for and appends one line per call
 * to the file named by XPTI_TEST_LOG: "<name> init <stream> <maj>.<min> <version>",
 * "<name> <begin|end> <uid> <instance>", "<name> finish <stream>".
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <xpti/xpti_trace_framework.h>

#ifndef TEST_SUBSCRIBER_NAME
#error TEST_SUBSCRIBER_NAME must be defined
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#include <stdarg.h>
static void log_line(const char *fmt, ...)
{
	const char *path = getenv("XPTI_TEST_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	pthread_mutex_lock(&lock);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%s ", TEST_SUBSCRIBER_NAME);
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fputc('\n', f);
		fclose(f);
	}
	pthread_mutex_unlock(&lock);
}

static void on_task(uint16_t tt, xpti_trace_event_data_t *parent, xpti_trace_event_data_t *ev,
		    uint64_t instance, const void *ud)
{
	(void)parent, (void)ud;
	log_line("%s %" PRIu64 " %" PRIu64, tt == XPTI_TRACE_TASK_BEGIN ? "begin" : "end",
		 ev ? ev->unique_id : 0, instance);
}

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major, unsigned int minor,
				     const char *version_str, const char *stream_name)
{
	uint8_t sid = xptiRegisterStream(stream_name);

	log_line("init %s %u.%u %s", stream_name, major, minor, version_str);
	xptiRegisterCallback(sid, XPTI_TRACE_TASK_BEGIN, on_task);
	xptiRegisterCallback(sid, XPTI_TRACE_TASK_END, on_task);
}

#ifndef TEST_SUBSCRIBER_NO_FINISH
XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name)
{
	log_line("finish %s", stream_name);
}
#endif
