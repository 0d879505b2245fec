/*
 * The directory `hetrace record` writes a trace into (record_dir.c).
 */
#ifndef HT_CLI_RECORD_DIR_H
#define HT_CLI_RECORD_DIR_H

/*
 * Creates `dir` (0700), or takes an existing one that is ours alone and
 * empty; with `force`, one that holds only an earlier hetrace trace, which
 * is removed. Refusals are printed ("hetrace: ..." on stderr).
 * *created: whether the directory was made here.
 * Return: its fd, or -1.
 */
int ht_record_dir_prepare(const char *dir, int force, int *created);

#endif
