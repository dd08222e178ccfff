/*
 * api_table.c - the routes of one table, /api/tables/<id>/...: what it
 * shows (its info, its state as a seat sees it, its record, its chat, its
 * analysis) and what a player does there (join, move, undo, resign, claim
 * an account's seat, rematch). A private table that has started is hidden
 * from whoever holds no seat at it (api_private_hidden). Requests the
 * domain takes wait for the store and are answered by api_done.c.
 */
#include <stdio.h>
#include <string.h>

#include "accounts.h"
#include "analysis.h"
#include "api_internal.h"
#include "chat.h"
#include "rematch.h"
#include "tables.h"
#include "undo.h"

/* The answer to a request the domain took (SE_PENDING: answered once the
 * store has it) or refused; wait: a refusal's Retry-After (0: none). */
static void answer_taken(api_resp *rs, srv_err e, const char *err, int wait)
{
	if (e == SE_RATE_LIMITED)
		api_reply_limited(rs, wait, err);
	else if (e != SE_PENDING)
		api_reply_error(rs, e, err);
}

static void post_join(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = api_parse_body(rq, rs, 1);
	if (!o)
		return;
	json_t *jn = json_object_get(o, "name"), *js = json_object_get(o, "seat");
	if (!json_is_string(jn) || (js && !json_is_null(js) && !json_is_integer(js))) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED,
		                "join needs {\"name\": \"...\"} and optionally \"seat\": n");
		return;
	}
	int want = api_seat_wanted(js);
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, 0};
	const char *name = json_string_value(jn);
	store_account acc; /* accounts: the seat follows a logged-in player's account */
	if (accounts_session(rq->cookie, &acc) == 1) {
		origin.account = acc.id;
		name = acc.name;
	}
	srv_err e = tables_join(t, name, want, &origin, err, sizeof err);
	json_decref(o);
	answer_taken(rs, e, err, 0);
}

static void post_move(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = api_parse_body(rq, rs, 1);
	if (!o)
		return;
	char token[STORE_TOKEN_SIZE * 2];
	json_t *jt = json_object_get(o, "token");
	if (json_is_string(jt))
		snprintf(token, sizeof token, "%s", json_string_value(jt));
	else
		api_token_for(t->id, rq->token, rq->cookie, token, sizeof token);
	char err[256];
	int turn, step;
	if (api_parse_turn(json_object_get(o, "turn"), &turn, err, sizeof err) ||
	    api_parse_step(json_object_get(o, "step"), &step, err, sizeof err)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, err);
		return;
	}
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = tables_move(t, token, o, turn, step, &origin, err, sizeof err);
	json_decref(o);
	answer_taken(rs, e, err, 0);
}

/* The seat token of a request whose body may name it ({"token": ...},
 * else the header or the table's cookie) into token; 0, or -1 with the
 * error answered. */
static int body_token(const srv_table *t, const api_req *rq, api_resp *rs, char *token,
                      size_t size)
{
	json_t *o = api_parse_body(rq, rs, 0);
	if (!o)
		return -1;
	json_t *jt = json_object_get(o, "token");
	if (jt && !json_is_string(jt)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "token must be a string");
		return -1;
	}
	if (jt)
		snprintf(token, size, "%s", json_string_value(jt));
	else
		api_token_for(t->id, rq->token, rq->cookie, token, size);
	json_decref(o);
	return 0;
}

/* POST /api/tables/<id>/resign {"token": ...} (or the token's header or
 * cookie, as for a move). */
static void post_resign(srv_table *t, const api_req *rq, api_resp *rs)
{
	char token[STORE_TOKEN_SIZE * 2];
	if (body_token(t, rq, rs, token, sizeof token))
		return;
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, 0};
	answer_taken(rs, tables_resign(t, token, &origin, err, sizeof err), err, 0);
}

/* POST /api/tables/<id>/undo {"moves": k, "token": ...} (or the token's
 * header or cookie): training against bots takes moves back (undo.c). */
static void post_undo(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = rq->body_len ? json_loadb(rq->body, rq->body_len, 0, NULL) : json_object();
	if (!json_is_object(o)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "the body must be a JSON object");
		return;
	}
	char token[STORE_TOKEN_SIZE * 2], err[256];
	api_token_for(t->id, rq->token, rq->cookie, token, sizeof token);
	int wait = 0;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = undo_request(t, o, token, rq->addr, &origin, err, sizeof err, &wait);
	json_decref(o);
	answer_taken(rs, e, err, wait);
}

/* POST /api/tables/<id>/rematch with the token of a seat of the finished
 * game (body "token", the header or the cookie): a seat at its rematch. */
static void post_rematch(srv_table *t, const api_req *rq, api_resp *rs)
{
	char token[STORE_TOKEN_SIZE * 2];
	if (body_token(t, rq, rs, token, sizeof token))
		return;
	char err[256];
	int wait = 0;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = rematch_request(t, token, rq->addr, &origin, err, sizeof err, &wait);
	answer_taken(rs, e, err, wait);
}

/* Accounts: the seat token of the logged-in account's seat here, for a
 * second browser (accounts.h: the token is derived, the first browser
 * keeps its own). */
static void post_claim(srv_table *t, const api_req *rq, api_resp *rs)
{
	store_account acc;
	int rc = accounts_session(rq->cookie, &acc);
	if (rc != 1) {
		api_reply_error(rs, rc < 0 ? SE_STORAGE : SE_NOT_LOGGED_IN,
		                rc < 0 ? "the game database is unavailable" : "not logged in");
		return;
	}
	int seat = tables_seat_of_account(t, acc.id);
	if (seat < 0) {
		api_reply_error(rs, SE_BAD_TOKEN, "this account holds no seat at this table");
		return;
	}
	/* a rematch's seat kept for the account: claiming it from any browser
	 * of the account accepts the rematch (issue 22); api_rematch_done answers */
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, acc.id};
	srv_err e = rematch_claim_account(t, acc.id, &origin, err, sizeof err);
	if (e != SE_OK) {
		if (e != SE_PENDING)
			api_reply_error(rs, e, err);
		return;
	}
	char token[STORE_TOKEN_SIZE];
	accounts_seat_token_at(t->id, seat, acc.id, acc.epoch, token); /* its epoch now */
	api_set_seat_cookie(rs, t->id, token, rq->tls); /* Strict, as a join's */
	api_reply(rs, 200, json_pack("{s:s, s:i, s:s}", "id", t->id, "seat", seat, "token", token));
	explicit_bzero(token, sizeof token);
}

/* GET /api/tables/<id> */
static void get_info(srv_table *t, const api_req *rq, api_resp *rs)
{
	(void)rq;
	api_reply(rs, 200, tables_info(t));
}

/* GET .../state: as the request's seat (token or cookie) sees it */
static void get_state(srv_table *t, const api_req *rq, api_resp *rs)
{
	char token[STORE_TOKEN_SIZE * 2];
	api_token_for(t->id, rq->token, rq->cookie, token, sizeof token);
	api_reply_text(rs, 200, tables_state_text(t, tables_seat_of(t, token)));
}

/* GET .../record: the game's record, as a file to download */
static void get_record(srv_table *t, const api_req *rq, api_resp *rs)
{
	(void)rq;
	char *rec = tables_record_text(t);
	if (!rec) {
		api_reply_error(rs, SE_STORAGE, "the record could not be written");
		return;
	}
	api_reply_text(rs, 200, rec);
	snprintf(rs->disposition, sizeof rs->disposition, "attachment; filename=\"carc-%s.json\"",
	         t->id);
}

/* GET .../chat: the table's chat, without the lines of accounts the
 * reader blocks */
static void get_chat(srv_table *t, const api_req *rq, api_resp *rs)
{
	srv_err code;
	char err[STORE_ERR_SIZE + 64];
	store_account acc;
	int64_t reader = accounts_session(rq->cookie, &acc) == 1 ? acc.id : 0;
	json_t *o = chat_list(t, reader, &code, err, sizeof err);
	if (!o)
		api_reply_error(rs, code, err);
	else
		api_reply(rs, 200, o);
}

/* GET or POST .../analysis (analysis.c) */
static void get_post_analysis(srv_table *t, const api_req *rq, api_resp *rs)
{
	int status, wait;
	srv_err code;
	char err[300];
	char *text = analysis_http(t, rq->method == LWSHUMETH_POST, rq->addr, &status, &code, &wait,
	                           err, sizeof err);
	if (!text) {
		api_reply_error(rs, code, err);
		rs->retry_after = wait;
	} else {
		api_reply_text(rs, status, text);
	}
}

#define R_GET 1
#define R_POST 2

/* The routes after /api/tables/<id>, the methods each takes and what a
 * request by another method is told (405 method_not_allowed). */
static const struct {
	const char *sub;
	int methods; /* R_GET, R_POST */
	const char *refusal;
	void (*fn)(srv_table *t, const api_req *rq, api_resp *rs);
} table_routes[] = {
	{"", R_GET, "GET only", get_info},
	{"/", R_GET, "GET only", get_info},
	{"/state", R_GET, "GET only", get_state},
	{"/record", R_GET, "GET only", get_record},
	{"/join", R_POST, "POST only", post_join},
	{"/move", R_POST, "POST only", post_move},
	{"/undo", R_POST, "POST only", post_undo},
	{"/resign", R_POST, "POST only", post_resign},
	{"/claim", R_POST, "POST only", post_claim},
	{"/chat", R_GET, "GET only (lines are sent over the WebSocket)", get_chat},
	{"/analysis", R_GET | R_POST, "GET or POST", get_post_analysis},
	{"/rematch", R_POST, "POST only", post_rematch},
};

void api_table_route(const api_req *rq, api_resp *rs, const char *rest)
{
	char id[STORE_ID_SIZE];
	size_t n = strcspn(rest, "/");
	if (n == 0 || n >= sizeof id) {
		api_reply_error(rs, SE_NOT_FOUND, "no such table");
		return;
	}
	memcpy(id, rest, n);
	id[n] = 0;
	const char *sub = rest + n;
	srv_table *t = tables_find(id);
	if (!t || api_private_hidden(t, rq->token, rq->cookie)) {
		api_reply_error(rs, SE_NOT_FOUND, "no such table");
		return;
	}
	int method = rq->method == LWSHUMETH_GET ? R_GET : rq->method == LWSHUMETH_POST ? R_POST : 0;
	for (size_t i = 0; i < sizeof table_routes / sizeof table_routes[0]; i++) {
		if (strcmp(sub, table_routes[i].sub))
			continue;
		if (!(table_routes[i].methods & method))
			api_reply_error(rs, SE_METHOD, table_routes[i].refusal);
		else
			table_routes[i].fn(t, rq, rs);
		return;
	}
	api_reply_error(rs, SE_NOT_FOUND, "no such endpoint");
}
