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
#include "api.h"
#include "bots.h"
#include "net.h"
#include "tables.h"
#include "writer.h"

#define CHUNK 16384

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

static void queue_free(srv_conn *c)
{
	srv_qnode *q = c->qh;
	while (q) {
		srv_qnode *n = q->next;
		net_msg_unref(q->m);
		free(q);
		q = n;
	}
	c->qh = c->qt = NULL;
	c->qbytes = c->qoff = 0;
}

void net_send(srv_conn *c, srv_msg *m)
{
	if (c->kind != CONN_WS || c->dropped)
		return;
	if (c->qbytes + m->len > cfg->max_queue) {
		/* a client that does not read must not hold memory or anyone else */
		srv_error("client at table %s dropped: %zu bytes waiting", c->table ? c->table->id : "-",
		          c->qbytes);
		c->dropped = 1;
		queue_free(c);
		lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
		return;
	}
	srv_qnode *q = srv_xmalloc(sizeof *q);
	q->m = m;
	q->next = NULL;
	m->refs++;
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
	for (srv_conn *c = t->conns; c; c = c->tnext)
		net_send(c, m);
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
		net_msg_unref(q->m);
		free(q);
	}
	if (c->qh || c->closing)
		lws_callback_on_writable(c->wsi);
	return 0;
}

/* ---- HTTP --------------------------------------------------------------------------------- */

static void http_reset(srv_conn *c)
{
	sb_free(&c->body);
	free(c->resp);
	c->resp = NULL;
	c->resp_len = c->resp_off = 0;
	c->body_over = 0;
	c->answered = 0;
	c->hdr_pending = 0;
	serial_drop(c);
}

static int http_write_headers(struct lws *wsi, int status, const char *ctype, size_t len,
                              const char *cookie, const char *disposition, int retry_after)
{
	unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start,
	                                   *end = buf + sizeof buf - 1;
	if (lws_add_http_common_headers(wsi, (unsigned)status, ctype, (lws_filepos_t)len, &p, end))
		return -1;
	static const char nostore[] = "no-store";
	if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
	                                (const unsigned char *)nostore, (int)strlen(nostore), &p, end))
		return -1;
	if (cookie && *cookie &&
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"set-cookie:",
	                                (const unsigned char *)cookie, (int)strlen(cookie), &p, end))
		return -1;
	if (disposition && *disposition &&
	    lws_add_http_header_by_name(wsi, (const unsigned char *)"content-disposition:",
	                                (const unsigned char *)disposition, (int)strlen(disposition),
	                                &p, end))
		return -1;
	if (retry_after > 0) {
		char ra[16];
		int n = snprintf(ra, sizeof ra, "%d", retry_after);
		if (lws_add_http_header_by_name(wsi, (const unsigned char *)"retry-after:",
		                                (const unsigned char *)ra, n, &p, end))
			return -1;
	}
	return lws_finalize_write_http_header(wsi, start, &p, end) ? -1 : 0;
}

/* Queues a response: the headers go out on the next writable callback, the
 * body on the ones after. Takes the body. */
static int http_send(srv_conn *c, int status, const char *ctype, char *body, size_t len,
                     const char *cookie, const char *disposition)
{
	c->answered = 1;
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
		                       c->resp_disp, c->resp_retry_after))
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
	return lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

static int http_error(srv_conn *c, int status, const char *code, const char *msg)
{
	json_t *o = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return http_send(c, status, "application/json", s, strlen(s), NULL, NULL);
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

/* Whether the request came over TLS: the server itself speaks plain HTTP,
 * so only a proxy in front can tell, and its X-Forwarded-Proto is believed
 * only with --trust-proxy (anyone can send the header). */
static int request_tls(struct lws *wsi)
{
	if (lws_is_ssl(wsi))
		return 1;
	if (!cfg->trust_proxy)
		return 0;
#if defined(LWS_WITH_CUSTOM_HEADERS)
	char buf[32];
	int n = lws_hdr_custom_copy(wsi, buf, (int)sizeof buf, "x-forwarded-proto:", 18);
	return n > 0 && !strcasecmp(buf, "https");
#else
	return 0;
#endif
}

static int http_dispatch(srv_conn *c)
{
	if (c->answered)
		return 0;
	if (!api_is_api_path(c->path))
		return serve_static(c, c->path);
	char query[1024], token[256], cookie[1024];
	query_copy(c->wsi, query, sizeof query);
	header_token(c->wsi, token, sizeof token);
	header_copy(c->wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
	api_req rq = {.serial = c->serial, .method = c->method, .path = c->path, .query = query,
	              .body = c->body.s, .body_len = c->body.len, .body_too_large = c->body_over,
	              .token = token, .cookie = cookie, .addr = c->addr, .tls = request_tls(c->wsi)};
	api_resp rs;
	api_http(cfg, &rq, &rs);
	sb_free(&c->body); /* read: not needed any more */
	if (!rs.status) {
		/* waits for the storage thread: net_http_answer() answers */
		c->answered = 1;
		return 0;
	}
	if (rs.status >= 400 && rs.status != 404)
		srv_event("http %s %s -> %d", c->method == LWSHUMETH_POST ? "POST" : "GET", c->path,
		          rs.status);
	http_send(c, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, rs.disposition);
	c->resp_retry_after = rs.retry_after;
	return 0;
}

/* The peer's address as text ("" when unknown), the key of per-address
 * limits. An IPv4 client on a dual-stack socket reads "::ffff:1.2.3.4":
 * the prefix is dropped so that it counts once. */
static void peer_addr(struct lws *wsi, char *out, size_t size)
{
	out[0] = 0;
	if (!lws_get_peer_simple(wsi, out, size))
		out[0] = 0;
	if (!strncmp(out, "::ffff:", 7) && strchr(out + 7, '.'))
		memmove(out, out + 7, strlen(out + 7) + 1);
}

/* ---- the callback ------------------------------------------------------------------------ */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	srv_conn *c = user;
	switch (reason) {
	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		accounts_drain();
		writer_drain();
		tables_bots_drain();
		return 0;

	case LWS_CALLBACK_HTTP: {
		http_reset(c);
		c->kind = CONN_HTTP;
		c->wsi = wsi;
		serial_new(c);
		peer_addr(wsi, c->addr, sizeof c->addr);
		char *uri;
		int ulen;
		c->method = lws_http_get_uri_and_method(wsi, &uri, &ulen);
		snprintf(c->path, sizeof c->path, "%s", (const char *)in);
		if (c->method != LWSHUMETH_POST)
			return http_dispatch(c);
		sb_init(&c->body);
		char cl[32];
		header_copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, cl, sizeof cl);
		long long n = cl[0] ? atoll(cl) : 0;
		if (n > (long long)cfg->max_msg * 64) {
			/* far over: answer now and drop the connection after */
			return http_error(c, 413, "too_large", "the request body is over the size limit");
		}
		if (n <= 0 && !lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING))
			return http_dispatch(c);
		return 0;
	}
	case LWS_CALLBACK_HTTP_BODY: {
		/* uploaded records may be larger than a move: 64 x the message limit */
		size_t limit = !strcmp(c->path, "/api/records") ? cfg->max_msg * 64 : cfg->max_msg;
		if (!c->body_over && c->body.len + len <= limit)
			sb_add(&c->body, in, len);
		else
			c->body_over = 1;
		return 0;
	}
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		return http_dispatch(c);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		return http_write(c);
	case LWS_CALLBACK_HTTP_FILE_COMPLETION:
		serial_drop(c);
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	case LWS_CALLBACK_CLOSED_HTTP:
		if (c && c->kind == CONN_HTTP)
			http_reset(c);
		return 0;

	case LWS_CALLBACK_ESTABLISHED: {
		serial_drop(c);
		memset(c, 0, sizeof *c);
		c->kind = CONN_WS;
		c->wsi = wsi;
		c->seat = -1;
		serial_new(c);
		peer_addr(wsi, c->addr, sizeof c->addr);
		char path[256], token[256], cookie[1024], arg[300];
		header_copy(wsi, WSI_TOKEN_GET_URI, path, sizeof path);
		const char *t = lws_get_urlarg_by_name(wsi, "token=", arg, (int)sizeof arg);
		snprintf(token, sizeof token, "%s", t ? t : "");
		header_copy(wsi, WSI_TOKEN_HTTP_COOKIE, cookie, sizeof cookie);
		api_ws_open(c, path, token, cookie);
		return 0;
	}
	case LWS_CALLBACK_RECEIVE: {
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

int srv_run(const srv_config *c)
{
	cfg = c;
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
	store *wst = store_sqlite_open(c->db_path, c->sync_full, 1, err), *st = NULL;
	if (wst)
		st = store_sqlite_open(c->db_path, c->sync_full, 0, err);
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
	info.timeout_secs = 30;
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
	api_set_start(srv_mono_us(), st->ops->name);
	if (!use_uv) {
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
	}
	if (writer_start(wst, ctx) || bots_start(c->bot_threads, ctx) ||
	    tables_start(c, st, ctx) || accounts_start(c, st, ctx)) {
		bots_stop();
		accounts_stop();
		writer_stop();
		lws_context_destroy(ctx);
		st->ops->close(st);
		return 1;
	}
	int port = lws_get_vhost_listen_port(lws_get_vhost_by_name(ctx, "default"));
	if (port <= 0)
		port = c->port;
	printf("carc serve: listening on http://%s:%d/ (database %s, schema %d)\n", c->host, port,
	       c->db_path, store_sqlite_schema_version());
	fflush(stdout);
	srv_event("listening on %s:%d", c->host, port);

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
	return 0;
}
