/*
 * net_internal.h - what the files of the transport share (net.c,
 * net_conns.c, net_http.c, net_static.c, net_ws.c): net.c's state and the
 * functions one of them calls in another. Only those files include it;
 * everything else sees net.h. All of it is the event-loop thread's.
 *
 * The fuzz targets take over net_send, net_send_text, net_broadcast,
 * net_close_after_flush, net_conn_find and net_http_answer with the
 * linker's --wrap (the Makefile's FUZZ_WRAP, tests/fuzz/fuzz_server.c),
 * which redirects the calls between object files only. So they stay
 * functions of these files that the other layers call; net_broadcast_shown
 * (not taken over, called there) stays beside net_send in net_ws.c, so
 * that its call to the real one stays; the one call between these files
 * to such a function, net_http_answer's to net_conn_find, is never made
 * there (no request reaches net_http.c, and net_http_answer is taken over
 * too).
 */
#ifndef CARC_SERVER_NET_INTERNAL_H
#define CARC_SERVER_NET_INTERNAL_H

#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "server.h"

/* Responses and WebSocket messages go out in pieces of NET_CHUNK bytes,
 * one per writable callback, so no client holds the loop. */
#define NET_CHUNK 16384
/* The Cookie header as read for the API and the WebSocket: whole, up to
 * what lws keeps of a request's headers (4096 bytes, its default). A
 * browser holds a seat cookie a table for 30 days besides the session and
 * device cookies; a header longer than the buffer is dropped whole, and
 * at 1024 bytes 18 tables logged a player out (issue 26). */
#define NET_COOKIE_MAX 4096

/* net.c */
extern const srv_config *net_cfg;
/* Room for one piece with lws's header before it (one loop thread). */
extern unsigned char net_scratch[LWS_PRE + NET_CHUNK];
/* Whether wsi came in on the --metrics-listen listener. */
int net_on_metrics_listener(struct lws *wsi);

/* net_conns.c: connections by serial (late answers find theirs) */
void net_serial_new(srv_conn *c);
void net_serial_drop(srv_conn *c);
/* net_conns.c: connections per address (--max-conns-per-addr), counted
 * from accept (LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED) to
 * LWS_CALLBACK_WSI_DESTROY */
void net_conn_accepted(struct lws *wsi);
void net_conn_destroyed(struct lws *wsi);
/* Whether wsi's address was over its limit when it was accepted. */
int net_over_conn_limit(struct lws *wsi);
void net_conn_limit_message(char *out, size_t size);
void net_addrs_free(void);

/* net_http.c: the callback's HTTP events; each returns what it returns */
int net_http_begin(srv_conn *c, struct lws *wsi, const char *path);
int net_http_body(srv_conn *c, const void *in, size_t len);
int net_http_body_done(srv_conn *c);
int net_http_write(srv_conn *c);
/* Frees what the request holds (its body, its answer, its serial). */
void net_http_reset(srv_conn *c);
/* Queues an answer (takes the body): its headers go out on the next
 * writable callback, the body on the ones after. Returns 0. */
int net_http_send(srv_conn *c, int status, const char *ctype, char *body, size_t len,
                  const char *cookie, const char *disposition);
int net_http_error(srv_conn *c, int status, const char *code, const char *msg);
/* Writes a status line and headers (the body's length len) for wsi; an
 * answer with an etag (NULL or "": none) may be cached (api_resp.etag). */
int net_http_write_headers(struct lws *wsi, int status, const char *ctype, size_t len,
                           const char *cookie, const char *disposition, int retry_after,
                           int close, const char *etag);
/* The protocol's error JSON (malloc'd, the caller's). */
char *net_error_json(const char *code, const char *msg);
/* A header into buf ("" when absent or longer than size - 1). */
void net_header_copy(struct lws *wsi, enum lws_token_indexes h, char *buf, size_t size);
/* The token a request carries in a header (Authorization: Bearer, or
 * X-Carc-Token), "" when none. */
void net_header_token(struct lws *wsi, char *out, size_t size);

/* net_static.c */
/* Resolves the --web folder once (NULL or not found: a placeholder page). */
void net_static_setup(const char *web_dir);
/* Serves a file under the --web folder. Returns what the callback should
 * return. */
int net_serve_static(srv_conn *c, const char *path);

/* net_ws.c: the callback's WebSocket events; each returns what it returns */
/* Checks an upgrade request before the handshake is answered: 0 to go on,
 * or what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns to refuse. */
int net_ws_upgrade_check(struct lws *wsi);
int net_ws_open(srv_conn *c, struct lws *wsi);
int net_ws_receive(srv_conn *c, struct lws *wsi, const void *in, size_t len);
int net_ws_write(srv_conn *c);
void net_ws_closed(srv_conn *c);

#endif
