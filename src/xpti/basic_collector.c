/*
 * The basic collector: a subscriber that prints every notification it receives, one line
 * each, to show what an instrumented program emits. Load it with
 *   XPTI_FRAMEWORK_DISPATCHER=.../libxptifw.so XPTI_SUBSCRIBERS=.../libxpti_basic_collector.so
 * It subscribes to every predefined trace point type of every stream it is initialised for.
 * Lines look like
 *   xpti: task_begin uid=3 instance=2 name=foo file=a.c:10 user_data=0x0 tid=1234
 * and go to stdout, or to the file named by XPTI_BASIC_COLLECTOR_OUTPUT.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <xpti/xpti_trace_framework.h>

static const struct {
	uint16_t type;
	const char *name;
} bc_types[] = {
    {XPTI_TRACE_GRAPH_CREATE, "graph_create"},
    {XPTI_TRACE_NODE_CREATE, "node_create"},
    {XPTI_TRACE_EDGE_CREATE, "edge_create"},
    {XPTI_TRACE_REGION_BEGIN, "region_begin"},
    {XPTI_TRACE_REGION_END, "region_end"},
    {XPTI_TRACE_TASK_BEGIN, "task_begin"},
    {XPTI_TRACE_TASK_END, "task_end"},
    {XPTI_TRACE_BARRIER_BEGIN, "barrier_begin"},
    {XPTI_TRACE_BARRIER_END, "barrier_end"},
    {XPTI_TRACE_LOCK_BEGIN, "lock_begin"},
    {XPTI_TRACE_LOCK_END, "lock_end"},
    {XPTI_TRACE_SIGNAL, "signal"},
    {XPTI_TRACE_TRANSFER_BEGIN, "transfer_begin"},
    {XPTI_TRACE_TRANSFER_END, "transfer_end"},
    {XPTI_TRACE_THREAD_BEGIN, "thread_begin"},
    {XPTI_TRACE_THREAD_END, "thread_end"},
    {XPTI_TRACE_WAIT_BEGIN, "wait_begin"},
    {XPTI_TRACE_WAIT_END, "wait_end"},
    {XPTI_TRACE_FUNCTION_BEGIN, "function_begin"},
    {XPTI_TRACE_FUNCTION_END, "function_end"},
    {XPTI_TRACE_METADATA, "metadata"},
    {XPTI_TRACE_FUNCTION_WITH_ARGS_BEGIN, "function_with_args_begin"},
    {XPTI_TRACE_FUNCTION_WITH_ARGS_END, "function_with_args_end"},
    {XPTI_TRACE_MEM_ALLOC_BEGIN, "mem_alloc_begin"},
    {XPTI_TRACE_MEM_ALLOC_END, "mem_alloc_end"},
    {XPTI_TRACE_MEM_RELEASE_BEGIN, "mem_release_begin"},
    {XPTI_TRACE_MEM_RELEASE_END, "mem_release_end"},
    {XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_CONSTRUCT, "offload_alloc_memory_object_construct"},
    {XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_DESTRUCT, "offload_alloc_memory_object_destruct"},
    {XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_ASSOCIATE, "offload_alloc_memory_object_associate"},
    {XPTI_TRACE_OFFLOAD_ALLOC_MEMORY_OBJECT_RELEASE, "offload_alloc_memory_object_release"},
    {XPTI_TRACE_OFFLOAD_ALLOC_ACCESSOR, "offload_alloc_accessor"},
    {XPTI_TRACE_QUEUE_CREATE, "queue_create"},
    {XPTI_TRACE_QUEUE_DESTROY, "queue_destroy"},
    {XPTI_TRACE_DIAGNOSTICS, "diagnostics"},
};

#define BC_NTYPES (sizeof(bc_types) / sizeof(bc_types[0]))

static pthread_mutex_t bc_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *bc_out;

static FILE *bc_file(void)
{
	const char *path;

	if (!bc_out) {
		path = getenv("XPTI_BASIC_COLLECTOR_OUTPUT");
		bc_out = path && path[0] ? fopen(path, "a") : NULL;
		if (!bc_out)
			bc_out = stdout;
	}
	return bc_out;
}

static const char *bc_type_name(uint16_t tt)
{
	for (size_t i = 0; i < BC_NTYPES; i++)
		if (bc_types[i].type == tt)
			return bc_types[i].name;
	return "user_defined";
}

static const char *bc_str(const char *s)
{
	return s ? s : "<none>";
}

static void bc_callback(uint16_t tt, xpti_trace_event_data_t *parent, xpti_trace_event_data_t *ev,
			uint64_t instance, const void *user_data)
{
	const xpti_payload_t *p = ev ? xptiQueryPayload(ev) : NULL;
	FILE *f;

	(void)parent;
	pthread_mutex_lock(&bc_lock);
	f = bc_file();
	fprintf(f, "xpti: %s uid=%" PRIu64 " instance=%" PRIu64, bc_type_name(tt),
		ev ? ev->unique_id : 0, instance);
	if (p)
		fprintf(f, " name=%s file=%s:%u", bc_str(p->name), bc_str(p->source_file),
			p->line_no);
	if (tt == XPTI_TRACE_FUNCTION_BEGIN || tt == XPTI_TRACE_FUNCTION_END)
		fprintf(f, " user_data=%s", bc_str(user_data));
	else
		fprintf(f, " user_data=%p", user_data);
	fprintf(f, " tid=%ld\n", (long)syscall(SYS_gettid));
	fflush(f);
	pthread_mutex_unlock(&bc_lock);
}

XPTI_CALLBACK_API void xptiTraceInit(unsigned int major, unsigned int minor,
				     const char *version_str, const char *stream_name)
{
	uint8_t sid;

	if (!stream_name)
		return;
	sid = xptiRegisterStream(stream_name);
	if (sid == XPTI_INVALID_STREAM_ID)
		return;
	pthread_mutex_lock(&bc_lock);
	fprintf(bc_file(), "xpti: init stream=%s version=%u.%u (%s)\n", stream_name, major, minor,
		bc_str(version_str));
	fflush(bc_file());
	pthread_mutex_unlock(&bc_lock);
	for (size_t i = 0; i < BC_NTYPES; i++)
		xptiRegisterCallback(sid, bc_types[i].type, bc_callback);
}

XPTI_CALLBACK_API void xptiTraceFinish(const char *stream_name)
{
	pthread_mutex_lock(&bc_lock);
	fprintf(bc_file(), "xpti: finish stream=%s\n", bc_str(stream_name));
	fflush(bc_file());
	pthread_mutex_unlock(&bc_lock);
}
