/*
 * friends.h - friends, friend requests, blocks, invites to a table and
 * presence (docs/protocol.md "Friends"; docs/server.md "Friends"): the
 * endpoints under /api/friends and what the rest of the server asks of
 * them. Everything lives in the store (store.h "friends, blocks, invites
 * and presence"), so every server process on one database sees the same:
 * a process keeps in memory only when it last wrote an account's
 * last-seen time, to write it at most every --presence-every seconds.
 *
 * Privacy: a friendship or a request is told only to its two accounts; a
 * block is never told to the blocked account (a request or an invite to
 * an account that blocks the sender is answered as any other and never
 * shown to that account).
 */
#ifndef CARC_SERVER_FRIENDS_H
#define CARC_SERVER_FRIENDS_H

#include <stddef.h>
#include <stdint.h>

#include "request.h"
#include "server.h"
#include "store.h"

/* What the friends need from the layers above them; the API installs it
 * at start (api_start), before friends_start. */
typedef struct fr_hooks {
	/* As acc_hooks.http_answer (accounts.h). */
	void (*http_answer)(uint64_t serial, int status, const char *ctype, char *body, size_t len,
	                    const char *cookie, const char *disposition);
	/* Whether `account` may invite someone to table `id`: it holds a seat
	 * there, the table is open and has an open seat, and `invitee` does
	 * not hold one. 0 with *seat (the first open seat), else an srv_err
	 * with the reason in err. */
	int (*invite_seat)(const char *id, int64_t account, int64_t invitee, int *seat, char *err,
	                   size_t errsize);
} fr_hooks;

void friends_hooks_set(const fr_hooks *h);
/* The store handle is the loop's reading one (borrowed). 0. */
int friends_start(const srv_config *cfg, store *reader);

/* Presence: `account` (0: nobody) was seen now. Written to the store at
 * most every --presence-every seconds per account from this process. */
void friends_touch(int64_t account);

/* The endpoints /api/friends and /api/friends/...: 1 when the path is one
 * of them (rs filled, or status 0 when the answer follows), else 0. */
int friends_http(const api_req *rq, api_resp *rs);

#endif
