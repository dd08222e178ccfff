/*
 * loginguard.h - the limits on failed logins and wrong recovery codes per
 * account name (--rate-login-fails, --rate-recover-fails; docs/server.md,
 * "Accounts" and "Keeping an account").
 *
 * The per-address limits (--rate-logins, --rate-recover) do not stop many
 * addresses that guess one account's password together. These count the
 * attempts for one name, whatever their address: a token bucket of
 * cfg->rate_login_fails an hour for passwords, and one of
 * cfg->rate_recover_fails for recovery codes, per case-folded name (known
 * or not, so a refusal says nothing of whether the account exists). An
 * attempt takes a token before it is checked and a right password or code
 * gives it back, so only failures use the bucket. The password checks of
 * a logged-in account's own requests (a password change, a new set of
 * recovery codes, a deletion) count as passwords.
 *
 * The two budgets are apart (issue 26): wrong codes, which strangers may
 * send as cheaply as wrong passwords, do not spend the password's budget,
 * and the codes' is sized by their entropy (recovery.h: 79 bits each), not
 * by a guess's chance.
 *
 * The owner is not locked out by strangers who spend a name's budget
 * (issue 26, OWASP's "device cookies"): a browser that shows the name's
 * device cookie (accounts.h: one it was given at a login, a registration
 * or a recovery of that account) takes its tokens from a bucket of its
 * own, as large, which only its own failures spend; and an address that
 * logged in to the name before (the last LG_KNOWN of them) is not held to
 * it at all. Any other browser, the owner's on a new machine too, waits
 * as a stranger does (at most 3600 / rate seconds for the next attempt).
 *
 * The entries are one table of cfg->limit_addresses slots allocated at
 * start (like ratelimit.c): a flood of names or devices cannot make it
 * grow; a new one takes the least recently used of the PROBE slots it may
 * have. In memory, per process: with several processes each keeps its own
 * counts (writing every failed login to the shared database would turn a
 * password flood into a write flood). Loop thread only.
 */
#ifndef CARC_SERVER_LOGINGUARD_H
#define CARC_SERVER_LOGINGUARD_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

#define LG_KNOWN 4 /* addresses remembered per name */

/* What an attempt checks: a password, or a recovery code. */
enum { LG_PASSWORD, LG_CODE, LG_KINDS };

/* The token an attempt took (bucket 0: none), to give back. */
typedef struct lg_ticket {
	uint64_t bucket;
	int kind;
} lg_ticket;

/* Allocates the table; the config is borrowed for the server's life. */
void lg_start(const srv_config *cfg);
void lg_stop(void);

/* An attempt of `kind` for name key `key` from `addr`, before it is
 * checked; `device` is the id of the device cookie the request showed for
 * the name's account (accounts_device_of), NULL or "" when none. 0 when it
 * may go on (*t says which token it took: give it back with lg_give_back
 * if the attempt succeeds or is not checked), or the seconds to wait
 * (>= 1) with the message in err. */
int lg_take(const char *key, const char *addr, const char *device, int kind, lg_ticket *t,
            char *err, size_t errsize);
/* Returns the token an attempt took (nothing when it took none). */
void lg_give_back(const lg_ticket *t);
/* The right password for `key` came from `addr`: that address is known. */
void lg_known(const char *key, const char *addr);

#endif
