/*
 * store_sqlite_friends.c - what the SQLite store (store_sqlite.c) keeps of
 * who knows whom: friendships and requests (friend_links), blocks,
 * invites to a table's seat, the social writes of the last hour that the
 * per-account limits count (social_log), and presence (accounts.seen_ms).
 * See store.h, "friends, blocks, invites and presence".
 *
 * A social write is one transaction (BEGIN IMMEDIATE: the one writer of
 * the file), so the counts it checks are the counts it changes. The
 * statements are prepared when called: a few a minute per account.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sqlite_int.h"

#define HOUR_MS 3600000LL
#define LOG_REQUEST 0
#define LOG_INVITE 1

/* Arguments of a statement: integers, or text where s[k] is set. */
typedef struct qargs {
	int n;
	int64_t i[6];
	const char *s[6];
} qargs;

static int prep_bind(sqlite_store *s, const char *sql, const qargs *a, sqlite3_stmt **st,
                     char *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return sq_fail(s, err, sql);
	}
	for (int k = 0; a && k < a->n; k++) {
		if (a->s[k])
			sq_bind_text(*st, k + 1, a->s[k]);
		else
			sqlite3_bind_int64(*st, k + 1, a->i[k]);
	}
	return 0;
}

/* The first column of the first row (dflt with no row); -1 on a fault
 * (*bad set). */
static int64_t one(sqlite_store *s, const char *sql, const qargs *a, int64_t dflt, int *bad,
                   char *err)
{
	sqlite3_stmt *st;
	if (*bad || prep_bind(s, sql, a, &st, err)) {
		*bad = 1;
		return -1;
	}
	int rc = sqlite3_step(st);
	int64_t v = dflt;
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE) {
		sq_fail(s, err, sql);
		*bad = 1;
	}
	sqlite3_finalize(st);
	return v;
}

/* Runs a write: how many rows it changed, -1 on a fault (*bad set). */
static int run(sqlite_store *s, const char *sql, const qargs *a, int *bad, char *err)
{
	sqlite3_stmt *st;
	if (*bad || prep_bind(s, sql, a, &st, err)) {
		*bad = 1;
		return -1;
	}
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sq_fail(s, err, sql);
		*bad = 1;
	}
	sqlite3_finalize(st);
	return *bad ? -1 : sqlite3_changes(s->db);
}

#define A1(x) (&(qargs){1, {(x)}, {0}})
#define A2(x, y) (&(qargs){2, {(x), (y)}, {0}})
#define A3(x, y, z) (&(qargs){3, {(x), (y), (z)}, {0}})

/* The state of the link from a to b (0 asked, 1 friends, 2 asked hidden), -1: none. */
static int64_t link_state(sqlite_store *s, int64_t a, int64_t b, int *bad, char *err)
{
	return one(s, "SELECT state FROM friend_links WHERE a=?1 AND b=?2", A2(a, b), -1, bad, err);
}

static int blocks(sqlite_store *s, int64_t blocker, int64_t blocked, int *bad, char *err)
{
	return one(s, "SELECT 1 FROM blocks WHERE blocker=?1 AND blocked=?2", A2(blocker, blocked),
	           0, bad, err) == 1;
}

static int64_t friends_of(sqlite_store *s, int64_t x, int *bad, char *err)
{
	return one(s, "SELECT (SELECT count(*) FROM friend_links WHERE a=?1 AND state=1)"
	              " + (SELECT count(*) FROM friend_links WHERE b=?1 AND state=1)",
	           A1(x), 0, bad, err);
}

/* The actor's writes of `kind` in the last hour (older ones are dropped). */
static int64_t logged(sqlite_store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	run(s, "DELETE FROM social_log WHERE account=?1 AND at_ms <= ?2", A2(x, now - HOUR_MS),
	    bad, err);
	return one(s, "SELECT count(*) FROM social_log WHERE account=?1 AND kind=?2",
	           A2(x, kind), 0, bad, err);
}

static void log_write(sqlite_store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	run(s, "INSERT INTO social_log (account, kind, at_ms) VALUES (?1,?2,?3)", A3(x, kind, now),
	    bad, err);
}

static int over(int64_t n, int max)
{
	return max > 0 && n >= max;
}

static int do_request(sqlite_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other, now = w->now_ms;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_YOU_BLOCK;
	int64_t ab = link_state(s, me, them, bad, err), ba = link_state(s, them, me, bad, err);
	if (ab == 1 || ba == 1 || ab >= 0)
		return STORE_FR_ALREADY;
	int hidden = blocks(s, them, me, bad, err);
	if (!hidden && ba == 0) { /* they asked first: friends now */
		if (over(friends_of(s, me, bad, err), w->max_friends))
			return STORE_FR_MY_FRIENDS;
		if (over(friends_of(s, them, bad, err), w->max_friends))
			return STORE_FR_THEIR_FRIENDS;
		run(s, "UPDATE friend_links SET state=1, at_ms=?3 WHERE a=?1 AND b=?2",
		    A3(them, me, now), bad, err);
		return STORE_FR_NOW_FRIENDS;
	}
	if (over(logged(s, me, LOG_REQUEST, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(one(s, "SELECT count(*) FROM friend_links WHERE a=?1 AND state IN (0,2)",
	             A1(me), 0, bad, err), w->max_pending))
		return STORE_FR_MY_PENDING;
	if (!hidden && w->max_pending > 0 &&
	    over(one(s, "SELECT count(*) FROM friend_links WHERE b=?1 AND state=0", A1(them), 0,
	             bad, err), 2 * w->max_pending))
		return STORE_FR_THEIR_PENDING;
	run(s, "INSERT INTO friend_links (a, b, state, at_ms) VALUES (?1,?2,?3,?4)",
	    &(qargs){4, {me, them, hidden ? 2 : 0, now}, {0}}, bad, err);
	log_write(s, me, LOG_REQUEST, now, bad, err);
	return STORE_FR_DONE;
}

static int do_accept(sqlite_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (link_state(s, them, me, bad, err) != 0)
		return STORE_FR_NONE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(friends_of(s, them, bad, err), w->max_friends))
		return STORE_FR_THEIR_FRIENDS;
	run(s, "UPDATE friend_links SET state=1, at_ms=?3 WHERE a=?1 AND b=?2",
	    A3(them, me, w->now_ms), bad, err);
	run(s, "DELETE FROM friend_links WHERE a=?1 AND b=?2", A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_block(sqlite_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_ALREADY;
	if (over(one(s, "SELECT count(*) FROM blocks WHERE blocker=?1", A1(me), 0, bad, err),
	         w->max_blocks))
		return STORE_FR_BLOCKS_FULL;
	run(s, "INSERT INTO blocks (blocker, blocked, at_ms) VALUES (?1,?2,?3)",
	    A3(me, them, w->now_ms), bad, err);
	/* the friendship ends; my request to them goes; theirs to me stays
	 * pending for them, hidden from me */
	run(s, "DELETE FROM friend_links WHERE (a=?1 AND b=?2) OR (a=?2 AND b=?1 AND state=1)",
	    A2(me, them), bad, err);
	run(s, "UPDATE friend_links SET state=2 WHERE a=?2 AND b=?1 AND state=0", A2(me, them), bad,
	    err);
	run(s, "DELETE FROM invites WHERE (from_account=?1 AND to_account=?2)"
	       " OR (from_account=?2 AND to_account=?1)", A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_invite(sqlite_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other, now = w->now_ms;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_YOU_BLOCK;
	if (over(logged(s, me, LOG_INVITE, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	qargs g = {1, {0}, {w->game}};
	if (over(one(s, "SELECT count(*) FROM invites WHERE game_id=?1", &g, 0, bad, err),
	         w->max_invites))
		return STORE_FR_INVITES_FULL;
	log_write(s, me, LOG_INVITE, now, bad, err);
	/* the invites of either account to tables that have started or
	 * ended are done with: gone, so the table holds what is still open */
	run(s, "DELETE FROM invites WHERE (from_account=?1 OR to_account=?2) AND game_id IN"
	       " (SELECT i.game_id FROM invites i JOIN games g ON g.id = i.game_id"
	       "  WHERE (i.from_account=?1 OR i.to_account=?2) AND g.status <> 'open')",
	    A2(me, them), bad, err);
	if (blocks(s, them, me, bad, err))
		return STORE_FR_DONE; /* told as sent, never shown to them */
	qargs a = {5, {0, w->seat, me, them, now}, {w->game}};
	run(s, "INSERT INTO invites (game_id, seat, from_account, to_account, at_ms)"
	       " VALUES (?1,?2,?3,?4,?5) ON CONFLICT(game_id, to_account) DO UPDATE SET"
	       " seat=excluded.seat, from_account=excluded.from_account, at_ms=excluded.at_ms",
	    &a, bad, err);
	return STORE_FR_DONE;
}

static int social_step(sqlite_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	switch (w->kind) {
	case STORE_FR_REQUEST:
		return do_request(s, w, bad, err);
	case STORE_FR_ACCEPT:
		return do_accept(s, w, bad, err);
	case STORE_FR_DECLINE:
		return run(s, "DELETE FROM friend_links WHERE a=?1 AND b=?2 AND state=0", A2(them, me),
		           bad, err) > 0 ? STORE_FR_DONE : STORE_FR_NONE;
	case STORE_FR_REMOVE:
		return run(s, "DELETE FROM friend_links WHERE (a=?1 AND b=?2)"
		              " OR (a=?2 AND b=?1 AND state=1)", A2(me, them), bad, err) > 0
		           ? STORE_FR_DONE : STORE_FR_NONE;
	case STORE_FR_BLOCK:
		return do_block(s, w, bad, err);
	case STORE_FR_UNBLOCK:
		if (run(s, "DELETE FROM blocks WHERE blocker=?1 AND blocked=?2", A2(me, them), bad,
		        err) <= 0)
			return STORE_FR_NONE;
		run(s, "UPDATE friend_links SET state=0 WHERE a=?2 AND b=?1 AND state=2", A2(me, them),
		    bad, err);
		return STORE_FR_DONE;
	case STORE_FR_INVITE:
		return do_invite(s, w, bad, err);
	case STORE_FR_DISMISS:
		return run(s, "DELETE FROM invites WHERE id=?1 AND to_account=?2", A2(w->invite, me),
		           bad, err) > 0 ? STORE_FR_DONE : STORE_FR_NONE;
	default:
		return STORE_FR_NONE;
	}
}

int sq_social_write(store *base, store_social *w, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	int bad = 0;
	w->outcome = social_step(s, w, &bad, err);
	if (bad) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

/* Every list has the columns id, name, at_ms, seen_ms, playing, game. */
static const char *const LISTS[] = {
	[STORE_LIST_FRIENDS] =
	    "SELECT p.id, p.name, f.at_ms, p.seen_ms,"
	    " EXISTS (SELECT 1 FROM seats s JOIN games g ON g.id = s.game_id"
	    "  WHERE s.account = p.id AND g.status = 'playing'),"
	    " (SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id"
	    "  WHERE s.account = p.id AND g.status = 'playing'"
	    "  AND coalesce(json_extract(g.options,'$.private'),0) = 0"
	    "  ORDER BY g.updated_ms DESC LIMIT 1)"
	    " FROM friend_links f JOIN accounts p ON p.id = CASE WHEN f.a = ?1 THEN f.b ELSE f.a END"
	    " WHERE (f.a = ?1 OR f.b = ?1) AND f.state = 1 ORDER BY p.name_key LIMIT ?2",
	[STORE_LIST_INCOMING] =
	    "SELECT p.id, p.name, f.at_ms, 0, 0, NULL FROM friend_links f JOIN accounts p"
	    " ON p.id = f.a WHERE f.b = ?1 AND f.state = 0 ORDER BY f.at_ms DESC LIMIT ?2",
	[STORE_LIST_OUTGOING] =
	    "SELECT p.id, p.name, f.at_ms, 0, 0, NULL FROM friend_links f JOIN accounts p"
	    " ON p.id = f.b WHERE f.a = ?1 AND f.state IN (0,2) ORDER BY f.at_ms DESC LIMIT ?2",
	[STORE_LIST_BLOCKED] =
	    "SELECT p.id, p.name, k.at_ms, 0, 0, NULL FROM blocks k JOIN accounts p"
	    " ON p.id = k.blocked WHERE k.blocker = ?1 ORDER BY p.name_key LIMIT ?2",
};

int sq_social_list(store *base, int64_t account, int which, int limit, store_person_fn fn,
                   void *ctx, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (which < 0 || which > STORE_LIST_BLOCKED) {
		snprintf(err, STORE_ERR_SIZE, "no such list %d", which);
		return -1;
	}
	sqlite3_stmt *st;
	if (prep_bind(s, LISTS[which], A2(account, limit), &st, err))
		return -1;
	int rc, count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_person p;
		memset(&p, 0, sizeof p);
		p.id = sqlite3_column_int64(st, 0);
		sq_copy_col(p.name, sizeof p.name, st, 1);
		p.at_ms = sqlite3_column_int64(st, 2);
		p.seen_ms = sqlite3_column_int64(st, 3);
		p.playing = sqlite3_column_int(st, 4);
		sq_copy_col(p.game, sizeof p.game, st, 5);
		count++;
		if (fn(ctx, &p))
			break;
	}
	int bad = rc != SQLITE_ROW && rc != SQLITE_DONE;
	if (bad)
		sq_fail(s, err, "reading a friends' list");
	sqlite3_finalize(st);
	return bad ? -1 : count;
}

int sq_invite_list(store *base, int64_t account, int limit, store_invite_fn fn, void *ctx,
                   char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	sqlite3_stmt *st;
	if (prep_bind(s,
	              "SELECT i.id, i.game_id, i.seat, i.from_account, p.name, i.at_ms"
	              " FROM invites i JOIN games g ON g.id = i.game_id"
	              " JOIN accounts p ON p.id = i.from_account"
	              " WHERE i.to_account = ?1 AND g.status = 'open'"
	              " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = i.game_id"
	              "  AND s.kind = 'open')"
	              " AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = i.game_id"
	              "  AND s.account = ?1)"
	              " AND NOT EXISTS (SELECT 1 FROM blocks k WHERE k.blocker = ?1"
	              "  AND k.blocked = i.from_account)"
	              " ORDER BY i.at_ms DESC, i.id DESC LIMIT ?2",
	              A2(account, limit), &st, err))
		return -1;
	int rc, count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_invite v;
		memset(&v, 0, sizeof v);
		v.id = sqlite3_column_int64(st, 0);
		sq_copy_col(v.game, sizeof v.game, st, 1);
		v.seat = sqlite3_column_int(st, 2);
		v.from = sqlite3_column_int64(st, 3);
		sq_copy_col(v.from_name, sizeof v.from_name, st, 4);
		v.at_ms = sqlite3_column_int64(st, 5);
		count++;
		if (fn(ctx, &v))
			break;
	}
	int bad = rc != SQLITE_ROW && rc != SQLITE_DONE;
	if (bad)
		sq_fail(s, err, "reading the invites");
	sqlite3_finalize(st);
	return bad ? -1 : count;
}

int sq_social_touch(store *base, int64_t account, int64_t now_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	int bad = 0;
	run(s, "UPDATE accounts SET seen_ms=?2 WHERE id=?1 AND seen_ms < ?2", A2(account, now_ms),
	    &bad, err);
	if (bad) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_is_blocked(store *base, int64_t blocker, int64_t blocked, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	int bad = 0, b = blocks(s, blocker, blocked, &bad, err);
	return bad ? -1 : b;
}

int sq_blockers_among(store *base, int64_t speaker, const int64_t *accounts, int n,
                      unsigned char *out, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	int bad = 0;
	for (int i = 0; i < n && !bad; i++)
		out[i] = accounts[i] && blocks(s, accounts[i], speaker, &bad, err);
	return bad ? -1 : 0;
}
