/*
 * accounts_hashing.c - the hashing threads of the accounts (accounts.h,
 * accounts_internal.h): Argon2id for registrations, logins and the work
 * of recovery.c, off the event loop, in a queue shared fairly between
 * addresses.
 *
 * A thread sees only its job (a copy of the password, wiped after use).
 * A finished hashing is handed back through a locked list and the loop is
 * woken (lws_cancel_service), like the bots' moves; accounts_drain takes
 * it there.
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
 * at once (inflight); todo is in order of round.
 */
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts_internal.h"
#include "loginguard.h"

static struct lws_context *lctx; /* woken when a job is done */
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

void acc_job_free(auth_job *j)
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

/* Hands a job to the threads (accounts_internal.h): 0, or -1 when its
 * address holds as many as it may or the queue is full (the job is freed;
 * *why names the option). */
int acc_submit(auth_job *j, const char **why)
{
	auth_job *out = NULL;
	uint64_t last;
	pthread_mutex_lock(&amu);
	int mine = held_by(j->addr, &last);
	if (acc_cfg->auth_queue_per_addr > 0 && mine >= acc_cfg->auth_queue_per_addr) {
		pthread_mutex_unlock(&amu);
		*why = "--auth-queue-per-addr";
		lg_give_back(&j->lg);
		acc_job_free(j);
		return -1;
	}
	if (inflight >= acc_cfg->auth_threads + acc_cfg->auth_queue) {
		out = take_place(mine + 2);
		if (!out) {
			pthread_mutex_unlock(&amu);
			*why = "--auth-queue";
			lg_give_back(&j->lg);
			acc_job_free(j);
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
		lg_give_back(&out->lg);
		acc_answer_error(out->serial, SE_BUSY, "too many logins at once: this one gave its "
		                 "place to an address with fewer waiting; try again in a moment "
		                 "(--auth-queue)");
		acc_job_free(out);
	}
	return 0;
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
		} else {
			acc_hashed(j); /* accounts_login.c */
		}
		acc_job_free(j);
	}
}

int accounts_work(const api_req *rq, acc_work *w, const char **why)
{
	auth_job *j = srv_xcalloc(1, sizeof *j);
	j->kind = AJ_VERIFY;
	j->serial = w->serial;
	j->work = w;
	j->lg = w->lg;
	lim_key(rq->addr, j->addr);
	return acc_submit(j, why);
}

int acc_queue_start(struct lws_context *ctx)
{
	const srv_config *c = acc_cfg;
	lctx = ctx;
	astop = 0;
	nthreads = 0;
	int want = c->auth_threads < 1 ? 1 : c->auth_threads > 16 ? 16 : c->auth_threads;
	served_round = 0;
	memset(running, 0, sizeof running);
	for (int i = 0; i < want; i++)
		if (!pthread_create(&athreads[nthreads], NULL, auth_main, (void *)(intptr_t)nthreads))
			nthreads++;
	if (!nthreads) {
		srv_error("accounts: no hashing thread could be started");
		return -1;
	}
	return 0;
}

void acc_queue_stop(void)
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
			acc_job_free(j);
		}
	inflight = 0;
}
