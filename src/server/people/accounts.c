/*
 * accounts.c - accounts and sessions (see accounts.h): the account names
 * and their keys, the seat tokens (under the account's epoch), the device
 * cookies and the session cookies, the session of a request,
 * the late answers of the accounts' files, and starting and stopping them
 * all (accounts_internal.h names the others: the hashing threads, the
 * registration, login and logout, the endpoints).
 *
 * Threads: the loop reads (accounts, sessions, lists) with its own store
 * handle; writes (a new account, a session, a logout) go to the storage
 * thread as WJ_CALL jobs; Argon2id runs on the hashing threads, which see
 * only their job (a copy of the password, wiped after use). A finished
 * hashing is handed back through a locked list and the loop is woken
 * (lws_cancel_service), like the bots' moves (accounts_hashing.c).
 *
 * Invariants: a password never reaches the store or the log.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_internal.h"
#include "loginguard.h"
#include "recovery.h"
#include "reply.h"
#include "writer.h"

#define KEY_SIZE crypto_auth_hmacsha256_KEYBYTES
#define DEVICE_HEX ACC_DEVICE_HEX /* a device's id and its MAC: 32 hex digits each */
#define BACKFILL_BATCH 256

const srv_config *acc_cfg;
store *acc_db;
const acc_hooks *acc_upper;
static unsigned char seat_key[KEY_SIZE];
static unsigned char device_key[KEY_SIZE];

/* ---- names ------------------------------------------------------------------------------ */

/* One UTF-8 code point from *p (advanced), or -1 when malformed. */
static long utf8_next(const unsigned char **p)
{
	const unsigned char *s = *p;
	long c;
	int n;
	if (s[0] < 0x80) {
		c = s[0];
		n = 1;
	} else if ((s[0] & 0xe0) == 0xc0) {
		c = s[0] & 0x1f;
		n = 2;
	} else if ((s[0] & 0xf0) == 0xe0) {
		c = s[0] & 0x0f;
		n = 3;
	} else if ((s[0] & 0xf8) == 0xf0) {
		c = s[0] & 0x07;
		n = 4;
	} else {
		return -1;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (s[i] & 0x3f);
	}
	static const long MIN[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (c < MIN[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*p = s + n;
	return c;
}

/* The letters an account name may hold besides ASCII: Latin-1's letters
 * and Latin Extended-A (the letters of Finnish, German, Slovene and most
 * European languages), precomposed (NFC; the web client normalises). */
static int name_letter(long c)
{
	return (c >= 0xc0 && c <= 0x17f && c != 0xd7 && c != 0xf7);
}

/* Simple case folding of the letters name_letter allows. */
static long fold(long c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c >= 0xc0 && c <= 0xde && c != 0xd7)
		return c + 32;
	if (c == 0x130)
		return 'i';
	if (c == 0x17f)
		return 's';
	if (c == 0x178)
		return 0xff;
	if ((c >= 0x100 && c <= 0x137) || (c >= 0x14a && c <= 0x177))
		return c | 1; /* even: the capital, odd: its small letter */
	if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e))
		return (c & 1) ? c + 1 : c;
	return c;
}

static void put_utf8(char *out, size_t *o, size_t size, long c)
{
	unsigned char b[4];
	int n;
	if (c < 0x80) {
		b[0] = (unsigned char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (unsigned char)(0xc0 | (c >> 6));
		b[1] = (unsigned char)(0x80 | (c & 0x3f));
		n = 2;
	} else {
		b[0] = (unsigned char)(0xe0 | (c >> 12));
		b[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (c & 0x3f));
		n = 3;
	}
	if (*o + (size_t)n < size) {
		memcpy(out + *o, b, (size_t)n);
		*o += (size_t)n;
	}
	out[*o] = 0;
}

int accounts_name_key(const char *name, char *key, size_t keysize, char *err, size_t errsize)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t o = 0;
	int n = 0, prev_space = 1, alnum = 0;
	key[0] = 0;
	if (strlen(name) >= STORE_NAME_SIZE) {
		snprintf(err, errsize, "a name has at most %d characters", ACC_NAME_MAX);
		return -1;
	}
	while (*p) {
		long c = utf8_next(&p);
		if (c < 0) {
			snprintf(err, errsize, "the name is not valid UTF-8");
			return -1;
		}
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == ' ' || c == '-' || c == '_' || name_letter(c);
		if (!ok) {
			snprintf(err, errsize, "a name may hold letters, digits, spaces, '-' and '_' only "
			         "(character %d is not one of them)", n + 1);
			return -1;
		}
		if (c == ' ' && prev_space) {
			snprintf(err, errsize, "a name does not start with a space nor hold two in a row");
			return -1;
		}
		prev_space = c == ' ';
		alnum |= c != ' ' && c != '-' && c != '_';
		put_utf8(key, &o, keysize, fold(c));
		n++;
	}
	if (prev_space && n) {
		snprintf(err, errsize, "a name does not end with a space");
		return -1;
	}
	if (n < ACC_NAME_MIN || n > ACC_NAME_MAX || !alnum) {
		snprintf(err, errsize, "a name has %d to %d characters, at least one a letter or digit",
		         ACC_NAME_MIN, ACC_NAME_MAX);
		return -1;
	}
	return 0;
}

/* ---- tokens and cookies -------------------------------------------------------------------- */

void accounts_seat_token_at(const char *table, int seat, int64_t account, int64_t epoch,
                            char *out)
{
	/* epoch 0 (an account whose password never changed) signs what the
	 * tokens signed before there were epochs: its players keep them */
	char msg[128];
	int n = epoch ? snprintf(msg, sizeof msg, "seat %s %d %lld %lld", table, seat,
	                         (long long)account, (long long)epoch)
	              : snprintf(msg, sizeof msg, "seat %s %d %lld", table, seat, (long long)account);
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256(mac, (const unsigned char *)msg, (unsigned long long)n, seat_key);
	sodium_bin2hex(out, STORE_TOKEN_SIZE, mac, 16);
	sodium_memzero(mac, sizeof mac);
}

void accounts_seat_token_hash(const char *table, int seat, int64_t account, int64_t epoch,
                              char out[STORE_TOKEN_HASH_SIZE])
{
	char tok[STORE_TOKEN_SIZE];
	accounts_seat_token_at(table, seat, account, epoch, tok);
	srv_token_hash(tok, out);
	sodium_memzero(tok, sizeof tok);
}

int accounts_seat_token(const char *table, int seat, int64_t account, char *out)
{
	store_account a;
	char err[STORE_ERR_SIZE];
	int rc = acc_db->ops->account_by_id(acc_db, account, &a, err);
	if (rc != 1) {
		out[0] = 0;
		if (rc < 0)
			srv_error("account=%lld: reading its epoch for a seat token: %s",
			          (long long)account, err);
		return -1;
	}
	accounts_seat_token_at(table, seat, account, a.epoch, out);
	sodium_memzero(&a, sizeof a);
	return 0;
}

/* ---- the device cookie ---------------------------------------------------------------------- */

/* The MAC of device `dev` (DEVICE_HEX hex digits) for `account`, as hex. */
static void device_mac(const char *dev, int64_t account, char out[DEVICE_HEX + 1])
{
	char msg[96];
	int n = snprintf(msg, sizeof msg, "device %lld %s", (long long)account, dev);
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256(mac, (const unsigned char *)msg, (unsigned long long)n, device_key);
	sodium_bin2hex(out, DEVICE_HEX + 1, mac, DEVICE_HEX / 2);
	sodium_memzero(mac, sizeof mac);
}

/* The value of cookie `name` of the Cookie header into out (size bytes),
 * or "" when it is not there or longer. */
static void cookie_value(const char *cookie, const char *name, char *out, size_t size)
{
	out[0] = 0;
	size_t nl = strlen(name);
	for (const char *p = cookie; p && (p = strstr(p, name)); p += nl) {
		if ((p == cookie || p[-1] == ' ' || p[-1] == ';') && p[nl] == '=') {
			p += nl + 1;
			size_t n = strcspn(p, "; ");
			if (n < size) {
				memcpy(out, p, n);
				out[n] = 0;
			}
			return;
		}
	}
}

int accounts_device_of(const char *cookie, int64_t account, char *dev)
{
	char v[2 * DEVICE_HEX + 2], mac[DEVICE_HEX + 1];
	dev[0] = 0;
	if (!account)
		return 0;
	cookie_value(cookie, ACC_DEVICE_COOKIE, v, sizeof v);
	if (strlen(v) != 2 * DEVICE_HEX + 1 || v[DEVICE_HEX] != '.' ||
	    strspn(v, "0123456789abcdef") != DEVICE_HEX)
		return 0;
	v[DEVICE_HEX] = 0;
	device_mac(v, account, mac);
	int ok = srv_token_eq(mac, v + DEVICE_HEX + 1);
	if (ok)
		memcpy(dev, v, DEVICE_HEX + 1);
	sodium_memzero(v, sizeof v);
	sodium_memzero(mac, sizeof mac);
	return ok;
}

void accounts_device_cookie(const char *device, int64_t account, int tls, char *out,
                            size_t size)
{
	char dev[DEVICE_HEX + 1], mac[DEVICE_HEX + 1], value[2 * DEVICE_HEX + 2];
	/* the browser's own device stays (and with it its budget of failures,
	 * loginguard.h); a browser new to the account gets one */
	if (device && strlen(device) == DEVICE_HEX)
		memcpy(dev, device, sizeof dev);
	else
		srv_random_hex(dev, DEVICE_HEX / 2);
	device_mac(dev, account, mac);
	snprintf(value, sizeof value, "%s.%s", dev, mac);
	snprintf(out, size, "%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d%s",
	         ACC_DEVICE_COOKIE, value, acc_cfg->device_ttl_s, tls ? "; Secure" : "");
	sodium_memzero(value, sizeof value);
	sodium_memzero(mac, sizeof mac);
}

void accounts_cookie(char *out, size_t size, const char *name, const char *value, int max_age,
                     int tls)
{
	snprintf(out, size, "%s=%s; Path=/; HttpOnly; SameSite=Lax; Max-Age=%d%s", name, value,
	         max_age, tls ? "; Secure" : "");
}

/* The session cookie's value (64 hex digits) into out, or "" (accounts_internal.h). */
void acc_session_of(const char *cookie, char *out, size_t size)
{
	out[0] = 0;
	const char *p = cookie;
	size_t nl = strlen(SESSION_COOKIE);
	while (p && (p = strstr(p, SESSION_COOKIE))) {
		if ((p == cookie || p[-1] == ' ' || p[-1] == ';') && p[nl] == '=') {
			p += nl + 1;
			size_t n = strcspn(p, "; ");
			if (n == SESSION_BYTES * 2 && n < size && strspn(p, "0123456789abcdef") >= n) {
				memcpy(out, p, n);
				out[n] = 0;
			}
			return;
		}
		p += nl;
	}
}

int accounts_session_hash(const char *cookie, char *out)
{
	char tok[SESSION_BYTES * 2 + 1];
	out[0] = 0;
	acc_session_of(cookie, tok, sizeof tok);
	if (!tok[0])
		return 0;
	srv_token_hash(tok, out);
	sodium_memzero(tok, sizeof tok);
	return 1;
}

int accounts_session(const char *cookie, store_account *a)
{
	char tok[SESSION_BYTES * 2 + 1], h[STORE_TOKEN_HASH_SIZE], err[STORE_ERR_SIZE];
	acc_session_of(cookie, tok, sizeof tok);
	if (!tok[0])
		return 0;
	srv_token_hash(tok, h);
	int rc = acc_db->ops->session_get(acc_db, h, srv_now_ms(), a, err);
	if (rc < 0)
		srv_error("reading a session: %s", err);
	return rc;
}

int accounts_require_session(const api_req *rq, api_resp *rs, store_account *a)
{
	int rc = accounts_session(rq->cookie, a);
	if (rc < 0)
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
	else if (rc == 0)
		api_reply_error(rs, SE_NOT_LOGGED_IN, "not logged in (or the session has expired)");
	return rc == 1;
}

/* ---- answers ----------------------------------------------------------------------------- */

/* A late answer to HTTP request `serial` (takes o; accounts_internal.h). */
void acc_answer(uint64_t serial, int status, json_t *o, const char *cookie)
{
	char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	acc_upper->http_answer(serial, status, "application/json", body, body ? strlen(body) : 0,
	                       cookie, NULL);
}

void acc_answer_error(uint64_t serial, srv_err e, const char *msg)
{
	acc_answer(serial, srv_err_http_status(e), api_error_json(e, msg), NULL);
}

/* ---- look-alike forms of the names of accounts made before they were kept ---- */

typedef struct backfill {
	int added, kept_out; /* accounts given their forms; accounts one of whose forms was taken */
} backfill;

/* The storage thread: every account without forms, a batch at a time. An
 * account whose form another holds keeps its name (it was first to
 * register it, or the other was); only new names are refused. */
static int call_backfill(store *st, wjob *j)
{
	backfill *b = j->data;
	int64_t ids[BACKFILL_BATCH], after = 0;
	char names[BACKFILL_BATCH][STORE_NAME_SIZE];
	for (;;) {
		int n = st->ops->accounts_unskeletoned(st, after, BACKFILL_BATCH, ids, names, j->err);
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			char forms[2][SKEL_SIZE], err[256];
			after = ids[i];
			if (skeleton_forms(names[i], forms, err, sizeof err)) {
				b->kept_out++;
				continue;
			}
			int taken = 0;
			for (int f = 0; f < 2; f++) {
				if (!forms[f][0])
					continue;
				int rc = st->ops->skeleton_add(st, ids[i], forms[f], j->err);
				if (rc == STORE_DUPLICATE)
					taken = 1;
				else if (rc)
					return -1;
			}
			if (taken)
				b->kept_out++;
			else
				b->added++;
		}
		if (n < BACKFILL_BATCH)
			return 0;
	}
}

static void backfill_done(wjob *j)
{
	backfill *b = j->data;
	if (j->failed)
		srv_error("accounts: giving older names their look-alike forms: %s", j->err);
	else if (b->added || b->kept_out)
		srv_event("event=name_forms added=%d shared=%d", b->added, b->kept_out);
}

static void backfill_skeletons(void)
{
	/* a write only when an account lacks its forms (a database from
	 * before schema 10, or a form another name held then) */
	int64_t id;
	char name[1][STORE_NAME_SIZE], err[STORE_ERR_SIZE];
	if (acc_db->ops->accounts_unskeletoned(acc_db, 0, 1, &id, name, err) == 0)
		return;
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_backfill;
	j->data = srv_xcalloc(1, sizeof(backfill));
	j->done = backfill_done;
	writer_submit(j);
}

/* ---- start and stop ------------------------------------------------------------------------------ */

void accounts_hooks_set(const acc_hooks *h)
{
	acc_upper = h;
}

int accounts_start(const srv_config *c, store *reader, struct lws_context *ctx)
{
	acc_cfg = c;
	acc_db = reader;
	if (sodium_init() < 0) {
		srv_error("libsodium cannot start");
		return -1;
	}
	char err[STORE_ERR_SIZE];
	if (acc_db->ops->get_key(acc_db, "seat", seat_key, sizeof seat_key, err) ||
	    acc_db->ops->get_key(acc_db, "device", device_key, sizeof device_key, err)) {
		srv_error("accounts: %s", err);
		return -1;
	}
	if (skeleton_start(err, sizeof err)) {
		srv_error("accounts: %s", err);
		return -1;
	}
	backfill_skeletons();
	lg_start(c);
	if (recovery_start(c, reader))
		return -1;
	return acc_queue_start(ctx);
}

void accounts_stop(void)
{
	acc_queue_stop();
	lg_stop();
	skeleton_stop();
	recovery_stop();
	sodium_memzero(seat_key, sizeof seat_key);
	sodium_memzero(device_key, sizeof device_key);
}
