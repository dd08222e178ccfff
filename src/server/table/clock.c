/*
 * clock.c - time controls, timeouts and seats given up (see clock.h).
 *
 * Invariants:
 *  - c->deadline_ms != 0 only while the game is being played, for step
 *    c->step, and seat c->seat (the one to decide it) is a person's (not a
 *    bot's, not forfeited);
 *    the timer is scheduled exactly then (c->scheduled).
 *  - What is stored (the clocks row) is written after every change, on
 *    the storage thread, in the order of the moves; a table without a
 *    clock and without a seat given up has no row (today's behaviour).
 *  - This module changes only t->clock and t->seat[].forfeited; moves go
 *    through tables.c (the clock_due_fn).
 *  - Several processes: every process works the clock out from the moves
 *    alone (a step starts at its previous step's stored time, not when a
 *    process heard of it), so they agree; only the process that owns the
 *    table's bots and time (cluster.c) stores the clock and acts on a
 *    deadline, and what it stores (a timeout) is what the others load
 *    (tables.c's sync). When that process dies, the next deadline check
 *    of another one takes the ownership over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cluster.h"
#include "tables.h"
#include "writer.h"

static struct lws_context *lctx;
static const srv_config *cfg;
static clock_due_fn on_due;
static int stopped;

void clock_setup(struct lws_context *ctx, const srv_config *c, clock_due_fn due)
{
	lctx = ctx;
	cfg = c;
	on_due = due;
	stopped = 0;
}

void clock_stop_all(void) { stopped = 1; }

static int timed(const srv_table *t) { return t->opts.clock.mode != OPT_CLOCK_NONE; }

void clock_init(srv_table *t)
{
	srv_clock *c = &t->clock;
	memset(c, 0, sizeof *c);
	c->step = c->turn = c->seat = c->timeout_step = c->ended_seat = -1;
	for (int i = 0; i < CARC_MAX_PLAYERS; i++)
		c->reserve_ms[i] = (int64_t)t->opts.clock.reserve_s * 1000;
}

void clock_cancel(srv_table *t)
{
	lws_sul_cancel(&t->clock.sul);
	t->clock.scheduled = 0;
}

/* ---- the stored state ----------------------------------------------------------- */

static char *state_text(const srv_table *t)
{
	const srv_clock *c = &t->clock;
	json_t *seats = json_array();
	for (int i = 0; i < t->nseats; i++)
		json_array_append_new(seats, json_pack("{s:I, s:i, s:i, s:i}", "reserve_ms",
		                                       (json_int_t)c->reserve_ms[i], "timeouts",
		                                       c->timeouts[i], "forfeited", t->seat[i].forfeited,
		                                       "resigned", c->resigned[i]));
	json_t *o = json_pack("{s:i, s:I, s:i, s:i, s:o}", "seat", c->seat, "turn_start_ms",
	                      (json_int_t)c->turn_start_ms, "timeout_step", c->timeout_step,
	                      "ended_seat", c->ended_seat, "seats", seats);
	if (c->no_show)
		json_object_set_new(o, "no_show", json_true());
	json_t *ended = clock_ended_json(t);
	if (ended)
		json_object_set_new(o, "ended", ended); /* the store's list reads $.ended */
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

static void fill_store(const srv_table *t, store_clock *out)
{
	out->step = t->clock.step;
	out->deadline_ms = t->clock.deadline_ms;
	out->state = state_text(t);
}

static void save_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
	if (j->failed) /* the next step writes the clock again; a restart gives a fresh step */
		srv_error("table=%s the clock was not stored: %s", t->id, j->err);
}

static void save(srv_table *t)
{
	if (!cluster_bots_mine(t->id))
		return; /* the owner of the table's time stores it */
	wjob *j = writer_job(WJ_CLOCK, t->id);
	j->done = save_done;
	j->tag = t;
	t->pending_ops++;
	fill_store(t, &j->clock);
	t->clock.stored = 1;
	writer_submit(j);
}

static int64_t jint(const json_t *o, const char *key, int64_t def)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) ? (int64_t)json_integer_value(v) : def;
}

void clock_restore(srv_table *t, const store_clock *sc, int64_t now_ms)
{
	srv_clock *c = &t->clock;
	if (!sc)
		return;
	json_t *o = json_loads(sc->state ? sc->state : "{}", 0, NULL);
	json_t *seats = json_object_get(o, "seats");
	for (int i = 0; i < t->nseats; i++) {
		json_t *s = json_array_get(seats, (size_t)i);
		int64_t r = jint(s, "reserve_ms", c->reserve_ms[i]);
		int64_t max = (int64_t)t->opts.clock.reserve_s * 1000;
		c->reserve_ms[i] = r < 0 ? 0 : r > max ? max : r;
		c->timeouts[i] = (int)jint(s, "timeouts", 0);
		c->resigned[i] = jint(s, "resigned", 0) != 0;
		t->seat[i].forfeited = jint(s, "forfeited", 0) != 0;
	}
	c->ended_seat = (int)jint(o, "ended_seat", -1);
	if (c->ended_seat >= t->nseats)
		c->ended_seat = -1;
	c->no_show = json_is_true(json_object_get(o, "no_show")) && c->ended_seat >= 0;
	c->stored = 1;
	if (sc->step == tables_step(t) && t->status == STORE_PLAYING) {
		/* the step being decided when the server stopped: its deadline holds */
		c->step = sc->step;
		c->turn = tables_turn(t);
		c->seat = (int)jint(o, "seat", -1);
		c->turn_start_ms = jint(o, "turn_start_ms", now_ms);
		/* a clock stored before schema 19 named it by its turn, the same
		 * number (a turn was one step) */
		c->timeout_step = (int)jint(o, "timeout_step", jint(o, "timeout_turn", -1));
		c->deadline_ms = sc->deadline_ms;
		if (c->seat != carc_to_move(t->game) || !timed(t) || t->seat[c->seat].forfeited) {
			c->deadline_ms = 0;
		} else if (c->deadline_ms && c->deadline_ms < now_ms + 1) {
			int64_t grace = (int64_t)cfg->clock_grace_s * 1000;
			srv_event("table=%s event=clock_grace step=%d seat=%d passed_ms=%lld grace_ms=%lld",
			          t->id, c->step, c->seat, (long long)(now_ms - c->deadline_ms),
			          (long long)grace);
			c->deadline_ms = now_ms + grace;
		}
	}
	/* else: the move after the stored clock was stored, its clock was not
	 * (the server stopped in between): clock_turn starts the step afresh */
	json_decref(o);
}

/* ---- the deadline ------------------------------------------------------------------ */

static void schedule(srv_table *t);

static void fire(lws_sorted_usec_list_t *sul)
{
	srv_clock *c = lws_container_of(sul, srv_clock, sul);
	srv_table *t = lws_container_of(c, srv_table, clock);
	c->scheduled = 0;
	if (stopped || !c->deadline_ms || t->status != STORE_PLAYING ||
	    carc_game_over(t->game) || c->step != tables_step(t))
		return;
	int64_t now = srv_now_ms();
	if (!t->pm && !c->busy && now >= c->deadline_ms && !cluster_bots_mine(t->id)) {
		/* another process owns the table's time: it plays the timeout and
		 * this one loads it; look again later in case that process died */
		lws_sul_schedule(lctx, 0, &c->sul, fire, (lws_usec_t)CLUSTER_POLL_MS * LWS_US_PER_MS);
		c->scheduled = 1;
		return;
	}
	if (t->pm || c->busy || now < c->deadline_ms) {
		/* a move arrived in time and is being stored (or the timer ran a
		 * little early): look again shortly */
		lws_sul_schedule(lctx, 0, &c->sul, fire, 20 * LWS_US_PER_MS);
		c->scheduled = 1;
		return;
	}
	int p = c->seat;
	if (t->opts.match[0] && t->seat[p].kind == STORE_SEAT_HUMAN && !clock_seat_moved(t, p)) {
		/* a quick match whose seat never came: void, not a move of the bot */
		srv_event("table=%s event=no_show step=%d seat=%d late_ms=%lld", t->id, c->step, p,
		          (long long)(now - c->deadline_ms));
		c->deadline_ms = 0;
		tables_void(t, p);
		return;
	}
	c->timeouts[p]++;
	c->reserve_ms[p] = 0;
	c->timeout_step = c->step;
	int64_t late = now - c->deadline_ms;
	c->deadline_ms = 0;
	srv_event("table=%s event=timeout step=%d seat=%d in_a_row=%d late_ms=%lld", t->id, c->step,
	          p, c->timeouts[p], (long long)late);
	if (c->timeouts[p] >= t->opts.clock.max_timeouts && !t->seat[p].forfeited) {
		t->seat[p].forfeited = 1;
		srv_event("table=%s event=takeover seat=%d level=%s after=%d timeouts", t->id, p,
		          t->opts.clock.takeover, c->timeouts[p]);
	}
	save(t);
	on_due(t);
}

static void schedule(srv_table *t)
{
	srv_clock *c = &t->clock;
	if (stopped || !c->deadline_ms)
		return;
	int64_t wait = c->deadline_ms - srv_now_ms();
	if (wait < 0)
		wait = 0;
	lws_sul_schedule(lctx, 0, &c->sul, fire, (lws_usec_t)wait * LWS_US_PER_MS);
	c->scheduled = 1;
}

void clock_turn(srv_table *t)
{
	srv_clock *c = &t->clock;
	if (t->status != STORE_PLAYING || t->pm)
		return;
	if (c->step == tables_step(t)) {
		if (c->deadline_ms && !c->scheduled)
			schedule(t); /* restored, or stopped timers */
		return;
	}
	clock_cancel(t);
	int over = carc_game_over(t->game);
	c->step = tables_step(t);
	c->turn = tables_turn(t);
	c->seat = over ? -1 : carc_to_move(t->game);
	c->turn_start_ms = c->next_start_ms ? c->next_start_ms : srv_now_ms();
	c->next_start_ms = 0;
	c->deadline_ms = 0;
	c->timeout_step = -1;
	if (!over && timed(t) && t->seat[c->seat].kind == STORE_SEAT_HUMAN &&
	    !t->seat[c->seat].forfeited) {
		c->deadline_ms = c->turn_start_ms + (int64_t)t->opts.clock.move_s * 1000 +
		                 c->reserve_ms[c->seat];
		/* a real-time quick match starts now: a seat's first move comes within
		 * --match-first-move seconds, or the table is void (fire) */
		int64_t first = (int64_t)cfg->match_first_move_s * 1000;
		if (t->opts.match[0] && t->opts.clock.mode == OPT_CLOCK_REALTIME && first > 0 &&
		    !clock_seat_moved(t, c->seat) && c->turn_start_ms + first < c->deadline_ms)
			c->deadline_ms = c->turn_start_ms + first;
	}
	if (timed(t) || c->stored)
		save(t);
	schedule(t);
}

void clock_moved(srv_table *t, int player, int64_t at_ms)
{
	srv_clock *c = &t->clock;
	clock_cancel(t);
	c->deadline_ms = 0; /* the step is decided (also when the game is over) */
	if (c->step == tables_step(t) - 1 && c->seat == player && c->timeout_step != c->step &&
	    t->seat[player].kind == STORE_SEAT_HUMAN && !t->seat[player].forfeited) {
		/* the player's own move: what it took past move_s comes off the reserve */
		int64_t used = at_ms - c->turn_start_ms - (int64_t)t->opts.clock.move_s * 1000;
		if (timed(t) && used > 0)
			c->reserve_ms[player] = used >= c->reserve_ms[player] ? 0
			                                                       : c->reserve_ms[player] - used;
		c->timeouts[player] = 0;
	}
	c->next_start_ms = at_ms;
	clock_turn(t);
}

void clock_takeover_seen(srv_table *t, int player)
{
	srv_clock *c = &t->clock;
	if (!timed(t) || c->step != tables_step(t) || c->seat != player ||
	    c->timeout_step == c->step || t->seat[player].kind != STORE_SEAT_HUMAN ||
	    t->seat[player].forfeited)
		return;
	c->timeouts[player]++;
	c->reserve_ms[player] = 0;
	c->timeout_step = c->step;
	if (c->timeouts[player] >= t->opts.clock.max_timeouts)
		t->seat[player].forfeited = 1;
}

/* ---- bots, resignations ---------------------------------------------------------------- */

int clock_bot_plays(const srv_table *t, int p)
{
	return t->seat[p].kind == STORE_SEAT_BOT || t->seat[p].forfeited ||
	       clock_timeout_move(t);
}

int clock_timeout_move(const srv_table *t)
{
	return t->clock.timeout_step >= 0 && t->clock.timeout_step == tables_step(t);
}

const char *clock_bot_spec(const srv_table *t, int p)
{
	return t->seat[p].kind == STORE_SEAT_BOT ? t->seat[p].spec : t->opts.clock.takeover_spec;
}

void clock_resign(srv_table *t, int seat, int ends, store_clock *out)
{
	srv_clock *c = &t->clock;
	c->undo_seat = c->seat;
	c->undo_deadline_ms = c->deadline_ms;
	c->resigned[seat] = 1;
	t->seat[seat].forfeited = 1;
	if (ends) {
		c->ended_seat = seat;
		c->deadline_ms = 0;
		c->seat = -1;
		clock_cancel(t);
	} else if (c->seat == seat && c->step == tables_step(t)) {
		c->deadline_ms = 0; /* the bot plays this move */
		clock_cancel(t);
	}
	c->busy = 1;
	c->stored = 1;
	fill_store(t, out);
}

int clock_seat_moved(const srv_table *t, int p)
{
	int n = carc_steps_played(t->game);
	carc_step_info st;
	for (int i = 0; i < n; i++)
		if (!carc_step_played(t->game, i, &st) && st.player == p)
			return 1;
	return 0;
}

void clock_no_show(srv_table *t, int seat, store_clock *out)
{
	srv_clock *c = &t->clock;
	c->undo_seat = c->seat;
	/* its deadline passed: should the write fail, it is tried again in a second */
	c->undo_deadline_ms = srv_now_ms() + 1000;
	c->ended_seat = seat;
	c->no_show = 1;
	c->deadline_ms = 0;
	c->seat = -1;
	clock_cancel(t);
	c->busy = 1;
	c->stored = 1;
	fill_store(t, out);
}

void clock_resign_undo(srv_table *t, int seat)
{
	srv_clock *c = &t->clock;
	c->resigned[seat] = 0;
	t->seat[seat].forfeited = 0;
	c->ended_seat = -1;
	c->no_show = 0;
	c->busy = 0;
	/* the step's deadline again, as it was */
	c->seat = c->undo_seat;
	c->deadline_ms = c->undo_deadline_ms;
	if (c->deadline_ms)
		schedule(t);
}

/* ---- what clients see ------------------------------------------------------------------ */

json_t *clock_ended_json(const srv_table *t)
{
	int s = t->clock.ended_seat;
	if (s < 0)
		return NULL;
	json_t *w = json_array();
	for (int i = 0; i < t->nseats && !t->clock.no_show; i++)
		if (i != s)
			json_array_append_new(w, json_integer(i));
	return json_pack("{s:s, s:i, s:o}", "reason", t->clock.no_show ? "no_show" : "resigned",
	                 "seat", s, "winners", w);
}

int64_t clock_deadline_ms(const srv_table *t) { return t->clock.deadline_ms; }

json_t *clock_json(const srv_table *t)
{
	const srv_clock *c = &t->clock;
	const srv_clock_opt *o = &t->opts.clock;
	json_t *j = json_pack("{s:s}", "mode", opt_clock_mode_name(o->mode));
	if (timed(t)) {
		json_object_set_new(j, "move_ms", json_integer((json_int_t)o->move_s * 1000));
		json_object_set_new(j, "reserve_ms", json_integer((json_int_t)o->reserve_s * 1000));
		json_object_set_new(j, "max_timeouts", json_integer(o->max_timeouts));
	}
	json_object_set_new(j, "takeover", json_string(o->takeover));
	json_object_set_new(j, "turn", json_integer(c->turn));
	json_object_set_new(j, "step", json_integer(c->step));
	json_object_set_new(j, "seat", c->deadline_ms ? json_integer(c->seat) : json_null());
	json_object_set_new(j, "turn_start_ms",
	                    c->deadline_ms ? json_integer(c->turn_start_ms) : json_null());
	json_object_set_new(j, "deadline_ms",
	                    c->deadline_ms ? json_integer(c->deadline_ms) : json_null());
	json_object_set_new(j, "server_ms", json_integer(srv_now_ms()));
	json_t *seats = json_array();
	for (int i = 0; i < t->nseats; i++)
		json_array_append_new(seats, json_pack("{s:I, s:i, s:b, s:b}", "reserve_ms",
		                                       (json_int_t)(timed(t) ? c->reserve_ms[i] : 0),
		                                       "timeouts", c->timeouts[i], "forfeited",
		                                       t->seat[i].forfeited, "resigned",
		                                       c->resigned[i]));
	json_object_set_new(j, "seats", seats);
	json_t *e = clock_ended_json(t);
	json_object_set_new(j, "ended", e ? e : json_null());
	return j;
}
