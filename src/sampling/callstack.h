/*
 * Call stacks at API entry (callstack.c): the source registered in
 * libhetrace-preload.so when --callstacks is not none, or when `record`
 * samples CPU time (the module list is then recorded for the samples).
 */
#ifndef HT_CALLSTACK_H
#define HT_CALLSTACK_H

/*
 * Takes the module list again when an object was loaded or unloaded since
 * it was last taken, and writes what changed to the process stream when
 * write is nonzero (never with the session lock held then).
 */
void ht_callstack_modules_check(int write);

#endif
