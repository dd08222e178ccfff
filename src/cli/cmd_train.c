/*
 * cmd_train.c - `carc train`: the start of a learned evaluation. Plays
 * seeded self-play games between copies of a bot, takes every position
 * (after each move) for every player with the features of
 * carc_eval_features and the outcome (the player's final score minus the
 * best other's), fits a linear model by ridge regression
 * (carc_eval_fit), and measures it on held-out games (other seeds) against
 * the heuristic evaluation (carc_eval_margin taken as the prediction):
 * the mean absolute error of the predicted final margin.
 *
 * The model is a correction of the heuristic that fades as the game ends:
 *   predicted margin = heuristic margin + t * (w . features),
 * t the share of tiles left. The heuristic is nearly exact near the end
 * (most points are scored) and far off early; a plain linear model of the
 * margin (tried first: 20 games, 14.8 points of held-out error against the
 * heuristic's 9.9) cannot be both, this one is the heuristic at t = 0.
 *
 * Training game i is dealt with seed S+i, held-out game j with seed
 * S+1000000+j; the bots of a game get seeds from its deal. So a command
 * line fixes the data, the weights and the figures.
 *
 * Why C and not Python: Debian's python3-numpy is not installed here and
 * the fit is a small linear system; in C it needs nothing beyond libcarc
 * and runs in the same process that makes the data.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "carc_bot.h"
#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "train";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc train [--games N] [--test-games M] [--seed S] [--bot SPEC]\n"
	        "                  [--lambda L] [--out FILE] [--dump FILE] [--json] [rules]\n"
	        "       carc train --model\n"
	        "\n"
	        "Plays N self-play games of the bot (training) and M more (held out),\n"
	        "takes every position after a move for every player: the features of the\n"
	        "position (carc_eval_features) and the outcome, the player's final score\n"
	        "minus the best other's. Fits a linear model of the outcome by ridge\n"
	        "regression on the training positions and prints the mean absolute error\n"
	        "of its prediction on the held-out positions, next to the error of the\n"
	        "heuristic evaluation (its expected margin taken as the prediction).\n"
	        "The model mcts plays by with learned=1 is data/eval-linear.txt, compiled\n"
	        "into the binary; `carc train --model` prints it (docs/bots.md says which\n"
	        "command made it).\n"
	        "\n"
	        "options:\n"
	        "  --games N       training games (default 50)\n"
	        "  --test-games M  held-out games (default 20), dealt from other seeds\n"
	        "  --seed S        training game i is dealt with S+i, held-out game j with\n"
	        "                  S+1000000+j (default 1)\n"
	        "  --bot SPEC      the bot of every seat (default greedy)\n"
	        "  --lambda L      the ridge penalty on every weight (default 1)\n"
	        "  --out FILE      write the weights: a header naming the command, seed and\n"
	        "                  data size, then one 'name weight' line per feature\n"
	        "  --dump FILE     write every position as CSV: set, game, turn, player,\n"
	        "                  the features, margin\n"
	        "  --json          print one JSON object instead of the text\n"
	        "  --model         print the model built into this binary and check it loads\n"
	        "  -h, --help      this help\n");
	ropt_rules_help(f);
	fprintf(f, "\nexample:\n  carc train --games 200 --test-games 50 --out weights.txt\n");
}

typedef struct dataset {
	double *x, *y;
	long rows, cap;
	int cols;
} dataset;

static int ds_add(dataset *d, const double *x, double y)
{
	if (d->rows == d->cap) {
		long cap = d->cap ? d->cap * 2 : 4096;
		double *nx = realloc(d->x, sizeof *nx * (size_t)cap * (size_t)d->cols);
		if (!nx)
			return -1;
		d->x = nx;
		double *ny = realloc(d->y, sizeof *ny * (size_t)cap);
		if (!ny)
			return -1;
		d->y = ny;
		d->cap = cap;
	}
	memcpy(d->x + (size_t)d->rows * (size_t)d->cols, x, sizeof *x * (size_t)d->cols);
	d->y[d->rows++] = y;
	return 0;
}

/* Plays one self-play game dealt with seed; adds its positions to d (and
 * the dump). 0, or -1 after a message. */
static int play_game(const carc_rules *r, const char *spec, uint64_t seed, dataset *d,
                     FILE *dump, const char *set, long game)
{
	carc_game *g = carc_game_alloc();
	char err[512];
	if (!g || carc_game_init(g, r, seed, NULL, 0, err) != CARC_OK) {
		fprintf(stderr, "carc train: game %llu: %s\n", (unsigned long long)seed,
		        g ? err : "out of memory");
		free(g);
		return -1;
	}
	int np = r->players, nf = d->cols;
	carc_bot *b[CARC_MAX_PLAYERS] = {0};
	for (int p = 0; p < np; p++)
		if (!(b[p] = carc_bot_new(spec, seed * 31 + (uint64_t)p, err, sizeof err))) {
			fprintf(stderr, "carc train: --bot %s: %s\n", spec, err);
			for (int q = 0; q < p; q++)
				carc_bot_free(b[q]);
			free(g);
			return -1;
		}
	double *feat =
	    malloc(sizeof *feat * (size_t)nf * (size_t)carc_limit(CARC_LIMIT_STEPS) * CARC_MAX_PLAYERS);
	int npos = 0, rc = 0;
	while (feat && !carc_game_over(g)) {
		carc_apply_unchecked(g, carc_bot_choose(b[carc_to_move(g)], g), NULL);
		if (carc_game_over(g))
			break;
		for (int p = 0; p < np; p++)
			carc_eval_features(g, p, feat + (size_t)(npos++) * (size_t)nf);
	}
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	for (int k = 0; feat && k < npos; k++) {
		int p = k % np, best = -100000;
		for (int q = 0; q < np; q++)
			if (q != p && s[q] > best)
				best = s[q];
		double margin = s[p] - best;
		double *x = feat + (size_t)k * (size_t)nf;
		if (ds_add(d, x, margin)) {
			rc = -1;
			break;
		}
		if (dump) {
			fprintf(dump, "%s,%ld,%d,%d", set, game, k / np + 1, p);
			for (int i = 0; i < nf; i++)
				fprintf(dump, ",%.6g", feat[(size_t)k * (size_t)nf + (size_t)i]);
			fprintf(dump, ",%g\n", margin);
		}
	}
	if (!feat || rc) {
		fprintf(stderr, "carc train: out of memory\n");
		rc = -1;
	}
	free(feat);
	for (int p = 0; p < np; p++)
		carc_bot_free(b[p]);
	free(g);
	return rc;
}

int cmd_train(int argc, char **argv)
{
	carc_rules r;
	carc_rules_default(&r);
	long games = 50, test_games = 20;
	uint64_t seed = 1;
	const char *spec = "greedy", *out = NULL, *dumpf = NULL;
	double lambda = 1;
	int as_json = 0;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--model")) {
			if (argc != 2)
				return ropt_usage(CMD, "--model takes no other options");
			double w[64];
			char err[256];
			if (carc_eval_model_parse(carc_eval_model_text(), w, 64, err, sizeof err) < 0) {
				fprintf(stderr, "carc train: the built-in model does not load: %s\n", err);
				return 1;
			}
			fputs(carc_eval_model_text(), stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json")) {
			as_json = 1;
		} else if ((st = ropt_rules(CMD, argc, argv, &i, &r)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--games", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--games", v, 1, 1000000, &games))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--test-games", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--test-games", v, 1, 1000000, &test_games))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--bot", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			spec = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--lambda", &v)) != 0) {
			char *end;
			if (st < 0)
				return ROPT_USAGE;
			lambda = strtod(v, &end);
			if (!*v || *end || !(lambda >= 0) || lambda > 1e9)
				return ropt_usage(CMD, "--lambda: expected a number >= 0, got '%s'", v);
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--out", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			out = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--dump", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			dumpf = v;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (ropt_check_rules(CMD, &r))
		return ROPT_USAGE;
	char err[512];
	carc_bot *probe = carc_bot_new(spec, 1, err, sizeof err);
	if (!probe)
		return ropt_usage(CMD, "--bot %s: %s", spec, err);
	carc_bot_free(probe);

	int nf = carc_eval_nfeatures();
	dataset tr = {NULL, NULL, 0, 0, nf}, te = {NULL, NULL, 0, 0, nf};
	double *w = calloc((size_t)nf, sizeof *w);
	FILE *dump = NULL;
	int rc = 1;
	if (!w) {
		fprintf(stderr, "carc train: out of memory\n");
		goto done;
	}
	if (dumpf) {
		if (!(dump = fopen(dumpf, "w"))) {
			fprintf(stderr, "carc train: cannot write %s\n", dumpf);
			goto done;
		}
		fprintf(dump, "set,game,turn,player");
		for (int i = 0; i < nf; i++)
			fprintf(dump, ",%s", carc_eval_feature_name(i));
		fprintf(dump, ",margin\n");
	}
	for (long i = 0; i < games; i++)
		if (play_game(&r, spec, seed + (uint64_t)i, &tr, dump, "train", i))
			goto done;
	for (long i = 0; i < test_games; i++)
		if (play_game(&r, spec, seed + 1000000u + (uint64_t)i, &te, dump, "test", i))
			goto done;
	/* the design: features times t, the target the heuristic's error */
	int im = -1, it = -1;
	for (int i = 0; i < nf; i++) {
		if (!strcmp(carc_eval_feature_name(i), "eval_margin"))
			im = i;
		if (!strcmp(carc_eval_feature_name(i), "tiles_left_t"))
			it = i;
	}
	double *zx = malloc(sizeof *zx * (size_t)(tr.rows ? tr.rows : 1) * (size_t)nf);
	double *zy = malloc(sizeof *zy * (size_t)(tr.rows ? tr.rows : 1));
	if (!zx || !zy) {
		free(zx);
		free(zy);
		fprintf(stderr, "carc train: out of memory\n");
		goto done;
	}
	for (long k = 0; k < tr.rows; k++) {
		const double *x = tr.x + (size_t)k * (size_t)nf;
		for (int i = 0; i < nf; i++)
			zx[(size_t)k * (size_t)nf + (size_t)i] = x[i] * x[it];
		zy[k] = tr.y[k] - x[im];
	}
	int fit = carc_eval_fit(zx, zy, (int)tr.rows, nf, lambda, w);
	free(zx);
	free(zy);
	if (fit) {
		fprintf(stderr, "carc train: the fit failed (too few positions for %d features?)\n",
		        nf);
		goto done;
	}
	double mae_model = 0, mae_heur = 0, mae_train = 0;
	for (long k = 0; k < te.rows; k++) {
		const double *x = te.x + (size_t)k * (size_t)nf;
		double pred = 0;
		for (int i = 0; i < nf; i++)
			pred += w[i] * x[i];
		pred = x[im] + x[it] * pred;
		mae_model += fabs(pred - te.y[k]);
		mae_heur += fabs(x[im] - te.y[k]);
	}
	for (long k = 0; k < tr.rows; k++) {
		const double *x = tr.x + (size_t)k * (size_t)nf;
		double pred = 0;
		for (int i = 0; i < nf; i++)
			pred += w[i] * x[i];
		pred = x[im] + x[it] * pred;
		mae_train += fabs(pred - tr.y[k]);
	}
	mae_model /= (double)te.rows;
	mae_heur /= (double)te.rows;
	mae_train /= (double)tr.rows;
	if (out) {
		FILE *f = fopen(out, "w");
		if (!f) {
			fprintf(stderr, "carc train: cannot write %s\n", out);
			goto done;
		}
		fprintf(f, "# carc-eval-linear-1 (carc train): predicted final margin =\n"
		           "#   eval_margin + tiles_left_t * (sum of weight * feature)\n#");
		for (int i = 0; i < argc; i++)
			fprintf(f, " %s", i ? argv[i] : "carc train");
		fprintf(f, "\n# bot %s, seed %llu, %ld games (%ld positions), lambda %g\n", spec,
		        (unsigned long long)seed, games, tr.rows, lambda);
		fprintf(f, "# held out: %ld games (%ld positions), mean absolute error %.3f (heuristic "
		           "%.3f)\n",
		        test_games, te.rows, mae_model, mae_heur);
		for (int i = 0; i < nf; i++)
			fprintf(f, "%s %.9g\n", carc_eval_feature_name(i), w[i]);
		if (fclose(f) != 0) {
			fprintf(stderr, "carc train: cannot write %s\n", out);
			goto done;
		}
	}
	if (as_json) {
		json_t *o = json_object(), *jw = json_object();
		json_object_set_new(o, "bot", json_string(spec));
		json_object_set_new(o, "seed", json_integer((json_int_t)seed));
		json_object_set_new(o, "train_games", json_integer(games));
		json_object_set_new(o, "train_positions", json_integer(tr.rows));
		json_object_set_new(o, "test_games", json_integer(test_games));
		json_object_set_new(o, "test_positions", json_integer(te.rows));
		json_object_set_new(o, "mae_model", json_real(mae_model));
		json_object_set_new(o, "mae_heuristic", json_real(mae_heur));
		json_object_set_new(o, "mae_train", json_real(mae_train));
		for (int i = 0; i < nf; i++)
			json_object_set_new(jw, carc_eval_feature_name(i), json_real(w[i]));
		json_object_set_new(o, "weights", jw);
		char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(o);
		if (s)
			puts(s);
		free(s);
	} else {
		printf("carc train: bot %s, %d players, seed %llu: %ld training games (%ld positions), "
		       "%ld held out (%ld positions)\n",
		       spec, r.players, (unsigned long long)seed, games, tr.rows, test_games, te.rows);
		printf("mean absolute error of the final margin, held out: model %.2f, heuristic %.2f "
		       "(model on its training positions %.2f)\n",
		       mae_model, mae_heur, mae_train);
		for (int i = 0; i < nf; i++)
			printf("  %-18s %+.4f\n", carc_eval_feature_name(i), w[i]);
		if (out)
			printf("weights written to %s\n", out);
	}
	rc = 0;
done:
	if (dump && fclose(dump) != 0 && !rc) {
		fprintf(stderr, "carc train: cannot write %s\n", dumpf);
		rc = 1;
	}
	free(tr.x);
	free(tr.y);
	free(te.x);
	free(te.y);
	free(w);
	fflush(stdout);
	return rc;
}
