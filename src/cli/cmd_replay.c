/*
 * cmd_replay.c - `carc replay FILE...`: plays each game record through the
 * engine (carc_record_replay checks every turn, the scores and the final
 * breakdown) and says per file whether it holds. The messages about a bad
 * record are the engine's; this file only reads files and reports.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "board_draw.h"
#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "replay";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc replay [-q] [--json] FILE...\n"
	        "\n"
	        "Plays each game record (carc-record-1 JSON) through the engine and checks\n"
	        "every turn: the tile drawn, the placement, the figure, the scores after the\n"
	        "turn, and the final scores by kind. Prints per file\n"
	        "  FILE: ok (N turns, scores A-B)\n"
	        "or the first thing that is wrong, e.g.\n"
	        "  FILE: turn 12 (turns[11]): key meeple.at: ...\n"
	        "FILE '-' reads standard input.\n"
	        "\n"
	        "options:\n"
	        "  -q, --quiet   print nothing for records that hold, only the failures\n"
	        "  --json        print one JSON object per file and line instead:\n"
	        "                {\"file\", \"ok\", \"turns\", \"over\", \"scores\", \"by_kind\"}\n"
	        "                or {\"file\", \"ok\": false, \"error\"}\n"
	        "  -h, --help    this help\n"
	        "\n"
	        "Exit status: 0 if every record holds, 1 if one does not (or cannot be\n"
	        "read), 2 for a bad command line.\n"
	        "\n"
	        "example:\n"
	        "  carc sim --games 10 --record games && carc replay games/*.json\n");
}

/* The record's final scores and points by kind, as JSON. */
static json_t *result_json(const char *path, const carc_game *g)
{
	int np = carc_players(g), scores[CARC_MAX_PLAYERS];
	carc_game_scores(g, scores);
	json_t *o = json_object(), *sc = json_array(), *bk = json_array();
	for (int p = 0; p < np; p++) {
		json_array_append_new(sc, json_integer(scores[p]));
		json_t *k = json_object();
		for (int i = 0; i < CARC_SCORE_KIND_COUNT; i++)
			if (bd_kind_shown(g, i))
				json_object_set_new(k, bd_score_kind_name(i),
			                    json_integer(carc_score_by_kind(g, p, i)));
		json_array_append_new(bk, k);
	}
	json_object_set_new(o, "file", json_string(path));
	json_object_set_new(o, "ok", json_true());
	json_object_set_new(o, "turns", json_integer(carc_turns_played(g)));
	json_object_set_new(o, "steps", json_integer(carc_steps_played(g)));
	json_object_set_new(o, "over", json_boolean(carc_game_over(g)));
	json_object_set_new(o, "scores", sc);
	json_object_set_new(o, "by_kind", bk);
	return o;
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
	if (s) {
		puts(s);
		free(s);
	}
	json_decref(o);
}

/* Checks one file; prints its line; returns 0 if the record holds. */
static int replay_one(const char *path, int quiet, int as_json, carc_game *g)
{
	char err[512], why[256];
	size_t len;
	char *text = ropt_read_file(path, &len, why, sizeof why);
	int ok = 0;
	if (!text) {
		snprintf(err, sizeof err, "cannot read: %s", why);
	} else {
		ok = carc_record_replay(text, len, g, err, sizeof err) == CARC_OK;
		free(text);
	}
	if (as_json) {
		if (ok) {
			print_json(result_json(path, g));
		} else {
			json_t *o = json_object();
			json_object_set_new(o, "file", json_string(path));
			json_object_set_new(o, "ok", json_false());
			json_object_set_new(o, "error", json_string(err));
			print_json(o);
		}
	} else if (!ok) {
		printf("%s: %s\n", path, err);
	} else if (!quiet) {
		int scores[CARC_MAX_PLAYERS];
		carc_game_scores(g, scores);
		printf("%s: ok (%d turns%s, scores ", path, carc_turns_played(g),
		       carc_game_over(g) ? "" : ", unfinished");
		for (int p = 0; p < carc_players(g); p++)
			printf("%s%d", p ? "-" : "", scores[p]);
		printf(")\n");
	}
	return ok ? 0 : 1;
}

int cmd_replay(int argc, char **argv)
{
	int quiet = 0, as_json = 0, nfiles = 0, end_of_opts = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (end_of_opts || a[0] != '-' || !strcmp(a, "-")) {
			nfiles++;
			continue;
		}
		if (ropt_is_help(a)) {
			help(stdout);
			return 0;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strcmp(a, "--json"))
			as_json = 1;
		else if (!strcmp(a, "--"))
			end_of_opts = 1;
		else
			return ropt_unknown(CMD, a);
	}
	if (nfiles == 0)
		return ropt_usage(CMD, "no record file given");

	carc_game *g = carc_game_alloc();
	if (!g) {
		fprintf(stderr, "carc replay: out of memory\n");
		return 1;
	}
	int failed = 0;
	end_of_opts = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!end_of_opts && !strcmp(a, "--")) {
			end_of_opts = 1;
			continue;
		}
		if (end_of_opts || a[0] != '-' || !strcmp(a, "-"))
			failed |= replay_one(a, quiet, as_json, g);
	}
	free(g);
	fflush(stdout);
	return failed ? 1 : 0;
}
