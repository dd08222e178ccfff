/*
 * loginguard.h - the limit on failed logins per account name
 * (--rate-login-fails; docs/server.md, "Accounts").
 *
 * The per-address limits (--rate-logins) do not stop many addresses that
 * guess one account's password together. This one counts the logins
 * hashed for one name, whatever their address: a token bucket of
 * cfg->rate_login_fails an hour per case-folded name (known or not, so a
 * refusal says nothing of whether the account exists). A login takes a
 * token before it is hashed and a right password gives it back, so only
 * failures use the bucket. Recovery attempts (recovery.c) and the
 * password checks of a logged-in account's own requests (a password
 * change, a new set of recovery codes, a deletion) take tokens the same
 * way, so codes and passwords of one name share the budget. The owner is
 * not locked out: an address that
 * logged in to the name before (the last LG_KNOWN of them) is not held to
 * it, and from any other address the right password waits as long as a
 * wrong one (at most 3600 / rate seconds).
 *
 * The entries are one table of cfg->limit_addresses slots allocated at
 * start (like ratelimit.c): a flood of names cannot make it grow; a new
 * name takes the least recently used of the PROBE slots it may have.
 * In memory, per process: with several processes each keeps its own
 * counts (writing every failed login to the shared database would turn a
 * password flood into a write flood). Loop thread only.
 */
#ifndef CARC_SERVER_LOGINGUARD_H
#define CARC_SERVER_LOGINGUARD_H

#include <stddef.h>

#include "server.h"

#define LG_KNOWN 4 /* addresses remembered per name */

/* Allocates the table; the config is borrowed for the server's life. */
void lg_start(const srv_config *cfg);
void lg_stop(void);

/* A login for name key `key` from `addr`, before it is hashed: 0 when it
 * may go on (*taken says whether it took a token: give it back with
 * lg_give_back if the login succeeds or is not hashed), or the seconds to
 * wait (>= 1) with the message in err. */
int lg_take(const char *key, const char *addr, int *taken, char *err, size_t errsize);
/* Returns the token a login took. */
void lg_give_back(const char *key);
/* The right password for `key` came from `addr`: that address is known. */
void lg_known(const char *key, const char *addr);

#endif
