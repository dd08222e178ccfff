/*
 * store_keep.c - what both stores do for accounts people keep
 * (people/recovery.c), written once over store_sql.h: recovery codes,
 * setting a password (and ending sessions, and giving the account's seats
 * new tokens), deleting an account with what is personal of it, and the
 * list of an account's finished games for its download. Rare requests.
 *
 * Sessions are read from the database on every request (session_get), so
 * a session removed here is refused by every process at its next request.
 * Changing the password (with a recovery too) and deleting an account give
 * every game whose seats they touched its next sequence number
 * (PostgreSQL: with a seat notification, so processes holding those tables
 * load the seats' new token hashes, or the anonymised or freed seats). A
 * password change writes the seats before the account's row (a move's
 * lock order), and one that finds the epoch moved on by another meanwhile
 * writes them again. In PostgreSQL a deletion first locks the account's
 * row, so a second delete of it waits, then finds nothing, and two
 * processes using one recovery code meet at its row's lock: one deletes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

/* A statement on one account ($1), with an optional text ($2): the rows
 * it changed, or -1. */
static int on_account(store *s, const char *sql, int64_t account, const char *text, int *bad,
                      char *err)
{
	return text ? sql_run(s, sql, SQL_ARGS(SQL_I(account), SQL_S(text)), bad, err)
	            : sql_run(s, sql, SQL_A1(account), bad, err);
}

int store_recovery_set(store *s, int64_t account, const char (*hashes)[STORE_TOKEN_HASH_SIZE],
                       int n, int64_t now_ms, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	on_account(s, "DELETE FROM recovery_codes WHERE account=$1", account, NULL, &bad, err);
	for (int i = 0; i < n && !bad; i++)
		sql_run(s, "INSERT INTO recovery_codes (account, hash, created_ms) VALUES ($1,$2,$3)",
		        SQL_ARGS(SQL_I(account), SQL_S(hashes[i]), SQL_I(now_ms)), &bad, err);
	return sql_end(s, bad, 0, err);
}

struct codes {
	int left, found;
};

static int codes_row(void *ctx, const store_row *r)
{
	struct codes *c = ctx;
	c->left = (int)row_i64(r, 0);
	c->found = row_i64(r, 1) > 0;
	return 0;
}

int store_recovery_find(store *s, int64_t account, const char *hash, int *left, char *err)
{
	*left = 0;
	if (sql_ready(s, err))
		return -1;
	int bad = 0;
	struct codes c = {0, 0};
	sql_rows(s, "SELECT count(*), count(CASE WHEN hash = $2 THEN 1 END) FROM recovery_codes"
	            " WHERE account=$1", SQL_ARGS(SQL_I(account), SQL_S(hash ? hash : "")),
	         codes_row, &c, &bad, err);
	if (bad)
		return -1;
	*left = c.left;
	return c.found;
}

/* The account's seats: the game of each (list) and its number (seats). */
struct seats {
	char (*list)[STORE_ID_SIZE];
	int *seats;
	int n, cap;
};

static int seat_row(void *ctx, const store_row *r)
{
	struct seats *t = ctx;
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->list = srv_xrealloc(t->list, (size_t)t->cap * sizeof *t->list);
		t->seats = srv_xrealloc(t->seats, (size_t)t->cap * sizeof *t->seats);
	}
	row_text(r, 0, t->list[t->n], STORE_ID_SIZE);
	t->seats[t->n++] = (int)row_i64(r, 1);
	return 0;
}

/* One id per game of t's (sorted) list, in place: how many. A game may
 * hold two seats of one account (pass and play). */
static int unique_games(struct seats *t)
{
	int m = 0;
	for (int i = 0; i < t->n; i++)
		if (!m || strcmp(t->list[m - 1], t->list[i]))
			memmove(t->list[m++], t->list[i], STORE_ID_SIZE);
	return m;
}

/* Every seat of the account but a rematch's kept for it gets its token
 * under the account's epoch, now `epoch` (the callers' transaction). The
 * games touched go to rk. */
static void rekey_seats(store *s, int64_t account, int64_t epoch, store_rekey *rk, int *bad,
                        char *err)
{
	struct seats t = {NULL, NULL, 0, 0};
	sql_rows(s, "SELECT game_id, seat FROM seats WHERE account=$1 AND kind='human'"
	            " AND token NOT LIKE '" SRV_RESERVED_PREFIX "%' ORDER BY game_id, seat",
	         SQL_A1(account), seat_row, &t, bad, err);
	for (int i = 0; i < t.n && !*bad; i++) {
		char h[STORE_TOKEN_HASH_SIZE];
		rk->hash(t.list[i], t.seats[i], account, epoch, h);
		sql_run(s, "UPDATE seats SET token=$3 WHERE game_id=$1 AND seat=$2",
		        SQL_ARGS(SQL_S(t.list[i]), SQL_I(t.seats[i]), SQL_S(h)), bad, err);
		if (!*bad && s->sql->seat_changed(s, t.list[i], t.seats[i], err))
			*bad = 1;
	}
	free(t.seats);
	rk->nids = unique_games(&t);
	rk->ids = t.list;
}

int store_password_set(store *s, int64_t account, const char *pwhash, const char *code_hash,
                       const char *keep, const char *new_session, int64_t now_ms,
                       int64_t expires_ms, store_rekey *rk, char *err)
{
	rk->ids = NULL;
	rk->nids = 0;
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	if (code_hash &&
	    on_account(s, "DELETE FROM recovery_codes WHERE account=$1 AND hash=$2", account,
	               code_hash, &bad, err) != 1)
		goto refused; /* used meanwhile (or a fault) */
	/* the seats (and their games' rows) first, the account's row last:
	 * the order of a move's transaction, which locks its game and then
	 * the accounts it rates (PostgreSQL; no deadlock between them). The
	 * epoch is the one read plus one; a change of the same account that
	 * committed meanwhile moved it on, and the seats are done again */
	for (int tries = 0;; tries++) {
		int64_t epoch = sql_one(s, "SELECT epoch FROM accounts WHERE id=$1", SQL_A1(account),
		                        -1, &bad, err);
		if (bad || epoch < 0)
			goto refused; /* deleted meanwhile (or a fault) */
		free(rk->ids);
		rekey_seats(s, account, epoch + 1, rk, &bad, err);
		int n = sql_run(s, "UPDATE accounts SET pwhash=$2, epoch=$3 WHERE id=$1 AND epoch=$3-1",
		                SQL_ARGS(SQL_I(account), SQL_S(pwhash), SQL_I(epoch + 1)), &bad, err);
		if (bad || n == 1)
			break;
		if (tries == 2) {
			snprintf(err, STORE_ERR_SIZE, "the account's epoch kept changing: nothing changed");
			bad = 1;
			break;
		}
	}
	if (keep)
		on_account(s, "DELETE FROM sessions WHERE account=$1 AND hash <> $2", account, keep,
		           &bad, err);
	else
		on_account(s, "DELETE FROM sessions WHERE account=$1", account, NULL, &bad, err);
	if (new_session)
		sql_run(s, "INSERT INTO sessions (hash, account, created_ms, expires_ms)"
		           " VALUES ($1,$2,$3,$4)",
		        SQL_ARGS(SQL_S(new_session), SQL_I(account), SQL_I(now_ms), SQL_I(expires_ms)),
		        &bad, err);
	if (bad) {
		free(rk->ids);
		rk->ids = NULL;
		rk->nids = 0;
	}
	return sql_end(s, bad, 0, err);
refused:
	free(rk->ids);
	rk->ids = NULL;
	rk->nids = 0;
	if (bad)
		return sql_end(s, bad, 0, err);
	sql_refuse(s);
	return STORE_NOT_FOUND;
}

/* The seat's name leaves the table's options: SQLite's where they are
 * JSON at all, PostgreSQL's through jsonb (which refuses anything else). */
#define FORGET_NAME_SQLITE                                                                 \
	"UPDATE games SET options=json_remove(options, '$.seats[' || $2 || '].name')"           \
	" WHERE id=$1 AND json_valid(options)"
#define FORGET_NAME_PG                                                                     \
	"UPDATE games SET options=(options::jsonb #- ARRAY['seats', $2, 'name'])::text WHERE id=$1"

int store_account_delete(store *s, int64_t account, const char *anon_name, int64_t now_ms,
                         char (**ids)[STORE_ID_SIZE], int *nids, char *err)
{
	(void)now_ms;
	*ids = NULL;
	*nids = 0;
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	if (s->sql->pg) /* the account's row first, locked */
		sql_run(s, "SELECT id FROM accounts WHERE id=$1 FOR UPDATE", SQL_A1(account), &bad, err);
	/* the seats first: every game they are in is touched */
	struct seats t = {NULL, NULL, 0, 0};
	sql_rows(s, "SELECT game_id, seat FROM seats WHERE account=$1 ORDER BY game_id, seat",
	         SQL_A1(account), seat_row, &t, &bad, err);
	for (int i = 0; i < t.n && !bad; i++) {
		const store_args *a = SQL_ARGS(SQL_S(t.list[i]), SQL_I(t.seats[i]));
		sql_run(s, "DELETE FROM chat WHERE game_id=$1 AND seat=$2", a, &bad, err);
		sql_run(s, s->sql->pg ? FORGET_NAME_PG : FORGET_NAME_SQLITE, a, &bad, err);
		if (!bad && s->sql->seat_changed(s, t.list[i], t.seats[i], err))
			bad = 1;
	}
	/* an open table gets the seat back, open (issue 26: it started with a
	 * deleted player); elsewhere the seat stays, without a token: none
	 * handed to the account moves or speaks for it any more */
	on_account(s, "UPDATE seats SET kind='open', name='', token='', account=0, window_id=''"
	              " WHERE account=$1 AND game_id IN (SELECT id FROM games WHERE status='open')",
	           account, NULL, &bad, err);
	on_account(s, "UPDATE seats SET account=0, name=$2, token='' WHERE account=$1", account,
	           anon_name, &bad, err);
	on_account(s, "DELETE FROM chat WHERE account=$1", account, NULL, &bad, err);
	on_account(s, "DELETE FROM ratings WHERE account=$1", account, NULL, &bad, err);
	on_account(s, "DELETE FROM recovery_codes WHERE account=$1", account, NULL, &bad, err);
	on_account(s, "DELETE FROM sessions WHERE account=$1", account, NULL, &bad, err);
	int gone = on_account(s, "DELETE FROM accounts WHERE id=$1", account, NULL, &bad, err);
	free(t.seats);
	if (sql_end(s, bad, 0, err)) {
		free(t.list);
		return -1;
	}
	if (gone > 0 && s->sql->erased)
		s->sql->erased(s);
	*nids = unique_games(&t);
	*ids = t.list;
	return gone;
}

/* one range of seats_by_account_status (account, 'over', game_id), from
 * the cursor: a page reads about a page (two seats of one account in one
 * game are next to each other) */
const char STORE_OVER_IDS_SQL[] =
    "SELECT DISTINCT s.game_id FROM seats s"
    " WHERE s.account=$1 AND s.game_status='over' AND s.game_id > $2"
    " ORDER BY s.game_id LIMIT $3";

struct over_ids {
	char (*ids)[STORE_ID_SIZE];
	int n, limit;
};

static int over_row(void *ctx, const store_row *r)
{
	struct over_ids *o = ctx;
	if (o->n >= o->limit)
		return 1;
	row_text(r, 0, o->ids[o->n++], STORE_ID_SIZE);
	return 0;
}

int store_account_over_ids(store *s, int64_t account, const char *after, int limit,
                           char (*ids)[STORE_ID_SIZE], char *err)
{
	if (sql_ready(s, err))
		return -1;
	int bad = 0;
	struct over_ids o = {ids, 0, limit};
	sql_rows(s, STORE_OVER_IDS_SQL, SQL_ARGS(SQL_I(account), SQL_S(after), SQL_I(limit)),
	         over_row, &o, &bad, err);
	return bad ? -1 : o.n;
}
