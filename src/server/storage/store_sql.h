/*
 * store_sql.h - private to the two stores (src/server/storage/): the small
 * query interface that lets a rule be written once for SQLite and
 * PostgreSQL, and the rules written so. Nothing outside storage includes
 * it; the rest of the server sees the stores through store.h only.
 *
 * Each store gives one store_sql (store_pg_sql.c, store_sqlite_sql.c) and
 * points store.sql at it; store_friends.c (friendships, requests, blocks,
 * invites, presence), store_match.c (the quick-match queue),
 * store_keep.c (recovery codes, passwords, deleting an account) and
 * store_rating.c (the rating update, inside a result's transaction) run
 * their SQL through it, and both stores' store_ops (or result writes)
 * point at those functions; store_plans.c explains the list queries of
 * both through it (plan).
 *
 * The SQL is written once, with PostgreSQL's placeholders ($1, $2, ...).
 * SQLite reads "$1" as a parameter named "$1"; its adapter binds each
 * argument by that name, never by position (SQLite numbers named
 * parameters in the order they first appear: "b=$2 AND a=$1" makes $2 its
 * first). Where the dialects really differ (PostgreSQL's row locks and
 * advisory lock, its jsonb, its arrays), a rule asks q->pg next to the
 * statement and keeps the two texts side by side, one line apart.
 *
 * A transaction is the store's own (sql_begin .. sql_commit or
 * sql_rollback): BEGIN IMMEDIATE in SQLite, BEGIN in PostgreSQL, a
 * savepoint inside the writer's group in both, the file check and a test
 * build's injected fault at commit; PostgreSQL connects again before a
 * BEGIN or a read (sql_ready) when the connection was lost.
 *
 * Faults: the statement calls take `int *bad`. A call made with *bad set
 * runs nothing and returns -1; one that fails sets *bad, puts the message
 * in err (STORE_ERR_SIZE) and sets the store's fault (last_fault). So a
 * rule runs its statements and looks at *bad once, where it must decide.
 */
#ifndef CARC_STORE_SQL_H
#define CARC_STORE_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* The arguments of a statement, $1 .. $n: each an integer, a text (NULL
 * reads as "") or a real. SQL_ARGS(SQL_I(x), SQL_S(t)) makes them in
 * place (a pointer to a compound literal of the caller's scope). */
enum { SQL_INT, SQL_TEXT, SQL_REAL };
#define SQL_MAX_ARGS 8
typedef struct store_arg {
	int kind;       /* SQL_INT, SQL_TEXT, SQL_REAL */
	int64_t i;
	double f;
	const char *s;  /* not owned: lives as long as the call */
} store_arg;
typedef struct store_args {
	int n;
	store_arg v[SQL_MAX_ARGS];
} store_args;
#define SQL_I(x) {SQL_INT, (x), 0, NULL}
#define SQL_S(x) {SQL_TEXT, 0, 0, (x)}
#define SQL_F(x) {SQL_REAL, 0, (x), NULL}
#define SQL_ARGS(...)                                                                      \
	(&(store_args){(int)(sizeof((store_arg[]){__VA_ARGS__}) / sizeof(store_arg)),          \
	               {__VA_ARGS__}})
#define SQL_A1(x) SQL_ARGS(SQL_I(x))
#define SQL_A2(x, y) SQL_ARGS(SQL_I(x), SQL_I(y))
#define SQL_A3(x, y, z) SQL_ARGS(SQL_I(x), SQL_I(y), SQL_I(z))

/* One row of a result, valid only during the store_row_fn it is given to:
 * its columns read through the store that made it. */
typedef struct store_row {
	const struct store_sql *q;
	const void *res;  /* the store's result (PGresult, sqlite3_stmt) */
	int at;           /* the row's index in it (PostgreSQL) */
} store_row;
/* Called for each row in turn; nonzero stops (the row counts). */
typedef int (*store_row_fn)(void *ctx, const store_row *r);

typedef struct store_sql {
	/* PostgreSQL's dialect: several processes share the database, so a
	 * write locks the rows it counts (FOR UPDATE, SKIP LOCKED) */
	int pg;
	/* A write's transaction (or its savepoint in a group): 0 or -1. */
	int (*begin)(store *s, char *err);
	/* Keeps the write: 0, or -1 with nothing kept (rolled back there). */
	int (*commit)(store *s, char *err);
	/* Ends the write without effect. */
	void (*rollback)(store *s);
	/* Clears the last fault (a call that succeeds leaves none). */
	void (*no_fault)(store *s);
	/* Before a read outside a write: connects again when the connection
	 * was lost (NULL: nothing to do, SQLite). 0 or -1. */
	int (*connect)(store *s, char *err);
	/* The first column of the first row, dflt when there is no row or it
	 * is NULL (PostgreSQL's booleans read 1 and 0); -1 on a fault. */
	int64_t (*one)(store *s, const char *sql, const store_args *a, int64_t dflt, int *bad,
	               char *err);
	/* Runs a statement: the rows it changed, -1 on a fault. */
	int (*run)(store *s, const char *sql, const store_args *a, int *bad, char *err);
	/* Hands each row to fn (until it returns nonzero): how many it was
	 * given, -1 on a fault. */
	int (*rows)(store *s, const char *sql, const store_args *a, store_row_fn fn, void *ctx,
	            int *bad, char *err);
	/* A row's column: an integer (NULL reads 0; PostgreSQL's booleans 1
	 * and 0), a real, a text copied into dst (NULL: ""). */
	int64_t (*col_i64)(const store_row *r, int col);
	double (*col_f64)(const store_row *r, int col);
	void (*col_text)(const store_row *r, int col, char *dst, size_t size);
	/* Inside a write: a seat of game `id` changed outside its table's own
	 * writes (an account deleted): the game gets its next sequence number
	 * (PostgreSQL: and a seat notification for the other processes). */
	int (*seat_changed)(store *s, const char *id, int seat, char *err);
	/* The plan of statement `sql` with arguments a, each line to fn
	 * (store_plans.c). SQLite: EXPLAIN QUERY PLAN, argument k bound to
	 * "$k" or else to the k-th parameter ("?", "?k"), each line indented
	 * by its depth; PostgreSQL: the statement PREPAREd and EXPLAIN
	 * EXECUTEd with plan_cache_mode forcing a custom plan, or when
	 * `generic` the generic plan a prepared statement may switch to after
	 * its fifth run. Reads only. 0, or -1 with *bad set. */
	int (*plan)(store *s, const char *sql, const store_args *a, int generic,
	            void (*fn)(void *ctx, const char *line), void *ctx, int *bad, char *err);
	/* After a committed write that removed what must not stay in the
	 * files (an account deleted): SQLite has its checkpointer copy the WAL
	 * back and empty it (the file's free space is zeroed already:
	 * secure_delete); NULL for PostgreSQL (docs/server.md, "Deleting an
	 * account", says what it keeps and for how long). */
	void (*erased)(store *s);
} store_sql;

/* The calls as the rules write them (s is the store, q its store_sql). */
static inline int sql_begin(store *s, char *err) { return s->sql->begin(s, err); }
static inline int sql_commit(store *s, char *err) { return s->sql->commit(s, err); }
static inline void sql_rollback(store *s) { s->sql->rollback(s); }
/* The write was refused (the rule's answer, STORE_NOT_FOUND), not failed:
 * it ends without effect and without a fault. */
static inline void sql_refuse(store *s)
{
	s->sql->rollback(s);
	s->sql->no_fault(s);
}
/* Ends the write: rolled back when bad (-1), else committed: rc, or -1
 * when the commit failed (nothing kept). */
static inline int sql_end(store *s, int bad, int rc, char *err)
{
	if (bad) {
		sql_rollback(s);
		return -1;
	}
	return sql_commit(s, err) ? -1 : rc;
}
static inline void sql_no_fault(store *s) { s->sql->no_fault(s); }
static inline int sql_connect(store *s, char *err)
{
	return s->sql->connect ? s->sql->connect(s, err) : 0;
}
/* Before a read outside a write. 0 or -1. */
static inline int sql_ready(store *s, char *err)
{
	sql_no_fault(s);
	return sql_connect(s, err);
}
static inline int64_t sql_one(store *s, const char *sql, const store_args *a, int64_t dflt,
                              int *bad, char *err)
{
	return *bad ? -1 : s->sql->one(s, sql, a, dflt, bad, err);
}
static inline int sql_run(store *s, const char *sql, const store_args *a, int *bad, char *err)
{
	return *bad ? -1 : s->sql->run(s, sql, a, bad, err);
}
static inline int sql_rows(store *s, const char *sql, const store_args *a, store_row_fn fn,
                           void *ctx, int *bad, char *err)
{
	return *bad ? -1 : s->sql->rows(s, sql, a, fn, ctx, bad, err);
}
static inline int64_t row_i64(const store_row *r, int col) { return r->q->col_i64(r, col); }
static inline double row_f64(const store_row *r, int col) { return r->q->col_f64(r, col); }
static inline void row_text(const store_row *r, int col, char *dst, size_t size)
{
	r->q->col_text(r, col, dst, size);
}

/* store_friends.c (store.h, "friends, blocks, invites and presence") */
int store_social_write(store *s, store_social *w, char *err);
int store_social_list(store *s, int64_t account, int which, int limit, store_person_fn fn,
                      void *ctx, char *err);
int store_invite_list(store *s, int64_t account, int limit, store_invite_fn fn, void *ctx,
                      char *err);
int store_social_touch(store *s, int64_t account, int64_t now_ms, char *err);
int store_blockers_among(store *s, int64_t speaker, const int64_t *accounts, int n,
                         unsigned char *blocks, char *err);
int store_is_blocked(store *s, int64_t blocker, int64_t blocked, char *err);
int store_social_knows(store *s, int64_t account, int64_t other, char *err);

/* store_match.c (store.h, "quick match") */
int store_match_join(store *s, const store_match *e, store_match_args *a, char *err);
int store_match_poll(store *s, int64_t account, int64_t now_ms, int64_t ttl_ms,
                     store_match *out, char *err);
int store_match_leave(store *s, int64_t account, char *err);
int store_match_take(store *s, const char *pool, int64_t now_ms, int64_t ttl_ms,
                     int64_t keep_ms, store_match_pick_fn pick, void *ctx, const char *table,
                     store_match *out, char *err);
int store_match_return(store *s, const char *table, const int64_t *accounts,
                       const char (*notes)[STORE_NOTE_SIZE], int n, char *err);
/* Inside the open transaction of a void table's result (both stores'
 * result writes): the no-show's hold and the others' places. 0 or -1. */
int store_match_void_write(store *s, const store_match_void *v, int64_t now_ms, char *err);

/* store_rating.c: the rating update of a rated game (r->nrated > 0),
 * inside the open transaction that stores its result: 0, or -1 (the
 * caller rolls back). */
int store_rate_game(store *s, const char *id, const store_result *r, char *err);

/* store_keep.c (store.h, "keeping an account") */
int store_recovery_set(store *s, int64_t account, const char (*hashes)[STORE_TOKEN_HASH_SIZE],
                       int n, int64_t now_ms, char *err);
int store_recovery_find(store *s, int64_t account, const char *hash, int *left, char *err);
int store_password_set(store *s, int64_t account, const char *pwhash, const char *code_hash,
                       const char *keep, const char *new_session, int64_t now_ms,
                       int64_t expires_ms, store_rekey *rk, char *err);
int store_account_delete(store *s, int64_t account, const char *anon_name, int64_t now_ms,
                         char (**ids)[STORE_ID_SIZE], int *nids, char *err);
int store_account_over_ids(store *s, int64_t account, const char *after, int limit,
                           char (*ids)[STORE_ID_SIZE], char *err);

/* store_plans.c: the explain op (store.h). A store hands its own list
 * statements (as it runs them, with the arguments an asker's request
 * gives them; `prepared`: the store prepares it once and runs it many
 * times, so PostgreSQL may switch to a generic plan) and store_explain
 * explains those, then the lists written once here (store_friends.c,
 * store_keep.c). */
typedef struct store_list_sql {
	const char *name;
	const char *sql;
	const store_args *args;
	int prepared;
} store_list_sql;
int store_explain(store *s, const store_list_sql *own, int nown, int64_t account,
                  store_plan_fn fn, void *ctx, char *err);
/* The texts of the lists written once (store_friends.c, store_keep.c),
 * for store_explain: the friends' list in this store's dialect, the other
 * social lists (STORE_LIST_*), the invites, the finished games of an
 * account by id (the records' download). */
const char *store_social_list_sql(const store *s, int which);
extern const char STORE_INVITES_SQL[];
extern const char STORE_OVER_IDS_SQL[];

/* The entries of a store_ops that both stores point at the rules above. */
#define STORE_SQL_OPS                                                                      \
	.social_write = store_social_write, .social_list = store_social_list,                  \
	.invite_list = store_invite_list, .social_touch = store_social_touch,                  \
	.blockers_among = store_blockers_among, .is_blocked = store_is_blocked,                \
	.social_knows = store_social_knows,                                                    \
	.match_join = store_match_join, .match_poll = store_match_poll,                        \
	.match_leave = store_match_leave, .match_take = store_match_take,                      \
	.match_return = store_match_return,                                                    \
	.recovery_set = store_recovery_set, .recovery_find = store_recovery_find,              \
	.password_set = store_password_set, .account_delete = store_account_delete,            \
	.account_over_ids = store_account_over_ids

#endif
