/*
 * store.h - where the server keeps its games: a small interface with two
 * implementations, store_sqlite.c (the embedded default) and store_pg.c
 * (PostgreSQL, libpq, for several server processes on one database); the
 * --db value picks one. Nothing above this interface knows which backend
 * runs, but for STORE_CONFLICT, which only PostgreSQL returns.
 *
 * What is stored, per game: its id, status, rules and seed (and custom
 * pile), table options, the seats (name, human or bot with its spec, the
 * SHA-256 of the seat's secret token: never the token), every accepted move in order with the scores after
 * it and its scoring events, and the result once the game has ended.
 * Uploaded records (view-only tables) are kept as their record text.
 * Each seat and each clock row also holds a copy of its game's status,
 * kept by the schema's triggers (schema 16): the lists read an account's
 * seats of one status from one index; no store function writes it.
 * Seat colours are stored as the palette's names ("blue", ...); the store
 * keeps what it is given and the layer above checks what it reads back.
 *
 * Every write is one transaction; add_move() commits the move (and the
 * result, when the move ends the game) before it returns, so the caller
 * can announce the move only once it is safe (the server calls the writes
 * on its storage thread, writer.c). Inside a group (group_begin ..
 * group_commit, the writer's group commit) a write is a savepoint of the
 * group's one transaction instead, and safe only once group_commit has
 * returned 0.
 *
 * The table's stream: every write that changes a table (its creation, a
 * seat, its status, a move, its clock, a chat line, its rematch link)
 * gives the table its next sequence number (games.seq), inside the
 * write's own transaction and under the game row's lock, so two
 * processes never hand out the same number and the numbers follow the
 * commits' order. last_seq() tells the number the last write gave; a
 * load hands the number the loaded state is at (store_game.seq). A chat
 * line's number is given the same way (the next one of the game's), so
 * lines from two processes never clash. The stream is PostgreSQL's (the
 * only store several processes share): SQLite gives no numbers and its
 * last_seq() is 0, which the tables read as "no stream" (sync.c).
 *
 * All strings passed in are borrowed for the call. Every function returns 0
 * on success or -1 with a message in err (STORE_ERR_SIZE bytes). That
 * message is for the log (it may name SQL and files); what a client may be
 * told is store_fault_text() of the handle's last_fault().
 *
 * A write is committed only while the database can keep it: before every
 * commit the SQLite backend checks that the file it writes is still the one at
 * its path (not deleted, not replaced) and still writable, and refuses
 * the write (STORE_FAULT_GONE, STORE_FAULT_READ_ONLY) rather than commit
 * into a file that is gone.
 */
#ifndef CARC_SERVER_STORE_H
#define CARC_SERVER_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STORE_ERR_SIZE 256
#define STORE_ID_SIZE 24
#define STORE_NAME_SIZE 64
#define STORE_SPEC_SIZE 128
#define STORE_TOKEN_SIZE 40      /* a token as clients hold it: 32 hex digits */
#define STORE_WINDOW_SIZE 17     /* a browser window's id (windows.c): 16 hex digits */
#define STORE_TOKEN_HASH_SIZE 65 /* its SHA-256 as 64 hex digits */
/* The start of a reserved seat's token_hash, never a hash's (tables.h,
 * tables_seat_reserved): a rematch's seat kept for an old seat's player. */
#define SRV_RESERVED_PREFIX "r:"
#define STORE_COLOUR_SIZE 16

/* list_finished: the game named as the page's start is not a finished game */
#define STORE_NOT_FOUND (-2)
/* account_create: the name (its case-folded key) or a look-alike form is taken */
#define STORE_DUPLICATE (-3)
/* add_move, update_seat (PostgreSQL, several processes): another process
 * changed the game first (stored a move for this step, took this seat);
 * nothing was written and the caller reloads the game. Not a fault. */
#define STORE_CONFLICT (-4)
/* match_join: the queue holds its most (max_queue) */
#define STORE_FULL (-5)
/* match_join: the account joined its most times this minute */
#define STORE_LIMITED (-6)
/* match_join: the account is held out of the queue (a no-show) */
#define STORE_HELD (-7)
/* match_join: a quick-match table waits for the account's first move */
#define STORE_PENDING (-8)

/* Game status as stored. */
enum {
	STORE_OPEN = 0,     /* waiting for players */
	STORE_PLAYING = 1,
	STORE_OVER = 2,
	STORE_VIEW = 3,     /* an uploaded record, read-only */
	STORE_STATUS_COUNT
};

enum { STORE_SEAT_OPEN = 0, STORE_SEAT_HUMAN = 1, STORE_SEAT_BOT = 2 };

typedef struct store_seat {
	int seat;
	int kind;                        /* STORE_SEAT_* */
	char name[STORE_NAME_SIZE];
	char level[STORE_NAME_SIZE];     /* bot level as asked ("random", ...) */
	char spec[STORE_SPEC_SIZE];      /* bot spec handed to carc_bot_new */
	char token_hash[STORE_TOKEN_HASH_SIZE]; /* SHA-256 of the seat's secret, hex
	                                         * (srv_token_hash); "" while open */
	char colour[STORE_COLOUR_SIZE];  /* the seat's colour ("red"); "" if none */
	int64_t account;                 /* the account holding the seat, 0: a guest */
} store_seat;

typedef struct store_game {
	char id[STORE_ID_SIZE];
	int status;                      /* STORE_* */
	int players, farmers, small_city;
	char farm_scoring[32];
	char *expansions;                /* JSON array text */
	uint64_t seed;
	char *options;                   /* JSON object text: all table options */
	char *record;                    /* view tables: the uploaded record */
	int64_t created_ms, updated_ms;
	/* the table's stream (loads only): the number of its latest change;
	 * what was loaded is the table as of that change */
	int64_t seq;
	/* moves taken back so far (undo.c, training against bots; loads only):
	 * a process whose count differs rebuilds the table from the store */
	int undos;
	int nseats;
	store_seat seats[8];
} store_game;

/* One step of a game: one player's decision (include/carc.h, "A turn is
 * a sequence of steps"). The step is the key (schema 19: a game's moves
 * are numbered by step, 0, 1, ... in the order they were decided); the
 * turn it belongs to and its kind are kept beside it, the kind by the
 * engine's name (carc_name(CARC_NAMES_STEP, kind)), so that a database
 * says what each row is without the engine's numbers. In a game of
 * today's rules a turn is one step: step == turn, row for row. */
typedef struct store_move {
	int step;                        /* 0, 1, ... (a tile set aside counts) */
	int turn;                        /* the turn (0-based) the step belongs to */
	int kind;                        /* the step's kind (carc_step_kind); a load
	                                  * gives -1 for a name this build does not know */
	int player;                      /* who decided (carc_to_move before it) */
	uint32_t move;                   /* carc_move, in the step's meaning */
	int tile;                        /* tile type drawn for the turn */
	const char *entry;               /* the log entry as JSON text */
	int64_t at_ms;
	/* add_move (PostgreSQL): the game's undos as the writer knows them; a
	 * store that counts more took moves back since (undo.c): STORE_CONFLICT */
	int undos;
} store_move;

/* One seat of a rated game (accounts: see ratings.h). Before the store
 * calls `rate`, it fills rating/rd/vol and est_games/opponents of every
 * seat with an account from the accounts' rows (bots come with their
 * fixed values); `rate` fills the new_* values, `established` and
 * `counted`, which the store writes to the accounts, their rating history
 * and the opponents they met, in the transaction of the game's last move. */
typedef struct store_rating {
	int seat;
	int64_t account;                 /* 0: a bot with a fixed rating */
	int64_t key;                     /* the seat as an opponent: the account (> 0), or
	                                  * a bot as minus its fixed rating (store_rating.c) */
	int points;                      /* final score */
	int forfeited;                   /* resigned or replaced by a bot: a loss */
	double rating, rd, vol;          /* before the game */
	int est_games, opponents;        /* before the game (accounts.est_games, .opponents) */
	int found;                       /* the store read the account's row */
	double new_rating, new_rd, new_vol;
	int established;                 /* rate: the seat counts as an established opponent */
	int counted;                     /* rate: another seat was established, so the game
	                                  * counts towards this account's establishment */
} store_rating;

#define STORE_MAX_RATED 8

/* A quick-match table voided because a seat never made its first move
 * (table/clock.c, docs/server.md "Quick match"), written in the
 * transaction of its result (store_match.c): the no-show's account is
 * held out of the queue (match_holds: hold_ms, doubled for each repeat
 * within hold_max_ms of the end of its last hold, at most hold_max_ms),
 * and each account that came may go back to the queue at front_ms
 * (match_voids). */
typedef struct store_match_void {
	char table[STORE_ID_SIZE];
	int64_t no_show;                 /* its account (0: none) */
	int64_t hold_ms, hold_max_ms;
	int64_t front_ms;                /* the table's creation: the place they had */
	int nshown;
	int64_t shown[STORE_MAX_RATED];  /* the accounts that came */
} store_match_void;

typedef struct store_result {
	const char *scores;              /* JSON array text */
	const char *by_kind;             /* JSON array text */
	const char *winners;             /* JSON array text */
	int64_t at_ms;
	const char *ended;               /* list_finished: how a game that ended early
	                                  * ended, JSON text (clock.c); NULL: played out */
	/* a rated game (nrated > 0): its seats, the function that computes
	 * the new ratings from the old (ratings_update), and the thresholds
	 * of an established account (--established-games, --established-opponents) */
	int nrated;
	store_rating rated[STORE_MAX_RATED];
	void (*rate)(const struct store_result *r, store_rating *rt, int n);
	int est_games_min, est_opponents_min;
	/* a quick-match table voided by a no-show (NULL: none); the job that
	 * writes the result owns it */
	const store_match_void *mvoid;
} store_result;

/* Whether an account with these counts is established (ratings.h): the
 * one test, for ratings.c and the stores. */
static inline int store_established(const store_result *r, int est_games, int opponents)
{
	return est_games >= r->est_games_min && opponents >= r->est_opponents_min;
}

/* A table's clock (clock.c): the step whose deadline runs (a clock runs
 * on the decision of the player to decide), the deadline (0: none runs)
 * and the clock's state as JSON text, which only clock.c reads. */
typedef struct store_clock {
	int step;
	int64_t deadline_ms;
	const char *state;
} store_clock;

/* An account as stored. The password hash is libsodium's crypto_pwhash_str
 * text (Argon2id, with its salt and parameters): never the password. */
#define STORE_PWHASH_SIZE 128
typedef struct store_account {
	int64_t id;
	char name[STORE_NAME_SIZE];      /* as registered */
	char pwhash[STORE_PWHASH_SIZE];
	int64_t created_ms;
	double rating, rd, vol;          /* Glicko-2, on the Glicko scale (1500, 350, 0.06) */
	int games;                       /* rated games played */
	int established;                 /* not provisional (ratings.h): on the leaderboard */
	int64_t epoch;                   /* the generation of its seat tokens: a password
	                                  * change or a recovery moves it on (accounts.h) */
} store_account;

/* Giving an account's seats new tokens (password_set): `hash` (the
 * caller's; called on the storage thread) writes the hash of the token of
 * `account` at `seat` of `game` under `epoch`; after the write *ids
 * (malloc'd, the caller frees it) and nids name the games whose seats
 * changed, for the tables in memory. */
typedef struct store_rekey {
	void (*hash)(const char *game, int seat, int64_t account, int64_t epoch,
	             char out[STORE_TOKEN_HASH_SIZE]);
	char (*ids)[STORE_ID_SIZE];
	int nids;
} store_rekey;

/* One entry of an account's rating history (a rated game). */
typedef struct store_rating_row {
	char game[STORE_ID_SIZE];
	int seat;
	double before, after, rd_after;
	int64_t at_ms;
} store_rating_row;

/* Why writes fail, as far as a client and the health check are told. */
typedef enum store_fault {
	STORE_FAULT_NONE = 0,
	STORE_FAULT_READ_ONLY,   /* the file (or its WAL) may not be written */
	STORE_FAULT_GONE,        /* the file at the path was deleted or replaced */
	STORE_FAULT_FULL,        /* the disk is full */
	STORE_FAULT_IO,          /* a disk error */
	STORE_FAULT_BUSY,        /* locked by another process for too long */
	STORE_FAULT_OTHER,
	STORE_FAULT_DOWN,        /* the database server cannot be reached (PostgreSQL) */
	STORE_FAULT_COUNT
} store_fault;

/* A plain sentence for clients ("the database is read-only"), no SQL. */
const char *store_fault_text(store_fault f);

typedef struct store store;

/* Callback for loading: a game with its moves in order. The pointers are
 * valid during the call only. Return 0 to go on, -1 to stop. */
typedef int (*store_load_fn)(void *ctx, const store_game *g,
                             const store_move *moves, int nmoves);

/* Callbacks of the account lists: an account (leaderboard); a game with
 * the account's seat in it and, when it has finished, its result (NULL
 * otherwise) and, when it was rated, the account's rating change (NULL
 * otherwise). Pointers valid during the call only; 0 goes on, -1 stops. */
typedef int (*store_account_fn)(void *ctx, const store_account *a);
typedef int (*store_seat_game_fn)(void *ctx, const store_game *g, int seat,
                                  const store_result *r, const store_rating_row *rr);

/* Callback for lists: a finished game without its moves (nsteps says how
 * many there are, nturns how many turns they make) and its result. The
 * pointers are valid during the call only. Return 0 to go on, -1 to stop. */
typedef int (*store_summary_fn)(void *ctx, const store_game *g, const store_result *r,
                                int nsteps, int nturns);

/* A line of a table's chat (chat.c). seat -1: a spectator. Either text
 * (plain text, never markup) or phrase (a quick phrase's id) is set. */
#define STORE_PHRASE_SIZE 16
typedef struct store_chat {
	int n;                           /* 0, 1, ... in the table's order */
	int seat;
	char name[STORE_NAME_SIZE];
	const char *text;                /* "" for a phrase */
	char phrase[STORE_PHRASE_SIZE];  /* "" for a text */
	int64_t at_ms;
	int64_t account;                 /* the writer's account (0: a guest), so that
	                                  * whoever blocks it is not sent the line */
} store_chat;

/* Callback for list_chat: one line, valid during the call only. */
typedef int (*store_chat_fn)(void *ctx, const store_chat *m);

/* ---- friends, blocks, invites and presence (people/friends.c) ----
 *
 * A friendship is one row between two accounts; a request is a row from
 * its sender that is not a friendship yet. A request sent by an account
 * that the other has blocked is stored hidden: its sender sees it pending
 * as any other, the blocked-by account never sees it (a block is never
 * told to the blocked account). One social_write is one transaction that
 * checks its limits inside it (PostgreSQL: under the row locks of both
 * accounts, so two processes never both pass a cap). */
enum {
	STORE_FR_REQUEST = 0, /* actor asks other to be friends (or accepts other's request) */
	STORE_FR_ACCEPT,      /* actor accepts other's request */
	STORE_FR_DECLINE,     /* actor declines other's request */
	STORE_FR_REMOVE,      /* actor ends the friendship, or takes back its own request */
	STORE_FR_BLOCK,       /* actor blocks other: friendship, requests and invites between them end */
	STORE_FR_UNBLOCK,
	STORE_FR_INVITE,      /* actor invites other to seat `seat` of game `game` */
	STORE_FR_DISMISS,     /* actor (the invitee) drops invite `invite` */
	STORE_FR_KIND_COUNT
};
/* What a social_write did (store_social.outcome). */
enum {
	STORE_FR_DONE = 0,
	STORE_FR_NOW_FRIENDS,  /* REQUEST: other had asked already: friends now */
	STORE_FR_ALREADY,      /* nothing to do: friends already, or asked already, blocked already */
	STORE_FR_NONE,         /* ACCEPT, DECLINE, DISMISS, UNBLOCK, REMOVE: nothing of that kind */
	STORE_FR_RATE,         /* REQUEST, INVITE: over rate_per_hour of the actor */
	STORE_FR_MY_FRIENDS,   /* actor has max_friends */
	STORE_FR_THEIR_FRIENDS,/* other has max_friends */
	STORE_FR_MY_PENDING,   /* actor has max_pending requests out */
	STORE_FR_BLOCKS_FULL,  /* actor has max_blocks */
	STORE_FR_INVITES_FULL, /* the game has max_invites */
	STORE_FR_YOU_BLOCK     /* REQUEST, INVITE: the actor blocks other */
};
typedef struct store_social {
	int kind;                 /* STORE_FR_* */
	int64_t actor, other;     /* accounts (other: 0 for DISMISS) */
	char game[STORE_ID_SIZE]; /* INVITE */
	int seat;                 /* INVITE */
	int64_t invite;           /* DISMISS */
	int64_t now_ms;
	/* the limits (0: none): REQUEST/INVITE per actor per hour, friends
	 * per account, requests out per account (and twice that in: a
	 * request to a full inbox drops its oldest one, never refused, so a
	 * full inbox neither keeps a real friend out nor tells a block), blocks
	 * per account, invites per game */
	int rate_per_hour, max_friends, max_pending, max_blocks, max_invites;
	int outcome;              /* set by the store: STORE_FR_DONE .. */
} store_social;

/* An account in one of an account's lists (social_list). */
enum { STORE_LIST_FRIENDS = 0, STORE_LIST_INCOMING, STORE_LIST_OUTGOING, STORE_LIST_BLOCKED };
typedef struct store_person {
	int64_t id;
	char name[STORE_NAME_SIZE];
	int64_t at_ms;              /* since when (the request, friendship, block) */
	int64_t seen_ms;            /* FRIENDS: last seen (0: never) */
	int playing;                /* FRIENDS: holds a seat at a game being played */
	char game[STORE_ID_SIZE];   /* FRIENDS: such a game that is not private ("": none) */
} store_person;
typedef int (*store_person_fn)(void *ctx, const store_person *p);

/* An invite to an account, of a game still open whose seat is still open. */
typedef struct store_invite {
	int64_t id;
	char game[STORE_ID_SIZE];
	int seat;
	int64_t from;
	char from_name[STORE_NAME_SIZE];
	int64_t at_ms;
} store_invite;
typedef int (*store_invite_fn)(void *ctx, const store_invite *v);
/* An entry of the quick-match queue (table/match.c; docs/server.md "Quick
 * match"): one per account (the account is its key), in one pool (the
 * choice: players, rule set, clock as "2/base/rt-60"). */
#define STORE_POOL_SIZE 32
#define STORE_ADDR_SIZE 64               /* an address key (ratelimit.h, LIM_KEY_SIZE) */
#define STORE_NOTE_SIZE 16
#define STORE_MATCH_RECENT 8
typedef struct store_match {
	int64_t account;
	char name[STORE_NAME_SIZE];      /* the account's name, for the seat */
	char pool[STORE_POOL_SIZE];
	char addr[STORE_ADDR_SIZE];      /* the address key it joined from: a table made
	                                  * by any process counts against it */
	double rating;                   /* the account's rating when it joined */
	int64_t joined_ms;               /* when it joined (the wait widens its window) */
	int64_t seen_ms;                 /* its last poll (the heartbeat) */
	char table[STORE_ID_SIZE];       /* the table it was seated at, "" while waiting */
	int seat;                        /* its seat there, -1 while waiting */
	int ready;                       /* match_poll: that table is stored */
	char note[STORE_NOTE_SIZE];      /* why it was left out of a table made for it
	                                  * ("share", "busy"; match_return), "" none: an
	                                  * entry with a note waits for its poll, never
	                                  * for a table */
	int nrecent;                     /* the accounts it met at quick-match tables made */
	int64_t recent[STORE_MATCH_RECENT]; /* within match_join's recent_ms, newest first */
} store_match;

/* match_join's limits, and what it answers (store_match.c). */
typedef struct store_match_args {
	int64_t now_ms, ttl_ms;
	int max_queue;                   /* live waiting entries of others at most (0: no cap) */
	int rate_account;                /* joins of the account in the minute before (0: no limit) */
	int64_t recent_ms;               /* the opponents of tables made this recently are the
	                                  * entry's recent ones (0: none) */
	int64_t pending_ms;              /* a table made this recently where the account has not
	                                  * made its first move refuses the join */
	int64_t void_ms;                 /* a table voided this recently sends the people who
	                                  * came back to their place */
	/* the store's answers */
	int64_t retry_ms;                /* STORE_LIMITED, STORE_HELD: how long until it may */
	char table[STORE_ID_SIZE];       /* STORE_PENDING: the table waiting for its first move */
	int front;                       /* joined at a void table's front_ms, not counted */
	int64_t joined_ms;               /* the entry's joined_ms */
} store_match_args;

/* match_take's choice among the n live waiting entries of a pool (oldest
 * first): writes the indexes of the entries to seat, in seat order, to
 * chosen and returns how many (the table's players), or 0 for none. */
typedef int (*store_match_pick_fn)(void *ctx, const store_match *c, int n, int *chosen);

/* The most waiting entries match_take looks at in one call. */
#define STORE_MATCH_SCAN 200

/* explain: one line of the plan of list query `query` (its name, "my
 * games", ...). Both strings are valid during the call only. */
typedef void (*store_plan_fn)(void *ctx, const char *query, const char *line);

typedef struct store_ops {
	const char *name;
	void (*close)(store *s);
	int (*create_game)(store *s, const store_game *g, char *err);
	int (*update_seat)(store *s, const char *id, const store_seat *seat, char *err);
	int (*set_status)(store *s, const char *id, int status, int64_t at_ms, char *err);
	/* One transaction: the move, the game's status/updated time, and the
	 * result when r is not NULL. PostgreSQL: under the game row's lock,
	 * STORE_CONFLICT when m->step is not the next step (another process
	 * stored it). update_seat likewise when a human takes a seat that is
	 * not open any more. */
	int (*add_move)(store *s, const char *id, const store_move *m,
	                const store_result *r, char *err);
	/* One game by id; returns 1 when found, 0 when not, -1 on error. */
	int (*load_one)(store *s, const char *id, store_load_fn fn, void *ctx, char *err);
	/* Counts of games by status (array of STORE_STATUS_COUNT). */
	int (*counts)(store *s, int *counts, char *err);
	/* Finished games (status OVER) that are not private (options
	 * "private": true), newest first: by the result's finished_ms, then by
	 * id, both descending. At most `limit` of them, starting after the
	 * game `before` in that order (NULL: from the newest). Returns how
	 * many were handed to fn, STORE_NOT_FOUND when `before` is not a
	 * finished game, or -1 on error. */
	int (*list_finished)(store *s, const char *before, int limit, store_summary_fn fn,
	                     void *ctx, char *err);
	/* The lobby's unfinished games (tables.c loads only those it needs):
	 * the ids of the games with status OPEN (which 0), PLAYING (1) or
	 * either (2) that are not private, newest first (created_ms, then id,
	 * both descending), starting after (before_ms, before_id) in that
	 * order (INT64_MAX, "": from the newest), at most `limit` into ids
	 * (and their created_ms into created). An open game created before open_since_ms (expired, not deleted
	 * yet) is left out. Returns how many, or -1 on error. */
	int (*list_unfinished)(store *s, int which, int64_t before_ms, const char *before_id,
	                       int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
	                       int64_t *created, char *err);
	/* Games someone must play on without a client asking: PLAYING with a
	 * bot seat or a clock row (a clock runs, or a seat was forfeited and a
	 * bot plays it). Their ids in id order after `after` ("": from the
	 * first), at most `limit`. Returns how many, or -1 on error. */
	int (*list_unowned)(store *s, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
	                    char *err);
	/* The fault of the last failed call on this handle; NONE after one
	 * that succeeded. */
	store_fault (*last_fault)(store *s);
	/* Whether the database can take writes, without writing: the file at
	 * the path is the one open and it may be written. A few stat calls,
	 * no SQLite state: safe from any thread, also while another thread
	 * uses the handle. NONE, or the fault with a message (for the log). */
	store_fault (*check)(store *s, char *err);
	/* A write that changes nothing, to learn whether writes work again
	 * after a fault (reopens the connection when it was opened read-only
	 * and the file is writable now). 0, or -1 with a message. */
	int (*probe)(store *s, char *err);
	/* Removes a game with its seats, moves and result (an open table that
	 * expired). Removing a game that is not there is no error. */
	int (*delete_game)(store *s, const char *id, char *err);
	/* How many uploaded records (status VIEW) are stored and their bytes. */
	int (*upload_usage)(store *s, long *count, int64_t *bytes, char *err);
	/* One transaction: the game's clock (replacing the one stored), and
	 * when r is not NULL the result and status OVER (a game that ended
	 * early: a resignation). */
	int (*save_clock)(store *s, const char *id, const store_clock *c, const store_result *r,
	                  char *err);
	/* The game's clock: 1 and *out filled (out->state points to *state,
	 * malloc'd, the caller frees it), 0 when it has none, -1 on error. */
	int (*load_clock)(store *s, const char *id, store_clock *out, char **state, char *err);
	/* ---- accounts (accounts.c, ratings.c) ---- */
	/* One transaction: a new account (rating 1500/350/0.06) and its first
	 * session (the session's SHA-256). *id is the new account's id.
	 * The name's look-alike forms (skeleton.h: skels[0], skels[1], "" for
	 * none) go into account_skeletons in the same transaction.
	 * STORE_DUPLICATE when name_key (the case-folded name) or a form is taken. */
	int (*account_create)(store *s, const char *name, const char *name_key,
	                      const char *const skels[2], const char *pwhash, int64_t now_ms,
	                      const char *session_hash, int64_t expires_ms, int64_t *id, char *err);
	/* 1 when an account holds one of the forms ("" skipped), 0 not, -1. */
	int (*skeleton_taken)(store *s, const char *const skels[2], char *err);
	/* Accounts with id > after that hold no form yet (made before the
	 * forms were kept), by id, at most max: their count, or -1. */
	int (*accounts_unskeletoned)(store *s, int64_t after, int max, int64_t *ids,
	                             char (*names)[STORE_NAME_SIZE], char *err);
	/* One form for an account: 0, STORE_DUPLICATE when another holds it, -1. */
	int (*skeleton_add)(store *s, int64_t account, const char *skel, char *err);
	/* An account by its case-folded name, or by id: 1 found, 0 not, -1. */
	int (*account_by_name)(store *s, const char *name_key, store_account *a, char *err);
	int (*account_by_id)(store *s, int64_t id, store_account *a, char *err);
	/* A session (by its hash) for an account; sessions of any account
	 * expired by now_ms are removed in the same transaction. */
	int (*session_create)(store *s, const char *hash, int64_t account, int64_t now_ms,
	                      int64_t expires_ms, char *err);
	/* The account of a session unexpired at now_ms: 1, 0 (none), -1. */
	int (*session_get)(store *s, const char *hash, int64_t now_ms, store_account *a,
	                   char *err);
	int (*session_delete)(store *s, const char *hash, char *err);
	/* A server secret of `size` bytes by name, made by the migration. */
	int (*get_key)(store *s, const char *name, unsigned char *out, size_t size, char *err);
	/* The games where `account` holds a seat, newest (updated) first, at
	 * most `limit`; finished ones with their result (and rating change). */
	int (*account_games)(store *s, int64_t account, int only_over, int limit,
	                     store_seat_game_fn fn, void *ctx, char *err);
	/* Established accounts (ratings.h), best rating first (then name),
	 * `limit` of them after `offset` (the partial index accounts_board). */
	int (*leaderboard)(store *s, int limit, int offset, store_account_fn fn, void *ctx,
	                   char *err);
	/* ---- chat and rematch (chat.c, rematch.c) ---- */
	/* Adds a chat line to game `id`; the store gives it the game's next
	 * number (one more than the highest stored, under the game row's
	 * lock) and writes it to m->n. */
	int (*add_chat)(store *s, const char *id, store_chat *m, char *err);
	/* The game's chat lines in order from number `from` on, at most
	 * `limit`; returns how many were handed to fn, or -1 on error. */
	int (*list_chat)(store *s, const char *id, int from, int limit, store_chat_fn fn,
	                 void *ctx, char *err);
	/* The number the game's next chat line gets (one more than the
	 * highest stored, 0 with none), or -1 on error. */
	int (*count_chat)(store *s, const char *id, char *err);
	/* One transaction: creates game g (as create_game) as the rematch of
	 * game `old_id`, which remembers it. Fails (nothing written) when
	 * old_id already has a rematch that is still stored. */
	int (*create_rematch)(store *s, const char *old_id, const store_game *g, char *err);
	/* The rematch of game `id` into out (STORE_ID_SIZE): 1 when it has
	 * one (still stored), 0 when not, -1 on error. */
	int (*get_rematch)(store *s, const char *id, char *out, char *err);
	/* Several processes (PostgreSQL; NULL in SQLite, where load_one
	 * serves): like load_one, but only the moves from step `from` on are
	 * handed to fn (what another process added to a game held here). */
	int (*load_since)(store *s, const char *id, int from, store_load_fn fn, void *ctx,
	                  char *err);
	/* The sequence number the last successful write on this handle gave
	 * table `id` (see "The table's stream" above), 0 when it gave none. */
	int64_t (*last_seq)(store *s, const char *id);
	/* Training against bots (undo.c): one transaction that removes the
	 * moves from step `keep` on, counts `undone` more in games.undos, sets
	 * updated_ms and gives the table its next sequence number (PostgreSQL:
	 * NOTIFY STORE_NOTIFY_UNDO with n = keep). Under the game row's lock:
	 * STORE_CONFLICT when the store does not hold exactly `have` moves (a
	 * move of another process came first), nothing written. */
	int (*undo_moves)(store *s, const char *id, int have, int keep, int undone, int64_t at_ms,
	                  char *err);
	/* ---- the window holding a seat (windows.c, issue 22) ---- */
	/* Writer: window `window` (STORE_WINDOW_SIZE - 1 hex digits) holds seat
	 * `seat` of game `id` now; announced to the other processes
	 * (STORE_NOTIFY_WINDOW, n the seat, no sequence number: not a change of
	 * the game). 0 (also when there is no such seat), or -1. */
	int (*window_set)(store *s, const char *id, int seat, const char *window, char *err);
	/* The window holding seat `seat` of game `id` into out
	 * (STORE_WINDOW_SIZE; "" when none has): 0, or -1 on error. */
	int (*window_get)(store *s, const char *id, int seat, char *out, char *err);
	/* ---- analyses (analysis.c) ---- */
	/* Stores the analysis of game `id` (JSON text of at most
	 * STORE_ANALYSIS_MAX bytes, else refused); one that is stored already
	 * stays as it is (no error). */
	int (*save_analysis)(store *s, const char *id, const char *json, int64_t at_ms, char *err);
	/* The analysis of game `id`: 1 with *out (malloc'd, the caller frees
	 * it), 0 when there is none, -1 on error. */
	int (*load_analysis)(store *s, const char *id, char **out, char *err);
	/* ---- friends (people/friends.c; store_friends.c) ---- */
	/* One transaction (see store_social above); w->outcome says what it
	 * did. 0, or -1 on a fault. */
	int (*social_write)(store *s, store_social *w, char *err);
	/* Account `account`'s list `which` (STORE_LIST_*), by name, at most
	 * `limit`: how many were handed to fn, or -1. INCOMING leaves hidden
	 * requests out; OUTGOING shows them. */
	int (*social_list)(store *s, int64_t account, int which, int limit, store_person_fn fn,
	                   void *ctx, char *err);
	/* The invites to `account` whose game is open and whose seat is open,
	 * newest first, at most `limit`: how many, or -1. */
	int (*invite_list)(store *s, int64_t account, int limit, store_invite_fn fn, void *ctx,
	                   char *err);
	/* Presence: the account was seen at now_ms (a write). */
	int (*social_touch)(store *s, int64_t account, int64_t now_ms, char *err);
	/* Which of accounts[0..n-1] block `speaker`: blocks[i] = 1 or 0. 0, or -1. */
	int (*blockers_among)(store *s, int64_t speaker, const int64_t *accounts, int n,
	                      unsigned char *blocks, char *err);
	/* Whether `blocker` blocks `blocked`: 1, 0, or -1. */
	int (*is_blocked)(store *s, int64_t blocker, int64_t blocked, char *err);
	/* Whether `account` is linked with `other`, so that it may name it by
	 * its id: a friendship or a request either way, a block of its own,
	 * an invite from `other` to it (what its lists show). 1, 0, or -1. */
	int (*social_knows)(store *s, int64_t account, int64_t other, char *err);
	/* ---- quick match (table/match.c) ----
	 * An entry is live while seen_ms >= now_ms - ttl_ms; expired entries
	 * are removed by these calls and never matched. */
	/* One transaction: puts e in the queue (joined_ms = seen_ms = now, or
	 * the front_ms of a table voided within a->void_ms where the account
	 * came: then a->front, and the join is not counted), replacing the
	 * account's entry if it has one (also a matched one), with its recent
	 * opponents (a->recent_ms). Refused with nothing written:
	 * STORE_HELD while the account is held out (a no-show; a->retry_ms);
	 * STORE_PENDING while a table made within a->pending_ms is being
	 * played (or made) and waits for the account's first move (a->table);
	 * STORE_LIMITED when the account joined rate_account times in the
	 * minute before now (a->retry_ms); STORE_FULL when max_queue live
	 * waiting entries of other accounts are queued. */
	int (*match_join)(store *s, const store_match *e, store_match_args *a, char *err);
	/* One transaction: the account's entry into *out with its heartbeat
	 * (seen_ms = now_ms) and whether its table is stored (ready): 1, or 0
	 * when it has none (left, expired). An entry with a note is removed
	 * as it is read (its poll is told the note once). */
	int (*match_poll)(store *s, int64_t account, int64_t now_ms, int64_t ttl_ms,
	                  store_match *out, char *err);
	/* Removes the account's entry (none: no error). */
	int (*match_leave)(store *s, int64_t account, char *err);
	/* One transaction: the live waiting entries of `pool` (at most
	 * STORE_MATCH_SCAN, oldest first; PostgreSQL: locked FOR UPDATE SKIP
	 * LOCKED, so an entry another process is matching is not seen) are
	 * handed to pick; the ones it chooses get table `table` and their
	 * seats (0, 1, ... in its order) and are copied to out (at most 8),
	 * and who sat at the table is kept (match_seats: recent opponents,
	 * first moves) for keep_ms. Returns how many, 0 when pick chose none. */
	int (*match_take)(store *s, const char *pool, int64_t now_ms, int64_t ttl_ms,
	                  int64_t keep_ms, store_match_pick_fn pick, void *ctx, const char *table,
	                  store_match *out, char *err);
	/* One transaction: table `table` was not made after all; the n entries
	 * seated at it go back to waiting (their joined_ms kept: the front of
	 * the queue), each with notes[i] ("": none; else it waits only for its
	 * poll, which is told why). An entry that has left or joined again
	 * since is left as it is. */
	int (*match_return)(store *s, const char *table, const int64_t *accounts,
	                    const char (*notes)[STORE_NOTE_SIZE], int n, char *err);
	/* ---- keeping an account (recovery.c; docs/server.md, "Keeping an
	 * account") ---- */
	/* One transaction: the account's recovery codes become the n given
	 * (their keyed hashes as hex, STORE_TOKEN_HASH_SIZE each); the old
	 * ones are removed. */
	int (*recovery_set)(store *s, int64_t account, const char (*hashes)[STORE_TOKEN_HASH_SIZE],
	                    int n, int64_t now_ms, char *err);
	/* How many codes the account has left (*left), and whether `hash`
	 * (NULL: none asked) is one of them: 1 it is, 0 not, -1 error. */
	int (*recovery_find)(store *s, int64_t account, const char *hash, int *left, char *err);
	/* One transaction: the account's password hash becomes `pwhash`;
	 * when code_hash is not NULL that recovery code is used up first
	 * (STORE_NOT_FOUND with nothing written when it is not one of the
	 * account's any more: used meanwhile); every session of the account
	 * but `keep` (NULL: all) is removed; when new_session is not NULL
	 * that session (a hash) is made, expiring at expires_ms. The
	 * account's epoch moves on by one and every seat it holds, in every
	 * game (a rematch's seat kept for it aside: its prefix stays), gets
	 * the token hash rk->hash gives under the new epoch; each game
	 * touched gets its next sequence number (PostgreSQL: a seat
	 * notification). */
	int (*password_set)(store *s, int64_t account, const char *pwhash, const char *code_hash,
	                    const char *keep, const char *new_session, int64_t now_ms,
	                    int64_t expires_ms, store_rekey *rk, char *err);
	/* One transaction: deletes the account and what is personal of it
	 * (docs/server.md, "Deleting an account"): its seats at open tables
	 * become open seats again; its other seats keep their games but
	 * become anon_name with no account and no token (and lose the seat's
	 * name in the table's options), its chat lines in them are removed,
	 * and its ratings history, recovery codes, sessions and row go. Each
	 * game touched gets its next sequence number (PostgreSQL: a seat
	 * notification). *ids (malloc'd, the caller frees it) and *nids: the
	 * games touched, for the tables in memory. 0 when there is no such
	 * account either (nothing to do). */
	int (*account_delete)(store *s, int64_t account, const char *anon_name, int64_t now_ms,
	                      char (**ids)[STORE_ID_SIZE], int *nids, char *err);
	/* The finished games (status OVER) where `account` holds a seat, by
	 * id after `after` ("": from the first), at most `limit` into ids.
	 * Returns how many, or -1. */
	int (*account_over_ids)(store *s, int64_t account, const char *after, int limit,
	                        char (*ids)[STORE_ID_SIZE], char *err);
	/* ---- group commit (writer.c) ----
	 * group_begin opens one transaction for several writes. Until
	 * group_commit or group_rollback, every write of this handle runs in a
	 * savepoint of its own inside it (SAVEPOINT, then RELEASE or ROLLBACK
	 * TO): a write that fails returns as it would alone (-1 with its fault,
	 * STORE_CONFLICT, STORE_DUPLICATE) with only its own changes undone,
	 * and the others stay in the group. Nothing of the group is durable,
	 * nor announced to other processes (PostgreSQL's NOTIFYs), before
	 * group_commit returned 0. group_commit is where a SQLite file is
	 * checked (see the top) and a test build's injected fault bites; when
	 * it fails (-1, fault set) nothing of the group was kept, except that
	 * a PostgreSQL COMMIT whose answer was lost may have been committed
	 * (see store_pg.c). When the group's transaction is lost in the middle
	 * (the connection, or an error SQLite answers by rolling the whole
	 * transaction back), the writes after it fail with that fault and so
	 * does group_commit. Reads in a group see the group's writes. */
	int (*group_begin)(store *s, char *err);
	int (*group_commit)(store *s, char *err);
	void (*group_rollback)(store *s);
	/* ---- query plans (store_plans.c; tests/test_store_plans.c) ----
	 * Every list query the server runs for a client (its friends and
	 * their presence, invites, blocks, my games, a profile, the records'
	 * download, the lobby, the finished games, the leaderboard), with the
	 * arguments it gets for account `account`, explained by the database
	 * as it would run it (SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN
	 * EXECUTE, with a custom plan and, for a statement the store prepares,
	 * also the generic plan it may switch to): each line to fn. Reads
	 * only. 0, or -1. */
	int (*explain)(store *s, int64_t account, store_plan_fn fn, void *ctx, char *err);
} store_ops;

/* The largest analysis stored (bytes of JSON): it takes about 350 bytes
 * a step, so about 1,500 steps fit (a game of every tile set today has
 * 125 turns of one step each); a larger one is refused, not cut. */
#define STORE_ANALYSIS_MAX (512 * 1024)

/* Both stores refuse a larger one the same way: -1 with the message in
 * err (STORE_ERR_SIZE), else 0. */
static inline int store_analysis_too_big(const char *id, const char *json, char *err)
{
	if (strlen(json) <= STORE_ANALYSIS_MAX)
		return 0;
	snprintf(err, STORE_ERR_SIZE, "the analysis of %s is over %d bytes", id, STORE_ANALYSIS_MAX);
	return -1;
}

struct store {
	const store_ops *ops;
	/* the query interface of the rules both stores share (store_sql.h:
	 * storage's own; nothing else looks at it) */
	const struct store_sql *sql;
};

/* Test builds (CARC_DEBUG_CHECK): the fault the file fault_file (from
 * CARC_TEST_STORE_FAULT; NULL: none) names, with the message in err;
 * "down" only where can_be_down (PostgreSQL); "slow" waits a second and
 * is no fault. Release builds: never. */
store_fault store_test_fault(const char *fault_file, int can_be_down, char *err);

/* Opens a SQLite database. The writer's handle (writer = 1) creates or
 * migrates the schema and checkpoints the WAL; open it first. A reader's
 * handle only reads. sync_full: fsync on every commit. Returns a store the
 * caller closes with s->ops->close, or NULL with a message in err. A handle
 * is for one thread at a time. */
store *store_sqlite_open(const char *path, int sync_full, int writer, char *err);

/* The schema version this build writes (and migrates older files to). */
int store_sqlite_schema_version(void);

/* ---- PostgreSQL (store_pg.c), for several server processes on one database ----
 *
 * --db postgresql://... or postgres://... (a libpq connection URL) picks it;
 * anything else is a SQLite path. The writer's handle creates or migrates
 * the schema (carc_schema holds its version, numbered as SQLite's
 * user_version). A lost connection is STORE_FAULT_DOWN and is made again by
 * the next call. Every write also announces itself to the other processes
 * with a NOTIFY on STORE_NOTIFY_CHANNEL, delivered at its commit; the
 * payload is "<kind> <table id> <n> <seq>" (n -1: none; seq: the table's
 * sequence number after the change, 0 for a table removed): */
#define STORE_NOTIFY_CHANNEL "carc"
#define STORE_NOTIFY_CREATED 'c' /* n: a table was made, with status n */
#define STORE_NOTIFY_SEAT 's'    /* n: a seat was taken */
#define STORE_NOTIFY_STATUS 't'  /* n: the status changed to n */
#define STORE_NOTIFY_MOVE 'm'    /* n: the move of step n was stored */
#define STORE_NOTIFY_DELETED 'd' /* an expired open table was removed */
#define STORE_NOTIFY_CHAT 'h'    /* n: chat line n was added */
#define STORE_NOTIFY_CLOCK 'k'   /* n: the clock was stored for step n */
#define STORE_NOTIFY_REMATCH 'r' /* the finished game has a rematch now */
#define STORE_NOTIFY_UNDO 'u'    /* n: moves from step n on were taken back (undo.c) */
#define STORE_NOTIFY_WINDOW 'w'  /* n: another window holds seat n now (seq 0) */

store *store_pg_open(const char *url, int writer, char *err);
/* A libpq connection to url with the server's timeouts and keepalives
 * (cluster.c's connections too); `name` is its application_name. The
 * caller PQfinishes it. */
struct pg_conn;
struct pg_conn *store_pg_connect(const char *url, const char *name);
int store_pg_schema_version(void);
/* The PostgreSQL backend pid of this process's writer connection (0: none
 * yet); any thread. A notification from it is this process's own change,
 * which the writer's done applies already. */
int store_pg_writer_pid(void);
/* Whether a --db value names a PostgreSQL database. */
int store_is_pg_url(const char *db);

const char *store_status_name(int status);

#endif
