/*
 * api_tables.c - the routes of tables as a whole: GET /api/tables (the
 * tables in memory by status, or the finished games a page at a time),
 * POST /api/tables (a new table, within the address's budget of new
 * tables and of open tables) and POST /api/records (an uploaded record
 * shown as a view table, within the upload budgets). The answer to a new
 * table or a record comes once the store has it (api_done.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "api_internal.h"
#include "options.h"
#include "ratelimit.h"
#include "tables.h"

#define FINISHED_PAGE 20
#define FINISHED_PAGE_MAX 100

/* GET /api/tables: tables in memory by status, or finished games from the
 * store a page at a time (status=over, limit, before). */
void api_get_tables(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	char sv[16], v[64];
	const char *st = srv_query_get(rq->query, "status", sv, sizeof sv) ? sv : "open";
	int over = !strcmp(st, "over");
	int which = !strcmp(st, "open") ? 0 : !strcmp(st, "playing") ? 1 : !strcmp(st, "all") ? 2
	            : -1;
	if (!over && which < 0) {
		api_reply_error(rs, SE_MALFORMED, "status must be open, playing, over or all");
		return;
	}
	int limit = over ? FINISHED_PAGE : cfg->list_max, most = over ? FINISHED_PAGE_MAX
	                                                                : cfg->list_max;
	if (srv_query_get(rq->query, "limit", v, sizeof v)) {
		char *end;
		long n = strtol(v, &end, 10);
		if (!v[0] || *end || v[0] == '-' || v[0] == '+' || n < 1 || n > most) {
			char msg[96];
			snprintf(msg, sizeof msg, "limit must be a number from 1 to %d", most);
			api_reply_error(rs, SE_MALFORMED, msg);
			return;
		}
		limit = (int)n;
	}
	if (!over) {
		char cur[64], err[160];
		int has = srv_query_get(rq->query, "before", cur, sizeof cur);
		json_t *o = tables_list(which, has ? cur : NULL, limit, err, sizeof err);
		if (!o)
			api_reply_error(rs, SE_MALFORMED, err);
		else
			api_reply(rs, 200, o);
		return;
	}
	char before[STORE_ID_SIZE];
	int has_before = srv_query_get(rq->query, "before", v, sizeof v);
	if (has_before) {
		size_t n = strlen(v);
		if (n == 0 || n >= sizeof before || strspn(v, "0123456789abcdef") != n) {
			api_reply_error(rs, SE_MALFORMED, "before must be a table id (the last id of the "
			                                  "previous page, as next_before gives it)");
			return;
		}
		memcpy(before, v, n + 1);
	}
	srv_err code;
	char err[STORE_ERR_SIZE + 64];
	json_t *o = tables_finished(has_before ? before : NULL, limit, &code, err, sizeof err);
	if (!o)
		api_reply_error(rs, code, err);
	else
		api_reply(rs, 200, o);
}

void api_post_tables(const srv_config *cfg, const api_req *rq, api_resp *rs)
{
	char lerr[256];
	int wait = lim_take(rq->addr, LIM_TABLES, lerr, sizeof lerr);
	if (wait) {
		api_reply_limited(rs, wait, lerr);
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
		api_reply_limited(rs, wait, lerr);
		return;
	}
	json_t *o = api_parse_body(rq, rs, 0);
	if (!o)
		return;
	const char *name = json_string_value(json_object_get(o, "name"));
	if (json_object_get(o, "name") && !name) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "name must be a string");
		return;
	}
	srv_table_opts opts;
	char err[512];
	if (opt_parse(o, cfg->bot_delay_ms, &opts, err, sizeof err)) {
		json_decref(o);
		api_reply_error(rs, SE_BAD_OPTION, err);
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
		api_reply_limited(rs, 60, err);
	else if (!t)
		api_reply_error(rs, code, err);
	/* else api_create_done answers */
}

void api_post_record(const api_req *rq, api_resp *rs)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the record is over the size limit");
		return;
	}
	char err[600];
	int wait = lim_take(rq->addr, LIM_UPLOADS, err, sizeof err);
	if (!wait)
		wait = lim_uploads_reserve(rq->body_len, err, sizeof err);
	if (wait) {
		api_reply_limited(rs, wait, err);
		return;
	}
	srv_err code;
	srv_origin origin = {rq->serial, 1, NULL, 0};
	srv_table *t = tables_create_view(rq->body ? rq->body : "", rq->body_len, &origin, &code,
	                                  err, sizeof err);
	if (!t) {
		lim_uploads_release(rq->body_len);
		api_reply_error(rs, code, err);
	}
}
