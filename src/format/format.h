/*
 * The one description of hetrace's on-disk records (CTF 1.8), shared by the
 * recorder (which writes them), the metadata generator (which describes them
 * in TSDL for babeltrace2 and Trace Compass) and the reader (which decodes
 * them). Everything is little-endian and byte-aligned, like LTTng-UST.
 *
 * The event classes are described once, in events.def; tools/gen-format.py
 * makes events.gen.h (typed structs, encoders, decoders, offsets) and
 * events.gen.c (the tables below) from it. This header adds the packet
 * layout and the walkers over the tables.
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

#include "format/events.gen.h"

#define HT_CTF_MAGIC   0xC1FC1FC1u
#define HT_TRACER_NAME "hetrace"

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

/*
 * Field types of events.def (codec.h has their wire codecs). All integers
 * little-endian, byte-aligned.
 */
enum ht_ftype {
	HT_T_U8,
	HT_T_U16,
	HT_T_U32,
	HT_T_U64,
	HT_T_I32,
	HT_T_I64,
	HT_T_F64,
	HT_T_HEX64,   /* u64 shown in hex (handles, addresses) */
	HT_T_STR,     /* NUL-terminated UTF-8 */
	HT_T_STRID,   /* u32 id of a string_def in the same process */
	HT_T_FN,      /* u16 function id (enum of all registered functions) */
	HT_T_FNARGS,  /* u8 n, then n x 8-byte values named by the function's fn_def */
	HT_T_IARGS,   /* u8 n, then n x { u32 key strid; u8 type; 8-byte value } */
	HT_T_U64X3,   /* three u64 (work sizes) */
	HT_T_ENUM8,   /* u8 with a named mapping (see ht_field.labels) */
	HT_T_FLAGS32, /* u32 of flags named by ht_field.labels (bit i: labels[i]) */
	HT_T_SIG,     /* u8 n, then n x { str name; u8 type; u8 role }: argument descriptors */
	HT_T_MEMRUNS, /* u32 n, then n x struct ht_memrun's 22-byte wire form (codec.h) */
};

/* A field of an event class, and where it lives in the class's C struct. */
struct ht_field {
	const char *name;
	enum ht_ftype type;
	const char *const *labels;     /* ENUM8, FLAGS32: NULL-terminated names */
	size_t member;		       /* offsetof the member in struct ht_ev_<class> */
	size_t member_n, member_store; /* arrays: the count (u8, MEMRUNS u32), the decode store */
	size_t max;		       /* STR: bytes it is cut to when written */
};

struct ht_event_class {
	uint32_t id;
	const char *name; /* without the "hetrace:" prefix */
	const struct ht_field *fields;
	unsigned int nfields;
	size_t struct_size; /* sizeof(struct ht_ev_<name>) */
	size_t fixed;	    /* payload size when every field has a fixed size, else 0 */
	/* the typed codec of events.gen.h, on a struct ht_ev_<name> */
	size_t (*size)(const void *ev);
	uint8_t *(*put)(uint8_t *p, const void *ev);
	long (*get)(void *ev, const uint8_t *p, size_t n);
	const char *doc;
};

extern const struct ht_event_class *const ht_format_classes[HT_SC_COUNT];
extern const unsigned int ht_format_class_count[HT_SC_COUNT];
extern const char *const ht_format_stream_class_names[HT_SC_COUNT];

/* Return: the event class description, or NULL for an unknown id. */
const struct ht_event_class *ht_format_event_class(enum ht_stream_class sc, uint32_t id);
/* Return: the packet context size (header included) of a stream class. */
size_t ht_format_context_end(enum ht_stream_class sc);
/* Return: a short name of the stream class ("thread", "device"). */
const char *ht_format_stream_class_name(enum ht_stream_class sc);

/*
 * Size of an event payload of class `ec` starting at p with `avail` bytes
 * available. Return: the size, or -1 when the payload runs past avail or is
 * malformed (unterminated string, too many arguments).
 */
long ht_format_payload_size(const struct ht_event_class *ec, const uint8_t *p, size_t avail);
/* Size in bytes of a fixed-size field type, 0 for variable-size ones. */
size_t ht_format_field_size(enum ht_ftype t);

#endif
