/*
 * store_match.c - the quick-match queue of both stores, written once over
 * store_sql.h (see store.h, "quick match", and table/match.c): tables
 * match_queue (one entry per account: its primary key), match_joins
 * (each account's joins in the current minute, for its limit),
 * match_seats (who sat at which quick-match table: recent opponents, and
 * a table that waits for someone's first move), match_holds (no-shows
 * held out of the queue) and match_voids (the people a void table sends
 * back to the front of the queue).
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
 * and both wait for the next poll. Expired entries (and old rows of
 * match_seats) are removed the same way (SKIP LOCKED), so no call waits on
 * another's rows but a join or a poll on the person's own row. match_join
 * takes a transaction-level advisory lock before it counts the queue, so
 * that the cap (max_queue) is exact, and locks the account's row of
 * match_joins before it reads it. Holds and voids are rows of one account
 * each, written in the transaction of the void table's result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

/* pg_advisory_xact_lock key of the queue's cap ("cqmq" in ASCII) */
#define MATCH_LOCK "1668377969"
/* a table matched this long ago and not stored is not being made any more
 * (its people's clients give up after 20 s: table/match.c) */
#define MAKING_MS 30000
/* the latest tables of an account a join looks at for a first move due */
#define PENDING_LOOK 4

#define ENTRY_COLS "account, name, pool, rating, joined_ms, seen_ms, table_id, seat, addr, note, recent"

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
	/* the recent opponents: ids written by recent_text, "12,34" */
	char rec[STORE_MATCH_RECENT * 21 + 1];
	row_text(r, 10, rec, sizeof rec);
	for (char *p = rec, *end; *p && m->nrecent < STORE_MATCH_RECENT; p = end + (*end == ',')) {
		long long id = strtoll(p, &end, 10);
		if (end == p)
			break;
		m->recent[m->nrecent++] = id;
	}
}

struct recent {
	char text[STORE_MATCH_RECENT * 21 + 1];
	int n;
};

static int recent_row(void *ctx, const store_row *r)
{
	struct recent *rc = ctx;
	size_t len = strlen(rc->text);
	snprintf(rc->text + len, sizeof rc->text - len, "%s%lld", rc->n++ ? "," : "",
	         (long long)row_i64(r, 0));
	return rc->n >= STORE_MATCH_RECENT;
}

struct until {
	int64_t a, b;
	int found;
};

static int until_row(void *ctx, const store_row *r)
{
	struct until *u = ctx;
	u->a = row_i64(r, 0);
	u->b = row_i64(r, 1);
	u->found = 1;
	return 1;
}

static int table_row(void *ctx, const store_row *r)
{
	row_text(r, 0, ctx, STORE_ID_SIZE);
	return 1;
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

/* Why the account may not join now (inside the open write): STORE_HELD,
 * STORE_PENDING, 0, or -1 (*bad). */
static int refused(store *s, int64_t account, store_match_args *a, int *bad, char *err)
{
	struct until hold = {0, 0, 0};
	sql_rows(s, "SELECT until_ms, strikes FROM match_holds WHERE account=$1", SQL_A1(account),
	         until_row, &hold, bad, err);
	if (*bad)
		return -1;
	if (hold.found && hold.a > a->now_ms) {
		a->retry_ms = hold.a - a->now_ms;
		return STORE_HELD;
	}
	/* a table that waits for the account's first move: being played with
	 * no move of its seat, or still being made (not stored yet, just now).
	 * Only the account's latest tables can: no join is let through while
	 * one waits, so none was made since but from joins that came while it
	 * was being made (the index match_seats_recent; a few rows, whatever
	 * the account did before) */
	a->table[0] = 0;
	sql_rows(s, "SELECT ms.table_id FROM (SELECT table_id, seat, at_ms FROM match_seats"
	            " WHERE account = $1 AND at_ms >= $2 ORDER BY at_ms DESC LIMIT $4) ms"
	            " LEFT JOIN games g ON g.id = ms.table_id"
	            " WHERE (g.id IS NULL AND ms.at_ms >= $3) OR (g.status = 'playing' AND NOT EXISTS"
	            " (SELECT 1 FROM moves m WHERE m.game_id = ms.table_id AND m.player = ms.seat))"
	            " LIMIT 1",
	         SQL_ARGS(SQL_I(account), SQL_I(a->now_ms - a->pending_ms),
	                  SQL_I(a->now_ms - MAKING_MS), SQL_I(PENDING_LOOK)),
	         table_row, a->table, bad, err);
	if (*bad)
		return -1;
	return a->table[0] ? STORE_PENDING : 0;
}

int store_match_join(store *s, const store_match *e, store_match_args *a, char *err)
{
	a->retry_ms = 0;
	a->front = 0;
	a->joined_ms = a->now_ms;
	if (sql_begin(s, err))
		return -1;
	int bad = 0, rc = -1;
	expire(s, a->now_ms, a->ttl_ms, &bad, err);
	if (!bad)
		rc = refused(s, e->account, a, &bad, err);
	if (!rc) {
		/* a table voided by a no-show sends the account back to its place,
		 * without counting the join */
		struct until v = {0, 0, 0};
		sql_rows(s, "SELECT front_ms, at_ms FROM match_voids WHERE account=$1 AND at_ms >= $2",
		         SQL_A2(e->account, a->now_ms - a->void_ms), until_row, &v, &bad, err);
		if (v.found) {
			a->front = 1;
			a->joined_ms = v.a;
			sql_run(s, "DELETE FROM match_voids WHERE account=$1", SQL_A1(e->account), &bad, err);
		} else if (!bad) {
			rc = count_join(s, e->account, a->now_ms, a->rate_account, &a->retry_ms, &bad, err);
		}
	}
	if (!rc && a->max_queue > 0) {
		if (s->sql->pg)
			sql_run(s, "SELECT pg_advisory_xact_lock(" MATCH_LOCK ")", NULL, &bad, err);
		int64_t n = sql_one(s, "SELECT count(*) FROM match_queue WHERE table_id='' AND note=''"
		                    " AND account<>$1",
		                    SQL_A1(e->account), 0, &bad, err);
		if (!bad && n >= a->max_queue)
			rc = STORE_FULL;
	}
	struct recent rec = {"", 0};
	if (!rc && a->recent_ms > 0)
		/* newest first through match_seats_recent: at most 8 tables read */
		sql_rows(s, "SELECT o.account FROM (SELECT table_id FROM match_seats"
		            " WHERE account = $1 AND at_ms >= $2 ORDER BY at_ms DESC LIMIT $3) me"
		            " JOIN match_seats o ON o.table_id = me.table_id AND o.account <> $1",
		         SQL_A3(e->account, a->now_ms - a->recent_ms, STORE_MATCH_RECENT), recent_row,
		         &rec, &bad, err);
	if (!rc)
		sql_run(s, "INSERT INTO match_queue (" ENTRY_COLS ")"
		           " VALUES ($1, $2, $3, $4, $5, $6, '', -1, $7, '', $8)"
		           " ON CONFLICT (account) DO UPDATE SET name=excluded.name, pool=excluded.pool,"
		           " rating=excluded.rating, joined_ms=excluded.joined_ms,"
		           " seen_ms=excluded.seen_ms, table_id='', seat=-1, addr=excluded.addr, note='',"
		           " recent=excluded.recent",
		        SQL_ARGS(SQL_I(e->account), SQL_S(e->name), SQL_S(e->pool), SQL_F(e->rating),
		                 SQL_I(a->joined_ms), SQL_I(a->now_ms), SQL_S(e->addr), SQL_S(rec.text)),
		        &bad, err);
	/* a refused join (STORE_LIMITED, STORE_FULL) commits too: the count
	 * of joins stays */
	return sql_end(s, bad, rc, err);
}

static int poll_row(void *ctx, const store_row *r)
{
	store_match *out = ctx;
	read_entry(r, out);
	out->ready = (int)row_i64(r, 11);
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
                     int64_t keep_ms, store_match_pick_fn pick, void *ctx, const char *table,
                     store_match *out, char *err)
{
	if (sql_begin(s, err))
		return -1;
	struct scan sc = {srv_xcalloc(STORE_MATCH_SCAN, sizeof *sc.c), 0};
	int bad = 0, k = 0, chosen[8];
	expire(s, now_ms, ttl_ms, &bad, err);
	/* who sat where, kept keep_ms (the index match_seats_at) */
	sql_run(s, s->sql->pg ? "DELETE FROM match_seats WHERE (account, table_id) IN (SELECT"
	                        " account, table_id FROM match_seats WHERE at_ms < $1"
	                        " FOR UPDATE SKIP LOCKED)"
	                      : "DELETE FROM match_seats WHERE at_ms < $1",
	        SQL_A1(now_ms - keep_ms), &bad, err);
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
		sql_run(s, "INSERT INTO match_seats (account, table_id, seat, at_ms)"
		           " VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
		        SQL_ARGS(SQL_I(m->account), SQL_S(table), SQL_I(i), SQL_I(now_ms)), &bad, err);
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
	/* nobody sat there after all */
	sql_run(s, "DELETE FROM match_seats WHERE table_id=$1", SQL_ARGS(SQL_S(table)), &bad, err);
	return sql_end(s, bad, 0, err);
}

int store_match_void_write(store *s, const store_match_void *v, int64_t now_ms, char *err)
{
	int bad = 0;
	if (v->no_show) {
		/* a repeat within hold_max_ms of the end of the last hold doubles it */
		struct until h = {0, 0, 0};
		sql_rows(s, "SELECT until_ms, strikes FROM match_holds WHERE account=$1",
		         SQL_A1(v->no_show), until_row, &h, &bad, err);
		int strikes = h.found && now_ms <= h.a + v->hold_max_ms ? (int)h.b + 1 : 1;
		int64_t hold = v->hold_ms;
		for (int i = 1; i < strikes && hold < v->hold_max_ms; i++)
			hold *= 2;
		if (hold > v->hold_max_ms)
			hold = v->hold_max_ms;
		sql_run(s, "INSERT INTO match_holds (account, strikes, until_ms) VALUES ($1, $2, $3)"
		           " ON CONFLICT (account) DO UPDATE SET strikes=excluded.strikes,"
		           " until_ms=excluded.until_ms",
		        SQL_A3(v->no_show, strikes, now_ms + hold), &bad, err);
		srv_event("table=%s event=held account=%lld strikes=%d hold_s=%lld", v->table,
		          (long long)v->no_show, strikes, (long long)(hold / 1000));
	}
	for (int i = 0; i < v->nshown && i < STORE_MAX_RATED; i++)
		sql_run(s, "INSERT INTO match_voids (account, table_id, front_ms, at_ms)"
		           " VALUES ($1, $2, $3, $4) ON CONFLICT (account) DO UPDATE SET"
		           " table_id=excluded.table_id, front_ms=excluded.front_ms, at_ms=excluded.at_ms",
		        SQL_ARGS(SQL_I(v->shown[i]), SQL_S(v->table), SQL_I(v->front_ms), SQL_I(now_ms)),
		        &bad, err);
	return bad ? -1 : 0;
}
