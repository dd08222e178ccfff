/*
 * server.h - the inside of `carc serve`: the game server behind the web
 * client (HTTP + WebSocket on one port, tables and seats, bots, storage).
 *
 * Layers, top to bottom, one folder each (src/server/README.md); a layer
 * calls only the layers below it, and includes nothing of the layers above
 * (tests/cli/test_layers.sh):
 *
 *   transport/  the libwebsockets event loop (net.c), connections
 *               (net_conns.c), HTTP requests (net_http.c), static files
 *               (net_static.c), WebSocket framing and output queues
 *               (net_ws.c);
 *               peers.c: addresses, trusted proxies, origins
 *   api/        the HTTP API and the WebSocket messages (JSON in, JSON
 *               out): parse, check, call the domain, answer. api.c routes
 *               and installs the domain's outbox and the accounts' hooks
 *               (api_start); the routes, the WebSocket and the late
 *               answers are the other api_*.c (api_internal.h)
 *   table/      the table domain: the registry of tables (tables.c), seats
 *               (seats.c), making tables (create.c), moves (moves.c), the
 *               bots' pacing (botpace.c), the views of a table (views.c),
 *               the cluster's hooks (sync.c), sharing tables_internal.h;
 *               clocks (clock.c), chat (chat.c), rematches (rematch.c), the
 *               bot pool (bots.c), analyses (analysis.c, analyse.c,
 *               move_json.c), the JSON views of a game (gamejson.c), table
 *               options and bot levels (options.c). It speaks upwards only
 *               through its outbox (outbox.h)
 *   people/     accounts, sessions, password hashing (accounts*.c; upwards
 *               through acc_hooks), Glicko-2 ratings (ratings.c)
 *   storage/    the store interface (store.h) and its SQLite
 *               (store_sqlite.c; the games in store_sqlite_games.c, the
 *               accounts and chat in store_sqlite_social.c, sharing the
 *               private store_sqlite_int.h) and PostgreSQL (the
 *               same in store_pg.c, store_pg_games.c, store_pg_social.c
 *               and store_pg_int.h) implementations, the writer thread
 *               (writer.c), several processes on one database (cluster.c)
 *   base/       configuration and helpers (this header, util.c), the error
 *               codes (errcode.c), the HTTP request and answer (request.h),
 *               per-address limits (ratelimit.c), the counters of
 *               /api/metrics (metrics.c)
 *
 * Threading: one event-loop thread owns every table, game and connection;
 * nothing of them is locked. Writes go to the storage thread (writer.c), so
 * the loop never waits for the disk; it reads with a store handle of its
 * own. Bots think on worker threads on a private copy of the game
 * (carc_game is memcpy-copyable) and hand the chosen move back through a
 * locked queue; the loop then applies it like any other move, so a move is
 * always checked (loop), stored (storage thread) and then announced (loop),
 * in one place and in that order.
 */
#ifndef CARC_SERVER_H
#define CARC_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "carc.h"

/* ---- configuration ---------------------------------------------------------- */

#define SRV_MAX_BOT_LEVELS 16
#define SRV_MAX_ALLOW_ORIGIN 16
#define SRV_MAX_TRUST_PROXY 16
#define SRV_MAX_HOST_NAMES 16
/* --rated-min-moves: own moves each seat plays before a game counts (ratings.h) */
#define RATED_MIN_MOVES 10

typedef struct srv_config {
	const char *host;      /* address to listen on, default 127.0.0.1 */
	int port;              /* 0: any free port (printed at start) */
	const char *db_path;   /* SQLite file, or a postgresql:// URL */
	const char *web_dir;   /* static files of the web client */
	int bot_delay_ms;      /* default pause before a bot moves */
	int bot_threads;       /* bot worker threads */
	int sync_full;         /* 1: fsync every move (survives power loss) */
	int quiet;             /* 1: log errors only, not game events */
	size_t max_msg;        /* largest WebSocket message / HTTP body accepted */
	size_t max_queue;      /* bytes queued to one client before it is dropped */
	size_t max_queue_total; /* bytes queued to all clients together; over it the
	                         * client with the largest queue is dropped */
	int max_conns_per_addr; /* open connections (HTTP and WebSocket) from one
	                         * address; 0: no limit */
	/* origins besides the server's own (the Host header) whose pages may open
	 * a WebSocket, e.g. "https://carc.example.org" behind a proxy */
	const char *allow_origin[SRV_MAX_ALLOW_ORIGIN];
	int n_allow_origin;
	/* proxies (an address or a network "10.0.0.0/8", "fd00::/8") whose
	 * X-Forwarded-For / X-Real-IP name the client (--trust-proxy); the
	 * limits then key on that client, and a proxy's connections are not
	 * held to --max-conns-per-addr */
	const char *trust_proxy[SRV_MAX_TRUST_PROXY];
	int n_trust_proxy;
	/* the host names the server answers for (--host-name), besides its
	 * listening address (and localhost on loopback; on every address: any
	 * address and localhost); any other Host gets 421 (peers.c) */
	const char *host_names[SRV_MAX_HOST_NAMES];
	int n_host_names;
	/* /api/metrics: on its own listener (--metrics-listen ADDR:PORT; then
	 * only there), else on the main port for loopback clients only */
	const char *metrics_host; /* NULL: no listener of its own */
	int metrics_port;
	int health_cache_ms;   /* /api/health answers a snapshot at most this old (0: fresh) */
	int max_tables;        /* tables held in memory at once */
	int max_tables_share;  /* percent of max_tables one address may hold (0: no limit) */
	int idle_evict_s;      /* finished tables unwatched this long leave memory */
	/* bots (bots.c): the ceilings hold for every bot spec, a level's or one
	 * stored with an older game; --bot-threads is the whole pool */
	double bot_max_time;   /* seconds a bot may think on one move */
	int bot_max_threads;   /* search threads of one bot */
	long bot_max_nodes;    /* search tree nodes of one bot (all its threads) */
	double bot_cpu_per_addr; /* CPU seconds a minute the bots of one address's tables
	                        * may think (bots.c: then greedy plays); 0: no budget */
	int nbot_levels;
	const char *bot_levels[SRV_MAX_BOT_LEVELS]; /* "NAME=SPEC" (--bot-level), in order */
	/* limits (ratelimit.c); 0 turns a limit off */
	int rate_requests;     /* API requests + WebSocket messages per address per minute */
	int rate_tables;       /* tables created per address per minute */
	int max_open_tables;   /* open (unstarted) tables per address */
	int open_expiry_s;     /* an open table unstarted this long is removed */
	int rate_uploads;      /* records uploaded per address per hour */
	int max_uploads;       /* uploaded records stored in total */
	int64_t max_upload_bytes; /* bytes of uploaded records stored in total */
	int limit_addresses;   /* entries of the address table (fixed at start) */
	int list_max;          /* tables in one page of GET /api/tables */
	/* clocks (clock.c) */
	int clock_grace_s;     /* a deadline that passed while the server was down: now + this */
	/* accounts (accounts*.c) */
	int session_ttl_s;     /* a session cookie lasts this long */
	int rate_logins;       /* logins + registrations per address per minute (0: off) */
	int auth_threads;      /* threads hashing passwords (Argon2id, 64 MiB each) */
	int auth_queue;        /* hashings waiting at most; more are refused (busy) */
	int auth_queue_per_addr; /* hashings (waiting or running) of one address at most */
	int rate_login_fails;  /* failed logins per account name an hour (loginguard.c; 0: off) */
	int rate_recover_fails; /* wrong recovery codes per account name an hour (loginguard.c;
	                        * 0: off) */
	int device_ttl_s;      /* a device cookie lasts this long (accounts.h) */
	int rate_players;      /* GET /api/player per address per minute (0: off) */
	/* friends (people/friends.c, docs/server.md "Friends"); 0 turns a limit off */
	int rate_social;       /* friend, block and invite requests per address per minute */
	int friend_rate;       /* friend requests an account may send an hour */
	int max_friends;       /* friends of one account */
	int max_pending;       /* friend requests an account has out (2x that in) */
	int max_blocks;        /* accounts one account blocks */
	int invite_rate;       /* invites an account may send an hour */
	int max_invites;       /* invites to one table */
	int presence_every_s;  /* an account's last-seen time is written at most this often */
	int online_window_s;   /* seen this recently: online */
	/* keeping an account (recovery.c); 0 turns a limit off */
	int rate_recover;      /* recovery attempts per address per hour */
	int rate_keep;         /* password changes, deletions, new recovery codes per
	                        * address and per account per hour */
	int rate_downloads;    /* pages of GET /api/me/records per address and per
	                        * account per hour */
	/* ratings (ratings.c, docs/server.md "Ratings") */
	int rate_custom_piles; /* 1: games on a custom pile are rated too (a server of
	                        * friends, the browser tests); 0: never (the default) */
	int rated_min_moves;   /* own moves (not the takeover bot's) every seat must have
	                        * played for a game to be rated; 0: no minimum */
	int established_games; /* rated games against established seats (bots count)
	                        * before an account is established (ratings.h) */
	int established_opponents; /* distinct established opponents among them */
	/* quick match (table/match.c, docs/server.md "Quick match") */
	int match_max;         /* waiting entries in the queue at most (0: no cap) */
	int rate_match;        /* joins per address per minute (0: off) */
	int rate_match_account; /* joins per account per minute, in the store (0: off) */
	int match_ttl_s;       /* an entry not polled this long is removed */
	int match_window;      /* rating points: the window at the start */
	int match_widen;       /* points the window grows a second of waiting */
	int match_window_max;  /* the widest window */
	int match_bot_after_s; /* waiting this long: a bot game is offered */
	int match_poll_ms;     /* one account's polls at most this often, per process (0: off) */
	int match_first_move_s; /* real-time quick match: a seat's first move within this
	                        * (else the table is void: a no-show; 0: the clock's own) */
	int match_hold_s;      /* a no-show's first hold out of the queue (doubles each repeat) */
	int match_hold_max_s;  /* the longest hold; a no-show this long after the last
	                        * hold ended starts again at match_hold_s */
	int match_recent_s;    /* opponents met at a quick-match table this recently... */
	int match_recent_wait_s; /* ...are met again only after this much waiting */
	/* chat (chat.c); 0 turns a limit off */
	int chat_rate;         /* chat lines a minute per connection and per seat */
	int chat_burst;        /* chat lines in a row before the rate applies */
	int chat_max;          /* chat lines stored per game (then refused: chat_full) */
	int chat_len;          /* characters (Unicode code points) of one chat line */
	int chat_spectator_share; /* percent of chat_max that spectators' lines may fill */
	int chat_spectator_rate;  /* spectators' lines a minute per address at one table,
	                           * across its connections */
	/* what a decision would do and what a feature is (table/foresee.c):
	 * previews and feature views a minute per WebSocket connection, as
	 * many at once (0: off) */
	int rate_views;
	/* analyses of finished games (analysis.c), computed in the bot pool */
	const char *analysis_bot; /* bot spec choosing the best move; NULL: mcts:time=<analysis_time> */
	double analysis_time;  /* seconds one move of an analysis may take */
	double analysis_max_time; /* seconds one game's analysis may take; then greedy goes on */
	int analysis_queue;    /* analyses computing (or being stored) at once; more: busy */
	int rate_analyses;     /* analyses started per address per hour (0: off) */
	int rate_undos;        /* undo requests per address per minute (0: off; undo.c) */
	int undo_table_rate;   /* undo requests per table per minute (0: off; undo.c) */
} srv_config;

void srv_config_default(srv_config *c);

/* The UTF-8 character at s (n bytes left, n >= 1): its length with its
 * code point in *cp, or 0 when the bytes there are not one (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF) (util.c). */
size_t srv_utf8_next(const char *s, size_t n, uint32_t *cp);
/* Whether code point c is a format character (Unicode's category Cf: the
 * soft hyphen, zero-width space, joiners and marks, bidirectional
 * embeddings and isolates, the BOM, the tags, ...; with the unassigned
 * points of the blocks U+2060-206F and U+E0000-E007F), without a Unicode
 * table (util.c). Names refuse them (seats.c), chat lines of nothing else
 * are empty (chat.c). */
int srv_cp_format(uint32_t c);
/* Whether c shows nothing by itself: white space, a format character, or
 * another invisible code point (variation selectors, the combining
 * grapheme joiner, Hangul fillers, the blank braille pattern) (util.c). */
int srv_cp_invisible(uint32_t c);
/* in as valid UTF-8 into out (size bytes; cut between characters to fit):
 * each byte that does not start a valid sequence becomes '?'. For text
 * from a client (a parser's error quotes it, a %.40s may cut a character)
 * that goes into a JSON string, which must be UTF-8 (util.c). */
void srv_utf8_fix(const char *in, char *out, size_t size);

/* Whether the address `addr` is in `spec` (an address, or a network in
 * CIDR form): 1 yes, 0 no, -1 when spec is neither (peers.c). */
int srv_addr_match(const char *spec, const char *addr);
/* Whether v is a host name --host-name takes: a DNS name or an address,
 * without a scheme, a port or a path (peers.c). 1 or 0. */
int srv_host_name_ok(const char *v);

/* Runs the server until SIGINT or SIGTERM. Returns 0, or 1 after an error
 * (already logged). */
int srv_run(const srv_config *c);

/* ---- util.c ----------------------------------------------------------------------- */

/* A growable string; s is NUL-terminated, owned by the sb. */
typedef struct srv_sb {
	char *s;
	size_t len, cap;
} srv_sb;

void sb_init(srv_sb *b);
void sb_free(srv_sb *b);
void sb_add_grow(srv_sb *b, const char *s, size_t n);
/* Appends n bytes. Inline: the JSON a move sends is written a few bytes
 * at a time, and a call that only copies them was a tenth of a move's
 * instructions (bench/load/README.md). */
static inline void sb_add(srv_sb *b, const char *s, size_t n)
{
	if (b->s && n < b->cap - b->len) {
		memcpy(b->s + b->len, s, n);
		b->len += n;
		b->s[b->len] = 0;
		return;
	}
	sb_add_grow(b, s, n);
}
static inline void sb_adds(srv_sb *b, const char *s) { sb_add(b, s, strlen(s)); }
void sb_printf(srv_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the string over; the caller frees it with free(). */
char *sb_take(srv_sb *b);

/* Logging: one line on stderr, "carc-serve: <time> <text>". Events are
 * left out under --quiet; errors never are. */
void srv_log_quiet(int quiet);
void srv_event(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void srv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Random hex string of 2*nbytes characters from the kernel (getrandom). */
void srv_random_hex(char *out, size_t nbytes);
uint64_t srv_random_u64(void);
/* Milliseconds since the Unix epoch, and a monotonic microsecond clock. */
int64_t srv_now_ms(void);
int64_t srv_mono_us(void);
/* The SHA-256 of a token as 64 hex digits (what the store and the tables
 * keep instead of the token). out has STORE_TOKEN_HASH_SIZE (65) bytes. */
void srv_token_hash(const char *token, char out[65]);
/* Constant-time comparison of two NUL-terminated strings. */
int srv_token_eq(const char *a, const char *b);
/* Aborts with a message when out of memory (the one OOM policy). */
void *srv_xmalloc(size_t n);
void *srv_xcalloc(size_t n, size_t size);
void *srv_xrealloc(void *p, size_t n);
char *srv_xstrdup(const char *s);

#endif
