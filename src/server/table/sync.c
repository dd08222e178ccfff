/*
 * sync.c - several processes on one database (cluster.c): the hooks
 * through which the cluster tells the tables what other processes changed
 * (cl_changed, cl_bots_waiting, cl_claimed), and bringing a table in
 * memory up to what the store holds (tables_sync, sync_game).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"

/* ---- several processes (cluster.c) ------------------------------------------------------
 *
 * Another process changed a table (a move, a seat, the status) and
 * committed it; the store has it. A table with clients here, or whose bots
 * this process plays, loads what is new at once: its moves are applied and
 * announced as if made here, its seats and status taken over. Any other
 * table is only marked (cl_stale) and loads when it is next asked for. A
 * table with a move of its own being stored loads once that is done. */

static int sync_game(void *ctx, const store_game *sg, const store_move *mv, int n)
{
	srv_table *t = ctx;
	int changed = 0;
	char e[CARC_ERRMSG_SIZE];
	if (t->status == STORE_VIEW)
		return 0;
	for (int i = 0; i < sg->nseats; i++) {
		const store_seat *ss = &sg->seats[i];
		if (ss->seat < 0 || ss->seat >= t->nseats)
			continue;
		srv_seat *se = &t->seat[ss->seat];
		if (se->pending || (se->kind == ss->kind && !strcmp(se->token_hash, ss->token_hash) &&
		                    !strcmp(se->name, ss->name)))
			continue;
		se->kind = ss->kind;
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
	/* mv: every move (load_one) or those from t->nlog on (load_since) */
	for (int k = 0; k < n; k++) {
		int i = t->nlog;
		if (mv[k].turn < i)
			continue;
		carc_game *before = &before_scratch;
		if (mv[k].turn != i || (mv[k].tile >= 0 && carc_current_tile(&t->game) != mv[k].tile &&
		                        carc_set_current_tile(&t->game, mv[k].tile) != CARC_OK)) {
			srv_error("table=%s turn %d from the store does not follow (numbered %d)", t->id, i,
			          mv[k].turn);
			break;
		}
		carc_events ev;
		carc_game_copy(before, &t->game);
		if (carc_apply(&t->game, mv[k].move, &ev, e) != CARC_OK) {
			carc_game_copy(&t->game, before);
			srv_error("table=%s turn %d from the store: %s", t->id, i, e);
			break;
		}
		t->log[t->nlog++] = gj_log_entry(before, &t->game, i, &ev);
		metrics_move(0);
		announce_move(t, t->log[t->nlog - 1]);
	}
	if (t->status == STORE_PLAYING && carc_game_over(&t->game)) {
		t->status = STORE_OVER;
		changed = 1;
	}
	if (t->status == STORE_OPEN && table_full(t))
		start_if_full(t); /* the last seat was taken elsewhere: the game starts */
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
	int rc = db->ops->load_since ? db->ops->load_since(db, t->id, t->nlog, sync_game, t, err)
	                             : db->ops->load_one(db, t->id, sync_game, t, err);
	metrics_store_read(srv_mono_us() - t0);
	if (rc < 0) {
		srv_error("table=%s loading the changes of another process: %s", t->id, err);
		t->cl_stale = 1;
		return;
	}
	bot_kick(t);
}

static void cl_changed(char kind, const char *id, int n)
{
	if (kind == '*') {
		/* notifications may have been missed: tables with clients or bots
		 * here load now, the others when asked for */
		for (srv_table *t = all_head; t; t = t->next)
			t->cl_stale = 1;
		for (srv_table *t = all_head; t; t = t->next)
			if (t->conns || t->bot_state || t->status == STORE_PLAYING)
				tables_sync(t);
		return;
	}
	srv_table *t = lookup(id);
	if (kind == STORE_NOTIFY_CREATED) {
		/* the lobby of every process lists it; an uploaded record is
		 * loaded where it is asked for, as at a start */
		if (!t && n != STORE_VIEW)
			tables_find(id);
		return;
	}
	if (!t || t->expired)
		return;
	if (kind == STORE_NOTIFY_MOVE) {
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
	/* a bot to move, or a stale table with a bot (its turn may have come) */
	for (srv_table *t = all_head; t && n < max; t = t->next)
		if (t->status == STORE_PLAYING && !t->expired && !t->bot_state && !t->pm &&
		    !carc_game_over(&t->game) &&
		    (t->seat[carc_to_move(&t->game)].kind == STORE_SEAT_BOT ||
		     (t->cl_stale && has_bot(t))))
			memcpy(ids[n++], t->id, STORE_ID_SIZE);
	return n;
}

static void cl_claimed(const char *id)
{
	srv_table *t = lookup(id);
	if (t)
		tables_sync(t); /* what its last player did, then its bot moves */
}

void tables_cluster_hooks(struct cluster_hooks *h)
{
	h->changed = cl_changed;
	h->bots_waiting = cl_bots_waiting;
	h->claimed = cl_claimed;
}
