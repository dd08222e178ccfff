/*
 * view.h - the one writer and reader of a decision's JSON, shared by the
 * views (view.c) and the records (record.c); not part of the API.
 */
#ifndef CARC_VIEW_H
#define CARC_VIEW_H

#include <jansson.h>

#include "engine.h"
#include "jsonout.h"

/* Writes the members of decision m of a step of kind `kind` in a turn of
 * tile `type` (x, y, rot, meeple... or "<step name>": value). */
void eng_move_write(jo_buf *b, int *first, const carc_game *g, int kind, int type, carc_move m);
/* Reads a decision of g's current step from the object o: eng_move_from
 * only reads it (the keys and their types), eng_move_read also checks it
 * against the rules (carc_check_move). */
carc_status eng_move_from(const carc_game *g, const json_t *o, carc_move *m, char *err);
carc_status eng_move_read(const carc_game *g, const json_t *o, carc_move *m, char *err);
/* "an object", "a string", ... for messages ("nothing" for NULL). */
const char *eng_json_kind(const json_t *v);

#endif
