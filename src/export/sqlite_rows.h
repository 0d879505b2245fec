/*
 * Rows into SQLite fast: a producer fills batches of rows per table; a
 * writer thread hands each full batch to SQLite as one statement, INSERT
 * INTO t SELECT c0, ... FROM ht_rows, where ht_rows is an eponymous virtual
 * table showing the batch. A bounded number of batches is in flight: the
 * producer waits for the writer beyond that. Measured on a 2-vCPU VM
 * (SQLite 3.40.1, CPU time per row of six integers): one INSERT with bound
 * values per row 0.75 M rows/s, 50 rows per statement 1.9 M, batches through
 * the virtual table 2.2 M, as fast as SQLite inserting rows a recursive
 * CTE computes (record encoding and the b-tree are the bound). Used by the
 * SQLite export (sqlite.c); one producer thread.
 */
#ifndef HT_EXPORT_SQLITE_ROWS_H
#define HT_EXPORT_SQLITE_ROWS_H

#include <pthread.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define HT_SQ_MAXCOLS 20
#define HT_SQ_TABLES  32

/* One value of a row (text: an offset into its batch's text). */
enum { HT_SQ_NULL, HT_SQ_INT, HT_SQ_REAL, HT_SQ_TEXT };
struct ht_sq_cell {
	union {
		int64_t i;
		double f;
		size_t off;
	} v;
	uint32_t len;
	uint8_t kind;
};

struct ht_sq_batch; /* rows of one table (sqlite_rows.c) */

struct ht_sq_rows {
	sqlite3 *db;
	unsigned int ntables;
	sqlite3_stmt *ins[HT_SQ_TABLES];
	unsigned int ncols[HT_SQ_TABLES];
	struct ht_sq_batch *cur[HT_SQ_TABLES]; /* being filled */
	/* the writer thread and its queue */
	pthread_t writer;
	int writer_started;
	pthread_mutex_t lock;
	pthread_cond_t work, freed;
	struct ht_sq_batch *head, *tail, *free;
	unsigned int batches;
	int done;
	int err; /* the writer's SQLite error: it writes nothing more */
	char errmsg[128];
	const struct ht_sq_batch *vt; /* the batch the virtual table shows */
	int nomem;		      /* a row could not be made */
};

/* Sets up r on db (registers ht_rows). Return: 0, or an SQLite error code. */
int ht_sq_rows_open(struct ht_sq_rows *r, sqlite3 *db);
/* Table t (< HT_SQ_TABLES) is `name` with ncols columns. Return: 0, or an SQLite error code. */
int ht_sq_rows_table(struct ht_sq_rows *r, unsigned int t, const char *name, unsigned int ncols);
/* Starts the writer thread (without one, batches are written by the caller). */
void ht_sq_rows_start(struct ht_sq_rows *r);
/* Return: the cells of a new row of table t (all NULL), or NULL (r->nomem set). */
struct ht_sq_cell *ht_sq_rows_add(struct ht_sq_rows *r, unsigned int t);
/* Text v[0..n) into cell c of the row just made for table t. */
void ht_sq_rows_text(struct ht_sq_rows *r, unsigned int t, struct ht_sq_cell *c, const char *v,
		     size_t n);
/* Writes what is left and stops the writer. Return: 0, or the writer's error (r->errmsg). */
int ht_sq_rows_stop(struct ht_sq_rows *r);
/* Return: the writer's error so far, 0 if none (any thread). */
int ht_sq_rows_error(struct ht_sq_rows *r);
void ht_sq_rows_close(struct ht_sq_rows *r);

static inline void ht_sq_int(struct ht_sq_cell *c, int64_t v)
{
	c->kind = HT_SQ_INT;
	c->v.i = v;
}

#endif
