/*
 * store_match.c - the quick-match queue of both stores, written once over
 * store_sql.h (see store.h, "quick match", and table/match.c): tables
 * match_queue (one entry per account: its primary key) and match_joins
 * (each account's joins in the current minute, for its limit).
 *
 * SQLite has one writer at a time (BEGIN IMMEDIATE), so the transaction of
 * match_take is alone with the queue: nobody is matched twice.
 *
 * In PostgreSQL several processes match from one queue. match_take reads
 * the waiting entries of a pool with SELECT ... FOR UPDATE SKIP LOCKED: an
 * entry that another process's transaction is matching is locked and not
 * seen, and one it has matched is seen with its table (the row is read
 * again after its lock, READ COMMITTED) and left out by "table_id = ''".
 * So an entry is seated at most once, whatever the processes do at the
 * same time; at worst two processes each see too few entries for a table
 * and both wait for the next poll. Expired entries are removed the same
 * way (SKIP LOCKED), so no call waits on another's rows but a join or a
 * poll on the person's own row. match_join takes a transaction-level
 * advisory lock before it counts the queue, so that the cap (max_queue)
 * is exact, and locks the account's row of match_joins before it reads it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

/* pg_advisory_xact_lock key of the queue's cap ("cqmq" in ASCII) */
#define MATCH_LOCK "1668377969"

#define ENTRY_COLS "account, name, pool, rating, joined_ms, seen_ms, table_id, seat, addr, note"

/* Removes the entries not polled within ttl_ms (inside the open write). */
static void expire(store *s, int64_t now_ms, int64_t ttl_ms, int *bad, char *err)
{
	sql_run(s, s->sql->pg ? "DELETE FROM match_queue WHERE account IN (SELECT account"
	                        " FROM match_queue WHERE seen_ms < $1 FOR UPDATE SKIP LOCKED)"
	                      : "DELETE FROM match_queue WHERE seen_ms < $1",
	        SQL_A1(now_ms - ttl_ms), bad, err);
}

static void read_entry(const store_row *r, store_match *m)
{
	memset(m, 0, sizeof *m);
	m->account = row_i64(r, 0);
	row_text(r, 1, m->name, sizeof m->name);
	row_text(r, 2, m->pool, sizeof m->pool);
	m->rating = row_f64(r, 3);
	m->joined_ms = row_i64(r, 4);
	m->seen_ms = row_i64(r, 5);
	row_text(r, 6, m->table, sizeof m->table);
	m->seat = (int)row_i64(r, 7);
	row_text(r, 8, m->addr, sizeof m->addr);
	row_text(r, 9, m->note, sizeof m->note);
}

struct joins {
	int64_t since;
	int n;
};

static int joins_row(void *ctx, const store_row *r)
{
	struct joins *j = ctx;
	j->since = row_i64(r, 0);
	j->n = (int)row_i64(r, 1);
	return 0;
}

/* The account's joins this minute: 0 and counted, STORE_LIMITED, or -1. */
static int count_join(store *s, int64_t account, int64_t now_ms, int rate, int64_t *retry_ms,
                      int *bad, char *err)
{
	/* the row exists (PostgreSQL: and is locked) before it is read */
	sql_run(s, "INSERT INTO match_joins (account, since_ms, n) VALUES ($1, $2, 0)"
	           " ON CONFLICT (account) DO NOTHING", SQL_A2(account, now_ms), bad, err);
	struct joins j = {now_ms, 0};
#define JOINS "SELECT since_ms, n FROM match_joins WHERE account=$1"
	sql_rows(s, s->sql->pg ? JOINS " FOR UPDATE" : JOINS, SQL_A1(account), joins_row, &j, bad, err);
	if (*bad)
		return -1;
	if (now_ms - j.since >= 60000 || j.since > now_ms) {
		j.since = now_ms;
		j.n = 0;
	}
	if (rate > 0 && j.n >= rate) {
		*retry_ms = j.since + 60000 - now_ms;
		return STORE_LIMITED;
	}
	return sql_run(s, "UPDATE match_joins SET since_ms=$2, n=$3 WHERE account=$1",
	               SQL_A3(account, j.since, j.n + 1), bad, err) < 0 ? -1 : 0;
}

int store_match_join(store *s, const store_match *e, int64_t now_ms, int64_t ttl_ms,
                     int max_queue, int rate_account, int64_t *retry_ms, char *err)
{
	*retry_ms = 0;
	if (sql_begin(s, err))
		return -1;
	int bad = 0, rc = -1;
	expire(s, now_ms, ttl_ms, &bad, err);
	if (!bad)
		rc = count_join(s, e->account, now_ms, rate_account, retry_ms, &bad, err);
	if (!rc && max_queue > 0) {
		if (s->sql->pg)
			sql_run(s, "SELECT pg_advisory_xact_lock(" MATCH_LOCK ")", NULL, &bad, err);
		int64_t n = sql_one(s, "SELECT count(*) FROM match_queue WHERE table_id='' AND note=''"
		                    " AND account<>$1",
		                    SQL_A1(e->account), 0, &bad, err);
		if (!bad && n >= max_queue)
			rc = STORE_FULL;
	}
	if (!rc)
		sql_run(s, "INSERT INTO match_queue (" ENTRY_COLS ")"
		           " VALUES ($1, $2, $3, $4, $5, $5, '', -1, $6, '')"
		           " ON CONFLICT (account) DO UPDATE SET name=excluded.name, pool=excluded.pool,"
		           " rating=excluded.rating, joined_ms=excluded.joined_ms,"
		           " seen_ms=excluded.seen_ms, table_id='', seat=-1, addr=excluded.addr, note=''",
		        SQL_ARGS(SQL_I(e->account), SQL_S(e->name), SQL_S(e->pool), SQL_F(e->rating),
		                 SQL_I(now_ms), SQL_S(e->addr)), &bad, err);
	/* a refused join (STORE_LIMITED, STORE_FULL) commits too: the count
	 * of joins stays */
	return sql_end(s, bad, rc, err);
}

static int poll_row(void *ctx, const store_row *r)
{
	store_match *out = ctx;
	read_entry(r, out);
	out->ready = (int)row_i64(r, 10);
	return 0;
}

int store_match_poll(store *s, int64_t account, int64_t now_ms, int64_t ttl_ms,
                     store_match *out, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	expire(s, now_ms, ttl_ms, &bad, err);
	int found = sql_rows(s, "UPDATE match_queue SET seen_ms=$2 WHERE account=$1 RETURNING "
	                        ENTRY_COLS ", table_id <> '' AND EXISTS (SELECT 1 FROM games"
	                        " WHERE id=table_id)",
	                     SQL_A2(account, now_ms), poll_row, out, &bad, err);
	if (found > 0 && out->note[0]) /* told once */
		sql_run(s, "DELETE FROM match_queue WHERE account=$1", SQL_A1(account), &bad, err);
	return sql_end(s, bad, found > 0, err);
}

int store_match_leave(store *s, int64_t account, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	sql_run(s, "DELETE FROM match_queue WHERE account=$1", SQL_A1(account), &bad, err);
	return sql_end(s, bad, 0, err);
}

struct scan {
	store_match *c;
	int n;
};

static int scan_row(void *ctx, const store_row *r)
{
	struct scan *sc = ctx;
	read_entry(r, &sc->c[sc->n++]);
	return sc->n >= STORE_MATCH_SCAN;
}

/* The waiting entries of the pool (PostgreSQL: those no other process is
 * matching), oldest first, into sc: -1 on a fault. */
static int scan_pool(store *s, const char *pool, struct scan *sc, int *bad, char *err)
{
#define WAITING                                                                            \
	"SELECT " ENTRY_COLS " FROM match_queue WHERE pool=$1 AND table_id='' AND note=''"     \
	" ORDER BY joined_ms, account LIMIT $2"
	return sql_rows(s, s->sql->pg ? WAITING " FOR UPDATE SKIP LOCKED" : WAITING,
	                SQL_ARGS(SQL_S(pool), SQL_I(STORE_MATCH_SCAN)), scan_row, sc, bad, err);
}

int store_match_take(store *s, const char *pool, int64_t now_ms, int64_t ttl_ms,
                     store_match_pick_fn pick, void *ctx, const char *table, store_match *out,
                     char *err)
{
	if (sql_begin(s, err))
		return -1;
	struct scan sc = {srv_xmalloc(STORE_MATCH_SCAN * sizeof *sc.c), 0};
	int bad = 0, k = 0, chosen[8];
	expire(s, now_ms, ttl_ms, &bad, err);
	if (scan_pool(s, pool, &sc, &bad, err) >= 0) {
		k = sc.n ? pick(ctx, sc.c, sc.n, chosen) : 0;
		if (k < 0 || k > 8)
			k = 0;
	}
	for (int i = 0; i < k && !bad; i++) {
		store_match *m = &sc.c[chosen[i]];
		if (sql_run(s, "UPDATE match_queue SET table_id=$1, seat=$2 WHERE account=$3",
		            SQL_ARGS(SQL_S(table), SQL_I(i), SQL_I(m->account)), &bad, err) < 0)
			break;
		out[i] = *m;
		snprintf(out[i].table, sizeof out[i].table, "%s", table);
		out[i].seat = i;
	}
	free(sc.c);
	return sql_end(s, bad, k, err);
}

int store_match_return(store *s, const char *table, const int64_t *accounts,
                       const char (*notes)[STORE_NOTE_SIZE], int n, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		sql_run(s, "UPDATE match_queue SET table_id='', seat=-1, note=$3"
		           " WHERE account=$1 AND table_id=$2",
		        SQL_ARGS(SQL_I(accounts[i]), SQL_S(table), SQL_S(notes[i])), &bad, err);
	return sql_end(s, bad, 0, err);
}
