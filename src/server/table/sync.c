/*
 * sync.c - several processes on one database (cluster.c): the hooks
 * through which the cluster tells the tables what other processes changed
 * (cl_changed, cl_bots_waiting, cl_claimed: tables are loaded where they
 * are asked for, and a game with bots or a clock that is in nobody's
 * memory is found in the store by the poll), and bringing a table in
 * memory up to what the store holds (tables_sync, sync_game).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"
#include "undo.h"
#include "windows.h"

/* ---- several processes (cluster.c) ------------------------------------------------------
 *
 * Another process changed a table (a move, a seat, the status) and
 * committed it; the store has it. A table with clients here, or whose bots
 * this process plays, loads what is new at once: its moves are applied and
 * announced as if made here, its seats and status taken over. Any other
 * table is only marked (cl_stale) and loads when it is next asked for. A
 * table with a move of its own being stored loads once that is done. */

/* Seats (a bit each) whose token the store replaced: a password change, a
 * recovery or a deletion of their account (recovery.c). Every connection
 * that held one of them did it with the old token: it holds it no more. */
static void seats_revoked(srv_table *t, unsigned mask)
{
	for (srv_client *c = t->conns; c; c = c->tnext)
		if (c->seat >= 0 && c->seat < CARC_MAX_PLAYERS && (mask >> c->seat & 1u)) {
			c->seat = -1;
			box->seat_revoked(c);
		}
}

int tables_sync_game(void *ctx, const store_game *sg, const store_move *mv, int n)
{
	srv_table *t = ctx;
	int changed = 0;
	unsigned revoked = 0;
	char e[CARC_ERRMSG_SIZE];
	if (t->status == STORE_VIEW)
		return 0;
	if (t->undo_reloading) {
		t->undos = sg->undos;
	} else if (sg->undos != t->undos) {
		/* moves were taken back elsewhere (undo.c): the moves here are not
		 * the store's any more; tables_sync loads it all again */
		t->undo_reload = 1;
		return 0;
	}
	for (int i = 0; i < sg->nseats; i++) {
		const store_seat *ss = &sg->seats[i];
		if (ss->seat < 0 || ss->seat >= t->nseats)
			continue;
		srv_seat *se = &t->seat[ss->seat];
		if (se->pending || (se->kind == ss->kind && !strcmp(se->token_hash, ss->token_hash) &&
		                    !strcmp(se->name, ss->name) && se->account == ss->account))
			continue;
		/* a human seat's token changes only when its account's does (no
		 * connection holds an open or a reserved seat) */
		if (se->kind == STORE_SEAT_HUMAN && strcmp(se->token_hash, ss->token_hash))
			revoked |= 1u << ss->seat;
		se->kind = ss->kind;
		/* a seat taken by an account elsewhere follows it here; 0 once the
		 * account is deleted (recovery.c) */
		se->account = ss->account;
		memcpy(se->name, ss->name, sizeof se->name);
		memcpy(se->level, ss->level, sizeof se->level);
		memcpy(se->spec, ss->spec, sizeof se->spec);
		memcpy(se->token_hash, ss->token_hash, sizeof se->token_hash);
		if (se->kind == STORE_SEAT_BOT)
			bot_spec_loaded(t, ss->seat);
		changed = 1;
	}
	if (sg->status > t->status && sg->status != STORE_VIEW) {
		t->status = sg->status;
		changed = 1;
	}
	t->updated_ms = sg->updated_ms > t->updated_ms ? sg->updated_ms : t->updated_ms;
	if (sg->seq > t->seq)
		t->seq = sg->seq;
	/* the stored clock, in the same snapshot: what the process that owns
	 * the table's time wrote (a timeout, a reserve, a deadline) wins over
	 * what was worked out here. A clock of the step being decided here is
	 * taken before the new moves (a timeout is then a timeout when its
	 * move is applied); one of a later step after them. */
	store_clock sc;
	char *cstate = NULL;
	int step0 = tables_step(t);
	int crc = db->ops->load_clock(db, t->id, &sc, &cstate, e);
	if (crc < 0)
		srv_error("table=%s loading its clock: %s", t->id, e);
	else if (crc == 1 && sc.step == step0 && sc.step >= t->clock.step) {
		clock_cancel(t);
		clock_restore(t, &sc, srv_now_ms());
		changed = 1;
	}
	/* mv: every move (load_one) or those from t->nlog on (load_since);
	 * each is applied with the clock after it (clock_moved counts from
	 * the move's stored time, so every process reaches the same clock)
	 * and announced with that clock */
	for (int k = 0; k < n; k++) {
		int i = t->nlog;
		if (mv[k].step < i)
			continue;
		if (mv[k].step != i) {
			srv_error("table=%s step %d from the store does not follow (numbered %d)", t->id, i,
			          mv[k].step);
			break;
		}
		if (takeover_marked(mv[k].entry))
			clock_takeover_seen(t, mv[k].player); /* a timeout played elsewhere */
		static carc_events ev; /* the loop thread's */
		carc_game *before = carc_game_clone(t->game);
		if (!before)
			srv_xmalloc((size_t)-1); /* the one OOM policy */
		if (table_play(t, mv[k].kind, mv[k].player, mv[k].tile, mv[k].move, &ev, e)) {
			carc_game_copy(t->game, before);
			carc_game_free(before);
			srv_error("table=%s step %d from the store: %s", t->id, i, e);
			break;
		}
		carc_game_free(before);
		tables_log_push(t, gj_log_entry(t->game, &ev));
		if (takeover_marked(mv[k].entry)) /* the takeover bot's move (moves.c) */
			t->log[t->nlog - 1] = takeover_mark(t->log[t->nlog - 1]);
		metrics_move(0);
		if (t->status == STORE_PLAYING && carc_game_over(t->game)) {
			t->status = STORE_OVER;
			changed = 1;
		}
		clock_moved(t, mv[k].player, mv[k].at_ms);
		if (!t->undo_reloading) /* undo.c tells the clients once it is loaded */
			announce_move(t, t->log[t->nlog - 1]);
	}
	/* the stored clock of the step now being decided (the owner wrote it
	 * after the last move) */
	if (crc == 1 && sc.step == tables_step(t) && sc.step != step0) {
		clock_cancel(t);
		clock_restore(t, &sc, srv_now_ms());
		changed = 1;
	}
	free(cstate);
	if (t->status == STORE_PLAYING && carc_game_over(t->game)) {
		t->status = STORE_OVER;
		changed = 1;
	}
	if (t->status == STORE_OPEN && table_full(t))
		start_if_full(t); /* the last seat was taken elsewhere: the game starts */
	if (revoked)
		seats_revoked(t, revoked);
	if (changed)
		announce_table(t);
	if (t->status == STORE_OVER)
		cluster_bots_release(t->id);
	return 0;
}

void tables_sync(srv_table *t)
{
	if (t->pm) {
		t->cl_stale = 1; /* after the move being stored (move_done) */
		return;
	}
	t->cl_stale = 0;
	char err[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int rc = db->ops->load_since ? db->ops->load_since(db, t->id, t->nlog, tables_sync_game, t, err)
	                             : db->ops->load_one(db, t->id, tables_sync_game, t, err);
	metrics_store_read(srv_mono_us() - t0);
	if (rc < 0) {
		srv_error("table=%s loading the changes of another process: %s", t->id, err);
		t->cl_stale = 1;
		return;
	}
	if (t->undo_reload)
		undo_sync(t);
	/* chat lines and a rematch are read after the snapshot: lines are
	 * only ever added, and a rematch link never goes away */
	if (t->conns)
		chat_catch_up(t);
	if (t->status == STORE_OVER && chat_rematch_refresh(t))
		announce_table(t);
	bot_kick(t);
}

void tables_refresh(const char *id)
{
	srv_table *t = lookup(id);
	if (t && !t->expired)
		tables_sync(t);
}

static void sync_timer(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, sync_sul);
	if (!timers_stopped && t->cl_stale)
		tables_sync(t);
}

void tables_seq_written(srv_table *t, int64_t seq)
{
	if (seq <= t->seq)
		return; /* a load got there first */
	if (seq == t->seq + 1 || !cluster_on()) {
		t->seq = seq;
		return;
	}
	t->cl_stale = 1;
	if (!timers_stopped)
		lws_sul_schedule(lctx, 0, &t->sync_sul, sync_timer, 1);
}

/* writer.c's hook: every committed write of a table, before its done */
void tables_job_committed(wjob *j)
{
	if (j->failed || !j->seq || !j->tag)
		return;
	switch (j->kind) {
	case WJ_CREATE: case WJ_SEAT: case WJ_STATUS: case WJ_MOVE: case WJ_CLOCK: case WJ_CHAT:
	case WJ_REMATCH: case WJ_UNDO:
		tables_seq_written(j->tag, j->seq);
		break;
	default:
		break;
	}
}

static void cl_changed(char kind, const char *id, int n, int64_t seq)
{
	if (kind == '*') {
		/* notifications may have been missed: tables with clients or bots
		 * here load now, the others when asked for */
		for (srv_table *t = all_head; t; t = t->next) {
			t->cl_stale = 1;
			windows_forget(t);
		}
		for (srv_table *t = all_head; t; t = t->next)
			if (t->conns || t->bot_state || t->status == STORE_PLAYING)
				tables_sync(t);
		return;
	}
	srv_table *t = lookup(id);
	if (kind == STORE_NOTIFY_CREATED)
		return; /* the lobby lists it from the store; it loads where it is asked for */
	if (kind == STORE_NOTIFY_DELETED || (kind == STORE_NOTIFY_STATUS && n != STORE_OPEN))
		open_forget(id); /* started or removed elsewhere: no longer open */
	if (!t || t->expired)
		return;
	if (kind == STORE_NOTIFY_WINDOW) {
		windows_heard(t, n); /* not a change of the game: no sequence number */
		return;
	}
	if (seq > 0) {
		/* the stream: a change applied here already is no news; any later
		 * one is loaded with everything before it */
		if (seq <= t->seq || kind == STORE_NOTIFY_DELETED)
			return;
		if (kind == STORE_NOTIFY_CHAT)
			chat_heard_of(t, n);
		if (kind == STORE_NOTIFY_MOVE && n + 1 > t->cl_want)
			t->cl_want = n + 1;
		if (kind == STORE_NOTIFY_UNDO && n >= 0 && t->cl_want > n)
			t->cl_want = n;
	} else if (kind == STORE_NOTIFY_MOVE) {
		if (n < t->nlog)
			return; /* known here (this process's own move) */
		if (n + 1 > t->cl_want)
			t->cl_want = n + 1;
	} else if (kind == STORE_NOTIFY_SEAT) {
		if (n < 0 || n >= t->nseats || t->seat[n].pending || t->seat[n].kind != STORE_SEAT_OPEN)
			return;
	} else if (kind == STORE_NOTIFY_STATUS) {
		if (n <= t->status)
			return;
	} else {
		return;
	}
	/* the bots played here must hear of their turn now (whose turn it is
	 * shows only once the new moves are in) */
	if (t->conns || t->pm || cluster_bots_have(t->id))
		tables_sync(t);
	else
		t->cl_stale = 1;
}

/* games of the store looked at by one poll (cl_bots_waiting) */
#define UNOWNED_PAGE 256

static int has_bot(const srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_BOT)
			return 1;
	return 0;
}

static int cl_bots_waiting(char (*ids)[STORE_ID_SIZE], int max)
{
	int n = 0;
	/* a bot to move (or a timeout's, a forfeited seat's), or a stale table
	 * with a bot (its turn may have come) */
	for (srv_table *t = all_head; t && n < max; t = t->next)
		if (t->status == STORE_PLAYING && !t->expired && !t->bot_state && !t->pm &&
		    !carc_game_over(t->game) && (clock_bot_plays(t, carc_to_move(t->game)) ||
		     (t->cl_stale && has_bot(t))))
			memcpy(ids[n++], t->id, STORE_ID_SIZE);
	/* the games with bots or clocks in nobody's memory (their process
	 * died): a page of the store's at every poll, on from where the last
	 * one stopped, so every such game is tried within a few polls; those
	 * in memory here were looked at above */
	static char page[UNOWNED_PAGE][STORE_ID_SIZE];
	static char after[STORE_ID_SIZE];
	int want = max - n < UNOWNED_PAGE ? max - n : UNOWNED_PAGE;
	if (want <= 0)
		return n;
	char err[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int got = db->ops->list_unowned(db, after, want, page, err);
	metrics_store_read(srv_mono_us() - t0);
	if (got < 0) {
		srv_error("looking for games with bots or clocks: %s", err);
		return n;
	}
	if (got < want)
		after[0] = 0; /* the end: from the first again */
	else
		memcpy(after, page[got - 1], sizeof after);
	for (int i = 0; i < got && n < max; i++)
		if (!lookup(page[i]) && !cluster_bots_have(page[i]))
			memcpy(ids[n++], page[i], STORE_ID_SIZE);
	return n;
}

static int cl_claimed(const char *id)
{
	srv_table *t = lookup(id);
	if (t) {
		tables_sync(t); /* what its last player did, then its bot moves */
		return t->nlog > 0;
	}
	/* a game nobody had in memory: it is loaded (its latest state) and
	 * its bots or clock go on here */
	t = tables_find(id);
	if (!t || !tables_needs_owner(t)) {
		cluster_bots_release(id);
		return 0;
	}
	return t->nlog > 0;
}

/* Every bot lock was lost: a bot pausing before its move stops (one
 * thinking is dropped when done, tables_bots_drain); the poll takes the
 * locks again. */
static void cl_lost_all(void)
{
	for (srv_table *t = all_head; t; t = t->next)
		if (t->bot_state == 1) {
			lws_sul_cancel(&t->bot_sul);
			t->bot_state = 0;
		}
}

void tables_cluster_hooks(struct cluster_hooks *h)
{
	h->changed = cl_changed;
	h->bots_waiting = cl_bots_waiting;
	h->claimed = cl_claimed;
	h->lost_all = cl_lost_all;
}
