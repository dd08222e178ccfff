/*
 * store_pg_games.c - the games of the PostgreSQL store (store_pg.c):
 * writing games, seats, moves, results and ratings rows (a move's
 * transaction locks the game's row, see store_pg.c's top); deleting a
 * game; loading games (in one snapshot) and listing them; the uploads'
 * totals; clocks. Every write is one transaction of store_pg.c's helpers
 * (pgs_begin, pgs_commit, pgs_rollback) and sends its NOTIFY (pgs_notify).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carc.h"
#include "server.h"
#include "store.h"
#include "store_pg_int.h"
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

/* ---- writes ------------------------------------------------------------------------------ */

/* Inserts game g with its seats inside the open transaction: 0 or -1. */
int pgs_insert_game(pg_store *s, const store_game *g, char *err)
{
	params p = {0};
	pgs_p_str(&p, g->id);
	pgs_p_str(&p, store_status_name(g->status));
	pgs_p_i64(&p, g->players);
	pgs_p_i64(&p, g->farmers);
	pgs_p_str(&p, g->farm_scoring);
	pgs_p_i64(&p, g->small_city);
	pgs_p_str(&p, g->expansions ? g->expansions : "[]");
	pgs_p_i64(&p, (int64_t)g->seed);
	pgs_p_str(&p, g->options ? g->options : "{}");
	if (g->record)
		pgs_p_str(&p, g->record);
	else
		pgs_p_null(&p);
	pgs_p_i64(&p, g->created_ms);
	pgs_p_i64(&p, g->updated_ms);
	if (pgs_q_do(s, Q_INS_GAME, &p, err))
		return -1;
	for (int i = 0; i < g->nseats; i++) {
		const store_seat *se = &g->seats[i];
		params ps = {0};
		pgs_p_str(&ps, g->id);
		pgs_p_i64(&ps, se->seat);
		pgs_p_str(&ps, SEAT_KINDS[se->kind]);
		pgs_p_str(&ps, se->name);
		pgs_p_str(&ps, se->level);
		pgs_p_str(&ps, se->spec);
		pgs_p_str(&ps, se->token_hash);
		pgs_p_str(&ps, se->colour);
		pgs_p_i64(&ps, se->account);
		if (pgs_q_do(s, Q_INS_SEAT, &ps, err))
			return -1;
	}
	return pgs_notify(s, STORE_NOTIFY_CREATED, g->id, g->status, err);
}

int pg_create_game(store *base, const store_game *g, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	if (pgs_insert_game(s, g, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

int pg_update_seat(store *base, const char *id, const store_seat *se, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	/* the game's row before its seat: a status change locks the row, then
	 * (its trigger, schema 16) the seats and the clock; the same order
	 * here, never the other way round, so the two cannot wait for each
	 * other */
	params g = {0};
	pgs_p_str(&g, id);
	if (pgs_q_do(s, Q_LOCK_GAME, &g, err))
		goto bad;
	params p = {0};
	pgs_p_str(&p, SEAT_KINDS[se->kind]);
	pgs_p_str(&p, se->name);
	pgs_p_str(&p, se->level);
	pgs_p_str(&p, se->spec);
	pgs_p_str(&p, se->token_hash);
	pgs_p_str(&p, se->colour);
	pgs_p_str(&p, id);
	pgs_p_i64(&p, se->seat);
	pgs_p_i64(&p, se->account);
	PGresult *r = pgs_q(s, Q_UPD_SEAT, &p, err);
	if (!r)
		goto bad;
	int changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (!changed) {
		snprintf(err, STORE_ERR_SIZE, "seat %d of table %s was taken by another process",
		         se->seat, id);
		pgs_rollback(s);
		return STORE_CONFLICT;
	}
	if (pgs_notify(s, STORE_NOTIFY_SEAT, id, se->seat, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_set_status(store *base, const char *id, int status, int64_t at_ms, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, store_status_name(status));
	pgs_p_i64(&p, at_ms);
	pgs_p_str(&p, id);
	if (pgs_q_do(s, Q_SET_STATUS, &p, err) || pgs_notify(s, STORE_NOTIFY_STATUS, id, status, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

/* Inside the open transaction: the game is over at at_ms, its result,
 * and the ratings when it was rated. 0 or -1. */
static int store_result_rows(pg_store *s, const char *id, int64_t at_ms, const store_result *r,
                             char *err)
{
	params pt = {0};
	pgs_p_str(&pt, store_status_name(STORE_OVER));
	pgs_p_i64(&pt, at_ms);
	pgs_p_str(&pt, id);
	params pr = {0};
	pgs_p_str(&pr, id);
	pgs_p_str(&pr, r->scores);
	pgs_p_str(&pr, r->by_kind);
	pgs_p_str(&pr, r->winners);
	pgs_p_i64(&pr, r->at_ms);
	if (pgs_q_do(s, Q_TOUCH, &pt, err) || pgs_q_do(s, Q_INS_RESULT, &pr, err))
		return -1;
	if (r->mvoid && store_match_void_write(&s->base, r->mvoid, r->at_ms, err))
		return -1;
	return r->nrated > 0 ? store_rate_game(&s->base, id, r, err) : 0;
}

int pg_add_move(store *base, const char *id, const store_move *m, const store_result *r,
                char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *res = pgs_q(s, Q_LOCK_GAME, &p, err);
	if (!res)
		goto bad;
	if (PQntuples(res) != 1) {
		PQclear(res);
		snprintf(err, STORE_ERR_SIZE, "postgresql: no game %s to add a move to", id);
		s->fault = STORE_FAULT_OTHER;
		goto bad;
	}
	int status = parse_status(PQgetvalue(res, 0, 0));
	int undos = atoi(PQgetvalue(res, 0, 1));
	PQclear(res);
	if (!(res = pgs_q(s, Q_STEPS, &p, err)))
		goto bad;
	int steps = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (undos != m->undos) {
		/* thought about a position another process took back since */
		snprintf(err, STORE_ERR_SIZE, "the move for step %d of table %s was made before "
		         "moves were taken back (%d undos, now %d)", m->step, id, m->undos, undos);
		pgs_rollback(s);
		return STORE_CONFLICT;
	}
	if (steps != m->step || status == STORE_OVER || status == STORE_VIEW) {
		snprintf(err, STORE_ERR_SIZE,
		         "the move for step %d of table %s came second: another process stored "
		         "step %d first (the game is %s at step %d)",
		         m->step, id, m->step, store_status_name(status), steps);
		pgs_rollback(s);
		return STORE_CONFLICT;
	}
	const char *kind = carc_name(CARC_NAMES_STEP, m->kind);
	if (!kind) {
		snprintf(err, STORE_ERR_SIZE, "step %d of table %s is of no kind the engine names (%d)",
		         m->step, id, m->kind);
		s->fault = STORE_FAULT_OTHER;
		goto bad;
	}
	params pm = {0};
	pgs_p_str(&pm, id);
	pgs_p_i64(&pm, m->step);
	pgs_p_i64(&pm, m->turn);
	pgs_p_str(&pm, kind);
	pgs_p_i64(&pm, m->player);
	pgs_p_i64(&pm, (int64_t)m->move);
	pgs_p_str(&pm, carc_tile_name(m->tile));
	pgs_p_str(&pm, m->entry);
	pgs_p_i64(&pm, m->at_ms);
	if (pgs_q_do(s, Q_INS_MOVE, &pm, err))
		goto bad;
	if (r && store_result_rows(s, id, m->at_ms, r, err))
		goto bad;
	if (pgs_notify(s, STORE_NOTIFY_MOVE, id, m->step, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

/* undo.c: the moves from step `keep` on are taken back (store.h), under
 * the game row's lock, as add_move checks its step. */
int pg_undo_moves(store *base, const char *id, int have, int keep, int undone, int64_t at_ms,
                  char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *res = pgs_q(s, Q_LOCK_GAME, &p, err);
	if (!res)
		goto bad;
	int found = PQntuples(res) == 1;
	int status = found ? parse_status(PQgetvalue(res, 0, 0)) : -1;
	PQclear(res);
	if (!found) {
		snprintf(err, STORE_ERR_SIZE, "postgresql: no game %s to take moves back in", id);
		s->fault = STORE_FAULT_OTHER;
		goto bad;
	}
	if (!(res = pgs_q(s, Q_STEPS, &p, err)))
		goto bad;
	int steps = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	if (steps != have || status != STORE_PLAYING) {
		snprintf(err, STORE_ERR_SIZE, "table %s holds %d moves (%s), not %d: nothing taken back",
		         id, steps, store_status_name(status), have);
		pgs_rollback(s);
		return STORE_CONFLICT;
	}
	params pd = {0};
	pgs_p_str(&pd, id);
	pgs_p_i64(&pd, keep);
	params pu = {0};
	pgs_p_str(&pu, id);
	pgs_p_i64(&pu, undone);
	pgs_p_i64(&pu, at_ms);
	if (pgs_q_do(s, Q_DEL_MOVES, &pd, err) || pgs_q_do(s, Q_UNDO_GAME, &pu, err) ||
	    pgs_notify(s, STORE_NOTIFY_UNDO, id, keep, err))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_delete_game(store *base, const char *id, char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	params p = {0};
	pgs_p_str(&p, id);
	if (pgs_q_do(s, Q_DELETE, &p, err) || pgs_notify(s, STORE_NOTIFY_DELETED, id, -1, err)) {
		pgs_rollback(s);
		return -1;
	}
	return pgs_commit(s, err);
}

/* ---- reads -------------------------------------------------------------------------------- */

void pgs_copy_val(char *dst, size_t size, const PGresult *r, int row, int col)
{
	snprintf(dst, size, "%s", PQgetvalue(r, row, col));
}

static char *dup_val(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NULL : srv_xstrdup(PQgetvalue(r, row, col));
}

int64_t pgs_i64_val(const PGresult *r, int row, int col)
{
	return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

void pgs_free_game(store_game *g)
{
	free(g->expansions);
	free(g->options);
	free(g->record);
}

/* Reads the game in row `row` of gr (the columns of GAME_COLS) and its
 * seats into *g; the caller frees it with pgs_free_game, also after an error. */
int pgs_read_game(pg_store *s, const PGresult *gr, int row, store_game *g, char *err)
{
	memset(g, 0, sizeof *g);
	pgs_copy_val(g->id, sizeof g->id, gr, row, 0);
	g->status = parse_status(PQgetvalue(gr, row, 1));
	g->players = atoi(PQgetvalue(gr, row, 2));
	g->farmers = atoi(PQgetvalue(gr, row, 3));
	pgs_copy_val(g->farm_scoring, sizeof g->farm_scoring, gr, row, 4);
	g->small_city = atoi(PQgetvalue(gr, row, 5));
	g->expansions = dup_val(gr, row, 6);
	g->seed = (uint64_t)pgs_i64_val(gr, row, 7);
	g->options = dup_val(gr, row, 8);
	g->record = dup_val(gr, row, 9);
	g->created_ms = pgs_i64_val(gr, row, 10);
	g->updated_ms = pgs_i64_val(gr, row, 11);
	/* the stream's number: the loads' statements end with it */
	g->seq = PQnfields(gr) > 12 && !strcmp(PQfname(gr, 12), "seq") ? pgs_i64_val(gr, row, 12) : 0;
	g->undos = PQnfields(gr) > 13 && !strcmp(PQfname(gr, 13), "undos") ? atoi(PQgetvalue(gr, row, 13))
	                                                                    : 0;
	params p = {0};
	pgs_p_str(&p, g->id);
	PGresult *r = pgs_q(s, Q_SEL_SEATS, &p, err);
	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r) && g->nseats < (int)(sizeof g->seats / sizeof g->seats[0]);
	     i++) {
		store_seat *se = &g->seats[g->nseats++];
		se->seat = atoi(PQgetvalue(r, i, 0));
		const char *k = PQgetvalue(r, i, 1);
		se->kind = !strcmp(k, "human") ? STORE_SEAT_HUMAN
		           : !strcmp(k, "bot") ? STORE_SEAT_BOT : STORE_SEAT_OPEN;
		pgs_copy_val(se->name, sizeof se->name, r, i, 2);
		pgs_copy_val(se->level, sizeof se->level, r, i, 3);
		pgs_copy_val(se->spec, sizeof se->spec, r, i, 4);
		pgs_copy_val(se->token_hash, sizeof se->token_hash, r, i, 5);
		pgs_copy_val(se->colour, sizeof se->colour, r, i, 6);
		se->account = pgs_i64_val(r, i, 7);
	}
	PQclear(r);
	return 0;
}

/* Loads the seats and moves of the game in row `row` of gr and calls fn.
 * Returns fn's result, or -1 on a database error. */
static int load_row(pg_store *s, const PGresult *gr, int row, int from, store_load_fn fn,
                    void *ctx, char *err)
{
	store_game g;
	int rc = -1, n = 0;
	store_move *mv = NULL;
	PGresult *r = NULL;
	if (pgs_read_game(s, gr, row, &g, err))
		goto out;
	params p = {0};
	pgs_p_str(&p, g.id);
	if (from > 0)
		pgs_p_i64(&p, from);
	if (!(r = pgs_q(s, from > 0 ? Q_SEL_MOVES_FROM : Q_SEL_MOVES, &p, err)))
		goto out;
	n = PQntuples(r);
	mv = srv_xcalloc((size_t)(n ? n : 1), sizeof *mv);
	for (int i = 0; i < n; i++) {
		store_move *m = &mv[i];
		m->step = atoi(PQgetvalue(r, i, 0));
		m->turn = atoi(PQgetvalue(r, i, 1));
		m->kind = carc_name_parse(CARC_NAMES_STEP, PQgetvalue(r, i, 2));
		m->player = atoi(PQgetvalue(r, i, 3));
		m->move = (uint32_t)pgs_i64_val(r, i, 4);
		m->tile = carc_tile_parse(PQgetvalue(r, i, 5));
		m->entry = PQgetvalue(r, i, 6); /* valid while r is */
		m->at_ms = pgs_i64_val(r, i, 7);
	}
	rc = fn(ctx, &g, mv, n);
out:
	PQclear(r);
	free(mv);
	pgs_free_game(&g);
	return rc;
}

/* A load reads the game row, its seats, moves (and what the callback
 * reads: its clock) in one snapshot, so the state handed up is the table
 * exactly as of its sequence number: no change is half in. 1 when the
 * snapshot was opened here (snap_end closes it), 0 when a transaction was
 * open already, -1 on error. */
static int snap_begin(pg_store *s, char *err)
{
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		return 0;
	return pgs_exec_plain(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err) ? -1 : 1;
}

static void snap_end(pg_store *s, int opened)
{
	if (opened == 1 && PQstatus(s->conn) == CONNECTION_OK &&
	    PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "COMMIT"));
}

int pg_load_since(store *base, const char *id, int from, store_load_fn fn, void *ctx,
                  char *err)
{
	pg_store *s = (pg_store *)base;
	params p = {0};
	pgs_p_str(&p, id);
	int snap = snap_begin(s, err);
	if (snap < 0)
		return -1;
	PGresult *r = pgs_q(s, Q_SEL_ONE, &p, err);
	if (!r) {
		snap_end(s, snap);
		return -1;
	}
	int ret = PQntuples(r) == 1 ? (load_row(s, r, 0, from, fn, ctx, err) ? -1 : 1) : 0;
	PQclear(r);
	snap_end(s, snap);
	return ret;
}

int pg_load_one(store *base, const char *id, store_load_fn fn, void *ctx, char *err)
{
	return pg_load_since(base, id, 0, fn, ctx, err);
}

int pg_counts(store *base, int *counts, char *err)
{
	pg_store *s = (pg_store *)base;
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		counts[i] = 0;
	PGresult *r = pgs_q_read(s, Q_COUNTS, NULL, err);
	if (!r)
		return -1;
	for (int i = 0; i < PQntuples(r); i++) {
		int k = parse_status(PQgetvalue(r, i, 0));
		if (k >= 0)
			counts[k] = atoi(PQgetvalue(r, i, 1));
	}
	PQclear(r);
	return 0;
}

int pg_list_finished(store *base, const char *before, int limit, store_summary_fn fn,
                     void *ctx, char *err)
{
	pg_store *s = (pg_store *)base;
	s->fault = STORE_FAULT_NONE;
	if (pgs_ensure(s, err))
		return -1;
	int64_t from_ms = INT64_MAX;
	if (before) {
		params p = {0};
		pgs_p_str(&p, before);
		PGresult *r = pgs_q(s, Q_SEL_FINISHED_AT, &p, err);
		if (!r)
			return -1;
		int found = PQntuples(r) == 1;
		if (found)
			from_ms = pgs_i64_val(r, 0, 0);
		PQclear(r);
		if (!found)
			return STORE_NOT_FOUND;
	}
	params p = {0};
	pgs_p_i64(&p, from_ms);
	pgs_p_str(&p, before ? before : "");
	pgs_p_i64(&p, limit);
	PGresult *r = pgs_q(s, Q_LIST_FINISHED, &p, err);
	if (!r)
		return -1;
	int n = 0, ret = 0;
	for (int i = 0; i < PQntuples(r); i++) {
		store_game g;
		if (pgs_read_game(s, r, i, &g, err)) {
			pgs_free_game(&g);
			ret = -1;
			break;
		}
		store_result res;
		memset(&res, 0, sizeof res);
		res.scores = PQgetvalue(r, i, 12);
		res.by_kind = PQgetvalue(r, i, 13);
		res.winners = PQgetvalue(r, i, 14);
		res.at_ms = pgs_i64_val(r, i, 15);
		res.ended = PQgetisnull(r, i, 17) ? NULL : PQgetvalue(r, i, 17);
		int stop = fn(ctx, &g, &res, atoi(PQgetvalue(r, i, 16)), atoi(PQgetvalue(r, i, 18)));
		pgs_free_game(&g);
		n++;
		if (stop)
			break;
	}
	PQclear(r);
	return ret ? ret : n;
}

/* The ids in column 0 of read k's rows into ids, and column 1 into
 * created when it is not NULL: how many, or -1. */
static int id_rows(pg_store *s, int k, const params *p, int limit, char (*ids)[STORE_ID_SIZE],
                   int64_t *created, char *err)
{
	PGresult *r = pgs_q_read(s, k, p, err);
	if (!r)
		return -1;
	int n = 0;
	for (int i = 0; i < PQntuples(r) && n < limit; i++) {
		if (created)
			created[n] = pgs_i64_val(r, i, 1);
		pgs_copy_val(ids[n++], STORE_ID_SIZE, r, i, 0);
	}
	PQclear(r);
	return n;
}

int pg_list_unfinished(store *base, int which, int64_t before_ms, const char *before_id,
                       int64_t open_since_ms, int limit, char (*ids)[STORE_ID_SIZE],
                       int64_t *created, char *err)
{
	params p = {0};
	pgs_p_i64(&p, before_ms);
	pgs_p_str(&p, before_id);
	if (which != 1) /* open tables: the oldest still open */
		pgs_p_i64(&p, open_since_ms);
	pgs_p_i64(&p, limit);
	return id_rows((pg_store *)base, which == 0 ? Q_LIST_OPEN : which == 1 ? Q_LIST_PLAYING
	                                                                       : Q_LIST_UNFINISHED,
	               &p, limit, ids, created, err);
}

int pg_list_unowned(store *base, const char *after, int limit, char (*ids)[STORE_ID_SIZE],
                    char *err)
{
	params p = {0};
	pgs_p_str(&p, after);
	pgs_p_i64(&p, limit);
	return id_rows((pg_store *)base, Q_LIST_UNOWNED, &p, limit, ids, NULL, err);
}

int pg_upload_usage(store *base, long *count, int64_t *bytes, char *err)
{
	pg_store *s = (pg_store *)base;
	PGresult *r = pgs_q_read(s, Q_UPLOAD_USAGE, NULL, err);
	if (!r)
		return -1;
	*count = atol(PQgetvalue(r, 0, 0));
	*bytes = pgs_i64_val(r, 0, 1);
	PQclear(r);
	return 0;
}

/* ---- clocks ------------------------------------------------------------------------------ */

int pg_save_clock(store *base, const char *id, const store_clock *c, const store_result *r,
                  char *err)
{
	pg_store *s = (pg_store *)base;
	if (pgs_begin(s, err))
		return -1;
	/* the game's row before its clock's (see pg_update_seat) */
	params g = {0};
	pgs_p_str(&g, id);
	if (pgs_q_do(s, Q_LOCK_GAME, &g, err))
		goto bad;
	params p = {0};
	pgs_p_str(&p, id);
	pgs_p_i64(&p, c->step);
	pgs_p_i64(&p, c->deadline_ms);
	pgs_p_str(&p, c->state ? c->state : "{}");
	if (pgs_q_do(s, Q_UPS_CLOCK, &p, err) || pgs_notify(s, STORE_NOTIFY_CLOCK, id, c->step, err))
		goto bad;
	/* a game that ended early (a resignation): over for every process */
	if (r && (store_result_rows(s, id, r->at_ms, r, err) ||
	          pgs_notify(s, STORE_NOTIFY_STATUS, id, STORE_OVER, err)))
		goto bad;
	return pgs_commit(s, err);
bad:
	pgs_rollback(s);
	return -1;
}

int pg_load_clock(store *base, const char *id, store_clock *out, char **state, char *err)
{
	pg_store *s = (pg_store *)base;
	*state = NULL;
	params p = {0};
	pgs_p_str(&p, id);
	PGresult *r = pgs_q_read(s, Q_SEL_CLOCK, &p, err);
	if (!r)
		return -1;
	int found = PQntuples(r) == 1;
	if (found) {
		out->step = atoi(PQgetvalue(r, 0, 0));
		out->deadline_ms = pgs_i64_val(r, 0, 1);
		*state = srv_xstrdup(PQgetvalue(r, 0, 2));
		out->state = *state;
	}
	PQclear(r);
	return found;
}
