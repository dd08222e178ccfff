/*
 * analysis.h - analyses of finished games, on request (POST
 * /api/tables/<id>/analysis; docs/server.md, "Analyses"): for every turn
 * the bot's best move, the mover's expected margin and win probability
 * after it and after the move played, and the points lost (analyse.h),
 * as `carc analyse --json` gives them.
 *
 * An analysis is computed in the bot pool (bots.c), one move per job, a
 * move at a time per game: the loop keeps the position before the turn
 * being analysed and hands a copy of it to the pool. Each move is held to
 * --analysis-time; once a game's analysis has run --analysis-max-time the
 * turns left are analysed with greedy (a few milliseconds each). At most
 * --analysis-queue analyses are computing or being stored at once. The
 * finished analysis is written by the storage thread and then only ever
 * read from the store: asking again never recomputes it. One that is
 * computing when the server stops is lost (asking again starts it anew).
 *
 * Everything here runs on the event-loop thread; workers see copies only.
 */
#ifndef CARC_SERVER_ANALYSIS_H
#define CARC_SERVER_ANALYSIS_H

#include <stddef.h>

#include "server.h"
#include "store.h"
#include "tables.h"

/* The bot spec analyses use: --analysis-bot, or mcts:time=<--analysis-time>,
 * held to the bot ceilings (bots_clamp). 0, or -1 with a message in err
 * when the engine makes no bot of it. Loop thread (or before it starts). */
int analysis_spec(const srv_config *cfg, char *out, size_t outsize, char *err, size_t errsize);

/* Starts the room: reader is the loop's store handle (borrowed). 0, or -1
 * after logging why (a bad --analysis-bot). */
int analysis_start(const srv_config *cfg, store *reader);
/* Frees every analysis in memory (after the bot pool has stopped). */
void analysis_stop(void);

/* GET (start = 0) or POST (start = 1) of table t's analysis for a client
 * at address addr. Returns the answer's JSON text (malloc'd, the caller
 * frees it) with *status 200 (stored, or {"status":"none"} / "failed") or
 * 202 ({"status":"pending","done":k,"total":n}); or NULL with *code, the
 * message in err and, for SE_RATE_LIMITED and SE_BUSY, *wait_s. */
char *analysis_http(srv_table *t, int start, const char *addr, int *status, srv_err *code,
                    int *wait_s, char *err, size_t errsize);

/* Loop thread, when woken: takes the pool's finished analysis moves and
 * hands out the next ones. */
void analysis_drain(void);

/* Analyses computing or being stored. */
int analysis_running(void);

#endif
