/*
 * cmd_analyse.c - `carc analyse RECORD`: goes through a recorded game turn
 * by turn and says for every move the bot's best move, the mover's
 * expected final margin and win probability after the best move and after
 * the move played, and the points the move lost against the best (see
 * analyse.h for where the numbers come from).
 *
 * The record is checked by replaying it (carc_record_replay); the game is
 * then rebuilt from the record's rules and seed with no turns and the
 * moves of the record applied one by one, each with the tile the record
 * says was drawn.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "board_draw.h"
#include "cli.h"
#include "move_json.h"
#include "rules_opts.h"

static const char *const CMD = "analyse";


static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc analyse RECORD [--time S] [--bot SPEC] [--seed N] [--json]\n"
	        "\n"
	        "Goes through a recorded game (carc-record-1) turn by turn. For every move:\n"
	        "the bot's best move, the mover's expected final margin (own score minus the\n"
	        "best other score) and win probability after the best move and after the\n"
	        "move played, and the points the move lost against the best one:\n"
	        "  turn 12 player 2 (blue) V: played (2,-1) rot 1  best (3,0) rot 0 follower E1\n"
	        "    margin +6.2 -> +1.1  win 65%% -> 51%%  lost 5.1\n"
	        "(one line per turn), then the largest loss of each player.\n"
	        "\n"
	        "The margins are the heuristic evaluation greedy plays by (src/ai/eval.c:\n"
	        "points scored plus the expected value of features, farms and followers),\n"
	        "the win probability logistic(margin / (3 + 12 t)), t the share of tiles\n"
	        "left (1, 1/k or 0 once the game is over); the bot only chooses the best\n"
	        "move.\n"
	        "\n"
	        "options:\n"
	        "  --bot SPEC   the bot that chooses the best move (default greedy)\n"
	        "  --time S     think S seconds a move: --bot mcts:time=S, or time=S added\n"
	        "               to the --bot spec\n"
	        "  --seed N     the bot's seed (default 1)\n"
	        "  --json       one JSON object: {\"record\", \"bot\", \"value\", \"turns\":\n"
	        "               [{\"turn\", \"player\", \"tile\", \"played\", \"best\",\n"
	        "               \"margin_best\", \"margin_played\", \"win_best\",\n"
	        "               \"win_played\", \"lost\"}], \"largest\": [per player\n"
	        "               {\"player\", \"turn\", \"lost\"}], \"largest_turn\"}\n"
	        "               (moves as in records: {\"x\", \"y\", \"rot\", \"meeple\"})\n"
	        "  -h, --help   this help\n"
	        "\n"
	        "Exit status: 0, 1 if the record cannot be read or does not replay, 2 for a\n"
	        "bad command line.\n"
	        "\n"
	        "examples:\n"
	        "  carc analyse game.json\n"
	        "  carc analyse game.json --time 0.5 --json\n");
}

typedef struct worst {
	int turn; /* 1-based, 0: none */
	double lost;
} worst;

int cmd_analyse(int argc, char **argv)
{
	const char *path = NULL, *spec = NULL, *time = NULL;
	uint64_t seed = 1;
	int as_json = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			as_json = 1;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--bot", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			spec = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--time", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			char *end;
			double t = strtod(v, &end);
			if (!*v || *end || !(t > 0) || t > 3600)
				return ropt_usage(CMD, "--time: expected seconds in (0, 3600], got '%s'", v);
			time = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				return ROPT_USAGE;
		} else if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
			if (path)
				return ropt_usage(CMD, "one record at a time ('%s' and '%s')", path, argv[i]);
			path = argv[i];
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (!path)
		return ropt_usage(CMD, "no record file given");
	char full[300];
	if (time)
		snprintf(full, sizeof full, "%s%stime=%s", spec ? spec : "mcts",
		         spec && strchr(spec, ':') ? "," : ":", time);
	else
		snprintf(full, sizeof full, "%s", spec ? spec : "greedy");
	char err[512];
	carc_bot *b = carc_bot_new(full, seed, err, sizeof err);
	if (!b)
		return ropt_usage(CMD, "--bot %s: %s", full, err);

	size_t len;
	char *text = ropt_read_file(path, &len, err, sizeof err);
	carc_game *rec = carc_game_alloc(), *g = carc_game_alloc();
	int rc = 1;
	if (!text) {
		fprintf(stderr, "carc analyse: %s: cannot read: %s\n", path, err);
		goto out;
	}
	if (!rec || !g) {
		fprintf(stderr, "carc analyse: out of memory\n");
		goto out;
	}
	if (carc_record_replay(text, len, rec, err, sizeof err) != CARC_OK ||
	    an_start_of(text, len, g, err, sizeof err)) {
		fprintf(stderr, "carc analyse: %s: %s\n", path, err);
		goto out;
	}
	int np = carc_players(rec), nsteps = carc_steps_played(rec);
	worst w[CARC_MAX_PLAYERS] = {{0, 0}};
	worst all = {0, 0};
	json_t *jturns = json_array();
	/* every step, each in the position it was decided in */
	for (int k = 0; k < nsteps; k++) {
		carc_step_info si;
		carc_step_played(rec, k, &si);
		int type = si.tile, player = si.player, turn = si.turn + 1;
		carc_move m = si.move;
		an_move a;
		if ((si.kind == CARC_STEP_TILE && carc_set_current_tile(g, type) != CARC_OK) ||
		    carc_to_move(g) != player || an_position(b, g, m, &a)) {
			fprintf(stderr, "carc analyse: %s: turn %d does not follow from the record\n", path,
			        turn);
			json_decref(jturns);
			goto out;
		}
		if (a.lost > w[player].lost || !w[player].turn)
			w[player] = (worst){turn, a.lost};
		if (a.lost > all.lost || !all.turn)
			all = (worst){turn, a.lost};
		if (as_json) {
			json_t *o = json_object();
			json_object_set_new(o, "turn", json_integer(turn));
			json_object_set_new(o, "step", json_integer(k));
			json_object_set_new(o, "player", json_integer(player));
			json_object_set_new(o, "tile", json_string(carc_tile_name(type)));
			json_object_set_new(o, "played", mj_move(g, m));
			json_object_set_new(o, "best", mj_move(g, a.best));
			json_object_set_new(o, "margin_best", json_real(a.margin_best));
			json_object_set_new(o, "margin_played", json_real(a.margin_played));
			json_object_set_new(o, "win_best", json_real(a.win_best));
			json_object_set_new(o, "win_played", json_real(a.win_played));
			json_object_set_new(o, "lost", json_real(a.lost));
			json_array_append_new(jturns, o);
		} else {
			char pm[96], bm[96];
			carc_move_text(g, m, pm, sizeof pm);
			carc_move_text(g, a.best, bm, sizeof bm);
			printf("turn %d player %d (%s) %s: played %s  best %s%s  margin %+.1f -> %+.1f  "
			       "win %.0f%% -> %.0f%%  lost %.1f\n",
			       turn, player + 1, bd_player_colour(player), carc_tile_name(type), pm, bm,
			       a.best == m ? " (the same)" : "", a.margin_best, a.margin_played,
			       100 * a.win_best, 100 * a.win_played, a.lost);
		}
		carc_apply_unchecked(g, m, NULL);
	}
	if (as_json) {
		json_t *o = json_object(), *lg = json_array();
		json_object_set_new(o, "record", json_string(path));
		json_object_set_new(o, "bot", json_string(carc_bot_spec(b)));
		json_object_set_new(o, "value", json_string("eval.c heuristic: expected final margin "
		                                            "(own minus best other), win = "
		                                            "logistic(margin/(3+12*tiles_left/72))"));
		json_object_set_new(o, "turns", jturns);
		for (int p = 0; p < np; p++) {
			json_t *x = json_object();
			json_object_set_new(x, "player", json_integer(p));
			json_object_set_new(x, "turn", w[p].turn ? json_integer(w[p].turn) : json_null());
			json_object_set_new(x, "lost", json_real(w[p].lost));
			json_array_append_new(lg, x);
		}
		json_object_set_new(o, "largest", lg);
		json_object_set_new(o, "largest_turn", all.turn ? json_integer(all.turn) : json_null());
		char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
		json_decref(o);
		if (!s) {
			fprintf(stderr, "carc analyse: out of memory\n");
			goto out;
		}
		puts(s);
		free(s);
	} else {
		json_decref(jturns);
		for (int p = 0; p < np; p++)
			if (w[p].turn)
				printf("largest loss of player %d (%s): turn %d, %.1f points\n", p + 1,
				       bd_player_colour(p), w[p].turn, w[p].lost);
	}
	rc = 0;
out:
	fflush(stdout);
	free(text);
	free(rec);
	free(g);
	carc_bot_free(b);
	return rc;
}
