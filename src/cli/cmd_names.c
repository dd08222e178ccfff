/*
 * cmd_names.c - `carc names`: every name the engine gives (figures,
 * features, scoring kinds, goods, tile sets, steps, expansions,
 * farm-scoring editions, ports, tiles), the words records and the
 * server's JSON use. They exist in the engine only; programs ask for them
 * (carc_name, carc_vocabulary_json) and this prints the same lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "names";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc names [--json]\n"
	        "\n"
	        "Prints every name the engine gives, one list a line: figures, features,\n"
	        "score kinds, goods, tile sets, steps, expansions, farm-scoring editions,\n"
	        "ports, tiles and the figures in words. These are the words records and\n"
	        "the server's messages use; the engine is their one source.\n"
	        "\n"
	        "options:\n"
	        "  --json      the lists as one JSON object (carc_vocabulary_json)\n"
	        "  -h, --help  this help\n");
}

int cmd_names(int argc, char **argv)
{
	int json = 0;
	for (int i = 1; i < argc; i++) {
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else
			return ropt_unknown(CMD, argv[i]);
	}
	if (json) {
		char *s = carc_vocabulary_json();
		if (!s) {
			fprintf(stderr, "carc names: out of memory\n");
			return 1;
		}
		puts(s);
		free(s);
		return 0;
	}
	static const char *const LISTS[CARC_NAMES_COUNT] = {
		[CARC_NAMES_FIGURE] = "figures",       [CARC_NAMES_FEATURE] = "features",
		[CARC_NAMES_SCORE] = "score kinds",    [CARC_NAMES_GOODS] = "goods",
		[CARC_NAMES_TILESET] = "tile sets",    [CARC_NAMES_STEP] = "steps",
		[CARC_NAMES_EXPANSION] = "expansions", [CARC_NAMES_FARM_SCORING] = "farm scoring",
		[CARC_NAMES_PORT] = "ports",           [CARC_NAMES_TILE] = "tiles",
		[CARC_NAMES_FIGURE_WORDS] = "figures in words", [CARC_NAMES_SYMBOL] = "tile symbols",
	};
	for (int w = 0; w < CARC_NAMES_COUNT; w++) {
		printf("%s:", LISTS[w]);
		for (int i = 0; i < carc_name_count(w); i++)
			printf("%s%s", i ? ", " : " ", carc_name(w, i));
		printf("\n");
	}
	return 0;
}
