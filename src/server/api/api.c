/*
 * api.c - the router of the HTTP API (docs/protocol.md): the hooks the
 * API installs below it at start, which paths are the API's, the check of
 * requests from other sites, and the dispatch of every path to its route.
 * The routes and the WebSocket are in the other api_*.c (api_internal.h
 * lists them); both paths reach the same functions of tables.c with the
 * same checks, so a script driving the HTTP API and a browser on the
 * WebSocket see the same rules and the same error codes.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "accounts.h"
#include "api_internal.h"
#include "friends.h"
#include "gamejson.h"
#include "match.h"
#include "options.h"
#include "outbox.h"
#include "ratelimit.h"
#include "recovery.h"
#include "tables.h"

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

static void out_seat_revoked(srv_client *cl)
{
	srv_conn *c = net_conn_of(cl);
	explicit_bzero(c->token, sizeof c->token);
	api_ws_error(c, SE_BAD_TOKEN, "the seat's token was replaced (its account's password was "
	             "changed, the account recovered or deleted): watching; the account's browsers "
	             "claim the seat again (POST /api/tables/<id>/claim)", NULL);
	api_ws_send_state(c);
}

static const srv_outbox outbox = {
	.broadcast = net_broadcast,
	.broadcast_shown = net_broadcast_shown,
	.send_text = out_send_text,
	.close_after_flush = out_close_after_flush,
	.seat_revoked = out_seat_revoked,
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

/* ---- answers made once: the engine's tiles and names ------------------------------------ */

/* The text and its ETag (a hash of the text, quoted): the same as long as
 * the engine is, so a browser asks again with If-None-Match and gets a
 * 304 without a body. */
typedef struct fixed_answer {
	char *text;
	char etag[24];
} fixed_answer;

static fixed_answer tiles_answer, vocabulary_answer;

static void fixed_make(fixed_answer *a, char *text)
{
	if (!text) {
		fprintf(stderr, "carc: out of memory writing the engine's JSON\n");
		abort(); /* the one OOM policy (srv_xmalloc's) */
	}
	free(a->text); /* a start after a stop (the fuzzers restart the server in one process) */
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (const char *p = text; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	a->text = text;
	snprintf(a->etag, sizeof a->etag, "\"%016llx\"", (unsigned long long)h);
}

/* Whether an If-None-Match header names etag (a list, or "*"). */
static int etag_matches(const char *inm, const char *etag)
{
	if (!inm || !*inm)
		return 0;
	if (!strcmp(inm, "*"))
		return 1;
	size_t n = strlen(etag);
	for (const char *p = inm; (p = strstr(p, etag)); p += n)
		if (p == inm || p[-1] == ' ' || p[-1] == ',' || p[-1] == '/')
			return 1;
	return 0;
}

static void reply_fixed(const api_req *rq, api_resp *rs, const fixed_answer *a)
{
	if (rq->method != LWSHUMETH_GET) {
		api_reply_error(rs, SE_METHOD, "GET only");
		return;
	}
	snprintf(rs->etag, sizeof rs->etag, "%s", a->etag);
	if (etag_matches(rq->if_none_match, a->etag)) {
		rs->status = 304; /* not modified: no body */
		rs->ctype = "application/json";
		return;
	}
	api_reply_text(rs, 200, srv_xstrdup(a->text));
}

void api_start(void)
{
	fixed_make(&tiles_answer, carc_tiles_json());
	fixed_make(&vocabulary_answer, carc_vocabulary_json());
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
		api_reply_error(rs, SE_BAD_ORIGIN, msg);
		return 1;
	}
	if (rq->site == REQ_SITE_UNSAID && has_carc_cookie(rq->cookie)) {
		api_reply_error(rs, SE_BAD_ORIGIN,
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
		api_reply_error(rs, SE_BAD_CONTENT_TYPE, msg);
		return 1;
	}
	return 0;
}

void api_http(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	memset(rs, 0, sizeof *rs);
	if (!strcmp(p, "/healthz") || !strcmp(p, "/api/health")) {
		/* never limited: monitoring must see the server under a flood, and
		 * a snapshot costs about what a 429 would */
		api_get_health(cfg, rs);
		return;
	}
	if (!strcmp(p, "/api/metrics")) {
		/* never limited: only this machine (or the metrics listener) reaches it */
		if (cfg->metrics_host ? !rq->monitor : !rq->local)
			api_reply_error(rs, SE_FORBIDDEN,
			                cfg->metrics_host
			                    ? "the metrics answer on their own listener only (--metrics-listen)"
			                    : "the metrics answer to clients on this machine only (loopback); "
			                      "for a scraper elsewhere start the server with --metrics-listen "
			                      "ADDR:PORT");
		else if (!get)
			api_reply_error(rs, SE_METHOD, "GET only");
		else
			api_get_metrics(rs);
		return;
	}
	char lerr[256];
	int wait = lim_take(rq->addr, LIM_REQUESTS, lerr, sizeof lerr);
	if (wait) {
		api_reply_limited(rs, wait, lerr);
	} else if (cross_site_refused(rq, rs)) {
		/* answered: bad_origin or bad_content_type */
	} else if (!strcmp(p, "/api/tiles")) {
		reply_fixed(rq, rs, &tiles_answer);
	} else if (!strcmp(p, "/api/vocabulary")) {
		reply_fixed(rq, rs, &vocabulary_answer);
	} else if (!strcmp(p, "/api/options")) {
		/* and what makes a finished game rated: the moves of its own each seat
		 * must have made (--rated-min-moves), which the quick match promises */
		json_t *o = opt_choices_json();
		json_object_set_new(o, "rated_min_moves", json_integer(cfg->rated_min_moves));
		api_reply(rs, 200, o);
	} else if (!strcmp(p, "/api/tables") || !strcmp(p, "/api/tables/")) {
		if (post) {
			api_post_tables(cfg, rq, rs);
		} else if (get) {
			api_get_tables(cfg, rq, rs);
		} else {
			api_reply_error(rs, SE_METHOD, "GET or POST");
		}
	} else if (!strncmp(p, "/api/tables/", 12)) {
		api_table_route(rq, rs, p + 12);
	} else if (friends_http(rq, rs)) {
		/* friends.c: /api/friends, /api/friends/... */
	} else if (match_http(cfg, rq, rs)) {
		/* match.c: /api/match, /api/match/leave (quick match) */
	} else if (accounts_http(rq, rs)) {
		/* accounts.c: /api/account/..., /api/me..., /api/leaderboard, /api/player */
	} else if (!strcmp(p, "/api/records")) {
		if (post)
			api_post_record(rq, rs);
		else
			api_reply_error(rs, SE_METHOD, "POST only");
	} else {
		api_reply_error(rs, SE_NOT_FOUND, "no such endpoint");
	}
}
