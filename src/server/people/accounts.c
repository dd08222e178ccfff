/*
 * accounts.c - accounts, sessions, the hashing threads and the endpoints
 * about accounts and ratings (see accounts.h).
 *
 * Threads: the loop reads (accounts, sessions, lists) with its own store
 * handle; writes (a new account, a session, a logout) go to the storage
 * thread as WJ_CALL jobs; Argon2id runs on the hashing threads, which see
 * only their job (a copy of the password, wiped after use). A finished
 * hashing is handed back through a locked list and the loop is woken
 * (lws_cancel_service), like the bots' moves.
 *
 * The queue is shared fairly between addresses (lim_key: an IPv4 address
 * or an IPv6 /64): one address holds at most cfg->auth_queue_per_addr
 * hashings (waiting or running), and the threads serve the addresses in
 * turn, not first come: a job gets a round number, its address's last
 * round + 1 (or the round being served when the address has none), and
 * the queue is kept in order of rounds, so a newcomer waits for at most
 * one job of each other address. When the queue is full, a newcomer
 * holding fewer than another address by two or more takes the place of
 * that address's last job, which is refused (503 busy).
 *
 * Invariants: at most cfg->auth_threads + cfg->auth_queue hashings exist
 * at once (inflight); todo is in order of round; a password never reaches
 * the store or the log.
 */
#include <math.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "errcode.h"
#include "loginguard.h"
#include "ratelimit.h"
#include "ratings.h"
#include "recovery.h"
#include "reply.h"
#include "skeleton.h"
#include "writer.h"

#define SESSION_BYTES (ACC_SESSION_HEX / 2) /* a session cookie: 64 hex digits */
#define SESSION_COOKIE ACC_SESSION_COOKIE /* accounts.h */
#define KEY_SIZE crypto_auth_hmacsha256_KEYBYTES
#define MY_GAMES_MAX 100
#define PROFILE_SCAN 500 /* finished games a profile looks at */
#define PROFILE_GAMES 50 /* of which it lists */
#define BOARD_PAGE 50
#define BOARD_PAGE_MAX 200
#define LOOKALIKE_TEXT "an account whose name looks the same exists (names are compared by " \
                       "how they look: Unicode TR39 skeletons, so 'Alıce' meets 'Alice')"
#define BACKFILL_BATCH 256

static const srv_config *cfg;
static store *db;
static struct lws_context *lctx;
static const acc_hooks *hooks; /* the upper layers (accounts.h) */
static unsigned char seat_key[KEY_SIZE];

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

void accounts_seat_token(const char *table, int seat, int64_t account, char *out)
{
	char msg[96];
	int n = snprintf(msg, sizeof msg, "seat %s %d %lld", table, seat, (long long)account);
	unsigned char mac[crypto_auth_hmacsha256_BYTES];
	crypto_auth_hmacsha256(mac, (const unsigned char *)msg, (unsigned long long)n, seat_key);
	sodium_bin2hex(out, STORE_TOKEN_SIZE, mac, 16);
	sodium_memzero(mac, sizeof mac);
}

void accounts_cookie(char *out, size_t size, const char *name, const char *value, int max_age,
                     int tls)
{
	snprintf(out, size, "%s=%s; Path=/; HttpOnly; SameSite=Lax; Max-Age=%d%s", name, value,
	         max_age, tls ? "; Secure" : "");
}

/* The session cookie's value (64 hex digits) into out, or "". */
static void session_of(const char *cookie, char *out, size_t size)
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
	session_of(cookie, tok, sizeof tok);
	if (!tok[0])
		return 0;
	srv_token_hash(tok, out);
	sodium_memzero(tok, sizeof tok);
	return 1;
}

int accounts_session(const char *cookie, store_account *a)
{
	char tok[SESSION_BYTES * 2 + 1], h[STORE_TOKEN_HASH_SIZE], err[STORE_ERR_SIZE];
	session_of(cookie, tok, sizeof tok);
	if (!tok[0])
		return 0;
	srv_token_hash(tok, h);
	int rc = db->ops->session_get(db, h, srv_now_ms(), a, err);
	if (rc < 0)
		srv_error("reading a session: %s", err);
	return rc;
}

/* ---- answers ----------------------------------------------------------------------------- */

/* A late answer to HTTP request `serial` (takes o). */
static void answer(uint64_t serial, int status, json_t *o, const char *cookie)
{
	char *body = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	hooks->http_answer(serial, status, "application/json", body, body ? strlen(body) : 0,
	                   cookie, NULL);
}

static void answer_error(uint64_t serial, srv_err e, const char *msg)
{
	answer(serial, srv_err_http_status(e), api_error_json(e, msg), NULL);
}

static json_t *account_json(const store_account *a)
{
	return json_pack("{s:I, s:s, s:f, s:f, s:i}", "id", (json_int_t)a->id, "name", a->name,
	                 "rating", round(a->rating * 10) / 10, "rd", round(a->rd * 10) / 10, "games",
	                 a->games);
}

/* ---- the hashing threads --------------------------------------------------------------------- */

enum { AJ_HASH, AJ_VERIFY };

typedef struct auth_job {
	int kind;
	uint64_t serial;
	int tls;
	char name[STORE_NAME_SIZE];
	char key[STORE_NAME_SIZE * 2];
	char skel[2][SKEL_SIZE];  /* HASH: the name's look-alike forms (skeleton.h) */
	char password[ACC_PASSWORD_MAX + 1];
	char pwhash[STORE_PWHASH_SIZE];  /* VERIFY: the stored hash ("": no such name); HASH: out */
	int64_t account;
	int ok;
	char addr[LIM_KEY_SIZE];  /* whose turn it is (lim_key of the request's address) */
	char peer[LIM_KEY_SIZE * 2]; /* the request's address (loginguard) */
	int lg_taken;             /* took a token of loginguard */
	uint64_t round;           /* the fair queue's turn */
	acc_work *work;           /* another module's work (accounts_work), or NULL */
	struct auth_job *next;
} auth_job;

static pthread_mutex_t amu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t acv = PTHREAD_COND_INITIALIZER;
static auth_job *todo, *done;
static int inflight, astop, nthreads;
static pthread_t athreads[16];
static auth_job *running[16];   /* the job each thread hashes (amu); the thread's number is its arg */
static uint64_t served_round;   /* the round of the job taken last (amu) */
static pthread_once_t dummy_once = PTHREAD_ONCE_INIT;
static char dummy_hash[crypto_pwhash_STRBYTES];

/* A hash to verify against when the name is unknown, so that a login for
 * an unknown name takes as long as one with a wrong password. */
static void make_dummy(void)
{
	char pw[33];
	srv_random_hex(pw, 16);
	if (crypto_pwhash_str(dummy_hash, pw, strlen(pw), crypto_pwhash_OPSLIMIT_INTERACTIVE,
	                      crypto_pwhash_MEMLIMIT_INTERACTIVE))
		dummy_hash[0] = 0;
}

static void work_run(acc_work *w)
{
	if (w->verify_hash[0])
		w->verified = !crypto_pwhash_str_verify(w->verify_hash, w->password, strlen(w->password));
	if (w->new_password[0] && (!w->verify_hash[0] || w->verified))
		w->hashed = !crypto_pwhash_str(w->new_hash, w->new_password, strlen(w->new_password),
		                               crypto_pwhash_OPSLIMIT_INTERACTIVE,
		                               crypto_pwhash_MEMLIMIT_INTERACTIVE);
	sodium_memzero(w->password, sizeof w->password);
	sodium_memzero(w->new_password, sizeof w->new_password);
}

static void auth_run(auth_job *j)
{
	if (j->work) {
		work_run(j->work);
		return;
	}
	size_t n = strlen(j->password);
	if (j->kind == AJ_HASH) {
		j->ok = !crypto_pwhash_str(j->pwhash, j->password, n, crypto_pwhash_OPSLIMIT_INTERACTIVE,
		                           crypto_pwhash_MEMLIMIT_INTERACTIVE);
	} else if (j->pwhash[0]) {
		j->ok = !crypto_pwhash_str_verify(j->pwhash, j->password, n);
	} else {
		pthread_once(&dummy_once, make_dummy);
		/* the result does not matter (a random password): only the time */
		int same = dummy_hash[0] && !crypto_pwhash_str_verify(dummy_hash, j->password, n);
		j->ok = same && 0;
	}
	sodium_memzero(j->password, sizeof j->password);
}

static void *auth_main(void *arg)
{
	int me = (int)(intptr_t)arg;
	pthread_mutex_lock(&amu);
	for (;;) {
		while (!astop && !todo)
			pthread_cond_wait(&acv, &amu);
		if (astop)
			break;
		auth_job *j = todo;
		todo = j->next;
		served_round = j->round;
		running[me] = j;
		pthread_mutex_unlock(&amu);
		auth_run(j);
		pthread_mutex_lock(&amu);
		running[me] = NULL;
		j->next = done;
		done = j;
		if (!astop)
			lws_cancel_service(lctx);
	}
	pthread_mutex_unlock(&amu);
	return NULL;
}

static void work_wipe_free(acc_work *w) { sodium_memzero(w, w->size); free(w); }

static void job_wipe_free(auth_job *j)
{
	if (j->work)
		work_wipe_free(j->work);
	sodium_memzero(j, sizeof *j);
	free(j);
}

/* The hashings address `addr` holds (waiting or running), and the last
 * round of them in *last (0 when none). amu held. */
static int held_by(const char *addr, uint64_t *last)
{
	int n = 0;
	*last = 0;
	for (const auth_job *j = todo; j; j = j->next)
		if (!strcmp(j->addr, addr)) {
			n++;
			if (j->round > *last)
				*last = j->round;
		}
	for (size_t i = 0; i < sizeof running / sizeof running[0]; i++)
		if (running[i] && !strcmp(running[i]->addr, addr)) {
			n++;
			if (running[i]->round > *last)
				*last = running[i]->round;
		}
	return n;
}

/* A job of an address holding at least `more` hashings, to give its place
 * to a newcomer: the last waiting job of the address holding the most,
 * unlinked from todo; NULL when no address holds that many. amu held. */
static auth_job *take_place(int more)
{
	auth_job **best = NULL;
	int most = more - 1;
	uint64_t last;
	for (auth_job **pp = &todo; *pp; pp = &(*pp)->next) {
		int n = held_by((*pp)->addr, &last);
		if (n > most || (n == most && best && !strcmp((*best)->addr, (*pp)->addr))) {
			most = n;
			best = pp; /* todo is in round order: the address's last job wins */
		}
	}
	if (!best)
		return NULL;
	auth_job *v = *best;
	*best = v->next;
	return v;
}

/* Hands a job to the threads: 0, or -1 when its address holds as many as
 * it may or the queue is full (the job is freed; *why names the option). */
static int auth_submit(auth_job *j, const char **why)
{
	auth_job *out = NULL;
	uint64_t last;
	pthread_mutex_lock(&amu);
	int mine = held_by(j->addr, &last);
	if (cfg->auth_queue_per_addr > 0 && mine >= cfg->auth_queue_per_addr) {
		pthread_mutex_unlock(&amu);
		*why = "--auth-queue-per-addr";
		if (j->lg_taken)
			lg_give_back(j->key);
		job_wipe_free(j);
		return -1;
	}
	if (inflight >= cfg->auth_threads + cfg->auth_queue) {
		out = take_place(mine + 2);
		if (!out) {
			pthread_mutex_unlock(&amu);
			*why = "--auth-queue";
			if (j->lg_taken)
				lg_give_back(j->key);
			job_wipe_free(j);
			return -1;
		}
	} else {
		inflight++;
	}
	j->round = mine ? last + 1 : served_round;
	if (j->round < served_round)
		j->round = served_round;
	auth_job **pp = &todo;
	while (*pp && (*pp)->round <= j->round)
		pp = &(*pp)->next;
	j->next = *pp;
	*pp = j;
	pthread_cond_signal(&acv);
	pthread_mutex_unlock(&amu);
	if (out) {
		if (out->lg_taken)
			lg_give_back(out->key);
		answer_error(out->serial, SE_BUSY, "too many logins at once: this one gave its place "
		             "to an address with fewer waiting; try again in a moment (--auth-queue)");
		job_wipe_free(out);
	}
	return 0;
}

/* ---- writes on the storage thread -------------------------------------------------------------- */

typedef struct acc_write {
	uint64_t serial;
	int tls;
	char name[STORE_NAME_SIZE];
	char key[STORE_NAME_SIZE * 2];
	char skel[2][SKEL_SIZE];              /* register: the name's look-alike forms */
	char pwhash[STORE_PWHASH_SIZE];
	char session[SESSION_BYTES * 2 + 1];  /* the cookie's value: for the answer only */
	char session_hash[STORE_TOKEN_HASH_SIZE];
	char peer[LIM_KEY_SIZE * 2];          /* the request's address (loginguard) */
	int64_t account, now_ms, expires_ms;
	/* a registration: its recovery codes, shown once (recovery.c) */
	char codes[RC_COUNT][RC_TEXT_SIZE];
	int ncodes;
} acc_write;

/* The account, then its recovery codes in a transaction of their own (an
 * account whose codes could not be stored is made all the same: none shown). */
static int call_register(store *st, wjob *j)
{
	acc_write *w = j->data;
	const char *const skels[2] = {w->skel[0], w->skel[1]};
	int rc = st->ops->account_create(st, w->name, w->key, skels, w->pwhash, w->now_ms,
	                                 w->session_hash, w->expires_ms, &w->account, j->err);
	if (rc == 0 && recovery_store_codes(st, w->account, w->codes, RC_COUNT, w->now_ms) == 0)
		w->ncodes = RC_COUNT;
	return rc;
}

static int call_session(store *st, wjob *j)
{
	acc_write *w = j->data;
	return st->ops->session_create(st, w->session_hash, w->account, w->now_ms, w->expires_ms,
	                               j->err);
}

static int call_logout(store *st, wjob *j)
{
	acc_write *w = j->data;
	return st->ops->session_delete(st, w->session_hash, j->err);
}

static void storage_error(uint64_t serial, const wjob *j, const char *what)
{
	char msg[256];
	snprintf(msg, sizeof msg, "the game database is unavailable: %s; %s",
	         store_fault_text(j->fault), what);
	answer_error(serial, SE_STORAGE, msg);
}

static void logged_in_done(wjob *j)
{
	acc_write *w = j->data;
	int created = j->call == call_register;
	if (j->failed) {
		storage_error(w->serial, j, created ? "the account was not made" : "not logged in");
	} else if (j->rc == STORE_DUPLICATE) {
		/* the name itself, or (registered meanwhile) one that looks like it */
		store_account a;
		char err[STORE_ERR_SIZE];
		if (db->ops->account_by_name(db, w->key, &a, err) == 1)
			answer_error(w->serial, SE_NAME_TAKEN, "an account of that name exists (names are "
			             "compared without regard to case)");
		else
			answer_error(w->serial, SE_NAME_LOOKALIKE, LOOKALIKE_TEXT);
		sodium_memzero(&a, sizeof a);
	} else {
		char cookie[200];
		accounts_cookie(cookie, sizeof cookie, SESSION_COOKIE, w->session, cfg->session_ttl_s,
		                w->tls);
		srv_event("account=%lld event=%s name=\"%s\"", (long long)w->account,
		          created ? "registered" : "login", w->name);
		lg_known(w->key, w->peer); /* the owner's address, past --rate-login-fails */
		json_t *o = json_pack("{s:{s:I, s:s}, s:I}", "account", "id", (json_int_t)w->account,
		                      "name", w->name, "expires_ms", (json_int_t)w->expires_ms);
		if (created) {
			json_t *codes = json_array();
			for (int i = 0; i < w->ncodes; i++)
				json_array_append_new(codes, json_string(w->codes[i]));
			json_object_set_new(o, "recovery_codes", codes);
		}
		answer(w->serial, created ? 201 : 200, o, cookie);
	}
	sodium_memzero(w->session, sizeof w->session);
	sodium_memzero(w->codes, sizeof w->codes);
}

static void logout_done(wjob *j)
{
	acc_write *w = j->data;
	if (j->failed) {
		storage_error(w->serial, j, "the session was not ended");
		return;
	}
	char cookie[200];
	accounts_cookie(cookie, sizeof cookie, SESSION_COOKIE, "", 0, w->tls);
	answer(w->serial, 200, json_pack("{s:b}", "ok", 1), cookie);
}

/* A new session for a logged-in account, written, then answered. */
static void submit_session(const auth_job *a, int (*call)(store *, wjob *))
{
	acc_write *w = srv_xcalloc(1, sizeof *w);
	w->serial = a->serial;
	w->tls = a->tls;
	memcpy(w->name, a->name, sizeof w->name);
	memcpy(w->key, a->key, sizeof w->key);
	memcpy(w->skel, a->skel, sizeof w->skel);
	memcpy(w->pwhash, a->pwhash, sizeof w->pwhash);
	memcpy(w->peer, a->peer, sizeof w->peer);
	w->account = a->account;
	srv_random_hex(w->session, SESSION_BYTES);
	srv_token_hash(w->session, w->session_hash);
	w->now_ms = srv_now_ms();
	w->expires_ms = w->now_ms + (int64_t)cfg->session_ttl_s * 1000;
	if (call == call_register)
		recovery_new_codes(w->codes, RC_COUNT);
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call;
	j->data = w;
	j->done = logged_in_done;
	writer_submit(j);
}

void accounts_drain(void)
{
	for (;;) {
		pthread_mutex_lock(&amu);
		auth_job *j = done;
		if (j) {
			done = j->next;
			inflight--;
		}
		pthread_mutex_unlock(&amu);
		if (!j)
			return;
		if (j->work) {
			acc_work *w = j->work;
			j->work = NULL;
			w->done(w);
			work_wipe_free(w);
		} else if (j->kind == AJ_HASH) {
			if (j->ok)
				submit_session(j, call_register);
			else
				answer_error(j->serial, SE_BUSY, "the password could not be hashed (out of "
				             "memory): try again later");
		} else if (!j->ok) {
			srv_event("event=login_failed name=\"%s\"", j->name);
			answer_error(j->serial, SE_BAD_LOGIN, "wrong name or password");
		} else {
			if (j->lg_taken)
				lg_give_back(j->key);
			submit_session(j, call_session);
		}
		job_wipe_free(j);
	}
}

int accounts_work(const api_req *rq, acc_work *w, const char **why)
{
	auth_job *j = srv_xcalloc(1, sizeof *j);
	j->kind = AJ_VERIFY;
	j->serial = w->serial;
	j->work = w;
	snprintf(j->key, sizeof j->key, "%s", w->lg_key);
	j->lg_taken = w->lg_key[0] != 0;
	lim_key(rq->addr, j->addr);
	return auth_submit(j, why);
}

/* ---- endpoints --------------------------------------------------------------------------------- */

static json_t *body_object(const api_req *rq, api_resp *rs)
{
	if (rq->body_too_large) {
		api_reply_error(rs, SE_TOO_LARGE, "the request body is over the size limit");
		return NULL;
	}
	json_error_t je;
	json_t *o = json_loadb(rq->body ? rq->body : "", rq->body_len, 0, &je);
	if (!json_is_object(o)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "the body must be a JSON object {\"name\": \"...\", "
		            "\"password\": \"...\"}");
		return NULL;
	}
	return o;
}

/* Register and log in: checked on the loop, hashed on a thread. */
static void post_credentials(const api_req *rq, api_resp *rs, int reg)
{
	char lerr[256];
	int wait = lim_take(rq->addr, LIM_LOGINS, lerr, sizeof lerr);
	if (wait) {
		api_reply_error(rs, SE_RATE_LIMITED, lerr);
		rs->retry_after = wait;
		return;
	}
	json_t *o = body_object(rq, rs);
	if (!o)
		return;
	json_t *jn = json_object_get(o, "name"), *jp = json_object_get(o, "password");
	if (!json_is_string(jn) || !json_is_string(jp)) {
		json_decref(o);
		api_reply_error(rs, SE_MALFORMED, "needs {\"name\": \"...\", \"password\": \"...\"}");
		return;
	}
	const char *name = json_string_value(jn), *pw = json_string_value(jp);
	size_t pwlen = json_string_length(jp);
	auth_job *j = srv_xcalloc(1, sizeof *j);
	char err[256];
	if (accounts_name_key(name, j->key, sizeof j->key, err, sizeof err)) {
		json_decref(o);
		job_wipe_free(j);
		api_reply_error(rs, reg ? SE_BAD_NAME : SE_BAD_LOGIN, reg ? err : "wrong name or password");
		return;
	}
	if (pwlen != strlen(pw) || pwlen < ACC_PASSWORD_MIN || pwlen > ACC_PASSWORD_MAX) {
		json_decref(o);
		job_wipe_free(j);
		snprintf(err, sizeof err, "a password has %d to %d bytes (and no NUL)", ACC_PASSWORD_MIN,
		         ACC_PASSWORD_MAX);
		api_reply_error(rs, reg ? SE_BAD_PASSWORD : SE_BAD_LOGIN, reg ? err : "wrong name or password");
		return;
	}
	j->kind = reg ? AJ_HASH : AJ_VERIFY;
	j->serial = rq->serial;
	j->tls = rq->tls;
	snprintf(j->name, sizeof j->name, "%s", name);
	memcpy(j->password, pw, pwlen + 1);
	json_decref(o); /* jansson's copy of the password goes with the body object */
	store_account a;
	int rc = db->ops->account_by_name(db, j->key, &a, err);
	if (rc < 0) {
		job_wipe_free(j);
		srv_error("reading an account: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (reg && rc == 1) {
		job_wipe_free(j);
		api_reply_error(rs, SE_NAME_TAKEN, "an account of that name exists (names are compared "
		            "without regard to case)");
		return;
	}
	if (reg) {
		const char *const skels[2] = {j->skel[0], j->skel[1]};
		rc = skeleton_forms(j->name, j->skel, err, sizeof err); /* the body is gone */
		if (!rc)
			rc = db->ops->skeleton_taken(db, skels, err);
		if (rc) {
			job_wipe_free(j);
			if (rc < 0) {
				srv_error("registering: %s", err);
				api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
			} else {
				api_reply_error(rs, SE_NAME_LOOKALIKE, LOOKALIKE_TEXT);
			}
			return;
		}
	}
	if (!reg && rc == 1) {
		j->account = a.id;
		memcpy(j->name, a.name, sizeof j->name); /* as registered */
		memcpy(j->pwhash, a.pwhash, sizeof j->pwhash);
	}
	sodium_memzero(&a, sizeof a);
	lim_key(rq->addr, j->addr);
	snprintf(j->peer, sizeof j->peer, "%s", rq->addr ? rq->addr : "");
	if (!reg) {
		int lw = lg_take(j->key, rq->addr, &j->lg_taken, lerr, sizeof lerr);
		if (lw) {
			job_wipe_free(j);
			api_reply_error(rs, SE_RATE_LIMITED, lerr);
			rs->retry_after = lw;
			return;
		}
	}
	const char *why = "";
	if (auth_submit(j, &why)) {
		char msg[160];
		snprintf(msg, sizeof msg, "too many logins at once%s: try again in a moment (%s)",
		         strcmp(why, "--auth-queue") ? " from this address" : "", why);
		api_reply_error(rs, SE_BUSY, msg);
		rs->retry_after = 1;
	}
	/* else accounts_drain answers */
}

static void post_logout(const api_req *rq, api_resp *rs)
{
	acc_write *w = srv_xcalloc(1, sizeof *w);
	w->serial = rq->serial;
	w->tls = rq->tls;
	char tok[SESSION_BYTES * 2 + 1];
	session_of(rq->cookie, tok, sizeof tok);
	if (!tok[0]) {
		free(w);
		char cookie[200];
		accounts_cookie(cookie, sizeof cookie, SESSION_COOKIE, "", 0, rq->tls);
		api_reply(rs, 200, json_pack("{s:b}", "ok", 1));
		snprintf(rs->set_cookie, sizeof rs->set_cookie, "%s", cookie);
		return;
	}
	srv_token_hash(tok, w->session_hash);
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_logout;
	j->data = w;
	j->done = logout_done;
	writer_submit(j);
}

static int require_session(const api_req *rq, api_resp *rs, store_account *a)
{
	int rc = accounts_session(rq->cookie, a);
	if (rc < 0)
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
	else if (rc == 0)
		api_reply_error(rs, SE_NOT_LOGGED_IN, "not logged in (or the session has expired)");
	return rc == 1;
}

static json_t *seat_names(const store_game *g)
{
	json_t *a = json_array();
	for (int i = 0; i < g->players && i < 8; i++) {
		const char *nm = "";
		for (int k = 0; k < g->nseats; k++)
			if (g->seats[k].seat == i)
				nm = g->seats[k].name;
		json_array_append_new(a, json_string(nm));
	}
	return a;
}

typedef struct my_games {
	json_t *games;
	int64_t account;
} my_games;

static int add_my_game(void *ctx, const store_game *g, int seat, const store_result *r,
                       const store_rating_row *rr)
{
	(void)r;
	(void)rr;
	my_games *m = ctx;
	json_t *o = hooks->live_game(g->id, seat);
	if (!o)
		o = json_pack("{s:s, s:i, s:s, s:b, s:o, s:I, s:n}", "id", g->id, "seat", seat,
		              "status", store_status_name(g->status), "your_turn", 0, "players",
		              seat_names(g), "updated_ms", (json_int_t)g->updated_ms, "deadline_ms");
	const char *st = json_string_value(json_object_get(o, "status"));
	if (st && (!strcmp(st, "open") || !strcmp(st, "playing"))) {
		char tok[STORE_TOKEN_SIZE];
		accounts_seat_token(g->id, seat, m->account, tok);
		json_object_set_new(o, "token", json_string(tok));
	}
	json_array_append_new(m->games, o);
	return 0;
}

static void get_my_games(const api_req *rq, api_resp *rs)
{
	store_account a;
	if (!require_session(rq, rs, &a))
		return;
	my_games m = {json_array(), a.id};
	char err[STORE_ERR_SIZE];
	if (db->ops->account_games(db, a.id, 0, MY_GAMES_MAX, add_my_game, &m, err) < 0) {
		json_decref(m.games);
		srv_error("listing an account's games: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	api_reply(rs, 200, json_pack("{s:o}", "games", m.games));
}

/* The value of query key `key` (URL-decoded) into buf: 1, or 0 if absent. */
static int query_value(const char *q, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);
	for (const char *p = q; p && *p;) {
		const char *amp = strchr(p, '&');
		size_t n = amp ? (size_t)(amp - p) : strlen(p);
		if (n > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			size_t o = 0;
			for (size_t i = kl + 1; i < n && o + 1 < size; i++) {
				char ch = p[i];
				if (ch == '+') {
					ch = ' ';
				} else if (ch == '%' && i + 2 < n + 1 && i + 2 <= n) {
					char hx[3] = {p[i + 1], p[i + 2], 0};
					ch = (char)strtol(hx, NULL, 16);
					i += 2;
				}
				buf[o++] = ch;
			}
			buf[o] = 0;
			return 1;
		}
		p = amp ? amp + 1 : NULL;
	}
	return 0;
}

static int query_int(const api_req *rq, api_resp *rs, const char *key, int lo, int hi, int *out)
{
	char v[32];
	if (!query_value(rq->query, key, v, sizeof v))
		return 0;
	char *end;
	long n = strtol(v, &end, 10);
	if (!v[0] || *end || v[0] == '+' || n < lo || n > hi) {
		char msg[96];
		snprintf(msg, sizeof msg, "%s must be a number from %d to %d", key, lo, hi);
		api_reply_error(rs, SE_MALFORMED, msg);
		return -1;
	}
	*out = (int)n;
	return 0;
}

typedef struct board {
	json_t *players;
	int rank, limit, more;
} board;

static int add_board(void *ctx, const store_account *a)
{
	board *b = ctx;
	if ((int)json_array_size(b->players) >= b->limit) {
		b->more = 1;
		return -1;
	}
	json_t *o = account_json(a);
	json_object_del(o, "id");
	json_object_set_new(o, "rank", json_integer(++b->rank));
	json_array_append_new(b->players, o);
	return 0;
}

static void get_leaderboard(const api_req *rq, api_resp *rs)
{
	int limit = BOARD_PAGE, offset = 0;
	if (query_int(rq, rs, "limit", 1, BOARD_PAGE_MAX, &limit) < 0 ||
	    query_int(rq, rs, "offset", 0, 1000000, &offset) < 0)
		return;
	board b = {json_array(), offset, limit, 0};
	char err[STORE_ERR_SIZE];
	if (db->ops->leaderboard(db, limit + 1, offset, add_board, &b, err) < 0) {
		json_decref(b.players);
		srv_error("reading the leaderboard: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	api_reply(rs, 200, json_pack("{s:o, s:b, s:f, s:f}", "players", b.players, "more", b.more,
	                         "start_rating", RATING_START, "start_rd", RATING_RD_START));
}

/* A profile: per bot level, the pairwise results against it. */
typedef struct vs_bot {
	char level[STORE_NAME_SIZE], spec[STORE_SPEC_SIZE];
	int games, wins, draws, losses;
} vs_bot;

typedef struct profile {
	json_t *games, *history;
	vs_bot bots[16];
	int nbots;
	int64_t viewer; /* the account asking (0: none) */
} profile;

/* Whether a stored game is private (table option "private": true). */
static int game_private(const store_game *g)
{
	if (!g->options || !strstr(g->options, "private"))
		return 0;
	json_t *o = json_loads(g->options, 0, NULL);
	int p = json_is_true(json_object_get(o, "private"));
	json_decref(o);
	return p;
}

static int game_seats(const store_game *g, int64_t account)
{
	for (int k = 0; account && k < g->nseats; k++)
		if (g->seats[k].account == account)
			return 1;
	return 0;
}

static int add_profile_game(void *ctx, const store_game *g, int seat, const store_result *r,
                            const store_rating_row *rr)
{
	profile *p = ctx;
	if (!r)
		return 0;
	if (game_private(g) && !game_seats(g, p->viewer)) {
		/* shown only to its players: the rating's step stays, without the game */
		if (rr)
			json_array_insert_new(p->history, 0,
			                      json_pack("{s:n, s:I, s:f, s:f, s:f}", "game", "at_ms",
			                                (json_int_t)rr->at_ms, "before", rr->before,
			                                "after", rr->after, "rd", rr->rd_after));
		return 0;
	}
	json_t *scores = json_loads(r->scores, 0, NULL);
	if ((int)json_array_size(p->games) < PROFILE_GAMES) {
		char replay[64];
		snprintf(replay, sizeof replay, "/?replay=%s", g->id);
		json_t *o = json_pack("{s:s, s:i, s:o, s:O, s:I, s:b, s:s}", "id", g->id, "seat", seat,
		                      "players", seat_names(g), "scores",
		                      scores ? scores : json_array(), "finished_ms",
		                      (json_int_t)r->at_ms, "rated", rr != NULL, "replay", replay);
		json_t *w = json_loads(r->winners, 0, NULL);
		json_object_set_new(o, "winners", w ? w : json_array());
		if (rr) {
			json_object_set_new(o, "rating_before", json_real(round(rr->before * 10) / 10));
			json_object_set_new(o, "rating_after", json_real(round(rr->after * 10) / 10));
		}
		json_array_append_new(p->games, o);
	}
	if (rr) /* newest first here: the history is turned round at the end */
		json_array_insert_new(p->history, 0,
		                      json_pack("{s:s, s:I, s:f, s:f, s:f}", "game", rr->game, "at_ms",
		                                (json_int_t)rr->at_ms, "before", rr->before, "after",
		                                rr->after, "rd", rr->rd_after));
	int mine = (int)json_integer_value(json_array_get(scores, (size_t)seat));
	for (int k = 0; k < g->nseats; k++) {
		const store_seat *s = &g->seats[k];
		if (s->kind != STORE_SEAT_BOT || s->seat == seat)
			continue;
		int theirs = (int)json_integer_value(json_array_get(scores, (size_t)s->seat));
		vs_bot *b = NULL;
		for (int i = 0; i < p->nbots && !b; i++)
			if (!strcmp(p->bots[i].level, s->level) && !strcmp(p->bots[i].spec, s->spec))
				b = &p->bots[i];
		if (!b && p->nbots < (int)(sizeof p->bots / sizeof p->bots[0])) {
			b = &p->bots[p->nbots++];
			memset(b, 0, sizeof *b);
			snprintf(b->level, sizeof b->level, "%s", s->level);
			snprintf(b->spec, sizeof b->spec, "%s", s->spec);
		}
		if (!b)
			continue;
		b->games++;
		b->wins += mine > theirs;
		b->draws += mine == theirs;
		b->losses += mine < theirs;
	}
	json_decref(scores);
	return 0;
}

static void get_player(const api_req *rq, api_resp *rs)
{
	char name[STORE_NAME_SIZE * 2], key[STORE_NAME_SIZE * 2], err[STORE_ERR_SIZE];
	int wait = lim_take(rq->addr, LIM_PLAYERS, err, sizeof err);
	if (wait) {
		api_reply_error(rs, SE_RATE_LIMITED, err);
		rs->retry_after = wait;
		return;
	}
	if (!query_value(rq->query, "name", name, sizeof name)) {
		api_reply_error(rs, SE_MALFORMED, "GET /api/player?name=NAME");
		return;
	}
	store_account a;
	int rc = accounts_name_key(name, key, sizeof key, err, sizeof err) ? 0
	         : db->ops->account_by_name(db, key, &a, err);
	if (rc < 0) {
		srv_error("reading an account: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (rc == 0) {
		api_reply_error(rs, SE_NOT_FOUND, "no player of that name");
		return;
	}
	profile p;
	memset(&p, 0, sizeof p);
	p.games = json_array();
	p.history = json_array();
	store_account me;
	if (accounts_session(rq->cookie, &me) == 1)
		p.viewer = me.id;
	sodium_memzero(&me, sizeof me);
	if (db->ops->account_games(db, a.id, 1, PROFILE_SCAN, add_profile_game, &p, err) < 0) {
		json_decref(p.games);
		json_decref(p.history);
		srv_error("listing an account's games: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (!json_array_size(p.games) && p.viewer != a.id) {
		/* no game it may show: the same answer as for no such account, so
		 * that names cannot be tried to find who registered */
		json_decref(p.games);
		json_decref(p.history);
		sodium_memzero(&a, sizeof a);
		api_reply_error(rs, SE_NOT_FOUND, "no player of that name");
		return;
	}
	json_t *bots = json_array();
	for (int i = 0; i < p.nbots; i++) {
		const vs_bot *b = &p.bots[i];
		double r;
		json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:f}", "level", b->level, "spec",
		                      b->spec, "games", b->games, "wins", b->wins, "draws", b->draws,
		                      "losses", b->losses, "win_rate",
		                      b->games ? (b->wins + 0.5 * b->draws) / b->games : 0.0);
		json_object_set_new(o, "rating", ratings_bot(b->spec, &r) ? json_real(round(r)) : json_null());
		json_array_append_new(bots, o);
	}
	json_t *o = account_json(&a);
	json_object_del(o, "id");
	json_object_set_new(o, "created_ms", json_integer(a.created_ms));
	json_object_set_new(o, "history", p.history);
	json_object_set_new(o, "recent_games", p.games);
	json_object_set_new(o, "bots", bots);
	sodium_memzero(&a, sizeof a);
	api_reply(rs, 200, o);
}

int accounts_http(const api_req *rq, api_resp *rs)
{
	const char *p = rq->path;
	int get = rq->method == LWSHUMETH_GET, post = rq->method == LWSHUMETH_POST;
	int reg = !strcmp(p, "/api/account/register"), login = !strcmp(p, "/api/account/login");
	if (reg || login || !strcmp(p, "/api/account/logout")) {
		if (!post)
			api_reply_error(rs, SE_METHOD, "POST only");
		else if (reg || login)
			post_credentials(rq, rs, reg);
		else
			post_logout(rq, rs);
		return 1;
	}
	if (recovery_http(rq, rs))
		return 1; /* recovery.c: recovery, password, deletion, the games' download */
	int me = !strcmp(p, "/api/me"), games = !strcmp(p, "/api/me/games"),
	    lb = !strcmp(p, "/api/leaderboard"), pl = !strcmp(p, "/api/player");
	if (!me && !games && !lb && !pl)
		return 0;
	if (!get) {
		api_reply_error(rs, SE_METHOD, "GET only");
		return 1;
	}
	store_account a;
	if (me) {
		if (require_session(rq, rs, &a)) {
			api_reply(rs, 200, json_pack("{s:o}", "account", account_json(&a)));
			sodium_memzero(&a, sizeof a);
		}
	} else if (games) {
		get_my_games(rq, rs);
	} else if (lb) {
		get_leaderboard(rq, rs);
	} else {
		get_player(rq, rs);
	}
	return 1;
}

/* ---- start and stop ------------------------------------------------------------------------------ */

void accounts_hooks_set(const acc_hooks *h)
{
	hooks = h;
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
	if (db->ops->accounts_unskeletoned(db, 0, 1, &id, name, err) == 0)
		return;
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call_backfill;
	j->data = srv_xcalloc(1, sizeof(backfill));
	j->done = backfill_done;
	writer_submit(j);
}

int accounts_start(const srv_config *c, store *reader, struct lws_context *ctx)
{
	cfg = c;
	db = reader;
	lctx = ctx;
	if (sodium_init() < 0) {
		srv_error("libsodium cannot start");
		return -1;
	}
	char err[STORE_ERR_SIZE];
	if (db->ops->get_key(db, "seat", seat_key, sizeof seat_key, err)) {
		srv_error("accounts: %s", err);
		return -1;
	}
	if (skeleton_start(err, sizeof err)) {
		srv_error("accounts: %s", err);
		return -1;
	}
	backfill_skeletons();
	astop = 0;
	nthreads = 0;
	int want = c->auth_threads < 1 ? 1 : c->auth_threads > 16 ? 16 : c->auth_threads;
	served_round = 0;
	memset(running, 0, sizeof running);
	lg_start(c);
	if (recovery_start(c, reader))
		return -1;
	for (int i = 0; i < want; i++)
		if (!pthread_create(&athreads[nthreads], NULL, auth_main, (void *)(intptr_t)nthreads))
			nthreads++;
	if (!nthreads) {
		srv_error("accounts: no hashing thread could be started");
		return -1;
	}
	return 0;
}

void accounts_stop(void)
{
	pthread_mutex_lock(&amu);
	astop = 1;
	pthread_cond_broadcast(&acv);
	pthread_mutex_unlock(&amu);
	for (int i = 0; i < nthreads; i++)
		pthread_join(athreads[i], NULL);
	nthreads = 0;
	for (auth_job **l = &todo; l; l = l == &todo ? &done : NULL)
		while (*l) {
			auth_job *j = *l;
			*l = j->next;
			job_wipe_free(j);
		}
	inflight = 0;
	lg_stop();
	skeleton_stop();
	recovery_stop();
	sodium_memzero(seat_key, sizeof seat_key);
}
