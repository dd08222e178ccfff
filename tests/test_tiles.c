/*
 * test_tiles.c - the engine's tile table against the contract,
 * spec/base-tiles.json (the repository's copy, spec/README.md), read with
 * jansson.
 *
 * Through the public API only (carc_tile_parse, carc_tile_box_count,
 * carc_tile_segments, carc_tile_segment, carc_tile_port_segment,
 * carc_tile_segment_port): every base tile A..X, segment by segment (kind,
 * ports, shield, the cities a field borders), port by port, at every
 * rotation. The JSON is the reference; the engine is what is tested.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static json_t *g_json;   /* the whole file */
static json_t *g_tiles;  /* its "tiles" object */

static int setup(void **state)
{
	(void)state;
	json_error_t jerr;
	const char *path = t_spec("base-tiles.json");
	g_json = json_load_file(path, 0, &jerr);
	if (!g_json) {
		fprintf(stderr, "cannot read %s: line %d: %s\n", path, jerr.line, jerr.text);
		return -1;
	}
	g_tiles = json_object_get(g_json, "tiles");
	if (!json_is_object(g_tiles))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	json_decref(g_json);
	return 0;
}

/* Index 0..11 of a port name as listed in the JSON's "ports" array. */
static int json_port(const char *name)
{
	json_t *ports = json_object_get(g_json, "ports");
	for (size_t i = 0; i < json_array_size(ports); i++)
		if (!strcmp(json_string_value(json_array_get(ports, i)), name))
			return (int)i;
	fail_msg("port %s is not in the JSON port list", name);
	return -1;
}

static int kind_of(const char *type)
{
	if (!strcmp(type, "city"))
		return CARC_FEAT_CITY;
	if (!strcmp(type, "road"))
		return CARC_FEAT_ROAD;
	if (!strcmp(type, "field"))
		return CARC_FEAT_FIELD;
	if (!strcmp(type, "cloister"))
		return CARC_FEAT_CLOISTER;
	fail_msg("unknown segment type %s", type);
	return -1;
}

static unsigned json_ports_mask(json_t *seg)
{
	json_t *ports = json_object_get(seg, "ports");
	assert_true(json_is_array(ports));
	unsigned m = 0;
	for (size_t i = 0; i < json_array_size(ports); i++) {
		int p = json_port(json_string_value(json_array_get(ports, i)));
		assert_false(m >> p & 1u); /* no port listed twice */
		m |= 1u << p;
	}
	return m;
}

/* The port list of the contract: N0 N1 N2 E0 E1 E2 S0 S1 S2 W0 W1 W2, and
 * the engine names them the same way. */
static void port_names(void **state)
{
	(void)state;
	static const char *const want[12] = {"N0", "N1", "N2", "E0", "E1", "E2",
	                                     "S0", "S1", "S2", "W0", "W1", "W2"};
	json_t *ports = json_object_get(g_json, "ports");
	assert_int_equal(json_array_size(ports), 12);
	for (int p = 0; p < 12; p++) {
		const char *name = json_string_value(json_array_get(ports, (size_t)p));
		assert_non_null(name);
		assert_string_equal(name, want[p]);
		assert_int_equal(carc_port_parse(name), p);
		assert_string_equal(carc_port_name(p), name);
	}
	assert_int_equal(carc_port_parse("C"), CARC_PORT_CENTRE);
	assert_string_equal(carc_port_name(CARC_PORT_CENTRE), "C");
	assert_int_equal(carc_port_parse("Q7"), -1);
	assert_int_equal(carc_port_parse(""), -1);
}

/* 24 tile types A..X, 72 tiles in the box; the start tile is a D at (0, 0)
 * rot 0; the standard pile holds the other 71. */
static void names_and_counts(void **state)
{
	(void)state;
	assert_int_equal(json_object_size(g_tiles), 24);
	int total_json = 0, total_engine = 0;
	const char *name;
	json_t *t;
	char letter = 'A';
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		if (type < 0)
			fail_msg("tile %s of the JSON is unknown to the engine", name);
		assert_string_equal(carc_tile_name(type), name);
		int count = (int)json_integer_value(json_object_get(t, "count"));
		if (carc_tile_box_count(type) != count)
			fail_msg("tile %s: box count %d, JSON says %d", name,
			         carc_tile_box_count(type), count);
		total_json += count;
		total_engine += carc_tile_box_count(type);
		/* the letters are A..X in order, no gaps */
		char want[2] = {letter++, 0};
		assert_string_equal(name, want);
	}
	assert_int_equal(total_json, 72);
	assert_int_equal(total_engine, 72);
	assert_int_equal(carc_tile_parse("Y"), -1);
	assert_int_equal(carc_tile_parse(""), -1);
	assert_int_equal(carc_tile_parse("a"), -1);

	/* the start tile */
	json_t *st = json_object_get(g_json, "start");
	assert_string_equal(json_string_value(json_object_get(st, "tile")), "D");
	int sx = (int)json_integer_value(json_object_get(st, "x"));
	int sy = (int)json_integer_value(json_object_get(st, "y"));
	int srot = (int)json_integer_value(json_object_get(st, "rot"));
	carc_rules r = t_rules(2);
	carc_game *g = malloc(sizeof *g);
	char err[CARC_ERRMSG_SIZE];
	assert_int_equal(carc_game_init(g, &r, 42, NULL, 0, err), CARC_OK);
	int ti = carc_tile_at(g, sx, sy);
	assert_int_equal(ti, 0);
	assert_int_equal(g->tiles[ti].type, carc_tile_parse("D"));
	assert_int_equal(g->tiles[ti].rot, srot);
	assert_int_equal(carc_tiles_left(g), 71);
	/* every type in the pile as often as in the box, one D less */
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		int count = (int)json_integer_value(json_object_get(t, "count"));
		assert_int_equal(carc_tiles_left_of(g, type), count - !strcmp(name, "D"));
	}
	free(g);
}

/* Segment by segment: kind, ports, shield, bordered cities. */
static void segments(void **state)
{
	(void)state;
	const char *name;
	json_t *t;
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		assert_true(type >= 0);
		json_t *segs = json_object_get(t, "segments");
		int n = (int)json_array_size(segs);
		if (carc_tile_segments(type) != n)
			fail_msg("tile %s: %d segments, JSON has %d", name, carc_tile_segments(type), n);
		unsigned all = 0;
		int cloisters = 0;
		for (int s = 0; s < n; s++) {
			json_t *js = json_array_get(segs, (size_t)s);
			int want_kind = kind_of(json_string_value(json_object_get(js, "type")));
			unsigned want_ports = json_ports_mask(js);
			int want_shield = json_is_true(json_object_get(js, "shield"));
			int kind = -1;
			unsigned ports = 0xFFFFFFFFu, flags = 0xFFFFFFFFu, cities = 0xFFFFFFFFu;
			assert_int_equal(carc_tile_segment(type, s, &kind, &ports, &flags, &cities), 0);
			if (kind != want_kind)
				fail_msg("tile %s seg %d: kind %d, JSON %d", name, s, kind, want_kind);
			if (ports != want_ports)
				fail_msg("tile %s seg %d: ports 0x%03x, JSON 0x%03x", name, s, ports,
				         want_ports);
			if (!!(flags & CARC_SEGF_SHIELD) != want_shield)
				fail_msg("tile %s seg %d: shield %d, JSON %d", name, s,
				         !!(flags & CARC_SEGF_SHIELD), want_shield);
			/* the base game has no inns, cathedrals or other flags */
			assert_int_equal(flags & ~CARC_SEGF_SHIELD, 0);
			unsigned want_cities = 0;
			json_t *jc = json_object_get(js, "cities");
			if (want_kind == CARC_FEAT_FIELD) {
				assert_true(json_is_array(jc));
				for (size_t i = 0; i < json_array_size(jc); i++) {
					int c = (int)json_integer_value(json_array_get(jc, i));
					assert_true(c >= 0 && c < n);
					/* the JSON names city segments */
					json_t *cs = json_array_get(segs, (size_t)c);
					assert_string_equal(json_string_value(json_object_get(cs, "type")), "city");
					want_cities |= 1u << c;
				}
			} else {
				assert_null(jc);
			}
			if (cities != want_cities)
				fail_msg("tile %s seg %d: borders cities 0x%x, JSON 0x%x", name, s, cities,
				         want_cities);
			/* the ports partition the edge */
			assert_int_equal(ports & all, 0);
			all |= ports;
			if (want_kind == CARC_FEAT_CLOISTER) {
				cloisters++;
				assert_int_equal(ports, 0);
				assert_int_equal(carc_tile_port_segment(type, 0, CARC_PORT_CENTRE), s);
			}
			/* roads meet an edge at its middle only; cities hold whole sides */
			if (want_kind == CARC_FEAT_ROAD)
				assert_int_equal(ports & ~0x492u, 0);
			if (want_kind == CARC_FEAT_CITY)
				for (int d = 0; d < 4; d++) {
					unsigned side = 7u << (3 * d);
					assert_true((ports & side) == 0 || (ports & side) == side);
				}
		}
		assert_int_equal(all, 0xFFFu);
		if (!cloisters)
			assert_int_equal(carc_tile_port_segment(type, 0, CARC_PORT_CENTRE), -1);
		/* out of range */
		assert_int_equal(carc_tile_segment(type, n, NULL, NULL, NULL, NULL), -1);
		assert_int_equal(carc_tile_segment(type, -1, NULL, NULL, NULL, NULL), -1);
	}
}

/* Port by port at rot 0: the segment that holds it, as the JSON lists. */
static void ports_at_rot0(void **state)
{
	(void)state;
	const char *name;
	json_t *t;
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		json_t *segs = json_object_get(t, "segments");
		int seg_of[12];
		for (int p = 0; p < 12; p++)
			seg_of[p] = -1;
		for (size_t s = 0; s < json_array_size(segs); s++) {
			unsigned m = json_ports_mask(json_array_get(segs, s));
			for (int p = 0; p < 12; p++)
				if (m >> p & 1u)
					seg_of[p] = (int)s;
		}
		for (int p = 0; p < 12; p++) {
			assert_true(seg_of[p] >= 0);
			int got = carc_tile_port_segment(type, 0, p);
			if (got != seg_of[p])
				fail_msg("tile %s port %s: segment %d, JSON %d", name, carc_port_name(p), got,
				         seg_of[p]);
		}
		/* the JSON's edge letters agree with the middle ports */
		const char *edges = json_string_value(json_object_get(t, "edges"));
		assert_non_null(edges);
		assert_int_equal(strlen(edges), 4);
		for (int d = 0; d < 4; d++) {
			int k = -1;
			json_t *js = json_array_get(segs, (size_t)seg_of[3 * d + 1]);
			k = kind_of(json_string_value(json_object_get(js, "type")));
			char want = k == CARC_FEAT_CITY ? 'C' : k == CARC_FEAT_ROAD ? 'R' : 'F';
			if (edges[d] != want)
				fail_msg("tile %s side %d: JSON edges say %c, segments say %c", name, d,
				         edges[d], want);
		}
	}
}

/* Rotation r turns clockwise: the segment at port (p + 3r) mod 12 of the
 * turned tile is the one at port p of the tile as drawn; the centre stays. */
static void rotations(void **state)
{
	(void)state;
	const char *name;
	json_t *t;
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		for (int rot = 0; rot < 4; rot++) {
			for (int p = 0; p < 12; p++) {
				int want = carc_tile_port_segment(type, 0, p);
				int got = carc_tile_port_segment(type, rot, (p + 3 * rot) % 12);
				if (got != want)
					fail_msg("tile %s rot %d: port %s holds segment %d, want %d", name, rot,
					         carc_port_name((p + 3 * rot) % 12), got, want);
			}
			assert_int_equal(carc_tile_port_segment(type, rot, CARC_PORT_CENTRE),
			                 carc_tile_port_segment(type, 0, CARC_PORT_CENTRE));
		}
		assert_int_equal(carc_tile_port_segment(type, 4, 0), -1);
		assert_int_equal(carc_tile_port_segment(type, -1, 0), -1);
		assert_int_equal(carc_tile_port_segment(type, 0, -1), -1);
	}
}

/* The port that names a segment in records: the lowest middle port of a
 * road or city, else the lowest port, C for a cloister, after rotation. */
static void segment_ports(void **state)
{
	(void)state;
	const char *name;
	json_t *t;
	json_object_foreach(g_tiles, name, t) {
		int type = carc_tile_parse(name);
		json_t *segs = json_object_get(t, "segments");
		for (int rot = 0; rot < 4; rot++)
			for (size_t s = 0; s < json_array_size(segs); s++) {
				json_t *js = json_array_get(segs, s);
				int kind = kind_of(json_string_value(json_object_get(js, "type")));
				unsigned m = json_ports_mask(js), rm = 0;
				for (int p = 0; p < 12; p++)
					if (m >> p & 1u)
						rm |= 1u << ((p + 3 * rot) % 12);
				int want = -1;
				if (kind == CARC_FEAT_CLOISTER) {
					want = CARC_PORT_CENTRE;
				} else {
					if (kind == CARC_FEAT_ROAD || kind == CARC_FEAT_CITY)
						for (int p = 1; p < 12 && want < 0; p += 3)
							if (rm >> p & 1u)
								want = p;
					for (int p = 0; p < 12 && want < 0; p++)
						if (rm >> p & 1u)
							want = p;
				}
				int got = carc_tile_segment_port(type, rot, (int)s);
				if (got != want)
					fail_msg("tile %s rot %d seg %zu: named by port %s, want %s", name, rot, s,
					         carc_port_name(got), carc_port_name(want));
				/* and the port leads back to the segment */
				assert_int_equal(carc_tile_port_segment(type, rot, got), (int)s);
			}
	}
}

/* Edges of a placed tile as the engine matches them: a tile next to the
 * start tile fits exactly when the touching sides agree (JSON edge
 * letters, turned). Checked for every type and rotation at the four
 * squares around the start tile. */
static void edges_match_by_placement(void **state)
{
	(void)state;
	json_t *d = json_object_get(g_tiles, "D");
	const char *dedges = json_string_value(json_object_get(d, "edges"));
	static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
	const char *name;
	json_t *t;
	carc_game *g = malloc(sizeof *g);
	json_object_foreach(g_tiles, name, t) {
		const char *edges = json_string_value(json_object_get(t, "edges"));
		carc_rules r = t_rules(2);
		char pile[2] = {name[0], 0};
		t_game(g, &r, pile);
		assert_int_equal(carc_current_tile(g), carc_tile_parse(name));
		for (int side = 0; side < 4; side++)
			for (int rot = 0; rot < 4; rot++) {
				/* the new tile's side facing the start tile */
				int facing = (side + 2) % 4;
				char mine = edges[(facing - rot + 4) % 4];
				int fits = mine == dedges[side];
				char err[CARC_ERRMSG_SIZE] = "";
				carc_move m = carc_move_make(dx[side], dy[side], rot, CARC_SEG_NONE, 0);
				carc_status st = carc_check_move(g, m, err);
				if ((st == CARC_OK) != fits)
					fail_msg("tile %s rot %d at (%d, %d): engine says %s, edges say %s", name,
					         rot, dx[side], dy[side], st == CARC_OK ? "fits" : err,
					         fits ? "fits" : "no fit");
			}
	}
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(port_names),
		cmocka_unit_test(names_and_counts),
		cmocka_unit_test(segments),
		cmocka_unit_test(ports_at_rot0),
		cmocka_unit_test(rotations),
		cmocka_unit_test(segment_ports),
		cmocka_unit_test(edges_match_by_placement),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
