/*
 * loginguard.c - the limits on failed logins and wrong recovery codes per
 * account name, and per device of a name (see loginguard.h and
 * docs/server.md, "Accounts").
 *
 * A bucket is one number, its theoretical arrival time (GCRA, as in
 * ratelimit.c): an attempt may take a token while tat - now <= period -
 * period/N; it moves tat on by period/N, and giving the token back moves
 * it back. An entry holds a bucket of each kind (passwords, codes). Names,
 * devices and addresses are kept as keyed 64-bit hashes (crypto_shorthash,
 * SipHash-2-4, with a key drawn at start), never as text.
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
	uint64_t name;             /* the bucket's key (a name's, a device's); 0: free */
	int64_t tat[LG_KINDS];     /* the buckets (srv_mono_us), by kind */
	int64_t used;              /* last touched: the least recent is replaced */
	uint64_t known[LG_KNOWN];  /* a name's: addresses that logged in, newest first */
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

/* The keyed hash of tag, a and b (a device's bucket is its id and the
 * name: one device, several names, several buckets). */
static uint64_t hash_of(char tag, const char *a, const char *b)
{
	unsigned char out[crypto_shorthash_BYTES];
	char buf[384]; /* a name key (STORE_NAME_SIZE * 2), a device id, an address key */
	int n = snprintf(buf, sizeof buf, "%c%s %s", tag, a, b);
	if (n >= (int)sizeof buf)
		n = (int)sizeof buf - 1;
	crypto_shorthash(out, (const unsigned char *)buf, (unsigned long long)n, hkey);
	uint64_t v;
	memcpy(&v, out, sizeof v);
	return v ? v : 1;
}

static uint64_t addr_hash(const char *addr)
{
	char key[LIM_KEY_SIZE];
	lim_key(addr, key);
	return hash_of('a', key, "");
}

static int rate_of(int kind)
{
	if (!cfg)
		return 0;
	return kind == LG_CODE ? cfg->rate_recover_fails : cfg->rate_login_fails;
}

/* The entry of bucket h: its own, or (make) the least recently used one
 * of its slots, emptied; NULL when it has none and make is 0. */
static lg_entry *entry_of(uint64_t h, int make, int64_t now)
{
	if (!slots)
		return NULL;
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
	for (int k = 0; k < LG_KINDS; k++)
		take->tat[k] = now;
	return take;
}

int lg_take(const char *key, const char *addr, const char *device, int kind, lg_ticket *t,
            char *err, size_t errsize)
{
	t->bucket = 0;
	t->kind = kind;
	int n = rate_of(kind);
	if (n <= 0 || !slots)
		return 0;
	int64_t now = srv_mono_us();
	lg_entry *e = entry_of(hash_of('n', key, ""), 1, now);
	e->used = now;
	uint64_t a = addr_hash(addr);
	for (int i = 0; i < LG_KNOWN; i++)
		if (e->known[i] == a)
			return 0; /* the owner's address: only the per-address limits */
	int dev = device && *device;
	if (dev) {
		/* the owner's browser: a budget of its own, which strangers
		 * cannot spend (and a stolen device cookie guesses no faster) */
		e = entry_of(hash_of('d', device, key), 1, now);
		e->used = now;
	}
	int64_t step = PERIOD_US / n, tau = PERIOD_US - step;
	int64_t tat = e->tat[kind] > now ? e->tat[kind] : now;
	if (tat - now <= tau) {
		e->tat[kind] = tat + step;
		t->bucket = e->name;
		return 0;
	}
	int wait = (int)((tat - tau - now + 999999) / 1000000);
	if (wait < 1)
		wait = 1;
	if (kind == LG_CODE)
		snprintf(err, errsize, "too many wrong recovery codes for this name%s: at most %d an "
		         "hour (--rate-recover-fails); try again in %d s",
		         dev ? " from this browser" : "", n, wait);
	else
		snprintf(err, errsize, "too many failed logins for this name%s: at most %d an hour "
		         "%s(--rate-login-fails); try again in %d s",
		         dev ? " from this browser" : "", n,
		         dev ? "" : "from browsers and addresses it was not logged in from ", wait);
	return wait;
}

void lg_give_back(const lg_ticket *t)
{
	int n = t->bucket ? rate_of(t->kind) : 0;
	lg_entry *e = n > 0 ? entry_of(t->bucket, 0, 0) : NULL;
	if (e)
		e->tat[t->kind] -= PERIOD_US / n;
}

void lg_known(const char *key, const char *addr)
{
	if (!cfg || (cfg->rate_login_fails <= 0 && cfg->rate_recover_fails <= 0))
		return;
	int64_t now = srv_mono_us();
	lg_entry *e = entry_of(hash_of('n', key, ""), 1, now);
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
