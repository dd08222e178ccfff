/*
 * store_sqlite_sql.c - the SQLite store's side of store_sql.h: the query
 * interface the rules shared with PostgreSQL (store_friends.c,
 * store_match.c, store_keep.c) run on. Their statements are prepared when
 * called (a few a second at most) and finalized before the call returns.
 *
 * The statements carry PostgreSQL's placeholders: SQLite reads "$1" as a
 * parameter named "$1" and numbers such parameters in the order they first
 * appear, so argument k is bound to the index of the name "$k", never to
 * index k ("b=$2 AND a=$1" has "$2" at index 1). An argument the statement
 * does not name is not bound; every parameter it names must be given (a
 * test build asserts it: an unbound one would read NULL).
 */
#include <assert.h>
#include <stdio.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"
#include "store_sqlite_int.h"

/* The statement prepared with its arguments bound, or NULL (*bad set). */
static sqlite3_stmt *prep_bind(store *base, const char *sql, const store_args *a, int *bad,
                               char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sq_fail(s, err, sql);
		*bad = 1;
		return NULL;
	}
	int bound = 0;
	for (int k = 0; a && k < a->n; k++) {
		char name[16];
		snprintf(name, sizeof name, "$%d", k + 1);
		int at = sqlite3_bind_parameter_index(st, name);
		if (!at)
			continue;
		bound++;
		if (a->v[k].kind == SQL_TEXT)
			sq_bind_text(st, at, a->v[k].s);
		else if (a->v[k].kind == SQL_REAL)
			sqlite3_bind_double(st, at, a->v[k].f);
		else
			sqlite3_bind_int64(st, at, a->v[k].i);
	}
	assert(bound == sqlite3_bind_parameter_count(st));
	(void)bound;
	return st;
}

/* Finalizes st after its last step (rc): 0, or -1 (*bad set) when that
 * step failed. */
static int finish(store *base, sqlite3_stmt *st, int rc, const char *sql, int *bad, char *err)
{
	int failed = rc != SQLITE_ROW && rc != SQLITE_DONE;
	if (failed) {
		sq_fail((sqlite_store *)base, err, sql);
		*bad = 1;
	}
	sqlite3_finalize(st);
	return failed ? -1 : 0;
}

static int64_t one(store *base, const char *sql, const store_args *a, int64_t dflt, int *bad,
                   char *err)
{
	sqlite3_stmt *st = prep_bind(base, sql, a, bad, err);
	if (!st)
		return -1;
	int rc = sqlite3_step(st);
	int64_t v = dflt;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	return finish(base, st, rc, sql, bad, err) ? -1 : v;
}

static int run(store *base, const char *sql, const store_args *a, int *bad, char *err)
{
	sqlite3_stmt *st = prep_bind(base, sql, a, bad, err);
	if (!st)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (finish(base, st, rc, sql, bad, err))
		return -1;
	return sqlite3_changes(((sqlite_store *)base)->db);
}

static int rows(store *base, const char *sql, const store_args *a, store_row_fn fn, void *ctx,
                int *bad, char *err)
{
	sqlite3_stmt *st = prep_bind(base, sql, a, bad, err);
	if (!st)
		return -1;
	store_row row = {base->sql, st, 0};
	int rc, count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		count++;
		if (fn(ctx, &row))
			break;
	}
	return finish(base, st, rc, sql, bad, err) ? -1 : count;
}

static int64_t col_i64(const store_row *r, int col)
{
	return sqlite3_column_int64((sqlite3_stmt *)r->res, col);
}

static double col_f64(const store_row *r, int col)
{
	return sqlite3_column_double((sqlite3_stmt *)r->res, col);
}

static void col_text(const store_row *r, int col, char *dst, size_t size)
{
	sq_copy_col(dst, size, (sqlite3_stmt *)r->res, col);
}

static int begin(store *base, char *err) { return sq_begin((sqlite_store *)base, err); }
static int commit(store *base, char *err) { return sq_commit((sqlite_store *)base, err); }
static void rollback(store *base) { sq_rollback((sqlite_store *)base); }
static void no_fault(store *base) { ((sqlite_store *)base)->fault = STORE_FAULT_NONE; }

/* One process writes the file: the tables in memory are the only ones,
 * nothing needs telling (store_sqlite.c, sq_last_seq). */
static int seat_changed(store *base, const char *id, int seat, char *err)
{
	(void)base, (void)id, (void)seat, (void)err;
	return 0;
}

/* EXPLAIN QUERY PLAN: rows of (id, parent, notused, detail), a node's
 * parent listed before it; each detail is handed on indented two spaces
 * a level. The statements explained carry "$k" (store_sql.h's own) or
 * "?" and "?k" (the store's SQL[]): argument k goes to "$k", else to the
 * k-th parameter. */
#define PLAN_NODES 256
static int plan(store *base, const char *sql, const store_args *a, int generic,
                void (*fn)(void *ctx, const char *line), void *ctx, int *bad, char *err)
{
	(void)generic; /* SQLite plans each run with the values bound */
	sqlite_store *s = (sqlite_store *)base;
	srv_sb b;
	sb_init(&b);
	sb_printf(&b, "EXPLAIN QUERY PLAN %s", sql);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, b.s, -1, &st, NULL) != SQLITE_OK) {
		sq_fail(s, err, sql);
		sb_free(&b);
		*bad = 1;
		return -1;
	}
	sb_free(&b);
	for (int k = 0; a && k < a->n; k++) {
		char name[16];
		snprintf(name, sizeof name, "$%d", k + 1);
		int at = sqlite3_bind_parameter_index(st, name);
		if (!at && k < sqlite3_bind_parameter_count(st))
			at = k + 1;
		if (!at)
			continue;
		if (a->v[k].kind == SQL_TEXT)
			sq_bind_text(st, at, a->v[k].s);
		else if (a->v[k].kind == SQL_REAL)
			sqlite3_bind_double(st, at, a->v[k].f);
		else
			sqlite3_bind_int64(st, at, a->v[k].i);
	}
	int ids[PLAN_NODES], depth[PLAN_NODES], n = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0), parent = sqlite3_column_int(st, 1), d = 0;
		for (int i = 0; i < n; i++)
			if (ids[i] == parent)
				d = depth[i] + 1;
		if (n < PLAN_NODES) {
			ids[n] = id;
			depth[n++] = d;
		}
		char line[512];
		const char *detail = (const char *)sqlite3_column_text(st, 3);
		snprintf(line, sizeof line, "%*s%s", 2 * d, "", detail ? detail : "");
		fn(ctx, line);
	}
	return finish(base, st, rc, sql, bad, err);
}

static void erased(store *base)
{
	sq_wal_truncate((sqlite_store *)base);
}

const store_sql sq_sql = {
	.pg = 0, .begin = begin, .commit = commit, .rollback = rollback, .no_fault = no_fault,
	.connect = NULL,
	.one = one, .run = run, .rows = rows, .col_i64 = col_i64, .col_f64 = col_f64,
	.col_text = col_text, .seat_changed = seat_changed, .plan = plan,
	.erased = erased,
};
