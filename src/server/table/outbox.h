/*
 * outbox.h - the one way out of the table domain: what tables, chat and
 * rematches have to tell the layers above them (send to the clients at a
 * table or to one connection, let a connection go, answer a request whose
 * store write has ended). The API layer fills it in and installs it at
 * start (api_start), before tables_start; nothing in table/ calls the
 * transport or the API by name. Everything runs on the event-loop thread.
 */
#ifndef CARC_SERVER_OUTBOX_H
#define CARC_SERVER_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

#include "tables.h"

typedef struct srv_outbox {
	/* Sends the text (len bytes) to every client at the table. */
	void (*broadcast)(srv_table *t, const char *text, size_t len);
	/* Sends the text to every client at the table whose `hide` is 0. */
	void (*broadcast_shown)(srv_table *t, const char *text, size_t len);
	/* Sends the text to the connection with serial `conn`; nothing when it
	 * has gone. */
	void (*send_text)(uint64_t conn, const char *text);
	/* Closes client c's connection once what is queued has been sent (the
	 * caller has taken c off its table). */
	void (*close_after_flush)(srv_client *c);
	/* The store replaced the token of the seat client c held (a password
	 * change, a recovery, a deletion: sync.c), and c->seat is -1 now: the
	 * connection forgets its token, is told (bad_token) and is sent the
	 * table as a spectator sees it. */
	void (*seat_revoked)(srv_client *c);
	/* Answers to requests that waited for the storage thread, with the
	 * arguments of api.h's api_*_done (t is NULL when the table could not
	 * be made). */
	void (*move_done)(const srv_origin *o, srv_table *t, srv_err e, const char *err);
	void (*resign_done)(const srv_origin *o, srv_table *t, int seat, srv_err e,
	                    const char *err);
	void (*join_done)(const srv_origin *o, srv_table *t, int seat, const char *token, srv_err e,
	                  const char *err);
	void (*create_done)(const srv_origin *o, srv_table *t, int seat, const char *token,
	                    const char (*tokens)[STORE_TOKEN_SIZE], srv_err e, const char *err);
	/* undo.c: `undone` moves of the seat's were taken back */
	void (*undo_done)(const srv_origin *o, srv_table *t, int undone, srv_err e, const char *err);
	void (*rematch_done)(const srv_origin *o, srv_table *old, srv_table *nt, int seat,
	                     const char *token, srv_err e, const char *err);
} srv_outbox;

/* Installs the outbox (borrowed for the server's life; every member set). */
void tables_outbox_set(const srv_outbox *ob);
/* The installed outbox, for the files of table/. */
const srv_outbox *tables_outbox(void);

#endif
