/*
 * bots.h - the bot worker threads. The event loop hands a job (a copy of
 * the game, the bot spec, a seed, an opaque tag) to bots_submit(); a worker
 * makes the bot, lets it choose, and queues the move; the loop is woken with
 * lws_cancel_service() and collects moves with bots_poll(). Workers never
 * touch tables: the copy is theirs.
 */
#ifndef CARC_SERVER_BOTS_H
#define CARC_SERVER_BOTS_H

#include <libwebsockets.h>
#include <stdint.h>

#include "carc.h"

/* Starts n worker threads; ctx is woken when a move is ready. */
int bots_start(int n, struct lws_context *ctx);
/* Stops and joins the workers; pending jobs and results are dropped. */
void bots_stop(void);
/* Queues a job. `g` and `spec` are copied; `tag` is handed back as is. */
void bots_submit(void *tag, const carc_game *g, const char *spec, uint64_t seed, int turn);
/* Takes one finished job: returns 1 and fills the outputs, or 0 when none
 * is ready. `move` is CARC_MOVE_NONE if the bot could not be made. */
int bots_poll(void **tag, int *turn, carc_move *move);

#endif
