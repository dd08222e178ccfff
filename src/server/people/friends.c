/*
 * friends.c - friends, friend requests, blocks, invites and presence (see
 * friends.h).
 *
 * Threads: like accounts.c, the loop reads with its own store handle and
 * every write goes to the storage thread as a WJ_CALL job (store.h's
 * social_write, one transaction that checks the limits it changes); the
 * HTTP answer follows when the job is done.
 *
 * What a request may hold: a target account by "name" (an account name,
 * accounts_name_key) or "id" (an integer 1..2^53, of an account the asker
 * is linked with: target_of), a "table" id (at most
 * STORE_ID_SIZE - 1 bytes of [A-Za-z0-9_-]) and an "invite" id (an integer
 * 1..2^53); nothing else is read. Every request counts against the
 * address's --rate-requests and every write against --rate-social; the
 * per-account limits are the store's (store_social).
 *
 * Presence: seen[] remembers, per account (a direct-mapped table: two
 * accounts that share a slot only cost an extra write), when this process
 * last wrote its last-seen time; a later sighting within --presence-every
 * writes nothing. An account is online while its last-seen time is at
 * most --online-window old, whichever process saw it.
 */
#include <jansson.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "errcode.h"
#include "friends.h"
#include "ratelimit.h"
#include "reply.h"
#include "writer.h"

#define ID_MAX 9007199254740992LL /* 2^53: what a JSON number holds exactly */
#define LIST_MAX 1000             /* rows of one list when its limit is off */
#define INVITES_SHOWN 50
#define SEEN_SLOTS 4096

static const srv_config *cfg;
static store *db;
static const fr_hooks *hooks;

static struct {
	int64_t account;
	int64_t us;
} seen[SEEN_SLOTS];

void friends_hooks_set(const fr_hooks *h)
{
	hooks = h;
}

int friends_start(const srv_config *c, store *reader)
{
	cfg = c;
	db = reader;
	memset(seen, 0, sizeof seen);
	return 0;
}

/* ---- presence ---------------------------------------------------------------------------- */

typedef struct touch_job {
	int64_t account, now_ms;
} touch_job;

static int call_touch(store *st, wjob *j)
{
	touch_job *t = j->data;
	return st->ops->social_touch(st, t->account, t->now_ms, j->err);
}

void friends_touch(int64_t account)
{
	if (account <= 0 || !cfg)
		return;
	uint64_t h = (uint64_t)account * 0x9e3779b97f4a7c15ULL;
	size_t k = (size_t)(h >> 52) % SEEN_SLOTS;
	int64_t now = srv_mono_us();
	if (seen[k].account == account && now - seen[k].us < (int64_t)cfg->presence_every_s * 1000000)
		return;
	seen[k].account = account;
	seen[k].us = now;
	touch_job *t = srv_xcalloc(1, sizeof *t);
	t->account = account;
	t->now_ms = srv_now_ms();
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_touch;
	j->data = t;
	writer_submit(j);
}

/* ---- answers ----------------------------------------------------------------------------- */

static void answer(uint64_t serial, int status, json_t *o)
{
	char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	hooks->http_answer(serial, status, "application/json", body, body ? strlen(body) : 0, NULL,
	                   NULL);
}

static void answer_error(uint64_t serial, srv_err e, const char *msg, int retry_after)
{
	json_t *o = api_error_json(e, msg);
	if (retry_after > 0)
		json_object_set_new(o, "retry_after_s", json_integer(retry_after));
	answer(serial, srv_err_http_status(e), o);
}

/* ---- the lists ---------------------------------------------------------------------------- */

typedef struct list_ctx {
	json_t *a;
	int which;
	int64_t now_ms;
} list_ctx;

static int add_person(void *ctx, const store_person *p)
{
	list_ctx *l = ctx;
	json_t *o = json_pack("{s:I, s:s, s:I}", "id", (json_int_t)p->id, "name", p->name, "since_ms",
	                      (json_int_t)p->at_ms);
	if (l->which == STORE_LIST_FRIENDS) {
		int online = p->seen_ms > 0 &&
		             l->now_ms - p->seen_ms <= (int64_t)cfg->online_window_s * 1000;
		json_object_set_new(o, "online", json_boolean(online));
		json_object_set_new(o, "seen_ms", p->seen_ms ? json_integer(p->seen_ms) : json_null());
		json_object_set_new(o, "playing", json_boolean(p->playing));
		json_object_set_new(o, "game", p->game[0] ? json_string(p->game) : json_null());
	}
	json_array_append_new(l->a, o);
	return 0;
}

static int add_invite(void *ctx, const store_invite *v)
{
	json_array_append_new(ctx, json_pack("{s:I, s:s, s:i, s:{s:I, s:s}, s:I}", "id",
	                                     (json_int_t)v->id, "table", v->game, "seat", v->seat,
	                                     "from", "id", (json_int_t)v->from, "name", v->from_name,
	                                     "at_ms", (json_int_t)v->at_ms));
	return 0;
}

static int cap(int limit)
{
	return limit > 0 && limit < LIST_MAX ? limit : LIST_MAX;
}

static void get_friends(const store_account *me, api_resp *rs)
{
	static const char *const NAMES[] = {"friends", "incoming", "outgoing", "blocked"};
	int limits[] = {cap(cfg->max_friends), cap(2 * cfg->max_pending), cap(cfg->max_pending),
	                cap(cfg->max_blocks)};
	json_t *o = json_object();
	char err[STORE_ERR_SIZE];
	int64_t now = srv_now_ms();
	for (int w = 0; w <= STORE_LIST_BLOCKED; w++) {
		list_ctx l = {json_array(), w, now};
		if (db->ops->social_list(db, me->id, w, limits[w], add_person, &l, err) < 0) {
			json_decref(l.a);
			json_decref(o);
			srv_error("account=%lld reading its friends: %s", (long long)me->id, err);
			api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
			return;
		}
		json_object_set_new(o, NAMES[w], l.a);
	}
	json_t *inv = json_array();
	if (db->ops->invite_list(db, me->id, INVITES_SHOWN, add_invite, inv, err) < 0) {
		json_decref(inv);
		json_decref(o);
		srv_error("account=%lld reading its invites: %s", (long long)me->id, err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	json_object_set_new(o, "invites", inv);
	json_object_set_new(o, "online_window_s", json_integer(cfg->online_window_s));
	json_object_set_new(o, "limits",
	                    json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "friends", cfg->max_friends,
	                              "pending", cfg->max_pending, "blocks", cfg->max_blocks,
	                              "requests_per_hour", cfg->friend_rate, "invites_per_hour",
	                              cfg->invite_rate, "invites_per_table", cfg->max_invites));
	api_reply(rs, 200, o);
}

/* ---- the writes ------------------------------------------------------------------------------ */

typedef struct fr_write {
	uint64_t serial;
	store_social w;
	char name[STORE_NAME_SIZE]; /* the other account's, for the answer */
} fr_write;

static int call_social(store *st, wjob *j)
{
	fr_write *f = j->data;
	return st->ops->social_write(st, &f->w, j->err);
}

static const char *const OUTCOMES[] = {
	[STORE_FR_DONE] = "done", [STORE_FR_NOW_FRIENDS] = "friends",
	[STORE_FR_ALREADY] = "already",
};

static void social_done(wjob *j)
{
	fr_write *f = j->data;
	const store_social *w = &f->w;
	char msg[256];
	if (j->failed) {
		snprintf(msg, sizeof msg, "the game database is unavailable: %s; nothing was changed",
		         store_fault_text(j->fault));
		answer_error(f->serial, SE_STORAGE, msg, 0);
		return;
	}
	switch (w->outcome) {
	case STORE_FR_DONE:
	case STORE_FR_NOW_FRIENDS:
	case STORE_FR_ALREADY: {
		json_t *o = json_pack("{s:b, s:s}", "ok", 1, "outcome", OUTCOMES[w->outcome]);
		if (w->other)
			json_object_set_new(o, "account", json_pack("{s:I, s:s}", "id",
			                                             (json_int_t)w->other, "name", f->name));
		srv_event("account=%lld event=social kind=%d other=%lld outcome=%d",
		          (long long)w->actor, w->kind, (long long)w->other, w->outcome);
		answer(f->serial, 200, o);
		return;
	}
	case STORE_FR_NONE:
		answer_error(f->serial, SE_NOT_FOUND, w->kind == STORE_FR_DISMISS
		             ? "no such invite" : w->kind == STORE_FR_UNBLOCK
		             ? "you do not block that account" : w->kind == STORE_FR_REMOVE
		             ? "no friendship nor request of yours with that account"
		             : "no friend request from that account", 0);
		return;
	case STORE_FR_RATE:
		snprintf(msg, sizeof msg, "at most %d %s an hour from one account (%s)",
		         w->rate_per_hour, w->kind == STORE_FR_INVITE ? "invites" : "friend requests",
		         w->kind == STORE_FR_INVITE ? "--invite-rate" : "--friend-rate");
		answer_error(f->serial, SE_RATE_LIMITED, msg, 600);
		return;
	case STORE_FR_MY_FRIENDS:
		snprintf(msg, sizeof msg, "you have %d friends, the most an account may (--max-friends)",
		         w->max_friends);
		break;
	case STORE_FR_THEIR_FRIENDS:
		snprintf(msg, sizeof msg, "that account has %d friends, the most an account may "
		         "(--max-friends)", w->max_friends);
		break;
	case STORE_FR_MY_PENDING:
		snprintf(msg, sizeof msg, "you have %d friend requests waiting for an answer, the most "
		         "an account may (--max-pending)", w->max_pending);
		break;
	case STORE_FR_BLOCKS_FULL:
		snprintf(msg, sizeof msg, "you block %d accounts, the most an account may "
		         "(--max-blocks)", w->max_blocks);
		break;
	case STORE_FR_INVITES_FULL:
		snprintf(msg, sizeof msg, "this table has %d invites, the most a table may "
		         "(--max-invites)", w->max_invites);
		break;
	case STORE_FR_YOU_BLOCK:
		answer_error(f->serial, SE_YOU_BLOCK, "you block that account: unblock it first", 0);
		return;
	default:
		snprintf(msg, sizeof msg, "refused");
		break;
	}
	answer_error(f->serial, SE_LIMIT_REACHED, msg, 0);
}

/* ---- requests ------------------------------------------------------------------------------- */

static json_t *body_object(const api_req *rq, api_resp *rs)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the request body is over the size limit");
		return NULL;
	}
	json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "the body must be a JSON object");
		return NULL;
	}
	return o;
}

/* An id: absent (0), or an integer 1..2^53 (*out); -1 when it is anything else. */
static int id_field(const json_t *o, const char *key, int64_t *out)
{
	const json_t *v = json_object_get(o, key);
	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > ID_MAX)
		return -1;
	*out = (int64_t)json_integer_value(v);
	return 0;
}

/* The target account of a request, by "name" or "id": 1 found (*a), or 0
 * with rs answered. An id names only an account the asker is linked with
 * (social_knows: what its lists show, where the ids come from): ids are
 * counted from 1, so any other would tell the name of every account, also
 * of those /api/player hides. One that is not is answered as one that
 * does not exist, after the same single read. */
static int target_of(const json_t *o, const store_account *me, store_account *a,
                     api_resp *rs)
{
	const json_t *jn = json_object_get(o, "name");
	int64_t id;
	char err[STORE_ERR_SIZE], key[STORE_NAME_SIZE * 2];
	if (id_field(o, "id", &id) || (jn && !json_is_string(jn)) || (!jn) == (!id)) {
		api_reply_error(rs, SE_MALFORMED, "name the account by \"name\" (a string) or \"id\" (an "
		            "integer from 1), one of them");
		return 0;
	}
	if (id == me->id) {
		api_reply_error(rs, SE_MALFORMED, "that is your own account");
		return 0;
	}
	int rc;
	if (jn) {
		if (accounts_name_key(json_string_value(jn), key, sizeof key, err, sizeof err)) {
			api_reply_error(rs, SE_NOT_FOUND, "no account of that name");
			return 0;
		}
		rc = db->ops->account_by_name(db, key, a, err);
	} else {
		rc = db->ops->social_knows(db, me->id, id, err);
		if (rc == 1)
			rc = db->ops->account_by_id(db, id, a, err);
	}
	if (rc < 0) {
		srv_error("reading an account: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return 0;
	}
	if (rc == 0) {
		api_reply_error(rs, SE_NOT_FOUND, jn ? "no account of that name" : "no such account");
		return 0;
	}
	memset(a->pwhash, 0, sizeof a->pwhash);
	if (a->id == me->id) {
		api_reply_error(rs, SE_MALFORMED, "that is your own account");
		return 0;
	}
	return 1;
}

static int table_field(const json_t *o, char *out)
{
	const char *s = json_string_value(json_object_get(o, "table"));
	size_t n = s ? strlen(s) : 0;
	if (!s || !n || n >= STORE_ID_SIZE ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
		return -1;
	memcpy(out, s, n + 1);
	return 0;
}

static const struct {
	const char *path;
	int kind;
} VERBS[] = {
	{"request", STORE_FR_REQUEST}, {"accept", STORE_FR_ACCEPT}, {"decline", STORE_FR_DECLINE},
	{"remove", STORE_FR_REMOVE},   {"block", STORE_FR_BLOCK},   {"unblock", STORE_FR_UNBLOCK},
	{"invite", STORE_FR_INVITE},   {"dismiss", STORE_FR_DISMISS},
};

static void post_social(const api_req *rq, api_resp *rs, int kind, const store_account *me)
{
	json_t *o = body_object(rq, rs);
	if (!o)
		return;
	fr_write *f = srv_xcalloc(1, sizeof *f);
	store_social *w = &f->w;
	w->kind = kind;
	w->actor = me->id;
	w->now_ms = srv_now_ms();
	w->max_friends = cfg->max_friends;
	w->max_pending = cfg->max_pending;
	w->max_blocks = cfg->max_blocks;
	w->max_invites = cfg->max_invites;
	w->rate_per_hour = kind == STORE_FR_INVITE ? cfg->invite_rate : cfg->friend_rate;
	if (kind == STORE_FR_DISMISS) {
		if (id_field(o, "invite", &w->invite) || !w->invite) {
			api_reply_error(rs, SE_MALFORMED, "dismiss needs {\"invite\": <the invite's id>}");
			goto out;
		}
	} else {
		store_account a;
		if (!target_of(o, me, &a, rs))
			goto out;
		w->other = a.id;
		snprintf(f->name, sizeof f->name, "%s", a.name);
	}
	if (kind == STORE_FR_INVITE) {
		char err[200];
		if (table_field(o, w->game)) {
			api_reply_error(rs, SE_MALFORMED, "invite needs \"table\": a table's id");
			goto out;
		}
		int e = hooks->invite_seat(w->game, me->id, w->other, &w->seat, err, sizeof err);
		if (e != SE_OK) {
			api_reply_error(rs, (srv_err)e, err);
			goto out;
		}
	}
	json_decref(o);
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_social;
	j->data = f;
	j->done = social_done;
	f->serial = rq->serial;
	writer_submit(j);
	return; /* social_done answers */
out:
	json_decref(o);
	free(f);
}

int friends_http(const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	if (strcmp(p, "/api/friends") && strncmp(p, "/api/friends/", 13))
		return 0;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	int kind = -1;
	if (p[12] == '/') {
		for (size_t i = 0; i < sizeof VERBS / sizeof VERBS[0]; i++)
			if (!strcmp(p + 13, VERBS[i].path))
				kind = VERBS[i].kind;
		if (kind < 0) {
			api_reply_error(rs, SE_NOT_FOUND, "no such endpoint");
			return 1;
		}
	}
	if (kind < 0 ? !get : !post) {
		api_reply_error(rs, SE_METHOD, kind < 0 ? "GET only" : "POST only");
		return 1;
	}
	if (kind >= 0) {
		char lerr[256];
		int wait = lim_take(rq->addr, LIM_SOCIAL, lerr, sizeof lerr);
		if (wait) {
			api_reply_error(rs, SE_RATE_LIMITED, lerr);
			rs->retry_after = wait;
			return 1;
		}
	}
	store_account me;
	int rc = accounts_session(rq->cookie, &me);
	if (rc < 0) {
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return 1;
	}
	if (rc == 0) {
		api_reply_error(rs, SE_NOT_LOGGED_IN, "friends are for accounts: log in first");
		return 1;
	}
	memset(me.pwhash, 0, sizeof me.pwhash);
	friends_touch(me.id);
	if (kind < 0)
		get_friends(&me, rs);
	else
		post_social(rq, rs, kind, &me);
	return 1;
}
