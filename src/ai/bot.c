/*
 * bot.c - the bot interface: specs, the table of bots, the random bot.
 *
 * A spec is "name" or "name:key=value,key=value". Each bot declares its
 * parameters (ai_param: default, range, whole or not, or a list of names);
 * a spec is checked against them here, so every bot gets valid values in
 * table order and never parses text itself. The normalised spec names the
 * bot and the parameters that differ from their defaults, in table order.
 *
 * random: a uniformly random placement of the current tile, then a
 * uniformly random choice among that placement's figure options plus "no
 * figure" (the policy of the speed benchmark).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ai.h"

struct carc_bot {
	const ai_bot_ops *ops;
	void *self;
	char spec[256];
};

double ai_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

carc_move ai_random_move(const carc_game *g, ai_rng *r, double pfig)
{
	carc_move pl[CARC_MAX_MOVES], fo[AI_MAX_FIGOPTS];
	if (carc_step_kind(g) != CARC_STEP_TILE) { /* any other step: a random decision */
		int n = carc_legal_moves(g, pl, CARC_MAX_MOVES);
		return n ? pl[ai_below(r, (unsigned)n)] : CARC_MOVE_NONE;
	}
	int n = carc_placements(g, pl, CARC_MAX_MOVES);
	if (n == 0)
		return CARC_MOVE_NONE;
	carc_move m = pl[ai_below(r, (unsigned)n)];
	if (m == CARC_MOVE_DISCARD)
		return m;
	if (pfig >= 0 && ai_unit(r) >= pfig)
		return m;
	int nf = carc_figure_options(g, m, fo, AI_MAX_FIGOPTS);
	if (pfig >= 0) {
		return nf ? fo[ai_below(r, (unsigned)nf)] : m;
	}
	unsigned k = ai_below(r, (unsigned)nf + 1);
	return (int)k < nf ? fo[k] : m;
}

/* ---- the random bot ------------------------------------------------------ */

typedef struct random_bot {
	ai_rng rng;
	double pfig;
} random_bot;

static const ai_param RANDOM_PARAMS[] = {
	{"follower", -1, -1, 1, 0, NULL,
	 "chance of placing a figure when the placement allows one; -1: uniform "
	 "over the options and none"},
};

static void *random_create(const double *vals, uint64_t seed, char *err, size_t errsize)
{
	random_bot *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	b->rng.s = seed;
	b->pfig = vals[0];
	return b;
}

static carc_move random_choose(void *self, const carc_game *g)
{
	random_bot *b = self;
	return ai_random_move(g, &b->rng, b->pfig);
}

static void random_destroy(void *self) { free(self); }

const ai_bot_ops ai_random_ops = {
	"random", "a uniformly random legal placement and figure",
	RANDOM_PARAMS, 1, random_create, random_choose, random_destroy, NULL, NULL,
};

/* ---- the table of bots ------------------------------------------------------ */

static const ai_bot_ops *const BOTS[] = {&ai_random_ops, &ai_greedy_ops, &ai_star25_ops,
                                         &ai_mcts_ops, &ai_softgreedy_ops};
#define NBOTS ((int)(sizeof BOTS / sizeof BOTS[0]))

static const char *const NAMES[] = {"random", "greedy", "star25", "mcts", "softgreedy", NULL};

const char *const *carc_bot_names(void) { return NAMES; }

static const ai_bot_ops *find_ops(const char *name, size_t len)
{
	for (int i = 0; i < NBOTS; i++)
		if (strlen(BOTS[i]->name) == len && !strncmp(BOTS[i]->name, name, len))
			return BOTS[i];
	return NULL;
}

static void fmt_value(const ai_param *p, double v, char *buf, size_t size)
{
	if (p->choices)
		snprintf(buf, size, "%s", p->choices[(int)v]);
	else
		snprintf(buf, size, "%.10g", v);
}

/* Parses one value for p; 0 on success. */
static int parse_value(const ai_param *p, const char *s, size_t len, double *out)
{
	char tmp[64];
	if (len == 0 || len >= sizeof tmp)
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	if (p->choices) {
		for (int i = 0; p->choices[i]; i++)
			if (!strcmp(p->choices[i], tmp)) {
				*out = i;
				return 0;
			}
		return -1;
	}
	char *end;
	double v = strtod(tmp, &end);
	if (*end || !isfinite(v) || v < p->lo || v > p->hi)
		return -1;
	if (p->integer && v != floor(v))
		return -1;
	*out = v;
	return 0;
}

static void describe_range(const ai_param *p, char *buf, size_t size)
{
	if (p->choices) {
		size_t o = 0;
		buf[0] = 0;
		for (int i = 0; p->choices[i] && o < size; i++)
			o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? "|" : "", p->choices[i]);
	} else {
		snprintf(buf, size, "%s %.10g..%.10g", p->integer ? "whole number" : "number", p->lo,
		         p->hi);
	}
}

carc_bot *carc_bot_new(const char *spec, uint64_t seed, char *err, size_t errsize)
{
	char dummy[2];
	if (!err) {
		err = dummy;
		errsize = sizeof dummy;
	}
	if (!spec || !*spec) {
		snprintf(err, errsize, "empty bot spec (known: random, greedy, star25, mcts, softgreedy)");
		return NULL;
	}
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	const ai_bot_ops *ops = find_ops(spec, nlen);
	if (!ops) {
		snprintf(err, errsize,
		         "unknown bot '%.*s' (known: random, greedy, star25, mcts, softgreedy)", (int)nlen,
		         spec);
		return NULL;
	}
	double vals[AI_MAX_PARAMS];
	int given[AI_MAX_PARAMS] = {0};
	for (int i = 0; i < ops->nparams; i++)
		vals[i] = ops->params[i].def;
	if (colon) {
		const char *s = colon + 1;
		if (!*s) {
			snprintf(err, errsize, "bot '%s': nothing after ':'", spec);
			return NULL;
		}
		while (*s) {
			const char *end = strchr(s, ',');
			size_t len = end ? (size_t)(end - s) : strlen(s);
			const char *eq = memchr(s, '=', len);
			if (!eq) {
				snprintf(err, errsize, "bot '%s': '%.*s' is not key=value", ops->name,
				         (int)len, s);
				return NULL;
			}
			size_t klen = (size_t)(eq - s);
			int k = -1;
			for (int i = 0; i < ops->nparams; i++)
				if (strlen(ops->params[i].key) == klen &&
				    !strncmp(ops->params[i].key, s, klen))
					k = i;
			if (k < 0) {
				size_t o = (size_t)snprintf(err, errsize,
				                            "bot '%s' has no parameter '%.*s' (known:",
				                            ops->name, (int)klen, s);
				for (int i = 0; i < ops->nparams && o < errsize; i++)
					o += (size_t)snprintf(err + o, errsize - o, " %s", ops->params[i].key);
				if (o < errsize)
					snprintf(err + o, errsize - o, ")");
				return NULL;
			}
			const char *v = eq + 1;
			size_t vlen = len - klen - 1;
			if (parse_value(&ops->params[k], v, vlen, &vals[k])) {
				char range[160];
				describe_range(&ops->params[k], range, sizeof range);
				snprintf(err, errsize, "bot '%s': bad value '%.*s' for %s (expected %s)",
				         ops->name, (int)vlen, v, ops->params[k].key, range);
				return NULL;
			}
			given[k] = 1;
			if (!end)
				break;
			s = end + 1;
			if (!*s) {
				snprintf(err, errsize, "bot '%s': trailing ','", spec);
				return NULL;
			}
		}
	}
	carc_bot *b = calloc(1, sizeof *b);
	if (!b) {
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	b->ops = ops;
	size_t o = (size_t)snprintf(b->spec, sizeof b->spec, "%s", ops->name);
	int first = 1;
	for (int i = 0; i < ops->nparams; i++) {
		if (!given[i] || vals[i] == ops->params[i].def)
			continue;
		char v[64];
		fmt_value(&ops->params[i], vals[i], v, sizeof v);
		if (o < sizeof b->spec)
			o += (size_t)snprintf(b->spec + o, sizeof b->spec - o, "%s%s=%s",
			                      first ? ":" : ",", ops->params[i].key, v);
		first = 0;
	}
	b->self = ops->create(vals, seed, err, errsize);
	if (!b->self) {
		free(b);
		return NULL;
	}
	return b;
}

carc_move carc_bot_choose(carc_bot *b, const carc_game *g)
{
	if (!b || !g || carc_game_over(g))
		return CARC_MOVE_NONE;
	carc_move m = b->ops->choose(b->self, g);
#ifndef NDEBUG
	if (carc_check_move(g, m, NULL) != CARC_OK) {
		fprintf(stderr, "carc: bot %s chose an illegal move 0x%x\n", b->spec, m);
		abort();
	}
#endif
	return m;
}

const char *carc_bot_spec(const carc_bot *b) { return b->spec; }

void carc_bot_free(carc_bot *b)
{
	if (!b)
		return;
	b->ops->destroy(b->self);
	free(b);
}

void carc_bot_stop(carc_bot *b)
{
	if (b && b->ops->stop)
		b->ops->stop(b->self);
}

void carc_bot_info(carc_bot *b, char *buf, size_t size)
{
	if (!buf || !size)
		return;
	buf[0] = 0;
	if (b && b->ops->info)
		b->ops->info(b->self, buf, size);
}

int carc_bot_describe(const char *name, char *buf, size_t size)
{
	const ai_bot_ops *ops = name ? find_ops(name, strlen(name)) : NULL;
	if (!ops || !buf || !size)
		return -1;
	size_t o = (size_t)snprintf(buf, size, "%s: %s\n", ops->name, ops->summary);
	for (int i = 0; i < ops->nparams && o < size; i++) {
		const ai_param *p = &ops->params[i];
		char def[64], range[160];
		fmt_value(p, p->def, def, sizeof def);
		describe_range(p, range, sizeof range);
		o += (size_t)snprintf(buf + o, size - o, "  %-10s %s (default %s; %s)\n", p->key,
		                      p->doc, def, range);
	}
	return 0;
}
