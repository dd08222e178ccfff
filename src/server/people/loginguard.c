/*
 * loginguard.c - the limit on failed logins per account name (see
 * loginguard.h and docs/server.md, "Accounts").
 *
 * A bucket is one number, its theoretical arrival time (GCRA, as in
 * ratelimit.c): a login may take a token while tat - now <= period -
 * period/N; it moves tat on by period/N, and giving the token back moves
 * it back. Names and addresses are kept as keyed 64-bit hashes
 * (crypto_shorthash, SipHash-2-4, with a key drawn at start), never as
 * text.
 *
 * Invariants: no allocation after lg_start; a lookup touches at most PROBE
 * slots; a slot with name 0 is free.
 */
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loginguard.h"
#include "ratelimit.h"

#define PROBE 8
#define PERIOD_US (3600 * 1000000LL)

typedef struct lg_entry {
	uint64_t name;             /* 0: free */
	int64_t tat;               /* the bucket (srv_mono_us) */
	int64_t used;              /* last touched: the least recent is replaced */
	uint64_t known[LG_KNOWN];  /* addresses that logged in, newest first */
} lg_entry;

static const srv_config *cfg;
static lg_entry *slots;
static size_t nslots;
static unsigned char hkey[crypto_shorthash_KEYBYTES];

void lg_start(const srv_config *c)
{
	cfg = c;
	nslots = c->limit_addresses > 0 ? (size_t)c->limit_addresses : 1;
	free(slots);
	slots = srv_xcalloc(nslots, sizeof *slots);
	crypto_shorthash_keygen(hkey);
}

void lg_stop(void)
{
	free(slots);
	slots = NULL;
	nslots = 0;
}

static uint64_t hash_of(const char *s, char tag)
{
	unsigned char out[crypto_shorthash_BYTES];
	char buf[LIM_KEY_SIZE * 3];
	int n = snprintf(buf, sizeof buf, "%c%s", tag, s);
	crypto_shorthash(out, (const unsigned char *)buf, (unsigned long long)n, hkey);
	uint64_t v;
	memcpy(&v, out, sizeof v);
	return v ? v : 1;
}

static uint64_t addr_hash(const char *addr)
{
	char key[LIM_KEY_SIZE];
	lim_key(addr, key);
	return hash_of(key, 'a');
}

/* The entry of a name: its own, or (make) the least recently used one of
 * its slots, emptied; NULL when it has none and make is 0. */
static lg_entry *entry_of(const char *key, int make, int64_t now)
{
	if (!slots)
		return NULL;
	uint64_t h = hash_of(key, 'n');
	lg_entry *take = NULL;
	for (size_t i = 0; i < PROBE && i < nslots; i++) {
		lg_entry *e = &slots[(h + i) % nslots];
		if (e->name == h)
			return e;
		if (!take || !e->name || (take->name && e->used < take->used))
			take = e;
	}
	if (!make)
		return NULL;
	memset(take, 0, sizeof *take);
	take->name = h;
	take->tat = now;
	return take;
}

int lg_take(const char *key, const char *addr, int *taken, char *err, size_t errsize)
{
	*taken = 0;
	int n = cfg ? cfg->rate_login_fails : 0;
	if (n <= 0 || !slots)
		return 0;
	int64_t now = srv_mono_us();
	lg_entry *e = entry_of(key, 1, now);
	e->used = now;
	uint64_t a = addr_hash(addr);
	for (int i = 0; i < LG_KNOWN; i++)
		if (e->known[i] == a)
			return 0; /* the owner's address: only the per-address limits */
	int64_t step = PERIOD_US / n, tau = PERIOD_US - step;
	int64_t tat = e->tat > now ? e->tat : now;
	if (tat - now <= tau) {
		e->tat = tat + step;
		*taken = 1;
		return 0;
	}
	int wait = (int)((tat - tau - now + 999999) / 1000000);
	if (wait < 1)
		wait = 1;
	snprintf(err, errsize, "too many failed logins for this name: at most %d an hour from "
	         "addresses it was not logged in from (--rate-login-fails); try again in %d s",
	         n, wait);
	return wait;
}

void lg_give_back(const char *key)
{
	int n = cfg ? cfg->rate_login_fails : 0;
	lg_entry *e = n > 0 ? entry_of(key, 0, 0) : NULL;
	if (e)
		e->tat -= PERIOD_US / n;
}

void lg_known(const char *key, const char *addr)
{
	if (!cfg || cfg->rate_login_fails <= 0)
		return;
	int64_t now = srv_mono_us();
	lg_entry *e = entry_of(key, 1, now);
	if (!e)
		return;
	e->used = now;
	uint64_t a = addr_hash(addr);
	int at = LG_KNOWN - 1;
	for (int i = 0; i < LG_KNOWN; i++)
		if (e->known[i] == a)
			at = i;
	memmove(&e->known[1], &e->known[0], (size_t)at * sizeof e->known[0]);
	e->known[0] = a;
}
