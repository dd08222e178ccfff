/*
 * carc_jansson.h - the engine's reader of a decision's JSON for programs
 * that already hold the decision as a jansson value (the server reads it
 * out of a whole message): the same reader as carc_move_parse, without
 * writing the value out as text and reading it again, which cost a server
 * more than a tenth of its work on a move. Link with -ljansson (libcarc
 * uses jansson itself; carc.pc says so).
 */
#ifndef CARC_JANSSON_H
#define CARC_JANSSON_H

#include <jansson.h>

#include "carc.h"

/* carc_move_parse of the object o: CARC_OK and *m (a legal decision of
 * the current step), or the same refusals with the same messages. */
carc_status carc_move_from_json(const carc_game *g, const json_t *o, carc_move *m,
                                char err[CARC_ERRMSG_SIZE]);

#endif
