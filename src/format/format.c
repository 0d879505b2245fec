/*
 * Walkers over the event-class tables that tools/gen-format.py makes from
 * events.def (events.gen.c): class lookup and the payload size of an event
 * of any class, which the reader needs to step from one event to the next
 * and which validates the payload on the way (the class's own decoder).
 */
#include <string.h>

#include "format/format.h"

const struct ht_event_class *ht_format_event_class(enum ht_stream_class sc, uint32_t id)
{
	if ((unsigned int)sc >= HT_SC_COUNT || id >= ht_format_class_count[sc])
		return NULL;
	return &ht_format_classes[sc][id];
}

size_t ht_format_context_end(enum ht_stream_class sc)
{
	return sc == HT_SC_DEVICE ? HT_PC_DEVICE_END : HT_PC_THREAD_END;
}

const char *ht_format_stream_class_name(enum ht_stream_class sc)
{
	return (unsigned int)sc < HT_SC_COUNT ? ht_format_stream_class_names[sc] : "?";
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
	case HT_T_FLAGS32:
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

long ht_format_payload_size(const struct ht_event_class *ec, const uint8_t *p, size_t avail)
{
	union ht_ev_any scratch;

	if (ec->fixed)
		return ec->fixed <= avail ? (long)ec->fixed : -1;
	return ec->get(&scratch, p, avail);
}
