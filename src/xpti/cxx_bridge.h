/*
 * The seam between the dispatcher's C units and its two C++ units: metadata.cpp keeps each
 * event's metadata in the std::unordered_map that C++ collectors read (Intel's layout), and
 * tracepoint.cpp gives each instance Intel's xpti_tracepoint_t / xpti_trace_event_t /
 * xpti_payload_t / xpti_metadata_t interfaces. Plain declarations, valid C and C++, so that
 * neither side sees the other's types: an instance is an opaque struct ht_xpti_inst whose first
 * HT_XPTI_IFACE_SIZE bytes hold the C++ interface object. Nothing here is exported.
 */
#ifndef HT_XPTI_CXX_BRIDGE_H
#define HT_XPTI_CXX_BRIDGE_H

#include <xpti/xpti_trace_framework.h>

#define HT_XPTI_IFACE_SIZE (4 * sizeof(void *)) /* four vtable pointers, no data */

XPTI_EXTERN_C_BEGIN_

struct ht_xpti_inst;

/* ---- C, for the C++ units ---- */

/* True while the framework is usable (starting it on first use). */
bool ht_xpti_is_live(void);
/* Intern a non-empty string. Return: its id (from 1) or XPTI_INVALID_ID; *interned its copy. */
xpti_string_id_t ht_xpti_string_add(const char *s, const char **interned);
xpti_trace_event_data_t *ht_xpti_inst_event(struct ht_xpti_inst *in);
struct xpti_payload *ht_xpti_inst_payload(struct ht_xpti_inst *in);
/* The instance's 128-bit universal id (instance and uid64 filled). */
xpti_uid128_t ht_xpti_inst_uid128(struct ht_xpti_inst *in);
/* Where xpti_metadata_t::first_item/next_item keep their position (a key id). */
uint32_t *ht_xpti_inst_cursor(struct ht_xpti_inst *in);

/* ---- C++, for the C units ---- */

/* metadata.cpp: construct / destroy the metadata table inside an event. */
void ht_xpti_md_init(xpti_trace_event_data_t *ev);
void ht_xpti_md_fini(xpti_trace_event_data_t *ev);
/* The entry with the smallest key id above `after`. Return: SUCCESS, FALSE when there is none,
 * INVALIDARG for a NULL table. */
xpti_result_t ht_xpti_md_next(xpti_metadata_map_t *md, uint32_t after, uint32_t *key,
			      xpti_object_id_t *value);
/* tracepoint.cpp: build the interface object at the start of a (new) instance slot. */
void ht_xpti_iface_init(struct ht_xpti_inst *in);
xpti_tracepoint_t *ht_xpti_iface_tracepoint(struct ht_xpti_inst *in);
const xpti_trace_event_t *ht_xpti_iface_event(struct ht_xpti_inst *in);
const xpti_payload_iface_t *ht_xpti_iface_payload(struct ht_xpti_inst *in);
/* The instance behind a trace point interface (not validated: the caller checks it is live). */
struct ht_xpti_inst *ht_xpti_iface_inst(xpti_tracepoint_t *tp);

XPTI_EXTERN_C_END_

#endif /* HT_XPTI_CXX_BRIDGE_H */
