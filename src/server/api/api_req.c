/*
 * api_req.c - reading an API request and the answers its routes share
 * (api_internal.h): a query's values, the seat token of a header or a
 * cookie, a JSON object (a body, a WebSocket message), a move's turn, a
 * join's seat, whether a private table is hidden from the asker; a text
 * answer, a 429 and a seat's cookie.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "api_internal.h"
#include "tables.h"

void api_reply_text(api_resp *rs, int status, char *text)
{
	rs->status = status;
	rs->ctype = "application/json";
	rs->body = text;
	rs->body_len = text ? strlen(text) : 0;
}

void api_reply_limited(api_resp *rs, int wait_s, const char *msg)
{
	api_reply_error(rs, SE_RATE_LIMITED, msg);
	rs->retry_after = wait_s;
}

/* A move's "turn" or "step": absent (-1), or an integer 0..the most a
 * game has (the engine's capacity: carc_limit), so that one past the end
 * is stale rather than malformed. Anything else is malformed. */
static int parse_number(const json_t *v, int *out, const char *what, int most, char *err,
                        size_t errsize)
{
	*out = -1;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > most) {
		snprintf(err, errsize, "%s must be an integer from 0 to %d (the %s the move is for)",
		         what, most, what);
		return -1;
	}
	*out = (int)json_integer_value(v);
	return 0;
}

int api_parse_turn(const json_t *v, int *turn, char *err, size_t errsize)
{
	return parse_number(v, turn, "turn", carc_limit(CARC_LIMIT_BOARD_TILES), err, errsize);
}

int api_parse_step(const json_t *v, int *step, char *err, size_t errsize)
{
	return parse_number(v, step, "step", carc_limit(CARC_LIMIT_STEPS), err, errsize);
}

void api_token_for(const char *id, const char *token, const char *cookie, char *out,
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

json_t *api_load_object(const char *text, size_t len, const char *what, char *msg,
                        size_t size)
{
	json_error_t je;
	json_t *o = json_loadb(text, len, 0, &je);
	if (!o || !json_is_object(o)) {
		snprintf(msg, size, "%s must be a JSON object%s%s", what, o ? "" : ": ", o ? "" : je.text);
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *api_parse_body(const api_req *rq, api_resp *rs, int need_object)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the request body is over the size limit");
		return NULL;
	}
	if (rq->body_len == 0 && !need_object)
		return json_object();
	char msg[256];
	json_t *o = api_load_object(rq->body ? rq->body : "", rq->body_len, "the body", msg,
	                            sizeof msg);
	if (!o)
		api_reply_error(rs, SE_MALFORMED, msg);
	return o;
}

/* A seat cookie: Strict, so that no request from another site carries it
 * (the Origin check stops those too). tls: marked Secure. */
void api_set_seat_cookie(api_resp *rs, const char *id, const char *token, int tls)
{
	snprintf(rs->set_cookie, sizeof rs->set_cookie,
	         "carc_%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000%s", id, token,
	         tls ? "; Secure" : "");
}

/* A private table (option "private") that has started is shown only to
 * its players: a seat's token (header or cookie), or the session of an
 * account holding a seat. To anyone else it is hidden (1): they are told
 * there is no such table. An open one is reached by its id, the
 * invitation, as before. */
int api_private_hidden(const srv_table *t, const char *token, const char *cookie)
{
	if (!t->opts.private_ || t->status == STORE_OPEN)
		return 0;
	char tok[STORE_TOKEN_SIZE * 2];
	api_token_for(t->id, token, cookie, tok, sizeof tok);
	int seated = tok[0] && tables_seat_of(t, tok) >= 0;
	explicit_bzero(tok, sizeof tok);
	store_account acc;
	if (!seated && accounts_session(cookie, &acc) == 1)
		seated = tables_seat_of_account(t, acc.id) >= 0;
	return !seated;
}

int api_seat_wanted(const json_t *js)
{
	if (!json_is_integer(js))
		return -1;
	json_int_t n = json_integer_value(js);
	return n < 0 || n > 99 ? 99 : (int)n;
}
