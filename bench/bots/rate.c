/*
 * rate.c - iterations a second of mcts specs, on the same positions: seeded
 * games of greedy against itself, stopped after 10 to 59 moves. For each
 * spec the mean of the "iterations=" of carc_bot_info over the positions,
 * divided by the seconds the spec thinks (its time=), and the playout
 * length it used ("cutoff="). With clock=cpu in the spec the seconds are
 * the CPU seconds it was given (the wall clock of a busy machine runs
 * ahead of them), else the wall-clock seconds it took.
 *
 *   make && cc -O2 -Iinclude bench/bots/rate.c build/release/libcarc.a \
 *       -lm -lpthread -o build/rate
 *   build/rate 20 mcts:time=0.25,clock=cpu mcts:time=0.25,clock=cpu,learned=0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "carc.h"
#include "carc_bot.h"

static double field(const char *info, const char *key)
{
	const char *p = strstr(info, key);
	return p ? atof(p + strlen(key)) : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: rate POSITIONS SPEC [SPEC...]\n");
		return 2;
	}
	int npos = atoi(argv[1]);
	char err[256];
	carc_rules r;
	carc_rules_default(&r);
	printf("%-52s %12s %8s %8s\n", "spec", "iterations/s", "cutoff", "seconds");
	for (int s = 2; s < argc; s++) {
		double iters = 0, secs = 0, cut = 0;
		int cpu = strstr(argv[s], "clock=cpu") != NULL;
		double budget = field(argv[s], "time=");
		for (int k = 0; k < npos; k++) {
			carc_game *g = malloc(sizeof *g);
			if (g && carc_game_init(g, &r, (uint64_t)(1000 + k), NULL, 0, NULL) != CARC_OK) {
				free(g);
				g = NULL;
			}
			carc_bot *gb = carc_bot_new("greedy", (uint64_t)k, err, sizeof err);
			carc_bot *b = carc_bot_new(argv[s], 1, err, sizeof err);
			if (!g || !gb || !b) {
				fprintf(stderr, "rate: %s\n", err);
				return 2;
			}
			for (int m = 0; m < 10 + k % 50 && !carc_game_over(g); m++)
				carc_apply(g, carc_bot_choose(gb, g), NULL, NULL);
			if (!carc_game_over(g)) {
				char info[256];
				carc_bot_choose(b, g);
				carc_bot_info(b, info, sizeof info);
				iters += field(info, "iterations=");
				secs += cpu ? budget : field(info, "time=");
				cut += field(info, "cutoff=");
			}
			carc_bot_free(b);
			carc_bot_free(gb);
			free(g);
		}
		printf("%-52s %12.0f %8.1f %8.2f\n", argv[s], iters / secs, cut / npos, secs);
	}
	return 0;
}
