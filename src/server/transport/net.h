/*
 * net.h - the transport: connections, their output queues and broadcast.
 *
 * An outgoing WebSocket message is built once (srv_msg, reference
 * counted) and queued to every connection that gets it; each connection
 * sends from its own queue when its socket can take more, so a slow client
 * only grows its own queue. A queue over the limit (srv_config.max_queue)
 * drops that client; it can reconnect and get the full state again. The
 * memory all queues hold together (each message counted once, however many
 * queues share it) has a limit too (srv_config.max_queue_total): over it
 * the client with the largest queue is dropped, until the new message fits.
 */
#ifndef CARC_SERVER_NET_H
#define CARC_SERVER_NET_H

#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "store.h"
#include "tables.h"

struct srv_table;

typedef struct srv_msg {
	int refs;
	int qrefs;            /* queues holding it: counted once in the total queued */
	size_t len;
	unsigned char data[]; /* LWS_PRE bytes of room, then len bytes of text */
} srv_msg;

typedef struct srv_qnode {
	srv_msg *m;
	struct srv_qnode *next;
} srv_qnode;

typedef enum { CONN_NONE = 0, CONN_HTTP, CONN_WS } conn_kind;

struct srv_conn {
	struct lws *wsi;
	conn_kind kind;
	uint64_t serial;             /* this request's / connection's number, 0: none */
	char addr[64];               /* the peer's address ("127.0.0.1", "::1") */
	struct srv_conn *snext;      /* serial hash chain */
	/* HTTP */
	int method;                  /* LWSHUMETH_* */
	char path[256];
	srv_sb body;
	int body_over;               /* the body is over the limit */
	int body_pending;            /* a body is announced and not yet all read */
	int close_after;             /* close the connection once the answer is out */
	int answered;
	char *resp;                  /* the response body */
	size_t resp_len, resp_off;
	int hdr_pending;             /* the headers are still to be written */
	int resp_status;
	const char *resp_ctype;
	char resp_cookie[512]; /* Set-Cookie values, '\n' between two */
	char resp_disp[128];
	int resp_retry_after;        /* > 0: a Retry-After header, in seconds */
	char resp_etag[40];          /* "" or the answer's ETag (api_resp.etag) */
	/* WebSocket */
	srv_client cl;               /* its table and seat, as the table sees them */
	char token[STORE_TOKEN_SIZE];
	srv_qnode *qh, *qt;
	size_t qbytes, qoff;
	int qfirst;                  /* 1: the head message's first fragment is next */
	char *rx;
	size_t rxlen;
	int rx_over;
	int closing;                 /* close once the queue is empty */
	int dropped;                 /* being killed: send nothing more */
	struct srv_conn *anext, *aprev; /* every WebSocket connection (net_ws.c) */
};
typedef struct srv_conn srv_conn;

/* The connection that holds the table's client cl. */
static inline srv_conn *net_conn_of(srv_client *cl)
{
	return lws_container_of(cl, srv_conn, cl);
}

/* A message with one reference, owned by the caller until handed on. */
srv_msg *net_msg(const char *text, size_t len);
void net_msg_unref(srv_msg *m);
/* Queues m on c (takes its own reference; the caller keeps its own). */
void net_send(srv_conn *c, srv_msg *m);
void net_send_text(srv_conn *c, const char *text);
/* Sends the text to every client at the table. */
void net_broadcast(struct srv_table *t, const char *text, size_t len);
/* The same to the clients at the table whose `hide` is 0 (chat.c). */
void net_broadcast_shown(struct srv_table *t, const char *text, size_t len);
/* Closes c once what is queued has been sent. */
void net_close_after_flush(srv_conn *c);
/* The connection with this serial, or NULL once it is gone (or, for HTTP,
 * once that request has been answered). */
srv_conn *net_conn_find(uint64_t serial);
/* Answers the HTTP request `serial` that waited (api_resp.status 0). Takes
 * the body (malloc'd); dropped if the client has gone. */
void net_http_answer(uint64_t serial, int status, const char *ctype, char *body, size_t len,
                     const char *cookie, const char *disposition);

#endif
