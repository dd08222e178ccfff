/*
 * api_internal.h - what the files of the API share among themselves; the
 * rest of the server sees api.h. The files:
 *   api.c          the router: the hooks it installs, the check of requests
 *                  from other sites, and the dispatch of every HTTP path
 *   api_req.c      reading a request (query, body, seat token, a move's
 *                  turn, a private table's visibility) and the answers the
 *                  routes share
 *   api_monitor.c  /api/health (/healthz) and /api/metrics
 *   api_tables.c   /api/tables (the lists, a new table) and /api/records
 *   api_table.c    the routes of one table, /api/tables/<id>/...
 *   api_ws.c       the WebSocket: connecting, the messages, leaving
 *   api_done.c     the answers to requests that waited for the storage
 *                  thread (api.h's api_*_done), by HTTP or WebSocket
 *   api_keep.c     the hooks of keeping an account
 * JSON answers and the error body are base/reply.h's.
 */
#ifndef CARC_SERVER_API_INTERNAL_H
#define CARC_SERVER_API_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "api.h"
#include "reply.h"

/* ---- api_req.c: reading a request, shared answers ---- */

/* The token for table `id` into out: the header's (token) first, then the
 * table's cookie; "" when neither. */
void api_token_for(const char *id, const char *token, const char *cookie, char *out,
                   size_t size);
/* text parsed as a JSON object (a new reference), or NULL with msg
 * saying why: "<what> must be a JSON object[: what jansson found]". */
json_t *api_load_object(const char *text, size_t len, const char *what, char *msg,
                        size_t size);
/* The request's body as a JSON object (a new reference; an empty body is
 * {} unless need_object), or NULL with the error answered. */
json_t *api_parse_body(const api_req *rq, api_resp *rs, int need_object);
/* A move's "turn" (v may be NULL: absent, -1): 0, or -1 with a message. */
int api_parse_turn(const json_t *v, int *turn, char *err, size_t errsize);
int api_parse_step(const json_t *v, int *step, char *err, size_t errsize);
/* 1 when table t is private, has started, and neither the token (header
 * or cookie) nor the session's account holds a seat: the caller says there
 * is no such table. */
int api_private_hidden(const srv_table *t, const char *token, const char *cookie);
/* The seat a join asks for: its "seat" js, -1 when not an integer (any
 * seat), 99 (no such seat) when out of 0..99. */
int api_seat_wanted(const json_t *js);
/* Answers text (taken) as JSON that is already written. */
void api_reply_text(api_resp *rs, int status, char *text);
/* 429 rate_limited with Retry-After: wait_s. */
void api_reply_limited(api_resp *rs, int wait_s, const char *msg);
/* The Set-Cookie of a seat's token (Strict; tls: Secure). */
void api_set_seat_cookie(api_resp *rs, const char *id, const char *token, int tls);

/* ---- the routes, called by api_http (api.c) ---- */

/* api_monitor.c: never limited, see api.c */
void api_get_health(const srv_config *cfg, api_resp *rs);
void api_get_metrics(api_resp *rs);
/* api_tables.c: GET and POST /api/tables, POST /api/records */
void api_get_tables(const srv_config *cfg, const api_req *rq, api_resp *rs);
void api_post_tables(const srv_config *cfg, const api_req *rq, api_resp *rs);
void api_post_record(const api_req *rq, api_resp *rs);
/* api_table.c: /api/tables/<rest>, rest being "<id>" and what follows */
void api_table_route(const api_req *rq, api_resp *rs, const char *rest);

/* ---- api_ws.c: what the late answers send on a WebSocket ---- */

/* An error message {"type": "error", ...} to c, with "ref" when ref is
 * not NULL (borrowed) and "retry_after_s" when wait > 0. */
void api_ws_error_wait(srv_conn *c, srv_err e, const char *msg, const json_t *ref, int wait);
void api_ws_error(srv_conn *c, srv_err e, const char *msg, const json_t *ref);
/* The table's state as c's seat sees it. */
void api_ws_send_state(srv_conn *c);
/* Sends r (taken) to c, with "ref" (borrowed) when it is not NULL. */
void api_ws_send_json(srv_conn *c, json_t *r, json_t *ref);

#endif
