/*
 * state.h - what a game is inside the engine (not part of the API): the
 * struct behind the opaque carc_game, and the capacities it is sized by.
 *
 * Capacities are sized for every combination of the first five big
 * expansions with six players (tiles: base 72 + River 12 + Inns &
 * Cathedrals 18 + Traders & Builders 24 + Princess & Dragon 30 + The Tower
 * 18 + Abbey & Mayor 12 and six abbeys = 192 at most; figures: 6 players
 * with 7 followers, the big follower, builder, pig, abbot, mayor, wagon and
 * barn, and the neutral ones), and checked where a game is set up, so that
 * a game that would not fit is refused (CARC_ERR_ARG), never overrun. The
 * public buffer bounds of carc.h are at least these (static asserts below).
 *
 * A game is one block with no pointers: carc_game_copy copies its fixed
 * part and the used part of each array.
 */
#ifndef CARC_STATE_H
#define CARC_STATE_H

#include <stdint.h>

#include "carc.h"
#include "tiles.h"

#define ST_MAX_TILES 200      /* tiles on the board, start tile included (< 255) */
#define ST_MAX_NODES CARC_MAX_FEATURE_IDS /* segments on the board (5 expansions: ~800) */
#define ST_MAX_FRONTIER (2 * ST_MAX_TILES + 4) /* empty squares next to the board */
#define ST_HASH_BITS 10
#define ST_HASH_SIZE (1 << ST_HASH_BITS) /* squares, placed or frontier: load <= 0.6 */
#define ST_MAX_FIGURES CARC_MAX_FIGURES
#define ST_MAX_CLOISTERS 64   /* cloisters and gardens on the board */
#define ST_MAX_STEPS 1024     /* decisions in one game */
#define ST_FIG_FREE 255       /* owner of a free figure slot */

_Static_assert(ST_MAX_TILES < 255, "tile indices are bytes, 255 is none");
_Static_assert(ST_MAX_TILES + ST_MAX_FRONTIER <= ST_HASH_SIZE * 6 / 10,
               "the square hash stays at most 60% full");
_Static_assert(ST_MAX_FRONTIER < 512 && ST_MAX_TILES < 512, "hmap values have 9 bits");
_Static_assert(ST_MAX_NODES <= 65535, "node numbers are 16 bits");

/* Kinds of step inside the engine: carc.h names the tile step; a test
 * build (CARC_TEST_STEPS) has one more, "test-pass", so that the plumbing
 * of every program around the engine can be shown to carry a kind of step
 * it has never heard of (docs/engine.md, "Steps"). */
enum {
	ST_STEP_TILE = CARC_STEP_TILE,
	ST_STEP_ACTION = CARC_STEP_ACTION, /* Princess & Dragon: fairy, portal, princess */
	ST_STEP_DRAGON = CARC_STEP_DRAGON, /* Princess & Dragon: one square of the dragon */
#ifdef CARC_TEST_STEPS
	ST_STEP_TEST_PASS, /* the next player passes, saying 0 or 1 */
#endif
	ST_STEP_KINDS,
	ST_STEP_NONE = 255 /* the game is over */
};
/* The real expansions' bits (carc.h), and how many. */
#define ST_EXP_REAL 0x3Fu
#define EXP_REAL_COUNT 6
/* Expansion bits this build knows: the six of carc.h, and in a test
 * build the rule bit of the test step ("test-pass"), the next bit. */
#ifdef CARC_TEST_STEPS
#define EXP_KNOWN_COUNT 7
#define ST_EXP_TEST_PASS 0x40u
#else
#define EXP_KNOWN_COUNT 6
#endif

typedef struct carc_node {
	uint16_t parent;  /* union-find parent; a root is its own parent */
	uint16_t next;    /* circular list of the feature's members */
	uint8_t tile;     /* index into carc_game.tiles */
	uint8_t seg;      /* segment index of that tile's type */
	uint8_t kind;     /* carc_feature_kind */
	/* at roots only: */
	uint8_t open;     /* open sides (road, city, river) */
	uint8_t figures;  /* figures that occupy it (follower, big, abbot) */
	uint8_t shields;
	uint8_t flags;    /* CARC_SEGF_* united, plus NODE_DONE (engine) */
	uint8_t owners;   /* players with a follower or big follower on it */
} carc_node;

typedef struct carc_placed {
	int16_t x, y;
	uint8_t type, rot;
	uint16_t node0;   /* node of segment 0 */
	uint8_t player;   /* who placed it (255 for the start tile) */
	uint8_t pad[3];
} carc_placed;

typedef struct carc_cell {
	int16_t x, y;
	uint8_t req, mask; /* edge codes the neighbours demand, and where */
	uint16_t key;      /* the same as one number: sum over sides d of
	                      (demanded code + 1) * 5^d, 0 where free */
} carc_cell;

typedef struct carc_figure_at {
	uint8_t owner;   /* player, ST_FIG_FREE = slot free */
	uint8_t kind;    /* carc_figure */
	uint16_t node;   /* node of the segment it stands on */
} carc_figure_at;

typedef struct carc_cloister {
	uint8_t tile;       /* index into tiles */
	uint8_t neighbours; /* placed tiles among the 8 around it */
	uint8_t seg;        /* segment index */
	uint8_t done;       /* scored (completed) */
} carc_cloister;

/* One decision made (the turn's tile is pile[turn]: a turn draws one). */
typedef struct carc_step_rec {
	carc_move move;     /* CARC_MOVE_DISCARD for a set-aside tile */
	uint16_t turn;      /* the turn it belongs to */
	uint8_t kind;       /* ST_STEP_* */
	uint8_t player;     /* who decided */
} carc_step_rec;

/* One turn: where its steps begin, the goods its player took (4 bits a
 * good) and whether it was a builder's extra turn. */
#define ST_TURN_BONUS 0x8000u
typedef struct carc_turn_rec {
	uint16_t step;
	uint16_t info;      /* goods taken | ST_TURN_BONUS */
} carc_turn_rec;

struct carc_game {
	carc_rules rules;
	uint64_t seed;
	uint64_t hash;        /* Zobrist-style hash of the position */
	int16_t score[CARC_MAX_PLAYERS];
	int16_t by_kind[CARC_MAX_PLAYERS][CARC_SCORE_KIND_COUNT];
	int16_t turn_score[CARC_MAX_PLAYERS]; /* totals after the last turn's
	                                        own scoring, before the final */
	uint8_t supply[CARC_MAX_PLAYERS][CARC_FIG_COUNT];
	uint8_t player;       /* whose turn it is (who drew the tile) */
	uint8_t step;         /* the current step's kind, ST_STEP_* */
	uint8_t step_player;  /* whose decision it is */
	uint8_t over;         /* 1 once final scoring is done */
	uint8_t npile;        /* tiles in the pile (start tile excluded) */
	uint8_t pos;          /* next pile index to draw; pile[pos] is current */
	uint8_t ntiles;       /* tiles on the board */
	uint8_t nclo;
	uint16_t nfrontier;
	uint16_t nturns;      /* turns begun and ended: tile steps made */
	uint16_t nsteps;
	uint16_t nnodes;
	uint8_t bonus;        /* 1: this turn is a builder's extra turn */
	uint8_t nfig;         /* figure slots in use lie below this index */
	uint8_t river_open;   /* 1: the river has an open end to continue */
	uint8_t river_side;   /* side of that square facing the river */
	int16_t river_x, river_y; /* the square the river must go on next */
	uint8_t river_turn;   /* turn of the last river curve: 0, 1 right, 3 left */
	uint8_t after_tile;   /* 1: the rules give steps after the tile step */
	/* the turn's end, kept while later steps of the turn are decided */
	uint8_t pend_same, pend_bonus;
	/* Princess & Dragon (255: none): the dragon's tile, the fairy's tile
	 * and the figure slot it stands next to; the tile the turn placed
	 * (its scoring waits for the turn's later steps); the dragon's
	 * movement under way: squares visited (the start first), and steps
	 * made */
	uint8_t dragon, fairy, fairy_fig, placed;
	uint8_t visited[7], nvisited;
	uint8_t goods[CARC_MAX_PLAYERS][CARC_GOODS_COUNT]; /* tokens taken */
	uint8_t remaining[TILE_TYPES];       /* tiles of each type not drawn */
	uint8_t pile[ST_MAX_TILES];          /* draw order */
	uint32_t hmap[ST_HASH_SIZE];         /* square -> tile or frontier cell */
	/* the arrays below are copied up to their counts (carc_game_copy) */
	carc_placed tiles[ST_MAX_TILES];
	carc_turn_rec turn[ST_MAX_TILES];   /* turn k's first step, goods, bonus */
	carc_cell frontier[ST_MAX_FRONTIER];
	carc_cloister clo[ST_MAX_CLOISTERS];
	carc_figure_at fig[ST_MAX_FIGURES];
	carc_step_rec steps[ST_MAX_STEPS];
	carc_node node[ST_MAX_NODES];
};

#endif
