/*
 * net_ws.c - the transport's WebSocket side (net.h, net_internal.h): the
 * handshake's checks, a connection's life (open, its messages in, closed),
 * the outgoing messages and their queues, and writing them out in frames.
 *
 * A message is built once (srv_msg, reference counted) and queued to
 * every connection that gets it; each connection sends from its own queue
 * a piece of NET_CHUNK bytes per writable callback, so a slow client only
 * grows its own queue. The limits on one queue (--max-queue) and on all of
 * them together (--max-queue-total) drop clients, never block the loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "errcode.h"
#include "net_internal.h"
#include "peers.h"

/* ---- messages and queues ------------------------------------------------------------ */

srv_msg *net_msg(const char *text, size_t len)
{
	srv_msg *m = srv_xmalloc(sizeof *m + LWS_PRE + len + 1);
	m->refs = 1;
	m->qrefs = 0;
	m->len = len;
	memcpy(m->data + LWS_PRE, text, len);
	m->data[LWS_PRE + len] = 0;
	return m;
}

void net_msg_unref(srv_msg *m)
{
	if (m && --m->refs == 0)
		free(m);
}

/* Every WebSocket connection, for the limit on what all queues hold. */
static srv_conn *ws_all;
/* The bytes of the messages queued anywhere, each message counted once. */
static size_t queued_total;

static void ws_link(srv_conn *c)
{
	c->aprev = NULL;
	c->anext = ws_all;
	if (ws_all)
		ws_all->aprev = c;
	ws_all = c;
}

static void ws_unlink(srv_conn *c)
{
	if (c->aprev)
		c->aprev->anext = c->anext;
	else if (ws_all == c)
		ws_all = c->anext;
	if (c->anext)
		c->anext->aprev = c->aprev;
	c->anext = c->aprev = NULL;
}

static void qnode_free(srv_qnode *q)
{
	if (--q->m->qrefs == 0)
		queued_total -= q->m->len;
	net_msg_unref(q->m);
	free(q);
}

static void queue_free(srv_conn *c)
{
	srv_qnode *q = c->qh;
	while (q) {
		srv_qnode *n = q->next;
		qnode_free(q);
		q = n;
	}
	c->qh = c->qt = NULL;
	c->qbytes = c->qoff = 0;
}

/* Drops a client that cannot be served: its queue is freed at once and the
 * connection is closed without sending more. */
static void ws_drop(srv_conn *c, const char *why)
{
	srv_error("client at table %s dropped: %zu bytes waiting (%s)",
	          c->cl.table ? c->cl.table->id : "-", c->qbytes, why);
	c->dropped = 1;
	queue_free(c);
	lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Makes room for `need` more bytes in all queues together by dropping the
 * clients with the largest queues. Returns 0 when c may queue, -1 when c
 * itself was dropped. */
static int queue_room(srv_conn *c, size_t need)
{
	while (queued_total + need > net_cfg->max_queue_total) {
		srv_conn *big = NULL;
		for (srv_conn *o = ws_all; o; o = o->anext)
			if (!o->dropped && (!big || o->qbytes > big->qbytes))
				big = o;
		if (!big || !big->qbytes || big == c) {
			ws_drop(c, "all queues together over --max-queue-total");
			return -1;
		}
		ws_drop(big, "all queues together over --max-queue-total");
	}
	return 0;
}

void net_send(srv_conn *c, srv_msg *m)
{
	if (c->kind != CONN_WS || c->dropped)
		return;
	if (c->qbytes + m->len > net_cfg->max_queue) {
		/* a client that does not read must not hold memory or anyone else */
		ws_drop(c, "over --max-queue");
		return;
	}
	if (!m->qrefs && queue_room(c, m->len))
		return;
	srv_qnode *q = srv_xmalloc(sizeof *q);
	q->m = m;
	q->next = NULL;
	m->refs++;
	if (m->qrefs++ == 0)
		queued_total += m->len;
	if (c->qt)
		c->qt->next = q;
	else
		c->qh = q;
	c->qt = q;
	c->qbytes += m->len;
	lws_callback_on_writable(c->wsi);
}

void net_send_text(srv_conn *c, const char *text)
{
	srv_msg *m = net_msg(text, strlen(text));
	net_send(c, m);
	net_msg_unref(m);
}

void net_broadcast(struct srv_table *t, const char *text, size_t len)
{
	srv_msg *m = net_msg(text, len);
	for (srv_client *cl = t->conns; cl; cl = cl->tnext)
		net_send(net_conn_of(cl), m);
	net_msg_unref(m);
}

void net_broadcast_shown(struct srv_table *t, const char *text, size_t len)
{
	srv_msg *m = NULL;
	for (srv_client *cl = t->conns; cl; cl = cl->tnext)
		if (!cl->hide) {
			if (!m)
				m = net_msg(text, len);
			net_send(net_conn_of(cl), m);
		}
	if (m)
		net_msg_unref(m);
}

void net_close_after_flush(srv_conn *c)
{
	c->closing = 1;
	lws_callback_on_writable(c->wsi);
}

/* Writes the next piece of c's queue. Returns -1 to close. */
int net_ws_write(srv_conn *c)
{
	if (c->dropped)
		return -1;
	srv_qnode *q = c->qh;
	if (!q) {
		if (c->closing) {
			lws_close_reason(c->wsi, LWS_CLOSE_STATUS_NORMAL, NULL, 0);
			return -1;
		}
		return 0;
	}
	size_t left = q->m->len - c->qoff, n = left < NET_CHUNK ? left : NET_CHUNK;
	int first = c->qoff == 0, last = n == left;
	unsigned char *p;
	if (first && last) {
		p = q->m->data + LWS_PRE;
	} else {
		/* lws writes the frame header just before p: not into a shared message */
		memcpy(net_scratch + LWS_PRE, q->m->data + LWS_PRE + c->qoff, n);
		p = net_scratch + LWS_PRE;
	}
	int flags = lws_write_ws_flags(LWS_WRITE_TEXT, first, last);
	if (lws_write(c->wsi, p, n, (enum lws_write_protocol)flags) < (int)n)
		return -1;
	c->qoff += n;
	if (last) {
		c->qh = q->next;
		if (!c->qh)
			c->qt = NULL;
		c->qbytes -= q->m->len;
		c->qoff = 0;
		qnode_free(q);
	}
	if (c->qh || c->closing)
		lws_callback_on_writable(c->wsi);
	return 0;
}

/* ---- the WebSocket handshake ------------------------------------------------------------- */

/* Refuses a WebSocket handshake with an HTTP answer and hangs up. Returns
 * what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns for that. */
static int upgrade_refuse(struct lws *wsi, int status, const char *code, const char *msg,
                          int retry_after)
{
	if (status != 429) { /* 429 was logged when the connection was accepted */
		char path[256], addr[64];
		net_header_copy(wsi, WSI_TOKEN_GET_URI, path, sizeof path);
		peers_addr(wsi, addr, sizeof addr);
		srv_event("websocket %s from %s refused: %d %s", path, addr, status, code);
	}
	char *body = net_error_json(code, msg);
	size_t len = strlen(body);
	int r = -1;
	if (!net_http_write_headers(wsi, status, "application/json", len, NULL, NULL,
	                            retry_after, 1, NULL) &&
	    len + LWS_PRE <= sizeof net_scratch) {
		memcpy(net_scratch + LWS_PRE, body, len);
		lws_write(wsi, net_scratch + LWS_PRE, len, LWS_WRITE_HTTP_FINAL);
	}
	free(body);
	return r; /* hang up: lws sends what it still holds first */
}

/* Checks an upgrade request before the handshake is answered. Returns 0 to
 * go on, or what the callback returns to refuse. */
int net_ws_upgrade_check(struct lws *wsi)
{
	char msg[300], arg[300], origin[300], host[256];
	if (!peers_host_ok(wsi, net_on_metrics_listener(wsi))) {
		peers_host_message(wsi, msg, sizeof msg);
		return upgrade_refuse(wsi, srv_err_http_status(SE_BAD_HOST), srv_err_name(SE_BAD_HOST),
		                      msg, 0);
	}
	if (net_on_metrics_listener(wsi))
		return upgrade_refuse(wsi, 404, "not_found",
		                      "this listener (--metrics-listen) answers /api/metrics and "
		                      "/api/health only",
		                      0);
	if (net_over_conn_limit(wsi)) {
		net_conn_limit_message(msg, sizeof msg);
		return upgrade_refuse(wsi, 429, "rate_limited", msg, 10);
	}
	if (lws_get_urlarg_by_name(wsi, "token=", arg, (int)sizeof arg))
		return upgrade_refuse(wsi, 400, "token_in_url",
		                      "a token in the URL ends up in logs: send it in an "
		                      "Authorization: Bearer or X-Carc-Token header, the table's "
		                      "cookie, or a first {\"type\":\"auth\"} message",
		                      0);
	int olen = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
	if (olen > 0) {
		net_header_copy(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
		net_header_copy(wsi, WSI_TOKEN_HOST, host, sizeof host);
		if (!peers_origin_ok(origin, host)) {
			snprintf(msg, sizeof msg,
			         "a page of another site (Origin %.80s) may not connect here (see "
			         "--allow-origin)",
			         origin[0] ? origin : "too long");
			return upgrade_refuse(wsi, 403, "bad_origin", msg, 0);
		}
	}
	return 0;
}

/* ---- a connection's life ---------------------------------------------------------------- */

int net_ws_open(srv_conn *c, struct lws *wsi)
{
	net_serial_drop(c);
	memset(c, 0, sizeof *c);
	c->kind = CONN_WS;
	c->wsi = wsi;
	c->cl.seat = -1;
	net_serial_new(c);
	ws_link(c);
	peers_addr(wsi, c->addr, sizeof c->addr);
	char path[256], token[256], cookie[NET_COOKIE_MAX];
	net_header_copy(wsi, WSI_TOKEN_GET_URI, path, sizeof path);
	net_header_token(wsi, token, sizeof token);
	net_header_copy(wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
	api_ws_open(c, path, token, cookie);
	return 0;
}

int net_ws_receive(srv_conn *c, struct lws *wsi, const void *in, size_t len)
{
	if (c->closing || c->dropped)
		return 0;
	if (lws_frame_is_binary(wsi)) {
		/* the protocol is JSON text: close with 1003 (RFC 6455 7.4.1).
		 * Returning -1 from RECEIVE sends the close frame (from a
		 * writable callback lws would drop the socket without one). */
		static const char why[] = "binary frames are not taken: send JSON text";
		lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
		                 (unsigned char *)why, sizeof why - 1);
		c->dropped = 1; /* nothing more after the close frame */
		queue_free(c);
		return -1;
	}
	int final = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
	if (!c->rx_over && c->rxlen + len > net_cfg->max_msg) {
		c->rx_over = 1;
		api_ws_too_large(c, net_cfg->max_msg);
	}
	if (!c->rx_over) {
		c->rx = srv_xrealloc(c->rx, c->rxlen + len + 1);
		memcpy(c->rx + c->rxlen, in, len);
		c->rxlen += len;
	}
	if (final) {
		if (!c->rx_over)
			api_ws_message(c, c->rx ? c->rx : "", c->rxlen);
		free(c->rx);
		c->rx = NULL;
		c->rxlen = 0;
		c->rx_over = 0;
	}
	return 0;
}

void net_ws_closed(srv_conn *c)
{
	if (c && c->kind == CONN_WS) {
		net_serial_drop(c);
		api_ws_close(c);
		queue_free(c);
		ws_unlink(c);
		free(c->rx);
		c->rx = NULL;
		c->kind = CONN_NONE;
	}
}
