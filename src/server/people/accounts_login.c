/*
 * accounts_login.c - registering, logging in and out (accounts.h,
 * docs/protocol.md "Accounts"): the requests' checks on the loop, the
 * session (and a new account) written on the storage thread, the answers.
 *
 * A registration or login is checked here (the rate limits, the body, the
 * name, the password's length, the name taken or looking like one taken,
 * the failed-login guard, which a browser's device cookie of the account
 * lets past a stranger's flood), then its password goes to the hashing
 * threads (accounts_hashing.c); acc_hashed takes it back on the loop and
 * writes the session, whose done callback answers with the cookies (the
 * device's, the session's). A login for
 * an unknown name is hashed all the same (against a dummy), so it takes
 * as long as a wrong password.
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

#define LOOKALIKE_TEXT "an account whose name looks the same exists (names are compared by " \
                       "how they look: Unicode TR39 skeletons, so 'Alıce' meets 'Alice')"

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
	char device[ACC_DEVICE_HEX + 1];      /* the browser's device ("": a new one) */
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
	acc_answer_error(serial, SE_STORAGE, msg);
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
		if (acc_db->ops->account_by_name(acc_db, w->key, &a, err) == 1)
			acc_answer_error(w->serial, SE_NAME_TAKEN, "an account of that name exists (names "
			                 "are compared without regard to case)");
		else
			acc_answer_error(w->serial, SE_NAME_LOOKALIKE, LOOKALIKE_TEXT);
		sodium_memzero(&a, sizeof a);
	} else {
		/* the browser's device cookie (loginguard.h: it passes a stranger's
		 * flood of failures), then the session's */
		char cookie[ACC_COOKIES_SIZE];
		accounts_device_cookie(w->device, w->account, w->tls, cookie, sizeof cookie);
		size_t n = strlen(cookie);
		cookie[n++] = '\n';
		accounts_cookie(cookie + n, sizeof cookie - n, SESSION_COOKIE, w->session,
		                acc_cfg->session_ttl_s, w->tls);
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
		acc_answer(w->serial, created ? 201 : 200, o, cookie);
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
	acc_answer(w->serial, 200, json_pack("{s:b}", "ok", 1), cookie);
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
	memcpy(w->device, a->device, sizeof w->device);
	w->account = a->account;
	srv_random_hex(w->session, SESSION_BYTES);
	srv_token_hash(w->session, w->session_hash);
	w->now_ms = srv_now_ms();
	w->expires_ms = w->now_ms + (int64_t)acc_cfg->session_ttl_s * 1000;
	if (call == call_register)
		recovery_new_codes(w->codes, RC_COUNT);
	wjob *j = writer_job(WJ_CALL, "-");
	j->call = call;
	j->data = w;
	j->done = logged_in_done;
	writer_submit(j);
}

void acc_hashed(const auth_job *j)
{
	if (j->kind == AJ_HASH) {
		if (j->ok)
			submit_session(j, call_register);
		else
			acc_answer_error(j->serial, SE_BUSY, "the password could not be hashed (out of "
			                 "memory): try again later");
	} else if (!j->ok) {
		srv_event("event=login_failed name=\"%s\"", j->name);
		acc_answer_error(j->serial, SE_BAD_LOGIN, "wrong name or password");
	} else {
		lg_give_back(&j->lg);
		submit_session(j, call_session);
	}
}

/* ---- the requests ---------------------------------------------------------------------------- */

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
void acc_post_credentials(const api_req *rq, api_resp *rs, int reg)
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
		acc_job_free(j);
		api_reply_error(rs, reg ? SE_BAD_NAME : SE_BAD_LOGIN, reg ? err : "wrong name or password");
		return;
	}
	if (pwlen != strlen(pw) || pwlen < ACC_PASSWORD_MIN || pwlen > ACC_PASSWORD_MAX) {
		json_decref(o);
		acc_job_free(j);
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
	int rc = acc_db->ops->account_by_name(acc_db, j->key, &a, err);
	if (rc < 0) {
		acc_job_free(j);
		srv_error("reading an account: %s", err);
		api_reply_error(rs, SE_STORAGE, "the game database is unavailable");
		return;
	}
	if (reg && rc == 1) {
		acc_job_free(j);
		api_reply_error(rs, SE_NAME_TAKEN, "an account of that name exists (names are compared "
		            "without regard to case)");
		return;
	}
	if (reg) {
		const char *const skels[2] = {j->skel[0], j->skel[1]};
		rc = skeleton_forms(j->name, j->skel, err, sizeof err); /* the body is gone */
		if (!rc)
			rc = acc_db->ops->skeleton_taken(acc_db, skels, err);
		if (rc) {
			acc_job_free(j);
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
		accounts_device_of(rq->cookie, a.id, j->device); /* a browser that logged in before */
	}
	sodium_memzero(&a, sizeof a);
	lim_key(rq->addr, j->addr);
	snprintf(j->peer, sizeof j->peer, "%s", rq->addr ? rq->addr : "");
	if (!reg) {
		int lw = lg_take(j->key, rq->addr, j->device, LG_PASSWORD, &j->lg, lerr, sizeof lerr);
		if (lw) {
			acc_job_free(j);
			api_reply_error(rs, SE_RATE_LIMITED, lerr);
			rs->retry_after = lw;
			return;
		}
	}
	const char *why = "";
	if (acc_submit(j, &why)) {
		char msg[160];
		snprintf(msg, sizeof msg, "too many logins at once%s: try again in a moment (%s)",
		         strcmp(why, "--auth-queue") ? " from this address" : "", why);
		api_reply_error(rs, SE_BUSY, msg);
		rs->retry_after = 1;
	}
	/* else accounts_drain answers */
}

void acc_post_logout(const api_req *rq, api_resp *rs)
{
	acc_write *w = srv_xcalloc(1, sizeof *w);
	w->serial = rq->serial;
	w->tls = rq->tls;
	char tok[SESSION_BYTES * 2 + 1];
	acc_session_of(rq->cookie, tok, sizeof tok);
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
