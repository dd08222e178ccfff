/*
 * blunder.c - makes a record with one known blunder, for test_analyse.sh.
 *
 * usage: blunder SEED OUT.json
 *
 * Two greedy bots play the base game from SEED. At the first turn from the
 * fifth on where greedy's move completes a city that scores for the mover,
 * and some other legal move scores no city for the mover and is worth at
 * least GAP (3) points less to the evaluation, the mover plays the best of those
 * other moves instead: the city is left open. The game goes on with
 * greedy's moves. Prints the blunder's turn (1-based); exit status 1 if the
 * game had no such turn.
 */
#include <stdio.h>
#include <stdlib.h>

#include "carc.h"
#include "carc_bot.h"

#ifndef GAP
#define GAP 3
#endif

/* Points of city scoring that move m gives player p in g. */
static int city_points(const carc_game *g, carc_move m, int p, carc_game *tmp)
{
	carc_events ev;
	carc_game_copy(tmp, g);
	carc_apply_unchecked(tmp, m, &ev);
	int pts = 0;
	for (int i = 0; i < ev.n; i++)
		if (ev.ev[i].kind == CARC_SCORE_CITY)
			pts += ev.ev[i].points[p];
	return pts;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: blunder SEED OUT.json\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 10);
	carc_rules r;
	carc_rules_default(&r);
	carc_game *g = carc_game_alloc(), *tmp = carc_game_alloc();
	carc_move *moves = malloc(sizeof *moves * CARC_MAX_MOVES);
	char err[CARC_ERRMSG_SIZE];
	if (!g || !tmp || !moves || carc_game_init(g, &r, seed, NULL, 0, err) != CARC_OK)
		return 2;
	carc_bot *b = carc_bot_new("greedy", seed, err, sizeof err);
	int blunder = 0;
	while (!carc_game_over(g)) {
		int p = carc_to_move(g);
		carc_move m = carc_bot_choose(b, g);
		if (!blunder && carc_turns_played(g) >= 4 && city_points(g, m, p, tmp) > 0) {
			carc_game_copy(tmp, g);
			carc_apply_unchecked(tmp, m, NULL);
			double good = carc_eval_margin(tmp, p), alt_v = -1e9;
			carc_move alt = CARC_MOVE_NONE;
			int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
			for (int i = 0; i < n; i++) {
				if (city_points(g, moves[i], p, tmp) > 0)
					continue;
				double v = carc_eval_margin(tmp, p);
				if (v > alt_v) {
					alt_v = v;
					alt = moves[i];
				}
			}
			if (alt != CARC_MOVE_NONE && alt_v <= good - GAP) {
				blunder = carc_turns_played(g) + 1;
				m = alt;
			}
		}
		if (carc_apply(g, m, NULL, err) != CARC_OK) {
			fprintf(stderr, "blunder: %s\n", err);
			return 2;
		}
	}
	char *text = carc_record_write(g, NULL);
	FILE *f = fopen(argv[2], "w");
	if (!text || !f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "blunder: cannot write %s\n", argv[2]);
		return 2;
	}
	free(text);
	carc_bot_free(b);
	free(g);
	free(tmp);
	free(moves);
	if (!blunder)
		return 1;
	printf("%d\n", blunder);
	return 0;
}
