/*
 * test_figures.c - which figures may go on the tile just placed, judged on
 * the features as they are after the tile joins its neighbours (issue 12).
 *
 * Scenarios: two segments of the new tile that touch one feature become
 * one feature with everything each of them reaches, so a follower reached
 * only through that join holds the other part too (a farmer or robber
 * there is illegal), and a farmer or follower of the mover reached only
 * through it is enough for a pig or a builder. Boards are drawn above each
 * test: (x, y) with x east and y south, "tile rot", [n] the order of play;
 * the start tile D lies at (0, 0) rot 0 (city north, road west-east).
 *
 * Then the property: over 10,000 seeded random games (half with the base
 * game and its table options, half cycling through the 24 expansion
 * subsets, 2 to 6 players), before every move the figure options of every
 * placement of the tile drawn (carc_figure_options, carc_legal_moves and,
 * for one placement a position, carc_check_move of every segment and
 * figure) equal a computation from scratch: the board labelled again by a
 * flood over the placed tiles' segments through the ports (public API
 * only), then a flood from each segment of the new tile over its ports and
 * the labels they meet. CARC_QUICK set in the environment (the sanitizer
 * run): 400 games.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* the engine's own placement of a figure (src/core/engine.h), for the
 * figure bound below */
void eng_place_figure(carc_game *g, int node, int p, int kind);

enum { P0 = 0, P1 = 1 };
#define FOL CARC_FIG_FOLLOWER
#define BLD CARC_FIG_BUILDER
#define PIG CARC_FIG_PIG

static int quick(void)
{
	const char *q = getenv("CARC_QUICK");
	return q && *q && strcmp(q, "0");
}

/* ---- scenario helpers ---------------------------------------------------- */

static int f_type(const char *name)
{
	int t = carc_tile_parse(name);
	if (t < 0)
		fail_msg("no tile named %s", name);
	return t;
}

/* A new 2-player game with expansions exp and the space-separated pile;
 * each draw is fixed by f_move. Free with free(). */
static carc_game *f_new(unsigned exp, const char *tiles)
{
	int pile[TILE_TYPES] = {0};
	char buf[256], err[CARC_ERRMSG_SIZE] = "";
	snprintf(buf, sizeof buf, "%s", tiles);
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		pile[f_type(tok)]++;
	carc_rules r = t_rules(2);
	r.expansions = exp;
	carc_game *g = malloc(sizeof *g);
	assert_non_null(g);
	if (carc_game_init(g, &r, 1, pile, TILE_TYPES, err) != CARC_OK)
		fail_msg("init: %s", err);
	t_check(g);
	return g;
}

/* Draws `tile` now; the move placing it at (x, y, rot) with figure fig on
 * the segment at board port `port` (NULL: no figure). */
static carc_move f_move(carc_game *g, const char *tile, int x, int y, int rot,
                        const char *port, int fig)
{
	int t = f_type(tile);
	if (carc_set_current_tile(g, t) != CARC_OK)
		fail_msg("tile %s may not be drawn now", tile);
	if (!port)
		return carc_move_make(x, y, rot, CARC_SEG_NONE, 0);
	int seg = carc_tile_port_segment(t, rot, carc_port_parse(port));
	if (seg < 0)
		fail_msg("tile %s rot %d has nothing at %s", tile, rot, port);
	return carc_move_make(x, y, rot, seg, fig);
}

static void f_apply(carc_game *g, carc_move m)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_apply(g, m, NULL, err) != CARC_OK)
		fail_msg("move 0x%08x refused: %s", m, err);
	t_check(g);
}

static void f_play(carc_game *g, const char *tile, int x, int y, int rot, const char *port,
                   int fig)
{
	f_apply(g, f_move(g, tile, x, y, rot, port, fig));
}

/* Is m offered by carc_figure_options for its placement, and among
 * carc_legal_moves? Both must agree. */
static int f_offered(const carc_game *g, carc_move m)
{
	static carc_move mv[CARC_MAX_MOVES];
	int n = carc_figure_options(g, carc_move_placement(m), mv, CARC_MAX_MOVES), a = 0, b = 0;
	for (int i = 0; i < n; i++)
		a |= mv[i] == m;
	n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
	for (int i = 0; i < n; i++)
		b |= mv[i] == m;
	if (a != b)
		fail_msg("move 0x%08x: figure options say %d, legal moves %d", m, a, b);
	return a;
}

/* m is not offered, and refused by carc_check_move and carc_apply with a
 * message containing `needle`, the game unchanged. */
static void f_refused(carc_game *g, carc_move m, const char *needle)
{
	if (f_offered(g, m))
		fail_msg("move 0x%08x is offered, expected refused (%s)", m, needle);
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_check_move(g, m, err) != CARC_ERR_ILLEGAL || !strstr(err, needle))
		fail_msg("move 0x%08x: check says \"%s\", expected \"%s\"", m, err, needle);
	t_illegal(g, m);
}

/* m is offered and accepted by carc_check_move. */
static void f_allowed(const carc_game *g, carc_move m)
{
	char err[CARC_ERRMSG_SIZE] = "";
	if (carc_check_move(g, m, err) != CARC_OK)
		fail_msg("move 0x%08x refused: %s", m, err);
	if (!f_offered(g, m))
		fail_msg("move 0x%08x accepted but not offered", m);
}

/* Players with a follower or big follower on the feature of board tile
 * `tile`, segment at port `port`. */
static unsigned f_holders(const carc_game *g, int tile, const char *port)
{
	int type, rot;
	assert_int_equal(carc_board_tile(g, tile, &type, NULL, NULL, &rot, NULL), 0);
	int id = carc_feature_id(g, tile, carc_tile_port_segment(type, rot, carc_port_parse(port)));
	carc_feature_info fi;
	assert_int_equal(carc_feature_get(g, id, 0, 1, &fi), 0);
	unsigned m = 0;
	for (int p = 0; p < CARC_MAX_PLAYERS; p++)
		if (fi.weight[p])
			m |= 1u << p;
	return m;
}

/* ---- fields: the cloister tile's wrap-around field ------------------------------ */

/*
 *          x=0            x=1
 *   y=0    D              .
 *   y=1    A rot 0 [1]    E rot 2 [2]
 *   y=2    U rot 1 [4]    E rot 0 [3]
 *
 * [1] A (cloister, road south): its field wraps around the road's end, so
 * it touches the square (0, 2) on both sides of the road (S0 and S2).
 * [2] E rot 2, its city south; [3] E rot 0 closes that city; P0's farmer
 * on its field (S1), which touches (0, 2) from the east. [4] U rot 1 (road
 * north-south) at (0, 2): its east field touches P0's field directly, its
 * west field only A's field - but A's field touches the east field too, so
 * on placement east field, A's field, west field and P0's field are one
 * field. A farmer on the west field (W1) is illegal.
 */
static void cloister_layout(carc_game *g, int farmer)
{
	f_play(g, "A", 0, 1, 0, NULL, 0);
	f_play(g, "E", 1, 1, 2, NULL, 0);
	f_play(g, "E", 1, 2, 0, farmer ? "S1" : NULL, FOL);
}

static void farmer_joins_held_field_through_cloister_tile(void **state)
{
	(void)state;
	carc_game *g = f_new(0, "A E E U B");
	cloister_layout(g, 1);
	assert_int_equal(carc_to_move(g), P1);
	f_refused(g, f_move(g, "U", 0, 2, 1, "W1", FOL), "already has a follower");
	f_refused(g, f_move(g, "U", 0, 2, 1, "E1", FOL), "already has a follower");
	/* the road is free */
	f_allowed(g, f_move(g, "U", 0, 2, 1, "N1", FOL));
	/* placed without a figure, the west field is indeed P0's */
	f_play(g, "U", 0, 2, 1, NULL, 0);
	assert_int_equal(f_holders(g, 3, "W1"), 1u << P0);
	assert_int_equal(f_holders(g, 1, "E1"), 1u << P0);
	free(g);
}

/* The same board with no farmer: both fields of U are free. */
static void free_field_through_cloister_tile(void **state)
{
	(void)state;
	carc_game *g = f_new(0, "A E E U B");
	cloister_layout(g, 0);
	f_allowed(g, f_move(g, "U", 0, 2, 1, "W1", FOL));
	f_allowed(g, f_move(g, "U", 0, 2, 1, "E1", FOL));
	f_play(g, "U", 0, 2, 1, "W1", FOL);
	assert_int_equal(f_holders(g, 3, "E1"), 1u << P1);
	free(g);
}

/* The pig: [4] is P1's E (0, -1) rot 2 closing D's city, then P0 plays U
 * at (0, 2) with the pig on the west field, where P0's farmer is reached
 * only through the join: legal. P1's pig there is refused. */
static void pig_reaches_farmer_through_cloister_tile(void **state)
{
	(void)state;
	carc_game *g = f_new(CARC_EXP_TRADERS, "A E E E U B");
	cloister_layout(g, 1);
	assert_int_equal(carc_to_move(g), P1);
	f_refused(g, f_move(g, "U", 0, 2, 1, "W1", PIG), "pig needs a farmer");
	f_play(g, "E", 0, -1, 2, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	carc_move m = f_move(g, "U", 0, 2, 1, "W1", PIG);
	f_allowed(g, m);
	f_allowed(g, f_move(g, "U", 0, 2, 1, "E1", PIG));
	f_refused(g, f_move(g, "U", 0, 2, 1, "W1", FOL), "already has a follower");
	f_apply(g, m);
	assert_int_equal(carc_supply(g, P0, PIG), 0);
	free(g);
}

/* ---- roads: two curves meeting both ends of a U ------------------------------------ */

/*
 *          x=-1           x=0              x=1
 *   y=0    .              D                .
 *   y=1    B [4]          V rot 3 [1]      V rot 0 [2]
 *   y=2    A rot 3 [5]    ic17 rot 0 [6]   V rot 1 [3]
 *
 * [1]-[3] three curves make a U-shaped road whose ends both face (0, 2):
 * from the north (V (0, 1)) and from the east (V (1, 2)). [4] B, [5] A rot
 * 3, its road east, P0's robber on it (E1). [6] ic17 at (0, 2) rot 0 has
 * two curves: north-west (meets the U and P0's road) and east-south (meets
 * the U's other end only). On placement both curves, the U and P0's road
 * are one road: a robber on the east-south curve (E1) is illegal, and a
 * builder of P0 there is legal.
 */
static void u_layout(carc_game *g)
{
	f_play(g, "V", 0, 1, 3, NULL, 0);
	f_play(g, "V", 1, 1, 0, NULL, 0);
	f_play(g, "V", 1, 2, 1, NULL, 0);
	f_play(g, "B", -1, 1, 0, NULL, 0);
	f_play(g, "A", -1, 2, 3, "E1", FOL);
}

static void robber_joins_held_road_through_u(void **state)
{
	(void)state;
	carc_game *g = f_new(CARC_EXP_INNS, "V V V B A ic17 B");
	u_layout(g);
	assert_int_equal(carc_to_move(g), P1);
	f_refused(g, f_move(g, "ic17", 0, 2, 0, "E1", FOL), "already has a follower");
	f_refused(g, f_move(g, "ic17", 0, 2, 0, "S1", CARC_FIG_BIG), "already has a follower");
	f_refused(g, f_move(g, "ic17", 0, 2, 0, "N1", FOL), "already has a follower");
	f_play(g, "ic17", 0, 2, 0, NULL, 0);
	assert_int_equal(f_holders(g, 6, "E1"), 1u << P0);
	free(g);
}

static void builder_reaches_follower_through_u(void **state)
{
	(void)state;
	carc_game *g = f_new(CARC_EXP_INNS | CARC_EXP_TRADERS, "V V V B A E ic17 B");
	u_layout(g);
	f_refused(g, f_move(g, "ic17", 0, 2, 0, "E1", BLD), "builder needs a follower");
	f_play(g, "E", 0, -1, 2, NULL, 0);
	assert_int_equal(carc_to_move(g), P0);
	carc_move m = f_move(g, "ic17", 0, 2, 0, "E1", BLD);
	f_allowed(g, m);
	f_allowed(g, f_move(g, "ic17", 0, 2, 0, "N1", BLD));
	f_refused(g, f_move(g, "ic17", 0, 2, 0, "E1", FOL), "already has a follower");
	f_apply(g, m);
	assert_int_equal(carc_supply(g, P0, BLD), 0);
	free(g);
}

/* ---- the property: options from scratch ---------------------------------------------- */

/* The tiles as the public API describes them, read once. */
static struct {
	int nseg[TILE_TYPES];
	int kind[TILE_TYPES][CARC_MAX_SEGS];
	int8_t seg[TILE_TYPES][4][12];     /* port -> segment, by rotation */
	uint16_t ports[TILE_TYPES][4][CARC_MAX_SEGS]; /* segment -> ports */
} T;

static void tiles_load(void)
{
	for (int t = 0; t < TILE_TYPES; t++) {
		T.nseg[t] = carc_tile_segments(t);
		assert_true(T.nseg[t] > 0 && T.nseg[t] <= CARC_MAX_SEGS);
		for (int s = 0; s < T.nseg[t]; s++)
			assert_int_equal(carc_tile_segment(t, s, &T.kind[t][s], NULL, NULL, NULL), 0);
		for (int r = 0; r < 4; r++) {
			memset(T.ports[t][r], 0, sizeof T.ports[t][r]);
			for (int p = 0; p < 12; p++) {
				int s = carc_tile_port_segment(t, r, p);
				assert_true(s >= 0 && s < T.nseg[t]);
				T.seg[t][r][p] = (int8_t)s;
				T.ports[t][r][s] |= (uint16_t)(1u << p);
			}
		}
	}
}

#define GRID 320 /* squares -160..159: more than 128 tiles can reach */
#define OFF 160

/* A position seen from scratch: every segment of the board labelled with
 * its feature, and what stands on each feature. */
typedef struct scratch {
	int ntiles, type[ST_MAX_TILES], x[ST_MAX_TILES], y[ST_MAX_TILES],
	    rot[ST_MAX_TILES], base[ST_MAX_TILES];
	int16_t cell[GRID][GRID]; /* tile index or -1 */
	int label[ST_MAX_NODES], nlab;
	uint8_t occupied[ST_MAX_NODES]; /* follower, big follower or abbot */
	uint8_t holders[ST_MAX_NODES];  /* players with a follower or big follower */
	int abbot_out[CARC_MAX_PLAYERS];
} scratch;

static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};

static int sc_at(const scratch *sc, int x, int y)
{
	return sc->cell[y + OFF][x + OFF];
}

static void sc_build(scratch *sc, const carc_game *g)
{
	int nodes = 0;
	sc->ntiles = carc_board_tiles(g);
	for (int i = 0; i < sc->ntiles; i++) {
		assert_int_equal(carc_board_tile(g, i, &sc->type[i], &sc->x[i], &sc->y[i],
		                                 &sc->rot[i], NULL), 0);
		assert_true(sc->x[i] > -OFF + 1 && sc->x[i] < OFF - 1);
		assert_true(sc->y[i] > -OFF + 1 && sc->y[i] < OFF - 1);
		assert_int_equal(sc_at(sc, sc->x[i], sc->y[i]), -1);
		sc->cell[sc->y[i] + OFF][sc->x[i] + OFF] = (int16_t)i;
		sc->base[i] = nodes;
		nodes += T.nseg[sc->type[i]];
	}
	assert_true(nodes <= ST_MAX_NODES);
	/* flood fill over ports */
	int tile_of[ST_MAX_NODES], seg_of[ST_MAX_NODES], stack[ST_MAX_NODES];
	for (int i = 0; i < sc->ntiles; i++)
		for (int s = 0; s < T.nseg[sc->type[i]]; s++) {
			tile_of[sc->base[i] + s] = i;
			seg_of[sc->base[i] + s] = s;
		}
	for (int n = 0; n < nodes; n++)
		sc->label[n] = -1;
	sc->nlab = 0;
	for (int start = 0; start < nodes; start++) {
		if (sc->label[start] >= 0)
			continue;
		int lab = sc->nlab++, sp = 0;
		sc->occupied[lab] = sc->holders[lab] = 0;
		sc->label[start] = lab;
		stack[sp++] = start;
		while (sp) {
			int n = stack[--sp], i = tile_of[n];
			for (unsigned pm = T.ports[sc->type[i]][sc->rot[i]][seg_of[n]]; pm; pm &= pm - 1) {
				int p = __builtin_ctz(pm), d = p / 3, k = p % 3;
				int j = sc_at(sc, sc->x[i] + DX[d], sc->y[i] + DY[d]);
				if (j < 0)
					continue;
				int m = sc->base[j] + T.seg[sc->type[j]][sc->rot[j]][3 * ((d + 2) & 3) + 2 - k];
				if (sc->label[m] < 0) {
					sc->label[m] = lab;
					stack[sp++] = m;
				}
			}
		}
	}
	carc_figure_info fi[CARC_MAX_FIGURES];
	int nf = carc_board_figures(g, fi, CARC_MAX_FIGURES);
	memset(sc->abbot_out, 0, sizeof sc->abbot_out);
	for (int f = 0; f < nf; f++) {
		int lab = sc->label[sc->base[fi[f].tile] + fi[f].seg];
		if (fi[f].kind == CARC_FIG_FOLLOWER || fi[f].kind == CARC_FIG_BIG ||
		    fi[f].kind == CARC_FIG_ABBOT)
			sc->occupied[lab] = 1;
		if (fi[f].kind == CARC_FIG_FOLLOWER || fi[f].kind == CARC_FIG_BIG)
			sc->holders[lab] |= (uint8_t)(1u << fi[f].owner);
		if (fi[f].kind == CARC_FIG_ABBOT)
			sc->abbot_out[fi[f].owner] = 1;
	}
}

static void sc_clear(scratch *sc)
{
	for (int i = 0; i < sc->ntiles; i++)
		sc->cell[sc->y[i] + OFF][sc->x[i] + OFF] = -1;
}

static void sc_init(scratch *sc)
{
	for (int y = 0; y < GRID; y++)
		for (int x = 0; x < GRID; x++)
			sc->cell[y][x] = -1;
	sc->ntiles = 0;
}

/* For the current tile at placement pl: per segment s, whether its feature
 * after placement is occupied (bit s of *occ) and has a follower of player
 * p (bit s of *own), by a flood from s over the new tile's ports and the
 * board features they meet; *docc and *down the same from the segment's
 * own ports only (the old, wrong rule), for counting. */
static void sc_joined(const scratch *sc, int type, carc_move pl, int p, unsigned *occ,
                      unsigned *own, unsigned *docc, unsigned *down)
{
	int x = carc_move_x(pl), y = carc_move_y(pl), rot = carc_move_rot(pl);
	int lab_at[12]; /* the board feature each port meets, -1 if none */
	for (int q = 0; q < 12; q++) {
		int d = q / 3, k = q % 3;
		int j = sc_at(sc, x + DX[d], y + DY[d]);
		lab_at[q] = j < 0 ? -1
		                  : sc->label[sc->base[j] +
		                              T.seg[sc->type[j]][sc->rot[j]][3 * ((d + 2) & 3) + 2 - k]];
	}
	*occ = *own = *docc = *down = 0;
	for (int s = 0; s < T.nseg[type]; s++) {
		/* flood: new segments reached (bit mask), board features met */
		unsigned segs = 1u << s, done = 0;
		int o = 0, w = 0, labs[12], nl = 0;
		while (segs & ~done) {
			int t = __builtin_ctz(segs & ~done);
			done |= 1u << t;
			for (unsigned pm = T.ports[type][rot][t]; pm; pm &= pm - 1) {
				int q = __builtin_ctz(pm), lab = lab_at[q];
				if (lab < 0)
					continue;
				int seen = 0;
				for (int i = 0; i < nl; i++)
					seen |= labs[i] == lab;
				if (seen)
					continue;
				labs[nl++] = lab;
				o |= sc->occupied[lab];
				w |= sc->holders[lab] >> p & 1;
				/* every other segment of the tile meeting this feature */
				for (int q2 = 0; q2 < 12; q2++)
					if (lab_at[q2] == lab)
						segs |= 1u << T.seg[type][rot][q2];
			}
			if (t == s)
				for (int i = 0; i < nl; i++) {
					*docc |= (unsigned)sc->occupied[labs[i]] << s;
					*down |= (unsigned)(sc->holders[labs[i]] >> p & 1) << s;
				}
		}
		*occ |= (unsigned)o << s;
		*own |= (unsigned)w << s;
	}
}

/* The figure options of placement pl by the rules, from the flood. */
static int sc_options(const scratch *sc, const carc_game *g, carc_move pl, carc_move *out,
                      unsigned *direct_diff)
{
	int type = carc_current_tile(g), p = carc_to_move(g), n = 0;
	carc_rules r;
	carc_game_rules(g, &r);
	unsigned occ, own, docc, down;
	sc_joined(sc, type, pl, p, &occ, &own, &docc, &down);
	*direct_diff = 0;
	/* Princess & Dragon: nobody stands on a volcano (the dragon comes) */
	int segs = carc_tile_symbol(type) == CARC_SYM_VOLCANO ? 0 : T.nseg[type];
	for (int s = 0; s < segs; s++) {
		int kind = T.kind[type][s];
		carc_move at = carc_move_make(carc_move_x(pl), carc_move_y(pl), carc_move_rot(pl), s, 0);
		if (kind == CARC_FEAT_RIVER || (kind == CARC_FEAT_FIELD && !r.farmers))
			continue;
		if (((occ ^ docc) | (own ^ down)) >> s & 1)
			*direct_diff |= 1u << s;
		if (kind != CARC_FEAT_GARDEN && !(occ >> s & 1)) {
			if (carc_supply(g, p, CARC_FIG_FOLLOWER))
				out[n++] = at | ((unsigned)CARC_FIG_FOLLOWER << 24);
			if (carc_supply(g, p, CARC_FIG_BIG))
				out[n++] = at | ((unsigned)CARC_FIG_BIG << 24);
		}
		if ((kind == CARC_FEAT_ROAD || kind == CARC_FEAT_CITY) && (own >> s & 1) &&
		    carc_supply(g, p, CARC_FIG_BUILDER))
			out[n++] = at | ((unsigned)CARC_FIG_BUILDER << 24);
		if (kind == CARC_FEAT_FIELD && (own >> s & 1) && carc_supply(g, p, CARC_FIG_PIG))
			out[n++] = at | ((unsigned)CARC_FIG_PIG << 24);
		if ((kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN) &&
		    carc_supply(g, p, CARC_FIG_ABBOT))
			out[n++] = at | ((unsigned)CARC_FIG_ABBOT << 24);
	}
	if (sc->abbot_out[p])
		out[n++] = carc_move_placement(pl) | CARC_MOVE_RECALL;
	return n;
}

static int move_cmp(const void *a, const void *b)
{
	carc_move x = *(const carc_move *)a, y = *(const carc_move *)b;
	return x < y ? -1 : x > y;
}

static unsigned lcg_pick(uint64_t *s, int n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((*s >> 33) % (uint64_t)n);
}

static struct {
	long positions, placements, options, checks, joins_mattered;
	int games_with_join;
} stat;

/* Compares the engine's options with the scratch ones for every placement
 * of the current tile; carc_check_move of every figure on every segment
 * for placement `probe`. Returns 1 if the join changed anything here. */
static int compare_position(scratch *sc, const carc_game *g, int nmv,
                            int probe, const char *what)
{
	static carc_move pl[CARC_MAX_MOVES];
	carc_move want[CARC_MAX_SEGS * CARC_FIG_COUNT + 1], got[CARC_MAX_SEGS * CARC_FIG_COUNT + 1];
	int np = carc_placements(g, pl, CARC_MAX_MOVES), total = 0, joined = 0;
	sc_build(sc, g);
	stat.positions++;
	for (int i = 0; i < np; i++) {
		total++;
		if (pl[i] == CARC_MOVE_DISCARD)
			continue;
		unsigned diff;
		int nw = sc_options(sc, g, pl[i], want, &diff);
		int ng = carc_figure_options(g, pl[i], got, (int)(sizeof got / sizeof got[0]));
		qsort(want, (size_t)nw, sizeof want[0], move_cmp);
		qsort(got, (size_t)ng, sizeof got[0], move_cmp);
		if (ng != nw || memcmp(want, got, sizeof want[0] * (size_t)nw)) {
			char buf[512];
			int o = snprintf(buf, sizeof buf, "expected");
			for (int k = 0; k < nw && o < 400; k++)
				o += snprintf(buf + o, sizeof buf - (size_t)o, " seg %d fig %d%s",
				              carc_move_seg(want[k]), carc_move_figure(want[k]),
				              carc_move_recall(want[k]) ? " recall" : "");
			o += snprintf(buf + o, sizeof buf - (size_t)o, "; engine");
			for (int k = 0; k < ng && o < 500; k++)
				o += snprintf(buf + o, sizeof buf - (size_t)o, " seg %d fig %d%s",
				              carc_move_seg(got[k]), carc_move_figure(got[k]),
				              carc_move_recall(got[k]) ? " recall" : "");
			fail_msg("%s: tile %s at (%d, %d) rot %d, player %d: %s", what,
			         carc_tile_name(carc_current_tile(g)), carc_move_x(pl[i]),
			         carc_move_y(pl[i]), carc_move_rot(pl[i]), carc_to_move(g), buf);
		}
		for (int k = 1; k < ng; k++)
			assert_true(got[k] != got[k - 1]);
		total += ng;
		stat.placements++;
		stat.options += ng;
		if (diff) {
			joined = 1;
			stat.joins_mattered++;
		}
		if (i != probe)
			continue;
		/* carc_check_move on every figure on every segment, and a recall */
		int type = carc_current_tile(g);
		for (int s = 0; s <= T.nseg[type]; s++)
			for (int f = 0; f < CARC_FIG_COUNT; f++) {
				carc_move m = s < T.nseg[type]
				                  ? carc_move_make(carc_move_x(pl[i]), carc_move_y(pl[i]),
				                                   carc_move_rot(pl[i]), s, f)
				                  : carc_move_placement(pl[i]) | CARC_MOVE_RECALL;
				int in = bsearch(&m, want, (size_t)nw, sizeof want[0], move_cmp) != NULL;
				char err[CARC_ERRMSG_SIZE] = "";
				carc_status st = carc_check_move(g, m, err);
				if ((st == CARC_OK) != in)
					fail_msg("%s: move 0x%08x: check says %d (%s), from scratch %s", what, m,
					         st, err, in ? "legal" : "illegal");
				if (st != CARC_OK && !err[0])
					fail_msg("%s: move 0x%08x refused without a message", what, m);
				stat.checks++;
				if (s == T.nseg[type])
					break;
			}
	}
	if (total != nmv)
		fail_msg("%s: %d legal moves, placements and options make %d", what, nmv, total);
	sc_clear(sc);
	return joined;
}

/* The valid expansion subsets (the two Inns & Cathedrals options exclude
 * each other). */
static int subsets(unsigned *out)
{
	int n = 0;
	for (unsigned m = 0; m <= ST_EXP_REAL; m++)
		if (!((m & CARC_EXP_INNS) && (m & CARC_EXP_INNS_TILES)))
			out[n++] = m;
	return n;
}

static void options_match_scratch(void **state)
{
	(void)state;
	static carc_move mv[CARC_MAX_MOVES];
	unsigned sub[64]; /* the valid subsets of six expansion bits: 48 */
	int nsub = subsets(sub);
	assert_int_equal(nsub, 48);
	tiles_load();
	scratch *sc = malloc(sizeof *sc);
	carc_game *g = malloc(sizeof *g);
	assert_non_null(sc);
	assert_non_null(g);
	sc_init(sc);
	memset(&stat, 0, sizeof stat);
	const int games = quick() ? 400 : 10000;
	for (int i = 0; i < games; i++) {
		carc_rules r;
		carc_rules_default(&r);
		if (i % 2 == 0) {
			r.farm_scoring = (i / 2) % CARC_FARM_SCORING_COUNT;
			r.farmers = (i / 2) % 10 != 9;
			r.small_city = (i / 2) % 4 == 1;
		} else {
			r.expansions = sub[(i / 2) % nsub];
			r.farm_scoring = (i / 2 / nsub) % CARC_FARM_SCORING_COUNT;
		}
		int maxp = (r.expansions & (CARC_EXP_INNS | CARC_EXP_INNS_TILES)) ? 6 : 5;
		r.players = 2 + (i / 2 + i / 48) % (maxp - 1);
		uint64_t seed = 7919ull * (uint64_t)i + 12, pick = seed;
		char err[CARC_ERRMSG_SIZE] = "", what[96];
		if (carc_game_init(g, &r, seed, NULL, 0, err) != CARC_OK)
			fail_msg("game %d: init: %s", i, err);
		int joined = 0;
		while (!carc_game_over(g)) {
			int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
			assert_true(n > 0 && n < CARC_MAX_MOVES);
			int k = (int)lcg_pick(&pick, n);
			if (carc_step_kind(g) != CARC_STEP_TILE) { /* Princess & Dragon's later steps */
				if (carc_apply(g, mv[k], NULL, err) != CARC_OK)
					fail_msg("game %d: a legal decision refused: %s", i, err);
				continue;
			}
			snprintf(what, sizeof what, "game %d (expansions 0x%x, %d players) turn %d", i,
			         r.expansions, r.players, carc_turns_played(g) + 1);
			/* probe the placement of the move about to be played */
			static carc_move pl[CARC_MAX_MOVES];
			int np = carc_placements(g, pl, CARC_MAX_MOVES), probe = -1;
			for (int j = 0; j < np; j++)
				if (pl[j] == carc_move_placement(mv[k]))
					probe = j;
			assert_true(probe >= 0);
			joined |= compare_position(sc, g, n, probe, what);
			if (carc_apply(g, mv[k], NULL, err) != CARC_OK)
				fail_msg("%s: legal move 0x%08x refused: %s", what, mv[k], err);
		}
		stat.games_with_join += joined;
	}
	print_message("%d games, %ld positions, %ld placements, %ld figure options, %ld moves "
	              "checked; placements where the join changed a segment: %ld (in %d games)\n",
	              games, stat.positions, stat.placements, stat.options, stat.checks,
	              stat.joins_mattered, stat.games_with_join);
	/* the games reached the case the join rule is about */
	assert_true(stat.joins_mattered > 0);
	free(g);
	free(sc);
}

/* ---- the figure bound ------------------------------------------------------ */

/* The most figures a game can have: 6 players with every expansion. All of
 * them stand on the board at once (placed straight onto nodes, rules
 * aside) and the figure slots hold them: nothing past the slots changes,
 * each figure is where it was put, and the engine's limit says as much. A
 * rule set whose figures would not fit is refused at set-up. */
static void figure_bound_filled(void **state)
{
	(void)state;
	carc_rules r = t_rules(6);
	r.expansions = ST_EXP_REAL & ~CARC_EXP_INNS_TILES;
	carc_game *g = carc_game_new(&r, 9, NULL, 0, NULL);
	assert_non_null(g);
	/* lay tiles, no figures, until there are more segments than figures */
	static carc_move mv[CARC_MAX_MOVES];
	uint64_t s = 7;
	while (g->nnodes < 2 * ST_MAX_FIGURES && !carc_game_over(g)) {
		if (carc_step_kind(g) != CARC_STEP_TILE) { /* Princess & Dragon's later steps */
			carc_legal_moves(g, mv, CARC_MAX_MOVES);
			carc_apply(g, mv[0], NULL, NULL);
			continue;
		}
		int n = carc_placements(g, mv, CARC_MAX_MOVES);
		carc_apply(g, mv[carc_rng_next(&s) % (uint64_t)n], NULL, NULL);
	}
	assert_true(g->nnodes >= ST_MAX_FIGURES);
	int total = 0;
	for (int p = 0; p < 6; p++)
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			total += carc_supply(g, p, k);
	assert_int_equal(total, 66); /* 6 x (7 followers, big, builder, pig, abbot) */
	assert_true(total <= carc_limit(CARC_LIMIT_FIGURES));
	assert_true(carc_limit(CARC_LIMIT_FIGURES) <= CARC_MAX_FIGURES);
	/* what lies past the figure slots, to see that nothing writes there */
	carc_step_rec steps0 = g->steps[0];
	carc_node node0 = g->node[0];
	int node = 1;
	for (int p = 0; p < 6; p++)
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			while (g->supply[p][k])
				eng_place_figure(g, node++, p, k);
	assert_int_equal(g->nfig, total);
	carc_figure_info fi[CARC_MAX_FIGURES];
	assert_int_equal(carc_board_figures(g, fi, CARC_MAX_FIGURES), total);
	for (int i = 0; i < total; i++) {
		assert_int_equal(g->fig[i].node, i + 1);
		assert_int_equal(fi[i].tile, g->node[i + 1].tile);
	}
	assert_memory_equal(&g->steps[0], &steps0, sizeof steps0);
	assert_int_equal(g->node[0].parent, node0.parent);
	assert_int_equal(g->node[0].tile, node0.tile);
	for (int p = 0; p < 6; p++)
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			assert_int_equal(carc_supply(g, p, k), 0);
	carc_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(figure_bound_filled),
		cmocka_unit_test(farmer_joins_held_field_through_cloister_tile),
		cmocka_unit_test(free_field_through_cloister_tile),
		cmocka_unit_test(pig_reaches_farmer_through_cloister_tile),
		cmocka_unit_test(robber_joins_held_road_through_u),
		cmocka_unit_test(builder_reaches_follower_through_u),
		cmocka_unit_test(options_match_scratch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
