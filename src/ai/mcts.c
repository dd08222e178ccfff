/*
 * mcts.c - Monte Carlo tree search with chance nodes over the tile draw.
 *
 * The tree has three kinds of node:
 *   STATE  a position whose current tile is known: the player to move
 *          chooses where the tile goes; its children are PLACE nodes.
 *   PLACE  a placement chosen: the same player chooses the figure; its
 *          children are MOVE nodes (no figure, then each figure option).
 *   MOVE   a whole move played: the draw of the next tile is chance; its
 *          children are STATE nodes, one per tile kind drawn so far. When
 *          the rules give the turn more steps (carc_step_kind), its one
 *          child is a STEP node instead.
 *   STEP   a position at a step other than the tile's: the player deciding
 *          chooses one of the step's decisions; its children are MOVE
 *          nodes. Nothing here knows what kind of step it is.
 * Splitting a move into placement then figure shares what is learnt about
 * a placement between its figure choices and keeps the branching small.
 *
 * The draw: every iteration starts from the root position with the unknown
 * rest of the pile shuffled afresh (carc_shuffle_rest, the current tile
 * kept). The tile drawn after a MOVE node is then distributed exactly by
 * the counts of the remaining kinds, so descending to the STATE child of
 * that kind samples the chance node with the right weights. The bot never
 * looks at the true order of the pile.
 *
 * With crn=on (common random numbers) the k-th visit of every root
 * placement sees the same k-th tile order, so placements are compared on
 * the same draws.
 *
 * Selection: UCB1 on the mover's mean reward, c = `c`; children not
 * visited yet are tried first, in an order fixed at expansion: by the
 * heuristic prior (eval.c: greedy's value of the move; a placement gets
 * its best figure choice's, or its best action's when the action step of
 * Princess & Dragon follows) where priors are on, else shuffled. With
 * progressive widening a state visited n times chooses among its best
 * ceil(pw * n^pwexp) placements only, and a STEP node among its best
 * decisions likewise. A STEP node's decisions are those of the player
 * carc_to_move names there (in the dragon's steps often not the turn's
 * player): its MOVE children keep that player's reward, so each chooser
 * maximises its own.
 *
 * Leaves: `cutoff` moves of the playout policy (greedy: the best move by
 * the heuristic for whoever moves; random: a random placement and a
 * figure with chance `follower`), then the heuristic evaluation ends the
 * playout (cutoff -1: play to the end). With greedy playouts a new state
 * is expanded at once and its best prior move becomes a tree move standing
 * for the first playout move (the same move, computed once, and the tree
 * grows a ply deeper); otherwise a new state is the leaf.
 * Rewards for each player: at the end of the game win * (1 for a win, 1/k
 * for a k-way shared win, 0 otherwise) + (1 - win) * logistic(margin /
 * scale), margin being the player's score minus the best other score; for
 * a playout cut off, logistic(expected margin / escale) from the
 * evaluation. Each node keeps the reward of the player who made the choice
 * leading to it, so any number of players works.
 *
 * Memory: each thread's tree lives in one node pool allocated when the bot
 * is made; when it is full, search goes on without growing the tree.
 * Between moves the subtree reached by the moves played since (ours, the
 * others', the tiles drawn) is kept: it is compacted to the front of the
 * pool and becomes the new root.
 *
 * Threads: root parallel. Each thread searches its own tree (own seed);
 * the root visit counts are summed to choose. With an iteration budget
 * each thread runs iterations/threads iterations, so a seed and a budget
 * fix the moves.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ai.h"

enum { MN_STATE = 0, MN_PLACE, MN_MOVE, MN_STEP };
/* the `move` of a STEP node under a MOVE (a tile kind is below 256) */
#define MN_STEP_KEY 0xFFFFFFFEu

typedef struct mcts_node {
	uint32_t child;  /* STATE/PLACE: first of nchild in a block; MOVE: list head */
	uint32_t next;   /* STATE under a MOVE: next sibling in the list (0 = end) */
	carc_move move;  /* PLACE: placement, MOVE: move, STATE: tile kind */
	uint32_t visits;
	float wsum;      /* rewards of `player` */
	float prior;     /* heuristic value of the choice (0 when priors are off) */
	uint16_t nchild;
	uint8_t kind;
	uint8_t player;  /* who chose this (PLACE, MOVE); who moves (STATE) */
	uint8_t expanded;
	uint8_t pad[3];
} mcts_node;

#define MCTS_NIL 0xFFFFFFFFu

typedef struct mcts_params {
	double time;       /* seconds per move (0: use iterations) */
	long iterations;   /* per move, all threads together */
	int threads;
	double c;          /* exploration constant */
	double follower;   /* playout: chance of a figure when one can go */
	double win;        /* reward: weight of winning vs margin */
	double scale;      /* reward: margin scale in points */
	int reuse;
	int crn;           /* common random numbers at the root */
	long nodes;        /* pool size per thread */
	int prior;         /* order untried children by the heuristic */
	double pw, pwexp;  /* progressive widening: ceil(pw * visits^pwexp) placements */
	int cutoff;        /* playout moves before the evaluation (-1: to the end) */
	int policy;        /* playout policy: 0 random, 1 greedy */
	double escale;     /* reward of an evaluated leaf: logistic(margin / escale) */
	double learned;    /* leaf: weight of the learned model's correction (0: heuristic) */
	int cpu;           /* time counts the search thread's CPU time, not the wall clock */
	double cutgrow;    /* cutoff * (time / 0.25)^cutgrow with a time budget */
	double ptemp;      /* greedy playouts: softmax temperature in points (0: the best move) */
	int cut;           /* the playout length in use (cutoff, grown; set by choose) */
} mcts_params;

typedef struct mcts_tree {
	mcts_node *pool;
	uint32_t *fwd;
	uint32_t cap, used;
	uint32_t root;
	int has_root;
	carc_game *root_game;
	carc_game *g;         /* scratch for an iteration */
	carc_game *tmp;       /* scratch for the priors */
	ai_rng rng;
	uint64_t crn_seed;
	long iters;
	long reused;          /* visits of the root kept from the last move */
	uint32_t *path;       /* a node of each tree level: 3 a step at most, and one */
	int maxpath;
	carc_move moves[CARC_MAX_MOVES];
	double vals[CARC_MAX_MOVES];
	eval_weights ew;
	const double *lw;     /* the learned model's weights (the bot's) */
} mcts_tree;

typedef struct mcts_bot {
	mcts_params p;
	int nthreads;
	mcts_tree *trees;
	atomic_int stop;
	double deadline;
	long per_thread;
	double lw[64];        /* the learned model (data/eval-linear.txt) */
	/* last choice, for info */
	long last_iters, last_nodes, last_reused;
	double last_value, last_time;
} mcts_bot;

static const char *const ONOFF[] = {"off", "on", NULL};
static const char *const POLICIES[] = {"random", "greedy", NULL};
static const char *const CLOCKS[] = {"wall", "cpu", NULL};

static const ai_param MCTS_PARAMS[] = {
	{"time", 0, 0, 3600, 0, NULL, "seconds per move (0: iterations decide)"},
	{"iter", 2000, 1, 1e9, 1, NULL, "iterations per move when time is 0"},
	{"threads", 1, 0, 64, 1, NULL, "search threads, root parallel (0: one per core)"},
	{"c", 0.1, 0, 10, 0, NULL, "UCB exploration constant (rewards are 0..1)"},
	{"follower", 0.3, 0, 1, 0, NULL, "playout: chance of placing a figure when one can go"},
	{"win", 0.5, 0, 1, 0, NULL, "reward: weight of the win against the score margin"},
	{"scale", 20, 1, 1000, 0, NULL, "reward: points of margin for a logistic step"},
	{"reuse", 1, 0, 1, 1, ONOFF, "keep the subtree of the moves played between calls"},
	{"nodes", 1 << 20, 1000, 1 << 26, 1, NULL, "tree nodes per thread (32 bytes each)"},
	{"prior", 1, 0, 1, 1, ONOFF, "try children in the order of the heuristic (eval.c)"},
	{"pw", 2, 0, 1000, 0, NULL,
	 "progressive widening: a state with n visits considers its best "
	 "ceil(pw * n^pwexp) placements by the heuristic (0: all; needs prior=on)"},
	{"pwexp", 0.5, 0, 1, 0, NULL, "exponent of the progressive widening"},
	{"cutoff", 6, -1, 200, 1, NULL,
	 "playout moves before the heuristic evaluation ends the playout (-1: play to the end)"},
	{"playout", 1, 0, 1, 1, POLICIES,
	 "playout policy: random (uniform placement, figure with chance `follower`) or "
	 "greedy (the best move by the heuristic)"},
	{"crn", 1, 0, 1, 1, ONOFF,
	 "common random numbers: the k-th visit of each root placement sees the same "
	 "tile order"},
	{"escale", 20, 1, 1000, 0, NULL,
	 "an evaluated leaf's reward is logistic(expected margin / escale)"},
	{"learned", 0.5, 0, 1, 0, NULL,
	 "leaf evaluation: the heuristic plus this share of the learned model's correction "
	 "(data/eval-linear.txt; 1: the model)"},
	{"clock", 0, 0, 1, 1, CLOCKS,
	 "what `time` counts: wall (the clock on the wall) or cpu (the search threads' own "
	 "CPU time, for matches on a busy machine)"},
	{"cutgrow", 0.5, 0, 2, 0, NULL,
	 "with a time budget the playouts are cutoff * (time / 0.25)^cutgrow moves long"},
	{"ptemp", 0, 0, 100, 0, NULL,
	 "greedy playouts: a move d points worse than the best is played exp(d/ptemp) times "
	 "less often (0: always the best)"},
};
#define MCTS_NPARAMS ((int)(sizeof MCTS_PARAMS / sizeof MCTS_PARAMS[0]))

/* ---- the pool -------------------------------------------------------------- */

static uint32_t node_alloc(mcts_tree *t, uint32_t n)
{
	if (t->used + n > t->cap)
		return MCTS_NIL;
	uint32_t i = t->used;
	t->used += n;
	memset(&t->pool[i], 0, sizeof(mcts_node) * n);
	return i;
}

/* Keeps only the subtree under node r, moved to the front of the pool
 * (children always sit after their parent, so one forward pass marks the
 * subtree and another moves it down). */
static void tree_compact(mcts_tree *t, uint32_t r)
{
	mcts_node *P = t->pool;
	for (uint32_t i = r; i < t->used; i++)
		t->fwd[i] = 0;
	t->fwd[r] = 1;
	for (uint32_t i = r; i < t->used; i++) {
		if (!t->fwd[i])
			continue;
		if (P[i].kind == MN_MOVE) {
			for (uint32_t c = P[i].child; c; c = P[c].next)
				t->fwd[c] = 1;
		} else if (P[i].expanded) {
			for (uint32_t c = 0; c < P[i].nchild; c++)
				t->fwd[P[i].child + c] = 1;
		}
	}
	uint32_t n = 0;
	for (uint32_t i = r; i < t->used; i++)
		t->fwd[i] = t->fwd[i] ? n++ : MCTS_NIL;
	for (uint32_t i = r; i < t->used; i++) {
		if (t->fwd[i] == MCTS_NIL)
			continue;
		mcts_node nd = P[i];
		if (nd.child && (nd.kind == MN_MOVE || nd.expanded))
			nd.child = t->fwd[nd.child];
		if (nd.next)
			nd.next = t->fwd[nd.next];
		P[t->fwd[i]] = nd;
	}
	t->used = n;
	t->root = 0;
}

static void tree_fresh(mcts_tree *t, const carc_game *g)
{
	t->used = 0;
	t->root = node_alloc(t, 1);
	mcts_node *r = &t->pool[t->root];
	int tile_step = carc_step_kind(g) == CARC_STEP_TILE;
	r->kind = tile_step ? MN_STATE : MN_STEP;
	r->move = tile_step ? (carc_move)carc_current_tile(g) : MN_STEP_KEY;
	r->player = (uint8_t)carc_to_move(g);
	t->reused = 0;
}

/* Finds the node for g under the old root by the moves played since; the
 * tree is compacted around it. Returns 0 if it cannot be reached. */
static int tree_follow(mcts_tree *t, const carc_game *g)
{
	const carc_game *o = t->root_game;
	/* the tree is followed through tile steps only: a game with other
	 * steps starts afresh each time */
	if (!t->has_root || carc_steps_played(o) != carc_turns_played(o) ||
	    carc_steps_played(g) != carc_turns_played(g) || carc_step_kind(g) != CARC_STEP_TILE)
		return 0;
	const int on = carc_turns_played(o), gn = carc_turns_played(g);
	carc_rules ro, rg;
	memset(&ro, 0, sizeof ro);
	memset(&rg, 0, sizeof rg);
	carc_game_rules(o, &ro);
	carc_game_rules(g, &rg);
	if (carc_game_seed(o) != carc_game_seed(g) || gn < on || memcmp(&ro, &rg, sizeof ro) ||
	    carc_tiles_left(g) + gn != carc_tiles_left(o) + on)
		return 0;
	for (int k = 0; k < on; k++) { /* the same game so far */
		int ot, op, gt, gp;
		if (carc_turn_played(o, k, &ot, &op) != carc_turn_played(g, k, &gt, &gp) ||
		    ot != gt || op != gp)
			return 0;
	}
	mcts_node *P = t->pool;
	uint32_t n = t->root;
	if (P[n].kind != MN_STATE || P[n].move != (carc_move)carc_current_tile(o))
		return 0;
	for (int k = on; k < gn; k++) {
		carc_move m = carc_turn_played(g, k, NULL, NULL);
		if (!P[n].expanded)
			return 0;
		uint32_t pl = MCTS_NIL;
		for (uint32_t c = 0; c < P[n].nchild; c++)
			if (P[P[n].child + c].move == carc_move_placement(m))
				pl = P[n].child + c;
		if (pl == MCTS_NIL || !P[pl].expanded)
			return 0;
		uint32_t mv = MCTS_NIL;
		for (uint32_t c = 0; c < P[pl].nchild; c++)
			if (P[P[pl].child + c].move == m)
				mv = P[pl].child + c;
		if (mv == MCTS_NIL)
			return 0;
		int tile = carc_current_tile(g);
		if (k + 1 < gn)
			carc_turn_played(g, k + 1, &tile, NULL);
		uint32_t s = 0;
		for (uint32_t c = P[mv].child; c; c = P[c].next)
			if (P[c].move == (carc_move)tile)
				s = c;
		if (!s)
			return 0;
		n = s;
	}
	if (carc_game_over(g))
		return 0;
	t->reused = P[n].visits;
	tree_compact(t, n);
	return 1;
}

/* ---- one iteration -------------------------------------------------------- */

static void rewards(const carc_game *g, const mcts_params *p, float *out)
{
	int s[CARC_MAX_PLAYERS];
	const int np = carc_players(g);
	carc_game_scores(g, s);
	int best = -100000, nbest = 0;
	for (int i = 0; i < np; i++) {
		if (s[i] > best) {
			best = s[i];
			nbest = 1;
		} else if (s[i] == best) {
			nbest++;
		}
	}
	for (int i = 0; i < np; i++) {
		int other = -100000;
		for (int j = 0; j < np; j++)
			if (j != i && s[j] > other)
				other = s[j];
		double win = s[i] == best ? 1.0 / nbest : 0.0;
		double m = 1.0 / (1.0 + exp(-(s[i] - other) / p->scale));
		out[i] = (float)(p->win * win + (1.0 - p->win) * m);
	}
}

/* Rewards of an unfinished game from the heuristic: the expected margin
 * of each player over the best other, through a logistic. */
static void eval_rewards(mcts_tree *t, const carc_game *g, const mcts_params *p, float *out)
{
	double e[CARC_MAX_PLAYERS];
	const int np = carc_players(g);
	if (p->learned > 0) {
		/* the predicted margins; the best other's is 0 in the formula below */
		ai_learned_margins(g, t->lw, p->learned, e);
		for (int i = 0; i < np; i++)
			out[i] = (float)(1.0 / (1.0 + exp(-e[i] / p->escale)));
		return;
	}
	eval_expected(g, &t->ew, e);
	for (int i = 0; i < np; i++) {
		double other = -1e9;
		for (int j = 0; j < np; j++)
			if (j != i && e[j] > other)
				other = e[j];
		out[i] = (float)(1.0 / (1.0 + exp(-(e[i] - other) / p->escale)));
	}
}

/* A greedy playout's move: the best by the heuristic (the first of equal
 * ones), or with ptemp > 0 one drawn with weight exp((value - best) / ptemp). */
static carc_move playout_move(mcts_tree *t, const mcts_params *p, const carc_game *g)
{
	int n = eval_moves(g, &t->ew, carc_to_move(g), 0, t->moves, t->vals, CARC_MAX_MOVES);
	if (n <= 0)
		return CARC_MOVE_NONE;
	int bi = 0;
	for (int i = 1; i < n; i++)
		if (t->vals[i] > t->vals[bi])
			bi = i;
	if (p->ptemp <= 0 || n == 1)
		return t->moves[bi];
	double top = t->vals[bi], sum = 0;
	for (int i = 0; i < n; i++) {
		t->vals[i] = exp((t->vals[i] - top) / p->ptemp);
		sum += t->vals[i];
	}
	double u = ai_unit(&t->rng) * sum;
	for (int i = 0; i < n; i++) {
		u -= t->vals[i];
		if (u <= 0)
			return t->moves[i];
	}
	return t->moves[bi];
}

static void playout(mcts_tree *t, const mcts_params *p, carc_game *g, carc_move pending,
                    int done)
{
	int left = p->cut < 0 ? 1 << 30 : p->cut - done;
	if (pending != CARC_MOVE_NONE) {
		carc_move m = pending;
		if (m != CARC_MOVE_DISCARD && ai_unit(&t->rng) < p->follower) {
			carc_move fo[AI_MAX_FIGOPTS];
			int nf = carc_figure_options(g, m, fo, AI_MAX_FIGOPTS);
			if (nf)
				m = fo[ai_below(&t->rng, (unsigned)nf)];
		}
		carc_apply(g, m, NULL, NULL);
	}
	while (!carc_game_over(g) && left-- > 0) {
		carc_move m;
		if (p->policy == 1) {
			m = playout_move(t, p, g);
		} else {
			m = ai_random_move(g, &t->rng, p->follower);
		}
		if (carc_apply(g, m, NULL, NULL) != CARC_OK)
			break;
	}
}

/* Sorts a block of children by prior, highest first (insertion sort: the
 * blocks are short and mostly come in any order). */
static void sort_block(mcts_node *b, int n)
{
	for (int i = 1; i < n; i++) {
		mcts_node x = b[i];
		int j = i;
		while (j > 0 && b[j - 1].prior < x.prior) {
			b[j] = b[j - 1];
			j--;
		}
		b[j] = x;
	}
}

static void shuffle_block(mcts_tree *t, mcts_node *b, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)ai_below(&t->rng, (unsigned)i + 1);
		mcts_node x = b[i];
		b[i] = b[j];
		b[j] = x;
	}
}

/* Children of a STATE node: its placements. With priors, a placement's
 * prior is the heuristic value of its best move. */
static int expand_state(mcts_tree *t, const mcts_params *p, uint32_t n, const carc_game *g)
{
	carc_move pl[CARC_MAX_MOVES];
	int np = carc_placements(g, pl, CARC_MAX_MOVES);
	uint32_t b = node_alloc(t, (uint32_t)np);
	if (b == MCTS_NIL)
		return 0;
	mcts_node *B = &t->pool[b];
	int who = carc_to_move(g);
	for (int i = 0; i < np; i++) {
		B[i].kind = MN_PLACE;
		B[i].move = pl[i];
		B[i].player = (uint8_t)who;
		B[i].prior = -1e30f;
	}
	if (p->prior && np > 1) {
		int nm = eval_moves(g, &t->ew, who, 1, t->moves, t->vals, CARC_MAX_MOVES);
		for (int k = 0; k < nm; k++) {
			carc_move m = carc_move_placement(t->moves[k]);
			for (int i = 0; i < np; i++)
				if (B[i].move == m && B[i].prior < (float)t->vals[k])
					B[i].prior = (float)t->vals[k];
		}
		shuffle_block(t, B, np); /* equal priors in random order */
		sort_block(B, np);
	} else {
		shuffle_block(t, B, np);
	}
	t->pool[n].child = b;
	t->pool[n].nchild = (uint16_t)np;
	t->pool[n].expanded = 1;
	return 1;
}

/* Children of a PLACE node: no figure, then each figure option. */
static int expand_place(mcts_tree *t, const mcts_params *p, uint32_t n, const carc_game *g)
{
	carc_move fo[AI_MAX_FIGOPTS + 1];
	carc_move pl = t->pool[n].move;
	int nf = 0;
	fo[nf++] = pl;
	if (pl != CARC_MOVE_DISCARD)
		nf += carc_figure_options(g, pl, fo + 1, AI_MAX_FIGOPTS);
	uint32_t b = node_alloc(t, (uint32_t)nf);
	if (b == MCTS_NIL)
		return 0;
	mcts_node *B = &t->pool[b];
	int who = carc_to_move(g);
	for (int i = 0; i < nf; i++) {
		B[i].kind = MN_MOVE;
		B[i].move = fo[i];
		B[i].player = (uint8_t)who;
		if (p->prior && nf > 1) {
			carc_game_copy(t->tmp, g);
			carc_apply(t->tmp, fo[i], NULL, NULL);
			B[i].prior = (float)eval_for(t->tmp, &t->ew, who);
		}
	}
	if (p->prior && nf > 1)
		sort_block(B, nf);
	else
		shuffle_block(t, B, nf);
	t->pool[n].child = b;
	t->pool[n].nchild = (uint16_t)nf;
	t->pool[n].expanded = 1;
	return 1;
}

/* Children of a STEP node: the step's decisions, as MOVE nodes. */
static int expand_step(mcts_tree *t, const mcts_params *p, uint32_t n, const carc_game *g)
{
	int nd = carc_legal_moves(g, t->moves, CARC_MAX_MOVES);
	uint32_t b = nd > 0 ? node_alloc(t, (uint32_t)nd) : MCTS_NIL;
	if (b == MCTS_NIL)
		return 0;
	mcts_node *B = &t->pool[b];
	int who = carc_to_move(g);
	for (int i = 0; i < nd; i++) {
		B[i].kind = MN_MOVE;
		B[i].move = t->moves[i];
		B[i].player = (uint8_t)who;
		if (p->prior && nd > 1) {
			carc_game_copy(t->tmp, g);
			carc_apply(t->tmp, t->moves[i], NULL, NULL);
			B[i].prior = (float)eval_for(t->tmp, &t->ew, who);
		}
	}
	if (p->prior && nd > 1)
		sort_block(B, nd);
	else
		shuffle_block(t, B, nd);
	t->pool[n].child = b;
	t->pool[n].nchild = (uint16_t)nd;
	t->pool[n].expanded = 1;
	return 1;
}

static uint32_t select_child(const mcts_tree *t, const mcts_params *p, uint32_t n)
{
	const mcts_node *N = &t->pool[n];
	const mcts_node *B = &t->pool[N->child];
	double logn = log((double)(N->visits > 0 ? N->visits : 1));
	uint32_t best = 0, nc = N->nchild;
	double bv = -1e300;
	/* progressive widening: a state's placements, and the decisions of
	 * any other step (the action step may offer a hundred portal
	 * targets), by prior */
	if ((N->kind == MN_STATE || N->kind == MN_STEP) && p->pw > 0 && p->prior) {
		double k = ceil(p->pw * pow((double)N->visits + 1, p->pwexp));
		if (k < nc)
			nc = (uint32_t)k;
	}
	for (uint32_t i = 0; i < nc; i++) {
		if (B[i].visits == 0)
			return N->child + i;
		double v = B[i].wsum / B[i].visits + p->c * sqrt(logn / B[i].visits);
		if (v > bv) {
			bv = v;
			best = i;
		}
	}
	return N->child + best;
}

static void iterate(mcts_tree *t, const mcts_params *p)
{
	carc_game *g = t->g;
	mcts_node *P;
	carc_game_copy(g, t->root_game);
	int tile = carc_current_tile(g), tile_step = t->pool[t->root].kind == MN_STATE;
	uint64_t order = ai_rand(&t->rng);
	if (p->crn && tile_step) {
		/* common random numbers: the k-th visit of every root placement
		 * sees the k-th tile order, so placements are compared on the
		 * same draws */
		uint32_t r = t->root;
		if (t->pool[r].expanded || expand_state(t, p, r, g)) {
			uint32_t c = select_child(t, p, r);
			order = ai_mix(t->crn_seed + 0x9E3779B97F4A7C15ull * t->pool[c].visits);
		}
	}
	carc_shuffle_rest(g, order);
	if (tile_step)
		carc_set_current_tile(g, tile);

	int depth = 0;
	uint32_t n = t->root;
	t->path[depth++] = n;
	carc_move pending = CARC_MOVE_NONE;
	int free_moves = 0; /* tree moves that stand for playout moves */
	for (;;) {
		P = t->pool;
		if (carc_game_over(g))
			break;
		if (P[n].kind == MN_STATE) {
			/* a new state is a leaf for a playout to the end; with an
			 * evaluation cut-off it is expanded at once and the search
			 * goes on to its best reply by the prior */
			if (P[n].visits == 0 && n != t->root && p->cut != 0) {
				/* with greedy playouts the first playout move is the best
				 * prior move: expand now and make it a tree move */
				if (p->policy != 1 || !p->prior || p->cut < 1)
					goto leaf;
				free_moves = 1;
			}
			if (!P[n].expanded && !expand_state(t, p, n, g))
				goto leaf;
			n = select_child(t, p, n);
			t->path[depth++] = n;
		} else if (P[n].kind == MN_PLACE) {
			/* a new placement is expanded at once: its figure choices are
			 * few and the first (by prior) is played */
			if (!P[n].expanded && !expand_place(t, p, n, g)) {
				pending = P[n].move;
				goto leaf;
			}
			n = select_child(t, p, n);
			t->path[depth++] = n;
			carc_apply(g, t->pool[n].move, NULL, NULL);
			if (t->pool[n].visits == 0)
				goto leaf;
		} else if (P[n].kind == MN_STEP) {
			/* a step other than the tile's: like a placement, expanded
			 * at once, its decision played */
			if (!P[n].expanded && !expand_step(t, p, n, g))
				goto leaf;
			n = select_child(t, p, n);
			if (depth >= t->maxpath)
				goto leaf;
			t->path[depth++] = n;
			carc_apply(g, t->pool[n].move, NULL, NULL);
			if (t->pool[n].visits == 0)
				goto leaf;
		} else {
			/* after a MOVE: the next step of the turn, or the draw */
			int next_step = carc_step_kind(g) != CARC_STEP_TILE;
			carc_move key = next_step ? MN_STEP_KEY : (carc_move)carc_current_tile(g);
			uint32_t s = 0;
			for (uint32_t c = P[n].child; c; c = P[c].next)
				if (P[c].move == key) {
					s = c;
					break;
				}
			if (!s) {
				s = node_alloc(t, 1);
				if (s == MCTS_NIL)
					goto leaf;
				P = t->pool;
				P[s].kind = next_step ? MN_STEP : MN_STATE;
				P[s].move = key;
				P[s].player = (uint8_t)carc_to_move(g);
				P[s].next = P[n].child;
				P[n].child = s;
			}
			n = s;
			if (depth < t->maxpath)
				t->path[depth++] = n;
			else
				goto leaf;
		}
	}
leaf:
	if (!carc_game_over(g))
		playout(t, p, g, pending, free_moves);
	float r[CARC_MAX_PLAYERS];
	if (carc_game_over(g))
		rewards(g, p, r);
	else
		eval_rewards(t, g, p, r);
	P = t->pool;
	for (int i = 0; i < depth; i++) {
		mcts_node *x = &P[t->path[i]];
		x->visits++;
		x->wsum += r[x->player];
	}
	t->iters++;
}

/* ---- the bot ------------------------------------------------------------------ */

typedef struct mcts_job {
	mcts_bot *b;
	mcts_tree *t;
	const carc_game *g;
} mcts_job;

/* The calling thread's CPU time in seconds. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *search(void *arg)
{
	mcts_job *j = arg;
	mcts_bot *b = j->b;
	mcts_tree *t = j->t;
	const mcts_params *p = &b->p;
	carc_game_copy(t->root_game, j->g);
	t->iters = 0;
	t->crn_seed = ai_rand(&t->rng);
	double cpu0 = p->cpu ? cpu_now() : 0;
	for (;;) {
		if (t->iters > 0 && atomic_load_explicit(&b->stop, memory_order_relaxed))
			break;
		if (p->time > 0) {
			if (t->iters > 0 && (p->cpu ? cpu_now() - cpu0 >= p->time : ai_now() >= b->deadline))
				break;
		} else if (t->iters >= b->per_thread) {
			break;
		}
		iterate(t, p);
	}
	t->has_root = 1;
	return NULL;
}

static void tree_free(mcts_tree *t)
{
	free(t->pool);
	free(t->fwd);
	free(t->path);
	carc_game_free(t->root_game);
	carc_game_free(t->g);
	carc_game_free(t->tmp);
}

static void *mcts_create(const double *v, uint64_t seed, char *err, size_t errsize)
{
	mcts_bot *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	b->p.time = v[0];
	b->p.iterations = (long)v[1];
	b->p.threads = (int)v[2];
	b->p.c = v[3];
	b->p.follower = v[4];
	b->p.win = v[5];
	b->p.scale = v[6];
	b->p.reuse = (int)v[7];
	b->p.nodes = (long)v[8];
	b->p.prior = (int)v[9];
	b->p.pw = v[10];
	b->p.pwexp = v[11];
	b->p.cutoff = (int)v[12];
	b->p.policy = (int)v[13];
	b->p.crn = (int)v[14];
	b->p.escale = v[15];
	b->p.learned = v[16];
	b->p.cpu = (int)v[17];
	b->p.cutgrow = v[18];
	b->p.ptemp = v[19];
	b->p.cut = b->p.cutoff;
	if (b->p.learned > 0 &&
	    carc_eval_model_parse(ai_eval_model_text, b->lw, (int)(sizeof b->lw / sizeof b->lw[0]),
	                          err, errsize) < 0) {
		char why[200];
		snprintf(why, sizeof why, "%s", err);
		snprintf(err, errsize, "the learned model (data/eval-linear.txt) does not load: %s", why);
		free(b);
		return NULL;
	}
	if (b->p.threads == 0) {
		long nc = sysconf(_SC_NPROCESSORS_ONLN);
		b->p.threads = nc < 1 ? 1 : nc > 64 ? 64 : (int)nc;
	}
	b->nthreads = b->p.threads;
	b->trees = calloc((size_t)b->nthreads, sizeof *b->trees);
	if (!b->trees)
		goto nomem;
	for (int i = 0; i < b->nthreads; i++) {
		mcts_tree *t = &b->trees[i];
		t->cap = (uint32_t)b->p.nodes;
		t->pool = malloc(sizeof *t->pool * t->cap);
		t->fwd = malloc(sizeof *t->fwd * t->cap);
		t->maxpath = 3 * carc_limit(CARC_LIMIT_STEPS) + 8;
		t->path = malloc(sizeof *t->path * (size_t)t->maxpath);
		t->root_game = carc_game_alloc();
		t->g = carc_game_alloc();
		t->tmp = carc_game_alloc();
		if (!t->pool || !t->fwd || !t->path || !t->root_game || !t->g || !t->tmp)
			goto nomem;
		t->rng.s = ai_mix(seed + 0x1000u * (uint64_t)i);
		eval_default(&t->ew);
		t->lw = b->lw;
	}
	atomic_init(&b->stop, 0);
	return b;
nomem:
	snprintf(err, errsize, "out of memory for %d trees of %ld nodes", b->p.threads, b->p.nodes);
	if (b->trees)
		for (int i = 0; i < b->nthreads; i++)
			tree_free(&b->trees[i]);
	free(b->trees);
	free(b);
	return NULL;
}

static void mcts_destroy(void *self)
{
	mcts_bot *b = self;
	for (int i = 0; i < b->nthreads; i++)
		tree_free(&b->trees[i]);
	free(b->trees);
	free(b);
}

static carc_move mcts_choose(void *self, const carc_game *g)
{
	mcts_bot *b = self;
	double t0 = ai_now();
	carc_move pl[CARC_MAX_MOVES];
	int tile_step = carc_step_kind(g) == CARC_STEP_TILE;
	/* the root's choices: placements, or another step's decisions */
	int np = tile_step ? carc_placements(g, pl, CARC_MAX_MOVES)
	                   : carc_legal_moves(g, pl, CARC_MAX_MOVES);
	if (np == 0)
		return CARC_MOVE_NONE;
	b->deadline = t0 + b->p.time;
	b->p.cut = b->p.cutoff;
	if (b->p.cutoff > 0 && b->p.time > 0 && b->p.cutgrow > 0) {
		double c = b->p.cutoff * pow(b->p.time / 0.25, b->p.cutgrow);
		b->p.cut = c < 1 ? 1 : c > 200 ? 200 : (int)lround(c);
	}
	b->per_thread = (b->p.iterations + b->nthreads - 1) / b->nthreads;
	for (int i = 0; i < b->nthreads; i++) {
		mcts_tree *t = &b->trees[i];
		if (!b->p.reuse || !tree_follow(t, g))
			tree_fresh(t, g);
	}
	mcts_job jobs[64];
	pthread_t th[64];
	int started[64] = {0};
	for (int i = 0; i < b->nthreads; i++) {
		jobs[i].b = b;
		jobs[i].t = &b->trees[i];
		jobs[i].g = g;
	}
	for (int i = 1; i < b->nthreads; i++)
		started[i] = pthread_create(&th[i], NULL, search, &jobs[i]) == 0;
	search(&jobs[0]);
	for (int i = 1; i < b->nthreads; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			search(&jobs[i]);
	}
	atomic_store(&b->stop, 0);

	/* sum the root statistics of every tree: placement, then figure */
	static _Thread_local double pv[CARC_MAX_MOVES], pprior[CARC_MAX_MOVES];
	memset(pv, 0, sizeof(double) * (size_t)np);
	for (int i = 0; i < np; i++)
		pprior[i] = -1e30;
	long iters = 0, nodes = 0, reused = 0;
	for (int k = 0; k < b->nthreads; k++) {
		const mcts_tree *t = &b->trees[k];
		const mcts_node *r = &t->pool[t->root];
		iters += t->iters;
		nodes += t->used;
		reused += t->reused;
		if (!r->expanded)
			continue;
		for (uint32_t c = 0; c < r->nchild; c++) {
			const mcts_node *x = &t->pool[r->child + c];
			for (int i = 0; i < np; i++)
				if (pl[i] == x->move) {
					pv[i] += x->visits;
					if (x->prior > pprior[i])
						pprior[i] = x->prior;
				}
		}
	}
	int bi = 0;
	for (int i = 1; i < np; i++)
		if (pv[i] > pv[bi] || (pv[i] == pv[bi] && pprior[i] > pprior[bi]))
			bi = i;
	carc_move best = pl[bi];
	b->last_value = 0;
	if (tile_step && best != CARC_MOVE_DISCARD) {
		carc_move fo[AI_MAX_FIGOPTS + 1];
		int nf = 1;
		fo[0] = best;
		nf += carc_figure_options(g, best, fo + 1, AI_MAX_FIGOPTS);
		double fv[AI_MAX_FIGOPTS + 1] = {0}, fw[AI_MAX_FIGOPTS + 1] = {0};
		for (int k = 0; k < b->nthreads; k++) {
			const mcts_tree *t = &b->trees[k];
			const mcts_node *r = &t->pool[t->root];
			if (!r->expanded)
				continue;
			for (uint32_t c = 0; c < r->nchild; c++) {
				const mcts_node *x = &t->pool[r->child + c];
				if (x->move != best || !x->expanded)
					continue;
				for (uint32_t d = 0; d < x->nchild; d++) {
					const mcts_node *y = &t->pool[x->child + d];
					for (int i = 0; i < nf; i++)
						if (fo[i] == y->move) {
							fv[i] += y->visits;
							fw[i] += y->wsum;
						}
				}
			}
		}
		int fi = 0;
		for (int i = 1; i < nf; i++)
			if (fv[i] > fv[fi])
				fi = i;
		best = fo[fi];
		b->last_value = fv[fi] > 0 ? fw[fi] / fv[fi] : 0;
	}
	b->last_iters = iters;
	b->last_nodes = nodes;
	b->last_reused = reused;
	b->last_time = ai_now() - t0;
	return best;
}

static void mcts_stop(void *self)
{
	mcts_bot *b = self;
	atomic_store(&b->stop, 1);
}

static void mcts_info(void *self, char *buf, size_t size)
{
	mcts_bot *b = self;
	snprintf(buf, size, "iterations=%ld reused=%ld nodes=%ld value=%.3f time=%.3f cutoff=%d",
	         b->last_iters, b->last_reused, b->last_nodes, b->last_value, b->last_time, b->p.cut);
}

const ai_bot_ops ai_mcts_ops = {
	"mcts", "Monte Carlo tree search, chance nodes over the draw, root parallel",
	MCTS_PARAMS, MCTS_NPARAMS, mcts_create, mcts_choose, mcts_destroy, mcts_stop,
	mcts_info,
};
