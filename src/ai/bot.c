/*
 * bot.c - the bot interface and the random bot.
 *
 * random: a uniformly random placement of the current tile, then a
 * uniformly random choice among that placement's figure options plus "no
 * figure" (the policy of the speed benchmark).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc_bot.h"

struct carc_bot {
	char spec[128];
	uint64_t rng;
};

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static const char *const NAMES[] = {"random", NULL};

const char *const *carc_bot_names(void) { return NAMES; }

carc_bot *carc_bot_new(const char *spec, uint64_t seed, char *err, size_t errsize)
{
	if (!spec || strcmp(spec, "random") != 0) {
		if (err)
			snprintf(err, errsize, "unknown bot '%s' (known: random)", spec ? spec : "");
		return NULL;
	}
	carc_bot *b = calloc(1, sizeof *b);
	if (!b) {
		if (err)
			snprintf(err, errsize, "out of memory");
		return NULL;
	}
	snprintf(b->spec, sizeof b->spec, "%s", spec);
	b->rng = seed;
	return b;
}

carc_move carc_bot_choose(carc_bot *b, const carc_game *g)
{
	carc_move pl[CARC_MAX_PLACEMENTS], fo[CARC_MAX_SEGS * CARC_FIG_COUNT];
	int n = carc_placements(g, pl, CARC_MAX_PLACEMENTS);
	if (n == 0)
		return CARC_MOVE_NONE;
	carc_move m = pl[next_rand(&b->rng) % (uint64_t)n];
	int nf = carc_figure_options(g, m, fo, CARC_MAX_SEGS * CARC_FIG_COUNT);
	int k = (int)(next_rand(&b->rng) % (uint64_t)(nf + 1));
	return k < nf ? fo[k] : m;
}

const char *carc_bot_spec(const carc_bot *b) { return b->spec; }

void carc_bot_free(carc_bot *b) { free(b); }
