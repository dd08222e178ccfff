/*
 * view.c - decisions and positions as JSON: the one writer and the one
 * reader of a decision's JSON (records, the server and `carc engine` use
 * them), and the views a client draws from (carc_view_*), so that a
 * program showing a game needs no rule of its own.
 *
 * The views are written as text (jsonout.h): they go out with every move
 * of a server, where building trees cost more than the move. Their forms
 * are documented in docs/protocol.md ("The turn", "Log entry", "The
 * engine's views").
 *
 * A decision of the tile step is written with a record's keys (x, y, rot,
 * meeple, abbot_recalled, or discarded); a decision of any other step is
 * one key, the step's name, with the decision as its value
 * ({"test-pass": 1}), so that a reader that does not know the kind still
 * sees which it is.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc_jansson.h"
#include "view.h"


/* ---- one decision ------------------------------------------------------------------------ */

/* Where a decision of the Princess & Dragon steps is: {"x", "y", "at"}
 * of board tile t, segment s (s < 0: the square only). */
static void pd_place(jo_buf *b, const carc_game *g, int t, int s, int fig)
{
	int f = 1;
	const carc_placed *pt = &g->tiles[t];
	jo_raw(b, "{");
	jo_kint(b, &f, "x", pt->x);
	jo_kint(b, &f, "y", pt->y);
	if (fig >= 0)
		jo_kstr(b, &f, "kind", carc_name(CARC_NAMES_FIGURE, fig));
	if (s >= 0)
		jo_kstr(b, &f, "at", carc_port_name(TT_SEGPORT[pt->type][pt->rot][s]));
	jo_raw(b, "}");
}

void eng_move_write(jo_buf *b, int *first, const carc_game *g, int kind, int type, carc_move m)
{
	if (kind == ST_STEP_ACTION || kind == ST_STEP_DRAGON) {
		int t, s, fig;
		const char *what;
		int any = pd_decision(g, kind, m, &t, &s, &fig, &what) == 0;
		jo_kopen(b, first, carc_name(CARC_NAMES_STEP, kind));
		if (!any) {
			jo_str(b, what);
		} else if (kind == ST_STEP_DRAGON) {
			pd_place(b, g, t, -1, -1);
		} else {
			int f = 1;
			jo_raw(b, "{");
			jo_kopen(b, &f, what);
			pd_place(b, g, t, s, fig);
			jo_raw(b, "}");
		}
		return;
	}
	if (kind != ST_STEP_TILE) {
		/* every other kind's decision is a small number */
		jo_kint(b, first, carc_name(CARC_NAMES_STEP, kind), (long)m);
		return;
	}
	if (m == CARC_MOVE_DISCARD) {
		jo_kbool(b, first, "discarded", 1);
		return;
	}
	int rot = carc_move_rot(m), seg = carc_move_seg(m);
	jo_kint(b, first, "x", carc_move_x(m));
	jo_kint(b, first, "y", carc_move_y(m));
	jo_kint(b, first, "rot", rot);
	jo_kopen(b, first, "meeple");
	if (seg == CARC_SEG_NONE) {
		jo_raw(b, "null");
	} else {
		int f = 1;
		jo_raw(b, "{");
		jo_kstr(b, &f, "kind", carc_name(CARC_NAMES_FIGURE, carc_move_figure(m)));
		jo_kstr(b, &f, "at", carc_port_name(TT_SEGPORT[type][rot][seg]));
		jo_raw(b, "}");
	}
	if (carc_move_recall(m))
		jo_kbool(b, first, "abbot_recalled", 1);
}

const char *eng_json_kind(const json_t *v)
{
	if (!v)
		return "nothing";
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static int read_int(const json_t *o, const char *key, long lo, long hi, long *out, char *err)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_integer(v)) {
		eng_seterr(err, "key %s: expected an integer, got %s", key, eng_json_kind(v));
		return -1;
	}
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi) {
		eng_seterr(err, "key %s: expected %ld..%ld, got %lld", key, lo, hi, (long long)x);
		return -1;
	}
	*out = (long)x;
	return 0;
}

/* A tile step's decision from its keys, not yet checked against the rules. */
static carc_status read_tile_move(const carc_game *g, const json_t *o, carc_move *m, char *err)
{
	json_t *disc = json_object_get(o, "discarded");
	if (!disc)
		disc = json_object_get(o, "discard"); /* the server's older word */
	if (disc && !json_is_boolean(disc)) {
		eng_seterr(err, "key discarded: expected true or false, got %s", eng_json_kind(disc));
		return CARC_ERR_PARSE;
	}
	if (json_is_true(disc)) {
		*m = CARC_MOVE_DISCARD;
		return CARC_OK;
	}
	long x, y, rot;
	if (read_int(o, "x", -256, 255, &x, err) || read_int(o, "y", -256, 255, &y, err) ||
	    read_int(o, "rot", 0, 3, &rot, err))
		return CARC_ERR_PARSE;
	int type = g->pile[g->pos];
	int seg = CARC_SEG_NONE, fig = CARC_FIG_FOLLOWER;
	json_t *mp = json_object_get(o, "meeple");
	if (mp && !json_is_null(mp)) {
		if (!json_is_object(mp)) {
			eng_seterr(err, "key meeple: expected an object or null, got %s", eng_json_kind(mp));
			return CARC_ERR_PARSE;
		}
		json_t *k = json_object_get(mp, "kind"), *at = json_object_get(mp, "at");
		if (k) {
			fig = json_is_string(k) ? carc_name_parse(CARC_NAMES_FIGURE, json_string_value(k))
			                        : -1;
			if (fig < 0) {
				char names[96] = "";
				for (int f = 0; f < CARC_FIG_COUNT; f++)
					snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
					         f ? ", " : "", carc_name(CARC_NAMES_FIGURE, f));
				eng_seterr(err, "key meeple.kind: expected one of %s, got %s%.24s%s", names,
				       json_is_string(k) ? "\"" : "",
				       json_is_string(k) ? json_string_value(k) : eng_json_kind(k),
				       json_is_string(k) ? "\"" : "");
				return CARC_ERR_PARSE;
			}
		}
		int port = json_is_string(at) ? carc_port_parse(json_string_value(at)) : -1;
		if (port < 0) {
			eng_seterr(err, "key meeple.at: expected a port N0..W2, C or I, got %s%.24s%s",
			       json_is_string(at) ? "\"" : "",
			       json_is_string(at) ? json_string_value(at) : eng_json_kind(at),
			       json_is_string(at) ? "\"" : "");
			return CARC_ERR_PARSE;
		}
		seg = TT_PORTSEG[type][rot][port];
		if (seg == 255) {
			eng_seterr(err, "key meeple.at: tile %s at rot %ld has nothing at %s",
			       tile_defs[type].name, rot, carc_port_name(port));
			return CARC_ERR_ILLEGAL;
		}
	}
	*m = carc_move_make((int)x, (int)y, (int)rot, seg, fig);
	json_t *rc = json_object_get(o, "abbot_recalled");
	if (rc && !json_is_boolean(rc)) {
		eng_seterr(err, "key abbot_recalled: expected true or false, got %s", eng_json_kind(rc));
		return CARC_ERR_PARSE;
	}
	if (json_is_true(rc)) {
		if (seg != CARC_SEG_NONE) {
			eng_seterr(err, "key abbot_recalled: a player who recalls the abbot places no figure");
			return CARC_ERR_ILLEGAL;
		}
		*m |= CARC_MOVE_RECALL;
	}
	return CARC_OK;
}

/* A square {"x", "y"} of a decision under `key`: its board tile, -1 with
 * err when there is none. */
static int pd_square(const carc_game *g, const json_t *v, const char *key, char *err)
{
	long x, y;
	if (!json_is_object(v)) {
		eng_seterr(err, "key %s: expected an object {\"x\", \"y\", ...}, got %s", key,
		           eng_json_kind(v));
		return -1;
	}
	if (read_int(v, "x", -256, 255, &x, err) || read_int(v, "y", -256, 255, &y, err))
		return -1;
	int t = carc_tile_at(g, (int)x, (int)y);
	if (t < 0)
		eng_seterr(err, "key %s: no tile at (%ld, %ld)", key, x, y);
	return t;
}

/* A decision of the action or dragon step (Princess & Dragon). */
static carc_status read_pd_move(const carc_game *g, const json_t *o, carc_move *m, char *err)
{
	const char *key = carc_name(CARC_NAMES_STEP, g->step);
	json_t *v = json_object_get(o, key);
	if (g->step == ST_STEP_DRAGON) {
		int t = pd_square(g, v, key, err);
		if (t < 0)
			return v && json_is_object(v) ? CARC_ERR_ILLEGAL : CARC_ERR_PARSE;
		*m = (carc_move)t;
		return CARC_OK;
	}
	if (json_is_string(v) && !strcmp(json_string_value(v), "none")) {
		*m = pd_encode("none", 0, 0, 0);
		return CARC_OK;
	}
	static const char *const WHAT[] = {"fairy", "portal", "princess"};
	const char *what = NULL;
	json_t *place = NULL;
	if (json_is_object(v) && json_object_size(v) == 1)
		for (int i = 0; i < 3; i++)
			if ((place = json_object_get(v, WHAT[i]))) {
				what = WHAT[i];
				break;
			}
	if (!what) {
		eng_seterr(err, "key %s: expected \"none\" or an object with one key of fairy, portal, "
		                "princess, got %s", key, eng_json_kind(v));
		return CARC_ERR_PARSE;
	}
	char path[32];
	snprintf(path, sizeof path, "%s.%s", key, what);
	int t = pd_square(g, place, path, err);
	if (t < 0)
		return json_is_object(place) ? CARC_ERR_ILLEGAL : CARC_ERR_PARSE;
	json_t *at = json_object_get(place, "at");
	int port = json_is_string(at) ? carc_port_parse(json_string_value(at)) : -1;
	if (port < 0) {
		eng_seterr(err, "key %s.at: expected a port N0..W2, C or I", path);
		return CARC_ERR_PARSE;
	}
	const carc_placed *pt = &g->tiles[t];
	int seg = TT_PORTSEG[pt->type][pt->rot][port];
	if (seg == 255) {
		eng_seterr(err, "key %s.at: the tile at (%d, %d) has nothing at %s", path, pt->x, pt->y,
		           carc_port_name(port));
		return CARC_ERR_ILLEGAL;
	}
	int fig = 0;
	json_t *k = json_object_get(place, "kind");
	if (!strcmp(what, "portal")) {
		fig = json_is_string(k) ? carc_name_parse(CARC_NAMES_FIGURE, json_string_value(k)) : -1;
		if (fig < 0) {
			eng_seterr(err, "key %s.kind: expected a figure (follower, big, abbot)", path);
			return CARC_ERR_PARSE;
		}
	} else if (k) {
		eng_seterr(err, "key %s.kind: only the portal names a figure", path);
		return CARC_ERR_PARSE;
	}
	*m = pd_encode(what, t, seg, fig);
	return CARC_OK;
}

carc_status eng_move_from(const carc_game *g, const json_t *o, carc_move *m, char *err)
{
	if (!json_is_object(o)) {
		eng_seterr(err, "a decision is a JSON object, not %s", eng_json_kind(o));
		return CARC_ERR_PARSE;
	}
	if (g->over) {
		eng_seterr(err, "the game is over");
		return CARC_ERR_GAME_OVER;
	}
	carc_status st;
	if (g->step == ST_STEP_TILE) {
		st = read_tile_move(g, o, m, err);
	} else if (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON) {
		st = read_pd_move(g, o, m, err);
	} else {
		const char *key = carc_name(CARC_NAMES_STEP, g->step);
		long v;
		st = read_int(o, key, 0, 0x7FFFFFFF, &v, err) ? CARC_ERR_PARSE : CARC_OK;
		if (st == CARC_OK)
			*m = (carc_move)v;
	}
	return st;
}

carc_status eng_move_read(const carc_game *g, const json_t *o, carc_move *m, char *err)
{
	carc_status st = eng_move_from(g, o, m, err);
	return st != CARC_OK ? st : carc_check_move(g, *m, err);
}

char *carc_move_json(const carc_game *g, carc_move m)
{
	jo_buf b;
	int first = 1;
	jo_init(&b);
	jo_raw(&b, "{");
	if (!g->over)
		eng_move_write(&b, &first, g, g->step, g->pile[g->pos], m);
	jo_raw(&b, "}");
	return jo_take(&b);
}

carc_status carc_move_from_json(const carc_game *g, const json_t *o, carc_move *m,
                                char err[CARC_ERRMSG_SIZE])
{
	return eng_move_read(g, o, m, err);
}

carc_status carc_move_parse(const carc_game *g, const char *json, size_t len, carc_move *m,
                            char err[CARC_ERRMSG_SIZE])
{
	json_error_t je;
	json_t *o = json ? json_loadb(json, len, JSON_REJECT_DUPLICATES, &je) : NULL;
	if (!o) {
		eng_seterr(err, "not valid JSON: %s", json ? je.text : "nothing given");
		return CARC_ERR_PARSE;
	}
	carc_status st = eng_move_read(g, o, m, err);
	json_decref(o);
	return st;
}

int carc_move_key(const carc_game *g, const char *path)
{
	static const char *const TILE_KEYS[] = {"x",          "y",         "rot",         "meeple",
	                                        "meeple.kind", "meeple.at", "abbot_recalled",
	                                        "discarded",  "discard",   NULL};
	static const char *const PD_KEYS[] = {
	    "action",           "action.fairy",      "action.fairy.x",    "action.fairy.y",
	    "action.fairy.at",  "action.portal",     "action.portal.x",   "action.portal.y",
	    "action.portal.at", "action.portal.kind", "action.princess",  "action.princess.x",
	    "action.princess.y", "action.princess.at", "dragon",          "dragon.x",
	    "dragon.y",         NULL};
	if (!path || g->over)
		return 0;
	if (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON) {
		const char *k = carc_name(CARC_NAMES_STEP, g->step);
		size_t n = strlen(k);
		for (int i = 0; PD_KEYS[i]; i++)
			if (!strcmp(path, PD_KEYS[i]))
				return !strncmp(path, k, n) && (path[n] == 0 || path[n] == '.');
		return 0;
	}
	if (g->step != ST_STEP_TILE)
		return !strcmp(path, carc_name(CARC_NAMES_STEP, g->step));
	for (int i = 0; TILE_KEYS[i]; i++)
		if (!strcmp(path, TILE_KEYS[i]))
			return 1;
	return 0;
}

const char *carc_move_keys(const carc_game *g, const char *object)
{
	if (g->over)
		return "";
	if (g->step == ST_STEP_ACTION && object)
		return !strcmp(object, "action") ? "fairy, portal, princess"
		       : !strcmp(object, "action.portal") ? "x, y, kind, at"
		       : (!strcmp(object, "action.fairy") || !strcmp(object, "action.princess")) ? "x, y, at"
		       : "";
	if (g->step == ST_STEP_DRAGON && object)
		return !strcmp(object, "dragon") ? "x, y" : "";
	if (g->step != ST_STEP_TILE)
		return object ? "" : carc_name(CARC_NAMES_STEP, g->step);
	if (!object)
		return "x, y, rot, meeple, abbot_recalled, discarded";
	return strcmp(object, "meeple") ? "" : "kind, at";
}

void carc_move_text(const carc_game *g, carc_move m, char *buf, size_t size)
{
	if (!size)
		return;
	if (g->over) {
		snprintf(buf, size, "-");
	} else if (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON) {
		int t, s, fig;
		const char *what;
		if (pd_decision(g, g->step, m, &t, &s, &fig, &what)) {
			snprintf(buf, size, "no action");
		} else {
			const carc_placed *pt = &g->tiles[t];
			const char *port = s >= 0 ? carc_port_name(TT_SEGPORT[pt->type][pt->rot][s]) : "";
			if (g->step == ST_STEP_DRAGON)
				snprintf(buf, size, "dragon to (%d,%d)", pt->x, pt->y);
			else if (fig >= 0)
				snprintf(buf, size, "portal: %s to (%d,%d) %s", eng_figure_words(fig), pt->x,
				         pt->y, port);
			else
				snprintf(buf, size, "%s: (%d,%d) %s", what, pt->x, pt->y, port);
		}
	} else if (g->step != ST_STEP_TILE) {
		snprintf(buf, size, "%s %u", carc_name(CARC_NAMES_STEP, g->step), m);
	} else if (m == CARC_MOVE_DISCARD) {
		snprintf(buf, size, "set aside");
	} else {
		int type = g->pile[g->pos], rot = carc_move_rot(m), seg = carc_move_seg(m);
		int n = snprintf(buf, size, "(%d,%d) rot %d", carc_move_x(m), carc_move_y(m), rot);
		if (n > 0 && (size_t)n < size && seg != CARC_SEG_NONE)
			snprintf(buf + n, size - (size_t)n, " %s %s",
			         carc_name(CARC_NAMES_FIGURE, carc_move_figure(m)),
			         carc_port_name(TT_SEGPORT[type][rot][seg]));
		else if (n > 0 && (size_t)n < size && carc_move_recall(m))
			snprintf(buf + n, size - (size_t)n, " abbot recalled");
	}
}

/* ---- a position ----------------------------------------------------------------------------- */

/* Where segment `seg` of board tile `tile` is: the square and the port that
 * names it. */
static void place_of(const carc_game *g, int tile, int seg, int *x, int *y, const char **port)
{
	const carc_placed *p = &g->tiles[tile];
	*x = p->x;
	*y = p->y;
	*port = carc_port_name(TT_SEGPORT[p->type][p->rot][seg]);
}

static void put_where(jo_buf *b, int *first, const carc_game *g, int tile, int seg)
{
	int x, y;
	const char *port;
	place_of(g, tile, seg, &x, &y, &port);
	jo_kint(b, first, "x", x);
	jo_kint(b, first, "y", y);
	jo_kstr(b, first, "at", port);
}

static void put_square(jo_buf *b, int *first, const carc_game *g, int tile)
{
	jo_kint(b, first, "x", g->tiles[tile].x);
	jo_kint(b, first, "y", g->tiles[tile].y);
}

static void put_board(jo_buf *b, const carc_game *g)
{
	jo_raw(b, "[");
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *p = &g->tiles[i];
		int f = 1;
		jo_raw(b, i ? ",{" : "{");
		jo_kint(b, &f, "x", p->x);
		jo_kint(b, &f, "y", p->y);
		jo_kstr(b, &f, "tile", tile_defs[p->type].name);
		jo_kint(b, &f, "rot", p->rot);
		jo_kopen(b, &f, "player");
		if (p->player == 255)
			jo_raw(b, "null");
		else
			jo_int(b, p->player);
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

static void put_figures(jo_buf *b, const carc_game *g)
{
	int any = 0;
	jo_raw(b, "[");
	for (int i = 0; i < g->nfig; i++) {
		const carc_figure_at *fa = &g->fig[i];
		if (fa->owner == ST_FIG_FREE)
			continue;
		const carc_node *n = &g->node[fa->node];
		int f = 1;
		jo_raw(b, any ? ",{" : "{");
		any = 1;
		jo_kint(b, &f, "player", fa->owner);
		jo_kstr(b, &f, "kind", carc_name(CARC_NAMES_FIGURE, fa->kind));
		put_where(b, &f, g, n->tile, n->seg);
		jo_kstr(b, &f, "feature", carc_name(CARC_NAMES_FEATURE, n->kind));
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

/* Princess & Dragon: the dragon, the fairy and the dragon's movement. */
static void put_neutral(jo_buf *b, int *f, const carc_game *g)
{
	jo_kopen(b, f, "dragon");
	if (g->dragon == 255) {
		jo_raw(b, "null");
	} else {
		int df = 1;
		jo_raw(b, "{");
		put_square(b, &df, g, g->dragon);
		jo_raw(b, "}");
	}
	jo_kopen(b, f, "fairy");
	if (g->fairy == 255) {
		jo_raw(b, "null");
	} else {
		int ff = 1;
		jo_raw(b, "{");
		if (g->fairy_fig != 255) {
			put_where(b, &ff, g, g->fairy, g->node[g->fig[g->fairy_fig].node].seg);
		} else {
			put_square(b, &ff, g, g->fairy);
			jo_kopen(b, &ff, "at");
			jo_raw(b, "null");
		}
		jo_raw(b, "}");
	}
	if (g->nvisited) {
		int mf = 1;
		jo_kopen(b, f, "dragon_move");
		jo_raw(b, "{");
		jo_kopen(b, &mf, "visited");
		jo_raw(b, "[");
		for (int k = 0; k < g->nvisited; k++) {
			int vf = 1;
			jo_raw(b, k ? ",{" : "{");
			put_square(b, &vf, g, g->visited[k]);
			jo_raw(b, "}");
		}
		jo_raw(b, "]");
		jo_kint(b, &mf, "steps", g->nvisited - 1);
		jo_raw(b, "}");
	}
}

/* Each player's figures in supply: every kind the rules give (a follower
 * always, so that a player without any still shows 0). */
static void put_supply(jo_buf *b, const carc_game *g)
{
	jo_raw(b, "[");
	for (int p = 0; p < g->rules.players; p++) {
		int f = 1;
		jo_raw(b, p ? ",{" : "{");
		for (int k = 0; k < CARC_FIG_COUNT; k++)
			if (k == CARC_FIG_FOLLOWER || carc_rules_supply(&g->rules, k))
				jo_kint(b, &f, carc_name(CARC_NAMES_FIGURE, k), g->supply[p][k]);
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

static void put_scores(jo_buf *b, const carc_game *g, const int16_t *score)
{
	int s[CARC_MAX_PLAYERS];
	for (int p = 0; p < g->rules.players; p++)
		s[p] = score[p];
	jo_ints(b, s, g->rules.players);
}

/* Points so far by kind: the four of the base game always, the others once
 * they score. */
static void put_by_kind(jo_buf *b, const carc_game *g)
{
	jo_raw(b, "[");
	for (int p = 0; p < g->rules.players; p++) {
		int f = 1;
		jo_raw(b, p ? ",{" : "{");
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++)
			if (k <= CARC_SCORE_FARM || g->by_kind[p][k])
				jo_kint(b, &f, carc_name(CARC_NAMES_SCORE, k), g->by_kind[p][k]);
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

static void put_goods(jo_buf *b, const carc_game *g)
{
	jo_raw(b, "[");
	for (int p = 0; p < g->rules.players; p++) {
		int f = 1;
		jo_raw(b, p ? ",{" : "{");
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			jo_kint(b, &f, carc_name(CARC_NAMES_GOODS, k), g->goods[p][k]);
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

static void put_final(jo_buf *b, const carc_game *g)
{
	if (!g->over) {
		jo_raw(b, "null");
		return;
	}
	int f = 1, best = -1, w[CARC_MAX_PLAYERS], n = 0;
	jo_raw(b, "{");
	jo_kopen(b, &f, "scores");
	put_scores(b, g, g->score);
	jo_kopen(b, &f, "by_kind");
	put_by_kind(b, g);
	for (int p = 0; p < g->rules.players; p++)
		if (g->score[p] > best)
			best = g->score[p];
	for (int p = 0; p < g->rules.players; p++)
		if (g->score[p] == best)
			w[n++] = p;
	jo_kopen(b, &f, "winners");
	jo_ints(b, w, n);
	jo_raw(b, "}");
}

/* The tile step's decisions: every placement with its figure options. */
static void put_tile_legal(jo_buf *b, const carc_game *g)
{
	carc_move pl[CARC_MAX_MOVES];
	carc_move fo[CARC_MAX_SEGS * CARC_FIG_COUNT * 2];
	int n = carc_placements(g, pl, CARC_MAX_MOVES);
	int discard = n == 1 && pl[0] == CARC_MOVE_DISCARD;
	int type = g->pile[g->pos], f = 1;
	jo_raw(b, "{");
	jo_kbool(b, &f, "discard", discard);
	jo_kopen(b, &f, "placements");
	jo_raw(b, "[");
	for (int i = 0; i < n && !discard; i++) {
		carc_move m = pl[i];
		int rot = carc_move_rot(m), recall = 0, any = 0, pf = 1;
		jo_raw(b, i ? ",{" : "{");
		jo_kint(b, &pf, "x", carc_move_x(m));
		jo_kint(b, &pf, "y", carc_move_y(m));
		jo_kint(b, &pf, "rot", rot);
		jo_kopen(b, &pf, "meeples");
		jo_raw(b, "[");
		int nf = carc_figure_options(g, m, fo, (int)(sizeof fo / sizeof fo[0]));
		for (int k = 0; k < nf; k++) {
			if (carc_move_recall(fo[k])) {
				recall = 1;
				continue;
			}
			int mf = 1;
			jo_raw(b, any ? ",{" : "{");
			any = 1;
			jo_kstr(b, &mf, "kind", carc_name(CARC_NAMES_FIGURE, carc_move_figure(fo[k])));
			jo_kstr(b, &mf, "at",
			        carc_port_name(TT_SEGPORT[type][rot][carc_move_seg(fo[k])]));
			jo_raw(b, "}");
		}
		jo_raw(b, "]");
		if (recall)
			jo_kbool(b, &pf, "abbot_recall", 1);
		jo_raw(b, "}");
	}
	jo_raw(b, "]}");
}

/* Any other step's decisions: each as its JSON and in words. */
static void put_step_legal(jo_buf *b, const carc_game *g)
{
	carc_move buf[64];
	int n = eng_step_moves(g, buf, 64), f = 1;
	jo_raw(b, "{");
	jo_kopen(b, &f, "options");
	jo_raw(b, "[");
	for (int i = 0; i < n; i++) {
		int of = 1;
		char text[64];
		jo_raw(b, i ? ",{" : "{");
		eng_move_write(b, &of, g, g->step, g->pile[g->pos], buf[i]);
		carc_move_text(g, buf[i], text, sizeof text);
		jo_kstr(b, &of, "text", text);
		jo_raw(b, "}");
	}
	jo_raw(b, "]}");
}

/* The turn: what is decided now and by whom, with the legal decisions. */
static void put_turn(jo_buf *b, const carc_game *g)
{
	int over = g->over, f = 1;
	jo_raw(b, "{");
	jo_kint(b, &f, "turn", over || g->step == ST_STEP_TILE ? g->nturns : g->nturns - 1);
	jo_kint(b, &f, "step", g->nsteps);
	jo_kopen(b, &f, "step_kind");
	if (over)
		jo_raw(b, "null");
	else
		jo_str(b, carc_name(CARC_NAMES_STEP, g->step));
	jo_kbool(b, &f, "over", over);
	jo_kopen(b, &f, "to_move");
	if (over)
		jo_raw(b, "null");
	else
		jo_int(b, g->step_player);
	jo_kopen(b, &f, "turn_player");
	if (over)
		jo_raw(b, "null");
	else
		jo_int(b, g->player);
	jo_kbool(b, &f, "bonus", !over && g->bonus);
	jo_kopen(b, &f, "tile");
	if (over)
		jo_raw(b, "null");
	else
		jo_str(b, tile_defs[g->pile[g->pos]].name);
	jo_kint(b, &f, "tiles_left", over ? 0 : g->npile - g->pos);
	jo_kopen(b, &f, "tiles_left_by_kind");
	jo_raw(b, "{");
	int tf = 1;
	for (int t = 0; t < TILE_TYPES && !over; t++)
		if (g->remaining[t])
			jo_kint(b, &tf, tile_defs[t].name, g->remaining[t]);
	jo_raw(b, "}");
	jo_kopen(b, &f, "scores");
	put_scores(b, g, g->score);
	jo_kopen(b, &f, "legal");
	if (over)
		jo_raw(b, "null");
	else if (g->step == ST_STEP_TILE)
		put_tile_legal(b, g);
	else
		put_step_legal(b, g);
	jo_kopen(b, &f, "final");
	put_final(b, g);
	jo_raw(b, "}");
}

static void put_members(jo_buf *b, const carc_game *g, unsigned parts)
{
	int f = 1;
	if (parts & CARC_VIEW_BOARD) {
		jo_kopen(b, &f, "board");
		put_board(b, g);
	}
	if (parts & CARC_VIEW_FIGURES) {
		jo_kopen(b, &f, "figures");
		put_figures(b, g);
		if (pd_on(g))
			put_neutral(b, &f, g);
	}
	if (parts & CARC_VIEW_SUPPLY) {
		jo_kopen(b, &f, "supply");
		put_supply(b, g);
	}
	if (parts & CARC_VIEW_SCORES) {
		jo_kopen(b, &f, "scores");
		put_scores(b, g, g->score);
		jo_kopen(b, &f, "by_kind");
		put_by_kind(b, g);
		if (g->rules.expansions & CARC_EXP_TRADERS) {
			jo_kopen(b, &f, "goods");
			put_goods(b, g);
		}
	}
	if (parts & CARC_VIEW_TURN) {
		jo_kopen(b, &f, "next");
		put_turn(b, g);
	}
	if (parts & CARC_VIEW_FINAL) {
		jo_kopen(b, &f, "final");
		put_final(b, g);
	}
}

char *carc_view_members(const carc_game *g, unsigned parts)
{
	jo_buf b;
	jo_init(&b);
	put_members(&b, g, parts);
	return jo_take(&b);
}

char *carc_view_json(const carc_game *g, unsigned parts)
{
	jo_buf b;
	jo_init(&b);
	jo_raw(&b, "{");
	put_members(&b, g, parts);
	jo_raw(&b, "}");
	return jo_take(&b);
}

/* ---- a step made -------------------------------------------------------------------------- */

/* What the log tells of a scored feature besides its size: a city's
 * shields, an inn or a cathedral on it, the completed cities a farm
 * borders. Read from the game after the step (a feature only grows). */
static void event_facts(jo_buf *b, int *first, const carc_game *g, const carc_event *e)
{
	int id = carc_feature_id(g, e->tile, e->seg);
	carc_feature_info fi;
	if (id < 0 || carc_feature_get(g, id, 0, 0, &fi))
		return;
	if (e->kind == CARC_SCORE_CITY) {
		jo_kint(b, first, "shields", fi.shields);
		if (fi.flags & CARC_SEGF_CATHEDRAL)
			jo_kbool(b, first, "cathedral", 1);
	}
	if (e->kind == CARC_SCORE_ROAD && (fi.flags & CARC_SEGF_INN))
		jo_kbool(b, first, "inn", 1);
	if (e->kind == CARC_SCORE_FARM) {
		/* the first edition's farm scoring names the city, not the field */
		int done = 1;
		if (fi.kind == CARC_FEAT_FIELD) {
			uint16_t ids[ST_MAX_NODES / 2];
			int n = eng_field_cities(g, eng_find(g, id), 1, ids, ST_MAX_NODES / 2);
			done = n;
		}
		jo_kint(b, first, "cities", done);
	}
}

static void put_events(jo_buf *b, const carc_game *g, const carc_events *ev)
{
	int good = 0, any = 0; /* goods majorities come in order of the goods */
	jo_raw(b, "[");
	for (int i = 0; ev && i < ev->n; i++) {
		const carc_event *e = &ev->ev[i];
		int f = 1;
		jo_raw(b, any ? ",{" : "{");
		any = 1;
		if (e->type == CARC_EV_RETURNED) {
			jo_kstr(b, &f, "returned", carc_name(CARC_NAMES_FIGURE, e->kind));
			jo_kint(b, &f, "player", e->player);
			jo_kbool(b, &f, "final", e->final);
			if (e->tile < g->ntiles)
				put_where(b, &f, g, e->tile, e->seg);
			jo_raw(b, "}");
			continue;
		}
		int pts[CARC_MAX_PLAYERS];
		for (int p = 0; p < g->rules.players; p++)
			pts[p] = e->points[p];
		jo_kstr(b, &f, "kind", carc_name(CARC_NAMES_SCORE, e->kind));
		jo_kbool(b, &f, "final", e->final);
		jo_kint(b, &f, "tiles", e->tiles);
		jo_kopen(b, &f, "points");
		jo_ints(b, pts, g->rules.players);
		if (e->kind == CARC_SCORE_GOODS) {
			/* a goods majority is no place on the board: which good it was */
			for (good++; good < CARC_GOODS_COUNT; good++) {
				int most = 0;
				for (int p = 0; p < g->rules.players; p++)
					if (g->goods[p][good] > most)
						most = g->goods[p][good];
				if (most)
					break;
			}
			if (good < CARC_GOODS_COUNT)
				jo_kstr(b, &f, "good", carc_name(CARC_NAMES_GOODS, good));
		} else if (e->tile < g->ntiles) {
			put_where(b, &f, g, e->tile, e->seg);
			event_facts(b, &f, g, e);
		}
		jo_raw(b, "}");
	}
	jo_raw(b, "]");
}

/* The goods a step record says were taken, as {"wine": 1}; nothing when
 * none. */
static void put_goods_taken(jo_buf *b, int *first, unsigned packed)
{
	if (!packed)
		return;
	int f = 1;
	jo_kopen(b, first, "goods");
	jo_raw(b, "{");
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		unsigned n = (packed >> (4 * (k - 1))) & 15u;
		if (n)
			jo_kint(b, &f, carc_name(CARC_NAMES_GOODS, k), (long)n);
	}
	jo_raw(b, "}");
}

char *carc_view_step(const carc_game *g, const carc_events *ev)
{
	if (!g->nsteps)
		return NULL;
	int k = g->nsteps - 1, f = 1;
	const carc_step_rec *sr = &g->steps[k];
	jo_buf b;
	jo_init(&b);
	jo_raw(&b, "{");
	jo_kint(&b, &f, "turn", sr->turn);
	jo_kint(&b, &f, "step", k);
	jo_kint(&b, &f, "player", sr->player);
	const carc_turn_rec *tr = &g->turn[sr->turn];
	const int type = g->pile[sr->turn];
	jo_kstr(&b, &f, "tile", tile_defs[type].name);
	if (sr->kind == ST_STEP_TILE && (tr->info & ST_TURN_BONUS))
		jo_kbool(&b, &f, "bonus", 1);
	eng_move_write(&b, &f, g, sr->kind, type, sr->move);
	if (sr->kind == ST_STEP_TILE)
		put_goods_taken(&b, &f, tr->info & 0xFFFu);
	/* after its own scoring, before the final scoring */
	jo_kopen(&b, &f, "scores");
	put_scores(&b, g, g->over ? g->turn_score : g->score);
	jo_kopen(&b, &f, "events");
	put_events(&b, g, ev);
	/* the figures each player has after it (a replay shows them) */
	jo_kopen(&b, &f, "supply");
	put_supply(&b, g);
	jo_raw(&b, "}");
	return jo_take(&b);
}

/* ---- what a decision would do ---------------------------------------------------------------- */

int carc_feature_value(const carc_game *g, int id)
{
	if (id < 0 || id >= g->nnodes)
		return 0;
	int r = eng_find(g, id);
	const carc_node *n = &g->node[r];
	switch (n->kind) {
	case CARC_FEAT_ROAD:
	case CARC_FEAT_CITY: {
		int complete = n->open == 0;
		return eng_feature_points(g, r, eng_feature_tiles(g, r, NULL), complete);
	}
	case CARC_FEAT_CLOISTER:
	case CARC_FEAT_GARDEN:
		for (int c = 0; c < g->nclo; c++)
			if (g->tiles[g->clo[c].tile].node0 + g->clo[c].seg == r)
				return 1 + g->clo[c].neighbours;
		return 1;
	case CARC_FEAT_FIELD: {
		uint16_t ids[ST_MAX_NODES / 2];
		int cities = eng_field_cities(g, r, 1, ids, ST_MAX_NODES / 2);
		return cities * (g->rules.farm_scoring == CARC_FARM_FIRST_EDITION ? 4 : 3);
	}
	default:
		return 0;
	}
}

/* A feature's members in one object: kind, size, state, worth, holders. */
static void put_feature(jo_buf *b, const carc_game *g, int id, int parts)
{
	carc_feature_info fi;
	carc_feature_get(g, id, 1, 1, &fi);
	int f = 1;
	jo_raw(b, "{");
	jo_kstr(b, &f, "kind", carc_name(CARC_NAMES_FEATURE, fi.kind));
	jo_kint(b, &f, "tiles", fi.tiles);
	jo_kint(b, &f, "open", fi.open);
	jo_kint(b, &f, "shields", fi.shields);
	jo_kbool(b, &f, "done", fi.done);
	if (fi.flags & CARC_SEGF_INN)
		jo_kbool(b, &f, "inn", 1);
	if (fi.flags & CARC_SEGF_CATHEDRAL)
		jo_kbool(b, &f, "cathedral", 1);
	jo_kint(b, &f, "value", carc_feature_value(g, id));
	int w[CARC_MAX_PLAYERS];
	for (int p = 0; p < g->rules.players; p++)
		w[p] = fi.weight[p];
	jo_kopen(b, &f, "holders");
	jo_ints(b, w, g->rules.players);
	if (parts) {
		int r = eng_find(g, id), i = r, any = 0;
		jo_kopen(b, &f, "parts");
		jo_raw(b, "[");
		do {
			const carc_node *nd = &g->node[i];
			int pf = 1;
			jo_raw(b, any ? ",{" : "{");
			any = 1;
			put_where(b, &pf, g, nd->tile, nd->seg);
			jo_raw(b, "}");
			i = nd->next;
		} while (i != r);
		jo_raw(b, "]");
		any = 0;
		jo_kopen(b, &f, "figures");
		jo_raw(b, "[");
		for (int s = 0; s < g->nfig; s++) {
			const carc_figure_at *fa = &g->fig[s];
			if (fa->owner == ST_FIG_FREE || eng_find(g, fa->node) != r)
				continue;
			int ff = 1;
			jo_raw(b, any ? ",{" : "{");
			any = 1;
			jo_kint(b, &ff, "player", fa->owner);
			jo_kstr(b, &ff, "kind", carc_name(CARC_NAMES_FIGURE, fa->kind));
			put_where(b, &ff, g, g->node[fa->node].tile, g->node[fa->node].seg);
			jo_raw(b, "}");
		}
		jo_raw(b, "]");
	}
	jo_raw(b, "}");
}

char *carc_view_preview(const carc_game *g, carc_move m, char err[CARC_ERRMSG_SIZE])
{
	if (carc_check_move(g, m, err) != CARC_OK)
		return NULL;
	jo_buf b;
	jo_init(&b);
	int f = 1;
	jo_raw(&b, "{");
	if (g->step != ST_STEP_TILE || m == CARC_MOVE_DISCARD) {
		/* nothing to foresee beyond the decision itself, but what the
		 * dragon or the princess would send home */
		eng_move_write(&b, &f, g, g->step, g->pile[g->pos], m);
		if (g->step == ST_STEP_ACTION || g->step == ST_STEP_DRAGON) {
			uint8_t gone[ST_MAX_FIGURES];
			int any = 0;
			pd_would_eat(g, m, gone);
			jo_kopen(&b, &f, "eaten");
			jo_raw(&b, "[");
			for (int i = 0; i < g->nfig; i++) {
				if (!gone[i])
					continue;
				const carc_node *n = &g->node[g->fig[i].node];
				int ef = 1;
				jo_raw(&b, any++ ? ",{" : "{");
				jo_kint(&b, &ef, "player", g->fig[i].owner);
				jo_kstr(&b, &ef, "kind", carc_name(CARC_NAMES_FIGURE, g->fig[i].kind));
				put_where(&b, &ef, g, n->tile, n->seg);
				jo_raw(&b, "}");
			}
			jo_raw(&b, "]");
		}
		jo_raw(&b, "}");
		return jo_take(&b);
	}
	carc_move pl = carc_move_placement(m);
	carc_game *after = carc_game_clone(g);
	carc_events *ev = malloc(sizeof *ev);
	if (!after || !ev) {
		free(after);
		free(ev);
		eng_seterr(err, "out of memory");
		return NULL;
	}
	carc_apply_unchecked(after, pl, ev);
	int type = g->pile[g->pos], rot = carc_move_rot(pl), ti = g->ntiles;
	jo_kint(&b, &f, "x", carc_move_x(pl));
	jo_kint(&b, &f, "y", carc_move_y(pl));
	jo_kint(&b, &f, "rot", rot);
	/* what the tile alone completes and scores (figures there already) */
	jo_kopen(&b, &f, "scored");
	carc_events scored;
	scored.n = 0;
	for (int i = 0; i < ev->n; i++)
		if (ev->ev[i].type == CARC_EV_SCORED && !ev->ev[i].final)
			scored.ev[scored.n++] = ev->ev[i];
	put_events(&b, after, &scored);
	/* each figure option: the feature it joins, as it is with the tile */
	carc_move fo[CARC_MAX_SEGS * CARC_FIG_COUNT * 2];
	int nf = carc_figure_options(g, pl, fo, (int)(sizeof fo / sizeof fo[0])), any = 0;
	jo_kopen(&b, &f, "meeples");
	jo_raw(&b, "[");
	for (int k = 0; k < nf; k++) {
		if (carc_move_recall(fo[k]))
			continue;
		int seg = carc_move_seg(fo[k]), mf = 1;
		jo_raw(&b, any ? ",{" : "{");
		any = 1;
		jo_kstr(&b, &mf, "kind", carc_name(CARC_NAMES_FIGURE, carc_move_figure(fo[k])));
		jo_kstr(&b, &mf, "at", carc_port_name(TT_SEGPORT[type][rot][seg]));
		jo_kopen(&b, &mf, "feature");
		put_feature(&b, after, after->tiles[ti].node0 + seg, 0);
		jo_raw(&b, "}");
	}
	jo_raw(&b, "]}");
	free(ev);
	free(after);
	return jo_take(&b);
}

char *carc_view_feature(const carc_game *g, int x, int y, int port, char err[CARC_ERRMSG_SIZE])
{
	int ti = carc_tile_at(g, x, y);
	if (ti < 0) {
		eng_seterr(err, "no tile at (%d, %d)", x, y);
		return NULL;
	}
	const carc_placed *t = &g->tiles[ti];
	int seg = carc_tile_port_segment(t->type, t->rot, port);
	if (seg < 0) {
		eng_seterr(err, "the tile at (%d, %d) has nothing at %s", x, y, carc_port_name(port));
		return NULL;
	}
	jo_buf b;
	jo_init(&b);
	put_feature(&b, g, t->node0 + seg, 1);
	return jo_take(&b);
}

/* ---- the tiles ------------------------------------------------------------------------------ */

char *carc_tiles_json(void)
{
	jo_buf b;
	int f = 1;
	jo_init(&b);
	jo_raw(&b, "{");
	jo_kstr(&b, &f, "format", "carc-tiles-1");
	jo_kopen(&b, &f, "ports");
	jo_raw(&b, "[");
	for (int p = 0; p <= CARC_PORT_INNER; p++) {
		if (p)
			jo_raw(&b, ",");
		jo_str(&b, carc_port_name(p));
	}
	jo_raw(&b, "]");
	carc_rules r;
	carc_rules_default(&r);
	jo_kopen(&b, &f, "start");
	int sf = 1;
	jo_raw(&b, "{");
	jo_kstr(&b, &sf, "base", tile_defs[carc_rules_start_tile(&r)].name);
	r.expansions = CARC_EXP_RIVER;
	jo_kstr(&b, &sf, "river", tile_defs[carc_rules_start_tile(&r)].name);
	jo_raw(&b, "}");
	jo_kopen(&b, &f, "tiles");
	jo_raw(&b, "[");
	for (int t = 0; t < TILE_TYPES; t++) {
		const tile_def *d = &tile_defs[t];
		int tf = 1;
		char edges[5];
		carc_tile_edges(t, 0, edges);
		jo_raw(&b, t ? ",{" : "{");
		jo_kstr(&b, &tf, "name", d->name);
		jo_kstr(&b, &tf, "set", carc_name(CARC_NAMES_TILESET, d->set));
		jo_kint(&b, &tf, "count", d->count);
		jo_kstr(&b, &tf, "edges", edges);
		jo_kstr(&b, &tf, "note", d->note ? d->note : "");
		jo_kopen(&b, &tf, "segments");
		jo_raw(&b, "[");
		for (int s = 0; s < d->nseg; s++) {
			const tile_seg *sg = &d->seg[s];
			int gf = 1, any = 0;
			jo_raw(&b, s ? ",{" : "{");
			jo_kint(&b, &gf, "index", s);
			jo_kstr(&b, &gf, "kind", carc_name(CARC_NAMES_FEATURE, sg->kind));
			jo_kopen(&b, &gf, "ports");
			jo_raw(&b, "[");
			for (int p = 0; p < 12; p++)
				if (sg->ports & (1u << p)) {
					if (any++)
						jo_raw(&b, ",");
					jo_str(&b, carc_port_name(p));
				}
			if (sg->kind == CARC_FEAT_CLOISTER || sg->kind == CARC_FEAT_GARDEN)
				jo_str(&b, carc_port_name(CARC_PORT_CENTRE));
			else if (!sg->ports)
				jo_str(&b, carc_port_name(CARC_PORT_INNER));
			jo_raw(&b, "]");
			if (sg->flags & CARC_SEGF_SHIELD)
				jo_kbool(&b, &gf, "shield", 1);
			if (sg->flags & CARC_SEGF_INN)
				jo_kbool(&b, &gf, "inn", 1);
			if (sg->flags & CARC_SEGF_CATHEDRAL)
				jo_kbool(&b, &gf, "cathedral", 1);
			if (sg->flags & CARC_SEGF_PRINCESS)
				jo_kbool(&b, &gf, "princess", 1);
			if (sg->goods)
				jo_kstr(&b, &gf, "goods", carc_name(CARC_NAMES_GOODS, sg->goods));
			if (sg->kind == CARC_FEAT_FIELD) {
				int c[CARC_MAX_SEGS], nc = 0;
				for (int k = 0; k < CARC_MAX_SEGS; k++)
					if (sg->cities & (1u << k))
						c[nc++] = k;
				jo_kopen(&b, &gf, "cities");
				jo_ints(&b, c, nc);
			}
			jo_raw(&b, "}");
		}
		jo_raw(&b, "]");
		if (d->twin)
			jo_kstr(&b, &tf, "garden_of", d->twin);
		if (d->symbol)
			jo_kstr(&b, &tf, "symbol", carc_name(CARC_NAMES_SYMBOL, d->symbol));
		jo_raw(&b, "}");
	}
	jo_raw(&b, "]}");
	return jo_take(&b);
}
