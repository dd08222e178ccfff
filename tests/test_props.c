/*
 * test_props.c - properties of whole random games.
 *
 * Games are seeded (carc_game_init's seed fixes the draw order) and moves
 * are picked by a fixed LCG (below), so every run plays the same games.
 * After every move: the from-scratch state check, followers conserved
 * (supply + on the board = 7), no score goes down, the tile count and the
 * turn order; at the end: 71 turns (placements + discards) for the
 * standard pile, only farmers left on the board, nothing more to play.
 * Also: the same seed gives the same game (hash by hash), the move
 * generator agrees with carc_check_move square by square, the table options
 * (3-5 players, the three farm editions, small_city, farmers off) change
 * only what they should, records round-trip, and a pinned perft count.
 *
 * CARC_QUICK set in the environment (the sanitizer run) plays 300 games
 * instead of 10,000.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "support.h"

/*
 * The move picker: a 64-bit LCG with Knuth's MMIX constants,
 *     s = s * 6364136223846793005 + 1442695040888963407,
 * the pick among n moves being (s >> 33) % n, taken after each step.
 * Seeded with the game's seed. Pinned counts below depend on it.
 */
static unsigned lcg_pick(uint64_t *s, int n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((*s >> 33) % (uint64_t)n);
}

static int quick(void)
{
	const char *q = getenv("CARC_QUICK");
	return q && *q && strcmp(q, "0");
}

/* Followers of player p on the board, from carc_board_figures; checks
 * that the list agrees with the figure slots of the state. */
static int on_board(const carc_game *g, int p)
{
	carc_figure_info fi[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, fi, CARC_MAX_FIGURES), mine = 0, slots = 0;
	for (int i = 0; i < n; i++) {
		assert_true(fi[i].owner >= 0 && fi[i].owner < g->rules.players);
		assert_true(fi[i].tile >= 0 && fi[i].tile < carc_board_tiles(g));
		mine += fi[i].owner == p && fi[i].kind == CARC_FIG_FOLLOWER;
	}
	for (int i = 0; i < CARC_MAX_FIGURES; i++)
		slots += g->fig[i].owner == p;
	assert_int_equal(mine, slots);
	return mine;
}

/* Kind of the feature a listed figure stands on. */
static int figure_feature(const carc_game *g, const carc_figure_info *f)
{
	int type, kind;
	assert_int_equal(carc_board_tile(g, f->tile, &type, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(carc_tile_segment(type, f->seg, &kind, NULL, NULL, NULL), 0);
	return kind;
}

/* Two rotations of a type give the same tile on the board: the same
 * partition of the ports into segments of the same kinds and shields. */
static int same_shape(int type, int r1, int r2)
{
	for (int p = 0; p <= CARC_PORT_CENTRE; p++) {
		int a = carc_tile_port_segment(type, r1, p);
		int b = carc_tile_port_segment(type, r2, p);
		if ((a < 0) != (b < 0))
			return 0;
		if (a < 0)
			continue;
		int ka, kb;
		unsigned fa, fb;
		carc_tile_segment(type, a, &ka, NULL, &fa, NULL);
		carc_tile_segment(type, b, &kb, NULL, &fb, NULL);
		if (ka != kb || fa != fb)
			return 0;
		for (int q = 0; q < p; q++) {
			int a2 = carc_tile_port_segment(type, r1, q);
			int b2 = carc_tile_port_segment(type, r2, q);
			if ((a2 == a) != (b2 == b))
				return 0;
		}
	}
	return 1;
}

/*
 * The move generator against carc_check_move, on the current position:
 * - every placement is legal, no two at one square have the same shape;
 * - every (frontier square, rotation) the check accepts has a placement of
 *   the same shape there; none elsewhere is accepted;
 * - no placement at all: the only move is the discard, which is legal;
 *   otherwise the discard is illegal;
 * - figure options of a placement are exactly the segments the check
 *   accepts a follower on;
 * - carc_legal_moves = each placement followed by its options.
 */
static void check_movegen(const carc_game *g)
{
	static carc_move pl[CARC_MAX_MOVES], mv[CARC_MAX_MOVES], opt[CARC_MAX_SEGS + 1];
	char err[CARC_ERRMSG_SIZE];
	int type = carc_current_tile(g);
	int np = carc_placements(g, pl, CARC_MAX_MOVES);
	int nm = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	assert_true(np >= 1);
	if (pl[0] == CARC_MOVE_DISCARD) {
		assert_int_equal(np, 1);
		assert_int_equal(nm, 1);
		assert_int_equal(mv[0], CARC_MOVE_DISCARD);
		assert_int_equal(carc_check_move(g, CARC_MOVE_DISCARD, err), CARC_OK);
	} else {
		assert_int_equal(carc_check_move(g, CARC_MOVE_DISCARD, err), CARC_ERR_ILLEGAL);
	}
	int k = 0;
	for (int i = 0; i < np && pl[0] != CARC_MOVE_DISCARD; i++) {
		carc_move m = pl[i];
		assert_int_equal(carc_move_seg(m), CARC_SEG_NONE);
		assert_int_equal(carc_check_move(g, m, err), CARC_OK);
		for (int j = 0; j < i; j++)
			if (carc_move_x(pl[j]) == carc_move_x(m) && carc_move_y(pl[j]) == carc_move_y(m))
				assert_false(same_shape(type, carc_move_rot(pl[j]), carc_move_rot(m)));
		/* figure options = the segments the check accepts */
		int no = carc_figure_options(g, m, opt, CARC_MAX_SEGS + 1);
		int want = 0;
		for (int s = 0; s < carc_tile_segments(type); s++) {
			carc_move f = (m & ~(15u << 20)) | ((unsigned)s << 20);
			int ok = carc_check_move(g, f, err) == CARC_OK;
			int listed = 0;
			for (int o = 0; o < no; o++)
				listed |= opt[o] == f;
			assert_int_equal(ok, listed);
			want += ok;
		}
		assert_int_equal(no, want);
		/* carc_legal_moves lists the placement, then its options */
		assert_true(k + 1 + no <= nm);
		assert_int_equal(mv[k], m);
		for (int o = 0; o < no; o++)
			assert_int_equal(mv[k + 1 + o], opt[o]);
		k += 1 + no;
	}
	if (pl[0] != CARC_MOVE_DISCARD)
		assert_int_equal(k, nm);
	/* every square of the frontier, every rotation */
	int legal_sq = 0;
	for (int f = 0; f < g->nfrontier; f++) {
		int x = g->frontier[f].x, y = g->frontier[f].y;
		assert_int_equal(carc_tile_at(g, x, y), -1);
		for (int rot = 0; rot < 4; rot++) {
			carc_move m = carc_move_make(x, y, rot, CARC_SEG_NONE, 0);
			int ok = carc_check_move(g, m, err) == CARC_OK;
			int found = 0;
			for (int i = 0; i < np && pl[0] != CARC_MOVE_DISCARD; i++)
				if (carc_move_x(pl[i]) == x && carc_move_y(pl[i]) == y &&
				    same_shape(type, carc_move_rot(pl[i]), rot))
					found = 1;
			if (ok != found)
				fail_msg("tile %s at (%d, %d) rot %d: check %s, generator %s",
				         carc_tile_name(type), x, y, rot, ok ? "ok" : err,
				         found ? "lists it" : "does not");
			legal_sq += ok;
		}
	}
	assert_int_equal(legal_sq == 0, pl[0] == CARC_MOVE_DISCARD);
	/* squares off the frontier: taken or not touching */
	for (int t = 0; t < g->ntiles; t++) {
		carc_move m = carc_move_make(g->tiles[t].x, g->tiles[t].y, 0, CARC_SEG_NONE, 0);
		assert_int_equal(carc_check_move(g, m, err), CARC_ERR_ILLEGAL);
		m = carc_move_make(g->tiles[t].x + 2, g->tiles[t].y + 2, 0, CARC_SEG_NONE, 0);
		int on_front = 0;
		for (int f = 0; f < g->nfrontier; f++)
			on_front |= g->frontier[f].x == g->tiles[t].x + 2 &&
			            g->frontier[f].y == g->tiles[t].y + 2;
		if (!on_front && carc_tile_at(g, g->tiles[t].x + 2, g->tiles[t].y + 2) < 0)
			assert_int_equal(carc_check_move(g, m, err), CARC_ERR_ILLEGAL);
	}
}

typedef struct game_opts {
	int check_movegen;     /* run check_movegen before every move */
	int illegal_probe;     /* try random moves; rejected ones change nothing */
	uint64_t *hashes;      /* if set: carc_game_hash after every move */
	carc_move *moves;      /* if set: the moves played */
	const carc_move *replay; /* if set: play these instead of picking */
	long *placements;      /* if set: add up carc_placements counts */
	long *legal;           /* if set: add up carc_legal_moves counts */
} game_opts;

/* Plays one whole game with the properties checked after every move.
 * Returns the number of turns (placements + discards). */
static int play_game(carc_game *g, const carc_rules *r, uint64_t seed, const game_opts *o)
{
	static carc_move mv[CARC_MAX_MOVES];
	static carc_move pl[CARC_MAX_MOVES];
	static carc_game before;
	char err[CARC_ERRMSG_SIZE];
	uint64_t rng = seed;
	int np = r->players;
	assert_int_equal(carc_game_init(g, r, seed, NULL, 0, err), CARC_OK);
	int total_tiles = carc_tiles_left(g);
	int turns = 0, prev[CARC_MAX_PLAYERS] = {0}, prev_turn[CARC_MAX_PLAYERS] = {0};
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		assert_true(n > 0 && n < CARC_MAX_MOVES);
		if (o->placements)
			*o->placements += carc_placements(g, pl, CARC_MAX_MOVES);
		if (o->legal)
			*o->legal += n;
		if (o->check_movegen)
			check_movegen(g);
		if (o->illegal_probe) {
			/* a random move: if the engine rejects it, nothing changed */
			carc_move m = carc_move_make((int)lcg_pick(&rng, 9) - 4, (int)lcg_pick(&rng, 9) - 4,
			                             (int)lcg_pick(&rng, 4), (int)lcg_pick(&rng, 16),
			                             (int)lcg_pick(&rng, 2) ? CARC_FIG_FOLLOWER
			                                                    : (int)lcg_pick(&rng, 5));
			int legal = 0;
			for (int i = 0; i < n; i++)
				legal |= mv[i] == m;
			carc_status st = carc_check_move(g, m, err);
			if (legal)
				assert_int_equal(st, CARC_OK);
			else if (st != CARC_OK) {
				memcpy(&before, g, sizeof before);
				assert_int_equal(carc_apply(g, m, NULL, err), CARC_ERR_ILLEGAL);
				assert_memory_equal(&before, g, sizeof before);
			}
		}
		carc_move m = o->replay ? o->replay[turns] : mv[lcg_pick(&rng, n)];
		int player = carc_to_move(g), left = carc_tiles_left(g);
		carc_game_scores(g, prev_turn);
		if (o->replay) {
			int legal = 0;
			for (int i = 0; i < n; i++)
				legal |= mv[i] == m;
			assert_true(legal);
		}
		if (carc_apply(g, m, NULL, err) != CARC_OK)
			fail_msg("seed %llu turn %d: legal move 0x%08x refused: %s",
			         (unsigned long long)seed, turns, m, err);
		if (o->moves)
			o->moves[turns] = m;
		if (o->hashes)
			o->hashes[turns] = carc_game_hash(g);
		turns++;
		t_check(g);
		assert_int_equal(carc_tiles_left(g), left - 1);
		if (!carc_game_over(g))
			assert_int_equal(carc_to_move(g),
			                 m == CARC_MOVE_DISCARD ? player : (player + 1) % np);
		int sc[CARC_MAX_PLAYERS];
		carc_game_scores(g, sc);
		for (int p = 0; p < np; p++) {
			int s = carc_supply(g, p, CARC_FIG_FOLLOWER);
			if (s + on_board(g, p) != 7)
				fail_msg("seed %llu turn %d: player %d has %d in supply, %d on the board",
				         (unsigned long long)seed, turns, p, s, on_board(g, p));
			if (sc[p] < prev[p])
				fail_msg("seed %llu turn %d: player %d went from %d to %d",
				         (unsigned long long)seed, turns, p, prev[p], sc[p]);
			int sum = 0;
			for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++) {
				int v = carc_score_by_kind(g, p, k);
				assert_true(v >= 0);
				sum += v;
			}
			assert_int_equal(sum, sc[p]);
			prev[p] = sc[p];
		}
		carc_figure_info fi[CARC_MAX_FIGURES];
		int nf = carc_board_figures(g, fi, CARC_MAX_FIGURES);
		for (int i = 0; i < nf; i++) {
			assert_int_equal(fi[i].kind, CARC_FIG_FOLLOWER);
			if (!r->farmers)
				assert_int_not_equal(figure_feature(g, &fi[i]), CARC_FEAT_FIELD);
		}
		assert_true(turns <= total_tiles);
	}
	t_check(g);
	/* the end: every tile drawn once, nothing to play, only farmers stay */
	assert_int_equal(turns, total_tiles);
	assert_int_equal(g->nturns, turns);
	assert_int_equal(carc_current_tile(g), -1);
	assert_int_equal(carc_legal_moves(g, mv, CARC_MAX_MOVES), 0);
	assert_int_equal(carc_placements(g, mv, CARC_MAX_MOVES), 0);
	assert_int_equal(carc_apply(g, CARC_MOVE_DISCARD, NULL, err), CARC_ERR_GAME_OVER);
	int discards = 0;
	for (int i = 0; i < turns; i++)
		discards += carc_turn_played(g, i, NULL, NULL) == CARC_MOVE_DISCARD;
	assert_int_equal(g->ntiles, 1 + turns - discards);
	carc_figure_info fi[CARC_MAX_FIGURES];
	int nf = carc_board_figures(g, fi, CARC_MAX_FIGURES);
	for (int i = 0; i < nf; i++)
		assert_int_equal(figure_feature(g, &fi[i]), CARC_FEAT_FIELD);
	/* the final scoring only adds */
	int turn_sc[CARC_MAX_PLAYERS], after[CARC_MAX_PLAYERS];
	carc_game_turn_scores(g, turn_sc);
	carc_game_scores(g, after);
	for (int p = 0; p < np; p++)
		assert_true(turn_sc[p] <= after[p] && turn_sc[p] >= prev_turn[p]);
	if (!r->farmers)
		for (int p = 0; p < np; p++) {
			assert_int_equal(carc_score_by_kind(g, p, CARC_SCORE_FARM), 0);
			assert_int_equal(carc_supply(g, p, CARC_FIG_FOLLOWER), 7);
		}
	return turns;
}

/* The rule sets the many-games run cycles through. */
static carc_rules rules_variant(int i)
{
	carc_rules r = t_rules(2 + i % 4);                 /* 2..5 players */
	r.farm_scoring = (i / 4) % CARC_FARM_SCORING_COUNT; /* all editions */
	r.small_city = (i / 12) % 2;
	r.farmers = (i / 24) % 3 != 2;                     /* a third without farmers */
	return r;
}

/* 10,000 seeded games (300 with CARC_QUICK) over all the rule variants,
 * every move checked. */
static void many_games(void **state)
{
	(void)state;
	int games = quick() ? 300 : 10000;
	carc_game *g = malloc(sizeof *g);
	long turns = 0, discards = 0;
	for (int i = 0; i < games; i++) {
		carc_rules r = rules_variant(i);
		game_opts o = {0};
		int t = play_game(g, &r, 1000003ull * (uint64_t)i + 17, &o);
		/* the standard pile: 71 tiles after the start tile */
		assert_int_equal(t, 71);
		turns += t;
		for (int k = 0; k < t; k++)
			discards += carc_turn_played(g, k, NULL, NULL) == CARC_MOVE_DISCARD;
	}
	print_message("%d games, %ld turns, %ld discards\n", games, turns, discards);
	free(g);
}

/* The move generator agrees with the check on every position of some
 * games, and random rejected moves change nothing. */
static void movegen_agrees_with_check(void **state)
{
	(void)state;
	int games = quick() ? 10 : 150;
	carc_game *g = malloc(sizeof *g);
	for (int i = 0; i < games; i++) {
		carc_rules r = rules_variant(i * 7);
		game_opts o = {0};
		o.check_movegen = 1;
		o.illegal_probe = 1;
		play_game(g, &r, 424242ull + (uint64_t)i, &o);
	}
	free(g);
}

/* Same seed, same picks: the same game, hash after hash; another seed
 * gives another game. */
static void same_seed_same_game(void **state)
{
	(void)state;
	int games = quick() ? 10 : 200;
	carc_game *g = malloc(sizeof *g);
	uint64_t h1[ST_MAX_TILES], h2[ST_MAX_TILES], h3[ST_MAX_TILES];
	carc_move m1[ST_MAX_TILES], m2[ST_MAX_TILES];
	int differ = 0;
	for (int i = 0; i < games; i++) {
		carc_rules r = rules_variant(i);
		uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1);
		game_opts o = {0};
		o.hashes = h1;
		o.moves = m1;
		int t1 = play_game(g, &r, seed, &o);
		uint64_t final1 = carc_game_hash(g);
		int sc1[CARC_MAX_PLAYERS];
		carc_game_scores(g, sc1);
		o.hashes = h2;
		o.moves = m2;
		int t2 = play_game(g, &r, seed, &o);
		assert_int_equal(t1, t2);
		for (int k = 0; k < t1; k++) {
			assert_int_equal(m1[k], m2[k]);
			if (h1[k] != h2[k])
				fail_msg("seed %llu: hashes differ after turn %d", (unsigned long long)seed, k);
		}
		assert_true(carc_game_hash(g) == final1);
		int sc2[CARC_MAX_PLAYERS];
		carc_game_scores(g, sc2);
		assert_memory_equal(sc1, sc2, sizeof(int) * (size_t)r.players);
		/* another seed */
		o.hashes = h3;
		o.moves = NULL;
		int t3 = play_game(g, &r, seed + 1, &o);
		int same = t3 == t1;
		for (int k = 0; same && k < t1; k++)
			same = h3[k] == h1[k];
		differ += !same;
	}
	assert_int_equal(differ, games);
	free(g);
}

/* The used parts of two games agree (carc_game_copy copies those only). */
static void same_state(const carc_game *a, const carc_game *b)
{
	assert_true(carc_game_hash(a) == carc_game_hash(b));
	assert_memory_equal(a, b, offsetof(carc_game, tiles));
	assert_int_equal(a->ntiles, b->ntiles);
	assert_memory_equal(a->tiles, b->tiles, sizeof a->tiles[0] * a->ntiles);
	assert_memory_equal(a->frontier, b->frontier, sizeof a->frontier[0] * a->nfrontier);
	assert_memory_equal(a->clo, b->clo, sizeof a->clo[0] * a->nclo);
	assert_memory_equal(a->fig, b->fig, sizeof a->fig);
	assert_memory_equal(a->turn, b->turn, sizeof a->turn[0] * a->nturns);
	assert_int_equal(a->nsteps, b->nsteps);
	assert_memory_equal(a->steps, b->steps, sizeof a->steps[0] * a->nsteps);
	assert_memory_equal(a->node, b->node, sizeof a->node[0] * a->nnodes);
}

/* A copy is a game of its own: the same move on both gives the same game,
 * and the original does not see moves made on the copy. */
static void copies_are_independent(void **state)
{
	(void)state;
	carc_rules r = t_rules(3);
	carc_game *g = calloc(1, sizeof *g), *c = calloc(1, sizeof *c);
	carc_game *keep = calloc(1, sizeof *keep);
	carc_move mv[CARC_MAX_MOVES];
	char err[CARC_ERRMSG_SIZE];
	uint64_t rng = 5;
	assert_int_equal(carc_game_init(g, &r, 5, NULL, 0, err), CARC_OK);
	while (!carc_game_over(g)) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		carc_move m = mv[lcg_pick(&rng, n)];
		carc_game_copy(c, g);
		same_state(g, c);
		memcpy(keep, g, sizeof *keep);
		assert_int_equal(carc_apply(c, m, NULL, err), CARC_OK);
		assert_memory_equal(keep, g, sizeof *g); /* g untouched */
		assert_int_equal(carc_apply(g, m, NULL, err), CARC_OK);
		same_state(g, c);
		t_check(c);
	}
	free(g);
	free(c);
	free(keep);
}

/*
 * The table options change the scores only as they should. A game is
 * played under the base rules (2 players, international, farmers); the
 * same moves are then replayed under each other farm edition and with
 * small_city: every move stays legal, roads, cities (but small_city) and
 * cloisters score the same; the international farm total of a player is
 * at least its city-once total (a city pays a player once there, through
 * each field here); with small_city the city points are at most the base
 * ones, and differ by 2 per completed two-tile city at most.
 */
static void options_change_only_their_part(void **state)
{
	(void)state;
	int games = quick() ? 20 : 300;
	carc_game *g = malloc(sizeof *g), *v = malloc(sizeof *v);
	carc_move moves[ST_MAX_TILES];
	int once_less = 0, small_less = 0;
	for (int i = 0; i < games; i++) {
		carc_rules r = t_rules(2 + i % 4);
		uint64_t seed = 777ull + (uint64_t)i;
		game_opts o = {0};
		o.moves = moves;
		play_game(g, &r, seed, &o);
		for (int variant = 0; variant < 3; variant++) {
			carc_rules rv = r;
			if (variant < 2)
				rv.farm_scoring = variant == 0 ? CARC_FARM_CITY_ONCE : CARC_FARM_FIRST_EDITION;
			else
				rv.small_city = 1;
			game_opts ov = {0};
			ov.replay = moves;
			play_game(v, &rv, seed, &ov);
			for (int p = 0; p < r.players; p++) {
				int road = carc_score_by_kind(g, p, CARC_SCORE_ROAD);
				int city = carc_score_by_kind(g, p, CARC_SCORE_CITY);
				int clo = carc_score_by_kind(g, p, CARC_SCORE_CLOISTER);
				int farm = carc_score_by_kind(g, p, CARC_SCORE_FARM);
				assert_int_equal(carc_score_by_kind(v, p, CARC_SCORE_ROAD), road);
				assert_int_equal(carc_score_by_kind(v, p, CARC_SCORE_CLOISTER), clo);
				if (variant < 2) {
					assert_int_equal(carc_score_by_kind(v, p, CARC_SCORE_CITY), city);
				} else {
					int vc = carc_score_by_kind(v, p, CARC_SCORE_CITY);
					assert_true(vc <= city);
					assert_int_equal((city - vc) % 2, 0);
					small_less += vc < city;
					assert_int_equal(carc_score_by_kind(v, p, CARC_SCORE_FARM), farm);
				}
				if (variant == 0) {
					int vf = carc_score_by_kind(v, p, CARC_SCORE_FARM);
					assert_true(vf <= farm);
					assert_int_equal(vf % 3, 0);
					once_less += vf < farm;
				}
				if (variant == 1)
					assert_int_equal(carc_score_by_kind(v, p, CARC_SCORE_FARM) % 4, 0);
			}
		}
	}
	/* the options do bite somewhere in these games */
	assert_true(once_less > 0);
	assert_true(small_less > 0);
	free(g);
	free(v);
}

/* Records: every game written with carc_record_write replays through
 * carc_record_replay to the same scores, breakdown and hash. */
static void records_round_trip(void **state)
{
	(void)state;
	int games = quick() ? 50 : 1000;
	carc_game *g = malloc(sizeof *g), *back = malloc(sizeof *back);
	char err[512];
	for (int i = 0; i < games; i++) {
		carc_rules r = rules_variant(i);
		game_opts o = {0};
		uint64_t seed = 31337ull * (uint64_t)i + 1;
		play_game(g, &r, seed, &o);
		char *json = carc_record_write(g, NULL);
		assert_non_null(json);
		err[0] = 0;
		carc_status st = carc_record_replay(json, strlen(json), back, err, sizeof err);
		if (st != CARC_OK)
			fail_msg("seed %llu: replay of its own record: %s", (unsigned long long)seed, err);
		assert_true(carc_game_over(back));
		assert_int_equal(back->rules.players, r.players);
		assert_int_equal(back->rules.farm_scoring, r.farm_scoring);
		assert_int_equal(back->rules.small_city, r.small_city);
		assert_int_equal(back->rules.farmers, r.farmers);
		int a[CARC_MAX_PLAYERS], b[CARC_MAX_PLAYERS];
		carc_game_scores(g, a);
		carc_game_scores(back, b);
		for (int p = 0; p < r.players; p++) {
			assert_int_equal(a[p], b[p]);
			for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
				assert_int_equal(carc_score_by_kind(g, p, k), carc_score_by_kind(back, p, k));
		}
		if (carc_game_hash(g) != carc_game_hash(back))
			fail_msg("seed %llu: replayed game has another hash", (unsigned long long)seed);
		assert_int_equal(back->nturns, g->nturns);
		t_check(back);
		free(json);
	}
	free(g);
	free(back);
}

/*
 * Perft: seed 1, 2 players, default rules, moves picked by the LCG above
 * seeded with 1. The sums over the game of carc_placements counts and of
 * carc_legal_moves counts are pinned; they change only when move
 * generation (or the shuffle, or the picker) changes. Computed once from
 * the engine.
 */
#define PERFT_PLACEMENTS 1853L
#define PERFT_LEGAL 2840L
static void perft_pinned(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = malloc(sizeof *g);
	long placements = 0, legal = 0;
	game_opts o = {0};
	o.placements = &placements;
	o.legal = &legal;
	int t = play_game(g, &r, 1, &o);
	print_message("perft seed 1: %d turns, %ld placements, %ld legal moves\n", t, placements,
	              legal);
	assert_int_equal(t, 71);
	assert_int_equal(placements, PERFT_PLACEMENTS);
	assert_int_equal(legal, PERFT_LEGAL);
	free(g);
}

/* Each test reports its CPU time. */
static clock_t g_start;
static int start_clock(void **state)
{
	(void)state;
	g_start = clock();
	return 0;
}
static int stop_clock(void **state)
{
	(void)state;
	print_message("  (%.1f s)\n", (double)(clock() - g_start) / CLOCKS_PER_SEC);
	return 0;
}
#define TIMED(f) cmocka_unit_test_setup_teardown(f, start_clock, stop_clock)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TIMED(perft_pinned),
		TIMED(many_games),
		TIMED(movegen_agrees_with_check),
		TIMED(same_seed_same_game),
		TIMED(copies_are_independent),
		TIMED(options_change_only_their_part),
		TIMED(records_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
