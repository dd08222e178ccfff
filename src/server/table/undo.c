/*
 * undo.c - training against bots (undo.h): who may take moves back, the
 * request with its limits (UNDO_MAX_MOVES a request, --rate-undos per
 * address, --undo-table-rate per table), the store's transaction, and the
 * table rebuilt in memory here (undo_done) or on another process that
 * learns of it from the stream (undo_sync).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"
#include "undo.h"

/* ---- who may undo ---------------------------------------------------------------------------- */

/* Whether the game would be rated at its end as it stands (ratings.h): a
 * person with an account against bots of fixed ratings on the standard
 * pile, at a table not made unrated nor a tutorial (moves.c's rate_hook
 * never rates one, whatever its pile). Such a game is no training game. */
static int could_be_rated(const srv_table *t, int person)
{
	if (!t->opts.rated || t->opts.tutorial || !t->seat[person].account)
		return 0;
	if (t->opts.has_pile && !cfg->rate_custom_piles)
		return 0;
	for (int i = 0; i < t->nseats; i++) {
		double r;
		if (i != person && !ratings_bot(t->seat[i].spec, &r))
			return 0;
	}
	return 1;
}

int undo_seat(const srv_table *t, srv_err *code, char *err, size_t errsize)
{
	const char *why = NULL;
	int person = -1;
	if (t->status == STORE_VIEW)
		why = "this table shows an uploaded record";
	for (int i = 0; i < t->nseats && !why; i++) {
		const srv_seat *s = &t->seat[i];
		if (s->kind == STORE_SEAT_BOT)
			continue;
		if (s->kind != STORE_SEAT_HUMAN || person >= 0 || s->forfeited)
			why = "moves are taken back only where one person plays and every other seat is a "
			      "bot";
		else
			person = i;
	}
	if (!why && person < 0)
		why = "nobody plays at this table";
	if (!why && t->opts.clock.mode != OPT_CLOCK_NONE)
		why = "moves are not taken back in a game with a clock";
	if (!why && t->opts.pass_and_play)
		why = "moves are not taken back at a pass-and-play table";
	if (!why && could_be_rated(t, person))
		why = "this game is rated: moves are not taken back (to train, make the table with "
		      "\"rated\": false, the lobby's \"Rated game\" unticked; or play as a guest)";
	if (!why)
		return person;
	if (code)
		*code = SE_NOT_TRAINING;
	if (err)
		snprintf(err, errsize, "%s", why);
	return -1;
}

/* ---- the per-table allowance ------------------------------------------------------------------- */

/* A token bucket of --undo-table-rate a minute (that many in a row) in the
 * table's memory: 0, or the seconds to wait. */
static int table_take(srv_table *t, char *err, size_t errsize)
{
	int rate = cfg->undo_table_rate;
	if (rate <= 0)
		return 0;
	int64_t now = srv_mono_us();
	if (!t->undo_us)
		t->undo_tokens = rate;
	else
		t->undo_tokens += (double)(now - t->undo_us) * rate / 60e6;
	if (t->undo_tokens > rate)
		t->undo_tokens = rate;
	t->undo_us = now;
	if (t->undo_tokens >= 1) {
		t->undo_tokens -= 1;
		return 0;
	}
	int wait = (int)((1 - t->undo_tokens) * 60.0 / rate) + 1;
	snprintf(err, errsize, "this table takes at most %d undo requests a minute "
	         "(--undo-table-rate): try again in %d s", rate, wait);
	return wait;
}

/* ---- the bot --------------------------------------------------------------------------------- */

void undo_stop_bot(srv_table *t)
{
	if (t->bot_state == 1) {
		lws_sul_cancel(&t->bot_sul);
		t->bot_state = 0;
	} else if (t->bot_state == 2) {
		t->bot_discard = 1; /* tables_bots_drain drops what it answers */
		bots_stop_tag(t);
	}
}

/* ---- the table in memory ----------------------------------------------------------------------- */

/* The game replayed from its start to step `keep` (the engine keeps no
 * history to step back through: a replay is about a millisecond for a
 * whole game). The log entries of the steps that stand are kept. 0, or -1
 * when a move does not replay (the table is then left as it was). */
static int rebuild(srv_table *t, int keep)
{
	carc_game *g = carc_game_alloc();
	char e[CARC_ERRMSG_SIZE];
	if (!g)
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	if (opt_game_init(&t->opts, g, e) != CARC_OK)
		goto bad;
	for (int i = 0; i < keep; i++) {
		carc_step_info si;
		carc_step_played(t->game, i, &si);
		if (si.kind == CARC_STEP_TILE && carc_current_tile(g) != si.tile &&
		    carc_set_current_tile(g, si.tile) != CARC_OK)
			goto bad;
		if (carc_apply(g, si.move, NULL, e) != CARC_OK)
			goto bad;
	}
	carc_game *old = t->game;
	t->game = g;
	carc_game_free(old);
	for (int i = keep; i < t->nlog; i++) {
		free(t->log[i]);
		t->log[i] = NULL;
	}
	t->nlog = keep;
	if (t->cl_want > keep)
		t->cl_want = keep;
	return 0;
bad:
	srv_error("table=%s taking moves back to step %d: %s", t->id, keep, e);
	carc_game_free(g);
	return -1;
}

/* Every client is told; each asks for the state it sees (its seat). */
static void announce_undone(srv_table *t, int undone)
{
	tables_broadcast(t, json_pack("{s:s, s:i, s:i, s:i, s:i}", "type", "undone", "turn",
	                              tables_turn(t), "step", tables_step(t), "undone", undone,
	                              "undos", t->undos));
	announce_table(t);
}

static void undo_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	t->undo_busy = 0;
	if (j->conflict) {
		box->undo_done(&o, t, 0, SE_STALE_TURN,
		               "another move was stored first; nothing was taken back");
		tables_sync(t);
		bot_kick(t);
		return;
	}
	if (j->failed) {
		char msg[256];
		storage_msg(msg, sizeof msg, j, "nothing was taken back");
		box->undo_done(&o, t, 0, SE_STORAGE, msg);
		bot_kick(t);
		return;
	}
	if (rebuild(t, j->undo_keep)) {
		/* the store has it: loading the table again brings memory there */
		t->undos = -1;
		tables_sync(t);
	} else {
		t->undos += j->undo_count;
		t->updated_ms = j->at_ms;
	}
	srv_event("table=%s event=undo moves=%d step=%d undos=%d", t->id, j->undo_count,
	          tables_step(t), t->undos);
	announce_undone(t, j->undo_count);
	box->undo_done(&o, t, j->undo_count, SE_OK, NULL);
	if (t->cl_stale)
		tables_sync(t);
	bot_kick(t);
}

srv_err undo_request(srv_table *t, const json_t *o, const char *token, const char *addr,
                     const srv_origin *origin, char *err, size_t errsize, int *wait_s)
{
	*wait_s = 0;
	const json_t *jt = json_object_get(o, "token"), *jm = json_object_get(o, "moves");
	if (jt && !json_is_string(jt)) {
		snprintf(err, errsize, "token must be a string");
		return SE_MALFORMED;
	}
	if (jt)
		token = json_string_value(jt);
	json_int_t k = 1;
	if (jm && (!json_is_integer(jm) || (k = json_integer_value(jm)) < 1 || k > UNDO_MAX_MOVES)) {
		snprintf(err, errsize, "moves must be an integer from 1 to %d (your own moves to take "
		         "back)", UNDO_MAX_MOVES);
		return SE_MALFORMED;
	}
	int seat;
	srv_err e = playing_seat(t, token, "taking moves back needs the seat's token",
	                         "the game has not started", &seat, err, errsize);
	if (e != SE_OK)
		return e;
	if (undo_seat(t, &e, err, errsize) != seat)
		return e == SE_NOT_TRAINING ? e : SE_NOT_TRAINING;
	if (t->pm || t->clock.busy || t->undo_busy) {
		snprintf(err, errsize, "a change at step %d is being stored: try again", tables_step(t));
		return SE_STALE_TURN;
	}
	/* the person's k-th latest decision (a step of any kind) */
	int keep = -1, seen = 0;
	for (int i = tables_step(t) - 1; i >= 0 && keep < 0; i--) {
		carc_step_info si;
		carc_step_played(t->game, i, &si);
		if (si.player == seat && ++seen == k)
			keep = i;
	}
	if (keep < 0) {
		snprintf(err, errsize, "seat %d has made %d moves: %d cannot be taken back", seat, seen,
		         (int)k);
		return SE_NOTHING_TO_UNDO;
	}
	int wait = lim_take(addr, LIM_UNDOS, err, errsize);
	if (!wait)
		wait = table_take(t, err, errsize);
	if (wait) {
		*wait_s = wait;
		return SE_RATE_LIMITED;
	}
	undo_stop_bot(t);
	wjob *j = job_for(t, WJ_UNDO, undo_done, origin);
	j->undo_have = t->nlog;
	j->undo_keep = keep;
	j->undo_count = (int)k;
	j->at_ms = srv_now_ms();
	t->undo_busy = 1;
	writer_submit(j);
	return SE_PENDING;
}

/* ---- another process took moves back ------------------------------------------------------- */

void undo_sync(srv_table *t)
{
	t->undo_reload = 0;
	int before = t->nlog, old = t->undos;
	undo_stop_bot(t);
	if (rebuild(t, 0))
		return;
	t->undo_reloading = 1;
	char err[STORE_ERR_SIZE];
	int rc = db->ops->load_one(db, t->id, tables_sync_game, t, err);
	t->undo_reloading = 0;
	if (rc < 0) {
		srv_error("table=%s loading it after moves were taken back elsewhere: %s", t->id, err);
		t->cl_stale = 1;
	}
	srv_event("table=%s event=undo_loaded step=%d was=%d undos=%d", t->id, tables_step(t), before,
	          t->undos);
	announce_undone(t, old >= 0 && t->undos > old ? t->undos - old : 0);
	bot_kick(t);
}
