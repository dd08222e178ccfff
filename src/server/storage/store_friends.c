/*
 * store_friends.c - what both stores keep of who knows whom, written once
 * over store_sql.h: friendships and requests (friend_links), blocks,
 * invites to a table's seat, the social writes of the last hour that the
 * per-account limits count (social_log), and presence (accounts.seen_ms).
 * See store.h, "friends, blocks, invites and presence".
 *
 * A social write is one transaction, so the counts it checks are the
 * counts it changes: in SQLite BEGIN IMMEDIATE (the one writer of the
 * file); in PostgreSQL it first locks the rows of both accounts (in id
 * order: two writes about the same pair wait for each other, never
 * deadlock) and, for an invite, the game's row, so that holds with
 * several server processes too.
 */
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

#define HOUR_MS 3600000LL
#define LOG_REQUEST 0
#define LOG_INVITE 1

/* The state of the link from a to b (0 asked, 1 friends, 2 asked hidden), -1: none. */
static int64_t link_state(store *s, int64_t a, int64_t b, int *bad, char *err)
{
	return sql_one(s, "SELECT state FROM friend_links WHERE a=$1 AND b=$2", SQL_A2(a, b), -1, bad,
	               err);
}

static int blocks(store *s, int64_t blocker, int64_t blocked, int *bad, char *err)
{
	return sql_one(s, "SELECT 1 FROM blocks WHERE blocker=$1 AND blocked=$2",
	               SQL_A2(blocker, blocked), 0, bad, err) == 1;
}

static int64_t friends_of(store *s, int64_t x, int *bad, char *err)
{
	return sql_one(s, "SELECT (SELECT count(*) FROM friend_links WHERE a=$1 AND state=1)"
	                  " + (SELECT count(*) FROM friend_links WHERE b=$1 AND state=1)",
	               SQL_A1(x), 0, bad, err);
}

/* The actor's writes of `kind` in the last hour (older ones are dropped). */
static int64_t logged(store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	sql_run(s, "DELETE FROM social_log WHERE account=$1 AND at_ms <= $2",
	        SQL_A2(x, now - HOUR_MS), bad, err);
	return sql_one(s, "SELECT count(*) FROM social_log WHERE account=$1 AND kind=$2",
	               SQL_A2(x, kind), 0, bad, err);
}

static void log_write(store *s, int64_t x, int kind, int64_t now, int *bad, char *err)
{
	sql_run(s, "INSERT INTO social_log (account, kind, at_ms) VALUES ($1,$2,$3)",
	        SQL_A3(x, kind, now), bad, err);
}

static int over(int64_t n, int max)
{
	return max > 0 && n >= max;
}

/* The inbox of `them` holds at most twice max_pending requests (hidden
 * ones too): a new one drops the oldest, so strangers who fill it never
 * keep out the request of someone it knows, and a request is never
 * refused for the receiver's sake, which would tell a blocked sender
 * (whose request is stored hidden) from a stranger. Every request runs
 * these same statements, hidden or not. */
static void make_room(store *s, int64_t them, int max_pending, int *bad, char *err)
{
	if (max_pending <= 0)
		return;
	int64_t in = sql_one(s, "SELECT count(*) FROM friend_links WHERE b=$1 AND state IN (0,2)",
	                     SQL_A1(them), 0, bad, err),
	        room = 2 * (int64_t)max_pending;
	if (in >= room)
		sql_run(s, "DELETE FROM friend_links WHERE b=$1 AND a IN (SELECT a FROM friend_links"
		           " WHERE b=$1 AND state IN (0,2) ORDER BY at_ms, a LIMIT $2)",
		        SQL_A2(them, in - room + 1), bad, err);
}

static int do_request(store *s, store_social *w, int *bad, char *err)
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
		sql_run(s, "UPDATE friend_links SET state=1, at_ms=$3 WHERE a=$1 AND b=$2",
		        SQL_A3(them, me, now), bad, err);
		return STORE_FR_NOW_FRIENDS;
	}
	if (over(logged(s, me, LOG_REQUEST, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(sql_one(s, "SELECT count(*) FROM friend_links WHERE a=$1 AND state IN (0,2)",
	                 SQL_A1(me), 0, bad, err), w->max_pending))
		return STORE_FR_MY_PENDING;
	make_room(s, them, w->max_pending, bad, err);
	sql_run(s, "INSERT INTO friend_links (a, b, state, at_ms) VALUES ($1,$2,$3,$4)",
	        SQL_ARGS(SQL_I(me), SQL_I(them), SQL_I(hidden ? 2 : 0), SQL_I(now)), bad, err);
	log_write(s, me, LOG_REQUEST, now, bad, err);
	return STORE_FR_DONE;
}

static int do_accept(store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (link_state(s, them, me, bad, err) != 0)
		return STORE_FR_NONE;
	if (over(friends_of(s, me, bad, err), w->max_friends))
		return STORE_FR_MY_FRIENDS;
	if (over(friends_of(s, them, bad, err), w->max_friends))
		return STORE_FR_THEIR_FRIENDS;
	sql_run(s, "UPDATE friend_links SET state=1, at_ms=$3 WHERE a=$1 AND b=$2",
	        SQL_A3(them, me, w->now_ms), bad, err);
	sql_run(s, "DELETE FROM friend_links WHERE a=$1 AND b=$2", SQL_A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_block(store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_ALREADY;
	if (over(sql_one(s, "SELECT count(*) FROM blocks WHERE blocker=$1", SQL_A1(me), 0, bad, err),
	         w->max_blocks))
		return STORE_FR_BLOCKS_FULL;
	sql_run(s, "INSERT INTO blocks (blocker, blocked, at_ms) VALUES ($1,$2,$3)",
	        SQL_A3(me, them, w->now_ms), bad, err);
	/* the friendship ends; my request to them goes; theirs to me stays
	 * pending for them, hidden from me */
	sql_run(s, "DELETE FROM friend_links WHERE (a=$1 AND b=$2) OR (a=$2 AND b=$1 AND state=1)",
	        SQL_A2(me, them), bad, err);
	sql_run(s, "UPDATE friend_links SET state=2 WHERE a=$2 AND b=$1 AND state=0",
	        SQL_A2(me, them), bad, err);
	sql_run(s, "DELETE FROM invites WHERE (from_account=$1 AND to_account=$2)"
	           " OR (from_account=$2 AND to_account=$1)", SQL_A2(me, them), bad, err);
	return STORE_FR_DONE;
}

static int do_invite(store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other, now = w->now_ms;
	if (blocks(s, me, them, bad, err))
		return STORE_FR_YOU_BLOCK;
	if (over(logged(s, me, LOG_INVITE, now, bad, err), w->rate_per_hour))
		return STORE_FR_RATE;
	if (over(sql_one(s, "SELECT count(*) FROM invites WHERE game_id=$1",
	                 SQL_ARGS(SQL_S(w->game)), 0, bad, err), w->max_invites))
		return STORE_FR_INVITES_FULL;
	log_write(s, me, LOG_INVITE, now, bad, err);
	/* the invites of either account to tables that have started or
	 * ended are done with: gone, so the table holds what is still open */
	sql_run(s, "DELETE FROM invites WHERE (from_account=$1 OR to_account=$2) AND game_id IN"
	           " (SELECT i.game_id FROM invites i JOIN games g ON g.id = i.game_id"
	           "  WHERE (i.from_account=$1 OR i.to_account=$2) AND g.status <> 'open')",
	        SQL_A2(me, them), bad, err);
	if (blocks(s, them, me, bad, err))
		return STORE_FR_DONE; /* told as sent, never shown to them */
	sql_run(s, "INSERT INTO invites (game_id, seat, from_account, to_account, at_ms)"
	           " VALUES ($1,$2,$3,$4,$5) ON CONFLICT (game_id, to_account) DO UPDATE SET"
	           " seat=excluded.seat, from_account=excluded.from_account, at_ms=excluded.at_ms",
	        SQL_ARGS(SQL_S(w->game), SQL_I(w->seat), SQL_I(me), SQL_I(them), SQL_I(now)), bad,
	        err);
	return STORE_FR_DONE;
}

/* A statement's outcome: DONE when it changed a row, else NONE. */
static int changed(int n)
{
	return n > 0 ? STORE_FR_DONE : STORE_FR_NONE;
}

static int social_step(store *s, store_social *w, int *bad, char *err)
{
	int64_t me = w->actor, them = w->other;
	switch (w->kind) {
	case STORE_FR_REQUEST:
		return do_request(s, w, bad, err);
	case STORE_FR_ACCEPT:
		return do_accept(s, w, bad, err);
	case STORE_FR_DECLINE:
		return changed(sql_run(s, "DELETE FROM friend_links WHERE a=$1 AND b=$2 AND state=0",
		                       SQL_A2(them, me), bad, err));
	case STORE_FR_REMOVE:
		return changed(sql_run(s, "DELETE FROM friend_links WHERE (a=$1 AND b=$2)"
		                          " OR (a=$2 AND b=$1 AND state=1)", SQL_A2(me, them), bad, err));
	case STORE_FR_BLOCK:
		return do_block(s, w, bad, err);
	case STORE_FR_UNBLOCK:
		if (sql_run(s, "DELETE FROM blocks WHERE blocker=$1 AND blocked=$2", SQL_A2(me, them),
		            bad, err) <= 0)
			return STORE_FR_NONE;
		sql_run(s, "UPDATE friend_links SET state=0 WHERE a=$2 AND b=$1 AND state=2",
		        SQL_A2(me, them), bad, err);
		return STORE_FR_DONE;
	case STORE_FR_INVITE:
		return do_invite(s, w, bad, err);
	case STORE_FR_DISMISS:
		return changed(sql_run(s, "DELETE FROM invites WHERE id=$1 AND to_account=$2",
		                       SQL_A2(w->invite, me), bad, err));
	default:
		return STORE_FR_NONE;
	}
}

int store_social_write(store *s, store_social *w, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	if (s->sql->pg) { /* both accounts' rows, in id order; an invite's game too */
		sql_run(s, "SELECT id FROM accounts WHERE id IN ($1, $2) ORDER BY id FOR UPDATE",
		        SQL_A2(w->actor, w->other), &bad, err);
		if (w->kind == STORE_FR_INVITE)
			sql_run(s, "SELECT id FROM games WHERE id = $1 FOR UPDATE", SQL_ARGS(SQL_S(w->game)),
			        &bad, err);
	}
	if (!bad)
		w->outcome = social_step(s, w, &bad, err);
	return sql_end(s, bad, 0, err);
}

/* A friendship or a request either way, a block of the account's own, an
 * invite to it from the other: each a primary-key or an index lookup on
 * the account's own rows (friend_links_to, invites_to). */
int store_social_knows(store *s, int64_t account, int64_t other, char *err)
{
	if (sql_ready(s, err))
		return -1;
	int bad = 0;
	int64_t k = sql_one(s,
	    "SELECT CASE WHEN EXISTS (SELECT 1 FROM friend_links WHERE a=$1 AND b=$2)"
	    " OR EXISTS (SELECT 1 FROM friend_links WHERE a=$2 AND b=$1)"
	    " OR EXISTS (SELECT 1 FROM blocks WHERE blocker=$1 AND blocked=$2)"
	    " OR EXISTS (SELECT 1 FROM invites WHERE to_account=$1 AND from_account=$2)"
	    " THEN 1 ELSE 0 END", SQL_A2(account, other), 0, &bad, err);
	return bad ? -1 : k == 1;
}

/* Every list has the columns id, name, at_ms, seen_ms, playing, game. The
 * friends' list differs between the stores only in how a table's options
 * say it is private (PostgreSQL's jsonb, SQLite's json_extract). A
 * friend's presence is read from that friend's seats in games being
 * played (seats_by_account_status: the seat's copy of its game's status),
 * never from the games being played on the site. */
#define FRIENDS_LIST(not_private)                                                          \
	"SELECT p.id, p.name, f.at_ms, p.seen_ms,"                                             \
	" EXISTS (SELECT 1 FROM seats s WHERE s.account = p.id AND s.game_status = 'playing')," \
	" (SELECT g.id FROM seats s JOIN games g ON g.id = s.game_id"                          \
	"  WHERE s.account = p.id AND s.game_status = 'playing' AND " not_private              \
	"  ORDER BY g.updated_ms DESC LIMIT 1)"                                                \
	" FROM friend_links f JOIN accounts p ON p.id = CASE WHEN f.a = $1 THEN f.b ELSE f.a END" \
	" WHERE (f.a = $1 OR f.b = $1) AND f.state = 1 ORDER BY p.name_key, p.id LIMIT $2"
static const char *const LISTS[] = {
	[STORE_LIST_FRIENDS] = NULL, /* FRIENDS_PG or FRIENDS_SQLITE */
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
static const char FRIENDS_PG[] =
    FRIENDS_LIST("(g.options::jsonb->'private') IS DISTINCT FROM 'true'::jsonb");
static const char FRIENDS_SQLITE[] =
    FRIENDS_LIST("coalesce(json_extract(g.options,'$.private'),0) = 0");

const char *store_social_list_sql(const store *s, int which)
{
	if (which != STORE_LIST_FRIENDS)
		return LISTS[which];
	return s->sql->pg ? FRIENDS_PG : FRIENDS_SQLITE;
}

/* The caller's function and context, for each row of a list. */
struct relay {
	union {
		store_person_fn person;
		store_invite_fn invite;
	} fn;
	void *ctx;
};

static int person_row(void *ctx, const store_row *r)
{
	const struct relay *c = ctx;
	store_person v = {.id = row_i64(r, 0), .at_ms = row_i64(r, 2), .seen_ms = row_i64(r, 3),
	                  .playing = (int)row_i64(r, 4)};
	row_text(r, 1, v.name, sizeof v.name);
	row_text(r, 5, v.game, sizeof v.game);
	return c->fn.person(c->ctx, &v);
}

int store_social_list(store *s, int64_t account, int which, int limit, store_person_fn fn,
                      void *ctx, char *err)
{
	sql_no_fault(s);
	if (which < 0 || which > STORE_LIST_BLOCKED) {
		snprintf(err, STORE_ERR_SIZE, "no such list %d", which);
		return -1;
	}
	if (sql_connect(s, err))
		return -1;
	const char *sql = store_social_list_sql(s, which);
	int bad = 0;
	struct relay c = {.fn.person = fn, .ctx = ctx};
	return sql_rows(s, sql, SQL_A2(account, limit), person_row, &c, &bad, err);
}

/* the asker's invites (invites_to), each game's seats by its key: an
 * open seat whose game is open (the seat's copy of the game's status, so
 * that no plan joins the asker's invites with every open game), and
 * whether the asker sits there already (one key of
 * seats_by_account_status) */
const char STORE_INVITES_SQL[] =
    "SELECT i.id, i.game_id, i.seat, i.from_account, p.name, i.at_ms"
    " FROM invites i JOIN accounts p ON p.id = i.from_account"
    " WHERE i.to_account = $1"
    " AND EXISTS (SELECT 1 FROM seats s WHERE s.game_id = i.game_id AND s.kind = 'open'"
    "  AND s.game_status = 'open')"
    " AND NOT EXISTS (SELECT 1 FROM seats s WHERE s.account = $1"
    "  AND s.game_status = 'open' AND s.game_id = i.game_id)"
    " AND NOT EXISTS (SELECT 1 FROM blocks k WHERE k.blocker = $1"
    "  AND k.blocked = i.from_account)"
    " ORDER BY i.at_ms DESC, i.id DESC LIMIT $2";

static int invite_row(void *ctx, const store_row *r)
{
	const struct relay *c = ctx;
	store_invite v = {.id = row_i64(r, 0), .seat = (int)row_i64(r, 2), .from = row_i64(r, 3),
	                  .at_ms = row_i64(r, 5)};
	row_text(r, 1, v.game, sizeof v.game);
	row_text(r, 4, v.from_name, sizeof v.from_name);
	return c->fn.invite(c->ctx, &v);
}

int store_invite_list(store *s, int64_t account, int limit, store_invite_fn fn, void *ctx,
                      char *err)
{
	if (sql_ready(s, err))
		return -1;
	int bad = 0;
	struct relay c = {.fn.invite = fn, .ctx = ctx};
	return sql_rows(s, STORE_INVITES_SQL, SQL_A2(account, limit), invite_row, &c, &bad, err);
}

int store_social_touch(store *s, int64_t account, int64_t now_ms, char *err)
{
	if (sql_begin(s, err))
		return -1;
	int bad = 0;
	sql_run(s, "UPDATE accounts SET seen_ms = $2 WHERE id = $1 AND seen_ms < $2",
	        SQL_A2(account, now_ms), &bad, err);
	return sql_end(s, bad, 0, err);
}

int store_is_blocked(store *s, int64_t blocker, int64_t blocked, char *err)
{
	if (sql_ready(s, err))
		return -1;
	int bad = 0, b = blocks(s, blocker, blocked, &bad, err);
	return bad ? -1 : b;
}

struct among_ctx {
	const int64_t *accounts;
	int n;
	unsigned char *out;
};

static int blocker_row(void *ctx, const store_row *r)
{
	struct among_ctx *c = ctx;
	int64_t who = row_i64(r, 0);
	for (int i = 0; i < c->n; i++)
		if (c->accounts[i] == who)
			c->out[i] = 1;
	return 0;
}

/* PostgreSQL asks once, for all of them (blocker = ANY of the accounts as
 * an array); SQLite, on the same machine, asks once an account. */
int store_blockers_among(store *s, int64_t speaker, const int64_t *accounts, int n,
                         unsigned char *out, char *err)
{
	sql_no_fault(s);
	memset(out, 0, (size_t)(n > 0 ? n : 0));
	if (n <= 0)
		return 0;
	if (sql_connect(s, err))
		return -1;
	int bad = 0;
	if (!s->sql->pg) {
		for (int i = 0; i < n && !bad; i++)
			out[i] = accounts[i] && blocks(s, accounts[i], speaker, &bad, err);
		return bad ? -1 : 0;
	}
	srv_sb b;
	sb_init(&b);
	sb_adds(&b, "{");
	for (int i = 0; i < n; i++)
		sb_printf(&b, "%s%lld", i ? "," : "", (long long)accounts[i]);
	sb_adds(&b, "}");
	struct among_ctx c = {accounts, n, out};
	sql_rows(s, "SELECT blocker FROM blocks WHERE blocked = $1 AND blocker = ANY($2::bigint[])",
	         SQL_ARGS(SQL_I(speaker), SQL_S(b.s)), blocker_row, &c, &bad, err);
	sb_free(&b);
	return bad ? -1 : 0;
}
