/*
 * bots.h - the bot pool: a fixed number of worker threads shared by every
 * table, and the ceilings every bot is held to.
 *
 * The event loop hands a job (a copy of the game, the bot spec, a seed, a
 * time budget, an opaque tag) to bots_submit(); a worker makes the bot,
 * lets it choose, and queues the move; the loop is woken with
 * lws_cancel_service() and collects moves with bots_poll(). Workers never
 * touch tables: the copy is theirs.
 *
 * Fairness: a table has at most one job at a time (tables.c submits the
 * next move only after the last one is stored). A free worker takes a move
 * of a table where a person plays before a bot-only table's, and among
 * those the one of the owner (the address that made the table) whose bots
 * thought least lately; a person's move that finds no worker free stops
 * the bot-only move thinking longest (it plays its best so far), so it
 * never waits behind bot-only tables. An owner over its CPU budget (bots_start) has its moves played by
 * BOTS_FALLBACK_SPEC until its use falls under it. A job thinks at most its
 * time budget: a watchdog thread stops a bot that is still thinking at its
 * deadline (carc_bot_stop).
 *
 * Analyses of finished games (analysis.c) are jobs of a second kind, one
 * move each (an_position with the analysis bot), in a queue of their own
 * that a worker serves only when no live move waits, and by at most
 * threads - 1 workers at once (1 with one thread). A live move therefore
 * waits for an analysis at most one analysis move's budget (the worker it
 * needs finishes the move it has, which the watchdog stops at its budget);
 * with two or more threads one worker is always free for live moves.
 */
#ifndef CARC_SERVER_BOTS_H
#define CARC_SERVER_BOTS_H

#include <libwebsockets.h>
#include <stddef.h>
#include <stdint.h>

#include "analyse.h"
#include "carc.h"
#include "server.h"

/* How the pool shares its threads (see the top). */
#define BOTS_USAGE_HALF_S 30.0       /* an owner's CPU use is forgotten by half in this */
#define BOTS_FALLBACK_SPEC "greedy"  /* plays the moves of an owner over its budget */

/* Starts n worker threads and the watchdog; ctx is woken when a move is
 * ready. cpu_per_owner_s: the CPU seconds a minute one owner's bots may
 * think before BOTS_FALLBACK_SPEC plays for them (0: no budget). Returns
 * 0, or -1 when a thread could not be started. */
int bots_start(int n, double cpu_per_owner_s, struct lws_context *ctx);
/* Stops every bot that is thinking (carc_bot_stop), then joins the
 * threads; pending jobs and results are dropped. Returns at once even when
 * bots were given long budgets. */
void bots_stop(void);
/* Queues a job. `g`, `spec` and `owner` (who made the table: the pool's
 * fairness and budget key; "" or NULL: nobody known) are copied; `tag` is
 * handed back as is; `people`: a person plays at the table. The bot is
 * stopped when it still thinks `budget_s` seconds after it began. */
void bots_submit(void *tag, const char *owner, int people, const carc_game *g, const char *spec,
                 uint64_t seed, int step, double budget_s);
/* Moves played by BOTS_FALLBACK_SPEC because their owner was over its
 * budget, since the start (for the metrics). */
int64_t bots_over_budget(void);
/* Bot-only moves stopped early to free a worker for a person's table. */
int64_t bots_preempted(void);
/* Takes one finished job: returns 1 and fills the outputs, or 0 when none
 * is ready. `move` is CARC_MOVE_NONE if the bot could not be made. */
int bots_poll(void **tag, int *step, carc_move *move);
/* Stops the live moves of table `tag` (undo.c): one being thought about
 * ends at once (carc_bot_stop), a queued one gets no time to think. Their
 * answers still come back through bots_poll. */
void bots_stop_tag(void *tag);

/* An analysis job: the position g before the move `played` (CARC_MOVE_NONE:
 * none), analysed with a bot of `spec` (an_position) within budget_s. */
void bots_submit_analysis(void *tag, const carc_game *g, carc_move played, const char *spec,
                          uint64_t seed, int step, double budget_s);
/* Takes one finished analysis job: 1 with *out filled, -1 when it failed
 * (the bot could not be made, or `played` was not legal), 0 when none is
 * ready. */
int bots_poll_analysis(void **tag, int *step, an_move *out);
/* Analysis jobs waiting for a worker, and being thought on. */
void bots_analysis_load(int *queued, int *running);

/* Holds a bot spec to the ceilings of c (bot_max_time, bot_max_threads,
 * bot_max_nodes): a parameter over a ceiling (given, or by its default) is
 * set to the ceiling. Writes the spec to use into out: `spec` itself when
 * nothing was over, else the clamped spec, normalised, with what was
 * changed in `why` ("time 3600 > --bot-max-time 2, ..."). Returns 0, 1
 * when clamped, or -1 with a message in err when the spec is not one the
 * engine makes a bot of. A bot without a time limit of its own (mcts with
 * an iteration budget, star25 with a depth) keeps it: the watchdog stops it
 * at bot_max_time. */
int bots_clamp(const srv_config *c, const char *spec, char *out, size_t outsize, char *why,
               size_t whysize, char *err, size_t errsize);

#endif
