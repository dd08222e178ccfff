/*
 * test_expansions.c - scenario tests for every special rule of the
 * expansions: the River, Inns & Cathedrals, Traders & Builders and the
 * Abbot, with exact scores.
 *
 * Each scenario builds its board from a short custom pile and fixes every
 * draw with carc_set_current_tile; the from-scratch check
 * (carc_game_check) runs after every move. Boards are drawn in the comment
 * above each test: (x, y) with x east and y south, "tile rot" and the
 * figure, [n] the order of placement. The start tile D (or the spring r1
 * with the River) lies at (0, 0), rot 0: D's city is north, its road runs
 * west-east, its fields are the strip between city and road (ports E0 W2)
 * and the south (E2 S W0).
 *
 * Two players, P0 and P1, unless said otherwise; P0 moves first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { P0 = 0, P1 = 1 };
#define FOL CARC_FIG_FOLLOWER
#define BIG CARC_FIG_BIG
#define BLD CARC_FIG_BUILDER
#define PIG CARC_FIG_PIG
#define ABT CARC_FIG_ABBOT

/* ---- helpers ------------------------------------------------------------ */

static carc_rules x_rules(unsigned exp, int players)
{
	carc_rules r;
	carc_rules_default(&r);
	r.players = players;
	r.expansions = exp;
	return r;
}

static int x_type(const char *name)
{
	int t = carc_tile_parse(name);
	if (t < 0)
		fail_msg("no tile named %s", name);
	return t;
}

/* Counts per type of a space-separated list of tile names. */
static void x_pile(const char *tiles, int pile[TILE_TYPES])
{
	memset(pile, 0, sizeof(int) * TILE_TYPES);
	const char *p = tiles;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		char name[16];
		size_t n = strcspn(p, " ");
		assert_true(n < sizeof name);
		memcpy(name, p, n);
		name[n] = 0;
		pile[x_type(name)]++;
		p += n;
	}
}

static void x_check(const carc_game *g)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_game_check(g, err) != CARC_OK)
		fail_msg("state check: %s", err);
}

/* A new game with rules r and the given pile (the order is fixed move by
 * move with carc_set_current_tile). Free with free(). */
static carc_game *x_new_rules(const carc_rules *r, const char *tiles)
{
	int pile[TILE_TYPES];
	char err[CARC_ERRMSG_SIZE] = "";
	x_pile(tiles, pile);
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	if (carc_game_init(g, r, 1, pile, TILE_TYPES, err) != CARC_OK)
		fail_msg("init: %s", err);
	x_check(g);
	return g;
}

static carc_game *x_new(unsigned exp, const char *tiles)
{
	carc_rules r = x_rules(exp, 2);
	return x_new_rules(&r, tiles);
}

/* Draws `tile` now and returns the move placing it at (x, y, rot) with
 * figure `fig` on the feature at board port `port` (NULL: no figure). */
static carc_move x_move(carc_game *g, const char *tile, int x, int y, int rot,
                        const char *port, int fig)
{
	int t = x_type(tile);
	if (carc_set_current_tile(g, t) != CARC_OK)
		fail_msg("tile %s may not be drawn now", tile);
	if (!port)
		return carc_move_make(x, y, rot, CARC_SEG_NONE, 0);
	int pt = carc_port_parse(port);
	if (pt < 0)
		fail_msg("no port named %s", port);
	int seg = carc_tile_port_segment(t, rot, pt);
	if (seg < 0)
		fail_msg("tile %s rot %d has nothing at %s", tile, rot, port);
	return carc_move_make(x, y, rot, seg, fig);
}

static void x_apply(carc_game *g, carc_move m, const char *what)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_apply(g, m, NULL, err) != CARC_OK)
		fail_msg("%s: refused: %s", what, err);
	x_check(g);
}

/* Plays `tile` at (x, y, rot), figure fig at port (NULL: none). */
static void x_play(carc_game *g, const char *tile, int x, int y, int rot, const char *port,
                   int fig)
{
	char what[96];
	snprintf(what, sizeof what, "%s at (%d, %d) rot %d, figure %d at %s", tile, x, y, rot,
	         fig, port ? port : "-");
	x_apply(g, x_move(g, tile, x, y, rot, port, fig), what);
}

/* Plays `tile` at (x, y, rot) and takes the abbot back. */
static void x_recall(carc_game *g, const char *tile, int x, int y, int rot)
{
	char what[96];
	snprintf(what, sizeof what, "%s at (%d, %d) rot %d with abbot recall", tile, x, y, rot);
	x_apply(g, x_move(g, tile, x, y, rot, NULL, 0) | CARC_MOVE_RECALL, what);
}

/* m is refused by carc_check_move and carc_apply with CARC_ERR_ILLEGAL and
 * a message containing `needle`; the game is left unchanged. */
static void x_refused(carc_game *g, carc_move m, const char *needle)
{
	carc_game *before = malloc(sizeof *before);
	assert_non_null(before);
	memcpy(before, g, sizeof *g);
	char err[CARC_ERRMSG_SIZE] = "";
	carc_status st = carc_check_move(g, m, err);
	if (st != CARC_ERR_ILLEGAL)
		fail_msg("move 0x%08x: check says %d (%s), expected illegal (%s)", m, st, err, needle);
	if (!strstr(err, needle))
		fail_msg("move 0x%08x: message \"%s\" does not say \"%s\"", m, err, needle);
	err[0] = 0;
	st = carc_apply(g, m, NULL, err);
	if (st != CARC_ERR_ILLEGAL || !strstr(err, needle))
		fail_msg("move 0x%08x: apply says %d (%s), expected illegal (%s)", m, st, err, needle);
	if (memcmp(before, g, sizeof *g) != 0)
		fail_msg("move 0x%08x was refused but changed the game", m);
	free(before);
}

static void x_scores(const carc_game *g, int s0, int s1)
{
	int got[CARC_MAX_PLAYERS];
	carc_game_scores(g, got);
	if (got[0] != s0 || got[1] != s1)
		fail_msg("scores %d, %d; expected %d, %d", got[0], got[1], s0, s1);
}

static void x_kind(const carc_game *g, int p, int kind, int want)
{
	int got = carc_score_by_kind(g, p, kind);
	if (got != want)
		fail_msg("player %d, score kind %d: %d, expected %d", p, kind, got, want);
}

/* Is m among the legal moves of the current state? */
static int x_is_legal(const carc_game *g, carc_move m)
{
	static carc_move mv[CARC_MAX_MOVES];
	int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	for (int i = 0; i < n; i++)
		if (mv[i] == m)
			return 1;
	return 0;
}

/* ---- Inns & Cathedrals: inns --------------------------------------------- */

/*
 * An inn road, completed: 2 per tile.
 *
 *          x=-1         x=0    x=1             x=2
 *   y=0    A rot 3 [3]  D      ic15 rot 0 [1]  A rot 1 [2]
 *
 * [1] P0 ic15 (inn on a straight road), robber at E1; [2] P1 A ends the
 * road east at its cloister; [3] P0 A ends it west: 4 tiles with an inn,
 * 8 (4 without the inn). The same with the tiles-only option.
 */
static void inn_road_completed_doubled(void **state)
{
	(void)state;
	const unsigned opts[2] = {CARC_EXP_INNS, CARC_EXP_INNS_TILES};
	for (int i = 0; i < 2; i++) {
		carc_game *g = x_new(opts[i], "ic15 A A");
		x_play(g, "ic15", 1, 0, 0, "E1", FOL);
		x_play(g, "A", 2, 0, 1, NULL, 0);
		x_scores(g, 0, 0);
		assert_int_equal(carc_supply(g, P0, FOL), 6);
		x_play(g, "A", -1, 0, 3, NULL, 0);
		assert_true(carc_game_over(g));
		x_scores(g, 8, 0);
		x_kind(g, P0, CARC_SCORE_ROAD, 8);
		assert_int_equal(carc_supply(g, P0, FOL), 7);
		free(g);
	}
}

/*
 * An inn road left incomplete scores 0 at the end; a plain road beside it
 * still scores 1 per tile.
 *
 *          x=-1         x=0          x=1
 *   y=0    U rot 0 [3]  D            ic15 rot 0 [1]
 *   y=1                 U rot 0 [2]
 *
 * [1] P0 ic15, robber E1; [2] P1 U south of D (a separate road), robber
 * E1; [3] P0 U extends the inn road west. End: the inn road (3 tiles) 0,
 * P1's one-tile road 1. P0's robber still goes back.
 */
static void inn_road_incomplete_zero(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "ic15 U U");
	x_play(g, "ic15", 1, 0, 0, "E1", FOL);
	x_play(g, "U", 0, 1, 0, "E1", FOL);
	x_play(g, "U", -1, 0, 0, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 0, 1);
	x_kind(g, P0, CARC_SCORE_ROAD, 0);
	x_kind(g, P1, CARC_SCORE_ROAD, 1);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	free(g);
}

/*
 * ic14 is a junction whose inn stands beside the east road only.
 *
 *          x=-1         x=0   x=1            x=2          x=3
 *   y=0    A rot 3 [2]  D     ic14 rot 0 [1] U rot 0 [3]  A rot 1 [4]
 *
 * [1] P0 ic14, robber on its west arm (W1), which joins D's road; [2] P1
 * A closes that road: A-D-ic14 = 3 tiles, no inn: 3 (not 6). [3] P0 U
 * with a robber on the road from ic14's east arm; [4] P1 A closes it:
 * ic14-U-A = 3 tiles with the inn: 6. P0 9 in all.
 */
static void inn_ic14_east_road_only(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "ic14 A U A");
	x_play(g, "ic14", 1, 0, 0, "W1", FOL);
	x_play(g, "A", -1, 0, 3, NULL, 0);
	x_scores(g, 3, 0);
	x_play(g, "U", 2, 0, 0, "E1", FOL);
	x_play(g, "A", 3, 0, 1, NULL, 0);
	x_scores(g, 9, 0);
	x_kind(g, P0, CARC_SCORE_ROAD, 9);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	free(g);
}

/* ---- Inns & Cathedrals: cathedrals --------------------------------------- */

/*
 * A completed city with a cathedral: 3 per tile and shield.
 *
 *          x=-1             x=0            x=1
 *   y=-2                    E rot 2 [3]    E rot 2 [5]
 *   y=-1   E rot 1 [2]      ic1 [1]        M rot 0 [4] (shield)
 *   y=0                     D
 *
 * [1] P0 ic1 (cathedral), knight; [2] P1 E closes the west side, farmer
 * on its field (W1), which borders the city; [3] P0 E closes the north;
 * [4] P1 M joins on the east with a shield; [5] P0 E closes M's north:
 * the city is D ic1 E E M E, 6 tiles and 1 shield: 3 x 7 = 21 (14 without
 * the cathedral). At the end P1's farmer has one completed city: 3 (a
 * cathedral city is an ordinary city for the farmers).
 */
static void cathedral_completed(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "ic1 E E M E");
	x_play(g, "ic1", 0, -1, 0, "N1", FOL);
	x_play(g, "E", -1, -1, 1, "W1", FOL);
	x_play(g, "E", 0, -2, 2, NULL, 0);
	x_play(g, "M", 1, -1, 0, NULL, 0);
	x_scores(g, 0, 0);
	x_play(g, "E", 1, -2, 2, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 21, 3);
	x_kind(g, P0, CARC_SCORE_CITY, 21);
	x_kind(g, P1, CARC_SCORE_FARM, 3);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	free(g);
}

/*
 * A cathedral city left incomplete scores 0 at the end.
 *
 *          x=-1           x=0
 *   y=-1   E rot 1 [2]    ic1 [1]
 *   y=0                   D
 *
 * [1] P0 ic1, knight; [2] P1 E closes one side; north and east stay open.
 * End: 0 (an ordinary city of 3 tiles would give 3). The knight returns.
 */
static void cathedral_incomplete_zero(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "ic1 E");
	x_play(g, "ic1", 0, -1, 0, "S1", FOL);
	x_play(g, "E", -1, -1, 1, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 0, 0);
	x_kind(g, P0, CARC_SCORE_CITY, 0);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	free(g);
}

/* ---- Inns & Cathedrals: the big follower --------------------------------- */

/*
 * Two roads joined into one; P0's big follower against P1's figure.
 *
 *          x=0            x=1            x=2
 *   y=0    D              U rot 0 [1]    V rot 0 [4]
 *   y=1    V rot 3 [2]    U rot 0 [3]    V rot 1 [5]
 *
 * [1] P0 U, big follower on the road (E1); [2] P1 V (road east-south)
 * under D, a separate road, its figure at E1; [3] P0 U and [4] P1 V and
 * [5] P0 V join them: one road D U V V U V, 6 tiles, open at D's west and
 * V(0,1)'s south. End: with P1's follower, 2 to 1: P0 6, P1 0; with P1's
 * big follower, 2 to 2: both 6. Every figure returns.
 */
static void big_follower_joined_road(int p1_fig, int want0, int want1)
{
	carc_game *g = x_new(CARC_EXP_INNS, "U V U V V");
	x_play(g, "U", 1, 0, 0, "E1", BIG);
	assert_int_equal(carc_supply(g, P0, BIG), 0);
	x_play(g, "V", 0, 1, 3, "E1", p1_fig);
	x_play(g, "U", 1, 1, 0, NULL, 0);
	x_play(g, "V", 2, 0, 0, NULL, 0);
	x_play(g, "V", 2, 1, 1, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, want0, want1);
	x_kind(g, P0, CARC_SCORE_ROAD, want0);
	x_kind(g, P1, CARC_SCORE_ROAD, want1);
	assert_int_equal(carc_supply(g, P0, BIG), 1);
	assert_int_equal(carc_supply(g, P1, BIG), 1);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	free(g);
}

static void big_follower_wins_2_to_1(void **state)
{
	(void)state;
	big_follower_joined_road(FOL, 6, 0);
}

static void big_follower_ties_2_to_2(void **state)
{
	(void)state;
	big_follower_joined_road(BIG, 6, 6);
}

/*
 * The big follower scores a feature once and goes back after scoring.
 *
 *          x=-1         x=0   x=1          x=2
 *   y=0    A rot 3 [3]  D     U rot 0 [1]  A rot 1 [2]
 *
 * [1] P0 U, big follower (E1); [3] P0 A completes: 4 tiles, 4 (not 8), and
 * the big follower is back in supply. With the tiles-only option there is
 * no big follower: the same move is refused.
 */
static void big_follower_scores_once_returns(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "U A A");
	assert_int_equal(carc_supply(g, P0, BIG), 1);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	x_play(g, "U", 1, 0, 0, "E1", BIG);
	assert_int_equal(carc_supply(g, P0, BIG), 0);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	x_play(g, "A", 2, 0, 1, NULL, 0);
	x_play(g, "A", -1, 0, 3, NULL, 0);
	x_scores(g, 4, 0);
	assert_int_equal(carc_supply(g, P0, BIG), 1);
	free(g);

	g = x_new(CARC_EXP_INNS_TILES, "U A A");
	assert_int_equal(carc_supply(g, P0, BIG), 0);
	x_refused(g, x_move(g, "U", 1, 0, 0, "E1", BIG), "no big follower");
	free(g);
}

/*
 * A big follower as a farmer weighs 2 in the field and stays to the end.
 *
 *          x=0              x=1              x=2
 *   y=-1   E rot 2 [1]      E rot 1 [3]      E rot 3 [4]
 *   y=0    D                U rot 0 [2]
 *
 * [1] P0 E closes D's city, big follower on its outer field (N1); [2] P1
 * U, farmer on D's strip field (N1), a field apart; [3] P0 E joins the
 * two fields; [4] P1 E closes E(1,-1)'s city. The field borders two
 * completed cities; 2 to 1: P0 6, P1 0.
 */
static void big_follower_farmer_weighs_2(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_INNS, "E U E E");
	x_play(g, "E", 0, -1, 2, "N1", BIG);
	x_play(g, "U", 1, 0, 0, "N1", FOL);
	x_play(g, "E", 1, -1, 1, NULL, 0);
	x_play(g, "E", 2, -1, 3, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 6, 0);
	x_kind(g, P0, CARC_SCORE_FARM, 6);
	assert_int_equal(carc_supply(g, P0, BIG), 0);
	assert_int_equal(carc_supply(g, P1, FOL), 6);
	free(g);
}

/* Six players with Inns & Cathedrals (either option), not without; the
 * six take their turns in order along a road east of D. */
static void six_players_only_with_inns(void **state)
{
	(void)state;
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	char err[CARC_ERRMSG_SIZE];
	const unsigned ok[] = {CARC_EXP_INNS, CARC_EXP_INNS_TILES, CARC_EXP_INNS | CARC_EXP_RIVER,
	                       CARC_EXP_INNS_TILES | CARC_EXP_TRADERS | CARC_EXP_ABBOT};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		carc_rules r = x_rules(ok[i], 6);
		assert_int_equal(carc_game_init(g, &r, 3, NULL, 0, err), CARC_OK);
		x_check(g);
	}
	const unsigned bad[] = {0, CARC_EXP_RIVER, CARC_EXP_TRADERS, CARC_EXP_ABBOT,
	                        CARC_EXP_RIVER | CARC_EXP_TRADERS | CARC_EXP_ABBOT};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		carc_rules r = x_rules(bad[i], 6);
		err[0] = 0;
		assert_int_equal(carc_game_init(g, &r, 3, NULL, 0, err), CARC_ERR_ARG);
		assert_true(err[0] != 0);
		r.players = 5;
		assert_int_equal(carc_game_init(g, &r, 3, NULL, 0, err), CARC_OK);
	}
	carc_rules r7 = x_rules(CARC_EXP_INNS, 7);
	assert_int_equal(carc_game_init(g, &r7, 3, NULL, 0, err), CARC_ERR_ARG);
	carc_rules both = x_rules(CARC_EXP_INNS | CARC_EXP_INNS_TILES, 2);
	assert_int_equal(carc_game_init(g, &both, 3, NULL, 0, err), CARC_ERR_ARG);
	free(g);

	carc_rules r = x_rules(CARC_EXP_INNS, 6);
	g = x_new_rules(&r, "U U U U U U");
	for (int p = 0; p < 6; p++) {
		assert_int_equal(carc_to_move(g), p);
		assert_int_equal(carc_supply(g, p, FOL), 7);
		assert_int_equal(carc_supply(g, p, BIG), 1);
		x_play(g, "U", 1 + p, 0, 0, p == 5 ? "E1" : NULL, BIG);
	}
	assert_true(carc_game_over(g));
	/* the last player's big follower on the 7-tile road */
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	for (int p = 0; p < 6; p++)
		assert_int_equal(s[p], p == 5 ? 7 : 0);
	free(g);
}

/* ---- Traders & Builders: goods -------------------------------------------- */

/*
 * Goods go to the player who places the completing tile, knight or not.
 *
 *          x=0              x=1
 *   y=-1   tb1 rot 2 [1]    E rot 3 [2]
 *   y=0    D
 *
 * [1] P0 tb1 (city with grain, at rot 2 joining south and east), knight;
 * [2] P1 E closes it: D tb1 E, 3 tiles: P0 6. P1, who has no knight
 * there, takes the grain; at the end the grain majority scores 10.
 */
static void goods_to_placer_without_knight(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_TRADERS, "tb1 E");
	x_play(g, "tb1", 0, -1, 2, "S1", FOL);
	x_play(g, "E", 1, -1, 3, NULL, 0);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_goods_held(g, P1, CARC_GOODS_GRAIN), 1);
	assert_int_equal(carc_goods_held(g, P0, CARC_GOODS_GRAIN), 0);
	assert_int_equal(carc_goods_held(g, P1, CARC_GOODS_WINE), 0);
	assert_int_equal(carc_goods_held(g, P1, CARC_GOODS_CLOTH), 0);
	x_scores(g, 6, 10);
	x_kind(g, P0, CARC_SCORE_CITY, 6);
	x_kind(g, P0, CARC_SCORE_GOODS, 0);
	x_kind(g, P1, CARC_SCORE_GOODS, 10);
	x_kind(g, P1, CARC_SCORE_CITY, 0);
	free(g);
}

/*
 * Goods majority ties at the end: each tied player scores 10.
 *
 *          x=0              x=1
 *   y=-2   E rot 2 [2]
 *   y=-1   tb15 rot 1 [1]
 *   y=0    D
 *   y=1    tb2 rot 2 [3]    E rot 3 [4]
 *   y=2    E rot 0 [5]
 *
 * No knights anywhere. [2] P1 completes D tb15 E: one wine to P1; [5] P0
 * completes tb2 E E: one wine to P0. Wine 1 to 1: both 10.
 */
static void goods_tie_both_score(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_TRADERS, "tb15 E tb2 E E");
	x_play(g, "tb15", 0, -1, 1, NULL, 0);
	x_play(g, "E", 0, -2, 2, NULL, 0);
	assert_int_equal(carc_goods_held(g, P1, CARC_GOODS_WINE), 1);
	assert_int_equal(carc_goods_held(g, P0, CARC_GOODS_WINE), 0);
	x_play(g, "tb2", 0, 1, 2, NULL, 0);
	x_play(g, "E", 1, 1, 3, NULL, 0);
	assert_int_equal(carc_goods_held(g, P0, CARC_GOODS_WINE), 0);
	x_scores(g, 0, 0);
	x_play(g, "E", 0, 2, 0, NULL, 0);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_goods_held(g, P0, CARC_GOODS_WINE), 1);
	assert_int_equal(carc_goods_held(g, P1, CARC_GOODS_WINE), 1);
	x_scores(g, 10, 10);
	x_kind(g, P0, CARC_SCORE_GOODS, 10);
	x_kind(g, P1, CARC_SCORE_GOODS, 10);
	x_kind(g, P0, CARC_SCORE_CITY, 0);
	free(g);
}

/* ---- Traders & Builders: the builder ------------------------------------------- */

/*
 * The builder: only where its owner has a follower; an extra tile when its
 * owner extends the feature, never a second extra tile from the extra one;
 * back to supply when the feature is scored.
 *
 *   y=0:  x=-3 A r3 [7]  x=-2 U [4]  x=-1 U [2]  x=0 D  x=1 U [1]
 *         x=2 U [3]  x=3 U [5]  x=4 U [6]  x=5 A r1 [8]
 *   y=-1: x=0 E r2 [9]
 *
 * [1] P0 U, robber (E1). [2] P1 U: a builder there is refused (P1 has no
 * follower on the road; a builder on a field is refused too); P1 plays it
 * plain. [3] P0 U with the builder (E1): no extra tile on the turn it is
 * placed. [4] P1 U extends the road: the builder is P0's, no extra tile.
 * [5] P0 U extends it: P0 moves again (bonus turn). [6] P0's bonus U
 * extends it again: no further extra tile, P1 moves. [7] P1 A closes the
 * west end. [8] P0 A completes the road (9 tiles: 9); the builder and
 * the robber come back, and the extension still gives P0 an extra tile:
 * [9] P0 E, the last tile.
 */
static void builder_extra_turn(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_TRADERS, "U U U U U U A A E");
	assert_int_equal(carc_supply(g, P0, BLD), 1);
	assert_int_equal(carc_supply(g, P0, PIG), 1);
	x_play(g, "U", 1, 0, 0, "E1", FOL);

	assert_int_equal(carc_to_move(g), P1);
	x_refused(g, x_move(g, "U", -1, 0, 0, "W1", BLD), "builder needs a follower");
	x_refused(g, x_move(g, "U", -1, 0, 0, "N1", BLD), "road or city only");
	x_play(g, "U", -1, 0, 0, NULL, 0);

	assert_int_equal(carc_to_move(g), P0);
	carc_move m = x_move(g, "U", 2, 0, 0, "E1", BLD);
	assert_true(x_is_legal(g, m));
	x_apply(g, m, "P0 builder");
	assert_int_equal(carc_supply(g, P0, BLD), 0);
	assert_int_equal(carc_to_move(g), P1);
	assert_int_equal(carc_bonus_turn(g), 0);

	x_play(g, "U", -2, 0, 0, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_bonus_turn(g), 0);

	x_play(g, "U", 3, 0, 0, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_bonus_turn(g), 1);

	x_play(g, "U", 4, 0, 0, NULL, 0);
	assert_int_equal(carc_to_move(g), P1);
	assert_int_equal(carc_bonus_turn(g), 0);

	x_play(g, "A", -3, 0, 3, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_bonus_turn(g), 0);
	x_scores(g, 0, 0);

	x_play(g, "A", 5, 0, 1, NULL, 0);
	x_scores(g, 9, 0);
	x_kind(g, P0, CARC_SCORE_ROAD, 9);
	assert_int_equal(carc_supply(g, P0, BLD), 1);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_bonus_turn(g), 1);

	x_play(g, "E", 0, -1, 2, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 9, 0);
	free(g);
}

/*
 * A builder on a city.
 *
 *          x=-1         x=0            x=1            x=2
 *   y=-1                N rot 2 [1]    G rot 0 [3]    E rot 3 [5]
 *   y=0                 D
 *   y=1    B [4]        B [2]          B [6]
 *
 * [1] P0 N (city joining south and east at rot 2), knight (S1): the city
 * D-N is open east. [2] P1 B. [3] P0 G (city west-east) with the builder
 * on the city (W1): no extra tile this turn. [4] P1 B. [5] P0 E closes the
 * city, extending it: D N G E, 4 tiles, 8; builder and knight back, and
 * P0 takes the extra tile [6].
 */
static void builder_on_city(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_TRADERS, "N B G B E B");
	x_play(g, "N", 0, -1, 2, "S1", FOL);
	x_play(g, "B", 0, 1, 0, NULL, 0);
	x_play(g, "G", 1, -1, 0, "W1", BLD);
	assert_int_equal(carc_supply(g, P0, BLD), 0);
	assert_int_equal(carc_to_move(g), P1);
	assert_int_equal(carc_bonus_turn(g), 0);
	x_play(g, "B", -1, 1, 0, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	x_play(g, "E", 2, -1, 3, NULL, 0);
	x_scores(g, 8, 0);
	x_kind(g, P0, CARC_SCORE_CITY, 8);
	assert_int_equal(carc_supply(g, P0, BLD), 1);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_bonus_turn(g), 1);
	x_play(g, "B", 1, 1, 0, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 8, 0);
	free(g);
}

/* ---- Traders & Builders: the pig ------------------------------------------------ */

/*
 * The pig: only on a field with its owner's farmer; 4 per completed city
 * for its owner, 3 for another player tied on the field.
 *
 *          x=0              x=1              x=2
 *   y=-1   E rot 2 [1]      E rot 1 [3]      E rot 3 [4]
 *   y=0    D                U rot 0 [2]
 *
 * [1] P0 E closes D's city (2 tiles, no knight), farmer on its outer
 * field (N1). [2] P1 U, farmer on its north field (N1), which is D's strip
 * between city and road: a field apart (the city divides them); P1's pig
 * on the south field is refused (no farmer of P1 there). [3] P0 E (city
 * east) joins both fields: its field meets E(0,-1)'s east side and U's
 * north side; P0's pig on its city is refused, on its field (W1) allowed.
 * [4] P1 E closes E(1,-1)'s city. The field borders two completed cities
 * (D-E and E-E); farmers 1 to 1: P0 with the pig 4 + 4 = 8, P1 3 + 3 = 6.
 * First edition (per city, 4; the pig's owner 5): P0 10, P1 8. City-once:
 * 8 and 6 as well.
 */
static void pig_scenario(int farm_scoring, int want0, int want1)
{
	carc_rules r = x_rules(CARC_EXP_TRADERS, 2);
	r.farm_scoring = farm_scoring;
	carc_game *g = x_new_rules(&r, "E U E E");
	x_play(g, "E", 0, -1, 2, "N1", FOL);
	x_refused(g, x_move(g, "U", 1, 0, 0, "S1", PIG), "pig needs a farmer");
	x_play(g, "U", 1, 0, 0, "N1", FOL);
	x_refused(g, x_move(g, "E", 1, -1, 1, "E1", PIG), "pig goes on a field only");
	carc_move m = x_move(g, "E", 1, -1, 1, "W1", PIG);
	assert_true(x_is_legal(g, m));
	x_apply(g, m, "P0 pig");
	assert_int_equal(carc_supply(g, P0, PIG), 0);
	x_play(g, "E", 2, -1, 3, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, want0, want1);
	x_kind(g, P0, CARC_SCORE_FARM, want0);
	x_kind(g, P1, CARC_SCORE_FARM, want1);
	free(g);
}

static void pig_four_per_city_for_owner(void **state)
{
	(void)state;
	pig_scenario(CARC_FARM_INTERNATIONAL, 8, 6);
}

static void pig_other_editions(void **state)
{
	(void)state;
	pig_scenario(CARC_FARM_FIRST_EDITION, 10, 8);
	pig_scenario(CARC_FARM_CITY_ONCE, 8, 6);
}

/* ---- the Abbot ---------------------------------------------------------------------- */

/*
 * The abbot goes only on a cloister or garden, a follower never on a
 * garden; recalled early it scores 1 + the tiles around, as at the end.
 *
 *          x=-1           x=0             x=1
 *   y=-1                  Eg rot 2 [1]
 *   y=0    U rot 0 [3]    D               U rot 0 [2]
 *   y=1    B [6]          B [4]           B [5]
 *
 * [1] P0 Eg (garden copy of E) closes D's city: a follower on the garden
 * is refused, the abbot on the field is refused, a recall with no abbot
 * out is refused; the abbot on the garden (C) is allowed. [2] P1 U.
 * [3] P0 U and takes the abbot back (a recall with a figure is refused):
 * D and the two U are around the garden: 1 + 3 = 4, kind garden.
 * [4] P1 B, abbot on the cloister; [5] P0 B; [6] P1 B and recalls: D, U,
 * U, B, B around: 1 + 5 = 6, kind cloister.
 */
static void abbot_placement_and_recall(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_ABBOT, "Eg U U B B B");
	assert_int_equal(carc_supply(g, P0, ABT), 1);
	x_refused(g, x_move(g, "Eg", 0, -1, 2, "C", FOL), "only an abbot");
	x_refused(g, x_move(g, "Eg", 0, -1, 2, "N1", ABT), "cloister or garden only");
	x_refused(g, x_move(g, "Eg", 0, -1, 2, NULL, 0) | CARC_MOVE_RECALL, "no abbot on the board");
	x_play(g, "Eg", 0, -1, 2, "C", ABT);
	assert_int_equal(carc_supply(g, P0, ABT), 0);

	x_refused(g, x_move(g, "U", 1, 0, 0, NULL, 0) | CARC_MOVE_RECALL, "no abbot on the board");
	x_play(g, "U", 1, 0, 0, NULL, 0);

	x_refused(g, x_move(g, "U", -1, 0, 0, "E1", FOL) | CARC_MOVE_RECALL, "recall places no figure");
	carc_move rc = x_move(g, "U", -1, 0, 0, NULL, 0) | CARC_MOVE_RECALL;
	assert_true(x_is_legal(g, rc));
	x_recall(g, "U", -1, 0, 0);
	x_scores(g, 4, 0);
	x_kind(g, P0, CARC_SCORE_GARDEN, 4);
	assert_int_equal(carc_supply(g, P0, ABT), 1);

	x_play(g, "B", 0, 1, 0, "C", ABT);
	x_play(g, "B", 1, 1, 0, NULL, 0);
	x_recall(g, "B", -1, 1, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 4, 6);
	x_kind(g, P1, CARC_SCORE_CLOISTER, 6);
	x_kind(g, P1, CARC_SCORE_GARDEN, 0);
	assert_int_equal(carc_supply(g, P1, ABT), 1);
	free(g);
}

/*
 * An abbot's garden surrounded by 8 tiles: 9, and the abbot comes back.
 * An abbot still out at the end scores like an incomplete cloister.
 *
 *          x=-1           x=0             x=1
 *   y=0    U rot 0 [3]    D               U rot 0 [2]
 *   y=1    U rot 0 [5]    Vg rot 0 [1]    B [4]
 *   y=2    B [7]          U rot 1 [6]     B [8]
 *
 * [1] P0 Vg (garden copy of V: road south-west), abbot on the garden;
 * [8] P1's B is the eighth tile around: P0 9 (garden).
 */
static void abbot_garden_completed_9(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_ABBOT, "Vg U U B U U B B");
	x_play(g, "Vg", 0, 1, 0, "C", ABT);
	x_play(g, "U", 1, 0, 0, NULL, 0);
	x_play(g, "U", -1, 0, 0, NULL, 0);
	x_play(g, "B", 1, 1, 0, NULL, 0);
	x_play(g, "U", -1, 1, 0, NULL, 0);
	x_play(g, "U", 0, 2, 1, NULL, 0);
	x_play(g, "B", -1, 2, 0, NULL, 0);
	x_scores(g, 0, 0);
	assert_int_equal(carc_supply(g, P0, ABT), 0);
	x_play(g, "B", 1, 2, 0, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 9, 0);
	x_kind(g, P0, CARC_SCORE_GARDEN, 9);
	assert_int_equal(carc_supply(g, P0, ABT), 1);
	free(g);

	/* the same garden left with 3 tiles around: 1 + 3 = 4 at the end */
	g = x_new(CARC_EXP_ABBOT, "Vg U U");
	x_play(g, "Vg", 0, 1, 0, "C", ABT);
	x_play(g, "U", 1, 0, 0, NULL, 0);
	x_play(g, "U", -1, 0, 0, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 4, 0);
	x_kind(g, P0, CARC_SCORE_GARDEN, 4);
	assert_int_equal(carc_supply(g, P0, ABT), 1);
	free(g);
}

/* Garden tiles exist only with the Abbot. */
static void garden_tiles_need_abbot(void **state)
{
	(void)state;
	carc_rules r = x_rules(0, 2);
	int pile[TILE_TYPES];
	char err[CARC_ERRMSG_SIZE] = "";
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	x_pile("Eg U", pile);
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_ERR_ARG);
	assert_true(err[0] != 0);
	r.expansions = CARC_EXP_ABBOT;
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_OK);
	/* and the tiles of an expansion only with it */
	r.expansions = 0;
	x_pile("ic1", pile);
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_ERR_ARG);
	x_pile("tb1", pile);
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_ERR_ARG);
	x_pile("r3", pile);
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_ERR_ARG);
	free(g);
}

/* ---- the River ------------------------------------------------------------------------ */

/*
 * The spring is the start tile; river pieces are drawn first, the lake
 * last, the base tiles after.
 *
 *          x=0             x=1            x=2
 *   y=0    r1 (spring)     r3 rot 0 [1]   r4 rot 0 [2]
 *   y=1    U rot 0 [4]                    r2 rot 1 [3]
 */
static void river_spring_pieces_lake_order(void **state)
{
	(void)state;
	carc_rules r = x_rules(CARC_EXP_RIVER, 2);
	assert_int_equal(carc_rules_start_tile(&r), x_type("r1"));
	carc_rules base = x_rules(0, 2);
	assert_int_equal(carc_rules_start_tile(&base), x_type("D"));

	carc_game *g = x_new_rules(&r, "r3 r4 r2 U");
	int t0 = carc_tile_at(g, 0, 0);
	assert_true(t0 >= 0);
	assert_int_equal(g->tiles[t0].type, x_type("r1"));
	assert_int_equal(carc_tiles_left(g), 4);
	assert_int_equal(carc_set_current_tile(g, x_type("U")), CARC_ERR_ARG);
	assert_int_equal(carc_set_current_tile(g, x_type("r2")), CARC_ERR_ARG);
	x_play(g, "r3", 1, 0, 0, NULL, 0);
	assert_int_equal(carc_set_current_tile(g, x_type("U")), CARC_ERR_ARG);
	assert_int_equal(carc_set_current_tile(g, x_type("r2")), CARC_ERR_ARG);
	x_play(g, "r4", 2, 0, 0, NULL, 0);
	assert_int_equal(carc_set_current_tile(g, x_type("U")), CARC_ERR_ARG);
	x_play(g, "r2", 2, 1, 1, NULL, 0);
	x_play(g, "U", 0, 1, 0, NULL, 0);
	assert_true(carc_game_over(g));
	free(g);

	/* the spring may not be in the pile */
	int pile[TILE_TYPES];
	char err[CARC_ERRMSG_SIZE] = "";
	g = malloc(sizeof *g);
	assert_non_null(g);
	x_pile("r1 r3", pile);
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_ERR_ARG);

	/* the standard pile: 10 pieces, the lake, then 71 base tiles */
	for (uint64_t seed = 1; seed <= 3; seed++) {
		assert_int_equal(carc_game_init(g, &r, seed, NULL, 0, err), CARC_OK);
		assert_int_equal(g->tiles[0].type, x_type("r1"));
		assert_int_equal(carc_tiles_left(g), 82);
		carc_move mv[CARC_MAX_MOVES];
		int k = 0;
		while (!carc_game_over(g)) {
			int t = carc_current_tile(g);
			int set = carc_tile_set(t);
			if (k < 10)
				assert_true(set == CARC_SET_RIVER && t != x_type("r2"));
			else if (k == 10)
				assert_int_equal(t, x_type("r2"));
			else
				assert_int_equal(set, CARC_SET_BASE);
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			assert_true(n > 0);
			assert_int_equal(carc_apply(g, mv[(unsigned)(k * 31 + (int)seed) % (unsigned)n], NULL,
			                            err),
			                 CARC_OK);
			x_check(g);
			k++;
		}
		assert_int_equal(k, 82);
	}
	free(g);
}

/*
 * A river tile must continue the open end of the river, and no figure
 * stands on the river.
 *
 *          x=-1             x=0            x=1            x=2
 *   y=0    (r4 refused)     r1 (spring)    r3 rot 0 [1]   r4 rot 0 [2]
 *   y=1                     (r3 refused)   (r4 refused)
 *
 * The refused squares match their neighbours' edges (fields) but are not
 * the river's open end.
 */
static void river_continues_open_end(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_RIVER, "r3 r4");
	x_refused(g, x_move(g, "r3", 0, 1, 0, NULL, 0), "must continue the river at (1, 0)");
	x_refused(g, x_move(g, "r4", -1, 0, 0, NULL, 0), "must continue the river at (1, 0)");
	x_refused(g, x_move(g, "r3", 1, 0, 1, NULL, 0), "does not match");
	x_refused(g, x_move(g, "r3", 1, 0, 0, "W1", FOL), "river");
	carc_move pl[CARC_MAX_MOVES];
	int n = carc_placements(g, pl, CARC_MAX_MOVES);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++) {
		assert_int_equal(carc_move_x(pl[i]), 1);
		assert_int_equal(carc_move_y(pl[i]), 0);
		assert_true(carc_move_rot(pl[i]) == 0 || carc_move_rot(pl[i]) == 2);
	}
	x_play(g, "r3", 1, 0, 0, "N1", FOL);
	x_refused(g, x_move(g, "r4", 1, 1, 0, NULL, 0), "must continue the river at (2, 0)");
	x_play(g, "r4", 2, 0, 0, NULL, 0);
	assert_true(carc_game_over(g));
	free(g);
}

/*
 * No U-turns: a river curve may not turn the same way as the previous
 * curve, straights in between or not.
 *
 *          x=0            x=1            x=2            x=3
 *   y=0    r1 (spring)    r3 rot 0 [1]   r4 rot 0 [2]
 *   y=1                                  r3 rot 1 [3]
 *   y=2                                  r4 rot 2 [4]   r2 rot 0 [5]
 *
 * [2] turns right (east to south); [4] at rot 1 would turn right again
 * (south to west): refused with a message; rot 2 turns left: the only
 * placement. Then immediately after a curve: r4 rot 0 at (1,0) turns
 * right, r4 rot 1 at (1,1) would turn right again: refused; rot 2 is fine.
 */
static void river_no_u_turn(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_RIVER, "r3 r4 r3 r4 r2");
	x_play(g, "r3", 1, 0, 0, NULL, 0);
	x_play(g, "r4", 2, 0, 0, NULL, 0);
	x_play(g, "r3", 2, 1, 1, NULL, 0);
	x_refused(g, x_move(g, "r4", 2, 2, 1, NULL, 0), "U-turn");
	carc_move pl[CARC_MAX_MOVES];
	int n = carc_placements(g, pl, CARC_MAX_MOVES);
	assert_int_equal(n, 1);
	assert_int_equal(pl[0], carc_move_make(2, 2, 2, CARC_SEG_NONE, 0));
	x_play(g, "r4", 2, 2, 2, NULL, 0);
	x_play(g, "r2", 3, 2, 0, NULL, 0);
	assert_true(carc_game_over(g));
	free(g);

	g = x_new(CARC_EXP_RIVER, "r4 r4");
	x_play(g, "r4", 1, 0, 0, NULL, 0);
	x_refused(g, x_move(g, "r4", 1, 1, 1, NULL, 0), "U-turn");
	x_play(g, "r4", 1, 1, 2, NULL, 0);
	free(g);
}

/*
 * The river divides fields: farmers on both banks, scored apart.
 *
 *          x=0            x=1            x=2
 *   y=-1                  E rot 2 [3]
 *   y=0    r1 (spring)    r6 rot 0 [1]   r3 rot 0 [2]
 *   y=1                                  E rot 2 [4]
 *   y=2                                  E rot 0 [5]
 *
 * No lake in this pile, so the river's end at (3,0) stays open and the
 * banks east of r6 meet neither around the lake nor around the spring
 * (r6's city and road cut them off from it). [1] P0 r6, farmer on the
 * north bank east of its city cap (E0); [2] P1 r3, farmer on the south
 * bank (S1): allowed, another field. [3] P0 E closes r6's cap; [4] P1 E
 * (its field joins the south bank) and [5] P0 E close a city south.
 * Each bank borders one completed city: P0 3, P1 3 (one field shared 1
 * to 1 would give both 6).
 */
static void river_divides_fields(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_RIVER, "r6 r3 E E E");
	x_play(g, "r6", 1, 0, 0, "E0", FOL);
	x_play(g, "r3", 2, 0, 0, "S1", FOL);
	x_play(g, "E", 1, -1, 2, NULL, 0);
	x_play(g, "E", 2, 1, 2, NULL, 0);
	x_play(g, "E", 2, 2, 0, NULL, 0);
	assert_true(carc_game_over(g));
	x_scores(g, 3, 3);
	x_kind(g, P0, CARC_SCORE_FARM, 3);
	x_kind(g, P1, CARC_SCORE_FARM, 3);
	free(g);
}

/*
 * The spring carries one field all round, so the two banks of the river
 * meet around it: a farmer on the north bank of the first piece makes the
 * south bank of the next one taken.
 *
 *          x=0            x=1            x=2
 *   y=0    r1 (spring)    r3 rot 0 [1]   r3 rot 0 [2]
 */
static void river_banks_meet_around_spring(void **state)
{
	(void)state;
	carc_game *g = x_new(CARC_EXP_RIVER, "r3 r3");
	x_play(g, "r3", 1, 0, 0, "N1", FOL);
	x_refused(g, x_move(g, "r3", 2, 0, 0, "S1", FOL), "already has a follower");
	x_play(g, "r3", 2, 0, 0, NULL, 0);
	free(g);
}

/* ---- piles ------------------------------------------------------------------------------- */

static int pile_of(unsigned exp, int counts[TILE_TYPES])
{
	carc_rules r = x_rules(exp, 2);
	int n = carc_rules_pile(&r, counts);
	int sum = 0;
	for (int t = 0; t < TILE_TYPES; t++) {
		assert_true(counts[t] >= 0);
		sum += counts[t];
	}
	assert_int_equal(sum, n);
	return n;
}

static int count_of(const int counts[TILE_TYPES], const char *name)
{
	return counts[x_type(name)];
}

/* The standard piles: base 71; the River 11 more (the spring is the start
 * tile, the start D is left out); I&C 18; T&B 24; the Abbot's garden
 * copies replace one copy of their twins, the totals unchanged. */
static void standard_pile_totals(void **state)
{
	(void)state;
	int c[TILE_TYPES];
	assert_int_equal(pile_of(0, c), 71);
	assert_int_equal(count_of(c, "D"), 3);
	assert_int_equal(count_of(c, "r1"), 0);
	assert_int_equal(count_of(c, "ic1"), 0);
	assert_int_equal(count_of(c, "Eg"), 0);

	assert_int_equal(pile_of(CARC_EXP_RIVER, c), 82);
	assert_int_equal(count_of(c, "D"), 3);
	assert_int_equal(count_of(c, "r1"), 0);
	assert_int_equal(count_of(c, "r2"), 1);
	assert_int_equal(count_of(c, "r3"), 2);
	assert_int_equal(count_of(c, "r4"), 2);
	assert_int_equal(count_of(c, "r4g"), 0);
	int river = 0;
	for (int t = 0; t < TILE_TYPES; t++)
		if (carc_tile_set(t) == CARC_SET_RIVER)
			river += c[t];
	assert_int_equal(river, 11);

	assert_int_equal(pile_of(CARC_EXP_INNS, c), 71 + 18);
	assert_int_equal(count_of(c, "ic1"), 2);
	assert_int_equal(count_of(c, "ic3"), 1);
	assert_int_equal(count_of(c, "ic3g"), 0);
	assert_int_equal(pile_of(CARC_EXP_INNS_TILES, c), 71 + 18);
	assert_int_equal(pile_of(CARC_EXP_TRADERS, c), 71 + 24);
	assert_int_equal(count_of(c, "tb8"), 1);
	assert_int_equal(pile_of(CARC_EXP_RIVER | CARC_EXP_INNS | CARC_EXP_TRADERS, c),
	                 71 + 11 + 18 + 24);

	/* the Abbot: garden copies in place of one of their twins */
	static const char *const GARDEN[][3] = {
	    {"Eg", "E", "4"}, {"Hg", "H", "2"}, {"Ig", "I", "1"}, {"Mg", "M", "1"},
	    {"Ng", "N", "2"}, {"Rg", "R", "2"}, {"Ug", "U", "7"}, {"Vg", "V", "8"}};
	assert_int_equal(pile_of(CARC_EXP_ABBOT, c), 71);
	for (size_t i = 0; i < sizeof GARDEN / sizeof GARDEN[0]; i++) {
		int twin = -1;
		assert_true(carc_tile_is_garden_copy(x_type(GARDEN[i][0]), &twin));
		assert_int_equal(twin, x_type(GARDEN[i][1]));
		assert_int_equal(count_of(c, GARDEN[i][0]), 1);
		assert_int_equal(count_of(c, GARDEN[i][1]), atoi(GARDEN[i][2]));
		assert_int_equal(count_of(c, GARDEN[i][1]) + 1, carc_tile_box_count(twin));
	}
	assert_int_equal(pile_of(CARC_EXP_ABBOT | CARC_EXP_RIVER, c), 82);
	assert_int_equal(count_of(c, "r4g"), 1);
	assert_int_equal(count_of(c, "r4"), 1);
	assert_int_equal(pile_of(CARC_EXP_ABBOT | CARC_EXP_INNS, c), 89);
	assert_int_equal(count_of(c, "ic3g"), 1);
	assert_int_equal(count_of(c, "ic3"), 0);
	assert_int_equal(count_of(c, "ic15g"), 1);
	assert_int_equal(count_of(c, "ic15"), 0);
	assert_int_equal(pile_of(CARC_EXP_ABBOT | CARC_EXP_TRADERS, c), 95);
	assert_int_equal(count_of(c, "tb8g"), 1);
	assert_int_equal(count_of(c, "tb8"), 0);
	assert_int_equal(count_of(c, "tb11g"), 1);
	assert_int_equal(count_of(c, "tb11"), 0);
	assert_int_equal(pile_of(CARC_EXP_PRINCESS, c), 71 + 30);
	assert_int_equal(count_of(c, "pd11"), 2);
	assert_int_equal(pile_of(CARC_EXP_PRINCESS | CARC_EXP_ABBOT, c), 71 + 30);
	assert_int_equal(count_of(c, "pd7g"), 1);
	assert_int_equal(count_of(c, "pd7"), 0);
	assert_int_equal(count_of(c, "pd22g"), 1);
	assert_int_equal(count_of(c, "pd22"), 0);
	assert_int_equal(pile_of(ST_EXP_REAL & ~CARC_EXP_INNS_TILES, c), 124 + 30);
	int gardens = 0;
	for (int t = 0; t < TILE_TYPES; t++)
		if (carc_tile_is_garden_copy(t, NULL))
			gardens += c[t];
	assert_int_equal(gardens, 8 + 1 + 2 + 2 + 2);

	/* a game with the standard pile holds it all */
	carc_rules r = x_rules(ST_EXP_REAL & ~CARC_EXP_INNS_TILES, 3);
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_game_init(g, &r, 5, NULL, 0, err), CARC_OK);
	/* the 12 dragon tiles are not counted until a volcano calls the dragon */
	assert_int_equal(carc_tiles_left(g), 124 + 30 - 12);
	free(g);
}

/* Figures in supply at the start, by expansion. */
static void supply_by_expansion(void **state)
{
	(void)state;
	static const struct {
		unsigned exp;
		int big, builder, pig, abbot;
	} T[] = {
	    {0, 0, 0, 0, 0},
	    {CARC_EXP_RIVER, 0, 0, 0, 0},
	    {CARC_EXP_INNS, 1, 0, 0, 0},
	    {CARC_EXP_INNS_TILES, 0, 0, 0, 0},
	    {CARC_EXP_TRADERS, 0, 1, 1, 0},
	    {CARC_EXP_ABBOT, 0, 0, 0, 1},
	    {ST_EXP_REAL & ~CARC_EXP_INNS_TILES, 1, 1, 1, 1},
	};
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	char err[CARC_ERRMSG_SIZE];
	for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
		carc_rules r = x_rules(T[i].exp, 3);
		assert_int_equal(carc_game_init(g, &r, 9, NULL, 0, err), CARC_OK);
		for (int p = 0; p < 3; p++) {
			assert_int_equal(carc_supply(g, p, FOL), 7);
			assert_int_equal(carc_supply(g, p, BIG), T[i].big);
			assert_int_equal(carc_supply(g, p, BLD), T[i].builder);
			assert_int_equal(carc_supply(g, p, PIG), T[i].pig);
			assert_int_equal(carc_supply(g, p, ABT), T[i].abbot);
		}
	}
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inn_road_completed_doubled),
		cmocka_unit_test(inn_road_incomplete_zero),
		cmocka_unit_test(inn_ic14_east_road_only),
		cmocka_unit_test(cathedral_completed),
		cmocka_unit_test(cathedral_incomplete_zero),
		cmocka_unit_test(big_follower_wins_2_to_1),
		cmocka_unit_test(big_follower_ties_2_to_2),
		cmocka_unit_test(big_follower_scores_once_returns),
		cmocka_unit_test(big_follower_farmer_weighs_2),
		cmocka_unit_test(six_players_only_with_inns),
		cmocka_unit_test(goods_to_placer_without_knight),
		cmocka_unit_test(goods_tie_both_score),
		cmocka_unit_test(builder_extra_turn),
		cmocka_unit_test(builder_on_city),
		cmocka_unit_test(pig_four_per_city_for_owner),
		cmocka_unit_test(pig_other_editions),
		cmocka_unit_test(abbot_placement_and_recall),
		cmocka_unit_test(abbot_garden_completed_9),
		cmocka_unit_test(garden_tiles_need_abbot),
		cmocka_unit_test(river_spring_pieces_lake_order),
		cmocka_unit_test(river_continues_open_end),
		cmocka_unit_test(river_no_u_turn),
		cmocka_unit_test(river_divides_fields),
		cmocka_unit_test(river_banks_meet_around_spring),
		cmocka_unit_test(standard_pile_totals),
		cmocka_unit_test(supply_by_expansion),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
