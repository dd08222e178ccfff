/*
 * accounts_http.c - the endpoints of the accounts (accounts.h,
 * docs/protocol.md "Accounts" and "Ratings"): which path goes where
 * (accounts_http), and the ones answered from the loop's reading handle:
 * /api/me, /api/me/games, /api/leaderboard, /api/player (a profile: its
 * finished games, its rating's history, its results against each bot).
 *
 * Register, login and logout are accounts_login.c's; recovery, the
 * password, deletion and the games' download are recovery.c's.
 */
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_internal.h"
#include "ratings.h"
#include "recovery.h"
#include "reply.h"

#define MY_GAMES_MAX 100
#define PROFILE_SCAN 500 /* finished games a profile looks at */
#define PROFILE_GAMES 50 /* of which it lists */
#define BOARD_PAGE 50
#define BOARD_PAGE_MAX 128
/* The deepest page of the leaderboard: a page is read by walking the
 * rating index from the best (offset + limit rows), so the offset bounds
 * what one request costs (docs/protocol.md, "Ratings") */
#define BOARD_OFFSET_MAX 10000

static json_t *account_json(const store_account *a)
{
	return json_pack("{s:I, s:s, s:f, s:f, s:i, s:b}", "id", (json_int_t)a->id, "name", a->name,
	                 "rating", round(a->rating * 10) / 10, "rd", round(a->rd * 10) / 10, "games",
	                 a->games, "established", a->established);
}

static json_t *seat_names(const store_game *g)
{
	json_t *a = json_array();
	for (int i = 0; i < g->players && i < 8; i++) {
		const char *nm = "";
		for (int k = 0; k < g->nseats; k++)
			if (g->seats[k].seat == i)
				nm = g->seats[k].name;
		json_array_append_new(a, json_string(nm));
	}
	return a;
}

typedef struct my_games {
	json_t *games;
	int64_t account, epoch;
} my_games;

static int add_my_game(void *ctx, const store_game *g, int seat, const store_result *r,
                       const store_rating_row *rr)
{
	(void)r;
	(void)rr;
	my_games *m = ctx;
	json_t *o = acc_upper->live_game(g->id, seat);
	if (!o)
		o = json_pack("{s:s, s:i, s:s, s:b, s:o, s:I, s:n}", "id", g->id, "seat", seat,
		              "status", store_status_name(g->status), "your_turn", 0, "players",
		              seat_names(g), "updated_ms", (json_int_t)g->updated_ms, "deadline_ms");
	const char *st = json_string_value(json_object_get(o, "status"));
	if (st && (!strcmp(st, "open") || !strcmp(st, "playing"))) {
		char tok[STORE_TOKEN_SIZE];
		accounts_seat_token_at(g->id, seat, m->account, m->epoch, tok);
		json_object_set_new(o, "token", json_string(tok));
	}
	json_array_append_new(m->games, o);
	return 0;
}

static void get_my_games(const api_req *rq, api_resp *rs)
{
	store_account a;
	if (!accounts_require_session(rq, rs, &a))
		return;
	my_games m = {json_array(), a.id, a.epoch}; /* the session's: its epoch now */
	char err[STORE_ERR_SIZE];
	if (acc_db->ops->account_games(acc_db, a.id, 0, MY_GAMES_MAX, add_my_game, &m, err) < 0) {
		json_decref(m.games);
		srv_error("listing an account's games: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	api_reply(rs, 200, json_pack("{s:o}", "games", m.games));
}

static int query_int(const api_req *rq, api_resp *rs, const char *key, int lo, int hi, int *out)
{
	char v[32];
	if (!srv_query_get(rq->query, key, v, sizeof v))
		return 0;
	char *end;
	long n = strtol(v, &end, 10);
	if (!v[0] || *end || v[0] == '+' || n < lo || n > hi) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s must be a number from %d to %d", key, lo, hi);
		api_reply_error(rs, SE_MALFORMED, msg);
		return -1;
	}
	*out = (int)n;
	return 0;
}

typedef struct board {
	json_t *players;
	int rank, limit, more;
} board;

static int add_board(void *ctx, const store_account *a)
{
	board *b = ctx;
	if ((int)json_array_size(b->players) >= b->limit) {
		b->more = 1;
		return -1;
	}
	json_t *o = account_json(a);
	json_object_del(o, "id");
	json_object_set_new(o, "rank", json_integer(++b->rank));
	json_array_append_new(b->players, o);
	return 0;
}

static void get_leaderboard(const api_req *rq, api_resp *rs)
{
	int limit = BOARD_PAGE, offset = 0;
	if (query_int(rq, rs, "limit", 1, BOARD_PAGE_MAX, &limit) < 0 ||
	    query_int(rq, rs, "offset", 0, BOARD_OFFSET_MAX, &offset) < 0)
		return;
	board b = {json_array(), offset, limit, 0};
	char err[STORE_ERR_SIZE];
	if (acc_db->ops->leaderboard(acc_db, limit + 1, offset, add_board, &b, err) < 0) {
		json_decref(b.players);
		srv_error("reading the leaderboard: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (offset + limit > BOARD_OFFSET_MAX)
		b.more = 0; /* the next page would be past the deepest one */
	api_reply(rs, 200, json_pack("{s:o, s:b, s:f, s:f}", "players", b.players, "more", b.more,
	                         "start_rating", RATING_START, "start_rd", RATING_RD_START));
}

/* A profile: per bot level, the pairwise results against it. */
typedef struct vs_bot {
	char level[STORE_NAME_SIZE], spec[STORE_SPEC_SIZE];
	int games, wins, draws, losses;
} vs_bot;

typedef struct profile {
	json_t *games, *history;
	vs_bot bots[16];
	int nbots;
	int64_t viewer; /* the account asking (0: none) */
} profile;

/* Whether a stored game is private (table option "private": true). */
static int game_private(const store_game *g)
{
	if (!g->options || !strstr(g->options, "private"))
		return 0;
	json_t *o = json_loads(g->options, 0, NULL);
	int p = json_is_true(json_object_get(o, "private"));
	json_decref(o);
	return p;
}

static int game_seats(const store_game *g, int64_t account)
{
	for (int k = 0; account && k < g->nseats; k++)
		if (g->seats[k].account == account)
			return 1;
	return 0;
}

static int add_profile_game(void *ctx, const store_game *g, int seat, const store_result *r,
                            const store_rating_row *rr)
{
	profile *p = ctx;
	if (!r)
		return 0;
	if (game_private(g) && !game_seats(g, p->viewer)) {
		/* shown only to its players: the rating's step stays, without the game */
		if (rr)
			json_array_insert_new(p->history, 0,
			                      json_pack("{s:n, s:I, s:f, s:f, s:f}", "game", "at_ms",
			                                (json_int_t)rr->at_ms, "before", rr->before,
			                                "after", rr->after, "rd", rr->rd_after));
		return 0;
	}
	json_t *scores = json_loads(r->scores, 0, NULL);
	if ((int)json_array_size(p->games) < PROFILE_GAMES) {
		char replay[64];
		snprintf(replay, sizeof replay, "/?replay=%s", g->id);
		json_t *o = json_pack("{s:s, s:i, s:o, s:O, s:I, s:b, s:s}", "id", g->id, "seat", seat,
		                      "players", seat_names(g), "scores",
		                      scores ? scores : json_array(), "finished_ms",
		                      (json_int_t)r->at_ms, "rated", rr != NULL, "replay", replay);
		json_t *w = json_loads(r->winners, 0, NULL);
		json_object_set_new(o, "winners", w ? w : json_array());
		if (rr) {
			json_object_set_new(o, "rating_before", json_real(round(rr->before * 10) / 10));
			json_object_set_new(o, "rating_after", json_real(round(rr->after * 10) / 10));
		}
		json_array_append_new(p->games, o);
	}
	if (rr) /* newest first here: the history is turned round at the end */
		json_array_insert_new(p->history, 0,
		                      json_pack("{s:s, s:I, s:f, s:f, s:f}", "game", rr->game, "at_ms",
		                                (json_int_t)rr->at_ms, "before", rr->before, "after",
		                                rr->after, "rd", rr->rd_after));
	int mine = (int)json_integer_value(json_array_get(scores, (size_t)seat));
	for (int k = 0; k < g->nseats; k++) {
		const store_seat *s = &g->seats[k];
		if (s->kind != STORE_SEAT_BOT || s->seat == seat)
			continue;
		int theirs = (int)json_integer_value(json_array_get(scores, (size_t)s->seat));
		vs_bot *b = NULL;
		for (int i = 0; i < p->nbots && !b; i++)
			if (!strcmp(p->bots[i].level, s->level) && !strcmp(p->bots[i].spec, s->spec))
				b = &p->bots[i];
		if (!b && p->nbots < (int)(sizeof p->bots / sizeof p->bots[0])) {
			b = &p->bots[p->nbots++];
			memset(b, 0, sizeof *b);
			snprintf(b->level, sizeof b->level, "%s", s->level);
			snprintf(b->spec, sizeof b->spec, "%s", s->spec);
		}
		if (!b)
			continue;
		b->games++;
		b->wins += mine > theirs;
		b->draws += mine == theirs;
		b->losses += mine < theirs;
	}
	json_decref(scores);
	return 0;
}

static void get_player(const api_req *rq, api_resp *rs)
{
	char name[STORE_NAME_SIZE * 2], key[STORE_NAME_SIZE * 2], err[STORE_ERR_SIZE];
	int wait = lim_take(rq->addr, LIM_PLAYERS, err, sizeof err);
	if (wait) {
		api_reply_error(rs, SE_RATE_LIMITED, err);
		rs->retry_after = wait;
		return;
	}
	if (!srv_query_get(rq->query, "name", name, sizeof name)) {
		api_reply_error(rs, SE_MALFORMED, "GET /api/player?name=NAME");
		return;
	}
	store_account a;
	int rc = accounts_name_key(name, key, sizeof key, err, sizeof err) ? 0
	         : acc_db->ops->account_by_name(acc_db, key, &a, err);
	if (rc < 0) {
		srv_error("reading an account: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (rc == 0) {
		api_reply_error(rs, SE_NOT_FOUND, "no player of that name");
		return;
	}
	profile p;
	memset(&p, 0, sizeof p);
	p.games = json_array();
	p.history = json_array();
	store_account me;
	if (accounts_session(rq->cookie, &me) == 1)
		p.viewer = me.id;
	sodium_memzero(&me, sizeof me);
	if (acc_db->ops->account_games(acc_db, a.id, 1, PROFILE_SCAN, add_profile_game, &p, err) < 0) {
		json_decref(p.games);
		json_decref(p.history);
		srv_error("listing an account's games: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (!json_array_size(p.games) && p.viewer != a.id) {
		/* no game it may show: the same answer as for no such account, so
		 * that names cannot be tried to find who registered */
		json_decref(p.games);
		json_decref(p.history);
		sodium_memzero(&a, sizeof a);
		api_reply_error(rs, SE_NOT_FOUND, "no player of that name");
		return;
	}
	json_t *bots = json_array();
	for (int i = 0; i < p.nbots; i++) {
		const vs_bot *b = &p.bots[i];
		double r;
		json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:f}", "level", b->level, "spec",
		                      b->spec, "games", b->games, "wins", b->wins, "draws", b->draws,
		                      "losses", b->losses, "win_rate",
		                      b->games ? (b->wins + 0.5 * b->draws) / b->games : 0.0);
		json_object_set_new(o, "rating", ratings_bot(b->spec, &r) ? json_real(round(r)) : json_null());
		json_array_append_new(bots, o);
	}
	json_t *o = account_json(&a);
	json_object_del(o, "id");
	json_object_set_new(o, "created_ms", json_integer(a.created_ms));
	json_object_set_new(o, "history", p.history);
	json_object_set_new(o, "recent_games", p.games);
	json_object_set_new(o, "bots", bots);
	sodium_memzero(&a, sizeof a);
	api_reply(rs, 200, o);
}

int accounts_http(const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	int reg = !strcmp(p, "/api/account/register"), login = !strcmp(p, "/api/account/login");
	if (reg || login || !strcmp(p, "/api/account/logout")) {
		if (!post)
			api_reply_error(rs, SE_METHOD, "POST only");
		else if (reg || login)
			acc_post_credentials(rq, rs, reg);
		else
			acc_post_logout(rq, rs);
		return 1;
	}
	if (recovery_http(rq, rs))
		return 1; /* recovery.c: recovery, password, deletion, the games' download */
	int me = !strcmp(p, "/api/me"), games = !strcmp(p, "/api/me/games"),
	    lb = !strcmp(p, "/api/leaderboard"), pl = !strcmp(p, "/api/player"),
	    session = !strcmp(p, "/api/session");
	if (!me && !games && !lb && !pl && !session)
		return 0;
	if (!get) {
		api_reply_error(rs, SE_METHOD, "GET only");
		return 1;
	}
	store_account a;
	if (session) {
		/* who this browser is, without an error for a guest: a page asks this on
		 * every visit, and a guest is not a failure (GET /api/me stays 401) */
		int rc = accounts_session(rq->cookie, &a);
		if (rc < 0)
			api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		else
			api_reply(rs, 200, json_pack("{s:o}", "account", rc == 1 ? account_json(&a) : json_null()));
		sodium_memzero(&a, sizeof a);
	} else if (me) {
		if (accounts_require_session(rq, rs, &a)) {
			api_reply(rs, 200, json_pack("{s:o}", "account", account_json(&a)));
			sodium_memzero(&a, sizeof a);
		}
	} else if (games) {
		get_my_games(rq, rs);
	} else if (lb) {
		get_leaderboard(rq, rs);
	} else {
		get_player(rq, rs);
	}
	return 1;
}
