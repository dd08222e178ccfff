/*
 * writer.h - the storage thread. Every write to the store goes through it,
 * in the order submitted, so the event loop never waits for the disk: the
 * loop submits a job and goes on serving everyone else; when the job is
 * committed the loop is woken (lws_cancel_service) and runs the job's
 * `done` callback, which is where a move is announced. "Stored before it
 * is announced" holds by construction.
 */
#ifndef CARC_SERVER_WRITER_H
#define CARC_SERVER_WRITER_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdint.h>

#include "store.h"

typedef enum { WJ_CREATE, WJ_SEAT, WJ_STATUS, WJ_MOVE, WJ_DELETE } wj_kind;

typedef struct wjob {
	wj_kind kind;
	char id[STORE_ID_SIZE];
	store_game game;      /* CREATE: expansions, options, record owned by the job */
	store_seat seat;      /* SEAT */
	int status;           /* STATUS */
	int64_t at_ms;        /* STATUS */
	store_move move;      /* MOVE: entry owned by the job */
	int has_result;
	store_result result;  /* MOVE: strings owned by the job */
	/* set by the writer */
	int failed;
	char err[STORE_ERR_SIZE];
	/* for the loop: who is waiting and what to do after */
	void (*done)(struct wjob *j);
	void *tag;            /* the table */
	uint64_t origin;      /* serial of the connection waiting, 0: none */
	int origin_http;
	json_t *ref;          /* a WebSocket message's "ref" to echo (owned) */
	int seatno;
	struct wjob *next;
} wjob;

/* A zeroed job (the caller fills it in and submits it). */
wjob *writer_job(wj_kind kind, const char *id);
/* Starts the thread; it owns `st` from now on (closed by writer_stop). */
int writer_start(store *st, struct lws_context *ctx);
/* Hands a job over; it belongs to the writer until `done` has run. */
void writer_submit(wjob *j);
/* Loop thread: runs the `done` of every committed job and frees them. */
void writer_drain(void);
/* Writes every job still queued, stops the thread, closes the store. The
 * `done` callbacks of jobs finished after this are not run. */
void writer_stop(void);
/* Jobs submitted and not yet drained. */
int writer_backlog(void);

#endif
