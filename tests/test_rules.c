/*
 * test_rules.c - scenario tests of the base-game rules (../shared/rules.md)
 * on short piles: exact scores, supply, events, the end of the game.
 *
 * Every board is drawn in a comment above its test: squares (x, y) with x
 * growing east and y growing south, tile letter and rotation (clockwise
 * quarter turns of the tile as drawn in spec/base-tiles.json), in the order
 * played. With two players red (0) moves first, then blue (1), and so on.
 * Tiles used most (at rot 0): D city N, road E-W (the start tile at (0, 0));
 * E city cap N; U road W-E; V road S-W; A cloister, road S; B cloister;
 * F city E-W with shield; M city N+W with shield; N city N+W; K city N, road
 * S-W; J city N, road E-S; L city N, roads E, S, W end at a junction; W
 * roads E, S, W end at a junction; X crossroads; I city caps N and W;
 * R city N, E, W; S city N, E, W with shield, road S.
 * Rotation r: the side d at rot 0 is side (d + r) mod 4 on the board, e.g.
 * E rot 2 has its city to the south, M rot 2 has its city S and E.
 */
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define RED 0
#define BLUE 1

static carc_game *new_game(int players, const char *pile)
{
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	carc_rules r = t_rules(players);
	t_game(g, &r, pile);
	return g;
}

static carc_game *new_game_rules(const carc_rules *r, const char *pile)
{
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	t_game(g, r, pile);
	return g;
}

/* The first event of a kind (and final flag), NULL if none. */
static const carc_event *find_event(const carc_events *ev, int kind, int final)
{
	for (int i = 0; i < ev->n; i++)
		if (ev->ev[i].type == CARC_EV_SCORED && ev->ev[i].kind == kind &&
		    ev->ev[i].final == final)
			return &ev->ev[i];
	return NULL;
}

static int count_events(const carc_events *ev, int kind, int final)
{
	int n = 0;
	for (int i = 0; i < ev->n; i++)
		n += ev->ev[i].type == CARC_EV_SCORED && ev->ev[i].kind == kind &&
		     ev->ev[i].final == final;
	return n;
}

/* Events of one type (CARC_EV_SCORED, CARC_EV_RETURNED). */
static int count_type(const carc_events *ev, int type)
{
	int n = 0;
	for (int i = 0; i < ev->n; i++)
		n += ev->ev[i].type == type;
	return n;
}

/* tiles < 0: not checked (farm events count something else) */
static void expect_event(const carc_events *ev, int kind, int final, int tiles,
                         int red, int blue)
{
	const carc_event *e = find_event(ev, kind, final);
	if (!e)
		fail_msg("no event of kind %d (final %d) among %d", kind, final, ev->n);
	if (tiles >= 0)
		assert_int_equal(e->tiles, tiles);
	assert_int_equal(e->points[RED], red);
	assert_int_equal(e->points[BLUE], blue);
}

static int by_kind(const carc_game *g, int p, int k) { return carc_score_by_kind(g, p, k); }
static int supply(const carc_game *g, int p) { return carc_supply(g, p, CARC_FIG_FOLLOWER); }

/* Followers of player p standing on the board. */
static int on_board(const carc_game *g, int p)
{
	carc_figure_info fi[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, fi, CARC_MAX_FIGURES), mine = 0;
	for (int i = 0; i < n; i++)
		mine += fi[i].owner == p;
	return mine;
}

/* ---- the worked examples of rules.md ------------------------------------ */

/*
 * A completed four-tile city with two shields: 4x2 + 2x2 = 12.
 *
 *          x=0               x=1
 *   y=-1   M rot 2 (S+E) [1] M rot 3 (W+S) [2]
 *   y=0    D start           K rot 0 [3]
 *
 * 1 red M (0,-1) rot 2, knight S1; 2 blue M (1,-1) rot 3; 3 red K (1,0)
 * rot 0: its city N closes the ring D-M-M-K, its road W meets D's road.
 */
static void city_four_tiles_two_shields_12(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "MMK");
	carc_events ev;
	t_play(g, 0, -1, 2, "S1");
	assert_int_equal(supply(g, RED), 6);
	t_play(g, 1, -1, 3, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 0, 0, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 4, 12, 0);
	assert_int_equal(count_events(&ev, CARC_SCORE_CITY, 0), 1);
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){12, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CITY), 12);
	assert_int_equal(supply(g, RED), 7);
	free(g);
}

/*
 * A two-tile city: 4. Blue's knight is on it; red completes it and gets
 * nothing.
 *
 *          x=0        x=1
 *   y=-2              E rot 2 [3] (city S)
 *   y=-1              E rot 0 [2] (city N), knight
 *   y=0    D          U rot 0 [1]
 */
static void city_two_tiles_4(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "UEE");
	carc_events ev;
	t_play(g, 1, 0, 0, NULL);
	t_play(g, 1, -1, 0, "N1");
	assert_int_equal(supply(g, BLUE), 6);
	t_play_ev(g, 1, -2, 2, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 2, 0, 4);
	t_scores(g, (int[]){0, 4});
	assert_int_equal(supply(g, BLUE), 7);
	free(g);
}

/*
 * A four-tile road with one robber of red and one of blue: both score 4.
 *
 *          x=-1        x=0           x=1
 *   y=0    W rot 0 [3] D             V rot 0 [4]
 *   y=1                E rot 2 [1]   A rot 2 [2]
 *
 * 1 red E (0,1) rot 2 (field N, so A has a neighbour); 2 blue A (1,1) rot 2
 * (road N, cloister), robber N1; 3 red W (-1,0), robber E1 (on D's road);
 * 4 blue V (1,0) rot 0 joins the two: junction W - D - V - cloister A.
 */
static void road_four_tiles_shared_4(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "EAWV");
	carc_events ev;
	t_play(g, 0, 1, 2, NULL);
	t_play(g, 1, 1, 2, "N1");
	t_play(g, -1, 0, 0, "E1");
	t_scores(g, (int[]){0, 0});
	assert_int_equal(supply(g, RED), 6);
	assert_int_equal(supply(g, BLUE), 6);
	t_play_ev(g, 1, 0, 0, NULL, &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 4, 4, 4);
	t_scores(g, (int[]){4, 4});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_ROAD), 4);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_ROAD), 4);
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(supply(g, BLUE), 7);
	free(g);
}

/*
 * A completed cloister: 9.
 *
 *          x=-1        x=0          x=1
 *   y=0    U rot 0 [2] D            U rot 0 [3]
 *   y=1    E rot 3 [4] B [1] monk   E rot 1 [5]
 *   y=2    E rot 3 [6] E rot 2 [7]  E rot 1 [8]
 *
 * The E caps face outward (cities W, S, E) and stay open; the 8th
 * neighbour, placed by blue, completes red's cloister.
 */
static void cloister_complete_9(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "BUUEEEEE");
	carc_events ev;
	t_play(g, 0, 1, 0, "C");
	t_play(g, -1, 0, 0, NULL);
	t_play(g, 1, 0, 0, NULL);
	t_play(g, -1, 1, 3, NULL);
	t_play(g, 1, 1, 1, NULL);
	t_play(g, -1, 2, 3, NULL);
	t_play(g, 0, 2, 2, NULL);
	t_scores(g, (int[]){0, 0});
	assert_int_equal(supply(g, RED), 6);
	t_play_ev(g, 1, 2, 1, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CLOISTER, 0, 9, 9, 0);
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){9, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CLOISTER), 9);
	assert_int_equal(supply(g, RED), 7);
	/* no second scoring of it at the end */
	assert_int_equal(count_events(&ev, CARC_SCORE_CLOISTER, 1), 0);
	free(g);
}

/*
 * An incomplete cloister with five neighbours at the end: 1 + 5 = 6.
 *
 *          x=-1        x=0          x=1
 *   y=0    U rot 0 [2] D            U rot 0 [3]
 *   y=1    E rot 3 [4] B [1] monk   E rot 1 [5]
 */
static void cloister_incomplete_five_neighbours_6(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "BUUEE");
	carc_events ev;
	t_play(g, 0, 1, 0, "C");
	t_play(g, -1, 0, 0, NULL);
	t_play(g, 1, 0, 0, NULL);
	t_play(g, -1, 1, 3, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 1, 1, NULL, &ev);
	assert_true(carc_game_over(g));
	expect_event(&ev, CARC_SCORE_CLOISTER, 1, 6, 6, 0);
	t_scores(g, (int[]){6, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CLOISTER), 6);
	assert_int_equal(supply(g, RED), 7);
	free(g);
}

/*
 * An incomplete three-tile city with two shields at the end: 3 + 2 = 5.
 *
 *          x=0                  x=1
 *   y=-1   M rot 2 (S+E) [1]    F rot 0 (W-E, open to the east) [2]
 *   y=0    D
 */
static void city_incomplete_three_tiles_two_shields_5(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "MF");
	carc_events ev;
	t_play(g, 0, -1, 2, "S1");
	t_play_ev(g, 1, -1, 0, NULL, &ev);
	assert_true(carc_game_over(g));
	expect_event(&ev, CARC_SCORE_CITY, 1, 3, 5, 0);
	t_scores(g, (int[]){5, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CITY), 5);
	free(g);
}

/*
 * A field bordering two completed cities and one incomplete one: 6.
 *
 *          x=-2          x=-1           x=0            x=1
 *   y=-2                                B [7]          E rot 2 [5] (city S)
 *   y=-1   N rot 1 [6]   N rot 3 [4]    E rot 2 [9]    E rot 0 [3] (city N)
 *          (city E+N)    (city W+S)     (city S)
 *   y=0    V rot 0 [8]   J rot 0 [2]    D              U rot 0 [1]
 *
 * city1 = D + E(0,-1): complete. city2 = E(1,-1) + E(1,-2): complete.
 * city3 = J + N(-1,-1) + N(-2,-1): open to the north at (-2,-2).
 * Field pieces, separate when their farmers go on:
 *   P2: north of the road at y=0 (D, U, J, V) and E(1,-1): farmer at [1]
 *   P3: E(1,-2)'s field and B: farmer at [5]
 *   P4: N(-1,-1)'s field: farmer at [4]
 *   P5: N(-2,-1)'s field: farmer at [6] (when `blue_second`), joined to P2
 *       by V [8]
 * The last tile, E(0,-1) [9], closes city1 and joins P2, P3 and P4 into one
 * field that borders city1, city2 (complete) and city3 (not).
 */
static carc_game *field_two_cities(int farm_scoring, int blue_second)
{
	carc_rules r = t_rules(2);
	r.farm_scoring = farm_scoring;
	carc_game *g = new_game_rules(&r, "UJENENBVE");
	t_play(g, 1, 0, 0, "N1");                       /* red farmer, P2 */
	t_play(g, -1, 0, 0, NULL);
	t_play(g, 1, -1, 0, NULL);
	t_play(g, -1, -1, 3, "N1");                     /* blue farmer, P4 */
	t_play(g, 1, -2, 2, "N1");                      /* red farmer, P3 */
	t_play(g, -2, -1, 1, blue_second ? "W1" : NULL); /* blue farmer, P5 */
	t_play(g, 0, -2, 0, NULL);
	t_play(g, -2, 0, 0, NULL);
	t_scores(g, (int[]){0, 0});
	return g;
}

static void field_two_completed_cities_red_2_blue_1(void **state)
{
	(void)state;
	carc_game *g = field_two_cities(CARC_FARM_INTERNATIONAL, 0);
	carc_events ev;
	t_play_ev(g, 0, -1, 2, NULL, &ev);
	assert_true(carc_game_over(g));
	/* one field, scored once: 2 completed cities x 3 to red alone */
	assert_int_equal(count_events(&ev, CARC_SCORE_FARM, 1), 1);
	expect_event(&ev, CARC_SCORE_FARM, 1, -1, 6, 0);
	t_scores(g, (int[]){6, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_FARM), 6);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_FARM), 0);
	/* farmers stay on the board */
	assert_int_equal(supply(g, RED), 5);
	assert_int_equal(supply(g, BLUE), 6);
	free(g);
}

static void field_two_completed_cities_2_each(void **state)
{
	(void)state;
	carc_game *g = field_two_cities(CARC_FARM_INTERNATIONAL, 1);
	carc_events ev;
	t_play_ev(g, 0, -1, 2, NULL, &ev);
	assert_true(carc_game_over(g));
	assert_int_equal(count_events(&ev, CARC_SCORE_FARM, 1), 1);
	expect_event(&ev, CARC_SCORE_FARM, 1, -1, 6, 6);
	t_scores(g, (int[]){6, 6});
	assert_int_equal(supply(g, RED), 5);
	assert_int_equal(supply(g, BLUE), 5);
	free(g);
}

/* The same position under the older editions: city-once pays each of the
 * two completed cities once to red (3 + 3); first edition gives each
 * completed city 4 to the farmer majority of its bordering fields, red 2
 * to blue 1 for both (4 + 4). */
static void field_two_completed_cities_old_editions(void **state)
{
	(void)state;
	carc_game *g = field_two_cities(CARC_FARM_CITY_ONCE, 0);
	t_play(g, 0, -1, 2, NULL);
	t_scores(g, (int[]){6, 0});
	free(g);
	g = field_two_cities(CARC_FARM_FIRST_EDITION, 0);
	t_play(g, 0, -1, 2, NULL);
	t_scores(g, (int[]){8, 0});
	free(g);
	g = field_two_cities(CARC_FARM_FIRST_EDITION, 1);
	t_play(g, 0, -1, 2, NULL);
	t_scores(g, (int[]){8, 8});
	free(g);
}

/*
 * A completed city bordering the same field at several places pays that
 * field once.
 *
 *          x=0             x=1
 *   y=-1   E rot 2 [1]     B [3]
 *   y=0    D               U rot 0 [2]
 *
 * E [1] closes D's city (no knight: nothing) and red's farmer goes on its
 * field (N, E and W of the cap). B [3] joins that field with the one north
 * of the road (D, U), which borders the city too, on the start tile.
 */
static void field_borders_city_twice_pays_once(void **state)
{
	(void)state;
	for (int fs = 0; fs < CARC_FARM_SCORING_COUNT; fs++) {
		carc_rules r = t_rules(2);
		r.farm_scoring = fs;
		carc_game *g = new_game_rules(&r, "EUB");
		carc_events ev;
		t_play(g, 0, -1, 2, "E1");
		t_scores(g, (int[]){0, 0});
		t_play(g, 1, 0, 0, NULL);
		t_play_ev(g, 1, -1, 0, NULL, &ev);
		assert_true(carc_game_over(g));
		int want = fs == CARC_FARM_FIRST_EDITION ? 4 : 3;
		t_scores(g, (int[]){want, 0});
		assert_int_equal(by_kind(g, RED, CARC_SCORE_FARM), want);
		assert_int_equal(count_events(&ev, CARC_SCORE_FARM, 1), 1);
		free(g);
	}
}

/*
 * One completed city, three separate fields around it; the three farm
 * editions all differ.
 *
 *          x=-1          x=0               x=1
 *   y=-2                 E rot 2 [4]
 *   y=-1   B [3]         F rot 1 [1]
 *                        (city N-S, shield; fields E and W)
 *   y=0                  D                 U rot 0 [2]
 *
 * City D + F + E: 3 tiles, 1 shield, completed by [4] (no knight).
 * Red farmers: F's east field [1], F's west field + B [3]. Blue farmer: the
 * field north of the road (D, U) [2], which borders the city on D.
 *   international: red 3 + 3 = 6 (the same city pays through each field,
 *                  even to the same player), blue 3;
 *   city-once:     red 3, blue 3;
 *   first edition: the city's fields hold red 2, blue 1: red 4, blue 0.
 */
static carc_game *three_fields_one_city(int fs, int farmers)
{
	carc_rules r = t_rules(2);
	r.farm_scoring = fs;
	r.farmers = farmers;
	carc_game *g = new_game_rules(&r, "FUBE");
	t_play(g, 0, -1, 1, farmers ? "E1" : NULL);
	t_play(g, 1, 0, 0, farmers ? "N1" : NULL);
	t_play(g, -1, -1, 0, farmers ? "W1" : NULL);
	t_play(g, 0, -2, 2, NULL);
	assert_true(carc_game_over(g));
	return g;
}

static void farm_editions_differ(void **state)
{
	(void)state;
	static const int want[3][2] = {{6, 3}, {3, 3}, {4, 0}};
	for (int fs = 0; fs < CARC_FARM_SCORING_COUNT; fs++) {
		carc_game *g = three_fields_one_city(fs, 1);
		t_scores(g, want[fs]);
		assert_int_equal(by_kind(g, RED, CARC_SCORE_FARM), want[fs][0]);
		assert_int_equal(by_kind(g, BLUE, CARC_SCORE_FARM), want[fs][1]);
		assert_int_equal(by_kind(g, RED, CARC_SCORE_CITY), 0);
		free(g);
	}
	assert_int_equal(carc_farm_scoring_parse("international"), CARC_FARM_INTERNATIONAL);
	assert_int_equal(carc_farm_scoring_parse("city-once"), CARC_FARM_CITY_ONCE);
	assert_int_equal(carc_farm_scoring_parse("first-edition"), CARC_FARM_FIRST_EDITION);
	assert_int_equal(carc_farm_scoring_parse("bogus"), -1);
}

/*
 * The shared-victory example, as far as base tiles and a short game allow.
 * The source has red 40 and blue 43 before the final scoring; here red has
 * 0 and blue 3 (a completed three-tile road), the final parts are those of
 * the source: red + 3 + 5 + 6 + 6 = 20, blue + 4 + 7 + 6 = 17 + 3 = 20.
 *
 *          x=-2         x=-1          x=0           x=1          x=2
 *   y=-1                              M rot 2 [3]   F rot 0 [4]
 *   y=0                 U rot 0 [1]   D             V rot 0 [6]  A rot 0 [11]
 *   y=1    U rot 1 [14] B [2]         B [5]                      U rot 1 [12]
 *   y=2    U rot 1 [15]               E rot 2 [7]                A rot 2 [13]
 *   y=3    U rot 1 [16] E rot 2 [9]   E rot 0 [8]
 *   y=4    U rot 1 [17] E rot 0 [10]
 *
 * red: robber on U-D-V [1] (3 tiles, open at (-2,0) and (1,1)); knight on
 *      D-M-F [3] (3 tiles, 2 shields, open at (2,-1)); monk on B (0,1) [5]
 *      (neighbours U, D, V, B, E: 5); farmer on the south field [7].
 * blue: monk on B (-1,1) [2] (neighbours U, D, U, B, U, E: 6); robber on
 *      A-U-A [12], completed by red's A [13]: 3; robber on the road at x=-2
 *      [14] (4 tiles, open both ends); farmer at [8] on E (0,3)'s field,
 *      joined to red's south field by U (-2,3) [16].
 * The south field borders city (0,2)+(0,3) [7, 8] and city (-1,3)+(-1,4)
 * [9, 10], both complete: 6 each.
 */
static void shared_victory_final_scoring(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "UBMFBVEEEEAUAUUUU");
	carc_events ev;
	t_play(g, -1, 0, 0, "E1");  /* 1 red robber */
	t_play(g, -1, 1, 0, "C");   /* 2 blue monk */
	t_play(g, 0, -1, 2, "S1");  /* 3 red knight */
	t_play(g, 1, -1, 0, NULL);  /* 4 */
	t_play(g, 0, 1, 0, "C");    /* 5 red monk */
	t_play(g, 1, 0, 0, NULL);   /* 6 */
	t_play(g, 0, 2, 2, "N1");   /* 7 red farmer */
	t_play(g, 0, 3, 0, "S1");   /* 8 blue farmer; closes a city, no knight */
	t_play(g, -1, 3, 2, NULL);  /* 9 */
	t_play(g, -1, 4, 0, NULL);  /* 10 closes a city, no knight */
	t_play(g, 2, 0, 0, NULL);   /* 11 */
	t_play(g, 2, 1, 1, "N1");   /* 12 blue robber */
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 2, 2, 2, NULL, &ev); /* 13 red completes blue's road */
	expect_event(&ev, CARC_SCORE_ROAD, 0, 3, 0, 3);
	t_scores(g, (int[]){0, 3});
	t_play(g, -2, 1, 1, "N1");  /* 14 blue robber */
	t_play(g, -2, 2, 1, NULL);  /* 15 */
	t_play(g, -2, 3, 1, NULL);  /* 16 joins the farms */
	t_scores(g, (int[]){0, 3});
	t_play_ev(g, -2, 4, 1, NULL, &ev); /* 17, the last tile */
	assert_true(carc_game_over(g));
	int before[2];
	carc_game_turn_scores(g, before);
	assert_int_equal(before[RED], 0);
	assert_int_equal(before[BLUE], 3);
	t_scores(g, (int[]){20, 20});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_ROAD), 3);
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CITY), 5);
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CLOISTER), 6);
	assert_int_equal(by_kind(g, RED, CARC_SCORE_FARM), 6);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_ROAD), 3 + 4);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_CITY), 0);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_CLOISTER), 7);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_FARM), 6);
	/* the final events: two roads, a city, two cloisters, one farm */
	assert_int_equal(count_events(&ev, CARC_SCORE_ROAD, 1), 2);
	assert_int_equal(count_events(&ev, CARC_SCORE_CITY, 1), 1);
	assert_int_equal(count_events(&ev, CARC_SCORE_CLOISTER, 1), 2);
	assert_int_equal(count_events(&ev, CARC_SCORE_FARM, 1), 1);
	expect_event(&ev, CARC_SCORE_CITY, 1, 3, 5, 0);
	expect_event(&ev, CARC_SCORE_FARM, 1, -1, 6, 6);
	/* only the farmers stay */
	assert_int_equal(supply(g, RED), 6);
	assert_int_equal(supply(g, BLUE), 6);
	assert_int_equal(on_board(g, RED), 1);
	assert_int_equal(on_board(g, BLUE), 1);
	free(g);
}

/*
 * One tile completes a road and fills a cloister's last neighbour: both
 * score in that turn.
 *
 *          x=-1         x=0          x=1
 *   y=0    A rot 3 [2]  D            A rot 1 [8]
 *   y=1    E rot 3 [3]  B [1] monk   E rot 1 [4]
 *   y=2    E rot 3 [5]  E rot 2 [6]  E rot 1 [7]
 *
 * The road A(-1,0) - D - A(1,0) runs between two cloisters (3 tiles, blue
 * robber at [2]); A [8] closes it and is red's cloister's 8th neighbour.
 */
static void road_and_cloister_by_one_tile(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "BAEEEEEA");
	carc_events ev;
	t_play(g, 0, 1, 0, "C");
	t_play(g, -1, 0, 3, "E1");
	t_play(g, -1, 1, 3, NULL);
	t_play(g, 1, 1, 1, NULL);
	t_play(g, -1, 2, 3, NULL);
	t_play(g, 0, 2, 2, NULL);
	t_play(g, 1, 2, 1, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 0, 1, NULL, &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 3, 0, 3);
	expect_event(&ev, CARC_SCORE_CLOISTER, 0, 9, 9, 0);
	t_scores(g, (int[]){9, 3});
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(supply(g, BLUE), 7);
	free(g);
}

/*
 * A player closes an empty city with the tile just placed, puts a knight
 * on it, scores it at once and has the knight back the same turn.
 *
 *          x=0
 *   y=-1   E rot 2 [1] knight S1
 *   y=0    D                       U rot 0 [2] at (1,0)
 */
static void close_city_knight_back_same_turn(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "EU");
	carc_events ev;
	assert_int_equal(supply(g, RED), 7);
	t_play_ev(g, 0, -1, 2, "S1", &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 2, 4, 0);
	t_scores(g, (int[]){4, 0});
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(on_board(g, RED), 0);
	assert_int_equal(carc_to_move(g), BLUE);
	t_play(g, 1, 0, 0, NULL);
	t_scores(g, (int[]){4, 0});
	free(g);
}

/*
 * The tiny game of spec/README.md: red extends the road east with a robber,
 * blue closes the start city with a knight (4), red extends the road west;
 * the road is incomplete at the end: 3.
 *
 *          x=-1         x=0          x=1
 *   y=-1                E rot 2 [2]
 *   y=0    V rot 2 [3]  D            U rot 0 [1]
 */
static void spec_record_game(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "UEV");
	t_play(g, 1, 0, 0, "E1");
	t_scores(g, (int[]){0, 0});
	t_play(g, 0, -1, 2, "S1");
	t_scores(g, (int[]){0, 4});
	t_play(g, -1, 0, 2, NULL);
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){3, 4});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_ROAD), 3);
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CITY), 0);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_CITY), 4);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_ROAD), 0);
	free(g);
}

/* ---- table options --------------------------------------------------------- */

/* small_city: a completed two-tile city scores 2 (the board of
 * close_city_knight_back_same_turn); a four-tile one is unchanged (12, the
 * board of city_four_tiles_two_shields_12); an incomplete two-tile city at
 * the end is unchanged (1 per tile and shield: F rot 1 north of D, 3). */
static void small_city_option(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	r.small_city = 1;
	carc_game *g = new_game_rules(&r, "EU");
	t_play(g, 0, -1, 2, "S1");
	t_scores(g, (int[]){2, 0});
	assert_int_equal(supply(g, RED), 7);
	free(g);

	g = new_game_rules(&r, "MMK");
	t_play(g, 0, -1, 2, "S1");
	t_play(g, 1, -1, 3, NULL);
	t_play(g, 1, 0, 0, NULL);
	t_scores(g, (int[]){12, 0});
	free(g);

	g = new_game_rules(&r, "F");
	t_play(g, 0, -1, 1, "N1");
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){3, 0});
	free(g);
}

/* farmers off: no follower may go on a field (the engine offers none and
 * rejects one), and fields are not scored. Board of farm_editions_differ,
 * played without farmers; knights would work, farmers not. */
static void farmers_off(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	r.farmers = 0;
	carc_game *g = new_game_rules(&r, "FUBE");
	/* the F rot 1 north of D: its fields are E and W */
	carc_move pl = carc_move_make(0, -1, 1, CARC_SEG_NONE, 0);
	carc_move opts[16];
	int n = carc_figure_options(g, pl, opts, 16);
	assert_int_equal(n, 1); /* the city only */
	int kind;
	carc_tile_segment(carc_current_tile(g), carc_move_seg(opts[0]), &kind, NULL, NULL, NULL);
	assert_int_equal(kind, CARC_FEAT_CITY);
	t_illegal(g, t_move(g, 0, -1, 1, "E1"));
	t_illegal(g, t_move(g, 0, -1, 1, "W1"));
	/* no legal move of the whole turn puts a follower on a field */
	carc_move mv[CARC_MAX_MOVES];
	int nm = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	for (int i = 0; i < nm; i++) {
		int seg = carc_move_seg(mv[i]);
		if (mv[i] == CARC_MOVE_DISCARD || seg == CARC_SEG_NONE)
			continue;
		carc_tile_segment(carc_current_tile(g), seg, &kind, NULL, NULL, NULL);
		assert_int_not_equal(kind, CARC_FEAT_FIELD);
	}
	free(g);
	g = three_fields_one_city(CARC_FARM_INTERNATIONAL, 0);
	t_scores(g, (int[]){0, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_FARM), 0);
	free(g);
	/* and the same board with farmers on does score (the control) */
	g = three_fields_one_city(CARC_FARM_INTERNATIONAL, 1);
	t_scores(g, (int[]){6, 3});
	free(g);
}

/* ---- roads -------------------------------------------------------------------- */

/*
 * A road loop closes without ends: 4 tiles, 4 points.
 *
 *          x=0          x=1
 *   y=0    D
 *   y=1    V rot 3 [1]  V rot 0 [2]      (E-S, S-W)
 *   y=2    V rot 2 [3]  V rot 1 [4]      (N-E, N-W)
 */
static void road_loop(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "VVVV");
	carc_events ev;
	t_play(g, 0, 1, 3, "E1");
	t_play(g, 1, 1, 0, NULL);
	t_play(g, 0, 2, 2, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 2, 1, NULL, &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 4, 4, 0);
	t_scores(g, (int[]){4, 0});
	assert_int_equal(supply(g, RED), 7);
	free(g);
}

/*
 * Roads end at junctions, cloisters and cities.
 *
 *          x=-1         x=0     x=1          x=2
 *   y=0    W rot 0 [1]  D       L rot 0 [3]  X rot 0 [5]
 *   y=1    A rot 2 [2]          S rot 2 [4]
 *
 * 1 red W, robber on its E road (joins D's road).
 * 2 blue A rot 2 (road N to the cloister), robber: W's S road + A: 2 tiles,
 *   complete at once: blue 2.
 * 3 red L: junction W - D - junction L, 3 tiles: red 3; red's new robber
 *   goes on L's S road.
 * 4 blue S rot 2 (city E, S, W; road N ends at the city): L - S, 2: red 2.
 * 5 red X, robber on its W road: L - X, junction to crossroads, 2: red 2.
 */
static void roads_end_at_junction_city_cloister(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "WALSX");
	carc_events ev;
	t_play(g, -1, 0, 0, "E1");
	t_play_ev(g, -1, 1, 2, "N1", &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 2, 0, 2);
	t_scores(g, (int[]){0, 2});
	assert_int_equal(supply(g, BLUE), 7);
	t_play_ev(g, 1, 0, 0, "S1", &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 3, 3, 0);
	t_scores(g, (int[]){3, 2});
	assert_int_equal(supply(g, RED), 6);
	t_play_ev(g, 1, 1, 2, NULL, &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 2, 2, 0);
	t_scores(g, (int[]){5, 2});
	assert_int_equal(supply(g, RED), 7);
	t_play_ev(g, 2, 0, 0, "W1", &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 2, 2, 0);
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){7, 2});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_ROAD), 7);
	assert_int_equal(supply(g, RED), 7);
	free(g);
}

/*
 * A road that crosses one tile twice counts it once.
 *
 *          x=0     x=1          x=2
 *   y=0    D       V rot 0 [1]
 *   y=1            L rot 3 [2]  V rot 0 [3]
 *   y=2            V rot 2 [5]  V rot 1 [4]
 *
 * L rot 3: city W, roads N, E, S end at its junction. Its E and S roads are
 * joined by the three V's into one road with both ends at L: L, V, V, V =
 * 4 tiles (5 if L counted twice). Blue's robber on L's E road.
 */
static void road_through_tile_twice(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "VLVVV");
	carc_events ev;
	t_play(g, 1, 0, 0, NULL);
	t_play(g, 1, 1, 3, "E1");
	t_play(g, 2, 1, 0, NULL);
	t_play(g, 2, 2, 1, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 2, 2, NULL, &ev);
	expect_event(&ev, CARC_SCORE_ROAD, 0, 4, 0, 4);
	t_scores(g, (int[]){0, 4});
	free(g);
}

/* ---- cities ---------------------------------------------------------------------- */

/*
 * A city that touches one tile twice counts it once.
 *
 *          x=0          x=1
 *   y=0    D
 *   y=1    N rot 2 [1]  N rot 3 [2]     (city S+E, city W+S)
 *   y=2    N rot 1 [3]  I rot 0 [4]     (city N+E, caps N and W)
 *
 * I's two caps are both closed by the ring: 4 tiles, 8 (10 if I counted
 * twice).
 */
static void city_through_tile_twice(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "NNNI");
	carc_events ev;
	t_play(g, 0, 1, 2, "S1");
	t_play(g, 1, 1, 3, NULL);
	t_play(g, 0, 2, 1, NULL);
	t_scores(g, (int[]){0, 0});
	t_play_ev(g, 1, 2, 0, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 4, 8, 0);
	assert_int_equal(count_events(&ev, CARC_SCORE_CITY, 0), 1);
	t_scores(g, (int[]){8, 0});
	free(g);
}

/*
 * Features joined with followers of several players: majority.
 *
 *          x=-1         x=0          x=1
 *   y=0                 D
 *   y=1    B [2]        E rot 2 [1]  B [3]
 *   y=2    E rot 1 [4]  R rot 0 [6]  E rot 3 [5]
 *
 * Three caps face the square (0,2), each with its own knight while apart;
 * R (city N, E, W) joins them: 4 tiles, 8 points.
 */
static carc_game *three_caps(const char *k1, const char *k4, const char *k5)
{
	carc_game *g = new_game(2, "EBBEER");
	t_play(g, 0, 1, 2, k1);   /* red */
	t_play(g, -1, 1, 0, NULL);
	t_play(g, 1, 1, 0, NULL);
	t_play(g, -1, 2, 1, k4);  /* blue */
	t_play(g, 1, 2, 3, k5);   /* red */
	t_scores(g, (int[]){0, 0});
	return g;
}

static void majority_two_to_one(void **state)
{
	(void)state;
	carc_game *g = three_caps("S1", "E1", "W1");
	carc_events ev;
	assert_int_equal(supply(g, RED), 5);
	assert_int_equal(supply(g, BLUE), 6);
	t_play_ev(g, 0, 2, 0, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 4, 8, 0);
	t_scores(g, (int[]){8, 0});
	/* every follower on it comes back, the loser's too */
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(supply(g, BLUE), 7);
	free(g);
}

static void majority_tie_both_score(void **state)
{
	(void)state;
	carc_game *g = three_caps("S1", "E1", NULL);
	carc_events ev;
	t_play_ev(g, 0, 2, 0, NULL, &ev);
	expect_event(&ev, CARC_SCORE_CITY, 0, 4, 8, 8);
	t_scores(g, (int[]){8, 8});
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(supply(g, BLUE), 7);
	free(g);
}

/* Nobody on it: nobody scores, whoever completes it. */
static void majority_nobody(void **state)
{
	(void)state;
	carc_game *g = three_caps(NULL, NULL, NULL);
	carc_events ev;
	t_play_ev(g, 0, 2, 0, NULL, &ev);
	assert_int_equal(count_events(&ev, CARC_SCORE_CITY, 0), 0);
	t_scores(g, (int[]){0, 0});
	free(g);
}

/* ---- the discard rule --------------------------------------------------------- */

/*
 * A tile that fits nowhere is set aside; the same player draws again.
 *
 *          x=0
 *   y=-1   E rot 2 [1]
 *   y=0    D
 *
 * After E closes D's city every open square wants a field or a road, so C
 * (city on all four sides) fits nowhere: blue must discard it and goes on
 * with U, which fits and may not be discarded.
 */
static void discard_rule(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "ECU");
	t_play(g, 0, -1, 2, NULL);
	assert_int_equal(carc_to_move(g), BLUE);
	assert_int_equal(carc_current_tile(g), carc_tile_parse("C"));
	carc_move mv[CARC_MAX_MOVES];
	assert_int_equal(carc_placements(g, mv, CARC_MAX_MOVES), 1);
	assert_int_equal(mv[0], CARC_MOVE_DISCARD);
	assert_int_equal(carc_legal_moves(g, mv, CARC_MAX_MOVES), 1);
	assert_int_equal(mv[0], CARC_MOVE_DISCARD);
	/* placing it anywhere is illegal */
	static const int sq[6][2] = {{0, -2}, {-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}};
	for (int i = 0; i < 6; i++)
		for (int rot = 0; rot < 4; rot++)
			t_illegal(g, carc_move_make(sq[i][0], sq[i][1], rot, CARC_SEG_NONE, 0));
	char err[CARC_ERRMSG_SIZE];
	carc_events ev;
	assert_int_equal(carc_apply(g, CARC_MOVE_DISCARD, &ev, err), CARC_OK);
	t_check(g);
	assert_int_equal(ev.n, 0);
	assert_false(carc_game_over(g));
	assert_int_equal(carc_to_move(g), BLUE);
	assert_int_equal(carc_current_tile(g), carc_tile_parse("U"));
	assert_int_equal(carc_tiles_left(g), 1);
	assert_int_equal(carc_tiles_left_of(g, carc_tile_parse("C")), 0);
	assert_int_equal(g->ntiles, 2);
	/* U fits: a discard is rejected */
	t_illegal(g, CARC_MOVE_DISCARD);
	t_play(g, 1, 0, 0, "E1");
	assert_true(carc_game_over(g));
	/* three turns were taken: E, the discard, U */
	assert_int_equal(g->nturns, 3);
	int pl1, pl2;
	assert_int_equal(carc_turn_played(g, 1, NULL, &pl1), CARC_MOVE_DISCARD);
	carc_turn_played(g, 2, NULL, &pl2);
	assert_int_equal(pl1, BLUE);
	assert_int_equal(pl2, BLUE);
	/* blue's robber: U + D, open: 2 */
	t_scores(g, (int[]){0, 2});
	free(g);
}

/* A discard of the last tile ends the game and the final scoring runs. */
static void discard_last_tile_ends_game(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "EC");
	t_play(g, 0, -1, 2, "S1");
	t_scores(g, (int[]){4, 0});
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_apply(g, CARC_MOVE_DISCARD, NULL, err), CARC_OK);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_current_tile(g), -1);
	carc_move mv[4];
	assert_int_equal(carc_legal_moves(g, mv, 4), 0);
	assert_int_equal(carc_placements(g, mv, 4), 0);
	t_scores(g, (int[]){4, 0});
	free(g);
}

/* ---- illegal moves ------------------------------------------------------------- */

/*
 *          x=0     x=1          x=2
 *   y=0    D       U rot 0 [1]  (blue's U tried here and elsewhere)
 *
 * Red's robber is on D-U. Blue holds a U.
 */
static void illegal_moves_rejected_unchanged(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "UUU");
	t_play(g, 1, 0, 0, "E1");
	/* occupied feature: the road D-U has red's robber */
	t_illegal(g, t_move(g, 2, 0, 0, "E1"));
	t_illegal(g, t_move(g, 2, 0, 2, "W1"));
	t_illegal(g, t_move(g, -1, 0, 0, "W1"));
	/* mismatched edge: field against D's city, road against D's field,
	 * field against the road */
	t_illegal(g, t_move(g, 0, -1, 0, NULL));
	t_illegal(g, t_move(g, 0, 1, 1, NULL));
	t_illegal(g, t_move(g, 2, 0, 1, NULL));
	/* not next to the board by a side */
	t_illegal(g, t_move(g, 5, 5, 0, NULL));
	t_illegal(g, t_move(g, 2, 1, 0, NULL)); /* corner to corner with U */
	t_illegal(g, t_move(g, -255, 200, 0, NULL));
	/* taken squares */
	t_illegal(g, t_move(g, 0, 0, 0, NULL));
	t_illegal(g, t_move(g, 1, 0, 0, NULL));
	/* bad segment: U has 3; a figure that is not in the base game; a
	 * figure with no segment; stray bits; a discard while the tile fits */
	t_illegal(g, carc_move_make(2, 0, 0, 3, CARC_FIG_FOLLOWER));
	t_illegal(g, carc_move_make(2, 0, 0, 14, CARC_FIG_FOLLOWER));
	t_illegal(g, carc_move_make(2, 0, 0, 1, CARC_FIG_BIG));
	t_illegal(g, carc_move_make(2, 0, 0, 1, CARC_FIG_ABBOT));
	t_illegal(g, carc_move_make(2, 0, 0, CARC_SEG_NONE, CARC_FIG_PIG));
	t_illegal(g, carc_move_make(2, 0, 0, 1, CARC_FIG_FOLLOWER) | (1u << 28));
	t_illegal(g, carc_move_make(2, 0, 0, 1, CARC_FIG_FOLLOWER) | (1u << 27));
	t_illegal(g, CARC_MOVE_DISCARD);
	/* the same squares are fine with a legal choice */
	t_play(g, 2, 0, 0, "N1");
	/* the game over: no move at all */
	t_play(g, -1, 0, 0, NULL);
	assert_true(carc_game_over(g));
	char err[CARC_ERRMSG_SIZE] = "";
	assert_int_equal(carc_apply(g, t_move(g, 3, 0, 0, NULL), NULL, err), CARC_ERR_GAME_OVER);
	assert_true(err[0] != 0);
	free(g);
}

/*
 * A follower with an empty supply: red puts monks on seven cloisters in a
 * row (none can be completed: row 2 stays empty), blue lays roads.
 *
 *          x=-3  x=-2  x=-1  x=0   x=1   x=2   x=3   x=4
 *   y=0    U12   U8    U4    D     U2    U6    U10   U14
 *   y=1    B13   B9    B5    B1    B3    B7    B11   B15
 *
 * (numbers: the order played; U rot 0, B; red plays the B's with monks,
 * the 15th without.) At the end, red's monks: (-3,1) has 3 neighbours (4),
 * the other six have 5 (6 each): 40.
 */
static void follower_with_empty_supply(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "BUBUBUBUBUBUBUB");
	static const int bx[7] = {0, 1, -1, 2, -2, 3, -3};
	static const int ux[7] = {1, -1, 2, -2, 3, -3, 4};
	for (int i = 0; i < 7; i++) {
		t_play(g, bx[i], 1, 0, "C");
		assert_int_equal(supply(g, RED), 6 - i);
		t_play(g, ux[i], 0, 0, NULL);
	}
	assert_int_equal(supply(g, RED), 0);
	assert_int_equal(carc_to_move(g), RED);
	t_illegal(g, t_move(g, 4, 1, 0, "C"));
	t_illegal(g, t_move(g, 4, 1, 0, "N1"));
	/* nothing offered with a figure */
	carc_move mv[CARC_MAX_MOVES];
	int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(carc_move_seg(mv[i]), CARC_SEG_NONE);
	assert_int_equal(carc_figure_options(g, t_move(g, 4, 1, 0, NULL), mv, CARC_MAX_MOVES), 0);
	t_play(g, 4, 1, 0, NULL);
	assert_true(carc_game_over(g));
	t_scores(g, (int[]){40, 0});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CLOISTER), 40);
	assert_int_equal(supply(g, RED), 7);
	free(g);
}

/* ---- the end of the game ---------------------------------------------------- */

/*
 * The game ends after the last tile: no extra turn; then the incomplete
 * features are scored.
 *
 *          x=0            x=1
 *   y=-1   F rot 1 [2]    (city N-S, shield, blue knight: D + F, 2 + 1 = 3)
 *   y=0    D              U rot 0 [1] (red robber: U + D, 2)
 *   y=1    A rot 0 [3]    (red monk, neighbours D and U: 3)
 */
static void game_end_final_scoring(void **state)
{
	(void)state;
	carc_game *g = new_game(2, "UFA");
	carc_events ev;
	t_play(g, 1, 0, 0, "E1");
	t_play(g, 0, -1, 1, "N1");
	assert_int_equal(carc_tiles_left(g), 1);
	t_play_ev(g, 0, 1, 0, "C", &ev);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_tiles_left(g), 0);
	assert_int_equal(carc_current_tile(g), -1);
	assert_int_equal(g->nturns, 3);
	expect_event(&ev, CARC_SCORE_ROAD, 1, 2, 2, 0);
	expect_event(&ev, CARC_SCORE_CITY, 1, 2, 0, 3);
	expect_event(&ev, CARC_SCORE_CLOISTER, 1, 3, 3, 0);
	assert_int_equal(count_type(&ev, CARC_EV_SCORED), 3);
	/* and the three followers go home, each told where it stood */
	assert_int_equal(count_type(&ev, CARC_EV_RETURNED), 3);
	int home[2] = {0, 0};
	for (int i = 0; i < ev.n; i++)
		if (ev.ev[i].type == CARC_EV_RETURNED) {
			assert_int_equal(ev.ev[i].kind, CARC_FIG_FOLLOWER);
			assert_int_equal(ev.ev[i].final, 1);
			home[ev.ev[i].player]++;
		}
	assert_int_equal(home[RED], 2);
	assert_int_equal(home[BLUE], 1);
	t_scores(g, (int[]){5, 3});
	assert_int_equal(by_kind(g, RED, CARC_SCORE_ROAD), 2);
	assert_int_equal(by_kind(g, RED, CARC_SCORE_CLOISTER), 3);
	assert_int_equal(by_kind(g, BLUE, CARC_SCORE_CITY), 3);
	assert_int_equal(supply(g, RED), 7);
	assert_int_equal(supply(g, BLUE), 7);
	carc_move mv[8];
	assert_int_equal(carc_legal_moves(g, mv, 8), 0);
	assert_int_equal(carc_placements(g, mv, 8), 0);
	char err[CARC_ERRMSG_SIZE];
	carc_game copy;
	memcpy(&copy, g, sizeof copy);
	assert_int_equal(carc_apply(g, carc_move_make(-1, 0, 0, CARC_SEG_NONE, 0), NULL, err),
	                 CARC_ERR_GAME_OVER);
	assert_int_equal(carc_apply(g, CARC_MOVE_DISCARD, NULL, err), CARC_ERR_GAME_OVER);
	assert_memory_equal(&copy, g, sizeof copy);
	free(g);
}

/* Three players: turns go round in seat order; a third player's follower
 * counts in a majority like any other. Board of three_caps, played by
 * players 0, 1, 2, 0, 1, 2: knights of 0 [1], 0 [4] and 1 [5]: player 0
 * scores 8 alone on player 2's closing tile. */
static void three_players_turn_order(void **state)
{
	(void)state;
	carc_game *g = new_game(3, "EBBEER");
	int order[6];
	for (int i = 0; i < 6; i++)
		order[i] = -1;
	order[0] = carc_to_move(g);
	t_play(g, 0, 1, 2, "S1");
	order[1] = carc_to_move(g);
	t_play(g, -1, 1, 0, NULL);
	order[2] = carc_to_move(g);
	t_play(g, 1, 1, 0, NULL);
	order[3] = carc_to_move(g);
	t_play(g, -1, 2, 1, "E1");
	order[4] = carc_to_move(g);
	t_play(g, 1, 2, 3, "W1");
	order[5] = carc_to_move(g);
	t_play(g, 0, 2, 0, NULL);
	static const int want[6] = {0, 1, 2, 0, 1, 2};
	for (int i = 0; i < 6; i++)
		assert_int_equal(order[i], want[i]);
	t_scores(g, (int[]){8, 0, 0});
	free(g);
}

/* An empty pile: the game is over at once, nobody scored. */
static void empty_pile(void **state)
{
	(void)state;
	carc_game *g = malloc(sizeof *g);
	carc_rules r = t_rules(2);
	int pile[TILE_TYPES] = {0};
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_game_init(g, &r, 1, pile, TILE_TYPES, err), CARC_OK);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_current_tile(g), -1);
	t_scores(g, (int[]){0, 0});
	t_check(g);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(city_four_tiles_two_shields_12),
		cmocka_unit_test(city_two_tiles_4),
		cmocka_unit_test(road_four_tiles_shared_4),
		cmocka_unit_test(cloister_complete_9),
		cmocka_unit_test(cloister_incomplete_five_neighbours_6),
		cmocka_unit_test(city_incomplete_three_tiles_two_shields_5),
		cmocka_unit_test(field_two_completed_cities_red_2_blue_1),
		cmocka_unit_test(field_two_completed_cities_2_each),
		cmocka_unit_test(field_two_completed_cities_old_editions),
		cmocka_unit_test(field_borders_city_twice_pays_once),
		cmocka_unit_test(farm_editions_differ),
		cmocka_unit_test(shared_victory_final_scoring),
		cmocka_unit_test(road_and_cloister_by_one_tile),
		cmocka_unit_test(close_city_knight_back_same_turn),
		cmocka_unit_test(spec_record_game),
		cmocka_unit_test(small_city_option),
		cmocka_unit_test(farmers_off),
		cmocka_unit_test(road_loop),
		cmocka_unit_test(roads_end_at_junction_city_cloister),
		cmocka_unit_test(road_through_tile_twice),
		cmocka_unit_test(city_through_tile_twice),
		cmocka_unit_test(majority_two_to_one),
		cmocka_unit_test(majority_tie_both_score),
		cmocka_unit_test(majority_nobody),
		cmocka_unit_test(discard_rule),
		cmocka_unit_test(discard_last_tile_ends_game),
		cmocka_unit_test(illegal_moves_rejected_unchanged),
		cmocka_unit_test(follower_with_empty_supply),
		cmocka_unit_test(game_end_final_scoring),
		cmocka_unit_test(three_players_turn_order),
		cmocka_unit_test(empty_pile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
