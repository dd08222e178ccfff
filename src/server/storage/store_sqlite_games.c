/*
 * store_sqlite_games.c - the games of the SQLite store (store_sqlite.c):
 * writing games, seats, moves, results and ratings rows; loading games
 * and listing them; clocks; deleting a game; the uploads' totals. Every
 * write is one transaction of store_sqlite.c's helpers (sq_begin,
 * sq_commit, sq_rollback), which check the file before the commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_sqlite_int.h"
#include "store_sql.h"

static const char *const STATUS_NAMES[STORE_STATUS_COUNT] = {"open", "playing", "over", "view"};
static const char *const SEAT_KINDS[] = {"open", "human", "bot"};

static int parse_status(const char *t)
{
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		if (t && !strcmp(t, STATUS_NAMES[i]))
			return i;
	return -1;
}

const char *store_status_name(int status)
{
	return status >= 0 && status < STORE_STATUS_COUNT ? STATUS_NAMES[status] : "?";
}

/* Inserts game g with its seats inside the open transaction: 0 or -1. */
int sq_insert_game(sqlite_store *s, const store_game *g, char *err)
{
	sqlite3_stmt *st = s->st[ST_INS_GAME];
	sq_bind_text(st, 1, g->id);
	sq_bind_text(st, 2, store_status_name(g->status));
	sqlite3_bind_int(st, 3, g->players);
	sqlite3_bind_int(st, 4, g->farmers);
	sq_bind_text(st, 5, g->farm_scoring);
	sqlite3_bind_int(st, 6, g->small_city);
	sq_bind_text(st, 7, g->expansions ? g->expansions : "[]");
	sqlite3_bind_int64(st, 8, (sqlite3_int64)g->seed);
	sq_bind_text(st, 9, g->options ? g->options : "{}");
	if (g->record)
		sq_bind_text(st, 10, g->record);
	else
		sqlite3_bind_null(st, 10);
	sqlite3_bind_int64(st, 11, g->created_ms);
	sqlite3_bind_int64(st, 12, g->updated_ms);
	if (sq_step_done(s, ST_INS_GAME, err))
		return -1;
	for (int i = 0; i < g->nseats; i++) {
		const store_seat *se = &g->seats[i];
		st = s->st[ST_INS_SEAT];
		sq_bind_text(st, 1, g->id);
		sqlite3_bind_int(st, 2, se->seat);
		sq_bind_text(st, 3, SEAT_KINDS[se->kind]);
		sq_bind_text(st, 4, se->name);
		sq_bind_text(st, 5, se->level);
		sq_bind_text(st, 6, se->spec);
		sq_bind_text(st, 7, se->token_hash);
		sq_bind_text(st, 8, se->colour);
		sqlite3_bind_int64(st, 9, se->account);
		if (sq_step_done(s, ST_INS_SEAT, err))
			return -1;
	}
	return 0;
}

int sq_create_game(store *base, const store_game *g, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	if (sq_insert_game(s, g, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_update_seat(store *base, const char *id, const store_seat *se, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_UPD_SEAT];
	sq_bind_text(st, 1, SEAT_KINDS[se->kind]);
	sq_bind_text(st, 2, se->name);
	sq_bind_text(st, 3, se->level);
	sq_bind_text(st, 4, se->spec);
	sq_bind_text(st, 5, se->token_hash);
	sq_bind_text(st, 6, se->colour);
	sqlite3_bind_int64(st, 7, se->account);
	sq_bind_text(st, 8, id);
	sqlite3_bind_int(st, 9, se->seat);
	if (sq_step_done(s, ST_UPD_SEAT, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_set_status(store *base, const char *id, int status, int64_t at_ms, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_SET_STATUS];
	sq_bind_text(st, 1, store_status_name(status));
	sqlite3_bind_int64(st, 2, at_ms);
	sq_bind_text(st, 3, id);
	if (sq_step_done(s, ST_SET_STATUS, err)) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

/* Inside a write's transaction: game `id` is over at at_ms with result r,
 * rated in the same transaction when r says so. 0, or -1 (the caller rolls
 * back). */
static int write_result(sqlite_store *s, const char *id, int64_t at_ms, const store_result *r,
                        char *err)
{
	sqlite3_stmt *st = s->st[ST_TOUCH];
	sq_bind_text(st, 1, store_status_name(STORE_OVER));
	sqlite3_bind_int64(st, 2, at_ms);
	sq_bind_text(st, 3, id);
	if (sq_step_done(s, ST_TOUCH, err))
		return -1;
	st = s->st[ST_INS_RESULT];
	sq_bind_text(st, 1, id);
	sq_bind_text(st, 2, r->scores);
	sq_bind_text(st, 3, r->by_kind);
	sq_bind_text(st, 4, r->winners);
	sqlite3_bind_int64(st, 5, r->at_ms);
	if (sq_step_done(s, ST_INS_RESULT, err))
		return -1;
	if (r->mvoid && store_match_void_write(&s->base, r->mvoid, r->at_ms, err))
		return -1;
	return r->nrated > 0 ? store_rate_game(&s->base, id, r, err) : 0;
}

int sq_add_move(store *base, const char *id, const store_move *m,
                const store_result *r, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_INS_MOVE];
	const char *kind = carc_name(CARC_NAMES_STEP, m->kind);
	if (!kind) {
		snprintf(err, STORE_ERR_SIZE, "step %d of table %s is of no kind the engine names (%d)",
		         m->step, id, m->kind);
		s->fault = STORE_FAULT_OTHER;
		goto bad;
	}
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, m->step);
	sqlite3_bind_int(st, 3, m->turn);
	sq_bind_text(st, 4, kind);
	sqlite3_bind_int(st, 5, m->player);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)m->move);
	sq_bind_text(st, 7, carc_tile_name(m->tile));
	sq_bind_text(st, 8, m->entry);
	sqlite3_bind_int64(st, 9, m->at_ms);
	if (sq_step_done(s, ST_INS_MOVE, err))
		goto bad;
	if (r) {
		/* the game's row changes only when the game ends: a move writes one
		 * row, so a commit is about one page of WAL */
		if (write_result(s, id, m->at_ms, r, err))
			goto bad;
	}
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

/* undo.c: the moves from step `keep` on are taken back (store.h). */
int sq_undo_moves(store *base, const char *id, int have, int keep, int undone, int64_t at_ms,
                  char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_COUNT_MOVES];
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st);
	int n = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (n < 0) {
		sq_fail(s, err, "counting the moves to take back");
		goto bad;
	}
	if (n != have) {
		snprintf(err, STORE_ERR_SIZE, "table %s holds %d moves, not %d: nothing taken back", id,
		         n, have);
		sq_rollback(s);
		return STORE_CONFLICT;
	}
	st = s->st[ST_DEL_MOVES];
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, keep);
	if (sq_step_done(s, ST_DEL_MOVES, err))
		goto bad;
	st = s->st[ST_UNDO_GAME];
	sqlite3_bind_int(st, 1, undone);
	sqlite3_bind_int64(st, 2, at_ms);
	sq_bind_text(st, 3, id);
	if (sq_step_done(s, ST_UNDO_GAME, err))
		goto bad;
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

void sq_copy_col(char *dst, size_t size, sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

char *sq_dup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	if (!t)
		return NULL;
	size_t n = strlen((const char *)t);
	char *d = malloc(n + 1);
	if (d)
		memcpy(d, t, n + 1);
	return d;
}

void sq_free_game(store_game *g)
{
	free(g->expansions);
	free(g->options);
	free(g->record);
}

/* Reads the game in the current row of `gst` (the columns of ST_SEL_ONE)
 * and its seats into *g; the caller frees it with sq_free_game, also after
 * an error. Returns 0, or -1 on a database error. */
int sq_read_game(sqlite_store *s, sqlite3_stmt *gst, store_game *g, char *err)
{
	memset(g, 0, sizeof *g);
	sq_copy_col(g->id, sizeof g->id, gst, 0);
	g->status = parse_status((const char *)sqlite3_column_text(gst, 1));
	g->players = sqlite3_column_int(gst, 2);
	g->farmers = sqlite3_column_int(gst, 3);
	sq_copy_col(g->farm_scoring, sizeof g->farm_scoring, gst, 4);
	g->small_city = sqlite3_column_int(gst, 5);
	g->expansions = sq_dup_col(gst, 6);
	g->seed = (uint64_t)sqlite3_column_int64(gst, 7);
	g->options = sq_dup_col(gst, 8);
	g->record = sq_dup_col(gst, 9);
	g->created_ms = sqlite3_column_int64(gst, 10);
	g->updated_ms = sqlite3_column_int64(gst, 11);
	/* the stream's number: the loads' statements end with it */
	const char *c12 = sqlite3_column_count(gst) > 12 ? sqlite3_column_name(gst, 12) : NULL;
	g->seq = c12 && !strcmp(c12, "seq") ? sqlite3_column_int64(gst, 12) : 0;
	const char *c13 = sqlite3_column_count(gst) > 13 ? sqlite3_column_name(gst, 13) : NULL;
	g->undos = c13 && !strcmp(c13, "undos") ? sqlite3_column_int(gst, 13) : 0;

	int rc;
	sqlite3_stmt *st = s->st[ST_SEL_SEATS];
	sq_bind_text(st, 1, g->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (g->nseats >= (int)(sizeof g->seats / sizeof g->seats[0]))
			continue;
		store_seat *se = &g->seats[g->nseats++];
		se->seat = sqlite3_column_int(st, 0);
		const char *k = (const char *)sqlite3_column_text(st, 1);
		se->kind = !k ? 0 : !strcmp(k, "human") ? STORE_SEAT_HUMAN
		                  : !strcmp(k, "bot") ? STORE_SEAT_BOT : STORE_SEAT_OPEN;
		sq_copy_col(se->name, sizeof se->name, st, 2);
		sq_copy_col(se->level, sizeof se->level, st, 3);
		sq_copy_col(se->spec, sizeof se->spec, st, 4);
		sq_copy_col(se->token_hash, sizeof se->token_hash, st, 5);
		sq_copy_col(se->colour, sizeof se->colour, st, 6);
		se->account = sqlite3_column_int64(st, 7);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : sq_fail(s, err, "loading seats");
}

/* Loads seats and moves of the game in the current row of `gst` and calls
 * fn. Returns fn's result, or -1 on a database error. */
static int load_row(sqlite_store *s, sqlite3_stmt *gst, store_load_fn fn, void *ctx, char *err)
{
	store_game g;
	int rc = 0, n = 0, cap = 0;
	store_move *mv = NULL;
	sqlite3_stmt *st = s->st[ST_SEL_MOVES];
	if (sq_read_game(s, gst, &g, err)) {
		rc = -1;
		goto out;
	}
	sq_bind_text(st, 1, g.id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			store_move *nm = realloc(mv, (size_t)cap * sizeof *mv);
			if (!nm) {
				rc = SQLITE_NOMEM;
				break;
			}
			mv = nm;
		}
		store_move *m = &mv[n++];
		m->step = sqlite3_column_int(st, 0);
		m->turn = sqlite3_column_int(st, 1);
		const unsigned char *kind = sqlite3_column_text(st, 2);
		m->kind = kind ? carc_name_parse(CARC_NAMES_STEP, (const char *)kind) : -1;
		m->player = sqlite3_column_int(st, 3);
		m->move = (uint32_t)sqlite3_column_int64(st, 4);
		m->tile = carc_tile_parse((const char *)sqlite3_column_text(st, 5));
		m->entry = sq_dup_col(st, 6);
		m->at_ms = sqlite3_column_int64(st, 7);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		rc = sq_fail(s, err, "loading moves");
		goto out;
	}
	rc = fn(ctx, &g, mv, n);
out:
	for (int i = 0; i < n; i++)
		free((char *)mv[i].entry);
	free(mv);
	sq_free_game(&g);
	return rc;
}

int sq_load_one(store *base, const char *id, store_load_fn fn, void *ctx, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_SEL_ONE];
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st), ret;
	if (rc == SQLITE_ROW)
		ret = load_row(s, st, fn, ctx, err) ? -1 : 1;
	else if (rc == SQLITE_DONE)
		ret = 0;
	else
		ret = sq_fail(s, err, "loading a game");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret;
}

int sq_counts(store *base, int *counts, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_COUNTS];
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		counts[i] = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int k = parse_status((const char *)sqlite3_column_text(st, 0));
		if (k >= 0)
			counts[k] = sqlite3_column_int(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : sq_fail(s, err, "counting games");
}

int sq_list_finished(store *base, const char *before, int limit, store_summary_fn fn,
                     void *ctx, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_int64 from_ms = INT64_MAX;
	if (before) {
		sqlite3_stmt *st = s->st[ST_SEL_FINISHED_AT];
		sq_bind_text(st, 1, before);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			from_ms = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc == SQLITE_DONE)
			return STORE_NOT_FOUND;
		if (rc != SQLITE_ROW)
			return sq_fail(s, err, "finding a finished game");
	}
	sqlite3_stmt *st = s->st[ST_LIST_FINISHED];
	sqlite3_bind_int64(st, 1, from_ms);
	/* the id only breaks ties within the cursor's millisecond (without a
	 * cursor no game has finished at INT64_MAX) */
	sq_bind_text(st, 2, before ? before : "");
	sqlite3_bind_int(st, 3, limit);
	int rc, n = 0, ret = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		store_game g;
		if (sq_read_game(s, st, &g, err)) {
			sq_free_game(&g);
			ret = -1;
			break;
		}
		char *scores = sq_dup_col(st, 12), *by_kind = sq_dup_col(st, 13), *winners = sq_dup_col(st, 14);
		char *ended = sq_dup_col(st, 17);
		store_result r;
		memset(&r, 0, sizeof r);
		r.scores = scores ? scores : "[]";
		r.by_kind = by_kind ? by_kind : "[]";
		r.winners = winners ? winners : "[]";
		r.at_ms = sqlite3_column_int64(st, 15);
		r.ended = ended;
		int stop = fn(ctx, &g, &r, sqlite3_column_int(st, 16), sqlite3_column_int(st, 18));
		free(ended);
		free(scores);
		free(by_kind);
		free(winners);
		sq_free_game(&g);
		n++;
		if (stop)
			break;
	}
	if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = sq_fail(s, err, "listing finished games");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return ret ? ret : n;
}

/* The ids of a statement's rows (column 0) into ids, and column 1 into
 * created when it is not NULL: how many, or -1. */
static int id_rows(sqlite_store *s, sqlite3_stmt *st, int limit, char (*ids)[STORE_ID_SIZE],
                   int64_t *created, char *err, const char *what)
{
	int rc = SQLITE_DONE, n = 0;
	while (n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (created)
			created[n] = sqlite3_column_int64(st, 1);
		sq_copy_col(ids[n++], STORE_ID_SIZE, st, 0);
	}
	int bad = n < limit && rc != SQLITE_DONE;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return bad ? sq_fail(s, err, what) : n;
}

int sq_list_unfinished(store *base, int which, int64_t before_ms, const char *before_id,
                       int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
                       int64_t *created, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	sqlite3_stmt *st = s->st[which == 0 ? ST_LIST_OPEN : which == 1 ? ST_LIST_PLAYING
	                                                               : ST_LIST_UNFINISHED];
	sqlite3_bind_int64(st, 1, before_ms);
	sq_bind_text(st, 2, before_id);
	sqlite3_bind_int64(st, 3, open_since_ms);
	sqlite3_bind_int(st, 4, limit);
	return id_rows(s, st, limit, ids, created, err, "listing unfinished games");
}

int sq_list_unowned(store *base, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
                    char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	s->fault = STORE_FAULT_NONE;
	sqlite3_stmt *st = s->st[ST_LIST_UNOWNED];
	sq_bind_text(st, 1, after);
	sqlite3_bind_int(st, 2, limit);
	return id_rows(s, st, limit, ids, NULL, err, "listing games with bots or clocks");
}

/* The statements below run rarely (an open table expired, the upload
 * totals once at start): prepared when called, not kept. */

int sq_delete_game(store *base, const char *id, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	/* a write like the others: one transaction, the file checked before
	 * the commit; seats, moves and results go with it (ON DELETE CASCADE) */
	if (sq_begin(s, err))
		return -1;
	if (sqlite3_prepare_v2(s->db, "DELETE FROM games WHERE id=?", -1, &st, NULL) != SQLITE_OK) {
		sq_fail(s, err, "deleting a game");
		sq_rollback(s);
		return -1;
	}
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		sq_fail(s, err, "deleting a game");
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		sq_rollback(s);
		return -1;
	}
	return sq_commit(s, err);
}

int sq_upload_usage(store *base, long *count, int64_t *bytes, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st;
	/* the size is kept in the options (record_bytes) so that the records
	 * themselves, most of them in overflow pages, are not read; uploads
	 * stored before that was kept are measured */
	if (sqlite3_prepare_v2(s->db,
	                       "SELECT count(*), coalesce(sum(coalesce("
	                       "json_extract(options,'$.record_bytes'), length(record))),0)"
	                       " FROM games WHERE status='view'",
	                       -1, &st, NULL) != SQLITE_OK)
		return sq_fail(s, err, "counting uploads");
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*count = (long)sqlite3_column_int64(st, 0);
		*bytes = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : sq_fail(s, err, "counting uploads");
}

int sq_save_clock(store *base, const char *id, const store_clock *c,
                  const store_result *r, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	if (sq_begin(s, err))
		return -1;
	sqlite3_stmt *st = s->st[ST_UPS_CLOCK];
	sq_bind_text(st, 1, id);
	sqlite3_bind_int(st, 2, c->step);
	sqlite3_bind_int64(st, 3, c->deadline_ms);
	sq_bind_text(st, 4, c->state ? c->state : "{}");
	if (sq_step_done(s, ST_UPS_CLOCK, err))
		goto bad;
	if (r) {
		if (write_result(s, id, r->at_ms, r, err))
			goto bad;
	}
	return sq_commit(s, err);
bad:
	sq_rollback(s);
	return -1;
}

int sq_load_clock(store *base, const char *id, store_clock *out, char **state, char *err)
{
	sqlite_store *s = (sqlite_store *)base;
	sqlite3_stmt *st = s->st[ST_SEL_CLOCK];
	sq_bind_text(st, 1, id);
	int rc = sqlite3_step(st), found = rc == SQLITE_ROW;
	*state = NULL;
	if (found) {
		out->step = sqlite3_column_int(st, 0);
		out->deadline_ms = sqlite3_column_int64(st, 1);
		*state = sq_dup_col(st, 2);
		out->state = *state;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (!found && rc != SQLITE_DONE)
		return sq_fail(s, err, "reading a clock");
	return found;
}
