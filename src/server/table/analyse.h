/*
 * analyse.h - the analysis of one position and move, shared by `carc
 * analyse` (a whole record), `carc engine` (its "analyse" command) and the
 * server's analyses of finished games (analysis.c, on the bot pool's
 * threads: everything here is reentrant).
 *
 * Values come from the heuristic evaluation of src/ai/eval.c
 * (carc_eval_margin): the mover's expected final score minus the best
 * other player's. The bot only chooses the best move (greedy's choice is
 * the evaluation's best; mcts's is its search's). The win probability is
 * logistic(margin / (3 + 12 t)), t the share of tiles left (72 = 1),
 * fitted on 500 greedy games (bench/bots/win_scale.py; docs/cli.md); a
 * finished game is 1, 1/k for a k-way tie for first, or 0.
 */
#ifndef CARC_SERVER_ANALYSE_H
#define CARC_SERVER_ANALYSE_H

#include "carc.h"
#include "carc_bot.h"

typedef struct an_move {
	int player;             /* the mover */
	carc_move best, played; /* played: CARC_MOVE_NONE when not given */
	double margin_best;     /* the mover's expected margin after best */
	double margin_played;   /* ... after played (= margin_best when none) */
	double win_best, win_played;
	double lost;            /* max(0, margin_best - margin_played) */
} an_move;

/* The win probability of player p in g, from margin (see above). */
double an_win(const carc_game *g, int p, double margin);

/* Analyses the move `played` (or CARC_MOVE_NONE) of the player to move in
 * g (not over), with b choosing the best move. 0, or -1 if played is not
 * legal. */
int an_position(carc_bot *b, const carc_game *g, carc_move played, an_move *out);

/* The game at the start of a record (carc-record-1 text): the record with
 * no turns and no final, replayed into g. 0, or -1 with a message. */
int an_start_of(const char *text, size_t len, carc_game *g, char *err, size_t errsize);

#endif
