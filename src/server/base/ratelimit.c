/*
 * ratelimit.c - per-address rate limits and the caps on stored uploads (see
 * ratelimit.h and docs/server.md, "Limits").
 *
 * Each limit is "at most N per period" as a token bucket that holds N and
 * refills N per period, kept as one number per address and kind: the
 * bucket's theoretical arrival time (GCRA). An event is allowed when
 * tat - now <= period - period/N; it then moves tat on by period/N. A
 * bucket is full again once tat <= now, and an address whose buckets are
 * all full is the same as an address never seen: its entry may be reused.
 *
 * The entries are one array of cfg->limit_addresses slots, allocated at
 * start, with open addressing (a keyed hash, PROBE slots looked at). A new
 * address takes a free slot, or one whose buckets are full. When every
 * slot it may take belongs to an address that is still being limited (a
 * flood from more addresses than there are slots), the new address shares
 * one overflow entry with every other such address: the flood is counted
 * as one address, so neither memory nor the number of requests let
 * through grows with the number of addresses.
 *
 * Invariants: no allocation after lim_start; a lookup touches at most
 * PROBE slots.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ratelimit.h"

#define PROBE 8
#define LOG_EVERY_US (10 * 1000000LL) /* refusals of one address are logged this often */

typedef struct lim_addr {
	unsigned char fam;        /* 0 unused slot, 4, 6, or 1: the address was unknown */
	unsigned char b[8];       /* IPv4: 4 bytes; IPv6: the /64 prefix */
	int64_t tat[LIM_KIND_COUNT];
	int64_t logged_us;        /* when a refusal was last logged */
	int streak[LIM_KIND_COUNT]; /* refusals since the last event allowed */
} lim_addr;

static const srv_config *cfg;
static lim_addr *slots, overflow;
static size_t nslots;
static uint64_t hash_key;
static long up_count;
static int64_t up_bytes;

static const struct {
	const char *what, *option, *per;
	int64_t period_us;
} KINDS[LIM_KIND_COUNT] = {
	[LIM_REQUESTS] = {"requests and messages", "--rate-requests", "minute", 60 * 1000000LL},
	[LIM_TABLES] = {"tables created", "--rate-tables", "minute", 60 * 1000000LL},
	[LIM_UPLOADS] = {"records uploaded", "--rate-uploads", "hour", 3600 * 1000000LL},
	[LIM_LOGINS] = {"logins and registrations", "--rate-logins", "minute", 60 * 1000000LL},
	[LIM_ANALYSES] = {"analyses started", "--rate-analyses", "hour", 3600 * 1000000LL},
	[LIM_PLAYERS] = {"profiles asked for", "--rate-players", "minute", 60 * 1000000LL},
	[LIM_UNDOS] = {"undo requests", "--rate-undos", "minute", 60 * 1000000LL},
	[LIM_SOCIAL] = {"friend, block and invite requests", "--rate-social", "minute",
	                60 * 1000000LL},
	[LIM_MATCH] = {"quick-match joins", "--rate-match", "minute", 60 * 1000000LL},
	[LIM_RECOVER] = {"recovery attempts", "--rate-recover", "hour", 3600 * 1000000LL},
	[LIM_KEEP] = {"password changes, deletions and new recovery codes", "--rate-keep", "hour",
	              3600 * 1000000LL},
	[LIM_DOWNLOADS] = {"pages of game downloads", "--rate-downloads", "hour", 3600 * 1000000LL},
};

static int limit_of(lim_kind k)
{
	switch (k) {
	case LIM_REQUESTS: return cfg->rate_requests;
	case LIM_TABLES: return cfg->rate_tables;
	case LIM_UPLOADS: return cfg->rate_uploads;
	case LIM_LOGINS: return cfg->rate_logins;
	case LIM_ANALYSES: return cfg->rate_analyses;
	case LIM_PLAYERS: return cfg->rate_players;
	case LIM_UNDOS: return cfg->rate_undos;
	case LIM_SOCIAL: return cfg->rate_social;
	case LIM_MATCH: return cfg->rate_match;
	case LIM_RECOVER: return cfg->rate_recover;
	case LIM_KEEP: return cfg->rate_keep;
	case LIM_DOWNLOADS: return cfg->rate_downloads;
	default: return 0;
	}
}

void lim_start(const srv_config *c)
{
	cfg = c;
	nslots = c->limit_addresses > 0 ? (size_t)c->limit_addresses : 1;
	free(slots);
	slots = srv_xcalloc(nslots, sizeof *slots);
	memset(&overflow, 0, sizeof overflow);
	hash_key = srv_random_u64();
	up_count = 0;
	up_bytes = 0;
}

void lim_stop(void)
{
	free(slots);
	slots = NULL;
	nslots = 0;
}

/* The address as a key: family and the bytes that count. */
static void parse(const char *addr, unsigned char *fam, unsigned char b[8])
{
	memset(b, 0, 8);
	char buf[64];
	snprintf(buf, sizeof buf, "%s", addr ? addr : "");
	buf[strcspn(buf, "%")] = 0; /* a link-local zone */
	unsigned char raw[16];
	if (inet_pton(AF_INET, buf, raw) == 1) {
		*fam = 4;
		memcpy(b, raw, 4);
	} else if (inet_pton(AF_INET6, buf, raw) == 1) {
		*fam = 6;
		memcpy(b, raw, 8);
	} else {
		*fam = 1;
	}
}

void lim_key(const char *addr, char *out)
{
	unsigned char fam, b[8];
	parse(addr, &fam, b);
	if (fam == 4) {
		inet_ntop(AF_INET, b, out, LIM_KEY_SIZE);
	} else if (fam == 6) {
		unsigned char raw[16] = {0};
		memcpy(raw, b, 8);
		char t[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, raw, t, sizeof t);
		snprintf(out, LIM_KEY_SIZE, "%s/64", t);
	} else {
		snprintf(out, LIM_KEY_SIZE, "?");
	}
}

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int all_full(const lim_addr *e, int64_t now)
{
	for (int k = 0; k < LIM_KIND_COUNT; k++)
		if (e->tat[k] > now)
			return 0;
	return 1;
}

/* The entry of an address: its own, a reused one, or the overflow. */
static lim_addr *entry_of(const char *addr, int64_t now)
{
	unsigned char fam, b[8];
	parse(addr, &fam, b);
	uint64_t v;
	memcpy(&v, b, 8);
	size_t h = (size_t)(mix(v ^ hash_key ^ ((uint64_t)fam << 56)) % nslots);
	lim_addr *take = NULL;
	for (int i = 0; i < PROBE && i < (int)nslots; i++) {
		lim_addr *e = &slots[(h + (size_t)i) % nslots];
		if (e->fam == fam && !memcmp(e->b, b, 8))
			return e;
		if (!take && (!e->fam || all_full(e, now)))
			take = e;
	}
	if (!take)
		return &overflow;
	memset(take, 0, sizeof *take);
	take->fam = fam;
	memcpy(take->b, b, 8);
	return take;
}

int lim_take(const char *addr, lim_kind kind, char *err, size_t errsize)
{
	int n = limit_of(kind);
	if (n <= 0 || !slots)
		return 0;
	int64_t now = srv_mono_us();
	lim_addr *e = entry_of(addr, now);
	int64_t period = KINDS[kind].period_us, step = period / n, tau = period - step;
	int64_t tat = e->tat[kind] > now ? e->tat[kind] : now;
	if (tat - now <= tau) {
		e->tat[kind] = tat + step;
		e->streak[kind] = 0;
		return 0;
	}
	if (e->streak[kind] < 1000000000)
		e->streak[kind]++;
	int64_t wait_us = tat - tau - now;
	int wait = (int)((wait_us + 999999) / 1000000);
	if (wait < 1)
		wait = 1;
	snprintf(err, errsize, "too many %s from this address: at most %d a %s (%s); try again in "
	         "%d s", KINDS[kind].what, n, KINDS[kind].per, KINDS[kind].option, wait);
	if (now - e->logged_us >= LOG_EVERY_US || !e->logged_us) {
		e->logged_us = now;
		char key[LIM_KEY_SIZE];
		lim_key(addr, key);
		srv_event("limit=%s addr=%s%s refused (logged once in %lld s)", KINDS[kind].option + 2,
		          key, e == &overflow ? " (overflow: the address table is full)" : "",
		          LOG_EVERY_US / 1000000);
	}
	return wait;
}

int lim_streak(const char *addr, lim_kind kind)
{
	if (!slots)
		return 0;
	return entry_of(addr, srv_mono_us())->streak[kind];
}

void lim_uploads_init(long count, int64_t bytes)
{
	up_count = count;
	up_bytes = bytes;
}

int lim_uploads_reserve(size_t bytes, char *err, size_t errsize)
{
	if (cfg->max_uploads > 0 && up_count >= cfg->max_uploads) {
		snprintf(err, errsize, "the server stores at most %d uploaded records (--max-uploads) "
		         "and holds %ld", cfg->max_uploads, up_count);
		return 3600;
	}
	if (cfg->max_upload_bytes > 0 && up_bytes + (int64_t)bytes > cfg->max_upload_bytes) {
		snprintf(err, errsize, "the server stores at most %lld bytes of uploaded records "
		         "(--max-upload-bytes) and holds %lld", (long long)cfg->max_upload_bytes,
		         (long long)up_bytes);
		return 3600;
	}
	up_count++;
	up_bytes += (int64_t)bytes;
	return 0;
}

void lim_uploads_release(size_t bytes)
{
	up_count--;
	up_bytes -= (int64_t)bytes;
}
