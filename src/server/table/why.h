/*
 * why.h - why a move lost points, as facts the engine knows (for the
 * server's analyses, analysis.c; docs/web.md "Why a move lost" says how
 * the client words them and docs/protocol.md section 7 the JSON).
 *
 * For a turn whose move lost at least WHY_MIN_LOST points against the
 * better move, why_turn compares the position after the better move (B)
 * with the one after the move played (P): the points each scores at once
 * by kind, the evaluation's expected final points by part
 * (carc_eval_parts) for the mover and for the best other player, and
 * up to WHY_MAX_REASONS reasons, each a code with parameters and always
 * naming a feature at a square and port of B or P:
 *
 *   close    the better move completes the mover's feature (points now)
 *   claim    the better move puts the mover's figure on a free feature
 *   contest  the better move joins a feature another player holds, the
 *            mover holding part of it after (share it or take it over)
 *   block    the better move makes another player's feature worth less to
 *            them (more open sides: harder to complete)
 *   gift     the move played added to (or completed) another player's
 *            feature the mover has no part in
 *   tied     the move played put a follower on a feature that kept it for
 *            many of the mover's turns (from the real rest of the game):
 *            turns held, turns with no follower left, when it came back
 *   spent    the move played used a follower the better move kept
 *   goods    the better move completes a city with goods the mover takes
 *   recall   the move played took the mover's abbot back early; the
 *            better move leaves it where it is worth more
 *   value    the better move adds more to a feature of the mover's kind
 *            (the fallback: the largest expected gain by kind)
 *
 * The rest of the game (why_future) is one replay of the record: bounded
 * by the game's steps (carc_limit) and its figures (CARC_MAX_FIGURES).
 * Its index is the step (a step is one player's decision); a step that
 * places no tile has no figure of its own to follow.
 * Everything here is plain computation on copies: any thread.
 */
#ifndef CARC_SERVER_WHY_H
#define CARC_SERVER_WHY_H

#include <jansson.h>

#include "carc.h"

#define WHY_MIN_LOST 1.0  /* points: a smaller loss gets no "why" */
#define WHY_MAX_REASONS 3
#define WHY_GAIN_MIN 0.5  /* points: an expected change smaller is no reason */
#define WHY_OTHER_MIN 1.0 /* points: another player's change for block, gift */
#define WHY_TIED_MIN 4    /* the mover's turns a follower must stay to be "tied" */
#define WHY_IDLE_CAP 8    /* turns without a follower that add to a "tied" reason's rank */

/* What happened in the real game after each step. A follower's "tied"
 * facts count the mover's turns (its tile steps), and name the turn it
 * came back in, as the analysis names its entries. */
typedef struct why_future {
	int n;           /* steps */
	uint8_t *mover;  /* who decided step k (0-based) */
	uint8_t *tile;   /* 1: step k is a tile step (its turn's first) */
	int16_t *turn;   /* the turn (0-based) of step k */
	uint8_t *supply; /* the mover's followers in supply before step k */
	int16_t *back;   /* the figure placed at step k left the board during step
	                    back[k]; n: it stayed to the end; -1: no figure placed */
} why_future;

/* Replays rec (the whole game) from start (its first position) into f
 * (its arrays allocated: why_future_free). 0, or -1 when a step does not
 * follow (f is then empty: no tied facts). */
int why_future_build(const carc_game *start, const carc_game *rec, why_future *f);
void why_future_free(why_future *f);

/* The "why" object of step k (0-based, a tile step) of the position g
 * (before it), best and played legal moves of g (best != played); f may
 * be NULL. A new reference the caller owns, or NULL when out of memory. */
json_t *why_turn(const carc_game *g, carc_move best, carc_move played, const why_future *f,
                 int k);

#endif
