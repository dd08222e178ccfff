/*
 * accounts.h - optional accounts: register, log in, log out, sessions, and
 * the HTTP endpoints about accounts and ratings (docs/protocol.md,
 * "Accounts"; docs/server.md, "Accounts" and "Ratings").
 *
 * Passwords are hashed with libsodium's crypto_pwhash_str (Argon2id,
 * OPSLIMIT/MEMLIMIT_INTERACTIVE) on hashing threads of this module
 * (--auth-threads), never on the event loop; at most --auth-queue wait,
 * more are refused (503 busy), so a flood of logins costs a bounded
 * amount of memory and CPU. A session is a random 32-byte cookie
 * (carc_session) of which the store keeps the SHA-256, with an expiry.
 *
 * The seat token of a seat taken by an account is derived from a server
 * secret (HMAC-SHA256 of table, seat, account and the account's epoch), so
 * the server can hand it again to that account on another browser (GET
 * /api/me/games, POST /api/tables/<id>/claim), and to nobody else. A
 * password change or a recovery moves the epoch on and gives every seat of
 * the account the token of the new epoch in the same transaction
 * (recovery.c, store.h password_set): every token handed out before, to
 * any session, stops working on every process (issue 26).
 *
 * A device cookie (carc_device: a random id and its HMAC under the server
 * key 'device' with the account's id) is set at a successful registration,
 * login and recovery. A browser that shows it for the account it asks
 * about has a budget of failed logins and codes of its own (loginguard.h),
 * so strangers who spend the name's budget do not lock its owner out.
 */
#ifndef CARC_SERVER_ACCOUNTS_H
#define CARC_SERVER_ACCOUNTS_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdint.h>

#include "loginguard.h"
#include "request.h"
#include "server.h"
#include "store.h"

#define ACC_NAME_MIN 3    /* characters (code points) */
#define ACC_NAME_MAX 24
#define ACC_PASSWORD_MIN 8 /* bytes */
#define ACC_PASSWORD_MAX 128

/* What the accounts need from the layers above them; the API installs it
 * at start (api_start), before accounts_start. */
typedef struct acc_hooks {
	/* Answers the HTTP request `serial` that waited (api_resp.status 0):
	 * takes the body (malloc'd); dropped if the client has gone. */
	void (*http_answer)(uint64_t serial, int status, const char *ctype, char *body, size_t len,
	                    const char *cookie, const char *disposition);
	/* A game of "my games" as its table in memory shows it for seat `seat`
	 * (a new reference, as tables_my_game), or NULL when the table is not
	 * in memory. */
	json_t *(*live_game)(const char *id, int seat);
} acc_hooks;

/* Installs the hooks (borrowed for the server's life; every member set). */
void accounts_hooks_set(const acc_hooks *h);

/* Starts the hashing threads and reads the seat secret with the loop's
 * reading handle (borrowed for the server's life). 0, or -1 logged. */
int accounts_start(const srv_config *cfg, store *reader, struct lws_context *ctx);
/* Stops the hashing threads (before the lws context goes). */
void accounts_stop(void);
/* Loop thread: answers the logins and registrations whose hashing ended. */
void accounts_drain(void);

/* The account of a request's session cookie: 1 with *a filled, 0 when
 * there is no valid session (none, unknown, expired), -1 on a store error. */
int accounts_session(const char *cookie, store_account *a);
/* The same for an endpoint that needs a session: 1 with *a filled, or 0
 * with the request answered (401 not_logged_in, or 503 on a store error). */
int accounts_require_session(const api_req *rq, api_resp *rs, store_account *a);

/* Checks an account name (docs/server.md): 0 with its case-folded key in
 * key (STORE_NAME_SIZE * 2 bytes), or -1 with the reason in err. */
int accounts_name_key(const char *name, char *key, size_t keysize, char *err, size_t errsize);

/* The seat token of `account` at seat `seat` of table `table` under the
 * account's epoch `epoch` (STORE_TOKEN_SIZE bytes: 32 hex digits). Any
 * thread: the key is read once at start. */
void accounts_seat_token_at(const char *table, int seat, int64_t account, int64_t epoch,
                            char *out);
/* Its SHA-256 (hex), what the seat keeps: store_rekey's hash. Any thread. */
void accounts_seat_token_hash(const char *table, int seat, int64_t account, int64_t epoch,
                              char out[STORE_TOKEN_HASH_SIZE]);
/* The token under the epoch the store has now (one read with the loop's
 * handle; loop thread only): 0, or -1 (out "", a store error logged) when
 * the account cannot be read or is gone. */
int accounts_seat_token(const char *table, int seat, int64_t account, char *out);

/* The endpoints of this module: /api/account/register, /api/account/login,
 * /api/account/logout, /api/me, /api/me/games, /api/leaderboard,
 * /api/player. Returns 1 when the path is one of them (rs is filled, or
 * its status is 0 when the answer follows), 0 otherwise. */
int accounts_http(const api_req *rq, api_resp *rs);

/* Work for the hashing threads from another module of people/
 * (recovery.c): `password` is checked against `verify_hash` when that is
 * set (verified), `new_password` hashed when it is set (hashed, new_hash),
 * then `done` runs on the loop thread. The struct is the start of a block
 * of `size` bytes (the caller's own struct holding it first), malloc'd:
 * accounts_work takes it, and wipes and frees it after done. */
typedef struct acc_work {
	uint64_t serial;                      /* the HTTP request waiting */
	char verify_hash[STORE_PWHASH_SIZE];  /* "": nothing to verify */
	char password[ACC_PASSWORD_MAX + 1];
	char new_password[ACC_PASSWORD_MAX + 1]; /* "": nothing to hash */
	char new_hash[STORE_PWHASH_SIZE];     /* out */
	int verified, hashed;                 /* out */
	lg_ticket lg;                         /* a loginguard token it holds (bucket 0:
	                                       * none), given back when the work is refused */
	void (*done)(struct acc_work *w);
	size_t size;
} acc_work;

/* Queues w like a login (the same fair queue and limits). 0, or -1 when
 * it is refused (the queue is full): w is freed, the caller answers busy
 * (the message in why). */
int accounts_work(const api_req *rq, acc_work *w, const char **why);

#define ACC_SESSION_COOKIE "carc_session"
#define ACC_SESSION_HEX 64 /* a session cookie's value: 64 hex digits */
#define ACC_DEVICE_COOKIE "carc_device"
#define ACC_DEVICE_HEX 32  /* a device cookie: its id and its MAC, 32 hex digits each */
#define ACC_COOKIES_SIZE 400 /* a device's and a session's Set-Cookie, '\n' between */

/* Whether the request's Cookie header holds a device cookie of `account`
 * made by this server: 1 with the device's id (ACC_DEVICE_HEX + 1 bytes)
 * in dev, else 0 (dev ""). */
int accounts_device_of(const char *cookie, int64_t account, char *dev);
/* The Set-Cookie value of the device cookie of `account` for device
 * `device` (the browser's own, accounts_device_of; NULL or "": a new one):
 * HttpOnly, SameSite=Strict, Max-Age --device-ttl, Secure under TLS. */
void accounts_device_cookie(const char *device, int64_t account, int tls, char *out,
                            size_t size);

/* The SHA-256 (hex, STORE_TOKEN_HASH_SIZE) of the request's session
 * cookie: 1, or 0 (out "") when it carries none. */
int accounts_session_hash(const char *cookie, char *out);

/* A Set-Cookie value for the session cookie (SameSite=Lax; recovery.c uses
 * it too; a seat's cookie is SameSite=Strict, api_set_seat_cookie). */
void accounts_cookie(char *out, size_t size, const char *name, const char *value, int max_age,
                     int tls);

#endif
