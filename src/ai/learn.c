/*
 * learn.c - the learned evaluation: the features of a position for a
 * player, a ridge-regression fit of a linear model over them (`carc train`
 * makes the data from self-play and fits it), and the shipped model: the
 * text of data/eval-linear.txt compiled in (the Makefile makes
 * gen/evalmodel.c from it), parsed by a bot into weights of its own when
 * it is made (mcts:learned=B).
 *
 * Features, for player p: for each per-player quantity, p's value minus
 * the mean of the others' (so the model is the same for any seat and 2
 * to 6 players), then the heuristic margin (carc_eval_margin) and a few
 * products with the share of tiles left t = T / 72, and a constant. A
 * feature held by several players with equal majority weight counts for
 * each of them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ai.h"

enum {
	PF_SCORE, PF_SUPPLY, PF_SUPPLY_T, PF_ROAD, PF_ROAD_OPEN, PF_CITY, PF_CITY_OPEN,
	PF_CITY_T, PF_CLOISTER, PF_CLOISTER_T, PF_FARM_DONE, PF_FARM_OPEN, PF_FARM_T,
	PF_TO_MOVE, PF_COUNT
};

static const char *const NAMES[] = {
	"score", "supply", "supply_t", "road_tiles", "road_open", "city_tiles", "city_open",
	"city_tiles_t", "cloister", "cloister_empty_t", "farm_done_cities", "farm_open_cities",
	"farm_cities_t", "to_move",
	/* the global ones */
	"eval_margin", "eval_margin_t", "tiles_left_t", "const"};

#define NFEAT ((int)(sizeof NAMES / sizeof NAMES[0]))

int carc_eval_nfeatures(void) { return NFEAT; }

const char *carc_eval_feature_name(int i) { return i >= 0 && i < NFEAT ? NAMES[i] : NULL; }

#define MAX_HELD (CARC_MAX_FIGURES + 8)

/* The per-player quantities of every player (f) and the heuristic margin
 * of each (m: carc_eval_margin), from one pass over the position. */
static void features_all(const carc_game *g, double f[CARC_MAX_PLAYERS][PF_COUNT], double *m)
{
	int np = carc_players(g);
	memset(f, 0, sizeof(double) * CARC_MAX_PLAYERS * PF_COUNT);
	double t = carc_tiles_left(g) / 72.0;
	int sc[CARC_MAX_PLAYERS];
	carc_game_scores(g, sc);
	for (int q = 0; q < np; q++) {
		f[q][PF_SCORE] = sc[q];
		f[q][PF_SUPPLY] = carc_supply(g, q, CARC_FIG_FOLLOWER);
		f[q][PF_SUPPLY_T] = f[q][PF_SUPPLY] * t;
		f[q][PF_TO_MOVE] = !carc_game_over(g) && carc_to_move(g) == q;
	}
	carc_feature_info held[MAX_HELD];
	int n = carc_held_features(g, held, MAX_HELD, 1);
	if (n > MAX_HELD)
		n = MAX_HELD;
	for (int i = 0; i < n; i++) {
		const carc_feature_info *h = &held[i];
		int top = 0;
		for (int q = 0; q < np; q++)
			if (h->weight[q] > top)
				top = h->weight[q];
		if (!top || h->done)
			continue;
		double cities_done = 0, cities_open = 0;
		if (h->kind == CARC_FEAT_FIELD) {
			uint16_t ids[64];
			int nc = carc_field_cities(g, h->id, ids, 64);
			for (int k = 0; k < nc && k < 64; k++) {
				if (carc_feature_done(g, ids[k]))
					cities_done++;
				else
					cities_open++;
			}
		}
		for (int q = 0; q < np; q++) {
			if (h->weight[q] != top)
				continue;
			switch (h->kind) {
			case CARC_FEAT_ROAD:
				f[q][PF_ROAD] += h->tiles;
				f[q][PF_ROAD_OPEN] += h->open;
				break;
			case CARC_FEAT_CITY:
				f[q][PF_CITY] += h->tiles + h->shields;
				f[q][PF_CITY_OPEN] += h->open;
				f[q][PF_CITY_T] += (h->tiles + h->shields) * t;
				break;
			case CARC_FEAT_CLOISTER:
			case CARC_FEAT_GARDEN:
				f[q][PF_CLOISTER] += 1 + h->neighbours;
				f[q][PF_CLOISTER_T] += (8 - h->neighbours) * t;
				break;
			case CARC_FEAT_FIELD:
				f[q][PF_FARM_DONE] += cities_done;
				f[q][PF_FARM_OPEN] += cities_open;
				f[q][PF_FARM_T] += (cities_done + cities_open) * t;
				break;
			default:
				break;
			}
		}
	}
	/* the margins as carc_eval_margin: expected score minus the best other's */
	eval_weights w;
	eval_default(&w);
	double e[CARC_MAX_PLAYERS];
	eval_expected(g, &w, e);
	for (int q = 0; q < np; q++) {
		double other = -1e9;
		for (int r = 0; r < np; r++)
			if (r != q && e[r] > other)
				other = e[r];
		m[q] = e[q] - other;
	}
}

/* Player p's features from features_all's tables. */
static void features_of(const carc_game *g, double f[CARC_MAX_PLAYERS][PF_COUNT], const double *m,
                        int p, double *out)
{
	int np = carc_players(g);
	double t = carc_tiles_left(g) / 72.0;
	for (int k = 0; k < PF_COUNT; k++) {
		double others = 0;
		for (int q = 0; q < np; q++)
			if (q != p)
				others += f[q][k];
		out[k] = f[p][k] - (np > 1 ? others / (np - 1) : 0);
	}
	out[PF_COUNT] = m[p];
	out[PF_COUNT + 1] = m[p] * t;
	out[PF_COUNT + 2] = t;
	out[PF_COUNT + 3] = 1;
}

int carc_eval_features(const carc_game *g, int p, double *out)
{
	double f[CARC_MAX_PLAYERS][PF_COUNT], m[CARC_MAX_PLAYERS];
	features_all(g, f, m);
	features_of(g, f, m, p, out);
	return NFEAT;
}

const char *carc_eval_model_text(void) { return ai_eval_model_text; }

int carc_eval_model_parse(const char *text, double *w, int max, char *err, size_t errsize)
{
	int n = 0, line = 0;
	const char *s = text;
	if (max < NFEAT) {
		snprintf(err, errsize, "room for %d weights, the model has %d", max, NFEAT);
		return -1;
	}
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		line++;
		if (len && *s != '#') {
			char buf[128], name[64];
			double v;
			int used = 0;
			if (len >= sizeof buf) {
				snprintf(err, errsize, "line %d: too long", line);
				return -1;
			}
			memcpy(buf, s, len);
			buf[len] = 0;
			if (sscanf(buf, "%63s %lf %n", name, &v, &used) != 2 || buf[used] || !isfinite(v)) {
				snprintf(err, errsize, "line %d: NAME NUMBER expected", line);
				return -1;
			}
			if (n >= NFEAT || strcmp(name, NAMES[n]) != 0) {
				snprintf(err, errsize, "line %d: '%s' where %s%s was expected", line, name,
				         n < NFEAT ? "feature " : "the end", n < NFEAT ? NAMES[n] : "");
				return -1;
			}
			w[n++] = v;
		}
		s += len + (e != NULL);
	}
	if (n != NFEAT) {
		snprintf(err, errsize, "%d weights, the model has %d features", n, NFEAT);
		return -1;
	}
	return NFEAT;
}

void ai_learned_margins(const carc_game *g, const double *w, double blend, double *out)
{
	int np = carc_players(g);
	double f[CARC_MAX_PLAYERS][PF_COUNT], m[CARC_MAX_PLAYERS];
	features_all(g, f, m);
	for (int p = 0; p < np; p++) {
		if (carc_game_over(g)) {
			out[p] = m[p]; /* the final margin */
			continue;
		}
		double x[NFEAT];
		features_of(g, f, m, p, x);
		double s = 0;
		for (int i = 0; i < NFEAT; i++)
			s += w[i] * x[i];
		/* x[PF_COUNT] is the heuristic margin, x[PF_COUNT + 2] the share of tiles left */
		out[p] = x[PF_COUNT] + blend * x[PF_COUNT + 2] * s;
	}
}

double carc_eval_learned(const carc_game *g, int p, const double *w)
{
	double out[CARC_MAX_PLAYERS];
	ai_learned_margins(g, w, 1, out);
	return out[p];
}

int carc_eval_fit(const double *x, const double *y, int rows, int cols, double lambda,
                  double *w)
{
	if (rows < 1 || cols < 1 || cols > 256)
		return -1;
	double *a = calloc((size_t)cols * (size_t)cols, sizeof *a), *b = calloc((size_t)cols, sizeof *b);
	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	for (int r = 0; r < rows; r++) {
		const double *xr = x + (size_t)r * (size_t)cols;
		for (int i = 0; i < cols; i++) {
			b[i] += xr[i] * y[r];
			for (int j = 0; j <= i; j++)
				a[i * cols + j] += xr[i] * xr[j];
		}
	}
	for (int i = 0; i < cols; i++)
		a[i * cols + i] += lambda;
	/* Cholesky: a = L L^T, L in the lower triangle */
	int rc = 0;
	for (int j = 0; j < cols && !rc; j++) {
		double d = a[j * cols + j];
		for (int k = 0; k < j; k++)
			d -= a[j * cols + k] * a[j * cols + k];
		if (!(d > 1e-12)) {
			rc = -1;
			break;
		}
		d = sqrt(d);
		a[j * cols + j] = d;
		for (int i = j + 1; i < cols; i++) {
			double s = a[i * cols + j];
			for (int k = 0; k < j; k++)
				s -= a[i * cols + k] * a[j * cols + k];
			a[i * cols + j] = s / d;
		}
	}
	if (!rc) {
		for (int i = 0; i < cols; i++) { /* L z = b */
			double s = b[i];
			for (int k = 0; k < i; k++)
				s -= a[i * cols + k] * w[k];
			w[i] = s / a[i * cols + i];
		}
		for (int i = cols - 1; i >= 0; i--) { /* L^T w = z */
			double s = w[i];
			for (int k = i + 1; k < cols; k++)
				s -= a[k * cols + i] * w[k];
			w[i] = s / a[i * cols + i];
		}
	}
	free(a);
	free(b);
	return rc;
}
