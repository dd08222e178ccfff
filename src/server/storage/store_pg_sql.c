/*
 * store_pg_sql.c - the PostgreSQL store's side of store_sql.h: the query
 * interface the rules shared with SQLite (store_friends.c, store_match.c,
 * store_keep.c) run on. Their statements are sent with their parameters
 * (pgs_q_sql: PQexecParams, every value as text, its type inferred from
 * the statement), not prepared: a few a second at most. A connection lost
 * outside a transaction is made again before the read or the BEGIN
 * (pgs_ensure, pgs_begin); inside one nothing is retried.
 */
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_pg_int.h"
#include "store_sql.h"

static void to_params(const store_args *a, params *p)
{
	memset(p, 0, sizeof *p);
	for (int k = 0; a && k < a->n; k++) {
		if (a->v[k].kind == SQL_TEXT)
			pgs_p_str(p, a->v[k].s);
		else if (a->v[k].kind == SQL_REAL)
			pgs_p_f64(p, a->v[k].f);
		else
			pgs_p_i64(p, a->v[k].i);
	}
}

/* The statement's result (the caller PQclears it), or NULL with *bad set. */
static PGresult *query(store *base, const char *sql, const store_args *a, int *bad, char *err)
{
	params p;
	to_params(a, &p);
	PGresult *r = pgs_q_sql((pg_store *)base, sql, &p, err);
	if (!r)
		*bad = 1;
	return r;
}

/* A value as an integer: PostgreSQL writes a boolean as t or f. */
static int64_t int_of(const char *t)
{
	return !strcmp(t, "t") ? 1 : !strcmp(t, "f") ? 0 : strtoll(t, NULL, 10);
}

static int64_t one(store *base, const char *sql, const store_args *a, int64_t dflt, int *bad,
                   char *err)
{
	PGresult *r = query(base, sql, a, bad, err);
	if (!r)
		return -1;
	int64_t v = dflt;
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		v = int_of(PQgetvalue(r, 0, 0));
	PQclear(r);
	return v;
}

static int run(store *base, const char *sql, const store_args *a, int *bad, char *err)
{
	PGresult *r = query(base, sql, a, bad, err);
	if (!r)
		return -1;
	int n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n;
}

static int rows(store *base, const char *sql, const store_args *a, store_row_fn fn, void *ctx,
                int *bad, char *err)
{
	PGresult *r = query(base, sql, a, bad, err);
	if (!r)
		return -1;
	int count = 0;
	store_row row = {base->sql, r, 0};
	for (; row.at < PQntuples(r); row.at++) {
		count++;
		if (fn(ctx, &row))
			break;
	}
	PQclear(r);
	return count;
}

static int64_t col_i64(const store_row *r, int col)
{
	return int_of(PQgetvalue(r->res, r->at, col));
}

static double col_f64(const store_row *r, int col)
{
	return atof(PQgetvalue(r->res, r->at, col));
}

static void col_text(const store_row *r, int col, char *dst, size_t size)
{
	pgs_copy_val(dst, size, r->res, r->at, col);
}

static int begin(store *base, char *err) { return pgs_begin((pg_store *)base, err); }
static int commit(store *base, char *err) { return pgs_commit((pg_store *)base, err); }
static void rollback(store *base) { pgs_rollback((pg_store *)base); }
static void no_fault(store *base) { ((pg_store *)base)->fault = STORE_FAULT_NONE; }
static int reconnect(store *base, char *err) { return pgs_ensure((pg_store *)base, err); }

static int seat_changed(store *base, const char *id, int seat, char *err)
{
	return pgs_notify((pg_store *)base, STORE_NOTIFY_SEAT, id, seat, err);
}

const store_sql pgs_sql = {
	.pg = 1, .begin = begin, .commit = commit, .rollback = rollback, .no_fault = no_fault,
	.connect = reconnect,
	.one = one, .run = run, .rows = rows, .col_i64 = col_i64, .col_f64 = col_f64,
	.col_text = col_text, .seat_changed = seat_changed, .erased = NULL,
};
