/*
 * gamejson.c - JSON views of a game (see gamejson.h and docs/protocol.md).
 *
 * Places on a tile are named as in game records: a port ("N0".."W2", "C",
 * "I") of the tile in board orientation, i.e. after rotation.
 *
 * The views sent with every move (the turn with its legal moves, figures,
 * supply, scores, the log entry) are written straight into a string: they
 * are the server's hot path, and building them as jansson trees cost more
 * in malloc than everything else a move does. Every string written this
 * way is an engine constant (tile, port, kind names: letters and digits),
 * so nothing needs escaping.
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
static const char *const GOODS_NAMES[CARC_GOODS_COUNT] = {"none", "wine", "grain", "cloth"};

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

/* ---- writing ------------------------------------------------------------------ */

static void put_int(srv_sb *b, long v)
{
	char buf[24], *p = buf + sizeof buf;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	sb_add(b, p, (size_t)(buf + sizeof buf - p));
}

/* "key": */
static void put_key(srv_sb *b, const char *key)
{
	sb_add(b, "\"", 1);
	sb_adds(b, key);
	sb_add(b, "\":", 2);
}

static void put_str(srv_sb *b, const char *s)
{
	sb_add(b, "\"", 1);
	sb_adds(b, s);
	sb_add(b, "\"", 1);
}

static void put_kint(srv_sb *b, const char *key, long v)
{
	put_key(b, key);
	put_int(b, v);
}

static void put_kstr(srv_sb *b, const char *key, const char *s)
{
	put_key(b, key);
	put_str(b, s);
}

static void put_kbool(srv_sb *b, const char *key, int v)
{
	put_key(b, key);
	sb_adds(b, v ? "true" : "false");
}

static void put_ints(srv_sb *b, const int *v, int n)
{
	sb_add(b, "[", 1);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_add(b, ",", 1);
		put_int(b, v[i]);
	}
	sb_add(b, "]", 1);
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

void gj_rules(srv_sb *b, const carc_rules *r, const char *expansions_json)
{
	sb_add(b, "{", 1);
	put_kint(b, "players", r->players);
	sb_add(b, ",", 1);
	put_kbool(b, "farmers", r->farmers);
	sb_add(b, ",", 1);
	put_kstr(b, "farm_scoring", carc_farm_scoring_name(r->farm_scoring));
	sb_add(b, ",", 1);
	put_kbool(b, "small_city", r->small_city);
	sb_add(b, ",", 1);
	put_key(b, "expansions");
	sb_adds(b, expansions_json);
	sb_add(b, "}", 1);
}

void gj_board(srv_sb *b, const carc_game *g)
{
	sb_add(b, "[", 1);
	for (int i = 0; i < g->ntiles; i++) {
		const carc_placed *p = &g->tiles[i];
		sb_adds(b, i ? ",{" : "{");
		put_kint(b, "x", p->x);
		sb_add(b, ",", 1);
		put_kint(b, "y", p->y);
		sb_add(b, ",", 1);
		put_kstr(b, "tile", carc_tile_name(p->type));
		sb_add(b, ",", 1);
		put_kint(b, "rot", p->rot);
		sb_add(b, ",", 1);
		put_key(b, "player");
		if (p->player == 255)
			sb_adds(b, "null");
		else
			put_int(b, p->player);
		sb_add(b, "}", 1);
	}
	sb_add(b, "]", 1);
}

void gj_figures(srv_sb *b, const carc_game *g)
{
	int first = 1;
	sb_add(b, "[", 1);
	for (int i = 0; i < CARC_MAX_FIGURES; i++) {
		const carc_figure_at *f = &g->fig[i];
		if (f->owner == 255)
			continue;
		const carc_node *n = &g->node[f->node];
		int x, y;
		const char *port;
		place_of(g, n->tile, n->seg, &x, &y, &port);
		sb_adds(b, first ? "{" : ",{");
		first = 0;
		put_kint(b, "player", f->owner);
		sb_add(b, ",", 1);
		put_kstr(b, "kind", gj_figure_name(f->kind));
		sb_add(b, ",", 1);
		put_kint(b, "x", x);
		sb_add(b, ",", 1);
		put_kint(b, "y", y);
		sb_add(b, ",", 1);
		put_kstr(b, "at", port);
		sb_add(b, ",", 1);
		put_kstr(b, "feature", n->kind < CARC_FEAT_KIND_COUNT ? FEATURE_KINDS[n->kind] : "?");
		sb_add(b, "}", 1);
	}
	sb_add(b, "]", 1);
}

void gj_supply(srv_sb *b, const carc_game *g)
{
	sb_add(b, "[", 1);
	for (int p = 0; p < g->rules.players; p++) {
		sb_adds(b, p ? ",{" : "{");
		int first = 1;
		for (int f = 0; f < CARC_FIG_COUNT; f++) {
			int n = carc_supply(g, p, f);
			if (n <= 0 && f != CARC_FIG_FOLLOWER)
				continue;
			if (!first)
				sb_add(b, ",", 1);
			first = 0;
			put_kint(b, FIGURE_NAMES[f], n);
		}
		sb_add(b, "}", 1);
	}
	sb_add(b, "]", 1);
}

void gj_scores(srv_sb *b, const carc_game *g)
{
	int s[CARC_MAX_PLAYERS];
	carc_game_scores(g, s);
	put_ints(b, s, g->rules.players);
}

void gj_by_kind(srv_sb *b, const carc_game *g)
{
	sb_add(b, "[", 1);
	for (int p = 0; p < g->rules.players; p++) {
		sb_adds(b, p ? ",{" : "{");
		int first = 1;
		for (int k = 0; k < CARC_SCORE_KIND_COUNT; k++) {
			int v = carc_score_by_kind(g, p, k);
			if (k > CARC_SCORE_FARM && !v)
				continue;
			if (!first)
				sb_add(b, ",", 1);
			first = 0;
			put_kint(b, SCORE_KINDS[k], v);
		}
		sb_add(b, "}", 1);
	}
	sb_add(b, "]", 1);
}

void gj_goods(srv_sb *b, const carc_game *g)
{
	sb_add(b, "[", 1);
	for (int p = 0; p < g->rules.players; p++) {
		sb_adds(b, p ? ",{" : "{");
		for (int k = 1; k < CARC_GOODS_COUNT; k++) {
			if (k > 1)
				sb_add(b, ",", 1);
			put_kint(b, GOODS_NAMES[k], carc_goods_held(g, p, k));
		}
		sb_add(b, "}", 1);
	}
	sb_add(b, "]", 1);
}

void gj_winners(srv_sb *b, const carc_game *g)
{
	int s[CARC_MAX_PLAYERS], w[CARC_MAX_PLAYERS], n = 0, best = -1;
	carc_game_scores(g, s);
	for (int p = 0; p < g->rules.players; p++)
		if (s[p] > best)
			best = s[p];
	for (int p = 0; p < g->rules.players; p++)
		if (s[p] == best)
			w[n++] = p;
	put_ints(b, w, n);
}

void gj_final(srv_sb *b, const carc_game *g)
{
	if (!carc_game_over(g)) {
		sb_adds(b, "null");
		return;
	}
	sb_add(b, "{", 1);
	put_key(b, "scores");
	gj_scores(b, g);
	sb_add(b, ",", 1);
	put_key(b, "by_kind");
	gj_by_kind(b, g);
	sb_add(b, ",", 1);
	put_key(b, "winners");
	gj_winners(b, g);
	sb_add(b, "}", 1);
}

static void legal(srv_sb *b, const carc_game *g)
{
	static _Thread_local carc_move pl[CARC_MAX_PLACEMENTS];
	carc_move fo[CARC_MAX_SEGS * CARC_FIG_COUNT * 2];
	int n = carc_placements(g, pl, CARC_MAX_PLACEMENTS);
	int discard = n == 1 && carc_move_is_discard(pl[0]);
	int type = carc_current_tile(g);
	sb_add(b, "{", 1);
	put_kbool(b, "discard", discard);
	sb_add(b, ",", 1);
	put_key(b, "placements");
	sb_add(b, "[", 1);
	for (int i = 0; i < n && !discard; i++) {
		carc_move m = pl[i];
		int rot = carc_move_rot(m), recall = 0, first = 1;
		sb_adds(b, i ? ",{" : "{");
		put_kint(b, "x", carc_move_x(m));
		sb_add(b, ",", 1);
		put_kint(b, "y", carc_move_y(m));
		sb_add(b, ",", 1);
		put_kint(b, "rot", rot);
		sb_add(b, ",", 1);
		put_key(b, "meeples");
		sb_add(b, "[", 1);
		int nf = carc_figure_options(g, m, fo, (int)(sizeof fo / sizeof fo[0]));
		for (int k = 0; k < nf; k++) {
			if (carc_move_recall(fo[k])) {
				recall = 1;
				continue;
			}
			int port = carc_tile_segment_port(type, rot, carc_move_seg(fo[k]));
			sb_adds(b, first ? "{" : ",{");
			first = 0;
			put_kstr(b, "kind", gj_figure_name(carc_move_figure(fo[k])));
			sb_add(b, ",", 1);
			put_kstr(b, "at", port >= 0 ? carc_port_name(port) : "?");
			sb_add(b, "}", 1);
		}
		sb_add(b, "]", 1);
		if (recall) {
			sb_add(b, ",", 1);
			put_kbool(b, "abbot_recall", 1);
		}
		sb_add(b, "}", 1);
	}
	sb_add(b, "]}", 2);
}

void gj_turn(srv_sb *b, const carc_game *g)
{
	int over = carc_game_over(g);
	int tile = carc_current_tile(g);
	sb_add(b, "{", 1);
	put_kint(b, "turn", g->nturns);
	sb_add(b, ",", 1);
	put_kbool(b, "over", over);
	sb_add(b, ",", 1);
	put_key(b, "to_move");
	if (over)
		sb_adds(b, "null");
	else
		put_int(b, carc_to_move(g));
	sb_add(b, ",", 1);
	put_kbool(b, "bonus", !over && carc_bonus_turn(g));
	sb_add(b, ",", 1);
	put_key(b, "tile");
	if (tile >= 0 && !over)
		put_str(b, carc_tile_name(tile));
	else
		sb_adds(b, "null");
	sb_add(b, ",", 1);
	put_kint(b, "tiles_left", over ? 0 : carc_tiles_left(g));
	sb_add(b, ",", 1);
	put_key(b, "tiles_left_by_kind");
	sb_add(b, "{", 1);
	int first = 1;
	for (int t = 0; t < CARC_TILE_TYPES && !over; t++) {
		int n = carc_tiles_left_of(g, t);
		if (n <= 0)
			continue;
		if (!first)
			sb_add(b, ",", 1);
		first = 0;
		put_kint(b, carc_tile_name(t), n);
	}
	sb_add(b, "},", 2);
	put_key(b, "scores");
	gj_scores(b, g);
	sb_add(b, ",", 1);
	put_key(b, "legal");
	if (over)
		sb_adds(b, "null");
	else
		legal(b, g);
	sb_add(b, ",", 1);
	put_key(b, "final");
	gj_final(b, g);
	sb_add(b, "}", 1);
}

/* What the log tells of a scored feature besides its size: a city's
 * shields, an inn or a cathedral on it, the completed cities a farm
 * borders. Read from the game after the move (a feature only grows). */
static void event_facts(srv_sb *b, const carc_game *g, const carc_event *e)
{
	int id = carc_feature_id(g, e->tile, e->seg);
	carc_feature_info fi;
	if (id < 0 || carc_feature_get(g, id, 0, 0, &fi))
		return;
	if (e->kind == CARC_SCORE_CITY) {
		sb_add(b, ",", 1);
		put_kint(b, "shields", fi.shields);
		if (fi.flags & CARC_SEGF_CATHEDRAL) {
			sb_add(b, ",", 1);
			put_kbool(b, "cathedral", 1);
		}
	}
	if (e->kind == CARC_SCORE_ROAD && (fi.flags & CARC_SEGF_INN)) {
		sb_add(b, ",", 1);
		put_kbool(b, "inn", 1);
	}
	if (e->kind == CARC_SCORE_FARM) {
		/* the first edition's farm scoring names the city, not the field */
		int done = 1;
		if (carc_feature_kind_of(g, id) == CARC_FEAT_FIELD) {
			uint16_t ids[CARC_MAX_NODES];
			int n = carc_field_cities(g, id, ids, CARC_MAX_NODES);
			done = 0;
			for (int i = 0; i < n; i++)
				done += carc_feature_done(g, ids[i]) > 0;
		}
		sb_add(b, ",", 1);
		put_kint(b, "cities", done);
	}
}

char *gj_log_entry(const carc_game *before, const carc_game *g, int turn, const carc_events *ev)
{
	const carc_turn *t = &g->turns[turn];
	srv_sb sb, *b = &sb;
	sb_init(b);
	sb_add(b, "{", 1);
	put_kint(b, "turn", turn);
	sb_add(b, ",", 1);
	put_kint(b, "player", t->player);
	sb_add(b, ",", 1);
	put_kstr(b, "tile", carc_tile_name(t->type));
	if (carc_bonus_turn(before)) {
		sb_add(b, ",", 1);
		put_kbool(b, "bonus", 1);
	}
	if (carc_move_is_discard(t->move)) {
		sb_add(b, ",", 1);
		put_kbool(b, "discarded", 1);
	} else {
		int rot = carc_move_rot(t->move), seg = carc_move_seg(t->move);
		sb_add(b, ",", 1);
		put_kint(b, "x", carc_move_x(t->move));
		sb_add(b, ",", 1);
		put_kint(b, "y", carc_move_y(t->move));
		sb_add(b, ",", 1);
		put_kint(b, "rot", rot);
		sb_add(b, ",", 1);
		put_key(b, "meeple");
		if (seg != CARC_SEG_NONE) {
			int port = carc_tile_segment_port(t->type, rot, seg);
			sb_add(b, "{", 1);
			put_kstr(b, "kind", gj_figure_name(carc_move_figure(t->move)));
			sb_add(b, ",", 1);
			put_kstr(b, "at", port >= 0 ? carc_port_name(port) : "?");
			sb_add(b, "}", 1);
		} else {
			sb_adds(b, "null");
		}
		if (carc_move_recall(t->move)) {
			sb_add(b, ",", 1);
			put_kbool(b, "abbot_recalled", 1);
		}
	}
	int first = 1;
	for (int k = 1; k < CARC_GOODS_COUNT; k++) {
		int d = carc_goods_held(g, t->player, k) - carc_goods_held(before, t->player, k);
		if (!d)
			continue;
		sb_adds(b, first ? ",\"goods\":{" : ",");
		first = 0;
		put_kint(b, GOODS_NAMES[k], d);
	}
	if (!first)
		sb_add(b, "}", 1);
	int ts[CARC_MAX_PLAYERS];
	carc_game_turn_scores(g, ts);
	sb_add(b, ",", 1);
	put_key(b, "scores");
	put_ints(b, ts, g->rules.players);
	sb_add(b, ",", 1);
	put_key(b, "events");
	sb_add(b, "[", 1);
	int good = 0; /* the goods scored so far: the engine scores them in order, each with a majority */
	for (int i = 0; ev && i < ev->n; i++) {
		const carc_event *e = &ev->ev[i];
		int pts[CARC_MAX_PLAYERS];
		for (int p = 0; p < g->rules.players; p++)
			pts[p] = e->points[p];
		sb_adds(b, i ? ",{" : "{");
		put_kstr(b, "kind", gj_score_kind_name(e->kind));
		sb_add(b, ",", 1);
		put_kbool(b, "final", e->final);
		sb_add(b, ",", 1);
		put_kint(b, "tiles", e->tiles);
		sb_add(b, ",", 1);
		put_key(b, "points");
		put_ints(b, pts, g->rules.players);
		if (e->kind == CARC_SCORE_GOODS) {
			/* a goods majority is no place on the board: which good it was */
			for (good++; good < CARC_GOODS_COUNT; good++) {
				int most = 0;
				for (int p = 0; p < g->rules.players; p++)
					if (carc_goods_held(g, p, good) > most)
						most = carc_goods_held(g, p, good);
				if (most)
					break;
			}
			if (good < CARC_GOODS_COUNT) {
				sb_add(b, ",", 1);
				put_kstr(b, "good", GOODS_NAMES[good]);
			}
		} else if (e->tile < g->ntiles) {
			int x, y;
			const char *port;
			place_of(g, e->tile, e->seg, &x, &y, &port);
			sb_add(b, ",", 1);
			put_kint(b, "x", x);
			sb_add(b, ",", 1);
			put_kint(b, "y", y);
			sb_add(b, ",", 1);
			put_kstr(b, "at", port);
			event_facts(b, g, e);
		}
		sb_add(b, "}", 1);
	}
	sb_add(b, "]}", 2);
	return sb_take(b);
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
			/* goods symbol (Traders & Builders): bits 8..9 of the flags */
			unsigned goods = (flags >> 8) & 3u;
			if (goods)
				json_object_set_new(so, "goods", json_string(GOODS_NAMES[goods]));
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
