/*
 * reply.c - JSON answers to HTTP requests and the error body (reply.h).
 */
#include <string.h>

#include "reply.h"
#include "server.h"

json_t *api_json_text(const char *msg)
{
	/* a message that quotes a client's bytes may not be UTF-8: jansson
	 * refuses it, and the answer would have no body */
	json_t *m = json_string(msg);
	if (!m) {
		char fixed[1024];
		srv_utf8_fix(msg, fixed, sizeof fixed);
		m = json_string(fixed);
	}
	return m ? m : json_string("");
}

json_t *api_error_json(srv_err e, const char *msg)
{
	return json_pack("{s:{s:s, s:o}}", "error", "code", srv_err_name(e), "message",
	                 api_json_text(msg));
}

void api_reply(api_resp *rs, int status, json_t *o)
{
	rs->status = status;
	rs->ctype = "application/json";
	rs->body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	rs->body_len = rs->body ? strlen(rs->body) : 0;
	json_decref(o);
}

void api_reply_error(api_resp *rs, srv_err e, const char *msg)
{
	api_reply(rs, srv_err_http_status(e), api_error_json(e, msg));
}
