/*
 * The consumer side of ring mode (ring/ring.h), run by `hetrace record`
 * while the traced command runs: it appends the packets the traced threads
 * publish to their stream files, so the threads never write to the disk
 * themselves and no thread is added to the traced program.
 */
#ifndef HT_CONSUMER_H
#define HT_CONSUMER_H

#include <sys/types.h>

struct ht_consumer;

/*
 * Creates the doorbell in the trace directory dfd (path `dir`).
 * Return: the consumer, or NULL with errno set.
 */
struct ht_consumer *ht_consumer_create(int dfd, const char *dir);
/*
 * Drains rings until `pid` exits (sleeping on the doorbell in between).
 * Return: waitpid's status of pid.
 */
int ht_consumer_wait(struct ht_consumer *c, pid_t pid);
/*
 * Drains rings until tick(arg) returns nonzero; tick runs before each
 * round, at least every 10 ms (a signal cuts the sleep short). What a
 * session's daemon runs, and record's capture ranges by time.
 */
void ht_consumer_run(struct ht_consumer *c, int (*tick)(void *arg), void *arg);
/* tick(arg) also runs before each round of ht_consumer_wait (NULL: none). */
void ht_consumer_set_tick(struct ht_consumer *c, int (*tick)(void *arg), void *arg);
/*
 * Final drain of every ring (packets in progress included), then frees c.
 * Return: packets in progress taken from processes that died (a process
 * that exited normally closed its process stream; its other open packets
 * are completed silently).
 */
unsigned int ht_consumer_finish(struct ht_consumer *c);

#endif
