/*
 * store_pg_keep.c - what the PostgreSQL store (store_pg.c) does for
 * accounts people keep (people/recovery.c): recovery codes, setting a
 * password (and ending sessions), deleting an account with what is
 * personal of it, and the list of an account's finished games for its
 * download. Rare requests: plain parameterised queries, not prepared
 * statements. Sessions are read from the database on every request
 * (session_get), so a session removed here is refused by every process
 * at its next request. Deleting an account sends a seat notification for
 * every game it touched, so processes holding those tables load the
 * anonymised seats.
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_pg_int.h"

/* Runs sql with the parameters; the result (NULL with err on failure). */
static PGresult *kq(pg_store *s, const char *sql, const params *p, char *err)
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

/* Runs sql and throws the result away: the rows it changed, or -1. */
static int kq_do(pg_store *s, const char *sql, const params *p, char *err)
{
	PGresult *r = kq(s, sql, p, err);
	if (!r)
		return -1;
	int n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n;
}

/* A statement on one account ($1), with an optional text ($2). */
static int on_account(pg_store *s, const char *sql, int64_t account, const char *text,
                      char *err)
{
	params p = {0};
	pgs_p_i64(&p, account);
	if (text)
		pgs_p_str(&p, text);
	return kq_do(s, sql, &p, err);
}

int pg_recovery_set(store *base, int64_t account, const char (*hashes)[STORE_TOKEN_HASH_SIZE],
                    int n, int64_t now_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	if (on_account(s, "DELETE FROM recovery_codes WHERE account=$1", account, NULL, err) < 0)
		goto bad;
	for (int i = 0; i < n; i++) {
		params p = {0};
		pgs_p_i64(&p, account);
		pgs_p_str(&p, hashes[i]);
		pgs_p_i64(&p, now_ms);
		if (kq_do(s, "INSERT INTO recovery_codes (account, hash, created_ms) VALUES ($1,$2,$3)",
		          &p, err) < 0)
			goto bad;
	}
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_recovery_find(store *base, int64_t account, const char *hash, int *left, char *err)
{
	pg_store *s = (pg_store *)base;
	*left = 0;
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	params p = {0};
	pgs_p_i64(&p, account);
	pgs_p_str(&p, hash ? hash : "");
	PGresult *r = kq(s, "SELECT count(*), count(*) FILTER (WHERE hash = $2) FROM recovery_codes"
	                    " WHERE account=$1", &p, err);
	if (!r)
		return -1;
	*left = (int)pgs_i64_val(r, 0, 0);
	int found = pgs_i64_val(r, 0, 1) > 0;
	PQclear(r);
	return found;
}

int pg_password_set(store *base, int64_t account, const char *pwhash, const char *code_hash,
                    const char *keep, const char *new_session, int64_t now_ms,
                    int64_t expires_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	int n;
	if (code_hash) {
		/* two processes using one code: the row's lock lets one delete it */
		n = on_account(s, "DELETE FROM recovery_codes WHERE account=$1 AND hash=$2", account,
		               code_hash, err);
		if (n < 0)
			goto bad;
		if (n != 1) {
			pgs_rollback(s);
			s->fault = STORE_FAULT_NONE;
			return STORE_NOT_FOUND;
		}
	}
	n = on_account(s, "UPDATE accounts SET pwhash=$2 WHERE id=$1", account, pwhash, err);
	if (n < 0)
		goto bad;
	if (n != 1) {
		pgs_rollback(s);
		s->fault = STORE_FAULT_NONE;
		return STORE_NOT_FOUND;
	}
	if (keep)
		n = on_account(s, "DELETE FROM sessions WHERE account=$1 AND hash <> $2", account, keep,
		               err);
	else
		n = on_account(s, "DELETE FROM sessions WHERE account=$1", account, NULL, err);
	if (n < 0)
		goto bad;
	if (new_session) {
		params p = {0};
		pgs_p_str(&p, new_session);
		pgs_p_i64(&p, account);
		pgs_p_i64(&p, now_ms);
		pgs_p_i64(&p, expires_ms);
		if (kq_do(s, "INSERT INTO sessions (hash, account, created_ms, expires_ms)"
		             " VALUES ($1,$2,$3,$4)", &p, err) < 0)
			goto bad;
	}
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_account_delete(store *base, int64_t account, const char *anon_name, int64_t now_ms,
                      char (**ids)[STORE_ID_SIZE], int *nids, char *err)
{
	pg_store *s = (pg_store *)base;
	(void)now_ms;
	*ids = NULL;
	*nids = 0;
	if (pgs_begin(s, err))
		return -1;
	/* the account's row first, locked: a second delete of it waits, then
	 * finds nothing */
	params p = {0};
	pgs_p_i64(&p, account);
	PGresult *r = kq(s, "SELECT id FROM accounts WHERE id=$1 FOR UPDATE", &p, err);
	if (!r)
		goto bad;
	int exists = PQntuples(r) == 1;
	PQclear(r);
	r = kq(s, "SELECT game_id, seat FROM seats WHERE account=$1 ORDER BY game_id, seat", &p, err);
	if (!r)
		goto bad;
	int n = PQntuples(r), m = 0;
	char(*list)[STORE_ID_SIZE] = srv_xmalloc((size_t)(n ? n : 1) * STORE_ID_SIZE);
	for (int i = 0; i < n; i++) {
		char path[16];
		const char *id = PQgetvalue(r, i, 0);
		snprintf(path, sizeof path, "%d", atoi(PQgetvalue(r, i, 1)));
		params q = {0};
		pgs_p_str(&q, id);
		pgs_p_str(&q, path);
		if (kq_do(s, "DELETE FROM chat WHERE game_id=$1 AND seat=$2::integer", &q, err) < 0 ||
		    kq_do(s, "UPDATE games SET options=(options::jsonb #- ARRAY['seats', $2, 'name'])::text"
		             " WHERE id=$1", &q, err) < 0 ||
		    pgs_notify(s, STORE_NOTIFY_SEAT, id, atoi(path), err)) {
			PQclear(r);
			free(list);
			goto bad;
		}
		if (!m || strcmp(list[m - 1], id))
			snprintf(list[m++], STORE_ID_SIZE, "%s", id);
	}
	PQclear(r);
	if (on_account(s, "UPDATE seats SET account=0, name=$2 WHERE account=$1", account, anon_name,
	               err) < 0 ||
	    on_account(s, "DELETE FROM chat WHERE account=$1", account, NULL, err) < 0 ||
	    on_account(s, "DELETE FROM ratings WHERE account=$1", account, NULL, err) < 0 ||
	    on_account(s, "DELETE FROM recovery_codes WHERE account=$1", account, NULL, err) < 0 ||
	    on_account(s, "DELETE FROM sessions WHERE account=$1", account, NULL, err) < 0 ||
	    on_account(s, "DELETE FROM accounts WHERE id=$1", account, NULL, err) < 0) {
		free(list);
		goto bad;
	}
	if (pgs_commit(s, err)) { /* rolled back there */
		free(list);
		return -1;
	}
	*ids = list;
	*nids = m;
	return exists;
bad:
	pgs_rollback(s);
	return -1;
}

int pg_account_over_ids(store *base, int64_t account, const char *after, int limit,
                        char (*ids)[STORE_ID_SIZE], char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	params p = {0};
	pgs_p_i64(&p, account);
	pgs_p_str(&p, after);
	pgs_p_i64(&p, limit);
	PGresult *r = kq(s, "SELECT DISTINCT s.game_id FROM seats s JOIN games g ON g.id = s.game_id"
	                    " WHERE s.account=$1 AND g.status='over' AND s.game_id > $2"
	                    " ORDER BY s.game_id LIMIT $3", &p, err);
	if (!r)
		return -1;
	int n = PQntuples(r) < limit ? PQntuples(r) : limit;
	for (int i = 0; i < n; i++)
		pgs_copy_val(ids[i], STORE_ID_SIZE, r, i, 0);
	PQclear(r);
	return n;
}
