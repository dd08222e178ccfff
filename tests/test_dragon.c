/*
 * test_dragon.c - scenario tests for Princess & Dragon: the volcano, the
 * dragon's movement and what it eats, the fairy, the magic portal, the
 * princess and the dragon tiles held back, with exact scores. The cases
 * of ../shared/reference/expansions-3-5.md §8.1 are named P1..P25 where
 * they are played; JCloisterZone has scenario tests for the fairy only
 * (engine-tests/princess-and-dragon/fairy-*), named where one is followed.
 *
 * Each scenario builds its board from a short custom pile and fixes every
 * draw with carc_set_current_tile; the from-scratch check runs after every
 * step (the engine's debug check in this build, and x_check here). Boards:
 * (x, y) with x east and y south; the start tile D lies at (0, 0): its city
 * north, its road west-east. Most scenarios lay a row of west-east road
 * tiles east of D (U, the volcano pd5, the dragon tile pd12), whose north
 * fields join into one field along the row.
 *
 * The decisions of the action and dragon steps are written as their JSON
 * (docs/protocol.md), read by the engine's one reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { P0 = 0, P1 = 1, P2 = 2, P3 = 3 };
#define FOL CARC_FIG_FOLLOWER
#define PD CARC_EXP_PRINCESS

/* ---- helpers ------------------------------------------------------------------ */

static void d_check(const carc_game *g)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_game_check(g, err) != CARC_OK)
		fail_msg("state check: %s", err);
}

static int d_type(const char *name)
{
	int t = carc_tile_parse(name);
	if (t < 0)
		fail_msg("no tile named %s", name);
	return t;
}

/* A game of `players` with the expansions and the pile (space-separated
 * tile names). Free with carc_game_free. */
static carc_game *d_new(unsigned exp, int players, const char *tiles)
{
	int pile[TILE_TYPES] = {0};
	char name[16], err[CARC_ERRMSG_SIZE] = "";
	for (const char *p = tiles; *p;) {
		size_t n = strcspn(p, " ");
		assert_true(n > 0 && n < sizeof name);
		memcpy(name, p, n);
		name[n] = 0;
		pile[d_type(name)]++;
		p += n;
		while (*p == ' ')
			p++;
	}
	carc_rules r;
	carc_rules_default(&r);
	r.players = players;
	r.expansions = exp;
	carc_game *g = carc_game_new(&r, 1, pile, TILE_TYPES, err);
	if (!g)
		fail_msg("init: %s", err);
	d_check(g);
	return g;
}

/* Draws `tile` and places it at (x, y, rot) with a figure of kind fig at
 * board port `port` (NULL: none). */
static void d_play(carc_game *g, const char *tile, int x, int y, int rot, const char *port,
                   int fig)
{
	int t = d_type(tile);
	char err[CARC_ERRMSG_SIZE] = "";
	assert_int_equal(carc_step_kind(g), CARC_STEP_TILE);
	if (carc_set_current_tile(g, t) != CARC_OK)
		fail_msg("tile %s may not be drawn now", tile);
	int seg = CARC_SEG_NONE;
	if (port) {
		seg = carc_tile_port_segment(t, rot, carc_port_parse(port));
		if (seg < 0)
			fail_msg("tile %s rot %d has nothing at %s", tile, rot, port);
	}
	if (carc_apply(g, carc_move_make(x, y, rot, seg, fig), NULL, err) != CARC_OK)
		fail_msg("%s at (%d, %d) rot %d: %s", tile, x, y, rot, err);
	d_check(g);
}

/* Makes the decision written as JSON; its events into ev (may be NULL). */
static void d_do(carc_game *g, const char *json, carc_events *ev)
{
	carc_move m;
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_move_parse(g, json, strlen(json), &m, err) != CARC_OK)
		fail_msg("%s: %s", json, err);
	if (carc_apply(g, m, ev, err) != CARC_OK)
		fail_msg("%s: refused: %s", json, err);
	d_check(g);
}

/* The decision written as JSON is refused, with `needle` in the message,
 * and the game is unchanged. */
static void d_refused(carc_game *g, const char *json, const char *needle)
{
	carc_game *before = carc_game_alloc();
	assert_non_null(before);
	memcpy(before, g, carc_game_size()); /* every byte: a clone copies the used parts only */
	carc_move m;
	char err[CARC_ERRMSG_SIZE] = "";
	carc_status st = carc_move_parse(g, json, strlen(json), &m, err);
	if (st == CARC_OK)
		fail_msg("%s: accepted, expected refused (%s)", json, needle);
	if (!strstr(err, needle))
		fail_msg("%s: message \"%s\" does not say \"%s\"", json, err, needle);
	assert_memory_equal(before, g, carc_game_size());
	carc_game_free(before);
}

/* The dragon's step to (x, y). */
static void d_dragon(carc_game *g, int x, int y, carc_events *ev)
{
	char json[64];
	assert_int_equal(carc_step_kind(g), CARC_STEP_DRAGON);
	snprintf(json, sizeof json, "{\"dragon\": {\"x\": %d, \"y\": %d}}", x, y);
	d_do(g, json, ev);
}

/* How many legal decisions of the current step have `needle` in their
 * JSON. */
static int d_count(const carc_game *g, const char *needle)
{
	static carc_move mv[CARC_MAX_MOVES];
	int n = carc_legal_moves(g, mv, CARC_MAX_MOVES), k = 0;
	for (int i = 0; i < n; i++) {
		char *j = carc_move_json(g, mv[i]);
		assert_non_null(j);
		k += strstr(j, needle) != NULL;
		free(j);
	}
	return k;
}

static void d_scores(const carc_game *g, int s0, int s1)
{
	int got[CARC_MAX_PLAYERS];
	carc_game_scores(g, got);
	if (got[0] != s0 || got[1] != s1)
		fail_msg("scores %d, %d; expected %d, %d", got[0], got[1], s0, s1);
}

static int at_tile(const carc_game *g, int x, int y) { return carc_tile_at(g, x, y); }

/* Figures of player p on the board. */
static int on_board(const carc_game *g, int p)
{
	carc_figure_info fi[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, fi, CARC_MAX_FIGURES), k = 0;
	for (int i = 0; i < n; i++)
		k += fi[i].owner == p;
	return k;
}

/* Events of kind `type` (CARC_EV_*) in ev. */
static int n_events(const carc_events *ev, int type)
{
	int k = 0;
	for (int i = 0; i < ev->n; i++)
		k += ev->ev[i].type == type;
	return k;
}

/* ---- tiles --------------------------------------------------------------------- */

/* 30 tiles: 6 volcano, 12 dragon, 6 princess, 6 portal; 3 shields, 2
 * cloisters; the C2 garden copies replace one plain copy each with the
 * Abbot. P25: pd15's tunnel is one road north-south under the city, and
 * the north and south fields stay whole and apart. */
static void tiles_of_the_box(void **state)
{
	(void)state;
	int sym[5] = {0}, shields = 0, cloisters = 0;
	for (int t = 0; t < carc_limit(CARC_LIMIT_TILE_TYPES); t++) {
		int twin;
		if (carc_tile_set(t) != CARC_SET_PRINCESS || carc_tile_is_garden_copy(t, &twin))
			continue;
		sym[carc_tile_symbol(t)] += carc_tile_box_count(t);
		for (int s = 0; s < carc_tile_segments(t); s++) {
			int kind;
			unsigned flags;
			carc_tile_segment(t, s, &kind, NULL, &flags, NULL);
			shields += (flags & CARC_SEGF_SHIELD) != 0;
			cloisters += kind == CARC_FEAT_CLOISTER;
		}
	}
	assert_int_equal(sym[CARC_SYM_NONE], 0);
	assert_int_equal(sym[CARC_SYM_VOLCANO], 6);
	assert_int_equal(sym[CARC_SYM_DRAGON], 12);
	assert_int_equal(sym[CARC_SYM_PRINCESS], 6);
	assert_int_equal(sym[CARC_SYM_PORTAL], 6);
	assert_int_equal(shields, 3);
	assert_int_equal(cloisters, 2);
	int t = d_type("pd15"), kind;
	unsigned ports, fields = 0;
	assert_int_equal(carc_tile_segments(t), 4);
	for (int s = 0; s < 4; s++) {
		carc_tile_segment(t, s, &kind, &ports, NULL, NULL);
		if (kind == CARC_FEAT_ROAD)
			assert_int_equal(ports, (1u << 1) | (1u << 7)); /* N1 and S1: one road */
		if (kind == CARC_FEAT_FIELD) {
			fields++;
			assert_true(ports == ((1u << 0) | (1u << 2)) || ports == ((1u << 6) | (1u << 8)));
		}
	}
	assert_int_equal(fields, 2);
	int twin;
	assert_true(carc_tile_is_garden_copy(d_type("pd7g"), &twin));
	assert_int_equal(twin, d_type("pd7"));
	assert_int_equal(carc_tile_symbol(d_type("pd22g")), CARC_SYM_PRINCESS);
}

/* ---- the draw ----------------------------------------------------------------------- */

/* P1: a dragon tile is not drawn while no volcano lies on the board: it
 * waits, and comes once the volcano is there. */
static void dragon_tiles_wait_for_a_volcano(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 40; seed++) {
		int pile[TILE_TYPES] = {0};
		pile[d_type("pd12")] = 2;
		pile[d_type("U")] = 1;
		pile[d_type("pd5")] = 1;
		carc_rules r;
		carc_rules_default(&r);
		r.expansions = PD;
		carc_game *g = carc_game_new(&r, seed, pile, TILE_TYPES, NULL);
		assert_non_null(g);
		assert_int_not_equal(carc_current_tile(g), d_type("pd12"));
		carc_game_free(g);
	}
	carc_game *g = d_new(PD, 2, "pd12 U pd5");
	assert_int_equal(carc_tiles_left(g), 2); /* the dragon tile not counted yet */
	assert_int_equal(carc_tile_drawable(g, d_type("pd12")), 0);
	assert_int_equal(carc_set_current_tile(g, d_type("pd12")), CARC_ERR_ARG);
	d_play(g, "U", 1, 0, 0, NULL, 0);
	assert_int_equal(carc_tiles_left(g), 1);
	d_play(g, "pd5", 2, 0, 0, NULL, 0);
	assert_int_equal(carc_dragon_tile(g), at_tile(g, 2, 0));
	assert_int_equal(carc_tiles_left(g), 1); /* now it comes */
	assert_int_equal(carc_current_tile(g), d_type("pd12"));
	carc_game_free(g);
}

/* P2: no volcano all game: the dragon tiles are never drawn and the game
 * ends when the others run out. */
static void no_volcano_no_dragon_tiles(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "pd12 pd11 U U");
	d_play(g, "U", 1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_turns_played(g), 2);
	assert_int_equal(carc_tiles_left(g), 0);
	assert_int_equal(carc_dragon_tile(g), -1);
	carc_game_free(g);
	/* a pile of dragon tiles only is over before it starts */
	g = d_new(PD, 2, "pd12");
	assert_true(carc_game_over(g));
	carc_game_free(g);
}

/* ---- the volcano and the dragon ------------------------------------------------------------ */

/*
 * P3, P4, P5, P9: the volcano, then a dragon tile.
 *
 *   y=0   D (0,0)   pd5 volcano (1,0) [1]   U (2,0) [2]   pd12 (3,0) [3]   pd5 (4,0) [4]
 *
 * [1] P0's volcano: no figure may stand on it, the dragon flies there.
 * [2] P1's follower on the road (D-pd5-U). [3] P0 places the dragon tile
 * with a farmer on its north field; the dragon moves: P0 takes it east to
 * (2,0) (P1's follower goes home), P1 east to (3,0) (P0's farmer placed
 * this turn goes home: P9), then no square is left (the start and (2,0)
 * were visited): the movement ends after two steps. [4] A second volcano:
 * the dragon flies there, eating nothing (P4).
 */
static void volcano_then_dragon(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "pd5 U pd12 pd5");
	assert_int_equal(carc_dragon_tile(g), -1);
	/* P3: no figure on the volcano, the dragon comes to it */
	assert_int_equal(carc_set_current_tile(g, d_type("pd5")), CARC_OK);
	int pd5 = d_type("pd5");
	carc_move on_volcano =
	    carc_move_make(1, 0, 0, carc_tile_port_segment(pd5, 0, carc_port_parse("E1")), FOL);
	char err[CARC_ERRMSG_SIZE] = "";
	assert_int_equal(carc_check_move(g, on_volcano, err), CARC_ERR_ILLEGAL);
	assert_non_null(strstr(err, "volcano"));
	carc_move buf[16];
	assert_int_equal(carc_figure_options(g, carc_move_make(1, 0, 0, CARC_SEG_NONE, 0), buf, 16),
	                 0);
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	assert_int_equal(carc_dragon_tile(g), at_tile(g, 1, 0));
	assert_int_equal(carc_step_kind(g), CARC_STEP_TILE); /* nothing to act with */
	assert_int_equal(carc_to_move(g), P1);
	char *view = carc_view_json(g, CARC_VIEW_FIGURES);
	assert_non_null(strstr(view, "\"dragon\":{\"x\":1,\"y\":0}"));
	assert_non_null(strstr(view, "\"fairy\":null"));
	free(view);

	d_play(g, "U", 2, 0, 0, "E1", FOL);
	d_play(g, "pd12", 3, 0, 0, "N1", FOL);
	/* P5: the turn's player first, then the next */
	assert_int_equal(carc_step_kind(g), CARC_STEP_DRAGON);
	assert_int_equal(carc_to_move(g), P0);
	assert_int_equal(carc_turn_player(g), P0);
	assert_int_equal(d_count(g, "\"dragon\""), 2); /* west to D, east to (2,0) */
	d_refused(g, "{\"dragon\": {\"x\": 3, \"y\": 0}}", "dragon goes one square");
	d_refused(g, "{\"dragon\": {\"x\": 9, \"y\": 9}}", "no tile at (9, 9)");
	/* what the step would eat is shown before it is made */
	carc_move m;
	assert_int_equal(carc_move_parse(g, "{\"dragon\": {\"x\": 2, \"y\": 0}}", 28, &m, err),
	                 CARC_OK);
	char *pv = carc_view_preview(g, m, err);
	assert_non_null(pv);
	assert_non_null(strstr(pv, "\"eaten\":[{\"player\":1,\"kind\":\"follower\",\"x\":2,\"y\":0"));
	free(pv);
	carc_events ev;
	d_dragon(g, 2, 0, &ev);
	assert_int_equal(n_events(&ev, CARC_EV_RETURNED), 1);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	assert_int_equal(carc_to_move(g), P1);
	int vis[8];
	assert_int_equal(carc_dragon_visited(g, vis), 2);
	assert_int_equal(vis[0], at_tile(g, 1, 0));
	assert_int_equal(d_count(g, "\"dragon\""), 1); /* never back to where it was */
	d_refused(g, "{\"dragon\": {\"x\": 1, \"y\": 0}}", "not visited");
	d_dragon(g, 3, 0, NULL); /* P9: the farmer placed this turn */
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	/* dead end: the movement is over, the turn too */
	assert_int_equal(carc_step_kind(g), CARC_STEP_TILE);
	assert_int_equal(carc_to_move(g), P1);
	assert_int_equal(carc_dragon_tile(g), at_tile(g, 3, 0));
	assert_int_equal(carc_dragon_visited(g, vis), 0);
	/* P4: a second volcano calls the dragon, eating nothing */
	d_play(g, "pd5", 4, 0, 0, NULL, 0);
	assert_int_equal(carc_dragon_tile(g), at_tile(g, 4, 0));
	assert_true(carc_game_over(g));
	d_scores(g, 0, 0);
	carc_game_free(g);
}

/*
 * P6: with four players the six squares are decided A, B, C, D, A, B from
 * the turn's player (here P2, who places the dragon tile).
 *
 *   y=0   D   pd5 [P0]   U [P1]   U [P2]   U [P3]   U [P0]   U [P1]   pd12 [P2]
 */
static void six_squares_four_players(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 4, "pd5 U U U U U pd12");
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	for (int x = 2; x <= 6; x++)
		d_play(g, "U", x, 0, 0, NULL, 0);
	d_play(g, "pd12", 7, 0, 0, NULL, 0);
	static const int who[6] = {P2, P3, P0, P1, P2, P3};
	for (int k = 0; k < 6; k++) {
		assert_int_equal(carc_step_kind(g), CARC_STEP_DRAGON);
		assert_int_equal(carc_to_move(g), who[k]);
		assert_int_equal(carc_turn_player(g), P2);
		d_dragon(g, 2 + k, 0, NULL);
	}
	/* six squares: over although (8, 0) would be free of visits */
	assert_true(carc_game_over(g));
	assert_int_equal(carc_dragon_tile(g), at_tile(g, 7, 0));
	assert_int_equal(carc_steps_played(g), 7 + 6);
	carc_game_free(g);
}

/*
 * P10, P11: what the dragon eats (Traders & Builders too).
 *
 *   y=0   D   pd5 [1]   U [2]   U [3]   U [4]   U [5]   pd12 [6]
 *
 * [2] P1's follower on the road; [3] P0's farmer on the north field; [4]
 * P1's builder on the road; [5] P0's pig on the north field; [6] P1 places
 * the dragon tile, acts with nothing, and the dragon goes east: (2,0)
 * eats P1's follower, and P1's builder at (4,0), left without a follower of
 * its owner on the road, goes home too (P11); (3,0) eats P0's farmer, and
 * P0's pig at (5,0) goes home. Nothing is left on the board.
 */
static void dragon_eats_and_lonely_figures_go_home(void **state)
{
	(void)state;
	carc_game *g = d_new(PD | CARC_EXP_TRADERS, 2, "pd5 U U U U pd12");
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, "E1", FOL);
	d_play(g, "U", 3, 0, 0, "N1", FOL);
	d_play(g, "U", 4, 0, 0, "E1", CARC_FIG_BUILDER);
	d_play(g, "U", 5, 0, 0, "N1", CARC_FIG_PIG);
	d_play(g, "pd12", 6, 0, 0, NULL, 0);
	/* the action step: P1 may move the fairy to its follower */
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	assert_int_equal(carc_to_move(g), P1);
	assert_int_equal(d_count(g, "fairy"), 1);
	d_refused(g, "{\"action\": {\"fairy\": {\"x\": 3, \"y\": 0, \"at\": \"N1\"}}}",
	          "your own followers");
	d_do(g, "{\"action\": \"none\"}", NULL);
	carc_events ev;
	d_dragon(g, 2, 0, &ev); /* P1's own follower, and with it its builder */
	assert_int_equal(n_events(&ev, CARC_EV_RETURNED), 2);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	assert_int_equal(carc_supply(g, P1, CARC_FIG_BUILDER), 1);
	d_dragon(g, 3, 0, &ev); /* P0's farmer, and with it the pig */
	assert_int_equal(n_events(&ev, CARC_EV_RETURNED), 2);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	assert_int_equal(carc_supply(g, P0, CARC_FIG_PIG), 1);
	assert_int_equal(on_board(g, P0) + on_board(g, P1), 0);
	carc_game_free(g);
}

/*
 * P12: a city completed this turn whose only knight the dragon eats
 * scores for nobody (the dragon moves before scoring).
 *
 *   y=-1            N rot 2 (0,-1) [2]   pd7 rot 3 (1,-1) [3]
 *   y=0   pd5 (-1,0) [1]   D (0,0)
 *
 * [1] P0's volcano west of D. [2] P1's knight in D's city (N turned: city
 * south and east). [3] P0 closes the city with the dragon tile pd7 (a cap
 * facing west): D + N + pd7, 3 tiles, 6 points. The dragon: P0 to D, then
 * P1 has one square only, (0,-1), and eats its own knight; P0 on to the
 * dragon tile; no square left. The city scores for nobody.
 */
static void dragon_before_scoring(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "pd5 N pd7");
	d_play(g, "pd5", -1, 0, 0, NULL, 0);
	d_play(g, "N", 0, -1, 2, "S1", FOL);
	d_play(g, "pd7", 1, -1, 3, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_DRAGON); /* P0 has nothing to act with */
	d_dragon(g, 0, 0, NULL);
	assert_int_equal(d_count(g, "\"dragon\""), 1);
	d_dragon(g, 0, -1, NULL);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	d_dragon(g, 1, -1, NULL);
	assert_true(carc_game_over(g));
	d_scores(g, 0, 0);
	carc_game_free(g);
}

/* ---- the fairy ---------------------------------------------------------------------------------- */

/*
 * P8, P13, P14, P15, P21: the fairy protects, and scores.
 *
 *   y=0   D   pd5 [1]   U [2]   U [3]   U [4]   pd12 [5]   U [6]   U [7]
 *
 * [2] P1's follower on the road; [3] P0's farmer on the north field; [4]
 * P1 places no figure and moves the fairy next to its road follower. [5]
 * P0 places the dragon tile with no figure and moves the fairy next to its
 * farmer (P13: before the dragon moves). The dragon goes east to (2,0)
 * (P1's follower goes home: the fairy has left it); then P1's only square
 * not visited, (3,0), is the fairy's: the movement ends (P8), and the
 * farmer is safe (P14). [6] P1's turn: no fairy point
 * for P1. [7] P0's turn: 1 point (P15).
 */
static void fairy_protects_and_scores(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "pd5 U U U pd12 U U");
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, "E1", FOL);
	d_play(g, "U", 3, 0, 0, "N1", FOL);
	d_play(g, "U", 4, 0, 0, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 2, \"y\": 0, \"at\": \"E1\"}}}", NULL);
	int fig;
	assert_int_equal(carc_fairy_tile(g, &fig), at_tile(g, 2, 0));
	assert_true(fig >= 0);
	d_play(g, "pd12", 5, 0, 0, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	assert_int_equal(d_count(g, "fairy"), 1);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 3, \"y\": 0, \"at\": \"N1\"}}}", NULL);
	assert_int_equal(carc_fairy_tile(g, NULL), at_tile(g, 3, 0));
	assert_int_equal(carc_step_kind(g), CARC_STEP_DRAGON);
	d_dragon(g, 2, 0, NULL);
	assert_int_equal(carc_supply(g, P1, FOL), 7);
	/* P8: (1,0) visited, (3,0) the fairy's: over */
	assert_int_equal(carc_step_kind(g), CARC_STEP_TILE);
	assert_int_equal(carc_supply(g, P0, FOL), 6); /* P14: the farmer stays */
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 0);
	d_play(g, "U", 6, 0, 0, NULL, 0); /* P1's turn: nothing for P1 */
	assert_int_equal(carc_score_by_kind(g, P1, CARC_SCORE_FAIRY), 0);
	if (carc_step_kind(g) == CARC_STEP_ACTION)
		d_do(g, "{\"action\": \"none\"}", NULL);
	carc_events ev;
	carc_move m;
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_set_current_tile(g, d_type("U")), CARC_OK);
	m = carc_move_make(7, 0, 0, CARC_SEG_NONE, 0);
	assert_int_equal(carc_apply(g, m, &ev, err), CARC_OK);
	/* P15: the point at the start of P0's turn; the game ends with the
	 * farmer's field (no city completed: 0) and the fairy's 3 */
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 1 + 3);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FARM), 0);
	assert_true(carc_game_over(g));
	carc_game_free(g);
}

/*
 * P18 (JCloisterZone's fairy-endgame-road): a follower on a road
 * incomplete at the end with the fairy next to it scores the road and 3.
 *
 *   y=0   U (-1,0) [2]   D   U (1,0) [1]   U (2,0) [3]
 *
 * [1] P0's follower on the road; [2] P1 extends it west; [3] P0 extends it
 * east with no figure and moves the fairy next to its follower. The road
 * has 4 tiles at the end: 4 + 3 = 7.
 */
static void fairy_endgame_road(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "U U U");
	d_play(g, "U", 1, 0, 0, "E1", FOL);
	d_play(g, "U", -1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	assert_int_equal(d_count(g, "fairy"), 1);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 1, \"y\": 0, \"at\": \"E1\"}}}", NULL);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_ROAD), 4);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 3);
	d_scores(g, 7, 0);
	carc_game_free(g);
}

/* P19 (JCloisterZone's fairy-endgame-incomplete-inn): a big follower on
 * an inn road incomplete at the end: 0, and the fairy's 3. */
static void fairy_endgame_incomplete_inn(void **state)
{
	(void)state;
	carc_game *g = d_new(PD | CARC_EXP_INNS, 2, "ic15 U U");
	d_play(g, "ic15", 1, 0, 0, "E1", CARC_FIG_BIG);
	d_play(g, "U", -1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 1, \"y\": 0, \"at\": \"E1\"}}}", NULL);
	assert_true(carc_game_over(g));
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_ROAD), 0);
	d_scores(g, 3, 0);
	carc_game_free(g);
}

/* P20 (JCloisterZone's fairy-endgame-zero-field): a farmer whose field
 * borders no completed city: 0 for the field, 3 for the fairy, in each
 * farm-scoring edition. */
static void fairy_endgame_zero_field(void **state)
{
	(void)state;
	for (int fs = 0; fs < CARC_FARM_SCORING_COUNT; fs++) {
		int pile[TILE_TYPES] = {0};
		pile[d_type("U")] = 3;
		carc_rules r;
		carc_rules_default(&r);
		r.expansions = PD;
		r.farm_scoring = fs;
		carc_game *g = carc_game_new(&r, 1, pile, TILE_TYPES, NULL);
		assert_non_null(g);
		d_play(g, "U", 1, 0, 0, "N1", FOL);
		d_play(g, "U", -1, 0, 0, NULL, 0);
		d_play(g, "U", 2, 0, 0, NULL, 0);
		d_do(g, "{\"action\": {\"fairy\": {\"x\": 1, \"y\": 0, \"at\": \"N1\"}}}", NULL);
		assert_true(carc_game_over(g));
		d_scores(g, 3, 0);
		carc_game_free(g);
	}
}

/*
 * P17 (after JCloisterZone's fairy-empty-city, with a knight for the
 * mayor): P0 closes a city with no figure and moves the fairy next to its
 * knight in it: the city's points and the fairy's 3 in that turn.
 *
 *   y=-1   N rot 2 (0,-1) [1] knight   E rot 3 (1,-1) [3]
 *   y=0    D                           U (1,0) [2]
 *
 * D + N + E: 3 tiles, 6 points; with the fairy 9.
 */
static void fairy_when_a_city_closes(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "N U E");
	d_play(g, "N", 0, -1, 2, "S1", FOL);
	d_play(g, "U", 1, 0, 0, NULL, 0);
	d_play(g, "E", 1, -1, 3, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	d_scores(g, 0, 0); /* the city waits for the turn's end */
	carc_events ev;
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 0, \"y\": -1, \"at\": \"E1\"}}}", &ev);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_CITY), 6);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 3);
	/* P21: the knight went home, the fairy stays on its tile, next to
	 * nobody, and gives nothing more */
	int fig;
	assert_int_equal(carc_fairy_tile(g, &fig), at_tile(g, 0, -1));
	assert_int_equal(fig, -1);
	char *view = carc_view_json(g, CARC_VIEW_FIGURES);
	assert_non_null(strstr(view, "\"fairy\":{\"x\":0,\"y\":-1,\"at\":null}"));
	free(view);
	assert_true(carc_game_over(g));
	d_scores(g, 9, 0);
	carc_game_free(g);
}

/*
 * P16: the fairy's point once a turn, not again in a builder's extra turn.
 *
 *   y=0   U (-2,0) [5]   U (-1,0) [2]   D   U (1,0) [1]   U (2,0) [3]   U (3,0) [5]  U (4,0) [7], [8]
 *
 * [1] P0's follower on the road; [2] P1; [3] P0 moves the fairy next to it;
 * [4] P1 at (-2,0); [5] P0: +1, builder at (3,0); [6] P1 at (-3,0); [7] P0:
 * +1, extends the road with the builder: an extra turn [8] with no point.
 */
static void fairy_once_a_turn(void **state)
{
	(void)state;
	carc_game *g = d_new(PD | CARC_EXP_TRADERS, 2, "U U U U U U U U U");
	d_play(g, "U", 1, 0, 0, "E1", FOL);
	d_play(g, "U", -1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 1, \"y\": 0, \"at\": \"E1\"}}}", NULL);
	d_play(g, "U", -2, 0, 0, NULL, 0);
	d_play(g, "U", 3, 0, 0, "E1", CARC_FIG_BUILDER);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 1);
	d_play(g, "U", -3, 0, 0, NULL, 0);
	d_play(g, "U", 4, 0, 0, NULL, 0);
	if (carc_step_kind(g) == CARC_STEP_ACTION) /* the fairy could move again */
		d_do(g, "{\"action\": \"none\"}", NULL);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 2);
	assert_true(carc_bonus_turn(g));
	assert_int_equal(carc_to_move(g), P0);
	d_play(g, "U", 5, 0, 0, NULL, 0);
	assert_int_equal(carc_score_by_kind(g, P0, CARC_SCORE_FAIRY), 2);
	carc_game_free(g);
}

/* ---- the magic portal and the princess -------------------------------------------------------------- */

/*
 * P24: the magic portal.
 *
 *   y=-1   E rot 2 (0,-1) [2] closes D's city
 *   y=0    D   pd5 volcano (1,0) [1]   U (2,0) [3]   pd24 portal (3,0) [4]
 *
 * [4] P0 places the portal tile with no figure: a follower may go on any
 * free unfinished feature elsewhere (the road through (2,0), its fields),
 * not on the finished city, the dragon's tile, the tile just placed, and
 * no builder.
 */
static void magic_portal(void **state)
{
	(void)state;
	carc_game *g = d_new(PD | CARC_EXP_TRADERS, 2, "pd5 E U pd24 U");
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	d_play(g, "E", 0, -1, 2, NULL, 0);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	d_play(g, "pd24", 3, 0, 0, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	assert_true(d_count(g, "portal") > 0);
	d_refused(g, "{\"action\": {\"portal\": {\"x\": 0, \"y\": 0, \"kind\": \"follower\", \"at\": \"N1\"}}}",
	          "taken or finished");
	d_refused(g, "{\"action\": {\"portal\": {\"x\": 1, \"y\": 0, \"kind\": \"follower\", \"at\": \"E1\"}}}",
	          "dragon's tile");
	d_refused(g, "{\"action\": {\"portal\": {\"x\": 3, \"y\": 0, \"kind\": \"follower\", \"at\": \"E1\"}}}",
	          "tile just placed");
	d_refused(g, "{\"action\": {\"portal\": {\"x\": 2, \"y\": 0, \"kind\": \"builder\", \"at\": \"E1\"}}}",
	          "follower, a big follower or an abbot");
	d_do(g, "{\"action\": {\"portal\": {\"x\": 2, \"y\": 0, \"kind\": \"follower\", \"at\": \"E1\"}}}",
	     NULL);
	carc_figure_info fi[4];
	assert_int_equal(carc_board_figures(g, fi, 4), 1);
	assert_int_equal(fi[0].tile, at_tile(g, 2, 0));
	assert_int_equal(fi[0].owner, P1); /* P1 placed the portal tile */
	assert_int_equal(carc_supply(g, P1, FOL), 6);
	carc_game_free(g);
}

/*
 * P22, P23: the princess.
 *
 *   y=-1   N rot 2 (0,-1) [2] P1's knight   pd20 (1,-1) [6]   E rot 3 (2,-1) [5] P0's knight
 *   y=0    D   U (1,0) [1]   U (2,0) [3]   U (3,0) [4]
 *
 * [4] P1 places no figure and does nothing (it could move the fairy).
 * [6] P1's princess tile joins both cities into one holding both knights:
 * with no figure placed P1 may send either knight home, its own too
 * (P22); P1 sends P0's. P23: a princess tile joining a city without knights is a plain
 * tile (no action but the fairy).
 */
static void princess(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "U N U U E pd20 U");
	d_play(g, "U", 1, 0, 0, NULL, 0);
	d_play(g, "N", 0, -1, 2, "S1", FOL);
	d_play(g, "U", 2, 0, 0, NULL, 0);
	d_play(g, "U", 3, 0, 0, NULL, 0);
	d_do(g, "{\"action\": \"none\"}", NULL);
	d_play(g, "E", 2, -1, 3, "W1", FOL);
	d_play(g, "pd20", 1, -1, 0, NULL, 0);
	assert_int_equal(carc_step_kind(g), CARC_STEP_ACTION);
	assert_int_equal(d_count(g, "princess"), 2); /* either knight, one's own too */
	carc_move m;
	char err[CARC_ERRMSG_SIZE];
	const char *mine = "{\"action\": {\"princess\": {\"x\": 0, \"y\": -1, \"at\": \"E1\"}}}";
	assert_int_equal(carc_move_parse(g, mine, strlen(mine), &m, err), CARC_OK);
	d_refused(g, "{\"action\": {\"princess\": {\"x\": 0, \"y\": 0, \"at\": \"E1\"}}}",
	          "knight of the city");
	carc_events ev;
	d_do(g, "{\"action\": {\"princess\": {\"x\": 2, \"y\": -1, \"at\": \"W1\"}}}", &ev);
	assert_int_equal(n_events(&ev, CARC_EV_RETURNED), 1);
	assert_int_equal(carc_supply(g, P0, FOL), 7);
	assert_int_equal(carc_supply(g, P1, FOL), 6);
	carc_game_free(g);

	/* P23 */
	g = d_new(PD, 2, "pd22");
	carc_set_current_tile(g, d_type("pd22"));
	carc_move buf[16];
	/* a knight may go on the princess's own city as on any tile */
	assert_true(carc_figure_options(g, carc_move_make(0, -1, 2, CARC_SEG_NONE, 0), buf, 16) > 0);
	d_play(g, "pd22", 0, -1, 2, NULL, 0);
	assert_true(carc_game_over(g)); /* no knight to send home: no action step */
	carc_game_free(g);
}

/* Records of Princess & Dragon games replay to the same game. */
static void records_replay(void **state)
{
	(void)state;
	carc_game *g = d_new(PD, 2, "pd5 U U U pd12 U U");
	d_play(g, "pd5", 1, 0, 0, NULL, 0);
	d_play(g, "U", 2, 0, 0, "E1", FOL);
	d_play(g, "U", 3, 0, 0, "N1", FOL);
	d_play(g, "U", 4, 0, 0, NULL, 0);
	d_do(g, "{\"action\": {\"fairy\": {\"x\": 2, \"y\": 0, \"at\": \"E1\"}}}", NULL);
	d_play(g, "pd12", 5, 0, 0, NULL, 0);
	d_do(g, "{\"action\": \"none\"}", NULL);
	d_dragon(g, 0, 0, NULL);
	char *rec = carc_record_write(g, NULL);
	assert_non_null(rec);
	assert_non_null(strstr(rec, "\"action\":{\"fairy\":{\"x\":2,\"y\":0,\"at\":\"E1\"}}"));
	assert_non_null(strstr(rec, "\"dragon\":{\"x\":0,\"y\":0}"));
	carc_game *back = carc_game_alloc();
	char err[512] = "";
	if (carc_record_replay(rec, strlen(rec), back, err, sizeof err) != CARC_OK)
		fail_msg("replay: %s", err);
	assert_true(carc_game_hash(back) == carc_game_hash(g));
	assert_int_equal(carc_dragon_tile(back), carc_dragon_tile(g));
	assert_int_equal(carc_fairy_tile(back, NULL), carc_fairy_tile(g, NULL));
	free(rec);
	carc_game_free(back);
	carc_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tiles_of_the_box),
		cmocka_unit_test(dragon_tiles_wait_for_a_volcano),
		cmocka_unit_test(no_volcano_no_dragon_tiles),
		cmocka_unit_test(volcano_then_dragon),
		cmocka_unit_test(six_squares_four_players),
		cmocka_unit_test(dragon_eats_and_lonely_figures_go_home),
		cmocka_unit_test(dragon_before_scoring),
		cmocka_unit_test(fairy_protects_and_scores),
		cmocka_unit_test(fairy_endgame_road),
		cmocka_unit_test(fairy_endgame_incomplete_inn),
		cmocka_unit_test(fairy_endgame_zero_field),
		cmocka_unit_test(fairy_when_a_city_closes),
		cmocka_unit_test(fairy_once_a_turn),
		cmocka_unit_test(magic_portal),
		cmocka_unit_test(princess),
		cmocka_unit_test(records_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
