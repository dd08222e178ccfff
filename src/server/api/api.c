/*
 * api.c - the HTTP API and the WebSocket messages (docs/protocol.md).
 *
 * Both paths reach the same functions of tables.c with the same checks, so
 * a script driving the HTTP API and a browser on the WebSocket see the same
 * rules and the same error codes.
 *
 * Limits (ratelimit.c) are asked before any work: every API request but the
 * health check and the metrics and every WebSocket message count against
 * the address's request budget; creating a table and uploading a record
 * against their own budgets besides. The health answers a snapshot (at
 * most --health-cache old), the metrics only to loopback clients or on
 * their own listener (--metrics-listen).
 *
 * Requests from browsers: a state-changing request (POST, PUT, PATCH,
 * DELETE) must come from the server's own site (its Origin, else its
 * Sec-Fetch-Site; with neither header, from a script, it must carry no
 * carc cookie) and its body must be application/json (from a browser,
 * with cookies, and at /api/account/...): a page of another site cannot
 * use a player's cookies (cross-site request forgery, login and logout
 * included), and a "simple" text/plain or form post is never read as
 * JSON. Checked after the request budget, before any route.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "accounts.h"
#include "analysis.h"
#include "bots.h"
#include "api.h"
#include "chat.h"
#include "cluster.h"
#include "friends.h"
#include "gamejson.h"
#include "match.h"
#include "metrics.h"
#include "ratelimit.h"
#include "undo.h"
#include "options.h"
#include "outbox.h"
#include "recovery.h"
#include "rematch.h"
#include "windows.h"
#include "tables.h"
#include "writer.h"

static int64_t started_us;
static const char *store_kind = "sqlite";

void api_set_start(int64_t mono_us, const char *store_name)
{
	started_us = mono_us;
	store_kind = store_name;
}

/* ---- the hooks of the layers below ------------------------------------------------ */

static void out_send_text(uint64_t conn, const char *text)
{
	srv_conn *c = net_conn_find(conn);
	if (c)
		net_send_text(c, text);
}

static void out_close_after_flush(srv_client *cl)
{
	net_close_after_flush(net_conn_of(cl));
}

static const srv_outbox outbox = {
	.broadcast = net_broadcast,
	.broadcast_shown = net_broadcast_shown,
	.send_text = out_send_text,
	.close_after_flush = out_close_after_flush,
	.move_done = api_move_done,
	.resign_done = api_resign_done,
	.undo_done = api_undo_done,
	.join_done = api_join_done,
	.create_done = api_create_done,
	.rematch_done = api_rematch_done,
};

static const acc_hooks acc_out = {
	.http_answer = net_http_answer,
	.live_game = tables_my_game,
};

static const fr_hooks fr_out = {
	.http_answer = net_http_answer,
	.invite_seat = tables_invite_seat,
};

void api_start(void)
{
	tables_outbox_set(&outbox);
	accounts_hooks_set(&acc_out);
	friends_hooks_set(&fr_out);
	match_setup(net_http_answer);
	recovery_hooks_set(api_keep_hooks());
}

int api_is_api_path(const char *path)
{
	return !strncmp(path, "/api/", 5) || !strcmp(path, "/api") || !strcmp(path, "/healthz");
}

int api_is_monitor_path(const char *path)
{
	return !strcmp(path, "/api/metrics") || !strcmp(path, "/api/health") ||
	       !strcmp(path, "/healthz");
}

/* ---- responses ---------------------------------------------------------------------- */

static void reply_json(api_resp *rs, int status, json_t *o)
{
	rs->status = status;
	rs->ctype = "application/json";
	rs->body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	rs->body_len = rs->body ? strlen(rs->body) : 0;
	json_decref(o);
}

static void reply_text(api_resp *rs, int status, char *text)
{
	rs->status = status;
	rs->ctype = "application/json";
	rs->body = text;
	rs->body_len = text ? strlen(text) : 0;
}

static json_t *error_json(srv_err e, const char *msg)
{
	return json_pack("{s:{s:s, s:s}}", "error", "code", srv_err_name(e), "message", msg);
}

static void reply_error(api_resp *rs, srv_err e, const char *msg)
{
	reply_json(rs, srv_err_http_status(e), error_json(e, msg));
}

/* 429 rate_limited with Retry-After. */
static void reply_limited(api_resp *rs, int wait_s, const char *msg)
{
	reply_error(rs, SE_RATE_LIMITED, msg);
	rs->retry_after = wait_s;
}

/* A move's "turn": absent (-1), or an integer 0..CARC_MAX_TILES (one more
 * than a game has turns, so that a turn past the end is stale rather than
 * malformed). Anything else is malformed: returns -1 with a message. */
static int parse_turn(const json_t *v, int *turn, char *err, size_t errsize)
{
	*turn = -1;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > CARC_MAX_TILES) {
		snprintf(err, errsize, "turn must be an integer from 0 to %d (the turn the move is for)",
		         CARC_MAX_TILES);
		return -1;
	}
	*turn = (int)json_integer_value(v);
	return 0;
}

/* ---- request helpers -------------------------------------------------------------- */

/* The value of query key `key` into buf (URL-decoding %XX and +). */
static int query_get(const char *q, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	const char *p = q;
	while (p && *p) {
		const char *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			size_t o = 0;
			for (size_t i = kl + 1; i < n && o + 1 < size; i++) {
				char ch = p[i];
				if (ch == '+')
					ch = ' ';
				else if (ch == '%' && i + 2 < n + 1 && i + 2 <= n) {
					char hx[3] = {p[i + 1], p[i + 2], 0};
					ch = (char)strtol(hx, NULL, 16);
					i += 2;
				}
				buf[o++] = ch;
			}
			buf[o] = 0;
			return 1;
		}
		p = amp ? amp + 1 : NULL;
	}
	return 0;
}

/* The token for table `id`: header first, then the table's cookie. */
static void token_for(const char *id, const char *token, const char *cookie, char *out,
                      size_t size)
{
	out[0] = 0;
	if (token && *token) {
		snprintf(out, size, "%s", token);
		return;
	}
	if (!cookie || !id)
		return;
	char name[STORE_ID_SIZE + 8];
	snprintf(name, sizeof name, "carc_%s=", id);
	const char *p = cookie;
	size_t nl = strlen(name);
	while ((p = strstr(p, name))) {
		if (p == cookie || p[-1] == ' ' || p[-1] == ';') {
			p += nl;
			size_t n = strcspn(p, "; ");
			if (n >= size)
				n = size - 1;
			memcpy(out, p, n);
			out[n] = 0;
			return;
		}
		p += nl;
	}
}

static json_t *parse_body(const api_req *rq, api_resp *rs, int need_object)
{
	if (rq->body_too_large) {
		reply_error(rs, SE_TOO_LARGE, "the request body is over the size limit");
		return NULL;
	}
	if (rq->body_len == 0 && !need_object)
		return json_object();
	json_error_t je;
	json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, &je);
	if (!o || !json_is_object(o)) {
		char msg[256];
		snprintf(msg, sizeof msg, "the body must be a JSON object%s%s", o ? "" : ": ",
		         o ? "" : je.text);
		json_decref(o);
		reply_error(rs, SE_MALFORMED, msg);
		return NULL;
	}
	return o;
}

/* A seat cookie: Strict, so that no request from another site carries it
 * (the Origin check stops those too). tls: marked Secure. */
static void set_seat_cookie(api_resp *rs, const char *id, const char *token, int tls)
{
	snprintf(rs->set_cookie, sizeof rs->set_cookie,
	         "carc_%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000%s", id, token,
	         tls ? "; Secure" : "");
}

/* ---- requests from browsers ------------------------------------------------------------ */

static int state_changing(int method)
{
	return method == LWSHUMETH_POST || method == LWSHUMETH_PUT || method == LWSHUMETH_PATCH ||
	       method == LWSHUMETH_DELETE;
}

/* Whether the Cookie header holds one of the server's cookies (carc_session,
 * a seat's carc_<table>): credentials a browser adds by itself. */
static int has_carc_cookie(const char *cookie)
{
	for (const char *p = cookie; p && (p = strstr(p, "carc_")); p += 5)
		if (p == cookie || p[-1] == ' ' || p[-1] == ';')
			return 1;
	return 0;
}

/* application/json, in any case, with parameters or not. */
static int is_json_type(const char *ct)
{
	while (*ct == ' ' || *ct == '\t')
		ct++;
	size_t n = strlen("application/json");
	if (strncasecmp(ct, "application/json", n))
		return 0;
	ct += n;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	return !*ct || *ct == ';';
}

/* Refuses a state-changing request that another site's page may have sent
 * (bad_origin) or whose body is not JSON by its type (bad_content_type).
 * Returns 1 when refused (rs filled). */
static int cross_site_refused(const api_req *rq, api_resp *rs)
{
	if (!state_changing(rq->method))
		return 0;
	char msg[300];
	if (rq->site == REQ_SITE_OTHER) {
		if (rq->origin && rq->origin[0])
			snprintf(msg, sizeof msg,
			         "a page of another site (Origin %.80s) may not change anything here "
			         "(the server's own origin and --allow-origin may)",
			         rq->origin);
		else
			snprintf(msg, sizeof msg,
			         "a request from another site (Origin too long or Sec-Fetch-Site: "
			         "cross-site) may not change anything here");
		reply_error(rs, SE_BAD_ORIGIN, msg);
		return 1;
	}
	if (rq->site == REQ_SITE_UNSAID && has_carc_cookie(rq->cookie)) {
		reply_error(rs, SE_BAD_ORIGIN,
		            "a request with the server's cookies must say where it comes from (a "
		            "browser sends Origin): a script sends its token in an Authorization: "
		            "Bearer or X-Carc-Token header, without cookies");
		return 1;
	}
	/* the body's type: from a browser, with cookies and at the accounts'
	 * endpoints (login CSRF from a browser that sends no Origin); a script
	 * without cookies may post JSON untyped (curl -d sends a form type) */
	int typed = rq->site != REQ_SITE_UNSAID || has_carc_cookie(rq->cookie) ||
	            !strncmp(rq->path, "/api/account/", 13);
	if (typed && (rq->body_len > 0 || rq->body_too_large) &&
	    !is_json_type(rq->ctype ? rq->ctype : "")) {
		snprintf(msg, sizeof msg, "the body must be sent as Content-Type: application/json (not %.60s)",
		         rq->ctype && rq->ctype[0] ? rq->ctype : "none");
		reply_error(rs, SE_BAD_CONTENT_TYPE, msg);
		return 1;
	}
	return 0;
}

/* ---- endpoints ------------------------------------------------------------------------ */

/* The server's health: ok only while the database takes writes (a load
 * balancer sees 503 otherwise); "storage" says why not, in plain words. */
static void health_compute(const writer_health *hp, api_resp *rs)
{
	writer_health hh = *hp, *h = &hh;
	int tables, playing, conns;
	tables_counts(&tables, &playing, &conns);
	json_t *storage = json_pack("{s:b, s:b, s:I}", "ok", h->ok, "read_only",
	                            h->fault == STORE_FAULT_READ_ONLY, "failed_writes",
	                            (json_int_t)h->failed_writes);
	if (!h->ok) {
		json_object_set_new(storage, "error", json_string(store_fault_text(h->fault)));
		json_object_set_new(storage, "since_ms", json_integer(h->since_ms));
	}
	reply_json(rs, h->ok ? 200 : 503,
	           json_pack("{s:b, s:s, s:o, s:i, s:i, s:i, s:i, s:I}", "ok", h->ok, "store",
	                     store_kind, "storage", storage, "tables", tables, "playing", playing,
	                     "connections", conns, "writes_queued", writer_backlog(), "uptime_s",
	                     (json_int_t)((srv_mono_us() - started_us) / 1000000)));
}

/* The health under a flood. Each --health-cache window (1 s) answers its
 * first HEALTH_FRESH requests fresh, so that a monitor (and a test) sees
 * exact numbers, and the rest with the snapshot of the last of them: the
 * counts walk every table in memory (tables_counts), a flood of health
 * checks from anyone must not. The storage's state is read for every
 * request (writer_health_get: a lock and a stat of the file) and a change
 * of it makes a new snapshot, so a fault shows at once. */
#define HEALTH_FRESH 10
static struct {
	char *body;
	size_t len;
	int status;
	int64_t window_us; /* when the window began */
	int fresh;         /* answers computed in this window */
	writer_health h;
} health_snap;

static void get_health(const srv_config *cfg, api_resp *rs)
{
	writer_health h;
	writer_health_get(&h);
	int64_t now = srv_mono_us();
	int changed = !health_snap.body || h.ok != health_snap.h.ok ||
	              h.fault != health_snap.h.fault || h.failed_writes != health_snap.h.failed_writes;
	if (changed || now - health_snap.window_us >= (int64_t)cfg->health_cache_ms * 1000) {
		health_snap.window_us = now;
		health_snap.fresh = 0;
	}
	if (health_snap.fresh < HEALTH_FRESH || changed) {
		api_resp fresh;
		memset(&fresh, 0, sizeof fresh);
		health_compute(&h, &fresh);
		free(health_snap.body);
		health_snap.body = fresh.body;
		health_snap.len = fresh.body_len;
		health_snap.status = fresh.status;
		health_snap.h = h;
		health_snap.fresh++;
	}
	rs->status = health_snap.status;
	rs->ctype = "application/json";
	rs->body = srv_xmalloc(health_snap.len + 1);
	memcpy(rs->body, health_snap.body ? health_snap.body : "", health_snap.len);
	rs->body[health_snap.len] = 0;
	rs->body_len = health_snap.len;
}

/* GET /api/metrics: the Prometheus text format (metrics.c). */
static void get_metrics(api_resp *rs)
{
	metrics_gauges g = {.store = store_kind};
	int by_status[STORE_STATUS_COUNT];
	tables_counts(&g.tables, &g.playing, &g.ws_conns);
	tables_metrics(by_status, &g.bots_pausing, &g.bots_thinking);
	g.open_tables = by_status[STORE_OPEN];
	g.over_tables = by_status[STORE_OVER];
	writer_health h;
	writer_health_get(&h);
	g.storage_ok = h.ok;
	g.failed_writes = h.failed_writes;
	g.writes_queued = writer_backlog();
	g.bot_tables_held = cluster_bots_held();
	g.bots_over_budget = (long long)bots_over_budget();
	g.bots_preempted = (long long)bots_preempted();
	g.analyses = analysis_running();
	g.uptime_s = (double)(srv_mono_us() - started_us) / 1e6;
	srv_sb b;
	sb_init(&b);
	metrics_render(&g, &b);
	rs->status = 200;
	rs->body_len = b.len;
	rs->body = sb_take(&b);
	rs->ctype = "text/plain; version=0.0.4; charset=utf-8";
}

#define FINISHED_PAGE 20
#define FINISHED_PAGE_MAX 100

/* GET /api/tables: tables in memory by status, or finished games from the
 * store a page at a time (status=over, limit, before). */
static void get_tables(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	char sv[16], v[64];
	const char *st = query_get(rq->query, "status", sv, sizeof sv) ? sv : "open";
	int over = !strcmp(st, "over");
	int which = !strcmp(st, "open") ? 0 : !strcmp(st, "playing") ? 1 : !strcmp(st, "all") ? 2
	            : -1;
	if (!over && which < 0) {
		reply_error(rs, SE_MALFORMED, "status must be open, playing, over or all");
		return;
	}
	int limit = over ? FINISHED_PAGE : cfg->list_max, most = over ? FINISHED_PAGE_MAX
	                                                                : cfg->list_max;
	if (query_get(rq->query, "limit", v, sizeof v)) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!v[0] || *end || v[0] == '-' || v[0] == '+' || n < 1 || n > most) {
			char msg[96];
			snprintf(msg, sizeof msg, "limit must be a number from 1 to %d", most);
			reply_error(rs, SE_MALFORMED, msg);
			return;
		}
		limit = (int)n;
	}
	if (!over) {
		char cur[64], err[160];
		int has = query_get(rq->query, "before", cur, sizeof cur);
		json_t *o = tables_list(which, has ? cur : NULL, limit, err, sizeof err);
		if (!o)
			reply_error(rs, SE_MALFORMED, err);
		else
			reply_json(rs, 200, o);
		return;
	}
	char before[STORE_ID_SIZE];
	int has_before = query_get(rq->query, "before", v, sizeof v);
	if (has_before) {
		size_t n = strlen(v);
		if (n == 0 || n >= sizeof before || strspn(v, "0123456789abcdef") != n) {
			reply_error(rs, SE_MALFORMED, "before must be a table id (the last id of the "
			                              "previous page, as next_before gives it)");
			return;
		}
		memcpy(before, v, n + 1);
	}
	srv_err code;
	char err[STORE_ERR_SIZE + 64];
	json_t *o = tables_finished(has_before ? before : NULL, limit, &code, err, sizeof err);
	if (!o)
		reply_error(rs, code, err);
	else
		reply_json(rs, 200, o);
}

static void post_tables(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	char lerr[256];
	int wait = lim_take(rq->addr, LIM_TABLES, lerr, sizeof lerr);
	if (wait) {
		reply_limited(rs, wait, lerr);
		return;
	}
	char owner[LIM_KEY_SIZE];
	lim_key(rq->addr, owner);
	int64_t oldest;
	int open = tables_open_of(owner, &oldest);
	if (cfg->max_open_tables > 0 && open >= cfg->max_open_tables) {
		/* until the oldest expires, unless it starts before */
		int64_t left = (int64_t)cfg->open_expiry_s * 1000 - (srv_now_ms() - oldest);
		wait = cfg->open_expiry_s > 0 && left > 0 ? (int)((left + 999) / 1000) : 60;
		snprintf(lerr, sizeof lerr, "this address has %d open tables, the most it may have "
		         "(--max-open-tables); one of them must start or expire first", open);
		reply_limited(rs, wait, lerr);
		return;
	}
	json_t *o = parse_body(rq, rs, 0);
	if (!o)
		return;
	const char *name = json_string_value(json_object_get(o, "name"));
	if (json_object_get(o, "name") && !name) {
		json_decref(o);
		reply_error(rs, SE_MALFORMED, "name must be a string");
		return;
	}
	srv_table_opts opts;
	char err[512];
	if (opt_parse(o, cfg->bot_delay_ms, &opts, err, sizeof err)) {
		json_decref(o);
		reply_error(rs, SE_BAD_OPTION, err);
		return;
	}
	srv_err code;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	store_account acc; /* accounts: a logged-in creator sits under the account's name */
	if (name && accounts_session(rq->cookie, &acc) == 1) {
		origin.account = acc.id;
		name = acc.name;
	}
	srv_table *t = tables_create(&opts, name, owner, &origin, &code, err, sizeof err);
	json_decref(o);
	if (!t && code == SE_RATE_LIMITED)
		reply_limited(rs, 60, err);
	else if (!t)
		reply_error(rs, code, err);
	/* else api_create_done answers */
}

void api_create_done(const srv_origin *o, srv_table *t, int seat, const char *token,
                     const char (*tokens)[STORE_TOKEN_SIZE], srv_err e, const char *err)
{
	if (!o->http || !o->conn)
		return;
	api_resp rs;
	memset(&rs, 0, sizeof rs);
	if (e != SE_OK) {
		reply_error(&rs, e, err);
	} else {
		json_t *r = json_pack("{s:s, s:o}", "id", t->id, "table", tables_info(t));
		if (seat >= 0) {
			json_object_set_new(r, "seat", json_integer(seat));
			json_object_set_new(r, "token", json_string(token));
			set_seat_cookie(&rs, t->id, token, 0);
		}
		if (tokens) {
			/* pass-and-play: every human seat's token, for one browser */
			json_t *a = json_array();
			for (int i = 0; i < t->nseats && i < 8; i++)
				if (tokens[i][0])
					json_array_append_new(a, json_pack("{s:i, s:s}", "seat", i, "token",
					                                   tokens[i]));
			json_object_set_new(r, "tokens", a);
		}
		reply_json(&rs, 201, r);
	}
	net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, NULL);
}

static void post_join(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = parse_body(rq, rs, 1);
	if (!o)
		return;
	json_t *jn = json_object_get(o, "name"), *js = json_object_get(o, "seat");
	if (!json_is_string(jn) || (js && !json_is_null(js) && !json_is_integer(js))) {
		json_decref(o);
		reply_error(rs, SE_MALFORMED, "join needs {\"name\": \"...\"} and optionally \"seat\": n");
		return;
	}
	int want = json_is_integer(js) ? (int)json_integer_value(js) : -1;
	if (json_is_integer(js) && (json_integer_value(js) < 0 || json_integer_value(js) > 99))
		want = 99;
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, 0};
	const char *name = json_string_value(jn);
	store_account acc; /* accounts: the seat follows a logged-in player's account */
	if (accounts_session(rq->cookie, &acc) == 1) {
		origin.account = acc.id;
		name = acc.name;
	}
	srv_err e = tables_join(t, name, want, &origin, err, sizeof err);
	json_decref(o);
	if (e != SE_PENDING)
		reply_error(rs, e, err);
}

static void post_move(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = parse_body(rq, rs, 1);
	if (!o)
		return;
	char token[STORE_TOKEN_SIZE * 2];
	json_t *jt = json_object_get(o, "token");
	if (json_is_string(jt))
		snprintf(token, sizeof token, "%s", json_string_value(jt));
	else
		token_for(t->id, rq->token, rq->cookie, token, sizeof token);
	char err[256];
	int turn;
	if (parse_turn(json_object_get(o, "turn"), &turn, err, sizeof err)) {
		json_decref(o);
		reply_error(rs, SE_MALFORMED, err);
		return;
	}
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = tables_move(t, token, o, turn, &origin, err, sizeof err);
	json_decref(o);
	if (e != SE_PENDING)
		reply_error(rs, e, err);
}

/* The seat token of a request whose body may name it ({"token": ...},
 * else the header or the table's cookie) into token; 0, or -1 with the
 * error answered. */
static int body_token(const srv_table *t, const api_req *rq, api_resp *rs, char *token,
                      size_t size)
{
	json_t *o = parse_body(rq, rs, 0);
	if (!o)
		return -1;
	json_t *jt = json_object_get(o, "token");
	if (jt && !json_is_string(jt)) {
		json_decref(o);
		reply_error(rs, SE_MALFORMED, "token must be a string");
		return -1;
	}
	if (jt)
		snprintf(token, size, "%s", json_string_value(jt));
	else
		token_for(t->id, rq->token, rq->cookie, token, size);
	json_decref(o);
	return 0;
}

/* POST /api/tables/<id>/resign {"token": ...} (or the token's header or
 * cookie, as for a move). */
static void post_resign(srv_table *t, const api_req *rq, api_resp *rs)
{
	char token[STORE_TOKEN_SIZE * 2];
	if (body_token(t, rq, rs, token, sizeof token))
		return;
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = tables_resign(t, token, &origin, err, sizeof err);
	if (e != SE_PENDING)
		reply_error(rs, e, err);
}

/* POST /api/tables/<id>/undo {"moves": k, "token": ...} (or the token's
 * header or cookie): training against bots takes moves back (undo.c). */
static void post_undo(srv_table *t, const api_req *rq, api_resp *rs)
{
	json_t *o = rq->body_len ? json_loadb(rq->body, rq->body_len, 0, NULL) : json_object();
	if (!json_is_object(o)) {
		json_decref(o);
		reply_error(rs, SE_MALFORMED, "the body must be a JSON object");
		return;
	}
	char token[STORE_TOKEN_SIZE * 2], err[256];
	token_for(t->id, rq->token, rq->cookie, token, sizeof token);
	int wait;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = undo_request(t, o, token, rq->addr, &origin, err, sizeof err, &wait);
	json_decref(o);
	if (e == SE_RATE_LIMITED)
		reply_limited(rs, wait, err);
	else if (e != SE_PENDING)
		reply_error(rs, e, err);
}

/* POST /api/tables/<id>/rematch with the token of a seat of the finished
 * game (body "token", the header or the cookie): a seat at its rematch. */
static void post_rematch(srv_table *t, const api_req *rq, api_resp *rs)
{
	char token[STORE_TOKEN_SIZE * 2];
	if (body_token(t, rq, rs, token, sizeof token))
		return;
	char err[256];
	int wait;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_err e = rematch_request(t, token, rq->addr, &origin, err, sizeof err, &wait);
	if (e == SE_RATE_LIMITED)
		reply_limited(rs, wait, err);
	else if (e != SE_PENDING)
		reply_error(rs, e, err);
}

static void ws_error(srv_conn *c, srv_err e, const char *msg, const json_t *ref);

void api_rematch_done(const srv_origin *o, srv_table *old, srv_table *nt, int seat,
                      const char *token, srv_err e, const char *err)
{
	if (!o->conn)
		return;
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		if (e != SE_OK) {
			reply_error(&rs, e, err);
		} else {
			set_seat_cookie(&rs, nt->id, token, 0);
			reply_json(&rs, 200, json_pack("{s:s, s:s, s:i, s:s, s:o}", "id", nt->id, "of",
			                               old ? old->id : "", "seat", seat, "token", token,
			                               "table", tables_info(nt)));
		}
		net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, NULL);
		return;
	}
	srv_conn *c = net_conn_find(o->conn);
	if (!c)
		return;
	if (e != SE_OK) {
		ws_error(c, e, err, o->ref);
		return;
	}
	json_t *r = json_pack("{s:s, s:s, s:s, s:i, s:s}", "type", "rematch_seat", "table",
	                      old ? old->id : "", "rematch", nt->id, "seat", seat, "token", token);
	if (o->ref)
		json_object_set(r, "ref", o->ref);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	net_send_text(c, s);
	free(s);
}

static void post_record(const api_req *rq, api_resp *rs)
{
	if (rq->body_too_large) {
		reply_error(rs, SE_TOO_LARGE, "the record is over the size limit");
		return;
	}
	char err[600];
	int wait = lim_take(rq->addr, LIM_UPLOADS, err, sizeof err);
	if (!wait)
		wait = lim_uploads_reserve(rq->body_len, err, sizeof err);
	if (wait) {
		reply_limited(rs, wait, err);
		return;
	}
	srv_err code;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_table *t = tables_create_view(rq->body ? rq->body : "", rq->body_len, &origin, &code,
	                                  err, sizeof err);
	if (!t) {
		lim_uploads_release(rq->body_len);
		reply_error(rs, code, err);
	}
}

/* Accounts: the seat token of the logged-in account's seat here, for a
 * second browser (accounts.h: the token is derived, the first browser
 * keeps its own). */
static void post_claim(srv_table *t, const api_req *rq, api_resp *rs)
{
	store_account acc;
	int rc = accounts_session(rq->cookie, &acc);
	if (rc != 1) {
		reply_error(rs, rc < 0 ? SE_STORAGE : SE_NOT_LOGGED_IN,
		            rc < 0 ? "the game database is unavailable" : "not logged in");
		return;
	}
	int seat = tables_seat_of_account(t, acc.id);
	if (seat < 0) {
		reply_error(rs, SE_BAD_TOKEN, "this account holds no seat at this table");
		return;
	}
	/* a rematch's seat kept for the account: claiming it from any browser
	 * of the account accepts the rematch (issue 22); api_rematch_done answers */
	char err[256];
	srv_origin origin = {rq->serial, 1, NULL, acc.id};
	srv_err e = rematch_claim_account(t, acc.id, &origin, err, sizeof err);
	if (e != SE_OK) {
		if (e != SE_PENDING)
			reply_error(rs, e, err);
		return;
	}
	char token[STORE_TOKEN_SIZE];
	accounts_seat_token(t->id, seat, acc.id, token);
	set_seat_cookie(rs, t->id, token, rq->tls); /* Strict, as a join's */
	reply_json(rs, 200, json_pack("{s:s, s:i, s:s}", "id", t->id, "seat", seat, "token", token));
	explicit_bzero(token, sizeof token);
}

/* A private table (option "private") that has started is shown only to
 * its players: a seat's token (header or cookie), or the session of an
 * account holding a seat. To anyone else it is hidden (1): they are told
 * there is no such table. An open one is reached by its id, the
 * invitation, as before. */
static int private_hidden(const srv_table *t, const char *token, const char *cookie)
{
	if (!t->opts.private_ || t->status == STORE_OPEN)
		return 0;
	char tok[STORE_TOKEN_SIZE * 2];
	token_for(t->id, token, cookie, tok, sizeof tok);
	int seated = tok[0] && tables_seat_of(t, tok) >= 0;
	explicit_bzero(tok, sizeof tok);
	store_account acc;
	if (!seated && accounts_session(cookie, &acc) == 1)
		seated = tables_seat_of_account(t, acc.id) >= 0;
	return !seated;
}

static void table_endpoint(const api_req *rq, api_resp *rs, const char *rest)
{
	char id[STORE_ID_SIZE];
	size_t n = strcspn(rest, "/");
	if (n == 0 || n >= sizeof id) {
		reply_error(rs, SE_NOT_FOUND, "no such table");
		return;
	}
	memcpy(id, rest, n);
	id[n] = 0;
	const char *sub = rest + n;
	srv_table *t = tables_find(id);
	if (!t || private_hidden(t, rq->token, rq->cookie)) {
		reply_error(rs, SE_NOT_FOUND, "no such table");
		return;
	}
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	if (!*sub || !strcmp(sub, "/")) {
		if (!get)
			{ reply_error(rs, SE_METHOD, "GET only"); return; }
		reply_json(rs, 200, tables_info(t));
	} else if (!strcmp(sub, "/state")) {
		if (!get)
			{ reply_error(rs, SE_METHOD, "GET only"); return; }
		char token[STORE_TOKEN_SIZE * 2];
		token_for(t->id, rq->token, rq->cookie, token, sizeof token);
		reply_text(rs, 200, tables_state_text(t, tables_seat_of(t, token)));
	} else if (!strcmp(sub, "/record")) {
		if (!get)
			{ reply_error(rs, SE_METHOD, "GET only"); return; }
		char *rec = tables_record_text(t);
		if (!rec)
			{ reply_error(rs, SE_STORAGE, "the record could not be written"); return; }
		reply_text(rs, 200, rec);
		snprintf(rs->disposition, sizeof rs->disposition,
		         "attachment; filename=\"carc-%s.json\"", t->id);
	} else if (!strcmp(sub, "/join")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_join(t, rq, rs);
	} else if (!strcmp(sub, "/move")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_move(t, rq, rs);
	} else if (!strcmp(sub, "/undo")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_undo(t, rq, rs);
	} else if (!strcmp(sub, "/resign")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_resign(t, rq, rs);
	} else if (!strcmp(sub, "/claim")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_claim(t, rq, rs);
	} else if (!strcmp(sub, "/chat")) {
		if (!get)
			{ reply_error(rs, SE_METHOD, "GET only (lines are sent over the WebSocket)"); return; }
		srv_err code;
		char err[STORE_ERR_SIZE + 64];
		store_account acc; /* lines of accounts the reader blocks are left out */
		int64_t reader = accounts_session(rq->cookie, &acc) == 1 ? acc.id : 0;
		json_t *o = chat_list(t, reader, &code, err, sizeof err);
		if (!o)
			reply_error(rs, code, err);
		else
			reply_json(rs, 200, o);
	} else if (!strcmp(sub, "/analysis")) {
		if (!get && !post)
			{ reply_error(rs, SE_METHOD, "GET or POST"); return; }
		int status, wait;
		srv_err code;
		char err[300];
		char *text = analysis_http(t, post, rq->addr, &status, &code, &wait, err, sizeof err);
		if (!text) {
			reply_error(rs, code, err);
			rs->retry_after = wait;
		} else {
			reply_text(rs, status, text);
		}
	} else if (!strcmp(sub, "/rematch")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_rematch(t, rq, rs);
	} else {
		reply_error(rs, SE_NOT_FOUND, "no such endpoint");
	}
}

void api_http(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	memset(rs, 0, sizeof *rs);
	if (!strcmp(p, "/healthz") || !strcmp(p, "/api/health")) {
		/* never limited: monitoring must see the server under a flood, and
		 * a snapshot costs about what a 429 would */
		get_health(cfg, rs);
		return;
	}
	if (!strcmp(p, "/api/metrics")) {
		/* never limited: only this machine (or the metrics listener) reaches it */
		if (cfg->metrics_host ? !rq->monitor : !rq->local)
			reply_error(rs, SE_FORBIDDEN,
			            cfg->metrics_host
			                ? "the metrics answer on their own listener only (--metrics-listen)"
			                : "the metrics answer to clients on this machine only (loopback); "
			                  "for a scraper elsewhere start the server with --metrics-listen "
			                  "ADDR:PORT");
		else if (!get)
			reply_error(rs, SE_METHOD, "GET only");
		else
			get_metrics(rs);
		return;
	}
	char lerr[256];
	int wait = lim_take(rq->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait) {
		reply_limited(rs, wait, lerr);
	} else if (cross_site_refused(rq, rs)) {
		/* answered: bad_origin or bad_content_type */
	} else if (!strcmp(p, "/api/tiles")) {
		reply_json(rs, 200, gj_tiles());
	} else if (!strcmp(p, "/api/options")) {
		reply_json(rs, 200, opt_choices_json());
	} else if (!strcmp(p, "/api/tables") || !strcmp(p, "/api/tables/")) {
		if (post) {
			post_tables(cfg, rq, rs);
		} else if (get) {
			get_tables(cfg, rq, rs);
		} else {
			reply_error(rs, SE_METHOD, "GET or POST");
		}
	} else if (!strncmp(p, "/api/tables/", 12)) {
		table_endpoint(rq, rs, p + 12);
	} else if (friends_http(rq, rs)) {
		/* friends.c: /api/friends, /api/friends/... */
	} else if (match_http(cfg, rq, rs)) {
		/* match.c: /api/match, /api/match/leave (quick match) */
	} else if (accounts_http(rq, rs)) {
		/* accounts.c: /api/account/..., /api/me..., /api/leaderboard, /api/player */
	} else if (!strcmp(p, "/api/records")) {
		if (!post)
			{ reply_error(rs, SE_METHOD, "POST only"); return; }
		post_record(rq, rs);
	} else {
		reply_error(rs, SE_NOT_FOUND, "no such endpoint");
	}
}

/* ---- WebSocket ------------------------------------------------------------------------------ */

/* Messages an address may send after being refused, without one allowed
 * in between, before its connection is closed. */
#define WS_FLOOD_CLOSE 200

static void ws_error_wait(srv_conn *c, srv_err e, const char *msg, const json_t *ref, int wait)
{
	if (e != SE_RATE_LIMITED) /* ratelimit.c logs those, not each one of a flood */
		srv_event("table=%s event=rejected code=%s: %s", c->cl.table ? c->cl.table->id : "-",
		          srv_err_name(e), msg);
	json_t *o = json_pack("{s:s, s:s, s:s}", "type", "error", "code", srv_err_name(e), "message",
	                      msg);
	if (wait > 0)
		json_object_set_new(o, "retry_after_s", json_integer(wait));
	if (ref)
		json_object_set(o, "ref", (json_t *)ref);
	if (c->cl.table)
		json_object_set_new(o, "turn", json_integer(c->cl.table->game.nturns));
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (s) {
		net_send_text(c, s);
		free(s);
	}
}

static void ws_error(srv_conn *c, srv_err e, const char *msg, const json_t *ref)
{
	ws_error_wait(c, e, msg, ref, 0);
}

static void send_state(srv_conn *c)
{
	tables_recount(c->cl.table);
	char *s = tables_state_text(c->cl.table, c->cl.seat);
	net_send_text(c, s);
	free(s);
}

static void attach(srv_conn *c, srv_table *t)
{
	c->cl.table = t;
	c->cl.tprev = NULL;
	c->cl.tnext = t->conns;
	if (t->conns)
		t->conns->tprev = &c->cl;
	t->conns = &c->cl;
	t->nconns++;
}

void api_ws_open(srv_conn *c, const char *path, const char *token, const char *cookie)
{
	c->cl.seat = -1;
	if (strncmp(path, "/ws/", 4) || !path[4] || strlen(path + 4) >= STORE_ID_SIZE ||
	    strchr(path + 4, '/')) {
		ws_error(c, SE_NOT_FOUND, "connect to /ws/<table id>", NULL);
		net_close_after_flush(c);
		return;
	}
	char lerr[256];
	int wait = lim_take(c->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait) {
		ws_error_wait(c, SE_RATE_LIMITED, lerr, NULL, wait);
		net_close_after_flush(c);
		return;
	}
	srv_table *t = tables_find(path + 4);
	if (!t || private_hidden(t, token, cookie)) {
		ws_error(c, SE_NOT_FOUND, "no such table", NULL);
		net_close_after_flush(c);
		return;
	}
	store_account acc; /* friends: presence, and the chat lines of accounts it blocks */
	c->cl.account = accounts_session(cookie, &acc) == 1 ? acc.id : 0;
	friends_touch(c->cl.account);
	attach(c, t);
	token_for(t->id, token, cookie, c->token, sizeof c->token);
	c->cl.seat = tables_seat_of(t, c->token);
	if (c->token[0] && c->cl.seat < 0)
		ws_error(c, SE_BAD_TOKEN, "this token holds no seat at this table: watching", NULL);
	send_state(c);
	tables_conn_changed(t);
}

void api_ws_close(srv_conn *c)
{
	srv_table *t = c->cl.table;
	if (!t)
		return;
	if (c->cl.tprev)
		c->cl.tprev->tnext = c->cl.tnext;
	else
		t->conns = c->cl.tnext;
	if (c->cl.tnext)
		c->cl.tnext->tprev = c->cl.tprev;
	t->nconns--;
	c->cl.table = NULL;
	tables_conn_changed(t);
}

void api_ws_too_large(srv_conn *c, size_t limit)
{
	char msg[96];
	snprintf(msg, sizeof msg, "a message may have at most %zu bytes", limit);
	ws_error(c, SE_TOO_LARGE, msg, NULL);
}

void api_ws_message(srv_conn *c, const char *text, size_t len)
{
	srv_table *t = c->cl.table;
	if (!t || c->closing)
		return;
	char lerr[256];
	int wait = lim_take(c->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait && lim_streak(c->addr, LIM_REQUESTS) > WS_FLOOD_CLOSE) {
		/* told and told again: the connection goes (it may come back, and
		 * is refused at once while the address is over its limit) */
		ws_error_wait(c, SE_RATE_LIMITED, "this address goes on sending while over its "
		              "limit (--rate-requests): the connection is closed", NULL, wait);
		net_close_after_flush(c);
		return;
	}
	if (wait) {
		/* refused before it is even parsed, the answer written without
		 * jansson: a flood costs little (the message's "ref" is not echoed
		 * for that reason; lerr is our own text, nothing to escape) */
		char msg[sizeof lerr + 160];
		snprintf(msg, sizeof msg, "{\"type\":\"error\",\"code\":\"%s\",\"message\":\"%s\","
		         "\"retry_after_s\":%d,\"turn\":%d}", srv_err_name(SE_RATE_LIMITED), lerr, wait,
		         t->game.nturns);
		net_send_text(c, msg);
		return;
	}
	json_error_t je;
	json_t *o = json_loadb(text, len, 0, &je);
	if (!o || !json_is_object(o)) {
		char msg[200];
		snprintf(msg, sizeof msg, "a message must be a JSON object%s%s", o ? "" : ": ",
		         o ? "" : je.text);
		json_decref(o);
		ws_error(c, SE_MALFORMED, msg, NULL);
		return;
	}
	friends_touch(c->cl.account);
	json_t *ref = json_object_get(o, "ref");
	const char *type = json_string_value(json_object_get(o, "type"));
	char err[256];
	if (!type) {
		ws_error(c, SE_MALFORMED, "a message needs a \"type\"", ref);
	} else if (!strcmp(type, "move")) {
		json_t *jt = json_object_get(o, "token");
		const char *token = json_is_string(jt) ? json_string_value(jt) : c->token;
		int turn;
		if (jt && !json_is_string(jt)) {
			ws_error(c, SE_MALFORMED, "token must be a string", ref);
		} else if (parse_turn(json_object_get(o, "turn"), &turn, err, sizeof err)) {
			ws_error(c, SE_MALFORMED, err, ref);
		} else {
			srv_origin origin = {c->serial, 0, ref, 0};
			srv_err e = tables_move(t, token, o, turn, &origin, err, sizeof err);
			if (e != SE_PENDING)
				ws_error(c, e, err, ref);
		}
	} else if (!strcmp(type, "auth")) {
		const char *token = json_string_value(json_object_get(o, "token"));
		int seat = token ? tables_seat_of(t, token) : -1;
		if (seat < 0) {
			ws_error(c, SE_BAD_TOKEN, "this token holds no seat at this table", ref);
		} else {
			snprintf(c->token, sizeof c->token, "%s", token);
			c->cl.seat = seat;
			send_state(c);
			tables_conn_changed(t);
		}
	} else if (!strcmp(type, "join")) {
		json_t *jn = json_object_get(o, "name"), *js = json_object_get(o, "seat");
		int want = json_is_integer(js) ? (int)json_integer_value(js) : -1;
		if (json_is_integer(js) && (json_integer_value(js) < 0 || json_integer_value(js) > 99))
			want = 99;
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = SE_MALFORMED;
		if (!json_is_string(jn))
			snprintf(err, sizeof err, "join needs a \"name\"");
		else
			e = tables_join(t, json_string_value(jn), want, &origin, err, sizeof err);
		if (e != SE_PENDING)
			ws_error(c, e, err, ref);
	} else if (!strcmp(type, "resign")) {
		json_t *jt = json_object_get(o, "token");
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = SE_MALFORMED;
		if (jt && !json_is_string(jt))
			snprintf(err, sizeof err, "token must be a string");
		else
			e = tables_resign(t, jt ? json_string_value(jt) : c->token, &origin, err,
			                  sizeof err);
		if (e != SE_PENDING)
			ws_error(c, e, err, ref);
	} else if (!strcmp(type, "undo")) {
		int uw;
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = undo_request(t, o, c->token, c->addr, &origin, err, sizeof err, &uw);
		if (e != SE_PENDING)
			ws_error_wait(c, e, err, ref, uw);
	} else if (!strcmp(type, "chat")) {
		int cw;
		srv_err e = chat_say(t, &c->cl, c->serial, c->addr, o, err, sizeof err, &cw);
		if (e != SE_PENDING)
			ws_error_wait(c, e, err, ref, cw);
	} else if (!strcmp(type, "rematch")) {
		json_t *jt = json_object_get(o, "token");
		int rw = 0;
		srv_origin origin = {c->serial, 0, ref, 0};
		srv_err e = jt && !json_is_string(jt) ? SE_MALFORMED
		            : rematch_request(t, jt ? json_string_value(jt) : c->token, c->addr, &origin,
		                              err, sizeof err, &rw);
		if (e == SE_MALFORMED)
			snprintf(err, sizeof err, "token must be a string");
		if (e != SE_PENDING)
			ws_error_wait(c, e, err, ref, rw);
	} else if (!strcmp(type, "window")) {
		/* which window holds the seat's controls (windows.h) */
		json_t *jw = json_object_get(o, "window"), *jk = json_object_get(o, "take");
		int ww = 0;
		srv_err e = jk && !json_is_boolean(jk) ? SE_MALFORMED
		            : windows_hello(t, &c->cl, c->serial, json_string_value(jw),
		                            json_is_true(jk), err, sizeof err, &ww);
		if (e == SE_MALFORMED && jk && !json_is_boolean(jk))
			snprintf(err, sizeof err, "\"take\" must be true or false");
		if (e != SE_OK)
			ws_error_wait(c, e, err, ref, ww);
	} else if (!strcmp(type, "state")) {
		send_state(c);
	} else if (!strcmp(type, "ping")) {
		json_t *r = json_pack("{s:s}", "type", "pong");
		if (ref)
			json_object_set(r, "ref", ref);
		char *s = json_dumps(r, JSON_COMPACT);
		json_decref(r);
		net_send_text(c, s);
		free(s);
	} else {
		snprintf(err, sizeof err, "unknown message type '%.40s' (known: move, join, auth, state, "
		         "resign, undo, chat, rematch, window, ping)",
		         type);
		ws_error(c, SE_UNKNOWN_TYPE, err, ref);
	}
	json_decref(o);
}

/* ---- answers after the store ------------------------------------------------------- */

void api_join_done(const srv_origin *o, srv_table *t, int seat, const char *token, srv_err e,
                   const char *err)
{
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		if (e != SE_OK) {
			reply_error(&rs, e, err);
		} else {
			set_seat_cookie(&rs, t->id, token, 0);
			reply_json(&rs, 200, json_pack("{s:s, s:i, s:s, s:o}", "id", t->id, "seat", seat,
			                               "token", token, "table", tables_info(t)));
		}
		net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, rs.set_cookie, NULL);
		return;
	}
	srv_conn *c = net_conn_find(o->conn);
	if (!c || c->cl.table != t)
		return;
	if (e != SE_OK) {
		ws_error(c, e, err, o->ref);
		return;
	}
	snprintf(c->token, sizeof c->token, "%s", token);
	c->cl.seat = seat;
	json_t *r = json_pack("{s:s, s:i, s:s}", "type", "joined", "seat", seat, "token", token);
	if (o->ref)
		json_object_set(r, "ref", o->ref);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	net_send_text(c, s);
	free(s);
	send_state(c);
	tables_conn_changed(t);
}

void api_move_done(const srv_origin *o, srv_table *t, srv_err e, const char *err)
{
	if (!o->conn)
		return;
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		if (e != SE_OK) {
			reply_error(&rs, e, err);
		} else {
			char *next = tables_turn_text(t);
			srv_sb b;
			sb_init(&b);
			sb_adds(&b, "{\"ok\":true,\"entry\":");
			sb_adds(&b, t->log[t->nlog - 1]);
			sb_adds(&b, ",\"next\":");
			sb_adds(&b, next);
			json_t *cj = clock_json(t);
			char *cs = json_dumps(cj, JSON_COMPACT | JSON_PRESERVE_ORDER);
			json_decref(cj);
			sb_adds(&b, ",\"clock\":");
			sb_adds(&b, cs ? cs : "null");
			free(cs);
			sb_adds(&b, "}");
			free(next);
			reply_text(&rs, 200, sb_take(&b));
		}
		net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, NULL, NULL);
		return;
	}
	srv_conn *c = net_conn_find(o->conn);
	if (c && e != SE_OK)
		ws_error(c, e, err, o->ref);
}

void api_undo_done(const srv_origin *o, srv_table *t, int undone, srv_err e, const char *err)
{
	if (!o->conn)
		return;
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		if (e != SE_OK)
			reply_error(&rs, e, err);
		else
			reply_json(&rs, 200, json_pack("{s:b, s:i, s:i, s:i}", "ok", 1, "undone", undone,
			                               "turn", t->game.nturns, "undos", t->undos));
		net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, NULL, NULL);
		return;
	}
	srv_conn *c = net_conn_find(o->conn);
	if (c && e != SE_OK)
		ws_error(c, e, err, o->ref); /* done: the table's "undone" says so */
}

void api_resign_done(const srv_origin *o, srv_table *t, int seat, srv_err e, const char *err)
{
	if (!o->conn)
		return;
	if (o->http) {
		api_resp rs;
		memset(&rs, 0, sizeof rs);
		if (e != SE_OK)
			reply_error(&rs, e, err);
		else
			reply_json(&rs, 200, json_pack("{s:b, s:i, s:o}", "ok", 1, "seat", seat, "table",
			                               tables_info(t)));
		net_http_answer(o->conn, rs.status, rs.ctype, rs.body, rs.body_len, NULL, NULL);
		return;
	}
	srv_conn *c = net_conn_find(o->conn);
	if (!c)
		return;
	if (e != SE_OK) {
		ws_error(c, e, err, o->ref);
		return;
	}
	json_t *r = json_pack("{s:s, s:i}", "type", "resigned", "seat", seat);
	if (o->ref)
		json_object_set(r, "ref", o->ref);
	char *s = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	net_send_text(c, s);
	free(s);
}
