/*
 * The process's calling-context tree (seed 002's CCT), in the traced
 * process: each distinct stack is stored once, as a path of nodes (a frame
 * under its parent), and an event carries the id of its innermost node. A
 * node is written to the process stream (stack_node) when it is created, so
 * a launch loop that repeats one stack adds only its api_stack event (8
 * bytes) per call. Ids count from 1 in creation order; after fork the
 * child keeps the tree and writes it whole into its own process stream.
 *
 * All functions run with the session lock held (inside
 * ht_session_with_process or the process_open hook).
 */
#ifndef HT_CCT_H
#define HT_CCT_H

#include <stdint.h>

struct ht_stream;

/*
 * Interns a stack given innermost frame first (frames[0]), n >= 1, as
 * frame words (unwind.h), writing the nodes it creates into proc.
 * Return: the innermost node's id, or 0 when out of memory.
 */
uint32_t ht_cct_intern(struct ht_stream *proc, const uint64_t *frames, int n);

/* Writes every node into a new process stream. */
void ht_cct_write_all(struct ht_stream *proc);

#endif
