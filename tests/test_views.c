/*
 * test_views.c - the engine as the one source of names, decisions' JSON and
 * what a client shows: carc_name and the vocabulary, the one writer and
 * reader of a decision (every kind of step), the step log with its events
 * (points and figures going home), what a placement would do
 * (carc_view_preview), a feature on the board (carc_view_feature), and
 * records whose turns have later steps (the test build's "test-pass").
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "support.h"

static json_t *parse(char *text)
{
	assert_non_null(text);
	json_error_t je;
	json_t *o = json_loads(text, 0, &je);
	if (!o)
		fail_msg("not JSON (%s): %s", je.text, text);
	free(text);
	return o;
}

/* ---- names -------------------------------------------------------------------------------- */

/* The views' writer: what it writes is JSON that reads back as written,
 * across the buffer's growth (the inline way that fits and the way that
 * grows), with a caller's text escaped and numbers of every size. */
static void json_writer_writes_json(void **state)
{
	(void)state;
	jo_buf b;
	jo_init(&b);
	char text[40];
	jo_raw(&b, "[");
	for (int i = 0; i < 2000; i++) {
		int f = 1;
		jo_raw(&b, i ? ",{" : "{");
		jo_kint(&b, &f, "i", i % 3 == 0 ? -i * 977L : i % 3 == 1 ? i % 10 : i * 123457L);
		snprintf(text, sizeof text, "a\"b\\c\n%c\x01%d", 'A' + i % 26, i);
		jo_kstr(&b, &f, "text", text);
		jo_kbool(&b, &f, "odd", i & 1);
		jo_kopen(&b, &f, "list");
		int v[3] = {i, -1, 0};
		jo_ints(&b, v, 3);
		jo_raw(&b, "}");
	}
	jo_raw(&b, "]");
	char *out = jo_take(&b);
	assert_non_null(out);
	json_error_t je;
	json_t *a = json_loads(out, 0, &je);
	if (!a)
		fail_msg("not JSON: %s at %d", je.text, je.position);
	assert_int_equal(json_array_size(a), 2000);
	for (int i = 0; i < 2000; i++) {
		json_t *o = json_array_get(a, (size_t)i);
		long want = i % 3 == 0 ? -i * 977L : i % 3 == 1 ? i % 10 : i * 123457L;
		assert_int_equal(json_integer_value(json_object_get(o, "i")), want);
		snprintf(text, sizeof text, "a\"b\\c\n%c\x01%d", 'A' + i % 26, i);
		assert_string_equal(json_string_value(json_object_get(o, "text")), text);
		assert_int_equal(json_is_true(json_object_get(o, "odd")), i & 1);
		assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "list"), 0)), i);
		assert_int_equal(json_object_size(o), 4);
	}
	json_decref(a);
	free(out);
	/* an empty buffer gives an empty text */
	jo_init(&b);
	out = jo_take(&b);
	assert_string_equal(out, "");
	free(out);
}

static void vocabulary_lists_every_name(void **state)
{
	(void)state;
	json_t *v = parse(carc_vocabulary_json());
	static const struct {
		const char *key;
		int what;
	} L[] = {{"figures", CARC_NAMES_FIGURE},   {"features", CARC_NAMES_FEATURE},
	         {"score_kinds", CARC_NAMES_SCORE}, {"goods", CARC_NAMES_GOODS},
	         {"tile_sets", CARC_NAMES_TILESET}, {"steps", CARC_NAMES_STEP},
	         {"expansions", CARC_NAMES_EXPANSION}, {"farm_scoring", CARC_NAMES_FARM_SCORING},
	         {"ports", CARC_NAMES_PORT},        {"tiles", CARC_NAMES_TILE},
	         {"figure_words", CARC_NAMES_FIGURE_WORDS}};
	for (size_t l = 0; l < sizeof L / sizeof L[0]; l++) {
		json_t *a = json_object_get(v, L[l].key);
		assert_true(json_is_array(a));
		int n = carc_name_count(L[l].what);
		assert_true(n > 0);
		assert_int_equal((int)json_array_size(a), n);
		for (int i = 0; i < n; i++) {
			const char *name = json_string_value(json_array_get(a, (size_t)i));
			assert_string_equal(name, carc_name(L[l].what, i));
			assert_int_equal(carc_name_parse(L[l].what, name), i);
		}
		assert_null(carc_name(L[l].what, n));
		assert_null(carc_name(L[l].what, -1));
	}
	/* the names records have always used */
	assert_string_equal(carc_name(CARC_NAMES_FIGURE, CARC_FIG_BIG), "big");
	assert_string_equal(carc_name(CARC_NAMES_FIGURE_WORDS, CARC_FIG_BIG), "big follower");
	assert_string_equal(carc_name(CARC_NAMES_STEP, CARC_STEP_TILE), "tile");
	assert_int_equal(carc_name_parse(CARC_NAMES_STEP, "test-pass"), ST_STEP_TEST_PASS);
	assert_int_equal(carc_expansion_parse("test-pass"), ST_EXP_TEST_PASS);
	assert_int_equal(carc_name_count(CARC_NAMES_COUNT), 0);
	json_decref(v);
}

/* ---- one decision's JSON --------------------------------------------------------------------- */

static carc_status parse_move(const carc_game *g, const char *json, carc_move *m, char *err)
{
	return carc_move_parse(g, json, strlen(json), m, err);
}

static void decision_json_reads_and_writes(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = carc_game_alloc();
	t_game(g, &r, "EU");
	char err[CARC_ERRMSG_SIZE];
	carc_move m;
	/* E north of the start, follower on its city */
	carc_move want = t_move(g, 0, -1, 2, "S1");
	json_t *o = parse(carc_move_json(g, want));
	assert_int_equal(json_integer_value(json_object_get(o, "x")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "y")), -1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "meeple"), "kind")),
	                    "follower");
	assert_string_equal(json_string_value(json_object_get(json_object_get(o, "meeple"), "at")),
	                    "S1");
	json_decref(o);
	assert_int_equal(parse_move(g, "{\"x\":0,\"y\":-1,\"rot\":2,\"meeple\":{\"kind\":\"follower\","
	                               "\"at\":\"S1\"},\"type\":\"move\",\"turn\":0}",
	                            &m, err),
	                 CARC_OK);
	assert_int_equal(m, want);
	/* a missing meeple is none; other keys are left alone */
	assert_int_equal(parse_move(g, "{\"x\":0,\"y\":-1,\"rot\":2}", &m, err), CARC_OK);
	assert_int_equal(m, carc_move_placement(want));
	/* what is wrong is said */
	assert_int_equal(parse_move(g, "[1]", &m, err), CARC_ERR_PARSE);
	assert_int_equal(parse_move(g, "{\"x\":0,\"y\":-1}", &m, err), CARC_ERR_PARSE);
	assert_non_null(strstr(err, "rot"));
	assert_int_equal(parse_move(g, "{\"x\":0,\"y\":-1,\"rot\":2,\"meeple\":{\"kind\":\"dragon\","
	                               "\"at\":\"S1\"}}",
	                            &m, err),
	                 CARC_ERR_PARSE);
	assert_non_null(strstr(err, "meeple.kind"));
	assert_int_equal(parse_move(g, "{\"x\":5,\"y\":5,\"rot\":0}", &m, err), CARC_ERR_ILLEGAL);
	assert_int_equal(parse_move(g, "{\"discard\":true}", &m, err), CARC_ERR_ILLEGAL);
	/* the keys a decision may have, for callers that refuse others */
	assert_true(carc_move_key(g, "meeple.at"));
	assert_true(carc_move_key(g, "abbot_recalled"));
	assert_false(carc_move_key(g, "meeple.colour"));
	assert_false(carc_move_key(g, "test-pass"));
	char text[64];
	carc_move_text(g, want, text, sizeof text);
	assert_string_equal(text, "(0,-1) rot 2 follower S1");
	carc_game_free(g);
}

/* ---- the step log and its events ---------------------------------------------------------------- */

static void step_log_tells_points_and_figures_home(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = carc_game_alloc();
	t_game(g, &r, "EE");
	carc_events ev;
	t_play_ev(g, 0, -1, 2, "S1", &ev); /* red's follower on the city: it completes */
	json_t *o = parse(carc_view_step(g, &ev));
	assert_int_equal(json_integer_value(json_object_get(o, "turn")), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "step")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "tile")), "E");
	json_t *evs = json_object_get(o, "events");
	int scored = 0, returned = 0;
	for (size_t i = 0; i < json_array_size(evs); i++) {
		json_t *e = json_array_get(evs, i);
		if (json_object_get(e, "returned")) {
			returned++;
			assert_string_equal(json_string_value(json_object_get(e, "returned")), "follower");
			assert_int_equal(json_integer_value(json_object_get(e, "player")), 0);
			assert_string_equal(json_string_value(json_object_get(e, "at")), "S1");
		} else {
			scored++;
			assert_string_equal(json_string_value(json_object_get(e, "kind")), "city");
			assert_int_equal(json_integer_value(json_array_get(json_object_get(e, "points"), 0)),
			                 4);
		}
	}
	assert_int_equal(scored, 1);
	assert_int_equal(returned, 1);
	json_decref(o);
	/* the whole view: the parts asked for and no others */
	o = parse(carc_view_json(g, CARC_VIEW_BOARD | CARC_VIEW_SUPPLY | CARC_VIEW_TURN));
	assert_int_equal((int)json_array_size(json_object_get(o, "board")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(o, "supply"), 0),
	                                                    "follower")),
	                 7);
	json_t *next = json_object_get(o, "next");
	assert_int_equal(json_integer_value(json_object_get(next, "turn")), 1);
	assert_int_equal(json_integer_value(json_object_get(next, "step")), 1);
	assert_string_equal(json_string_value(json_object_get(next, "step_kind")), "tile");
	assert_int_equal(json_integer_value(json_object_get(next, "to_move")), 1);
	assert_non_null(json_object_get(json_object_get(next, "legal"), "placements"));
	assert_null(json_object_get(o, "figures"));
	json_decref(o);
	char *members = carc_view_members(g, 0);
	assert_string_equal(members, "");
	free(members);
	carc_game_free(g);
}

/* ---- what a placement would do, and a feature on the board ---------------------------------------- */

static void preview_and_feature(void **state)
{
	(void)state;
	carc_rules r = t_rules(2);
	carc_game *g = carc_game_alloc();
	t_game(g, &r, "EEE");
	t_play(g, 0, 1, 2, "S1"); /* red: E south of the start, on its city (open) */
	char err[CARC_ERRMSG_SIZE];
	/* red's city: one tile held by red, open, worth 1 now */
	json_t *o = parse(carc_view_feature(g, 0, 1, carc_port_parse("S1"), err));
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "city");
	assert_int_equal(json_integer_value(json_object_get(o, "tiles")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "open")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "value")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "holders"), 0)), 1);
	assert_int_equal((int)json_array_size(json_object_get(o, "figures")), 1);
	assert_int_equal((int)json_array_size(json_object_get(o, "parts")), 1);
	json_decref(o);
	assert_null(carc_view_feature(g, 7, 7, 0, err));
	assert_non_null(strstr(err, "no tile"));
	/* blue's E below it closes red's city: red scores 4 at once */
	carc_move pl = t_move(g, 0, 2, 0, NULL);
	o = parse(carc_view_preview(g, pl, err));
	json_t *scored = json_object_get(o, "scored");
	assert_int_equal((int)json_array_size(scored), 1);
	json_t *e = json_array_get(scored, 0);
	assert_string_equal(json_string_value(json_object_get(e, "kind")), "city");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(e, "points"), 0)), 4);
	/* its figure options: the field (the city is red's), with what it is */
	json_t *meeples = json_object_get(o, "meeples");
	assert_true(json_array_size(meeples) > 0);
	for (size_t i = 0; i < json_array_size(meeples); i++) {
		json_t *f = json_object_get(json_array_get(meeples, i), "feature");
		assert_string_equal(json_string_value(json_object_get(f, "kind")), "field");
		assert_int_equal(json_integer_value(json_object_get(f, "tiles")), 1);
	}
	json_decref(o);
	/* nothing happened to the game */
	assert_int_equal(carc_board_tiles(g), 2);
	assert_null(carc_view_preview(g, carc_move_make(9, 9, 0, CARC_SEG_NONE, 0), err));
	carc_game_free(g);
}

/* ---- records with later steps ----------------------------------------------------------------------- */

static const char *const PASS_RECORD =
    "{\"format\": \"carc-record-1\", \"rules\": {\"players\": 2, \"expansions\": "
    "[\"test-pass\"], \"tiles\": {\"E\": 2}}, \"seed\": 3,"
    " \"start\": {\"tile\": \"D\", \"x\": 0, \"y\": 0, \"rot\": 0},"
    " \"turns\": [%s]}";

static carc_status replay(const char *turns, char *err)
{
	char rec[2048];
	snprintf(rec, sizeof rec, PASS_RECORD, turns);
	carc_game *g = carc_game_alloc();
	carc_status st = carc_record_replay(rec, strlen(rec), g, err, 512);
	carc_game_free(g);
	return st;
}

static void records_carry_later_steps(void **state)
{
	(void)state;
	char err[512];
	const char *t0 = "{\"player\": 0, \"tile\": \"E\", \"x\": 0, \"y\": -1, \"rot\": 2, "
	                 "\"meeple\": null, \"steps\": [{\"player\": 1, \"test-pass\": 1}], "
	                 "\"scores\": [0, 0]}";
	assert_int_equal(replay(t0, err), CARC_OK);
	/* the step is the next player's */
	char bad[512];
	snprintf(bad, sizeof bad, "%s", t0);
	*strstr(bad, "\"player\": 1") = 0;
	strcat(bad, "\"player\": 0, \"test-pass\": 1}], \"scores\": [0, 0]}");
	assert_int_equal(replay(bad, err), CARC_ERR_RECORD);
	assert_non_null(strstr(err, "steps[0].player"));
	/* a step the rules give must be there */
	assert_int_equal(replay("{\"player\": 0, \"tile\": \"E\", \"x\": 0, \"y\": -1, \"rot\": 2, "
	                        "\"meeple\": null, \"scores\": [0, 0]}",
	                        err),
	                 CARC_ERR_RECORD);
	assert_non_null(strstr(err, "missing the test-pass step of player 1"));
	/* and its decision is checked */
	assert_int_equal(replay("{\"player\": 0, \"tile\": \"E\", \"x\": 0, \"y\": -1, \"rot\": 2, "
	                        "\"meeple\": null, \"steps\": [{\"player\": 1, \"test-pass\": 7}], "
	                        "\"scores\": [0, 0]}",
	                        err),
	                 CARC_ERR_RECORD);
	/* a game with the step, written and read back: the same steps */
	carc_rules r = t_rules(3);
	r.expansions = ST_EXP_TEST_PASS;
	carc_game *g = carc_game_new(&r, 5, NULL, 0, err);
	assert_non_null(g);
	static carc_move mv[CARC_MAX_MOVES];
	uint64_t s = 11;
	for (int k = 0; k < 30 && !carc_game_over(g); k++) {
		int n = carc_legal_moves(g, mv, CARC_MAX_MOVES);
		carc_apply(g, mv[carc_rng_next(&s) % (uint64_t)n], NULL, NULL);
	}
	char *text = carc_record_write(g, NULL);
	assert_non_null(strstr(text, "\"steps\":[{\"player\":"));
	carc_game *back = carc_game_alloc();
	assert_int_equal(carc_record_replay(text, strlen(text), back, err, sizeof err), CARC_OK);
	assert_int_equal(carc_steps_played(back), carc_steps_played(g));
	for (int k = 0; k < carc_steps_played(g); k++) {
		carc_step_info a, b;
		carc_step_played(g, k, &a);
		carc_step_played(back, k, &b);
		assert_memory_equal(&a, &b, sizeof a);
	}
	assert_int_equal(carc_game_hash(back), carc_game_hash(g));
	free(text);
	carc_game_free(back);
	carc_game_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_writer_writes_json),
		cmocka_unit_test(vocabulary_lists_every_name),
		cmocka_unit_test(decision_json_reads_and_writes),
		cmocka_unit_test(step_log_tells_points_and_figures_home),
		cmocka_unit_test(preview_and_feature),
		cmocka_unit_test(records_carry_later_steps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
