/*
 * api_ws.c - the WebSocket of a table (docs/protocol.md, "WebSocket"):
 * connecting to /ws/<table id>, the messages a client sends (move, join,
 * auth, state, resign, undo, chat, rematch, window, preview, feature, ping)
 * and leaving.
 * The same functions of the domain as the HTTP routes, with the same
 * checks and error codes. Every message counts against the address's
 * request budget; one refused is answered without parsing it, and an
 * address that goes on sending while over its budget loses the
 * connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "api_internal.h"
#include "chat.h"
#include "foresee.h"
#include "friends.h"
#include "ratelimit.h"
#include "rematch.h"
#include "tables.h"
#include "undo.h"
#include "windows.h"

/* Messages an address may send after being refused, without one allowed
 * in between, before its connection is closed. */
#define WS_FLOOD_CLOSE 200

void api_ws_error_wait(srv_conn *c, srv_err e, const char *msg, const json_t *ref, int wait)
{
	if (e != SE_RATE_LIMITED) /* ratelimit.c logs those, not each one of a flood */
		srv_event("table=%s event=rejected code=%s: %s", c->cl.table ? c->cl.table->id : "-",
		          srv_err_name(e), msg);
	json_t *o = json_pack("{s:s, s:s, s:o}", "type", "error", "code", srv_err_name(e), "message",
	                      api_json_text(msg));
	if (wait > 0)
		json_object_set_new(o, "retry_after_s", json_integer(wait));
	if (ref)
		json_object_set(o, "ref", (json_t *)ref);
	if (c->cl.table) {
		json_object_set_new(o, "turn", json_integer(tables_turn(c->cl.table)));
		json_object_set_new(o, "step", json_integer(tables_step(c->cl.table)));
	}
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (s) {
		net_send_text(c, s);
		free(s);
	}
}

void api_ws_error(srv_conn *c, srv_err e, const char *msg, const json_t *ref)
{
	api_ws_error_wait(c, e, msg, ref, 0);
}

void api_ws_send_state(srv_conn *c)
{
	tables_recount(c->cl.table);
	char *s = tables_state_text(c->cl.table, c->cl.seat);
	net_send_text(c, s);
	free(s);
}

void api_ws_send_json(srv_conn *c, json_t *r, json_t *ref)
{
	if (ref)
		json_object_set(r, "ref", ref);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	if (s) {
		net_send_text(c, s);
		free(s);
	}
}

static void attach(srv_conn *c, srv_table *t)
{
	c->cl.table = t;
	c->cl.tprev = NULL;
	c->cl.tnext = t->conns;
	if (t->conns)
		t->conns->tprev = &c->cl;
	t->conns = &c->cl;
	t->nconns++;
}

void api_ws_open(srv_conn *c, const char *path, const char *token, const char *cookie)
{
	c->cl.seat = -1;
	if (strncmp(path, "/ws/", 4) || !path[4] || strlen(path + 4) >= STORE_ID_SIZE ||
	    strchr(path + 4, '/')) {
		api_ws_error(c, SE_NOT_FOUND, "connect to /ws/<table id>", NULL);
		net_close_after_flush(c);
		return;
	}
	char lerr[256];
	int wait = lim_take(c->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait) {
		api_ws_error_wait(c, SE_RATE_LIMITED, lerr, NULL, wait);
		net_close_after_flush(c);
		return;
	}
	srv_table *t = tables_find(path + 4);
	if (!t || api_private_hidden(t, token, cookie)) {
		api_ws_error(c, SE_NOT_FOUND, "no such table", NULL);
		net_close_after_flush(c);
		return;
	}
	store_account acc; /* friends: presence, and the chat lines of accounts it blocks */
	c->cl.account = accounts_session(cookie, &acc) == 1 ? acc.id : 0;
	friends_touch(c->cl.account);
	attach(c, t);
	api_token_for(t->id, token, cookie, c->token, sizeof c->token);
	c->cl.seat = tables_seat_of(t, c->token);
	if (c->token[0] && c->cl.seat < 0)
		api_ws_error(c, SE_BAD_TOKEN, "this token holds no seat at this table: watching", NULL);
	api_ws_send_state(c);
	tables_conn_changed(t);
}

void api_ws_close(srv_conn *c)
{
	srv_table *t = c->cl.table;
	if (!t)
		return;
	if (c->cl.tprev)
		c->cl.tprev->tnext = c->cl.tnext;
	else
		t->conns = c->cl.tnext;
	if (c->cl.tnext)
		c->cl.tnext->tprev = c->cl.tprev;
	t->nconns--;
	c->cl.table = NULL;
	tables_conn_changed(t);
}

void api_ws_too_large(srv_conn *c, size_t limit)
{
	char msg[96];
	snprintf(msg, sizeof msg, "a message may have at most %zu bytes", limit);
	api_ws_error(c, SE_TOO_LARGE, msg, NULL);
}

void api_ws_message(srv_conn *c, const char *text, size_t len)
{
	srv_table *t = c->cl.table;
	if (!t || c->closing)
		return;
	char lerr[256];
	int wait = lim_take(c->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait && lim_streak(c->addr, LIM_REQUESTS) > WS_FLOOD_CLOSE) {
		/* told and told again: the connection goes (it may come back, and
		 * is refused at once while the address is over its limit) */
		api_ws_error_wait(c, SE_RATE_LIMITED, "this address goes on sending while over its "
		                  "limit (--rate-requests): the connection is closed", NULL, wait);
		net_close_after_flush(c);
		return;
	}
	if (wait) {
		/* refused before it is even parsed, the answer written without
		 * jansson: a flood costs little (the message's "ref" is not echoed
		 * for that reason; lerr is our own text, nothing to escape) */
		char msg[sizeof lerr + 160];
		snprintf(msg, sizeof msg, "{\"type\":\"error\",\"code\":\"%s\",\"message\":\"%s\","
		         "\"retry_after_s\":%d,\"turn\":%d,\"step\":%d}", srv_err_name(SE_RATE_LIMITED),
		         lerr, wait, tables_turn(t), tables_step(t));
		net_send_text(c, msg);
		return;
	}
	char msg[200];
	json_t *o = api_load_object(text, len, "a message", msg, sizeof msg);
	if (!o) {
		api_ws_error(c, SE_MALFORMED, msg, NULL);
		return;
	}
	friends_touch(c->cl.account);
	json_t *ref = json_object_get(o, "ref");
	const char *type = json_string_value(json_object_get(o, "type"));
	char err[256];
	if (!type) {
		api_ws_error(c, SE_MALFORMED, "a message needs a \"type\"", ref);
	} else if (!strcmp(type, "move")) {
		json_t *jt = json_object_get(o, "token");
		const char *token = json_is_string(jt) ? json_string_value(jt) : c->token;
		int turn, step;
		if (jt && !json_is_string(jt)) {
			api_ws_error(c, SE_MALFORMED, "token must be a string", ref);
		} else if (api_parse_turn(json_object_get(o, "turn"), &turn, err, sizeof err) ||
		           api_parse_step(json_object_get(o, "step"), &step, err, sizeof err)) {
			api_ws_error(c, SE_MALFORMED, err, ref);
		} else {
			srv_origin origin = {c->serial, 0, ref, 0};
			srv_err e = tables_move(t, token, o, turn, step, &origin, err, sizeof err);
			if (e != SE_PENDING)
				api_ws_error(c, e, err, ref);
		}
	} else if (!strcmp(type, "auth")) {
		const char *token = json_string_value(json_object_get(o, "token"));
		int seat = token ? tables_seat_of(t, token) : -1;
		if (seat < 0) {
			api_ws_error(c, SE_BAD_TOKEN, "this token holds no seat at this table", ref);
		} else {
			snprintf(c->token, sizeof c->token, "%s", token);
			c->cl.seat = seat;
			api_ws_send_state(c);
			tables_conn_changed(t);
		}
	} else if (!strcmp(type, "join")) {
		json_t *jn = json_object_get(o, "name"), *js = json_object_get(o, "seat");
		int want = api_seat_wanted(js);
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = SE_MALFORMED;
		if (!json_is_string(jn))
			snprintf(err, sizeof err, "join needs a \"name\"");
		else
			e = tables_join(t, json_string_value(jn), want, &origin, err, sizeof err);
		if (e != SE_PENDING)
			api_ws_error(c, e, err, ref);
	} else if (!strcmp(type, "resign")) {
		json_t *jt = json_object_get(o, "token");
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = SE_MALFORMED;
		if (jt && !json_is_string(jt))
			snprintf(err, sizeof err, "token must be a string");
		else
			e = tables_resign(t, jt ? json_string_value(jt) : c->token, &origin, err,
			                  sizeof err);
		if (e != SE_PENDING)
			api_ws_error(c, e, err, ref);
	} else if (!strcmp(type, "undo")) {
		int uw;
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = undo_request(t, o, c->token, c->addr, &origin, err, sizeof err, &uw);
		if (e != SE_PENDING)
			api_ws_error_wait(c, e, err, ref, uw);
	} else if (!strcmp(type, "chat")) {
		int cw;
		srv_err e = chat_say(t, &c->cl, c->serial, c->addr, o, err, sizeof err, &cw);
		if (e != SE_PENDING)
			api_ws_error_wait(c, e, err, ref, cw);
	} else if (!strcmp(type, "rematch")) {
		json_t *jt = json_object_get(o, "token");
		int rw = 0;
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = jt && !json_is_string(jt) ? SE_MALFORMED
		            : rematch_request(t, jt ? json_string_value(jt) : c->token, c->addr, &origin,
		                              err, sizeof err, &rw);
		if (e == SE_MALFORMED)
			snprintf(err, sizeof err, "token must be a string");
		if (e != SE_PENDING)
			api_ws_error_wait(c, e, err, ref, rw);
	} else if (!strcmp(type, "window")) {
		/* which window holds the seat's controls (windows.h) */
		json_t *jw = json_object_get(o, "window"), *jk = json_object_get(o, "take");
		int ww = 0;
		srv_err e = jk && !json_is_boolean(jk) ? SE_MALFORMED
		            : windows_hello(t, &c->cl, c->serial, json_string_value(jw),
		                            json_is_true(jk), err, sizeof err, &ww);
		if (e == SE_MALFORMED && jk && !json_is_boolean(jk))
			snprintf(err, sizeof err, "\"take\" must be true or false");
		if (e != SE_OK)
			api_ws_error_wait(c, e, err, ref, ww);
	} else if (!strcmp(type, "preview") || !strcmp(type, "feature")) {
		/* hints: what a decision would do, what a feature is (foresee.h) */
		json_t *answer = NULL;
		int step, vw = foresee_take(&c->cl, err, sizeof err);
		srv_err e = SE_RATE_LIMITED;
		if (!vw && type[0] == 'p')
			e = api_parse_step(json_object_get(o, "step"), &step, err, sizeof err)
			        ? SE_MALFORMED
			        : foresee_preview(t, json_object_get(o, "move"), step, &answer, err,
			                          sizeof err);
		else if (!vw)
			e = foresee_feature(t, o, &answer, err, sizeof err);
		if (e == SE_OK)
			api_ws_send_json(c, answer, ref);
		else
			api_ws_error_wait(c, e, err, ref, vw);
	} else if (!strcmp(type, "state")) {
		api_ws_send_state(c);
	} else if (!strcmp(type, "ping")) {
		api_ws_send_json(c, json_pack("{s:s}", "type", "pong"), ref);
	} else {
		snprintf(err, sizeof err, "unknown message type '%.40s' (known: move, join, auth, state, "
		         "resign, undo, chat, rematch, window, preview, feature, ping)",
		         type);
		api_ws_error(c, SE_UNKNOWN_TYPE, err, ref);
	}
	json_decref(o);
}
