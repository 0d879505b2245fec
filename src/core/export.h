/*
 * Symbol visibility in libhetrace.so: everything is hidden unless marked,
 * and libhetrace.map lists what is exported (a test checks the two agree).
 */
#ifndef HT_EXPORT_H
#define HT_EXPORT_H

/* The annotation API (hetrace.h) and the emitters of core/recorder.h. */
#define HT_EXPORT __attribute__((visibility("default")))
/*
 * Exported for hetrace's own source libraries (core/source.h) but bound
 * inside libhetrace.so: its own uses stay PC-relative, so an event pays no
 * GOT load or PLT call for them (ht_clock_state is read by every event).
 */
#define HT_EXPORT_BOUND __attribute__((visibility("protected")))

#endif
