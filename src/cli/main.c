/*
 * main.c - the `carc` command: dispatches to a subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "carc.h"
#include "cli.h"

typedef struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} command;

static const command COMMANDS[] = {
	{"sim", cmd_sim, "play seeded games between random bots and summarise them"},
	{"replay", cmd_replay, "check game records turn by turn"},
	{"show", cmd_show, "draw a recorded game's board in the terminal"},
	{"demo", cmd_demo, "play a short demo game between bots, printed as it goes"},
	{"tiles", cmd_tiles, "print the tile definitions of a rule set"},
	{"names", cmd_names, "print every name the engine gives (figures, features, steps, ...)"},
	{"bench", cmd_bench, "the fixed speed benchmark, with its signature"},
	{"arena", cmd_arena, "play bots against each other and rate them"},
	{"play", cmd_play, "play against bots (or friends) in the terminal"},
	{"analyse", cmd_analyse, "go through a recorded game: the best moves, the points lost"},
	{"engine", cmd_engine, "the bots behind a JSON line protocol on stdin and stdout"},
	{"train", cmd_train, "self-play positions, a linear evaluation fitted and measured"},
	{"serve", cmd_serve, "run the web game server"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: carc <command> [options]\n\n"
	           "Carcassonne: rules engine, bots and game server.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
		fprintf(f, "  %-8s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
	fprintf(f, "\n'carc <command> --help' explains a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
		if (!strcmp(argv[1], COMMANDS[i].name))
			return COMMANDS[i].run(argc - 1, argv + 1);
	fprintf(stderr, "carc: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
