/*
 * analyse.c - the analysis of one position and move (see analyse.h):
 * shared by `carc analyse`, `carc engine` and the server's analyses of
 * finished games (analysis.c).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"

/* P(win) = logistic(margin / (WIN_A + WIN_B * tiles left / 72)): fitted
 * by log loss on the positions of 400 greedy games, 2 players, base game
 * (bench/bots/win_scale.py); held out (100 games) its log loss is 0.522,
 * that of a fixed scale of 20 points 0.579. */
#define WIN_A 3.0
#define WIN_B 12.0

double an_win(const carc_game *g, int p, double margin)
{
	if (carc_game_over(g)) {
		int s[CARC_MAX_PLAYERS], np = carc_players(g), best = -1, k = 0;
		carc_game_scores(g, s);
		for (int i = 0; i < np; i++)
			if (s[i] > best)
				best = s[i];
		for (int i = 0; i < np; i++)
			k += s[i] == best;
		return s[p] == best ? 1.0 / k : 0.0;
	}
	double t = carc_tiles_left(g) / 72.0;
	return 1.0 / (1.0 + exp(-margin / (WIN_A + WIN_B * t)));
}

int an_position(carc_bot *b, const carc_game *g, carc_move played, an_move *out)
{
	carc_game *c = carc_game_alloc();
	if (!c)
		return -1;
	int p = carc_to_move(g);
	out->player = p;
	out->best = carc_bot_choose(b, g);
	out->played = played;
	carc_game_copy(c, g);
	carc_apply_unchecked(c, out->best, NULL);
	out->margin_best = carc_eval_margin(c, p);
	out->win_best = an_win(c, p, out->margin_best);
	out->margin_played = out->margin_best;
	out->win_played = out->win_best;
	if (played != CARC_MOVE_NONE && played != out->best) {
		carc_game_copy(c, g);
		if (carc_apply(c, played, NULL, NULL) != CARC_OK) {
			free(c);
			return -1;
		}
		out->margin_played = carc_eval_margin(c, p);
		out->win_played = an_win(c, p, out->margin_played);
	}
	out->lost = out->margin_best > out->margin_played ? out->margin_best - out->margin_played : 0;
	free(c);
	return 0;
}

/* The game at the start of the record: the record with no turns and no
 * final, replayed. 0 or -1 with a message. */
int an_start_of(const char *text, size_t len, carc_game *g, char *err, size_t errsize)
{
	json_t *root = json_loadb(text, len, 0, NULL);
	if (!root) {
		snprintf(err, errsize, "not valid JSON");
		return -1;
	}
	json_object_set_new(root, "turns", json_array());
	json_object_del(root, "final");
	char *s = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!s) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	int rc = carc_record_replay(s, strlen(s), g, err, errsize) == CARC_OK ? 0 : -1;
	free(s);
	return rc;
}

