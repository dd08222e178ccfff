/*
 * foresee.c - previews and feature views for a table's clients (see
 * foresee.h and docs/protocol.md, "preview" and "feature").
 *
 * A preview is the engine's carc_view_preview of a decision of the current
 * step. For a placement the engine tells, of each figure option, the
 * feature it would join (kind, tiles, value, holders); a client also
 * outlines that feature on the board, so each option's feature gets its
 * "parts" (the squares and ports it covers) from carc_view_feature on the
 * game with the tile placed. Nothing here knows a kind of step or of
 * feature: a preview with "meeples" and a square is a placement, as the
 * engine wrote it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foresee.h"
#include "move_json.h"
#include "tables_internal.h"

/* Squares a client may name: those of a decision (carc.h). */
#define SQUARE_MIN (-256)
#define SQUARE_MAX 255

int foresee_take(srv_client *cl, char *err, size_t errsize)
{
	if (cfg->rate_views <= 0)
		return 0;
	int64_t now = srv_mono_us();
	double full = cfg->rate_views, per_us = cfg->rate_views / 60e6;
	cl->view_tokens = !cl->view_us ? full
	                               : fmin(full, cl->view_tokens + (double)(now - cl->view_us) * per_us);
	cl->view_us = now;
	if (cl->view_tokens >= 1) {
		cl->view_tokens -= 1;
		return 0;
	}
	snprintf(err, errsize, "this connection asks for previews and feature views faster than %d "
	         "a minute (--rate-views)", cfg->rate_views);
	int wait = (int)ceil((1 - cl->view_tokens) / per_us / 1e6);
	return wait < 1 ? 1 : wait;
}

static json_t *engine_json(char *text)
{
	json_t *o = text ? json_loads(text, 0, NULL) : NULL;
	free(text);
	return o;
}

/* Each figure option of a placement's preview gets its feature's parts,
 * read from the game after the placement (without a figure). */
static void add_parts(const carc_game *g, carc_move m, json_t *pv)
{
	json_t *opts = json_object_get(pv, "meeples");
	json_t *jx = json_object_get(pv, "x"), *jy = json_object_get(pv, "y");
	if (!json_is_array(opts) || !json_array_size(opts) || !json_is_integer(jx) ||
	    !json_is_integer(jy))
		return;
	carc_game *after = carc_game_clone(g);
	char e[CARC_ERRMSG_SIZE];
	if (!after || carc_apply(after, carc_move_placement(m), NULL, e) != CARC_OK) {
		carc_game_free(after);
		return;
	}
	size_t i;
	json_t *o;
	json_array_foreach(opts, i, o) {
		json_t *f = json_object_get(o, "feature");
		int port = carc_port_parse(json_string_value(json_object_get(o, "at")));
		if (!json_is_object(f) || port < 0)
			continue;
		json_t *view = engine_json(carc_view_feature(after, (int)json_integer_value(jx),
		                                             (int)json_integer_value(jy), port, e));
		json_t *parts = json_object_get(view, "parts");
		if (parts)
			json_object_set(f, "parts", parts);
		json_decref(view);
	}
	carc_game_free(after);
}

srv_err foresee_preview(srv_table *t, const json_t *move, int step, json_t **answer, char *err,
                        size_t errsize)
{
	if (!json_is_object(move)) {
		snprintf(err, errsize, "a preview needs a \"move\": a decision of the current step");
		return SE_MALFORMED;
	}
	if (t->status == STORE_OPEN) {
		snprintf(err, errsize, "the game has not started: seats are still open");
		return SE_NOT_STARTED;
	}
	if (carc_game_over(t->game)) {
		snprintf(err, errsize, "the game is over: nothing is decided any more");
		return SE_GAME_OVER;
	}
	if (step >= 0 && step != tables_step(t)) {
		snprintf(err, errsize, "the preview is asked for step %d but the game is at step %d", step,
		         tables_step(t));
		return SE_STALE_TURN;
	}
	carc_move m;
	carc_status st = mj_parse(t->game, move, &m, err, errsize);
	if (st != CARC_OK)
		return st == CARC_ERR_ILLEGAL ? SE_ILLEGAL : st == CARC_ERR_GAME_OVER ? SE_GAME_OVER
		                                                                      : SE_MALFORMED;
	char pe[CARC_ERRMSG_SIZE];
	json_t *pv = engine_json(carc_view_preview(t->game, m, pe));
	if (!pv) {
		snprintf(err, errsize, "%s", pe);
		return SE_ILLEGAL;
	}
	add_parts(t->game, m, pv);
	*answer = json_pack("{s:s, s:i, s:o}", "type", "preview", "step", tables_step(t), "preview",
	                    pv);
	return SE_OK;
}

srv_err foresee_feature(srv_table *t, const json_t *msg, json_t **answer, char *err,
                        size_t errsize)
{
	json_t *jx = json_object_get(msg, "x"), *jy = json_object_get(msg, "y");
	json_t *ja = json_object_get(msg, "at");
	if (!json_is_integer(jx) || !json_is_integer(jy) || json_integer_value(jx) < SQUARE_MIN ||
	    json_integer_value(jx) > SQUARE_MAX || json_integer_value(jy) < SQUARE_MIN ||
	    json_integer_value(jy) > SQUARE_MAX) {
		snprintf(err, errsize, "a feature view needs \"x\" and \"y\": integers %d..%d", SQUARE_MIN,
		         SQUARE_MAX);
		return SE_MALFORMED;
	}
	int port = json_is_string(ja) ? carc_port_parse(json_string_value(ja)) : -1;
	if (port < 0) {
		snprintf(err, errsize, "a feature view needs \"at\": a port N0..W2, C or I");
		return SE_MALFORMED;
	}
	int x = (int)json_integer_value(jx), y = (int)json_integer_value(jy);
	char fe[CARC_ERRMSG_SIZE];
	json_t *fv = engine_json(carc_view_feature(t->game, x, y, port, fe));
	if (!fv) {
		snprintf(err, errsize, "%s", fe);
		return SE_NOT_FOUND;
	}
	*answer = json_pack("{s:s, s:i, s:i, s:s, s:i, s:o}", "type", "feature", "x", x, "y", y,
	                    "at", carc_port_name(port), "step", tables_step(t), "feature", fv);
	return SE_OK;
}
