/*
 * The view's calling contexts (view_stacks.c): flame graphs of the CPU
 * samples and of GPU time by launch path, and the stack of every API call
 * that recorded one, for the page's details panel (view_flame.js).
 */
#ifndef HT_VIEW_STACKS_H
#define HT_VIEW_STACKS_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"

/*
 * Writes `,"callstacks":{...}` into the page's JSON (nothing when the trace
 * has no stacks or samples); t0 is the view's time origin (slice starts are
 * relative to it). Return: 0, or < 0 with err filled.
 */
int ht_view_stacks_write(struct ht_trace *t, FILE *f, uint64_t t0, struct ht_read_error *err);

#endif
