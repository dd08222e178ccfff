/*
 * eval.c - the heuristic evaluation shared by greedy and star25: each
 * player's expected final score.
 *
 * E[p] = points already scored
 *      + for every feature p holds the majority of (ties: every tied player):
 *          road:     tiles + growth
 *          city:     c * 2 * (tiles + shields + growth) + (1 - c) * (tiles + shields)
 *          cloister: 1 + neighbours + (8 - neighbours) * fill
 *          field:    farm * 3 * (completed cities bordering + sum over open
 *                    cities bordering of their completion chance)
 *      + follower economy: every follower in supply is worth fv, every
 *        follower on a road, city or cloister is worth c * fv (it comes back
 *        when the feature completes)
 * where T is the tiles left after this turn's and, for o open sides,
 *   close(T) = T / (T + 8)           chance that one open side gets closed
 *   c        = close(T)^o            chance that the feature completes
 *                                    (cloister: fill^(8 - neighbours))
 *   fill     = T / (T + 12)          share of a cloister's empty squares filled
 *   growth   = growth * o * 0.5 * T / (T + 15)   tiles the feature will gain
 *   fv       = follower * T / (T + 20)           a follower in supply
 *      + goods (Traders & Builders): `goods` * 10 to the holders of each
 *        good's majority of tokens now (10 at the end)
 *      + builders (Traders & Builders): `builder` points to the owner for
 *        every tile the builder's open road or city is expected to grow by
 *      + the fairy (Princess & Dragon), to the owner of the follower it
 *        stands next to: 1.5 + 1.5 c + min(2, T / players) (add_fairy)
 * Farm scoring is estimated as "international" under every edition; the
 * estimate is the same for every rule set and expansion (big followers
 * count double in majorities, pigs make a farm pay 4 a city).
 * The value for a player is E[p] minus the mean of the others' E (or minus
 * the best of them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai.h"

void eval_default(eval_weights *w)
{
	w->follower = 5.0;
	w->follower_k = 10;
	w->farm = 0.67;
	w->growth = 0.75;
	w->close_k = 19;
	w->fill_k = 12;
	w->goods = 1.0;
	w->builder = 1.0;
	w->relative = 0;
}

/* Traders & Builders: each good's majority of tokens scores 10 at the
 * end; the players holding it now get `goods` times that. */
static void add_goods(const carc_game *g, const eval_weights *w, double *out)
{
	const int np = carc_players(g);
	if (w->goods == 0)
		return;
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		int best = 0, n[CARC_MAX_PLAYERS];
		for (int p = 0; p < np; p++) {
			n[p] = carc_goods_held(g, p, k);
			if (n[p] > best)
				best = n[p];
		}
		if (best)
			for (int p = 0; p < np; p++)
				if (n[p] == best)
					out[p] += 10.0 * w->goods;
	}
}

/* Traders & Builders: a builder on an open road or city gives its owner
 * a second tile each time he extends that feature; worth `builder` points
 * for every tile the feature is still expected to grow by (grow1 an open
 * side). */
static void add_builders(const carc_game *g, const eval_weights *w, double grow1, double *out)
{
	carc_figure_info f[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, f, CARC_MAX_FIGURES);
	for (int i = 0; i < n && i < CARC_MAX_FIGURES; i++) {
		if (f[i].kind != CARC_FIG_BUILDER)
			continue;
		int id = carc_feature_id(g, f[i].tile, f[i].seg);
		if (id >= 0 && !carc_feature_done(g, id))
			out[f[i].owner] += w->builder * grow1 * carc_feature_open(g, id);
	}
}

static double completion(const eval_weights *w, int open, int T)
{
	double q = T / (T + w->close_k), c = 1.0;
	for (int i = 0; i < open; i++)
		c *= q;
	return c;
}

/* The numbers that depend only on the tiles left. */
typedef struct eval_env {
	int T;
	int farmers; /* the rules' farmers option, read once */
	double fv, fill, grow1;
	int builders; /* Traders & Builders is on and builders are valued */
} eval_env;

static void env_at(const carc_game *g, const eval_weights *w, int T, eval_env *e)
{
	carc_rules r;
	carc_game_rules(g, &r);
	e->T = T;
	e->farmers = r.farmers;
	e->fv = w->follower * T / (T + w->follower_k);
	e->fill = T / (T + w->fill_k);
	e->grow1 = w->growth * 0.5 * T / (T + 15.0);
	e->builders = (r.expansions & CARC_EXP_TRADERS) && w->builder != 0;
}

/* The tiles still to be placed after this turn's: T of the formulas. In
 * the tile step the current tile is among the tiles left; in a later step
 * of the same turn (Princess & Dragon's action and dragon steps) it is
 * placed already but still counted, so it is taken off: every position of
 * a turn is valued with the T of the next turn, as eval_moves' children. */
static int eval_tiles(const carc_game *g)
{
	int T = carc_tiles_left(g);
	if (carc_step_kind(g) > CARC_STEP_TILE && T > 0)
		T--;
	return T;
}

/* Princess & Dragon: the fairy next to a follower is worth to that
 * follower's owner a share of the 3 points it brings when the feature is
 * scored, more the likelier the feature completes soon (1.5 + 1.5 c: any
 * other player may take the fairy to a follower of his own in any turn he
 * places no figure), plus a point at the start of each of the owner's
 * turns it stays: two of them at most (T / players when fewer are left).
 * c is the feature's completion chance as add_feature has it (a field: 0). */
static void add_fairy(const carc_game *g, const eval_weights *w, const eval_env *e, double *out)
{
	int fi;
	if (carc_fairy_tile(g, &fi) < 0 || fi < 0)
		return;
	carc_figure_info f[CARC_MAX_FIGURES];
	int n = carc_board_figures(g, f, CARC_MAX_FIGURES);
	if (fi >= n)
		return;
	int id = carc_feature_id(g, f[fi].tile, f[fi].seg);
	if (id < 0)
		return;
	carc_feature_info h;
	carc_feature_get(g, id, 0, 0, &h);
	double c = 0;
	if (h.kind == CARC_FEAT_ROAD || h.kind == CARC_FEAT_CITY) {
		c = h.done ? 1.0 : completion(w, h.open, e->T);
	} else if (h.kind == CARC_FEAT_CLOISTER || h.kind == CARC_FEAT_GARDEN) {
		c = 1.0;
		for (int i = h.neighbours; i < 8; i++)
			c *= e->fill;
	}
	double turns = (double)e->T / carc_players(g);
	out[f[fi].owner] += 1.5 + 1.5 * c + (turns < 2 ? turns : 2);
}

/* Completed cities (and the chances of the open ones) among city roots
 * of g: the "cities" a farm on them is worth. */
static double farm_cities(const carc_game *g, const eval_weights *w, int T,
                          const uint16_t *roots, int n)
{
	uint16_t canon[128];
	int nc = 0;
	double v = 0;
	for (int i = 0; i < n; i++) {
		int r = carc_feature_find(g, roots[i]);
		int dup = 0;
		for (int k = 0; k < nc; k++)
			if (canon[k] == r)
				dup = 1;
		if (dup || nc >= 128)
			continue;
		canon[nc++] = (uint16_t)r;
		v += carc_feature_done(g, r) ? 1.0 : completion(w, carc_feature_open(g, r), T);
	}
	return v;
}

/* Adds what the held feature h is worth to each player into out[]: to
 * the majority its expected points, to every owner of a figure on a road,
 * city or cloister the chance of getting it back. For a field, `cities`
 * is its farm_cities value. */
static void add_feature(const carc_game *g, const eval_weights *w, const eval_env *e,
                        const carc_feature_info *h, double cities, double *out)
{
	const int np = carc_players(g);
	int best = 0;
	for (int p = 0; p < np; p++)
		if (h->weight[p] > best)
			best = h->weight[p];
	double v = 0, c = 0;
	switch (h->kind) {
	case CARC_FEAT_ROAD:
		c = completion(w, h->open, e->T);
		if (h->flags & CARC_SEGF_INN) /* 2 a tile if completed, else nothing */
			v = c * 2.0 * (h->tiles + e->grow1 * h->open);
		else
			v = h->tiles + e->grow1 * h->open;
		break;
	case CARC_FEAT_CITY: {
		c = completion(w, h->open, e->T);
		double base = h->tiles + h->shields;
		if (h->flags & CARC_SEGF_CATHEDRAL)
			v = c * 3.0 * (base + e->grow1 * h->open);
		else
			v = c * 2.0 * (base + e->grow1 * h->open) + (1.0 - c) * base;
		break;
	}
	case CARC_FEAT_CLOISTER:
	case CARC_FEAT_GARDEN: {
		int nb = h->neighbours;
		c = 1.0;
		for (int i = nb; i < 8; i++)
			c *= e->fill;
		v = 1 + nb + (8 - nb) * e->fill;
		break;
	}
	case CARC_FEAT_FIELD:
		if (!e->farmers)
			break;
		v = w->farm * 3.0 * cities;
		if (h->pigs)
			for (int p = 0; p < np; p++)
				if ((h->pigs >> p & 1) && h->weight[p] == best)
					out[p] += w->farm * cities;
		break;
	default:
		break;
	}
	for (int p = 0; p < np; p++) {
		if (best && h->weight[p] == best)
			out[p] += v;
		/* followers come back from a completed feature */
		if (h->kind != CARC_FEAT_FIELD)
			out[p] += c * e->fv * h->figures[p];
	}
}

void eval_expected(const carc_game *g, const eval_weights *w, double *out)
{
	const int np = carc_players(g);
	int score[CARC_MAX_PLAYERS];
	carc_game_scores(g, score);
	if (carc_game_over(g)) { /* everything is scored (farmers stay on the board) */
		for (int p = 0; p < np; p++)
			out[p] = score[p];
		return;
	}
	eval_env e;
	env_at(g, w, eval_tiles(g), &e);
	carc_feature_info held[CARC_MAX_FIGURES];
	int nh = carc_held_features(g, held, CARC_MAX_FIGURES, 1);
	for (int p = 0; p < np; p++)
		out[p] = score[p] + e.fv * carc_supply(g, p, CARC_FIG_FOLLOWER);
	add_goods(g, w, out);
	add_fairy(g, w, &e, out);
	if (e.builders)
		add_builders(g, w, e.grow1, out);
	for (int k = 0; k < nh; k++) {
		double cities = 0;
		if (held[k].kind == CARC_FEAT_FIELD && e.farmers) {
			uint16_t roots[128];
			int n = carc_field_cities(g, held[k].id, roots, 128);
			cities = farm_cities(g, w, e.T, roots, n);
		}
		add_feature(g, w, &e, &held[k], cities, out);
	}
}

/* The part of the evaluation a feature kind's value goes to. */
static int part_of(int kind)
{
	switch (kind) {
	case CARC_FEAT_ROAD: return CARC_PART_ROAD;
	case CARC_FEAT_CITY: return CARC_PART_CITY;
	case CARC_FEAT_CLOISTER: return CARC_PART_CLOISTER;
	case CARC_FEAT_GARDEN: return CARC_PART_GARDEN;
	case CARC_FEAT_FIELD: return CARC_PART_FARM;
	default: return -1;
	}
}

/* eval_expected with default weights, split by part (carc_bot.h): each
 * held feature is added once with followers worth nothing (its value)
 * and once as eval_expected adds it; the difference is what its
 * followers are worth. */
void carc_eval_parts(const carc_game *g, double out[CARC_MAX_PLAYERS][CARC_PART_COUNT])
{
	const int np = carc_players(g);
	eval_weights w;
	eval_default(&w);
	memset(out, 0, sizeof(double) * CARC_MAX_PLAYERS * CARC_PART_COUNT);
	for (int p = 0; p < np; p++)
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			out[p][k] = carc_score_by_kind(g, p, k);
	if (carc_game_over(g))
		return;
	eval_env e, e0;
	env_at(g, &w, eval_tiles(g), &e);
	e0 = e;
	e0.fv = 0;
	double tmp[CARC_MAX_PLAYERS], tmp0[CARC_MAX_PLAYERS];
	for (int p = 0; p < np; p++)
		out[p][CARC_PART_FOLLOWERS] += e.fv * carc_supply(g, p, CARC_FIG_FOLLOWER);
	memset(tmp, 0, sizeof tmp);
	add_goods(g, &w, tmp);
	for (int p = 0; p < np; p++)
		out[p][CARC_PART_GOODS] += tmp[p];
	memset(tmp, 0, sizeof tmp);
	add_fairy(g, &w, &e, tmp);
	for (int p = 0; p < np; p++)
		out[p][CARC_PART_FAIRY] += tmp[p];
	if (e.builders) {
		memset(tmp, 0, sizeof tmp);
		add_builders(g, &w, e.grow1, tmp);
		for (int p = 0; p < np; p++)
			out[p][CARC_PART_BUILDERS] += tmp[p];
	}
	carc_feature_info held[CARC_MAX_FIGURES];
	int nh = carc_held_features(g, held, CARC_MAX_FIGURES, 1);
	for (int k = 0; k < nh; k++) {
		double cities = 0;
		if (held[k].kind == CARC_FEAT_FIELD && e.farmers) {
			uint16_t roots[128];
			int n = carc_field_cities(g, held[k].id, roots, 128);
			cities = farm_cities(g, &w, e.T, roots, n);
		}
		int part = part_of(held[k].kind);
		if (part < 0)
			continue;
		memset(tmp, 0, sizeof tmp);
		memset(tmp0, 0, sizeof tmp0);
		add_feature(g, &w, &e0, &held[k], cities, tmp0);
		add_feature(g, &w, &e, &held[k], cities, tmp);
		for (int p = 0; p < np; p++) {
			out[p][part] += tmp0[p];
			out[p][CARC_PART_FOLLOWERS] += tmp[p] - tmp0[p];
		}
	}
}

static double relative(const eval_weights *w, const double *e, int np, int p)
{
	double other = 0;
	if (w->relative) {
		other = -1e9;
		for (int q = 0; q < np; q++)
			if (q != p && e[q] > other)
				other = e[q];
	} else {
		for (int q = 0; q < np; q++)
			if (q != p)
				other += e[q];
		other /= np - 1;
	}
	return e[p] - other;
}

double eval_for(const carc_game *g, const eval_weights *w, int p)
{
	double e[CARC_MAX_PLAYERS];
	eval_expected(g, w, e);
	return relative(w, e, carc_players(g), p);
}

double carc_eval_margin(const carc_game *g, int player)
{
	eval_weights w;
	eval_default(&w);
	w.relative = 1;
	return eval_for(g, &w, player);
}

/* ---- the moves of one position: incremental evaluation -------------------- */

/*
 * Every child of a position differs from it by one tile (and maybe one
 * figure, and what the tile completed). What the child is worth is the
 * parent's held features unchanged, except for:
 *   - the features the new tile's segments belong to now ("touched"):
 *     evaluated afresh (a field from the city lists of the parent fields
 *     it merged, memoised across the children);
 *   - fields: their cities may have been completed or closed in by the
 *     tile, so their value is recomputed from their (memoised) city list;
 *   - cloisters: recounted (cheap).
 * Untouched roads and cities keep their root and their contribution,
 * computed once per parent at the children's tile count. The result is the
 * same as eval_expected on the child (checked in debug builds).
 */
#define MEMO_CITIES 8192

typedef struct eval_cache {
	const carc_game *pg;
	eval_env env;
	int nh;
	carc_feature_info held[CARC_MAX_FIGURES];
	double contrib[CARC_MAX_FIGURES][CARC_MAX_PLAYERS];
	int16_t hidx[CARC_MAX_FEATURE_IDS];  /* parent root -> held index, -1 */
	int16_t midx[CARC_MAX_FEATURE_IDS];  /* parent field root -> memo index, -1 */
	int nmemo, ncity;
	uint16_t mstart[CARC_MAX_FEATURE_IDS], mlen[CARC_MAX_FEATURE_IDS];
	uint16_t mcity[MEMO_CITIES];
} eval_cache;

/* City roots (of the parent) bordering the parent field with root r. */
static const uint16_t *memo_cities(eval_cache *c, int r, int *n)
{
	if (c->midx[r] < 0) {
		uint16_t tmp[256];
		int k = carc_field_cities(c->pg, r, tmp, 256);
		if (c->ncity + k > MEMO_CITIES) { /* full: start over */
			memset(c->midx, 0xFF, sizeof c->midx);
			c->ncity = 0;
		}
		c->midx[r] = (int16_t)r;
		c->mstart[r] = (uint16_t)c->ncity;
		c->mlen[r] = (uint16_t)k;
		memcpy(c->mcity + c->ncity, tmp, sizeof tmp[0] * (size_t)k);
		c->ncity += k;
	}
	*n = c->mlen[r];
	return c->mcity + c->mstart[r];
}

static void cache_init(eval_cache *c, const carc_game *pg, const eval_weights *w)
{
	c->pg = pg;
	env_at(pg, w, carc_tiles_left(pg) - 1 > 0 ? carc_tiles_left(pg) - 1 : 0, &c->env);
	memset(c->hidx, 0xFF, sizeof c->hidx);
	memset(c->midx, 0xFF, sizeof c->midx);
	c->nmemo = c->ncity = 0;
	c->nh = carc_held_features(pg, c->held, CARC_MAX_FIGURES, 1);
	for (int k = 0; k < c->nh; k++) {
		const carc_feature_info *h = &c->held[k];
		c->hidx[h->id] = (int16_t)k;
		memset(c->contrib[k], 0, sizeof c->contrib[k]);
		if (h->kind == CARC_FEAT_ROAD || h->kind == CARC_FEAT_CITY) {
			add_feature(pg, w, &c->env, h, 0, c->contrib[k]);
		} else if (h->kind == CARC_FEAT_FIELD) {
			double cities = 0;
			if (c->env.farmers) {
				int n;
				const uint16_t *cs = memo_cities(c, h->id, &n);
				cities = farm_cities(pg, w, c->env.T, cs, n);
			}
			add_feature(pg, w, &c->env, h, cities, c->contrib[k]);
		}
	}
}

static const int8_t EDX[4] = {0, 1, 0, -1};
static const int8_t EDY[4] = {-1, 0, 1, 0};

/* City roots bordering the child's field F, which holds segments of the
 * new tile: its cities on that tile and those of the parent fields it
 * merged. Returns the count (roots of nodes, not yet canonical). */
static int touched_field_cities(eval_cache *c, const carc_game *g, int ti, int F,
                                uint16_t *out, int max)
{
	int type, x, y, rot, n = 0;
	carc_board_tile(g, ti, &type, &x, &y, &rot, NULL);
	int nseg = carc_tile_segments(type);
	uint16_t seen[4 * 3 * CARC_MAX_SEGS];
	int nseen = 0;
	for (int s = 0; s < nseg; s++) {
		int kind;
		unsigned ports, flags, cities;
		carc_tile_segment(type, s, &kind, &ports, &flags, &cities);
		if (kind != CARC_FEAT_FIELD || carc_feature_id(g, ti, s) != F)
			continue;
		while (cities) {
			int ci = __builtin_ctz(cities);
			cities &= cities - 1;
			if (n < max)
				out[n++] = (uint16_t)carc_feature_id(g, ti, ci);
		}
		unsigned rp = ((ports << (3 * rot)) | (ports >> (12 - 3 * rot))) & 0xFFFu;
		for (int d = 0; d < 4; d++) {
			if (!(rp >> (3 * d) & 7u))
				continue;
			int nt = carc_tile_at(c->pg, x + EDX[d], y + EDY[d]);
			if (nt < 0)
				continue;
			int ntype, nrot;
			carc_board_tile(c->pg, nt, &ntype, NULL, NULL, &nrot, NULL);
			for (int k = 0; k < 3; k++) {
				if (!(rp >> (3 * d + k) & 1u))
					continue;
				int q = 3 * ((d + 2) & 3) + (2 - k);
				int ns = carc_tile_port_segment(ntype, nrot, q);
				if (ns < 0)
					continue;
				int pr = carc_feature_id(c->pg, nt, ns);
				int dup = 0;
				for (int j = 0; j < nseen; j++)
					if (seen[j] == pr)
						dup = 1;
				if (dup)
					continue;
				seen[nseen++] = (uint16_t)pr;
				int m;
				const uint16_t *cs = memo_cities(c, pr, &m);
				for (int j = 0; j < m && n < max; j++)
					out[n++] = cs[j];
			}
		}
	}
	return n;
}

/* Roots, in the parent, of the cities the new tile ti of child g joined:
 * the only cities whose state (open sides, completion) a move changes. */
static int touched_parent_cities(const eval_cache *c, const carc_game *g, int ti, uint16_t *out)
{
	int type, x, y, rot, n = 0;
	carc_board_tile(g, ti, &type, &x, &y, &rot, NULL);
	for (int d = 0; d < 4; d++) {
		int port = 3 * d + 1, s = carc_tile_port_segment(type, rot, port), kind = -1;
		if (s >= 0)
			carc_tile_segment(type, s, &kind, NULL, NULL, NULL);
		if (kind != CARC_FEAT_CITY)
			continue;
		int nt = carc_tile_at(c->pg, x + EDX[d], y + EDY[d]);
		if (nt < 0)
			continue;
		int ntype, nrot;
		carc_board_tile(c->pg, nt, &ntype, NULL, NULL, &nrot, NULL);
		int ns = carc_tile_port_segment(ntype, nrot, 3 * ((d + 2) & 3) + 1);
		if (ns >= 0)
			out[n++] = (uint16_t)carc_feature_id(c->pg, nt, ns);
	}
	return n;
}

static void eval_child(eval_cache *c, const carc_game *g, const eval_weights *w, double *out)
{
	const int np = carc_players(g);
	int score[CARC_MAX_PLAYERS];
	carc_game_scores(g, score);
	if (carc_game_over(g)) {
		for (int p = 0; p < np; p++)
			out[p] = score[p];
		return;
	}
	const eval_env *e = &c->env;
	for (int p = 0; p < np; p++)
		out[p] = score[p] + e->fv * carc_supply(g, p, CARC_FIG_FOLLOWER);
	add_goods(g, w, out);
	add_fairy(g, w, e, out);
	if (e->builders)
		add_builders(g, w, e->grow1, out);
	int ti = ai_new_tile(g, c->pg);
	uint16_t touched[CARC_MAX_SEGS];
	int nt = 0;
	if (ti >= 0) {
		int type;
		carc_board_tile(g, ti, &type, NULL, NULL, NULL, NULL);
		int nseg = carc_tile_segments(type);
		for (int s = 0; s < nseg; s++)
			touched[nt++] = (uint16_t)carc_feature_id(g, ti, s);
	}
	uint16_t tcity[4 * CARC_MAX_SEGS];
	int ntc = ti >= 0 ? touched_parent_cities(c, g, ti, tcity) : 0;
	carc_feature_info held[CARC_MAX_FIGURES];
	int nh = carc_held_features(g, held, CARC_MAX_FIGURES, 0);
	for (int k = 0; k < nh; k++) {
		carc_feature_info *h = &held[k];
		int is_touched = 0;
		for (int i = 0; i < nt; i++)
			if (touched[i] == h->id)
				is_touched = 1;
		if (h->kind == CARC_FEAT_ROAD || h->kind == CARC_FEAT_CITY) {
			if (!is_touched && c->hidx[h->id] >= 0) {
				const double *v = c->contrib[c->hidx[h->id]];
				for (int p = 0; p < np; p++)
					out[p] += v[p];
				continue;
			}
			h->tiles = (uint8_t)carc_feature_tiles(g, h->id);
			add_feature(g, w, e, h, 0, out);
		} else if (h->kind == CARC_FEAT_FIELD) {
			double cities = 0;
			if (e->farmers) {
				uint16_t roots[512];
				int n;
				if (!is_touched) {
					const uint16_t *cs = memo_cities(c, h->id, &n);
					int hit = 0;
					for (int i = 0; i < n && !hit; i++)
						for (int j = 0; j < ntc; j++)
							hit |= cs[i] == tcity[j];
					if (!hit && c->hidx[h->id] >= 0) {
						/* its cities are as they were: the parent's value */
						const double *v = c->contrib[c->hidx[h->id]];
						for (int p = 0; p < np; p++)
							out[p] += v[p];
						continue;
					}
					cities = farm_cities(g, w, e->T, cs, n);
				} else {
					n = touched_field_cities(c, g, ti, h->id, roots, 512);
					cities = farm_cities(g, w, e->T, roots, n);
				}
			}
			add_feature(g, w, e, h, cities, out);
		} else {
			add_feature(g, w, e, h, 0, out);
		}
	}
}

/*
 * A figure move differs from its placement only by the figure, so its value
 * is the placement's plus what the figure changes: the player's supply and
 * the feature it now holds alone (it was free, or the figure could not go
 * there). Features the tile completed at once, and figures other than the
 * plain and the big follower, are left to a full evaluation (returns -1).
 */
static int figure_delta(eval_cache *c, const carc_game *P, int ti, carc_move fm, int me,
                        const eval_weights *w, double *out)
{
	int fk = carc_move_figure(fm);
	if ((fk != CARC_FIG_FOLLOWER && fk != CARC_FIG_BIG) || carc_move_recall(fm) || ti < 0)
		return -1;
	int F = carc_feature_id(P, ti, carc_move_seg(fm));
	/* a feature with figures already (the tile may join an occupied
	 * feature to the free one the figure goes on) */
	if (F < 0 || carc_feature_figures(P, F))
		return -1;
	carc_feature_info h;
	carc_feature_get(P, F, 0, 0, &h);
	double cities = 0;
	switch (h.kind) {
	case CARC_FEAT_ROAD:
	case CARC_FEAT_CITY:
		if (h.done)
			return -1;
		h.tiles = (uint8_t)carc_feature_tiles(P, F);
		break;
	case CARC_FEAT_CLOISTER:
	case CARC_FEAT_GARDEN:
		if (h.neighbours >= 8)
			return -1;
		break;
	case CARC_FEAT_FIELD:
		if (c->env.farmers) {
			uint16_t roots[512];
			int n = touched_field_cities(c, P, ti, F, roots, 512);
			cities = farm_cities(P, w, c->env.T, roots, n);
		}
		break;
	default:
		return -1;
	}
	h.weight[me] = fk == CARC_FIG_BIG ? 2 : 1;
	h.figures[me] = 1;
	if (fk == CARC_FIG_FOLLOWER)
		out[me] -= c->env.fv;
	add_feature(P, w, &c->env, &h, cities, out);
	return 0;
}

/* The decision "nothing" among the step's decisions acts[0..n-1] of P:
 * its index, -1 if none. Known by its JSON, the engine's one writer of a
 * decision ({"action": "none"}), so that no bot reads the engine's code. */
static int find_nothing(const carc_game *P, const carc_move *acts, int n)
{
	for (int k = 0; k < n; k++) {
		char *j = carc_move_json(P, acts[k]);
		int none = j && strstr(j, "\"none\"") != NULL;
		free(j);
		if (none)
			return k;
	}
	return -1;
}

/*
 * A placement after which the same player decides again in this turn (the
 * action step of Princess & Dragon: fairy, portal, princess or nothing)
 * is worth the best of those decisions (not so the dragon's steps: they
 * eat figures, which eval_child's cache does not follow, and the next
 * square is another player's): its value is the best child's of
 * that step (eval_child on each, one tile and one action away from g). The
 * child after "nothing" is also the base its figure options' deltas are
 * added to (a figure move skips the step: it is that child plus the
 * figure). The value for p goes to *val; returns the index in acts of
 * "nothing" when e0 holds that child's expected scores and it is a
 * position of the next turn's tile step, else -1. With look 0 only the
 * child after "nothing" is valued (cheap: for playouts). *nothing is the
 * decision "nothing" once known (CARC_MOVE_NONE before).
 */
static int best_step(eval_cache *c, const carc_game *P, const eval_weights *w, int p, int look,
                     carc_move *nothing, carc_game *A, carc_move *acts, double *e0, double *val)
{
	double best = -1e300, e[CARC_MAX_PLAYERS];
	const int players = carc_players(P);
	int na, base = -1, none;
	if (!look) {
		/* "nothing" only: found once, kept in *nothing (the legal
		 * decisions, with their portal targets, are not listed again) */
		if (*nothing == CARC_MOVE_NONE) {
			int k = find_nothing(P, acts, carc_legal_moves(P, acts, CARC_MAX_MOVES));
			if (k >= 0)
				*nothing = acts[k];
		}
		acts[0] = *nothing;
		na = *nothing != CARC_MOVE_NONE;
		none = 0;
	} else {
		na = carc_legal_moves(P, acts, CARC_MAX_MOVES);
		none = *nothing != CARC_MOVE_NONE ? -1 : find_nothing(P, acts, na);
		if (none >= 0)
			*nothing = acts[none];
	}
	for (int k = 0; k < na; k++) {
		carc_game_copy(A, P);
		if (carc_apply(A, acts[k], NULL, NULL) != CARC_OK)
			continue;
		double v;
		if (!carc_game_over(A) && eval_tiles(A) != c->env.T) {
			v = eval_for(A, w, p);
		} else {
			eval_child(c, A, w, e);
			v = relative(w, e, players, p);
			if (base < 0 && !carc_game_over(A) && carc_step_kind(A) == CARC_STEP_TILE &&
			    acts[k] == *nothing) {
				memcpy(e0, e, sizeof e);
				base = k;
			}
		}
		if (v > best)
			best = v;
		if (!look)
			break;
	}
	if (best == -1e300) { /* no "nothing" found: the step as it stands */
		eval_child(c, P, w, e);
		best = relative(w, e, players, p);
	}
	*val = best;
	return base;
}

/* Values for p of every legal move of g, in carc_legal_moves order. */
int eval_moves(const carc_game *g, const eval_weights *w, int p, int look,
               carc_move *moves, double *vals, int max)
{
	carc_move fo[AI_MAX_FIGOPTS];
	int me = carc_to_move(g), players = carc_players(g);
	carc_game *tmp = carc_game_alloc();
	if (!tmp)
		return 0;
	eval_cache *c = carc_step_kind(g) == CARC_STEP_TILE ? malloc(sizeof *c) : NULL;
	carc_move *pl = c ? malloc(sizeof(carc_move) * 2 * CARC_MAX_MOVES) : NULL;
	carc_game *P = pl ? carc_game_alloc() : NULL;
	carc_game *A = P ? carc_game_alloc() : NULL;
	if (!A) {
		/* a step other than the tile's, or out of memory: each decision
		 * played and evaluated */
		free(c);
		free(pl);
		carc_game_free(P);
		int n = carc_legal_moves(g, moves, max);
		for (int i = 0; i < n; i++) {
			carc_game_copy(tmp, g);
			vals[i] = carc_apply(tmp, moves[i], NULL, NULL) == CARC_OK ? eval_for(tmp, w, p)
			                                                          : -1e9;
		}
		carc_game_free(tmp);
		return n;
	}
	carc_move *acts = pl + CARC_MAX_MOVES, nothing = CARC_MOVE_NONE;
	int np = carc_placements(g, pl, CARC_MAX_MOVES);
	cache_init(c, g, w);
	double e0[CARC_MAX_PLAYERS], e[CARC_MAX_PLAYERS];
	int n = 0;
	for (int i = 0; i < np && n < max; i++) {
		carc_game_copy(P, g);
		if (carc_apply(P, pl[i], NULL, NULL) != CARC_OK)
			continue;
		/* the cache's numbers are those of the next turn (one tile fewer),
		 * as eval_tiles gives them for a later step of this turn too; a
		 * placement that changes the tiles to come (a volcano brings the
		 * dragon tiles into the draw) is evaluated in full */
		int whole = !carc_game_over(P) && eval_tiles(P) != c->env.T;
		/* deltas: e0 is the position the figure is added to */
		int delta = !whole && !carc_game_over(P) && carc_step_kind(P) == CARC_STEP_TILE;
		const carc_game *D = P;
		if (whole) {
			vals[n] = eval_for(P, w, p);
		} else if (!carc_game_over(P) && carc_step_kind(P) == CARC_STEP_ACTION) {
			int k0 = best_step(c, P, w, p, look, &nothing, A, acts, e0, &vals[n]);
			if (k0 >= 0) { /* the base: P with "nothing" decided */
				carc_game_copy(A, P);
				carc_apply(A, acts[k0], NULL, NULL);
				D = A;
				delta = 1;
			}
		} else {
			eval_child(c, P, w, e0);
			vals[n] = relative(w, e0, players, p);
		}
		moves[n++] = pl[i];
		if (pl[i] == CARC_MOVE_DISCARD)
			continue;
		int ti = ai_new_tile(P, g);
		int nf = carc_figure_options(g, pl[i], fo, AI_MAX_FIGOPTS);
		for (int f = 0; f < nf && n < max; f++) {
			memcpy(e, e0, sizeof e);
			if (!delta || figure_delta(c, D, ti, fo[f], me, w, e)) {
				carc_game_copy(tmp, g);
				if (carc_apply(tmp, fo[f], NULL, NULL) != CARC_OK)
					continue;
				if (whole) {
					moves[n] = fo[f];
					vals[n++] = eval_for(tmp, w, p);
					continue;
				}
				eval_child(c, tmp, w, e);
			}
			moves[n] = fo[f];
			vals[n++] = relative(w, e, players, p);
		}
	}
#ifdef CARC_DEBUG_CHECK
	/* one move in eight, a different eighth in each position */
	for (int i = (int)(carc_game_hash(g) & 7); i < n; i += 8) {
		carc_game_copy(tmp, g);
		if (carc_apply(tmp, moves[i], NULL, NULL) != CARC_OK)
			abort();
		double full = eval_for(tmp, w, p);
		if (!carc_game_over(tmp) && carc_step_kind(tmp) == CARC_STEP_ACTION &&
		    eval_tiles(tmp) == c->env.T) {
			/* the best decision of the step that follows (look 0:
			 * "nothing") */
			int na = carc_legal_moves(tmp, acts, CARC_MAX_MOVES), found = 0;
			double best = -1e300;
			for (int k = 0; k < na; k++) {
				carc_game_copy(A, tmp);
				carc_apply(A, acts[k], NULL, NULL);
				if (!look && acts[k] != nothing)
					continue;
				double v = eval_for(A, w, p);
				found = 1;
				if (v > best)
					best = v;
				if (!look)
					break;
			}
			if (found)
				full = best;
		}
		if (fabs(full - vals[i]) > 1e-6 * (1 + fabs(full))) {
			fprintf(stderr, "eval: incremental %.9f != full %.9f (move 0x%x)\n", vals[i],
			        full, moves[i]);
			abort();
		}
	}
#endif
	free(c);
	free(pl);
	carc_game_free(P);
	carc_game_free(A);
	carc_game_free(tmp);
	return n;
}

/* carc_eval_parts' first parts are the score kinds, index for index, and
 * the server names the parts after them (src/server/table/why.c). */
_Static_assert((int)CARC_PART_FAIRY == (int)CARC_SCORE_FAIRY &&
                   (int)CARC_PART_FOLLOWERS == (int)CARC_SCORE_KIND_COUNT,
               "the evaluation's parts start with the score kinds");
