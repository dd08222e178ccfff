/*
 * bots.c - the bot pool (see bots.h). Two queues under one mutex: jobs in,
 * moves out, both first in, first out. A bot is made afresh for each move
 * from a seed that depends on the game, the seat and the step only, so a
 * game resumed after a restart goes on with the very moves it would have
 * seen (time-limited bots excepted: they depend on the machine's speed).
 *
 * Which job a free worker takes (pick): a move of a table where a person
 * plays before any bot-only table's, and among those the job of the owner
 * (the address that made the table) whose bots have thought least lately
 * (CPU seconds, decayed with a half-life of BOTS_USAGE_HALF_S), first come
 * first served between equals. Bot-only tables may use every worker, but
 * a person's move that finds none free stops the bot-only move that has
 * thought longest (carc_bot_stop: it plays the best move it has found so
 * far), so a person's bot never waits behind them. An owner whose bots used more than
 * its budget (--bot-cpu-per-addr CPU seconds a minute) has its next moves
 * played by BOTS_FALLBACK_SPEC (greedy: a few milliseconds) until its
 * usage falls back under the budget: what one address makes the bots think
 * is bounded, whatever it creates.
 *
 * Each worker has a slot holding the bot it runs and its deadline, under
 * the same mutex; the watchdog thread sleeps until the earliest deadline
 * and stops a bot that is still thinking then. bots_stop stops every bot in
 * a slot before it joins the threads. A bot is freed only by its worker,
 * after it has left the slot, so carc_bot_stop (called with the mutex
 * held) never sees a freed bot.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyse.h"
#include "bots.h"
#include "carc_bot.h"

#define MAX_WORKERS 64
#define OWNER_SIZE 48
#define USAGE_SLOTS 4096 /* owners remembered (the least used is forgotten first) */
#define USAGE_PROBE 8
#define PICK_SCAN_MAX 512 /* queued jobs a free worker compares (beyond: in order) */

typedef struct job {
	void *tag;
	char owner[OWNER_SIZE]; /* who made the table ("": nobody known) */
	int people;          /* a person plays at the table */
	int analysis;        /* 1: a move of a game's analysis (an_position) */
	int ok;              /* analysis: an_position worked */
	carc_move played;    /* analysis: the move played there */
	an_move result;      /* analysis */
	int step;            /* the step the move is for (handed back) */
	uint64_t seed;
	double budget_s;
	char spec[128];
	carc_move move;
	struct job *next;
	carc_game *game;     /* the bot's own copy */
} job;

static void job_free(job *j)
{
	if (j)
		carc_game_free(j->game);
	free(j);
}

typedef struct slot {
	carc_bot *bot;       /* thinking now, or NULL */
	void *tag;           /* its job's tag (a live move's table), NULL: none */
	int busy;            /* a job is taken (also while its bot is being made) */
	int bot_only;        /* it is a bot-only table's move */
	int64_t since_us;
	int64_t deadline_us; /* srv_mono_us() clock */
	int stopped;         /* carc_bot_stop was called on it */
} slot;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER; /* jobs for the workers */
static pthread_cond_t wd_cv;                          /* the watchdog (monotonic clock) */
static job *jobs_head, *jobs_tail, *done_head, *done_tail;
/* analysis moves: served only when no live move waits, by at most
 * max_analysing workers at once; their results have a queue of their own */
static job *ajobs_head, *ajobs_tail, *adone_head, *adone_tail;
static int analysing, max_analysing, nqueued_analysis;
static int stopping;
static int nthreads;
static pthread_t workers[MAX_WORKERS];
static slot slots[MAX_WORKERS];
static pthread_t wd_thread;
static int wd_started;
static struct lws_context *wake_ctx;
static double cpu_budget_s;  /* an owner's CPU seconds a minute; 0: no budget */
static int64_t preempted;    /* bot-only moves cut short for a person's (metrics) */
static int64_t over_budget;  /* moves played by the fallback (metrics) */

/* The CPU seconds each owner's bots used lately, decayed (under mu). */
static struct usage {
	char owner[OWNER_SIZE];
	double cpu_s;
	int64_t at_us;
} usage[USAGE_SLOTS];

static double decayed(const struct usage *u, int64_t now_us)
{
	double dt = (double)(now_us - u->at_us) / 1e6;
	return dt > 0 ? u->cpu_s * exp2(-dt / BOTS_USAGE_HALF_S) : u->cpu_s;
}

/* The owner's entry: found in at most USAGE_PROBE slots from its hash;
 * a new owner takes the least used of those. */
static struct usage *usage_of(const char *owner, int make)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)owner; *p; p++)
		h = (h ^ *p) * 16777619u;
	struct usage *least = NULL;
	int64_t now = srv_mono_us();
	for (int k = 0; k < USAGE_PROBE; k++) {
		struct usage *u = &usage[(h + (uint32_t)k) % USAGE_SLOTS];
		if (!strcmp(u->owner, owner))
			return u;
		if (!least || decayed(u, now) < decayed(least, now))
			least = u;
	}
	if (!make)
		return NULL;
	snprintf(least->owner, sizeof least->owner, "%s", owner);
	least->cpu_s = 0;
	least->at_us = now;
	return least;
}

/* An owner's usage over about the last minute (the decayed sum of a
 * steady use of r CPU-s/s approaches r * half-life / ln 2, so it is scaled
 * to a minute's worth). */
static double usage_minute(const char *owner)
{
	const struct usage *u = owner[0] ? usage_of(owner, 0) : NULL;
	return u ? decayed(u, srv_mono_us()) * 60.0 * M_LN2 / BOTS_USAGE_HALF_S : 0;
}

static void usage_add(const char *owner, double cpu_s)
{
	if (!owner[0])
		return;
	struct usage *u = usage_of(owner, 1);
	int64_t now = srv_mono_us();
	u->cpu_s = decayed(u, now) + cpu_s;
	u->at_us = now;
}

/* Under mu: the live job a free worker takes (unlinked), or NULL. */
static job *pick(void)
{
	job *best = NULL, *best_prev = NULL, *prev = NULL;
	double best_use = 0;
	int64_t now = srv_mono_us();
	int scanned = 0;
	for (job *j = jobs_head; j && (scanned < PICK_SCAN_MAX || !best); prev = j, j = j->next) {
		scanned++;
		const struct usage *u = j->owner[0] ? usage_of(j->owner, 0) : NULL;
		double use = u ? decayed(u, now) : 0;
		if (!best || (j->people && !best->people) ||
		    (j->people == best->people && use < best_use)) {
			best = j;
			best_prev = prev;
			best_use = use;
		}
	}
	if (!best)
		return NULL;
	if (best_prev)
		best_prev->next = best->next;
	else
		jobs_head = best->next;
	if (jobs_tail == best)
		jobs_tail = best_prev;
	best->next = NULL;
	return best;
}

/* Under mu: a person's move was queued; when no worker is free, the
 * bot-only move thinking longest is stopped (it ends with its best move
 * so far) so that a worker takes the person's next. */
static void make_way(void)
{
	slot *victim = NULL;
	for (int i = 0; i < nthreads; i++) {
		slot *s = &slots[i];
		if (!s->busy)
			return; /* a free worker takes it */
		if (s->bot_only && s->bot && !s->stopped && (!victim || s->since_us < victim->since_us))
			victim = s;
	}
	if (victim) {
		carc_bot_stop(victim->bot);
		victim->stopped = 1;
		preempted++;
	}
}

static double thread_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void push(job **head, job **tail, job *j)
{
	j->next = NULL;
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
}

static job *pop(job **head, job **tail)
{
	job *j = *head;
	if (j) {
		*head = j->next;
		if (!*head)
			*tail = NULL;
	}
	return j;
}

static void *worker(void *arg)
{
	slot *me = arg;
	for (;;) {
		pthread_mutex_lock(&mu);
		while (!stopping && !jobs_head && !(ajobs_head && analysing < max_analysing))
			pthread_cond_wait(&cv, &mu);
		if (stopping) {
			pthread_mutex_unlock(&mu);
			return NULL;
		}
		job *j = pick();
		if (!j) {
			j = pop(&ajobs_head, &ajobs_tail);
			nqueued_analysis--;
			analysing++;
		}
		me->busy = 1;
		me->tag = j->analysis ? NULL : j->tag;
		me->bot_only = !j->analysis && !j->people;
		me->since_us = srv_mono_us();
		if (!j->analysis && cpu_budget_s > 0 && usage_minute(j->owner) > cpu_budget_s) {
			snprintf(j->spec, sizeof j->spec, "%s", BOTS_FALLBACK_SPEC);
			over_budget++;
		}
		pthread_mutex_unlock(&mu);
		double cpu0 = thread_cpu_s();

		char err[160];
		carc_bot *b = carc_bot_new(j->spec, j->seed, err, sizeof err);
		if (!b) {
			srv_error("bot '%s': %s", j->spec, err);
			j->move = CARC_MOVE_NONE;
		} else {
			pthread_mutex_lock(&mu);
			int quit = stopping;
			if (!quit) {
				me->bot = b;
				me->stopped = 0;
				me->deadline_us = srv_mono_us() + (int64_t)(j->budget_s * 1e6);
				pthread_cond_signal(&wd_cv);
			}
			pthread_mutex_unlock(&mu);
			if (quit) {
				carc_bot_free(b);
				pthread_mutex_lock(&mu);
				if (j->analysis)
					analysing--;
				me->busy = me->bot_only = 0;
				pthread_mutex_unlock(&mu);
				job_free(j);
				return NULL;
			}
			if (j->analysis)
				j->ok = !an_position(b, j->game, j->played, &j->result);
			else
				j->move = carc_bot_choose(b, j->game);
			pthread_mutex_lock(&mu);
			me->bot = NULL;
			pthread_mutex_unlock(&mu);
			carc_bot_free(b);
		}
		double cpu = thread_cpu_s() - cpu0;
		pthread_mutex_lock(&mu);
		if (j->analysis) {
			analysing--;
			push(&adone_head, &adone_tail, j);
			if (ajobs_head) /* another worker may take the next one now */
				pthread_cond_signal(&cv);
		} else {
			usage_add(j->owner, cpu);
			push(&done_head, &done_tail, j);
		}
		me->busy = me->bot_only = 0;
		me->tag = NULL;
		pthread_mutex_unlock(&mu);
		lws_cancel_service(wake_ctx);
	}
}

/* Sleeps until the earliest deadline of a thinking bot and stops the bots
 * whose deadline has passed. */
static void *watchdog(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!stopping) {
		int64_t now = srv_mono_us(), next = INT64_MAX;
		for (int i = 0; i < MAX_WORKERS; i++) {
			slot *s = &slots[i];
			if (!s->bot || s->stopped)
				continue;
			if (now >= s->deadline_us) {
				carc_bot_stop(s->bot);
				s->stopped = 1;
			} else if (s->deadline_us < next) {
				next = s->deadline_us;
			}
		}
		if (next == INT64_MAX) {
			pthread_cond_wait(&wd_cv, &mu);
		} else {
			struct timespec ts;
			ts.tv_sec = (time_t)(next / 1000000);
			ts.tv_nsec = (long)(next % 1000000) * 1000;
			pthread_cond_timedwait(&wd_cv, &mu, &ts);
		}
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

int bots_start(int n, double cpu_per_owner_s, struct lws_context *ctx)
{
	wake_ctx = ctx;
	cpu_budget_s = cpu_per_owner_s;
	memset(usage, 0, sizeof usage);
	over_budget = 0;
	preempted = 0;
	stopping = 0;
	if (n < 1)
		n = 1;
	if (n > MAX_WORKERS)
		n = MAX_WORKERS;
	memset(slots, 0, sizeof slots);
	/* srv_mono_us() is CLOCK_MONOTONIC: the watchdog waits on that clock */
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&wd_thread, NULL, watchdog, NULL))
		return -1;
	wd_started = 1;
	/* a worker is kept free for the live tables when there are several */
	max_analysing = n > 1 ? n - 1 : 1;
	analysing = 0;
	nqueued_analysis = 0;
	for (nthreads = 0; nthreads < n; nthreads++)
		if (pthread_create(&workers[nthreads], NULL, worker, &slots[nthreads]))
			return -1;
	return 0;
}

void bots_stop(void)
{
	pthread_mutex_lock(&mu);
	stopping = 1;
	for (int i = 0; i < nthreads; i++)
		if (slots[i].bot)
			carc_bot_stop(slots[i].bot);
	pthread_cond_broadcast(&cv);
	if (wd_started)
		pthread_cond_broadcast(&wd_cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < nthreads; i++)
		pthread_join(workers[i], NULL);
	nthreads = 0;
	if (wd_started) {
		pthread_join(wd_thread, NULL);
		pthread_cond_destroy(&wd_cv);
		wd_started = 0;
	}
	job *j;
	while ((j = pop(&jobs_head, &jobs_tail)))
		job_free(j);
	while ((j = pop(&done_head, &done_tail)))
		job_free(j);
	while ((j = pop(&ajobs_head, &ajobs_tail)))
		job_free(j);
	while ((j = pop(&adone_head, &adone_tail)))
		job_free(j);
	nqueued_analysis = analysing = 0;
}

static job *new_job(void *tag, const carc_game *g, const char *spec, uint64_t seed, int step,
                    double budget_s)
{
	job *j = srv_xcalloc(1, sizeof *j);
	j->tag = tag;
	j->step = step;
	j->seed = seed;
	j->budget_s = budget_s > 0 ? budget_s : 0;
	snprintf(j->spec, sizeof j->spec, "%s", spec);
	j->move = CARC_MOVE_NONE;
	if (!(j->game = carc_game_clone(g)))
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	return j;
}

void bots_submit(void *tag, const char *owner, int people, const carc_game *g, const char *spec,
                 uint64_t seed, int step, double budget_s)
{
	job *j = new_job(tag, g, spec, seed, step, budget_s);
	snprintf(j->owner, sizeof j->owner, "%s", owner ? owner : "");
	j->people = people;
	pthread_mutex_lock(&mu);
	push(&jobs_head, &jobs_tail, j);
	pthread_cond_signal(&cv);
	if (people)
		make_way();
	pthread_mutex_unlock(&mu);
}

void bots_submit_analysis(void *tag, const carc_game *g, carc_move played, const char *spec,
                          uint64_t seed, int step, double budget_s)
{
	job *j = new_job(tag, g, spec, seed, step, budget_s);
	j->analysis = 1;
	j->played = played;
	pthread_mutex_lock(&mu);
	push(&ajobs_head, &ajobs_tail, j);
	nqueued_analysis++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

int bots_poll_analysis(void **tag, int *step, an_move *out)
{
	pthread_mutex_lock(&mu);
	job *j = pop(&adone_head, &adone_tail);
	pthread_mutex_unlock(&mu);
	if (!j)
		return 0;
	*tag = j->tag;
	*step = j->step;
	int ok = j->ok;
	if (ok)
		*out = j->result;
	job_free(j);
	return ok ? 1 : -1;
}

void bots_analysis_load(int *queued, int *running)
{
	pthread_mutex_lock(&mu);
	*queued = nqueued_analysis;
	*running = analysing;
	pthread_mutex_unlock(&mu);
}

int64_t bots_over_budget(void)
{
	pthread_mutex_lock(&mu);
	int64_t n = over_budget;
	pthread_mutex_unlock(&mu);
	return n;
}

int64_t bots_preempted(void)
{
	pthread_mutex_lock(&mu);
	int64_t n = preempted;
	pthread_mutex_unlock(&mu);
	return n;
}

void bots_stop_tag(void *tag)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nthreads; i++)
		if (slots[i].tag == tag && slots[i].bot && !slots[i].stopped) {
			carc_bot_stop(slots[i].bot);
			slots[i].stopped = 1;
		}
	for (job *j = jobs_head; j; j = j->next)
		if (j->tag == tag) {
			j->budget_s = 0;
			snprintf(j->spec, sizeof j->spec, "%s", "random"); /* an answer at once */
		}
	pthread_mutex_unlock(&mu);
}

int bots_poll(void **tag, int *step, carc_move *move)
{
	pthread_mutex_lock(&mu);
	job *j = pop(&done_head, &done_tail);
	pthread_mutex_unlock(&mu);
	if (!j)
		return 0;
	*tag = j->tag;
	*step = j->step;
	*move = j->move;
	job_free(j);
	return 1;
}

/* ---- the ceilings ---------------------------------------------------------------- */

/* A parameter as the engine describes it (carc_bot_describe): its default
 * and, for numbers, its range. */
typedef struct param_info {
	int found, numeric;
	double def, lo, hi;
} param_info;

/* Reads the line of `key` from the description of bot `name`. Returns 0,
 * or -1 when the description cannot be read (then no ceiling could be
 * checked, and the spec is refused). */
static int describe_param(const char *name, const char *key, param_info *pi)
{
	static char text[16384]; /* only the loop thread clamps (at start and on loading) */
	memset(pi, 0, sizeof *pi);
	if (carc_bot_describe(name, text, sizeof text))
		return -1;
	if (strlen(text) >= sizeof text - 1)
		return -1;
	size_t klen = strlen(key);
	for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		const char *p = line + 1;
		while (*p == ' ')
			p++;
		if (strncmp(p, key, klen) || p[klen] != ' ')
			continue;
		char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char one[1024];
		if (len >= sizeof one)
			return -1;
		memcpy(one, p, len);
		one[len] = 0;
		char *d = NULL;
		for (char *q = strstr(one, "(default "); q; q = strstr(q + 1, "(default "))
			d = q;
		if (!d)
			return -1;
		pi->found = 1;
		char *semi = strchr(d, ';');
		if (!semi)
			return -1;
		char *dots = strstr(semi, "..");
		if (!dots) /* a choice among names ("off|on"): no ceiling applies */
			return 0;
		char *q;
		pi->def = strtod(d + 9, &q);
		if (q == d + 9)
			return -1;
		char *lo = dots;
		while (lo > semi && lo[-1] != ' ')
			lo--;
		*dots = 0; /* "0..3600": strtod would read "0." */
		pi->lo = strtod(lo, &q);
		if (q != dots || q == lo)
			return -1;
		pi->hi = strtod(dots + 2, &q);
		if (q == dots + 2)
			return -1;
		pi->numeric = 1;
		return 0;
	}
	return 0;
}

#define MAX_KV 32

typedef struct spec_kv {
	char key[32];
	char val[64];
} spec_kv;

typedef struct parsed_spec {
	char name[32];
	int n;
	spec_kv kv[MAX_KV];
} parsed_spec;

/* "name:k=v,k=v" as the engine reads it; -1 when it is not of that form. */
static int parse_spec(const char *spec, parsed_spec *ps)
{
	memset(ps, 0, sizeof *ps);
	const char *colon = strchr(spec, ':');
	size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
	if (!nlen || nlen >= sizeof ps->name)
		return -1;
	memcpy(ps->name, spec, nlen);
	if (!colon)
		return 0;
	const char *s = colon + 1;
	if (!*s)
		return -1;
	for (;;) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		if (!eq || ps->n >= MAX_KV)
			return -1;
		size_t kl = (size_t)(eq - s), vl = len - kl - 1;
		spec_kv *kv = &ps->kv[ps->n++];
		if (!kl || kl >= sizeof kv->key || vl >= sizeof kv->val)
			return -1;
		memcpy(kv->key, s, kl);
		memcpy(kv->val, eq + 1, vl);
		if (!end)
			return 0;
		s = end + 1;
		if (!*s)
			return -1;
	}
}

/* The value of key as the bot will see it: the last one given, else the
 * default. *given tells which; *ok is 0 when the given value is not a
 * number in the engine's range (the engine refuses it: left alone). */
static double value_of(const parsed_spec *ps, const char *key, const param_info *pi, int *given,
                       int *ok)
{
	*given = 0;
	*ok = 1;
	double v = pi->def;
	for (int i = 0; i < ps->n; i++) {
		if (strcmp(ps->kv[i].key, key))
			continue;
		char *end;
		double x = strtod(ps->kv[i].val, &end);
		*given = 1;
		*ok = ps->kv[i].val[0] && !*end && isfinite(x) && x >= pi->lo && x <= pi->hi;
		v = x;
	}
	return v;
}

static void set_value(parsed_spec *ps, const char *key, double v)
{
	int k = 0;
	for (int i = 0; i < ps->n; i++)
		if (strcmp(ps->kv[i].key, key))
			ps->kv[k++] = ps->kv[i];
	ps->n = k;
	if (ps->n >= MAX_KV)
		return;
	spec_kv *kv = &ps->kv[ps->n++];
	snprintf(kv->key, sizeof kv->key, "%s", key);
	snprintf(kv->val, sizeof kv->val, "%.10g", v);
}

static void add_why(char *why, size_t whysize, const char *fmt, double was, const char *opt,
                    double ceiling)
{
	size_t o = strlen(why);
	if (o < whysize)
		snprintf(why + o, whysize - o, "%s%s %.10g > %s %.10g", o ? ", " : "", fmt, was, opt,
		         ceiling);
}

int bots_clamp(const srv_config *c, const char *spec, char *out, size_t outsize, char *why,
               size_t whysize, char *err, size_t errsize)
{
	why[0] = 0;
	parsed_spec ps;
	if (!spec || parse_spec(spec, &ps)) {
		/* the engine's message says what is wrong with it */
		carc_bot *b = spec ? carc_bot_new(spec, 1, err, errsize) : NULL;
		if (b) {
			carc_bot_free(b);
			snprintf(err, errsize, "cannot read the bot spec '%.60s'", spec);
		} else if (!spec) {
			snprintf(err, errsize, "no bot spec");
		}
		return -1;
	}
	param_info pt, pth, pn;
	if (describe_param(ps.name, "time", &pt) || describe_param(ps.name, "threads", &pth) ||
	    describe_param(ps.name, "nodes", &pn)) {
		carc_bot *b = carc_bot_new(ps.name, 1, err, errsize);
		if (b) {
			carc_bot_free(b);
			snprintf(err, errsize, "bot '%s': its parameters cannot be checked against the "
			         "ceilings", ps.name);
		}
		return -1;
	}
	int clamped = 0, given, ok;
	if (pt.found && pt.numeric) {
		double t = value_of(&ps, "time", &pt, &given, &ok);
		if (ok && t > c->bot_max_time) {
			add_why(why, whysize, "time", t, "--bot-max-time", c->bot_max_time);
			set_value(&ps, "time", c->bot_max_time);
			clamped = 1;
		}
	}
	double threads = 1;
	if (pth.found && pth.numeric) {
		threads = value_of(&ps, "threads", &pth, &given, &ok);
		if (ok && (threads == 0 || threads > c->bot_max_threads)) {
			add_why(why, whysize, "threads", threads, "--bot-max-threads", c->bot_max_threads);
			threads = c->bot_max_threads;
			set_value(&ps, "threads", threads);
			clamped = 1;
		}
		if (!ok || threads < 1)
			threads = 1;
	}
	if (pn.found && pn.numeric) {
		double nodes = value_of(&ps, "nodes", &pn, &given, &ok);
		if (ok && nodes * threads > (double)c->bot_max_nodes) {
			add_why(why, whysize, threads > 1 ? "nodes x threads" : "nodes", nodes * threads,
			        "--bot-max-nodes", (double)c->bot_max_nodes);
			double per = floor((double)c->bot_max_nodes / threads);
			if (per < pn.lo && pth.found) {
				/* fewer threads, so that each still gets the smallest tree */
				threads = floor((double)c->bot_max_nodes / pn.lo);
				if (threads < 1)
					threads = 1;
				set_value(&ps, "threads", threads);
				per = floor((double)c->bot_max_nodes / threads);
			}
			if (per < pn.lo)
				per = pn.lo;
			set_value(&ps, "nodes", per);
			clamped = 1;
		}
	}
	const char *use = spec;
	char rebuilt[512];
	if (clamped) {
		size_t o = (size_t)snprintf(rebuilt, sizeof rebuilt, "%s", ps.name);
		for (int i = 0; i < ps.n && o < sizeof rebuilt; i++)
			o += (size_t)snprintf(rebuilt + o, sizeof rebuilt - o, "%c%s=%s", i ? ',' : ':',
			                      ps.kv[i].key, ps.kv[i].val);
		if (o >= sizeof rebuilt) {
			snprintf(err, errsize, "bot spec '%.60s' is too long", spec);
			return -1;
		}
		use = rebuilt;
	}
	/* the engine has the last word; only a spec within the ceilings is made */
	carc_bot *b = carc_bot_new(use, 1, err, errsize);
	if (!b)
		return -1;
	int rc = snprintf(out, outsize, "%s", clamped ? carc_bot_spec(b) : spec);
	carc_bot_free(b);
	if (rc < 0 || (size_t)rc >= outsize) {
		snprintf(err, errsize, "bot spec '%.60s' is too long (at most %zu characters)", spec,
		         outsize - 1);
		return -1;
	}
	return clamped;
}
