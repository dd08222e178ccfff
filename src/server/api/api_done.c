/*
 * api_done.c - the answers to requests that waited for the storage thread
 * (api.h's api_*_done; tables.c calls them on the loop thread through its
 * outbox, api.c installs it): a new table, a join, a move, an undo, a
 * resignation, a rematch's seat. Each goes back the way the request came:
 * an HTTP answer to the connection that still waits (net.c drops it when
 * the connection has gone), or a WebSocket message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "clock.h"
#include "tables.h"

/* Sends rs (its body taken) to the HTTP request o. */
static void http_late(const srv_origin *o, api_resp *rs)
{
	net_http_answer(o->conn, rs->status, rs->ctype, rs->body, rs->body_len, rs->set_cookie, NULL);
}

/* Answers the HTTP request o with r (taken) and the status; with the
 * cookie of the seat's token at table `id` when id is not NULL. */
static void http_json(const srv_origin *o, int status, json_t *r, const char *id,
                      const char *token)
{
	api_resp rs;
	memset(&rs, 0, sizeof rs);
	if (id)
		api_set_seat_cookie(&rs, id, token, 0);
	api_reply(&rs, status, r);
	http_late(o, &rs);
}

/* Sends r (taken) to the WebSocket connection that waits for o, with the
 * request's "ref", if the connection is still there. */
static void ws_late(const srv_origin *o, json_t *r)
{
	srv_conn *c = net_conn_find(o->conn);
	if (c)
		api_ws_send_json(c, r, o->ref);
	else
		json_decref(r);
}

/* 1 when there is nothing more to answer: nobody waits for o, or e
 * refused the request and o is told (by HTTP, or on its connection if it
 * is still there); 0 when e is SE_OK and the caller answers. */
static int late_refused(const srv_origin *o, srv_err e, const char *err)
{
	if (!o->conn)
		return 1;
	if (e == SE_OK)
		return 0;
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		api_reply_error(&rs, e, err);
		http_late(o, &rs);
	} else {
		srv_conn *c = net_conn_find(o->conn);
		if (c)
			api_ws_error(c, e, err, o->ref);
	}
	return 1;
}

void api_create_done(const srv_origin *o, srv_table *t, int seat, const char *token,
                     const char (*tokens)[STORE_TOKEN_SIZE], srv_err e, const char *err)
{
	if (!o->http || late_refused(o, e, err))
		return;
	json_t *r = json_pack("{s:s, s:o}", "id", t->id, "table", tables_info(t));
	if (seat >= 0) {
		json_object_set_new(r, "seat", json_integer(seat));
		json_object_set_new(r, "token", json_string(token));
	}
	if (tokens) {
		/* pass-and-play: every human seat's token, for one browser */
		json_t *a = json_array();
		for (int i = 0; i < t->nseats && i < 8; i++)
			if (tokens[i][0])
				json_array_append_new(a, json_pack("{s:i, s:s}", "seat", i, "token", tokens[i]));
		json_object_set_new(r, "tokens", a);
	}
	http_json(o, 201, r, seat >= 0 ? t->id : NULL, token);
}

void api_join_done(const srv_origin *o, srv_table *t, int seat, const char *token, srv_err e,
                   const char *err)
{
	if (o->http) {
		if (!late_refused(o, e, err))
			http_json(o, 200, json_pack("{s:s, s:i, s:s, s:o}", "id", t->id, "seat", seat,
			                            "token", token, "table", tables_info(t)),
			          t->id, token);
		return;
	}
	/* a refusal too goes only to a connection still at the table */
	srv_conn *c = net_conn_find(o->conn);
	if (!c || c->cl.table != t)
		return;
	if (e != SE_OK) {
		api_ws_error(c, e, err, o->ref);
		return;
	}
	snprintf(c->token, sizeof c->token, "%s", token);
	c->cl.seat = seat;
	api_ws_send_json(c, json_pack("{s:s, s:i, s:s}", "type", "joined", "seat", seat, "token",
	                              token),
	                 o->ref);
	api_ws_send_state(c);
	tables_conn_changed(t);
}

/* A move's HTTP answer: {"ok", "entry": the move as the table's log has
 * it, "next": the turn that follows, "clock"}, from texts the table has. */
static char *move_text(srv_table *t)
{
	char *next = tables_turn_text(t);
	json_t *cj = clock_json(t);
	char *clock = json_dumps(cj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(cj);
	srv_sb b;
	sb_init(&b);
	sb_printf(&b, "{\"ok\":true,\"entry\":%s,\"next\":%s,\"clock\":%s}", t->log[t->nlog - 1],
	          next, clock ? clock : "null");
	free(clock);
	free(next);
	return sb_take(&b);
}

void api_move_done(const srv_origin *o, srv_table *t, srv_err e, const char *err)
{
	/* on a WebSocket a move done is told by the table's broadcast */
	if (late_refused(o, e, err) || !o->http)
		return;
	api_resp rs;
	memset(&rs, 0, sizeof rs);
	api_reply_text(&rs, 200, move_text(t));
	http_late(o, &rs);
}

void api_undo_done(const srv_origin *o, srv_table *t, int undone, srv_err e, const char *err)
{
	/* on a WebSocket the table's "undone" tells it */
	if (!late_refused(o, e, err) && o->http)
		http_json(o, 200, json_pack("{s:b, s:i, s:i, s:i, s:i}", "ok", 1, "undone", undone, "turn",
		                            tables_turn(t), "step", tables_step(t), "undos", t->undos),
		          NULL, NULL);
}

void api_resign_done(const srv_origin *o, srv_table *t, int seat, srv_err e, const char *err)
{
	if (late_refused(o, e, err))
		return;
	if (o->http)
		http_json(o, 200, json_pack("{s:b, s:i, s:o}", "ok", 1, "seat", seat, "table",
		                            tables_info(t)),
		          NULL, NULL);
	else
		ws_late(o, json_pack("{s:s, s:i}", "type", "resigned", "seat", seat));
}

void api_rematch_done(const srv_origin *o, srv_table *old, srv_table *nt, int seat,
                      const char *token, srv_err e, const char *err)
{
	if (late_refused(o, e, err))
		return;
	const char *of = old ? old->id : "";
	if (o->http)
		http_json(o, 200, json_pack("{s:s, s:s, s:i, s:s, s:o}", "id", nt->id, "of", of, "seat",
		                            seat, "token", token, "table", tables_info(nt)),
		          nt->id, token);
	else
		ws_late(o, json_pack("{s:s, s:s, s:s, s:i, s:s}", "type", "rematch_seat", "table", of,
		                     "rematch", nt->id, "seat", seat, "token", token));
}
