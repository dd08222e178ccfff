/*
 * undo.h - training against bots (docs/server.md "Training against bots"):
 * at a table where one person plays and every other seat is a bot, with
 * no clock and a game that would not be rated (a guest, a bot without a
 * fixed rating, a custom pile, or a table made with "rated": false), the
 * person may take back moves after confirming them. A move is a decision
 * of any kind of step: undoing k moves goes back to the person's k-th
 * latest decision: their decisions and the bots' after them are taken
 * back, in the store (one transaction that counts them in games.undos and
 * bumps the table's stream) and then in memory (the game replayed from the
 * start to that step). A bot move in flight is discarded.
 */
#ifndef CARC_SERVER_UNDO_H
#define CARC_SERVER_UNDO_H

#include <jansson.h>

#include "tables.h"

/* Moves (decisions) of one request: at most the whole game. */
#define UNDO_MAX_MOVES carc_limit(CARC_LIMIT_STEPS)

/* The seat that may undo at table t (its one person), or -1 with why not
 * in err (NULL: not told) and *code SE_NOT_TRAINING (code may be NULL). */
int undo_seat(const srv_table *t, srv_err *code, char *err, size_t errsize);

/* An undo request: the message or body `o` ({"moves": 1..UNDO_MAX_MOVES,
 * "token": optional, else `token`}) from address `addr`. SE_PENDING (the
 * outbox's undo_done answers once it is stored) or the refusal in err,
 * with the seconds to wait in *wait_s when it is SE_RATE_LIMITED. */
srv_err undo_request(srv_table *t, const json_t *o, const char *token, const char *addr,
                     const srv_origin *origin, char *err, size_t errsize, int *wait_s);

/* sync.c: another process took moves back (the stored undos differ from
 * t->undos): the table is rebuilt from the store and its clients told. */
void undo_sync(srv_table *t);

/* Stops the table's bot: a pause is cancelled, a move being thought about
 * is stopped and its answer discarded (botpace.c's drain). */
void undo_stop_bot(srv_table *t);

#endif
