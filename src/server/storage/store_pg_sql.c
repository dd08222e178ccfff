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

#include "server.h"
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

/* The statement PREPAREd under a name of its own, then EXPLAIN EXECUTE
 * with the arguments as literals (a prepared statement, like SQL[]'s,
 * infers its parameters' types from the text), in the plan_cache_mode
 * asked for; both are undone after. */
static int plan(store *base, const char *sql, const store_args *a, int generic,
                void (*fn)(void *ctx, const char *line), void *ctx, int *bad, char *err)
{
	pg_store *s = (pg_store *)base;
	srv_sb b;
	sb_init(&b);
	sb_printf(&b, "PREPARE carc_plan AS %s", sql);
	int rc = pgs_exec_plain(s, b.s, err);
	if (!rc)
		rc = pgs_exec_plain(s, generic ? "SET plan_cache_mode = force_generic_plan"
		                               : "SET plan_cache_mode = force_custom_plan", err);
	PGresult *r = NULL;
	if (!rc) {
		sb_free(&b);
		sb_init(&b);
		sb_adds(&b, "EXPLAIN EXECUTE carc_plan(");
		for (int k = 0; a && k < a->n; k++) {
			if (k)
				sb_adds(&b, ", ");
			if (a->v[k].kind == SQL_TEXT) {
				char *lit = PQescapeLiteral(s->conn, a->v[k].s ? a->v[k].s : "",
				                            strlen(a->v[k].s ? a->v[k].s : ""));
				sb_adds(&b, lit ? lit : "NULL");
				PQfreemem(lit);
			} else if (a->v[k].kind == SQL_REAL) {
				sb_printf(&b, "%.17g", a->v[k].f);
			} else {
				sb_printf(&b, "%lld", (long long)a->v[k].i);
			}
		}
		sb_adds(&b, ")");
		r = pgs_q_sql(s, b.s, NULL, err);
		rc = r ? 0 : -1;
	}
	for (int i = 0; r && i < PQntuples(r); i++)
		fn(ctx, PQgetvalue(r, i, 0));
	PQclear(r);
	sb_free(&b);
	char e2[STORE_ERR_SIZE];
	pgs_exec_plain(s, "RESET plan_cache_mode", e2);
	pgs_exec_plain(s, "DEALLOCATE carc_plan", e2);
	if (rc)
		*bad = 1;
	return rc;
}

const store_sql pgs_sql = {
	.pg = 1, .begin = begin, .commit = commit, .rollback = rollback, .no_fault = no_fault,
	.connect = reconnect,
	.one = one, .run = run, .rows = rows, .col_i64 = col_i64, .col_f64 = col_f64,
	.col_text = col_text, .seat_changed = seat_changed, .plan = plan,
	.erased = NULL,
};
