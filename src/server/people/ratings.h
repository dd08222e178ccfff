/*
 * ratings.h - Glicko-2 ratings of accounts (docs/server.md, "Ratings").
 *
 * One rating per account for every number of players. A finished game is
 * rated only when its table was not made unrated ("rated": false, the
 * training option) and it is a real game: it was played on the rule set's
 * standard pile (no "tiles" option), every seat played at least
 * --rated-min-moves of its own moves (a seat's moves made by the takeover
 * bot, after timeouts or when it was given up, are not its own; a seat
 * under the minimum leaves the whole game unrated, for every seat, so
 * that nobody gains from a partner who resigns or sits idle), every human
 * seat belongs to an account (no account twice) and every bot plays a
 * spec with a fixed rating (ratings_bot); a game of
 * n seats counts as the n(n-1)/2 two-player results between its seats
 * (more points wins, equal points is a draw, a forfeited seat loses to
 * every seat that did not forfeit), and each account's results of one
 * game are one Glicko-2 rating period. Bots keep their fixed ratings.
 *
 * Fresh accounts cannot buy a rating (issue 26): an account is
 * *established* once it has played est_games_min rated games in which
 * another seat was established, against est_opponents_min distinct
 * established opponents (a bot is one opponent per fixed rating, and
 * every bot is established); until then it is *provisional*. A result
 * against a provisional seat moves nobody's rating: each account's period
 * holds only its results against established seats (bots included), and
 * an account with none keeps its rating, deviation and volatility as they
 * were (the game is still rated: it counts in `games` and the history).
 * So a newcomer's rating is made by established players and bots, as
 * Glicko-2 says, and a ring of fresh accounts that play each other never
 * becomes established. Only established accounts are on the leaderboard.
 * With both thresholds 0 every account is established: plain Glicko-2.
 *
 * The update runs in the store's transaction of the game's last move
 * (store_result.rate), so it happens exactly once per game. Pure
 * functions: no I/O, no state.
 */
#ifndef CARC_SERVER_RATINGS_H
#define CARC_SERVER_RATINGS_H

#include <stdint.h>

#include "store.h"

#define RATING_START 1500.0
#define RATING_RD_START 350.0
#define RATING_VOL_START 0.06
#define RATING_TAU 0.5      /* Glicko-2's system constant: how fast volatility moves */
#define RATING_BOT_RD 60.0  /* the fixed ratings' uncertainty (docs/server.md) */

/* The fixed rating of a bot spec ("random", "softgreedy", "greedy",
 * "mcts:time=T" with T from 0.1 to 1): 1, or 0 when the spec has none
 * (the game is unrated). */
int ratings_bot(const char *spec, double *rating);

/* A seat as ratings_prepare sees it. */
typedef struct rt_seat {
	int kind;            /* STORE_SEAT_* */
	int64_t account;     /* humans: 0 for a guest */
	const char *spec;    /* bots */
	int points;
	int forfeited;
	int own_moves;       /* moves the seat made itself (a bot seat: all of its) */
} rt_seat;

/* Why ratings_prepare left a game unrated (RT_RATED: it did not). */
typedef enum rt_why {
	RT_RATED,
	RT_UNRATED_TABLE,    /* the table was made unrated ("rated": false) */
	RT_CUSTOM_PILE,      /* not the rule set's standard pile */
	RT_FEW_MOVES,        /* a seat played fewer than min_moves of its own */
	RT_GUEST,            /* a human seat without an account, or one account twice */
	RT_BOT_UNRATED,      /* a bot spec without a fixed rating */
	RT_NO_ACCOUNT,       /* no seat with an account, or not 2..STORE_MAX_RATED seats */
	/* the table's own reasons, before ratings_prepare is asked
	 * (table/moves.c, rating_outcome); it never returns these */
	RT_TUTORIAL,         /* the guided first game: a lesson, not a result */
	RT_NO_SHOW,          /* a quick match voided: a seat never made its first move */
} rt_why;

/* The thresholds of an established account (docs/server.md "Ratings"):
 * --established-games and --established-opponents. */
typedef struct rt_thresholds {
	int games, opponents;
} rt_thresholds;

/* Fills r->rated, r->nrated, r->rate and the thresholds when the game is
 * rated (returns RT_RATED, 0), else leaves r unrated (nrated 0) and
 * returns why. table_rated: 0 when the table was made unrated;
 * standard_pile: the game used the rule set's own pile; min_moves: the own
 * moves every seat needs (0: none). */
rt_why ratings_prepare(store_result *r, const rt_seat *seats, int n, int table_rated,
                       int standard_pile, int min_moves, rt_thresholds est);
const char *ratings_why_name(rt_why w);

/* The result of seat i against seat j: 1, 0.5 or 0. */
double ratings_pair(const store_rating *a, const store_rating *b);

/* store_result.rate: `established` of every seat, then new_* and
 * `counted` of every account from the before values (weighing only the
 * established opponents). */
void ratings_update(const store_result *res, store_rating *r, int n);

#endif
