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
 * where T is the tiles left and, for o open sides,
 *   close(T) = T / (T + 8)           chance that one open side gets closed
 *   c        = close(T)^o            chance that the feature completes
 *                                    (cloister: fill^(8 - neighbours))
 *   fill     = T / (T + 12)          share of a cloister's empty squares filled
 *   growth   = growth * o * 0.5 * T / (T + 15)   tiles the feature will gain
 *   fv       = follower * T / (T + 20)           a follower in supply
 * Farm scoring is estimated as "international" under every edition; the
 * estimate is the same for every rule set and expansion (big followers
 * count double in majorities, pigs make a farm pay 4 a city).
 * The value for a player is E[p] minus the mean of the others' E (or minus
 * the best of them).
 */
#include <math.h>
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
	w->relative = 0;
}

static double completion(const eval_weights *w, int open, int T)
{
	double q = T / (T + w->close_k), c = 1.0;
	for (int i = 0; i < open; i++)
		c *= q;
	return c;
}

void eval_expected(const carc_game *g, const eval_weights *w, double *out)
{
	const int np = g->rules.players;
	const int T = carc_tiles_left(g);
	featq_held held[CARC_MAX_FIGURES];
	int nh = featq_held_features(g, held, CARC_MAX_FIGURES);
	double fv = w->follower * T / (T + w->follower_k);
	double fill = T / (T + w->fill_k);
	double grow1 = w->growth * 0.5 * T / (T + 15.0);

	for (int p = 0; p < np; p++)
		out[p] = g->score[p] + fv * carc_supply(g, p, CARC_FIG_FOLLOWER);

	for (int k = 0; k < nh; k++) {
		const featq_held *h = &held[k];
		int best = 0;
		for (int p = 0; p < np; p++)
			if (h->weight[p] > best)
				best = h->weight[p];
		double v = 0, c = 0;
		switch (h->kind) {
		case CARC_FEAT_ROAD:
			c = completion(w, h->open, T);
			v = h->tiles + grow1 * h->open;
			break;
		case CARC_FEAT_CITY: {
			c = completion(w, h->open, T);
			double base = h->tiles + h->shields;
			v = c * 2.0 * (base + grow1 * h->open) + (1.0 - c) * base;
			break;
		}
		case CARC_FEAT_CLOISTER:
		case CARC_FEAT_GARDEN: {
			int nb = h->clo < g->nclo ? g->clo[h->clo].neighbours : 0;
			c = 1.0;
			for (int i = nb; i < 8; i++)
				c *= fill;
			v = 1 + nb + (8 - nb) * fill;
			break;
		}
		case CARC_FEAT_FIELD: {
			if (!g->rules.farmers)
				break;
			uint16_t done[64], open_[64];
			int nd, no;
			featq_field_cities(g, h->root, done, &nd, open_, &no, 64);
			double cities = nd;
			for (int i = 0; i < no; i++)
				cities += completion(w, g->node[open_[i]].open, T);
			v = w->farm * 3.0 * cities;
			if (h->pig)
				for (int p = 0; p < np; p++)
					if ((h->pig >> p & 1) && h->weight[p] == best)
						out[p] += w->farm * cities;
			break;
		}
		default:
			break;
		}
		for (int p = 0; p < np; p++) {
			if (best && h->weight[p] == best)
				out[p] += v;
			/* followers come back from a completed feature */
			if (h->kind != CARC_FEAT_FIELD)
				out[p] += c * fv * h->figs[p];
		}
	}
}

double eval_for(const carc_game *g, const eval_weights *w, int p)
{
	double e[CARC_MAX_PLAYERS];
	const int np = g->rules.players;
	eval_expected(g, w, e);
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

int eval_moves(const carc_game *g, const eval_weights *w, int p,
               carc_move *moves, double *vals, int max)
{
	int n = carc_legal_moves(g, moves, max);
	carc_game tmp;
	for (int i = 0; i < n; i++) {
		carc_game_copy(&tmp, g);
		if (carc_apply(&tmp, moves[i], NULL, NULL) != CARC_OK) {
			vals[i] = -1e9;
			continue;
		}
		vals[i] = eval_for(&tmp, w, p);
	}
	return n;
}
