/*
 * carc.h - the public API of libcarc, a Carcassonne rules engine.
 *
 * The only header an embedder needs. A game is one plain struct
 * (carc_game) that can be copied with memcpy or carc_game_copy; nothing is
 * allocated after it is created, and the library keeps no mutable globals,
 * so games may be used from many threads at once (one thread per game).
 *
 * Flow of a game:
 *
 *     carc_rules r;  carc_rules_default(&r);  r.players = 3;
 *     carc_game g;   carc_game_init(&g, &r, seed, NULL, 0);
 *     while (!carc_game_over(&g)) {
 *         carc_move moves[CARC_MAX_MOVES];
 *         int n = carc_legal_moves(&g, moves, CARC_MAX_MOVES);
 *         carc_apply(&g, moves[pick(n)], NULL);   // validated
 *     }
 *     carc_game_scores(&g, totals);
 *
 * Each turn the player to move has one tile (carc_current_tile). A move is
 * where the tile goes (x, y, rotation) together with the figure put on it
 * (or none). When the tile fits nowhere the only legal move is
 * CARC_MOVE_DISCARD: the tile is set aside and the same player goes on with
 * the next tile. Applying a move places the tile, places the figure, scores
 * what the tile completed and passes the turn; after the last tile the final
 * scoring is done and carc_game_over() is true.
 *
 * Coordinates: the start tile is at (0, 0), x grows east, y grows south.
 * Rotation: clockwise quarter turns, 0..3. Ports: 0..11 as N0 N1 N2 E0 E1 E2
 * S0 S1 S2 W0 W1 W2 (see the project's docs/records.md), CARC_PORT_CENTRE
 * for a cloister or garden.
 */
#ifndef CARC_H
#define CARC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- limits ------------------------------------------------------------ */

#define CARC_MAX_PLAYERS 6
#define CARC_MAX_SEGS 10      /* segments on one tile */
#define CARC_MAX_TILES 128    /* tiles on the board, start tile included */
#define CARC_MAX_NODES 640    /* segments on the board */
#define CARC_MAX_FRONTIER 264 /* empty squares next to the board */
#define CARC_HASH_SIZE 512    /* board squares, placed or frontier */
#define CARC_MAX_FIGURES 64   /* figures on the board at once */
#define CARC_MAX_CLOISTERS 32 /* cloisters and gardens on the board */
#define CARC_MAX_MOVES 4096   /* legal moves for one tile, an upper bound */
#define CARC_MAX_PLACEMENTS (CARC_MAX_FRONTIER * 4)
#define CARC_PORT_CENTRE 12 /* "C": the cloister or garden */
#define CARC_PORT_INNER 13  /* "I": a field that touches no edge */
#define CARC_ERRMSG_SIZE 160

/* ---- enums --------------------------------------------------------------- */

typedef enum carc_status {
	CARC_OK = 0,
	CARC_ERR_ARG,        /* a bad argument (null pointer, bad option) */
	CARC_ERR_GAME_OVER,  /* no move can be made: the game has ended */
	CARC_ERR_ILLEGAL,    /* the move breaks a rule; the message says which */
	CARC_ERR_PARSE,      /* a record is not valid JSON or not of the format */
	CARC_ERR_RECORD,     /* a record is well formed but wrong (see message) */
	CARC_ERR_NOMEM,
	CARC_STATUS_COUNT
} carc_status;

typedef enum carc_feature_kind {
	CARC_FEAT_CITY = 0,
	CARC_FEAT_ROAD,
	CARC_FEAT_FIELD,
	CARC_FEAT_CLOISTER,
	CARC_FEAT_GARDEN,
	CARC_FEAT_RIVER,
	CARC_FEAT_KIND_COUNT
} carc_feature_kind;

/* Figures a player can put on a tile. */
typedef enum carc_figure {
	CARC_FIG_FOLLOWER = 0, /* the plain follower (meeple) */
	CARC_FIG_BIG,          /* Inns & Cathedrals: counts as two */
	CARC_FIG_BUILDER,      /* Traders & Builders */
	CARC_FIG_PIG,          /* Traders & Builders */
	CARC_FIG_ABBOT,        /* Abbot: cloisters and gardens only */
	CARC_FIG_COUNT
} carc_figure;

/* What points are kept apart in the final breakdown. */
typedef enum carc_score_kind {
	CARC_SCORE_ROAD = 0,
	CARC_SCORE_CITY,
	CARC_SCORE_CLOISTER,
	CARC_SCORE_FARM,
	CARC_SCORE_GARDEN,
	CARC_SCORE_GOODS,
	CARC_SCORE_KIND_COUNT
} carc_score_kind;

typedef enum carc_farm_scoring {
	CARC_FARM_INTERNATIONAL = 0, /* per field, 3 per completed city */
	CARC_FARM_CITY_ONCE,         /* as above, a city pays a player once */
	CARC_FARM_FIRST_EDITION,     /* per city, 4 to the farmer majority */
	CARC_FARM_SCORING_COUNT
} carc_farm_scoring;

/* Tile sets; a rule set's pile is the union of the chosen ones. */
typedef enum carc_tileset {
	CARC_SET_BASE = 0,
	CARC_SET_RIVER,
	CARC_SET_INNS,    /* Inns & Cathedrals */
	CARC_SET_TRADERS, /* Traders & Builders */
	CARC_SET_COUNT
} carc_tileset;

/* Expansions and their options: bits of carc_rules.expansions. */
#define CARC_EXP_RIVER 0x01u       /* "river" */
#define CARC_EXP_INNS 0x02u        /* "inns-cathedrals": tiles, big follower */
#define CARC_EXP_INNS_TILES 0x04u  /* "inns-cathedrals-tiles": its tiles only */
#define CARC_EXP_TRADERS 0x08u     /* "traders-builders": tiles, goods,
                                      builder, pig */
#define CARC_EXP_ABBOT 0x10u       /* "abbot": gardens and the abbot */
#define CARC_EXP_ALL 0x1Fu
#define CARC_EXP_COUNT 5

typedef enum carc_goods {
	CARC_GOODS_NONE = 0,
	CARC_GOODS_WINE,
	CARC_GOODS_GRAIN,
	CARC_GOODS_CLOTH,
	CARC_GOODS_COUNT
} carc_goods;

/* Segment flags */
#define CARC_SEGF_SHIELD 0x01u
#define CARC_SEGF_INN 0x02u
#define CARC_SEGF_CATHEDRAL 0x04u

/* Number of tile types the engine knows (all sets, garden copies apart). */
#define CARC_TILE_TYPES 88

/* ---- random numbers ---------------------------------------------------------- */

/* SplitMix64: the generator of the shuffle (docs/rng.md), for anyone who
 * needs the same numbers on every machine. Advances *state. */
static inline uint64_t carc_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* ---- rules --------------------------------------------------------------- */

typedef struct carc_rules {
	int players;        /* 2..5 (6 with Inns & Cathedrals, either option) */
	int farmers;        /* 1: followers may go on fields, fields score */
	int farm_scoring;   /* carc_farm_scoring */
	int small_city;     /* 1: a completed two-tile city scores 2 */
	unsigned expansions; /* CARC_EXP_* bits; 0 = the base game */
} carc_rules;

/* Fills *r with the defaults: 2 players, farmers, international, no
 * small-city rule, base game. */
void carc_rules_default(carc_rules *r);

/* Name of one expansion bit ("river", ...), NULL if not one; parse
 * returns the bit or 0 for an unknown name. */
const char *carc_expansion_name(unsigned bit);
unsigned carc_expansion_parse(const char *name);
/* The standard pile of a rule set: counts per tile type, start tile not
 * included. Returns the number of tiles. */
int carc_rules_pile(const carc_rules *r, int counts[CARC_TILE_TYPES]);
/* The start tile of a rule set (D, or the spring with the River). */
int carc_rules_start_tile(const carc_rules *r);

/* Name of a farm-scoring edition ("international", "city-once",
 * "first-edition"); parse returns -1 for an unknown name. */
const char *carc_farm_scoring_name(int fs);
int carc_farm_scoring_parse(const char *name);

/* ---- tiles ---------------------------------------------------------------- */

/* Tile type by name ("A".."X", "r1", "ic6", "tb14", "Eg", ...); -1 if
 * unknown. */
int carc_tile_parse(const char *name);
/* Name of a tile type, a static string (not to be freed). */
const char *carc_tile_name(int type);
/* Copies of a tile type in its box (the base D count includes the start;
 * a garden copy counts 1 and its twin keeps its full count). */
int carc_tile_box_count(int type);
/* The tile set of a type (carc_tileset); 1 if it is a garden copy, with
 * the plain twin's type in *twin. */
int carc_tile_set(int type);
int carc_tile_is_garden_copy(int type, int *twin);
/* One line describing the tile, for people (static string). */
const char *carc_tile_note(int type);
/* The four edges at rotation rot, N E S W, as letters: F field, R road,
 * C city, W river, into out[5]. */
void carc_tile_edges(int type, int rot, char out[5]);
/* Segments of a tile type as drawn at rotation 0. */
int carc_tile_segments(int type);
/* Kind (carc_feature_kind), ports (bitmask of the 12 ports; 0 for a
 * cloister, garden or inner field), flags and, for a field, the city
 * segments it borders (bitmask of segment indices) of segment s of a type
 * as drawn. *flags holds CARC_SEGF_* in its low byte and the goods
 * (carc_goods) in bits 8..9: CARC_SEG_GOODS(flags). Any pointer may be NULL.
 * Returns 0, or -1 for a bad type or segment. */
#define CARC_SEG_GOODS(flags) (((flags) >> 8) & 3u)
int carc_tile_segment(int type, int s, int *kind, unsigned *ports,
                      unsigned *flags, unsigned *cities);
/* Segment index holding port p (0..11, CARC_PORT_CENTRE or
 * CARC_PORT_INNER) of a tile type placed with rotation rot, -1 if none. */
int carc_tile_port_segment(int type, int rot, int port);
/* The port used to name segment s of a type at rotation rot in records:
 * the lowest middle port of a road, city or river, else the lowest port,
 * CARC_PORT_CENTRE for a cloister or garden. */
int carc_tile_segment_port(int type, int rot, int s);
/* Port name ("N0".."W2", "C", "I"), and parse (-1 if unknown). */
const char *carc_port_name(int port);
int carc_port_parse(const char *name);

/* ---- moves ------------------------------------------------------------------ */

/*
 * A move is a 32-bit integer:
 *
 *   31     30..28  27      26..24  23..20  19..18  17..9    8..0
 *  +------+-------+-------+-------+-------+-------+--------+--------+
 *  | disc | 0     | recall| figure| seg   | rot   | y+256  | x+256  |
 *  +------+-------+-------+-------+-------+-------+--------+--------+
 *
 *  disc    1: the tile fits nowhere and is set aside (all else 0)
 *  recall  1: no figure placed; the abbot is taken back (Abbot)
 *  figure  carc_figure put on the tile (when seg != 15)
 *  seg     segment index of the tile type (as drawn) that gets the figure,
 *          15 = no figure
 *  rot     rotation 0..3, x and y the square (-256..255)
 */
typedef uint32_t carc_move;

#define CARC_MOVE_DISCARD 0x80000000u
#define CARC_MOVE_RECALL 0x08000000u
#define CARC_MOVE_NONE 0xFFFFFFFFu
#define CARC_SEG_NONE 15

static inline carc_move carc_move_make(int x, int y, int rot, int seg,
                                       int figure)
{
	return (carc_move)((unsigned)(x + 256) | ((unsigned)(y + 256) << 9) |
	                   ((unsigned)rot << 18) | ((unsigned)seg << 20) |
	                   ((unsigned)figure << 24));
}
static inline int carc_move_x(carc_move m) { return (int)(m & 0x1FFu) - 256; }
static inline int carc_move_y(carc_move m) { return (int)((m >> 9) & 0x1FFu) - 256; }
static inline int carc_move_rot(carc_move m) { return (int)((m >> 18) & 3u); }
static inline int carc_move_seg(carc_move m) { return (int)((m >> 20) & 15u); }
static inline int carc_move_figure(carc_move m) { return (int)((m >> 24) & 7u); }
static inline int carc_move_recall(carc_move m) { return (int)((m >> 27) & 1u); }
static inline int carc_move_is_discard(carc_move m) { return m == CARC_MOVE_DISCARD; }
/* The same placement with no figure. */
static inline carc_move carc_move_placement(carc_move m)
{
	return m == CARC_MOVE_DISCARD ? m : ((m & 0xFFFFFu) | (15u << 20));
}

/* ---- the game state ------------------------------------------------------------ */

/* The fields below are the engine's; read them through the functions.
 * The struct is public so that a game can live on the stack, in an array,
 * or be copied with memcpy. */

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
	uint8_t owner;   /* player, 255 = slot free */
	uint8_t kind;    /* carc_figure */
	uint16_t node;   /* node of the segment it stands on */
} carc_figure_at;

typedef struct carc_cloister {
	uint8_t tile;       /* index into tiles */
	uint8_t neighbours; /* placed tiles among the 8 around it */
	uint8_t seg;        /* segment index */
	uint8_t done;       /* scored (completed) */
} carc_cloister;

typedef struct carc_turn {
	carc_move move;     /* CARC_MOVE_DISCARD for a set-aside tile */
	uint8_t type;       /* tile drawn */
	uint8_t player;
	uint8_t pad[2];
} carc_turn;

#ifndef CARC_OPAQUE_GAME
typedef struct carc_game {
	carc_rules rules;
	uint64_t seed;
	uint64_t hash;        /* Zobrist-style hash of the position */
	int16_t score[CARC_MAX_PLAYERS];
	int16_t by_kind[CARC_MAX_PLAYERS][CARC_SCORE_KIND_COUNT];
	int16_t turn_score[CARC_MAX_PLAYERS]; /* totals after the last turn's
	                                        own scoring, before the final */
	uint8_t supply[CARC_MAX_PLAYERS][CARC_FIG_COUNT];
	uint8_t player;       /* whose turn it is */
	uint8_t over;         /* 1 once final scoring is done */
	uint8_t npile;        /* tiles in the pile (start tile excluded) */
	uint8_t pos;          /* next pile index to draw; pile[pos] is current */
	uint8_t ntiles;       /* tiles on the board */
	uint8_t nfrontier;
	uint8_t nclo;
	uint8_t nturns;
	uint16_t nnodes;
	uint8_t bonus;        /* 1: this turn is a builder's extra turn */
	uint8_t nfig;         /* figure slots in use lie below this index */
	uint8_t river_open;   /* 1: the river has an open end to continue */
	int16_t river_x, river_y; /* the square the river must go on next */
	uint8_t river_side;   /* side of that square facing the river */
	uint8_t river_turn;   /* turn of the last river curve: 0, 1 right, 3 left */
	uint8_t goods[CARC_MAX_PLAYERS][CARC_GOODS_COUNT]; /* tokens taken */
	uint8_t remaining[CARC_TILE_TYPES]; /* tiles of each type not drawn */
	uint8_t pile[CARC_MAX_TILES];       /* draw order */
	uint32_t hmap[CARC_HASH_SIZE];      /* square -> tile or frontier cell */
	carc_placed tiles[CARC_MAX_TILES];
	carc_cell frontier[CARC_MAX_FRONTIER];
	carc_cloister clo[CARC_MAX_CLOISTERS];
	carc_figure_at fig[CARC_MAX_FIGURES];
	carc_turn turns[CARC_MAX_TILES];
	carc_node node[CARC_MAX_NODES];
} carc_game;
#else
/* With CARC_OPAQUE_GAME the fields are hidden: code that must use the
 * functions only (src/ai; tests/cli/test_ai_api.sh) is compiled this way
 * to prove it. Not for building: the size differs. */
typedef struct carc_game {
	uint64_t opaque_;
} carc_game;
#endif

/* A scoring event, reported by carc_apply when asked for. */
typedef struct carc_event {
	uint8_t kind;        /* carc_score_kind */
	uint8_t final;       /* 1: scored in the final scoring */
	uint8_t tiles;       /* tiles of the feature (cloister: 1 + around) */
	uint8_t tile;        /* a tile of the feature (index into tiles) */
	uint8_t seg;         /* its segment index */
	uint8_t pad[3];
	int16_t points[CARC_MAX_PLAYERS]; /* what each player got */
} carc_event;

#define CARC_MAX_EVENTS 64
typedef struct carc_events {
	int n;
	carc_event ev[CARC_MAX_EVENTS];
} carc_events;

/* ---- creating and copying ----------------------------------------------------- */

/*
 * Sets up a new game in caller-owned memory. `pile`, if not NULL, gives the
 * draw pile as counts per tile type (npile_types entries, start tile not
 * included), e.g. for scenarios; NULL means the standard pile of the rule
 * set. The pile is shuffled from `seed` (see docs/rng.md: SplitMix64 and a
 * Fisher-Yates shuffle), so a seed fixes the draw order on every machine.
 * Returns CARC_OK, or CARC_ERR_ARG with a message in err (may be NULL).
 */
carc_status carc_game_init(carc_game *g, const carc_rules *r, uint64_t seed,
                           const int *pile, int npile_types,
                           char err[CARC_ERRMSG_SIZE]);
/* sizeof(carc_game), for bindings that allocate games themselves. */
size_t carc_game_size(void);
/* Copies a game: the same game as memcpy(dst, src, sizeof *dst), but
 * only the used parts of the arrays are copied (faster early in a game). */
void carc_game_copy(carc_game *dst, const carc_game *src);

/* ---- asking the state ----------------------------------------------------------- */

int carc_game_over(const carc_game *g);
int carc_to_move(const carc_game *g);            /* player 0..players-1 */
int carc_current_tile(const carc_game *g);       /* tile type, -1 at the end */
int carc_tiles_left(const carc_game *g);         /* current one included */
/* Tiles left of one type (current tile included). */
int carc_tiles_left_of(const carc_game *g, int type);
int carc_supply(const carc_game *g, int player, int figure);
/* Goods tokens (carc_goods) a player holds (Traders & Builders). */
int carc_goods_held(const carc_game *g, int player, int goods);
/* 1 if the turn now being played is a builder's extra turn. */
int carc_bonus_turn(const carc_game *g);
/* Totals so far (after the end: final totals). */
void carc_game_scores(const carc_game *g, int *scores);
/* Totals after the last turn's own scoring, before the final scoring
 * (what a record's last turn shows); during the game the same as
 * carc_game_scores. */
void carc_game_turn_scores(const carc_game *g, int *scores);
/* Points of player p by kind so far (carc_score_kind). */
int carc_score_by_kind(const carc_game *g, int player, int kind);
uint64_t carc_game_hash(const carc_game *g);

/* ---- moves -------------------------------------------------------------------------- */

/* All placements (figure field = none) of the current tile, distinct
 * rotations only, into buf (room for max). Returns the count; 0 at the end
 * of the game. When the tile fits nowhere, returns 1: CARC_MOVE_DISCARD. */
int carc_placements(const carc_game *g, carc_move *buf, int max);
/* Figure options of one placement (moves with the figure set), not
 * including "no figure". Returns the count. */
int carc_figure_options(const carc_game *g, carc_move placement,
                        carc_move *buf, int max);
/* Every legal move: each placement with no figure and with each figure
 * option. Returns the count (0 at the end). */
int carc_legal_moves(const carc_game *g, carc_move *buf, int max);
/* Checks a move; CARC_OK or CARC_ERR_ILLEGAL with a message. */
carc_status carc_check_move(const carc_game *g, carc_move m,
                            char err[CARC_ERRMSG_SIZE]);
/* Applies a move without checking it, for search: m must be one of the
 * moves carc_placements, carc_figure_options or carc_legal_moves gave for
 * this very state (anything else corrupts the game). */
void carc_apply_unchecked(carc_game *g, carc_move m, carc_events *ev);
/* Checks and applies a move; an illegal move leaves the game unchanged.
 * `ev`, if not NULL, receives the scoring events of the move (and of the
 * final scoring when the move ends the game). */
carc_status carc_apply(carc_game *g, carc_move m, carc_events *ev,
                       char err[CARC_ERRMSG_SIZE]);

/* ---- chance: the draw ---------------------------------------------------------------- */

/* Sets the tile drawn now: type must still be in the pile. The pile
 * order after it is kept otherwise. CARC_ERR_ARG if it is not there. */
carc_status carc_set_current_tile(carc_game *g, int type);
/* Reshuffles the tiles not drawn yet (the current one included) from seed:
 * for search over unknown draws. */
void carc_shuffle_rest(carc_game *g, uint64_t seed);

/* ---- the board ------------------------------------------------------------------------ */

/* Tile at (x, y): returns the index into g->tiles, or -1 if empty. */
int carc_tile_at(const carc_game *g, int x, int y);
/* Tiles on the board (the start tile is index 0, then in order of play). */
int carc_board_tiles(const carc_game *g);
/* Tile i of the board: type, square, rotation, who placed it (-1 for the
 * start tile). Returns 0, or -1 if i is out of range. */
int carc_board_tile(const carc_game *g, int i, int *type, int *x, int *y, int *rot,
                    int *player);
/* Figures on the board: fills up to max entries of (owner, figure kind,
 * board tile index, segment index of that tile's type) and returns the
 * count. */
typedef struct carc_figure_info {
	int owner, kind, tile, seg;
} carc_figure_info;
int carc_board_figures(const carc_game *g, carc_figure_info *out, int max);
/* The rules and seed the game was made with. */
void carc_game_rules(const carc_game *g, carc_rules *out);
uint64_t carc_game_seed(const carc_game *g);
/* 1 if a tile of this type may be drawn now (it is left in the pile, and
 * River tiles come first, the lake last), else 0. */
int carc_tile_drawable(const carc_game *g, int type);
/* Players at the table (2..6). */
int carc_players(const carc_game *g);
/* Turns played so far, and turn k of them (0 = the first): the move
 * (CARC_MOVE_DISCARD for a tile set aside), the tile type drawn and the
 * player. Returns the move, or CARC_MOVE_NONE if k is out of range. */
int carc_turns_played(const carc_game *g);
carc_move carc_turn_played(const carc_game *g, int k, int *type, int *player);

/* ---- features ------------------------------------------------------------------------- */

/*
 * Every road, city, field, cloister, garden and river stretch on the board
 * is a feature. Each segment of a board tile has a node number (below
 * CARC_MAX_NODES); the segments of one feature share one of their node
 * numbers as the feature's id. Node numbers never change, and a move only
 * joins features, so a number taken from an earlier position of the same
 * game is still good: carc_feature_find gives the id it belongs to now.
 * Every call below accepts such a number in place of an id.
 */

/* The id of the feature holding segment seg of board tile i, -1 if i or
 * seg is out of range. */
int carc_feature_id(const carc_game *g, int tile, int seg);
/* The current id of the feature that node (or an old id) belongs to. */
int carc_feature_find(const carc_game *g, int node);
/* The kind (carc_feature_kind), the open sides of a road, city or river,
 * the figures occupying it (followers, big followers, abbots; not pigs or
 * builders), and whether a road or city was completed and scored. */
int carc_feature_kind_of(const carc_game *g, int id);
int carc_feature_open(const carc_game *g, int id);
int carc_feature_figures(const carc_game *g, int id);
int carc_feature_done(const carc_game *g, int id);
/* The number of distinct board tiles the feature spans (walks it). */
int carc_feature_tiles(const carc_game *g, int id);

/* What a feature is, in one record (small fields: bots keep arrays of them). */
typedef struct carc_feature_info {
	uint16_t id;
	uint8_t kind;       /* carc_feature_kind */
	uint8_t open;       /* open sides (road, city, river) */
	uint8_t tiles;      /* distinct tiles; 0 when not asked for */
	uint8_t shields;
	uint8_t flags;      /* CARC_SEGF_* of its segments united */
	uint8_t done;       /* 1: a road or city completed and scored */
	uint8_t neighbours; /* cloister, garden: board tiles around it, 0..8 */
	uint8_t pigs;       /* players with a pig on it (bit p = player p) */
	uint8_t weight[CARC_MAX_PLAYERS];  /* majority weight: follower 1, big 2;
	                                      cloister, garden: 1 for a follower,
	                                      big follower or abbot */
	uint8_t figures[CARC_MAX_PLAYERS]; /* figures of any kind of each player */
} carc_feature_info;

/* Fills *out for the feature; counts its tiles only if count_tiles (that
 * walks it), and its figures only if count_figures (that scans every
 * figure on the board). Returns 0, or -1 if id is out of range. */
int carc_feature_get(const carc_game *g, int id, int count_tiles, int count_figures,
                     carc_feature_info *out);
/* The features with at least one figure on them (any kind), in the order
 * of their first figure; figures counted, tiles only if count_tiles.
 * Returns how many (at most max are written). */
int carc_held_features(const carc_game *g, carc_feature_info *out, int max,
                       int count_tiles);
/* The ids of the cities a field borders (completed or not), each once.
 * Returns how many (at most max are written). */
int carc_field_cities(const carc_game *g, int field, uint16_t *ids, int max);

/* ---- debug ---------------------------------------------------------------------------- */

/* Recomputes every feature, open side, figure count, frontier square and
 * score total from scratch and compares them with the incremental state.
 * Returns CARC_OK, or CARC_ERR_ARG with what differs in err. */
carc_status carc_game_check(const carc_game *g, char err[CARC_ERRMSG_SIZE]);

/* ---- records (carc-record-1 JSON) ----------------------------------------------------- */

/* Writes the game as a carc-record-1 JSON text. Returns a malloc'd string
 * the caller frees with free(), or NULL when out of memory. `extra`, if not
 * NULL, is a JSON object text whose keys are added to the record. */
char *carc_record_write(const carc_game *g, const char *extra);

/*
 * Reads a record and plays it through the engine, checking every turn.
 * On success *out holds the game as the record leaves it. On failure
 * returns CARC_ERR_PARSE or CARC_ERR_RECORD with a message naming the turn,
 * the key and what was expected; *out is then undefined.
 */
carc_status carc_record_replay(const char *json, size_t len, carc_game *out,
                               char *err, size_t errsize);

#ifdef __cplusplus
}
#endif

#endif
