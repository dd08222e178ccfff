/*
 * move_json.c - moves as JSON and text (see move_json.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "move_json.h"

static const char *const FIG_NAMES[CARC_FIG_COUNT] = {"follower", "big", "builder", "pig",
                                                      "abbot"};

/* The port of the figure of m (a move with a figure) on the current tile. */
static const char *fig_port(const carc_game *g, carc_move m)
{
	int type = carc_current_tile(g);
	return carc_port_name(carc_tile_segment_port(type, carc_move_rot(m), carc_move_seg(m)));
}

json_t *mj_move(const carc_game *g, carc_move m)
{
	json_t *o = json_object();
	if (m == CARC_MOVE_DISCARD) {
		json_object_set_new(o, "discarded", json_true());
		return o;
	}
	json_object_set_new(o, "x", json_integer(carc_move_x(m)));
	json_object_set_new(o, "y", json_integer(carc_move_y(m)));
	json_object_set_new(o, "rot", json_integer(carc_move_rot(m)));
	if (carc_move_seg(m) == CARC_SEG_NONE) {
		json_object_set_new(o, "meeple", json_null());
	} else {
		json_t *f = json_object();
		int fig = carc_move_figure(m);
		json_object_set_new(f, "kind", json_string(fig < CARC_FIG_COUNT ? FIG_NAMES[fig] : "?"));
		json_object_set_new(f, "at", json_string(fig_port(g, m)));
		json_object_set_new(o, "meeple", f);
	}
	if (carc_move_recall(m))
		json_object_set_new(o, "abbot_recalled", json_true());
	return o;
}

void mj_text(const carc_game *g, carc_move m, char *buf, size_t size)
{
	if (m == CARC_MOVE_DISCARD) {
		snprintf(buf, size, "set aside");
		return;
	}
	size_t o = (size_t)snprintf(buf, size, "(%d,%d) rot %d", carc_move_x(m), carc_move_y(m),
	                            carc_move_rot(m));
	if (o < size && carc_move_seg(m) != CARC_SEG_NONE) {
		int fig = carc_move_figure(m);
		o += (size_t)snprintf(buf + o, size - o, " %s %s",
		                      fig < CARC_FIG_COUNT ? FIG_NAMES[fig] : "?", fig_port(g, m));
	}
	if (o < size && carc_move_recall(m))
		snprintf(buf + o, size - o, " abbot back");
}

/* An integer key of o into *v; -1 with a message if missing or not one. */
static int get_int(const json_t *o, const char *key, int *v, char *err, size_t errsize)
{
	json_t *j = json_object_get(o, key);
	if (!json_is_integer(j) || json_integer_value(j) < -256 || json_integer_value(j) > 255) {
		snprintf(err, errsize, "move: key %s: expected an integer", key);
		return -1;
	}
	*v = (int)json_integer_value(j);
	return 0;
}

int mj_parse(const carc_game *g, const json_t *o, carc_move *m, char *err, size_t errsize)
{
	if (!json_is_object(o)) {
		snprintf(err, errsize, "move: expected an object like {\"x\":1,\"y\":0,\"rot\":0,"
		                       "\"meeple\":null} or {\"discarded\":true}");
		return -1;
	}
	if (carc_game_over(g)) {
		snprintf(err, errsize, "move: the game is over");
		return -1;
	}
	carc_move *legal = malloc(sizeof *legal * CARC_MAX_MOVES);
	if (!legal) {
		snprintf(err, errsize, "out of memory");
		return -1;
	}
	int n = carc_legal_moves(g, legal, CARC_MAX_MOVES), rc = -1;
	if (json_is_true(json_object_get(o, "discarded"))) {
		for (int i = 0; i < n; i++)
			if (legal[i] == CARC_MOVE_DISCARD) {
				*m = legal[i];
				rc = 0;
			}
		if (rc)
			snprintf(err, errsize, "move: the tile fits on the board: it cannot be set aside");
		free(legal);
		return rc;
	}
	int x, y, rot;
	if (get_int(o, "x", &x, err, errsize) || get_int(o, "y", &y, err, errsize) ||
	    get_int(o, "rot", &rot, err, errsize)) {
		free(legal);
		return -1;
	}
	const json_t *mp = json_object_get(o, "meeple");
	const char *kind = NULL, *at = NULL;
	if (mp && !json_is_null(mp)) {
		kind = json_string_value(json_object_get(mp, "kind"));
		at = json_string_value(json_object_get(mp, "at"));
		if (!json_is_object(mp) || !kind || !at) {
			snprintf(err, errsize, "move: key meeple: expected null or {\"kind\": \"follower\", "
			                       "\"at\": PORT}");
			free(legal);
			return -1;
		}
	}
	int recall = json_is_true(json_object_get(o, "abbot_recalled"));
	int placed = 0;
	for (int i = 0; i < n && rc; i++) {
		carc_move c = legal[i];
		if (c == CARC_MOVE_DISCARD || carc_move_x(c) != x || carc_move_y(c) != y ||
		    carc_move_rot(c) != rot)
			continue;
		placed = 1;
		if (carc_move_recall(c) != recall)
			continue;
		if (!kind) {
			if (carc_move_seg(c) == CARC_SEG_NONE) {
				*m = c;
				rc = 0;
			}
			continue;
		}
		if (carc_move_seg(c) == CARC_SEG_NONE)
			continue;
		int fig = carc_move_figure(c);
		if (fig < CARC_FIG_COUNT && !strcmp(FIG_NAMES[fig], kind) && !strcmp(fig_port(g, c), at)) {
			*m = c;
			rc = 0;
		}
	}
	if (rc) {
		if (!placed)
			snprintf(err, errsize, "move: tile %s does not fit at (%d,%d) with rot %d",
			         carc_tile_name(carc_current_tile(g)), x, y, rot);
		else
			snprintf(err, errsize, "move: no legal %s%s%s%s at (%d,%d) rot %d",
			         kind ? kind : "placement without a figure", at ? " on " : "", at ? at : "",
			         recall ? " taking the abbot back" : "", x, y, rot);
	}
	free(legal);
	return rc;
}
