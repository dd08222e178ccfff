/*
 * test_exp_props.c - properties of whole random games with the expansions.
 *
 * One test per subset of the six expansion bits (the two Inns &
 * Cathedrals options exclude each other: 48 subsets). Each plays seeded
 * games with the standard pile of its rule set, 2 to 5 players (2 to 6 with
 * Inns & Cathedrals), every move picked uniformly from carc_legal_moves by
 * a fixed LCG, so every run plays the same games. Checked:
 * - after every move: the from-scratch check (carc_game_check), every
 *   figure conserved (supply + on the board = what the player started
 *   with), no score going down, each total the sum of its kinds, the turn
 *   order (a discard: the same player again; a builder's extra tile: the
 *   same player, never twice in a row; else the next player), no goods
 *   without Traders & Builders;
 * - every legal move uses only figures of the rule set; every tile drawn
 *   belongs to the rule set; with the River, pieces first, then the lake,
 *   then the rest;
 * - at the end: as many turns as tiles in the pile, only farmers (and
 *   pigs) left on the board;
 * - the game written as a record (carc_record_write) and replayed
 *   (carc_record_replay), at the end and once half-way, gives the same
 *   scores, breakdown, supplies, goods and carc_game_hash.
 * The games take the three farm-scoring editions in turn.
 * - Princess & Dragon: the action step is the turn's player's, the dragon's
 *   squares are decided by the players in turn from the turn's player, each
 *   decision survives its JSON, the dragon and the fairy never share a
 *   tile, no figure stands on the dragon's tile, and the pile runs out
 *   with the dragon tiles drawn, or held back when no volcano came.
 * A last test checks that the games as a whole used every special rule
 * (bonus turns, recalls, goods, pigs, big followers, builders, the fairy,
 * the portal, the princess, the dragon eating).
 *
 * The test build's own step kind ("test-pass": after a tile is placed the
 * next player passes, saying 0 or 1) is played in two more subsets, the
 * base game and every expansion: the checks above hold after every step,
 * the later step is decided by the player the engine names, the turn order
 * is kept across it, and every step's decisions survive their JSON (the
 * engine's writer, then its reader).
 *
 * CARC_QUICK set in the environment (the sanitizer run): 2 games per
 * subset instead of 10.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define NSUBSETS 48
#define NSTEPSETS 2 /* the subsets with the test build's step kind */
#define GAMES 10
#define GAMES_QUICK 2

static int quick(void)
{
	const char *q = getenv("CARC_QUICK");
	return q && *q && strcmp(q, "0");
}

/* The move picker: a 64-bit LCG (Knuth's MMIX constants), the pick among
 * n being (s >> 33) % n after each step. */
static unsigned lcg_pick(uint64_t *s, int n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((*s >> 33) % (uint64_t)n);
}

/* What the games did, over all subsets. */
static struct {
	int games, turns, discards;
	int bonus, recalls, goods;
	int placed[CARC_FIG_COUNT];
	int later_steps; /* steps after the tile step (the test build's) */
	int actions[4];  /* Princess & Dragon: none, fairy, portal, princess */
	int dragon_steps, eaten, fairy_points, held_back_games;
} seen;

static void x_check(const carc_game *g, const char *what)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_game_check(g, err) != CARC_OK)
		fail_msg("%s: state check: %s", what, err);
}

static int start_supply(unsigned exp, int fig)
{
	switch (fig) {
	case CARC_FIG_FOLLOWER: return 7;
	case CARC_FIG_BIG: return (exp & CARC_EXP_INNS) ? 1 : 0;
	case CARC_FIG_BUILDER:
	case CARC_FIG_PIG: return (exp & CARC_EXP_TRADERS) ? 1 : 0;
	case CARC_FIG_ABBOT: return (exp & CARC_EXP_ABBOT) ? 1 : 0;
	default: return 0;
	}
}

/* May a figure be used at all under these expansions? */
static int figure_in_rules(unsigned exp, int fig)
{
	return fig == CARC_FIG_FOLLOWER || start_supply(exp, fig) > 0;
}

/* Is a tile type part of this rule set? */
static int tile_in_rules(unsigned exp, int t)
{
	if (carc_tile_is_garden_copy(t, NULL) && !(exp & CARC_EXP_ABBOT))
		return 0;
	switch (carc_tile_set(t)) {
	case CARC_SET_BASE: return 1;
	case CARC_SET_RIVER: return (exp & CARC_EXP_RIVER) != 0;
	case CARC_SET_INNS: return (exp & (CARC_EXP_INNS | CARC_EXP_INNS_TILES)) != 0;
	case CARC_SET_TRADERS: return (exp & CARC_EXP_TRADERS) != 0;
	case CARC_SET_PRINCESS: return (exp & CARC_EXP_PRINCESS) != 0;
	default: return 0;
	}
}

static void board_figures(const carc_game *g, int on[CARC_MAX_PLAYERS][CARC_FIG_COUNT])
{
	memset(on, 0, sizeof(int) * CARC_MAX_PLAYERS * CARC_FIG_COUNT);
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		assert_true(f->owner < g->rules.players && f->kind < CARC_FIG_COUNT);
		on[f->owner][f->kind]++;
	}
}

/* The game through a record and back: the same in every respect the API
 * shows. */
static void round_trip(const carc_game *g, const char *what)
{
	char *json = carc_record_write(g, NULL);
	assert_non_null(json);
	carc_game *back = malloc(sizeof *back);
	assert_non_null(back);
	char err[512] = "";
	carc_status st = carc_record_replay(json, strlen(json), back, err, sizeof err);
	if (st != CARC_OK)
		fail_msg("%s: replay of its own record: %s", what, err);
	x_check(back, what);
	const int np = g->rules.players;
	assert_int_equal(back->rules.players, np);
	assert_int_equal(back->rules.expansions, g->rules.expansions);
	assert_int_equal(carc_game_over(back), carc_game_over(g));
	assert_int_equal(carc_tiles_left(back), carc_tiles_left(g));
	assert_int_equal(carc_to_move(back), carc_to_move(g));
	assert_int_equal(carc_bonus_turn(back), carc_bonus_turn(g));
	int a[CARC_MAX_PLAYERS], b[CARC_MAX_PLAYERS];
	carc_game_scores(g, a);
	carc_game_scores(back, b);
	for (int p = 0; p < np; p++) {
		if (a[p] != b[p])
			fail_msg("%s: player %d scores %d, replayed %d", what, p, a[p], b[p]);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			if (carc_score_by_kind(g, p, k) != carc_score_by_kind(back, p, k))
				fail_msg("%s: player %d kind %d: %d, replayed %d", what, p, k,
				         carc_score_by_kind(g, p, k), carc_score_by_kind(back, p, k));
		for (int f = 0; f < CARC_FIG_COUNT; f++)
			assert_int_equal(carc_supply(g, p, f), carc_supply(back, p, f));
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			assert_int_equal(carc_goods_held(g, p, k), carc_goods_held(back, p, k));
	}
	if (carc_game_hash(g) != carc_game_hash(back))
		fail_msg("%s: the replayed game has another hash", what);
	free(back);
	free(json);
}

/* Every decision of g's current step written as JSON and read back is
 * the same decision. */
static void json_round_trip(const carc_game *g, const carc_move *mv, int n, const char *what)
{
	for (int i = 0; i < n; i++) {
		char *json = carc_move_json(g, mv[i]), err[CARC_ERRMSG_SIZE] = "";
		carc_move back = CARC_MOVE_NONE;
		assert_non_null(json);
		if (carc_move_parse(g, json, strlen(json), &back, err) != CARC_OK || back != mv[i])
			fail_msg("%s: decision 0x%x as %s read back as 0x%x (%s)", what, mv[i], json, back,
			         err);
		free(json);
	}
}

static void play_one(unsigned exp, int players, uint64_t seed)
{
	char what[96];
	snprintf(what, sizeof what, "expansions 0x%02x, %d players, seed %llu", exp, players,
	         (unsigned long long)seed);
	carc_rules r;
	carc_rules_default(&r);
	r.players = players;
	r.expansions = exp;
	/* the three farm-scoring editions in turn (the fairy's farmer too) */
	r.farm_scoring = (int)(seed % CARC_FARM_SCORING_COUNT);
	int counts[TILE_TYPES];
	const int total = carc_rules_pile(&r, counts);

	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	static carc_move mv[CARC_MAX_MOVES];
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_game_init(g, &r, seed, NULL, 0, err) != CARC_OK)
		fail_msg("%s: init: %s", what, err);
	x_check(g, what);
	int dragon_tiles = 0;
	for (int t = 0; t < TILE_TYPES; t++)
		if (carc_tile_symbol(t) == CARC_SYM_DRAGON)
			dragon_tiles += counts[t];
	/* the dragon tiles wait for a volcano */
	assert_int_equal(carc_tiles_left(g), total - dragon_tiles);
	assert_int_equal(g->tiles[0].type, carc_rules_start_tile(&r));
	const int lake = carc_tile_parse("r2");

	uint64_t rng = seed ^ 0x5DEECE66Dull;
	int prev[CARC_MAX_PLAYERS] = {0};
	int on[CARC_MAX_PLAYERS][CARC_FIG_COUNT];
	int turns = 0, phase = 0, steps = 0;
	const int half = total / 2;
	/* the turn's tile step, for the turn order once the turn has ended */
	carc_move m = CARC_MOVE_NONE;
	int mover = 0, was_bonus = 0;
	while (!carc_game_over(g)) {
		int kind = carc_step_kind(g);
		if (kind == CARC_STEP_ACTION || kind == CARC_STEP_DRAGON) {
			assert_true(exp & CARC_EXP_PRINCESS);
			assert_int_equal(carc_turn_player(g), mover);
			if (kind == CARC_STEP_ACTION)
				assert_int_equal(carc_to_move(g), mover);
			int vis[8], nv = carc_dragon_visited(g, vis);
			if (kind == CARC_STEP_DRAGON)
				assert_int_equal(carc_to_move(g), (mover + nv - 1) % players);
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			assert_true(n > 0 && n < CARC_MAX_MOVES);
			json_round_trip(g, mv, n, what);
			carc_move d = mv[lcg_pick(&rng, n)];
			int before = 0, after = 0;
			for (int p = 0; p < players; p++)
				for (int f = 0; f < CARC_FIG_COUNT; f++)
					before += carc_supply(g, p, f);
			if (kind == CARC_STEP_ACTION)
				seen.actions[(d >> 28) & 3]++;
			else
				seen.dragon_steps++;
			if (carc_apply(g, d, NULL, err) != CARC_OK)
				fail_msg("%s: a legal decision refused: %s", what, err);
			x_check(g, what);
			for (int p = 0; p < players; p++)
				for (int f = 0; f < CARC_FIG_COUNT; f++)
					after += carc_supply(g, p, f);
			if (kind == CARC_STEP_DRAGON || ((d >> 28) & 3) == 3)
				seen.eaten += after - before;
			steps++;
			seen.later_steps++;
			if (carc_game_over(g) || carc_step_kind(g) == CARC_STEP_TILE)
				goto turn_ended;
			continue;
		}
		if (kind != CARC_STEP_TILE) {
			/* a later step of the turn: the test build's */
			assert_true(exp & ST_EXP_TEST_PASS);
			assert_int_equal(carc_step_kind(g), ST_STEP_TEST_PASS);
			assert_int_equal(carc_to_move(g), (mover + 1) % players);
			assert_int_equal(carc_turn_player(g), mover);
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			assert_int_equal(n, 2);
			json_round_trip(g, mv, n, what);
			if (carc_apply(g, mv[lcg_pick(&rng, n)], NULL, err) != CARC_OK)
				fail_msg("%s: a legal decision refused: %s", what, err);
			x_check(g, what);
			steps++;
			seen.later_steps++;
			if (carc_step_kind(g) == CARC_STEP_TILE)
				goto turn_ended;
			continue;
		}
		int t = carc_current_tile(g);
		assert_true(t >= 0);
		if (!tile_in_rules(exp, t))
			fail_msg("%s: tile %s drawn, not in the rule set", what, carc_tile_name(t));
		if (exp & CARC_EXP_RIVER) {
			/* 0: river pieces, 1: the lake, 2: the rest */
			int cls = carc_tile_set(t) == CARC_SET_RIVER ? (t == lake ? 1 : 0) : 2;
			if (cls < phase)
				fail_msg("%s: turn %d draws %s after the river's %s", what, turns,
				         carc_tile_name(t), phase == 2 ? "lake" : "pieces");
			phase = cls;
		}
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		assert_true(n > 0);
		for (int i = 0; i < n; i++) {
			if (mv[i] == CARC_MOVE_DISCARD)
				continue;
			if (carc_move_seg(mv[i]) != CARC_SEG_NONE &&
			    !figure_in_rules(exp, carc_move_figure(mv[i])))
				fail_msg("%s: a move with figure %d offered", what, carc_move_figure(mv[i]));
			if (carc_move_recall(mv[i]) && !(exp & CARC_EXP_ABBOT))
				fail_msg("%s: an abbot recall offered", what);
		}
		if (steps % 8 == 0)
			json_round_trip(g, mv, n, what);
		m = mv[lcg_pick(&rng, n)];
		json_round_trip(g, &m, 1, what);
		mover = carc_to_move(g);
		was_bonus = carc_bonus_turn(g);
		if (carc_apply(g, m, NULL, err) != CARC_OK)
			fail_msg("%s: turn %d: a legal move refused: %s", what, turns, err);
		x_check(g, what);
		turns++;
		steps++;

		if (m == CARC_MOVE_DISCARD)
			seen.discards++;
		else if (carc_move_recall(m))
			seen.recalls++;
		else if (carc_move_seg(m) != CARC_SEG_NONE)
			seen.placed[carc_move_figure(m)]++;

		if (exp & CARC_EXP_PRINCESS) {
			int dt = carc_dragon_tile(g), ft = carc_fairy_tile(g, NULL);
			if (dt >= 0 && dt == ft)
				fail_msg("%s: the dragon and the fairy on one tile", what);
			for (int i = 0; i < g->nfig && dt >= 0; i++)
				if (g->fig[i].owner != 255 && g->node[g->fig[i].node].tile == dt &&
				    carc_step_kind(g) != CARC_STEP_DRAGON)
					fail_msg("%s: a figure on the dragon's tile", what);
		}
		board_figures(g, on);
		int s[CARC_MAX_PLAYERS];
		carc_game_scores(g, s);
		for (int p = 0; p < players; p++) {
			for (int f = 0; f < CARC_FIG_COUNT; f++)
				if (carc_supply(g, p, f) + on[p][f] != start_supply(exp, f))
					fail_msg("%s: turn %d: player %d figure %d: %d in supply, %d out, "
					         "started with %d",
					         what, turns, p, f, carc_supply(g, p, f), on[p][f],
					         start_supply(exp, f));
			if (s[p] < prev[p])
				fail_msg("%s: turn %d: player %d's score went from %d to %d", what, turns, p,
				         prev[p], s[p]);
			prev[p] = s[p];
			int sum = 0;
			for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
				sum += carc_score_by_kind(g, p, k);
			assert_int_equal(sum, s[p]);
			for (int k = 1; k < CARC_GOODS_COUNT; k++)
				if (!(exp & CARC_EXP_TRADERS))
					assert_int_equal(carc_goods_held(g, p, k), 0);
			if (!(exp & CARC_EXP_TRADERS))
				assert_int_equal(carc_score_by_kind(g, p, CARC_SCORE_GOODS), 0);
			if (!(exp & CARC_EXP_ABBOT))
				assert_int_equal(carc_score_by_kind(g, p, CARC_SCORE_GARDEN), 0);
		}

		if (!carc_game_over(g) && carc_step_kind(g) != CARC_STEP_TILE) {
			/* the turn goes on: its end is checked after its last step */
			assert_true(m != CARC_MOVE_DISCARD);
			continue;
		}
	turn_ended:
		if (!carc_game_over(g)) {
			if (m == CARC_MOVE_DISCARD) {
				assert_int_equal(carc_to_move(g), mover);
				assert_int_equal(carc_bonus_turn(g), was_bonus);
			} else if (carc_bonus_turn(g)) {
				seen.bonus++;
				if (!(exp & CARC_EXP_TRADERS))
					fail_msg("%s: a bonus turn without Traders & Builders", what);
				if (was_bonus)
					fail_msg("%s: turn %d: an extra tile from an extra tile", what, turns);
				assert_int_equal(carc_to_move(g), mover);
			} else {
				assert_int_equal(carc_to_move(g), (mover + 1) % players);
			}
		}
		if (turns == half)
			round_trip(g, what);
	}
	/* with no volcano all game the dragon tiles were never drawn */
	int held = (exp & CARC_EXP_PRINCESS) && carc_dragon_tile(g) < 0 ? dragon_tiles : 0;
	seen.held_back_games += held > 0;
	for (int p = 0; p < players; p++)
		seen.fairy_points += carc_score_by_kind(g, p, CARC_SCORE_FAIRY);
	assert_int_equal(turns, total - held);
	assert_int_equal(carc_turns_played(g), total - held);
	assert_int_equal(carc_steps_played(g), steps);
	assert_int_equal(carc_tiles_left(g), 0);
	assert_int_equal(carc_current_tile(g), -1);
	assert_int_equal(carc_legal_moves(g, mv, CARC_MAX_MOVES), 0);
	/* only farmers and pigs stay on the board */
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		if (g->node[f->node].kind != CARC_FEAT_FIELD)
			fail_msg("%s: figure %d of player %d left on a %d at the end", what, f->kind,
			         f->owner, g->node[f->node].kind);
		assert_true(f->kind == CARC_FIG_FOLLOWER || f->kind == CARC_FIG_BIG ||
		            f->kind == CARC_FIG_PIG);
	}
	for (int p = 0; p < players; p++)
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			seen.goods += carc_goods_held(g, p, k);
	round_trip(g, what);
	seen.games++;
	seen.turns += turns;
	free(g);
}

static void subset_games(void **state)
{
	const unsigned exp = *(const unsigned *)*state;
	const int maxp = (exp & (CARC_EXP_INNS | CARC_EXP_INNS_TILES)) ? 6 : 5;
	const int games = quick() ? GAMES_QUICK : GAMES;
	for (int i = 0; i < games; i++) {
		int players = 2 + (i + (int)exp) % (maxp - 1);
		play_one(exp, players, 1000u * exp + (uint64_t)i + 1);
	}
}

/* The games used every special rule somewhere. */
static void special_rules_exercised(void **state)
{
	(void)state;
	print_message("%d games, %d turns, %d discards, %d bonus turns, %d recalls, "
	              "%d goods tokens held at the end, figures placed: %d followers, %d big, %d builders, "
	              "%d pigs, %d abbots\n",
	              seen.games, seen.turns, seen.discards, seen.bonus, seen.recalls, seen.goods,
	              seen.placed[CARC_FIG_FOLLOWER], seen.placed[CARC_FIG_BIG],
	              seen.placed[CARC_FIG_BUILDER], seen.placed[CARC_FIG_PIG],
	              seen.placed[CARC_FIG_ABBOT]);
	assert_int_equal(seen.games, (NSUBSETS + NSTEPSETS) * (quick() ? GAMES_QUICK : GAMES));
	assert_true(seen.later_steps > 0);
	assert_true(seen.bonus > 0);
	assert_true(seen.recalls > 0);
	assert_true(seen.goods > 0);
	for (int f = 0; f < CARC_FIG_COUNT; f++)
		assert_true(seen.placed[f] > 0);
	print_message("Princess & Dragon: actions %d none, %d fairy, %d portal, %d princess; "
	              "%d dragon squares, %d figures eaten or sent home, %d fairy points, "
	              "%d games with the dragon tiles held back\n",
	              seen.actions[0], seen.actions[1], seen.actions[2], seen.actions[3],
	              seen.dragon_steps, seen.eaten, seen.fairy_points, seen.held_back_games);
	for (int a = 0; a < 4; a++)
		assert_true(seen.actions[a] > 0);
	assert_true(seen.dragon_steps > 0);
	assert_true(seen.eaten > 0);
	assert_true(seen.fairy_points > 0);
}

int main(void)
{
	static unsigned masks[NSUBSETS + NSTEPSETS];
	static char names[NSUBSETS + NSTEPSETS][96];
	struct CMUnitTest tests[NSUBSETS + NSTEPSETS + 1];
	int n = 0;
	for (unsigned m = 0; m <= ST_EXP_REAL; m++) {
		if ((m & CARC_EXP_INNS) && (m & CARC_EXP_INNS_TILES))
			continue;
		masks[n] = m;
		strcpy(names[n], "games_");
		if (!m)
			strcat(names[n], "base");
		for (int b = 0; b < EXP_REAL_COUNT; b++)
			if (m >> b & 1) {
				if (strcmp(names[n], "games_"))
					strcat(names[n], "+");
				strcat(names[n], carc_expansion_name(1u << b));
			}
		tests[n] = (struct CMUnitTest){names[n], subset_games, NULL, NULL, &masks[n]};
		n++;
	}
	if (n != NSUBSETS) {
		fprintf(stderr, "%d expansion subsets, expected %d\n", n, NSUBSETS);
		return 1;
	}
	/* the test build's step kind, with the base game and with everything */
	masks[n] = ST_EXP_TEST_PASS;
	snprintf(names[n], sizeof names[n], "games_test-pass");
	tests[n] = (struct CMUnitTest){names[n], subset_games, NULL, NULL, &masks[n]};
	n++;
	masks[n] = (ST_EXP_REAL & ~CARC_EXP_INNS_TILES) | ST_EXP_TEST_PASS;
	snprintf(names[n], sizeof names[n], "games_all+test-pass");
	tests[n] = (struct CMUnitTest){names[n], subset_games, NULL, NULL, &masks[n]};
	n++;
	tests[n++] = (struct CMUnitTest){"special_rules_exercised", special_rules_exercised, NULL,
	                                 NULL, NULL};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
