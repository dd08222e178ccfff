/*
 * gamejson.c - JSON views of a game (see gamejson.h and docs/protocol.md).
 *
 * Places on a tile are named as in game records: a port ("N0".."W2", "C")
 * of the tile in board orientation, i.e. after rotation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gamejson.h"

static const char *const FIGURE_NAMES[CARC_FIG_COUNT] = {"follower", "big", "builder", "pig",
                                                         "abbot"};
static const char *const SCORE_KINDS[CARC_SCORE_KIND_COUNT] = {"road", "city", "cloister",
                                                               "farm", "garden", "goods"};
static const char *const SET_NAMES[CARC_SET_COUNT] = {"base", "river", "inns-cathedrals",
                                                      "traders-builders"};
static const char *const FEATURE_KINDS[CARC_FEAT_KIND_COUNT] = {"city", "road", "field",
                                                                "cloister", "garden", "river"};

const char *gj_figure_name(int fig)
{
	return fig >= 0 && fig < CARC_FIG_COUNT ? FIGURE_NAMES[fig] : "?";
}

const char *gj_score_kind_name(int kind)
{
	return kind >= 0 && kind < CARC_SCORE_KIND_COUNT ? SCORE_KINDS[kind] : "?";
}

static int figure_parse(const char *name)
{
	for (int i = 0; i < CARC_FIG_COUNT; i++)
		if (!strcmp(name, FIGURE_NAMES[i]))
			return i;
	return -1;
}

json_t *gj_rules(const carc_rules *r)
{
	return json_pack("{s:i, s:b, s:s, s:b}", "players", r->players, "farmers", r->farmers,
	                 "farm_scoring", carc_farm_scoring_name(r->farm_scoring), "small_city",
	                 r->small_city);
}

json_t *gj_board(const carc_game *g)
{
	json_t *a = json_array();
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *p = &g->tiles[i];
		json_t *t = json_pack("{s:i, s:i, s:s, s:i}", "x", p->x, "y", p->y, "tile",
		                      carc_tile_name(p->type), "rot", p->rot);
		json_object_set_new(t, "player", p->player == 255 ? json_null() : json_integer(p->player));
		json_array_append_new(a, t);
	}
	return a;
}

/* Where segment `seg` of board tile `tile` is, as x, y and a port name. */
static void place_of(const carc_game *g, int tile, int seg, int *x, int *y, const char **port)
{
	const carc_placed *p = &g->tiles[tile];
	*x = p->x;
	*y = p->y;
	int pt = carc_tile_segment_port(p->type, p->rot, seg);
	*port = pt >= 0 ? carc_port_name(pt) : "?";
}

json_t *gj_figures(const carc_game *g)
{
	json_t *a = json_array();
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		const carc_node *n = &g->node[f->node];
		int x, y;
		const char *port;
		place_of(g, n->tile, n->seg, &x, &y, &port);
		json_array_append_new(
		    a, json_pack("{s:i, s:s, s:i, s:i, s:s, s:s}", "player", f->owner, "kind",
		                 gj_figure_name(f->kind), "x", x, "y", y, "at", port, "feature",
		                 n->kind < CARC_FEAT_KIND_COUNT ? FEATURE_KINDS[n->kind] : "?"));
	}
	return a;
}

json_t *gj_supply(const carc_game *g)
{
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++) {
		json_t *o = json_object();
		for (int f = 0; f < CARC_FIG_COUNT; f++) {
			int n = carc_supply(g, p, f);
			if (n > 0 || f == CARC_FIG_FOLLOWER)
				json_object_set_new(o, FIGURE_NAMES[f], json_integer(n));
		}
		json_array_append_new(a, o);
	}
	return a;
}

json_t *gj_scores(const carc_game *g)
{
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++)
		json_array_append_new(a, json_integer(s[p]));
	return a;
}

json_t *gj_by_kind(const carc_game *g)
{
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++) {
		json_t *o = json_object();
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++) {
			int v = carc_score_by_kind(g, p, k);
			if (k <= CARC_SCORE_FARM || v)
				json_object_set_new(o, SCORE_KINDS[k], json_integer(v));
		}
		json_array_append_new(a, o);
	}
	return a;
}

json_t *gj_winners(const carc_game *g)
{
	int s[CARC_MAX_PLAYERS], best = -1;
	carc_game_scores(g, s);
	for (int p = 0; p < g->rules.players; p++)
		if (s[p] > best)
			best = s[p];
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++)
		if (s[p] == best)
			json_array_append_new(a, json_integer(p));
	return a;
}

json_t *gj_final(const carc_game *g)
{
	if (!carc_game_over(g))
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "scores", gj_scores(g), "by_kind", gj_by_kind(g),
	                 "winners", gj_winners(g));
}

static json_t *legal_json(const carc_game *g)
{
	static _Thread_local carc_move pl[CARC_MAX_PLACEMENTS];
	carc_move fo[CARC_MAX_SEGS * CARC_FIG_COUNT * 2];
	json_t *o = json_object();
	int n = carc_placements(g, pl, CARC_MAX_PLACEMENTS);
	json_t *a = json_array();
	int discard = n == 1 && carc_move_is_discard(pl[0]);
	json_object_set_new(o, "discard", json_boolean(discard));
	int type = carc_current_tile(g);
	for (int i = 0; i < n && !discard; i++) {
		carc_move m = pl[i];
		int rot = carc_move_rot(m);
		json_t *mp = json_array();
		int recall = 0;
		int nf = carc_figure_options(g, m, fo, (int)(sizeof fo / sizeof fo[0]));
		for (int k = 0; k < nf; k++) {
			if (carc_move_recall(fo[k])) {
				recall = 1;
				continue;
			}
			int port = carc_tile_segment_port(type, rot, carc_move_seg(fo[k]));
			json_array_append_new(mp, json_pack("{s:s, s:s}", "kind",
			                                    gj_figure_name(carc_move_figure(fo[k])), "at",
			                                    port >= 0 ? carc_port_name(port) : "?"));
		}
		json_t *po = json_pack("{s:i, s:i, s:i, s:o}", "x", carc_move_x(m), "y", carc_move_y(m),
		                       "rot", rot, "meeples", mp);
		if (recall)
			json_object_set_new(po, "abbot_recall", json_true());
		json_array_append_new(a, po);
	}
	json_object_set_new(o, "placements", a);
	return o;
}

json_t *gj_turn(const carc_game *g)
{
	int over = carc_game_over(g);
	int tile = carc_current_tile(g);
	json_t *o = json_object();
	json_object_set_new(o, "turn", json_integer(g->nturns));
	json_object_set_new(o, "over", json_boolean(over));
	json_object_set_new(o, "to_move", over ? json_null() : json_integer(carc_to_move(g)));
	json_object_set_new(o, "bonus", json_boolean(!over && carc_bonus_turn(g)));
	json_object_set_new(o, "tile", tile >= 0 && !over ? json_string(carc_tile_name(tile)) : json_null());
	json_object_set_new(o, "tiles_left", json_integer(over ? 0 : carc_tiles_left(g)));
	json_t *by = json_object();
	for (int t = 0; t < CARC_TILE_TYPES; t++) {
		int n = over ? 0 : carc_tiles_left_of(g, t);
		if (n > 0)
			json_object_set_new(by, carc_tile_name(t), json_integer(n));
	}
	json_object_set_new(o, "tiles_left_by_kind", by);
	json_object_set_new(o, "scores", gj_scores(g));
	json_object_set_new(o, "legal", over ? json_null() : legal_json(g));
	json_object_set_new(o, "final", gj_final(g));
	return o;
}

static json_t *turn_scores(const carc_game *g)
{
	int s[CARC_MAX_PLAYERS];
	carc_game_turn_scores(g, s);
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++)
		json_array_append_new(a, json_integer(s[p]));
	return a;
}

static const char *const GOODS_NAMES[CARC_GOODS_COUNT] = {"none", "wine", "grain", "cloth"};

json_t *gj_goods(const carc_game *g)
{
	json_t *a = json_array();
	for (int p = 0; p < g->rules.players; p++) {
		json_t *o = json_object();
		for (int k = 1; k < CARC_GOODS_COUNT; k++)
			json_object_set_new(o, GOODS_NAMES[k], json_integer(carc_goods_held(g, p, k)));
		json_array_append_new(a, o);
	}
	return a;
}

char *gj_log_entry(const carc_game *before, const carc_game *g, int turn, const carc_events *ev)
{
	const carc_turn *t = &g->turns[turn];
	json_t *o = json_object();
	json_object_set_new(o, "turn", json_integer(turn));
	json_object_set_new(o, "player", json_integer(t->player));
	json_object_set_new(o, "tile", json_string(carc_tile_name(t->type)));
	if (carc_bonus_turn(before))
		json_object_set_new(o, "bonus", json_true());
	if (carc_move_is_discard(t->move)) {
		json_object_set_new(o, "discarded", json_true());
	} else {
		int rot = carc_move_rot(t->move), seg = carc_move_seg(t->move);
		json_object_set_new(o, "x", json_integer(carc_move_x(t->move)));
		json_object_set_new(o, "y", json_integer(carc_move_y(t->move)));
		json_object_set_new(o, "rot", json_integer(rot));
		if (seg != CARC_SEG_NONE) {
			int port = carc_tile_segment_port(t->type, rot, seg);
			json_object_set_new(o, "meeple",
			                    json_pack("{s:s, s:s}", "kind",
			                              gj_figure_name(carc_move_figure(t->move)), "at",
			                              port >= 0 ? carc_port_name(port) : "?"));
		} else {
			json_object_set_new(o, "meeple", json_null());
		}
		if (carc_move_recall(t->move))
			json_object_set_new(o, "abbot_recalled", json_true());
	}
	json_t *goods = json_object();
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		int d = carc_goods_held(g, t->player, k) - carc_goods_held(before, t->player, k);
		if (d)
			json_object_set_new(goods, GOODS_NAMES[k], json_integer(d));
	}
	if (json_object_size(goods))
		json_object_set_new(o, "goods", goods);
	else
		json_decref(goods);
	json_object_set_new(o, "scores", turn_scores(g));
	json_t *evs = json_array();
	for (int i = 0; ev && i < ev->n; i++) {
		const carc_event *e = &ev->ev[i];
		json_t *pts = json_array();
		for (int p = 0; p < g->rules.players; p++)
			json_array_append_new(pts, json_integer(e->points[p]));
		json_t *je = json_pack("{s:s, s:b, s:i, s:o}", "kind", gj_score_kind_name(e->kind),
		                       "final", e->final, "tiles", e->tiles, "points", pts);
		if (e->tile < g->ntiles) {
			int x, y;
			const char *port;
			place_of(g, e->tile, e->seg, &x, &y, &port);
			json_object_set_new(je, "x", json_integer(x));
			json_object_set_new(je, "y", json_integer(y));
			json_object_set_new(je, "at", json_string(port));
		}
		json_array_append_new(evs, je);
	}
	json_object_set_new(o, "events", evs);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

json_t *gj_tiles(void)
{
	json_t *ports = json_array();
	for (int p = 0; p <= CARC_PORT_INNER; p++)
		json_array_append_new(ports, json_string(carc_port_name(p)));
	json_t *tiles = json_array();
	for (int t = 0; t < CARC_TILE_TYPES; t++) {
		json_t *segs = json_array();
		int ns = carc_tile_segments(t);
		for (int s = 0; s < ns; s++) {
			int kind;
			unsigned pm, flags, cities;
			if (carc_tile_segment(t, s, &kind, &pm, &flags, &cities))
				continue;
			json_t *pa = json_array();
			for (int p = 0; p < 12; p++)
				if (pm & (1u << p))
					json_array_append_new(pa, json_string(carc_port_name(p)));
			if (kind == CARC_FEAT_CLOISTER || kind == CARC_FEAT_GARDEN)
				json_array_append_new(pa, json_string(carc_port_name(CARC_PORT_CENTRE)));
			else if (!pm)
				json_array_append_new(pa, json_string(carc_port_name(CARC_PORT_INNER)));
			json_t *ca = json_array();
			for (int c = 0; c < CARC_MAX_SEGS; c++)
				if (cities & (1u << c))
					json_array_append_new(ca, json_integer(c));
			json_t *so = json_pack("{s:i, s:s, s:o}", "index", s, "kind",
			                       kind >= 0 && kind < CARC_FEAT_KIND_COUNT ? FEATURE_KINDS[kind] : "?",
			                       "ports", pa);
			if (flags & CARC_SEGF_SHIELD)
				json_object_set_new(so, "shield", json_true());
			if (flags & CARC_SEGF_INN)
				json_object_set_new(so, "inn", json_true());
			if (flags & CARC_SEGF_CATHEDRAL)
				json_object_set_new(so, "cathedral", json_true());
			if (kind == CARC_FEAT_FIELD)
				json_object_set_new(so, "cities", ca);
			else
				json_decref(ca);
			json_array_append_new(segs, so);
		}
		int set = carc_tile_set(t), twin = -1;
		char edges[5];
		carc_tile_edges(t, 0, edges);
		json_t *to = json_pack("{s:s, s:s, s:i, s:s, s:s, s:o}", "name", carc_tile_name(t), "set",
		                       set >= 0 && set < CARC_SET_COUNT ? SET_NAMES[set] : "?", "count",
		                       carc_tile_box_count(t), "edges", edges, "note",
		                       carc_tile_note(t) ? carc_tile_note(t) : "", "segments", segs);
		if (carc_tile_is_garden_copy(t, &twin) && twin >= 0)
			json_object_set_new(to, "garden_of", json_string(carc_tile_name(twin)));
		json_array_append_new(tiles, to);
	}
	carc_rules r;
	carc_rules_default(&r);
	json_t *start = json_object();
	json_object_set_new(start, "base", json_string(carc_tile_name(carc_rules_start_tile(&r))));
	r.expansions = CARC_EXP_RIVER;
	json_object_set_new(start, "river", json_string(carc_tile_name(carc_rules_start_tile(&r))));
	return json_pack("{s:s, s:o, s:o, s:o}", "format", "carc-tiles-1", "ports", ports, "start",
	                 start, "tiles", tiles);
}

int gj_parse_move(const carc_game *g, const json_t *msg, carc_move *out, char *err,
                  size_t errsize)
{
	json_t *d = json_object_get(msg, "discard");
	if (d && json_is_true(d)) {
		*out = CARC_MOVE_DISCARD;
		return 0;
	}
	json_t *jx = json_object_get(msg, "x"), *jy = json_object_get(msg, "y"),
	       *jr = json_object_get(msg, "rot");
	if (!json_is_integer(jx) || !json_is_integer(jy) || !json_is_integer(jr)) {
		snprintf(err, errsize, "a move needs integers x, y and rot (or \"discard\": true)");
		return -1;
	}
	json_int_t x = json_integer_value(jx), y = json_integer_value(jy), rot = json_integer_value(jr);
	if (x < -256 || x > 255 || y < -256 || y > 255) {
		snprintf(err, errsize, "x and y must be within -256..255");
		return -1;
	}
	if (rot < 0 || rot > 3) {
		snprintf(err, errsize, "rot must be 0..3 (clockwise quarter turns)");
		return -1;
	}
	json_t *mp = json_object_get(msg, "meeple"), *rc = json_object_get(msg, "abbot_recalled");
	if (rc && !json_is_boolean(rc)) {
		snprintf(err, errsize, "abbot_recalled must be true or false");
		return -1;
	}
	if (!mp || json_is_null(mp)) {
		*out = carc_move_make((int)x, (int)y, (int)rot, CARC_SEG_NONE, 0);
		if (json_is_true(rc))
			*out |= CARC_MOVE_RECALL;
		return 0;
	}
	if (json_is_true(rc)) {
		snprintf(err, errsize, "a player who recalls the abbot places no figure");
		return -1;
	}
	if (!json_is_object(mp)) {
		snprintf(err, errsize, "meeple must be null or {\"kind\": \"follower\", \"at\": \"E1\"}");
		return -1;
	}
	json_t *jk = json_object_get(mp, "kind"), *ja = json_object_get(mp, "at");
	int fig = CARC_FIG_FOLLOWER;
	if (jk) {
		fig = json_is_string(jk) ? figure_parse(json_string_value(jk)) : -1;
		if (fig < 0) {
			snprintf(err, errsize, "meeple.kind must be one of follower, big, builder, pig, abbot");
			return -1;
		}
	}
	int port = json_is_string(ja) ? carc_port_parse(json_string_value(ja)) : -1;
	if (port < 0) {
		snprintf(err, errsize, "meeple.at must be a port N0..W2, C or I");
		return -1;
	}
	int type = carc_current_tile(g);
	if (type < 0) {
		snprintf(err, errsize, "the game is over");
		return -1;
	}
	int seg = carc_tile_port_segment(type, (int)rot, port);
	if (seg < 0) {
		snprintf(err, errsize, "tile %s at rot %d has nothing at %s", carc_tile_name(type),
		         (int)rot, carc_port_name(port));
		return -1;
	}
	*out = carc_move_make((int)x, (int)y, (int)rot, seg, fig);
	return 0;
}
