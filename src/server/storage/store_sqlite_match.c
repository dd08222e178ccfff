/*
 * store_sqlite_match.c - the quick-match queue of the SQLite store (see
 * store.h, "quick match", and table/match.c): tables match_queue (one
 * entry per account) and match_joins (each account's joins in the current
 * minute, for its limit). SQLite has one writer at a time (BEGIN
 * IMMEDIATE), so the transaction of match_take is alone with the queue:
 * nobody is matched twice. Statements are prepared when called, as the
 * chat's are (a few a second at most).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_sqlite_int.h"

static int prep(sqlite_store *s, const char *sql, sqlite3_stmt **st, char *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return sq_fail(s, err, sql);
	}
	return 0;
}

/* Runs a statement without rows to its end and finalizes it: 0 or -1. */
static int done(sqlite_store *s, sqlite3_stmt *st, const char *what, char *err)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		sq_fail(s, err, what);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Removes the entries not polled within ttl_ms (inside the open write). */
static int expire(sqlite_store *s, int64_t now_ms, int64_t ttl_ms, char *err)
{
	sqlite3_stmt *st;
	if (prep(s, "DELETE FROM match_queue WHERE seen_ms < ?", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, now_ms - ttl_ms);
	return done(s, st, "expiring the match queue", err);
}

static void read_entry(sqlite3_stmt *st, store_match *m)
{
	memset(m, 0, sizeof *m);
	m->account = sqlite3_column_int64(st, 0);
	sq_copy_col(m->name, sizeof m->name, st, 1);
	sq_copy_col(m->pool, sizeof m->pool, st, 2);
	m->rating = sqlite3_column_double(st, 3);
	m->joined_ms = sqlite3_column_int64(st, 4);
	m->seen_ms = sqlite3_column_int64(st, 5);
	sq_copy_col(m->table, sizeof m->table, st, 6);
	m->seat = sqlite3_column_int(st, 7);
}

#define ENTRY_COLS "account, name, pool, rating, joined_ms, seen_ms, table_id, seat"

/* The account's joins this minute: 0 and counted, STORE_LIMITED, or -1. */
static int count_join(sqlite_store *s, int64_t account, int64_t now_ms, int rate,
                      int64_t *retry_ms, char *err)
{
	sqlite3_stmt *st;
	if (prep(s, "SELECT since_ms, n FROM match_joins WHERE account=?", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, account);
	int rc = sqlite3_step(st);
	int64_t since = now_ms;
	int n = 0;
	if (rc == SQLITE_ROW) {
		since = sqlite3_column_int64(st, 0);
		n = sqlite3_column_int(st, 1);
	} else if (rc != SQLITE_DONE) {
		sq_fail(s, err, "reading the account's joins");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (now_ms - since >= 60000 || since > now_ms) {
		since = now_ms;
		n = 0;
	}
	if (rate > 0 && n >= rate) {
		*retry_ms = since + 60000 - now_ms;
		return STORE_LIMITED;
	}
	if (prep(s, "INSERT INTO match_joins (account, since_ms, n) VALUES (?1, ?2, ?3)"
	            " ON CONFLICT(account) DO UPDATE SET since_ms=?2, n=?3", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, account);
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_int(st, 3, n + 1);
	return done(s, st, "counting the account's joins", err);
}

int sq_match_join(store *base, const store_match *e, int64_t now_ms, int64_t ttl_ms,
                  int max_queue, int rate_account, int64_t *retry_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	*retry_ms = 0;
	if (sq_begin(s, err))
		return -1;
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	int rc = count_join(s, e->account, now_ms, rate_account, retry_ms, err);
	if (rc)
		goto refused;
	if (max_queue > 0) {
		if (prep(s, "SELECT count(*) FROM match_queue WHERE table_id='' AND account<>?", &st,
		         err))
			goto bad;
		sqlite3_bind_int64(st, 1, e->account);
		int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
		if (n < 0)
			sq_fail(s, err, "counting the match queue");
		sqlite3_finalize(st);
		if (n < 0)
			goto bad;
		if (n >= max_queue) {
			rc = STORE_FULL;
			goto refused;
		}
	}
	if (prep(s, "INSERT OR REPLACE INTO match_queue (" ENTRY_COLS ")"
	            " VALUES (?, ?, ?, ?, ?, ?, '', -1)", &st, err))
		goto bad;
	sqlite3_bind_int64(st, 1, e->account);
	sq_bind_text(st, 2, e->name);
	sq_bind_text(st, 3, e->pool);
	sqlite3_bind_double(st, 4, e->rating);
	sqlite3_bind_int64(st, 5, now_ms);
	sqlite3_bind_int64(st, 6, now_ms);
	if (done(s, st, "joining the match queue", err))
		goto bad;
	return sq_commit(s, err);
refused:
	if (rc == -1)
		goto bad;
	/* the count of joins stays: a refused join counts too */
	if (sq_commit(s, err))
		return -1;
	return rc;
bad:
	sq_rollback(s);
	return -1;
}

int sq_match_poll(store *base, int64_t account, int64_t now_ms, int64_t ttl_ms,
                  store_match *out, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	if (prep(s, "UPDATE match_queue SET seen_ms=?2 WHERE account=?1 RETURNING " ENTRY_COLS
	            ", table_id <> '' AND EXISTS (SELECT 1 FROM games WHERE id=table_id)",
	         &st, err))
		goto bad;
	sqlite3_bind_int64(st, 1, account);
	sqlite3_bind_int64(st, 2, now_ms);
	int rc = sqlite3_step(st), found = 0;
	if (rc == SQLITE_ROW) {
		read_entry(st, out);
		out->ready = sqlite3_column_int(st, 8);
		found = 1;
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "polling the match queue");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto bad;
	if (sq_commit(s, err))
		return -1;
	return found;
bad:
	sq_rollback(s);
	return -1;
}

int sq_match_leave(store *base, int64_t account, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (prep(s, "DELETE FROM match_queue WHERE account=?", &st, err))
		goto bad;
	sqlite3_bind_int64(st, 1, account);
	if (done(s, st, "leaving the match queue", err))
		goto bad;
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

int sq_match_take(store *base, const char *pool, int64_t now_ms, int64_t ttl_ms,
                  store_match_pick_fn pick, void *ctx, const char *table, store_match *out,
                  char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	store_match *c = srv_xmalloc(STORE_MATCH_SCAN * sizeof *c);
	int n = 0, taken = 0;
	if (sq_begin(s, err)) {
		free(c);
		return -1;
	}
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	if (prep(s, "SELECT " ENTRY_COLS " FROM match_queue WHERE pool=? AND table_id=''"
	            " ORDER BY joined_ms, account LIMIT ?", &st, err))
		goto bad;
	sq_bind_text(st, 1, pool);
	sqlite3_bind_int(st, 2, STORE_MATCH_SCAN);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < STORE_MATCH_SCAN)
		read_entry(st, &c[n++]);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		sq_fail(s, err, "reading the match queue");
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto bad;
	int chosen[8];
	int k = n ? pick(ctx, c, n, chosen) : 0;
	if (k < 0 || k > 8)
		k = 0;
	for (int i = 0; i < k; i++) {
		store_match *m = &c[chosen[i]];
		if (prep(s, "UPDATE match_queue SET table_id=?, seat=? WHERE account=?", &st, err))
			goto bad;
		sq_bind_text(st, 1, table);
		sqlite3_bind_int(st, 2, i);
		sqlite3_bind_int64(st, 3, m->account);
		if (done(s, st, "seating from the match queue", err))
			goto bad;
		out[i] = *m;
		snprintf(out[i].table, sizeof out[i].table, "%s", table);
		out[i].seat = i;
	}
	taken = k;
	free(c);
	if (sq_commit(s, err))
		return -1;
	return taken;
bad:
	free(c);
	sq_rollback(s);
	return -1;
}
