/*
 * net_http.c - the transport's HTTP side (net.h, net_internal.h): reading
 * a request (its headers, its body up to the path's limit), handing it to
 * the API (api_http) or to the static files (net_static.c), and writing
 * the answer out in pieces of NET_CHUNK bytes, at once or later
 * (net_http_answer, after the storage thread).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "errcode.h"
#include "net_internal.h"
#include "peers.h"
#include "reply.h"

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

void net_http_reset(srv_conn *c)
{
	sb_free(&c->body);
	free(c->resp);
	c->resp = NULL;
	c->resp_len = c->resp_off = 0;
	c->body_over = 0;
	c->body_pending = 0;
	c->answered = 0;
	c->hdr_pending = 0;
	net_serial_drop(c);
}

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                      unsigned char *end)
{
	return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
	                                   (const unsigned char *)value, (int)strlen(value), p, end);
}

int net_http_write_headers(struct lws *wsi, int status, const char *ctype, size_t len,
                           const char *cookie, const char *disposition, int retry_after,
                           int close, const char *etag)
{
	unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start,
	                                   *end = buf + sizeof buf - 1;
	if (lws_add_http_common_headers(wsi, (unsigned)status, ctype, (lws_filepos_t)len, &p, end))
		return -1;
	/* an answer with an ETag may be kept, and is asked again each time
	 * (a 304 without a body when it has not changed); nothing else is kept */
	if (add_header(wsi, "cache-control:", etag && *etag ? "no-cache" : "no-store", &p, end) ||
	    (etag && *etag && add_header(wsi, "etag:", etag, &p, end)))
		return -1;
	/* one Set-Cookie header a cookie: a login sets the device's and the
	 * session's, '\n' between them (accounts.h) */
	for (const char *c = cookie; c && *c;) {
		size_t n = strcspn(c, "\n");
		char one[512];
		snprintf(one, sizeof one, "%.*s", (int)n, c);
		if (add_header(wsi, "set-cookie:", one, &p, end))
			return -1;
		c += n + (c[n] == '\n');
	}
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
 * body on the ones after. Takes the body (net_internal.h). */
int net_http_send(srv_conn *c, int status, const char *ctype, char *body, size_t len,
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
	c->resp_etag[0] = 0;
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
	net_http_send(c, status, ctype, body, len, cookie, disposition);
}

int net_http_write(srv_conn *c)
{
	if (c->hdr_pending) {
		c->hdr_pending = 0;
		if (net_http_write_headers(c->wsi, c->resp_status, c->resp_ctype, c->resp_len,
		                           c->resp_cookie, c->resp_disp, c->resp_retry_after,
		                           c->close_after, c->resp_etag))
			return -1;
		if (!c->resp) {
			/* no body (a 304 Not Modified): the answer is complete */
			net_serial_drop(c);
			if (c->close_after)
				return -1;
			return lws_http_transaction_completed(c->wsi) ? -1 : 0;
		}
		lws_callback_on_writable(c->wsi);
		return 0;
	}
	if (!c->resp)
		return 0;
	size_t left = c->resp_len - c->resp_off, n = left < NET_CHUNK ? left : NET_CHUNK;
	memcpy(net_scratch + LWS_PRE, c->resp + c->resp_off, n);
	int last = n == left;
	if (lws_write(c->wsi, net_scratch + LWS_PRE, n,
	              last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
		return -1;
	c->resp_off += n;
	if (!last) {
		lws_callback_on_writable(c->wsi);
		return 0;
	}
	free(c->resp);
	c->resp = NULL;
	net_serial_drop(c); /* this request is answered */
	/* closing flushes what lws still holds of the answer first */
	if (c->close_after)
		return -1;
	return lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

char *net_error_json(const char *code, const char *msg)
{
	json_t *o = json_pack("{s:{s:s, s:o}}", "error", "code", code, "message", api_json_text(msg));
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

int net_http_error(srv_conn *c, int status, const char *code, const char *msg)
{
	char *s = net_error_json(code, msg);
	return net_http_send(c, status, "application/json", s, strlen(s), NULL, NULL);
}

/* An error answered before the body (if any) is read: the connection closes
 * after it. */
static int http_error_early(srv_conn *c, int status, const char *code, const char *msg)
{
	srv_event("http %s -> %d %s", c->path, status, code);
	c->body_pending = 1;
	return net_http_error(c, status, code, msg);
}

void net_header_copy(struct lws *wsi, enum lws_token_indexes h, char *buf, size_t size)
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
 * X-Carc-Token; net_internal.h). */
void net_header_token(struct lws *wsi, char *out, size_t size)
{
	char buf[256];
	out[0] = 0;
	net_header_copy(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, buf, sizeof buf);
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
	if (!net_cfg->n_trust_proxy || !lws_get_peer_simple(wsi, peer, sizeof peer))
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
		net_header_copy(wsi, WSI_TOKEN_ORIGIN, origin, size);
		net_header_copy(wsi, WSI_TOKEN_HOST, host, sizeof host);
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
	int monitor = net_on_metrics_listener(c->wsi);
	if (monitor && !api_is_monitor_path(c->path))
		return net_http_error(c, 404, "not_found",
		                      "this listener (--metrics-listen) answers /api/metrics and "
		                      "/api/health only");
	if (!api_is_api_path(c->path))
		return net_serve_static(c, c->path);
	char query[1024], token[256], cookie[NET_COOKIE_MAX], origin[300], ctype[128], inm[128];
	query_copy(c->wsi, query, sizeof query);
	net_header_token(c->wsi, token, sizeof token);
	net_header_copy(c->wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
	int site = request_site(c->wsi, origin, sizeof origin);
	net_header_copy(c->wsi, WSI_TOKEN_HTTP_CONTENT_TYPE, ctype, sizeof ctype);
	if (!ctype[0] && lws_hdr_total_length(c->wsi, WSI_TOKEN_HTTP_CONTENT_TYPE) > 0)
		snprintf(ctype, sizeof ctype, "?"); /* too long to be application/json */
	net_header_copy(c->wsi, WSI_TOKEN_HTTP_IF_NONE_MATCH, inm, sizeof inm);
	api_req rq = {.serial = c->serial, .method = c->method, .path = c->path, .query = query,
	              .body = c->body.s, .body_len = c->body.len, .body_too_large = c->body_over,
	              .token = token, .cookie = cookie, .addr = c->addr, .tls = request_tls(c->wsi),
	              .site = site, .origin = origin, .ctype = ctype,
	              .local = peers_local(c->wsi), .monitor = monitor, .if_none_match = inm};
	api_resp rs;
	api_http(net_cfg, &rq, &rs);
	sb_free(&c->body); /* read: not needed any more */
	if (!rs.status) {
		/* waits for the storage thread: net_http_answer() answers */
		c->answered = 1;
		return 0;
	}
	if (rs.status >= 400 && rs.status != 404 && rs.status != 429)
		srv_event("http %s %s -> %d", method_name(c->method), c->path, rs.status);
	net_http_send(c, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, rs.disposition);
	c->resp_retry_after = rs.retry_after;
	snprintf(c->resp_etag, sizeof c->resp_etag, "%s", rs.etag);
	return 0;
}

/* The largest body a path takes: uploaded records may be larger than a
 * move, 64 x the message limit. */
static size_t body_limit(const char *path)
{
	return !strcmp(path, "/api/records") ? net_cfg->max_msg * 64 : net_cfg->max_msg;
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
	net_header_copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, cl, sizeof cl);
	size_t n = strlen(cl);
	while (n && (cl[n - 1] == ' ' || cl[n - 1] == '\t'))
		cl[--n] = 0;
	if (!n || n > 15 || strspn(cl, "0123456789") != n)
		return -1;
	return atoll(cl);
}

int net_http_begin(srv_conn *c, struct lws *wsi, const char *path)
{
	net_http_reset(c);
	c->kind = CONN_HTTP;
	c->wsi = wsi;
	c->close_after = 0;
	net_serial_new(c);
	peers_addr(wsi, c->addr, sizeof c->addr);
	/* a client (or proxy) that asks to close gets "connection: close" on
	 * the answer and the close after it (RFC 9112 9.6): without the header
	 * a proxy keeping upstream connections would send its next request on
	 * a connection about to close (nginx: "upstream prematurely closed") */
	char conn_hdr[64];
	net_header_copy(wsi, WSI_TOKEN_CONNECTION, conn_hdr, sizeof conn_hdr);
	for (char *q = conn_hdr; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	if (strstr(conn_hdr, "close"))
		c->close_after = 1;
	char *uri;
	int ulen;
	c->method = lws_http_get_uri_and_method(wsi, &uri, &ulen);
	snprintf(c->path, sizeof c->path, "%s", path);
	char msg[300];
	if (net_over_conn_limit(wsi)) {
		/* logged when it was accepted */
		net_conn_limit_message(msg, sizeof msg);
		c->body_pending = 1;
		net_http_error(c, 429, "rate_limited", msg);
		c->resp_retry_after = 10;
		return 0;
	}
	if (!peers_host_ok(wsi, net_on_metrics_listener(wsi))) {
		/* another site's name that points here (DNS rebinding): its pages
		 * would be the server's own origin; nothing of it is read */
		peers_host_message(wsi, msg, sizeof msg);
		return http_error_early(c, srv_err_http_status(SE_BAD_HOST), srv_err_name(SE_BAD_HOST),
		                        msg);
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

int net_http_body(srv_conn *c, const void *in, size_t len)
{
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

int net_http_body_done(srv_conn *c)
{
	if (!c || c->kind != CONN_HTTP)
		return 0;
	c->body_pending = 0;
	return http_dispatch(c);
}
