/*
 * carc.h - the public API of libcarc, a Carcassonne rules engine.
 *
 * The only header an embedder needs. A game is an opaque handle: its size
 * is carc_game_size(), it lives in memory the caller owns (carc_game_new,
 * or any carc_game_size() bytes aligned like a double) and it is copied
 * with carc_game_copy. Nothing is allocated after it is set up, and the
 * library keeps no mutable globals, so games may be used from many threads
 * at once (one thread per game). How much a game holds (tiles, figures,
 * decisions) is the engine's business: it is sized for every combination
 * of the expansions it knows with six players; carc_limit() tells the
 * figures where a caller needs them.
 *
 * A turn is a sequence of steps, and a step is one player's decision. The
 * turn starts with the tile step: the player to move places the drawn tile
 * (x, y, rotation), with the figure put on it or none, or sets it aside
 * when it fits nowhere; the rules may then give further steps (of this
 * player or of others) before the next turn. carc_step_kind() and
 * carc_to_move() say what is decided now and by whom; carc_legal_moves()
 * lists every legal decision of the current step; carc_apply() takes one.
 * A decision is a carc_move: a number whose meaning depends on the step it
 * is made in (the tile step's layout is below, for bots; every other step's
 * decisions are read and written as JSON, carc_move_json / carc_move_parse).
 *
 *     carc_rules r;  carc_rules_default(&r);  r.players = 3;
 *     carc_game *g = carc_game_new(&r, seed, NULL, 0, err);
 *     while (!carc_game_over(g)) {
 *         carc_move moves[CARC_MAX_MOVES];
 *         int n = carc_legal_moves(g, moves, CARC_MAX_MOVES);
 *         carc_apply(g, moves[pick(n)], NULL, NULL);   // validated
 *     }
 *     carc_game_scores(g, totals);
 *     carc_game_free(g);
 *
 * Names (figures, features, scoring kinds, goods, tile sets, steps, tiles,
 * ports, expansions) exist once, here: carc_name() gives the name a record
 * and the server's JSON use for each, carc_vocabulary_json() all of them.
 * The JSON views (carc_view_*) say what a position is and what each
 * decision would do, so that a client needs no rule of its own.
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

/* ---- buffer bounds of the API ------------------------------------------------ */

/* These bound what the functions below write into a caller's buffer; they
 * are promises of the API, not the engine's capacities (carc_limit). */
#define CARC_MAX_PLAYERS 6
#define CARC_MAX_SEGS 10      /* segments on one tile */
#define CARC_MAX_MOVES 4096   /* legal decisions of one step, an upper bound */
#define CARC_MAX_FIGURES 96   /* figures on the board at once, every kind */
#define CARC_MAX_FEATURE_IDS 1024 /* feature ids (and node numbers) are below this */
#define CARC_PORT_CENTRE 12 /* "C": the cloister or garden */
#define CARC_PORT_INNER 13  /* "I": a field that touches no edge */
#define CARC_ERRMSG_SIZE 160

/* The engine's capacities, for bindings and for callers that size arrays
 * by them (they may grow from one version to the next). */
typedef enum carc_limit_kind {
	CARC_LIMIT_BOARD_TILES = 0, /* tiles on the board, the start tile included */
	CARC_LIMIT_STEPS,           /* decisions in one game */
	CARC_LIMIT_FIGURES,         /* figures on the board at once (<= CARC_MAX_FIGURES) */
	CARC_LIMIT_FEATURE_IDS,     /* feature ids are below this (<= CARC_MAX_FEATURE_IDS) */
	CARC_LIMIT_TILE_TYPES,      /* tile types the engine knows: 0 .. n-1 */
	CARC_LIMIT_MOVES,           /* legal decisions of one step (<= CARC_MAX_MOVES) */
	CARC_LIMIT_COUNT
} carc_limit_kind;
int carc_limit(int what);

/* ---- enums ------------------------------------------------------------------- */

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
	CARC_SCORE_FAIRY,  /* Princess & Dragon: the fairy's points */
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
	CARC_SET_PRINCESS, /* Princess & Dragon */
	CARC_SET_COUNT
} carc_tileset;

/* Expansions and their options: bits of carc_rules.expansions, each named
 * by carc_expansion_name. A build of the engine may know more of them than
 * these (a test build has a step kind of its own): carc_expansion_parse
 * and carc_name(CARC_NAMES_EXPANSION, i) list what this one knows. */
#define CARC_EXP_RIVER 0x01u       /* "river" */
#define CARC_EXP_INNS 0x02u        /* "inns-cathedrals": tiles, big follower */
#define CARC_EXP_INNS_TILES 0x04u  /* "inns-cathedrals-tiles": its tiles only */
#define CARC_EXP_TRADERS 0x08u     /* "traders-builders": tiles, goods,
                                      builder, pig */
#define CARC_EXP_ABBOT 0x10u       /* "abbot": gardens and the abbot */
#define CARC_EXP_PRINCESS 0x20u    /* "princess-dragon": its tiles, the
                                      dragon, the fairy, the magic portal
                                      and the princess */

typedef enum carc_goods {
	CARC_GOODS_NONE = 0,
	CARC_GOODS_WINE,
	CARC_GOODS_GRAIN,
	CARC_GOODS_CLOTH,
	CARC_GOODS_COUNT
} carc_goods;

/* Kinds of step. The tile step is the one every rule set has; the others
 * come with expansions and are known by their names (carc_name with
 * CARC_NAMES_STEP), so that a program that shows or stores decisions needs
 * no code of its own for each. */
#define CARC_STEP_TILE 0
/* Princess & Dragon: "action" (after a tile step that placed no figure:
 * move the fairy, use the magic portal or the princess, or nothing) and
 * "dragon" (one square of the dragon's movement). */
#define CARC_STEP_ACTION 1
#define CARC_STEP_DRAGON 2

/* Segment flags */
#define CARC_SEGF_SHIELD 0x01u
#define CARC_SEGF_INN 0x02u
#define CARC_SEGF_CATHEDRAL 0x04u
#define CARC_SEGF_PRINCESS 0x08u /* Princess & Dragon: the princess's city */

/* Tile symbols (Princess & Dragon): carc_tile_symbol */
#define CARC_SYM_NONE 0
#define CARC_SYM_VOLCANO 1
#define CARC_SYM_DRAGON 2
#define CARC_SYM_PORTAL 3
#define CARC_SYM_PRINCESS 4

/* ---- names --------------------------------------------------------------------- */

/* Every name the engine gives, by list. Index i of a list is the enum
 * value above (CARC_NAMES_FIGURE: carc_figure, ...); CARC_NAMES_EXPANSION
 * index i is the bit 1 << i; CARC_NAMES_TILE index i is the tile type. */
typedef enum carc_names {
	CARC_NAMES_FIGURE = 0,   /* "follower", "big", "builder", "pig", "abbot" */
	CARC_NAMES_FEATURE,      /* "city", "road", "field", "cloister", "garden", "river" */
	CARC_NAMES_SCORE,        /* "road", "city", "cloister", "farm", "garden", "goods" */
	CARC_NAMES_GOODS,        /* "none", "wine", "grain", "cloth" */
	CARC_NAMES_TILESET,      /* "base", "river", "inns-cathedrals", "traders-builders" */
	CARC_NAMES_STEP,         /* "tile", ... */
	CARC_NAMES_EXPANSION,    /* "river", "inns-cathedrals", ... */
	CARC_NAMES_FARM_SCORING, /* "international", "city-once", "first-edition" */
	CARC_NAMES_PORT,         /* "N0" .. "W2", "C", "I" */
	CARC_NAMES_TILE,         /* "A" .. "X", "r1", "ic6", "tb14", "Eg", ... */
	CARC_NAMES_FIGURE_WORDS, /* figures in English words: "follower", "big follower", ... */
	CARC_NAMES_SYMBOL,       /* tile symbols: "none", "volcano", "dragon", "portal", "princess" */
	CARC_NAMES_COUNT
} carc_names;
/* How many names list `what` has (0 for an unknown list). */
int carc_name_count(int what);
/* Name i of list `what` (a static string), NULL when there is none. */
const char *carc_name(int what, int i);
/* The index of a name in list `what`, -1 when it is not there. */
int carc_name_parse(int what, const char *name);
/* Every list above as one JSON object (malloc'd text, the caller frees):
 * {"figures": [...], "features": [...], "score_kinds": [...], "goods":
 * [...], "tile_sets": [...], "steps": [...], "expansions": [...],
 * "farm_scoring": [...], "ports": [...], "tiles": [...]}; NULL when out of
 * memory. */
char *carc_vocabulary_json(void);

/* ---- random numbers ------------------------------------------------------------ */

/* SplitMix64: the generator of the shuffle (docs/rng.md), for anyone who
 * needs the same numbers on every machine. Advances *state. */
static inline uint64_t carc_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* ---- rules ----------------------------------------------------------------------- */

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
/* Reads rules from the JSON object text of a record's "rules" key
 * ({"players": 3, "farmers": true, "farm_scoring": "city-once",
 * "small_city": false, "expansions": ["river"], "tiles": {"D": 3}}; every
 * key but players optional): *r, and the pile's counts per tile type
 * into pile (room for carc_limit(CARC_LIMIT_TILE_TYPES)) with *have_pile
 * 1 when "tiles" is given. pile may be NULL when have_pile is. CARC_OK, or
 * CARC_ERR_PARSE / CARC_ERR_ARG with what is wrong in err. */
carc_status carc_rules_from_json(const char *json, size_t len, carc_rules *r, int *pile,
                                 int *have_pile, char err[CARC_ERRMSG_SIZE]);

/* Name of one expansion bit ("river", ...), NULL if not one; parse
 * returns the bit or 0 for an unknown name. */
const char *carc_expansion_name(unsigned bit);
unsigned carc_expansion_parse(const char *name);
/* Every expansion bit this build knows, ORed. */
unsigned carc_expansions_known(void);
/* The standard pile of a rule set: counts per tile type into counts (room
 * for carc_limit(CARC_LIMIT_TILE_TYPES) entries), start tile not included.
 * Returns the number of tiles. */
int carc_rules_pile(const carc_rules *r, int *counts);
/* The start tile of a rule set (D, or the spring with the River). */
int carc_rules_start_tile(const carc_rules *r);
/* The most players the expansions (CARC_EXP_* bits) allow: 5, 6 with
 * either Inns & Cathedrals option. */
int carc_rules_max_players(unsigned expansions);
/* Figures of kind `figure` each player has at the start of a game of
 * these rules. */
int carc_rules_supply(const carc_rules *r, int figure);
/* Whether a game of these rules can score points of kind `kind`
 * (carc_score_kind): the base game's four always, gardens with the Abbot,
 * goods with Traders & Builders. */
int carc_rules_score_kind(const carc_rules *r, int kind);

/* Name of a farm-scoring edition ("international", "city-once",
 * "first-edition"); parse returns -1 for an unknown name. */
const char *carc_farm_scoring_name(int fs);
int carc_farm_scoring_parse(const char *name);

/* ---- tiles ------------------------------------------------------------------------ */

/* Tile type by name ("A".."X", "r1", "ic6", "tb14", "Eg", ...); -1 if
 * unknown. Types are 0 .. carc_limit(CARC_LIMIT_TILE_TYPES) - 1. */
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
/* The tile's symbol (CARC_SYM_*; Princess & Dragon), CARC_SYM_NONE for
 * most tiles or a bad type. */
int carc_tile_symbol(int type);
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
/* Every tile type as JSON (malloc'd text, the caller frees; NULL when out
 * of memory): {"format": "carc-tiles-1", "ports": [...], "start": {...},
 * "tiles": [{"name", "set", "count", "edges", "note", "segments": [...]}]}
 * (docs/tiles.md). */
char *carc_tiles_json(void);

/* ---- decisions ------------------------------------------------------------------- */

/*
 * A decision of the tile step is a 32-bit integer:
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
 *
 * A decision of any other step is a number whose meaning is the engine's;
 * carc_move_json and carc_move_parse read and write it.
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

/* ---- the game --------------------------------------------------------------------- */

typedef struct carc_game carc_game;

/* Bytes of one game, for callers that place games in memory of their own
 * (aligned like a double); carc_game_init sets one up there. */
size_t carc_game_size(void);
/*
 * Sets up a new game in caller-owned memory (carc_game_size() bytes).
 * `pile`, if not NULL, gives the draw pile as counts per tile type
 * (npile_types entries, start tile not included), e.g. for scenarios; NULL
 * means the standard pile of the rule set. The pile is shuffled from
 * `seed` (see docs/rng.md: SplitMix64 and a Fisher-Yates shuffle), so a
 * seed fixes the draw order on every machine. Returns CARC_OK, or
 * CARC_ERR_ARG with a message in err (may be NULL).
 */
carc_status carc_game_init(carc_game *g, const carc_rules *r, uint64_t seed,
                           const int *pile, int npile_types,
                           char err[CARC_ERRMSG_SIZE]);
/* A new game from malloc (carc_game_init's arguments); NULL with a message
 * in err when the arguments are bad or memory is out. The caller frees it
 * with carc_game_free. */
carc_game *carc_game_new(const carc_rules *r, uint64_t seed, const int *pile,
                         int npile_types, char err[CARC_ERRMSG_SIZE]);
/* carc_game_size() bytes from malloc, not set up (NULL when out of
 * memory); for carc_game_init or carc_game_copy. */
carc_game *carc_game_alloc(void);
/* A copy of src from malloc (NULL when out of memory). */
carc_game *carc_game_clone(const carc_game *src);
void carc_game_free(carc_game *g);
/* Copies a game: dst becomes the same game as src (only the used parts
 * of the state are copied: cheap early in a game). */
void carc_game_copy(carc_game *dst, const carc_game *src);

/* ---- asking the state -------------------------------------------------------------- */

int carc_game_over(const carc_game *g);
/* Whose decision the current step is: player 0..players-1. */
int carc_to_move(const carc_game *g);
/* The kind of the current step (CARC_STEP_TILE, or another kind named by
 * carc_name(CARC_NAMES_STEP, k)); -1 when the game is over. */
int carc_step_kind(const carc_game *g);
/* The player whose turn it is (who drew the tile): the same as
 * carc_to_move in the tile step, maybe another in later steps. */
int carc_turn_player(const carc_game *g);
int carc_current_tile(const carc_game *g);       /* tile type, -1 at the end */
int carc_tiles_left(const carc_game *g);         /* current one included */
/* Tiles left of one type (current tile included). */
int carc_tiles_left_of(const carc_game *g, int type);
int carc_supply(const carc_game *g, int player, int figure);
/* Goods tokens (carc_goods) a player holds (Traders & Builders). */
int carc_goods_held(const carc_game *g, int player, int goods);
/* 1 if the turn now being played is a builder's extra turn. */
int carc_bonus_turn(const carc_game *g);
/* Princess & Dragon: the board tile index the dragon stands on, -1 while
 * it is not in play; the fairy's tile, -1 before it is first moved, and
 * the figure it stands next to (an index of carc_board_figures' list as it
 * is now), -1 when none; the squares the dragon has visited in the
 * movement under way (its start first; 0 when it is not moving) into
 * tiles (room for 7 board tile indices). */
int carc_dragon_tile(const carc_game *g);
int carc_fairy_tile(const carc_game *g, int *figure);
int carc_dragon_visited(const carc_game *g, int *tiles);
/* Totals so far (after the end: final totals). */
void carc_game_scores(const carc_game *g, int *scores);
/* Totals after the last turn's own scoring, before the final scoring
 * (what a record's last turn shows); during the game the same as
 * carc_game_scores. */
void carc_game_turn_scores(const carc_game *g, int *scores);
/* Points of player p by kind so far (carc_score_kind). */
int carc_score_by_kind(const carc_game *g, int player, int kind);
uint64_t carc_game_hash(const carc_game *g);

/* ---- events ----------------------------------------------------------------------------- */

/* What a step did besides its decision, reported by carc_apply when asked
 * for: points scored (CARC_EV_SCORED, with the points of each player) and
 * figures that went back to their owners (CARC_EV_RETURNED). */
#define CARC_EV_SCORED 0
#define CARC_EV_RETURNED 1
typedef struct carc_event {
	uint8_t type;        /* CARC_EV_SCORED or CARC_EV_RETURNED */
	uint8_t kind;        /* scored: carc_score_kind; returned: carc_figure */
	uint8_t final;       /* 1: in the final scoring */
	uint8_t tiles;       /* scored: tiles of the feature (cloister: 1 + around) */
	uint16_t tile;       /* a tile of the feature (board tile index) */
	uint8_t seg;         /* its segment index */
	int8_t player;       /* returned: the owner */
	int16_t points[CARC_MAX_PLAYERS]; /* scored: what each player got */
} carc_event;

#define CARC_MAX_EVENTS 256
typedef struct carc_events {
	int n;
	carc_event ev[CARC_MAX_EVENTS];
} carc_events;
/* sizeof(carc_events), for bindings that allocate it as bytes. */
size_t carc_events_size(void);

/* ---- moves -------------------------------------------------------------------------- */

/* The tile step's placements (figure field = none) of the current tile,
 * distinct rotations only, into buf (room for max). Returns the count; 0
 * at the end of the game or in another step. When the tile fits nowhere,
 * returns 1: CARC_MOVE_DISCARD. */
int carc_placements(const carc_game *g, carc_move *buf, int max);
/* Figure options of one placement of the tile step (moves with the figure
 * set), not including "no figure". Returns the count. */
int carc_figure_options(const carc_game *g, carc_move placement,
                        carc_move *buf, int max);
/* Every legal decision of the current step (in the tile step: each
 * placement with no figure and with each figure option). Returns the
 * count (0 at the end). */
int carc_legal_moves(const carc_game *g, carc_move *buf, int max);
/* Checks a decision; CARC_OK or CARC_ERR_ILLEGAL with a message. */
carc_status carc_check_move(const carc_game *g, carc_move m,
                            char err[CARC_ERRMSG_SIZE]);
/* Applies a decision without checking it, for search: m must be one of the
 * decisions carc_placements, carc_figure_options or carc_legal_moves gave
 * for this very state (anything else corrupts the game). */
void carc_apply_unchecked(carc_game *g, carc_move m, carc_events *ev);
/* Checks and applies a decision; an illegal one leaves the game unchanged.
 * `ev`, if not NULL, receives the events of the step (and of the final
 * scoring when the step ends the game). */
carc_status carc_apply(carc_game *g, carc_move m, carc_events *ev,
                       char err[CARC_ERRMSG_SIZE]);

/* A decision of g's current step as JSON (malloc'd text, the caller frees;
 * NULL when out of memory), in the form of a record's turn (docs/records.md):
 *   tile step   {"x": 1, "y": 0, "rot": 3, "meeple": {"kind": "follower",
 *               "at": "E1"}}, "meeple": null for none, "abbot_recalled":
 *               true for a recall, {"discarded": true} for a set-aside tile
 *   other steps one key, the step's name, with the decision as its value:
 *               {"test-pass": 1}
 * The one writer of a decision's JSON: records, the server and `carc
 * engine` use it. */
char *carc_move_json(const carc_game *g, carc_move m);
/* Reads a decision of g's current step from a JSON object text (other keys
 * of the object are left alone: a record's turn or a message may hold
 * them). Accepts "discard": true for "discarded": true. CARC_OK with *m
 * a legal decision, or CARC_ERR_PARSE (not an object, a key missing or of
 * the wrong type) / CARC_ERR_ILLEGAL (no such legal decision) with what is
 * wrong in err. The one reader of a decision's JSON (include/carc_jansson.h:
 * the same for a program that holds the object as a jansson value). */
carc_status carc_move_parse(const carc_game *g, const char *json, size_t len, carc_move *m,
                            char err[CARC_ERRMSG_SIZE]);
/* Whether a decision of g's current step may have the key `path` (a key,
 * or a nested one as "meeple.kind"): for a caller that refuses keys it
 * does not know, without a list of its own. */
int carc_move_key(const carc_game *g, const char *path);
/* The keys of a decision of g's current step, for messages: of its top
 * level (object NULL): "x, y, rot, meeple, abbot_recalled, discarded"; of
 * a nested object ("meeple"): "kind, at" (a static string, "" for none). */
const char *carc_move_keys(const carc_game *g, const char *object);
/* Whether a rules object (carc_rules_from_json, a record's "rules") may
 * have the key, and all its keys for messages (a static string). */
int carc_rules_key(const char *key);
const char *carc_rules_keys(void);
/* A decision of g's current step in a few words for people and logs:
 * "(1,0) rot 3 follower E1", "(1,0) rot 3", "set aside", "pass 1". */
void carc_move_text(const carc_game *g, carc_move m, char *buf, size_t size);

/* ---- chance: the draw ---------------------------------------------------------------- */

/* Sets the tile drawn now: type must still be in the pile. The pile
 * order after it is kept otherwise. CARC_ERR_ARG if it is not there, or
 * when the current step is not a tile step. */
carc_status carc_set_current_tile(carc_game *g, int type);
/* Reshuffles the tiles not drawn yet (the current one included) from seed:
 * for search over unknown draws. */
void carc_shuffle_rest(carc_game *g, uint64_t seed);

/* ---- the board ------------------------------------------------------------------------ */

/* Tile at (x, y): returns the board tile index, or -1 if empty. */
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
/* The draw pile the game was dealt: counts per tile type into counts
 * (room for carc_limit(CARC_LIMIT_TILE_TYPES)); 1 when it is the rule
 * set's standard pile, 0 when a custom one. */
int carc_game_pile(const carc_game *g, int *counts);
/* 1 if a tile of this type may be drawn now (it is left in the pile, and
 * River tiles come first, the lake last), else 0. */
int carc_tile_drawable(const carc_game *g, int type);
/* Players at the table (2..6). */
int carc_players(const carc_game *g);
/* Turns played so far (tiles drawn and played or set aside), and turn k of
 * them (0 = the first): its tile step's decision (CARC_MOVE_DISCARD for a
 * tile set aside), the tile type drawn and the player. Returns the
 * decision, or CARC_MOVE_NONE if k is out of range. */
int carc_turns_played(const carc_game *g);
carc_move carc_turn_played(const carc_game *g, int k, int *type, int *player);

/* Steps (decisions) made so far, and step k of them: its kind, the player
 * who decided, the turn it belongs to (0-based) and the decision. */
typedef struct carc_step_info {
	int kind;      /* CARC_STEP_TILE or another kind (carc_name CARC_NAMES_STEP) */
	int player;    /* who decided */
	int turn;      /* the turn (0-based) the step belongs to */
	int tile;      /* the turn's tile type */
	carc_move move;
} carc_step_info;
int carc_steps_played(const carc_game *g);
/* Returns 0, or -1 if k is out of range. */
int carc_step_played(const carc_game *g, int k, carc_step_info *out);
/* The same through pointers (any may be NULL), for bindings. */
int carc_step_get(const carc_game *g, int k, int *kind, int *player, int *turn, int *tile,
                  carc_move *move);

/* ---- features ------------------------------------------------------------------------- */

/*
 * Every road, city, field, cloister, garden and river stretch on the board
 * is a feature. Each segment of a board tile has a node number (below
 * CARC_MAX_FEATURE_IDS); the segments of one feature share one of their
 * node numbers as the feature's id. Node numbers never change, and a move
 * only joins features, so a number taken from an earlier position of the
 * same game is still good: carc_feature_find gives the id it belongs to
 * now. Every call below accepts such a number in place of an id.
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
/* What a feature would score now: completed, the points its holders get
 * when it is completed by this move; not completed, the points it scores
 * at the end as it stands (a field: its farm points under the game's
 * farm scoring, to a holder without a pig). */
int carc_feature_value(const carc_game *g, int id);

/* ---- JSON views -------------------------------------------------------------------------- */

/*
 * What a position is and what each decision would do, as JSON texts
 * (malloc'd, the caller frees; NULL when out of memory), for programs that
 * show a game (the server's clients, Python). Their forms are in
 * docs/protocol.md ("The engine's views"); names are carc_name's.
 */
/* Parts of carc_view_json, ORed. */
#define CARC_VIEW_BOARD 0x01u   /* "board": [{"x", "y", "tile", "rot", "player"}] */
#define CARC_VIEW_FIGURES 0x02u /* "figures": [{"player", "kind", "x", "y", "at", "feature"}] */
#define CARC_VIEW_SUPPLY 0x04u  /* "supply": [{"follower": 7, ...}] per player */
#define CARC_VIEW_SCORES 0x08u  /* "scores", "by_kind", "goods" */
#define CARC_VIEW_TURN 0x10u    /* "next": the current step with its legal decisions */
#define CARC_VIEW_FINAL 0x20u   /* "final": null, or the final scores and winners */
#define CARC_VIEW_ALL 0x3Fu
/* An object with the parts asked for. */
char *carc_view_json(const carc_game *g, unsigned parts);
/* The same object's members without the braces ("\"board\":[...],..."),
 * to splice into a message of one's own; "" when parts is 0. */
char *carc_view_members(const carc_game *g, unsigned parts);
/* The step just made (the last of carc_steps_played) as a log entry: the
 * turn, step, player, tile, the decision's keys (as carc_move_json), the
 * goods taken, the scores after it and its events with where they were
 * ([{"kind", "final", "tiles", "points", "x", "y", "at", ...}] for points
 * scored, [{"returned": kind, "player", "final", "x", "y", "at"}] for
 * figures going home), and every player's supply after it. `ev` holds the
 * step's events (carc_apply's), NULL for none. NULL when no step was made. */
char *carc_view_step(const carc_game *g, const carc_events *ev);
/* What a decision of the current step would do, without making it: for a
 * placement of the tile step, the features each of its figure options
 * would join ({"at", "kind", "feature": {"kind", "tiles", "open", "shields",
 * "value", "holders": [...]}}) and what the tile completes and scores at
 * once ("scores": [{"kind", "points", ...}]). NULL with err for a decision
 * that is not legal. */
char *carc_view_preview(const carc_game *g, carc_move m, char err[CARC_ERRMSG_SIZE]);
/* The feature at port `port` of the board tile at (x, y): its kind, the
 * squares and ports it covers ("parts": [{"x", "y", "at"}]), open sides,
 * shields, whether it is done, its value now, its holders and figures.
 * NULL with err when there is no such feature. */
char *carc_view_feature(const carc_game *g, int x, int y, int port,
                        char err[CARC_ERRMSG_SIZE]);

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
/* The same with options: CARC_RECORD_HIDE_SEED writes "seed": 0 (a game
 * being played: the seed would tell the tiles still to come). */
#define CARC_RECORD_HIDE_SEED 0x1u
char *carc_record_write_with(const carc_game *g, const char *extra, unsigned flags);

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
