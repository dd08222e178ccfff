/*
 * ratelimit.h - per-address rate limits and the caps on stored uploads
 * (docs/server.md, "Limits"). The API (api/) asks before the work; a
 * refusal is SE_RATE_LIMITED (429) with the seconds to wait.
 *
 * An address is the peer's IPv4 address, or the /64 prefix of an IPv6
 * address (one host holds a whole /64). The counters live in one table of
 * a fixed size, allocated once at start: a flood from many addresses
 * cannot make it grow (see ratelimit.c for what happens when it is full).
 * Everything here runs on the event-loop thread.
 */
#ifndef CARC_SERVER_LIMITS_H
#define CARC_SERVER_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

typedef enum lim_kind {
	LIM_REQUESTS = 0, /* HTTP API requests and WebSocket messages, per minute */
	LIM_TABLES,       /* tables created, per minute */
	LIM_UPLOADS,      /* records uploaded, per hour */
	LIM_LOGINS,       /* logins and registrations, per minute */
	LIM_ANALYSES,     /* analyses of finished games started, per hour */
	LIM_PLAYERS,      /* profiles asked for (GET /api/player), per minute */
	LIM_UNDOS,        /* undo requests in training games (undo.c), per minute */
	LIM_SOCIAL,       /* friend, block and invite requests, per minute */
	LIM_MATCH,        /* quick-match joins (POST /api/match), per minute */
	LIM_RECOVER,      /* recovery attempts (POST /api/account/recover), per hour */
	LIM_KEEP,         /* password changes, deletions, new recovery codes, per hour */
	LIM_DOWNLOADS,    /* pages of the games' download (GET /api/me/records), per hour */
	LIM_KIND_COUNT
} lim_kind;

/* The canonical text of an address's key ("192.0.2.7", "2001:db8:1:2::/64";
 * "?" when the address is unknown): what tables remember as their owner. */
#define LIM_KEY_SIZE 64

/* Allocates the address table (cfg->limit_addresses entries). The config
 * is borrowed for the server's life. */
void lim_start(const srv_config *cfg);
void lim_stop(void);

/* Counts one event of `kind` for address `addr`. Returns 0 when it is
 * allowed, or the seconds to wait (>= 1) when it is over the limit, with
 * a message naming the limit and its option in err. */
int lim_take(const char *addr, lim_kind kind, char *err, size_t errsize);

/* How many events of `kind` from `addr` were refused since the last one
 * allowed (a client that does not stop when told). */
int lim_streak(const char *addr, lim_kind kind);

/* The key of an address (LIM_KEY_SIZE bytes in out). */
void lim_key(const char *addr, char *out);

/* Stored uploads in total: the count and bytes the store holds at start,
 * then a reservation for each upload (0, or the seconds to wait with a
 * message) and its release when it could not be stored. */
void lim_uploads_init(long count, int64_t bytes);
int lim_uploads_reserve(size_t bytes, char *err, size_t errsize);
void lim_uploads_release(size_t bytes);

#endif
