/*
 * rematch.h - a new game with the same options and people after a game
 * has ended (docs/protocol.md, "Rematch").
 *
 * The first request from a player of the finished table makes the
 * rematch: the same options with a new seed, the seats rotated (the old
 * seat i + 1 is the new seat i, so the second player starts), every
 * person keeping their colour and name. Bots sit down at once; every
 * other person's new seat is reserved for them: it holds the hash of
 * their OLD seat's token marked as reserved (tables.h), which no token
 * matches. The old table remembers its rematch (stored in the same
 * transaction that stores the new table, and refused by the store when
 * it has one already), so two players asking at once make one table: the
 * second request finds the first's table in memory and claims its seat.
 *
 * Claiming: a player proves they held seat i at the old table with its
 * token (hashed and compared as for a move), and gets a FRESH token for
 * their new seat; the old token gives nothing at the new table. A token
 * of nobody at the old table, or of a seat claimed already, is refused.
 *
 * The new table has the old one's options whole, its clock included (every
 * seat starts with the full reserve). A seat held by an account keeps the
 * account (issue 22): it is in the account's "my games", rated like any
 * game, and its new token is the one derived for the account, so any
 * browser of the account may claim it (rematch_claim_account, the claim
 * endpoint) and the old token's holder gets that same token.
 * Everything here runs on the event-loop thread.
 */
#ifndef CARC_SERVER_REMATCH_H
#define CARC_SERVER_REMATCH_H

#include "tables.h"

/* A rematch request at the finished table t from the holder of `token`,
 * coming from address `addr` (a new table counts against its --rate-tables
 * budget). SE_PENDING (api_rematch_done answers with the new seat and its
 * token) or an error with nothing changed (*wait_s for SE_RATE_LIMITED). */
srv_err rematch_request(srv_table *t, const char *token, const char *addr,
                        const srv_origin *o, char *err, size_t errsize, int *wait_s);

/* Accounts (issue 22): a seat of the rematch nt kept for `account` (the
 * account held the old seat) is claimed by the account's session from any
 * browser, with the account's derived token: SE_PENDING (answered as a
 * rematch request, api_rematch_done), SE_OK when the account has no kept
 * seat there (nothing done), or an error. */
srv_err rematch_claim_account(srv_table *nt, int64_t account, const srv_origin *o, char *err,
                              size_t errsize);

#endif
