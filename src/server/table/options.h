/*
 * options.h - a table's options: what a client asks for when it creates a
 * table, checked and turned into engine rules and bot specs. The mapping
 * of expansion names to rules and of bot levels to bot specs lives in
 * options.c and nowhere else.
 */
#ifndef CARC_SERVER_OPTIONS_H
#define CARC_SERVER_OPTIONS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "carc.h"
#include "server.h"
#include "store.h"

#define OPT_MAX_EXPANSIONS 8
/* Tile types a custom pile may name: the engine's types are below
 * carc_limit(CARC_LIMIT_TILE_TYPES), which the server checks is at most
 * this when it starts (opt_check_engine). */
#define OPT_TILE_TYPES 256

/* Seat colours: the palette of the web client (web/js/colors.js), in its
 * order. A colour is its index here; -1 is "none chosen". */
#define OPT_COLOUR_COUNT 6

typedef struct srv_seat_opt {
	int bot;                       /* 1: a bot plays this seat */
	char level[STORE_NAME_SIZE];   /* the level asked for: "random", "easy", ... */
	char spec[STORE_SPEC_SIZE];    /* the level's spec (within the ceilings) */
	int colour;                    /* 0..OPT_COLOUR_COUNT-1, after opt_parse always set */
	char name[STORE_NAME_SIZE];    /* pass-and-play: the person's name ("": Player N) */
} srv_seat_opt;

/* A table's clock (clock.c keeps the time; docs/server.md "Clocks"):
 * none (no time limit, the default), real-time (seconds per move plus a
 * reserve per seat) or turn-based (hours or days per move). `takeover` is
 * the bot level that plays a move whose time ran out and the seats given
 * up (resigned, or timed out max_timeouts times in a row); it applies to
 * resignations also without a clock. */
enum { OPT_CLOCK_NONE = 0, OPT_CLOCK_REALTIME, OPT_CLOCK_TURN, OPT_CLOCK_COUNT };

#define OPT_CLOCK_RT_MOVE_MIN 1          /* real-time: s per move */
#define OPT_CLOCK_RT_MOVE_MAX 3600
#define OPT_CLOCK_RT_RESERVE_MAX 3600
#define OPT_CLOCK_TB_MOVE_MIN 3600       /* turn-based: 1 hour .. 30 days per move */
#define OPT_CLOCK_TB_MOVE_MAX (30 * 86400)
#define OPT_CLOCK_TB_RESERVE_MAX (30 * 86400)
#define OPT_CLOCK_MAX_TIMEOUTS 100

typedef struct srv_clock_opt {
	int mode;                          /* OPT_CLOCK_* */
	int move_s;                        /* time per move */
	int reserve_s;                     /* each seat's reserve at the start */
	int max_timeouts;                  /* timed-out moves in a row before the bot takes the seat */
	char takeover[STORE_NAME_SIZE];    /* bot level */
	char takeover_spec[STORE_SPEC_SIZE];
} srv_clock_opt;

const char *opt_clock_mode_name(int mode);

typedef struct srv_table_opts {
	carc_rules rules;
	int nexp;
	char expansions[OPT_MAX_EXPANSIONS][32];
	uint64_t seed;
	int has_pile;
	int pile[OPT_TILE_TYPES];      /* custom draw pile, counts per type */
	int bot_delay_ms;
	int private_;                  /* 1: not listed among open tables */
	int spectator_chat;            /* 1: spectators may write in the chat (chat.c) */
	int pass_and_play;             /* 1: the creator holds every human seat */
	int tutorial;                  /* 1: the guided first game (web/js/guide.js): never rated */
	int rated;                     /* 0: "rated": false, never rated (training: undo.c); default 1 */
	char match[STORE_POOL_SIZE];   /* a quick-match table (match.c): its pool, "2/base/rt-60";
	                                * "" otherwise. Set by match.c, stored, never a client's */
	int nseats;                    /* == rules.players */
	srv_seat_opt seat[CARC_MAX_PLAYERS];
	srv_clock_opt clock;
} srv_table_opts;

/* Reads table options from a JSON object (see docs/protocol.md, "Creating
 * a table"). Missing keys take defaults; the seed is random unless given.
 * Returns 0, or -1 with a message naming the bad key in err. `o` is
 * borrowed. */
int opt_parse(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
              size_t errsize);
/* The same for the options a table stored (opt_to_json's): also the keys
 * only the server sets ("match"). */
int opt_parse_stored(const json_t *o, int default_bot_delay_ms, srv_table_opts *out, char *err,
                     size_t errsize);

/* A seed from JSON: an integer 0..INT64_MAX or a string of decimal digits
 * 0..UINT64_MAX. Returns 0, or -1 when v is anything else. */
int opt_seed_parse(const json_t *v, uint64_t *out);
/* A seed as JSON, the way opt_seed_parse reads it back (a string above
 * INT64_MAX). The caller owns the result. */
json_t *opt_seed_json(uint64_t seed);

/* The options as a JSON object that opt_parse reads back to the same
 * options (this is what is stored). The caller owns the result (json_decref). */
json_t *opt_to_json(const srv_table_opts *o);
/* Sets up a new game of these options (rules, seed, pile) in g (memory of
 * carc_game_size()); carc_game_init's answer. */
carc_status opt_game_init(const srv_table_opts *o, carc_game *g, char err[CARC_ERRMSG_SIZE]);
/* 0 when the engine's tile types fit OPT_TILE_TYPES; else -1 with why. */
int opt_check_engine(char *err, size_t errsize);

/* Expansion names -> r->expansions and the player limit. Unknown names are
 * refused with a message listing the valid ones. */
int opt_expansions_to_rules(const char names[][32], int n, carc_rules *r, int *max_players,
                            char *err, size_t errsize);

/* Bot levels. A level's name is at most OPT_LEVEL_SIZE-1 of a-z, 0-9, '-'
 * and '_'. */
#define OPT_LEVEL_SIZE 32

/* Installs the bot levels: the built-in ones (random, easy, medium, hard),
 * then c->bot_levels ("NAME=SPEC": redefines a level or adds one), each
 * spec held to the ceilings of c (bots_clamp). A level clamped is logged
 * when `log` is set. Returns 0, or -1 with a message in err when an
 * operator's level is malformed or its spec makes no bot. Without a call,
 * the levels of srv_config_default are used. */
int opt_levels_init(const srv_config *c, int log, char *err, size_t errsize);
/* Splits a --bot-level argument "NAME=SPEC": the name into `name`, *spec
 * points into arg. Returns 0, or -1 with a message in err. */
int opt_level_arg(const char *arg, char *name, size_t namesize, const char **spec, char *err,
                  size_t errsize);
/* Level -> its spec. An unknown level is refused with a message listing the
 * levels; a client never gives a spec. */
int opt_bot_spec(const char *level, char *spec, size_t specsize, char *err, size_t errsize);

/* What a client may choose: players, farm scorings, expansions, bot levels
 * (with their specs) and the bot ceilings, seat colours. The caller owns
 * the result. */
json_t *opt_choices_json(void);

/* A colour's name ("blue"), or NULL when c is not a colour. */
const char *opt_colour_name(int c);
/* The colour named `name`, or -1. */
int opt_colour_parse(const char *name);
/* Gives each of the n seats whose colour is -1 the first colour that no
 * seat has, in palette order (n <= OPT_COLOUR_COUNT). */
void opt_fill_colours(int *colours, int n);
/* The n colours of store seats (names as stored, in seat order): colours
 * that are missing, unknown or already taken by an earlier seat are
 * filled as opt_fill_colours does. */
void opt_colours_from_names(const char *const *names, int n, int *colours);

#endif
