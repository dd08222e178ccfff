/*
 * accounts_internal.h - what the files of the accounts share (accounts.c,
 * accounts_hashing.c, accounts_login.c, accounts_http.c): accounts.c's
 * state, the hashing threads' job and the functions one of them calls in
 * another. Only those files include it; everything else sees accounts.h.
 * All of it is the event-loop thread's, except the jobs while the hashing
 * threads hold them (accounts_hashing.c).
 */
#ifndef CARC_SERVER_ACCOUNTS_INTERNAL_H
#define CARC_SERVER_ACCOUNTS_INTERNAL_H

#include <jansson.h>
#include <libwebsockets.h>
#include <stdint.h>

#include "accounts.h"
#include "errcode.h"
#include "ratelimit.h"
#include "skeleton.h"

#define SESSION_BYTES (ACC_SESSION_HEX / 2) /* a session cookie: 64 hex digits */
#define SESSION_COOKIE ACC_SESSION_COOKIE /* accounts.h */

/* accounts.c: set by accounts_start and accounts_hooks_set (borrowed) */
extern const srv_config *acc_cfg;
extern store *acc_db;             /* the loop's reading handle */
extern const acc_hooks *acc_upper; /* the upper layers (accounts.h) */

/* accounts.c: a late answer to HTTP request `serial` (takes o). */
void acc_answer(uint64_t serial, int status, json_t *o, const char *cookie);
void acc_answer_error(uint64_t serial, srv_err e, const char *msg);
/* accounts.c: the session cookie's value (64 hex digits) into out, or "". */
void acc_session_of(const char *cookie, char *out, size_t size);

/* ---- the hashing threads' job (accounts_hashing.c) ---- */

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
	lg_ticket lg;             /* the token of loginguard it took (bucket 0: none) */
	char device[ACC_DEVICE_HEX + 1]; /* the browser's device for the account ("": none) */
	uint64_t round;           /* the fair queue's turn */
	acc_work *work;           /* another module's work (accounts_work), or NULL */
	struct auth_job *next;
} auth_job;

/* accounts_hashing.c: hands a job (malloc'd) to the threads, which take
 * it: 0, or -1 when its address holds as many as it may or the queue is
 * full (the job is freed; *why names the option). */
int acc_submit(auth_job *j, const char **why);
/* accounts_hashing.c: wipes and frees a job (and its work). */
void acc_job_free(auth_job *j);
/* accounts_hashing.c: starts acc_cfg->auth_threads threads (1 to 16)
 * that wake the loop of ctx when a job is done: 0, or -1 logged. */
int acc_queue_start(struct lws_context *ctx);
/* accounts_hashing.c: stops the threads and frees every job left. */
void acc_queue_stop(void);

/* ---- registration, login and logout (accounts_login.c) ---- */

/* The loop's part of a finished login or registration (not a work):
 * its session is written, or the request answered with the failure.
 * The caller still frees j. */
void acc_hashed(const auth_job *j);
/* POST /api/account/register (reg) and /api/account/login. */
void acc_post_credentials(const api_req *rq, api_resp *rs, int reg);
/* POST /api/account/logout. */
void acc_post_logout(const api_req *rq, api_resp *rs);

#endif
