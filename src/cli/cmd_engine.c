/*
 * cmd_engine.c - `carc engine`: the bots behind a line protocol on
 * standard input and output, one JSON object a line each way
 * (docs/engine.md), so that programs in any language can use them.
 *
 * The main thread reads requests. "go" and "analyse" run in a worker
 * thread so that "stop" (and "quit") can reach a search while it runs;
 * any other request that arrives meanwhile waits for the search to end
 * (the main thread joins the worker first), so requests are handled in
 * order and the game is the worker's alone while it runs. Every request
 * gets exactly one answer, except "stop" during a search, which is
 * answered by the search's own answer. Output lines are written under one
 * lock and flushed at once.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "cli.h"
#include "move_json.h"
#include "rules_opts.h"

static const char *const CMD = "engine";

#define MAX_LINE (4 << 20) /* a request line, a whole record included */

static void help(FILE *f)
{
	fprintf(f,
	        "usage: carc engine [--bot SPEC] [--seed N]\n"
	        "\n"
	        "Reads requests from standard input, one JSON object a line, and answers\n"
	        "each on standard output, one JSON object a line (docs/engine.md):\n"
	        "  {\"cmd\": \"new\", \"rules\": {\"players\": 2}, \"seed\": 7}\n"
	        "  {\"cmd\": \"new\", \"record\": {...a carc-record-1 record...}}\n"
	        "  {\"cmd\": \"bot\", \"spec\": \"mcts\", \"seed\": 1}\n"
	        "  {\"cmd\": \"tile\", \"tile\": \"V\"}          the tile drawn\n"
	        "  {\"cmd\": \"move\", \"move\": {\"x\": 1, \"y\": 0, \"rot\": 0, \"meeple\": null}}\n"
	        "  {\"cmd\": \"go\", \"time\": 0.5}             think; answers the move chosen\n"
	        "  {\"cmd\": \"analyse\"}                      best move, margin, win probability\n"
	        "  {\"cmd\": \"state\"}, {\"cmd\": \"record\"}, {\"cmd\": \"stop\"}, {\"cmd\": \"quit\"}\n"
	        "A bad line, or a key the protocol does not know, is answered\n"
	        "{\"type\": \"error\", \"code\", \"message\"} and the engine goes on. End of\n"
	        "input is \"quit\".\n"
	        "\n"
	        "options:\n"
	        "  --bot SPEC   the bot \"go\" and \"analyse\" use (default mcts)\n"
	        "  --seed N     the bot's seed (default 1)\n"
	        "  -h, --help   this help\n");
}

typedef struct engine {
	pthread_mutex_t lock;
	pthread_t worker;
	int thread_live; /* a worker was started and not joined */
	int busy;        /* the worker runs (under lock) */
	carc_game *g;
	int have_game;
	char spec[256];   /* the bot's spec without a per-"go" time */
	uint64_t seed;
	carc_bot *bot;    /* the bot for bot_spec (made lazily) */
	char bot_spec[300];
	/* the worker's job */
	int job_analyse;
	carc_move job_move;
	json_t *job_id;
} engine;

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

/* Writes o (stolen) as one line, with the request's id if it had one. */
static void answer(json_t *o, json_t *id)
{
	if (id)
		json_object_set(o, "id", id);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	pthread_mutex_lock(&out_lock);
	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
	} else {
		fputs("{\"type\":\"error\",\"code\":\"internal\",\"message\":\"out of memory\"}\n",
		      stdout);
	}
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	free(s);
}

static void error_answer(json_t *id, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_answer(json_t *id, const char *code, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string("error"));
	json_object_set_new(o, "code", json_string(code));
	json_object_set_new(o, "message", json_string(msg));
	answer(o, id);
}

/*
 * The keys the protocol knows, object by object: a key not listed is
 * refused (bad_request), so that a misspelt one cannot be silently
 * ignored ({"cmd": "new", "players": 3} would start a 2-player game). A
 * "record" given to "new" is not checked here: it is read as any record
 * is, and the record format lets writers add keys.
 */
typedef struct cmd_keys {
	const char *cmd;
	const char *const *keys; /* besides "cmd" and "id"; NULL-terminated */
} cmd_keys;

static const char *const NEW_KEYS[] = {"rules", "seed", "record", NULL};
static const char *const BOT_KEYS[] = {"spec", "seed", NULL};
static const char *const TILE_KEYS[] = {"tile", NULL};
static const char *const MOVE_KEYS[] = {"move", NULL};
static const char *const GO_KEYS[] = {"time", NULL};
static const char *const ANALYSE_KEYS[] = {"move", "time", NULL};
static const char *const NO_KEYS[] = {NULL};
static const cmd_keys CMDS[] = {
	{"new", NEW_KEYS},    {"bot", BOT_KEYS},       {"tile", TILE_KEYS},  {"move", MOVE_KEYS},
	{"go", GO_KEYS},      {"analyse", ANALYSE_KEYS}, {"state", NO_KEYS}, {"record", NO_KEYS},
	{"stop", NO_KEYS},    {"quit", NO_KEYS},
};
static int listed(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return 1;
	return 0;
}

/* Which keys an object may have: a list, or the engine's word for a
 * decision of the game's current step (g) or for a rules object. */
typedef struct known_keys {
	const char *const *list;
	const carc_game *g; /* a decision of this game's current step */
	int rules;          /* a rules object */
	const char *prefix; /* of a nested object of a decision ("meeple.") */
	const char *object; /* that object's key ("meeple"), NULL: the top */
} known_keys;

static int known(const known_keys *k, const char *key)
{
	if (k->list)
		return listed(k->list, key);
	if (k->rules)
		return carc_rules_key(key);
	char path[128];
	snprintf(path, sizeof path, "%s%s", k->prefix ? k->prefix : "", key);
	return carc_move_key(k->g, path);
}

/* 0 if every key of the object o is known (or is "cmd" or "id" when top
 * is set); otherwise answers bad_request naming the first unknown key and
 * where, the object's path from the request (`"new"`, `"new.rules"`,
 * `"move.move.meeple"`), and returns -1. A rules key at the top of "new",
 * or a decision's key at the top of "move" or "analyse", is told where it
 * belongs. o that is not an object passes: the reader of the value says
 * what is wrong with it. */
static int check_keys(json_t *o, const char *where, const known_keys *k, int top,
                      const carc_game *g, json_t *id)
{
	const char *key;
	json_t *v;
	if (!json_is_object(o))
		return 0;
	json_object_foreach(o, key, v) {
		if (known(k, key) || (top && (!strcmp(key, "cmd") || !strcmp(key, "id"))))
			continue;
		char list[300] = "";
		size_t n = 0;
		if (top)
			n += (size_t)snprintf(list, sizeof list, "cmd, id");
		for (const char *const *l = k->list; l && *l && n < sizeof list; l++)
			n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", *l);
		if (!k->list && n < sizeof list) /* the engine's keys */
			snprintf(list + n, sizeof list - n, "%s",
			         k->rules ? carc_rules_keys() : carc_move_keys(k->g, k->object));
		if (top && !strcmp(where, "new") && carc_rules_key(key))
			error_answer(id, "bad_request", "unknown key \"%s\" in \"new\" (a rule: it goes "
			             "under \"rules\": {\"cmd\": \"new\", \"rules\": {\"%s\": ...}})",
			             key, key);
		else if (top && g && (!strcmp(where, "move") || !strcmp(where, "analyse")) &&
		         carc_move_key(g, key))
			error_answer(id, "bad_request", "unknown key \"%s\" in \"%s\" (a move's key: the "
			             "move goes under \"move\": {\"cmd\": \"%s\", \"move\": {\"%s\": "
			             "...}})", key, where, where, key);
		else
			error_answer(id, "bad_request", "unknown key \"%.60s\" in \"%s\" (known: %s)",
			             key, where, list);
		return -1;
	}
	return 0;
}

/* Checks a decision object of the request cmd (its key "move") and the
 * objects in it, as check_keys does, with the engine's keys for g's
 * current step. */
static int check_move_keys(const carc_game *g, json_t *mv, const char *cmd, json_t *id)
{
	char where[64];
	known_keys k = {NULL, g, 0, NULL, NULL};
	snprintf(where, sizeof where, "%s.move", cmd);
	if (check_keys(mv, where, &k, 0, NULL, id))
		return -1;
	const char *key;
	json_t *v;
	json_object_foreach(mv, key, v) {
		if (!json_is_object(v))
			continue;
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%.40s.", key);
		known_keys sub = {NULL, g, 0, prefix, key};
		snprintf(where, sizeof where, "%s.move.%.40s", cmd, key);
		if (check_keys(v, where, &sub, 0, NULL, id))
			return -1;
	}
	return 0;
}

static json_t *state_json(const carc_game *g)
{
	json_t *o = json_object(), *sc = json_array();
	int s[CARC_MAX_PLAYERS], np = carc_players(g);
	carc_game_scores(g, s);
	for (int p = 0; p < np; p++)
		json_array_append_new(sc, json_integer(s[p]));
	int over = carc_game_over(g), tile = carc_current_tile(g);
	json_object_set_new(o, "type", json_string("state"));
	json_object_set_new(o, "turns", json_integer(carc_turns_played(g)));
	json_object_set_new(o, "steps", json_integer(carc_steps_played(g)));
	json_object_set_new(o, "over", json_boolean(over));
	json_object_set_new(o, "step_kind", over ? json_null()
	                                         : json_string(carc_name(CARC_NAMES_STEP,
	                                                                 carc_step_kind(g))));
	json_object_set_new(o, "to_move", over ? json_null() : json_integer(carc_to_move(g)));
	json_object_set_new(o, "tile", tile >= 0 && !over ? json_string(carc_tile_name(tile))
	                                                  : json_null());
	json_object_set_new(o, "tiles_left", json_integer(carc_tiles_left(g)));
	json_object_set_new(o, "scores", sc);
	return o;
}

/* 1 if the bot named at the start of spec has a time parameter. */
static int has_time(const char *spec)
{
	char name[64], text[4096];
	snprintf(name, sizeof name, "%.*s", (int)strcspn(spec, ":"), spec);
	return carc_bot_describe(name, text, sizeof text) == 0 && strstr(text, "\n  time ");
}

/* The bot for spec, with time=T added when time > 0 and the bot has a
 * time parameter (greedy and random answer at once anyway); NULL with
 * err. */
static carc_bot *get_bot(engine *e, double time, char *err, size_t errsize)
{
	char want[300];
	if (time > 0 && has_time(e->spec))
		snprintf(want, sizeof want, "%s%stime=%.6g", e->spec, strchr(e->spec, ':') ? "," : ":",
		         time);
	else
		snprintf(want, sizeof want, "%s", e->spec);
	if (e->bot && !strcmp(want, e->bot_spec))
		return e->bot;
	carc_bot *b = carc_bot_new(want, e->seed, err, errsize);
	if (!b)
		return NULL;
	carc_bot_free(e->bot);
	e->bot = b;
	snprintf(e->bot_spec, sizeof e->bot_spec, "%s", want);
	return b;
}

static void *work(void *arg)
{
	engine *e = arg;
	json_t *o = json_object();
	if (e->job_analyse) {
		an_move a;
		if (an_position(e->bot, e->g, e->job_move, &a)) {
			json_decref(o);
			o = NULL;
			error_answer(e->job_id, "internal", "the analysis failed");
		} else {
			json_object_set_new(o, "type", json_string("analysis"));
			json_object_set_new(o, "player", json_integer(a.player));
			json_object_set_new(o, "best", mj_move(e->g, a.best));
			json_object_set_new(o, "margin_best", json_real(a.margin_best));
			json_object_set_new(o, "win_best", json_real(a.win_best));
			if (e->job_move != CARC_MOVE_NONE) {
				json_object_set_new(o, "move", mj_move(e->g, e->job_move));
				json_object_set_new(o, "margin_played", json_real(a.margin_played));
				json_object_set_new(o, "win_played", json_real(a.win_played));
				json_object_set_new(o, "lost", json_real(a.lost));
			}
		}
	} else {
		carc_move m = carc_bot_choose(e->bot, e->g);
		json_object_set_new(o, "type", json_string("bestmove"));
		json_object_set_new(o, "move", mj_move(e->g, m));
	}
	if (o) {
		char info[256];
		carc_bot_info(e->bot, info, sizeof info);
		json_object_set_new(o, "bot", json_string(carc_bot_spec(e->bot)));
		json_object_set_new(o, "info", json_string(info));
		answer(o, e->job_id);
	}
	json_decref(e->job_id);
	e->job_id = NULL;
	pthread_mutex_lock(&e->lock);
	e->busy = 0;
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void join_worker(engine *e)
{
	if (e->thread_live) {
		pthread_join(e->worker, NULL);
		e->thread_live = 0;
	}
}

/* A new game from a record text; answers. A bad one leaves the game as
 * it was. */
static void new_game(engine *e, const char *text, json_t *id)
{
	char err[512];
	carc_game *g = carc_game_alloc();
	if (!g) {
		error_answer(id, "internal", "out of memory");
		return;
	}
	if (carc_record_replay(text, strlen(text), g, err, sizeof err) != CARC_OK) {
		free(g);
		error_answer(id, "bad_game", "new: %s", err);
		return;
	}
	free(e->g);
	e->g = g;
	e->have_game = 1;
	answer(state_json(e->g), id);
}

static void cmd_new(engine *e, json_t *req, json_t *id)
{
	json_t *rec = json_object_get(req, "record"), *rules = json_object_get(req, "rules");
	json_t *seed = json_object_get(req, "seed");
	json_t *root;
	if (rec && rules) {
		error_answer(id, "bad_request", "new: give \"rules\" (and \"seed\") or a \"record\", "
		                                "not both");
		return;
	}
	if (rec) {
		if (!json_is_object(rec)) {
			error_answer(id, "bad_request", "new: key record: expected a carc-record-1 object");
			return;
		}
		root = json_incref(rec);
	} else {
		if (rules && !json_is_object(rules)) {
			error_answer(id, "bad_request", "new: key rules: expected an object like "
			                                "{\"players\": 2, \"expansions\": []}");
			return;
		}
		known_keys rk = {NULL, NULL, 1, NULL, NULL};
		if (check_keys(rules, "new.rules", &rk, 0, NULL, id))
			return;
		root = json_object();
		json_object_set_new(root, "format", json_string("carc-record-1"));
		json_object_set_new(root, "rules", rules ? json_incref(rules) : json_pack("{si}", "players", 2));
		if (seed)
			json_object_set(root, "seed", seed);
		json_object_set_new(root, "turns", json_array());
	}
	char *text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text) {
		error_answer(id, "internal", "out of memory");
		return;
	}
	new_game(e, text, id);
	free(text);
}

/* Starts the worker on a go or analyse request. */
static void start_job(engine *e, json_t *req, json_t *id, int analyse)
{
	const char *name = analyse ? "analyse" : "go";
	if (!e->have_game) {
		error_answer(id, "no_game", "%s: no game: send \"new\" first", name);
		return;
	}
	if (carc_game_over(e->g)) {
		error_answer(id, "game_over", "%s: the game is over", name);
		return;
	}
	json_t *t = json_object_get(req, "time");
	double time = 0;
	if (t) {
		time = json_number_value(t);
		if (!json_is_number(t) || !(time > 0) || time > 3600) {
			error_answer(id, "bad_request", "%s: key time: expected seconds in (0, 3600]", name);
			return;
		}
	}
	carc_move m = CARC_MOVE_NONE;
	json_t *jm = json_object_get(req, "move");
	char err[512];
	if (analyse && jm && check_move_keys(e->g, jm, name, id))
		return;
	if (analyse && jm && mj_parse(e->g, jm, &m, err, sizeof err)) {
		error_answer(id, "bad_move", "%s", err);
		return;
	}
	if (!get_bot(e, time, err, sizeof err)) {
		error_answer(id, "bad_bot", "%s", err);
		return;
	}
	join_worker(e);
	e->job_analyse = analyse;
	e->job_move = m;
	e->job_id = id ? json_incref(id) : NULL;
	pthread_mutex_lock(&e->lock);
	e->busy = 1;
	pthread_mutex_unlock(&e->lock);
	if (pthread_create(&e->worker, NULL, work, e) != 0) {
		e->busy = 0;
		json_decref(e->job_id);
		e->job_id = NULL;
		error_answer(id, "internal", "cannot start a thread");
		return;
	}
	e->thread_live = 1;
}

/* Reads one line of at most MAX_LINE bytes into *buf (grown as needed, up
 * to MAX_LINE + 1); a longer line is read to its end and dropped. Returns
 * the length, -2 for a line too long, -3 for a line with a NUL byte, -1
 * at the end of input. */
static long read_line(char **buf, size_t *cap)
{
	size_t n = 0;
	int c, nul = 0, any = 0;
	while ((c = getchar()) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (c == 0)
			nul = 1;
		if (n >= MAX_LINE) {
			n = MAX_LINE + 1;
			continue;
		}
		if (n + 1 >= *cap) {
			size_t nc = *cap ? *cap * 2 : 4096;
			char *nb = realloc(*buf, nc);
			if (!nb)
				return -2;
			*buf = nb;
			*cap = nc;
		}
		(*buf)[n++] = (char)c;
	}
	if (!any)
		return -1;
	if (n > MAX_LINE)
		return -2;
	(*buf)[n] = 0;
	return nul ? -3 : (long)n;
}

/* Handles one request line; returns 1 on quit. */
static int handle(engine *e, const char *line)
{
	json_error_t jerr;
	json_t *req = json_loads(line, JSON_REJECT_DUPLICATES, &jerr);
	if (!req) {
		error_answer(NULL, "bad_json", "not valid JSON: column %d: %s", jerr.column, jerr.text);
		return 0;
	}
	json_t *id = json_object_get(req, "id");
	const char *cmd = json_string_value(json_object_get(req, "cmd"));
	int quit = 0;
	pthread_mutex_lock(&e->lock);
	int busy = e->busy;
	pthread_mutex_unlock(&e->lock);
	const cmd_keys *ck = NULL;
	for (size_t i = 0; cmd && i < sizeof CMDS / sizeof CMDS[0]; i++)
		if (!strcmp(cmd, CMDS[i].cmd))
			ck = &CMDS[i];
	if (!json_is_object(req) || !cmd) {
		error_answer(id, "bad_request", "expected an object with a \"cmd\" string");
	} else if (ck && check_keys(req, ck->cmd, &(known_keys){ck->keys, NULL, 0, NULL, NULL}, 1,
	                            e->have_game ? e->g : NULL, id)) {
		/* answered: an unknown key, nothing done */
	} else if (!strcmp(cmd, "quit")) {
		if (busy && e->bot)
			carc_bot_stop(e->bot);
		join_worker(e);
		json_t *o = json_object();
		json_object_set_new(o, "type", json_string("bye"));
		answer(o, id);
		quit = 1;
	} else if (!strcmp(cmd, "stop")) {
		if (busy) {
			carc_bot_stop(e->bot); /* the search answers */
		} else {
			json_t *o = json_object();
			json_object_set_new(o, "type", json_string("ok"));
			answer(o, id);
		}
	} else if ((join_worker(e), 0)) {
		/* any other request waits for a search that runs */
	} else if (!strcmp(cmd, "new")) {
		cmd_new(e, req, id);
	} else if (!strcmp(cmd, "bot")) {
		const char *spec = json_string_value(json_object_get(req, "spec"));
		json_t *sd = json_object_get(req, "seed");
		char err[512];
		carc_bot *b = spec ? carc_bot_new(spec, sd ? (uint64_t)json_integer_value(sd) : e->seed,
		                                  err, sizeof err)
		                   : NULL;
		if (!spec) {
			error_answer(id, "bad_request", "bot: key spec: expected a bot spec string");
		} else if (!b || strlen(spec) >= sizeof e->spec ||
		           (sd && (!json_is_integer(sd) || json_integer_value(sd) < 0))) {
			carc_bot_free(b);
			error_answer(id, "bad_bot", "bot: %s", b ? "bad spec or seed" : err);
		} else {
			snprintf(e->spec, sizeof e->spec, "%s", spec);
			if (sd)
				e->seed = (uint64_t)json_integer_value(sd);
			carc_bot_free(e->bot);
			e->bot = b;
			snprintf(e->bot_spec, sizeof e->bot_spec, "%s", spec);
			json_t *o = json_object();
			json_object_set_new(o, "type", json_string("ok"));
			json_object_set_new(o, "bot", json_string(carc_bot_spec(b)));
			answer(o, id);
		}
	} else if (!e->have_game && strcmp(cmd, "go") && strcmp(cmd, "analyse") &&
	           (!strcmp(cmd, "tile") || !strcmp(cmd, "move") || !strcmp(cmd, "state") ||
	            !strcmp(cmd, "record"))) {
		error_answer(id, "no_game", "%s: no game: send \"new\" first", cmd);
	} else if (!strcmp(cmd, "state")) {
		answer(state_json(e->g), id);
	} else if (!strcmp(cmd, "tile")) {
		const char *name = json_string_value(json_object_get(req, "tile"));
		int t = name ? carc_tile_parse(name) : -1;
		if (t < 0)
			error_answer(id, "bad_tile", "tile: key tile: expected a tile name like \"V\"");
		else if (carc_game_over(e->g))
			error_answer(id, "game_over", "tile: the game is over");
		else if (carc_step_kind(e->g) != CARC_STEP_TILE)
			error_answer(id, "bad_tile", "tile: the turn's %s step is being decided; a tile "
			             "is drawn when the turn ends",
			             carc_name(CARC_NAMES_STEP, carc_step_kind(e->g)));
		else if (carc_set_current_tile(e->g, t) != CARC_OK)
			error_answer(id, "bad_tile", "tile: %s cannot be drawn now (none left, or not "
			                             "now under the rules)", name);
		else
			answer(state_json(e->g), id);
	} else if (!strcmp(cmd, "move")) {
		carc_move m;
		char err[512];
		if (carc_game_over(e->g)) {
			error_answer(id, "game_over", "move: the game is over");
		} else if (check_move_keys(e->g, json_object_get(req, "move"), "move", id)) {
			/* answered */
		} else if (mj_parse(e->g, json_object_get(req, "move"), &m, err, sizeof err)) {
			error_answer(id, "bad_move", "%s", err);
		} else if (carc_apply(e->g, m, NULL, err) != CARC_OK) {
			error_answer(id, "bad_move", "move: %s", err);
		} else {
			answer(state_json(e->g), id);
		}
	} else if (!strcmp(cmd, "go") || !strcmp(cmd, "analyse")) {
		start_job(e, req, id, !strcmp(cmd, "analyse"));
	} else if (!strcmp(cmd, "record")) {
		char *text = carc_record_write(e->g, "{\"generator\": \"carc engine\"}");
		json_t *r = text ? json_loads(text, 0, NULL) : NULL;
		free(text);
		if (!r) {
			error_answer(id, "internal", "record: out of memory");
		} else {
			json_t *o = json_object();
			json_object_set_new(o, "type", json_string("record"));
			json_object_set_new(o, "record", r);
			answer(o, id);
		}
	} else {
		error_answer(id, "bad_command", "unknown cmd '%.40s' (known: new, bot, tile, move, go, "
		                                "analyse, state, record, stop, quit)", cmd);
	}
	json_decref(req);
	return quit;
}

int cmd_engine(int argc, char **argv)
{
	const char *spec = "mcts";
	uint64_t seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *v;
		int st;
		if (ropt_is_help(argv[i])) {
			help(stdout);
			return 0;
		}
		if ((st = ropt_value(CMD, argc, argv, &i, "--bot", &v)) != 0) {
			if (st < 0)
				return ROPT_USAGE;
			spec = v;
		} else if ((st = ropt_value(CMD, argc, argv, &i, "--seed", &v)) != 0) {
			if (st < 0 || ropt_u64(CMD, "--seed", v, &seed))
				return ROPT_USAGE;
		} else {
			return ropt_unknown(CMD, argv[i]);
		}
	}
	engine *e = calloc(1, sizeof *e);
	if (!e || !(e->g = carc_game_alloc())) {
		free(e);
		fprintf(stderr, "carc engine: out of memory\n");
		return 1;
	}
	pthread_mutex_init(&e->lock, NULL);
	e->seed = seed;
	char err[512];
	if (strlen(spec) >= sizeof e->spec || !(e->bot = carc_bot_new(spec, seed, err, sizeof err))) {
		free(e->g);
		free(e);
		return ropt_usage(CMD, "--bot %s: %s", spec,
		                  strlen(spec) >= sizeof e->spec ? "too long" : err);
	}
	snprintf(e->spec, sizeof e->spec, "%s", spec);
	snprintf(e->bot_spec, sizeof e->bot_spec, "%s", spec);
	char *line = NULL;
	size_t cap = 0;
	long n;
	int quit = 0;
	while (!quit && (n = read_line(&line, &cap)) != -1) {
		if (n == -2) {
			error_answer(NULL, "bad_json", "a line longer than %d bytes", MAX_LINE);
			continue;
		}
		if (n == -3) {
			error_answer(NULL, "bad_json", "a line with a NUL byte");
			continue;
		}
		while (n > 0 && line[n - 1] == '\r')
			line[--n] = 0;
		if (n == 0)
			continue;
		quit = handle(e, line);
	}
	if (!quit) { /* end of input: as quit, without an answer */
		pthread_mutex_lock(&e->lock);
		int busy = e->busy;
		pthread_mutex_unlock(&e->lock);
		if (busy)
			carc_bot_stop(e->bot); /* the search still answers */
		join_worker(e);
	}
	free(line);
	carc_bot_free(e->bot);
	pthread_mutex_destroy(&e->lock);
	free(e->g);
	free(e);
	return 0;
}
