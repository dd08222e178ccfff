/*
 * move_json.h - a decision's JSON as jansson values, for the callers that
 * hold one (`carc analyse`, `carc engine`, the server's analyses): a thin
 * layer over the engine's one writer and reader (carc_move_json,
 * carc_move_parse), which know every kind of step; nothing here does.
 */
#ifndef CARC_SERVER_MOVE_JSON_H
#define CARC_SERVER_MOVE_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "carc.h"

/* The JSON of decision m of g's current step (a new reference the caller
 * owns; JSON null when out of memory). */
json_t *mj_move(const carc_game *g, carc_move m);

/* A decision of g's current step read from o: CARC_OK and *m (a legal
 * decision), or carc_move_parse's refusal (CARC_ERR_PARSE: not a
 * decision; CARC_ERR_ILLEGAL: not legal now; CARC_ERR_GAME_OVER) with what
 * is wrong in err. */
carc_status mj_parse(const carc_game *g, const json_t *o, carc_move *m, char *err,
                     size_t errsize);

#endif
