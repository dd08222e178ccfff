/*
 * peers.h - who a connection is (peers.c): addresses, trusted proxies,
 * origins, this machine. Everything runs on the loop thread; the
 * configuration given to peers_setup is borrowed for the server's life.
 */
#ifndef CARC_SERVER_PEERS_H
#define CARC_SERVER_PEERS_H

#include <libwebsockets.h>
#include <stddef.h>

#include "server.h"

extern const srv_config *peers_cfg;

void peers_setup(const srv_config *c);
/* Whether addr is a --trust-proxy address or network. */
int peers_trusted(const char *addr);
/* "::ffff:1.2.3.4" becomes "1.2.3.4" (in place). */
void peers_strip_v4(char *a);
/* The client a trusted proxy names (X-Forwarded-For, else X-Real-IP) into
 * out: 0, or -1 when the request names none. */
int peers_forwarded(struct lws *wsi, char *out, size_t size);
/* The connection's client: its peer, or the client a trusted proxy names. */
void peers_addr(struct lws *wsi, char *out, size_t size);
/* Whether a page of `origin` may talk to the server reached as `host`:
 * the server's own origin, or one --allow-origin names. */
int peers_origin_ok(const char *origin, const char *host);
/* Whether the Host a request names (its name part: the port does not
 * count, nor case, nor a final dot) is one the server serves (peers.c,
 * host_served); a request without a Host is. `metrics`: wsi came in on
 * the --metrics-listen listener, whose own address counts then. */
int peers_host_ok(struct lws *wsi, int metrics);
/* The text of the refusal (421 bad_host) naming the Host sent. */
void peers_host_message(struct lws *wsi, char *out, size_t size);
/* Whether an address is a loopback one, and whether a request comes from
 * this machine (forwarded: a trusted proxy names a loopback client). */
int peers_loopback(const char *a);
int peers_local(struct lws *wsi);

#endif
