/*
 * ratings.c - Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013)
 * over the pairwise results of a game; see ratings.h for what is rated.
 *
 * The fixed ratings of the bots come from the level ladder of docs/bots.md
 * (arena matches of adjacent levels, 2 players, base game), anchored at
 * random = 1000 (docs/server.md, "Ratings"):
 *   greedy (medium) beat random in 200 of 200 games: Elo +inf, 95% bound
 *     +687: greedy = 1700
 *   softgreedy (temp=1, easy) won 4.2% of 200 games against greedy: -541:
 *     1159 (it beat random in 200 of 200, a bound of +687 that the figure
 *     against greedy, the closer opponent, overrides)
 *   mcts:time=0.1 (hard) against greedy: RATING_HARD_ELO
 *   mcts:time=1 (expert) against mcts:time=0.1: RATING_EXPERT_ELO
 *   mcts:time=T in between: linear in log10(T) from hard to expert
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratings.h"

/* the ladder's measured differences (docs/bots.md, "Levels") */
#define RATING_HARD_ELO 604.0 /* 97.0% of 100 games */
#define RATING_EXPERT_ELO 104.0 /* 64.5% of 100 games */

#define SCALE 173.7178
#define EPS 1e-6

int ratings_bot(const char *spec, double *rating)
{
	if (!spec)
		return 0;
	if (!strcmp(spec, "random")) {
		*rating = 1000;
		return 1;
	}
	if (!strcmp(spec, "greedy")) {
		*rating = 1700;
		return 1;
	}
	if (!strcmp(spec, "softgreedy")) {
		*rating = 1159;
		return 1;
	}
	double t;
	char tail;
	if (sscanf(spec, "mcts:time=%lf%c", &t, &tail) == 1 && t >= 0.1 - 1e-9 && t <= 1 + 1e-9) {
		*rating = 1700 + RATING_HARD_ELO + RATING_EXPERT_ELO * log10(t / 0.1);
		return 1;
	}
	return 0;
}

const char *ratings_why_name(rt_why w)
{
	static const char *const names[] = {"rated", "unrated_table", "custom_pile", "few_moves",
	                                    "guest", "bot_unrated", "no_account", "tutorial",
	                                    "no_show"};
	return w <= RT_NO_SHOW ? names[w] : "?";
}

rt_why ratings_prepare(store_result *r, const rt_seat *seats, int n, int table_rated,
                       int standard_pile, int min_moves, rt_thresholds est)
{
	r->nrated = 0;
	r->rate = NULL;
	if (n < 2 || n > STORE_MAX_RATED)
		return RT_NO_ACCOUNT;
	if (!table_rated)
		return RT_UNRATED_TABLE;
	if (!standard_pile)
		return RT_CUSTOM_PILE;
	int accounts = 0;
	for (int i = 0; i < n; i++) {
		store_rating *x = &r->rated[i];
		memset(x, 0, sizeof *x);
		x->seat = i;
		x->points = seats[i].points;
		x->forfeited = seats[i].forfeited;
		if (seats[i].kind == STORE_SEAT_HUMAN) {
			if (!seats[i].account)
				return RT_GUEST;
			for (int j = 0; j < i; j++)
				if (seats[j].kind == STORE_SEAT_HUMAN && seats[j].account == seats[i].account)
					return RT_GUEST; /* one account on two seats */
			x->account = x->key = seats[i].account;
			accounts++;
		} else if (seats[i].kind == STORE_SEAT_BOT) {
			if (!ratings_bot(seats[i].spec, &x->rating))
				return RT_BOT_UNRATED;
			x->rd = RATING_BOT_RD;
			x->vol = RATING_VOL_START;
			/* a bot as an opponent: its fixed rating (one per spec) */
			x->key = -(int64_t)lround(x->rating);
		} else {
			return RT_NO_ACCOUNT;
		}
	}
	if (!accounts)
		return RT_NO_ACCOUNT;
	/* after the rest, so that a guest's game says "guest" */
	for (int i = 0; i < n; i++)
		if (seats[i].own_moves < min_moves)
			return RT_FEW_MOVES;
	r->nrated = n;
	r->rate = ratings_update;
	r->est_games_min = est.games;
	r->est_opponents_min = est.opponents;
	return RT_RATED;
}

double ratings_pair(const store_rating *a, const store_rating *b)
{
	if (a->forfeited != b->forfeited)
		return a->forfeited ? 0 : 1;
	if (a->forfeited)
		return 0.5;
	return a->points > b->points ? 1 : a->points < b->points ? 0 : 0.5;
}

#define PI 3.14159265358979323846

static double g_of(double phi) { return 1 / sqrt(1 + 3 * phi * phi / (PI * PI)); }

typedef struct vol_ctx {
	double delta2, phi2, v, a;
} vol_ctx;

static double vol_f(const vol_ctx *c, double x)
{
	double ex = exp(x), d = c->phi2 + c->v + ex;
	return ex * (c->delta2 - c->phi2 - c->v - ex) / (2 * d * d) -
	       (x - c->a) / (RATING_TAU * RATING_TAU);
}

/* One Glicko-2 period for player i against every other established
 * seat (at least one). */
static void update_one(store_rating *r, int n, int i)
{
	store_rating *p = &r[i];
	double mu = (p->rating - 1500) / SCALE, phi = p->rd / SCALE, sigma = p->vol;
	double vinv = 0, dsum = 0;
	for (int j = 0; j < n; j++) {
		if (j == i || !r[j].established)
			continue;
		double muj = (r[j].rating - 1500) / SCALE, g = g_of(r[j].rd / SCALE);
		double e = 1 / (1 + exp(-g * (mu - muj)));
		vinv += g * g * e * (1 - e);
		dsum += g * (ratings_pair(p, &r[j]) - e);
	}
	double v = 1 / vinv, delta = v * dsum;
	vol_ctx c = {delta * delta, phi * phi, v, log(sigma * sigma)};
	double A = c.a, B;
	if (c.delta2 > c.phi2 + v) {
		B = log(c.delta2 - c.phi2 - v);
	} else {
		int k = 1;
		while (vol_f(&c, c.a - k * RATING_TAU) < 0 && k < 1000)
			k++;
		B = c.a - k * RATING_TAU;
	}
	double fA = vol_f(&c, A), fB = vol_f(&c, B);
	for (int it = 0; fabs(B - A) > EPS && it < 200; it++) {
		double C = A + (A - B) * fA / (fB - fA), fC = vol_f(&c, C);
		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else {
			fA /= 2;
		}
		B = C;
		fB = fC;
	}
	double nsigma = exp(A / 2);
	double phistar = sqrt(phi * phi + nsigma * nsigma);
	double nphi = 1 / sqrt(1 / (phistar * phistar) + 1 / v);
	double nmu = mu + nphi * nphi * dsum;
	p->new_rating = SCALE * nmu + 1500;
	p->new_rd = SCALE * nphi;
	p->new_vol = nsigma;
}

void ratings_update(const store_result *res, store_rating *r, int n)
{
	/* who is established before the game: a bot always; an account by its
	 * counts (one not stored any more, deleted meanwhile, never) */
	for (int i = 0; i < n; i++)
		r[i].established = !r[i].account ||
		                   (r[i].found && store_established(res, r[i].est_games, r[i].opponents));
	for (int i = 0; i < n; i++) {
		r[i].counted = 0;
		for (int j = 0; j < n; j++)
			r[i].counted |= j != i && r[j].established;
		r[i].counted &= r[i].account != 0 && r[i].found;
		if (r[i].counted) {
			update_one(r, n, i);
		} else {
			/* a bot, or no established opponent: nothing moves */
			r[i].new_rating = r[i].rating;
			r[i].new_rd = r[i].rd;
			r[i].new_vol = r[i].vol;
		}
	}
}
