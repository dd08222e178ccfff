/*
 * writer.h - the storage thread. Every write to the store goes through it,
 * in the order submitted, so the event loop never waits for the disk: the
 * loop submits a job and goes on serving everyone else; when the job is
 * committed the loop is woken (lws_cancel_service) and runs the job's
 * `done` callback, which is where a move is announced. "Stored before it
 * is announced" holds by construction.
 *
 * Jobs waiting together are written in one transaction, each in a
 * savepoint, and handed back only after its COMMIT (group commit: see
 * writer.c); a job's failure undoes that job alone.
 *
 * No failed write is dropped: the job comes back with `failed`, the fault
 * (store_fault_text, for the client) and the details (err, for the log),
 * and its `done` refuses what was asked with nothing changed. The writer
 * also keeps the storage's health: after a failed write it counts the
 * database as faulty until a write works again; while faulty and idle it
 * probes (a write that changes nothing) every WRITER_PROBE_MS, so health
 * recovers without a client having to write.
 */
#ifndef CARC_SERVER_WRITER_H
#define CARC_SERVER_WRITER_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdint.h>

#include "store.h"

/* WJ_CALL: a write of another room (accounts.c): `call` runs on the
 * storage thread with the writer's store handle, its data in `data`
 * (malloc'd, freed with the job: no pointers inside that need freeing). */
typedef enum { WJ_CREATE, WJ_SEAT, WJ_STATUS, WJ_MOVE, WJ_DELETE, WJ_CLOCK, WJ_CALL, WJ_CHAT, WJ_REMATCH,
               WJ_UNDO } wj_kind;

typedef struct wjob {
	wj_kind kind;
	char id[STORE_ID_SIZE];
	store_game game;      /* CREATE: expansions, options, record owned by the job */
	store_seat seat;      /* SEAT */
	int status;           /* STATUS */
	int64_t at_ms;        /* STATUS */
	store_move move;      /* MOVE: entry owned by the job */
	int has_result;
	store_result result;  /* MOVE, CLOCK: strings owned by the job */
	store_clock clock;    /* CLOCK: state owned by the job */
	/* CREATE, SEAT: the seat's new token, to hand to the client once the
	 * seat is stored (memory keeps only its hash); wiped when freed */
	char token[STORE_TOKEN_SIZE];
	/* CHAT: the line (text owned by the job); REMATCH: game as CREATE,
	 * old_id the finished game that remembers it */
	store_chat chat;
	char old_id[STORE_ID_SIZE];
	/* UNDO (undo.c): the moves the store holds, those that stay, and how
	 * many of the seat's own were taken back; at_ms the time */
	int undo_have, undo_keep, undo_count;
	/* CREATE of a pass-and-play table: every human seat's new token
	 * ("" for the others), wiped when freed */
	char tokens[8][STORE_TOKEN_SIZE];
	/* set by the writer */
	int64_t seq;          /* the table's sequence number this write gave it (0: none);
	                       * REMATCH: the new table's, old_seq the old one's */
	int64_t old_seq;
	int failed;
	int conflict;         /* failed with STORE_CONFLICT: another server process
	                       * changed the game first (not a fault) */
	store_fault fault;    /* why it failed (for the client) */
	char err[STORE_ERR_SIZE]; /* details (for the log only) */
	int64_t us;           /* the write's time, its group's COMMIT included */
	int order;            /* its place in its group (the storage thread)  */
	/* for the loop: who is waiting and what to do after */
	void (*done)(struct wjob *j);
	void *tag;            /* the table */
	uint64_t origin;      /* serial of the connection waiting, 0: none */
	int origin_http;
	json_t *ref;          /* a WebSocket message's "ref" to echo (owned) */
	int seatno;
	int (*call)(store *st, struct wjob *j); /* WJ_CALL: 0 or -1 (err, fault set) */
	void *data;           /* WJ_CALL */
	int rc;               /* WJ_CALL: what call returned */
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
/* A hook the layer above installs (tables.c): called on the loop thread
 * for every job drained, before its `done`, so that the table's stream
 * learns the sequence number of each committed change in one place. */
void writer_on_drain(void (*fn)(wjob *j));
/* Jobs submitted and not yet drained. */
int writer_backlog(void);

#define WRITER_PROBE_MS 1000

/* Group commit (writer.c): the jobs waiting when the thread wakes are
 * written in one transaction, at most WRITER_GROUP_MAX of them and about
 * WRITER_GROUP_BYTES of their text (a single larger job goes alone). */
#define WRITER_GROUP_MAX 64
#define WRITER_GROUP_BYTES (1024 * 1024)

/* The storage as the health endpoint reports it. */
typedef struct writer_health {
	int ok;                 /* writes work (as far as is known) */
	store_fault fault;      /* when not ok */
	int64_t since_ms;       /* when it stopped working (0: ok) */
	int64_t failed_writes;  /* writes refused since the start */
} writer_health;

/* Loop thread (any thread): the state of the last writes, and a check of
 * the database file done now (store_ops.check), so a file deleted or made
 * read-only shows even when nobody writes. */
void writer_health_get(writer_health *h);
/* Whether the last write (or probe) worked: cheap, no check of the file. */
int writer_ok(void);

#endif
