/*
 * feature.c - feature queries for bots and tools: ids, sizes, open sides,
 * holders, the cities a field borders.
 *
 * A feature's id is the root of its union-find tree (engine.h). Queries
 * never compress paths, so a const game stays untouched and old node
 * numbers keep leading to the current root.
 */
#include <string.h>

#include "engine.h"

static int valid_node(const carc_game *g, int n) { return n >= 0 && n < g->nnodes; }

int carc_players(const carc_game *g) { return g->rules.players; }

int carc_turns_played(const carc_game *g) { return g->nturns; }

carc_move carc_turn_played(const carc_game *g, int k, int *type, int *player)
{
	if (k < 0 || k >= g->nturns)
		return CARC_MOVE_NONE;
	const carc_step_rec *sr = &g->steps[g->turn[k].step];
	if (type)
		*type = g->pile[k];
	if (player)
		*player = sr->player;
	return sr->move;
}

int carc_steps_played(const carc_game *g) { return g->nsteps; }

int carc_step_get(const carc_game *g, int k, int *kind, int *player, int *turn, int *tile,
                  carc_move *move)
{
	carc_step_info si;
	if (carc_step_played(g, k, &si))
		return -1;
	if (kind)
		*kind = si.kind;
	if (player)
		*player = si.player;
	if (turn)
		*turn = si.turn;
	if (tile)
		*tile = si.tile;
	if (move)
		*move = si.move;
	return 0;
}

int carc_step_played(const carc_game *g, int k, carc_step_info *out)
{
	if (k < 0 || k >= g->nsteps)
		return -1;
	const carc_step_rec *sr = &g->steps[k];
	out->kind = sr->kind;
	out->player = sr->player;
	out->turn = sr->turn;
	out->tile = g->pile[sr->turn];
	out->move = sr->move;
	return 0;
}

int carc_feature_id(const carc_game *g, int tile, int seg)
{
	if (tile < 0 || tile >= g->ntiles || seg < 0 ||
	    seg >= carc_tile_segments(g->tiles[tile].type))
		return -1;
	return eng_find(g, g->tiles[tile].node0 + seg);
}

int carc_feature_find(const carc_game *g, int node)
{
	return valid_node(g, node) ? eng_find(g, node) : -1;
}

int carc_feature_kind_of(const carc_game *g, int id)
{
	return valid_node(g, id) ? g->node[id].kind : -1;
}

int carc_feature_open(const carc_game *g, int id)
{
	return valid_node(g, id) ? g->node[eng_find(g, id)].open : 0;
}

int carc_feature_figures(const carc_game *g, int id)
{
	return valid_node(g, id) ? g->node[eng_find(g, id)].figures : 0;
}

int carc_feature_done(const carc_game *g, int id)
{
	return valid_node(g, id) && (g->node[eng_find(g, id)].flags & NODE_DONE) != 0;
}

int carc_feature_tiles(const carc_game *g, int id)
{
	return valid_node(g, id) ? eng_feature_tiles(g, eng_find(g, id), NULL) : 0;
}

/* Tiles around the cloister or garden whose node is n (not a root: a
 * cloister is a feature of one segment). */
static int cloister_neighbours(const carc_game *g, int n)
{
	for (int c = 0; c < g->nclo; c++)
		if (g->tiles[g->clo[c].tile].node0 + g->clo[c].seg == n)
			return g->clo[c].neighbours;
	return 0;
}

/* The fields of *h a root tells, without tiles and figures. */
static void root_info(const carc_game *g, int root, carc_feature_info *h)
{
	const carc_node *rn = &g->node[root];
	memset(h, 0, sizeof *h);
	h->id = (uint16_t)root;
	h->kind = rn->kind;
	h->open = rn->open;
	h->shields = rn->shields;
	h->flags = rn->flags & (uint8_t)~NODE_DONE;
	h->done = (rn->flags & NODE_DONE) != 0;
	if (h->kind == CARC_FEAT_CLOISTER || h->kind == CARC_FEAT_GARDEN)
		h->neighbours = (uint8_t)cloister_neighbours(g, root);
}

/* Adds figure f (standing on the feature described by h) to h. */
static void add_figure(carc_feature_info *h, const carc_figure_at *f)
{
	int w = (h->kind == CARC_FEAT_CLOISTER || h->kind == CARC_FEAT_GARDEN)
	            ? fig_occupies(f->kind)
	            : fig_weight(f->kind);
	h->weight[f->owner] = (uint8_t)(h->weight[f->owner] + w);
	h->figures[f->owner]++;
	if (f->kind == CARC_FIG_PIG)
		h->pigs |= (uint8_t)(1u << f->owner);
}

static int figure_slots(const carc_game *g)
{
	return g->nfig < ST_MAX_FIGURES ? g->nfig : ST_MAX_FIGURES;
}

int carc_feature_get(const carc_game *g, int id, int count_tiles, int count_figures,
                     carc_feature_info *out)
{
	if (!valid_node(g, id))
		return -1;
	int root = eng_find(g, id);
	root_info(g, root, out);
	if (count_tiles)
		out->tiles = (uint8_t)carc_feature_tiles(g, root);
	if (count_figures) {
		int nslots = figure_slots(g);
		for (int i = 0; i < nslots; i++) {
			const carc_figure_at *f = &g->fig[i];
			if (f->owner < CARC_MAX_PLAYERS && eng_find(g, f->node) == root)
				add_figure(out, f);
		}
	}
	return 0;
}

int carc_held_features(const carc_game *g, carc_feature_info *out, int max,
                       int count_tiles)
{
	int n = 0;
	int nslots = figure_slots(g);
	for (int i = 0; i < nslots; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner >= CARC_MAX_PLAYERS) /* 255: a free slot */
			continue;
		int r = eng_find(g, f->node);
		int k = 0;
		while (k < n && out[k].id != r)
			k++;
		if (k == n) {
			if (n >= max)
				continue;
			root_info(g, r, &out[n]);
			if (count_tiles &&
			    (out[n].kind == CARC_FEAT_ROAD || out[n].kind == CARC_FEAT_CITY))
				out[n].tiles = (uint8_t)carc_feature_tiles(g, r);
			n++;
		}
		add_figure(&out[k], f);
	}
	return n;
}

int carc_field_cities(const carc_game *g, int field, uint16_t *ids, int max)
{
	if (!valid_node(g, field))
		return 0;
	return eng_field_cities(g, eng_find(g, field), 0, ids, max);
}
