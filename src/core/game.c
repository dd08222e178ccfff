/*
 * game.c - the rules of a turn: set-up, the draw, move generation, move
 * checking, and applying a move (tile, figure, scoring, next turn).
 *
 * Invariants (checked from scratch by carc_game_check in check.c):
 * - every square in g->tiles and g->frontier is in g->hmap, and the
 *   frontier is exactly the empty squares next to a tile;
 * - a frontier cell's req/mask hold the edge codes its neighbours demand;
 * - a root node's open/figures/shields/owners sum up its members;
 * - a completed road or city is flagged NODE_DONE and holds no figure;
 * - score[p] is the sum of by_kind[p][*]; figures are conserved.
 * Nothing here allocates; all work is bounded by the fixed arrays.
 */
#include <assert.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- small helpers ------------------------------------------------------ */

uint64_t eng_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Fisher-Yates from the end: for i = n-1 .. 1, swap a[i] with
 * a[next() mod (i+1)]. The generator state goes on across calls. */
static void shuffle(uint8_t *a, int n, uint64_t *state)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(carc_rng_next(state) % (uint64_t)(i + 1));
		uint8_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

void eng_seterr(char *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, CARC_ERRMSG_SIZE, fmt, ap);
	va_end(ap);
}

void carc_rules_default(carc_rules *r)
{
	memset(r, 0, sizeof *r);
	r->players = 2;
	r->farmers = 1;
	r->farm_scoring = CARC_FARM_INTERNATIONAL;
}

/* ---- set-up --------------------------------------------------------------------- */

/* The pile in draw order: river pieces shuffled, the lake, then the rest
 * shuffled (without the River: everything shuffled). */
static void deal(carc_game *g, uint64_t seed)
{
	uint64_t state = seed;
	int n = g->npile, a = 0;
	if (!(g->rules.expansions & CARC_EXP_RIVER)) {
		shuffle(g->pile, n, &state);
		return;
	}
	/* stable partition by river class: pieces (1), ends (2), others (0) */
	uint8_t tmp[ST_MAX_TILES];
	int k = 0;
	for (int cls = 1; cls <= 3; cls++)
		for (int i = 0; i < n; i++)
			if (river_class(g->pile[i]) == (cls % 3))
				tmp[k++] = g->pile[i];
	memcpy(g->pile, tmp, (size_t)n);
	while (a < n && river_class(g->pile[a]) == 1)
		a++;
	shuffle(g->pile, a, &state);
	int b = a;
	while (b < n && river_class(g->pile[b]) == 2)
		b++;
	shuffle(g->pile + a, b - a, &state);
	shuffle(g->pile + b, n - b, &state);
}

carc_status carc_game_init(carc_game *g, const carc_rules *r, uint64_t seed,
                           const int *pile, int npile_types, char err[CARC_ERRMSG_SIZE])
{
	if (!g || !r) {
		eng_seterr(err, "null game or rules");
		return CARC_ERR_ARG;
	}
	unsigned ex = r->expansions;
	if (ex & ~carc_expansions_known()) {
		eng_seterr(err, "unknown expansion bits 0x%x", ex & ~carc_expansions_known());
		return CARC_ERR_ARG;
	}
	if ((ex & CARC_EXP_INNS) && (ex & CARC_EXP_INNS_TILES)) {
		eng_seterr(err, "choose inns-cathedrals or inns-cathedrals-tiles, not both");
		return CARC_ERR_ARG;
	}
	int maxp = carc_rules_max_players(ex);
	if (r->players < 2 || r->players > maxp) {
		eng_seterr(err, "players must be 2 to %d%s, not %d", maxp,
		       maxp == 5 ? " (6 with inns-cathedrals)" : "", r->players);
		return CARC_ERR_ARG;
	}
	if (r->farm_scoring < 0 || r->farm_scoring >= CARC_FARM_SCORING_COUNT) {
		eng_seterr(err, "unknown farm scoring %d", r->farm_scoring);
		return CARC_ERR_ARG;
	}
	if (pile && npile_types < 0) {
		eng_seterr(err, "pile has %d tile types", npile_types);
		return CARC_ERR_ARG;
	}
	/* a caller's array may be longer than the types this engine knows,
	 * with nothing in the rest */
	for (int t = TILE_TYPES; pile && t < npile_types; t++)
		if (pile[t]) {
			eng_seterr(err, "pile names tile type %d, the engine knows %d", t, TILE_TYPES);
			return CARC_ERR_ARG;
		}

	/* only what a game reads is initialised: the big arrays are filled as
	 * the game goes, so that a new game is cheap */
	g->rules = *r;
	g->rules.farmers = r->farmers ? 1 : 0;
	g->rules.small_city = r->small_city ? 1 : 0;
	g->seed = seed;
	g->hash = 0;
	memset(g->score, 0, sizeof g->score);
	memset(g->by_kind, 0, sizeof g->by_kind);
	memset(g->turn_score, 0, sizeof g->turn_score);
	memset(g->supply, 0, sizeof g->supply);
	memset(g->goods, 0, sizeof g->goods);
	uint8_t start_supply[CARC_FIG_COUNT];
	int figures = 0;
	for (int k = 0; k < CARC_FIG_COUNT; k++) {
		start_supply[k] = (uint8_t)carc_rules_supply(r, k);
		figures += r->players * start_supply[k];
	}
	for (int p = 0; p < r->players; p++)
		memcpy(g->supply[p], start_supply, sizeof start_supply);
	/* every figure may stand on the board at once */
	if (figures > ST_MAX_FIGURES) {
		eng_seterr(err, "%d figures in play, the engine holds %d", figures, ST_MAX_FIGURES);
		return CARC_ERR_ARG;
	}
	g->player = 0;
	g->step = ST_STEP_TILE;
	g->step_player = 0;
	g->nsteps = 0;
	g->pend_same = g->pend_bonus = 0;
	g->dragon = g->fairy = g->fairy_fig = g->placed = 255;
	g->nvisited = 0;
#ifdef CARC_TEST_STEPS
	g->after_tile = (ex & ST_EXP_TEST_PASS) != 0;
#else
	g->after_tile = 0;
#endif
	g->over = 0;
	g->bonus = 0;
	g->ntiles = 0;
	g->nfrontier = 0;
	g->nclo = 0;
	g->nturns = 0;
	g->nnodes = 0;
	g->river_open = 0;
	g->river_turn = 0;
	memset(g->hmap, 0, sizeof g->hmap);
	memset(g->fig, 0xFF, sizeof g->fig); /* every slot free (owner ST_FIG_FREE) */
	g->nfig = 0;
	memset(g->remaining, 0, sizeof g->remaining);

	int counts[TILE_TYPES] = {0};
	int start = carc_rules_start_tile(r);
	if (pile) {
		for (int t = 0; t < npile_types && t < TILE_TYPES; t++) {
			if (pile[t] < 0) {
				eng_seterr(err, "pile count of %s is negative (%d)", tile_defs[t].name, pile[t]);
				return CARC_ERR_ARG;
			}
			if (pile[t] && !eng_type_in_rules(r, t)) {
				eng_seterr(err, "tile %s is not in this game's tile sets", tile_defs[t].name);
				return CARC_ERR_ARG;
			}
			if (pile[t] && river_class(t) == 2 && t == start) {
				eng_seterr(err, "tile %s is the start tile, not part of the pile",
				       tile_defs[t].name);
				return CARC_ERR_ARG;
			}
			counts[t] = pile[t];
		}
	} else {
		carc_rules_pile(r, counts);
	}
	int n = 0;
	for (int t = 0; t < TILE_TYPES; t++) {
		if (n + counts[t] > ST_MAX_TILES - 1) {
			eng_seterr(err, "pile holds more than %d tiles", ST_MAX_TILES - 1);
			return CARC_ERR_ARG;
		}
		for (int k = 0; k < counts[t]; k++)
			g->pile[n++] = (uint8_t)t;
		g->remaining[t] = (uint8_t)counts[t];
	}
	/* every segment of the pile has a node (a tile has at most
	 * CARC_MAX_SEGS: only a large pile needs counting) */
	if ((n + 1) * CARC_MAX_SEGS > ST_MAX_NODES) {
		int nodes = tile_defs[start].nseg;
		for (int t = 0; t < TILE_TYPES; t++)
			nodes += counts[t] * tile_defs[t].nseg;
		if (nodes > ST_MAX_NODES) {
			eng_seterr(err, "the pile's tiles have more than %d segments", ST_MAX_NODES);
			return CARC_ERR_ARG;
		}
	}
	g->npile = (uint8_t)n;
	g->pos = 0;
	deal(g, seed);

	eng_place_tile(g, 0, 0, start, 0, 255);
	unsigned rs = river_sides(start, 0);
	if (rs) {
		int d = __builtin_ctz(rs);
		g->river_open = 1;
		g->river_x = (int16_t)DX[d];
		g->river_y = (int16_t)DY[d];
		g->river_side = (uint8_t)((d + 2) & 3);
	}
	if (n == 0 || !pd_fix_draw(g)) {
		eng_final_scoring(g, NULL);
		g->over = 1;
		g->step = ST_STEP_NONE;
	}
	return CARC_OK;
}

size_t carc_game_size(void) { return sizeof(carc_game); }

size_t carc_events_size(void) { return sizeof(carc_events); }

carc_game *carc_game_alloc(void) { return malloc(sizeof(carc_game)); }

carc_game *carc_game_new(const carc_rules *r, uint64_t seed, const int *pile, int npile_types,
                         char err[CARC_ERRMSG_SIZE])
{
	carc_game *g = carc_game_alloc();
	if (!g) {
		eng_seterr(err, "out of memory");
		return NULL;
	}
	if (carc_game_init(g, r, seed, pile, npile_types, err) != CARC_OK) {
		free(g);
		return NULL;
	}
	return g;
}

carc_game *carc_game_clone(const carc_game *src)
{
	carc_game *g = carc_game_alloc();
	if (g)
		carc_game_copy(g, src);
	return g;
}

void carc_game_free(carc_game *g) { free(g); }

int carc_limit(int what)
{
	switch (what) {
	case CARC_LIMIT_BOARD_TILES: return ST_MAX_TILES;
	case CARC_LIMIT_STEPS: return ST_MAX_STEPS;
	case CARC_LIMIT_FIGURES: return ST_MAX_FIGURES;
	case CARC_LIMIT_FEATURE_IDS: return ST_MAX_NODES;
	case CARC_LIMIT_TILE_TYPES: return TILE_TYPES;
	case CARC_LIMIT_MOVES: return CARC_MAX_MOVES;
	default: return 0;
	}
}

/* Copies the fixed part and the used part of each array: the same game as
 * a memcpy of the whole struct, as nothing reads past the counts (figure
 * slots, read up to ST_MAX_FIGURES by some callers, are copied whole). */
void carc_game_copy(carc_game *dst, const carc_game *src)
{
	memcpy(dst, src, offsetof(carc_game, tiles));
	memcpy(dst->tiles, src->tiles, sizeof src->tiles[0] * src->ntiles);
	memcpy(dst->turn, src->turn, sizeof src->turn[0] * src->nturns);
	memcpy(dst->frontier, src->frontier, sizeof src->frontier[0] * src->nfrontier);
	memcpy(dst->clo, src->clo, sizeof src->clo[0] * src->nclo);
	memcpy(dst->fig, src->fig, sizeof src->fig);
	memcpy(dst->steps, src->steps, sizeof src->steps[0] * src->nsteps);
	memcpy(dst->node, src->node, sizeof src->node[0] * src->nnodes);
}

/* ---- asking ------------------------------------------------------------------------- */

int carc_game_over(const carc_game *g) { return g->over; }
int carc_to_move(const carc_game *g) { return g->step_player; }
int carc_turn_player(const carc_game *g) { return g->player; }
int carc_step_kind(const carc_game *g) { return g->over ? -1 : g->step; }
int carc_bonus_turn(const carc_game *g) { return g->bonus; }

int carc_current_tile(const carc_game *g)
{
	return g->over || g->pos >= g->npile ? -1 : g->pile[g->pos];
}

int carc_tiles_left(const carc_game *g) { return g->npile - g->pos - pd_held_count(g); }

int carc_tiles_left_of(const carc_game *g, int type)
{
	return type >= 0 && type < TILE_TYPES ? g->remaining[type] : 0;
}

int carc_supply(const carc_game *g, int player, int figure)
{
	if (player < 0 || player >= g->rules.players || figure < 0 || figure >= CARC_FIG_COUNT)
		return 0;
	return g->supply[player][figure];
}

int carc_goods_held(const carc_game *g, int player, int goods)
{
	if (player < 0 || player >= g->rules.players || goods <= 0 || goods >= CARC_GOODS_COUNT)
		return 0;
	return g->goods[player][goods];
}

void carc_game_scores(const carc_game *g, int *scores)
{
	for (int p = 0; p < g->rules.players; p++)
		scores[p] = g->score[p];
}

void carc_game_turn_scores(const carc_game *g, int *scores)
{
	for (int p = 0; p < g->rules.players; p++)
		scores[p] = g->turn_score[p];
}

int carc_score_by_kind(const carc_game *g, int player, int kind)
{
	if (player < 0 || player >= g->rules.players || kind < 0 || kind >= CARC_SCORE_KIND_COUNT)
		return 0;
	return g->by_kind[player][kind];
}

uint64_t carc_game_hash(const carc_game *g)
{
	uint64_t h = g->hash;
	h ^= eng_mix64(0x70000ull + g->player + ((uint64_t)g->bonus << 8));
	if (g->step != ST_STEP_TILE)
		h ^= eng_mix64(0x75000ull + ((uint64_t)g->step << 8) + g->step_player);
	/* the dragon's movement under way: the squares it may not enter again */
	for (int k = 0; k < g->nvisited; k++)
		h ^= eng_mix64(0x76000ull + ((uint64_t)k << 8) + g->visited[k]);
	h ^= eng_mix64(0x71000ull + (uint64_t)(carc_current_tile(g) + 1));
	for (int p = 0; p < g->rules.players; p++) {
		h ^= eng_mix64(0x72000ull + ((uint64_t)p << 16) + (uint16_t)g->score[p]);
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			h ^= eng_mix64(0x73000ull + ((uint64_t)p << 8) + ((uint64_t)k << 4) +
			               g->supply[p][k]);
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			h ^= eng_mix64(0x74000ull + ((uint64_t)p << 12) + ((uint64_t)k << 8) +
			               g->goods[p][k]);
	}
	return h;
}

int carc_tile_at(const carc_game *g, int x, int y)
{
	int v = hm_get(g, x, y);
	return v >= 0 && !(v & HM_FRONTIER) ? v : -1;
}

int carc_board_tiles(const carc_game *g) { return g->ntiles; }

int carc_board_tile(const carc_game *g, int i, int *type, int *x, int *y, int *rot,
                    int *player)
{
	if (i < 0 || i >= g->ntiles)
		return -1;
	const carc_placed *t = &g->tiles[i];
	if (type)
		*type = t->type;
	if (x)
		*x = t->x;
	if (y)
		*y = t->y;
	if (rot)
		*rot = t->rot;
	if (player)
		*player = t->player == 255 ? -1 : t->player;
	return 0;
}

int carc_board_figures(const carc_game *g, carc_figure_info *out, int max)
{
	int n = 0;
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		if (n < max) {
			out[n].owner = f->owner;
			out[n].kind = f->kind;
			out[n].tile = g->node[f->node].tile;
			out[n].seg = g->node[f->node].seg;
		}
		n++;
	}
	return n < max ? n : max;
}

void carc_game_rules(const carc_game *g, carc_rules *out) { memcpy(out, &g->rules, sizeof *out); }

int carc_game_pile(const carc_game *g, int *counts)
{
	int std[TILE_TYPES], standard = 1;
	memset(counts, 0, sizeof(int) * TILE_TYPES);
	for (int i = 0; i < g->npile; i++)
		counts[g->pile[i]]++;
	carc_rules_pile(&g->rules, std);
	for (int t = 0; t < TILE_TYPES; t++)
		if (counts[t] != std[t])
			standard = 0;
	return standard;
}
uint64_t carc_game_seed(const carc_game *g) { return g->seed; }

/* ---- the draw --------------------------------------------------------------------------- */

/* May a tile of this type be drawn now? River pieces come first, then the
 * lake, then the rest. */
static int drawable_now(const carc_game *g, int type)
{
	int cls = river_class(type);
	if (pd_held_back(g, type))
		return 0;
	if (cls == 1)
		return 1;
	for (int t = 0; t < TILE_TYPES; t++)
		if (g->remaining[t] && river_class(t) && (river_class(t) == 1 || cls == 0))
			return 0;
	return 1;
}

int carc_tile_drawable(const carc_game *g, int type)
{
	return !g->over && type >= 0 && type < TILE_TYPES && g->remaining[type] &&
	       drawable_now(g, type);
}

carc_status carc_set_current_tile(carc_game *g, int type)
{
	if (g->step != ST_STEP_TILE || type < 0 || type >= TILE_TYPES || !g->remaining[type] ||
	    !drawable_now(g, type))
		return CARC_ERR_ARG;
	for (int k = g->pos; k < g->npile; k++)
		if (g->pile[k] == type) {
			g->pile[k] = g->pile[g->pos];
			g->pile[g->pos] = (uint8_t)type;
			return CARC_OK;
		}
	return CARC_ERR_ARG;
}

void carc_shuffle_rest(carc_game *g, uint64_t seed)
{
	uint64_t state = seed;
	/* after the tile step the turn's tile stays where it is until the turn
	 * ends: only the ones not drawn yet are shuffled */
	int a = g->pos + (g->step != ST_STEP_TILE), n = g->npile;
	if (g->over)
		return;
	/* keep the river order: pieces, the lake, the rest */
	for (int cls = 1; cls <= 3; cls++) {
		int b = a;
		while (b < n && river_class(g->pile[b]) == cls % 3)
			b++;
		shuffle(g->pile + a, b - a, &state);
		a = b;
	}
	if (g->step == ST_STEP_TILE)
		pd_fix_draw(g); /* the tile drawn now is one that may be drawn */
}

/* ---- move generation ----------------------------------------------------------------- */

/* ROTS_OF[m]: the rotations in mask m, in order, as move bits (rot << 18) */
#define R_(r) ((uint32_t)(r) << 18)
static const uint32_t ROTS_OF[16][4] __attribute__((aligned(16))) = {
	{0, 0, 0, 0}, {R_(0), 0, 0, 0}, {R_(1), 0, 0, 0}, {R_(0), R_(1), 0, 0},
	{R_(2), 0, 0, 0}, {R_(0), R_(2), 0, 0}, {R_(1), R_(2), 0, 0}, {R_(0), R_(1), R_(2), 0},
	{R_(3), 0, 0, 0}, {R_(0), R_(3), 0, 0}, {R_(1), R_(3), 0, 0}, {R_(0), R_(1), R_(3), 0},
	{R_(2), R_(3), 0, 0}, {R_(0), R_(2), R_(3), 0}, {R_(1), R_(2), R_(3), 0},
	{R_(0), R_(1), R_(2), R_(3)}};
#undef R_

/* A river tile at (x, y, rot): continues the open river end and does not
 * turn the same way as the previous river curve. */
static int river_ok(const carc_game *g, int x, int y, int type, int rot)
{
	if (!g->river_open || x != g->river_x || y != g->river_y)
		return 0;
	unsigned rs = river_sides(type, rot);
	if (!(rs >> g->river_side & 1))
		return 0;
	unsigned out = rs & ~(1u << g->river_side);
	if (!out)
		return 1; /* the lake */
	int d = __builtin_ctz(out);
	int turn = (d - ((g->river_side + 2) & 3)) & 3;
	return !(turn && turn == g->river_turn);
}

int carc_placements(const carc_game *g, carc_move *buf, int max)
{
	if (g->step != ST_STEP_TILE) /* another step, or the game is over */
		return 0;
	int type = g->pile[g->pos];
	int n = 0;
	const uint8_t *fit = TT_FIT[type];
	if (river_class(type)) {
		int v = hm_get(g, g->river_x, g->river_y);
		if (g->river_open && v >= 0 && (v & HM_FRONTIER)) {
			const carc_cell *c = &g->frontier[v & (HM_FRONTIER - 1)];
			for (unsigned m = fit[c->key]; m; m &= m - 1) {
				int r = __builtin_ctz(m);
				if (river_ok(g, c->x, c->y, type, r) && n < max)
					buf[n++] = carc_move_make(c->x, c->y, r, CARC_SEG_NONE, 0);
			}
		}
	} else if (max >= 4 * g->nfrontier + 4) {
		/* branch-free: each square writes four candidates and keeps the
		 * ones whose rotation fits */
		const carc_cell *c = g->frontier, *end = c + g->nfrontier;
		for (; c < end; c++) {
			unsigned m = fit[c->key];
			uint32_t at = (uint32_t)(c->x + 256) | ((uint32_t)(c->y + 256) << 9) |
			              (CARC_SEG_NONE << 20);
#ifdef __SSE2__
			__m128i v = _mm_or_si128(_mm_set1_epi32((int)at),
			                         _mm_load_si128((const __m128i *)ROTS_OF[m]));
			_mm_storeu_si128((__m128i *)(buf + n), v);
#else
			for (int k = 0; k < 4; k++)
				buf[n + k] = at | ROTS_OF[m][k];
#endif
			n += (0x4332322132212110ull >> (4 * m)) & 0xF; /* popcount of m */
		}
	} else {
		for (int f = 0; f < g->nfrontier; f++) {
			const carc_cell *c = &g->frontier[f];
			for (unsigned m = fit[c->key]; m && n < max; m &= m - 1)
				buf[n++] = carc_move_make(c->x, c->y, __builtin_ctz(m), CARC_SEG_NONE, 0);
		}
	}
	if (n == 0 && max > 0)
		buf[n++] = CARC_MOVE_DISCARD;
	return n;
}

/* For `type` at (x, y, rot): bit s of *occ if segment s joins a feature
 * that already has a figure, bit s of *own if it joins one where player p
 * has a follower or big follower. "Joins" is the feature as it is after
 * the tile is placed: two segments of the tile that touch one feature
 * (the two fields beside a road that ends at the wrap-around field of a
 * cloister tile, two roads that meet both ends of a U) become one
 * feature with everything each of them touches, so what one segment
 * reaches counts for the others too. */
static void joined_features(const carc_game *g, int x, int y, int type, int rot, int p,
                            unsigned *occ, unsigned *own)
{
	unsigned o = 0, w = 0;
	/* the (root, segment) pairs the ports meet, at most one per port */
	uint16_t root[12];
	uint8_t seg[12];
	int np = 0;
	const uint8_t *ps = TT_PORTSEG[type][rot];
	for (int d = 0; d < 4; d++) {
		int v = hm_get(g, x + DX[d], y + DY[d]);
		if (v < 0 || (v & HM_FRONTIER))
			continue;
		const carc_placed *nb = &g->tiles[v];
		const uint8_t *nps = TT_PORTSEG[nb->type][nb->rot];
		int od = (d + 2) & 3;
		for (int k = 0; k < 3; k++) {
			int s = ps[3 * d + k], ns = nps[3 * od + 2 - k];
			/* a side of one segment facing one segment (a city or field
			 * side) is one pair, not three */
			if (k && s == ps[3 * d + k - 1] && ns == nps[3 * od + 3 - k])
				continue;
			int r = eng_find(g, nb->node0 + ns);
			const carc_node *rn = &g->node[r];
			if (rn->figures)
				o |= 1u << s;
			if (rn->owners >> p & 1)
				w |= 1u << s;
			root[np] = (uint16_t)r;
			seg[np++] = (uint8_t)s;
		}
	}
	/* Only a held feature can make a difference, and only to a segment
	 * that does not reach one itself: then spread along the joins, each
	 * pass crossing at least one more (bounded by the pairs). */
	if ((o | w) && np > 1) {
		unsigned link[12];
		int nl = 0;
		for (int i = 1; i < np; i++)
			for (int j = 0; j < i; j++)
				if (root[i] == root[j] && seg[i] != seg[j]) {
					link[nl++] = (1u << seg[i]) | (1u << seg[j]);
					break;
				}
		for (int changed = nl > 0; changed;) {
			changed = 0;
			for (int i = 0; i < nl; i++) {
				unsigned m = link[i];
				if ((o & m) && (o & m) != m) {
					o |= m;
					changed = 1;
				}
				if ((w & m) && (w & m) != m) {
					w |= m;
					changed = 1;
				}
			}
		}
	}
	*occ = o;
	*own = w;
}

/* The player's abbot on the board: its figure slot, or -1. */
static int abbot_slot(const carc_game *g, int p)
{
	if (!(g->rules.expansions & CARC_EXP_ABBOT) || g->supply[p][CARC_FIG_ABBOT])
		return -1;
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner == p && g->fig[i].kind == CARC_FIG_ABBOT)
			return i;
	return -1;
}

int carc_figure_options(const carc_game *g, carc_move pl, carc_move *buf, int max)
{
	if (g->step != ST_STEP_TILE || pl == CARC_MOVE_DISCARD)
		return 0;
	const int p = g->player;
	const uint8_t *sup = g->supply[p];
	int type = g->pile[g->pos];
	int x = carc_move_x(pl), y = carc_move_y(pl), rot = carc_move_rot(pl);
	const tile_def *def = &tile_defs[type];
	unsigned occ, own;
	int n = 0;
	carc_move base = carc_move_placement(pl) & ~(15u << 20);
	int nfollow = (sup[CARC_FIG_FOLLOWER] != 0) + (sup[CARC_FIG_BIG] != 0);
	int specials = sup[CARC_FIG_BUILDER] | sup[CARC_FIG_PIG];
	if ((!nfollow && !specials && !sup[CARC_FIG_ABBOT]) || def->symbol == CARC_SYM_VOLCANO)
		goto recall; /* no figure on a volcano: the dragon is there */
	joined_features(g, x, y, type, rot, p, &occ, &own);
	for (int s = 0; s < def->nseg; s++) {
		int kind = def->seg[s].kind;
		carc_move at = base | ((unsigned)s << 20);
		if (kind == CARC_FEAT_RIVER)
			continue;
		if (kind == CARC_FEAT_FIELD && !g->rules.farmers)
			continue;
		if (kind != CARC_FEAT_GARDEN && !(occ >> s & 1))
			for (int f = CARC_FIG_FOLLOWER; f <= CARC_FIG_BIG; f++)
				if (sup[f] && n < max)
					buf[n++] = at | ((unsigned)f << 24);
		if ((kind == CARC_FEAT_ROAD || kind == CARC_FEAT_CITY) && sup[CARC_FIG_BUILDER] &&
		    (own >> s & 1) && n < max)
			buf[n++] = at | ((unsigned)CARC_FIG_BUILDER << 24);
		if (kind == CARC_FEAT_FIELD && sup[CARC_FIG_PIG] && (own >> s & 1) && n < max)
			buf[n++] = at | ((unsigned)CARC_FIG_PIG << 24);
		if ((kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN) && sup[CARC_FIG_ABBOT] &&
		    n < max)
			buf[n++] = at | ((unsigned)CARC_FIG_ABBOT << 24);
	}
recall:
	if (abbot_slot(g, p) >= 0 && n < max)
		buf[n++] = carc_move_placement(pl) | CARC_MOVE_RECALL;
	return n;
}

/* ---- the steps after the tile --------------------------------------------------------------- */

/*
 * Steps other than the tile step. Each kind says here what its decisions
 * are, how one is checked and what it does; the rest of the engine (JSON,
 * records, views) reads them through eng_step_* below.
 *
 * The test step (test builds, rules bit "test-pass"): after a tile was
 * placed, the next player in turn says 0 or 1; nothing else happens, and
 * then the turn ends. It shows that everything around the engine carries
 * a kind of step it does not know.
 */
int eng_step_moves(const carc_game *g, carc_move *buf, int max)
{
	int n = 0;
	(void)buf;
	(void)max;
	switch (g->step) {
	case ST_STEP_ACTION:
	case ST_STEP_DRAGON:
		return pd_moves(g, buf, max);
#ifdef CARC_TEST_STEPS
	case ST_STEP_TEST_PASS:
		for (carc_move v = 0; v < 2 && n < max; v++)
			buf[n++] = v;
		break;
#endif
	default:
		break;
	}
	return n;
}

static carc_status check_step(const carc_game *g, carc_move m, char *err)
{
	if (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON)
		return pd_check(g, m, err);
	carc_move buf[16];
	int n = eng_step_moves(g, buf, 16);
	for (int i = 0; i < n; i++)
		if (buf[i] == m)
			return CARC_OK;
	eng_seterr(err, "%u is not a decision of the %s step", m, carc_name(CARC_NAMES_STEP, g->step));
	return CARC_ERR_ILLEGAL;
}

/* ---- move generation, continued --------------------------------------------------------- */

int carc_legal_moves(const carc_game *g, carc_move *buf, int max)
{
	if (g->step != ST_STEP_TILE)
		return g->over ? 0 : eng_step_moves(g, buf, max);
	carc_move pl[CARC_MAX_MOVES];
	int np = carc_placements(g, pl, CARC_MAX_MOVES);
	int n = 0;
	for (int i = 0; i < np; i++) {
		if (n < max)
			buf[n++] = pl[i];
		if (pl[i] != CARC_MOVE_DISCARD)
			n += carc_figure_options(g, pl[i], buf + n, max > n ? max - n : 0);
	}
	return n < max ? n : max;
}

/* ---- checking a move ---------------------------------------------------------------- */

static carc_status check_placement(const carc_game *g, int type, int x, int y, int rot,
                                   char *err)
{
	static const char *const SIDE[4] = {"north", "east", "south", "west"};
	int v = hm_get(g, x, y);
	if (v < 0 || !(v & HM_FRONTIER)) {
		eng_seterr(err, v >= 0 ? "square (%d, %d) is taken"
		                   : "square (%d, %d) does not touch the board by a side",
		       x, y);
		return CARC_ERR_ILLEGAL;
	}
	const carc_cell *c = &g->frontier[v & (HM_FRONTIER - 1)];
	if ((TT_EDGES[type][rot] & c->mask) != c->req) {
		unsigned bad = (TT_EDGES[type][rot] & c->mask) ^ c->req;
		eng_seterr(err, "tile %s at (%d, %d) rot %d does not match its %s neighbour",
		       tile_defs[type].name, x, y, rot, SIDE[__builtin_ctz(bad) / 2]);
		return CARC_ERR_ILLEGAL;
	}
	if (river_class(type) && !river_ok(g, x, y, type, rot)) {
		if (!g->river_open || x != g->river_x || y != g->river_y)
			eng_seterr(err, "river tile %s must continue the river at (%d, %d)",
			       tile_defs[type].name, g->river_x, g->river_y);
		else if (!(river_sides(type, rot) >> g->river_side & 1))
			eng_seterr(err, "river tile %s at rot %d does not continue the river from the %s",
			       tile_defs[type].name, rot, SIDE[g->river_side]);
		else
			eng_seterr(err, "river tile %s at rot %d turns the same way as the last river "
			            "curve (no U-turns)",
			       tile_defs[type].name, rot);
		return CARC_ERR_ILLEGAL;
	}
	return CARC_OK;
}

/* Why a figure option the generator did not offer is illegal. */
static void explain_figure(const carc_game *g, carc_move m, int type, char *err)
{
	const tile_def *def = &tile_defs[type];
	int seg = carc_move_seg(m), fig = carc_move_figure(m), p = g->player;
	if (carc_move_recall(m)) {
		eng_seterr(err, seg != CARC_SEG_NONE ? "an abbot recall places no figure"
		                                 : "player %d has no abbot on the board",
		       p);
		return;
	}
	if (seg >= def->nseg) {
		eng_seterr(err, "tile %s has no segment %d", def->name, seg);
		return;
	}
	if (fig >= CARC_FIG_COUNT) {
		eng_seterr(err, "unknown figure %d", fig);
		return;
	}
	const char *at = carc_port_name(TT_SEGPORT[type][carc_move_rot(m)][seg]);
	int kind = def->seg[seg].kind;
	if (!g->supply[p][fig]) {
		eng_seterr(err, "player %d has no %s in supply", p, eng_figure_words(fig));
		return;
	}
	if (def->symbol == CARC_SYM_VOLCANO) {
		eng_seterr(err, "no figure may stand on a volcano: the dragon comes there (%s)", at);
		return;
	}
	if (kind == CARC_FEAT_RIVER) {
		eng_seterr(err, "no figure may stand on the river (%s)", at);
		return;
	}
	if (kind == CARC_FEAT_FIELD && !g->rules.farmers) {
		eng_seterr(err, "no farmers in this game (%s is a field)", at);
		return;
	}
	switch (fig) {
	case CARC_FIG_BUILDER:
		eng_seterr(err, kind == CARC_FEAT_ROAD || kind == CARC_FEAT_CITY
		                ? "a builder needs a follower of its owner on the feature at %s"
		                : "a builder goes on a road or city only, not %s",
		       at);
		return;
	case CARC_FIG_PIG:
		eng_seterr(err, kind == CARC_FEAT_FIELD ? "a pig needs a farmer of its owner on the field at %s"
		                                    : "a pig goes on a field only, not %s",
		       at);
		return;
	case CARC_FIG_ABBOT:
		eng_seterr(err, "an abbot goes on a cloister or garden only, not %s", at);
		return;
	default:
		if (kind == CARC_FEAT_GARDEN)
			eng_seterr(err, "only an abbot may stand on a garden (%s)", at);
		else
			eng_seterr(err, "the feature at %s already has a follower", at);
	}
}

carc_status carc_check_move(const carc_game *g, carc_move m, char err[CARC_ERRMSG_SIZE])
{
	if (g->over) {
		eng_seterr(err, "the game is over");
		return CARC_ERR_GAME_OVER;
	}
	if (g->step != ST_STEP_TILE)
		return check_step(g, m, err);
	int type = g->pile[g->pos];
	if (m == CARC_MOVE_DISCARD) {
		carc_move one;
		carc_placements(g, &one, 1);
		if (one != CARC_MOVE_DISCARD) {
			eng_seterr(err, "tile %s fits at (%d, %d) rot %d: it may not be set aside",
			       tile_defs[type].name, carc_move_x(one), carc_move_y(one),
			       carc_move_rot(one));
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	if (m & 0x70000000u || (m & 0x80000000u)) {
		eng_seterr(err, "malformed move 0x%x", m);
		return CARC_ERR_ILLEGAL;
	}
	carc_status st = check_placement(g, type, carc_move_x(m), carc_move_y(m),
	                                 carc_move_rot(m), err);
	if (st != CARC_OK)
		return st;
	if (carc_move_seg(m) == CARC_SEG_NONE && !carc_move_recall(m)) {
		if (carc_move_figure(m)) {
			eng_seterr(err, "a move without a segment names a figure");
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	carc_move opts[CARC_MAX_SEGS * CARC_FIG_COUNT + 1];
	int n = carc_figure_options(g, m, opts, (int)(sizeof opts / sizeof opts[0]));
	for (int i = 0; i < n; i++)
		if (opts[i] == m)
			return CARC_OK;
	explain_figure(g, m, type, err);
	return CARC_ERR_ILLEGAL;
}

/* ---- applying a move ----------------------------------------------------------------- */

#ifdef CARC_DEBUG_CHECK
static void debug_check(const carc_game *g)
{
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_check(g, e) != CARC_OK) {
		fprintf(stderr, "carc: state check failed after step %d: %s\n", g->nsteps, e);
		abort();
	}
}
#endif

static void next_turn(carc_game *g, carc_events *ev, int same_player, int bonus)
{
	g->remaining[g->pile[g->pos]]--;
	g->pos++;
	g->bonus = (uint8_t)bonus;
	if (!same_player && !bonus)
		g->player = (uint8_t)((g->player + 1) % g->rules.players);
	g->step = ST_STEP_TILE;
	g->step_player = g->player;
	memcpy(g->turn_score, g->score, sizeof g->score);
	if (g->pos >= g->npile || !pd_fix_draw(g)) {
		g->bonus = 0;
		eng_final_scoring(g, ev);
		g->over = 1;
		g->step = ST_STEP_NONE;
	}
}

/* The tile step is made: the turn ends, or its later steps begin (the
 * turn's end is kept for the last of them). */
static void tile_step_done(carc_game *g, carc_events *ev, int same_player, int bonus)
{
	if (!g->after_tile || same_player) {
		next_turn(g, ev, same_player, bonus);
		return;
	}
	g->pend_same = (uint8_t)same_player;
	g->pend_bonus = (uint8_t)bonus;
#ifdef CARC_TEST_STEPS
	g->step = ST_STEP_TEST_PASS;
	g->step_player = (uint8_t)((g->player + 1) % g->rules.players);
#endif
}

/* The turn's scoring (what the tile placed this turn completed), then
 * the turn ends or its later steps begin. */
static void turn_scored(carc_game *g, carc_events *ev, int bonus)
{
	const int p = g->player, n0 = g->tiles[g->placed].node0;
	const tile_def *def = &tile_defs[g->tiles[g->placed].type];
	/* roads and cities the tile completed */
	for (int s = 0; s < def->nseg; s++) {
		int k = def->seg[s].kind;
		if (k != CARC_FEAT_ROAD && k != CARC_FEAT_CITY)
			continue;
		int r = eng_find_compress(g, n0 + s);
		if (g->node[r].open == 0 && !(g->node[r].flags & NODE_DONE))
			eng_score_feature(g, r, 1, p, ev);
	}
	/* cloisters and gardens the tile surrounded */
	for (int c = 0; c < g->nclo; c++)
		if (g->clo[c].neighbours == 8 && !g->clo[c].done)
			eng_score_cloister(g, c, 1, 0, ev);
	g->step_player = (uint8_t)p;
	tile_step_done(g, ev, 0, bonus);
}

/* A new entry in the list of steps, for the decision being made now. */
static carc_step_rec *step_record(carc_game *g, carc_move m)
{
	carc_step_rec *sr = &g->steps[g->nsteps++];
	sr->move = m;
	sr->turn = (uint16_t)(g->nturns - 1);
	sr->kind = g->step;
	sr->player = g->step_player;
	return sr;
}

static void apply_step(carc_game *g, carc_move m, carc_events *ev)
{
	step_record(g, m);
	switch (g->step) {
	case ST_STEP_ACTION:
	case ST_STEP_DRAGON: {
		int next = pd_apply(g, m, ev);
		if (next != ST_STEP_NONE)
			g->step = (uint8_t)next;
		else
			turn_scored(g, ev, g->pend_bonus);
		break;
	}
#ifdef CARC_TEST_STEPS
	case ST_STEP_TEST_PASS: /* a pass changes nothing */
		next_turn(g, ev, g->pend_same, g->pend_bonus);
		break;
#endif
	default:
		break;
	}
#ifdef CARC_DEBUG_CHECK
	debug_check(g);
#endif
}

/* Did the tile just placed (first node n0) extend a road or city that
 * holds the player's builder? */
static int builder_extended(carc_game *g, int type, int n0, int p)
{
	if (g->supply[p][CARC_FIG_BUILDER] || !(g->rules.expansions & CARC_EXP_TRADERS))
		return 0;
	int bnode = -1;
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner == p && g->fig[i].kind == CARC_FIG_BUILDER)
			bnode = g->fig[i].node;
	if (bnode < 0)
		return 0;
	int br = eng_find(g, bnode);
	const tile_def *def = &tile_defs[type];
	for (int s = 0; s < def->nseg; s++)
		if ((def->seg[s].kind == CARC_FEAT_ROAD || def->seg[s].kind == CARC_FEAT_CITY) &&
		    eng_find(g, n0 + s) == br)
			return 1;
	return 0;
}

static inline void place_figure(carc_game *g, int node, int p, int kind)
{
	int slot = 0;
	while (slot < g->nfig && g->fig[slot].owner != 255)
		slot++;
	/* carc_game_init refused a game whose figures could not all stand on
	 * the board at once, so a free slot is always there */
	assert(slot < ST_MAX_FIGURES);
	if (slot == g->nfig)
		g->nfig++;
	carc_figure_at *f = &g->fig[slot];
	f->owner = (uint8_t)p;
	f->kind = (uint8_t)kind;
	f->node = (uint16_t)node;
	g->supply[p][kind]--;
	int r = eng_find_compress(g, node);
	if (fig_occupies(kind))
		g->node[r].figures++;
	if (fig_weight(kind))
		g->node[r].owners |= (uint8_t)(1u << p);
	g->hash ^= eng_fig_key(g, node, p, kind);
}

void eng_place_figure(carc_game *g, int node, int p, int kind)
{
	place_figure(g, node, p, kind);
}

carc_status carc_apply(carc_game *g, carc_move m, carc_events *ev, char err[CARC_ERRMSG_SIZE])
{
	carc_status st = carc_check_move(g, m, err);
	if (st != CARC_OK)
		return st;
	carc_apply_unchecked(g, m, ev);
	return CARC_OK;
}

void carc_apply_unchecked(carc_game *g, carc_move m, carc_events *ev)
{
	if (ev)
		ev->n = 0;
	if (g->step != ST_STEP_TILE) {
		apply_step(g, m, ev);
		return;
	}
	int type = g->pile[g->pos];
	const int p = g->player;
	carc_turn_rec *tr = &g->turn[g->nturns++];
	tr->step = g->nsteps;
	tr->info = g->bonus ? ST_TURN_BONUS : 0;
	step_record(g, m);
	if (m == CARC_MOVE_DISCARD) {
		next_turn(g, ev, 1, g->bonus);
		return;
	}
	pd_turn_start(g, ev); /* the fairy's point (once: a tile set aside is no turn of its own) */

	int x = carc_move_x(m), y = carc_move_y(m), rot = carc_move_rot(m);
	int ti = eng_place_tile(g, x, y, type, rot, p);
	int n0 = g->tiles[ti].node0;
	int bonus = !g->bonus && builder_extended(g, type, n0, p);
	if (TT_RIVER[type]) {
		unsigned out = river_sides(type, rot) & ~(1u << g->river_side);
		if (out) {
			int d = __builtin_ctz(out);
			int turn = (d - ((g->river_side + 2) & 3)) & 3;
			if (turn)
				g->river_turn = (uint8_t)turn;
			g->river_x = (int16_t)(x + DX[d]);
			g->river_y = (int16_t)(y + DY[d]);
			g->river_side = (uint8_t)((d + 2) & 3);
		} else {
			g->river_open = 0;
		}
	}
	int seg = carc_move_seg(m);
	if (seg != CARC_SEG_NONE)
		place_figure(g, n0 + seg, p, carc_move_figure(m));
	if (carc_move_recall(m)) {
		int slot = abbot_slot(g, p);
		int node = g->fig[slot].node;
		for (int c = 0; c < g->nclo; c++)
			if (g->tiles[g->clo[c].tile].node0 + g->clo[c].seg == node)
				eng_score_cloister(g, c, 0, 0, ev);
	}

	/* Princess & Dragon: the action step, the dragon; the turn is scored
	 * after them */
	int next = pd_after_tile(g, ti, seg != CARC_SEG_NONE || carc_move_recall(m));
	if (next != ST_STEP_NONE) {
		g->step = (uint8_t)next;
		g->pend_same = 0;
		g->pend_bonus = (uint8_t)bonus;
	} else {
		turn_scored(g, ev, bonus);
	}
#ifdef CARC_DEBUG_CHECK
	debug_check(g);
#endif
}
