/*
 * clock.h - a table's time: the deadline of the move being played, each
 * seat's reserve, timed-out moves in a row, seats given up (resigned or
 * taken over by the bot) and a game ended early. tables.c calls these
 * hooks; the rules are in docs/server.md, "Clocks".
 *
 * The rule of a real-time (and turn-based) clock: a seat to move has
 * `move_s` plus what is left of its reserve. A move that takes longer than
 * move_s uses the difference from the reserve (never below 0); the reserve
 * does not grow back. When the deadline (turn start + move_s + reserve)
 * passes, the reserve is 0, the seat's timeouts in a row go up by one and
 * the takeover bot plays that move at once, through the bot pool and the
 * same move path as every bot move; a move the player makes resets the
 * count. At max_timeouts in a row the seat is forfeited: the bot plays it
 * to the end.
 *
 * Deadlines are stored (the store's clocks, one write per turn, after the
 * move's), not only timers: after a restart the deadline counts from what
 * is stored; one that passed while the server was down is moved to the
 * start plus --clock-grace seconds.
 *
 * Everything here runs on the event-loop thread.
 */
#ifndef CARC_SERVER_CLOCK_H
#define CARC_SERVER_CLOCK_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdint.h>

#include "carc.h"
#include "server.h"
#include "store.h"

struct srv_table;

/* A clock runs on steps (a step is one player's decision, include/carc.h):
 * the seat on the clock is the one to decide now (carc_to_move), so a step
 * that belongs to another player than the turn's (the test build's
 * "test-pass", a later expansion's) runs that player's time, and the turn's
 * player's clock runs again at its next decision. */
typedef struct srv_clock {
	int step;                        /* the step the clock is set for; -1: none yet */
	int turn;                        /* the turn that step belongs to (for clients) */
	int seat;                        /* the seat to decide then; -1: none */
	int64_t turn_start_ms;           /* when that step began */
	int64_t deadline_ms;             /* 0: no deadline runs */
	int64_t reserve_ms[CARC_MAX_PLAYERS];
	int timeouts[CARC_MAX_PLAYERS];  /* timed-out moves in a row */
	int resigned[CARC_MAX_PLAYERS];
	int timeout_step;                /* the step the bot plays because time ran out; -1 */
	int ended_seat;                  /* the seat whose resignation (or no-show) ended
	                                  * the game; -1 */
	int no_show;                     /* 1: ended_seat never came: the quick-match table
	                                  * is void (match.c) */
	int stored;                      /* the store has a clock row for the table */
	int busy;                        /* a resignation is being stored */
	int scheduled;
	int undo_seat;                   /* the deadline before a resignation being stored */
	int64_t undo_deadline_ms;
	int64_t next_start_ms;           /* clock_moved: the stored time of the move that
	                                  * ends the turn, where the next one starts */
	lws_sorted_usec_list_t sul;      /* the deadline */
} srv_clock;

/* What tables.c does when a deadline passes: the bot plays the move now
 * (the seat is then one clock_bot_plays() names). */
typedef void (*clock_due_fn)(struct srv_table *t);

/* Once at start: the context for the timers, the configuration (the
 * grace after a restart) and the deadline's action. */
void clock_setup(struct lws_context *ctx, const srv_config *cfg, clock_due_fn due);
/* Cancels every timer (the context is going). */
void clock_stop_all(void);

/* A new table (or one being loaded): full reserves, nothing running. */
void clock_init(struct srv_table *t);
/* A table loaded from the store, with its stored clock (NULL: none). */
void clock_restore(struct srv_table *t, const store_clock *c, int64_t now_ms);
/* A step may have begun (after a start, a move, a load): sets the
 * deadline of the new step for the seat to decide it, stores the clock,
 * starts the timer. Does nothing when the clock is already set for this
 * step. */
void clock_turn(struct srv_table *t);
/* The decision of `player` made at at_ms was stored: takes what it used
 * from the reserve, then sets the next step (clock_turn). */
void clock_moved(struct srv_table *t, int player, int64_t at_ms);
/* A move the takeover bot made for `player`, loaded from the store before
 * it is applied (table/sync.c): when the seat was not given up and this
 * process has not seen the timeout (the owner's clock of that step was
 * not in the snapshot), counts the timeout as the owner did, so the move
 * is announced with the same clock on every process. */
void clock_takeover_seen(struct srv_table *t, int player);
/* Cancels the table's timer. */
void clock_cancel(struct srv_table *t);

/* Whether a bot plays seat p's move now: a bot seat, a forfeited seat,
 * or a seat whose time ran out on this step. */
int clock_bot_plays(const struct srv_table *t, int p);
/* The spec of the bot that plays seat p (the seat's own, or the
 * takeover level's). */
const char *clock_bot_spec(const struct srv_table *t, int p);
/* Whether the bot plays p's move because its time ran out (no pause). */
int clock_timeout_move(const struct srv_table *t);

/* The seat gives up: in memory now (tables.c undoes it with
 * clock_resign_undo when the write fails); `ends` when this ends the
 * game. Fills the store job's clock (state malloc'd, the job owns it). */
void clock_resign(struct srv_table *t, int seat, int ends, store_clock *out);
void clock_resign_undo(struct srv_table *t, int seat);

/* Quick match (match.c): seat `seat` never made its first move in time:
 * the table is void (its game ends unrated, nobody wins). In memory now,
 * like clock_resign with `ends` (tables.c undoes it with clock_resign_undo
 * when the write fails); fills the store job's clock. */
void clock_no_show(struct srv_table *t, int seat, store_clock *out);
/* Whether seat p has made a move at this table (its first move is due). */
int clock_seat_moved(const struct srv_table *t, int p);

/* The clock as clients see it (a new reference). */
json_t *clock_json(const struct srv_table *t);
/* How the game ended early as JSON ({"reason": "resigned", "seat": n,
 * "winners": [...]}; a void quick match: {"reason": "no_show", "seat": n,
 * "winners": []}), or NULL (a new reference). */
json_t *clock_ended_json(const struct srv_table *t);
/* The deadline of the move being played (ms since the epoch), or 0. */
int64_t clock_deadline_ms(const struct srv_table *t);

#endif
