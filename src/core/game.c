/*
 * game.c - the rules of a turn: set-up, move generation, placing a tile
 * and a figure, scoring completed features, passing the turn.
 *
 * Invariants (checked from scratch by carc_game_check in check.c):
 * - every square in g->tiles and g->frontier is in g->hmap, and the
 *   frontier is exactly the empty squares next to a tile;
 * - a frontier cell's req/mask hold the edge codes its neighbours demand;
 * - a root node's open/figures/shields are the sums over its members;
 * - a completed road or city is flagged NODE_DONE and holds no figure;
 * - score[p] is the sum of by_kind[p][*].
 * Nothing here allocates; all work is bounded by the fixed arrays.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

/* ---- small helpers ------------------------------------------------------ */

uint64_t eng_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* SplitMix64: the documented generator of the shuffle (docs/rng.md). */
static uint64_t splitmix_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void shuffle(uint8_t *a, int n, uint64_t seed)
{
	uint64_t s = seed;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(splitmix_next(&s) % (uint64_t)(i + 1));
		uint8_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static void seterr(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void seterr(char *err, const char *fmt, ...)
{
	if (!err)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, CARC_ERRMSG_SIZE, fmt, ap);
	va_end(ap);
}

static void hm_put(carc_game *g, int x, int y, unsigned val)
{
	uint32_t key = hm_key(x, y);
	unsigned i = hm_slot(key);
	for (;;) {
		uint32_t e = g->hmap[i];
		if (!e || (e >> 10) == key) {
			g->hmap[i] = (key << 10) | val;
			return;
		}
		i = (i + 1) & (CARC_HASH_SIZE - 1);
	}
}

static uint64_t tile_key(int x, int y, int type, int rot)
{
	return eng_mix64(((uint64_t)(uint16_t)x << 32) | ((uint64_t)(uint16_t)y << 16) |
	                 ((uint64_t)type << 2) | (uint64_t)TT_CANON[type][rot]);
}

static uint64_t fig_key(const carc_game *g, int node, int owner, int kind)
{
	const carc_node *n = &g->node[node];
	const carc_placed *t = &g->tiles[n->tile];
	int port = TT_SEGPORT[t->type][t->rot][n->seg];
	return eng_mix64(0xF1600000ull ^ ((uint64_t)(uint16_t)t->x << 40) ^
	                 ((uint64_t)(uint16_t)t->y << 24) ^ ((uint64_t)port << 8) ^
	                 ((uint64_t)owner << 4) ^ (uint64_t)kind);
}

/* ---- rules and names -------------------------------------------------------- */

void carc_rules_default(carc_rules *r)
{
	memset(r, 0, sizeof *r);
	r->players = 2;
	r->farmers = 1;
	r->farm_scoring = CARC_FARM_INTERNATIONAL;
	r->small_city = 0;
	r->expansions = 0;
}

static const char *const FARM_NAMES[CARC_FARM_SCORING_COUNT] = {
	"international", "city-once", "first-edition"};

const char *carc_farm_scoring_name(int fs)
{
	return fs >= 0 && fs < CARC_FARM_SCORING_COUNT ? FARM_NAMES[fs] : "?";
}

int carc_farm_scoring_parse(const char *name)
{
	for (int i = 0; i < CARC_FARM_SCORING_COUNT; i++)
		if (name && !strcmp(name, FARM_NAMES[i]))
			return i;
	return -1;
}

static const char *const PORT_NAMES[13] = {"N0", "N1", "N2", "E0", "E1",
                                           "E2", "S0", "S1", "S2", "W0",
                                           "W1", "W2", "C"};

const char *carc_port_name(int port)
{
	return port >= 0 && port <= CARC_PORT_CENTRE ? PORT_NAMES[port] : "?";
}

int carc_port_parse(const char *name)
{
	for (int i = 0; i <= CARC_PORT_CENTRE; i++)
		if (name && !strcmp(name, PORT_NAMES[i]))
			return i;
	return -1;
}

int carc_tile_parse(const char *name)
{
	for (int i = 0; i < CARC_TILE_TYPES; i++)
		if (name && !strcmp(name, tile_defs[i].name))
			return i;
	return -1;
}

const char *carc_tile_name(int type)
{
	return type >= 0 && type < CARC_TILE_TYPES ? tile_defs[type].name : "?";
}

int carc_tile_box_count(int type)
{
	return type >= 0 && type < CARC_TILE_TYPES ? tile_defs[type].count : 0;
}

int carc_tile_segments(int type)
{
	return type >= 0 && type < CARC_TILE_TYPES ? tile_defs[type].nseg : 0;
}

int carc_tile_segment(int type, int s, int *kind, unsigned *ports,
                      unsigned *flags, unsigned *cities)
{
	if (type < 0 || type >= CARC_TILE_TYPES || s < 0 || s >= tile_defs[type].nseg)
		return -1;
	const tile_seg *sg = &tile_defs[type].seg[s];
	if (kind)
		*kind = sg->kind;
	if (ports)
		*ports = sg->ports;
	if (flags)
		*flags = sg->flags;
	if (cities)
		*cities = sg->cities;
	return 0;
}

int carc_tile_port_segment(int type, int rot, int port)
{
	if (type < 0 || type >= CARC_TILE_TYPES || rot < 0 || rot > 3 || port < 0 ||
	    port > CARC_PORT_CENTRE)
		return -1;
	int s = TT_PORTSEG[type][rot][port];
	return s == 255 ? -1 : s;
}

int carc_tile_segment_port(int type, int rot, int s)
{
	if (type < 0 || type >= CARC_TILE_TYPES || rot < 0 || rot > 3 || s < 0 ||
	    s >= tile_defs[type].nseg)
		return -1;
	return TT_SEGPORT[type][rot][s];
}

/* ---- board building ----------------------------------------------------------- */

static void frontier_touch(carc_game *g, int x, int y, int side_from_cell,
                           unsigned code)
{
	int v = hm_get(g, x, y);
	int f;
	if (v < 0) {
		f = g->nfrontier++;
		g->frontier[f].x = (int16_t)x;
		g->frontier[f].y = (int16_t)y;
		g->frontier[f].req = 0;
		g->frontier[f].mask = 0;
		hm_put(g, x, y, HM_FRONTIER | (unsigned)f);
	} else if (v & HM_FRONTIER) {
		f = v & (HM_FRONTIER - 1);
	} else {
		return; /* a tile */
	}
	g->frontier[f].req |= (uint8_t)(code << (2 * side_from_cell));
	g->frontier[f].mask |= (uint8_t)(3u << (2 * side_from_cell));
}

static int node_union(carc_game *g, int a, int b)
{
	int ra = eng_find_compress(g, a), rb = eng_find_compress(g, b);
	if (ra == rb)
		return ra;
	if (rb < ra) {
		int t = ra;
		ra = rb;
		rb = t;
	}
	carc_node *A = &g->node[ra], *B = &g->node[rb];
	B->parent = (uint16_t)ra;
	A->open = (uint8_t)(A->open + B->open);
	A->figures = (uint8_t)(A->figures + B->figures);
	A->shields = (uint8_t)(A->shields + B->shields);
	A->flags |= B->flags;
	A->goods = (uint8_t)(A->goods + B->goods);
	uint16_t t = A->next;
	A->next = B->next;
	B->next = t;
	return ra;
}

/* Puts a tile on the board (no rule checks) and joins its segments to the
 * features around it. Returns the tile index. */
static int place_tile(carc_game *g, int x, int y, int type, int rot, int player)
{
	int ti = g->ntiles++;
	carc_placed *t = &g->tiles[ti];
	const tile_def *def = &tile_defs[type];
	int n0 = g->nnodes;

	t->x = (int16_t)x;
	t->y = (int16_t)y;
	t->type = (uint8_t)type;
	t->rot = (uint8_t)rot;
	t->node0 = (uint16_t)n0;
	t->player = (uint8_t)player;
	g->nnodes = (uint16_t)(n0 + def->nseg);
	for (int s = 0; s < def->nseg; s++) {
		carc_node *n = &g->node[n0 + s];
		const tile_seg *sg = &def->seg[s];
		n->parent = (uint16_t)(n0 + s);
		n->next = (uint16_t)(n0 + s);
		n->tile = (uint8_t)ti;
		n->seg = (uint8_t)s;
		n->kind = sg->kind;
		n->open = (uint8_t)__builtin_popcount(TT_SEGSIDES[type][rot][s]);
		n->figures = 0;
		n->shields = (sg->flags & CARC_SEGF_SHIELD) ? 1 : 0;
		n->flags = sg->flags;
		n->goods = sg->goods ? 1 : 0;
	}
	g->hash ^= tile_key(x, y, type, rot);

	/* the square was a frontier cell (or empty, for the start tile) */
	int v = hm_get(g, x, y);
	if (v >= 0 && (v & HM_FRONTIER)) {
		int f = v & (HM_FRONTIER - 1);
		int last = --g->nfrontier;
		if (f != last) {
			g->frontier[f] = g->frontier[last];
			hm_put(g, g->frontier[f].x, g->frontier[f].y,
			       HM_FRONTIER | (unsigned)f);
		}
	}
	hm_put(g, x, y, (unsigned)ti);

	const uint8_t *ps = TT_PORTSEG[type][rot];
	unsigned edges = TT_EDGES[type][rot];
	for (int d = 0; d < 4; d++) {
		int nx = x + DX[d], ny = y + DY[d];
		int nv = hm_get(g, nx, ny);
		unsigned code = (edges >> (2 * d)) & 3u;
		if (nv < 0 || (nv & HM_FRONTIER)) {
			frontier_touch(g, nx, ny, (d + 2) & 3, code);
			continue;
		}
		const carc_placed *nb = &g->tiles[nv];
		const uint8_t *nps = TT_PORTSEG[nb->type][nb->rot];
		int od = (d + 2) & 3;
		/* middle port: road, city or river sides close here */
		int r = node_union(g, n0 + ps[3 * d + 1], nb->node0 + nps[3 * od + 1]);
		if (code != EDGE_FIELD)
			g->node[r].open = (uint8_t)(g->node[r].open - 2);
		if (code != EDGE_CITY) {
			node_union(g, n0 + ps[3 * d], nb->node0 + nps[3 * od + 2]);
			node_union(g, n0 + ps[3 * d + 2], nb->node0 + nps[3 * od]);
		}
	}

	/* cloisters and gardens around count this tile */
	for (int c = 0; c < g->nclo; c++) {
		const carc_placed *ct = &g->tiles[g->clo[c].tile];
		int dx = ct->x - x, dy = ct->y - y;
		if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1)
			g->clo[c].neighbours++;
	}
	int centre = ps[12];
	if (centre != 255) {
		carc_cloister *c = &g->clo[g->nclo++];
		c->tile = (uint8_t)ti;
		c->seg = (uint8_t)centre;
		c->done = 0;
		c->neighbours = 0;
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++)
				if ((dx || dy)) {
					int w = hm_get(g, x + dx, y + dy);
					if (w >= 0 && !(w & HM_FRONTIER))
						c->neighbours++;
				}
	}
	return ti;
}

/* ---- set-up --------------------------------------------------------------------- */

carc_status carc_game_init(carc_game *g, const carc_rules *r, uint64_t seed,
                           const int *pile, int npile_types,
                           char err[CARC_ERRMSG_SIZE])
{
	if (!g || !r) {
		seterr(err, "null game or rules");
		return CARC_ERR_ARG;
	}
	if (r->players < 2 || r->players > 5) {
		seterr(err, "players must be 2 to 5, not %d", r->players);
		return CARC_ERR_ARG;
	}
	if (r->farm_scoring < 0 || r->farm_scoring >= CARC_FARM_SCORING_COUNT) {
		seterr(err, "unknown farm scoring %d", r->farm_scoring);
		return CARC_ERR_ARG;
	}
	if (r->expansions) {
		seterr(err, "unknown expansion bits 0x%x", r->expansions);
		return CARC_ERR_ARG;
	}
	if (pile && (npile_types < 0 || npile_types > CARC_TILE_TYPES)) {
		seterr(err, "pile has %d tile types", npile_types);
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
	for (int p = 0; p < r->players; p++)
		g->supply[p][CARC_FIG_FOLLOWER] = 7;
	g->player = 0;
	g->over = 0;
	g->ntiles = 0;
	g->nfrontier = 0;
	g->nclo = 0;
	g->nturns = 0;
	g->nnodes = 0;
	memset(g->hmap, 0, sizeof g->hmap);
	for (int i = 0; i < CARC_MAX_FIGURES; i++)
		g->fig[i].owner = 255;
	memset(g->remaining, 0, sizeof g->remaining);

	int start = carc_tile_parse("D");
	int n = 0;
	for (int t = 0; t < CARC_TILE_TYPES; t++) {
		int c;
		if (pile) {
			c = t < npile_types ? pile[t] : 0;
			if (c < 0) {
				seterr(err, "pile count of %s is negative (%d)", tile_defs[t].name, c);
				return CARC_ERR_ARG;
			}
		} else {
			c = tile_defs[t].count - (t == start);
		}
		if (n + c > CARC_MAX_TILES - 1) {
			seterr(err, "pile holds more than %d tiles", CARC_MAX_TILES - 1);
			return CARC_ERR_ARG;
		}
		for (int k = 0; k < c; k++)
			g->pile[n++] = (uint8_t)t;
		g->remaining[t] = (uint8_t)c;
	}
	g->npile = (uint8_t)n;
	g->pos = 0;
	shuffle(g->pile, n, seed);

	place_tile(g, 0, 0, start, 0, 255);
	if (n == 0) {
		eng_final_scoring(g, NULL);
		g->over = 1;
	}
	return CARC_OK;
}

void carc_game_copy(carc_game *dst, const carc_game *src)
{
	memcpy(dst, src, sizeof *dst);
}

/* ---- asking ------------------------------------------------------------------------- */

int carc_game_over(const carc_game *g) { return g->over; }
int carc_to_move(const carc_game *g) { return g->player; }

int carc_current_tile(const carc_game *g)
{
	return g->over || g->pos >= g->npile ? -1 : g->pile[g->pos];
}

int carc_tiles_left(const carc_game *g) { return g->npile - g->pos; }

int carc_tiles_left_of(const carc_game *g, int type)
{
	return type >= 0 && type < CARC_TILE_TYPES ? g->remaining[type] : 0;
}

int carc_supply(const carc_game *g, int player, int figure)
{
	if (player < 0 || player >= g->rules.players || figure < 0 ||
	    figure >= CARC_FIG_COUNT)
		return 0;
	return g->supply[player][figure];
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
	if (player < 0 || player >= g->rules.players || kind < 0 ||
	    kind >= CARC_SCORE_KIND_COUNT)
		return 0;
	return g->by_kind[player][kind];
}

uint64_t carc_game_hash(const carc_game *g)
{
	uint64_t h = g->hash;
	h ^= eng_mix64(0x70000ull + g->player);
	h ^= eng_mix64(0x71000ull + (uint64_t)(carc_current_tile(g) + 1));
	for (int p = 0; p < g->rules.players; p++) {
		h ^= eng_mix64(0x72000ull + ((uint64_t)p << 16) + (uint16_t)g->score[p]);
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			h ^= eng_mix64(0x73000ull + ((uint64_t)p << 8) + ((uint64_t)k << 4) +
			               g->supply[p][k]);
	}
	return h;
}

int carc_tile_at(const carc_game *g, int x, int y)
{
	int v = hm_get(g, x, y);
	return v >= 0 && !(v & HM_FRONTIER) ? v : -1;
}

/* ---- chance ---------------------------------------------------------------------------- */

carc_status carc_set_current_tile(carc_game *g, int type)
{
	if (g->over || type < 0 || type >= CARC_TILE_TYPES || !g->remaining[type])
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
	if (g->pos < g->npile)
		shuffle(g->pile + g->pos, g->npile - g->pos, seed);
}

/* ---- move generation ----------------------------------------------------------------- */

int carc_placements(const carc_game *g, carc_move *buf, int max)
{
	if (g->over)
		return 0;
	int type = g->pile[g->pos];
	int n = 0, nr = TT_NROTS[type];
	const uint8_t *rots = TT_ROTS[type];
	const uint8_t *edges = TT_EDGES[type];
	for (int f = 0; f < g->nfrontier; f++) {
		const carc_cell *c = &g->frontier[f];
		for (int k = 0; k < nr; k++) {
			int r = rots[k];
			if ((edges[r] & c->mask) == c->req && n < max)
				buf[n++] = carc_move_make(c->x, c->y, r, CARC_SEG_NONE, 0);
		}
	}
	if (n == 0 && max > 0)
		buf[n++] = CARC_MOVE_DISCARD;
	return n;
}

/* Which segments of `type` at (x, y, rot) join a feature that already has a
 * figure on it: bit s of the result. */
static unsigned occupied_segments(const carc_game *g, int x, int y, int type,
                                  int rot)
{
	unsigned occ = 0;
	const uint8_t *ps = TT_PORTSEG[type][rot];
	for (int d = 0; d < 4; d++) {
		int v = hm_get(g, x + DX[d], y + DY[d]);
		if (v < 0 || (v & HM_FRONTIER))
			continue;
		const carc_placed *nb = &g->tiles[v];
		const uint8_t *nps = TT_PORTSEG[nb->type][nb->rot];
		int od = (d + 2) & 3;
		for (int k = 0; k < 3; k++) {
			int s = ps[3 * d + k];
			if (occ >> s & 1)
				continue;
			int r = eng_find(g, nb->node0 + nps[3 * od + 2 - k]);
			if (g->node[r].figures)
				occ |= 1u << s;
		}
	}
	return occ;
}

int carc_figure_options(const carc_game *g, carc_move pl, carc_move *buf, int max)
{
	if (g->over || pl == CARC_MOVE_DISCARD)
		return 0;
	int p = g->player;
	if (!g->supply[p][CARC_FIG_FOLLOWER])
		return 0;
	int type = g->pile[g->pos];
	int x = carc_move_x(pl), y = carc_move_y(pl), rot = carc_move_rot(pl);
	const tile_def *def = &tile_defs[type];
	unsigned occ = occupied_segments(g, x, y, type, rot);
	int n = 0;
	carc_move base = carc_move_placement(pl) & ~(15u << 20);
	for (int s = 0; s < def->nseg; s++) {
		int kind = def->seg[s].kind;
		if (kind == CARC_FEAT_GARDEN || kind == CARC_FEAT_RIVER)
			continue;
		if (kind == CARC_FEAT_FIELD && !g->rules.farmers)
			continue;
		if (occ >> s & 1)
			continue;
		if (n < max)
			buf[n++] = base | ((unsigned)s << 20) |
			           ((unsigned)CARC_FIG_FOLLOWER << 24);
	}
	return n;
}

int carc_legal_moves(const carc_game *g, carc_move *buf, int max)
{
	carc_move pl[CARC_MAX_PLACEMENTS];
	int np = carc_placements(g, pl, CARC_MAX_PLACEMENTS);
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

carc_status carc_check_move(const carc_game *g, carc_move m,
                            char err[CARC_ERRMSG_SIZE])
{
	if (g->over) {
		seterr(err, "the game is over");
		return CARC_ERR_GAME_OVER;
	}
	int type = g->pile[g->pos];
	if (m == CARC_MOVE_DISCARD) {
		carc_move one;
		carc_placements(g, &one, 1);
		if (one != CARC_MOVE_DISCARD) {
			seterr(err, "tile %s fits on the board: it may not be set aside",
			       tile_defs[type].name);
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	if (m & 0x70000000u || (m & 0x80000000u)) {
		seterr(err, "malformed move 0x%x", m);
		return CARC_ERR_ILLEGAL;
	}
	int x = carc_move_x(m), y = carc_move_y(m), rot = carc_move_rot(m);
	int v = hm_get(g, x, y);
	if (v < 0 || !(v & HM_FRONTIER)) {
		seterr(err, v >= 0 ? "square (%d, %d) is taken"
		                   : "square (%d, %d) does not touch the board by a side",
		       x, y);
		return CARC_ERR_ILLEGAL;
	}
	const carc_cell *c = &g->frontier[v & (HM_FRONTIER - 1)];
	if ((TT_EDGES[type][rot] & c->mask) != c->req) {
		static const char *const SIDE[4] = {"north", "east", "south", "west"};
		unsigned bad = (TT_EDGES[type][rot] & c->mask) ^ c->req;
		seterr(err, "tile %s at (%d, %d) rot %d does not match its %s neighbour",
		       tile_defs[type].name, x, y, rot, SIDE[__builtin_ctz(bad) / 2]);
		return CARC_ERR_ILLEGAL;
	}
	int seg = carc_move_seg(m);
	if (seg == CARC_SEG_NONE) {
		if (carc_move_figure(m) || carc_move_recall(m)) {
			seterr(err, "a move without a segment names a figure");
			return CARC_ERR_ILLEGAL;
		}
		return CARC_OK;
	}
	const tile_def *def = &tile_defs[type];
	if (seg >= def->nseg) {
		seterr(err, "tile %s has no segment %d", def->name, seg);
		return CARC_ERR_ILLEGAL;
	}
	int fig = carc_move_figure(m);
	if (fig != CARC_FIG_FOLLOWER || carc_move_recall(m)) {
		seterr(err, "figure %d is not in this game", fig);
		return CARC_ERR_ILLEGAL;
	}
	if (!g->supply[g->player][fig]) {
		seterr(err, "player %d has no follower left", g->player);
		return CARC_ERR_ILLEGAL;
	}
	int kind = def->seg[seg].kind;
	if (kind == CARC_FEAT_FIELD && !g->rules.farmers) {
		seterr(err, "no farmers in this game (segment %d is a field)", seg);
		return CARC_ERR_ILLEGAL;
	}
	if (kind == CARC_FEAT_GARDEN || kind == CARC_FEAT_RIVER) {
		seterr(err, "no follower may stand on segment %d", seg);
		return CARC_ERR_ILLEGAL;
	}
	if (occupied_segments(g, x, y, type, rot) >> seg & 1) {
		seterr(err, "the feature at %s already has a follower",
		       carc_port_name(TT_SEGPORT[type][rot][seg]));
		return CARC_ERR_ILLEGAL;
	}
	return CARC_OK;
}

/* ---- scoring ---------------------------------------------------------------------- */

static void add_points(carc_game *g, int p, int kind, int pts, carc_event *e)
{
	g->score[p] = (int16_t)(g->score[p] + pts);
	g->by_kind[p][kind] = (int16_t)(g->by_kind[p][kind] + pts);
	if (e)
		e->points[p] = (int16_t)(e->points[p] + pts);
}

static carc_event *new_event(carc_events *ev, int kind, int final, int tile,
                             int seg, int tiles)
{
	if (!ev || ev->n >= CARC_MAX_EVENTS)
		return NULL;
	carc_event *e = &ev->ev[ev->n++];
	memset(e, 0, sizeof *e);
	e->kind = (uint8_t)kind;
	e->final = (uint8_t)final;
	e->tile = (uint8_t)tile;
	e->seg = (uint8_t)seg;
	e->tiles = (uint8_t)tiles;
	return e;
}

/* Distinct tiles of the feature with root r. */
static int feature_tiles(const carc_game *g, int r)
{
	uint64_t seen[2] = {0, 0};
	int n = 0, i = r;
	do {
		int t = g->node[i].tile;
		if (!(seen[t >> 6] >> (t & 63) & 1)) {
			seen[t >> 6] |= 1ull << (t & 63);
			n++;
		}
		i = g->node[i].next;
	} while (i != r);
	return n;
}

/* Majority weights on the feature with root r; returns the winners' mask. */
static unsigned majority(const carc_game *g, int r)
{
	int w[CARC_MAX_PLAYERS] = {0};
	int best = 0;
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || !fig_weight(f->kind))
			continue;
		if (eng_find(g, f->node) != r)
			continue;
		w[f->owner] += fig_weight(f->kind);
		if (w[f->owner] > best)
			best = w[f->owner];
	}
	unsigned m = 0;
	if (best)
		for (int p = 0; p < g->rules.players; p++)
			if (w[p] == best)
				m |= 1u << p;
	return m;
}

static void remove_figure(carc_game *g, int i)
{
	carc_figure_at *f = &g->fig[i];
	g->hash ^= fig_key(g, f->node, f->owner, f->kind);
	g->supply[f->owner][f->kind]++;
	int r = eng_find(g, f->node);
	if (fig_occupies(f->kind))
		g->node[r].figures--;
	f->owner = 255;
}

/* Returns every figure standing on the feature with root r. */
static void return_figures(carc_game *g, int r)
{
	for (int i = 0; i < CARC_MAX_FIGURES; i++)
		if (g->fig[i].owner != 255 && eng_find(g, g->fig[i].node) == r)
			remove_figure(g, i);
}

static int feature_points(const carc_game *g, int r, int tiles, int complete)
{
	const carc_node *n = &g->node[r];
	if (n->kind == CARC_FEAT_ROAD)
		return tiles;
	/* city */
	if (complete) {
		if (g->rules.small_city && tiles == 2)
			return tiles + n->shields;
		return 2 * (tiles + n->shields);
	}
	return tiles + n->shields;
}

/* Scores the road or city with root r, complete or (at the end) not. */
static void score_feature(carc_game *g, int r, int complete, carc_events *ev)
{
	int tiles = feature_tiles(g, r);
	unsigned win = g->node[r].figures ? majority(g, r) : 0;
	int kind = g->node[r].kind == CARC_FEAT_ROAD ? CARC_SCORE_ROAD : CARC_SCORE_CITY;
	if (win) {
		int pts = feature_points(g, r, tiles, complete);
		carc_event *e = new_event(ev, kind, !complete, g->node[r].tile,
		                          g->node[r].seg, tiles);
		for (int p = 0; p < g->rules.players; p++)
			if (win >> p & 1)
				add_points(g, p, kind, pts, e);
	}
	if (complete)
		g->node[r].flags |= NODE_DONE;
	return_figures(g, r);
}

static void score_cloister(carc_game *g, int c, int complete, carc_events *ev)
{
	carc_cloister *cl = &g->clo[c];
	int node = g->tiles[cl->tile].node0 + cl->seg;
	int kind = g->node[node].kind == CARC_FEAT_GARDEN ? CARC_SCORE_GARDEN
	                                                  : CARC_SCORE_CLOISTER;
	cl->done = (uint8_t)complete;
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || f->node != node)
			continue;
		int pts = 1 + cl->neighbours;
		carc_event *e = new_event(ev, kind, !complete, cl->tile, cl->seg, pts);
		add_points(g, f->owner, kind, pts, e);
		remove_figure(g, i);
	}
}

#ifdef CARC_DEBUG_CHECK
#include <stdlib.h>
static void debug_check(const carc_game *g)
{
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_check(g, e) != CARC_OK) {
		fprintf(stderr, "carc: state check failed after turn %d: %s\n", g->nturns, e);
		abort();
	}
}
#endif

/* ---- applying a move ----------------------------------------------------------------- */

static void next_turn(carc_game *g, carc_events *ev, int same_player)
{
	g->remaining[g->pile[g->pos]]--;
	g->pos++;
	if (!same_player)
		g->player = (uint8_t)((g->player + 1) % g->rules.players);
	memcpy(g->turn_score, g->score, sizeof g->score);
	if (g->pos >= g->npile) {
		eng_final_scoring(g, ev);
		g->over = 1;
	}
}

carc_status carc_apply(carc_game *g, carc_move m, carc_events *ev,
                       char err[CARC_ERRMSG_SIZE])
{
	carc_status st = carc_check_move(g, m, err);
	if (st != CARC_OK)
		return st;
	if (ev)
		ev->n = 0;
	int type = g->pile[g->pos];
	carc_turn *tr = &g->turns[g->nturns++];
	tr->move = m;
	tr->type = (uint8_t)type;
	tr->player = g->player;
	if (m == CARC_MOVE_DISCARD) {
		next_turn(g, ev, 1);
		return CARC_OK;
	}

	int x = carc_move_x(m), y = carc_move_y(m), rot = carc_move_rot(m);
	int ti = place_tile(g, x, y, type, rot, g->player);
	int n0 = g->tiles[ti].node0;
	int seg = carc_move_seg(m);
	if (seg != CARC_SEG_NONE) {
		int fk = carc_move_figure(m);
		int slot = 0;
		while (g->fig[slot].owner != 255)
			slot++;
		carc_figure_at *f = &g->fig[slot];
		f->owner = g->player;
		f->kind = (uint8_t)fk;
		f->node = (uint16_t)(n0 + seg);
		g->supply[g->player][fk]--;
		if (fig_occupies(fk))
			g->node[eng_find_compress(g, n0 + seg)].figures++;
		g->hash ^= fig_key(g, n0 + seg, g->player, fk);
	}

	/* score roads and cities this tile completed */
	const tile_def *def = &tile_defs[type];
	for (int s = 0; s < def->nseg; s++) {
		int k = def->seg[s].kind;
		if (k != CARC_FEAT_ROAD && k != CARC_FEAT_CITY)
			continue;
		int r = eng_find_compress(g, n0 + s);
		if (g->node[r].open == 0 && !(g->node[r].flags & NODE_DONE))
			score_feature(g, r, 1, ev);
	}
	/* cloisters and gardens the tile surrounded */
	for (int c = 0; c < g->nclo; c++)
		if (g->clo[c].neighbours == 8 && !g->clo[c].done)
			score_cloister(g, c, 1, ev);

	next_turn(g, ev, 0);
#ifdef CARC_DEBUG_CHECK
	debug_check(g);
#endif
	return CARC_OK;
}

/* ---- final scoring ---------------------------------------------------------------------- */

/* Completed cities a field borders: their root nodes into out (deduped). */
static int field_cities(const carc_game *g, int r, uint16_t *out, int max)
{
	int n = 0, i = r;
	do {
		const carc_node *nd = &g->node[i];
		const carc_placed *t = &g->tiles[nd->tile];
		unsigned cm = tile_defs[t->type].seg[nd->seg].cities;
		while (cm) {
			int c = __builtin_ctz(cm);
			cm &= cm - 1;
			int cr = eng_find(g, t->node0 + c);
			if (!(g->node[cr].flags & NODE_DONE))
				continue;
			int dup = 0;
			for (int k = 0; k < n; k++)
				if (out[k] == cr)
					dup = 1;
			if (!dup && n < max)
				out[n++] = (uint16_t)cr;
		}
		i = nd->next;
	} while (i != r);
	return n;
}

typedef struct farm {
	uint16_t root;
	uint8_t ncity;
	uint8_t pig;      /* players with a pig here (mask) */
	int w[CARC_MAX_PLAYERS];
	uint16_t city[CARC_MAX_NODES / 2];
} farm;

static void score_farms(carc_game *g, carc_events *ev)
{
	farm farms[CARC_MAX_FIGURES];
	int nf = 0;
	const int np = g->rules.players;
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || g->node[f->node].kind != CARC_FEAT_FIELD)
			continue;
		int r = eng_find(g, f->node);
		int k = 0;
		while (k < nf && farms[k].root != r)
			k++;
		if (k == nf) {
			memset(&farms[k], 0, offsetof(farm, city));
			farms[k].root = (uint16_t)r;
			nf++;
		}
		farms[k].w[f->owner] += fig_weight(f->kind);
		if (f->kind == CARC_FIG_PIG)
			farms[k].pig |= (uint8_t)(1u << f->owner);
	}
	/* fields in board order of their root, so scoring is deterministic */
	for (int a = 1; a < nf; a++)
		for (int b = a; b > 0 && farms[b - 1].root > farms[b].root; b--) {
			farm t = farms[b];
			farms[b] = farms[b - 1];
			farms[b - 1] = t;
		}
	unsigned win[CARC_MAX_FIGURES];
	for (int k = 0; k < nf; k++) {
		farms[k].ncity = (uint8_t)field_cities(g, farms[k].root, farms[k].city,
		                                       CARC_MAX_NODES / 2);
		int best = 0;
		for (int p = 0; p < np; p++)
			if (farms[k].w[p] > best)
				best = farms[k].w[p];
		win[k] = 0;
		for (int p = 0; p < np && best; p++)
			if (farms[k].w[p] == best)
				win[k] |= 1u << p;
	}

	int fs = g->rules.farm_scoring;
	if (fs == CARC_FARM_INTERNATIONAL) {
		for (int k = 0; k < nf; k++) {
			if (!win[k] || !farms[k].ncity)
				continue;
			const carc_node *rn = &g->node[farms[k].root];
			carc_event *e = new_event(ev, CARC_SCORE_FARM, 1, rn->tile, rn->seg,
			                          farms[k].ncity);
			for (int p = 0; p < np; p++)
				if (win[k] >> p & 1)
					add_points(g, p, CARC_SCORE_FARM,
					           farms[k].ncity * ((farms[k].pig >> p & 1) ? 4 : 3), e);
		}
	} else if (fs == CARC_FARM_CITY_ONCE) {
		/* best rate each (player, city) pair earned over all fields */
		uint8_t rate[CARC_MAX_PLAYERS][CARC_MAX_NODES];
		memset(rate, 0, sizeof rate);
		for (int k = 0; k < nf; k++)
			for (int p = 0; p < np; p++)
				if (win[k] >> p & 1)
					for (int c = 0; c < farms[k].ncity; c++) {
						uint8_t rr = (farms[k].pig >> p & 1) ? 4 : 3;
						if (rate[p][farms[k].city[c]] < rr)
							rate[p][farms[k].city[c]] = rr;
					}
		for (int c = 0; c < g->nnodes; c++) {
			carc_event *e = NULL;
			for (int p = 0; p < np; p++)
				if (rate[p][c]) {
					if (!e)
						e = new_event(ev, CARC_SCORE_FARM, 1, g->node[c].tile,
						              g->node[c].seg, 1);
					add_points(g, p, CARC_SCORE_FARM, rate[p][c], e);
				}
		}
	} else {
		/* first edition: per completed city, farmers of all bordering
		 * fields together; the majority scores 4 */
		for (int c = 0; c < g->nnodes; c++) {
			if (g->node[c].parent != c || g->node[c].kind != CARC_FEAT_CITY ||
			    !(g->node[c].flags & NODE_DONE))
				continue;
			int w[CARC_MAX_PLAYERS] = {0}, best = 0;
			unsigned pig = 0;
			for (int k = 0; k < nf; k++)
				for (int j = 0; j < farms[k].ncity; j++)
					if (farms[k].city[j] == c) {
						for (int p = 0; p < np; p++)
							w[p] += farms[k].w[p];
						pig |= farms[k].pig;
					}
			for (int p = 0; p < np; p++)
				if (w[p] > best)
					best = w[p];
			if (!best)
				continue;
			carc_event *e = new_event(ev, CARC_SCORE_FARM, 1, g->node[c].tile,
			                          g->node[c].seg, 1);
			for (int p = 0; p < np; p++)
				if (w[p] == best)
					add_points(g, p, CARC_SCORE_FARM, (pig >> p & 1) ? 5 : 4, e);
		}
	}
}

void eng_final_scoring(carc_game *g, carc_events *ev)
{
	/* incomplete roads and cities, in order of their figures' slots */
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		int k = g->node[f->node].kind;
		if (k != CARC_FEAT_ROAD && k != CARC_FEAT_CITY)
			continue;
		score_feature(g, eng_find_compress(g, f->node), 0, ev);
	}
	for (int c = 0; c < g->nclo; c++)
		if (!g->clo[c].done)
			score_cloister(g, c, 0, ev);
	if (g->rules.farmers)
		score_farms(g, ev);
}
