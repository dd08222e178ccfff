/*
 * cmd_sim.c - `carc sim`: plays N seeded games between random bots and
 * summarises them (mean score per seat, win shares, speed, legal
 * placements per turn), optionally writing one record per game.
 *
 * Game i uses the engine seed S+i; its players follow the random bot's
 * policy (a uniformly random placement, then a uniformly random choice
 * among that placement's figure options and "no figure"), inline here so
 * that the placements the policy draws from are also the ones counted,
 * and the engine generates them once per turn. The policy's random numbers
 * come from SplitMix64 seeded with the game's seed, so a seed fixes a
 * whole game.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board_draw.h"
#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "sim";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc sim [--games N] [--seed S] [rules] [--record DIR]\n"
	        "\n"
	        "Plays N games between random bots (a random legal placement, then a\n"
	        "random choice among its figure options and no figure) and prints the\n"
	        "mean score per seat and by kind, each seat's share of the wins (a shared\n"
	        "victory is split), games per second and the mean number of legal\n"
	        "placements per turn. Game i is dealt with seed S+i, so the same seed\n"
	        "gives the same games. Runs longer than about two seconds (or any run\n"
	        "when stderr is a terminal) show a progress line on stderr.\n"
	        "\n"
	        "options:\n"
	        "  --games N      games to play (default 100)\n"
	        "  --seed S       seed of the first game (default 1)\n"
	        "  --record DIR   write each game's record to DIR/game-<seed>.json\n"
	        "                 (carc-record-1; DIR and the folders above it are\n"
	        "                 made if missing, as mkdir -p)\n"
	        "  -h, --help     this help\n");
	ropt_rules_help(f);
	fprintf(f,
	        "\n"
	        "examples:\n"
	        "  carc sim --games 2000 --seed 1\n"
	        "  carc sim --games 500 --players 4 --farm-scoring first-edition\n"
	        "  carc sim --games 10 --record games && carc replay games/*.json\n");
}

#define splitmix carc_rng_next

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct sim_totals {
	double score[CARC_MAX_PLAYERS];
	double by_kind[CARC_MAX_PLAYERS][CARC_SCORE_KIND_COUNT];
	double wins[CARC_MAX_PLAYERS];
	long turns, placements;
} sim_totals;

/* Plays one game to the end with the random policy; adds to *t. Returns
 * CARC_OK or the engine's error (which would be an engine bug). */
static carc_status play_game(carc_game *g, const carc_rules *r, uint64_t seed, sim_totals *t,
                             char *err)
{
	carc_move pl[CARC_MAX_MOVES];
	carc_move fo[CARC_MAX_SEGS * CARC_FIG_COUNT];
	carc_status st = carc_game_init(g, r, seed, NULL, 0, err);
	if (st != CARC_OK)
		return st;
	uint64_t rng = seed;
	while (!carc_game_over(g)) {
		int n = carc_placements(g, pl, CARC_MAX_MOVES);
		if (!n) { /* a step other than the tile's: a random decision */
			n = carc_legal_moves(g, pl, CARC_MAX_MOVES);
			if ((st = carc_apply(g, pl[splitmix(&rng) % (uint64_t)n], NULL, err)) != CARC_OK)
				return st;
			continue;
		}
		carc_move m = pl[splitmix(&rng) % (uint64_t)n];
		t->turns++;
		if (m != CARC_MOVE_DISCARD) {
			t->placements += n;
			int nf = carc_figure_options(g, m, fo, CARC_MAX_SEGS * CARC_FIG_COUNT);
			int k = (int)(splitmix(&rng) % (uint64_t)(nf + 1));
			if (k < nf)
				m = fo[k];
		}
		if ((st = carc_apply(g, m, NULL, err)) != CARC_OK)
			return st;
	}
	int np = r->players, sc[CARC_MAX_PLAYERS], best = 0, nbest = 0;
	carc_game_scores(g, sc);
	for (int p = 0; p < np; p++) {
		t->score[p] += sc[p];
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			t->by_kind[p][k] += carc_score_by_kind(g, p, k);
		if (p == 0 || sc[p] > best) {
			best = sc[p];
			nbest = 0;
		}
		if (sc[p] == best)
			nbest++;
	}
	for (int p = 0; p < np; p++)
		if (sc[p] == best)
			t->wins[p] += 1.0 / nbest;
	return CARC_OK;
}

/* Makes the folder dir and every missing folder above it, as mkdir -p
 * does; a part that exists must be a folder. Returns 0, or -1 after
 * saying which part could not be made and why. */
static int make_dirs(const char *dir)
{
	char path[4096];
	size_t n = strlen(dir);
	if (n >= sizeof path) {
		fprintf(stderr, "carc sim: cannot make directory %s: the path is too long\n", dir);
		return -1;
	}
	memcpy(path, dir, n + 1);
	/* each prefix ending before a '/', then the whole path */
	for (size_t i = 1; i <= n; i++) {
		if (i < n && (path[i] != '/' || path[i - 1] == '/'))
			continue;
		char c = path[i];
		path[i] = 0;
		struct stat st;
		if (mkdir(path, 0777) != 0) {
			int e = errno;
			if (e != EEXIST) {
				fprintf(stderr, "carc sim: cannot make directory %s: %s: %s\n", dir, path,
				        strerror(e));
				return -1;
			}
			if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
				fprintf(stderr, "carc sim: cannot make directory %s: %s is not a directory\n",
				        dir, path);
				return -1;
			}
		}
		path[i] = c;
	}
	return 0;
}

/* Writes the record of a finished game to dir/game-<seed>.json. */
static int write_record(const char *dir, const carc_game *g, uint64_t seed)
{
	char extra[256], path[4096];
	size_t l = (size_t)snprintf(extra, sizeof extra, "{\"generator\": \"carc sim\", \"bots\": [");
	for (int p = 0; p < carc_players(g); p++)
		l += (size_t)snprintf(extra + l, sizeof extra - l, "%s\"random\"", p ? ", " : "");
	snprintf(extra + l, sizeof extra - l, "]}");
	char *text = carc_record_write(g, extra);
	if (!text) {
		fprintf(stderr, "carc sim: out of memory writing a record\n");
		return -1;
	}
	snprintf(path, sizeof path, "%s/game-%llu.json", dir, (unsigned long long)seed);
	FILE *f = fopen(path, "w");
	int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
	if (f && fclose(f) != 0)
		ok = 0;
	free(text);
	if (!ok) {
		fprintf(stderr, "carc sim: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The progress line: in place on stderr, when stderr is a terminal or the
 * run has lasted two seconds; at most 10 (terminal) or 1 update(s) a second. */
typedef struct progress {
	int tty, shown;
	double start, last;
} progress;

static void progress_update(progress *pr, long done, long total)
{
	double t = now_seconds();
	if (!pr->tty && t - pr->start < 2.0)
		return;
	if (pr->shown && t - pr->last < (pr->tty ? 0.1 : 1.0))
		return;
	pr->shown = 1;
	pr->last = t;
	fprintf(stderr, "\rcarc sim: %ld/%ld games (%d%%), %.1f s ", done, total,
	        (int)(100.0 * (double)done / (double)total), t - pr->start);
	fflush(stderr);
}

static void progress_end(progress *pr)
{
	if (pr->shown) {
		fprintf(stderr, "\r%60s\r", "");
		fflush(stderr);
	}
}

static void print_summary(const carc_rules *r, uint64_t seed, long games, const sim_totals *t,
                          double secs)
{
	int np = r->players;
	printf("carc sim: %ld games, seeds %llu..%llu, %d players, %s farm scoring%s%s\n", games,
	       (unsigned long long)seed, (unsigned long long)(seed + (uint64_t)games - 1), np,
	       carc_farm_scoring_name(r->farm_scoring), r->small_city ? ", small city" : "",
	       r->farmers ? "" : ", no farmers");
	printf("%-10s %8s", "seat", "mean");
	int show[CARC_SCORE_KIND_COUNT];
	for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++) {
		show[k] = k <= CARC_SCORE_FARM;
		for (int p = 0; p < np; p++)
			show[k] |= t->by_kind[p][k] != 0;
		if (show[k])
			printf(" %8s", bd_score_kind_name(k));
	}
	printf(" %7s\n", "wins");
	for (int p = 0; p < np; p++) {
		char seat[32];
		snprintf(seat, sizeof seat, "%d %s", p + 1, bd_player_colour(p));
		printf("%-10s %8.2f", seat, t->score[p] / (double)games);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			if (show[k])
				printf(" %8.2f", t->by_kind[p][k] / (double)games);
		printf(" %6.1f%%\n", 100.0 * t->wins[p] / (double)games);
	}
	printf("turns per game %.2f, legal placements per turn %.2f\n",
	       (double)t->turns / (double)games,
	       t->turns ? (double)t->placements / (double)t->turns : 0.0);
	printf("speed: %ld games in %.2f s, %.0f games per second\n", games, secs,
	       secs > 0 ? (double)games / secs : 0.0);
}

int cmd_sim(int argc, char **argv)
{
	carc_rules r;
	carc_rules_default(&r);
	long games = 100;
	uint64_t seed = 1;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if ((st = ropt_rules(CMD, argc, argv, &i, &r)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--games", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--games", v, 1, 1000000000L, &games))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--record", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			if (!*v)
				return ropt_usage(CMD, "--record: empty directory name");
			dir = v;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (ropt_check_rules(CMD, &r))
		return ROPT_USAGE;
	if (dir && make_dirs(dir))
		return 1;

	carc_game *g = carc_game_alloc();
	sim_totals *t = calloc(1, sizeof *t);
	if (!g || !t) {
		free(g);
		free(t);
		fprintf(stderr, "carc sim: out of memory\n");
		return 1;
	}
	progress pr = {isatty(STDERR_FILENO), 0, now_seconds(), 0};
	int rc = 0;
	for (long i = 0; i < games; i++) {
		char err[CARC_ERRMSG_SIZE];
		uint64_t s = seed + (uint64_t)i;
		if (play_game(g, &r, s, t, err) != CARC_OK) {
			progress_end(&pr);
			fprintf(stderr, "carc sim: game with seed %llu: %s\n", (unsigned long long)s, err);
			rc = 1;
			break;
		}
		if (dir && write_record(dir, g, s)) {
			progress_end(&pr);
			rc = 1;
			break;
		}
		progress_update(&pr, i + 1, games);
	}
	progress_end(&pr);
	if (rc == 0)
		print_summary(&r, seed, games, t, now_seconds() - pr.start);
	free(g);
	free(t);
	return rc;
}
