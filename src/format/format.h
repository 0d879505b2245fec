/*
 * The one description of hetrace's on-disk records (CTF 1.8), shared by the
 * recorder (which writes them), the metadata generator (which describes them
 * in TSDL for babeltrace2 and Trace Compass) and the reader (which decodes
 * them). Everything is little-endian and byte-aligned, like LTTng-UST.
 *
 * A stream file is a sequence of whole packets:
 *   [packet header 32 B][packet context][event]...[zero padding]
 * An event is [event header][payload]. The event header is LTTng's compact
 * form: one u32 holding a 5-bit id and the low 27 bits of the timestamp, or
 * id 31 followed by a full u32 id and u64 timestamp.
 */
#ifndef HT_FORMAT_H
#define HT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define HT_CTF_MAGIC   0xC1FC1FC1u
#define HT_TRACER_NAME "hetrace"

/* Stream classes (CTF stream ids). */
enum ht_stream_class {
	HT_SC_THREAD = 0, /* one per thread, plus the process stream */
	HT_SC_DEVICE = 1, /* one per device queue */
	HT_SC_COUNT
};

/* Packet header and context offsets, in bytes. */
#define HT_PH_MAGIC	 0
#define HT_PH_UUID	 4
#define HT_PH_STREAM_ID	 20
#define HT_PH_INSTANCE	 24
#define HT_PC_TS_BEGIN	 32
#define HT_PC_TS_END	 40
#define HT_PC_CONTENT	 48 /* bits */
#define HT_PC_PACKET	 56 /* bits */
#define HT_PC_SEQ	 64
#define HT_PC_DISCARDED	 72 /* running total per stream, from 0 */
#define HT_PC_CPU	 80
#define HT_PC_VPID	 84
#define HT_PC_VTID	 88
#define HT_PC_PROCNAME	 92 /* char[17] */
#define HT_PC_TSC_BEGIN	 109
#define HT_PC_TSC_END	 117 /* 0 while the packet is open */
#define HT_PC_TS_STATE	 125
#define HT_PC_THREAD_END 126 /* end of the thread-stream packet context */
#define HT_PC_DEVICE	 126 /* u32, device streams only */
#define HT_PC_QUEUE	 130 /* u64, device streams only */
#define HT_PC_DEVICE_END 138

#define HT_PROCNAME_LEN 17

/* The packet in progress of stream NAME lives in ".NAME.cur" (see core/stream.h). */
#define HT_CUR_PREFIX "."
#define HT_CUR_SUFFIX ".cur"

/*
 * ts_state: how the event timestamps of a packet are expressed.
 * RAW packets hold raw cycle-counter values (event headers and tsc_*);
 * timestamp_begin/end hold CLOCK_MONOTONIC ns anchors taken at open/close.
 * `hetrace record` (or `hetrace check --repair`) converts them to NS before
 * anything else reads the trace.
 */
enum ht_ts_state {
	HT_TS_RAW = 0,
	HT_TS_NS = 1,
};

#define HT_EH_COMPACT_BITS  27
#define HT_EH_COMPACT_MASK  ((1u << HT_EH_COMPACT_BITS) - 1)
#define HT_EH_EXTENDED	    31u
#define HT_EH_COMPACT_SIZE  4
#define HT_EH_EXTENDED_SIZE 13 /* 5-bit id 31 + 3 pad bits, u32 id, u64 timestamp */
#define HT_EH_MAX_SIZE	    HT_EH_EXTENDED_SIZE

/* Event classes of the thread stream class. Ids below 31 use the compact header. */
enum ht_thread_event {
	HT_EV_STRING_DEF = 0,
	HT_EV_FN_DEF = 1,
	HT_EV_PROCESS_INFO = 2,
	HT_EV_THREAD_INFO = 3,
	HT_EV_CLOCK_ANCHOR = 4,
	HT_EV_API_BEGIN = 5,
	HT_EV_API_END = 6,
	HT_EV_REGION_BEGIN = 7,
	HT_EV_REGION_END = 8,
	HT_EV_INSTANT = 9,
	HT_EV_COUNTER = 10,
	HT_EV_COUNTER_DOUBLE = 11,
	HT_EV_DEVICE_INFO = 12,
	HT_EV_QUEUE_INFO = 13,
	HT_EV_LOST = 14,
	HT_EV_CPU_STATE = 15, /* OS scheduling: an interval of a thread's CPU state (see below) */
	HT_EV_OS_STATUS = 16, /* process stream: why OS recording is off or partial */
	HT_EV_THREAD_COUNT
};

/* Event classes of the device stream class. */
enum ht_device_event { HT_EV_DEVICE_COMMAND = 0, HT_EV_CLOCK_PAIR = 1, HT_EV_DEVICE_COUNT };

/* Field types. All integers little-endian, byte-aligned. */
enum ht_ftype {
	HT_T_U8,
	HT_T_U16,
	HT_T_U32,
	HT_T_U64,
	HT_T_I32,
	HT_T_I64,
	HT_T_F64,
	HT_T_HEX64,  /* u64 shown in hex (handles, addresses) */
	HT_T_STR,    /* NUL-terminated UTF-8 */
	HT_T_STRID,  /* u32 id of a string_def in the same process */
	HT_T_FN,     /* u16 function id (enum of all registered functions) */
	HT_T_FNARGS, /* u8 n, then n x 8-byte values named by the function's table */
	HT_T_IARGS,  /* u8 n, then n x { u32 key strid; u8 type; 8-byte value } */
	HT_T_U64X3,  /* three u64 (work sizes) */
	HT_T_ENUM8,  /* u8 with a named mapping (see ht_field.labels) */
};

struct ht_field {
	const char *name;
	enum ht_ftype type;
	const char *const *labels; /* HT_T_ENUM8: NULL-terminated labels for 0..n-1 */
};

struct ht_event_class {
	uint32_t id;
	const char *name; /* without the "hetrace:" prefix */
	const struct ht_field *fields;
	unsigned int nfields;
};

/* Instant argument value types (HT_T_IARGS). */
enum ht_arg_type {
	HT_ARG_INT = 0,
	HT_ARG_UINT = 1,
	HT_ARG_DOUBLE = 2,
	HT_ARG_STRING = 3, /* strid */
};

#define HT_IARG_SIZE  13 /* u32 key + u8 type + 8-byte value */
#define HT_FNARGS_MAX 12
#define HT_IARGS_MAX  8

/* clock_anchor kinds */
enum ht_anchor_kind {
	HT_ANCHOR_START = 0,
	HT_ANCHOR_EXIT = 1,
	HT_ANCHOR_PERIODIC = 2,
	HT_ANCHOR_EXEC = 3, /* the image is replaced by exec (the pid goes on in a new directory) */
};

/* lost event kinds (HT_EV_LOST) */
enum ht_lost_kind {
	HT_LOST_DEVICE_TIMESTAMP = 0, /* device record without usable timestamps */
	HT_LOST_DEVICE_RECORD = 1,    /* device records dropped by the vendor layer */
	HT_LOST_OS_RECORD = 2,	      /* perf records lost by the kernel */
	HT_LOST_NO_STREAM = 3,	      /* events of threads that could get no stream */
};

/*
 * cpu_state states. A thread is RUNNING from a switch-in to the next
 * switch-out, PREEMPTED from a switch-out while still runnable to the next
 * switch-in (waiting for a CPU), BLOCKED from a switch-out while sleeping
 * (I/O, futex, poll...) to the next switch-in. The event is stamped when
 * the recorder collected it; begin_ns/end_ns (CLOCK_MONOTONIC) say when.
 */
enum ht_cpu_state {
	HT_CPU_RUNNING = 0,
	HT_CPU_PREEMPTED = 1,
	HT_CPU_BLOCKED = 2,
	HT_CPU_STATE_COUNT
};

/* os_status kinds: OS recording is off for the whole process, or for some threads. */
enum ht_os_status_kind {
	HT_OS_OFF = 0,
	HT_OS_PARTIAL = 1,
	HT_OS_ON = 2, /* recording: the process has CPU-state records */
};

/* device_command kinds (common across vendors) */
enum ht_cmd_kind {
	HT_CMD_KERNEL = 0,
	HT_CMD_COPY_H2D,
	HT_CMD_COPY_D2H,
	HT_CMD_COPY_D2D,
	HT_CMD_COPY_H2H,
	HT_CMD_FILL,
	HT_CMD_MAP,
	HT_CMD_UNMAP,
	HT_CMD_MIGRATE,
	HT_CMD_MARKER,
	HT_CMD_BARRIER,
	HT_CMD_SYNC,
	HT_CMD_OTHER,
	HT_CMD_KIND_COUNT
};

/* device_command ts_domain */
enum ht_ts_domain {
	HT_DOM_DEVICE = 0, /* the device's own clock: needs clock sync */
	HT_DOM_HOST = 1,   /* already CLOCK_MONOTONIC ns */
};

/*
 * clock_pair kinds: how a host time relates to the device time it is paired
 * with. EXACT: read together (e.g. clGetDeviceAndHostTimer). HOST_BEFORE:
 * the host time precedes the device event (enqueue time vs QUEUED).
 * HOST_AFTER: it follows it (completion seen vs END). A device_command
 * carries its own pair of bounds instead (see HT_DC_HOST_BEFORE).
 */
enum ht_pair_kind {
	HT_PAIR_EXACT = 0,
	HT_PAIR_HOST_BEFORE = 1,
	HT_PAIR_HOST_AFTER = 2,
};

/*
 * device_command payload: offsets of the fields the readers use, and its size.
 * host_before, when not 0, is a host time read before the enqueue: with
 * QUEUED it bounds the device clock from below (host_before <= queued), and
 * END with the event's own time bounds it from above (completion was seen
 * before the command was written). In RAW packets it is a raw counter value
 * like the timestamps; finalizing converts it (rounded down: it stays a bound).
 */
#define HT_DC_QUEUED	  30
#define HT_DC_END	  54
#define HT_DC_HOST_BEFORE 122
#define HT_DC_SIZE	  130

/* device types (device_info) */
enum ht_device_type {
	HT_DEV_OTHER = 0,
	HT_DEV_CPU = 1,
	HT_DEV_GPU = 2,
	HT_DEV_ACCEL = 3,
};

extern const char *const ht_cmd_kind_names[HT_CMD_KIND_COUNT + 1];

/* Return: the event class description, or NULL for an unknown id. */
const struct ht_event_class *ht_format_event_class(enum ht_stream_class sc, uint32_t id);
/* Return: the packet context size (header included) of a stream class. */
size_t ht_format_context_end(enum ht_stream_class sc);
/* Return: a short name of the stream class ("thread", "device"). */
const char *ht_format_stream_class_name(enum ht_stream_class sc);

/* Little-endian accessors (the hot path uses memcpy on x86 directly). */
static inline uint64_t ht_le64(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline uint32_t ht_le32(const void *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline uint16_t ht_le16(const void *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return v;
}
static inline void ht_put64(void *p, uint64_t v)
{
	__builtin_memcpy(p, &v, 8);
}
static inline void ht_put32(void *p, uint32_t v)
{
	__builtin_memcpy(p, &v, 4);
}
static inline void ht_put16(void *p, uint16_t v)
{
	__builtin_memcpy(p, &v, 2);
}

/*
 * Size of an event payload of class `ec` starting at p with `avail` bytes
 * available. Return: the size, or -1 when the payload runs past avail or is
 * malformed (unterminated string, too many arguments).
 */
long ht_format_payload_size(const struct ht_event_class *ec, const uint8_t *p, size_t avail);
/* Size in bytes of a fixed-size field type, 0 for variable-size ones. */
size_t ht_format_field_size(enum ht_ftype t);

#endif
