/*
 * move_json.h - moves as JSON and as text for `carc analyse`, `carc
 * engine` and the server's analyses (analysis.c), in the form of a
 * record's turn (docs/records.md):
 *
 *   {"x": 1, "y": 0, "rot": 3, "meeple": null}
 *   {"x": 1, "y": 0, "rot": 3, "meeple": {"kind": "follower", "at": "E1"}}
 *   {"x": 1, "y": 0, "rot": 3, "meeple": null, "abbot_recalled": true}
 *   {"discarded": true}
 *
 * A move is read by matching it against the position's legal moves, so a
 * move read is always legal in the position it was read for.
 */
#ifndef CARC_SERVER_MOVE_JSON_H
#define CARC_SERVER_MOVE_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "carc.h"

/* The JSON of move m for the current tile of g (a new reference the
 * caller owns). */
json_t *mj_move(const carc_game *g, carc_move m);

/* Text of move m for the current tile of g: "(1,0) rot 3 follower E1",
 * "(1,0) rot 3", "set aside". */
void mj_text(const carc_game *g, carc_move m, char *buf, size_t size);

/* Reads a move of g's current tile from o; 0 and *m, or -1 with what is
 * wrong in err (not an object, a key missing or of the wrong type, no
 * such legal move). */
int mj_parse(const carc_game *g, const json_t *o, carc_move *m, char *err, size_t errsize);

#endif
