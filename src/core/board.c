/*
 * board.c - the board: squares, the frontier, and features as union-find
 * trees over segments.
 *
 * Placing a tile adds its segments as nodes, joins each to the segment of
 * the neighbour it touches port to port, and closes the open sides of
 * roads, cities and rivers that now meet. The frontier (empty squares next
 * to the board, with the edges their neighbours demand) is kept so that
 * move generation is a mask compare per square and rotation.
 */
#include <string.h>

#include "engine.h"

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
		i = (i + 1) & (ST_HASH_SIZE - 1);
	}
}

uint64_t eng_tile_key(int x, int y, int type, int rot)
{
	return eng_mix64(((uint64_t)(uint16_t)x << 32) | ((uint64_t)(uint16_t)y << 16) |
	                 ((uint64_t)type << 2) | (uint64_t)TT_CANON[type][rot]);
}

uint64_t eng_fig_key(const carc_game *g, int node, int owner, int kind)
{
	const carc_node *n = &g->node[node];
	const carc_placed *t = &g->tiles[n->tile];
	int port = TT_SEGPORT[t->type][t->rot][n->seg];
	return eng_mix64(0xF1600000ull ^ ((uint64_t)(uint16_t)t->x << 40) ^
	                 ((uint64_t)(uint16_t)t->y << 24) ^ ((uint64_t)port << 8) ^
	                 ((uint64_t)owner << 4) ^ (uint64_t)kind);
}

/* ---- placing tiles -------------------------------------------------------------- */

/* A neighbour placed on the side `side_from_cell` of the empty square in
 * hmap slot `slot` (key `key`) demands edge `code` there; the square joins
 * the frontier if it is new. */
static void frontier_touch(carc_game *g, unsigned slot, uint32_t key, int x, int y,
                           int side_from_cell, unsigned code)
{
	static const uint16_t POW5[4] = {1, 5, 25, 125};
	uint32_t e = g->hmap[slot];
	carc_cell *c;
	if (!e) {
		int f = g->nfrontier++;
		c = &g->frontier[f];
		c->x = (int16_t)x;
		c->y = (int16_t)y;
		c->req = 0;
		c->mask = 0;
		c->key = 0;
		g->hmap[slot] = (key << 10) | HM_FRONTIER | (unsigned)f;
	} else {
		c = &g->frontier[e & (HM_FRONTIER - 1)];
	}
	c->req |= (uint8_t)(code << (2 * side_from_cell));
	c->mask |= (uint8_t)(3u << (2 * side_from_cell));
	c->key = (uint16_t)(c->key + (code + 1) * POW5[side_from_cell]);
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
	A->owners |= B->owners;
	uint16_t t = A->next;
	A->next = B->next;
	B->next = t;
	return ra;
}

/* Puts a tile on the board (no rule checks) and joins its segments to the
 * features around it. Returns the tile index. */
int eng_place_tile(carc_game *g, int x, int y, int type, int rot, int player)
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
		n->open = TT_SEGOPEN[type][s];
		n->figures = 0;
		n->shields = (sg->flags & CARC_SEGF_SHIELD) ? 1 : 0;
		n->flags = sg->flags;
		n->owners = 0;
	}
	g->hash ^= eng_tile_key(x, y, type, rot);

	/* the square was a frontier cell (or empty, for the start tile) */
	uint32_t key = hm_key(x, y);
	unsigned slot = hm_probe(g, key);
	uint32_t v = g->hmap[slot];
	if (v & HM_FRONTIER) {
		int f = (int)(v & (HM_FRONTIER - 1));
		int last = --g->nfrontier;
		if (f != last) {
			g->frontier[f] = g->frontier[last];
			hm_put(g, g->frontier[f].x, g->frontier[f].y, HM_FRONTIER | (unsigned)f);
		}
	}
	g->hmap[slot] = (key << 10) | (unsigned)ti;

	const uint8_t *ps = TT_PORTSEG[type][rot];
	unsigned edges = TT_EDGES[type][rot];
	for (int d = 0; d < 4; d++) {
		int nx = x + DX[d], ny = y + DY[d];
		uint32_t nkey = hm_key(nx, ny);
		unsigned nslot = hm_probe(g, nkey);
		uint32_t nv = g->hmap[nslot];
		unsigned code = (edges >> (2 * d)) & 3u;
		if (!nv || (nv & HM_FRONTIER)) {
			frontier_touch(g, nslot, nkey, nx, ny, (d + 2) & 3, code);
			continue;
		}
		const carc_placed *nb = &g->tiles[nv & HM_VAL_MASK];
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
	int centre = ps[CARC_PORT_CENTRE];
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

