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
/* Asserts carc_game_check. */
void t_check(const carc_game *g);
/* Path of a file under the shared folder (SHARED_DIR, default ../shared). */
const char *t_shared(const char *rel);

#endif
