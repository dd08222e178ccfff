/*
 * star25.c - expectimax over the tile draw with Star2.5 pruning
 * (Ballard 1983; Hauk, Buro and Schaeffer 2004), the evaluation of greedy
 * (eval.c) at the leaves.
 *
 * The tree alternates decision nodes (the player to move places the tile
 * drawn) and chance nodes (the next tile: every kind left, weighted by its
 * count). Values are those of the bot's own player (eval_for, clamped to
 * [-bound, bound]); the other players minimise them (paranoid search, so
 * 2 to 6 players work the same way). `depth` counts decision plies: depth 1
 * is greedy; depth 2 adds the next player's reply to every tile he may draw.
 *
 * Pruning at a chance node with window (alpha, beta), probabilities P_i and
 * child values v_i in [L, U]:
 *   Star1: after searching children j < i (sum S = sum P_j v_j), child i is
 *     searched with the window ((alpha - S - sum_{j>i} P_j hi_j) / P_i,
 *     (beta - S - sum_{j>i} P_j lo_j) / P_i) and the node fails low or
 *     high as soon as the bounds allow.
 *   Star2: first every child is probed: only its first `probe` moves are
 *     searched (probe = 1 is Star2, more is the "probing factor" of
 *     Star2.5). For a maximising child that is a lower bound lo_i, for a
 *     minimising child an upper bound hi_i; if the sum of bounds already
 *     passes beta (or alpha) the node is cut at once; otherwise the bounds
 *     tighten the Star1 windows above.
 * Moves are ordered by their static value (the values greedy computes);
 * `width` > 0 keeps only that many best moves below the root (forward
 * pruning; 0 keeps all). Iterative deepening to `depth`, within `time`
 * seconds if given: a deeper iteration cut short is used when it finished
 * at least its first move (the previous best, searched first).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai.h"

#define STAR_MAX_DEPTH 8
#define STAR_PLIES (2 * STAR_MAX_DEPTH + 4)

typedef struct star_ply {
	carc_game *g;     /* a child position */
	carc_move moves[CARC_MAX_MOVES];
	double vals[CARC_MAX_MOVES];
	int order[CARC_MAX_MOVES];
} star_ply;

typedef struct star_bot {
	int depth, probe, width;
	double time, bound;
	eval_weights w;
	ai_rng rng;
	int me;
	double deadline;
	long nodes;
	int aborted;
	atomic_int stop;
	star_ply *plies; /* STAR_PLIES of them */
	/* last choice */
	int last_depth;
	long last_nodes;
	double last_value, last_time;
} star_bot;

static const ai_param STAR_PARAMS[] = {
	{"depth", 0, 0, STAR_MAX_DEPTH, 1, NULL, "decision plies searched (1 = greedy; 0: 2 without a time limit, as deep as the time allows with one)"},
	{"probe", 1, 0, 64, 1, NULL, "probing factor: moves probed per chance child (0: Star1)"},
	{"width", 0, 0, 1000, 1, NULL, "best moves kept below the root (0: all)"},
	{"time", 0, 0, 3600, 0, NULL, "seconds per move for iterative deepening (0: no limit)"},
	{"bound", 150, 1, 10000, 0, NULL, "evaluations are clamped to [-bound, bound]"},
};
#define STAR_NPARAMS ((int)(sizeof STAR_PARAMS / sizeof STAR_PARAMS[0]))

static double clampv(const star_bot *b, double v)
{
	return v < -b->bound ? -b->bound : v > b->bound ? b->bound : v;
}

static int out_of_time(star_bot *b)
{
	if (b->aborted)
		return 1;
	if ((++b->nodes & 63) == 0) {
		if (atomic_load_explicit(&b->stop, memory_order_relaxed) ||
		    (b->time > 0 && ai_now() >= b->deadline))
			b->aborted = 1;
	}
	return b->aborted;
}

static double st_chance(star_bot *b, int ply, const carc_game *g, int depth, double alpha,
                        double beta);

/* Generates and orders the moves of g at ply (best first for the mover);
 * returns the count. */
static int order_moves(star_bot *b, int ply, const carc_game *g, int maximise)
{
	star_ply *P = &b->plies[ply];
	int n = eval_moves(g, &b->w, b->me, 1, P->moves, P->vals, CARC_MAX_MOVES);
	for (int i = 0; i < n; i++) {
		P->vals[i] = clampv(b, P->vals[i]);
		P->order[i] = i;
	}
	/* insertion sort of the indices (stable: equal moves keep generation order) */
	for (int i = 1; i < n; i++) {
		int x = P->order[i], j = i;
		double v = P->vals[x];
		while (j > 0 && (maximise ? P->vals[P->order[j - 1]] < v
		                          : P->vals[P->order[j - 1]] > v)) {
			P->order[j] = P->order[j - 1];
			j--;
		}
		P->order[j] = x;
	}
	b->nodes += n;
	return n;
}

/* A decision node; `limit` > 0 searches only the first `limit` moves (a
 * probe). Fail-soft alpha-beta. */
static double st_decision(star_bot *b, int ply, const carc_game *g, int depth, double alpha,
                          double beta, int limit)
{
	if (carc_game_over(g) || depth <= 0)
		return clampv(b, eval_for(g, &b->w, b->me));
	if (out_of_time(b))
		return 0;
	int maximise = carc_to_move(g) == b->me;
	int n = order_moves(b, ply, g, maximise);
	star_ply *P = &b->plies[ply];
	if (ply > 0 && b->width > 0 && n > b->width)
		n = b->width;
	if (limit > 0 && n > limit)
		n = limit;
	if (depth == 1) /* the children are leaves: their ordering values */
		return P->vals[P->order[0]];
	double best = maximise ? -INFINITY : INFINITY;
	for (int k = 0; k < n; k++) {
		star_ply *C = &b->plies[ply + 1];
		carc_game_copy(C->g, g);
		carc_apply(C->g, P->moves[P->order[k]], NULL, NULL);
		/* the turn's next step is another decision, not a draw */
		double v = !carc_game_over(C->g) && carc_step_kind(C->g) != CARC_STEP_TILE
		               ? st_decision(b, ply + 1, C->g, depth - 1, alpha, beta, 0)
		               : st_chance(b, ply + 1, C->g, depth - 1, alpha, beta);
		if (b->aborted)
			return 0;
		if (maximise) {
			if (v > best)
				best = v;
			if (best >= beta)
				return best;
			if (best > alpha)
				alpha = best;
		} else {
			if (v < best)
				best = v;
			if (best <= alpha)
				return best;
			if (best < beta)
				beta = best;
		}
	}
	return best;
}

/* A chance node: g after a move, the next tile not drawn yet. */
static double st_chance(star_bot *b, int ply, const carc_game *g, int depth, double alpha,
                        double beta)
{
	if (carc_game_over(g) || depth <= 0)
		return clampv(b, eval_for(g, &b->w, b->me));
	if (out_of_time(b))
		return 0;
	const double L = -b->bound, U = b->bound;
	const int types = carc_limit(CARC_LIMIT_TILE_TYPES);
	int kinds[types];
	double pr[types], lo[types], hi[types];
	/* the kinds that may be drawn now (River: river tiles first, the
	 * lake last), weighted by their counts */
	int nk = 0, total = 0;
	for (int t = 0; t < types; t++) {
		int c = carc_tile_drawable(g, t) ? carc_tiles_left_of(g, t) : 0;
		if (c > 0) {
			kinds[nk] = t;
			pr[nk] = c;
			lo[nk] = L;
			hi[nk] = U;
			total += c;
			nk++;
		}
	}
	if (nk == 0) /* nothing can be drawn: the game is as good as over */
		return clampv(b, eval_for(g, &b->w, b->me));
	for (int i = 0; i < nk; i++)
		pr[i] /= total;
	/* the likeliest tiles first */
	for (int i = 1; i < nk; i++)
		for (int j = i; j > 0 && pr[j - 1] < pr[j]; j--) {
			double tp = pr[j];
			pr[j] = pr[j - 1];
			pr[j - 1] = tp;
			int tk = kinds[j];
			kinds[j] = kinds[j - 1];
			kinds[j - 1] = tk;
		}
	/* who moves next is the same for every tile drawn */
	int maximise = carc_to_move(g) == b->me;
	star_ply *C = &b->plies[ply + 1];

	if (b->probe > 0) {
		/* Star2 probing: bounds from the first moves of every child */
		double sum_lo = 0, sum_hi = 0; /* over all children of their bounds */
		for (int i = 0; i < nk; i++) {
			sum_lo += pr[i] * lo[i];
			sum_hi += pr[i] * hi[i];
		}
		for (int i = 0; i < nk; i++) {
			carc_game_copy(C->g, g);
			carc_set_current_tile(C->g, kinds[i]);
			if (maximise) {
				/* cut when sum of lower bounds reaches beta */
				double need = (beta - (sum_lo - pr[i] * lo[i])) / pr[i];
				double wa = L, wb = need < U ? need : U;
				double v = st_decision(b, ply + 1, C->g, depth, wa, wb, b->probe);
				if (b->aborted)
					return 0;
				if (v > lo[i]) {
					sum_lo += pr[i] * (v - lo[i]);
					lo[i] = v;
				}
				if (sum_lo >= beta)
					return sum_lo;
			} else {
				double need = (alpha - (sum_hi - pr[i] * hi[i])) / pr[i];
				double wa = need > L ? need : L, wb = U;
				double v = st_decision(b, ply + 1, C->g, depth, wa, wb, b->probe);
				if (b->aborted)
					return 0;
				if (v < hi[i]) {
					sum_hi += pr[i] * (v - hi[i]);
					hi[i] = v;
				}
				if (sum_hi <= alpha)
					return sum_hi;
			}
		}
	}

	/* Star1 search with the bounds */
	double S = 0, rest_lo = 0, rest_hi = 0;
	for (int i = 0; i < nk; i++) {
		rest_lo += pr[i] * lo[i];
		rest_hi += pr[i] * hi[i];
	}
	for (int i = 0; i < nk; i++) {
		rest_lo -= pr[i] * lo[i];
		rest_hi -= pr[i] * hi[i];
		double A = (alpha - S - rest_hi) / pr[i];
		double B = (beta - S - rest_lo) / pr[i];
		double wa = A > L ? A : L, wb = B < U ? B : U;
		carc_game_copy(C->g, g);
		carc_set_current_tile(C->g, kinds[i]);
		double v = st_decision(b, ply + 1, C->g, depth, wa, wb, 0);
		if (b->aborted)
			return 0;
		if (v <= A)
			return S + pr[i] * v + rest_hi;
		if (v >= B)
			return S + pr[i] * v + rest_lo;
		S += pr[i] * v;
	}
	return S;
}

static void star_destroy(void *self)
{
	star_bot *b = self;
	if (b && b->plies)
		for (int i = 0; i < STAR_PLIES; i++)
			carc_game_free(b->plies[i].g);
	if (b)
		free(b->plies);
	free(b);
}

static void *star_create(const double *v, uint64_t seed, char *err, size_t errsize)
{
	star_bot *b = calloc(1, sizeof *b);
	if (b)
		b->plies = calloc(STAR_PLIES, sizeof *b->plies);
	int ok = b && b->plies;
	for (int i = 0; ok && i < STAR_PLIES; i++)
		ok = (b->plies[i].g = carc_game_alloc()) != NULL;
	if (!ok) {
		star_destroy(b);
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	b->depth = (int)v[0];
	b->probe = (int)v[1];
	b->width = (int)v[2];
	b->time = v[3];
	if (b->depth == 0) /* auto: deepen while the time lasts */
		b->depth = b->time > 0 ? STAR_MAX_DEPTH : 2;
	b->bound = v[4];
	b->rng.s = seed;
	eval_default(&b->w);
	atomic_init(&b->stop, 0);
	return b;
}


static carc_move star_choose(void *self, const carc_game *g)
{
	star_bot *b = self;
	double t0 = ai_now();
	b->me = carc_to_move(g);
	b->deadline = t0 + b->time;
	b->nodes = 0;
	b->aborted = 0;
	/* the root's moves, ordered once; deeper iterations reorder by score */
	static const int ROOT = 0;
	int n = order_moves(b, ROOT, g, 1);
	star_ply *R = &b->plies[ROOT];
	if (n <= 0)
		return CARC_MOVE_NONE;
	int order[CARC_MAX_MOVES];
	double score[CARC_MAX_MOVES];
	carc_move moves[CARC_MAX_MOVES];
	for (int i = 0; i < n; i++) {
		moves[i] = R->moves[R->order[i]];
		score[i] = R->vals[R->order[i]];
		order[i] = i;
	}
	/* random choice among equal best moves at depth 1 */
	int ties = 1;
	while (ties < n && score[ties] >= score[0] - 1e-9)
		ties++;
	if (ties > 1) {
		int k = (int)ai_below(&b->rng, (unsigned)ties);
		order[0] = k;
		order[k] = 0;
	}
	int best = order[0];
	double best_v = score[best];
	int done_depth = 1;
	for (int d = 2; d <= b->depth && n > 1; d++) {
		double alpha = -INFINITY;
		int it_best = -1, searched = 0;
		double it_v[CARC_MAX_MOVES];
		for (int k = 0; k < n; k++) {
			int i = order[k];
			star_ply *C = &b->plies[ROOT + 1];
			carc_game_copy(C->g, g);
			carc_apply(C->g, moves[i], NULL, NULL);
			double v = !carc_game_over(C->g) && carc_step_kind(C->g) != CARC_STEP_TILE
			               ? st_decision(b, ROOT + 1, C->g, d - 1, alpha, INFINITY, 0)
			               : st_chance(b, ROOT + 1, C->g, d - 1, alpha, INFINITY);
			if (b->aborted)
				break;
			it_v[i] = v;
			searched++;
			if (it_best < 0 || v > alpha) {
				alpha = v;
				it_best = i;
			}
		}
		if (it_best >= 0) {
			best = it_best;
			best_v = alpha;
		}
		if (b->aborted)
			break;
		done_depth = d;
		/* next iteration: best first, then by this iteration's values
		 * (fail-low moves keep their relative order) */
		for (int k = 1; k < searched; k++) {
			int x = order[k], j = k;
			while (j > 0 && it_v[order[j - 1]] < it_v[x]) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = x;
		}
		if (b->time > 0 && ai_now() >= b->deadline)
			break;
	}
	atomic_store(&b->stop, 0);
	b->last_depth = done_depth;
	b->last_nodes = b->nodes;
	b->last_value = best_v;
	b->last_time = ai_now() - t0;
	return moves[best];
}

static void star_stop(void *self)
{
	star_bot *b = self;
	atomic_store(&b->stop, 1);
}

static void star_info(void *self, char *buf, size_t size)
{
	star_bot *b = self;
	snprintf(buf, size, "depth=%d nodes=%ld value=%.2f time=%.3f", b->last_depth,
	         b->last_nodes, b->last_value, b->last_time);
}

const ai_bot_ops ai_star25_ops = {
	"star25", "expectimax over the draw with Star2.5 pruning and greedy's evaluation",
	STAR_PARAMS, STAR_NPARAMS, star_create, star_choose, star_destroy, star_stop, star_info,
};
