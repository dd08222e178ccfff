/*
 * gamejson.h - JSON views of a game for clients: the board, figures,
 * supply, scores, whose turn with which tile and the legal moves, log
 * entries with their scoring events, tile definitions; and the reverse, a
 * client's move message to a carc_move. Only reads games, through the
 * engine's API and the documented fields of carc_game.
 *
 * Every json_t returned is a new reference the caller owns (json_decref);
 * every char * is malloc'd and the caller frees it.
 */
#ifndef CARC_SERVER_GAMEJSON_H
#define CARC_SERVER_GAMEJSON_H

#include <jansson.h>
#include <stddef.h>

#include "carc.h"

json_t *gj_rules(const carc_rules *r);
json_t *gj_board(const carc_game *g);
json_t *gj_figures(const carc_game *g);
json_t *gj_supply(const carc_game *g);
json_t *gj_scores(const carc_game *g);
json_t *gj_by_kind(const carc_game *g);
/* The final result ({scores, by_kind, winners}), or JSON null before the end. */
json_t *gj_final(const carc_game *g);
/* Winners (players with the top score) as a JSON array. */
json_t *gj_winners(const carc_game *g);
/* Whose turn it is and what they may do: to_move, tile, tiles_left,
 * tiles_left_by_kind, legal, over, final, scores. */
json_t *gj_turn(const carc_game *g);
/* Goods tokens per player (Traders & Builders). */
json_t *gj_goods(const carc_game *g);
/* Turn `turn` of g (index into g->turns) with its scoring events: the text
 * of one log entry. `g` is the game right after that turn, `before` right
 * before it. */
char *gj_log_entry(const carc_game *before, const carc_game *g, int turn,
                   const carc_events *ev);
/* Tile definitions of the engine. */
json_t *gj_tiles(void);

/* A client's move ({"x","y","rot","meeple"} or {"discard": true}) for the
 * current tile of g. Checks the form only (carc_apply checks the rules).
 * Returns 0, or -1 with a message in err. */
int gj_parse_move(const carc_game *g, const json_t *msg, carc_move *out, char *err,
                  size_t errsize);

const char *gj_figure_name(int fig);
const char *gj_score_kind_name(int kind);

#endif
