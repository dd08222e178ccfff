/*
 * recovery.h - accounts people can keep (docs/server.md, "Keeping an
 * account"; docs/protocol.md, "Keeping an account"): recovery codes that
 * set a new password without a login, changing the password, deleting
 * the account and what is personal of it, and downloading every finished
 * game of the account as records.
 *
 * Recovery codes: RC_COUNT codes of RC_LEN characters from RC_ALPHABET
 * (31 letters and digits, none that look alike: no 0/o, 1/l/i), about 79
 * bits each, shown once (at registration, or when a new set is made) and
 * stored as HMAC-SHA256 under the server key 'recovery' of the account
 * id and the code: a fast keyed hash, not Argon2id, because the codes are
 * random (nothing to guess from a dictionary: 2^79 tries even with the
 * key), and so that a recovery attempt costs one indexed read, not eight
 * Argon2id verifications a wrong guess could make the server do. A code
 * is removed when used.
 *
 * Sessions are checked in the store on every request (accounts_session),
 * so the sessions a recovery, a password change or a deletion removes are
 * refused at once by every process on the same database.
 */
#ifndef CARC_SERVER_RECOVERY_H
#define CARC_SERVER_RECOVERY_H

#include <stdint.h>

#include "request.h"
#include "server.h"
#include "store.h"

#define RC_COUNT 8          /* codes in a set */
#define RC_LEN 16           /* characters of a code */
#define RC_TEXT_SIZE 24     /* a code as shown: "abcd-efgh-jkmn-pqrs" */
#define RC_ALPHABET "23456789abcdefghjkmnpqrstuvwxyz"
#define RC_INPUT_MAX 64     /* bytes of a code as typed (spaces, dashes) */
#define KEEP_PAGE 10        /* records in a page of the download, by default */
#define KEEP_PAGE_MAX 25    /* at most */
#define KEEP_RESIGN_MAX 200 /* unfinished games a deletion gives up */
/* The name a deleted account's seats show: no account can have it (an
 * account name holds no parentheses). */
#define KEEP_ANON_NAME "(deleted player)"

/* What recovery.c needs from the layers above (api.c installs it at
 * start, before accounts_start). */
typedef struct keep_hooks {
	/* as acc_hooks.http_answer */
	void (*http_answer)(uint64_t serial, int status, const char *ctype, char *body, size_t len,
	                    const char *cookie, const char *disposition);
	/* Gives up seat `seat` of game `id`, which is being played (a
	 * resignation with the seat's token), before the account is deleted:
	 * 0 when it was asked, -1 when the table refused (logged). */
	int (*resign)(const char *id, int seat, const char *token);
	/* A game whose seats changed in the store: the table, if this process
	 * holds it, loads them. */
	void (*refresh)(const char *id);
	/* The carc-record-1 text of finished game `id` (malloc'd, the caller
	 * frees it), or NULL when it cannot be had. */
	char *(*record)(const char *id);
} keep_hooks;

void recovery_hooks_set(const keep_hooks *h);

/* Reads the server key with the loop's reading handle (borrowed for the
 * server's life) and allocates the per-account limits. 0, or -1 logged. */
int recovery_start(const srv_config *cfg, store *reader);
void recovery_stop(void);

/* A new set of codes as shown (random, RC_TEXT_SIZE each). */
void recovery_new_codes(char (*codes)[RC_TEXT_SIZE], int n);
/* Stores the n codes (as shown) of `account`, replacing its old ones, on
 * store handle st (the storage thread's): 0, or -1 logged. */
int recovery_store_codes(store *st, int64_t account, char (*codes)[RC_TEXT_SIZE], int n,
                         int64_t now_ms);

/* The endpoints: POST /api/account/recover, /api/account/password,
 * /api/account/delete, GET and POST /api/me/recovery, GET
 * /api/me/records. 1 when the path is one of them (rs filled, or its
 * status 0 when the answer follows), 0 otherwise. */
int recovery_http(const api_req *rq, api_resp *rs);

#endif
