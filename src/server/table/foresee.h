/*
 * foresee.h - what a decision would do and what a feature is, for the
 * clients of a table (docs/protocol.md, "preview" and "feature"): the
 * engine's carc_view_preview and carc_view_feature on the table's game,
 * so that a client draws its hints (the feature a figure would join, what
 * it scores, who holds it) without a rule of its own.
 *
 * Both tell nothing hidden (the tile in hand is public), so a seat or a
 * spectator may ask. Each message costs one from its connection's own
 * budget (--rate-views a minute, as many at once) besides the address's
 * --rate-requests, which the API takes before: a client that floods them
 * is refused, and spends the server's time only up to that budget.
 */
#ifndef CARC_SERVER_FORESEE_H
#define CARC_SERVER_FORESEE_H

#include <jansson.h>
#include <stddef.h>

#include "errcode.h"
#include "server.h"
#include "tables.h"

/* Takes one from client cl's budget: 0, or the seconds until one is
 * there with the refusal in err. Asked before anything else of a preview
 * or a feature view (a refused message costs nothing more). */
int foresee_take(srv_client *cl, char *err, size_t errsize);

/* A preview of decision `move` (a JSON object, as a move's) of the current
 * step of t's game; `step` the step the client believes current (-1: not
 * said): SE_OK with *answer (a new reference: {"type":"preview", "step",
 * "preview"}), or an error with nothing made and why in err. */
srv_err foresee_preview(srv_table *t, const json_t *move, int step, json_t **answer, char *err,
                        size_t errsize);

/* The feature at msg's "x", "y", "at" (a port) of t's game: SE_OK with
 * *answer ({"type":"feature", "x", "y", "at", "step", "feature"}), or an
 * error. */
srv_err foresee_feature(srv_table *t, const json_t *msg, json_t **answer, char *err,
                        size_t errsize);

#endif
