/*
 * store_pg_match.c - the quick-match queue of the PostgreSQL store (see
 * store.h, "quick match", and table/match.c): tables match_queue (one
 * entry per account: its primary key) and match_joins (each account's
 * joins in the current minute).
 *
 * Several processes match from one queue. match_take reads the waiting
 * entries of a pool with SELECT ... FOR UPDATE SKIP LOCKED: an entry that
 * another process's transaction is matching is locked and not seen, and
 * one it has matched is seen with its table (the row is read again after
 * its lock, READ COMMITTED) and left out by "table_id = ''". So an entry
 * is seated at most once, whatever the processes do at the same time; at
 * worst two processes each see too few entries for a table and both wait
 * for the next poll. Expired entries are removed the same way (SKIP
 * LOCKED), so no call waits on another's rows but a join or a poll on the
 * person's own row. match_join takes a transaction-level advisory lock
 * before it counts the queue, so that the cap (max_queue) is exact.
 *
 * Statements are sent with their text (PQexecParams), not prepared: they
 * are a few a second at most, and this file keeps them to itself.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_pg_int.h"

/* pg_advisory_xact_lock key of the queue's cap ("cqmq" in ASCII) */
#define MATCH_LOCK "1668377969"

/* Runs sql inside the open transaction: its result, or NULL (fault set). */
static PGresult *mq(pg_store *s, const char *sql, const params *p, char *err)
{
	PGresult *r = PQexecParams(s->conn, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 0);
	ExecStatusType st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		pgs_fail(s, r, err, sql);
		PQclear(r);
		return NULL;
	}
	return r;
}

static int mq_do(pg_store *s, const char *sql, const params *p, char *err)
{
	PGresult *r = mq(s, sql, p, err);
	PQclear(r);
	return r ? 0 : -1;
}

static int expire(pg_store *s, int64_t now_ms, int64_t ttl_ms, char *err)
{
	params p = {0};
	pgs_p_i64(&p, now_ms - ttl_ms);
	return mq_do(s, "DELETE FROM match_queue WHERE account IN (SELECT account FROM match_queue"
	                " WHERE seen_ms < $1 FOR UPDATE SKIP LOCKED)", &p, err);
}

#define ENTRY_COLS "account, name, pool, rating, joined_ms, seen_ms, table_id, seat"

static void read_entry(const PGresult *r, int row, store_match *m)
{
	memset(m, 0, sizeof *m);
	m->account = pgs_i64_val(r, row, 0);
	pgs_copy_val(m->name, sizeof m->name, r, row, 1);
	pgs_copy_val(m->pool, sizeof m->pool, r, row, 2);
	m->rating = atof(PQgetvalue(r, row, 3));
	m->joined_ms = pgs_i64_val(r, row, 4);
	m->seen_ms = pgs_i64_val(r, row, 5);
	pgs_copy_val(m->table, sizeof m->table, r, row, 6);
	m->seat = (int)pgs_i64_val(r, row, 7);
}

/* The account's joins this minute (its row locked): 0 and counted,
 * STORE_LIMITED, or -1. */
static int count_join(pg_store *s, int64_t account, int64_t now_ms, int rate, int64_t *retry_ms,
                      char *err)
{
	params p = {0};
	pgs_p_i64(&p, account);
	pgs_p_i64(&p, now_ms);
	/* the row exists (and is locked) before it is read */
	if (mq_do(s, "INSERT INTO match_joins (account, since_ms, n) VALUES ($1, $2, 0)"
	             " ON CONFLICT (account) DO NOTHING", &p, err))
		return -1;
	params q = {0};
	pgs_p_i64(&q, account);
	PGresult *r = mq(s, "SELECT since_ms, n FROM match_joins WHERE account=$1 FOR UPDATE", &q,
	                 err);
	if (!r)
		return -1;
	int64_t since = now_ms;
	int n = 0;
	if (PQntuples(r) == 1) {
		since = pgs_i64_val(r, 0, 0);
		n = (int)pgs_i64_val(r, 0, 1);
	}
	PQclear(r);
	if (now_ms - since >= 60000 || since > now_ms) {
		since = now_ms;
		n = 0;
	}
	if (rate > 0 && n >= rate) {
		*retry_ms = since + 60000 - now_ms;
		return STORE_LIMITED;
	}
	params u = {0};
	pgs_p_i64(&u, account);
	pgs_p_i64(&u, since);
	pgs_p_i64(&u, n + 1);
	return mq_do(s, "UPDATE match_joins SET since_ms=$2, n=$3 WHERE account=$1", &u, err);
}

int pg_match_join(store *base, const store_match *e, int64_t now_ms, int64_t ttl_ms,
                  int max_queue, int rate_account, int64_t *retry_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	*retry_ms = 0;
	if (pgs_begin(s, err))
		return -1;
	int rc = -1;
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	rc = count_join(s, e->account, now_ms, rate_account, retry_ms, err);
	if (rc)
		goto refused;
	if (max_queue > 0) {
		rc = -1;
		if (mq_do(s, "SELECT pg_advisory_xact_lock(" MATCH_LOCK ")", NULL, err))
			goto bad;
		params p = {0};
		pgs_p_i64(&p, e->account);
		PGresult *r = mq(s, "SELECT count(*) FROM match_queue WHERE table_id='' AND account<>$1",
		                 &p, err);
		if (!r)
			goto bad;
		int64_t n = pgs_i64_val(r, 0, 0);
		PQclear(r);
		if (n >= max_queue) {
			rc = STORE_FULL;
			goto refused;
		}
	}
	params p = {0};
	pgs_p_i64(&p, e->account);
	pgs_p_str(&p, e->name);
	pgs_p_str(&p, e->pool);
	pgs_p_f64(&p, e->rating);
	pgs_p_i64(&p, now_ms);
	if (mq_do(s, "INSERT INTO match_queue (" ENTRY_COLS ") VALUES ($1, $2, $3, $4, $5, $5, '', -1)"
	             " ON CONFLICT (account) DO UPDATE SET name=EXCLUDED.name, pool=EXCLUDED.pool,"
	             " rating=EXCLUDED.rating, joined_ms=EXCLUDED.joined_ms,"
	             " seen_ms=EXCLUDED.seen_ms, table_id='', seat=-1", &p, err))
		goto bad;
	return pgs_commit(s, err);
refused:
	if (rc == -1)
		goto bad;
	/* the count of joins stays: a refused join counts too */
	if (pgs_commit(s, err))
		return -1;
	return rc;
bad:
	pgs_rollback(s);
	return -1;
}

int pg_match_poll(store *base, int64_t account, int64_t now_ms, int64_t ttl_ms,
                  store_match *out, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	params p = {0};
	pgs_p_i64(&p, account);
	pgs_p_i64(&p, now_ms);
	PGresult *r = mq(s, "UPDATE match_queue SET seen_ms=$2 WHERE account=$1 RETURNING " ENTRY_COLS
	                    ", table_id <> '' AND EXISTS (SELECT 1 FROM games WHERE id=table_id)",
	                 &p, err);
	if (!r)
		goto bad;
	int found = PQntuples(r) == 1;
	if (found) {
		read_entry(r, 0, out);
		out->ready = PQgetvalue(r, 0, 8)[0] == 't';
	}
	PQclear(r);
	if (pgs_commit(s, err))
		return -1;
	return found;
bad:
	pgs_rollback(s);
	return -1;
}

int pg_match_leave(store *base, int64_t account, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_i64(&p, account);
	if (mq_do(s, "DELETE FROM match_queue WHERE account=$1", &p, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_match_take(store *base, const char *pool, int64_t now_ms, int64_t ttl_ms,
                  store_match_pick_fn pick, void *ctx, const char *table, store_match *out,
                  char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	store_match *c = NULL;
	if (expire(s, now_ms, ttl_ms, err))
		goto bad;
	params p = {0};
	pgs_p_str(&p, pool);
	pgs_p_i64(&p, STORE_MATCH_SCAN);
	PGresult *r = mq(s, "SELECT " ENTRY_COLS " FROM match_queue WHERE pool=$1 AND table_id=''"
	                    " ORDER BY joined_ms, account LIMIT $2 FOR UPDATE SKIP LOCKED", &p, err);
	if (!r)
		goto bad;
	int n = PQntuples(r);
	if (n > STORE_MATCH_SCAN)
		n = STORE_MATCH_SCAN;
	c = srv_xmalloc((size_t)(n ? n : 1) * sizeof *c);
	for (int i = 0; i < n; i++)
		read_entry(r, i, &c[i]);
	PQclear(r);
	int chosen[8];
	int k = n ? pick(ctx, c, n, chosen) : 0;
	if (k < 0 || k > 8)
		k = 0;
	for (int i = 0; i < k; i++) {
		store_match *m = &c[chosen[i]];
		params u = {0};
		pgs_p_str(&u, table);
		pgs_p_i64(&u, i);
		pgs_p_i64(&u, m->account);
		if (mq_do(s, "UPDATE match_queue SET table_id=$1, seat=$2 WHERE account=$3", &u, err))
			goto bad;
		out[i] = *m;
		snprintf(out[i].table, sizeof out[i].table, "%s", table);
		out[i].seat = i;
	}
	free(c);
	if (pgs_commit(s, err))
		return -1;
	return k;
bad:
	free(c);
	pgs_rollback(s);
	return -1;
}
