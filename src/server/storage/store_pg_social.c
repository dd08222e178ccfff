/*
 * store_pg_social.c - what the PostgreSQL store (store_pg.c) keeps of the
 * people and what they say: accounts, sessions, the server's keys, an
 * account's games and the leaderboard; chat lines, rematches and
 * analyses. Writes go through store_pg.c's helpers like the games'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_pg_int.h"

/* ---- accounts ---------------------------------------------------------------------------- */

/* The columns of ACC_COLS in row `row`. */
static void read_account(const PGresult *r, int row, store_account *a)
{
	memset(a, 0, sizeof *a);
	a->id = pgs_i64_val(r, row, 0);
	pgs_copy_val(a->name, sizeof a->name, r, row, 1);
	pgs_copy_val(a->pwhash, sizeof a->pwhash, r, row, 2);
	a->created_ms = pgs_i64_val(r, row, 3);
	a->rating = strtod(PQgetvalue(r, row, 4), NULL);
	a->rd = strtod(PQgetvalue(r, row, 5), NULL);
	a->vol = strtod(PQgetvalue(r, row, 6), NULL);
	a->games = atoi(PQgetvalue(r, row, 7));
	a->established = atoi(PQgetvalue(r, row, 8)) != 0;
	if (PQnfields(r) > 9) /* the leaderboard's rows have no epoch */
		a->epoch = pgs_i64_val(r, row, 9);
}

/* A statement that returns one account row or none: 1, 0, or -1. */
static int one_account(pg_store *s, int k, const params *p, store_account *a, char *err)
{
	PGresult *r = pgs_q_read(s, k, p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		read_account(r, 0, a);
	PQclear(r);
	return found;
}

static int insert_session(pg_store *s, const char *hash, int64_t account, int64_t now_ms,
                          int64_t expires_ms, char *err)
{
	params pd = {0};
	pgs_p_i64(&pd, now_ms);
	params p = {0};
	pgs_p_str(&p, hash);
	pgs_p_i64(&p, account);
	pgs_p_i64(&p, now_ms);
	pgs_p_i64(&p, expires_ms);
	return pgs_q_do(s, Q_DEL_EXPIRED, &pd, err) || pgs_q_do(s, Q_INS_SESSION, &p, err) ? -1 : 0;
}

/* One look-alike form of an account's name, inside the open transaction
 * (a taken form, 23505, is an answer, not a fault): 0, STORE_DUPLICATE, -1. */
static int insert_skeleton(pg_store *s, int64_t account, const char *skel, char *err)
{
	params p = {0};
	pgs_p_str(&p, skel);
	pgs_p_i64(&p, account);
	char qname[16];
	snprintf(qname, sizeof qname, "q%d", Q_INS_SKEL);
	PGresult *r = PQexecPrepared(s->conn, qname, p.n, p.v, NULL, NULL, 0);
	if (PQresultStatus(r) == PGRES_COMMAND_OK) {
		PQclear(r);
		return 0;
	}
	const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
	int dup = st && !strcmp(st, "23505");
	pgs_fail(s, r, err, dup ? "a name that looks the same is taken" : "adding a name's form");
	PQclear(r);
	return dup ? STORE_DUPLICATE : -1;
}

int pg_account_create(store *base, const char *name, const char *name_key,
                      const char *const skels[2], const char *pwhash, int64_t now_ms,
                      const char *session_hash, int64_t expires_ms, int64_t *id, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	/* not through pgs_q(): a taken name (23505, unique_violation) is an answer,
	 * not a fault */
	params p = {0};
	pgs_p_str(&p, name);
	pgs_p_str(&p, name_key);
	pgs_p_str(&p, pwhash);
	pgs_p_i64(&p, now_ms);
	char qname[16];
	snprintf(qname, sizeof qname, "q%d", Q_INS_ACCOUNT);
	PGresult *r = PQexecPrepared(s->conn, qname, p.n, p.v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
		const char *st = PQresultErrorField(r, PG_DIAG_SQLSTATE);
		int dup = st && !strcmp(st, "23505");
		pgs_fail(s, r, err, "creating an account");
		PQclear(r);
		pgs_rollback(s);
		if (dup)
			s->fault = STORE_FAULT_NONE; /* the database works: the name is taken */
		return dup ? STORE_DUPLICATE : -1;
	}
	*id = pgs_i64_val(r, 0, 0);
	PQclear(r);
	for (int i = 0; i < 2; i++) {
		if (!skels[i][0])
			continue;
		int k = insert_skeleton(s, *id, skels[i], err);
		if (k) {
			pgs_rollback(s);
			if (k == STORE_DUPLICATE)
				s->fault = STORE_FAULT_NONE; /* the database works: the name is taken */
			return k;
		}
	}
	if (insert_session(s, session_hash, *id, now_ms, expires_ms, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_skeleton_taken(store *base, const char *const skels[2], char *err)
{
	params p = {0};
	pgs_p_str(&p, skels[0]);
	pgs_p_str(&p, skels[1][0] ? skels[1] : skels[0]);
	PGresult *r = pgs_q_read((pg_store *)base, Q_SKEL_TAKEN, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) > 0;
	PQclear(r);
	return found;
}

int pg_accounts_unskeletoned(store *base, int64_t after, int max, int64_t *ids,
                             char (*names)[STORE_NAME_SIZE], char *err)
{
	params p = {0};
	pgs_p_i64(&p, after);
	pgs_p_i64(&p, max);
	PGresult *r = pgs_q_read((pg_store *)base, Q_UNSKELETONED, &p, err);
	if (!r)
		return -1;
	int n = PQntuples(r) < max ? PQntuples(r) : max;
	for (int i = 0; i < n; i++) {
		ids[i] = pgs_i64_val(r, i, 0);
		pgs_copy_val(names[i], STORE_NAME_SIZE, r, i, 1);
	}
	PQclear(r);
	return n;
}

int pg_skeleton_add(store *base, int64_t account, const char *skel, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	int k = insert_skeleton(s, account, skel, err);
	if (k) {
		pgs_rollback(s);
		if (k == STORE_DUPLICATE)
			s->fault = STORE_FAULT_NONE;
		return k;
	}
	return pgs_commit(s, err);
}

int pg_account_by_name(store *base, const char *name_key, store_account *a, char *err)
{
	params p = {0};
	pgs_p_str(&p, name_key);
	return one_account((pg_store *)base, Q_SEL_ACC_NAME, &p, a, err);
}

int pg_account_by_id(store *base, int64_t id, store_account *a, char *err)
{
	params p = {0};
	pgs_p_i64(&p, id);
	return one_account((pg_store *)base, Q_SEL_ACC_ID, &p, a, err);
}

int pg_session_create(store *base, const char *hash, int64_t account, int64_t now_ms,
                      int64_t expires_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	if (insert_session(s, hash, account, now_ms, expires_ms, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_session_get(store *base, const char *hash, int64_t now_ms, store_account *a,
                   char *err)
{
	params p = {0};
	pgs_p_str(&p, hash);
	pgs_p_i64(&p, now_ms);
	return one_account((pg_store *)base, Q_SEL_SESSION, &p, a, err);
}

int pg_session_delete(store *base, const char *hash, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, hash);
	if (pgs_q_do(s, Q_DEL_SESSION, &p, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

static int hex_digit(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int pg_get_key(store *base, const char *name, unsigned char *out, size_t size, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_str(&p, name);
	PGresult *r = pgs_q_read(s, Q_SEL_KEY, &p, err);
	if (!r)
		return -1;
	int ok = PQntuples(r) == 1 && strlen(PQgetvalue(r, 0, 0)) == 2 * size;
	const char *hex = ok ? PQgetvalue(r, 0, 0) : "";
	for (size_t i = 0; ok && i < size; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			ok = 0;
		else
			out[i] = (unsigned char)(hi << 4 | lo);
	}
	PQclear(r);
	if (!ok)
		snprintf(err, STORE_ERR_SIZE, "server key '%s' is missing or not %zu bytes", name, size);
	return ok ? 0 : -1;
}

int pg_account_games(store *base, int64_t account, int only_over, int limit,
                     store_seat_game_fn fn, void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_i64(&p, account);
	pgs_p_i64(&p, only_over);
	pgs_p_i64(&p, limit);
	PGresult *r = pgs_q_read(s, Q_ACC_GAMES, &p, err);
	if (!r)
		return -1;
	int n = 0, ret = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_game g;
		if (pgs_read_game(s, r, i, &g, err)) {
			pgs_free_game(&g);
			ret = -1;
			break;
		}
		int has_r = !PQgetisnull(r, i, 13);
		store_result res;
		memset(&res, 0, sizeof res);
		res.scores = has_r ? PQgetvalue(r, i, 13) : "[]";
		res.by_kind = has_r ? PQgetvalue(r, i, 14) : "[]";
		res.winners = has_r ? PQgetvalue(r, i, 15) : "[]";
		res.at_ms = has_r ? pgs_i64_val(r, i, 16) : 0;
		store_rating_row rr;
		memset(&rr, 0, sizeof rr);
		int has_rr = !PQgetisnull(r, i, 17);
		snprintf(rr.game, sizeof rr.game, "%s", g.id);
		rr.seat = atoi(PQgetvalue(r, i, 12));
		if (has_rr) {
			rr.before = strtod(PQgetvalue(r, i, 17), NULL);
			rr.after = strtod(PQgetvalue(r, i, 18), NULL);
			rr.rd_after = strtod(PQgetvalue(r, i, 19), NULL);
			rr.at_ms = pgs_i64_val(r, i, 20);
		}
		int stop = fn(ctx, &g, rr.seat, has_r ? &res : NULL, has_rr ? &rr : NULL);
		pgs_free_game(&g);
		n++;
		if (stop)
			break;
	}
	PQclear(r);
	return ret ? ret : n;
}

int pg_leaderboard(store *base, int limit, int offset, store_account_fn fn, void *ctx,
                   char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_i64(&p, limit);
	pgs_p_i64(&p, offset);
	PGresult *r = pgs_q_read(s, Q_LEADERBOARD, &p, err);
	if (!r)
		return -1;
	int n = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_account a;
		read_account(r, i, &a);
		n++;
		if (fn(ctx, &a))
			break;
	}
	PQclear(r);
	return n;
}

/* ---- chat and rematch -------------------------------------------------------------------- */

/* A chat line: the game row's lock first (its sequence number), then
 * the line with the game's next number, then its announcement, which
 * every process acts on (tables.c's cluster hooks load the lines they
 * have not shown). */
int pg_add_chat(store *base, const char *id, store_chat *m, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	int64_t seq;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_i64(&p, m->seat);
	pgs_p_str(&p, m->name);
	pgs_p_str(&p, m->text);
	pgs_p_str(&p, m->phrase);
	pgs_p_i64(&p, m->at_ms);
	pgs_p_i64(&p, m->account);
	PGresult *r = NULL;
	if (pgs_bump(s, id, &seq, err) || !(r = pgs_q(s, Q_INS_CHAT, &p, err)))
		goto bad;
	m->n = PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
	PQclear(r);
	if (pgs_notify(s, STORE_NOTIFY_CHAT, id, m->n, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_list_chat(store *base, const char *id, int from, int limit, store_chat_fn fn,
                 void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_i64(&p, from);
	pgs_p_i64(&p, limit);
	PGresult *r = pgs_q_read(s, Q_LIST_CHAT, &p, err);
	if (!r)
		return -1;
	int count = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_chat m;
		memset(&m, 0, sizeof m);
		m.n = atoi(PQgetvalue(r, i, 0));
		m.seat = atoi(PQgetvalue(r, i, 1));
		pgs_copy_val(m.name, sizeof m.name, r, i, 2);
		m.text = PQgetvalue(r, i, 3);
		pgs_copy_val(m.phrase, sizeof m.phrase, r, i, 4);
		m.at_ms = pgs_i64_val(r, i, 5);
		m.account = pgs_i64_val(r, i, 6);
		count++;
		if (fn(ctx, &m))
			break;
	}
	PQclear(r);
	return count;
}

int pg_count_chat(store *base, const char *id, char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *r = pgs_q_read(s, Q_COUNT_CHAT, &p, err);
	if (!r)
		return -1;
	int n = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return n;
}

int pg_create_rematch(store *base, const char *old_id, const store_game *g, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	if (pgs_insert_game(s, g, err))
		goto bad;
	params p = {0};
	pgs_p_str(&p, g->id);
	pgs_p_str(&p, old_id);
	PGresult *r = pgs_q(s, Q_LINK_REMATCH, &p, err);
	if (!r)
		goto bad;
	int changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (changed != 1) {
		s->fault = STORE_FAULT_OTHER;
		snprintf(err, STORE_ERR_SIZE, "game %s has a rematch already (or is not stored)", old_id);
		goto bad;
	}
	if (pgs_notify(s, STORE_NOTIFY_REMATCH, old_id, -1, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_get_rematch(store *base, const char *id, char *out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	out[0] = 0;
	if (pgs_ensure(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *r = pgs_q(s, Q_SEL_REMATCH, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		snprintf(out, STORE_ID_SIZE, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

int pg_save_analysis(store *base, const char *id, const char *json, int64_t at_ms,
                     char *err)
{
	pg_store *s = (pg_store *)base;
	if (store_analysis_too_big(id, json, err)) {
		s->fault = STORE_FAULT_OTHER;
		return -1;
	}
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_str(&p, json);
	pgs_p_i64(&p, at_ms);
	if (pgs_q_do(s, Q_INS_ANALYSIS, &p, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_load_analysis(store *base, const char *id, char **out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	*out = NULL;
	if (pgs_ensure(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *r = pgs_q(s, Q_SEL_ANALYSIS, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found)
		*out = srv_xstrdup(PQgetvalue(r, 0, 0));
	PQclear(r);
	return found;
}

/* ---- the window holding a seat (windows.c) ---- */

int pg_window_set(store *base, const char *id, int seat, const char *window, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_i64(&p, seat);
	pgs_p_str(&p, window);
	if (pgs_q_do(s, Q_SET_WINDOW, &p, err))
		goto bad;
	/* announced without a sequence number: not a change of the game, the
	 * table's stream (store.h) does not wait for it */
	char payload[80];
	snprintf(payload, sizeof payload, "%c %s %d 0", STORE_NOTIFY_WINDOW, id, seat);
	params q = {0};
	pgs_p_str(&q, payload);
	if (pgs_q_do(s, Q_NOTIFY, &q, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_window_get(store *base, const char *id, int seat, char *out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	out[0] = 0;
	if (pgs_ensure(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_i64(&p, seat);
	PGresult *r = pgs_q(s, Q_SEL_WINDOW, &p, err);
	if (!r)
		return -1;
	if (PQntuples(r) == 1)
		snprintf(out, STORE_WINDOW_SIZE, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}
