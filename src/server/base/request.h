/*
 * request.h - an HTTP request as the transport hands it up (net.c to
 * api.c, api.c to the accounts' endpoints) and the answer that goes back:
 * plain data, no library types, so every layer that answers HTTP can take
 * them without seeing the transport.
 */
#ifndef CARC_SERVER_REQUEST_H
#define CARC_SERVER_REQUEST_H

#include <stddef.h>
#include <stdint.h>

/* Where a request says it comes from (net.c reads Origin, else
 * Sec-Fetch-Site): what api.c checks on state-changing requests. */
enum {
	REQ_SITE_UNSAID = 0, /* neither header: not a browser (a script, a bot) */
	REQ_SITE_OWN,        /* the server's own origin, an --allow-origin, or a
	                      * Sec-Fetch-Site that is not cross-site */
	REQ_SITE_OTHER       /* another site's page */
};

typedef struct api_req {
	uint64_t serial;         /* the request's serial (net.c), for late answers */
	int method;              /* LWSHUMETH_GET, LWSHUMETH_POST, ... */
	const char *path;        /* without the query */
	const char *query;       /* "a=1&b=2" or "" */
	const char *body;
	size_t body_len;
	int body_too_large;
	const char *token;       /* from Authorization: Bearer or X-Carc-Token, or "" */
	const char *cookie;      /* the Cookie header, or "" */
	const char *addr;        /* the client's address, for per-address limits */
	int tls;                 /* came over TLS (as far as the server can tell) */
	int site;                /* REQ_SITE_... */
	const char *origin;      /* the Origin header (for messages), or "" */
	const char *ctype;       /* the Content-Type header, or "" */
	int local;               /* the client is on loopback (its own address, and
	                          * the one a proxy names, if any) */
	int monitor;             /* came on the --metrics-listen listener */
	const char *if_none_match; /* the If-None-Match header, or "" */
} api_req;

typedef struct api_resp {
	int status;              /* 0: answered later (net_http_answer) */
	const char *ctype;
	char *body;              /* malloc'd; net.c frees it */
	size_t body_len;
	char set_cookie[200];    /* "" or a Set-Cookie value */
	char disposition[128];   /* "" or a Content-Disposition value */
	int retry_after;         /* > 0: sent as Retry-After (seconds), e.g. with 429 */
	char etag[40];           /* "" or an ETag: the answer may be cached and asked
	                          * again with If-None-Match (Cache-Control: no-cache,
	                          * not no-store) */
} api_resp;

/* The value of query key `key` of the query string q (URL-decoded: `+` and
 * %XX) into buf (size bytes, cut to fit): 1, or 0 when absent (util.c). */
int srv_query_get(const char *q, const char *key, char *buf, size_t size);

#endif
