/*
 * reply.c - JSON answers to HTTP requests and the error body (reply.h).
 */
#include <string.h>

#include "reply.h"

json_t *api_error_json(srv_err e, const char *msg)
{
	return json_pack("{s:{s:s, s:s}}", "error", "code", srv_err_name(e), "message", msg);
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
