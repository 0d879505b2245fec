/*
 * Pieces of `hetrace record` (record.c) that a session's daemon
 * (cli/session.c) runs too: it plays record's part for programs it did not
 * start, so it finds the libraries, writes the index and finalizes alike.
 */
#ifndef HT_CLI_RECORD_SHARE_H
#define HT_CLI_RECORD_SHARE_H

#include <stddef.h>

/* The directory holding libhetrace.so.0: <dir of hetrace>/../lib. Return: 0 or -1. */
int ht_record_find_libdir(char *out, size_t cap);
/*
 * Sets LD_PRELOAD: the recorder, then each source interposer that is built
 * and enabled (libhetrace-preload.so always: exec interposer, OS source;
 * the MPI interposer where `cmd` may run MPI: record_mpi.c), then whatever
 * the user preloaded already. Return: 0, or -1 when it does not fit.
 */
int ht_record_set_preload(const char *libdir, const char *api, const char *cmd);
/* Writes hetrace.index (O_EXCL) in the trace directory dfd. Return: 0 or -errno. */
int ht_record_index_write(int dfd, int argc, char **argv, const char *clock, double hz);
/* Appends the end time and how the recording ended to hetrace.index. */
void ht_record_index_end(int dfd, int status_code, const char *status_text);
/*
 * Converts the trace in `dir` for reading (raw counter values to ns with
 * the rate hz, torn packets trimmed) and says what it did unless quiet.
 * Return: 0, or 1 on an error (printed).
 */
int ht_record_finalize(const char *dir, double hz, int quiet, unsigned int salvaged);
/* The default trace directory, "PREFIX-YYYYmmdd-HHMMSS" in local time. */
void ht_record_default_dir(char *out, size_t cap, const char *prefix);
/*
 * Checks the recorder options record and session start share (NULL: not
 * given): --mode, --buffer, --clock, --callstacks. Return: 0, or the usage
 * status (2) after one line naming the option, under sub-command `sub`.
 */
int ht_record_check_options(const char *sub, const char *mode, const char *buffer,
			    const char *clock, const char *callstacks);

#endif
