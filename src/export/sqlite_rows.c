/*
 * Rows into SQLite in batches, through a virtual table, on a writer thread
 * (see sqlite_rows.h). Built only with SQLite (HT_HAVE_SQLITE).
 */
#ifdef HT_HAVE_SQLITE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "export/sqlite_rows.h"

#define SQ_ROWS 4096 /* rows per batch (one INSERT ... SELECT) */
#define SQ_BATCHES                                                                                 \
	24 /* batches allocated at most: one per table being filled, the rest in flight */

struct ht_sq_batch {
	unsigned int table;
	unsigned int ncols; /* its table's: a row's cells are dense */
	size_t rows;
	struct ht_sq_cell *cells; /* SQ_ROWS x ncols */
	char *text;
	size_t ntext, captext;
	struct ht_sq_batch *next;
};

/* ---- the virtual table that hands a batch to SQLite ---- */

struct vt_tab {
	sqlite3_vtab base;
	struct ht_sq_rows *s;
};

struct vt_cursor {
	sqlite3_vtab_cursor base;
	size_t row;
};

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out,
		      char **errmsg)
{
	char ddl[512] = "CREATE TABLE x(c0";
	struct vt_tab *v;
	int rc;

	(void)argc;
	(void)argv;
	(void)errmsg;
	for (int i = 1; i < HT_SQ_MAXCOLS; i++)
		snprintf(ddl + strlen(ddl), sizeof ddl - strlen(ddl), ", c%d", i);
	strcat(ddl, ")");
	rc = sqlite3_declare_vtab(db, ddl);
	if (rc != SQLITE_OK)
		return rc;
	v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->s = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int vt_best_index(sqlite3_vtab *t, sqlite3_index_info *ii)
{
	(void)t;
	ii->estimatedCost = SQ_ROWS;
	ii->estimatedRows = SQ_ROWS;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *t)
{
	sqlite3_free(t);
	return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
	struct vt_cursor *c = sqlite3_malloc(sizeof *c);

	(void)t;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *c, int idx, const char *idxstr, int argc,
		     sqlite3_value **argv)
{
	(void)idx;
	(void)idxstr;
	(void)argc;
	(void)argv;
	((struct vt_cursor *)c)->row = 0;
	return SQLITE_OK;
}

static int vt_next(sqlite3_vtab_cursor *c)
{
	((struct vt_cursor *)c)->row++;
	return SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *c)
{
	const struct ht_sq_rows *s = ((struct vt_tab *)c->pVtab)->s;

	return !s->vt || ((struct vt_cursor *)c)->row >= s->vt->rows;
}

static int vt_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	const struct ht_sq_batch *b = ((struct vt_tab *)c->pVtab)->s->vt;
	const struct ht_sq_cell *v = &b->cells[((struct vt_cursor *)c)->row * b->ncols + col];

	switch (v->kind) {
	case HT_SQ_INT:
		sqlite3_result_int64(ctx, v->v.i);
		break;
	case HT_SQ_REAL:
		sqlite3_result_double(ctx, v->v.f);
		break;
	case HT_SQ_TEXT:
		sqlite3_result_text(ctx, b->text + v->v.off, (int)v->len, SQLITE_STATIC);
		break;
	default:
		sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct vt_cursor *)c)->row;
	return SQLITE_OK;
}

/* Eponymous-only (no xCreate): the table ht_rows exists on every connection that has it. */
static const sqlite3_module vt_module = {
    .xConnect = vt_connect,
    .xBestIndex = vt_best_index,
    .xDisconnect = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
};

/* ---- the writer thread ---- */

static void write_batch(struct ht_sq_rows *s, struct ht_sq_batch *b)
{
	sqlite3_stmt *st = s->ins[b->table];
	int rc;

	s->vt = b;
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE) {
		snprintf(s->errmsg, sizeof s->errmsg, "%s", sqlite3_errmsg(s->db));
		__atomic_store_n(&s->err, rc ? rc : SQLITE_ERROR, __ATOMIC_RELEASE);
	}
	sqlite3_reset(st);
	s->vt = NULL;
}

static void *writer_main(void *arg)
{
	struct ht_sq_rows *s = arg;

	for (;;) {
		struct ht_sq_batch *b;

		pthread_mutex_lock(&s->lock);
		while (!s->head && !s->done)
			pthread_cond_wait(&s->work, &s->lock);
		b = s->head;
		if (b) {
			s->head = b->next;
			if (!s->head)
				s->tail = NULL;
		}
		pthread_mutex_unlock(&s->lock);
		if (!b)
			return NULL; /* done, and nothing left */
		if (!__atomic_load_n(&s->err, __ATOMIC_ACQUIRE))
			write_batch(s, b);
		b->rows = 0;
		b->ntext = 0;
		pthread_mutex_lock(&s->lock);
		b->next = s->free;
		s->free = b;
		pthread_cond_signal(&s->freed);
		pthread_mutex_unlock(&s->lock);
	}
}

/* Hands a full batch to the writer (written in this thread when there is none). */
static void submit(struct ht_sq_rows *s, struct ht_sq_batch *b)
{
	if (!s->writer_started) {
		if (!s->err)
			write_batch(s, b);
		b->rows = b->ntext = 0;
		b->next = s->free;
		s->free = b;
		return;
	}
	b->next = NULL;
	pthread_mutex_lock(&s->lock);
	if (s->tail)
		s->tail->next = b;
	else
		s->head = b;
	s->tail = b;
	pthread_cond_signal(&s->work);
	pthread_mutex_unlock(&s->lock);
}

/* Return: an empty batch (waiting for the writer to free one at the limit), or NULL. */
static struct ht_sq_batch *get_batch(struct ht_sq_rows *s)
{
	struct ht_sq_batch *b = NULL;

	pthread_mutex_lock(&s->lock);
	while (!s->free && s->batches >= SQ_BATCHES && s->writer_started)
		pthread_cond_wait(&s->freed, &s->lock);
	if (s->free) {
		b = s->free;
		s->free = b->next;
	} else {
		b = calloc(1, sizeof *b);
		if (b && !(b->cells = malloc(SQ_ROWS * HT_SQ_MAXCOLS * sizeof *b->cells))) {
			free(b);
			b = NULL;
		}
		s->batches += b != NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return b;
}

static void batch_free(struct ht_sq_batch *b)
{
	if (b) {
		free(b->cells);
		free(b->text);
		free(b);
	}
}

struct ht_sq_cell *ht_sq_rows_add(struct ht_sq_rows *s, unsigned int t)
{
	struct ht_sq_batch *b = s->cur[t];
	struct ht_sq_cell *c;

	if (b && b->rows == SQ_ROWS) {
		submit(s, b);
		b = s->cur[t] = NULL;
	}
	if (!b) {
		b = s->cur[t] = get_batch(s);
		if (!b) {
			s->nomem = 1;
			return NULL;
		}
		b->table = t;
		b->ncols = s->ncols[t];
	}
	c = &b->cells[b->rows++ * b->ncols];
	for (unsigned int i = 0; i < s->ncols[t]; i++)
		c[i].kind = HT_SQ_NULL;
	return c;
}

void ht_sq_rows_text(struct ht_sq_rows *s, unsigned int t, struct ht_sq_cell *c, const char *v,
		     size_t n)
{
	struct ht_sq_batch *b = s->cur[t];

	if (ht_grow((void **)&b->text, &b->captext, 1, b->ntext + n + 1)) {
		s->nomem = 1;
		return;
	}
	memcpy(b->text + b->ntext, v, n);
	c->kind = HT_SQ_TEXT;
	c->v.off = b->ntext;
	c->len = (uint32_t)n;
	b->ntext += n;
}

int ht_sq_rows_open(struct ht_sq_rows *r, sqlite3 *db)
{
	memset(r, 0, sizeof *r);
	r->db = db;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->freed, NULL);
	return sqlite3_create_module(db, "ht_rows", &vt_module, r);
}

int ht_sq_rows_table(struct ht_sq_rows *r, unsigned int t, const char *name, unsigned int ncols)
{
	char sql[1024];
	size_t n;

	if (t >= HT_SQ_TABLES || ncols < 1 || ncols > HT_SQ_MAXCOLS)
		return SQLITE_MISUSE;
	n = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s SELECT c0", name);
	for (unsigned int i = 1; i < ncols; i++)
		n += (size_t)snprintf(sql + n, sizeof sql - n, ", c%u", i);
	snprintf(sql + n, sizeof sql - n, " FROM ht_rows");
	r->ncols[t] = ncols;
	if (t >= r->ntables)
		r->ntables = t + 1;
	return sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &r->ins[t], NULL);
}

void ht_sq_rows_start(struct ht_sq_rows *r)
{
	r->writer_started = !pthread_create(&r->writer, NULL, writer_main, r);
}

int ht_sq_rows_error(struct ht_sq_rows *r)
{
	return __atomic_load_n(&r->err, __ATOMIC_ACQUIRE);
}

int ht_sq_rows_stop(struct ht_sq_rows *r)
{
	for (unsigned int t = 0; t < r->ntables; t++)
		if (r->cur[t] && r->cur[t]->rows) {
			submit(r, r->cur[t]);
			r->cur[t] = NULL;
		}
	if (r->writer_started) {
		pthread_mutex_lock(&r->lock);
		r->done = 1;
		pthread_cond_signal(&r->work);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->writer, NULL);
		r->writer_started = 0;
	}
	return r->err;
}

void ht_sq_rows_close(struct ht_sq_rows *r)
{
	struct ht_sq_batch *b, *n;

	if (r->writer_started)
		ht_sq_rows_stop(r);
	for (unsigned int t = 0; t < r->ntables; t++) {
		sqlite3_finalize(r->ins[t]);
		batch_free(r->cur[t]);
	}
	for (b = r->free; b; b = n) {
		n = b->next;
		batch_free(b);
	}
	for (b = r->head; b; b = n) {
		n = b->next;
		batch_free(b);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->freed);
	memset(r, 0, sizeof *r);
}

#endif /* HT_HAVE_SQLITE */
