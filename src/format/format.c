/*
 * Event class tables: the field layout of every hetrace event, in order.
 * The TSDL generator and the reader walk these tables; the recorder's
 * emitters write the same layouts by hand for speed, and a unit test decodes
 * what they write through these tables to keep both in step.
 */
#include <string.h>

#include "format/format.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

const char *const ht_cmd_kind_names[HT_CMD_KIND_COUNT + 1] = {
    "kernel", "copy_h2d", "copy_d2h", "copy_d2d", "copy_h2h", "fill",  "map",
    "unmap",  "migrate",  "marker",   "barrier",  "sync",     "other", NULL,
};

static const char *const anchor_kinds[] = {"start", "exit", "periodic", "exec", NULL};
static const char *const lost_kinds[] = {"device_timestamp", "device_record", "os_record",
					 "no_stream", NULL};
static const char *const device_types[] = {"other", "cpu", "gpu", "accelerator", NULL};
static const char *const ts_domains[] = {"device", "host", NULL};

static const struct ht_field f_string_def[] = {{"id", HT_T_U32, 0}, {"value", HT_T_STR, 0}};
static const struct ht_field f_fn_def[] = {
    {"fn", HT_T_U16, 0}, {"name", HT_T_STR, 0}, {"args", HT_T_STR, 0}};
static const struct ht_field f_process_info[] = {
    {"pid", HT_T_I32, 0}, {"ppid", HT_T_I32, 0}, {"comm", HT_T_STR, 0}, {"cmdline", HT_T_STR, 0}};
static const struct ht_field f_thread_info[] = {{"tid", HT_T_I32, 0}, {"name", HT_T_STR, 0}};
static const struct ht_field f_clock_anchor[] = {
    {"kind", HT_T_ENUM8, anchor_kinds}, {"raw", HT_T_U64, 0}, {"ns", HT_T_U64, 0}};
static const struct ht_field f_api_begin[] = {{"fn", HT_T_FN, 0}};
static const struct ht_field f_api_end[] = {
    {"fn", HT_T_FN, 0}, {"ret", HT_T_I32, 0}, {"args", HT_T_FNARGS, 0}};
static const struct ht_field f_region[] = {{"name", HT_T_STRID, 0}};
static const struct ht_field f_instant[] = {{"name", HT_T_STRID, 0}, {"args", HT_T_IARGS, 0}};
static const struct ht_field f_counter[] = {{"name", HT_T_STRID, 0}, {"value", HT_T_I64, 0}};
static const struct ht_field f_counter_double[] = {{"name", HT_T_STRID, 0}, {"value", HT_T_F64, 0}};
static const struct ht_field f_device_info[] = {{"device", HT_T_U32, 0},
						{"type", HT_T_ENUM8, device_types},
						{"name", HT_T_STR, 0},
						{"vendor", HT_T_STR, 0}};
static const struct ht_field f_queue_info[] = {
    {"queue", HT_T_HEX64, 0}, {"device", HT_T_U32, 0}, {"flags", HT_T_U64, 0}};
static const struct ht_field f_lost[] = {{"kind", HT_T_ENUM8, lost_kinds}, {"count", HT_T_U64, 0}};
static const char *const cpu_states[] = {"running", "preempted", "blocked", NULL};
static const struct ht_field f_cpu_state[] = {{"tid", HT_T_I32, 0},
					      {"state", HT_T_ENUM8, cpu_states},
					      {"begin_ns", HT_T_U64, 0},
					      {"end_ns", HT_T_U64, 0},
					      {"cpu", HT_T_U32, 0}};
static const char *const os_status_kinds[] = {"off", "partial", "on", NULL};
static const struct ht_field f_os_status[] = {{"kind", HT_T_ENUM8, os_status_kinds},
					      {"error", HT_T_I32, 0},
					      {"paranoid", HT_T_I32, 0},
					      {"reason", HT_T_STR, 0}};

static const struct ht_event_class thread_classes[] = {
    {HT_EV_STRING_DEF, "string_def", f_string_def, N(f_string_def)},
    {HT_EV_FN_DEF, "fn_def", f_fn_def, N(f_fn_def)},
    {HT_EV_PROCESS_INFO, "process_info", f_process_info, N(f_process_info)},
    {HT_EV_THREAD_INFO, "thread_info", f_thread_info, N(f_thread_info)},
    {HT_EV_CLOCK_ANCHOR, "clock_anchor", f_clock_anchor, N(f_clock_anchor)},
    {HT_EV_API_BEGIN, "api_begin", f_api_begin, N(f_api_begin)},
    {HT_EV_API_END, "api_end", f_api_end, N(f_api_end)},
    {HT_EV_REGION_BEGIN, "region_begin", f_region, N(f_region)},
    {HT_EV_REGION_END, "region_end", f_region, N(f_region)},
    {HT_EV_INSTANT, "instant", f_instant, N(f_instant)},
    {HT_EV_COUNTER, "counter", f_counter, N(f_counter)},
    {HT_EV_COUNTER_DOUBLE, "counter_double", f_counter_double, N(f_counter_double)},
    {HT_EV_DEVICE_INFO, "device_info", f_device_info, N(f_device_info)},
    {HT_EV_QUEUE_INFO, "queue_info", f_queue_info, N(f_queue_info)},
    {HT_EV_LOST, "lost", f_lost, N(f_lost)},
    {HT_EV_CPU_STATE, "cpu_state", f_cpu_state, N(f_cpu_state)},
    {HT_EV_OS_STATUS, "os_status", f_os_status, N(f_os_status)},
};

static const struct ht_field f_device_command[] = {
    {"corr", HT_T_U64, 0},
    {"queue", HT_T_HEX64, 0},
    {"device", HT_T_U32, 0},
    {"kind", HT_T_ENUM8, ht_cmd_kind_names},
    {"cmd", HT_T_U32, 0},
    {"status", HT_T_I32, 0},
    {"ts_domain", HT_T_ENUM8, ts_domains},
    {"queued", HT_T_U64, 0},
    {"submit", HT_T_U64, 0},
    {"start", HT_T_U64, 0},
    {"end", HT_T_U64, 0},
    {"bytes", HT_T_U64, 0},
    {"name", HT_T_STRID, 0},
    {"global", HT_T_U64X3, 0},
    {"local", HT_T_U64X3, 0},
    {"host_before", HT_T_U64, 0},
};
static const char *const pair_kinds[] = {"exact", "host_before", "host_after", NULL};
static const struct ht_field f_clock_pair[] = {{"device", HT_T_U32, 0},
					       {"kind", HT_T_ENUM8, pair_kinds},
					       {"device_ts", HT_T_U64, 0},
					       {"host_ns", HT_T_U64, 0}};

static const struct ht_event_class device_classes[] = {
    {HT_EV_DEVICE_COMMAND, "device_command", f_device_command, N(f_device_command)},
    {HT_EV_CLOCK_PAIR, "clock_pair", f_clock_pair, N(f_clock_pair)},
};

const struct ht_event_class *ht_format_event_class(enum ht_stream_class sc, uint32_t id)
{
	if (sc == HT_SC_THREAD && id < N(thread_classes))
		return &thread_classes[id];
	if (sc == HT_SC_DEVICE && id < N(device_classes))
		return &device_classes[id];
	return NULL;
}

size_t ht_format_context_end(enum ht_stream_class sc)
{
	return sc == HT_SC_DEVICE ? HT_PC_DEVICE_END : HT_PC_THREAD_END;
}

const char *ht_format_stream_class_name(enum ht_stream_class sc)
{
	return sc == HT_SC_DEVICE ? "device" : "thread";
}

size_t ht_format_field_size(enum ht_ftype t)
{
	switch (t) {
	case HT_T_U8:
	case HT_T_ENUM8:
		return 1;
	case HT_T_U16:
	case HT_T_FN:
		return 2;
	case HT_T_U32:
	case HT_T_I32:
	case HT_T_STRID:
		return 4;
	case HT_T_U64:
	case HT_T_I64:
	case HT_T_F64:
	case HT_T_HEX64:
		return 8;
	case HT_T_U64X3:
		return 24;
	default:
		return 0;
	}
}

/* Payload size of an event class with only fixed-size fields, else 0. */
static size_t fixed_size(const struct ht_event_class *ec)
{
	size_t n = 0;

	for (unsigned int i = 0; i < ec->nfields; i++) {
		size_t f = ht_format_field_size(ec->fields[i].type);

		if (!f)
			return 0;
		n += f;
	}
	return n;
}

/*
 * Fixed payload sizes of the classes in the tables above (0 = variable),
 * computed once: most events skip the field walk.
 */
static size_t thread_fixed[N(thread_classes)], device_fixed[N(device_classes)];
static int fixed_ready;

static void compute_fixed(void)
{
	for (size_t i = 0; i < N(thread_classes); i++)
		thread_fixed[i] = fixed_size(&thread_classes[i]);
	for (size_t i = 0; i < N(device_classes); i++)
		device_fixed[i] = fixed_size(&device_classes[i]);
	__atomic_store_n(&fixed_ready, 1, __ATOMIC_RELEASE);
}

long ht_format_payload_size(const struct ht_event_class *ec, const uint8_t *p, size_t avail)
{
	size_t off = 0, fixed = 0;

	if (!__atomic_load_n(&fixed_ready, __ATOMIC_ACQUIRE))
		compute_fixed(); /* idempotent: a race computes the same values twice */
	if (ec >= thread_classes && ec < thread_classes + N(thread_classes))
		fixed = thread_fixed[ec - thread_classes];
	else if (ec >= device_classes && ec < device_classes + N(device_classes))
		fixed = device_fixed[ec - device_classes];
	if (fixed)
		return fixed <= avail ? (long)fixed : -1;
	for (unsigned int i = 0; i < ec->nfields; i++) {
		enum ht_ftype t = ec->fields[i].type;
		size_t fsz = ht_format_field_size(t);
		const uint8_t *nul;

		if (fsz) {
			off += fsz;
		} else if (t == HT_T_STR) {
			if (off >= avail)
				return -1;
			nul = memchr(p + off, '\0', avail - off);
			if (!nul)
				return -1;
			off = (size_t)(nul - p) + 1;
		} else if (t == HT_T_FNARGS || t == HT_T_IARGS) {
			if (off >= avail)
				return -1;
			unsigned int n = p[off];

			if (n > (t == HT_T_FNARGS ? HT_FNARGS_MAX : HT_IARGS_MAX))
				return -1;
			off += 1 + (size_t)n * (t == HT_T_FNARGS ? 8 : HT_IARG_SIZE);
		}
		if (off > avail)
			return -1;
	}
	return (long)off;
}
