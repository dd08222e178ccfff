/*
 * featq.c - feature queries the public API does not offer yet.
 *
 * ==== THE ONE PLACE IN src/ai THAT READS carc_game'S FIELDS DIRECTLY ====
 *
 * The bots need to know, for a feature: its size in tiles, its open sides,
 * its shields, whether it was completed, who holds it with what weight, and
 * for a field the cities it borders. carc.h has no call for these, so this
 * file computes them from the public struct (node[], tiles[], fig[], clo[])
 * and the engine's documented layout of it: union-find parents, a circular
 * member list, counts at roots, and the engine's "done" flag (0x80 in a
 * root's flags, NODE_DONE in src/core/engine.h). When the engine offers
 * feature queries, only this file changes (docs/bots.md lists the calls
 * that would replace it).
 */
#include <string.h>

#include "ai.h"

/* NODE_DONE of src/core/engine.h: a completed road or city, scored. */
#define FEATQ_NODE_DONE 0x80u

int featq_root(const carc_game *g, int n)
{
	while (g->node[n].parent != n)
		n = g->node[n].parent;
	return n;
}

int featq_done(const carc_game *g, int root)
{
	return (g->node[root].flags & FEATQ_NODE_DONE) != 0;
}

int featq_node(const carc_game *g, int ti, int seg)
{
	return g->tiles[ti].node0 + seg;
}

int featq_tiles(const carc_game *g, int root)
{
	uint64_t seen[CARC_MAX_TILES / 64] = {0};
	int n = 0, i = root;
	do {
		int t = g->node[i].tile;
		if (!(seen[t >> 6] >> (t & 63) & 1)) {
			seen[t >> 6] |= 1ull << (t & 63);
			n++;
		}
		i = g->node[i].next;
	} while (i != root);
	return n;
}

int featq_cloister(const carc_game *g, int node)
{
	for (int c = 0; c < g->nclo; c++)
		if (featq_node(g, g->clo[c].tile, g->clo[c].seg) == node)
			return c;
	return 255;
}

int featq_cloister_neighbours(const carc_game *g, int c)
{
	return c < g->nclo ? g->clo[c].neighbours : 0;
}

int featq_new_tile(const carc_game *child, const carc_game *parent)
{
	return child->ntiles > parent->ntiles ? child->ntiles - 1 : -1;
}

void featq_tile(const carc_game *g, int ti, int *type, int *x, int *y, int *rot, int *node0)
{
	const carc_placed *t = &g->tiles[ti];
	*type = t->type;
	*x = t->x;
	*y = t->y;
	*rot = t->rot;
	*node0 = t->node0;
}

int featq_open(const carc_game *g, int root) { return g->node[root].open; }

int featq_figures(const carc_game *g, int root) { return g->node[root].figures; }

void featq_root_info(const carc_game *g, int root, int *open, int *shields, int *flags)
{
	const carc_node *n = &g->node[root];
	*open = n->open;
	*shields = n->shields;
	*flags = n->flags & (int)~FEATQ_NODE_DONE;
}
int featq_kind(const carc_game *g, int node) { return g->node[node].kind; }

int featq_field_city_roots(const carc_game *g, int root, uint16_t *out, int max)
{
	int n = 0, i = root;
	do {
		const carc_node *nd = &g->node[i];
		const carc_placed *t = &g->tiles[nd->tile];
		unsigned cm = 0;
		carc_tile_segment(t->type, nd->seg, NULL, NULL, NULL, &cm);
		while (cm) {
			int c = __builtin_ctz(cm);
			cm &= cm - 1;
			int cr = featq_root(g, t->node0 + c);
			int dup = 0;
			for (int k = 0; k < n; k++)
				if (out[k] == cr)
					dup = 1;
			if (!dup && n < max)
				out[n++] = (uint16_t)cr;
		}
		i = nd->next;
	} while (i != root);
	return n;
}

static int fig_weight(int kind)
{
	return kind == CARC_FIG_BIG ? 2 : kind == CARC_FIG_FOLLOWER ? 1 : 0;
}

int featq_held_features(const carc_game *g, featq_held *out, int max, int count_tiles)
{
	int n = 0;
	int nslots = g->nfig < CARC_MAX_FIGURES ? g->nfig : CARC_MAX_FIGURES;
	for (int i = 0; i < nslots; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || f->owner >= CARC_MAX_PLAYERS)
			continue;
		int r = featq_root(g, f->node);
		int k = 0;
		while (k < n && out[k].root != r)
			k++;
		if (k == n) {
			if (n >= max)
				continue;
			featq_held *h = &out[n++];
			memset(h, 0, sizeof *h);
			const carc_node *rn = &g->node[r];
			h->root = (uint16_t)r;
			h->kind = rn->kind;
			h->open = rn->open;
			h->shields = rn->shields;
			h->flags = rn->flags & (uint8_t)~FEATQ_NODE_DONE;
			h->clo = 255;
			if (count_tiles && (h->kind == CARC_FEAT_ROAD || h->kind == CARC_FEAT_CITY))
				h->tiles = (uint8_t)featq_tiles(g, r);
			if (h->kind == CARC_FEAT_CLOISTER || h->kind == CARC_FEAT_GARDEN)
				h->clo = (uint8_t)featq_cloister(g, r);
		}
		featq_held *h = &out[k];
		int kind = h->kind;
		int w = (kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN)
		            ? (f->kind == CARC_FIG_FOLLOWER || f->kind == CARC_FIG_ABBOT ||
		               f->kind == CARC_FIG_BIG)
		            : fig_weight(f->kind);
		h->weight[f->owner] = (uint8_t)(h->weight[f->owner] + w);
		h->figs[f->owner]++;
		if (f->kind == CARC_FIG_PIG)
			h->pig |= (uint8_t)(1u << f->owner);
	}
	return n;
}

void featq_field_cities(const carc_game *g, int root, uint16_t *done, int *ndone,
                        uint16_t *open_, int *nopen, int max)
{
	*ndone = *nopen = 0;
	int i = root;
	do {
		const carc_node *nd = &g->node[i];
		const carc_placed *t = &g->tiles[nd->tile];
		unsigned cm = 0;
		carc_tile_segment(t->type, nd->seg, NULL, NULL, NULL, &cm);
		while (cm) {
			int c = __builtin_ctz(cm);
			cm &= cm - 1;
			int cr = featq_root(g, t->node0 + c);
			uint16_t *list = featq_done(g, cr) ? done : open_;
			int *cnt = featq_done(g, cr) ? ndone : nopen;
			int dup = 0;
			for (int k = 0; k < *cnt; k++)
				if (list[k] == cr)
					dup = 1;
			if (!dup && *cnt < max)
				list[(*cnt)++] = (uint16_t)cr;
		}
		i = nd->next;
	} while (i != root);
}
