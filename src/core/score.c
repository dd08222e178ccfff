/*
 * score.c - scoring: completed features during the game, abbot recalls,
 * and the final scoring (incomplete features, farms in three editions,
 * goods).
 *
 * Majority: each player's weight on a feature is the sum of its followers
 * (1) and big followers (2); all players with the highest weight score the
 * whole feature. Every figure on a scored road or city goes back to its
 * owner, builders included. Points always go through add_points so that
 * score[p] stays the sum of by_kind[p][*].
 */
#include <stddef.h>
#include <string.h>

#include "engine.h"

static void add_points(carc_game *g, int p, int kind, int pts, carc_event *e)
{
	g->score[p] = (int16_t)(g->score[p] + pts);
	g->by_kind[p][kind] = (int16_t)(g->by_kind[p][kind] + pts);
	if (e)
		e->points[p] = (int16_t)(e->points[p] + pts);
}

static carc_event *new_event(carc_events *ev, int kind, int final, int tile, int seg,
                             int tiles)
{
	if (!ev || ev->n >= CARC_MAX_EVENTS)
		return NULL;
	carc_event *e = &ev->ev[ev->n++];
	memset(e, 0, sizeof *e);
	e->type = CARC_EV_SCORED;
	e->kind = (uint8_t)kind;
	e->final = (uint8_t)final;
	e->tile = (uint16_t)tile;
	e->seg = (uint8_t)seg;
	e->tiles = (uint8_t)tiles;
	return e;
}

/* Distinct tiles of the feature with root r; goods symbols on it into
 * goods[CARC_GOODS_COUNT] when not NULL. Also carc_feature_tiles. */
int eng_feature_tiles(const carc_game *g, int r, int *goods)
{
	uint64_t seen[(ST_MAX_TILES + 63) / 64] = {0};
	int n = 0, i = r;
	do {
		const carc_node *nd = &g->node[i];
		int t = nd->tile;
		if (!(seen[t >> 6] >> (t & 63) & 1)) {
			seen[t >> 6] |= 1ull << (t & 63);
			n++;
		}
		if (goods)
			goods[tile_defs[g->tiles[t].type].seg[nd->seg].goods]++;
		i = nd->next;
	} while (i != r);
	return n;
}

/* Winners' mask of the feature with root r (majority of weights). */
static unsigned majority(const carc_game *g, int r)
{
	int w[CARC_MAX_PLAYERS] = {0};
	int best = 0;
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || !fig_weight(f->kind) || eng_find(g, f->node) != r)
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

void eng_add_fairy_points(carc_game *g, int p, int pts, int t, int s, carc_events *ev)
{
	carc_event *e = new_event(ev, CARC_SCORE_FAIRY, g->over, t, s, 1);
	add_points(g, p, CARC_SCORE_FAIRY, pts, e);
}

/* Princess & Dragon: a feature (root r) being scored holds the fairy's
 * follower: 3 points to its owner, majority or not. */
static void fairy_bonus(carc_game *g, int r, int final, carc_events *ev)
{
	if (g->fairy_fig == 255)
		return;
	const carc_figure_at *f = &g->fig[g->fairy_fig];
	if (f->owner == 255 || eng_find(g, f->node) != r)
		return;
	carc_event *e = new_event(ev, CARC_SCORE_FAIRY, final, g->node[f->node].tile,
	                          g->node[f->node].seg, 1);
	add_points(g, f->owner, CARC_SCORE_FAIRY, 3, e);
}

void eng_remove_figure(carc_game *g, int i, int final, carc_events *ev)
{
	carc_figure_at *f = &g->fig[i];
	if (g->fairy_fig == i)
		pd_figure_removed(g, i); /* the fairy stays on its tile */
	if (ev && ev->n < CARC_MAX_EVENTS) {
		carc_event *e = &ev->ev[ev->n++];
		memset(e, 0, sizeof *e);
		e->type = CARC_EV_RETURNED;
		e->kind = f->kind;
		e->final = (uint8_t)final;
		e->tile = g->node[f->node].tile;
		e->seg = g->node[f->node].seg;
		e->player = (int8_t)f->owner;
	}
	g->hash ^= eng_fig_key(g, f->node, f->owner, f->kind);
	g->supply[f->owner][f->kind]++;
	if (fig_occupies(f->kind))
		g->node[eng_find(g, f->node)].figures--;
	f->owner = 255;
	while (g->nfig && g->fig[g->nfig - 1].owner == 255)
		g->nfig--;
}

/* Every figure on the feature with root r goes back to its owner. */
static void return_figures(carc_game *g, int r, int final, carc_events *ev)
{
	for (int i = 0; i < g->nfig; i++)
		if (g->fig[i].owner != 255 && eng_find(g, g->fig[i].node) == r)
			eng_remove_figure(g, i, final, ev);
	g->node[r].owners = 0;
}

static inline int feature_points(const carc_game *g, int r, int tiles, int complete)
{
	const carc_node *n = &g->node[r];
	if (n->kind == CARC_FEAT_ROAD) {
		if (n->flags & CARC_SEGF_INN)
			return complete ? 2 * tiles : 0;
		return tiles;
	}
	if (n->flags & CARC_SEGF_CATHEDRAL)
		return complete ? 3 * (tiles + n->shields) : 0;
	if (!complete)
		return tiles + n->shields;
	if (g->rules.small_city && tiles == 2)
		return tiles + n->shields;
	return 2 * (tiles + n->shields);
}

int eng_feature_points(const carc_game *g, int r, int tiles, int complete)
{
	return feature_points(g, r, tiles, complete);
}

void eng_score_feature(carc_game *g, int r, int complete, int placer, carc_events *ev)
{
	int goods[CARC_GOODS_COUNT] = {0};
	int tiles = eng_feature_tiles(g, r, goods);
	unsigned win = g->node[r].figures ? majority(g, r) : 0;
	int kind = g->node[r].kind == CARC_FEAT_ROAD ? CARC_SCORE_ROAD : CARC_SCORE_CITY;
	if (win) {
		int pts = feature_points(g, r, tiles, complete);
		carc_event *e = new_event(ev, kind, !complete, g->node[r].tile, g->node[r].seg, tiles);
		for (int p = 0; p < g->rules.players; p++)
			if (win >> p & 1)
				add_points(g, p, kind, pts, e);
	}
	fairy_bonus(g, r, !complete, ev);
	if (complete) {
		g->node[r].flags |= NODE_DONE;
		/* Traders & Builders: who completes a city takes its goods */
		if (placer >= 0)
			for (int k = 1; k < CARC_GOODS_COUNT; k++)
				if (goods[k]) {
					g->goods[placer][k] = (uint8_t)(g->goods[placer][k] + goods[k]);
					/* the tile step being made took them (4 bits a good) */
					g->turn[g->nturns - 1].info =
					    (uint16_t)(g->turn[g->nturns - 1].info + (goods[k] << (4 * (k - 1))));
				}
	}
	return_figures(g, r, !complete, ev);
}

void eng_score_cloister(carc_game *g, int c, int complete, int final, carc_events *ev)
{
	carc_cloister *cl = &g->clo[c];
	int node = g->tiles[cl->tile].node0 + cl->seg;
	int kind = g->node[node].kind == CARC_FEAT_GARDEN ? CARC_SCORE_GARDEN : CARC_SCORE_CLOISTER;
	if (complete)
		cl->done = 1;
	fairy_bonus(g, eng_find(g, node), final, ev);
	for (int i = 0; i < g->nfig; i++) {
		carc_figure_at *f = &g->fig[i];
		if (f->owner == 255 || f->node != node)
			continue;
		int pts = 1 + cl->neighbours;
		carc_event *e = new_event(ev, kind, final, cl->tile, cl->seg, pts);
		add_points(g, f->owner, kind, pts, e);
		eng_remove_figure(g, i, final, ev);
	}
	g->node[node].owners = 0;
}

/* ---- farms ----------------------------------------------------------------------- */

/* Cities a field (root r) borders, completed ones only if done_only: their
 * root nodes into out, each once. Also carc_field_cities (feature.c). */
int eng_field_cities(const carc_game *g, int r, int done_only, uint16_t *out, int max)
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
			if (done_only && !(g->node[cr].flags & NODE_DONE))
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
	uint8_t pig; /* players with a pig here (mask) */
	int w[CARC_MAX_PLAYERS];
	unsigned win;
	uint16_t *city; /* its completed cities, in the pool below */
} farm;

/* The completed cities of every farm, one after the other. A (farm, city)
 * pair needs a field segment beside a city segment on some tile, and a
 * field segment borders at most four city segments of its tile: the pairs
 * are fewer than 4 per node. */
#define FARM_CITY_POOL (4 * ST_MAX_NODES)

static void score_farms(carc_game *g, carc_events *ev)
{
	farm farms[ST_MAX_FIGURES];
	uint16_t pool[FARM_CITY_POOL];
	int nf = 0, used = 0;
	const int np = g->rules.players;
	for (int i = 0; i < g->nfig; i++) {
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
	/* fields in the order of their roots, so scoring is deterministic */
	for (int a = 1; a < nf; a++)
		for (int b = a; b > 0 && farms[b - 1].root > farms[b].root; b--) {
			farm t = farms[b];
			farms[b] = farms[b - 1];
			farms[b - 1] = t;
		}
	for (int k = 0; k < nf; k++) {
		farm *fm = &farms[k];
		fm->city = pool + used;
		fm->ncity = (uint8_t)eng_field_cities(g, fm->root, 1, fm->city, FARM_CITY_POOL - used);
		used += fm->ncity;
		int best = 0;
		for (int p = 0; p < np; p++)
			if (fm->w[p] > best)
				best = fm->w[p];
		for (int p = 0; p < np && best; p++)
			if (fm->w[p] == best)
				fm->win |= 1u << p;
	}

	int fs = g->rules.farm_scoring;
	if (fs == CARC_FARM_INTERNATIONAL) {
		for (int k = 0; k < nf; k++) {
			const farm *fm = &farms[k];
			if (!fm->win || !fm->ncity)
				continue;
			const carc_node *rn = &g->node[fm->root];
			carc_event *e = new_event(ev, CARC_SCORE_FARM, 1, rn->tile, rn->seg, fm->ncity);
			for (int p = 0; p < np; p++)
				if (fm->win >> p & 1)
					add_points(g, p, CARC_SCORE_FARM, fm->ncity * ((fm->pig >> p & 1) ? 4 : 3),
					           e);
		}
	} else if (fs == CARC_FARM_CITY_ONCE) {
		/* a city pays a player once: the best rate over the fields the
		 * player wins next to it */
		uint8_t rate[CARC_MAX_PLAYERS][ST_MAX_NODES];
		memset(rate, 0, sizeof rate);
		for (int k = 0; k < nf; k++)
			for (int p = 0; p < np; p++)
				if (farms[k].win >> p & 1)
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
						e = new_event(ev, CARC_SCORE_FARM, 1, g->node[c].tile, g->node[c].seg, 1);
					add_points(g, p, CARC_SCORE_FARM, rate[p][c], e);
				}
		}
	} else {
		/* first edition: per completed city, the farmers of all the fields
		 * next to it together; the majority scores 4 (a pig of the winner
		 * on one of those fields: 5, see docs/rules-decisions.md) */
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
			carc_event *e = new_event(ev, CARC_SCORE_FARM, 1, g->node[c].tile, g->node[c].seg, 1);
			for (int p = 0; p < np; p++)
				if (w[p] == best)
					add_points(g, p, CARC_SCORE_FARM, (pig >> p & 1) ? 5 : 4, e);
		}
	}
}

/* Traders & Builders: each good's majority of tokens scores 10. */
static void score_goods(carc_game *g, carc_events *ev)
{
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		int best = 0;
		for (int p = 0; p < g->rules.players; p++)
			if (g->goods[p][k] > best)
				best = g->goods[p][k];
		if (!best)
			continue;
		carc_event *e = new_event(ev, CARC_SCORE_GOODS, 1, 0, 0, 0);
		for (int p = 0; p < g->rules.players; p++)
			if (g->goods[p][k] == best)
				add_points(g, p, CARC_SCORE_GOODS, 10, e);
	}
}

void eng_final_scoring(carc_game *g, carc_events *ev)
{
	/* incomplete roads and cities, in the order of their figures' slots */
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		int k = g->node[f->node].kind;
		if (k != CARC_FEAT_ROAD && k != CARC_FEAT_CITY)
			continue;
		eng_score_feature(g, eng_find_compress(g, f->node), 0, -1, ev);
	}
	for (int c = 0; c < g->nclo; c++)
		if (!g->clo[c].done)
			eng_score_cloister(g, c, 0, 1, ev);
	if (g->rules.farmers) {
		score_farms(g, ev);
		/* the fairy's farmer: its field is scored once, whatever the edition */
		if (g->fairy_fig != 255 && g->fig[g->fairy_fig].owner != 255 &&
		    g->node[g->fig[g->fairy_fig].node].kind == CARC_FEAT_FIELD)
			fairy_bonus(g, eng_find(g, g->fig[g->fairy_fig].node), 1, ev);
	}
	if (g->rules.expansions & CARC_EXP_TRADERS)
		score_goods(g, ev);
}
