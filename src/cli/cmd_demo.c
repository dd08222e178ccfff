/*
 * cmd_demo.c - `carc demo`: a game between bots, printed as it goes: one
 * line per turn (who put which tile where, the figure, what scored), the
 * board every few turns and at the end with the final points by kind.
 * `make run` runs it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "board_draw.h"
#include "carc_bot.h"
#include "cli.h"
#include "rules_opts.h"

static const char *const CMD = "demo";

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc demo [--seed S] [--bot SPEC]... [rules] [--turns N] [--every N]\n"
	        "                 [--delay MS] [--color=auto|always|never] [--size S]\n"
	        "\n"
	        "Plays a game between bots and prints each turn: who placed which tile\n"
	        "where, the figure put on it, and what it scored; the board every few\n"
	        "turns and at the end, with the final points by kind.\n"
	        "\n"
	        "options:\n"
	        "  --seed S        deals the tiles (and seeds the bots); default 1\n"
	        "  --bot SPEC      the bot of the next seat, e.g. random (the default for\n"
	        "                  every seat not given); once per seat, in seat order\n"
	        "  --turns N       stop after N turns (default: play the game to the end)\n"
	        "  --every N       draw the board every N turns (default 10; 0: only at\n"
	        "                  the end)\n"
	        "  --delay MS      pause between turns (default 150 when stdout is a\n"
	        "                  terminal, else 0)\n"
	        "  --color=WHEN    ANSI colours: auto (default), always, never\n"
	        "  --size S        tile blocks: large (7x5), small (5x3), auto (default)\n"
	        "  -h, --help      this help\n");
	ropt_rules_help(f);
	fprintf(f,
	        "\n"
	        "examples:\n"
	        "  carc demo\n"
	        "  carc demo --seed 7 --players 3 --delay 0 --color=never\n");
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void draw(const carc_game *g, bd_opts *o, int size_auto)
{
	if (size_auto)
		bd_fit(g, o);
	printf("\n");
	bd_draw(stdout, g, o);
	printf("\n");
}

int cmd_demo(int argc, char **argv)
{
	carc_rules r;
	carc_rules_default(&r);
	uint64_t seed = 1;
	long delay = -1, every = 10, max_turns = -1;
	int color = 2, size_auto = 1, nbots = 0;
	const char *specs[CARC_MAX_PLAYERS];
	bd_opts o;
	bd_opts_default(&o, stdout);
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if ((st = ropt_rules(CMD, argc, argv, &i, &r)) != 0 ||
		    (st = ropt_color(CMD, argc, argv, &i, &color)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--delay", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--delay", v, 0, 60000, &delay))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--every", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--every", v, 0, carc_limit(CARC_LIMIT_BOARD_TILES), &every))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--turns", &v)) != 0) {
			if (st < 0 || ropt_int(CMD, "--turns", v, 1, carc_limit(CARC_LIMIT_BOARD_TILES), &max_turns))
				return ROPT_USAGE;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--size", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			size_auto = !strcmp(v, "auto");
			if (!size_auto && bd_set_size(&o, v))
				return ropt_usage(CMD, "--size: unknown '%s' (valid: auto, large, small)", v);
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--bot", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			if (nbots == CARC_MAX_PLAYERS)
				return ropt_usage(CMD, "--bot: more than %d bots", CARC_MAX_PLAYERS);
			specs[nbots++] = v;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	if (ropt_check_rules(CMD, &r))
		return ROPT_USAGE;
	if (nbots > r.players)
		return ropt_usage(CMD, "--bot: %d bots for %d players", nbots, r.players);
	if (delay < 0)
		delay = isatty(STDOUT_FILENO) ? 150 : 0;
	o.color = ropt_color_on(color, stdout);

	carc_bot *bots[CARC_MAX_PLAYERS] = {0};
	carc_game *g = carc_game_alloc();
	carc_events *ev = malloc(sizeof *ev);
	int rc = 0;
	char err[CARC_ERRMSG_SIZE];
	if (!g || !ev) {
		fprintf(stderr, "carc demo: out of memory\n");
		rc = 1;
		goto done;
	}
	for (int p = 0; p < r.players; p++) {
		const char *spec = p < nbots ? specs[p] : "random";
		char berr[256];
		/* each seat its own stream of random numbers */
		bots[p] = carc_bot_new(spec, seed * 1000003u + (uint64_t)p + 1, berr, sizeof berr);
		if (!bots[p]) {
			rc = ropt_usage(CMD, "--bot: %s", berr);
			goto done;
		}
	}
	if (carc_game_init(g, &r, seed, NULL, 0, err) != CARC_OK) {
		fprintf(stderr, "carc demo: %s\n", err);
		rc = 1;
		goto done;
	}

	printf("carc demo: seed %llu, %d players:", (unsigned long long)seed, r.players);
	for (int p = 0; p < r.players; p++) {
		printf("%s ", p ? "," : "");
		bd_player_label(stdout, p, o.color);
		printf(" %s", carc_bot_spec(bots[p]));
	}
	printf("\n");
	while (!carc_game_over(g) && (max_turns < 0 || carc_turns_played(g) < max_turns ||
	                              carc_step_kind(g) != CARC_STEP_TILE)) {
		carc_move m = carc_bot_choose(bots[carc_to_move(g)], g);
		if (carc_apply(g, m, ev, err) != CARC_OK) {
			fprintf(stderr, "carc demo: the bot's move was refused: %s\n", err);
			rc = 1;
			goto done;
		}
		printf("%3d  ", carc_turns_played(g));
		bd_print_step(stdout, g, carc_steps_played(g) - 1, o.color);
		printf("\n");
		for (int i = 0; i < ev->n; i++)
			if (ev->ev[i].type == CARC_EV_SCORED && !ev->ev[i].final) {
				printf("       scores ");
				bd_print_event(stdout, g, &ev->ev[i], o.color);
				printf("\n");
			}
		if (carc_game_over(g)) {
			printf("\nfinal scoring:\n");
			for (int i = 0; i < ev->n; i++)
				if (ev->ev[i].type == CARC_EV_SCORED && ev->ev[i].final) {
					printf("       ");
					bd_print_event(stdout, g, &ev->ev[i], o.color);
					printf("\n");
				}
		}
		o.highlight = carc_board_tiles(g) - 1;
		if (every > 0 && carc_turns_played(g) % every == 0 && !carc_game_over(g) &&
		    carc_step_kind(g) == CARC_STEP_TILE)
			draw(g, &o, size_auto);
		fflush(stdout);
		if (delay > 0 && !carc_game_over(g))
			sleep_ms(delay);
	}
	draw(g, &o, size_auto);
	if (carc_game_over(g)) {
		int sc[CARC_MAX_PLAYERS], best = 0, nbest = 0;
		carc_game_scores(g, sc);
		for (int p = 0; p < r.players; p++)
			best = sc[p] > best ? sc[p] : best;
		for (int p = 0; p < r.players; p++)
			if (sc[p] == best) {
				printf("%s", nbest++ ? " and " : "");
				bd_player_label(stdout, p, o.color);
			}
		printf(" %s with %d points\n", nbest > 1 ? "share the victory" : "wins", best);
	}

done:
	for (int p = 0; p < CARC_MAX_PLAYERS; p++)
		if (bots[p])
			carc_bot_free(bots[p]);
	carc_game_free(g);
	free(ev);
	return rc;
}
