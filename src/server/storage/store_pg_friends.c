/*
 * store_pg_friends.c - what the PostgreSQL store (store_pg.c) keeps of
 * who knows whom: friendships and requests (friend_links), blocks,
 * invites to a table's seat, the social writes of the last hour that the
 * per-account limits count (social_log), and presence (accounts.seen_ms).
 * See store.h, "friends, blocks, invites and presence".
 *
 * A social write is one transaction that first locks the rows of both
 * accounts (in id order: two writes about the same pair wait for each
 * other, never deadlock) and, for an invite, the game's row, so the
 * counts it checks are the counts it changes even with several server
 * processes. The statements are sent with their parameters, not prepared:
 * a few a minute per account. The same steps as store_sqlite_friends.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_pg_int.h"

#define HOUR_MS 3600000LL
#define LOG_REQUEST 0
#define LOG_INVITE 1

/* Arguments of a statement: integers, or text where s[k] is set. */
typedef struct qargs {
	int n;
	int64_t i[6];
	const char *s[6];
} qargs;

static void to_params(const qargs *a, params *p)
{
	memset(p, 0, sizeof *p);
	for (int k = 0; a && k < a->n; k++) {
		if (a->s[k])
			pgs_p_str(p, a->s[k]);
		else
			pgs_p_i64(p, a->i[k]);
	}
}

/* The first column of the first row (dflt with no row; a bool column
 * reads 1 or 0); -1 on a fault (*bad set). */
static int64_t one(pg_store *s, const char *sql, const qargs *a, int64_t dflt, int *bad,
                   char *err)
{
	if (*bad)
		return -1;
	params p;
	to_params(a, &p);
	PGresult *r = pgs_q_sql(s, sql, &p, err);
	if (!r) {
		*bad = 1;
		return -1;
	}
	int64_t v = dflt;
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) {
		const char *t = PQgetvalue(r, 0, 0);
		v = !strcmp(t, "t") ? 1 : !strcmp(t, "f") ? 0 : strtoll(t, NULL, 10);
	}
	PQclear(r);
	return v;
}

/* Runs a write: how many rows it changed, -1 on a fault (*bad set). */
static int run(pg_store *s, const char *sql, const qargs *a, int *bad, char *err)
{
	if (*bad)
		return -1;
	params p;
	to_params(a, &p);
	PGresult *r = pgs_q_sql(s, sql, &p, err);
	if (!r) {
		*bad = 1;
		return -1;
	}
	int n = atoi(PQcmdTuples(r));
	PQclear(r);
	return n;
}

#define A1(x) (&(qargs){1, {(x)}, {0}})
#define A2(x, y) (&(qargs){2, {(x), (y)}, {0}})
#define A3(x, y, z) (&(qargs){3, {(x), (y), (z)}, {0}})

/* The state of the link from a to b (0 asked, 1 friends, 2 asked hidden), -1: none. */
static int64_t link_state(pg_store *s, int64_t a, int64_t b, int *bad, char *err)
{
	return one(s, "SELECT state FROM friend_links WHERE a=$1 AND b=$2", A2(a, b), -1, bad, err);
}

static int blocks(pg_store *s, int64_t blocker, int64_t blocked, int *bad, char *err)
{
	return one(s, "SELECT 1 FROM blocks WHERE blocker=$1 AND blocked=$2", A2(blocker, blocked),
	           0, bad, err) == 1;
}

static int64_t friends_of(pg_store *s, int64_t x, int *bad, char *err)
{
	return one(s, "SELECT (SELECT count(*) FROM friend_links WHERE a=$1 AND state=1)"
	              " + (SELECT count(*) FROM friend_links WHERE b=$1 AND state=1)",
	           A1(x), 0, bad, err);
}

/* The actor's writes of `kind` in the last hour (older ones are dropped). */
static int64_t logged(pg_store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	run(s, "DELETE FROM social_log WHERE account=$1 AND at_ms <= $2", A2(x, now - HOUR_MS),
	    bad, err);
	return one(s, "SELECT count(*) FROM social_log WHERE account=$1 AND kind=$2",
	           A2(x, kind), 0, bad, err);
}

static void log_write(pg_store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	run(s, "INSERT INTO social_log (account, kind, at_ms) VALUES ($1,$2,$3)", A3(x, kind, now),
	    bad, err);
}

static int over(int64_t n, int max)
{
	return max > 0 && n >= max;
}

static int do_request(pg_store *s, store_social *w, int *bad, char *err)
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
		run(s, "UPDATE friend_links SET state=1, at_ms=$3 WHERE a=$1 AND b=$2",
		    A3(them, me, now), bad, err);
		return STORE_FR_NOW_FRIENDS;
	}
	if (over(logged(s, me, LOG_REQUEST, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(one(s, "SELECT count(*) FROM friend_links WHERE a=$1 AND state IN (0,2)",
	             A1(me), 0, bad, err), w->max_pending))
		return STORE_FR_MY_PENDING;
	if (!hidden && w->max_pending > 0 &&
	    over(one(s, "SELECT count(*) FROM friend_links WHERE b=$1 AND state=0", A1(them), 0,
	             bad, err), 2 * w->max_pending))
		return STORE_FR_THEIR_PENDING;
	run(s, "INSERT INTO friend_links (a, b, state, at_ms) VALUES ($1,$2,$3,$4)",
	    &(qargs){4, {me, them, hidden ? 2 : 0, now}, {0}}, bad, err);
	log_write(s, me, LOG_REQUEST, now, bad, err);
	return STORE_FR_DONE;
}

static int do_accept(pg_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (link_state(s, them, me, bad, err) != 0)
		return STORE_FR_NONE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(friends_of(s, them, bad, err), w->max_friends))
		return STORE_FR_THEIR_FRIENDS;
	run(s, "UPDATE friend_links SET state=1, at_ms=$3 WHERE a=$1 AND b=$2",
	    A3(them, me, w->now_ms), bad, err);
	run(s, "DELETE FROM friend_links WHERE a=$1 AND b=$2", A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_block(pg_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_ALREADY;
	if (over(one(s, "SELECT count(*) FROM blocks WHERE blocker=$1", A1(me), 0, bad, err),
	         w->max_blocks))
		return STORE_FR_BLOCKS_FULL;
	run(s, "INSERT INTO blocks (blocker, blocked, at_ms) VALUES ($1,$2,$3)",
	    A3(me, them, w->now_ms), bad, err);
	/* the friendship ends; my request to them goes; theirs to me stays
	 * pending for them, hidden from me */
	run(s, "DELETE FROM friend_links WHERE (a=$1 AND b=$2) OR (a=$2 AND b=$1 AND state=1)",
	    A2(me, them), bad, err);
	run(s, "UPDATE friend_links SET state=2 WHERE a=$2 AND b=$1 AND state=0", A2(me, them), bad,
	    err);
	run(s, "DELETE FROM invites WHERE (from_account=$1 AND to_account=$2)"
	       " OR (from_account=$2 AND to_account=$1)", A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_invite(pg_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other, now = w->now_ms;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_YOU_BLOCK;
	if (over(logged(s, me, LOG_INVITE, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	qargs g = {1, {0}, {w->game}};
	if (over(one(s, "SELECT count(*) FROM invites WHERE game_id=$1", &g, 0, bad, err),
	         w->max_invites))
		return STORE_FR_INVITES_FULL;
	log_write(s, me, LOG_INVITE, now, bad, err);
	/* the invites of either account to tables that have started or
	 * ended are done with: gone, so the table holds what is still open */
	run(s, "DELETE FROM invites WHERE (from_account=$1 OR to_account=$2) AND game_id IN"
	       " (SELECT i.game_id FROM invites i JOIN games g ON g.id = i.game_id"
	       "  WHERE (i.from_account=$1 OR i.to_account=$2) AND g.status <> 'open')",
	    A2(me, them), bad, err);
	if (blocks(s, them, me, bad, err))
		return STORE_FR_DONE; /* told as sent, never shown to them */
	qargs a = {5, {0, w->seat, me, them, now}, {w->game}};
	run(s, "INSERT INTO invites (game_id, seat, from_account, to_account, at_ms)"
	       " VALUES ($1,$2,$3,$4,$5) ON CONFLICT (game_id, to_account) DO UPDATE SET"
	       " seat=excluded.seat, from_account=excluded.from_account, at_ms=excluded.at_ms",
	    &a, bad, err);
	return STORE_FR_DONE;
}

static int social_step(pg_store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	switch (w->kind) {
	case STORE_FR_REQUEST:
		return do_request(s, w, bad, err);
	case STORE_FR_ACCEPT:
		return do_accept(s, w, bad, err);
	case STORE_FR_DECLINE:
		return run(s, "DELETE FROM friend_links WHERE a=$1 AND b=$2 AND state=0", A2(them, me),
		           bad, err) > 0 ? STORE_FR_DONE : STORE_FR_NONE;
	case STORE_FR_REMOVE:
		return run(s, "DELETE FROM friend_links WHERE (a=$1 AND b=$2)"
		              " OR (a=$2 AND b=$1 AND state=1)", A2(me, them), bad, err) > 0
		           ? STORE_FR_DONE : STORE_FR_NONE;
	case STORE_FR_BLOCK:
		return do_block(s, w, bad, err);
	case STORE_FR_UNBLOCK:
		if (run(s, "DELETE FROM blocks WHERE blocker=$1 AND blocked=$2", A2(me, them), bad,
		        err) <= 0)
			return STORE_FR_NONE;
		run(s, "UPDATE friend_links SET state=0 WHERE a=$2 AND b=$1 AND state=2", A2(me, them),
		    bad, err);
		return STORE_FR_DONE;
	case STORE_FR_INVITE:
		return do_invite(s, w, bad, err);
	case STORE_FR_DISMISS:
		return run(s, "DELETE FROM invites WHERE id=$1 AND to_account=$2", A2(w->invite, me),
		           bad, err) > 0 ? STORE_FR_DONE : STORE_FR_NONE;
	default:
		return STORE_FR_NONE;
	}
}

int pg_social_write(store *base, store_social *w, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	int bad = 0;
	/* both accounts' rows, in id order; an invite's game too */
	run(s, "SELECT id FROM accounts WHERE id IN ($1, $2) ORDER BY id FOR UPDATE",
	    A2(w->actor, w->other), &bad, err);
	if (w->kind == STORE_FR_INVITE)
		run(s, "SELECT id FROM games WHERE id = $1 FOR UPDATE", &(qargs){1, {0}, {w->game}},
		    &bad, err);
	if (!bad)
		w->outcome = social_step(s, w, &bad, err);
	if (bad) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

/* Every list has the columns id, name, at_ms, seen_ms, playing, game. */
static const char *const LISTS[] = {
	[STORE_LIST_FRIENDS] =
	    "SELECT p.id, p.name, f.at_ms, p.seen_ms,"
	    " EXISTS (SELECT 1 FROM seats s JOIN games g ON g.id = s.game_id"
	    "  WHERE s.account = p.id AND g.status = 'playing')::int,"
	    " (SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id"
	    "  WHERE s.account = p.id AND g.status = 'playing'"
	    "  AND (g.options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb"
	    "  ORDER BY g.updated_ms DESC LIMIT 1)"
	    " FROM friend_links f JOIN accounts p ON p.id = CASE WHEN f.a = $1 THEN f.b ELSE f.a END"
	    " WHERE (f.a = $1 OR f.b = $1) AND f.state = 1 ORDER BY p.name_key, p.id LIMIT $2",
	[STORE_LIST_INCOMING] =
	    "SELECT p.id, p.name, f.at_ms, 0, 0, NULL FROM friend_links f JOIN accounts p"
	    " ON p.id = f.a WHERE f.b = $1 AND f.state = 0 ORDER BY f.at_ms DESC LIMIT $2",
	[STORE_LIST_OUTGOING] =
	    "SELECT p.id, p.name, f.at_ms, 0, 0, NULL FROM friend_links f JOIN accounts p"
	    " ON p.id = f.b WHERE f.a = $1 AND f.state IN (0,2) ORDER BY f.at_ms DESC LIMIT $2",
	[STORE_LIST_BLOCKED] =
	    "SELECT p.id, p.name, k.at_ms, 0, 0, NULL FROM blocks k JOIN accounts p"
	    " ON p.id = k.blocked WHERE k.blocker = $1 ORDER BY p.name_key, p.id LIMIT $2",
};

int pg_social_list(store *base, int64_t account, int which, int limit, store_person_fn fn,
                   void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (which < 0 || which > STORE_LIST_BLOCKED) {
		snprintf(err, STORE_ERR_SIZE, "no such list %d", which);
		return -1;
	}
	if (pgs_ensure(s, err))
		return -1;
	params p;
	to_params(A2(account, limit), &p);
	PGresult *r = pgs_q_sql(s, LISTS[which], &p, err);
	if (!r)
		return -1;
	int count = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_person v;
		memset(&v, 0, sizeof v);
		v.id = pgs_i64_val(r, i, 0);
		pgs_copy_val(v.name, sizeof v.name, r, i, 1);
		v.at_ms = pgs_i64_val(r, i, 2);
		v.seen_ms = pgs_i64_val(r, i, 3);
		v.playing = (int)pgs_i64_val(r, i, 4);
		pgs_copy_val(v.game, sizeof v.game, r, i, 5);
		count++;
		if (fn(ctx, &v))
			break;
	}
	PQclear(r);
	return count;
}

int pg_invite_list(store *base, int64_t account, int limit, store_invite_fn fn, void *ctx,
                   char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	params p;
	to_params(A2(account, limit), &p);
	PGresult *r = pgs_q_sql(s,
	    "SELECT i.id, i.game_id, i.seat, i.from_account, p.name, i.at_ms"
	    " FROM invites i JOIN games g ON g.id = i.game_id"
	    " JOIN accounts p ON p.id = i.from_account"
	    " WHERE i.to_account = $1 AND g.status = 'open'"
	    " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = i.game_id AND s.kind = 'open')"
	    " AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.game_id = i.game_id"
	    "  AND s.account = $1)"
	    " AND NOT EXISTS (SELECT 1 FROM blocks k WHERE k.blocker = $1"
	    "  AND k.blocked = i.from_account)"
	    " ORDER BY i.at_ms DESC, i.id DESC LIMIT $2", &p, err);
	if (!r)
		return -1;
	int count = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_invite v;
		memset(&v, 0, sizeof v);
		v.id = pgs_i64_val(r, i, 0);
		pgs_copy_val(v.game, sizeof v.game, r, i, 1);
		v.seat = (int)pgs_i64_val(r, i, 2);
		v.from = pgs_i64_val(r, i, 3);
		pgs_copy_val(v.from_name, sizeof v.from_name, r, i, 4);
		v.at_ms = pgs_i64_val(r, i, 5);
		count++;
		if (fn(ctx, &v))
			break;
	}
	PQclear(r);
	return count;
}

int pg_social_touch(store *base, int64_t account, int64_t now_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	int bad = 0;
	run(s, "UPDATE accounts SET seen_ms = $2 WHERE id = $1 AND seen_ms < $2",
	    A2(account, now_ms), &bad, err);
	if (bad) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_is_blocked(store *base, int64_t blocker, int64_t blocked, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	int bad = 0, b = blocks(s, blocker, blocked, &bad, err);
	return bad ? -1 : b;
}

/* One query for all of them: blocker = ANY of the accounts as an array. */
int pg_blockers_among(store *base, int64_t speaker, const int64_t *accounts, int n,
                      unsigned char *out, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	memset(out, 0, (size_t)(n > 0 ? n : 0));
	if (n <= 0)
		return 0;
	if (pgs_ensure(s, err))
		return -1;
	srv_sb b;
	sb_init(&b);
	sb_adds(&b, "{");
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%lld", i ? "," : "", (long long)accounts[i]);
	sb_adds(&b, "}");
	params p;
	memset(&p, 0, sizeof p);
	pgs_p_i64(&p, speaker);
	pgs_p_str(&p, b.s);
	PGresult *r = pgs_q_sql(s, "SELECT blocker FROM blocks WHERE blocked = $1"
	                           " AND blocker = ANY($2::bigint[])", &p, err);
	sb_free(&b);
	if (!r)
		return -1;
	for (int k = 0; k < PQntuples(r); k++) {
		int64_t who = pgs_i64_val(r, k, 0);
		for (int i = 0; i < n; i++)
			if (accounts[i] == who)
				out[i] = 1;
	}
	PQclear(r);
	return 0;
}
