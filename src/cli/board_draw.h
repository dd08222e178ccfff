/*
 * board_draw.h - draws a game's board in the terminal, for `carc show`,
 * `carc demo` and whoever else wants a text board (e.g. `carc play`).
 *
 * Each tile is a block of cw x ch characters (7x5 or 5x3; any odd sizes
 * from 3x3 work) drawn from the engine's tile model, not from a picture
 * per tile letter: every character cell is given to the port region it
 * lies in (the four triangles between the diagonals, each cut into
 * thirds), so tiles of any set draw themselves. Characters:
 *
 *     .  field        #  city         - | +  road   o  road junction
 *     ^  cloister     %  garden       ~  river      *  shield
 *     i  inn          x  cathedral    1..6  a player's follower
 *     B b p a  big follower, builder, pig, abbot (in the owner's colour)
 *
 * Princess & Dragon (drawn from the engine's state, carc_dragon_tile,
 * carc_fairy_tile, carc_dragon_visited, carc_tile_symbol):
 *
 *     D  the dragon (top right corner of its tile)
 *     f  the fairy, beside the follower it stands next to (bottom left
 *        corner when it stands alone)
 *     =  a square the dragon has visited in the movement under way
 *        (bottom right corner)
 *     v d @  the tile's symbol: volcano, dragon, magic portal (top left)
 *     q  the princess, in her city
 *
 * Followers and other figures show the player's number (1-based) and, in
 * colour, the player's colour. Coordinates are written along the top and
 * the left edge; the scores (and, once the game is over, the points by
 * kind) are written beside the board, or below it when it is too wide.
 *
 * Nothing here allocates memory that outlives a call or keeps state.
 */
#ifndef CARC_CLI_BOARD_DRAW_H
#define CARC_CLI_BOARD_DRAW_H

#include <stdio.h>

#include "carc.h"

typedef struct bd_opts {
	int color;     /* 1: ANSI colours */
	int cw, ch;    /* characters per tile, odd, >= 3: 7x5 or 5x3 */
	int highlight; /* index into g->tiles drawn in bold (colour only), -1: none */
	int width;     /* terminal columns (0: unknown): the scores go below
	                  the board when board and scores do not fit side by side */
	/* squares labelled for a choice (the dragon's next square): the
	 * label is drawn in the bottom left corner of the tile there */
	int nmarks;
	struct {
		int x, y;
		char c;
	} marks[8];
} bd_opts;

/* Default options for stream f: colour off, 7x5 tiles, no highlight, the
 * terminal's width if f is a terminal. */
void bd_opts_default(bd_opts *o, FILE *f);

/* Picks 7x5 tiles if the board of g, with the scores beside it, fits in
 * o->width columns (or the width is unknown), else 5x3. */
void bd_fit(const carc_game *g, bd_opts *o);

/* Tile size by name: "large" 7x5, "small" 5x3; -1 for another name. */
int bd_set_size(bd_opts *o, const char *name);

/* Draws the board of g with the scores beside it. */
void bd_draw(FILE *f, const carc_game *g, const bd_opts *o);

/* "red", "blue", ... : the colour of player p (0-based), a static string. */
const char *bd_player_colour(int p);

/* Writes "player N (colour)" for player p (0-based), coloured if color. */
void bd_player_label(FILE *f, int p, int color);

/* Names of score kinds as in records ("road", "city", ...), a static
 * string; NULL for an unknown kind. */
const char *bd_score_kind_name(int kind);

/* Writes one line's worth (no newline) about step k (0-based) of g:
 * "player 1 (red) places V at (2,-1) rot 1, follower on the road (S1)",
 * that the tile fitted nowhere and was set aside, or another step's
 * decision in the engine's words. */
void bd_print_step(FILE *f, const carc_game *g, int k, int color);

/* The engine's words (carc_move_text) for the decision of step k of g,
 * into buf: the game is played again up to that step, since a decision
 * of a step other than the tile's means something only in its position.
 * Returns 0, or -1 when k is out of range or the game cannot be made
 * again (buf then holds the step's name and its number). */
int bd_step_text(const carc_game *g, int k, char *buf, size_t size);

/* Princess & Dragon's pieces in a line of words (no newline): "dragon at
 * (2,-1), path (0,0) (1,0); fairy at (0,1) E1"; writes nothing and
 * returns 0 when the game's rules have no dragon and no fairy in play. */
int bd_print_pieces(FILE *f, const carc_game *g);

/* Writes a scoring event: "road of 3 tiles: red +3, blue +3" (no
 * newline); "nobody" when no one scored. */
void bd_print_event(FILE *f, const carc_game *g, const carc_event *e, int color);

/* 1 if score kind `kind` is worth showing for g: the base game's four
 * kinds always, others when someone has points of that kind. */
int bd_kind_shown(const carc_game *g, int kind);

#endif
