/*
 * tables.h - tables, seats and the games on them. Every change to a game
 * on the server goes through tables_move(): check the seat's token and the
 * turn and step, let the engine check and apply the move (the decision of
 * the current step, whatever its kind) on a copy, store the move
 * (one transaction), only then make the copy the table's game and announce
 * the move. A failure at any step leaves the table as it was. The
 * functions are in tables.c and the files cut from it by concern (seats.c,
 * create.c, moves.c, botpace.c, views.c, sync.c; tables_internal.h).
 *
 * The store write is done by the storage thread (writer.c): a request that
 * writes (a move, a join, a new table) answers SE_PENDING, and the answer
 * goes out through the outbox (outbox.h: the api_*_done of api_done.c) once
 * the write is committed. Everything here runs on the event-loop thread (see server.h).
 */
#ifndef CARC_SERVER_TABLES_H
#define CARC_SERVER_TABLES_H

#include <jansson.h>
#include <libwebsockets.h>

#include "carc.h"
#include "clock.h"
#include "errcode.h"
#include "ratelimit.h"
#include "options.h"
#include "server.h"
#include "store.h"
#include "writer.h"


/* Who waits for the answer to a request: a connection's serial (net.c),
 * whether it is an HTTP request, and the WebSocket message's "ref". */
typedef struct srv_origin {
	uint64_t conn;
	int http;
	json_t *ref;   /* borrowed */
	int64_t account; /* the requester's account (a session), 0: a guest */
} srv_origin;

typedef struct srv_pending_move srv_pending_move;

/* A WebSocket client at a table, as the table sees it. The transport's
 * connection holds one (srv_conn.cl, net.h); the API links it into its
 * table's list (t->conns) and out again. */
typedef struct srv_client {
	struct srv_table *table;     /* the table it is at, NULL: none */
	int seat;                    /* seat held (-1: watching) */
	int64_t account;             /* the account of its session (0: a guest), for blocks */
	int hide;                    /* chat.c: not to be sent the line being shown */
	double chat_tokens;          /* chat.c: this connection's chat allowance */
	int64_t chat_us;             /* when it was last filled (0: never) */
	double view_tokens;          /* foresee.c: this connection's previews and views */
	int64_t view_us;             /* when it was last filled (0: never) */
	struct srv_client *tnext, *tprev;
} srv_client;

typedef struct srv_seat {
	int kind;                        /* STORE_SEAT_* */
	char name[STORE_NAME_SIZE];
	char level[STORE_NAME_SIZE];
	char spec[STORE_SPEC_SIZE];
	char token_hash[STORE_TOKEN_HASH_SIZE]; /* SHA-256 of the seat's token (hex): the
	                                 * token itself is handed to the client and
	                                 * not kept */
	int colour;                      /* palette index (options.h), one per seat */
	int online;                      /* WebSocket connections holding the seat */
	int pending;                     /* taken, being stored: not usable yet */
	int forfeited;                   /* resigned or taken over by a bot for good:
	                                  * a loss for the ratings */
	int64_t account;                 /* the account holding the seat, 0: a guest */
	/* windows.c: the browser window holding the seat's controls ("" none),
	 * valid when win_known; the seat's budget of takes */
	char window[STORE_WINDOW_SIZE];
	int win_known;
	double win_tokens;
	int64_t win_us;
} srv_seat;

/* A seat of a rematch kept for the person who held seat i of the old
 * game: kind human, token_hash SRV_RESERVED_PREFIX + the first 62 hex
 * digits of the old seat's token hash (never a token's hash: no token
 * holds it) until they claim it (rematch.c). SRV_RESERVED_PREFIX is in
 * store.h: the store's queries know it too. */
int tables_seat_reserved(const srv_seat *s);

struct chat_table;

typedef struct srv_table {
	char id[STORE_ID_SIZE];
	int status;                      /* STORE_OPEN .. STORE_VIEW */
	srv_table_opts opts;
	int nseats;
	srv_seat seat[CARC_MAX_PLAYERS];
	carc_game *game;                 /* the engine's game (tables own it) */
	int nlog, log_cap;
	char **log;                      /* log entry texts, one per step */
	int64_t created_ms, updated_ms;
	int64_t idle_since_us;           /* when the last watcher left */
	char owner[LIM_KEY_SIZE];        /* the creator's address key ("": not known) */
	/* quick match (match.c): the address key each person joined from;
	 * the table counts against each of them (tables_held_by) as it does
	 * against its owner. "" for other tables and after a load */
	char seat_addr[CARC_MAX_PLAYERS][LIM_KEY_SIZE];
	int expired;                     /* open too long: being removed, not found any more */
	srv_client *conns;               /* WebSocket clients at this table */
	int nconns;
	lws_sorted_usec_list_t bot_sul;  /* the bot's pause */
	lws_sorted_usec_list_t roster_sul; /* a "table" message about comings and goings */
	int roster_pending;
	int bot_state;                   /* 0 idle, 1 pausing, 2 thinking */
	int bot_step;                    /* the step the bot works on */
	int stored;                      /* the store has the table */
	int pending_ops;                 /* jobs of the storage thread about it */
	srv_pending_move *pm;            /* a move being stored */
	srv_clock clock;                 /* time control, timeouts, resignations (clock.c) */
	struct chat_table *chat;         /* chat and rematch state (chat.c), NULL: none yet */
	/* several processes (cluster.c): another process changed the table
	 * and this one has not loaded it yet (it does when the table is asked
	 * for); cl_want: moves the store is known to hold */
	int cl_stale, cl_want;
	/* the table's stream (store.h): the number of the latest change
	 * applied here; a later one is loaded (tables_sync) in order */
	int64_t seq;
	lws_sorted_usec_list_t sync_sul; /* a load after a gap in the stream */
	/* training against bots (undo.c): moves taken back so far (as the
	 * store counts them: another process's count that differs means a
	 * reload), an undo being stored, a bot answer to drop, a reload
	 * wanted or running (its moves are not announced one by one), and the
	 * table's undo allowance (--undo-table-rate) */
	int undos, undo_busy, bot_discard, undo_reload, undo_reloading;
	double undo_tokens;
	int64_t undo_us;
	struct srv_table *hnext;         /* id hash chain */
	struct srv_table *prev, *next;   /* list of all tables in memory */
} srv_table;

/* Starts the tables: loads every unfinished game from the store and
 * resumes the bots. The store and context are borrowed for the server's
 * life. Returns 0, or -1 after logging why. */
int tables_start(const srv_config *cfg, store *reader, struct lws_context *ctx);
/* Cancels the tables' timers (before the lws context goes), then frees
 * every table (after the bot threads and the context have stopped). */
void tables_stop_timers(void);
void tables_stop(void);

/* A table by id, loading a finished game from the store if need be; NULL
 * when there is none. The table belongs to the module. */
srv_table *tables_find(const char *id);

/* Creates a table from checked options, seating the creator when `name` is
 * not NULL. *code is SE_PENDING (api_create_done answers) or an error. */
srv_table *tables_create(const srv_table_opts *o, const char *name, const char *owner,
                         const srv_origin *origin, srv_err *code, char *err, size_t errsize);
/* How many open tables `owner` (an address key, lim_key) has made, and
 * when the oldest of them was made (ms since the epoch). */
int tables_open_of(const char *owner, int64_t *oldest_ms);
/* Whether address key `addr` ("": none) or account `account` (0: none)
 * holds its share of the tables in memory (--max-tables-share percent of
 * --max-tables, at least one): the tables it made or where quick match
 * seated it (an address), the tables it sits at (an account), each open
 * or being played and needing its place here. 1 with the refusal in err,
 * or 0. */
int tables_share_full(const char *addr, int64_t account, char *err, size_t errsize);
/* Whether `owner` holds --max-open-tables open tables (rematches made from
 * its address count like any table): the seconds to wait (Retry-After),
 * with the refusal in err, or 0 when it may make one more. */
int tables_open_full(const char *owner, char *err, size_t errsize);
/* Whether `name` may name a seat or a spectator: 1..max_bytes bytes of
 * UTF-8 without control, format (Cf) or line-separator characters (seats.c). */
int tables_name_ok(const char *name, size_t max_bytes);
/* Creates a view-only table from an uploaded record (the same way). */
srv_table *tables_create_view(const char *record, size_t len, const srv_origin *origin,
                              srv_err *code, char *err, size_t errsize);

/* Takes seat `want` (-1: the first open one) for a person called `name`:
 * SE_PENDING (api_join_done answers with the seat and token) or an error. */
srv_err tables_join(srv_table *t, const char *name, int want, const srv_origin *o, char *err,
                    size_t errsize);
/* The seat a token holds at the table, or -1 (the token is hashed and
 * compared with the seats' hashes in constant time). */
int tables_seat_of(const srv_table *t, const char *token);
/* A move (the current step's decision) for the seat that `token` holds.
 * `turn` and `step` are the turn and step the client believes current
 * (-1: not given; either one stale is SE_STALE_TURN). SE_PENDING
 * (api_move_done answers, and the move is announced) or an error with
 * nothing changed. */
srv_err tables_move(srv_table *t, const char *token, const json_t *move, int turn, int step,
                    const srv_origin *o, char *err, size_t errsize);

/* The seat that `token` holds gives up: in a two-player game the game
 * ends (the other seat wins), with more players a bot plays the seat to
 * the end. SE_PENDING (api_resign_done answers) or an error with nothing
 * changed. */
srv_err tables_resign(srv_table *t, const char *token, const srv_origin *o, char *err,
                      size_t errsize);

/* Quick match (clock.c): seat `seat` never made its first move in time,
 * so the table is void: it ends unrated with nobody winning, the seat's
 * account is held out of the queue and the others may go back to their
 * place in it (store_match_void, docs/server.md "Quick match"). */
void tables_void(srv_table *t, int seat);

/* JSON texts (malloc'd, the caller frees): the full state as seen by seat
 * `you` (-1 for a spectator), the table summary, and the game record. */
char *tables_state_text(const srv_table *t, int you);
json_t *tables_info(const srv_table *t);
char *tables_record_text(const srv_table *t);
/* The turn description ("next") as JSON text (malloc'd). */
char *tables_turn_text(const srv_table *t);
/* Tables in memory for the lobby: open ones (which = 0), being played (1),
 * all (2); never a private one. Newest first (created time, then id), at
 * most `limit`, after the cursor `before` (NULL: from the newest):
 * {"tables": [...], "more": bool, "next_before": cursor}. Returns a new
 * reference, or NULL with err set when `before` is not a cursor. */
json_t *tables_list(int which, const char *before, int limit, char *err, size_t errsize);
/* Finished games for the lobby, from the store (memory holds only some of
 * them), newest first: {"tables": [...], "more": bool, "next_before": id}.
 * `before` (NULL: the newest) is the last id of the previous page. Returns
 * a new reference, or NULL with *code and err set (SE_MALFORMED: `before`
 * is not a finished game; SE_STORAGE). */
json_t *tables_finished(const char *before, int limit, srv_err *code, char *err,
                        size_t errsize);
/* Accounts: the seat `account` holds at table t (-1: none; a rematch's seat
 * kept for the account counts: tables_seat_reserved tells), and a game of
 * the account's "my games" list from memory (a new reference: {id, seat,
 * status, your_turn, turn, step, players, updated_ms, deadline_ms}), or NULL when the
 * table is not in memory. */
int tables_seat_of_account(const srv_table *t, int64_t account);
/* Friends (friends.h, fr_hooks.invite_seat): whether `account` may invite
 * `invitee` to table `id` (it sits there, the table is open with an open
 * seat, the invitee does not sit there): SE_OK with *seat, or an error
 * (SE_NOT_FOUND also for a started private table it holds no seat at). */
int tables_invite_seat(const char *id, int64_t account, int64_t invitee, int *seat, char *err,
                       size_t errsize);
/* A table whose seats changed in the store (an account was deleted):
 * when this process holds it, it loads them (tables_sync); else nothing. */
void tables_refresh(const char *id);
json_t *tables_my_game(const char *id, int seat);
/* For chat.c and rematch.c (they build on these, tables.c calls them):
 * a job for the storage thread about table t (it cannot leave memory
 * until the job's done has run; the done calls tables_job_done first). */
wjob *tables_job(srv_table *t, int kind, void (*done)(wjob *), const srv_origin *o);
void tables_job_done(srv_table *t);
/* Keeps t in memory (as a job does) until the matching tables_job_done. */
void tables_hold(srv_table *t);
/* Appends a log entry (a step's; the table owns it now). */
void tables_log_push(srv_table *t, char *entry);
/* The move number of the table: the steps made (a step is one player's
 * decision; in a game of today's rules a turn is one step). */
int tables_step(const srv_table *t);
/* The turn being played (0-based: turns ended, or the one whose later
 * steps are being decided). */
int tables_turn(const srv_table *t);
/* Sends a JSON object to every client at the table (takes the reference). */
void tables_broadcast(srv_table *t, json_t *o);
/* A new table in memory from checked options with seats as given (kind,
 * name, level, spec, token_hash, colour; reserved seats as above), linked
 * and findable; NULL with *code and err when the server is full or the
 * options make no game. The caller submits its creation (tables_create_job). */
srv_table *tables_new(const srv_table_opts *o, const srv_seat *seats, const char *owner,
                      srv_err *code, char *err, size_t errsize);
/* The same with the id `id` (STORE_ID_SIZE; match.c: the id its queue
 * entries name), NULL: a fresh one. SE_BUSY when a table of that id is
 * in memory. */
srv_table *tables_new_as(const char *id, const srv_table_opts *o, const srv_seat *seats,
                         const char *owner, srv_err *code, char *err, size_t errsize);
/* The job that stores a new table (kind WJ_CREATE or WJ_REMATCH); its done
 * calls tables_created once it is stored. */
wjob *tables_create_job(srv_table *t, int kind, void (*done)(wjob *), const srv_origin *o);
/* After the creation of t is stored (ok) or refused (!ok: t is freed when
 * nothing else holds it). Starts it when every seat is taken. */
void tables_created(srv_table *t, int ok);
/* Brings t up to what the store holds (another process changed it; a
 * seat's write met a conflict): sync.c. */
void tables_sync(srv_table *t);
/* A seat given a new token (claimed): stores it; done runs after. */
void tables_seat_changed(srv_table *t, int seat, const char *token, void (*done)(wjob *),
                         const srv_origin *o);
/* After a seat was stored: starts the game when every seat is taken and
 * tells the table. */
void tables_seat_stored(srv_table *t);

/* The stream: a change this process wrote about t was committed with
 * number seq (writer.c's hook calls this before the job's done). The next
 * number: t is at it now; a later one: another process's changes came in
 * between, and they are loaded (in order, after this one is applied). */
void tables_seq_written(srv_table *t, int64_t seq);

/* Counts for the health endpoint. */
void tables_counts(int *tables, int *playing, int *conns);
/* For the metrics: tables in memory by status (STORE_STATUS_COUNT), bots
 * in their pause, bot moves handed to the pool. */
void tables_metrics(int *by_status, int *pausing, int *thinking);

/* Called when a WebSocket client arrives at or leaves a table, or takes a
 * seat: keeps the seats' online flags and tells the table. */
void tables_conn_changed(srv_table *t);
/* Only recounts the seats' online flags (no announcement). */
void tables_recount(srv_table *t);
/* The event loop calls this when bot moves may be waiting. */
void tables_bots_drain(void);

/* Several processes on one database (cluster.c): the hooks through which
 * the cluster tells the tables what other processes changed. */
struct cluster_hooks;
void tables_cluster_hooks(struct cluster_hooks *h);

#endif
