/*
 * options.c - table options: parsing, the expansion table and the bot
 * levels. Everything a client can choose when it creates a table is
 * checked here, before any table exists; the engine's carc_game_init has
 * the last word on the rules.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bots.h"
#include "options.h"
#include "ratings.h"
#include "server.h"
#include "tutorial.h"
#include "undo.h"

/* Expansions come from the engine by name (carc_expansion_name of each
 * CARC_EXP_* bit), so a new expansion in the engine is offered here with no
 * change. Inns & Cathedrals (either option) seats six. */
/* the engine says how many players the expansions allow */
#define max_players_of carc_rules_max_players
#define BASE_MAX_PLAYERS carc_rules_max_players(0)

/* Bot levels: a client chooses a level, never a spec; the server decides
 * what a level costs. The built-in levels below can be redefined and others
 * added by the operator (--bot-level NAME=SPEC); every level's spec is held
 * to the bot ceilings (bots_clamp) when the levels are installed, so the
 * table of levels only ever holds specs within them. A built-in level whose
 * bot the library does not have is listed as not available and refused. */
typedef struct level_def {
	char level[OPT_LEVEL_SIZE];
	char spec[STORE_SPEC_SIZE];
	int available;
	char why[200];                 /* why not available */
} level_def;

static const struct {
	const char *level, *spec;
} BUILTIN_LEVELS[] = {
	{"random", "random"},
	{"easy", "softgreedy"},
	{"medium", "greedy"},
	{"hard", "mcts:time=0.1"},
	{"expert", "mcts:time=1"},
};
#define NBUILTIN ((int)(sizeof BUILTIN_LEVELS / sizeof BUILTIN_LEVELS[0]))

static level_def levels[NBUILTIN + SRV_MAX_BOT_LEVELS];
static int nlevels;
static struct {
	double max_time;
	int max_threads;
	long max_nodes;
} ceilings;

static const char *const COLOURS[OPT_COLOUR_COUNT] = {
	"blue", "red", "yellow", "black", "green", "pink",
};
_Static_assert(OPT_COLOUR_COUNT >= CARC_MAX_PLAYERS, "every seat needs a colour of its own");

const char *opt_colour_name(int c)
{
	return c >= 0 && c < OPT_COLOUR_COUNT ? COLOURS[c] : NULL;
}

int opt_colour_parse(const char *name)
{
	for (int c = 0; name && c < OPT_COLOUR_COUNT; c++)
		if (!strcmp(name, COLOURS[c]))
			return c;
	return -1;
}

void opt_fill_colours(int *colours, int n)
{
	int used[OPT_COLOUR_COUNT] = {0};
	for (int i = 0; i < n; i++)
		if (colours[i] >= 0 && colours[i] < OPT_COLOUR_COUNT)
			used[colours[i]] = 1;
	int next = 0;
	for (int i = 0; i < n; i++) {
		if (colours[i] >= 0 && colours[i] < OPT_COLOUR_COUNT)
			continue;
		while (next < OPT_COLOUR_COUNT && used[next])
			next++;
		colours[i] = next < OPT_COLOUR_COUNT ? next : i % OPT_COLOUR_COUNT;
		if (next < OPT_COLOUR_COUNT)
			used[next] = 1;
	}
}

void opt_colours_from_names(const char *const *names, int n, int *colours)
{
	int used[OPT_COLOUR_COUNT] = {0};
	for (int i = 0; i < n; i++) {
		int c = opt_colour_parse(names[i]);
		if (c >= 0 && used[c])
			c = -1;
		if (c >= 0)
			used[c] = 1;
		colours[i] = c;
	}
	opt_fill_colours(colours, n);
}

int opt_level_arg(const char *arg, char *name, size_t namesize, const char **spec, char *err,
                  size_t errsize)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg) {
		snprintf(err, errsize, "--bot-level '%.60s': NAME=SPEC expected, e.g. hard=mcts:time=1",
		         arg);
		return -1;
	}
	size_t n = (size_t)(eq - arg);
	int ok = n < OPT_LEVEL_SIZE && n < namesize;
	for (size_t i = 0; ok && i < n; i++)
		ok = (arg[i] >= 'a' && arg[i] <= 'z') || (arg[i] >= '0' && arg[i] <= '9') ||
		     arg[i] == '-' || arg[i] == '_';
	if (!ok) {
		snprintf(err, errsize, "--bot-level '%.60s': a level's name is 1 to %d of a-z, 0-9, "
		         "'-' and '_'", arg, OPT_LEVEL_SIZE - 1);
		return -1;
	}
	if (!eq[1]) {
		snprintf(err, errsize, "--bot-level '%.60s': NAME=SPEC needs a bot spec for level '%.*s'",
		         arg, (int)n, arg);
		return -1;
	}
	memcpy(name, arg, n);
	name[n] = 0;
	*spec = eq + 1;
	return 0;
}

static level_def *find_level_in(level_def *table, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(table[i].level, name))
			return &table[i];
	return NULL;
}

static level_def *find_level(const char *name) { return find_level_in(levels, nlevels, name); }

int opt_levels_init(const srv_config *c, int log, char *err, size_t errsize)
{
	/* built in a table of its own: on an error the installed levels stay */
	static level_def next[NBUILTIN + SRV_MAX_BOT_LEVELS];
	int n = 0;
	memset(next, 0, sizeof next);
	for (int i = 0; i < NBUILTIN; i++, n++) {
		snprintf(next[n].level, sizeof next[n].level, "%s", BUILTIN_LEVELS[i].level);
		snprintf(next[n].spec, sizeof next[n].spec, "%s", BUILTIN_LEVELS[i].spec);
	}
	if (c->nbot_levels < 0 || c->nbot_levels > SRV_MAX_BOT_LEVELS) {
		snprintf(err, errsize, "at most %d --bot-level options", SRV_MAX_BOT_LEVELS);
		return -1;
	}
	int mine[NBUILTIN + SRV_MAX_BOT_LEVELS] = {0}; /* the operator's: a bad spec is an error */
	for (int i = 0; i < c->nbot_levels; i++) {
		char name[OPT_LEVEL_SIZE];
		const char *spec;
		if (opt_level_arg(c->bot_levels[i], name, sizeof name, &spec, err, errsize))
			return -1;
		if (strlen(spec) >= STORE_SPEC_SIZE) {
			snprintf(err, errsize, "--bot-level %s: the spec is longer than %d characters", name,
			         STORE_SPEC_SIZE - 1);
			return -1;
		}
		level_def *l = find_level_in(next, n, name);
		if (!l) {
			l = &next[n++];
			snprintf(l->level, sizeof l->level, "%s", name);
		}
		snprintf(l->spec, sizeof l->spec, "%s", spec);
		mine[l - next] = 1;
	}
	for (int i = 0; i < n; i++) {
		level_def *l = &next[i];
		char out[STORE_SPEC_SIZE], why[256], e[200];
		int rc = bots_clamp(c, l->spec, out, sizeof out, why, sizeof why, e, sizeof e);
		if (rc < 0 && mine[i]) {
			snprintf(err, errsize, "--bot-level %s=%s: %s", l->level, l->spec, e);
			return -1;
		}
		l->available = rc >= 0;
		if (rc < 0) {
			snprintf(l->why, sizeof l->why, "%s", e);
			if (log)
				srv_event("bot level '%s' (%s) is not available: %s", l->level, l->spec, e);
			continue;
		}
		if (rc == 1 && log)
			srv_event("bot level '%s': %s is held to the ceilings as %s (%s)", l->level, l->spec,
			          out, why);
		snprintf(l->spec, sizeof l->spec, "%s", out);
	}
	memcpy(levels, next, sizeof levels);
	nlevels = n;
	ceilings.max_time = c->bot_max_time;
	ceilings.max_threads = c->bot_max_threads;
	ceilings.max_nodes = c->bot_max_nodes;
	return 0;
}

/* Installs the levels of a default configuration when nobody did (a caller
 * of opt_parse outside the server, e.g. a test). */
static void levels_ready(void)
{
	if (nlevels)
		return;
	srv_config c;
	srv_config_default(&c);
	char err[256];
	opt_levels_init(&c, 0, err, sizeof err);
}

static void level_list(char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < nlevels; i++) {
		if (!levels[i].available)
			continue;
		int k = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", levels[i].level);
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
}

int opt_bot_spec(const char *level, char *spec, size_t specsize, char *err, size_t errsize)
{
	levels_ready();
	const level_def *l = find_level(level);
	char list[512];
	level_list(list, sizeof list);
	if (!l) {
		snprintf(err, errsize, "unknown bot level '%.40s%s' (levels: %s)", level,
		         strlen(level) > 40 ? "..." : "", list);
		return -1;
	}
	if (!l->available) {
		snprintf(err, errsize, "bot level '%s' is not available (%s); levels: %s", l->level,
		         l->why, list);
		return -1;
	}
	if (strlen(l->spec) >= specsize) {
		snprintf(err, errsize, "bot level '%s': its spec is too long", l->level);
		return -1;
	}
	snprintf(spec, specsize, "%s", l->spec);
	return 0;
}

static void expansion_list(char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < carc_name_count(CARC_NAMES_EXPANSION); i++) {
		const char *name = carc_name(CARC_NAMES_EXPANSION, i);
		int k = snprintf(buf + n, size - n, "%s%s", n ? ", " : "", name);
		if (k < 0 || (size_t)k >= size - n)
			break;
		n += (size_t)k;
	}
	if (!n)
		snprintf(buf, size, "none: the engine offers the base game only");
}

int opt_expansions_to_rules(const char names[][32], int n, carc_rules *r, int *max_players,
                            char *err, size_t errsize)
{
	r->expansions = 0;
	for (int i = 0; i < n; i++) {
		unsigned bit = carc_expansion_parse(names[i]);
		if (!bit) {
			char list[256];
			expansion_list(list, sizeof list);
			snprintf(err, errsize, "unknown expansion '%s' (valid: %s)", names[i], list);
			return -1;
		}
		r->expansions |= bit;
	}
	*max_players = max_players_of(r->expansions);
	return 0;
}

json_t *opt_choices_json(void)
{
	json_t *o = json_object();
	json_object_set_new(o, "players_min", json_integer(2));
	json_object_set_new(o, "players_max", json_integer(BASE_MAX_PLAYERS));
	json_t *fs = json_array();
	for (int i = 0; i < CARC_FARM_SCORING_COUNT; i++)
		json_array_append_new(fs, json_string(carc_farm_scoring_name(i)));
	json_object_set_new(o, "farm_scoring", fs);
	json_t *ex = json_array();
	for (int i = 0; i < carc_name_count(CARC_NAMES_EXPANSION); i++) {
		const char *name = carc_name(CARC_NAMES_EXPANSION, i);
		json_t *e = json_object();
		json_object_set_new(e, "name", json_string(name));
		json_object_set_new(e, "players_max", json_integer(max_players_of(1u << i)));
		json_array_append_new(ex, e);
	}
	json_object_set_new(o, "expansions", ex);
	levels_ready();
	json_t *lv = json_array();
	for (int i = 0; i < nlevels; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "level", json_string(levels[i].level));
		json_object_set_new(e, "spec", json_string(levels[i].spec));
		json_object_set_new(e, "available", json_boolean(levels[i].available));
		double r;
		json_object_set_new(e, "rating", ratings_bot(levels[i].spec, &r) ? json_integer((json_int_t)lround(r))
		                                                                  : json_null());
		json_array_append_new(lv, e);
	}
	json_object_set_new(o, "bot_levels", lv);
	json_object_set_new(o, "bot_limits",
	                    json_pack("{s:f, s:i, s:I}", "time_s", ceilings.max_time, "threads",
	                              ceilings.max_threads, "nodes", (json_int_t)ceilings.max_nodes));
	json_t *cs = json_array();
	for (int c = 0; c < OPT_COLOUR_COUNT; c++)
		json_array_append_new(cs, json_string(COLOURS[c]));
	json_object_set_new(o, "colours", cs);
	/* the ranges of a move's "turn" and "step" and of an undo's "moves":
	 * the engine's capacities (carc_limit), which grow with it */
	json_object_set_new(o, "limits",
	                    json_pack("{s:i, s:i, s:i}", "turn", carc_limit(CARC_LIMIT_BOARD_TILES),
	                              "step", carc_limit(CARC_LIMIT_STEPS), "undo_moves",
	                              UNDO_MAX_MOVES));
	return o;
}

/* A seed is a uint64: a JSON integer (0..INT64_MAX, what jansson holds)
 * or a string of decimal digits (0..UINT64_MAX), as records have it. The
 * same rule reads a stored table back, so a seed accepted is a seed that
 * loads. */
int opt_seed_parse(const json_t *v, uint64_t *out)
{
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return -1;
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;
	if (n == 0 || n > 20 || strspn(s, "0123456789") != n || n != json_string_length(v))
		return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*out = x;
	return 0;
}

json_t *opt_seed_json(uint64_t seed)
{
	if (seed <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)seed);
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
	return json_string(buf);
}

static const char *const KNOWN_KEYS[] = {
	"players", "farmers", "farm_scoring", "small_city", "expansions", "tiles",
	"seed", "seats", "bot_delay_ms", "private", "name", "clock", "spectator_chat",
	"pass_and_play", "tutorial", "rated", NULL,
};

static const char *const CLOCK_MODES[OPT_CLOCK_COUNT] = {"none", "realtime", "turn"};

const char *opt_clock_mode_name(int mode)
{
	return mode >= 0 && mode < OPT_CLOCK_COUNT ? CLOCK_MODES[mode] : "none";
}

/* An integer option of the clock in lo..hi, or `def` when absent. */
static int clock_int(const json_t *c, const char *key, int lo, int hi, int def, int *out,
                     char *err, size_t errsize)
{
	json_t *v = json_object_get(c, key);
	*out = def;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(err, errsize, "option 'clock.%s' must be a whole number %d..%d", key, lo, hi);
		return -1;
	}
	*out = (int)json_integer_value(v);
	return 0;
}

/* "clock": {"mode": "none|realtime|turn", "move_s": n, "reserve_s": n,
 * "takeover": level, "max_timeouts": n}; every key optional, none other
 * allowed; move and reserve times only with a clock. */
static int clock_parse(const json_t *c, srv_clock_opt *out, char *err, size_t errsize)
{
	memset(out, 0, sizeof *out);
	out->mode = OPT_CLOCK_NONE;
	out->max_timeouts = 3;
	snprintf(out->takeover, sizeof out->takeover, "medium");
	if (c && !json_is_object(c)) {
		snprintf(err, errsize, "option 'clock' must be an object, e.g. {\"mode\": \"realtime\", "
		         "\"move_s\": 60, \"reserve_s\": 120}");
		return -1;
	}
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)c, key, v) {
		if (strcmp(key, "mode") && strcmp(key, "move_s") && strcmp(key, "reserve_s") &&
		    strcmp(key, "takeover") && strcmp(key, "max_timeouts")) {
			snprintf(err, errsize, "unknown option 'clock.%.40s' (known: mode, move_s, "
			         "reserve_s, takeover, max_timeouts)", key);
			return -1;
		}
	}
	v = json_object_get(c, "mode");
	if (v) {
		out->mode = -1;
		for (int k = 0; k < OPT_CLOCK_COUNT && json_is_string(v); k++)
			if (!strcmp(json_string_value(v), CLOCK_MODES[k]))
				out->mode = k;
		if (out->mode < 0) {
			snprintf(err, errsize, "option 'clock.mode' must be one of: none, realtime, turn");
			return -1;
		}
	}
	if (out->mode == OPT_CLOCK_NONE) {
		if (json_object_get(c, "move_s") || json_object_get(c, "reserve_s") ||
		    json_object_get(c, "max_timeouts")) {
			snprintf(err, errsize, "option 'clock': move_s, reserve_s and max_timeouts need "
			         "a clock (mode realtime or turn)");
			return -1;
		}
	} else if (out->mode == OPT_CLOCK_REALTIME) {
		if (clock_int(c, "move_s", OPT_CLOCK_RT_MOVE_MIN, OPT_CLOCK_RT_MOVE_MAX, 60,
		              &out->move_s, err, errsize) ||
		    clock_int(c, "reserve_s", 0, OPT_CLOCK_RT_RESERVE_MAX, 120, &out->reserve_s, err,
		              errsize))
			return -1;
	} else {
		if (clock_int(c, "move_s", OPT_CLOCK_TB_MOVE_MIN, OPT_CLOCK_TB_MOVE_MAX, 86400,
		              &out->move_s, err, errsize) ||
		    clock_int(c, "reserve_s", 0, OPT_CLOCK_TB_RESERVE_MAX, 0, &out->reserve_s, err,
		              errsize))
			return -1;
	}
	if (clock_int(c, "max_timeouts", 1, OPT_CLOCK_MAX_TIMEOUTS, 3, &out->max_timeouts, err,
	              errsize))
		return -1;
	v = json_object_get(c, "takeover");
	if (v) {
		if (!json_is_string(v) || json_string_length(v) >= sizeof out->takeover) {
			snprintf(err, errsize, "option 'clock.takeover' must be the name of a bot level");
			return -1;
		}
		snprintf(out->takeover, sizeof out->takeover, "%s", json_string_value(v));
	}
	char e2[600];
	if (opt_bot_spec(out->takeover, out->takeover_spec, sizeof out->takeover_spec, e2,
	                 sizeof e2)) {
		snprintf(err, errsize, "option 'clock.takeover': %s", e2);
		return -1;
	}
	return 0;
}

static int get_bool(const json_t *o, const char *key, int *out, char *err, size_t errsize)
{
	json_t *v = json_object_get(o, key);
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		snprintf(err, errsize, "option '%s' must be true or false", key);
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

static int parse(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
                 size_t errsize, int stored);

int opt_parse(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
              size_t errsize)
{
	return parse(o, default_bot_delay_ms, out, err, errsize, 0);
}

int opt_parse_stored(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
                     size_t errsize)
{
	return parse(o, default_bot_delay_ms, out, err, errsize, 1);
}

/* stored: the options come from the store (opt_to_json), where the keys
 * only the server sets may be too */
static int parse(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
                 size_t errsize, int stored)
{
	memset(out, 0, sizeof *out);
	carc_rules_default(&out->rules);
	out->bot_delay_ms = default_bot_delay_ms;
	out->rated = 1;
	if (!json_is_object(o)) {
		snprintf(err, errsize, "table options must be a JSON object");
		return -1;
	}
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)o, key, v) {
		int known = 0;
		for (int i = 0; KNOWN_KEYS[i]; i++)
			known |= !strcmp(key, KNOWN_KEYS[i]);
		known |= stored && !strcmp(key, "match");
		if (!known) {
			/* the list is KNOWN_KEYS': a new option is named here by itself */
			int at = snprintf(err, errsize, "unknown option '%.40s' (known: ", key);
			for (int i = 0; KNOWN_KEYS[i] && at >= 0 && (size_t)at < errsize; i++)
				at += snprintf(err + at, errsize - (size_t)at, "%s%s", i ? ", " : "",
				               KNOWN_KEYS[i]);
			if (at >= 0 && (size_t)at < errsize)
				snprintf(err + at, errsize - (size_t)at, ")");
			return -1;
		}
	}

	v = json_object_get(o, "match");
	if (v) {
		if (!json_is_string(v) || json_string_length(v) >= sizeof out->match) {
			snprintf(err, errsize, "option 'match' must be a quick-match pool");
			return -1;
		}
		snprintf(out->match, sizeof out->match, "%s", json_string_value(v));
	}

	/* expansions first: they decide how many players may sit */
	v = json_object_get(o, "expansions");
	if (v && !json_is_array(v)) {
		snprintf(err, errsize, "option 'expansions' must be a list of names");
		return -1;
	}
	size_t i;
	json_t *e;
	json_array_foreach(v, i, e) {
		if (!json_is_string(e) || json_string_length(e) >= 32) {
			snprintf(err, errsize, "option 'expansions' must be a list of names");
			return -1;
		}
		if (out->nexp >= OPT_MAX_EXPANSIONS) {
			snprintf(err, errsize, "option 'expansions': too many");
			return -1;
		}
		snprintf(out->expansions[out->nexp++], 32, "%s", json_string_value(e));
	}
	int max_players;
	if (opt_expansions_to_rules((const char(*)[32])out->expansions, out->nexp, &out->rules,
	                            &max_players, err, errsize))
		return -1;

	json_t *seats = json_object_get(o, "seats");
	if (seats && (!json_is_array(seats) || json_array_size(seats) == 0)) {
		snprintf(err, errsize, "option 'seats' must be a list with one entry per player");
		return -1;
	}
	v = json_object_get(o, "players");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 2 ||
		    json_integer_value(v) > max_players) {
			snprintf(err, errsize, "option 'players' must be a number from 2 to %d",
			         max_players);
			return -1;
		}
		out->rules.players = (int)json_integer_value(v);
	} else if (seats) {
		out->rules.players = (int)json_array_size(seats);
	}
	if (seats && json_array_size(seats) != (size_t)out->rules.players) {
		snprintf(err, errsize, "option 'seats' has %zu entries for %d players",
		         json_array_size(seats), out->rules.players);
		return -1;
	}
	if (out->rules.players < 2 || out->rules.players > max_players) {
		snprintf(err, errsize, "option 'seats': from 2 to %d players", max_players);
		return -1;
	}
	out->nseats = out->rules.players;
	for (int k = 0; k < out->nseats; k++)
		out->seat[k].colour = -1;
	json_array_foreach(seats, i, e) {
		srv_seat_opt *so = &out->seat[i];
		if (json_is_null(e))
			continue;
		if (!json_is_object(e)) {
			snprintf(err, errsize, "seats[%zu] must be an object: {} for a person, "
			         "{\"bot\": \"random\"} for a bot", i);
			return -1;
		}
		json_t *c = json_object_get(e, "colour");
		if (c && !json_is_null(c)) {
			so->colour = opt_colour_parse(json_string_value(c));
			if (so->colour < 0) {
				char list[96] = "";
				for (int k = 0; k < OPT_COLOUR_COUNT; k++) {
					strcat(list, k ? ", " : "");
					strcat(list, COLOURS[k]);
				}
				if (json_is_string(c))
					snprintf(err, errsize, "seats[%zu].colour '%.20s' is not a colour (colours: %s)",
					         i, json_string_value(c), list);
				else
					snprintf(err, errsize, "seats[%zu].colour must be a colour name (%s)", i,
					         list);
				return -1;
			}
			for (size_t k = 0; k < i; k++)
				if (out->seat[k].colour == so->colour) {
					snprintf(err, errsize, "seats[%zu].colour '%s' is already the colour of "
					         "seats[%zu]: two seats cannot share a colour",
					         i, COLOURS[so->colour], k);
					return -1;
				}
		}
		json_t *nm = json_object_get(e, "name");
		if (nm && !json_is_null(nm)) {
			const char *ns = json_string_value(nm);
			int ok = ns && ns[0] && strlen(ns) < STORE_NAME_SIZE;
			for (const unsigned char *p = (const unsigned char *)ns; ok && *p; p++)
				ok = *p >= 32 && *p != 127;
			if (!ok) {
				snprintf(err, errsize, "seats[%zu].name must be a name of 1 to %d characters",
				         i, STORE_NAME_SIZE - 1);
				return -1;
			}
			snprintf(so->name, sizeof so->name, "%s", ns);
		}
		json_t *b = json_object_get(e, "bot");
		if (!b || json_is_null(b) || json_is_false(b))
			continue;
		char e2[600];
		if (!json_is_string(b)) {
			levels_ready();
			level_list(e2, sizeof e2);
			snprintf(err, errsize, "seats[%zu].bot must be the name of a bot level (levels: %s)",
			         i, e2);
			return -1;
		}
		if (opt_bot_spec(json_string_value(b), so->spec, sizeof so->spec, e2, sizeof e2)) {
			snprintf(err, errsize, "seats[%zu]: %s", i, e2);
			return -1;
		}
		so->bot = 1;
		snprintf(so->level, sizeof so->level, "%s", json_string_value(b));
	}

	int colours[CARC_MAX_PLAYERS];
	for (int k = 0; k < out->nseats; k++)
		colours[k] = out->seat[k].colour;
	opt_fill_colours(colours, out->nseats);
	for (int k = 0; k < out->nseats; k++)
		out->seat[k].colour = colours[k];

	if (get_bool(o, "farmers", &out->rules.farmers, err, errsize) ||
	    get_bool(o, "small_city", &out->rules.small_city, err, errsize) ||
	    get_bool(o, "private", &out->private_, err, errsize) ||
	    get_bool(o, "spectator_chat", &out->spectator_chat, err, errsize) ||
	    get_bool(o, "pass_and_play", &out->pass_and_play, err, errsize) ||
	    get_bool(o, "tutorial", &out->tutorial, err, errsize) ||
	    get_bool(o, "rated", &out->rated, err, errsize))
		return -1;
	v = json_object_get(o, "farm_scoring");
	if (v) {
		int fs = json_is_string(v) ? carc_farm_scoring_parse(json_string_value(v)) : -1;
		if (fs < 0) {
			char list[128] = "";
			for (int k = 0; k < CARC_FARM_SCORING_COUNT; k++) {
				strcat(list, k ? ", " : "");
				strcat(list, carc_farm_scoring_name(k));
			}
			snprintf(err, errsize, "option 'farm_scoring' must be one of: %s", list);
			return -1;
		}
		out->rules.farm_scoring = fs;
	}
	v = json_object_get(o, "bot_delay_ms");
	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > 60000) {
			snprintf(err, errsize, "option 'bot_delay_ms' must be 0..60000");
			return -1;
		}
		out->bot_delay_ms = (int)json_integer_value(v);
	}
	/* the guided first game asks for its deal by the option alone: the
	 * server's pile and seed (tutorial.h), unless the table gives its own */
	const json_t *deal = o;
	if (out->tutorial && !json_object_get(o, "seed") && !json_object_get(o, "tiles"))
		deal = tutorial_deal();
	v = json_object_get(deal, "seed");
	if (v) {
		if (opt_seed_parse(v, &out->seed)) {
			snprintf(err, errsize, "option 'seed' must be a whole number from 0 to "
			         "18446744073709551615 (a JSON integer up to 9223372036854775807, or "
			         "a string of decimal digits)");
			return -1;
		}
	} else {
		/* a seed JSON can carry exactly (jansson integers are signed) */
		out->seed = srv_random_u64() >> 12;
	}
	v = json_object_get(deal, "tiles");
	if (v) {
		if (!json_is_object(v) || json_object_size(v) == 0) {
			snprintf(err, errsize, "option 'tiles' must be an object of tile counts, "
			         "e.g. {\"U\": 3, \"E\": 1}");
			return -1;
		}
		json_object_foreach(v, key, e) {
			int t = carc_tile_parse(key);
			if (t < 0 || !json_is_integer(e) || json_integer_value(e) < 0 ||
			    json_integer_value(e) > 100) {
				snprintf(err, errsize, "option 'tiles': '%.20s' must be a tile name "
				         "(see /api/tiles) with a count 0..100", key);
				return -1;
			}
			if (t >= OPT_TILE_TYPES) {
				snprintf(err, errsize, "option 'tiles': the server holds piles of %d tile "
				         "types (OPT_TILE_TYPES), '%.20s' is beyond", OPT_TILE_TYPES, key);
				return -1;
			}
			out->pile[t] = (int)json_integer_value(e);
		}
		/* a pile is stored without its zeros: one of nothing would not
		 * load back (and a game without tiles is no game) */
		int n = 0;
		for (int k = 0; k < OPT_TILE_TYPES; k++)
			n += out->pile[k];
		if (!n) {
			snprintf(err, errsize, "option 'tiles' must have at least one tile, "
			         "e.g. {\"U\": 3, \"E\": 1}");
			return -1;
		}
		out->has_pile = 1;
	}
	if (clock_parse(json_object_get(o, "clock"), &out->clock, err, errsize))
		return -1;
	/* the engine has the last word on the rules and the pile */
	carc_game *g = carc_game_alloc();
	if (!g)
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	char e3[CARC_ERRMSG_SIZE];
	carc_status st = opt_game_init(out, g, e3);
	carc_game_free(g);
	if (st != CARC_OK) {
		snprintf(err, errsize, "the engine refuses these rules: %s", e3);
		return -1;
	}
	return 0;
}

int opt_check_engine(char *err, size_t errsize)
{
	int types = carc_limit(CARC_LIMIT_TILE_TYPES);
#ifdef CARC_DEBUG_CHECK
	/* test builds: an engine that knows more tile types than any does yet
	 * (tests/py/test_steps.py, EngineCheck) */
	const char *v = getenv("CARC_TEST_TILE_TYPES");
	if (v && *v)
		types = atoi(v);
#endif
	if (types <= OPT_TILE_TYPES)
		return 0;
	snprintf(err, errsize, "the engine knows %d tile types; a table's pile holds %d "
	         "(OPT_TILE_TYPES in src/server/table/options.h): raise it",
	         types, OPT_TILE_TYPES);
	return -1;
}

carc_status opt_game_init(const srv_table_opts *o, carc_game *g, char err[CARC_ERRMSG_SIZE])
{
	return carc_game_init(g, &o->rules, o->seed, o->has_pile ? o->pile : NULL,
	                      o->has_pile ? OPT_TILE_TYPES : 0, err);
}

json_t *opt_to_json(const srv_table_opts *o)
{
	json_t *j = json_object();
	json_object_set_new(j, "players", json_integer(o->rules.players));
	json_object_set_new(j, "farmers", json_boolean(o->rules.farmers));
	json_object_set_new(j, "farm_scoring", json_string(carc_farm_scoring_name(o->rules.farm_scoring)));
	json_object_set_new(j, "small_city", json_boolean(o->rules.small_city));
	json_t *ex = json_array();
	for (int i = 0; i < o->nexp; i++)
		json_array_append_new(ex, json_string(o->expansions[i]));
	json_object_set_new(j, "expansions", ex);
	if (o->has_pile) {
		json_t *t = json_object();
		for (int k = 0; k < OPT_TILE_TYPES; k++)
			if (o->pile[k])
				json_object_set_new(t, carc_tile_name(k), json_integer(o->pile[k]));
		json_object_set_new(j, "tiles", t);
	}
	json_object_set_new(j, "seed", opt_seed_json(o->seed));
	json_object_set_new(j, "bot_delay_ms", json_integer(o->bot_delay_ms));
	json_object_set_new(j, "private", json_boolean(o->private_));
	json_object_set_new(j, "spectator_chat", json_boolean(o->spectator_chat));
	json_object_set_new(j, "pass_and_play", json_boolean(o->pass_and_play));
	/* only when set: the options of every other table read as before */
	if (o->tutorial)
		json_object_set_new(j, "tutorial", json_true());
	if (!o->rated)
		json_object_set_new(j, "rated", json_false());
	if (o->match[0])
		json_object_set_new(j, "match", json_string(o->match));
	json_t *seats = json_array();
	for (int i = 0; i < o->nseats; i++) {
		json_t *s = json_object();
		if (o->seat[i].bot)
			json_object_set_new(s, "bot", json_string(o->seat[i].level));
		if (opt_colour_name(o->seat[i].colour))
			json_object_set_new(s, "colour", json_string(opt_colour_name(o->seat[i].colour)));
		if (o->seat[i].name[0])
			json_object_set_new(s, "name", json_string(o->seat[i].name));
		json_array_append_new(seats, s);
	}
	json_object_set_new(j, "seats", seats);
	json_t *c = json_pack("{s:s}", "mode", opt_clock_mode_name(o->clock.mode));
	if (o->clock.mode != OPT_CLOCK_NONE) {
		json_object_set_new(c, "move_s", json_integer(o->clock.move_s));
		json_object_set_new(c, "reserve_s", json_integer(o->clock.reserve_s));
		json_object_set_new(c, "max_timeouts", json_integer(o->clock.max_timeouts));
	}
	json_object_set_new(c, "takeover", json_string(o->clock.takeover));
	json_object_set_new(j, "clock", c);
	return j;
}
