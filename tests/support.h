/*
 * support.h - helpers shared by the C tests: building scenario games from a
 * short pile, playing moves by port name, asserting the from-scratch check.
 */
#ifndef CARC_TEST_SUPPORT_H
#define CARC_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "carc.h"
/* The engine's own tests look inside a game (white-box): the struct behind
 * the opaque handle and the engine's capacities. Nothing outside src/core
 * and these tests does. */
#include "state.h"

/* Rules with defaults, n players. */
carc_rules t_rules(int players);
/* New game whose pile is the given tiles, in this order: "UEV" -> U, E, V
 * (tile names of one letter; set_current_tile fixes the order). */
void t_game(carc_game *g, const carc_rules *r, const char *tiles);
/* Places the current tile; fig_port is a port name ("E1", "C") or NULL for
 * no figure. Fails the test if the move is illegal or the check fails. */
void t_play(carc_game *g, int x, int y, int rot, const char *fig_port);
/* Same, but returns the status instead of failing. */
carc_status t_try(carc_game *g, int x, int y, int rot, const char *fig_port,
                  char err[CARC_ERRMSG_SIZE]);
/* The move placing the current tile at (x, y, rot) with a follower on the
 * feature at board port fig_port (NULL: none). Fails the test if the tile
 * has nothing at that port. */
carc_move t_move(const carc_game *g, int x, int y, int rot, const char *fig_port);
/* t_play that also returns the move's scoring events. */
void t_play_ev(carc_game *g, int x, int y, int rot, const char *fig_port,
               carc_events *ev);
/* Asserts every player's total: want[0..players-1]. */
void t_scores(const carc_game *g, const int *want);
/* Asserts that m is rejected with CARC_ERR_ILLEGAL and a message, by both
 * carc_check_move and carc_apply, and that the game is unchanged byte for
 * byte. */
void t_illegal(carc_game *g, carc_move m);
/* Asserts carc_game_check. */
void t_check(const carc_game *g);
/* Path of a file in the repository's spec/ folder, relative to the
 * repository's root, where tests/run.sh runs the tests. Returns a static
 * buffer, overwritten by the next call. */
const char *t_spec(const char *rel);

#endif
