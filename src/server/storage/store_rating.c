/*
 * store_rating.c - the rating update of a rated game, written once for
 * both stores over store_sql.h (see store.h, store_result, and
 * people/ratings.h for the rules). Both stores call store_rate_game from
 * inside the transaction that stores the game's result (SQLite's
 * add_move and save_clock, PostgreSQL's store_result_rows): the result's
 * row (its primary key) and the ratings' rows go in together or not at
 * all, so a game is rated exactly once, also across processes and
 * restarts.
 *
 * What is written, per account seated: its rating, deviation and
 * volatility, one more rated game, the counts that make it established
 * (est_games: rated games in which another seat was established;
 * opponents: distinct established opponents met, kept as rows of
 * rating_opponents (accounts; an account's deletion removes the rows
 * naming it) and rating_bots (a bot by its fixed rating) so that meeting
 * one again adds nothing) and the
 * established flag the leaderboard's partial index (accounts_board)
 * reads; and one history row (ratings). PostgreSQL locks the accounts'
 * rows first, in id order, so that two processes rating two games with
 * the same people do it one after the other and never wait for each other
 * in a circle.
 */
#include <stdio.h>
#include <string.h>

#include "server.h"
#include "store.h"
#include "store_sql.h"

static int read_rating(void *ctx, const store_row *r)
{
	store_rating *x = ctx;
	x->rating = row_f64(r, 0);
	x->rd = row_f64(r, 1);
	x->vol = row_f64(r, 2);
	x->est_games = (int)row_i64(r, 3);
	x->opponents = (int)row_i64(r, 4);
	x->found = 1;
	return 0;
}

int store_rate_game(store *s, const char *id, const store_result *r, char *err)
{
	int64_t t0 = srv_mono_us();
	store_rating rt[STORE_MAX_RATED];
	int n = r->nrated < STORE_MAX_RATED ? r->nrated : STORE_MAX_RATED, bad = 0;
	memcpy(rt, r->rated, (size_t)n * sizeof rt[0]);
	/* the accounts' rows in id order (PostgreSQL: locked) */
	int order[STORE_MAX_RATED], k = 0;
	for (int i = 0; i < n; i++) {
		rt[i].found = 0;
		if (!rt[i].account)
			continue;
		int j = k++;
		while (j > 0 && rt[order[j - 1]].account > rt[i].account) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
#define SEL "SELECT rating, rd, vol, est_games, opponents FROM accounts WHERE id=$1"
	for (int o = 0; o < k; o++)
		sql_rows(s, s->sql->pg ? SEL " FOR UPDATE" : SEL, SQL_A1(rt[order[o]].account),
		         read_rating, &rt[order[o]], &bad, err);
#undef SEL
	if (bad)
		return -1;
	/* an account deleted meanwhile (its seat not anonymised yet) is no
	 * opponent and gets nothing written (ratings_update: found) */
	r->rate(r, rt, n);
	for (int o = 0; o < k && !bad; o++) {
		store_rating *x = &rt[order[o]];
		if (!x->found)
			continue;
		int met = 0;
		for (int j = 0; j < n && x->counted; j++) {
			if (&rt[j] == x || !rt[j].established)
				continue;
			int added = rt[j].key > 0
			                ? sql_run(s, "INSERT INTO rating_opponents (account, opponent)"
			                             " VALUES ($1, $2) ON CONFLICT DO NOTHING",
			                          SQL_A2(x->account, rt[j].key), &bad, err)
			                : sql_run(s, "INSERT INTO rating_bots (account, bot)"
			                             " VALUES ($1, $2) ON CONFLICT DO NOTHING",
			                          SQL_A2(x->account, -rt[j].key), &bad, err);
			met += added > 0;
		}
		int games = x->est_games + x->counted, opponents = x->opponents + met;
		sql_run(s, "UPDATE accounts SET rating=$1, rd=$2, vol=$3, games=games+1,"
		           " est_games=$4, opponents=$5, established=$6 WHERE id=$7",
		        SQL_ARGS(SQL_F(x->new_rating), SQL_F(x->new_rd), SQL_F(x->new_vol), SQL_I(games),
		                 SQL_I(opponents), SQL_I(store_established(r, games, opponents)),
		                 SQL_I(x->account)),
		        &bad, err);
		sql_run(s, "INSERT INTO ratings (account, game_id, seat, rating_before, rating_after,"
		           " rd_after, vol_after, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
		        SQL_ARGS(SQL_I(x->account), SQL_S(id), SQL_I(x->seat), SQL_F(x->rating),
		                 SQL_F(x->new_rating), SQL_F(x->new_rd), SQL_F(x->new_vol),
		                 SQL_I(r->at_ms)),
		        &bad, err);
	}
	if (bad)
		return -1;
	srv_event("table=%s event=rated seats=%d us=%lld", id, n, (long long)(srv_mono_us() - t0));
	return 0;
}
