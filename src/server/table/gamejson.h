/*
 * gamejson.h - JSON views of a game for clients: the board, figures,
 * supply, scores, whose turn with which tile and the legal moves, log
 * entries with their scoring events, tile definitions; and the reverse, a
 * client's move message to a carc_move. Only reads games, through the
 * engine's API and the documented fields of carc_game.
 *
 * The gj_* writers append JSON text to a srv_sb the caller owns. gj_tiles
 * returns a new jansson reference the caller owns; gj_log_entry a malloc'd
 * string the caller frees.
 */
#ifndef CARC_SERVER_GAMEJSON_H
#define CARC_SERVER_GAMEJSON_H

#include <jansson.h>
#include <stddef.h>

#include "carc.h"
#include "server.h"

/* The rules object; expansions_json is the JSON array text of the names. */
void gj_rules(srv_sb *b, const carc_rules *r, const char *expansions_json);
void gj_board(srv_sb *b, const carc_game *g);
void gj_figures(srv_sb *b, const carc_game *g);
void gj_supply(srv_sb *b, const carc_game *g);
void gj_scores(srv_sb *b, const carc_game *g);
void gj_by_kind(srv_sb *b, const carc_game *g);
/* Goods tokens per player (Traders & Builders). */
void gj_goods(srv_sb *b, const carc_game *g);
/* Players with the top score. */
void gj_winners(srv_sb *b, const carc_game *g);
/* {scores, by_kind, winners}, or null before the end. */
void gj_final(srv_sb *b, const carc_game *g);
/* Whose turn it is and what they may do: turn, over, to_move, bonus, tile,
 * tiles_left, tiles_left_by_kind, scores, legal, final. */
void gj_turn(srv_sb *b, const carc_game *g);
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
