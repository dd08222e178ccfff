/*
 * greedy.c - one ply: the legal move after which the heuristic evaluation
 * (eval.c: points scored plus the expected value of the features held, the
 * farms and the followers in supply, minus the others') is best.
 * Equal values are broken at random (from the bot's seed).
 *
 * Princess & Dragon (docs/bots.md): the action step's fairy, portal and
 * princess are valued as any decision, by the evaluation after them (the
 * fairy's worth is in eval.c), and a placement with no figure by its best
 * action; a dragon square by the evaluation after it plus a pull toward
 * the others' figures (dragon_pull).
 *
 * softgreedy: the same scores, but the move is drawn with probability
 * proportional to exp((value - best value) / temp), so it plays sensible
 * moves (a move 3 * temp points worse than the best is 20 times less
 * likely than it), just not always the best: a weaker level that still
 * looks like Carcassonne. temp = 0 is greedy, move for move under the same
 * seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ai.h"

typedef struct greedy_bot {
	ai_rng rng;
	eval_weights w;
	carc_move moves[CARC_MAX_MOVES];
	double vals[CARC_MAX_MOVES];
	double last, temp;
	int nmoves;
} greedy_bot;

static const char *const RELATIVE[] = {"mean", "best", NULL};

static const ai_param GREEDY_PARAMS[] = {
	{"follower", 5.0, 0, 20, 0, NULL, "points a follower in supply is worth early on"},
	{"follower_k", 10, 0.1, 1000, 0, NULL, "a follower's worth falls as T/(T+follower_k)"},
	{"farm", 0.67, 0, 3, 0, NULL, "scale of the farm estimate"},
	{"growth", 0.75, 0, 3, 0, NULL, "scale of the expected growth of open features"},
	{"close_k", 19, 0.1, 1000, 0, NULL, "an open side gets closed with chance T/(T+close_k)"},
	{"fill_k", 12, 0.1, 1000, 0, NULL, "a cloister square gets filled with chance T/(T+fill_k)"},
	{"versus", 0, 0, 1, 1, RELATIVE,
	 "compare with the mean of the other players or the best of them"},
	{"goods", 1.0, 0, 2, 0, NULL,
	 "share of a good's final 10 points (Traders & Builders) its majority holds now"},
	{"builder", 1.0, 0, 20, 0, NULL,
	 "points a builder brings for each tile its open road or city is expected to grow by"},
	/* softgreedy only (greedy's table stops before it) */
	{"temp", 1, 0, 1000, 0, NULL,
	 "softmax temperature in points: a move d points worse than the best is "
	 "exp(d/temp) times less likely (0: greedy)"},
};
#define NGREEDY 9

static void *greedy_create(const double *vals, uint64_t seed, char *err, size_t errsize)
{
	greedy_bot *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	b->rng.s = seed;
	eval_default(&b->w);
	b->w.follower = vals[0];
	b->w.follower_k = vals[1];
	b->w.farm = vals[2];
	b->w.growth = vals[3];
	b->w.close_k = vals[4];
	b->w.fill_k = vals[5];
	b->w.relative = (int)vals[6];
	b->w.goods = vals[7];
	b->w.builder = vals[8];
	return b;
}

static void *soft_create(const double *vals, uint64_t seed, char *err, size_t errsize)
{
	greedy_bot *b = greedy_create(vals, seed, err, errsize);
	if (b)
		b->temp = vals[NGREEDY];
	return b;
}

/* Draws a move index with weights exp((vals[i] - vals[best]) / temp). */
static int soft_pick(greedy_bot *b, int n, int best)
{
	double top = b->vals[best], sum = 0;
	for (int i = 0; i < n; i++)
		sum += exp((b->vals[i] - top) / b->temp);
	double u = ai_unit(&b->rng) * sum;
	for (int i = 0; i < n; i++) {
		u -= exp((b->vals[i] - top) / b->temp);
		if (u < 0)
			return i;
	}
	return best; /* rounding left u at about 0 */
}

/* Princess & Dragon, a square of the dragon's movement: the evaluation
 * after it counts what it ate (others' figures gain, one's own lose, each
 * by what its feature and its return are worth); DRAGON_PULL points more
 * for each other player's figure, less for each of one's own, on the
 * squares it could enter next (beside it, not visited, not the fairy's):
 * the dragon heads toward the others' figures. */
#define DRAGON_PULL 0.25

static double dragon_pull(const carc_game *g, carc_move m, int me, carc_game *tmp)
{
	carc_game_copy(tmp, g);
	if (carc_apply(tmp, m, NULL, NULL) != CARC_OK)
		return 0;
	int d = carc_dragon_tile(tmp), x, y, vis[8];
	if (d < 0 || carc_board_tile(tmp, d, NULL, &x, &y, NULL, NULL))
		return 0;
	int nv = carc_dragon_visited(g, vis);
	int fairy = carc_fairy_tile(tmp, NULL);
	carc_figure_info f[CARC_MAX_FIGURES];
	int nf = carc_board_figures(tmp, f, CARC_MAX_FIGURES);
	static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};
	double v = 0;
	for (int k = 0; k < 4; k++) {
		int t = carc_tile_at(tmp, x + DX[k], y + DY[k]), seen = t == fairy || t == d;
		for (int i = 0; i < nv; i++)
			seen |= vis[i] == t;
		if (t < 0 || seen)
			continue;
		for (int i = 0; i < nf; i++)
			if (f[i].tile == t)
				v += f[i].owner == me ? -DRAGON_PULL : DRAGON_PULL;
	}
	return v;
}

static carc_move greedy_choose(void *self, const carc_game *g)
{
	greedy_bot *b = self;
	int p = carc_to_move(g);
	int n = eval_moves(g, &b->w, p, 1, b->moves, b->vals, CARC_MAX_MOVES);
	b->nmoves = n;
	if (n <= 0)
		return CARC_MOVE_NONE;
	if (carc_step_kind(g) == CARC_STEP_DRAGON) {
		carc_game *tmp = carc_game_alloc();
		for (int i = 0; tmp && i < n; i++)
			b->vals[i] += dragon_pull(g, b->moves[i], p, tmp);
		carc_game_free(tmp);
	}
	int best = 0, ties = 1;
	for (int i = 1; i < n; i++) {
		if (b->vals[i] > b->vals[best] + 1e-9) {
			best = i;
			ties = 1;
		} else if (b->vals[i] > b->vals[best] - 1e-9) {
			/* reservoir sampling among equal values */
			if (ai_below(&b->rng, (unsigned)++ties) == 0)
				best = i;
		}
	}
	if (b->temp > 0)
		best = soft_pick(b, n, best);
	b->last = b->vals[best];
	return b->moves[best];
}

static void greedy_info(void *self, char *buf, size_t size)
{
	greedy_bot *b = self;
	snprintf(buf, size, "moves=%d value=%.2f", b->nmoves, b->last);
}

static void greedy_destroy(void *self) { free(self); }

const ai_bot_ops ai_greedy_ops = {
	"greedy", "one ply: best points plus estimated value of features, farms, followers",
	GREEDY_PARAMS, NGREEDY, greedy_create, greedy_choose, greedy_destroy, NULL, greedy_info,
};

const ai_bot_ops ai_softgreedy_ops = {
	"softgreedy", "greedy's scores, the move drawn by a softmax with temperature temp",
	GREEDY_PARAMS, (int)(sizeof GREEDY_PARAMS / sizeof GREEDY_PARAMS[0]), soft_create,
	greedy_choose, greedy_destroy, NULL, greedy_info,
};
