/*
 * carc_bot.h - bots for libcarc: one interface for every playing strength.
 *
 * A bot is made from a spec string, "name" or "name:key=value,key=value",
 * e.g. "random", "greedy", "mcts:time=1.0,threads=2". It only reads the
 * game it is given and returns a legal move for the player to move.
 *
 * Bots: random, greedy (one ply and a heuristic evaluation), star25
 * (expectimax over the draw with Star2.5 pruning), mcts (Monte Carlo tree
 * search with chance nodes over the draw). carc_bot_describe lists each
 * bot's parameters; docs/bots.md explains them.
 *
 * A bot may keep state between calls (mcts keeps its search tree and reuses
 * the part that the moves played since still reach); it works out what was
 * played from the game it is given, so it may be handed any game at any
 * time. One bot must not be used from two threads at once, except for
 * carc_bot_stop. Bots keep no global state: many may run in parallel.
 */
#ifndef CARC_BOT_H
#define CARC_BOT_H

#include <stddef.h>
#include <stdint.h>

#include "carc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct carc_bot carc_bot;

/* Makes a bot from a spec; NULL with a message in err for a bad spec.
 * The caller owns the bot and frees it with carc_bot_free. */
carc_bot *carc_bot_new(const char *spec, uint64_t seed, char *err, size_t errsize);
/* The move the bot chooses for the player to move (a legal move);
 * CARC_MOVE_NONE when the game is over. */
carc_move carc_bot_choose(carc_bot *b, const carc_game *g);
/* The spec the bot was made from, normalised (a string the bot owns). */
const char *carc_bot_spec(const carc_bot *b);
void carc_bot_free(carc_bot *b);
/* Names of the bots this library knows, NULL-terminated. */
const char *const *carc_bot_names(void);

/* Asks a carc_bot_choose running in another thread to return its best move
 * so far as soon as it can (within a few milliseconds). Safe to call from
 * any thread while the bot thinks; the request lasts for that one call. */
void carc_bot_stop(carc_bot *b);
/* A one-line summary of the bot's last choice (e.g. "iterations=5210
 * value=0.63 nodes=81234"), empty when the bot has nothing to say. */
void carc_bot_info(carc_bot *b, char *buf, size_t size);
/* Help text for a bot name: a summary and one line per parameter with its
 * default and range. Returns 0, or -1 for an unknown name. */
int carc_bot_describe(const char *name, char *buf, size_t size);

/* The heuristic evaluation greedy plays by (src/ai/eval.c with its default
 * weights) for player p: p's expected final score minus the best expected
 * final score of the other players, in points. For a finished game, the
 * final margin. It reads the position only (cheap: a few microseconds). */
double carc_eval_margin(const carc_game *g, int player);

/* The same evaluation split by where the points come from, for
 * explaining a move (the server's analyses): out[p][part] for every
 * player p, with the parts below summing to p's expected final score (the
 * number carc_eval_margin subtracts from). Each of the first seven parts is
 * the points of that carc_score_kind scored so far plus the features'
 * expected value (a field's in FARM); FOLLOWERS is what followers in
 * supply and followers expected back from roads, cities and cloisters are
 * worth; BUILDERS the builders' expected extra tiles. A finished game:
 * the final points by kind. Cheap (one pass over the held features). */
typedef enum carc_eval_part {
	CARC_PART_ROAD = 0, /* = CARC_SCORE_ROAD, and so on to FAIRY */
	CARC_PART_CITY,
	CARC_PART_CLOISTER,
	CARC_PART_FARM,
	CARC_PART_GARDEN,
	CARC_PART_GOODS,
	CARC_PART_FAIRY, /* = CARC_SCORE_FAIRY: its points and its expected ones */
	CARC_PART_FOLLOWERS,
	CARC_PART_BUILDERS,
	CARC_PART_COUNT
} carc_eval_part;
void carc_eval_parts(const carc_game *g, double out[CARC_MAX_PLAYERS][CARC_PART_COUNT]);

/* The learned evaluation (src/ai/learn.c, docs/bots.md). carc_eval_features writes the features of g for player p into
 * out[carc_eval_nfeatures()] and returns their count; the names are
 * carc_eval_feature_name(i) (NULL out of range). carc_eval_fit fits
 * y ~ x w by ridge regression (x: rows x cols, row-major; lambda on every
 * weight) into w[cols]; 0, or -1 (singular, out of memory). */
int carc_eval_nfeatures(void);
const char *carc_eval_feature_name(int i);
int carc_eval_features(const carc_game *g, int p, double *out);
int carc_eval_fit(const double *x, const double *y, int rows, int cols, double lambda,
                  double *w);
/* The shipped model: the text of data/eval-linear.txt as built in (lines
 * "NAME WEIGHT" in the order of carc_eval_feature_name, '#' comments).
 * carc_eval_model_parse reads such a text into w[max]: the count, or -1
 * with a message in err (a name out of order, a bad number, too few).
 * carc_eval_learned is the model's predicted final margin of player p (own
 * score minus the best other's): carc_eval_margin + t * (w . features), t
 * the share of tiles left; a finished game's true margin. */
const char *carc_eval_model_text(void);
int carc_eval_model_parse(const char *text, double *w, int max, char *err, size_t errsize);
double carc_eval_learned(const carc_game *g, int player, const double *w);

#ifdef __cplusplus
}
#endif

#endif
