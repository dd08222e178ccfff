/*
 * cmd_arena.c - 'carc arena': plays bots against each other and rates them.
 *
 * Schedule: a "deal" is one shuffled pile (one game seed). Each deal is
 * played once per lineup and, within a lineup, once per rotation of the
 * seats, so every bot meets every tile order from every seat and no bot
 * gains from the draw or from moving first. A lineup is the bots in seat
 * order: with as many bots as players, the one lineup of all of them; with
 * fewer bots than players, the bots repeated in turn; with more bots than
 * players, every set of `players` distinct bots (a round robin).
 *
 * Game i is fully fixed by (--seed, i): its deal, its seating and its bots'
 * seeds, so results do not depend on --jobs (with iteration budgets; a time
 * budget depends on the machine).
 *
 * Per bot: wins (a shared first place counts 1/k for k winners, so a
 * two-player tie is a half), win rate with a 95% Wilson interval, Elo
 * difference against the field from the pairwise results (each pair of
 * seats of different bots in a game is one comparison) with the interval
 * from the same Wilson bounds, mean score, mean margin (own score minus the
 * best other score) and mean thinking time per move.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "carc.h"
#include "carc_bot.h"
#include "cli.h"
#include "rules_opts.h"

#define ARENA_MAX_BOTS 16
#define ARENA_MAX_LINEUPS 4096

typedef struct arena_game {
	int done;
	int seat_bot[CARC_MAX_PLAYERS];
	int score[CARC_MAX_PLAYERS];
	double think[CARC_MAX_PLAYERS]; /* seconds */
	int moves[CARC_MAX_PLAYERS];
	char error[512];
} arena_game;

typedef struct arena {
	const char *specs[ARENA_MAX_BOTS];
	int nbots;
	carc_rules rules;
	uint64_t seed;
	int games, jobs, quiet;
	const char *record_dir;
	int nlineups;
	int (*lineup)[CARC_MAX_PLAYERS];
	arena_game *res;
	/* shared between the workers */
	pthread_mutex_t mu;
	int next, finished, failed;
	double t0, last_progress;
	int tty;
} arena;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

#define CMD "arena"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: carc arena --bots SPEC SPEC [SPEC...] [options]\n"
	        "\n"
	        "Plays bots against each other and prints a table per bot: wins (a shared\n"
	        "first place counts 1/k), win rate with a 95%% interval, Elo difference\n"
	        "against the field with its interval, mean score and margin, mean time per\n"
	        "move. Every tile order is played again with the seats rotated, so no bot\n"
	        "gains from the draw or the seat.\n"
	        "\n"
	        "options:\n"
	        "  --bots SPEC...      the bots, e.g. mcts:time=0.5 greedy (at least two;\n"
	        "                      more bots than players: every subset plays)\n"
	        "  --games N           games to play (default 100; rounded up to whole\n"
	        "                      rotations of the seats)\n"
	        "  --seed S            seed of the deals (default 1)\n"
	        "  --jobs N            games played in parallel (default 1)\n"
	        "  --record DIR        write every game as DIR/game-NNNNN.json\n"
	        "  --quiet             no progress line\n");
	ropt_rules_help(f);
	fprintf(f,
	        "\nexamples:\n"
	        "  carc arena --bots mcts:time=0.25 greedy --games 200 --seed 1 --jobs 2\n"
	        "  carc arena --bots greedy random star25 --games 60 --record games/\n"
	        "\nbots:\n");
	char buf[4096];
	for (const char *const *n = carc_bot_names(); *n; n++)
		if (!carc_bot_describe(*n, buf, sizeof buf))
			fprintf(f, "%s", buf);
}

/* Every lineup of the schedule (see the top of the file). */
static int make_lineups(arena *a)
{
	const int P = a->rules.players, B = a->nbots;
	a->lineup = malloc(sizeof *a->lineup * ARENA_MAX_LINEUPS);
	if (!a->lineup)
		return -1;
	if (B <= P) {
		for (int s = 0; s < P; s++)
			a->lineup[0][s] = s % B;
		a->nlineups = 1;
		return 0;
	}
	int c[CARC_MAX_PLAYERS];
	for (int i = 0; i < P; i++)
		c[i] = i;
	a->nlineups = 0;
	for (;;) {
		if (a->nlineups >= ARENA_MAX_LINEUPS)
			return -1;
		memcpy(a->lineup[a->nlineups++], c, sizeof c);
		int i = P - 1;
		while (i >= 0 && c[i] == B - P + i)
			i--;
		if (i < 0)
			break;
		c[i]++;
		for (int j = i + 1; j < P; j++)
			c[j] = c[j - 1] + 1;
	}
	return 0;
}

static void json_escape(char *out, size_t size, const char *s)
{
	size_t o = 0;
	for (; *s && o + 7 < size; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = (char)ch;
		} else if (ch < 0x20) {
			o += (size_t)snprintf(out + o, size - o, "\\u%04x", ch);
		} else {
			out[o++] = (char)ch;
		}
	}
	out[o] = 0;
}

static void write_record(arena *a, int gi, const carc_game *g, const arena_game *r)
{
	const int P = a->rules.players;
	char extra[4096], esc[600];
	size_t o = (size_t)snprintf(extra, sizeof extra, "{\"bots\": [");
	for (int s = 0; s < P; s++) {
		json_escape(esc, sizeof esc, a->specs[r->seat_bot[s]]);
		o += (size_t)snprintf(extra + o, sizeof extra - o, "%s\"%s\"", s ? ", " : "", esc);
	}
	snprintf(extra + o, sizeof extra - o,
	         "], \"arena\": {\"seed\": %llu, \"game\": %d, \"deal\": %d}}",
	         (unsigned long long)a->seed, gi, gi / (a->nlineups * P));
	char *json = carc_record_write(g, extra);
	if (!json) {
		fprintf(stderr, "carc arena: could not write the record of game %d\n", gi);
		return;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/game-%05d.json", a->record_dir, gi);
	FILE *f = fopen(path, "w");
	if (!f || fputs(json, f) < 0 || fputc('\n', f) < 0) {
		fprintf(stderr, "carc arena: cannot write %s: %s\n", path, strerror(errno));
	}
	if (f)
		fclose(f);
	free(json);
}

/* Plays game gi; fills a->res[gi]. Returns 0, or -1 on a failure. */
static int play_game(arena *a, int gi, carc_game *g)
{
	const int P = a->rules.players;
	const int per_deal = a->nlineups * P;
	int deal = gi / per_deal, li = (gi % per_deal) / P, rot = gi % P;
	arena_game *r = &a->res[gi];
	uint64_t gseed = mix64(a->seed * 0x100000001B3ull + (uint64_t)deal);
	char err[CARC_ERRMSG_SIZE];
	if (carc_game_init(g, &a->rules, gseed, NULL, 0, err) != CARC_OK) {
		snprintf(r->error, sizeof r->error, "game %d: %s", gi, err);
		return -1;
	}
	carc_bot *bots[CARC_MAX_PLAYERS] = {0};
	int rc = 0;
	for (int s = 0; s < P; s++) {
		r->seat_bot[s] = a->lineup[li][(s + rot) % P];
		char berr[256];
		bots[s] = carc_bot_new(a->specs[r->seat_bot[s]], mix64(gseed ^ (uint64_t)(s + 1) * 0x51ED27ull ^ (uint64_t)rot << 40), berr, sizeof berr);
		if (!bots[s]) {
			snprintf(r->error, sizeof r->error, "bot %.200s: %.250s", a->specs[r->seat_bot[s]], berr);
			rc = -1;
			goto out;
		}
	}
	while (!carc_game_over(g)) {
		int p = carc_to_move(g);
		double t = now_s();
		carc_move m = carc_bot_choose(bots[p], g);
		r->think[p] += now_s() - t;
		r->moves[p]++;
		if (carc_apply(g, m, NULL, err) != CARC_OK) {
			snprintf(r->error, sizeof r->error, "game %d: bot %s chose an illegal move: %s",
			         gi, carc_bot_spec(bots[p]), err);
			rc = -1;
			goto out;
		}
	}
	carc_game_scores(g, r->score);
out:
	for (int s = 0; s < P; s++)
		carc_bot_free(bots[s]);
	return rc;
}

typedef struct bot_stats {
	int n;
	double wins, pair_pts;
	int pairs;
	double score, margin, think;
	long moves;
} bot_stats;

static void tally(const arena *a, bot_stats *st)
{
	const int P = a->rules.players;
	memset(st, 0, sizeof *st * (size_t)a->nbots);
	for (int gi = 0; gi < a->games; gi++) {
		const arena_game *r = &a->res[gi];
		if (!r->done)
			continue;
		int best = -1000000, nbest = 0;
		for (int s = 0; s < P; s++) {
			if (r->score[s] > best) {
				best = r->score[s];
				nbest = 1;
			} else if (r->score[s] == best) {
				nbest++;
			}
		}
		for (int s = 0; s < P; s++) {
			bot_stats *b = &st[r->seat_bot[s]];
			b->n++;
			if (r->score[s] == best)
				b->wins += 1.0 / nbest;
			int other = -1000000;
			for (int t = 0; t < P; t++) {
				if (t == s)
					continue;
				if (r->score[t] > other)
					other = r->score[t];
				if (r->seat_bot[t] != r->seat_bot[s]) {
					b->pairs++;
					b->pair_pts += r->score[s] > r->score[t] ? 1.0
					               : r->score[s] == r->score[t] ? 0.5 : 0.0;
				}
			}
			b->score += r->score[s];
			b->margin += r->score[s] - other;
			b->think += r->think[s];
			b->moves += r->moves[s];
		}
	}
}

/* Wilson score interval at 95% for a proportion p of n. */
static void wilson(double p, int n, double *lo, double *hi)
{
	const double z = 1.959964;
	if (n <= 0) {
		*lo = 0;
		*hi = 1;
		return;
	}
	double d = 1 + z * z / n;
	double c = (p + z * z / (2.0 * n)) / d;
	double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

static double elo(double p)
{
	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	return -400.0 * log10(1.0 / p - 1.0);
}

static void fmt_elo(char *buf, size_t size, double e)
{
	if (isinf(e) || fabs(e) >= 1000) /* beyond what a sample can tell */
		snprintf(buf, size, "%s", e > 0 ? "+inf" : "-inf");
	else
		snprintf(buf, size, "%+.0f", e);
}

static void print_table(const arena *a, FILE *f)
{
	bot_stats st[ARENA_MAX_BOTS];
	tally(a, st);
	int w = 4;
	for (int b = 0; b < a->nbots; b++)
		if ((int)strlen(a->specs[b]) > w)
			w = (int)strlen(a->specs[b]);
	fprintf(f, "%-*s %6s %8s %18s %20s %7s %7s %9s\n", w, "bot", "games", "wins",
	        "win rate (95%)", "Elo (95%)", "score", "margin", "ms/move");
	for (int b = 0; b < a->nbots; b++) {
		const bot_stats *s = &st[b];
		if (!s->n) {
			fprintf(f, "%-*s %6d\n", w, a->specs[b], 0);
			continue;
		}
		double rate = s->wins / s->n, lo, hi;
		wilson(rate, s->n, &lo, &hi);
		double pp = s->pairs ? s->pair_pts / s->pairs : 0.5, plo, phi;
		wilson(pp, s->pairs, &plo, &phi);
		char e[16], elo_lo[16], elo_hi[16], ebuf[64], rbuf[64];
		fmt_elo(e, sizeof e, elo(pp));
		fmt_elo(elo_lo, sizeof elo_lo, elo(plo));
		fmt_elo(elo_hi, sizeof elo_hi, elo(phi));
		snprintf(ebuf, sizeof ebuf, "%s [%s,%s]", e, elo_lo, elo_hi);
		snprintf(rbuf, sizeof rbuf, "%5.1f%% [%.1f,%.1f]", 100 * rate, 100 * lo, 100 * hi);
		fprintf(f, "%-*s %6d %8.1f %18s %20s %7.1f %+7.1f %9.1f\n", w, a->specs[b], s->n,
		        s->wins, rbuf, ebuf, s->score / s->n, s->margin / s->n,
		        s->moves ? 1000.0 * s->think / (double)s->moves : 0.0);
	}
}

static void fmt_dur(char *buf, size_t size, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, size, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, size, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, size, "%lds", t);
}

/* Called with a->mu held after a game. */
static void progress(arena *a, int final)
{
	if (a->quiet)
		return;
	double t = now_s();
	if (!final && ((!a->tty && t - a->last_progress < 30) || a->finished == a->games))
		return;
	a->last_progress = t;
	bot_stats st[ARENA_MAX_BOTS];
	tally(a, st);
	double el = t - a->t0;
	char e1[32], e2[32], line[512];
	fmt_dur(e1, sizeof e1, el);
	fmt_dur(e2, sizeof e2, a->finished ? el / a->finished * (a->games - a->finished) : 0);
	size_t o = (size_t)snprintf(line, sizeof line, "[%d/%d]", a->finished, a->games);
	for (int b = 0; b < a->nbots && o < sizeof line; b++)
		o += (size_t)snprintf(line + o, sizeof line - o, "  %.24s %.1f%%", a->specs[b],
		                      st[b].n ? 100.0 * st[b].wins / st[b].n : 0.0);
	if (o < sizeof line)
		snprintf(line + o, sizeof line - o, "  elapsed %s  left ~%s", e1, e2);
	fprintf(stderr, a->tty ? "\r%s\033[K" : "%s\n", line);
	if (a->tty && final)
		fputc('\n', stderr);
	fflush(stderr);
}

static void *worker(void *arg)
{
	arena *a = arg;
	carc_game *g = carc_game_alloc();
	if (!g) {
		pthread_mutex_lock(&a->mu);
		a->failed = 1;
		pthread_mutex_unlock(&a->mu);
		return NULL;
	}
	for (;;) {
		pthread_mutex_lock(&a->mu);
		int gi = a->failed ? a->games : a->next++;
		pthread_mutex_unlock(&a->mu);
		if (gi >= a->games)
			break;
		int rc = play_game(a, gi, g);
		if (rc == 0 && a->record_dir)
			write_record(a, gi, g, &a->res[gi]);
		pthread_mutex_lock(&a->mu);
		if (rc) {
			a->failed = 1;
			fprintf(stderr, "%scarc arena: %s\n", a->tty ? "\n" : "", a->res[gi].error);
		} else {
			a->res[gi].done = 1;
			a->finished++;
			progress(a, 0);
		}
		pthread_mutex_unlock(&a->mu);
	}
	free(g);
	return NULL;
}

int cmd_arena(int argc, char **argv)
{
	arena a;
	memset(&a, 0, sizeof a);
	carc_rules_default(&a.rules);
	a.games = 100;
	a.jobs = 1;
	a.seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *v;
		long n;
		int st;
		if (ropt_is_help(argv[i])) {
			usage(stdout);
			return 0;
		}
		if ((st = ropt_rules(CMD, argc, argv, &i, &a.rules)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
		} else if (!strcmp(argv[i], "--bots")) {
			while (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
				if (a.nbots >= ARENA_MAX_BOTS)
					return ropt_usage(CMD, "at most %d bots", ARENA_MAX_BOTS);
				a.specs[a.nbots++] = argv[++i];
			}
		} else if (!strcmp(argv[i], "--quiet")) {
			a.quiet = 1;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--games", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--games", v, 1, 1000000, &n))
				return ROPT_USAGE;
			a.games = (int)n;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--jobs", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--jobs", v, 1, 256, &n))
				return ROPT_USAGE;
			a.jobs = (int)n;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &a.seed))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--record", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			a.record_dir = v;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (a.nbots < 2)
		return ropt_usage(CMD, "give at least two bots with --bots");
	/* check the specs and the rules once before starting */
	for (int b = 0; b < a.nbots; b++) {
		char err[256];
		carc_bot *t = carc_bot_new(a.specs[b], 1, err, sizeof err);
		if (!t)
			return ropt_usage(CMD, "%s", err);
		carc_bot_free(t);
	}
	if (ropt_check_rules(CMD, &a.rules))
		return ROPT_USAGE;
	if (make_lineups(&a)) {
		free(a.lineup);
		return ropt_usage(CMD, "too many lineups of %d bots in %d seats", a.nbots,
		                  a.rules.players);
	}
	int per_deal = a.nlineups * a.rules.players;
	int rounded = (a.games + per_deal - 1) / per_deal * per_deal;
	if (rounded != a.games) {
		if (!a.quiet)
			fprintf(stderr, "carc arena: %d games rounded up to %d (whole rotations of %d)\n",
			        a.games, rounded, per_deal);
		a.games = rounded;
	}
	if (a.record_dir && mkdir(a.record_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "carc arena: cannot create %s: %s\n", a.record_dir, strerror(errno));
		free(a.lineup);
		return 1;
	}
	a.res = calloc((size_t)a.games, sizeof *a.res);
	if (!a.res) {
		fprintf(stderr, "carc arena: out of memory\n");
		free(a.lineup);
		return 1;
	}
	a.tty = isatty(2);
	pthread_mutex_init(&a.mu, NULL);
	a.t0 = a.last_progress = now_s();
	if (!a.quiet) {
		fprintf(stderr, "carc arena: %d games, %d players, seed %llu, %d job%s\n", a.games,
		        a.rules.players, (unsigned long long)a.seed, a.jobs, a.jobs > 1 ? "s" : "");
	}
	int nt = a.jobs < a.games ? a.jobs : a.games;
	pthread_t th[256];
	int started = 0;
	for (int t = 1; t < nt; t++)
		if (!pthread_create(&th[started], NULL, worker, &a))
			started++;
	worker(&a);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	progress(&a, 1);
	double el = now_s() - a.t0;
	char d[32];
	fmt_dur(d, sizeof d, el);
	char rules[256];
	size_t ro = (size_t)snprintf(rules, sizeof rules, "%s",
	                             a.rules.farmers ? carc_farm_scoring_name(a.rules.farm_scoring)
	                                             : "no farmers");
	if (a.rules.small_city && ro < sizeof rules)
		ro += (size_t)snprintf(rules + ro, sizeof rules - ro, ", small city");
	for (unsigned bit = 1; bit && bit <= a.rules.expansions; bit <<= 1)
		if ((a.rules.expansions & bit) && carc_expansion_name(bit) && ro < sizeof rules)
			ro += (size_t)snprintf(rules + ro, sizeof rules - ro, ", %s", carc_expansion_name(bit));
	printf("arena: %d games, %d players, %s, seed %llu, %s\n", a.finished, a.rules.players,
	       rules, (unsigned long long)a.seed, d);
	print_table(&a, stdout);
	int rc = a.failed ? 1 : 0;
	pthread_mutex_destroy(&a.mu);
	free(a.res);
	free(a.lineup);
	return rc;
}
