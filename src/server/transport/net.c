/*
 * net.c - the transport: one libwebsockets context, one event-loop thread,
 * HTTP and WebSocket on the same port (see server.h for the threading).
 * Here: starting and stopping the server (the store handles, the context
 * and its listeners, the modules below), and the one callback, which hands
 * each event to its file (net_internal.h): net_conns.c the connections'
 * books, net_http.c requests and answers, net_static.c the web client's
 * files, net_ws.c WebSockets and their queues.
 *
 * Why libwebsockets: it is event driven, so thousands of idle WebSocket
 * clients cost a little memory each and no thread; a thread-per-connection
 * server (civetweb) would need a thread for every open game client.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "accounts.h"
#include "friends.h"
#include "api.h"
#include "bots.h"
#include "cluster.h"
#include "net_internal.h"
#include "peers.h"
#include "tables.h"
#include "writer.h"

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

const srv_config *net_cfg;
static struct lws_context *ctx;
static volatile sig_atomic_t stop_flag;
unsigned char net_scratch[LWS_PRE + NET_CHUNK];

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

/* The listener of --metrics-listen (NULL without it): it answers
 * monitoring paths only (api_is_monitor_path). */
static struct lws_vhost *metrics_vh;

int net_on_metrics_listener(struct lws *wsi)
{
	return metrics_vh && lws_get_vhost(wsi) == metrics_vh;
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

	case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
		net_conn_accepted(wsi);
		return 0;
	case LWS_CALLBACK_WSI_DESTROY:
		net_conn_destroyed(wsi);
		return 0;

	case LWS_CALLBACK_HTTP:
		return net_http_begin(c, wsi, in);
	case LWS_CALLBACK_HTTP_BODY:
		return net_http_body(c, in, len);
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		return net_http_body_done(c);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (!c || c->kind != CONN_HTTP)
			return 0;
		return net_http_write(c);
	case LWS_CALLBACK_HTTP_FILE_COMPLETION:
		if (c)
			net_serial_drop(c);
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
	case LWS_CALLBACK_CLOSED_HTTP:
		/* the request's memory is freed after this: so is what it holds */
		if (c && c->kind == CONN_HTTP)
			net_http_reset(c);
		return 0;

	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		return net_ws_upgrade_check(wsi);
	case LWS_CALLBACK_ESTABLISHED:
		return net_ws_open(c, wsi);
	case LWS_CALLBACK_RECEIVE:
		return net_ws_receive(c, wsi, in, len);
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return net_ws_write(c);
	case LWS_CALLBACK_CLOSED:
		net_ws_closed(c);
		return 0;
	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols PROTOCOLS[] = {
	{"carc", callback, sizeof(srv_conn), 4096, 0, NULL, NET_CHUNK + 64},
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
	net_cfg = c;
	peers_setup(c);
	metrics_vh = NULL;
	srv_log_quiet(c->quiet);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit();
	lws_set_log_level(LLL_ERR, lws_log_to_ours);

	net_static_setup(c->web_dir);

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
	net_addrs_free();
	return 0;
}
