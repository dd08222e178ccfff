/*
 * moves.c - the moves and resignations (see tables.h): check the seat and
 * the turn, apply the move on a copy (apply_move), store it, and only in
 * move_done make it the table's game, announce it, run the ratings at the
 * end of a game (rate_hook) and answer. tables_resign ends a game or hands
 * the seat to a bot, the same way.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "move_json.h"
#include "tables_internal.h"

/* ---- moves ----------------------------------------------------------------------------------- */

/* A move (one step's decision) checked by the engine, waiting for the
 * storage thread. */
struct srv_pending_move {
	carc_game *next;  /* the game after the move */
	int player, step, turn, kind, tile, points, bot;
	carc_move m;
};

void pending_move_free(srv_pending_move *pm)
{
	if (pm)
		carc_game_free(pm->next);
	free(pm);
}

void move_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_pending_move *pm = t->pm;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	t->pm = NULL;
	if (j->conflict) {
		/* cluster hook: another process stored a move for this turn first */
		box->move_done(&o, t, SE_STALE_TURN,
		               "another move was accepted for this turn first; nothing of yours changed");
		pending_move_free(pm);
		tables_sync(t);
		return;
	}
	if (j->failed) {
		/* the details went to the log (writer_drain); the client learns why */
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the move was not stored and nothing changed");
		box->move_done(&o, t, SE_STORAGE, msg);
		if (pm->bot)
			bot_retry(t); /* try again after a pause (a full disk may clear) */
		pending_move_free(pm);
		return;
	}
	/* the new game is the table's now (the old one goes with pm) */
	carc_game *old = t->game;
	t->game = pm->next;
	pm->next = old;
	tables_log_push(t, (char *)j->move.entry); /* the entry is the table's now */
	j->move.entry = NULL;
	t->updated_ms = j->move.at_ms;
	int over = j->has_result;
	if (over)
		t->status = STORE_OVER;
	clock_moved(t, pm->player, j->move.at_ms);
	srv_event("table=%s event=move step=%d turn=%d kind=%s player=%d tile=%s move=%u scored=%d",
	          t->id, pm->step, pm->turn, carc_name(CARC_NAMES_STEP, pm->kind), pm->player,
	          carc_tile_name(pm->tile), (unsigned)pm->m, pm->points);
	pending_move_free(pm);
	metrics_move(1);
	announce_move(t, t->log[t->nlog - 1]);
	if (over) {
		srv_event("table=%s event=over scores=%s winners=%s", t->id, j->result.scores,
		          j->result.winners);
		announce_table(t);
	}
	box->move_done(&o, t, SE_OK, NULL);
	if (over)
		cluster_bots_release(t->id); /* cluster hook */
	if (t->cl_want > t->nlog || t->cl_stale)
		tables_sync(t); /* cluster hook: others moved while this move was stored */
	bot_kick(t);
}

/* ---- the takeover bot's moves ----------------------------------------------------------------- */

/* A human seat's move that the takeover bot made (a timeout, a seat given
 * up) carries "takeover": true as the last key of its log entry. The entry
 * is stored with the move, so the mark is what the table rebuilds from
 * the store (tables.c's load, sync.c) and what the ratings count: a seat's
 * own moves are its moves without the mark. */
#define TAKEOVER_KEY "\"takeover\":true"

int takeover_marked(const char *entry) { return entry && strstr(entry, TAKEOVER_KEY) != NULL; }

/* entry (malloc'd, a JSON object) with the mark added; entry is freed and
 * the caller owns the result. */
char *takeover_mark(char *entry)
{
	size_t n = strlen(entry);
	assert(n >= 2 && entry[n - 1] == '}');
	char *s = srv_xrealloc(entry, n + sizeof TAKEOVER_KEY + 1);
	snprintf(s + n - 1, sizeof TAKEOVER_KEY + 2, "," TAKEOVER_KEY "}");
	return s;
}

/* How the ratings see the game (ratings.h): the one function that both
 * the game's end (rate_hook) and the description of a finished table
 * (views.c, "rating") ask, so that the two never disagree. It reads only
 * what every process has and a restart rebuilds from the store: the
 * seats, the options, the clock's no-show mark and the log with its
 * takeover marks, with this server's --rated-min-moves and
 * --rate-custom-piles. The seats' own moves are counted from the log
 * (t->log against t->game, the marks above: O(log length)) and the move
 * being stored (`last`, NULL: none; `last_takeover`: its mark) into
 * own[]; g is the game whose scores count and `resigner` a seat whose
 * resignation ends it (-1: none; a forfeit). r is filled as
 * ratings_prepare fills it (unrated: nrated 0). */
rt_why rating_outcome(const srv_table *t, const carc_game *g, int resigner,
                      const store_move *last, int last_takeover, store_result *r,
                      int own[CARC_MAX_PLAYERS])
{
	int sc[CARC_MAX_PLAYERS];
	carc_game_scores(g, sc);
	for (int i = 0; i < CARC_MAX_PLAYERS; i++)
		own[i] = 0;
	for (int i = 0; i < t->nlog; i++) {
		carc_step_info si;
		if (!takeover_marked(t->log[i]) && !carc_step_played(t->game, i, &si))
			own[si.player]++;
	}
	if (last && !last_takeover)
		own[last->player]++;
	r->nrated = 0;
	r->rate = NULL;
	if (t->opts.tutorial)
		return RT_TUTORIAL; /* the guided first game: a lesson, whatever the pile */
	if (t->clock.no_show)
		return RT_NO_SHOW;  /* voided (tables_void): nobody won, nobody is rated */
	rt_seat rs[CARC_MAX_PLAYERS];
	for (int i = 0; i < t->nseats; i++)
		rs[i] = (rt_seat){t->seat[i].kind, t->seat[i].account, t->seat[i].spec, sc[i],
		                  t->seat[i].forfeited || i == resigner, own[i]};
	rt_thresholds est = {cfg->established_games, cfg->established_opponents};
	return ratings_prepare(r, rs, t->nseats, t->opts.rated,
	                       !t->opts.has_pile || cfg->rate_custom_piles, cfg->rated_min_moves,
	                       est);
}

/* Accounts: a finished game is rated in the transaction of its result
 * when rating_outcome says so: after its last move, or when a
 * resignation ends it (`resigner`, -1: none, counts as forfeited). */
static void rate_hook(const srv_table *t, const carc_game *g, int resigner, const store_move *last,
                      int last_takeover, store_result *r)
{
	int own[CARC_MAX_PLAYERS];
	rt_why why = rating_outcome(t, g, resigner, last, last_takeover, r, own);
	if (why == RT_TUTORIAL)
		srv_event("table=%s event=unrated why=tutorial", t->id);
	else if (why != RT_RATED && why != RT_GUEST && why != RT_NO_ACCOUNT)
		srv_event("table=%s event=unrated why=%s own_moves=%d,%d,%d,%d,%d,%d min=%d", t->id,
		          ratings_why_name(why), own[0], own[1], own[2], own[3], own[4], own[5],
		          cfg->rated_min_moves);
}

/* Checks m for the player to move with the engine and hands the move to the
 * storage thread; move_done announces it once it is stored. Returns
 * SE_PENDING, or an error with nothing changed. */
srv_err apply_move(srv_table *t, carc_move m, const srv_origin *o, int bot, char *err,
                   size_t errsize)
{
	if (t->pm) {
		snprintf(err, errsize, "a move for step %d is being stored", tables_step(t));
		return SE_STALE_TURN;
	}
	if (t->clock.busy) {
		snprintf(err, errsize, "a resignation is being stored");
		return SE_STALE_TURN;
	}
	if (t->undo_busy) {
		snprintf(err, errsize, "moves being taken back are being stored");
		return SE_STALE_TURN;
	}
	srv_pending_move *pm = srv_xcalloc(1, sizeof *pm);
	static carc_events ev; /* the loop thread's */
	char e[CARC_ERRMSG_SIZE];
	if (!(pm->next = carc_game_clone(t->game)))
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	carc_status st = carc_apply(pm->next, m, &ev, e);
	if (st != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		pending_move_free(pm);
		return st == CARC_ERR_GAME_OVER ? SE_GAME_OVER : SE_ILLEGAL;
	}
	/* the step just made, as the engine keeps it: its kind, who decided,
	 * its turn and the turn's tile (what the store keys and keeps) */
	carc_step_info si;
	pm->step = carc_steps_played(pm->next) - 1;
	carc_step_played(pm->next, pm->step, &si);
	int player = si.player;
	pm->tile = si.tile;
	pm->player = player;
	pm->turn = si.turn;
	pm->kind = si.kind;
	pm->m = m;
	pm->bot = bot;
	pm->points = 0;
	for (int i = 0; i < ev.n; i++)
		if (ev.ev[i].type == CARC_EV_SCORED && !ev.ev[i].final)
			pm->points += ev.ev[i].points[player];
	wjob *j = job_for(t, WJ_MOVE, move_done, o);
	int takeover = bot && t->seat[player].kind == STORE_SEAT_HUMAN;
	char *entry = gj_log_entry(pm->next, &ev);
	j->move = (store_move){.step = pm->step, .turn = si.turn, .kind = si.kind, .player = player,
	                       .move = m, .tile = pm->tile,
	                       .entry = takeover ? takeover_mark(entry) : entry,
	                       .at_ms = srv_now_ms(), .undos = t->undos};
	if (carc_game_over(pm->next)) {
		j->result.scores = gj_member(pm->next, "scores");
		j->result.by_kind = gj_member(pm->next, "by_kind");
		j->result.winners = gj_member(pm->next, "winners");
		j->result.at_ms = j->move.at_ms;
		j->has_result = 1;
		rate_hook(t, pm->next, -1, &j->move, takeover, &j->result);
	}
	t->pm = pm;
	writer_submit(j);
	return SE_PENDING;
}

/* tables_internal.h */
srv_err playing_seat(srv_table *t, const char *token, const char *no_token,
                            const char *not_started, int *seat, char *err, size_t errsize)
{
	if (t->status == STORE_VIEW) {
		snprintf(err, errsize, "this table shows an uploaded record; nobody plays here");
		return SE_READ_ONLY;
	}
	*seat = tables_seat_of(t, token);
	if (*seat < 0) {
		snprintf(err, errsize, "%s",
		         token && *token ? "this token holds no seat at this table" : no_token);
		return SE_BAD_TOKEN;
	}
	if (t->status == STORE_OPEN) {
		snprintf(err, errsize, "%s", not_started);
		return SE_NOT_STARTED;
	}
	if (t->status == STORE_OVER || carc_game_over(t->game)) {
		snprintf(err, errsize, "the game is over");
		return SE_GAME_OVER;
	}
	return SE_OK;
}

srv_err tables_move(srv_table *t, const char *token, const json_t *move, int turn, int step,
                    const srv_origin *o, char *err, size_t errsize)
{
	int seat;
	srv_err e = playing_seat(t, token, "a move needs the seat's token",
	                         "the game has not started: seats are still open", &seat, err, errsize);
	if (e != SE_OK)
		return e;
	/* a stale turn first: a client whose view is old (another process
	 * took the turn) hears that, not whose turn it is now */
	int now = tables_turn(t);
	if (turn >= 0 && turn != now) {
		snprintf(err, errsize, "the move is for turn %d but the game is at turn %d", turn, now);
		return SE_STALE_TURN;
	}
	if (step >= 0 && step != tables_step(t)) {
		snprintf(err, errsize, "the move is for step %d but the game is at step %d", step,
		         tables_step(t));
		return SE_STALE_TURN;
	}
	if (t->seat[seat].forfeited) {
		snprintf(err, errsize, "seat %d was given up: a bot plays it to the end", seat);
		return SE_FORFEITED;
	}
	int to_move = carc_to_move(t->game);
	if (seat != to_move) {
		snprintf(err, errsize, "seat %d is not to move: seat %d is", seat, to_move);
		return SE_NOT_YOUR_TURN;
	}
	carc_move m;
	carc_status st = mj_parse(t->game, move, &m, err, errsize);
	if (st != CARC_OK)
		return st == CARC_ERR_ILLEGAL ? SE_ILLEGAL
		       : st == CARC_ERR_GAME_OVER ? SE_GAME_OVER
		                                  : SE_MALFORMED;
	return apply_move(t, m, o, 0, err, errsize);
}

/* ---- resigning ------------------------------------------------------------------------------ */

static void resign_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	int seat = j->seatno;
	t->clock.busy = 0;
	if (j->failed) {
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the resignation was not stored and nothing changed");
		clock_resign_undo(t, seat);
		box->resign_done(&o, t, seat, SE_STORAGE, msg);
		bot_kick(t);
		return;
	}
	if (j->has_result) {
		t->status = STORE_OVER;
		t->updated_ms = j->result.at_ms;
		srv_event("table=%s event=over resigned=%d scores=%s winners=%s", t->id, seat,
		          j->result.scores, j->result.winners);
	} else {
		srv_event("table=%s event=resigned seat=%d level=%s", t->id, seat,
		          t->opts.clock.takeover);
	}
	announce_table(t);
	box->resign_done(&o, t, seat, SE_OK, NULL);
	bot_kick(t); /* the bot takes the seat's move when it is the seat's turn */
}

srv_err tables_resign(srv_table *t, const char *token, const srv_origin *o, char *err,
                      size_t errsize)
{
	int seat;
	srv_err e = playing_seat(t, token, "resigning needs the seat's token",
	                         "the game has not started: leave the table instead", &seat, err,
	                         errsize);
	if (e != SE_OK)
		return e;
	if (t->seat[seat].forfeited) {
		snprintf(err, errsize, "seat %d was already given up", seat);
		return SE_FORFEITED;
	}
	if (t->pm || t->clock.busy || t->undo_busy) {
		snprintf(err, errsize, "a move for step %d is being stored: try again", tables_step(t));
		return SE_STALE_TURN;
	}
	int ends = t->nseats == 2;
	wjob *j = job_for(t, WJ_CLOCK, resign_done, o);
	j->seatno = seat;
	clock_resign(t, seat, ends, &j->clock);
	if (ends) {
		/* the game ends here: the scores as they stand, the other seat wins */
		srv_sb a;
		j->result.scores = gj_member(t->game, "scores");
		j->result.by_kind = gj_member(t->game, "by_kind");
		sb_init(&a);
		sb_printf(&a, "[%d]", 1 - seat);
		j->result.winners = sb_take(&a);
		j->result.at_ms = srv_now_ms();
		j->has_result = 1;
		rate_hook(t, t->game, seat, NULL, 0, &j->result);
	}
	writer_submit(j);
	return SE_PENDING;
}

/* ---- a quick match voided by a no-show ---------------------------------------------------- */

static void void_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
	int seat = j->seatno;
	t->clock.busy = 0;
	if (j->failed) {
		/* nothing changed; the clock tries again in a second */
		srv_error("table=%s the void was not stored: %s", t->id, j->err);
		clock_resign_undo(t, seat);
		return;
	}
	t->status = STORE_OVER;
	t->updated_ms = j->result.at_ms;
	srv_event("table=%s event=void no_show=%d account=%lld came=%d", t->id, seat,
	          (long long)t->seat[seat].account, j->result.mvoid ? j->result.mvoid->nshown : 0);
	announce_table(t);
	cluster_bots_release(t->id); /* cluster hook: over, nobody plays it */
}

void tables_void(srv_table *t, int seat)
{
	wjob *j = job_for(t, WJ_CLOCK, void_done, NULL);
	j->seatno = seat;
	clock_no_show(t, seat, &j->clock);
	/* over with the scores as they stand, nobody wins, nobody is rated */
	j->result.scores = gj_member(t->game, "scores");
	j->result.by_kind = gj_member(t->game, "by_kind");
	j->result.winners = srv_xstrdup("[]");
	j->result.at_ms = srv_now_ms();
	j->has_result = 1;
	/* the no-show is held out, the others go back to their place */
	store_match_void *v = srv_xcalloc(1, sizeof *v);
	snprintf(v->table, sizeof v->table, "%s", t->id);
	v->no_show = t->seat[seat].account;
	v->hold_ms = (int64_t)cfg->match_hold_s * 1000;
	v->hold_max_ms = (int64_t)cfg->match_hold_max_s * 1000;
	v->front_ms = t->created_ms;
	for (int i = 0; i < t->nseats; i++)
		if (i != seat && t->seat[i].kind == STORE_SEAT_HUMAN && t->seat[i].account &&
		    v->nshown < STORE_MAX_RATED)
			v->shown[v->nshown++] = t->seat[i].account;
	j->result.mvoid = v;
	writer_submit(j);
}
