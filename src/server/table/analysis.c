/*
 * analysis.c - analyses of finished games (see analysis.h).
 *
 * A run is one game's analysis in memory: COMPUTING (one job in the bot
 * pool at a time, tagged with the run), STORING (its JSON handed to the
 * storage thread) or FAILED (kept, small, so that a client polling learns
 * why; at most MAX_FAILED of them, the oldest dropped). A stored run
 * leaves memory: from then on the store answers. A run is freed only
 * while no job of the pool or the writer holds it, so the tags handed
 * back always point to a live run.
 *
 * Invariants: runs COMPUTING + STORING <= cfg->analysis_queue; a
 * COMPUTING run has exactly one job in the pool; r->cur is the position
 * before step r->k with r->k steps of r->rec applied. Every step is
 * analysed (a decision of any kind), each with the turn it belongs to.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyse.h"
#include "analysis.h"
#include "bots.h"
#include "carc_bot.h"
#include "ratelimit.h"
#include "metrics.h"
#include "move_json.h"
#include "why.h"
#include "writer.h"

#define MAX_FAILED 32
#define BUSY_WAIT_S 5

enum { R_COMPUTING, R_STORING, R_FAILED };

typedef struct worst {
	int turn; /* 1-based, 0: none */
	int step; /* 0-based, the log's index */
	double lost;
} worst;

typedef struct run {
	char id[STORE_ID_SIZE];
	int state;
	int n, k;                /* steps, steps analysed (a step: one decision) */
	int np;
	int fallback_turn;       /* the turn (1-based) of the first step analysed with greedy
	                          * (the ceiling), 0: none */
	int fallback_step;       /* that step (0-based) */
	int64_t started_us;
	json_t *turns;
	worst w[CARC_MAX_PLAYERS], all;
	char msg[160];           /* FAILED: why */
	carc_game *rec, *cur;    /* NULL once not COMPUTING */
	why_future *fut;         /* the real rest of the game (why.h), NULL: none */
	int64_t why_us;          /* time spent on the "why" of turns (why_turn) */
	struct run *next;
} run;

/* What the storage thread writes (WJ_CALL data: one block, nothing inside
 * to free). */
typedef struct save_data {
	char id[STORE_ID_SIZE];
	int64_t at_ms;
	char text[];
} save_data;

static const srv_config *cfg;
static store *db;
static char spec[STORE_SPEC_SIZE];
static run *runs;

int analysis_spec(const srv_config *c, char *out, size_t outsize, char *err, size_t errsize)
{
	char want[STORE_SPEC_SIZE], why[256];
	if (c->analysis_bot)
		snprintf(want, sizeof want, "%s", c->analysis_bot);
	else
		snprintf(want, sizeof want, "mcts:time=%g", c->analysis_time);
	int rc = bots_clamp(c, want, out, outsize, why, sizeof why, err, errsize);
	if (rc < 0)
		return -1;
	if (rc > 0)
		srv_event("--analysis-bot %s held to the ceilings: %s", want, why);
	return 0;
}

int analysis_start(const srv_config *c, store *reader)
{
	cfg = c;
	db = reader;
	char err[256];
	if (analysis_spec(c, spec, sizeof spec, err, sizeof err)) {
		srv_error("--analysis-bot: %s", err);
		return -1;
	}
	return 0;
}

/* The games and the future of a run that computes no more. */
static void drop_positions(run *r)
{
	carc_game_free(r->rec);
	carc_game_free(r->cur);
	if (r->fut)
		why_future_free(r->fut);
	free(r->fut);
	r->rec = r->cur = NULL;
	r->fut = NULL;
}

static void drop_games(run *r)
{
	drop_positions(r);
	json_decref(r->turns);
	r->turns = NULL;
}

static void free_run(run *r)
{
	drop_games(r);
	free(r);
}

static void unlink_run(run *r)
{
	for (run **p = &runs; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			return;
		}
}

void analysis_stop(void)
{
	while (runs) {
		run *r = runs;
		runs = r->next;
		free_run(r);
	}
}

static run *find(const char *id)
{
	for (run *r = runs; r; r = r->next)
		if (!strcmp(r->id, id))
			return r;
	return NULL;
}

int analysis_running(void)
{
	int n = 0;
	for (run *r = runs; r; r = r->next)
		n += r->state != R_FAILED;
	return n;
}

/* A run gives up: kept small as FAILED, the oldest failed ones dropped. */
static void fail(run *r, const char *fmt, const char *what)
{
	snprintf(r->msg, sizeof r->msg, fmt, what);
	srv_error("table=%s analysis failed: %s", r->id, r->msg);
	r->state = R_FAILED;
	drop_games(r);
	metrics_analysis(1);
	int nfailed = 0;
	run *oldest = NULL;
	for (run *x = runs; x; x = x->next)
		if (x->state == R_FAILED) {
			nfailed++;
			oldest = x; /* new runs go to the front: the last one is the oldest */
		}
	if (nfailed > MAX_FAILED && oldest) {
		unlink_run(oldest);
		free_run(oldest);
	}
}

static json_t *largest_json(const run *r)
{
	json_t *lg = json_array();
	for (int p = 0; p < r->np; p++)
		json_array_append_new(lg, json_pack("{s:i, s:o, s:o, s:f}", "player", p, "turn",
		                                    r->w[p].turn ? json_integer(r->w[p].turn)
		                                                 : json_null(),
		                                    "step", r->w[p].turn ? json_integer(r->w[p].step)
		                                                         : json_null(),
		                                    "lost", r->w[p].lost));
	return lg;
}

static int save_call(store *st, wjob *j)
{
	save_data *d = j->data;
	return st->ops->save_analysis(st, d->id, d->text, d->at_ms, j->err);
}

static void saved(wjob *j)
{
	run *r = j->tag;
	if (j->failed) {
		fail(r, "it could not be stored: %s", store_fault_text(j->fault));
		return;
	}
	srv_event("table=%s analysis stored (%d steps, %.1f s, why %.2f ms)", r->id, r->n,
	          (double)(srv_mono_us() - r->started_us) / 1e6, (double)r->why_us / 1e3);
	metrics_analysis(0);
	unlink_run(r);
	free_run(r);
}

/* Every step analysed: the answer's JSON, handed to the storage thread. */
static void finish(run *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "status", json_string("done"));
	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "bot", json_string(spec));
	json_object_set_new(o, "budget_s", json_real(cfg->analysis_time));
	json_object_set_new(o, "fallback_turn",
	                    r->fallback_turn ? json_integer(r->fallback_turn) : json_null());
	json_object_set_new(o, "fallback_step",
	                    r->fallback_turn ? json_integer(r->fallback_step) : json_null());
	json_object_set_new(o, "value", json_string("eval.c heuristic: expected final margin (own "
	                                            "minus best other), win = "
	                                            "logistic(margin/(3+12*tiles_left/72))"));
	json_object_set_new(o, "players", json_integer(r->np));
	json_object_set_new(o, "seconds",
	                    json_real((double)(srv_mono_us() - r->started_us) / 1e6));
	json_object_set_new(o, "why_ms", json_real(round((double)r->why_us / 100.0) / 10.0));
	json_object_set_new(o, "turns", r->turns);
	r->turns = NULL;
	json_object_set_new(o, "largest", largest_json(r));
	json_object_set_new(o, "largest_turn", r->all.turn ? json_integer(r->all.turn) : json_null());
	json_object_set_new(o, "largest_step", r->all.turn ? json_integer(r->all.step) : json_null());
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text) {
		fail(r, "%s", "out of memory");
		return;
	}
	size_t len = strlen(text);
	if (len > STORE_ANALYSIS_MAX) {
		free(text);
		fail(r, "%s", "it is larger than the store keeps");
		return;
	}
	drop_positions(r);
	r->state = R_STORING;
	save_data *d = srv_xmalloc(sizeof *d + len + 1);
	snprintf(d->id, sizeof d->id, "%s", r->id);
	d->at_ms = srv_now_ms();
	memcpy(d->text, text, len + 1);
	free(text);
	wjob *j = writer_job(WJ_CALL, r->id);
	j->call = save_call;
	j->data = d;
	j->tag = r;
	j->done = saved;
	writer_submit(j);
}

/* Hands the next step to the pool, or finishes. */
static void next_move(run *r)
{
	if (r->k >= r->n) {
		finish(r);
		return;
	}
	carc_step_info si;
	carc_step_played(r->rec, r->k, &si);
	if ((si.kind == CARC_STEP_TILE && carc_set_current_tile(r->cur, si.tile) != CARC_OK) ||
	    carc_to_move(r->cur) != si.player) {
		char t[16];
		snprintf(t, sizeof t, "%d", si.turn + 1);
		fail(r, "turn %s does not follow from the record", t);
		return;
	}
	carc_move m = si.move;
	const char *use = spec;
	double budget = cfg->analysis_time;
	if (srv_mono_us() - r->started_us > (int64_t)(cfg->analysis_max_time * 1e6)) {
		use = "greedy";
		if (!r->fallback_turn) {
			r->fallback_turn = si.turn + 1;
			r->fallback_step = r->k;
		}
	}
	uint64_t seed = 0x5eed0000ull + (uint64_t)r->k;
	bots_submit_analysis(r, r->cur, m, use, seed, r->k, budget);
}

static void got_move(run *r, int step, int ok, const an_move *a)
{
	if (r->state != R_COMPUTING || step != r->k)
		return;
	carc_step_info si;
	carc_step_played(r->rec, r->k, &si);
	int player = si.player, turn1 = si.turn + 1;
	carc_move m = si.move;
	if (!ok) {
		char t[16];
		snprintf(t, sizeof t, "%d", turn1);
		fail(r, "turn %s could not be analysed", t);
		return;
	}
	int k = r->k;
	if (a->lost > r->w[player].lost || !r->w[player].turn)
		r->w[player] = (worst){turn1, r->k, a->lost};
	if (a->lost > r->all.lost || !r->all.turn)
		r->all = (worst){turn1, r->k, a->lost};
	json_t *o = json_object();
	json_object_set_new(o, "turn", json_integer(turn1));
	json_object_set_new(o, "step", json_integer(k));
	json_object_set_new(o, "player", json_integer(player));
	json_object_set_new(o, "tile", json_string(carc_tile_name(si.tile)));
	json_object_set_new(o, "played", mj_move(r->cur, m));
	json_object_set_new(o, "best", mj_move(r->cur, a->best));
	json_object_set_new(o, "margin_best", json_real(a->margin_best));
	json_object_set_new(o, "margin_played", json_real(a->margin_played));
	json_object_set_new(o, "win_best", json_real(a->win_best));
	json_object_set_new(o, "win_played", json_real(a->win_played));
	json_object_set_new(o, "lost", json_real(a->lost));
	if (a->lost >= WHY_MIN_LOST && a->best != m && si.kind == CARC_STEP_TILE) {
		int64_t t0 = srv_mono_us();
		json_t *why = why_turn(r->cur, a->best, m, r->fut, k);
		r->why_us += srv_mono_us() - t0;
		if (why)
			json_object_set_new(o, "why", why);
	}
	json_array_append_new(r->turns, o);
	carc_apply_unchecked(r->cur, m, NULL);
	r->k++;
	next_move(r);
}

void analysis_drain(void)
{
	void *tag;
	int step, rc;
	an_move a;
	while ((rc = bots_poll_analysis(&tag, &step, &a)) != 0)
		got_move(tag, step, rc > 0, &a);
}

/* A new run of table t (its game over), computing. NULL with a message
 * when the game cannot be rebuilt from its record. */
static run *new_run(srv_table *t, char *err, size_t errsize)
{
	char *record = tables_record_text(t);
	if (!record) {
		snprintf(err, errsize, "the game's record could not be written");
		return NULL;
	}
	run *r = srv_xcalloc(1, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", t->id);
	r->rec = carc_game_clone(t->game);
	r->cur = carc_game_alloc();
	if (!r->rec || !r->cur)
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	char e[256];
	int bad = an_start_of(record, strlen(record), r->cur, e, sizeof e);
	free(record);
	if (bad) {
		snprintf(err, errsize, "the game's record does not replay: %s", e);
		free_run(r);
		return NULL;
	}
	r->fut = srv_xmalloc(sizeof *r->fut);
	int64_t t0 = srv_mono_us();
	if (why_future_build(r->cur, r->rec, r->fut)) { /* no tied facts then */
		free(r->fut);
		r->fut = NULL;
	}
	r->why_us = srv_mono_us() - t0;
	r->state = R_COMPUTING;
	r->n = carc_steps_played(r->rec);
	r->np = carc_players(r->rec);
	r->turns = json_array();
	r->started_us = srv_mono_us();
	r->next = runs;
	runs = r;
	return r;
}

static char *dump(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s ? s : srv_xstrdup("{}");
}

static char *pending_json(const run *r)
{
	return dump(json_pack("{s:s, s:i, s:i}", "status", "pending", "done", r->k, "total", r->n));
}

char *analysis_http(srv_table *t, int start, const char *addr, int *status, srv_err *code,
                    int *wait_s, char *err, size_t errsize)
{
	*wait_s = 0;
	run *r = find(t->id);
	if (r && r->state != R_FAILED) {
		*status = 202;
		return pending_json(r);
	}
	char *text = NULL, e[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int rc = db->ops->load_analysis(db, t->id, &text, e);
	metrics_store_read(srv_mono_us() - t0);
	if (rc < 0) {
		srv_error("table=%s reading its analysis: %s", t->id, e);
		*code = SE_STORAGE;
		snprintf(err, errsize, "the game database is unavailable: %s",
		         store_fault_text(db->ops->last_fault(db)));
		return NULL;
	}
	if (rc == 1) {
		*status = 200;
		return text;
	}
	if (!start) {
		*status = 200;
		if (r)
			return dump(json_pack("{s:s, s:s}", "status", "failed", "message", r->msg));
		return dump(json_pack("{s:s}", "status", "none"));
	}
	int over = t->status == STORE_OVER || (t->status == STORE_VIEW && carc_game_over(t->game));
	if (!over) {
		*code = SE_NOT_OVER;
		snprintf(err, errsize, "only a finished game is analysed");
		return NULL;
	}
	if (!writer_ok()) {
		*code = SE_STORAGE;
		snprintf(err, errsize, "the game database takes no writes now: the analysis could not "
		                       "be kept");
		return NULL;
	}
	if (analysis_running() >= cfg->analysis_queue) {
		*code = SE_BUSY;
		*wait_s = BUSY_WAIT_S;
		snprintf(err, errsize, "%d analyses are computing, as many as the server runs at once "
		         "(--analysis-queue); try again later", cfg->analysis_queue);
		return NULL;
	}
	int wait = lim_take(addr, LIM_ANALYSES, err, errsize);
	if (wait) {
		*code = SE_RATE_LIMITED;
		*wait_s = wait;
		return NULL;
	}
	if (r) { /* failed before: start again */
		unlink_run(r);
		free_run(r);
	}
	r = new_run(t, err, errsize);
	if (!r) {
		*code = SE_BAD_RECORD;
		return NULL;
	}
	srv_event("table=%s analysis started (%d turns, bot %s)", t->id, r->n, spec);
	next_move(r);
	/* finished at once (a game without turns) or failed at once */
	r = find(t->id);
	if (r && r->state == R_FAILED) {
		*status = 200;
		return dump(json_pack("{s:s, s:s}", "status", "failed", "message", r->msg));
	}
	*status = 202;
	return r ? pending_json(r) : dump(json_pack("{s:s}", "status", "none"));
}
