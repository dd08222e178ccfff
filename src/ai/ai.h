/*
 * ai.h - internals shared by the bots in src/ai (not part of the API).
 *
 * Every bot is a table of operations (ai_bot_ops) plus a parameter table
 * (ai_param); bot.c parses a spec "name:key=value,..." against the table
 * and hands the bot its parameter values in table order. Bots hold all
 * their own state: nothing in src/ai is a mutable global, so any number of
 * bots may run in parallel threads.
 *
 * Bots use the functions of carc.h only, never the fields of carc_game
 * (tests/cli/test_ai_api.sh checks that): the feature queries
 * (carc_feature_*, carc_held_features, carc_field_cities) answer what the
 * evaluation asks about roads, cities, fields and cloisters.
 */
#ifndef CARC_AI_H
#define CARC_AI_H

#include <stddef.h>
#include <stdint.h>

#include "carc.h"
#include "carc_bot.h"

/* ---- random numbers: SplitMix64, one state per bot or thread ----------- */

typedef struct ai_rng {
	uint64_t s;
} ai_rng;

static inline uint64_t ai_rand(ai_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Uniform in 0..n-1 (n > 0); the small bias of a 64-bit modulo is fine
 * (and keeps the random bot's choices those of the first version). */
static inline unsigned ai_below(ai_rng *r, unsigned n)
{
	return (unsigned)(ai_rand(r) % (uint64_t)n);
}

/* Uniform in [0, 1). */
static inline double ai_unit(ai_rng *r)
{
	return (double)(ai_rand(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline uint64_t ai_mix(uint64_t x)
{
	ai_rng r = {x};
	return ai_rand(&r);
}

/* Seconds from a monotonic clock. */
double ai_now(void);

/* ---- parameters ----------------------------------------------------------- */

/* A numeric parameter, or a choice among names (choices != NULL: the value
 * is the index of the name, and the spec is written with the name). */
typedef struct ai_param {
	const char *key;
	double def, lo, hi;
	int integer;                 /* 1: whole numbers only */
	const char *const *choices;  /* NULL-terminated names, or NULL */
	const char *doc;
} ai_param;

#define AI_MAX_PARAMS 24

/* ---- the bot table ---------------------------------------------------------- */

typedef struct ai_bot_ops {
	const char *name;
	const char *summary;
	const ai_param *params;
	int nparams;
	/* Makes the bot's state from its parameter values (in table order);
	 * NULL with a message in err on failure. The bot owns the state. */
	void *(*create)(const double *vals, uint64_t seed, char *err, size_t errsize);
	/* A legal move for the player to move; g is not over. */
	carc_move (*choose)(void *self, const carc_game *g);
	void (*destroy)(void *self);
	/* Optional: asks a running choose() to return as soon as it can. May be
	 * called from another thread. */
	void (*stop)(void *self);
	/* Optional: a line about the last choice (iterations, value, ...). */
	void (*info)(void *self, char *buf, size_t size);
} ai_bot_ops;

extern const ai_bot_ops ai_random_ops;
extern const ai_bot_ops ai_greedy_ops;
extern const ai_bot_ops ai_softgreedy_ops;
extern const ai_bot_ops ai_star25_ops;
extern const ai_bot_ops ai_mcts_ops;

/* ---- shared move helpers -------------------------------------------------------- */

/* Room for one placement's figure choices (options of every figure kind). */
#define AI_MAX_FIGOPTS (CARC_MAX_SEGS * CARC_FIG_COUNT + 2)

/* The random playout policy: a uniform placement; with probability
 * pfig a uniformly chosen figure option of it (if it has any), else none.
 * pfig < 0 means "uniform over the options and none" (the random bot). */
carc_move ai_random_move(const carc_game *g, ai_rng *r, double pfig);

/* ---- a small helper on the public API ---------------------------------------------- */

/* The board tile a move put down: child is parent after one move; its
 * index, or -1 (the tile was set aside). */
static inline int ai_new_tile(const carc_game *child, const carc_game *parent)
{
	int n = carc_board_tiles(child);
	return n > carc_board_tiles(parent) ? n - 1 : -1;
}

/* The text of data/eval-linear.txt (gen/evalmodel.c, made by the Makefile). */
extern const char ai_eval_model_text[];
/* For every player p, out[p] = the heuristic margin of p plus `blend`
 * times the learned correction (learn.c; blend 1 is carc_eval_learned),
 * from one pass over the position. */
void ai_learned_margins(const carc_game *g, const double *w, double blend, double *out);

/* ---- evaluation (eval.c) --------------------------------------------------------- */

typedef struct eval_weights {
	double follower;   /* value of a follower in supply early in the game */
	double follower_k; /* its value falls as T / (T + follower_k) */
	double farm;       /* scale of the farm estimate (1 = as documented) */
	double growth;     /* scale of the growth of open features */
	double close_k;    /* an open side closes with chance T / (T + close_k) */
	double fill_k;     /* a cloister square fills with chance T / (T + fill_k) */
	double goods;      /* share of a good's final 10 points its majority holds now */
	double builder;    /* points a builder brings per tile its feature will grow */
	int relative;      /* 0: minus the mean of the others, 1: minus the best */
} eval_weights;

void eval_default(eval_weights *w);
/* Expected final score of every player (out[players]). */
void eval_expected(const carc_game *g, const eval_weights *w, double *out);
/* Value of the position for player p: its expected final score minus the
 * others' (mean or best, per w->relative). */
double eval_for(const carc_game *g, const eval_weights *w, int p);

/* Values for p of every legal move (after the move, eval_for); fills
 * moves[] and vals[], returns the count (at most max). A placement after
 * which Princess & Dragon's action step follows is valued, with look 1, by the best decision of that step;
 * with look 0 (cheaper: playouts) by deciding "nothing". */
int eval_moves(const carc_game *g, const eval_weights *w, int p, int look,
               carc_move *moves, double *vals, int max);

#endif
