/*
 * record.c - game records in the carc-record-1 JSON format
 * (../shared/spec/README.md; additions in docs/records.md).
 *
 * Writing replays the game's turn log in a scratch game to recover the
 * scores after every turn. Reading plays the record through the engine and
 * checks every turn: the tile was still in the bag, the placement and the
 * figure were legal, a discarded tile really fitted nowhere, the scores
 * after each turn and the final scores and breakdown are right. Every
 * failure names the turn, the key and what was expected. No I/O here: the
 * caller reads and writes files.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "view.h"

#define RECORD_FORMAT "carc-record-1"

#define KIND_KEY(k) carc_name(CARC_NAMES_SCORE, (k))
#define GOODS_KEY(k) carc_name(CARC_NAMES_GOODS, (k))

/* ---- writing ---------------------------------------------------------------- */

static json_t *scores_json(const carc_game *g, const int16_t *score)
{
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++)
		json_array_append_new(a, json_integer(score[p]));
	return a;
}

static json_t *events_json(const carc_game *g, const carc_events *ev, int final)
{
	json_t *a = json_array();
	for (int i = 0; i < ev->n; i++) {
		const carc_event *e = &ev->ev[i];
		if (e->type != CARC_EV_SCORED || e->final != final)
			continue;
		json_t *o = json_object();
		json_t *pts = json_array();
		for (int p = 0; p < g->rules.players; p++)
			json_array_append_new(pts, json_integer(e->points[p]));
		json_object_set_new(o, "kind", json_string(KIND_KEY(e->kind)));
		json_object_set_new(o, "points", pts);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *rules_json(const carc_game *g)
{
	json_t *r = json_object();
	json_object_set_new(r, "players", json_integer(g->rules.players));
	json_object_set_new(r, "farmers", json_boolean(g->rules.farmers));
	json_object_set_new(r, "farm_scoring",
	                    json_string(carc_farm_scoring_name(g->rules.farm_scoring)));
	json_object_set_new(r, "small_city", json_boolean(g->rules.small_city));
	json_t *ex = json_array();
	for (int i = 0; i < EXP_KNOWN_COUNT; i++)
		if (g->rules.expansions >> i & 1)
			json_array_append_new(ex, json_string(carc_expansion_name(1u << i)));
	json_object_set_new(r, "expansions", ex);
	/* the pile, unless it is the standard one */
	int counts[TILE_TYPES] = {0}, std[TILE_TYPES], standard = 1;
	for (int i = 0; i < g->npile; i++)
		counts[g->pile[i]]++;
	carc_rules_pile(&g->rules, std);
	for (int t = 0; t < TILE_TYPES; t++)
		if (counts[t] != std[t])
			standard = 0;
	if (!standard) {
		json_t *tiles = json_object();
		for (int t = 0; t < TILE_TYPES; t++)
			if (counts[t])
				json_object_set_new(tiles, tile_defs[t].name, json_integer(counts[t]));
		json_object_set_new(r, "tiles", tiles);
	}
	return r;
}

static json_t *seed_json(uint64_t seed)
{
	if (seed <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)seed);
	char buf[32];
	snprintf(buf, sizeof buf, "%" PRIu64, seed);
	return json_string(buf);
}

#define TURNS_MARK "@@carc-turns@@"

/* The record as text: keys indented, each turn on a line of its own.
 * Returns a malloc'd string (NULL when out of memory). */
static char *dump_record(json_t *root, json_t *turns)
{
	const size_t flags = JSON_PRESERVE_ORDER | JSON_COMPACT;
	char *head = json_dumps(root, JSON_INDENT(1) | flags);
	if (!head)
		return NULL;
	size_t n = json_array_size(turns), total = strlen(head) + 16;
	char **lines = calloc(n ? n : 1, sizeof *lines);
	char *out = NULL;
	if (!lines)
		goto done;
	for (size_t i = 0; i < n; i++) {
		lines[i] = json_dumps(json_array_get(turns, i), flags);
		if (!lines[i])
			goto done;
		total += strlen(lines[i]) + 4;
	}
	char *mark = strstr(head, "\"" TURNS_MARK "\"");
	out = malloc(total);
	if (!out || !mark)
		goto done;
	size_t l = (size_t)(mark - head);
	memcpy(out, head, l);
	out[l++] = '[';
	for (size_t i = 0; i < n; i++) {
		l += (size_t)sprintf(out + l, "\n  %s%s", lines[i], i + 1 < n ? "," : "\n ");
	}
	out[l++] = ']';
	strcpy(out + l, mark + strlen(TURNS_MARK) + 2);
done:
	for (size_t i = 0; lines && i < n; i++)
		free(lines[i]);
	free(lines);
	free(head);
	return out;
}

/* The members a decision's writer gives (view.c), as a JSON object. */
static json_t *decision_json(const carc_game *g, int kind, int type, carc_move m)
{
	jo_buf b;
	int first = 1;
	jo_init(&b);
	jo_raw(&b, "{");
	eng_move_write(&b, &first, g, kind, type, m);
	jo_raw(&b, "}");
	char *text = jo_take(&b);
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return o;
}

/* Appends the scoring events of ev (those of the final scoring if final)
 * to the array a. */
static void add_events(json_t *a, const carc_game *g, const carc_events *ev, int final)
{
	json_t *more = events_json(g, ev, final);
	json_array_extend(a, more);
	json_decref(more);
}

char *carc_record_write(const carc_game *g, const char *extra)
{
	return carc_record_write_with(g, extra, 0);
}

char *carc_record_write_with(const carc_game *g, const char *extra, unsigned flags)
{
	carc_game *s = malloc(sizeof *s);
	json_t *root = json_object();
	json_t *turns = json_array();
	carc_events *ev = malloc(sizeof *ev);
	char *out = NULL;
	if (!s || !root || !turns || !ev)
		goto done;

	json_object_set_new(root, "format", json_string(RECORD_FORMAT));
	json_object_set_new(root, "rules", rules_json(g));
	json_object_set_new(root, "seed", seed_json(flags & CARC_RECORD_HIDE_SEED ? 0 : g->seed));
	json_t *start = json_object();
	json_object_set_new(start, "tile", json_string(tile_defs[g->tiles[0].type].name));
	json_object_set_new(start, "x", json_integer(g->tiles[0].x));
	json_object_set_new(start, "y", json_integer(g->tiles[0].y));
	json_object_set_new(start, "rot", json_integer(g->tiles[0].rot));
	json_object_set_new(root, "start", start);

	/* replay the steps in a scratch game with the same pile, a turn at a
	 * time: its tile step's keys on the turn, its later steps in "steps" */
	int counts[TILE_TYPES] = {0};
	for (int i = 0; i < g->npile; i++)
		counts[g->pile[i]]++;
	if (carc_game_init(s, &g->rules, g->seed, counts, TILE_TYPES, NULL) != CARC_OK)
		goto done;
	json_t *final_events = json_array();
	for (int t = 0; t < g->nturns; t++) {
		int k0 = g->turn[t].step, k1 = t + 1 < g->nturns ? g->turn[t + 1].step : g->nsteps;
		const carc_step_rec *tile = &g->steps[k0];
		const int type = g->pile[t];
		json_t *o = json_object();
		json_object_set_new(o, "player", json_integer(tile->player));
		json_object_set_new(o, "tile", json_string(tile_defs[type].name));
		if (s->bonus)
			json_object_set_new(o, "bonus", json_true());
		uint8_t goods_before[CARC_GOODS_COUNT];
		memcpy(goods_before, s->goods[tile->player], sizeof goods_before);
		json_t *scored = json_array(), *later = json_array();
		for (int k = k0; k < k1; k++) {
			const carc_step_rec *sr = &g->steps[k];
			json_t *d = decision_json(g, sr->kind, type, sr->move);
			if (!d || (k == k0 && carc_set_current_tile(s, type) != CARC_OK) ||
			    carc_apply(s, sr->move, ev, NULL) != CARC_OK) {
				json_decref(d);
				json_decref(o);
				json_decref(scored);
				json_decref(later);
				json_decref(final_events);
				goto done;
			}
			if (k == k0) {
				json_object_update(o, d);
			} else {
				json_t *st = json_pack("{s:i}", "player", sr->player);
				json_object_update(st, d);
				json_array_append_new(later, st);
			}
			json_decref(d);
			add_events(scored, s, ev, 0);
			if (s->over)
				add_events(final_events, s, ev, 1);
		}
		if (json_array_size(later))
			json_object_set_new(o, "steps", later);
		else
			json_decref(later);
		json_t *gt = json_object();
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			if (s->goods[tile->player][k] != goods_before[k])
				json_object_set_new(gt, GOODS_KEY(k),
				                    json_integer(s->goods[tile->player][k] - goods_before[k]));
		if (json_object_size(gt))
			json_object_set_new(o, "goods", gt);
		else
			json_decref(gt);
		json_object_set_new(o, "scores", scores_json(s, s->turn_score));
		if (json_array_size(scored))
			json_object_set_new(o, "scored", scored);
		else
			json_decref(scored);
		json_array_append_new(turns, o);
	}
	/* the turns are spliced in below, one per line */
	json_object_set_new(root, "turns", json_string(TURNS_MARK));
	if (g->over) {
		json_t *fin = json_object();
		json_t *bk = json_array();
		for (int p = 0; p < g->rules.players; p++) {
			json_t *k = json_object();
			for (int i = 0; i < CARC_SCORE_KIND_COUNT; i++)
				if (carc_rules_score_kind(&g->rules, i))
					json_object_set_new(k, KIND_KEY(i), json_integer(g->by_kind[p][i]));
			json_array_append_new(bk, k);
		}
		json_object_set_new(fin, "scores", scores_json(g, g->score));
		json_object_set_new(fin, "by_kind", bk);
		/* a game with an empty pile ends at set-up: no events */
		json_object_set_new(fin, "scored", final_events);
		json_object_set_new(root, "final", fin);
	} else {
		json_decref(final_events);
	}
	if (extra && *extra) {
		/* extra keys never replace the format's own */
		json_t *x = json_loads(extra, 0, NULL);
		if (json_is_object(x))
			json_object_update_missing(root, x);
		json_decref(x);
	}
	out = dump_record(root, turns);
done:
	json_decref(turns);
	json_decref(root);
	free(ev);
	free(s);
	return out;
}

/* ---- reading -------------------------------------------------------------------- */

typedef struct reader {
	char *err;
	size_t errsize;
} reader;

static carc_status rfail(reader *rd, carc_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static carc_status rfail(reader *rd, carc_status st, const char *fmt, ...)
{
	if (rd->err && rd->errsize) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rd->err, rd->errsize, fmt, ap);
		va_end(ap);
	}
	return st;
}


/* An integer key; `what` names it in messages. */
static carc_status get_int(reader *rd, const json_t *obj, const char *key,
                           const char *where, long long lo, long long hi,
                           long long *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v)
		return rfail(rd, CARC_ERR_RECORD, "%skey %s: missing", where, key);
	if (!json_is_integer(v))
		return rfail(rd, CARC_ERR_RECORD, "%skey %s: expected an integer, got %s", where,
		             key, eng_json_kind(v));
	long long x = json_integer_value(v);
	if (x < lo || x > hi)
		return rfail(rd, CARC_ERR_RECORD, "%skey %s: expected %lld..%lld, got %lld", where,
		             key, lo, hi, x);
	*out = x;
	return CARC_OK;
}

static carc_status get_bool(reader *rd, const json_t *obj, const char *key, int dflt,
                            int *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		*out = dflt;
		return CARC_OK;
	}
	if (!json_is_boolean(v))
		return rfail(rd, CARC_ERR_RECORD, "key rules.%s: expected true or false, got %s",
		             key, eng_json_kind(v));
	*out = json_is_true(v);
	return CARC_OK;
}

/* The rules of a record's "rules" object (carc_rules_from_json too). */
static carc_status rules_read(reader *rd, const json_t *jr, carc_rules *r, int *pile,
                              int *have_pile)
{
	if (!json_is_object(jr))
		return rfail(rd, CARC_ERR_RECORD, "key rules: expected an object, got %s",
		             eng_json_kind(jr));
	carc_rules_default(r);
	long long players;
	carc_status st = get_int(rd, jr, "players", "rules: ", 2, 6, &players);
	if (st)
		return st;
	r->players = (int)players;
	if ((st = get_bool(rd, jr, "farmers", 1, &r->farmers)) ||
	    (st = get_bool(rd, jr, "small_city", 0, &r->small_city)))
		return st;
	json_t *fs = json_object_get(jr, "farm_scoring");
	if (fs) {
		int f = json_is_string(fs) ? carc_farm_scoring_parse(json_string_value(fs)) : -1;
		if (f < 0) {
			char known[96] = "";
			for (int k = 0; k < CARC_FARM_SCORING_COUNT; k++)
				snprintf(known + strlen(known), sizeof known - strlen(known), "%s\"%s\"",
				         k ? ", " : "", carc_farm_scoring_name(k));
			return rfail(rd, CARC_ERR_RECORD, "key rules.farm_scoring: expected one of %s",
			             known);
		}
		r->farm_scoring = f;
	}
	json_t *ex = json_object_get(jr, "expansions");
	if (ex) {
		if (!json_is_array(ex))
			return rfail(rd, CARC_ERR_RECORD, "key rules.expansions: expected an array, got %s",
			             eng_json_kind(ex));
		for (size_t i = 0; i < json_array_size(ex); i++) {
			json_t *e = json_array_get(ex, i);
			unsigned bit = json_is_string(e) ? carc_expansion_parse(json_string_value(e)) : 0;
			if (!bit) {
				char known[160] = "";
				for (int k = 0; k < carc_name_count(CARC_NAMES_EXPANSION); k++)
					snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
					         k ? ", " : "", carc_name(CARC_NAMES_EXPANSION, k));
				return rfail(rd, CARC_ERR_RECORD,
				             "key rules.expansions[%zu]: unknown expansion %s%.40s%s (known: %s)",
				             i, json_is_string(e) ? "\"" : "",
				             json_is_string(e) ? json_string_value(e) : eng_json_kind(e),
				             json_is_string(e) ? "\"" : "", known);
			}
			r->expansions |= bit;
		}
	}
	json_t *tiles = json_object_get(jr, "tiles");
	*have_pile = 0;
	if (tiles) {
		if (!json_is_object(tiles))
			return rfail(rd, CARC_ERR_RECORD, "key rules.tiles: expected an object, got %s",
			             eng_json_kind(tiles));
		const char *name;
		json_t *v;
		int total = 0;
		memset(pile, 0, sizeof(int) * TILE_TYPES);
		json_object_foreach(tiles, name, v) {
			int t = carc_tile_parse(name);
			if (t < 0)
				return rfail(rd, CARC_ERR_RECORD, "key rules.tiles: unknown tile \"%s\"", name);
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) > ST_MAX_TILES - 1)
				return rfail(rd, CARC_ERR_RECORD,
				             "key rules.tiles.%s: expected a count 0..%d", name,
				             ST_MAX_TILES - 1);
			pile[t] = (int)json_integer_value(v);
			total += pile[t];
		}
		if (total > ST_MAX_TILES - 1)
			return rfail(rd, CARC_ERR_RECORD, "key rules.tiles: %d tiles, at most %d", total,
			             ST_MAX_TILES - 1);
		*have_pile = 1;
	}
	return CARC_OK;
}

static carc_status read_rules(reader *rd, const json_t *root, carc_rules *r, int *pile,
                              int *have_pile)
{
	json_t *jr = json_object_get(root, "rules");
	if (!jr)
		return rfail(rd, CARC_ERR_RECORD, "key rules: missing");
	return rules_read(rd, jr, r, pile, have_pile);
}

int carc_rules_key(const char *key)
{
	static const char *const KEYS[] = {"players",    "farmers", "farm_scoring",
	                                   "small_city", "expansions", "tiles", NULL};
	for (int i = 0; key && KEYS[i]; i++)
		if (!strcmp(key, KEYS[i]))
			return 1;
	return 0;
}

const char *carc_rules_keys(void)
{
	return "players, farmers, farm_scoring, small_city, expansions, tiles";
}

carc_status carc_rules_from_json(const char *json, size_t len, carc_rules *r, int *pile,
                                 int *have_pile, char err[CARC_ERRMSG_SIZE])
{
	reader rd = {err, CARC_ERRMSG_SIZE};
	json_error_t je;
	int tmp[TILE_TYPES], have = 0;
	json_t *jr = json ? json_loadb(json, len, JSON_REJECT_DUPLICATES, &je) : NULL;
	if (!jr)
		return rfail(&rd, CARC_ERR_PARSE, "not valid JSON: %s", json ? je.text : "nothing given");
	carc_status st = rules_read(&rd, jr, r, tmp, &have);
	json_decref(jr);
	if (st == CARC_OK) {
		/* the reader's messages name a record's key; the same rules hold */
		char e[CARC_ERRMSG_SIZE];
		carc_game *g = carc_game_alloc();
		if (!g)
			return rfail(&rd, CARC_ERR_NOMEM, "out of memory");
		st = carc_game_init(g, r, 0, have ? tmp : NULL, TILE_TYPES, e);
		free(g);
		if (st != CARC_OK)
			return rfail(&rd, CARC_ERR_ARG, "key rules: %s", e);
		if (have && !pile)
			return rfail(&rd, CARC_ERR_ARG, "key rules.tiles: no room given for a pile");
		if (have)
			memcpy(pile, tmp, sizeof tmp);
	}
	if (have_pile)
		*have_pile = have;
	return st == CARC_OK ? CARC_OK : st == CARC_ERR_RECORD ? CARC_ERR_ARG : st;
}

static int scores_equal(const carc_game *g, const int16_t *score, const json_t *a,
                        char *buf, size_t bufsize)
{
	int ok = json_is_array(a) && (int)json_array_size(a) == g->rules.players;
	for (int p = 0; ok && p < g->rules.players; p++) {
		json_t *v = json_array_get(a, (size_t)p);
		ok = json_is_integer(v) && json_integer_value(v) == score[p];
	}
	size_t l = 0;
	l += (size_t)snprintf(buf + l, bufsize - l, "[");
	for (int p = 0; p < g->rules.players && l < bufsize; p++)
		l += (size_t)snprintf(buf + l, bufsize - l, "%s%d", p ? ", " : "", score[p]);
	if (l < bufsize)
		snprintf(buf + l, bufsize - l, "]");
	return ok;
}

/* The later steps of the turn just begun (a record's "steps": one object
 * each, the deciding player and the decision). */
static carc_status read_steps(reader *rd, carc_game *g, const json_t *t, const char *where)
{
	json_t *steps = json_object_get(t, "steps");
	if (steps && !json_is_array(steps))
		return rfail(rd, CARC_ERR_RECORD, "%skey steps: expected an array, got %s", where,
		             eng_json_kind(steps));
	size_t n = steps ? json_array_size(steps) : 0, i = 0;
	char err[CARC_ERRMSG_SIZE];
	for (; !g->over && g->step != ST_STEP_TILE; i++) {
		const char *kind = carc_name(CARC_NAMES_STEP, g->step);
		if (i >= n)
			return rfail(rd, CARC_ERR_RECORD,
			             "%skey steps: missing the %s step of player %d (steps[%zu])", where,
			             kind, g->step_player, i);
		json_t *o = json_array_get(steps, i);
		char at[64];
		snprintf(at, sizeof at, "%skey steps[%zu]", where, i);
		if (!json_is_object(o))
			return rfail(rd, CARC_ERR_RECORD, "%s: expected an object, got %s", at,
			             eng_json_kind(o));
		json_t *pl = json_object_get(o, "player");
		if (!json_is_integer(pl) || json_integer_value(pl) != g->step_player)
			return rfail(rd, CARC_ERR_RECORD, "%s.player: expected %d (who decides the %s step)",
			             at, g->step_player, kind);
		carc_move m;
		if (eng_move_read(g, o, &m, err) != CARC_OK)
			return rfail(rd, CARC_ERR_RECORD, "%s: %s", at, err);
		carc_apply_unchecked(g, m, NULL);
	}
	if (i < n)
		return rfail(rd, CARC_ERR_RECORD, "%skey steps: %zu entries, the turn had %zu", where, n,
		             i);
	return CARC_OK;
}

static carc_status read_turn(reader *rd, carc_game *g, const json_t *t, int i)
{
	char where[48];
	snprintf(where, sizeof where, "turn %d (turns[%d]): ", i + 1, i);
	if (!json_is_object(t))
		return rfail(rd, CARC_ERR_RECORD, "%sexpected an object, got %s", where, eng_json_kind(t));
	if (g->over)
		return rfail(rd, CARC_ERR_RECORD, "%sthe game is already over (the pile is empty)",
		             where);
	long long player;
	carc_status st = get_int(rd, t, "player", where, 0, g->rules.players - 1, &player);
	if (st)
		return st;
	if (player != g->player)
		return rfail(rd, CARC_ERR_RECORD, "%skey player: expected %d (whose turn it is), got %lld",
		             where, g->player, player);
	json_t *jt = json_object_get(t, "tile");
	if (!json_is_string(jt))
		return rfail(rd, CARC_ERR_RECORD, "%skey tile: expected a tile name, got %s", where,
		             jt ? eng_json_kind(jt) : "nothing");
	int type = carc_tile_parse(json_string_value(jt));
	if (type < 0)
		return rfail(rd, CARC_ERR_RECORD, "%skey tile: unknown tile \"%s\"", where,
		             json_string_value(jt));
	if (!carc_tiles_left_of(g, type))
		return rfail(rd, CARC_ERR_RECORD, "%skey tile: no tile %s is left in the bag", where,
		             tile_defs[type].name);
	if (carc_set_current_tile(g, type) != CARC_OK)
		return rfail(rd, CARC_ERR_RECORD,
		             "%skey tile: %s cannot be drawn now (river tiles come first, the lake "
		             "last)",
		             where, tile_defs[type].name);

	char err[CARC_ERRMSG_SIZE];
	carc_move m;
	json_t *disc = json_object_get(t, "discarded");
	if (disc && !json_is_boolean(disc))
		return rfail(rd, CARC_ERR_RECORD, "%skey discarded: expected true or false", where);
	json_t *bonus = json_object_get(t, "bonus");
	if (bonus && (!json_is_boolean(bonus) || json_is_true(bonus) != (g->bonus != 0)))
		return rfail(rd, CARC_ERR_RECORD, "%skey bonus: expected %s (%s)", where,
		             g->bonus ? "true" : "false",
		             g->bonus ? "a builder gave this player an extra tile"
		                      : "no builder's extra tile is due");
	int goods_player = g->player;
	uint8_t goods_before[CARC_GOODS_COUNT];
	memcpy(goods_before, g->goods[goods_player], sizeof goods_before);
	if (json_is_true(disc)) {
		carc_move one;
		carc_placements(g, &one, 1);
		if (one != CARC_MOVE_DISCARD)
			return rfail(rd, CARC_ERR_RECORD,
			             "%skey discarded: tile %s fits on the board, e.g. at (%d, %d) rot %d",
			             where, tile_defs[type].name, carc_move_x(one), carc_move_y(one),
			             carc_move_rot(one));
	} else if (!json_object_get(t, "meeple")) {
		/* the contract writes "meeple" on every placed tile, null for none */
		return rfail(rd, CARC_ERR_RECORD, "%skey meeple: missing (null for none)", where);
	}
	if ((st = eng_move_from(g, t, &m, err)) != CARC_OK)
		return rfail(rd, CARC_ERR_RECORD, "%s%s", where, err);
	if (m != CARC_MOVE_DISCARD) {
		if (carc_check_move(g, carc_move_placement(m), err) != CARC_OK)
			return rfail(rd, CARC_ERR_RECORD, "%skeys x, y, rot: %s", where, err);
		if (carc_check_move(g, m, err) != CARC_OK)
			return rfail(rd, CARC_ERR_RECORD, "%skey meeple: %s", where, err);
	}
	if (carc_apply(g, m, NULL, err) != CARC_OK)
		return rfail(rd, CARC_ERR_RECORD, "%s%s", where, err);
	if ((st = read_steps(rd, g, t, where)) != CARC_OK)
		return st;
	json_t *jg = json_object_get(t, "goods");
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		int took = g->goods[goods_player][k] - goods_before[k];
		json_t *v = jg ? json_object_get(jg, GOODS_KEY(k)) : NULL;
		if (jg && (v ? !json_is_integer(v) || json_integer_value(v) != took : took != 0))
			return rfail(rd, CARC_ERR_RECORD, "%skey goods.%s: expected %d", where, GOODS_KEY(k),
			             took);
	}
	json_t *sc = json_object_get(t, "scores");
	if (!sc && m != CARC_MOVE_DISCARD)
		return rfail(rd, CARC_ERR_RECORD, "%skey scores: missing", where);
	char buf[96];
	if (sc && !scores_equal(g, g->turn_score, sc, buf, sizeof buf))
		return rfail(rd, CARC_ERR_RECORD, "%skey scores: expected %s after this turn", where, buf);
	return CARC_OK;
}

static carc_status read_final(reader *rd, const carc_game *g, const json_t *fin)
{
	char buf[96];
	if (!json_is_object(fin))
		return rfail(rd, CARC_ERR_RECORD, "key final: expected an object, got %s", eng_json_kind(fin));
	if (!scores_equal(g, g->score, json_object_get(fin, "scores"), buf, sizeof buf))
		return rfail(rd, CARC_ERR_RECORD, "key final.scores: expected %s", buf);
	json_t *bk = json_object_get(fin, "by_kind");
	if (!json_is_array(bk) || (int)json_array_size(bk) != g->rules.players)
		return rfail(rd, CARC_ERR_RECORD, "key final.by_kind: expected an array of %d objects",
		             g->rules.players);
	for (int p = 0; p < g->rules.players; p++) {
		json_t *o = json_array_get(bk, (size_t)p);
		if (!json_is_object(o))
			return rfail(rd, CARC_ERR_RECORD, "key final.by_kind[%d]: expected an object", p);
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++) {
			json_t *v = json_object_get(o, KIND_KEY(k));
			if (!v && (carc_rules_score_kind(&g->rules, k) || g->by_kind[p][k]))
				return rfail(rd, CARC_ERR_RECORD, "key final.by_kind[%d].%s: missing (expected %d)",
				             p, KIND_KEY(k), g->by_kind[p][k]);
			if (v && (!json_is_integer(v) || json_integer_value(v) != g->by_kind[p][k]))
				return rfail(rd, CARC_ERR_RECORD, "key final.by_kind[%d].%s: expected %d", p,
				             KIND_KEY(k), g->by_kind[p][k]);
		}
	}
	return CARC_OK;
}

carc_status carc_record_replay(const char *json, size_t len, carc_game *out,
                               char *errbuf, size_t errsize)
{
	reader rd = {errbuf, errsize};
	json_error_t jerr;
	if (errbuf && errsize)
		errbuf[0] = 0;
	if (!json || !out)
		return rfail(&rd, CARC_ERR_ARG, "no record given");
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return rfail(&rd, CARC_ERR_PARSE, "not valid JSON: line %d, column %d: %s", jerr.line,
		             jerr.column, jerr.text);
	carc_status st = CARC_OK;
	if (!json_is_object(root)) {
		st = rfail(&rd, CARC_ERR_PARSE, "expected a JSON object, got %s", eng_json_kind(root));
		goto done;
	}
	json_t *fmt = json_object_get(root, "format");
	if (!json_is_string(fmt) || strcmp(json_string_value(fmt), RECORD_FORMAT)) {
		st = rfail(&rd, CARC_ERR_PARSE, "key format: expected \"%s\", got %s%s%s", RECORD_FORMAT,
		           json_is_string(fmt) ? "\"" : "",
		           json_is_string(fmt) ? json_string_value(fmt) : (fmt ? eng_json_kind(fmt) : "nothing"),
		           json_is_string(fmt) ? "\"" : "");
		goto done;
	}
	carc_rules r;
	int pile[TILE_TYPES], have_pile;
	if ((st = read_rules(&rd, root, &r, pile, &have_pile)))
		goto done;
	uint64_t seed = 0;
	json_t *js = json_object_get(root, "seed");
	if (json_is_integer(js) && json_integer_value(js) >= 0) {
		seed = (uint64_t)json_integer_value(js);
	} else if (json_is_string(js) && *json_string_value(js)) {
		char *end;
		seed = strtoull(json_string_value(js), &end, 10);
		if (*end) {
			st = rfail(&rd, CARC_ERR_RECORD, "key seed: expected a non-negative integer");
			goto done;
		}
	} else if (js) {
		st = rfail(&rd, CARC_ERR_RECORD, "key seed: expected a non-negative integer, got %s",
		           eng_json_kind(js));
		goto done;
	}
	char err[CARC_ERRMSG_SIZE];
	if (carc_game_init(out, &r, seed, have_pile ? pile : NULL, TILE_TYPES, err)) {
		st = rfail(&rd, CARC_ERR_RECORD, "key rules: %s", err);
		goto done;
	}
	json_t *start = json_object_get(root, "start");
	if (start) {
		json_t *tn = json_object_get(start, "tile");
		long long sx, sy, srot;
		if (!json_is_object(start) || !json_is_string(tn) ||
		    carc_tile_parse(json_string_value(tn)) != out->tiles[0].type) {
			st = rfail(&rd, CARC_ERR_RECORD, "key start.tile: expected \"%s\"",
			           tile_defs[out->tiles[0].type].name);
			goto done;
		}
		if ((st = get_int(&rd, start, "x", "start: ", 0, 0, &sx)) ||
		    (st = get_int(&rd, start, "y", "start: ", 0, 0, &sy)) ||
		    (st = get_int(&rd, start, "rot", "start: ", 0, 0, &srot)))
			goto done;
	}
	json_t *turns = json_object_get(root, "turns");
	if (!json_is_array(turns)) {
		st = rfail(&rd, CARC_ERR_RECORD, "key turns: expected an array, got %s",
		           turns ? eng_json_kind(turns) : "nothing");
		goto done;
	}
	for (size_t i = 0; i < json_array_size(turns); i++)
		if ((st = read_turn(&rd, out, json_array_get(turns, i), (int)i)))
			goto done;
	json_t *fin = json_object_get(root, "final");
	if (fin && !out->over) {
		st = rfail(&rd, CARC_ERR_RECORD, "key final: the game is not over (%d tiles left)",
		           carc_tiles_left(out));
		goto done;
	}
	if (!fin && out->over) {
		st = rfail(&rd, CARC_ERR_RECORD, "key final: missing, but the game ended after turn %d",
		           (int)json_array_size(turns));
		goto done;
	}
	if (fin)
		st = read_final(&rd, out, fin);
done:
	json_decref(root);
	return st;
}
