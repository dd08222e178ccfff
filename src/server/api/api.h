/*
 * api.h - the HTTP API and the WebSocket messages, independent of the
 * transport: net.c hands in a parsed request (or a message) and sends what
 * comes back. docs/protocol.md documents both.
 */
#ifndef CARC_SERVER_API_H
#define CARC_SERVER_API_H

#include <stddef.h>

#include "net.h"
#include "request.h"
#include "server.h"
#include "tables.h"

/* 1 when the path belongs to the API (the rest are static files). */
int api_is_api_path(const char *path);
/* The paths a --metrics-listen listener answers: /api/metrics, /api/health
 * and /healthz. */
int api_is_monitor_path(const char *path);
void api_http(const srv_config *cfg, const api_req *rq, api_resp *rs);

/* WebSocket: a client connected to `path` ("/ws/<table>"), a message from
 * it, and its departure. */
void api_ws_open(srv_conn *c, const char *path, const char *token, const char *cookie);
void api_ws_message(srv_conn *c, const char *text, size_t len);
void api_ws_too_large(srv_conn *c, size_t limit);
void api_ws_close(srv_conn *c);

/* Answers to requests that waited for the storage thread (tables.c calls
 * these on the loop thread, through its outbox). t is NULL when the table
 * could not be made. */
void api_move_done(const srv_origin *o, srv_table *t, srv_err e, const char *err);
void api_undo_done(const srv_origin *o, srv_table *t, int undone, srv_err e, const char *err);
void api_resign_done(const srv_origin *o, srv_table *t, int seat, srv_err e, const char *err);
void api_join_done(const srv_origin *o, srv_table *t, int seat, const char *token, srv_err e,
                   const char *err);
/* tokens: a pass-and-play table's tokens by seat ("" for seats that are
 * not the creator's), or NULL. */
void api_create_done(const srv_origin *o, srv_table *t, int seat, const char *token,
                     const char (*tokens)[STORE_TOKEN_SIZE], srv_err e, const char *err);
/* A seat at the rematch `nt` of table `old` (rematch.c). */
void api_rematch_done(const srv_origin *o, srv_table *old, srv_table *nt, int seat,
                      const char *token, srv_err e, const char *err);

/* The hooks of keeping an account (recovery.h), in api_keep.c. */
const struct keep_hooks *api_keep_hooks(void);

/* Installs what the domain and the accounts say upwards: the tables'
 * outbox (outbox.h: net.c's sending, the api_*_done above) and the
 * accounts' hooks. Before tables_start and accounts_start. */
void api_start(void);

/* Seconds since the server started (for the health endpoint). */
void api_set_start(int64_t mono_us, const char *store_name);

#endif
