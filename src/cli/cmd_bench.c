/*
 * cmd_bench.c - `carc bench`: a fixed, seeded workload that measures the
 * engine and prints a signature.
 *
 * Workload (all on one thread):
 *   1. random games, 2 players, base game, farmers on: a uniformly random
 *      placement, then a uniformly random choice among that placement's
 *      figure options plus "no figure"; full final scoring;
 *   2. move generation (carc_placements) over positions taken from seeded
 *      games;
 *   3. copies of those positions (carc_game_copy);
 *   4. the same random games with all four expansions on;
 *   5. the same with every expansion, Princess & Dragon too (its action
 *      and dragon steps decided uniformly at random).
 * The signature is a checksum of every score and move count of parts 1-4:
 * it changes only when the rules or move generation change, and
 * tests/cli/test_bench.sh pins it. Part 5 has a signature of its own, so
 * that the first stays what it was before Princess & Dragon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "carc.h"
#include "cli.h"

/* CPU time of this thread: what one core spends, whatever else runs */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define rnd carc_rng_next

/* 64-bit FNV-1a step */
static uint64_t sig_add(uint64_t h, int64_t v)
{
	for (int i = 0; i < 8; i++) {
		h ^= (uint64_t)(v >> (8 * i)) & 0xFF;
		h *= 0x100000001B3ull;
	}
	return h;
}

/* One random game by the benchmark policy; returns the number of moves. */
static int random_game(carc_game *g, const carc_rules *r, uint64_t seed, long *placements)
{
	carc_move pl[CARC_MAX_MOVES], fo[CARC_MAX_SEGS * CARC_FIG_COUNT + 1];
	uint64_t s = seed ^ 0xB5AD4ECEDA1CE2A9ull;
	int moves = 0;
	carc_game_init(g, r, seed, NULL, 0, NULL);
	while (!carc_game_over(g)) {
		int n = carc_placements(g, pl, CARC_MAX_MOVES);
		if (!n) { /* a step other than the tile's: a random decision */
			n = carc_legal_moves(g, pl, CARC_MAX_MOVES);
			carc_apply_unchecked(g, pl[rnd(&s) % (uint64_t)n], NULL);
			moves++;
			continue;
		}
		*placements += n;
		carc_move m = pl[rnd(&s) % (uint64_t)n];
		int nf = carc_figure_options(g, m, fo, (int)(sizeof fo / sizeof fo[0]));
		int k = (int)(rnd(&s) % (uint64_t)(nf + 1));
		carc_apply_unchecked(g, k < nf ? fo[k] : m, NULL);
		moves++;
	}
	return moves;
}

typedef struct run {
	double secs;
	long moves, placements;
	uint64_t sig;
} run;

static void progress(int quiet, const char *what, int i, int n)
{
	if (!quiet && isatty(2) && (i % 1000 == 0 || i == n))
		fprintf(stderr, "\r  %s: %d/%d ", what, i, n);
}

static run play_games(const carc_rules *r, int games, uint64_t seed0, int quiet,
                      const char *what)
{
	carc_game *g = carc_game_alloc();
	run out = {0, 0, 0, 0xCBF29CE484222325ull};
	int sc[CARC_MAX_PLAYERS];
	double t0 = now();
	for (int i = 0; i < games; i++) {
		int m = random_game(g, r, seed0 + (uint64_t)i, &out.placements);
		out.moves += m;
		carc_game_scores(g, sc);
		out.sig = sig_add(out.sig, m);
		for (int p = 0; p < r->players; p++)
			out.sig = sig_add(out.sig, sc[p]);
		progress(quiet, what, i + 1, games);
	}
	out.secs = now() - t0;
	if (!quiet && isatty(2))
		fprintf(stderr, "\r%40s\r", "");
	free(g);
	return out;
}

/* Game i of an array of games laid out one after the other. */
static carc_game *nth(void *games, int i)
{
	return (carc_game *)((char *)games + (size_t)i * carc_game_size());
}

/* Positions from seeded games: every 5th turn of each game. */
static int collect_positions(const carc_rules *r, void *pos, int max)
{
	carc_move pl[CARC_MAX_MOVES], fo[CARC_MAX_SEGS * CARC_FIG_COUNT + 1];
	carc_game *g = carc_game_alloc();
	int n = 0;
	for (uint64_t seed = 1000; g && n < max; seed++) {
		uint64_t s = seed;
		carc_game_init(g, r, seed, NULL, 0, NULL);
		for (int t = 0; !carc_game_over(g) && n < max; t++) {
			if (t % 5 == 2)
				carc_game_copy(nth(pos, n++), g);
			int np = carc_placements(g, pl, CARC_MAX_MOVES);
			carc_move m = pl[rnd(&s) % (uint64_t)np];
			int nf = carc_figure_options(g, m, fo, (int)(sizeof fo / sizeof fo[0]));
			int k = (int)(rnd(&s) % (uint64_t)(nf + 1));
			carc_apply_unchecked(g, k < nf ? fo[k] : m, NULL);
		}
	}
	carc_game_free(g);
	return n;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carc bench [--games N] [--quick] [--json]\n\n"
	        "The fixed, seeded speed benchmark of the engine (one thread):\n"
	        "random 2-player base games with farmers (uniform placement, then uniform\n"
	        "figure option or none), move generation and state copies over positions\n"
	        "from seeded games, random games with all four expansions on, and with\n"
	        "every expansion, Princess & Dragon too (a signature of its own).\n"
	        "Prints games per second, ns per move generation and per copy, and a\n"
	        "signature of all scores and move counts (it changes only when the rules\n"
	        "or move generation change).\n\n"
	        "  --games N   random games per rule set (default 100000)\n"
	        "  --quick     a tenth of the work (the signature differs)\n"
	        "  --json      print the results as one JSON object\n\n"
	        "example: carc bench --games 20000\n");
}

int cmd_bench(int argc, char **argv)
{
	int games = 100000, json = 0, quiet = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--games") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);
			if (*end || v < 1 || v > 100000000) {
				fprintf(stderr, "carc bench: --games wants a number 1..100000000, not '%s'\n"
				                "see carc bench --help\n", argv[i]);
				return 2;
			}
			games = (int)v;
		} else if (!strcmp(argv[i], "--quick")) {
			games = 10000;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
			quiet = 1;
		} else {
			fprintf(stderr, "carc bench: unknown option '%s'\nsee carc bench --help\n", argv[i]);
			return 2;
		}
	}

	carc_rules base, all;
	carc_rules_default(&base);
	carc_rules_default(&all);
	all.expansions = CARC_EXP_RIVER | CARC_EXP_INNS | CARC_EXP_TRADERS | CARC_EXP_ABBOT;

	run rb = play_games(&base, games, 1, quiet, "base games");
	run rx = play_games(&all, games / 4 > 0 ? games / 4 : 1, 1, quiet, "expansion games");
	carc_rules every = all;
	every.expansions |= CARC_EXP_PRINCESS;
	const int ngames_pd = games / 8 > 0 ? games / 8 : 1;
	run rp = play_games(&every, ngames_pd, 1, quiet, "princess & dragon games");

	/* move generation and copies over positions */
	enum { NPOS = 2000 };
	void *pos = malloc(carc_game_size() * NPOS);
	carc_game *dst = carc_game_alloc();
	carc_move *buf = malloc(sizeof *buf * CARC_MAX_MOVES);
	int npos = collect_positions(&base, pos, NPOS);
	/* each position is brought into the cache first and then timed, as
	 * in search, where a position was made or copied just before */
	long gen_total = 0;
	int reps = games >= 10000 ? 50 : 10;
	double gen_t = 0, copy_t = 0;
	uint64_t chk = 0;
	for (int i = 0; i < npos; i++) {
		carc_game_copy(dst, nth(pos, i));
		gen_total += carc_placements(dst, buf, CARC_MAX_MOVES);
		double t0 = now();
		for (int k = 0; k < reps; k++)
			chk += (uint64_t)carc_placements(dst, buf, CARC_MAX_MOVES);
		double t1 = now();
		for (int k = 0; k < reps; k++) {
			carc_game_copy(dst, nth(pos, i));
			chk += (uint64_t)carc_board_tiles(dst);
		}
		copy_t += now() - t1;
		gen_t += t1 - t0;
	}
	double gen_ns = gen_t * 1e9 / ((double)reps * npos);
	double copy_ns = copy_t * 1e9 / ((double)reps * npos);
	double full_t0 = now();
	for (int k = 0; k < reps * npos; k++)
		memcpy(dst, nth(pos, k % 8), carc_game_size());
	double full_ns = (now() - full_t0) * 1e9 / ((double)reps * npos);
	uint64_t sig = sig_add(sig_add(rb.sig, (int64_t)rx.sig), gen_total);

	if (json) {
		printf("{\"games\":%d,\"games_per_sec\":%.0f,\"moves_per_sec\":%.0f,"
		       "\"mean_placements\":%.3f,\"expansion_games_per_sec\":%.0f,"
		       "\"movegen_ns\":%.1f,\"copy_ns\":%.1f,\"memcpy_ns\":%.1f,\"state_bytes\":%zu,"
		       "\"signature\":\"%016llx\",\"princess_games_per_sec\":%.0f,"
		       "\"princess_steps_per_sec\":%.0f,\"princess_signature\":\"%016llx\"}\n",
		       games, games / rb.secs, rb.moves / rb.secs, (double)rb.placements / rb.moves,
		       (games / 4 > 0 ? games / 4 : 1) / rx.secs, gen_ns, copy_ns, full_ns, carc_game_size(),
		       (unsigned long long)sig, ngames_pd / rp.secs, rp.moves / rp.secs,
		       (unsigned long long)rp.sig);
	} else {
		printf("carc bench (one thread)\n");
		printf("  base game, 2 players, farmers: %d games in %.2f s: %.0f games/s, %.0f moves/s\n",
		       games, rb.secs, games / rb.secs, rb.moves / rb.secs);
		printf("    mean legal placements per turn: %.2f\n", (double)rb.placements / rb.moves);
		printf("  all four expansions, 2 players: %d games in %.2f s: %.0f games/s\n",
		       games / 4 > 0 ? games / 4 : 1, rx.secs, (games / 4 > 0 ? games / 4 : 1) / rx.secs);
		printf("  every expansion with Princess & Dragon, 2 players: %d games in %.2f s: %.0f "
		       "games/s, %.0f steps/s (signature %016llx)\n",
		       ngames_pd, rp.secs, ngames_pd / rp.secs, rp.moves / rp.secs,
		       (unsigned long long)rp.sig);
		printf("  move generation: %.1f ns per call (%d positions, %.1f placements each)\n",
		       gen_ns, npos, (double)gen_total / npos);
		printf("  state copy: %.1f ns with carc_game_copy, %.1f ns with memcpy (%zu bytes)\n",
		       copy_ns, full_ns, carc_game_size());
		printf("  signature: %016llx\n", (unsigned long long)sig);
	}
	if (chk == 1)
		puts(""); /* keeps the timed loops from being optimised away */
	free(pos);
	free(dst);
	free(buf);
	return 0;
}
