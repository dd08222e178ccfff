/*
 * store_sqlite_keep.c - what the SQLite store (store_sqlite.c) does for
 * accounts people keep (people/recovery.c): recovery codes, setting a
 * password (and ending sessions), deleting an account with what is
 * personal of it, and the list of an account's finished games for its
 * download. Rare requests: statements are prepared when called. Writes go
 * through store_sqlite.c's helpers like the others (one transaction, or a
 * savepoint in the writer's group).
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

/* Steps a prepared statement to its end and finalizes it: 0, or -1. */
static int finish(sqlite_store *s, sqlite3_stmt *st, const char *what, char *err)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		sq_fail(s, err, what);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A statement on one account (?1), with an optional text (?2): 0 or -1. */
static int on_account(sqlite_store *s, const char *sql, int64_t account, const char *text,
                      char *err)
{
	sqlite3_stmt *st;
	if (prep(s, sql, &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, account);
	if (text)
		sq_bind_text(st, 2, text);
	return finish(s, st, sql, err);
}

int sq_recovery_set(store *base, int64_t account, const char (*hashes)[STORE_TOKEN_HASH_SIZE],
                    int n, int64_t now_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (on_account(s, "DELETE FROM recovery_codes WHERE account=?1", account, NULL, err))
		goto bad;
	for (int i = 0; i < n; i++) {
		if (prep(s, "INSERT INTO recovery_codes (account, hash, created_ms) VALUES (?,?,?)",
		         &st, err))
			goto bad;
		sqlite3_bind_int64(st, 1, account);
		sq_bind_text(st, 2, hashes[i]);
		sqlite3_bind_int64(st, 3, now_ms);
		if (finish(s, st, "storing a recovery code", err))
			goto bad;
	}
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

int sq_recovery_find(store *base, int64_t account, const char *hash, int *left, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	*left = 0;
	if (prep(s, "SELECT count(*), coalesce(sum(hash = ?2), 0) FROM recovery_codes"
	            " WHERE account=?1", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, account);
	sq_bind_text(st, 2, hash ? hash : "");
	int rc = sqlite3_step(st), found = -1;
	if (rc == SQLITE_ROW) {
		*left = sqlite3_column_int(st, 0);
		found = sqlite3_column_int(st, 1) > 0;
	} else {
		sq_fail(s, err, "reading the recovery codes");
	}
	sqlite3_finalize(st);
	return found;
}

int sq_password_set(store *base, int64_t account, const char *pwhash, const char *code_hash,
                    const char *keep, const char *new_session, int64_t now_ms,
                    int64_t expires_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (code_hash) {
		if (on_account(s, "DELETE FROM recovery_codes WHERE account=?1 AND hash=?2", account,
		               code_hash, err))
			goto bad;
		if (sqlite3_changes(s->db) != 1) {
			sq_rollback(s);
			s->fault = STORE_FAULT_NONE;
			return STORE_NOT_FOUND;
		}
	}
	if (on_account(s, "UPDATE accounts SET pwhash=?2 WHERE id=?1", account, pwhash, err))
		goto bad;
	if (sqlite3_changes(s->db) != 1) {
		sq_rollback(s);
		s->fault = STORE_FAULT_NONE;
		return STORE_NOT_FOUND;
	}
	if (on_account(s, "DELETE FROM sessions WHERE account=?1 AND hash IS NOT ?2", account,
	               keep, err))
		goto bad;
	if (new_session) {
		if (prep(s, "INSERT INTO sessions (hash, account, created_ms, expires_ms)"
		            " VALUES (?,?,?,?)", &st, err))
			goto bad;
		sq_bind_text(st, 1, new_session);
		sqlite3_bind_int64(st, 2, account);
		sqlite3_bind_int64(st, 3, now_ms);
		sqlite3_bind_int64(st, 4, expires_ms);
		if (finish(s, st, "making a session", err))
			goto bad;
	}
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

int sq_account_delete(store *base, int64_t account, const char *anon_name, int64_t now_ms,
                      char (**ids)[STORE_ID_SIZE], int *nids, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	(void)now_ms;
	*ids = NULL;
	*nids = 0;
	int cap = 0, n = 0, *seats = NULL;
	char (*list)[STORE_ID_SIZE] = NULL;
	if (sq_begin(s, err))
		return -1;
	/* the seats first: every game they are in is touched */
	if (prep(s, "SELECT game_id, seat FROM seats WHERE account=? ORDER BY game_id, seat", &st,
	         err))
		goto bad;
	sqlite3_bind_int64(st, 1, account);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			list = srv_xrealloc(list, (size_t)cap * sizeof *list);
			seats = srv_xrealloc(seats, (size_t)cap * sizeof *seats);
		}
		sq_copy_col(list[n], STORE_ID_SIZE, st, 0);
		seats[n++] = sqlite3_column_int(st, 1);
	}
	if (rc != SQLITE_DONE) {
		sq_fail(s, err, "listing an account's seats");
		sqlite3_finalize(st);
		goto bad;
	}
	sqlite3_finalize(st);
	for (int i = 0; i < n; i++) {
		char path[48];
		snprintf(path, sizeof path, "$.seats[%d].name", seats[i]);
		if (prep(s, "DELETE FROM chat WHERE game_id=?1 AND seat=?2", &st, err))
			goto bad;
		sq_bind_text(st, 1, list[i]);
		sqlite3_bind_int(st, 2, seats[i]);
		if (finish(s, st, "removing chat lines", err))
			goto bad;
		if (prep(s, "UPDATE games SET options=json_remove(options, ?2) WHERE id=?1"
		            " AND json_valid(options)", &st, err))
			goto bad;
		sq_bind_text(st, 1, list[i]);
		sq_bind_text(st, 2, path);
		if (finish(s, st, "anonymising a table's options", err) || sq_bump(s, list[i], err))
			goto bad;
	}
	if (on_account(s, "UPDATE seats SET account=0, name=?2 WHERE account=?1", account,
	               anon_name, err) ||
	    on_account(s, "DELETE FROM chat WHERE account=?1", account, NULL, err) ||
	    on_account(s, "DELETE FROM ratings WHERE account=?1", account, NULL, err) ||
	    on_account(s, "DELETE FROM recovery_codes WHERE account=?1", account, NULL, err) ||
	    on_account(s, "DELETE FROM sessions WHERE account=?1", account, NULL, err) ||
	    on_account(s, "DELETE FROM accounts WHERE id=?1", account, NULL, err))
		goto bad;
	int gone = sqlite3_changes(s->db);
	if (sq_commit(s, err))
		goto fail;
	free(seats);
	/* one id per game (a game may hold two seats of one account) */
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!m || strcmp(list[m - 1], list[i]))
			memmove(list[m++], list[i], STORE_ID_SIZE);
	*ids = list;
	*nids = m;
	return gone;
bad:
	sq_rollback(s);
fail:
	free(list);
	free(seats);
	return -1;
}

int sq_account_over_ids(store *base, int64_t account, const char *after, int limit,
                        char (*ids)[STORE_ID_SIZE], char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT DISTINCT s.game_id FROM seats s JOIN games g ON g.id = s.game_id"
	            " WHERE s.account=?1 AND g.status='over' AND s.game_id > ?2"
	            " ORDER BY s.game_id LIMIT ?3", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, account);
	sq_bind_text(st, 2, after);
	sqlite3_bind_int(st, 3, limit);
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < limit)
		sq_copy_col(ids[n++], STORE_ID_SIZE, st, 0);
	int bad = rc != SQLITE_ROW && rc != SQLITE_DONE;
	if (bad)
		sq_fail(s, err, "listing an account's finished games");
	sqlite3_finalize(st);
	return bad ? -1 : n;
}
