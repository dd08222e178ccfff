/*
 * store_sqlite_social.c - what the SQLite store (store_sqlite.c) keeps of
 * the people and what they say: accounts, sessions, the server's keys,
 * the leaderboard and an account's games; chat lines, rematches and
 * analyses. Writes go through store_sqlite.c's helpers like the games'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_sqlite_int.h"

/* ---- chat and rematch: statements prepared when called (a chat line
 * is a few a minute at most, not a hot path) ---- */

static int prep(sqlite_store *s, const char *sql, sqlite3_stmt **st, char *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return sq_fail(s, err, sql);
	}
	return 0;
}

/* The line gets the game's next number (store.h). */
int sq_add_chat(store *base, const char *id, store_chat *m, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (prep(s, "INSERT INTO chat (game_id, n, seat, name, text, phrase, at_ms, account)"
	            " SELECT ?1, coalesce(max(n) + 1, 0), ?2, ?3, ?4, ?5, ?6, ?7 FROM chat"
	            " WHERE game_id=?1 RETURNING n", &st, err)) {
		sq_rollback(s);
		return -1;
	}
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, m->seat);
	sq_bind_text(st, 3, m->name);
	sq_bind_text(st, 4, m->text);
	sq_bind_text(st, 5, m->phrase);
	sqlite3_bind_int64(st, 6, m->at_ms);
	sqlite3_bind_int64(st, 7, m->account);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		m->n = sqlite3_column_int(st, 0);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "adding a chat line");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_list_chat(store *base, const char *id, int from, int limit, store_chat_fn fn,
                 void *ctx, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT n, seat, name, text, phrase, at_ms, account FROM chat WHERE game_id=?"
	            " AND n >= ? ORDER BY n LIMIT ?", &st, err))
		return -1;
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, from);
	sqlite3_bind_int(st, 3, limit);
	int rc, count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_chat m;
		memset(&m, 0, sizeof m);
		m.n = sqlite3_column_int(st, 0);
		m.seat = sqlite3_column_int(st, 1);
		sq_copy_col(m.name, sizeof m.name, st, 2);
		const unsigned char *tx = sqlite3_column_text(st, 3);
		m.text = tx ? (const char *)tx : "";
		sq_copy_col(m.phrase, sizeof m.phrase, st, 4);
		m.at_ms = sqlite3_column_int64(st, 5);
		m.account = sqlite3_column_int64(st, 6);
		count++;
		if (fn(ctx, &m))
			break;
	}
	int bad = rc != SQLITE_ROW && rc != SQLITE_DONE;
	if (bad)
		sq_fail(s, err, "reading the chat");
	sqlite3_finalize(st);
	return bad ? -1 : count;
}

int sq_count_chat(store *base, const char *id, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT coalesce(max(n) + 1, 0) FROM chat WHERE game_id=?", &st, err))
		return -1;
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st), n = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	if (rc != SQLITE_ROW)
		sq_fail(s, err, "counting the chat");
	sqlite3_finalize(st);
	return n;
}

int sq_save_analysis(store *base, const char *id, const char *json, int64_t at_ms,
                     char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (store_analysis_too_big(id, json, err)) {
		s->fault = STORE_FAULT_OTHER;
		return -1;
	}
	if (sq_begin(s, err))
		return -1;
	/* the first one stays: an analysis is never recomputed */
	if (prep(s, "INSERT INTO analyses (game_id, analysis, at_ms) VALUES (?,?,?)"
	            " ON CONFLICT(game_id) DO NOTHING", &st, err)) {
		sq_rollback(s);
		return -1;
	}
	sq_bind_text(st, 1, id);
	sq_bind_text(st, 2, json);
	sqlite3_bind_int64(st, 3, at_ms);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "storing an analysis");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_load_analysis(store *base, const char *id, char **out, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	*out = NULL;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT analysis FROM analyses WHERE game_id=?", &st, err))
		return -1;
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st), found = 0;
	if (rc == SQLITE_ROW) {
		const unsigned char *tx = sqlite3_column_text(st, 0);
		*out = srv_xstrdup(tx ? (const char *)tx : "");
		found = 1;
	} else if (rc != SQLITE_DONE) {
		sq_fail(s, err, "reading an analysis");
		found = -1;
	}
	sqlite3_finalize(st);
	return found;
}

int sq_create_rematch(store *base, const char *old_id, const store_game *g, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (sq_insert_game(s, g, err))
		goto bad;
	/* the old game remembers its rematch, unless it has one already that
	 * is still stored (an open rematch that expired is gone) */
	if (prep(s, "UPDATE games SET rematch=?1 WHERE id=?2 AND (rematch IS NULL OR rematch NOT IN"
	            " (SELECT id FROM games WHERE id <> ?1))", &st, err))
		goto bad;
	sq_bind_text(st, 1, g->id);
	sq_bind_text(st, 2, old_id);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "linking the rematch");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto bad;
	if (sqlite3_changes(s->db) != 1) {
		s->fault = STORE_FAULT_OTHER;
		snprintf(err, STORE_ERR_SIZE, "game %s has a rematch already (or is not stored)", old_id);
		goto bad;
	}
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

/* ---- accounts ---------------------------------------------------------------------------- */

static void read_account(sqlite3_stmt *st, store_account *a)
{
	memset(a, 0, sizeof *a);
	a->id = sqlite3_column_int64(st, 0);
	sq_copy_col(a->name, sizeof a->name, st, 1);
	sq_copy_col(a->pwhash, sizeof a->pwhash, st, 2);
	a->created_ms = sqlite3_column_int64(st, 3);
	a->rating = sqlite3_column_double(st, 4);
	a->rd = sqlite3_column_double(st, 5);
	a->vol = sqlite3_column_double(st, 6);
	a->games = sqlite3_column_int(st, 7);
	a->established = sqlite3_column_int(st, 8) != 0;
	if (sqlite3_column_count(st) > 9) /* the leaderboard's rows have no epoch */
		a->epoch = sqlite3_column_int64(st, 9);
}

/* A statement that returns one account row or none: 1, 0, or -1. */
static int one_account(sqlite_store *s, int k, store_account *a, char *err)
{
	sqlite3_stmt *st = s->st[k];
	int rc = sqlite3_step(st), ret;
	if (rc == SQLITE_ROW) {
		read_account(st, a);
		ret = 1;
	} else {
		ret = rc == SQLITE_DONE ? 0 : sq_fail(s, err, "reading an account");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

static int insert_session(sqlite_store *s, const char *hash, int64_t account, int64_t now_ms,
                          int64_t expires_ms, char *err)
{
	sqlite3_stmt *st = s->st[ST_DEL_EXPIRED];
	sqlite3_bind_int64(st, 1, now_ms);
	if (sq_step_done(s, ST_DEL_EXPIRED, err))
		return -1;
	st = s->st[ST_INS_SESSION];
	sq_bind_text(st, 1, hash);
	sqlite3_bind_int64(st, 2, account);
	sqlite3_bind_int64(st, 3, now_ms);
	sqlite3_bind_int64(st, 4, expires_ms);
	return sq_step_done(s, ST_INS_SESSION, err);
}

/* One look-alike form of an account's name: 0, STORE_DUPLICATE, -1. */
static int insert_skeleton(sqlite_store *s, int64_t account, const char *skel, char *err)
{
	sqlite3_stmt *st;
	if (prep(s, "INSERT INTO account_skeletons (skel, account) VALUES (?,?)", &st, err))
		return -1;
	sq_bind_text(st, 1, skel);
	sqlite3_bind_int64(st, 2, account);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_PRIMARYKEY ||
	    sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE) {
		snprintf(err, STORE_ERR_SIZE, "a name that looks the same is taken");
		return STORE_DUPLICATE;
	}
	return sq_fail(s, err, "adding a name's form");
}

int sq_account_create(store *base, const char *name, const char *name_key,
                      const char *const skels[2], const char *pwhash, int64_t now_ms,
                      const char *session_hash, int64_t expires_ms, int64_t *id, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_INS_ACCOUNT];
	sq_bind_text(st, 1, name);
	sq_bind_text(st, 2, name_key);
	sq_bind_text(st, 3, pwhash);
	sqlite3_bind_int64(st, 4, now_ms);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		int dup = sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE;
		sq_fail(s, err, "creating an account");
		sq_rollback(s);
		if (dup)
			s->fault = STORE_FAULT_NONE; /* the database works: the name is taken */
		return dup ? STORE_DUPLICATE : -1;
	}
	*id = sqlite3_last_insert_rowid(s->db);
	for (int i = 0; i < 2; i++) {
		if (!skels[i][0])
			continue;
		int k = insert_skeleton(s, *id, skels[i], err);
		if (k) {
			sq_rollback(s);
			if (k == STORE_DUPLICATE)
				s->fault = STORE_FAULT_NONE; /* the database works: the name is taken */
			return k;
		}
	}
	if (insert_session(s, session_hash, *id, now_ms, expires_ms, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_skeleton_taken(store *base, const char *const skels[2], char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT 1 FROM account_skeletons WHERE skel IN (?,?) LIMIT 1", &st, err))
		return -1;
	sq_bind_text(st, 1, skels[0]);
	sq_bind_text(st, 2, skels[1][0] ? skels[1] : skels[0]);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sq_fail(s, err, "looking for a name that looks the same");
}

int sq_accounts_unskeletoned(store *base, int64_t after, int max, int64_t *ids,
                             char (*names)[STORE_NAME_SIZE], char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	if (prep(s, "SELECT a.id, a.name FROM accounts a WHERE a.id > ? AND NOT EXISTS"
	            " (SELECT 1 FROM account_skeletons k WHERE k.account = a.id)"
	            " ORDER BY a.id LIMIT ?", &st, err))
		return -1;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int(st, 2, max);
	int n = 0, rc;
	while (n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n] = sqlite3_column_int64(st, 0);
		const unsigned char *t = sqlite3_column_text(st, 1);
		snprintf(names[n], STORE_NAME_SIZE, "%s", t ? (const char *)t : "");
		n++;
	}
	if (n < max && rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return sq_fail(s, err, "listing the accounts without their names' forms");
	}
	sqlite3_finalize(st);
	return n;
}

int sq_skeleton_add(store *base, int64_t account, const char *skel, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	int k = insert_skeleton(s, account, skel, err);
	if (k) {
		sq_rollback(s);
		if (k == STORE_DUPLICATE)
			s->fault = STORE_FAULT_NONE;
		return k;
	}
	return sq_commit(s, err);
}

int sq_account_by_name(store *base, const char *name_key, store_account *a, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sq_bind_text(s->st[ST_SEL_ACC_NAME], 1, name_key);
	return one_account(s, ST_SEL_ACC_NAME, a, err);
}

int sq_account_by_id(store *base, int64_t id, store_account *a, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_bind_int64(s->st[ST_SEL_ACC_ID], 1, id);
	return one_account(s, ST_SEL_ACC_ID, a, err);
}

int sq_session_create(store *base, const char *hash, int64_t account, int64_t now_ms,
                      int64_t expires_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	if (insert_session(s, hash, account, now_ms, expires_ms, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_session_get(store *base, const char *hash, int64_t now_ms, store_account *a,
                   char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sq_bind_text(s->st[ST_SEL_SESSION], 1, hash);
	sqlite3_bind_int64(s->st[ST_SEL_SESSION], 2, now_ms);
	return one_account(s, ST_SEL_SESSION, a, err);
}

int sq_session_delete(store *base, const char *hash, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sq_bind_text(s->st[ST_DEL_SESSION], 1, hash);
	if (sq_step_done(s, ST_DEL_SESSION, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_get_key(store *base, const char *name, unsigned char *out, size_t size, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_SEL_KEY];
	sq_bind_text(st, 1, name);
	int rc = sqlite3_step(st), ret = -1;
	if (rc == SQLITE_ROW && (size_t)sqlite3_column_bytes(st, 0) == size) {
		memcpy(out, sqlite3_column_blob(st, 0), size);
		ret = 0;
	} else if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		snprintf(err, STORE_ERR_SIZE, "server key '%s' is missing or not %zu bytes", name, size);
	} else {
		sq_fail(s, err, "reading a server key");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int sq_account_games(store *base, int64_t account, int only_over, int limit,
                     store_seat_game_fn fn, void *ctx, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_ACC_GAMES];
	sqlite3_bind_int64(st, 1, account);
	sqlite3_bind_int(st, 2, only_over);
	sqlite3_bind_int(st, 3, limit);
	int rc, n = 0, ret = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_game g;
		if (sq_read_game(s, st, &g, err)) {
			sq_free_game(&g);
			ret = -1;
			break;
		}
		int has_r = sqlite3_column_type(st, 13) != SQLITE_NULL;
		char *scores = sq_dup_col(st, 13), *by_kind = sq_dup_col(st, 14), *winners = sq_dup_col(st, 15);
		store_result r;
		memset(&r, 0, sizeof r);
		r.scores = scores ? scores : "[]";
		r.by_kind = by_kind ? by_kind : "[]";
		r.winners = winners ? winners : "[]";
		r.at_ms = sqlite3_column_int64(st, 16);
		store_rating_row rr;
		memset(&rr, 0, sizeof rr);
		int has_rr = sqlite3_column_type(st, 17) != SQLITE_NULL;
		snprintf(rr.game, sizeof rr.game, "%s", g.id);
		rr.seat = sqlite3_column_int(st, 12);
		rr.before = sqlite3_column_double(st, 17);
		rr.after = sqlite3_column_double(st, 18);
		rr.rd_after = sqlite3_column_double(st, 19);
		rr.at_ms = sqlite3_column_int64(st, 20);
		int stop = fn(ctx, &g, rr.seat, has_r ? &r : NULL, has_rr ? &rr : NULL);
		free(scores);
		free(by_kind);
		free(winners);
		sq_free_game(&g);
		n++;
		if (stop)
			break;
	}
	if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = sq_fail(s, err, "listing an account's games");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret ? ret : n;
}

int sq_leaderboard(store *base, int limit, int offset, store_account_fn fn, void *ctx,
                   char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_LEADERBOARD];
	sqlite3_bind_int(st, 1, limit);
	sqlite3_bind_int(st, 2, offset);
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_account a;
		read_account(st, &a);
		n++;
		if (fn(ctx, &a))
			break;
	}
	int ret = rc != SQLITE_ROW && rc != SQLITE_DONE ? sq_fail(s, err, "reading the leaderboard") : n;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int sq_get_rematch(store *base, const char *id, char *out, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	out[0] = 0;
	if (prep(s, "SELECT g.rematch FROM games g JOIN games r ON r.id = g.rematch WHERE g.id=?",
	         &st, err))
		return -1;
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sq_copy_col(out, STORE_ID_SIZE, st, 0);
	else if (rc != SQLITE_DONE)
		sq_fail(s, err, "reading the rematch");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* ---- the window holding a seat (windows.c) ---- */

int sq_window_set(store *base, const char *id, int seat, const char *window, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	if (sq_begin(s, err))
		return -1;
	if (prep(s, "UPDATE seats SET window_id=? WHERE game_id=? AND seat=?", &st, err)) {
		sq_rollback(s);
		return -1;
	}
	sq_bind_text(st, 1, window);
	sq_bind_text(st, 2, id);
	sqlite3_bind_int(st, 3, seat);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "storing the window of a seat");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_window_get(store *base, const char *id, int seat, char *out, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	s->fault = STORE_FAULT_NONE;
	out[0] = 0;
	if (prep(s, "SELECT window_id FROM seats WHERE game_id=? AND seat=?", &st, err))
		return -1;
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, seat);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sq_copy_col(out, STORE_WINDOW_SIZE, st, 0);
	else if (rc != SQLITE_DONE)
		sq_fail(s, err, "reading the window of a seat");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
