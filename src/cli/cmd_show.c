/*
 * cmd_show.c - `carc show FILE [--turn N]`: draws the board of a game
 * record in the terminal, after turn N (default: the end), with the scores.
 *
 * The position after turn N is found by the engine itself: the record's
 * turns are cut after the N-th (and its "final" dropped) and the shortened
 * record goes through carc_record_replay, so everything shown has been
 * checked, and a record that goes wrong later can still be shown up to
 * the turn before.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "board_draw.h"
#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "show";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc show FILE [--turn N] [--color=auto|always|never] [--size S]\n"
	        "\n"
	        "Draws the board of a game record (carc-record-1) after turn N, with each\n"
	        "player's score beside it, and the final points by kind once the game is\n"
	        "over. Each tile is a block of characters drawn from the engine's tile\n"
	        "model:\n"
	        "  . field   # city   - | + road   o road junction   ^ cloister   * shield\n"
	        "  1..6 a follower of that player (in the player's colour)\n"
	        "  B b p a  big follower, builder, pig, abbot   %% garden   ~ river\n"
	        "  i inn   x cathedral\n"
	        "Princess & Dragon: D the dragon, f the fairy (beside its follower),\n"
	        "  = a square of the dragon's flight under way, q the princess,\n"
	        "  v d @ a volcano, dragon or magic portal tile; where the dragon and the\n"
	        "  fairy stand is also written beside the scores.\n"
	        "x coordinates run along the top (east is +x), y down the left (south is +y).\n"
	        "FILE '-' reads standard input.\n"
	        "\n"
	        "options:\n"
	        "  --turn N        the board after turn N (0: the start tile; default: the end)\n"
	        "  --color=WHEN    ANSI colours: auto (default: when stdout is a terminal and\n"
	        "                  NO_COLOR is unset), always, never\n"
	        "  --size S        tile blocks: large (7x5), small (5x3), or auto (default:\n"
	        "                  large if it fits the terminal)\n"
	        "  -h, --help      this help\n"
	        "\n"
	        "examples:\n"
	        "  carc sim --games 1 --record games && carc show games/game-1.json\n"
	        "  carc show games/game-1.json --turn 20 --color=never --size small\n");
}

/* The record text cut after `turn` turns, without "final": a malloc'd
 * string the caller frees. NULL with a message in err if the text is not a
 * record with turns, or has fewer than `turn` turns (*nturns: how many it
 * has); *nturns alone is set and NULL returned with err empty when no cut
 * is needed (turn is the last turn). */
static char *cut_record(const char *text, size_t len, long turn, long *nturns, char *err,
                        size_t errsize)
{
	json_error_t je;
	err[0] = '\0';
	*nturns = -1;
	json_t *root = json_loadb(text, len, 0, &je);
	json_t *turns = root ? json_object_get(root, "turns") : NULL;
	if (!json_is_array(turns)) {
		/* not for us to judge: the replay says what is wrong */
		json_decref(root);
		return NULL;
	}
	*nturns = (long)json_array_size(turns);
	char *out = NULL;
	if (turn > *nturns) {
		snprintf(err, errsize, "--turn %ld: the record has %ld turns", turn, *nturns);
	} else if (turn < *nturns) {
		json_t *cut = json_array();
		for (long i = 0; i < turn; i++)
			json_array_append(cut, json_array_get(turns, (size_t)i));
		json_object_set_new(root, "turns", cut);
		json_object_del(root, "final");
		out = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT);
		if (!out)
			snprintf(err, errsize, "out of memory");
	}
	json_decref(root);
	return out;
}

int cmd_show(int argc, char **argv)
{
	const char *path = NULL;
	long turn = -1;
	int color = 2, size_auto = 1;
	bd_opts o;
	bd_opts_default(&o, stdout);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if ((st = ropt_color(CMD, argc, argv, &i, &color)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--turn", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--turn", v, 0, carc_limit(CARC_LIMIT_BOARD_TILES), &turn))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--size", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			size_auto = !strcmp(v, "auto");
			if (!size_auto && bd_set_size(&o, v))
				return ropt_usage(CMD, "--size: unknown '%s' (valid: auto, large, small)", v);
		} else if (argv[i][0] != '-' || !strcmp(argv[i], "-")) {
			if (path)
				return ropt_usage(CMD, "more than one record file ('%s', '%s')", path,
				                  argv[i]);
			path = argv[i];
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (!path)
		return ropt_usage(CMD, "no record file given");

	char err[512];
	size_t len;
	char *text = ropt_read_file(path, &len, err, sizeof err);
	if (!text) {
		fprintf(stderr, "carc show: %s: cannot read: %s\n", path, err);
		return 1;
	}
	long nturns = -1;
	if (turn >= 0) {
		char *cut = cut_record(text, len, turn, &nturns, err, sizeof err);
		if (!cut && err[0]) {
			free(text);
			fprintf(stderr, "carc show: %s: %s\n", path, err);
			return 1;
		}
		if (cut) {
			free(text);
			text = cut;
			len = strlen(cut);
		}
	}
	carc_game *g = carc_game_alloc();
	if (!g) {
		free(text);
		fprintf(stderr, "carc show: out of memory\n");
		return 1;
	}
	carc_status st = carc_record_replay(text, len, g, err, sizeof err);
	free(text);
	if (st != CARC_OK) {
		fprintf(stderr, "carc show: %s: %s\n", path, err);
		carc_game_free(g);
		return 1;
	}

	o.color = ropt_color_on(color, stdout);
	if (size_auto)
		bd_fit(g, &o);
	int played = carc_turns_played(g);
	if (played > 0) {
		o.highlight = carc_board_tiles(g) - 1;
		printf("%s, turn %d%s: ", path, played, nturns > played ? "" : " (the last)");
		/* the turn's steps, the tile's first */
		for (int k = 0, first = 1; k < carc_steps_played(g); k++) {
			carc_step_info si;
			carc_step_played(g, k, &si);
			if (si.turn != played - 1)
				continue;
			if (!first)
				printf("; ");
			first = 0;
			bd_print_step(stdout, g, k, o.color);
		}
		printf("\n");
	} else {
		printf("%s: the start of the game\n", path);
	}
	bd_draw(stdout, g, &o);
	carc_game_free(g);
	return 0;
}
