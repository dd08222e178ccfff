/*
 * tiledefs.c - every tile type the engine knows, as data.
 *
 * Base game: the 24 types of ../shared/spec/base-tiles.json, letters A..X,
 * in the same orientation and with the same segment order (tests/test_tiles.c
 * checks this table against that file port by port). Segment order matters:
 * a field's `cities` mask names city segments by their index here.
 */
#include "tiles.h"

#define CITY(p) {CARC_FEAT_CITY, 0, 0, 0, (p)}
#define CITYS(p) {CARC_FEAT_CITY, CARC_SEGF_SHIELD, 0, 0, (p)}
#define ROAD(p) {CARC_FEAT_ROAD, 0, 0, 0, (p)}
#define FIELD(p, c) {CARC_FEAT_FIELD, 0, 0, (c), (p)}
#define CLOISTER {CARC_FEAT_CLOISTER, 0, 0, 0, 0}
#define C0 0x1u
#define C1 0x2u

const tile_def tile_defs[CARC_TILE_TYPES] = {
	{"A", "cloister, road leaves south", CARC_SET_BASE, 2, 3,
	 {CLOISTER, ROAD(P_S1), FIELD(ALL_PORTS & ~P_S1, 0)}},
	{"B", "cloister in a field", CARC_SET_BASE, 4, 2,
	 {CLOISTER, FIELD(ALL_PORTS, 0)}},
	{"C", "city on all four sides, shield", CARC_SET_BASE, 1, 1,
	 {CITYS(ALL_PORTS)}},
	{"D", "city north, straight road east-west; the start tile is one of the four",
	 CARC_SET_BASE, 4, 4,
	 {CITY(SIDE_N), ROAD(P_E1 | P_W1), FIELD(P_E0 | P_W2, C0),
	  FIELD(P_E2 | SIDE_S | P_W0, 0)}},
	{"E", "city cap north", CARC_SET_BASE, 5, 2,
	 {CITY(SIDE_N), FIELD(SIDE_E | SIDE_S | SIDE_W, C0)}},
	{"F", "city joining east and west, shield", CARC_SET_BASE, 2, 3,
	 {CITYS(SIDE_E | SIDE_W), FIELD(SIDE_N, C0), FIELD(SIDE_S, C0)}},
	{"G", "city joining east and west", CARC_SET_BASE, 1, 3,
	 {CITY(SIDE_E | SIDE_W), FIELD(SIDE_N, C0), FIELD(SIDE_S, C0)}},
	{"H", "two separate city caps, north and south", CARC_SET_BASE, 3, 3,
	 {CITY(SIDE_N), CITY(SIDE_S), FIELD(SIDE_E | SIDE_W, C0 | C1)}},
	{"I", "two separate city caps, north and west", CARC_SET_BASE, 2, 3,
	 {CITY(SIDE_N), CITY(SIDE_W), FIELD(SIDE_E | SIDE_S, C0 | C1)}},
	{"J", "city cap north, road bends east-south", CARC_SET_BASE, 3, 4,
	 {CITY(SIDE_N), ROAD(P_E1 | P_S1), FIELD(P_E2 | P_S0, 0),
	  FIELD(P_E0 | P_S2 | SIDE_W, C0)}},
	{"K", "city cap north, road bends south-west", CARC_SET_BASE, 3, 4,
	 {CITY(SIDE_N), ROAD(P_S1 | P_W1), FIELD(P_S2 | P_W0, 0),
	  FIELD(SIDE_E | P_S0 | P_W2, C0)}},
	{"L", "city cap north, three roads end at a junction", CARC_SET_BASE, 3, 7,
	 {CITY(SIDE_N), ROAD(P_E1), ROAD(P_S1), ROAD(P_W1),
	  FIELD(P_E0 | P_W2, C0), FIELD(P_E2 | P_S0, 0), FIELD(P_S2 | P_W0, 0)}},
	{"M", "city joining north and west, shield", CARC_SET_BASE, 2, 2,
	 {CITYS(SIDE_N | SIDE_W), FIELD(SIDE_E | SIDE_S, C0)}},
	{"N", "city joining north and west", CARC_SET_BASE, 3, 2,
	 {CITY(SIDE_N | SIDE_W), FIELD(SIDE_E | SIDE_S, C0)}},
	{"O", "city joining north and west, shield, road bends east-south",
	 CARC_SET_BASE, 2, 4,
	 {CITYS(SIDE_N | SIDE_W), ROAD(P_E1 | P_S1), FIELD(P_E2 | P_S0, 0),
	  FIELD(P_E0 | P_S2, C0)}},
	{"P", "city joining north and west, road bends east-south", CARC_SET_BASE,
	 3, 4,
	 {CITY(SIDE_N | SIDE_W), ROAD(P_E1 | P_S1), FIELD(P_E2 | P_S0, 0),
	  FIELD(P_E0 | P_S2, C0)}},
	{"Q", "city on north, east and west, shield", CARC_SET_BASE, 1, 2,
	 {CITYS(SIDE_N | SIDE_E | SIDE_W), FIELD(SIDE_S, C0)}},
	{"R", "city on north, east and west", CARC_SET_BASE, 3, 2,
	 {CITY(SIDE_N | SIDE_E | SIDE_W), FIELD(SIDE_S, C0)}},
	{"S", "city on north, east and west, shield, road ends at the city from the south",
	 CARC_SET_BASE, 2, 4,
	 {CITYS(SIDE_N | SIDE_E | SIDE_W), ROAD(P_S1), FIELD(P_S0, C0),
	  FIELD(P_S2, C0)}},
	{"T", "city on north, east and west, road ends at the city from the south",
	 CARC_SET_BASE, 1, 4,
	 {CITY(SIDE_N | SIDE_E | SIDE_W), ROAD(P_S1), FIELD(P_S0, C0),
	  FIELD(P_S2, C0)}},
	{"U", "straight road west-east", CARC_SET_BASE, 8, 3,
	 {ROAD(P_E1 | P_W1), FIELD(P_W2 | SIDE_N | P_E0, 0),
	  FIELD(P_E2 | SIDE_S | P_W0, 0)}},
	{"V", "road bends south-west", CARC_SET_BASE, 9, 3,
	 {ROAD(P_S1 | P_W1), FIELD(P_S2 | P_W0, 0),
	  FIELD(SIDE_N | SIDE_E | P_S0 | P_W2, 0)}},
	{"W", "three roads end at a junction (east, south, west)", CARC_SET_BASE, 4,
	 6,
	 {ROAD(P_E1), ROAD(P_S1), ROAD(P_W1), FIELD(P_W2 | SIDE_N | P_E0, 0),
	  FIELD(P_E2 | P_S0, 0), FIELD(P_S2 | P_W0, 0)}},
	{"X", "four roads end at a crossroads", CARC_SET_BASE, 1, 8,
	 {ROAD(P_N1), ROAD(P_E1), ROAD(P_S1), ROAD(P_W1), FIELD(P_N2 | P_E0, 0),
	  FIELD(P_E2 | P_S0, 0), FIELD(P_S2 | P_W0, 0), FIELD(P_W2 | P_N0, 0)}},
};
