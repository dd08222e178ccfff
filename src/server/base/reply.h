/*
 * reply.h - a JSON answer to an HTTP request (api_resp, request.h), and
 * the error body every layer answers with: {"error": {"code", "message"}}
 * (docs/protocol.md, "Errors").
 */
#ifndef CARC_SERVER_REPLY_H
#define CARC_SERVER_REPLY_H

#include <jansson.h>

#include "errcode.h"
#include "request.h"

/* msg as a JSON string (a new reference): bytes of it that are not
 * UTF-8 (a client's, quoted) become '?' (srv_utf8_fix), so the answer is
 * never lost. */
json_t *api_json_text(const char *msg);
/* The error body of code e (a new reference). */
json_t *api_error_json(srv_err e, const char *msg);
/* Answers with o (taken) as compact JSON and the status. */
void api_reply(api_resp *rs, int status, json_t *o);
/* Answers with the error body of e and its HTTP status. */
void api_reply_error(api_resp *rs, srv_err e, const char *msg);

#endif
