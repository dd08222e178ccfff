/*
 * tables_internal.h - what the files of the table registry share (tables.c,
 * seats.c, create.c, moves.c, botpace.c, views.c, sync.c, windows.c,
 * foresee.c): tables.c's state
 * and the functions one of them calls in another. Only those files include
 * it; everything else sees tables.h. All of it is the event-loop thread's.
 */
#ifndef CARC_SERVER_TABLES_INTERNAL_H
#define CARC_SERVER_TABLES_INTERNAL_H

#include "accounts.h"
#include "analysis.h"
#include "bots.h"
#include "chat.h"
#include "cluster.h"
#include "gamejson.h"
#include "ratelimit.h"
#include "metrics.h"
#include "outbox.h"
#include "ratings.h"
#include "tables.h"
#include "writer.h"

/* tables.c */
extern const srv_config *cfg;
extern store *db;
extern struct lws_context *lctx;
extern srv_table *all_head;
extern int ntables;
extern const srv_outbox *box;
extern int timers_stopped;
srv_table *lookup(const char *id);
void link_table(srv_table *t);
void free_table(srv_table *t);
srv_table *new_table(void);
void to_store_seat(const srv_table *t, int i, store_seat *ss);
wjob *job_for(srv_table *t, wj_kind kind, void (*done)(wjob *), const srv_origin *o);
void origin_of(const wjob *j, srv_origin *o);
void status_done(wjob *j);
void storage_msg(char *msg, size_t size, const wjob *j, const char *what);
int make_room(void);
/* A PLAYING game whose bots or clock move on without a client: a bot
 * seat, a clock, or a forfeited seat (a bot plays it). */
int tables_needs_owner(const srv_table *t);

/* seats.c */
int valid_name(const char *name);
int table_full(const srv_table *t);
void start_if_full(srv_table *t);
srv_err take_seat(srv_table *t, const char *name, int want, int64_t account, int *seat,
                  char *token, char *err, size_t errsize);

/* tables.c: a table's game set up afresh from its options (t->game
 * allocated if need be): 0, or -1 with the engine's refusal in err. */
int table_game_init(srv_table *t, char *err, size_t errsize);
/* One stored decision played on t->game: a step of kind `kind` (-1: a
 * name this build does not know, refused) decided by `player` (-1: not
 * checked), the turn's tile drawn first when it is a tile step (tile -1:
 * the pile's own). A step stored as another kind or player than the
 * engine's current one is refused: the store's number would mean another
 * decision. 0, or -1 with why in e. */
int table_play(srv_table *t, int kind, int player, int tile, carc_move m, carc_events *ev,
               char e[CARC_ERRMSG_SIZE]);

/* create.c */
int view_from_record(srv_table *t, const char *record, size_t len, char *err,
                     size_t errsize);

/* moves.c */
/* the takeover bot's moves in the log (moves.c, "takeover": true) */
int takeover_marked(const char *entry);
char *takeover_mark(char *entry);
/* the ratings' view of the game (moves.c): rate_hook's and the finished
 * table's description's ("rating", views.c) */
rt_why rating_outcome(const srv_table *t, const carc_game *g, int resigner,
                      const store_move *last, int last_takeover, store_result *r,
                      int own[CARC_MAX_PLAYERS]);
void move_done(wjob *j);
srv_err apply_move(srv_table *t, carc_move m, const srv_origin *o, int bot, char *err,
                   size_t errsize);
/* Frees a move waiting for the storage thread (its game after the move
 * too); NULL: nothing. */
void pending_move_free(srv_pending_move *pm);
/* The seat a token holds at a table whose game is being played (moves,
 * resignations, undos): SE_OK and *seat, or the refusal in err (no_token:
 * what is said without a token; not_started: while seats are open). */
srv_err playing_seat(srv_table *t, const char *token, const char *no_token,
                     const char *not_started, int *seat, char *err, size_t errsize);

/* botpace.c */
void bot_spec_loaded(srv_table *t, int seat);
void bot_kick(srv_table *t);
void clock_due(srv_table *t);
void bot_retry(srv_table *t);

/* views.c */
void announce_table(srv_table *t);
void announce_move(srv_table *t, const char *entry);

/* create.c: the open tables this process made, by the address that made
 * them (--max-open-tables), kept while they leave memory */
void open_forget(const char *id);
void open_clear(void);

/* sync.c */
void tables_sync(srv_table *t);
/* A store load's callback that brings t up to what was loaded (undo.c
 * calls it for a full reload). */
int tables_sync_game(void *ctx, const store_game *sg, const store_move *mv, int n);
/* Tables in memory that hold their place (open or being played, needed
 * here) and count against address key `owner` (made by it, or a quick
 * match seated someone of it), or where account `account` sits. */
int tables_held_by(const char *owner);
int tables_held_by_account(int64_t account);
/* writer.c's drain hook (sync.c): the stream learns each committed change */
void tables_job_committed(wjob *j);

#endif
