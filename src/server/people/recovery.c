/*
 * recovery.c - accounts people can keep (see recovery.h): recovery codes,
 * a new password from a code, changing the password, deleting the
 * account, downloading its finished games.
 *
 * Threads: as accounts.c. Requests are checked on the loop (limits, the
 * body, the session, a code against the store with the loop's reading
 * handle); Argon2id (a password to verify, a new one to hash) runs on the
 * hashing threads through accounts_work; writes go to the storage thread
 * as WJ_CALL jobs; the answers follow from their done callbacks.
 *
 * Limits, each asked before any work: per address (ratelimit.c) and per
 * account (here: a token bucket per account id in one table of
 * cfg->limit_addresses slots allocated at start; a new account takes the
 * least limited of the AL_PROBE slots it may have, so a flood of accounts
 * cannot make it grow). A recovery attempt takes a token of the name's
 * guard on codes (--rate-recover-fails) and a check of the current
 * password one of its guard on passwords (--rate-login-fails,
 * loginguard.c); a right one gives it back. A browser with the account's
 * device cookie has budgets of its own, so strangers who spend the name's
 * do not keep its owner from recovering (issue 26).
 *
 * Tokens (issue 26): a recovery and a password change move the account's
 * epoch on and give each of its seats the token of the new epoch in their
 * transaction (store.h password_set, accounts_seat_token_hash); then the
 * tables this process holds load the new hashes (keep_hooks.refresh),
 * which takes the seat from every connection that held it with an old
 * token. A deletion frees the account's seats at open tables and leaves
 * its other seats without a token.
 *
 * Invariants: a code in the clear exists only in the answer that shows it
 * and, briefly, in the jobs that store it (wiped after); the store holds
 * its keyed hash only.
 */
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "errcode.h"
#include "loginguard.h"
#include "ratelimit.h"
#include "recovery.h"
#include "reply.h"
#include "writer.h"

#define AL_PROBE 8
#define HOUR_US (3600 * 1000000LL)

static const srv_config *cfg;
static store *db;
static const keep_hooks *hooks;
static unsigned char rkey[crypto_auth_hmacsha256_KEYBYTES];

/* ---- limits per account ------------------------------------------------------------------ */

enum { AK_KEEP, AK_DOWNLOADS, AK_COUNT };

typedef struct al_slot {
	int64_t account;           /* 0: unused */
	int64_t tat[AK_COUNT];     /* GCRA: the bucket's theoretical arrival time (mono us) */
} al_slot;

static al_slot *als;
static size_t nals;

static int64_t slot_latest(const al_slot *s)
{
	int64_t m = 0;
	for (int k = 0; k < AK_COUNT; k++)
		m = s->tat[k] > m ? s->tat[k] : m;
	return m;
}

/* One event of kind k for `account`, at most per_hour an hour: 0, or the
 * seconds to wait with the message in err. */
static int acct_take(int64_t account, int k, int per_hour, const char *option, char *err,
                     size_t errsize)
{
	if (per_hour <= 0 || !nals)
		return 0;
	int64_t now = srv_mono_us(), step = HOUR_US / per_hour;
	size_t h = (size_t)(((uint64_t)account * 0x9e3779b97f4a7c15ULL) >> 17) % nals;
	al_slot *s = NULL, *least = NULL;
	for (int i = 0; i < AL_PROBE && !s; i++) {
		al_slot *c = &als[(h + (size_t)i) % nals];
		if (c->account == account)
			s = c;
		else if (!least || slot_latest(c) < slot_latest(least))
			least = c;
	}
	if (!s) {
		s = least;
		memset(s, 0, sizeof *s);
		s->account = account;
	}
	int64_t tat = s->tat[k] > now ? s->tat[k] : now;
	if (tat - now > HOUR_US - step) {
		int wait = (int)((tat - now - (HOUR_US - step)) / 1000000) + 1;
		snprintf(err, errsize, "this account may do that %d times an hour (%s): try again in "
		         "%d s", per_hour, option, wait);
		return wait;
	}
	s->tat[k] = tat + step;
	return 0;
}

/* ---- codes ------------------------------------------------------------------------------- */

void recovery_new_codes(char (*codes)[RC_TEXT_SIZE], int n)
{
	static const char A[] = RC_ALPHABET;
	for (int i = 0; i < n; i++) {
		size_t o = 0;
		for (int c = 0; c < RC_LEN; c++) {
			if (c && c % 4 == 0)
				codes[i][o++] = '-';
			codes[i][o++] = A[randombytes_uniform((uint32_t)(sizeof A - 1))];
		}
		codes[i][o] = 0;
	}
}

/* A code as typed into its RC_LEN characters (out, RC_LEN + 1 bytes):
 * case, spaces and dashes do not matter. 0, or -1 when it cannot be one. */
static int code_norm(const char *in, char *out)
{
	int n = 0;
	for (const char *p = in; *p; p++) {
		if (*p == '-' || *p == ' ')
			continue;
		char c = (char)tolower((unsigned char)*p);
		if (n == RC_LEN || !strchr(RC_ALPHABET, c) || !c)
			return -1;
		out[n++] = c;
	}
	out[n] = 0;
	return n == RC_LEN ? 0 : -1;
}

/* The keyed hash of a code (normalised) of `account`, as 64 hex digits. */
static void code_hash(int64_t account, const char *norm, char *hex)
{
	char msg[64];
	int n = snprintf(msg, sizeof msg, "recovery %lld %s", (long long)account, norm);
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256(mac, (const unsigned char *)msg, (unsigned long long)n, rkey);
	sodium_bin2hex(hex, STORE_TOKEN_HASH_SIZE, mac, sizeof mac);
	sodium_memzero(mac, sizeof mac);
	sodium_memzero(msg, sizeof msg);
}

int recovery_store_codes(store *st, int64_t account, char (*codes)[RC_TEXT_SIZE], int n,
                         int64_t now_ms)
{
	char hashes[RC_COUNT][STORE_TOKEN_HASH_SIZE], norm[RC_LEN + 1], err[STORE_ERR_SIZE];
	if (n > RC_COUNT)
		n = RC_COUNT;
	for (int i = 0; i < n; i++) {
		if (code_norm(codes[i], norm))
			return -1;
		code_hash(account, norm, hashes[i]);
	}
	sodium_memzero(norm, sizeof norm);
	int rc = st->ops->recovery_set(st, account, (const char(*)[STORE_TOKEN_HASH_SIZE])hashes, n,
	                               now_ms, err);
	if (rc)
		srv_error("account=%lld: the recovery codes were not stored: %s", (long long)account,
		          err);
	return rc ? -1 : 0;
}

/* ---- answers ----------------------------------------------------------------------------- */

static void reply_wait(api_resp *rs, int wait, const char *msg)
{
	api_reply_error(rs, SE_RATE_LIMITED, msg);
	rs->retry_after = wait;
}

static void answer(uint64_t serial, int status, json_t *o, const char *cookie)
{
	char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	hooks->http_answer(serial, status, "application/json", body, body ? strlen(body) : 0, cookie,
	                   NULL);
}

static void answer_error(uint64_t serial, srv_err e, const char *msg)
{
	answer(serial, srv_err_http_status(e), api_error_json(e, msg), NULL);
}

static void storage_error(uint64_t serial, const wjob *j, const char *what)
{
	char msg[256];
	snprintf(msg, sizeof msg, "the game database is unavailable: %s; %s",
	         store_fault_text(j->fault), what);
	answer_error(serial, SE_STORAGE, msg);
}

/* The request's body as a JSON object, or NULL (answered). */
static json_t *body_object(const api_req *rq, api_resp *rs, const char *shape)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the request body is over the size limit");
		return NULL;
	}
	json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, shape);
		return NULL;
	}
	return o;
}

/* A string member of at most max bytes without NUL, or NULL. */
static const char *str_member(json_t *o, const char *key, size_t max)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return NULL;
	size_t n = json_string_length(v);
	const char *s = json_string_value(v);
	return n == strlen(s) && n <= max ? s : NULL;
}

/* Whether a new password is acceptable: 1, or 0 answered. */
static int new_password_ok(const char *pw, api_resp *rs)
{
	size_t n = pw ? strlen(pw) : 0;
	if (pw && n >= ACC_PASSWORD_MIN && n <= ACC_PASSWORD_MAX)
		return 1;
	char msg[96];
	snprintf(msg, sizeof msg, "a password has %d to %d bytes (and no NUL)", ACC_PASSWORD_MIN,
	         ACC_PASSWORD_MAX);
	api_reply_error(rs, SE_BAD_PASSWORD, msg);
	return 0;
}

/* The per-address limit `kind`, then the account's limit `ak`: 1 when
 * both allow, or 0 answered (429). */
static int limits_ok(const api_req *rq, api_resp *rs, lim_kind kind, int64_t account, int ak)
{
	char err[200];
	int wait = lim_take(rq->addr, kind, err, sizeof err);
	if (!wait && account)
		wait = ak == AK_KEEP
		           ? acct_take(account, ak, cfg->rate_keep, "--rate-keep", err, sizeof err)
		           : acct_take(account, ak, cfg->rate_downloads, "--rate-downloads", err,
		                       sizeof err);
	if (wait)
		reply_wait(rs, wait, err);
	return !wait;
}

/* ---- the jobs ------------------------------------------------------------------------------ */

/* A request on its way through the hashing threads and the store: the
 * hashing work first (accounts.h: freed after its done), then a copy of
 * what the write needs (the write's data, freed with the write). */
typedef struct keep_req {
	acc_work w;
	int op;                               /* KO_* */
	int tls;
	int64_t account;
	char name[STORE_NAME_SIZE];
	char key[STORE_NAME_SIZE * 2];        /* the name's case-folded key (loginguard) */
	char peer[LIM_KEY_SIZE * 2];
	char code_hash[STORE_TOKEN_HASH_SIZE]; /* recover: the code used */
	char session[ACC_SESSION_HEX + 1];    /* recover: the new session's cookie */
	char session_hash[STORE_TOKEN_HASH_SIZE]; /* recover: new; password: the one kept */
	char codes[RC_COUNT][RC_TEXT_SIZE];   /* new codes: as shown */
	char device[ACC_DEVICE_HEX + 1];      /* the browser's device cookie ("": none) */
	int64_t now_ms, expires_ms;
	int64_t epoch;                        /* the account's, as its session read it */
	int rc;                               /* the store's answer */
	char (*ids)[STORE_ID_SIZE];           /* delete: the games touched (freed in done) */
	int nids;
	store_rekey rk;                       /* recover, password: the seats given new
	                                       * tokens (their games freed in done) */
} keep_req;

enum { KO_RECOVER, KO_PASSWORD, KO_DELETE, KO_CODES };

static int call_keep(store *st, wjob *j)
{
	keep_req *k = j->data;
	int rc = 0;
	char *err = j->err;
	switch (k->op) {
	case KO_RECOVER:
		rc = st->ops->password_set(st, k->account, k->w.new_hash, k->code_hash, NULL,
		                           k->session_hash, k->now_ms, k->expires_ms, &k->rk, err);
		break;
	case KO_PASSWORD:
		rc = st->ops->password_set(st, k->account, k->w.new_hash, NULL,
		                           k->session_hash[0] ? k->session_hash : NULL, NULL, k->now_ms,
		                           0, &k->rk, err);
		break;
	case KO_DELETE:
		rc = st->ops->account_delete(st, k->account, KEEP_ANON_NAME, k->now_ms, &k->ids,
		                             &k->nids, err);
		rc = rc < 0 ? -1 : 0;
		break;
	case KO_CODES:
		rc = recovery_store_codes(st, k->account, k->codes, RC_COUNT, k->now_ms);
		break;
	}
	k->rc = rc;
	return rc == STORE_NOT_FOUND ? 0 : rc; /* an answer, not a fault */
}

static void keep_written(wjob *j);

/* Hands the request's write to the storage thread (a copy of k). */
static void submit_write(const keep_req *k)
{
	keep_req *c = srv_xmalloc(sizeof *c);
	memcpy(c, k, sizeof *c);
	/* a group writes its jobs in the order of their tables' ids (writer.c):
	 * "~" sorts after every game id, so a deletion comes after the
	 * resignations queued before it, also in one group */
	wjob *j = writer_job(WJ_CALL, k->op == KO_DELETE ? "~" : "-");
	j->call = call_keep;
	j->data = c;
	j->done = keep_written;
	writer_submit(j);
}

static void keep_written(wjob *j)
{
	keep_req *k = j->data;
	uint64_t serial = k->w.serial;
	char cookie[ACC_COOKIES_SIZE];
	/* the seats whose tokens changed: the tables this process holds load
	 * them (the others' processes hear of it through the store) */
	for (int i = 0; !j->failed && k->rc == 0 && i < k->rk.nids; i++)
		hooks->refresh(k->rk.ids[i]);
	if (j->failed) {
		storage_error(serial, j, k->op == KO_DELETE ? "the account was not deleted"
		                                            : "nothing was changed");
	} else if (k->op == KO_RECOVER) {
		if (k->rc == STORE_NOT_FOUND) {
			answer_error(serial, SE_BAD_RECOVERY, "wrong name or recovery code");
		} else {
			int left = 0;
			char err[STORE_ERR_SIZE];
			if (db->ops->recovery_find(db, k->account, NULL, &left, err) < 0)
				left = -1;
			srv_event("account=%lld event=recovered codes_left=%d seats_rekeyed=%d",
			          (long long)k->account, left, k->rk.nids);
			/* the browser's device cookie, then the new session's */
			accounts_device_cookie(k->device, k->account, k->tls, cookie, sizeof cookie);
			size_t n = strlen(cookie);
			cookie[n++] = '\n';
			accounts_cookie(cookie + n, sizeof cookie - n, ACC_SESSION_COOKIE, k->session,
			                cfg->session_ttl_s, k->tls);
			answer(serial, 200,
			       json_pack("{s:{s:I, s:s}, s:I, s:i}", "account", "id",
			                 (json_int_t)k->account, "name", k->name, "expires_ms",
			                 (json_int_t)k->expires_ms, "codes_left", left),
			       cookie);
		}
	} else if (k->op == KO_PASSWORD) {
		srv_event("account=%lld event=password_changed seats_rekeyed=%d", (long long)k->account,
		          k->rk.nids);
		answer(serial, 200, json_pack("{s:b}", "ok", 1), NULL);
	} else if (k->op == KO_CODES) {
		if (k->rc) {
			answer_error(serial, SE_STORAGE, "the game database is unavailable: no new codes "
			             "were made; the old ones still hold");
		} else {
			json_t *a = json_array();
			for (int i = 0; i < RC_COUNT; i++)
				json_array_append_new(a, json_string(k->codes[i]));
			srv_event("account=%lld event=recovery_codes_made", (long long)k->account);
			answer(serial, 200, json_pack("{s:o}", "recovery_codes", a), NULL);
		}
	} else {
		for (int i = 0; i < k->nids; i++)
			hooks->refresh(k->ids[i]);
		srv_event("account=%lld event=deleted games_anonymised=%d", (long long)k->account,
		          k->nids);
		accounts_cookie(cookie, sizeof cookie, ACC_SESSION_COOKIE, "", 0, k->tls);
		answer(serial, 200, json_pack("{s:b, s:i}", "ok", 1, "games", k->nids), cookie);
	}
	free(k->ids);
	k->ids = NULL;
	free(k->rk.ids);
	k->rk.ids = NULL;
	sodium_memzero(k, sizeof *k);
}

typedef struct resign_ctx {
	int64_t account, epoch;
	int asked, refused;
} resign_ctx;

static int resign_one(void *ctx, const store_game *g, int seat, const store_result *r,
                      const store_rating_row *rr)
{
	(void)r;
	(void)rr;
	resign_ctx *c = ctx;
	if (g->status != STORE_PLAYING)
		return 0;
	char tok[STORE_TOKEN_SIZE];
	accounts_seat_token_at(g->id, seat, c->account, c->epoch, tok);
	if (hooks->resign(g->id, seat, tok))
		c->refused++;
	else
		c->asked++;
	sodium_memzero(tok, sizeof tok);
	return 0;
}

/* After the hashing threads: a wrong password is answered (its loginguard
 * token stays used), a right one gives the token back and goes on. */
static void keep_hashed(acc_work *w)
{
	keep_req *k = (keep_req *)w;
	if (w->verify_hash[0] && !w->verified) {
		srv_event("account=%lld event=keep_refused op=%d: wrong password", (long long)k->account,
		          k->op);
		answer_error(w->serial, SE_BAD_LOGIN, "the password is wrong");
		return;
	}
	lg_give_back(&w->lg);
	lg_known(k->key, k->peer);
	if ((k->op == KO_RECOVER || k->op == KO_PASSWORD) && !w->hashed) {
		answer_error(w->serial, SE_BUSY, "the password could not be hashed (out of memory): try "
		             "again later");
		return;
	}
	k->now_ms = srv_now_ms();
	k->rk.hash = accounts_seat_token_hash; /* on the storage thread */
	if (k->op == KO_CODES)
		recovery_new_codes(k->codes, RC_COUNT);
	if (k->op == KO_DELETE) {
		/* its games being played are given up first, as resignations:
		 * their writes are queued before the deletion's */
		resign_ctx c = {k->account, k->epoch, 0, 0};
		char err[STORE_ERR_SIZE];
		if (db->ops->account_games(db, k->account, 0, KEEP_RESIGN_MAX, resign_one, &c, err) < 0) {
			srv_error("account=%lld: listing its games to delete it: %s", (long long)k->account,
			          err);
			answer_error(w->serial, SE_STORAGE, "the game database is unavailable: the account "
			             "was not deleted");
			return;
		}
		srv_event("account=%lld event=deleting resigned=%d refused=%d", (long long)k->account,
		          c.asked, c.refused);
	}
	submit_write(k);
}

/* Queues k's hashing work (k is malloc'd and taken), or answers busy. */
static void submit_work(const api_req *rq, api_resp *rs, keep_req *k)
{
	const char *why = "";
	k->w.serial = rq->serial;
	k->w.done = keep_hashed;
	k->w.size = sizeof *k;
	k->tls = rq->tls;
	snprintf(k->peer, sizeof k->peer, "%s", rq->addr ? rq->addr : "");
	if (accounts_work(rq, &k->w, &why)) {
		char msg[160];
		snprintf(msg, sizeof msg, "too many logins at once: try again in a moment (%s)", why);
		api_reply_error(rs, SE_BUSY, msg);
		rs->retry_after = 1;
	}
}

/* A loginguard token of `kind` for the name `key` (an account's own
 * requests that check its password, and recovery attempts), from the
 * browser's own budget when it shows the account's device cookie
 * (account 0: no such account): 1, or 0 answered. */
static int guard_ok(const api_req *rq, api_resp *rs, keep_req *k, int64_t account, int kind)
{
	char err[256];
	accounts_device_of(rq->cookie, account, k->device);
	int wait = lg_take(k->key, rq->addr, k->device, kind, &k->w.lg, err, sizeof err);
	if (wait) {
		reply_wait(rs, wait, err);
		return 0;
	}
	return 1;
}

/* ---- endpoints ------------------------------------------------------------------------------ */

/* POST /api/account/recover {"name", "code", "password"}: not logged in. */
static void post_recover(const api_req *rq, api_resp *rs)
{
	if (!limits_ok(rq, rs, LIM_RECOVER, 0, 0))
		return;
	static const char shape[] = "needs {\"name\": \"...\", \"code\": \"...\", \"password\": \"...\"}";
	json_t *o = body_object(rq, rs, shape);
	if (!o)
		return;
	const char *name = str_member(o, "name", STORE_NAME_SIZE),
	           *code = str_member(o, "code", RC_INPUT_MAX),
	           *pw = str_member(o, "password", ACC_PASSWORD_MAX + 1);
	if (!name || !code || !pw) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, shape);
		return;
	}
	if (!new_password_ok(pw, rs)) {
		json_decref(o);
		return;
	}
	keep_req *k = srv_xcalloc(1, sizeof *k);
	k->op = KO_RECOVER;
	char err[200], norm[RC_LEN + 1];
	if (accounts_name_key(name, k->key, sizeof k->key, err, sizeof err)) {
		json_decref(o);
		free(k);
		api_reply_error(rs, SE_BAD_RECOVERY, "wrong name or recovery code");
		return;
	}
	store_account a;
	int found = 0, left = 0;
	int bad_code = code_norm(code, norm);
	int rc = db->ops->account_by_name(db, k->key, &a, err);
	if (rc >= 0 && !guard_ok(rq, rs, k, rc == 1 ? a.id : 0, LG_CODE)) {
		json_decref(o);
		sodium_memzero(k, sizeof *k);
		free(k);
		sodium_memzero(&a, sizeof a);
		sodium_memzero(norm, sizeof norm);
		return;
	}
	if (rc == 1 && !bad_code) {
		code_hash(a.id, norm, k->code_hash);
		found = db->ops->recovery_find(db, a.id, k->code_hash, &left, err);
		rc = found < 0 ? -1 : 1;
	}
	sodium_memzero(norm, sizeof norm);
	if (rc < 0) {
		json_decref(o);
		sodium_memzero(k, sizeof *k);
		free(k);
		srv_error("reading an account's recovery codes: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (found != 1) {
		/* the guard's token stays taken: a failed attempt, like a wrong password */
		srv_event("event=recovery_failed name=\"%s\"", rc == 1 ? a.name : "?");
		json_decref(o);
		sodium_memzero(k, sizeof *k);
		free(k);
		sodium_memzero(&a, sizeof a);
		api_reply_error(rs, SE_BAD_RECOVERY, "wrong name or recovery code");
		return;
	}
	k->account = a.id;
	memcpy(k->name, a.name, sizeof k->name);
	sodium_memzero(&a, sizeof a);
	/* the code is right: the guard's token goes back once the new password is stored
	 * (keep_hashed), and a busy refusal gives it back too */
	snprintf(k->w.new_password, sizeof k->w.new_password, "%s", pw);
	json_decref(o);
	srv_random_hex(k->session, ACC_SESSION_HEX / 2);
	srv_token_hash(k->session, k->session_hash);
	k->expires_ms = srv_now_ms() + (int64_t)cfg->session_ttl_s * 1000;
	submit_work(rq, rs, k);
}

/* The checks of a logged-in account's request that needs its password:
 * the session, the limits, the body's "password" (and "new_password"
 * when want_new). A keep_req ready for the hashing, or NULL answered. */
static keep_req *own_request(const api_req *rq, api_resp *rs, int op, int want_new)
{
	store_account a;
	if (!accounts_require_session(rq, rs, &a))
		return NULL;
	keep_req *k = NULL;
	json_t *o = NULL;
	char err[200];
	if (!limits_ok(rq, rs, LIM_KEEP, a.id, AK_KEEP))
		goto out;
	const char *shape = want_new ? "needs {\"password\": \"the current one\", \"new_password\": "
	                               "\"...\"}"
	                             : "needs {\"password\": \"...\"}";
	o = body_object(rq, rs, shape);
	if (!o)
		goto out;
	const char *pw = str_member(o, "password", ACC_PASSWORD_MAX + 1),
	           *np = want_new ? str_member(o, "new_password", ACC_PASSWORD_MAX + 1) : "";
	if (!pw || !np) {
		api_reply_error(rs, SE_MALFORMED, shape);
		goto out;
	}
	if (want_new && !new_password_ok(np, rs))
		goto out;
	if (!pw[0] || strlen(pw) > ACC_PASSWORD_MAX) {
		api_reply_error(rs, SE_BAD_LOGIN, "the password is wrong");
		goto out;
	}
	k = srv_xcalloc(1, sizeof *k);
	k->op = op;
	k->account = a.id;
	k->epoch = a.epoch;
	memcpy(k->name, a.name, sizeof k->name);
	if (accounts_name_key(a.name, k->key, sizeof k->key, err, sizeof err) ||
	    !guard_ok(rq, rs, k, a.id, LG_PASSWORD)) {
		if (!rs->status)
			api_reply_error(rs, SE_BAD_NAME, err);
		free(k);
		k = NULL;
		goto out;
	}
	memcpy(k->w.verify_hash, a.pwhash, sizeof k->w.verify_hash);
	snprintf(k->w.password, sizeof k->w.password, "%s", pw);
	snprintf(k->w.new_password, sizeof k->w.new_password, "%s", np);
	accounts_session_hash(rq->cookie, k->session_hash);
out:
	json_decref(o);
	sodium_memzero(&a, sizeof a);
	return k;
}

/* GET /api/me/recovery: how many codes are left. */
static void get_codes(const api_req *rq, api_resp *rs)
{
	store_account a;
	if (!accounts_require_session(rq, rs, &a))
		return;
	int left = 0;
	char err[STORE_ERR_SIZE];
	int rc = db->ops->recovery_find(db, a.id, NULL, &left, err);
	sodium_memzero(&a, sizeof a);
	if (rc < 0) {
		srv_error("reading recovery codes: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	api_reply(rs, 200, json_pack("{s:i, s:i}", "left", left, "count", RC_COUNT));
}

/* The query's "after" (a game id: letters, digits, '-', '_') into out. */
static int query_after(const char *q, char *out, size_t size)
{
	out[0] = 0;
	const char *p = q;
	while (p && *p) {
		if (!strncmp(p, "after=", 6)) {
			p += 6;
			size_t n = strcspn(p, "&");
			if (n >= size)
				return -1;
			for (size_t i = 0; i < n; i++)
				if (!isalnum((unsigned char)p[i]) && p[i] != '-' && p[i] != '_')
					return -1;
			memcpy(out, p, n);
			out[n] = 0;
			return 0;
		}
		p = strchr(p, '&');
		if (p)
			p++;
	}
	return 0;
}

static int query_limit(const char *q, int *out)
{
	const char *p = q;
	while (p && *p) {
		if (!strncmp(p, "limit=", 6)) {
			char *end;
			long n = strtol(p + 6, &end, 10);
			if (end == p + 6 || (*end && *end != '&') || n < 1 || n > KEEP_PAGE_MAX)
				return -1;
			*out = (int)n;
			return 0;
		}
		p = strchr(p, '&');
		if (p)
			p++;
	}
	return 0;
}

/* GET /api/me/records?after=ID&limit=N: a page of the account's finished
 * games as records, by game id (docs/protocol.md). */
static void get_records(const api_req *rq, api_resp *rs)
{
	store_account a;
	if (!accounts_require_session(rq, rs, &a))
		return;
	int64_t account = a.id;
	sodium_memzero(&a, sizeof a);
	char after[STORE_ID_SIZE];
	int limit = KEEP_PAGE;
	if (query_after(rq->query, after, sizeof after) || query_limit(rq->query, &limit)) {
		char msg[128];
		snprintf(msg, sizeof msg, "GET /api/me/records?after=GAME_ID&limit=N (N from 1 to %d)",
		         KEEP_PAGE_MAX);
		api_reply_error(rs, SE_MALFORMED, msg);
		return;
	}
	if (!limits_ok(rq, rs, LIM_DOWNLOADS, account, AK_DOWNLOADS))
		return;
	char ids[KEEP_PAGE_MAX + 1][STORE_ID_SIZE], err[STORE_ERR_SIZE];
	int n = db->ops->account_over_ids(db, account, after, limit + 1, ids, err);
	if (n < 0) {
		srv_error("listing an account's finished games: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	int more = n > limit;
	if (more)
		n = limit;
	/* the records are JSON texts already: the page is put together as text */
	size_t cap = 256, len = 0;
	char *body = srv_xmalloc(cap);
	len = (size_t)snprintf(body, cap, "{\"format\":\"carc-records-1\",\"records\":[");
	json_t *missing = json_array();
	int put = 0;
	for (int i = 0; i < n; i++) {
		char *rec = hooks->record(ids[i]);
		if (!rec) {
			json_array_append_new(missing, json_string(ids[i]));
			continue;
		}
		size_t rl = strlen(rec);
		if (len + rl + 2 > cap) {
			cap = (len + rl + 2) * 2;
			body = srv_xrealloc(body, cap);
		}
		if (put++)
			body[len++] = ',';
		memcpy(body + len, rec, rl);
		len += rl;
		free(rec);
	}
	json_t *tail = json_pack("{s:o, s:o}", "next", more ? json_string(ids[n - 1]) : json_null(),
	                         "missing", missing);
	char *ts = json_dumps(tail, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(tail);
	size_t tl = ts ? strlen(ts) : 2;
	if (len + tl + 4 > cap) {
		cap = len + tl + 4;
		body = srv_xrealloc(body, cap);
	}
	/* "],"  then the tail object's members without its braces */
	body[len++] = ']';
	body[len++] = ',';
	memcpy(body + len, ts ? ts + 1 : "}", ts ? tl - 1 : 1);
	len += ts ? tl - 1 : 1;
	body[len] = 0;
	free(ts);
	rs->status = 200;
	rs->ctype = "application/json";
	rs->body = body;
	rs->body_len = len;
}

int recovery_http(const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	int op = !strcmp(p, "/api/account/recover")    ? KO_RECOVER
	         : !strcmp(p, "/api/account/password") ? KO_PASSWORD
	         : !strcmp(p, "/api/account/delete")   ? KO_DELETE
	         : !strcmp(p, "/api/me/recovery")      ? KO_CODES
	                                               : -1;
	if (op < 0 && strcmp(p, "/api/me/records"))
		return 0;
	if (op < 0) {
		if (!get)
			api_reply_error(rs, SE_METHOD, "GET only");
		else
			get_records(rq, rs);
		return 1;
	}
	if (op == KO_CODES && get) {
		get_codes(rq, rs);
		return 1;
	}
	if (!post) {
		api_reply_error(rs, SE_METHOD, op == KO_CODES ? "GET or POST" : "POST only");
		return 1;
	}
	if (op == KO_RECOVER) {
		post_recover(rq, rs);
		return 1;
	}
	keep_req *k = own_request(rq, rs, op, op == KO_PASSWORD);
	if (k)
		submit_work(rq, rs, k);
	return 1;
}

/* ---- start and stop ------------------------------------------------------------------------ */

void recovery_hooks_set(const keep_hooks *h)
{
	hooks = h;
}

int recovery_start(const srv_config *c, store *reader)
{
	cfg = c;
	db = reader;
	char err[STORE_ERR_SIZE];
	if (db->ops->get_key(db, "recovery", rkey, sizeof rkey, err)) {
		srv_error("recovery codes: %s", err);
		return -1;
	}
	nals = c->limit_addresses > 0 ? (size_t)c->limit_addresses : 1;
	free(als);
	als = srv_xcalloc(nals, sizeof *als);
	return 0;
}

void recovery_stop(void)
{
	free(als);
	als = NULL;
	nals = 0;
	sodium_memzero(rkey, sizeof rkey);
}
