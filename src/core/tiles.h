/*
 * tiles.h - the tile model: tile types as data, segments by port.
 *
 * A tile type is a list of segments (city, road, field, cloister, garden,
 * river). Every edge segment owns a set of the twelve ports (see
 * ../shared/spec/README.md); a cloister or garden owns the centre. Fields list
 * the city segments of the same tile they border (farm scoring). Segment
 * flags carry what expansions add (shield, inn, cathedral, goods), so new
 * tile sets are new rows, not new code.
 *
 * A field that touches no edge (the meadow inside several city caps) owns
 * no port: it is named by the pseudo-port I (CARC_PORT_INNER).
 *
 * Invariants: every one of the 12 ports belongs to exactly one segment; a
 * road or river port is a middle port; a city segment owns whole sides.
 * Tile types are numbered across all sets; a rule set picks which are in
 * the pile. Derived tables (rotations, edge codes) are generated at build
 * time from this table by tools/gentab.c into tiletab.h.
 */
#ifndef CARC_TILES_H
#define CARC_TILES_H

#include <stdint.h>

#include "carc.h"

/* Port masks */
#define P_N0 (1u << 0)
#define P_N1 (1u << 1)
#define P_N2 (1u << 2)
#define P_E0 (1u << 3)
#define P_E1 (1u << 4)
#define P_E2 (1u << 5)
#define P_S0 (1u << 6)
#define P_S1 (1u << 7)
#define P_S2 (1u << 8)
#define P_W0 (1u << 9)
#define P_W1 (1u << 10)
#define P_W2 (1u << 11)
#define SIDE_N (P_N0 | P_N1 | P_N2)
#define SIDE_E (P_E0 | P_E1 | P_E2)
#define SIDE_S (P_S0 | P_S1 | P_S2)
#define SIDE_W (P_W0 | P_W1 | P_W2)
#define ALL_PORTS 0xFFFu

/* Edge codes, 2 bits per side, side d at bits 2d..2d+1 (N=0,E=1,S=2,W=3). */
enum { EDGE_FIELD = 0, EDGE_ROAD = 1, EDGE_CITY = 2, EDGE_RIVER = 3 };

typedef struct tile_seg {
	uint8_t kind;   /* carc_feature_kind */
	uint8_t flags;  /* CARC_SEGF_* */
	uint8_t goods;  /* carc_goods, CARC_GOODS_NONE if none */
	uint8_t cities; /* fields: bitmask of segment indices of bordered cities */
	uint16_t ports; /* bitmask of ports; 0 for a cloister or garden */
} tile_seg;

typedef struct tile_def {
	const char *name;   /* as written in records, e.g. "D" */
	const char *note;   /* one line for people */
	uint8_t set;        /* carc_tileset */
	uint8_t count;      /* copies in the set's box (a garden copy: 1) */
	const char *twin;   /* a garden copy: name of the plain tile it
	                       replaces one copy of when the Abbot is played */
	uint8_t nseg;
	tile_seg seg[CARC_MAX_SEGS];
	uint8_t symbol;     /* CARC_SYM_* (Princess & Dragon), 0 for none */
} tile_def;

/* Tile types the engine knows (all sets, garden copies apart). */
#define TILE_TYPES 119
_Static_assert(TILE_TYPES < 256, "tile types are bytes in a game");

extern const tile_def tile_defs[TILE_TYPES];

#endif
