/*
 * agree.c - how often a bot with a bigger budget picks another move than
 * with a smaller one, against how often two runs of one budget with other
 * seeds disagree. Positions: seeded games of greedy against itself, stopped
 * after 4 to 63 moves.
 *
 *   make && cc -O2 -Iinclude bench/bots/agree.c build/release/libcarc.a \
 *       -lm -lpthread -o build/agree
 *   build/agree mcts:iter=600 mcts:iter=6000 30
 */
#include <stdio.h>
#include <stdlib.h>
#include "carc.h"
#include "carc_bot.h"
static carc_move pick(const char *spec, uint64_t seed, const carc_game *g)
{
	char err[256];
	carc_bot *b = carc_bot_new(spec, seed, err, sizeof err);
	if (!b) {
		fprintf(stderr, "agree: %s\n", err);
		exit(2);
	}
	carc_move m = carc_bot_choose(b, g);
	carc_bot_free(b);
	return m;
}
int main(int argc, char **argv)
{
	if (argc != 4 || atoi(argv[3]) < 1) {
		fprintf(stderr, "usage: agree SMALL-SPEC BIG-SPEC POSITIONS\n"
		                "  e.g. agree mcts:iter=600 mcts:iter=6000 30\n");
		return 2;
	}
	const char *lo = argv[1], *hi = argv[2];
	int npos = atoi(argv[3]);
	carc_rules r; carc_rules_default(&r);
	carc_game *g = malloc(sizeof *g);
	int lohi = 0, hihi = 0, lolo = 0, n = 0;
	for (int k = 0; k < npos; k++) {
		carc_game_init(g, &r, 100 + k, NULL, 0, NULL);
		carc_bot *gr = carc_bot_new("greedy", k, NULL, 0);
		int upto = 4 + (k * 7) % 60;
		for (int i = 0; i < upto && !carc_game_over(g); i++) carc_apply(g, carc_bot_choose(gr, g), NULL, NULL);
		carc_bot_free(gr);
		if (carc_game_over(g)) continue;
		carc_move a = pick(lo, 1, g), a2 = pick(lo, 2, g), b = pick(hi, 1, g), c = pick(hi, 2, g);
		lohi += a != b; hihi += b != c; lolo += a != a2; n++;
		fprintf(stderr, "\r%d/%d", k + 1, npos);
	}
	printf("positions %d: %s vs %s differ %d; %s seeds 1 vs 2 differ %d; %s seeds 1 vs 2 differ %d\n", n, lo, hi, lohi, hi, hihi, lo, lolo);
	return 0;
}
