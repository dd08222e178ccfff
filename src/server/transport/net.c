/*
 * net.c - the transport: one libwebsockets context, one event-loop thread,
 * HTTP and WebSocket on the same port (see server.h for the threading).
 *
 * Why libwebsockets: it is event driven, so thousands of idle WebSocket
 * clients cost a little memory each and no thread; a thread-per-connection
 * server (civetweb) would need a thread for every open game client.
 *
 * Static files come from the --web folder only: the path is checked for
 * "..", resolved with realpath() and must stay inside the folder's own
 * resolved path. Responses and WebSocket messages go out in chunks of
 * CHUNK bytes, one per writable callback, so no client holds the loop.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "accounts.h"
#include "friends.h"
#include "api.h"
#include "bots.h"
#include "cluster.h"
#include "net.h"
#include "peers.h"
#include "tables.h"
#include "writer.h"

#define CHUNK 16384

/* WebSocket pings (libwebsockets' validity timer): a connection whose
 * peer has not answered a ping for WS_PING_S seconds gets a ping frame
 * (2 bytes; browsers answer it by themselves), and one that leaves a ping
 * unanswered for WS_HANGUP_S seconds is closed (a dead peer). The ping is
 * also what a proxy in front sees from a live process: the shipped nginx
 * site (docs/nginx/carc-proxy.conf) gives a WebSocket up after 2 s of
 * nothing from the process, so that a frozen process's clients, and a
 * handshake sent to it, go to another within seconds. The cost, measured
 * with 2,000 idle WebSockets on loopback that answer every ping: 0.97
 * pings a second each, 12.8 % of a core for the process (0.1 % when no
 * client answers, so only one ping each goes out), about 65 us of the
 * loop's time per ping and its pong. */
#define WS_PING_S 1
#define WS_HANGUP_S 120
static const lws_retry_bo_t ws_validity = {.secs_since_valid_ping = WS_PING_S,
                                           .secs_since_valid_hangup = WS_HANGUP_S};

static const srv_config *cfg;
static struct lws_context *ctx;
static volatile sig_atomic_t stop_flag;
static char web_root[PATH_MAX];
static unsigned char scratch[LWS_PRE + CHUNK];

/* ---- connections by serial -------------------------------------------------------- */

/* Answers that come later (after the storage thread) find their
 * connection by serial: a connection that has gone is simply not found. */
#define SERIAL_BUCKETS 4096
static srv_conn *serials[SERIAL_BUCKETS];
static uint64_t next_serial = 1;

static void serial_drop(srv_conn *c)
{
	if (!c->serial)
		return;
	for (srv_conn **pp = &serials[c->serial % SERIAL_BUCKETS]; *pp; pp = &(*pp)->snext)
		if (*pp == c) {
			*pp = c->snext;
			break;
		}
	c->serial = 0;
	c->snext = NULL;
}

static void serial_new(srv_conn *c)
{
	serial_drop(c);
	c->serial = next_serial++;
	srv_conn **b = &serials[c->serial % SERIAL_BUCKETS];
	c->snext = *b;
	*b = c;
}

srv_conn *net_conn_find(uint64_t serial)
{
	for (srv_conn *c = serial ? serials[serial % SERIAL_BUCKETS] : NULL; c; c = c->snext)
		if (c->serial == serial)
			return c;
	return NULL;
}

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
	while (queued_total + need > cfg->max_queue_total) {
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
	if (c->qbytes + m->len > cfg->max_queue) {
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
static int ws_write(srv_conn *c)
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
	size_t left = q->m->len - c->qoff, n = left < CHUNK ? left : CHUNK;
	int first = c->qoff == 0, last = n == left;
	unsigned char *p;
	if (first && last) {
		p = q->m->data + LWS_PRE;
	} else {
		/* lws writes the frame header just before p: not into a shared message */
		memcpy(scratch + LWS_PRE, q->m->data + LWS_PRE + c->qoff, n);
		p = scratch + LWS_PRE;
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

/* ---- HTTP --------------------------------------------------------------------------------- */

/*
 * How a request is read. libwebsockets gives the callback a fresh, zeroed
 * srv_conn for every request (and frees it after the answer, or when the
 * connection goes: LWS_CALLBACK_HTTP_DROP_PROTOCOL comes first, so whatever
 * the request holds is freed there). The headers decide:
 *
 *   - a Transfer-Encoding (chunked) body: 411 at once, the connection closes
 *   - a Content-Length that is not a plain number: 400 at once, closes
 *   - a Content-Length over the path's limit: 413 at once, closes (the body
 *     is never read)
 *   - a POST, PUT or PATCH without a Content-Length: no body (RFC 9112
 *     6.3), answered at once; the connection closes after, because
 *     libwebsockets would read what follows as a body
 *   - a Content-Length > 0, any method: the body is read (up to the limit)
 *     and the request dispatched once it is complete
 *   - otherwise: dispatched at once.
 *
 * An answer sent while a body is still coming closes the connection after
 * it (close_after): what follows on the socket is the rest of that body.
 */

static void http_reset(srv_conn *c)
{
	sb_free(&c->body);
	free(c->resp);
	c->resp = NULL;
	c->resp_len = c->resp_off = 0;
	c->body_over = 0;
	c->body_pending = 0;
	c->answered = 0;
	c->hdr_pending = 0;
	serial_drop(c);
}

/* The headers every answer carries (lws adds them to every status line it
 * writes: ours, static files, its own error pages): the web client's
 * content policy (its scripts and styles come from files of its own;
 * styles set inline by the scripts need 'unsafe-inline'; tiles are drawn
 * as inline SVG; the live connection is a WebSocket to the same server),
 * no type sniffing, no framing by other sites, no Referer leaving the site. */
static const struct lws_protocol_vhost_options SECURITY_HEADERS[] = {
	{&SECURITY_HEADERS[1], NULL, "content-security-policy:",
	 "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
	 "img-src 'self' data:; connect-src 'self' ws: wss:; object-src 'none'; "
	 "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
	{&SECURITY_HEADERS[2], NULL, "x-content-type-options:", "nosniff"},
	{&SECURITY_HEADERS[3], NULL, "x-frame-options:", "DENY"},
	{NULL, NULL, "referrer-policy:", "no-referrer"},
};

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                      unsigned char *end)
{
	return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
	                                   (const unsigned char *)value, (int)strlen(value), p, end);
}

static int http_write_headers(struct lws *wsi, int status, const char *ctype, size_t len,
                              const char *cookie, const char *disposition, int retry_after,
                              int close)
{
	unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start,
	                                   *end = buf + sizeof buf - 1;
	if (lws_add_http_common_headers(wsi, (unsigned)status, ctype, (lws_filepos_t)len, &p, end))
		return -1;
	if (add_header(wsi, "cache-control:", "no-store", &p, end))
		return -1;
	if (cookie && *cookie && add_header(wsi, "set-cookie:", cookie, &p, end))
		return -1;
	if (disposition && *disposition && add_header(wsi, "content-disposition:", disposition, &p, end))
		return -1;
	if (retry_after > 0) {
		char ra[16];
		snprintf(ra, sizeof ra, "%d", retry_after);
		if (add_header(wsi, "retry-after:", ra, &p, end))
			return -1;
	}
	if (close && add_header(wsi, "connection:", "close", &p, end))
		return -1;
	return lws_finalize_write_http_header(wsi, start, &p, end) ? -1 : 0;
}

/* Queues a response: the headers go out on the next writable callback, the
 * body on the ones after. Takes the body. */
static int http_send(srv_conn *c, int status, const char *ctype, char *body, size_t len,
                     const char *cookie, const char *disposition)
{
	c->answered = 1;
	if (c->body_pending)
		c->close_after = 1;
	sb_free(&c->body);
	free(c->resp);
	c->resp = body;
	c->resp_len = len;
	c->resp_off = 0;
	c->resp_status = status;
	c->resp_ctype = ctype;
	snprintf(c->resp_cookie, sizeof c->resp_cookie, "%s", cookie ? cookie : "");
	snprintf(c->resp_disp, sizeof c->resp_disp, "%s", disposition ? disposition : "");
	c->resp_retry_after = 0;
	c->hdr_pending = 1;
	lws_callback_on_writable(c->wsi);
	return 0;
}

void net_http_answer(uint64_t serial, int status, const char *ctype, char *body, size_t len,
                     const char *cookie, const char *disposition)
{
	srv_conn *c = net_conn_find(serial);
	if (!c || c->kind != CONN_HTTP) {
		free(body);
		return;
	}
	http_send(c, status, ctype, body, len, cookie, disposition);
}

static int http_write(srv_conn *c)
{
	if (c->hdr_pending) {
		c->hdr_pending = 0;
		if (http_write_headers(c->wsi, c->resp_status, c->resp_ctype, c->resp_len, c->resp_cookie,
		                       c->resp_disp, c->resp_retry_after, c->close_after))
			return -1;
		lws_callback_on_writable(c->wsi);
		return 0;
	}
	if (!c->resp)
		return 0;
	size_t left = c->resp_len - c->resp_off, n = left < CHUNK ? left : CHUNK;
	memcpy(scratch + LWS_PRE, c->resp + c->resp_off, n);
	int last = n == left;
	if (lws_write(c->wsi, scratch + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) <
	    (int)n)
		return -1;
	c->resp_off += n;
	if (!last) {
		lws_callback_on_writable(c->wsi);
		return 0;
	}
	free(c->resp);
	c->resp = NULL;
	serial_drop(c); /* this request is answered */
	/* closing flushes what lws still holds of the answer first */
	if (c->close_after)
		return -1;
	return lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

static char *error_json(const char *code, const char *msg)
{
	json_t *o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static int http_error(srv_conn *c, int status, const char *code, const char *msg)
{
	char *s = error_json(code, msg);
	return http_send(c, status, "application/json", s, strlen(s), NULL, NULL);
}

/* An error answered before the body (if any) is read: the connection closes
 * after it. */
static int http_error_early(srv_conn *c, int status, const char *code, const char *msg)
{
	srv_event("http %s -> %d %s", c->path, status, code);
	c->body_pending = 1;
	return http_error(c, status, code, msg);
}

static const char *mime_of(const char *path)
{
	static const struct {
		const char *ext, *mime;
	} M[] = {
		{".html", "text/html; charset=utf-8"}, {".js", "text/javascript"},
		{".mjs", "text/javascript"},           {".css", "text/css"},
		{".json", "application/json"},         {".svg", "image/svg+xml"},
		{".png", "image/png"},                 {".jpg", "image/jpeg"},
		{".ico", "image/x-icon"},              {".woff2", "font/woff2"},
		{".txt", "text/plain; charset=utf-8"}, {".wasm", "application/wasm"},
		{".webp", "image/webp"},               {".map", "application/json"},
	};
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof M / sizeof M[0]; i++)
		if (!strcmp(dot, M[i].ext))
			return M[i].mime;
	return "application/octet-stream";
}

static const char FALLBACK_PAGE[] =
	"<!doctype html><meta charset=utf-8><title>carc</title>"
	"<h1>carc serve</h1><p>The server runs, but the web client is not installed "
	"(no <code>index.html</code> in the --web folder).</p>"
	"<p>API: <a href=/api/health>/api/health</a>, <a href=/api/tables>/api/tables</a>, "
	"<a href=/api/tiles>/api/tiles</a>; see docs/protocol.md.</p>\n";

/* Serves a file under web_root. Returns what the callback should return. */
static int serve_static(srv_conn *c, const char *path)
{
	if (c->method != LWSHUMETH_GET && c->method != LWSHUMETH_HEAD)
		return http_error(c, 405, "method_not_allowed", "GET only");
	const char *rel = !strcmp(path, "/") ? "/index.html" : path;
	int bad = rel[0] != '/' || strstr(rel, "..") || strstr(rel, "//") || strchr(rel, '\\') ||
	          strlen(rel) > 200;
	for (const unsigned char *p = (const unsigned char *)rel; *p && !bad; p++)
		bad = *p < 32 || *p == 127;
	if (bad)
		return http_error(c, 400, "malformed", "bad path");
	char full[PATH_MAX], real[PATH_MAX];
	struct stat sb;
	if (web_root[0]) {
		size_t rl = strlen(web_root), ql = strlen(rel);
		if (rl + ql >= sizeof full)
			return http_error(c, 404, "not_found", "no such file");
		memcpy(full, web_root, rl);
		memcpy(full + rl, rel, ql + 1);
		if (realpath(full, real) && !strncmp(real, web_root, rl) && real[rl] == '/' &&
		    !stat(real, &sb) && S_ISREG(sb.st_mode)) {
			c->answered = 1;
			int n = lws_serve_http_file(c->wsi, real, mime_of(real), NULL, 0);
			if (n < 0)
				return -1;
			if (n > 0 && lws_http_transaction_completed(c->wsi))
				return -1;
			return 0;
		}
	}
	if (!strcmp(rel, "/index.html")) {
		char *s = srv_xstrdup(FALLBACK_PAGE);
		return http_send(c, 200, "text/html; charset=utf-8", s, strlen(s), NULL, NULL);
	}
	return http_error(c, 404, "not_found", "no such file");
}

static void header_copy(struct lws *wsi, enum lws_token_indexes h, char *buf, size_t size)
{
	buf[0] = 0;
	if (lws_hdr_total_length(wsi, h) > 0 && lws_hdr_total_length(wsi, h) < (int)size)
		lws_hdr_copy(wsi, buf, (int)size, h);
}

static void query_copy(struct lws *wsi, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	char frag[512];
	for (int i = 0; i < 32; i++) {
		int k = lws_hdr_copy_fragment(wsi, frag, (int)sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
		if (k < 0)
			break;
		if (n + (size_t)k + 2 >= size)
			break;
		if (n)
			buf[n++] = '&';
		memcpy(buf + n, frag, (size_t)k);
		n += (size_t)k;
		buf[n] = 0;
	}
}

/* The token a request carries in a header (Authorization: Bearer, or
 * X-Carc-Token). */
static void header_token(struct lws *wsi, char *out, size_t size)
{
	char buf[256];
	out[0] = 0;
	header_copy(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, buf, sizeof buf);
	if (!strncmp(buf, "Bearer ", 7)) {
		snprintf(out, size, "%s", buf + 7);
		return;
	}
#if defined(LWS_WITH_CUSTOM_HEADERS)
	int n = lws_hdr_custom_copy(wsi, buf, (int)sizeof buf, "x-carc-token:", 13);
	if (n > 0)
		snprintf(out, size, "%s", buf);
#endif
}

static const char *method_name(int m)
{
	switch (m) {
	case LWSHUMETH_GET: return "GET";
	case LWSHUMETH_POST: return "POST";
	case LWSHUMETH_PUT: return "PUT";
	case LWSHUMETH_PATCH: return "PATCH";
	case LWSHUMETH_DELETE: return "DELETE";
	case LWSHUMETH_OPTIONS: return "OPTIONS";
	case LWSHUMETH_HEAD: return "HEAD";
	default: return "?";
	}
}

/* Whether the request came over TLS: the server itself speaks plain HTTP,
 * so only a proxy in front can tell, and its X-Forwarded-Proto is believed
 * only with --trust-proxy (anyone can send the header). */

static int request_tls(struct lws *wsi)
{
	if (lws_is_ssl(wsi))
		return 1;
	char peer[64];
	if (!cfg->n_trust_proxy || !lws_get_peer_simple(wsi, peer, sizeof peer))
		return 0;
	if (!strncmp(peer, "::ffff:", 7) && strchr(peer + 7, '.'))
		memmove(peer, peer + 7, strlen(peer + 7) + 1);
	if (!peers_trusted(peer))
		return 0; /* the header is believed from a trusted proxy only */
#if defined(LWS_WITH_CUSTOM_HEADERS)
	char buf[32];
	int n = lws_hdr_custom_copy(wsi, buf, (int)sizeof buf, "x-forwarded-proto:", 18);
	return n > 0 && !strcasecmp(buf, "https");
#else
	return 0;
#endif
}


/* The listener of --metrics-listen (NULL without it): it answers
 * monitoring paths only (api_is_monitor_path). */
static struct lws_vhost *metrics_vh;

static int on_metrics_listener(struct lws *wsi)
{
	return metrics_vh && lws_get_vhost(wsi) == metrics_vh;
}

/* Where a request says it comes from (REQ_SITE_..., request.h): its
 * Origin, the server's own (the Host header) or an --allow-origin, the
 * same check as a WebSocket handshake's; without an Origin its
 * Sec-Fetch-Site (only "cross-site" is another site's); with neither it
 * is no browser. origin gets the Origin header ("" when none or too long). */
static int request_site(struct lws *wsi, char *origin, size_t size)
{
	origin[0] = 0;
	if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) > 0) {
		char host[256];
		header_copy(wsi, WSI_TOKEN_ORIGIN, origin, size);
		header_copy(wsi, WSI_TOKEN_HOST, host, sizeof host);
		return peers_origin_ok(origin, host) ? REQ_SITE_OWN : REQ_SITE_OTHER;
	}
#if defined(LWS_WITH_CUSTOM_HEADERS)
	int n = lws_hdr_custom_length(wsi, "sec-fetch-site:", 15);
	if (n > 0) {
		char v[32];
		if (n >= (int)sizeof v || lws_hdr_custom_copy(wsi, v, (int)sizeof v, "sec-fetch-site:",
		                                              15) <= 0)
			return REQ_SITE_OTHER; /* none of the values the header has */
		char *a = v;
		while (*a == ' ' || *a == '\t')
			a++;
		a[strcspn(a, " \t")] = 0;
		return strcasecmp(a, "cross-site") ? REQ_SITE_OWN : REQ_SITE_OTHER;
	}
#endif
	return REQ_SITE_UNSAID;
}


static int http_dispatch(srv_conn *c)
{
	if (c->answered)
		return 0;
	int monitor = on_metrics_listener(c->wsi);
	if (monitor && !api_is_monitor_path(c->path))
		return http_error(c, 404, "not_found",
		                  "this listener (--metrics-listen) answers /api/metrics and /api/health "
		                  "only");
	if (!api_is_api_path(c->path))
		return serve_static(c, c->path);
	char query[1024], token[256], cookie[1024], origin[300], ctype[128];
	query_copy(c->wsi, query, sizeof query);
	header_token(c->wsi, token, sizeof token);
	header_copy(c->wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
	int site = request_site(c->wsi, origin, sizeof origin);
	header_copy(c->wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, ctype, sizeof ctype);
	if (!ctype[0] && lws_hdr_total_length(c->wsi, WSI_TOKEN_HTTP_CONTENT_TYPE) > 0)
		snprintf(ctype, sizeof ctype, "?"); /* too long to be application/json */
	api_req rq = {.serial = c->serial, .method = c->method, .path = c->path, .query = query,
	              .body = c->body.s, .body_len = c->body.len, .body_too_large = c->body_over,
	              .token = token, .cookie = cookie, .addr = c->addr, .tls = request_tls(c->wsi),
	              .site = site, .origin = origin, .ctype = ctype,
	              .local = peers_local(c->wsi), .monitor = monitor};
	api_resp rs;
	api_http(cfg, &rq, &rs);
	sb_free(&c->body); /* read: not needed any more */
	if (!rs.status) {
		/* waits for the storage thread: net_http_answer() answers */
		c->answered = 1;
		return 0;
	}
	if (rs.status >= 400 && rs.status != 404 && rs.status != 429)
		srv_event("http %s %s -> %d", method_name(c->method), c->path, rs.status);
	http_send(c, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, rs.disposition);
	c->resp_retry_after = rs.retry_after;
	return 0;
}

/* The largest body a path takes: uploaded records may be larger than a
 * move, 64 x the message limit. */
static size_t body_limit(const char *path)
{
	return !strcmp(path, "/api/records") ? cfg->max_msg * 64 : cfg->max_msg;
}

/* Content-Length as a number: digits only (lws reads it with atoll, so
 * "-5" would be a body of 2^64 - 5 bytes and "abc" none). Returns -1 when
 * it is not one. */
static long long content_length(struct lws *wsi)
{
	char cl[32];
	int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH);
	if (total <= 0 || total >= (int)sizeof cl)
		return -1;
	header_copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, cl, sizeof cl);
	size_t n = strlen(cl);
	while (n && (cl[n - 1] == ' ' || cl[n - 1] == '\t'))
		cl[--n] = 0;
	if (!n || n > 15 || strspn(cl, "0123456789") != n)
		return -1;
	return atoll(cl);
}

/* ---- connections per address ------------------------------------------------------------ */

/* Every accepted connection is counted under its peer's address from
 * accept to close; one over --max-conns-per-addr is marked (its opaque user
 * data points at over_limit) and refused at its first request: 429 for
 * HTTP, a refused handshake for a WebSocket. Counting at the socket, not
 * the request, also counts idle keep-alive connections and ones that never
 * send a request. */
typedef struct addr_count {
	struct addr_count *next;
	int n;
	char addr[64];
} addr_count;
#define ADDR_BUCKETS 1024
static addr_count *addrs[ADDR_BUCKETS];
static char over_limit;

static unsigned addr_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % ADDR_BUCKETS;
}

/* Counts a new connection from addr. Returns its entry, or NULL when the
 * address is at its limit (nothing counted). */
static addr_count *addr_take(const char *addr)
{
	addr_count **b = &addrs[addr_hash(addr)], *e;
	for (e = *b; e && strcmp(e->addr, addr); e = e->next)
		;
	if (e && cfg->max_conns_per_addr && e->n >= cfg->max_conns_per_addr)
		return NULL;
	if (!e) {
		e = srv_xcalloc(1, sizeof *e);
		snprintf(e->addr, sizeof e->addr, "%s", addr);
		e->next = *b;
		*b = e;
	}
	e->n++;
	return e;
}

static void addr_release(addr_count *e)
{
	if (--e->n > 0)
		return;
	for (addr_count **pp = &addrs[addr_hash(e->addr)]; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			free(e);
			return;
		}
}

static void addrs_free(void)
{
	for (int i = 0; i < ADDR_BUCKETS; i++)
		while (addrs[i]) {
			addr_count *e = addrs[i];
			addrs[i] = e->next;
			free(e);
		}
}

static int over_conn_limit(struct lws *wsi) { return lws_get_opaque_user_data(wsi) == &over_limit; }

static void conn_limit_message(char *out, size_t size)
{
	snprintf(out, size,
	         "too many connections from your address (at most %d at once): close some and try "
	         "again",
	         cfg->max_conns_per_addr);
}

/* ---- the WebSocket handshake ------------------------------------------------------------- */

/* Refuses a WebSocket handshake with an HTTP answer and hangs up. Returns
 * what LWS_CALLBACK_HTTP_CONFIRM_UPGRADE returns for that. */
static int upgrade_refuse(struct lws *wsi, int status, const char *code, const char *msg,
                          int retry_after)
{
	if (status != 429) { /* 429 was logged when the connection was accepted */
		char path[256], addr[64];
		header_copy(wsi, WSI_TOKEN_GET_URI, path, sizeof path);
		peers_addr(wsi, addr, sizeof addr);
		srv_event("websocket %s from %s refused: %d %s", path, addr, status, code);
	}
	char *body = error_json(code, msg);
	size_t len = strlen(body);
	int r = -1;
	if (!http_write_headers(wsi, status, "application/json", len, NULL, NULL, retry_after, 1) &&
	    len + LWS_PRE <= sizeof scratch) {
		memcpy(scratch + LWS_PRE, body, len);
		lws_write(wsi, scratch + LWS_PRE, len, LWS_WRITE_HTTP_FINAL);
	}
	free(body);
	return r; /* hang up: lws sends what it still holds first */
}

/* Checks an upgrade request before the handshake is answered. Returns 0 to
 * go on, or what the callback returns to refuse. */
static int upgrade_check(struct lws *wsi)
{
	char msg[200], arg[300], origin[300], host[256];
	if (on_metrics_listener(wsi))
		return upgrade_refuse(wsi, 404, "not_found",
		                      "this listener (--metrics-listen) answers /api/metrics and "
		                      "/api/health only",
		                      0);
	if (over_conn_limit(wsi)) {
		conn_limit_message(msg, sizeof msg);
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
		header_copy(wsi, WSI_TOKEN_ORIGIN, origin, sizeof origin);
		header_copy(wsi, WSI_TOKEN_HOST, host, sizeof host);
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

/* ---- the callback ------------------------------------------------------------------------ */

static int http_begin(srv_conn *c, struct lws *wsi, const char *path)
{
	http_reset(c);
	c->kind = CONN_HTTP;
	c->wsi = wsi;
	c->close_after = 0;
	serial_new(c);
	peers_addr(wsi, c->addr, sizeof c->addr);
	/* a client (or proxy) that asks to close gets "connection: close" on
	 * the answer and the close after it (RFC 9112 9.6): without the header
	 * a proxy keeping upstream connections would send its next request on
	 * a connection about to close (nginx: "upstream prematurely closed") */
	char conn_hdr[64];
	header_copy(wsi, WSI_TOKEN_CONNECTION, conn_hdr, sizeof conn_hdr);
	for (char *q = conn_hdr; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	if (strstr(conn_hdr, "close"))
		c->close_after = 1;
	char *uri;
	int ulen;
	c->method = lws_http_get_uri_and_method(wsi, &uri, &ulen);
	snprintf(c->path, sizeof c->path, "%s", path);
	char msg[200];
	if (over_conn_limit(wsi)) {
		/* logged when it was accepted */
		conn_limit_message(msg, sizeof msg);
		c->body_pending = 1;
		http_error(c, 429, "rate_limited", msg);
		c->resp_retry_after = 10;
		return 0;
	}
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING))
		return http_error_early(c, 411, "length_required",
		                        "send the body with a Content-Length (a chunked body is not "
		                        "taken)");
	long long n = 0;
	int has_len = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0;
	if (has_len && (n = content_length(wsi)) < 0)
		return http_error_early(c, 400, "malformed",
		                        "Content-Length must be the body's size in bytes");
	if ((unsigned long long)n > body_limit(c->path)) {
		snprintf(msg, sizeof msg, "the request body is over the size limit (%zu bytes)",
		         body_limit(c->path));
		return http_error_early(c, 413, "too_large", msg);
	}
	if (n > 0) {
		c->body_pending = 1; /* dispatched at LWS_CALLBACK_HTTP_BODY_COMPLETION */
		return 0;
	}
	if (!has_len && (c->method == LWSHUMETH_POST || c->method == LWSHUMETH_PUT ||
	                 c->method == LWSHUMETH_PATCH))
		c->body_pending = 1; /* lws waits for a body: close after the answer */
	return http_dispatch(c);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	srv_conn *c = user;
	switch (reason) {
	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		accounts_drain();
		writer_drain();
		tables_bots_drain();
		cluster_drain(); /* what other processes changed (PostgreSQL) */
		return 0;

	case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: {
		char addr[64];
		peers_addr(wsi, addr, sizeof addr);
		if (cfg->n_trust_proxy && peers_trusted(addr)) {
			/* a proxy carries many clients: they are limited one by one
			 * once their requests name them (ratelimit.c) */
			lws_set_opaque_user_data(wsi, NULL);
			return 0;
		}
		addr_count *e = addr_take(addr);
		lws_set_opaque_user_data(wsi, e ? (void *)e : (void *)&over_limit);
		if (!e) {
			/* a flood must not flood the log too: one line a second */
			static int64_t last_ms;
			static unsigned quiet;
			int64_t now = srv_now_ms();
			if (now - last_ms >= 1000) {
				srv_event("connection from %s over --max-conns-per-addr %d (%u more refused "
				          "since the last line)",
				          addr, cfg->max_conns_per_addr, quiet);
				last_ms = now;
				quiet = 0;
			} else {
				quiet++;
			}
		}
		return 0;
	}
	case LWS_CALLBACK_WSI_DESTROY: {
		void *o = lws_get_opaque_user_data(wsi);
		if (o && o != (void *)&over_limit)
			addr_release(o);
		lws_set_opaque_user_data(wsi, NULL);
		return 0;
	}

	case LWS_CALLBACK_HTTP:
		return http_begin(c, wsi, in);
	case LWS_CALLBACK_HTTP_BODY: {
		if (!c || c->kind != CONN_HTTP || c->answered || c->body_over || !len)
			return 0; /* an answer went already: the rest is thrown away */
		if (c->body.len + len > body_limit(c->path)) {
			c->body_over = 1;
			sb_free(&c->body);
			return 0;
		}
		sb_add(&c->body, in, len);
		return 0;
	}
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if (!c || c->kind != CONN_HTTP)
			return 0;
		c->body_pending = 0;
		return http_dispatch(c);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (!c || c->kind != CONN_HTTP)
			return 0;
		return http_write(c);
	case LWS_CALLBACK_HTTP_FILE_COMPLETION:
		if (c)
			serial_drop(c);
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
	case LWS_CALLBACK_CLOSED_HTTP:
		/* the request's memory is freed after this: so is what it holds */
		if (c && c->kind == CONN_HTTP)
			http_reset(c);
		return 0;

	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		return upgrade_check(wsi);
	case LWS_CALLBACK_ESTABLISHED: {
		serial_drop(c);
		memset(c, 0, sizeof *c);
		c->kind = CONN_WS;
		c->wsi = wsi;
		c->cl.seat = -1;
		serial_new(c);
		ws_link(c);
		peers_addr(wsi, c->addr, sizeof c->addr);
		char path[256], token[256], cookie[1024];
		header_copy(wsi, WSI_TOKEN_GET_URI, path, sizeof path);
		header_token(wsi, token, sizeof token);
		header_copy(wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
		api_ws_open(c, path, token, cookie);
		return 0;
	}
	case LWS_CALLBACK_RECEIVE: {
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
		if (!c->rx_over && c->rxlen + len > cfg->max_msg) {
			c->rx_over = 1;
			api_ws_too_large(c, cfg->max_msg);
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
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return ws_write(c);
	case LWS_CALLBACK_CLOSED:
		if (c && c->kind == CONN_WS) {
			serial_drop(c);
			api_ws_close(c);
			queue_free(c);
			ws_unlink(c);
			free(c->rx);
			c->rx = NULL;
			c->kind = CONN_NONE;
		}
		return 0;
	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols PROTOCOLS[] = {
	{"carc", callback, sizeof(srv_conn), 4096, 0, NULL, CHUNK + 64},
	{NULL, NULL, 0, 0, 0, NULL, 0},
};

/* The orderly stop: the bots first (they hold no table), then the tables'
 * timers, then the context, whose closing runs every connection's CLOSED
 * callback while the tables still exist. */
static void begin_stop(void)
{
	static int stopping;
	if (stopping)
		return;
	stopping = 1;
	srv_event("stopping");
	bots_stop();
	accounts_stop();
	writer_stop(); /* writes whatever is still queued: an accepted move is kept */
	cluster_stop(); /* gives the tables' bots up (their locks go with the connection) */
	tables_stop_timers();
	lws_context_destroy(ctx);
}

/* poll() loop: a plain signal handler that only raises a flag */
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
	if (ctx)
		lws_cancel_service(ctx);
}

/* libuv loop: lws watches the signals and calls this inside the loop */
static void on_uv_signal(void *handle, int sig)
{
	(void)handle;
	if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
		begin_stop();
		return;
	}
	signal(SIGABRT, SIG_DFL);
	abort();
}

static void lws_log_to_ours(int level, const char *line)
{
	size_t n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (level & LLL_ERR)
		srv_error("lws: %.*s", (int)n, line);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The --db value as it may be printed: a URL's password is left out. */
static void db_shown(const char *db, char *out, size_t size)
{
	snprintf(out, size, "%s", db);
	char *at = strchr(out, '@'), *scheme = strstr(out, "://");
	if (!at || !scheme)
		return;
	char *colon = memchr(scheme + 3, ':', (size_t)(at - (scheme + 3)));
	if (colon)
		memmove(colon, at, strlen(at) + 1);
}

int srv_run(const srv_config *c)
{
	cfg = c;
	peers_setup(c);
	metrics_vh = NULL;
	srv_log_quiet(c->quiet);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	lws_set_log_level(LLL_ERR, lws_log_to_ours);

	web_root[0] = 0;
	if (c->web_dir && !realpath(c->web_dir, web_root)) {
		web_root[0] = 0;
		srv_event("web folder %s not found: serving the API and a placeholder page", c->web_dir);
	}

	char err[STORE_ERR_SIZE];
	/* the backend by the --db value: a PostgreSQL URL, else a SQLite path */
	int pg = store_is_pg_url(c->db_path);
	store *wst = pg ? store_pg_open(c->db_path, 1, err)
	                : store_sqlite_open(c->db_path, c->sync_full, 1, err),
	      *st = NULL;
	if (wst)
		st = pg ? store_pg_open(c->db_path, 0, err)
		        : store_sqlite_open(c->db_path, c->sync_full, 0, err);
	if (!st) {
		srv_error("%s", err);
		if (wst)
			wst->ops->close(wst);
		return 1;
	}

	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = c->port;
	info.iface = c->host;
	info.protocols = PROTOCOLS;
	/* libuv: epoll underneath, so an idle client costs nothing per loop
	 * turn; plain poll() walks every socket each turn (measured: p50 of a
	 * move's round trip 2.8 ms with libuv against 25 ms with poll() at
	 * 2,000 clients) */
	info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_LIBUV;
	if (c->host && !strchr(c->host, ':'))
		info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
	info.server_string = "carc";
	info.headers = SECURITY_HEADERS;
	info.timeout_secs = 30;
	info.retry_and_idle_policy = &ws_validity;
	info.pt_serv_buf_size = 16384;
	info.signal_cb = on_uv_signal;
	info.pcontext = &ctx;
	int use_uv = !getenv("CARC_SERVE_POLL");
	if (use_uv)
		ctx = lws_create_context(&info);
	if (!ctx) {
		if (use_uv)
			srv_error("libuv event loop not available: using poll()");
		use_uv = 0;
		info.options &= ~(uint64_t)LWS_SERVER_OPTION_LIBUV;
		info.signal_cb = NULL;
		ctx = lws_create_context(&info);
	}
	if (!ctx) {
		srv_error("cannot listen on %s:%d", c->host, c->port);
		st->ops->close(st);
		wst->ops->close(wst);
		return 1;
	}
	int mport = -1;
	if (c->metrics_host) {
		/* --metrics-listen: a second vhost on the same loop and callback */
		struct lws_context_creation_info mi = info;
		mi.vhost_name = "metrics";
		mi.port = c->metrics_port;
		mi.iface = c->metrics_host;
		mi.options &= ~(uint64_t)LWS_SERVER_OPTION_DISABLE_IPV6;
		if (!strchr(c->metrics_host, ':'))
			mi.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
		metrics_vh = lws_create_vhost(ctx, &mi);
		mport = metrics_vh ? lws_get_vhost_listen_port(metrics_vh) : -1;
		if (mport <= 0) {
			srv_error("cannot listen on %s:%d (--metrics-listen)", c->metrics_host,
			          c->metrics_port);
			lws_context_destroy(ctx);
			ctx = NULL;
			st->ops->close(st);
			wst->ops->close(wst);
			return 1;
		}
	}
	api_start();
	api_set_start(srv_mono_us(), st->ops->name);
	if (!use_uv) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	cluster_hooks ch;
	tables_cluster_hooks(&ch);
	if (writer_start(wst, ctx) || bots_start(c->bot_threads, c->bot_cpu_per_addr, ctx) ||
	    cluster_start(c->db_path, &ch, ctx) || tables_start(c, st, ctx) ||
	    accounts_start(c, st, ctx) || friends_start(c, st)) {
		bots_stop();
		cluster_stop();
		accounts_stop();
		writer_stop();
		lws_context_destroy(ctx);
		st->ops->close(st);
		return 1;
	}
	int port = lws_get_vhost_listen_port(lws_get_vhost_by_name(ctx, "default"));
	if (port <= 0)
		port = c->port;
	char shown[512];
	db_shown(c->db_path, shown, sizeof shown);
	printf("carc serve: listening on http://%s:%d/ (database %s, schema %d)\n", c->host, port,
	       shown, pg ? store_pg_schema_version() : store_sqlite_schema_version());
	if (metrics_vh) {
		int v6 = strchr(c->metrics_host, ':') != NULL;
		printf("carc serve: metrics on http://%s%s%s:%d/api/metrics\n", v6 ? "[" : "",
		       c->metrics_host, v6 ? "]" : "", mport);
	}
	fflush(stdout);
	srv_event("listening on %s:%d", c->host, port);
	if (metrics_vh)
		srv_event("metrics on %s:%d", c->metrics_host, mport);

	if (use_uv) {
		/* runs until on_uv_signal destroys the context */
		while (ctx && !lws_service(ctx, 0))
			;
	} else {
		while (!stop_flag && lws_service(ctx, 0) >= 0)
			;
		begin_stop();
	}
	if (ctx)
		lws_context_destroy(ctx);
	ctx = NULL;
	tables_stop();
	st->ops->close(st);
	addrs_free();
	return 0;
}
