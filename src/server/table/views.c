/*
 * views.c - what the tables show: the table summary (tables_info), the
 * state, turn and record texts, the lobby's lists (in memory, and the
 * finished games from the store), an account's game from memory
 * (tables_my_game); and the announcements of a table's changes to its
 * clients (through the outbox, outbox.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"
#include "undo.h"

/* ---- announcing -------------------------------------------------------------------- */

/* A finished game's rating outcome (docs/protocol.md, "Table
 * description"): {"rated": true}, or {"rated": false, "why": ...} with,
 * for too few own moves, the minimum and every seat's own moves. Asked of
 * moves.c's rating_outcome, which rate_hook asked at the game's end. */
static json_t *rating_json(const srv_table *t)
{
	store_result r;
	int own[CARC_MAX_PLAYERS];
	rt_why w = rating_outcome(t, t->game, -1, NULL, 0, &r, own);
	if (w == RT_RATED)
		return json_pack("{s:b}", "rated", 1);
	json_t *o = json_pack("{s:b, s:s}", "rated", 0, "why", ratings_why_name(w));
	if (w == RT_FEW_MOVES) {
		json_t *a = json_array();
		for (int i = 0; i < t->nseats; i++)
			json_array_append_new(a, json_integer(own[i]));
		json_object_set_new(o, "min_moves", json_integer(cfg->rated_min_moves));
		json_object_set_new(o, "own_moves", a);
	}
	return o;
}

json_t *tables_info(const srv_table *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(t->id));
	json_object_set_new(o, "status", json_string(store_status_name(t->status)));
	json_t *opts = opt_to_json(&t->opts);
	json_object_del(opts, "seats");
	if (t->status != STORE_OVER && t->status != STORE_VIEW)
		json_object_del(opts, "seed"); /* the seed fixes the draw order */
	json_object_set_new(o, "options", opts);
	json_t *seats = json_array();
	for (int i = 0; i < t->nseats; i++) {
		const srv_seat *s = &t->seat[i];
		json_t *so = json_object();
		json_object_set_new(so, "seat", json_integer(i));
		json_object_set_new(so, "kind", json_string(s->kind == STORE_SEAT_BOT ? "bot"
		                                            : s->kind == STORE_SEAT_HUMAN ? "human"
		                                                                          : "open"));
		json_object_set_new(so, "name", json_string(s->name));
		if (s->kind == STORE_SEAT_BOT) {
			json_object_set_new(so, "level", json_string(s->level));
			json_object_set_new(so, "spec", json_string(s->spec));
		}
		json_object_set_new(so, "colour", json_string(opt_colour_name(s->colour)));
		json_object_set_new(so, "online", json_boolean(s->kind == STORE_SEAT_BOT || s->online > 0));
		if (s->account)
			json_object_set_new(so, "account", json_true()); /* the name is an account's */
		json_array_append_new(seats, so);
	}
	json_object_set_new(o, "seats", seats);
	int watchers = 0;
	for (srv_client *c = t->conns; c; c = c->tnext)
		watchers += c->seat < 0;
	json_object_set_new(o, "spectators", json_integer(watchers));
	json_object_set_new(o, "turn", json_integer(tables_turn(t)));
	json_object_set_new(o, "step", json_integer(tables_step(t)));
	if (t->status == STORE_PLAYING && !carc_game_over(t->game))
		json_object_set_new(o, "to_move", json_integer(carc_to_move(t->game)));
	chat_info(t, o);
	json_object_set_new(o, "created_ms", json_integer(t->created_ms));
	json_object_set_new(o, "updated_ms", json_integer(t->updated_ms));
	char path[64];
	snprintf(path, sizeof path, "/?table=%s", t->id);
	json_object_set_new(o, "invite", json_string(path));
	if (t->status != STORE_VIEW)
		json_object_set_new(o, "clock", clock_json(t));
	/* training against bots (undo.c): the seat that may take moves back */
	int us = t->status == STORE_PLAYING ? undo_seat(t, NULL, NULL, 0) : -1;
	if (us >= 0)
		json_object_set_new(o, "undo_seat", json_integer(us));
	if (t->undos > 0)
		json_object_set_new(o, "undos", json_integer(t->undos));
	if (t->status == STORE_OVER)
		json_object_set_new(o, "rating", rating_json(t));
	return o;
}

static void broadcast_json(srv_table *t, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s) {
		box->broadcast(t, s, strlen(s));
		free(s);
	}
}

void tables_broadcast(srv_table *t, json_t *o)
{
	if (!t->conns) {
		json_decref(o);
		return;
	}
	broadcast_json(t, o);
}

void announce_table(srv_table *t)
{
	if (!t->conns)
		return;
	broadcast_json(t, json_pack("{s:s, s:o}", "type", "table", "table", tables_info(t)));
}

void tables_recount(srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		t->seat[i].online = 0;
	for (srv_client *c = t->conns; c; c = c->tnext)
		if (c->seat >= 0 && c->seat < t->nseats)
			t->seat[c->seat].online++;
}

static void roster_timer(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, roster_sul);
	t->roster_pending = 0;
	announce_table(t);
}

/* Comings and goings are announced at most every ROSTER_MS: a crowd of
 * spectators arriving makes one message each, not one per pair. */
#define ROSTER_MS 250

void tables_conn_changed(srv_table *t)
{
	tables_recount(t);
	if (t->conns && t->status != STORE_VIEW && t->stored)
		chat_track(t); /* lines from now on go to the clients, in order */
	if (!t->conns)
		t->idle_since_us = srv_mono_us();
	if (t->conns && !t->roster_pending && !timers_stopped) {
		t->roster_pending = 1;
		lws_sul_schedule(lctx, 0, &t->roster_sul, roster_timer,
		                 (lws_usec_t)ROSTER_MS * LWS_US_PER_MS);
	}
}

/* The part of the state that every move changes, as the engine writes it:
 * figures, supply, scores and points by kind (and goods), and the turn
 * ("next": the step being decided, by whom, its legal decisions). */
#define MOVE_PARTS (CARC_VIEW_FIGURES | CARC_VIEW_SUPPLY | CARC_VIEW_SCORES | CARC_VIEW_TURN)

char *tables_state_text(const srv_table *t, int you)
{
	const carc_game *g = t->game;
	carc_rules rules;
	carc_game_rules(g, &rules);
	srv_sb b;
	sb_init(&b);
	json_t *head = json_pack("{s:s, s:o, s:o}", "type", "state", "table", tables_info(t), "you",
	                         you >= 0 ? json_pack("{s:i}", "seat", you) : json_null());
	char *hs = json_dumps(head, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(head);
	json_t *ex = json_array();
	for (int i = 0; i < t->opts.nexp; i++)
		json_array_append_new(ex, json_string(t->opts.expansions[i]));
	char *es = json_dumps(ex, JSON_COMPACT);
	json_decref(ex);
	/* {"type":...,"you":...} + ,"game":{...,"log":[entries]}} */
	sb_add(&b, hs, strlen(hs) - 1);
	sb_adds(&b, ",\"game\":{\"rules\":");
	gj_rules(&b, &rules, es);
	gj_parts(&b, g, CARC_VIEW_BOARD | MOVE_PARTS, 0);
	sb_adds(&b, ",\"log\":[");
	for (int i = 0; i < t->nlog; i++) {
		if (i)
			sb_adds(&b, ",");
		sb_adds(&b, t->log[i]);
	}
	sb_adds(&b, "]}}");
	free(hs);
	free(es);
	return sb_take(&b);
}

void announce_move(srv_table *t, const char *entry)
{
	if (!t->conns)
		return;
	srv_sb b;
	sb_init(&b);
	sb_printf(&b, "{\"type\":\"move\",\"table\":\"%s\",\"entry\":", t->id);
	sb_adds(&b, entry);
	gj_parts(&b, t->game, MOVE_PARTS, 0);
	json_t *cj = clock_json(t);
	char *cs = json_dumps(cj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(cj);
	sb_adds(&b, ",\"clock\":");
	sb_adds(&b, cs ? cs : "null");
	free(cs);
	sb_adds(&b, "}");
	box->broadcast(t, b.s, b.len);
	sb_free(&b);
}

char *tables_turn_text(const srv_table *t)
{
	/* the members are "next":{...}: the object after the key */
	char *m = carc_view_members(t->game, CARC_VIEW_TURN);
	if (!m)
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	char *o = srv_xstrdup(m + strlen("\"next\":"));
	free(m);
	return o;
}

char *tables_record_text(const srv_table *t)
{
	json_t *extra = json_object();
	json_t *seats = json_array();
	for (int i = 0; i < t->nseats; i++) {
		const srv_seat *s = &t->seat[i];
		json_t *so = json_pack("{s:s, s:s}", "name", s->name, "kind",
		                       s->kind == STORE_SEAT_BOT ? "bot" : "human");
		if (s->kind == STORE_SEAT_BOT)
			json_object_set_new(so, "bot", json_string(s->spec));
		json_object_set_new(so, "colour", json_string(opt_colour_name(s->colour)));
		json_array_append_new(seats, so);
	}
	json_object_set_new(extra, "seats", seats);
	json_object_set_new(extra, "table", json_string(t->id));
	json_object_set_new(extra, "server", json_string("carc serve"));
	if (t->undos > 0) /* training: moves taken back (the record holds those that stand) */
		json_object_set_new(extra, "undos", json_integer(t->undos));
	json_t *ended = clock_ended_json(t);
	if (ended)
		json_object_set_new(extra, "ended", ended);
	char *es = json_dumps(extra, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(extra);
	char *rec;
	if (carc_game_over(t->game) || t->status == STORE_VIEW || t->status == STORE_OVER) {
		/* a game ended early (resigned) is the record of the moves played,
		 * without "final" (the spec's unfinished game), and "ended" says how */
		rec = carc_record_write(t->game, es);
	} else {
		/* the seed fixes the tiles still to come: withheld until the end */
		rec = carc_record_write_with(t->game, es, CARC_RECORD_HIDE_SEED);
	}
	free(es);
	return rec;
}

/* The lobby's unfinished tables come from the store (memory holds only
 * those needed here), newest first by created time, then id; a cursor is
 * "<created_ms>-<id>" of the last table of a page. A table in memory is
 * shown as it is here (who is online at this process); one that is not
 * is loaded for its row (its clock, whose turn it is, its chat count are
 * the loaded table's) and leaves memory again after --idle-evict. */
json_t *tables_list(int which, const char *before, int limit, char *err, size_t errsize)
{
	int64_t ms = INT64_MAX;
	char id[STORE_ID_SIZE] = "";
	if (before) {
		char *end;
		long long v = strtoll(before, &end, 10);
		size_t n = *end == '-' ? strlen(end + 1) : 0;
		if (end == before || before[0] == '-' || before[0] == '+' || *end != '-' || n == 0 ||
		    n >= sizeof id || strspn(end + 1, "0123456789abcdef") != n) {
			snprintf(err, errsize, "before must be a cursor as next_before gives it "
			         "(<created_ms>-<id>)");
			return NULL;
		}
		ms = v;
		memcpy(id, end + 1, n + 1);
	}
	/* an open table past its expiry is not listed (it is deleted when it
	 * is next loaded) */
	int64_t open_since = cfg->open_expiry_s > 0
	                         ? srv_now_ms() - (int64_t)cfg->open_expiry_s * 1000 : INT64_MIN;
	/* the page and one more (is there more?) */
	int cap = limit + 1;
	char (*ids)[STORE_ID_SIZE] = srv_xmalloc((size_t)cap * sizeof *ids);
	int64_t *created = srv_xmalloc((size_t)cap * sizeof *created);
	char e[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int n = db->ops->list_unfinished(db, which, ms, id, open_since, cap, ids, created, e);
	metrics_store_read(srv_mono_us() - t0);
	if (n < 0) {
		/* the lobby shows what memory has then: nothing to list from */
		srv_error("listing unfinished games: %s", e);
		n = 0;
	}
	int more = n > limit;
	if (more)
		n = limit;
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		const srv_table *t = lookup(ids[i]);
		if (!t)
			t = tables_find(ids[i]);
		if (!t || t->expired || t->opts.private_)
			continue; /* cannot be loaded (logged), or gone meanwhile */
		json_array_append_new(a, tables_info(t));
	}
	json_t *o = json_pack("{s:o, s:b}", "tables", a, "more", more);
	if (more && n) {
		/* the cursor is the store's last row of the page, listed or not */
		char cur[64];
		snprintf(cur, sizeof cur, "%lld-%s", (long long)created[n - 1], ids[n - 1]);
		json_object_set_new(o, "next_before", json_string(cur));
	}
	free(ids);
	free(created);
	return o;
}

/* A finished game as the lobby lists it: the table description without
 * what only a table in memory knows (who is online, spectators), with the
 * result. */
static json_t *finished_info(const store_game *g, const store_result *r, int nsteps, int nturns)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(g->id));
	json_object_set_new(o, "status", json_string(store_status_name(g->status)));
	json_t *opts = json_loads(g->options ? g->options : "{}", 0, NULL);
	if (!json_is_object(opts)) {
		json_decref(opts);
		opts = json_object();
	}
	json_object_del(opts, "seats");
	json_object_set_new(opts, "players", json_integer(g->players));
	json_object_set_new(o, "options", opts);
	int n = g->players < 0 ? 0 : g->players > CARC_MAX_PLAYERS ? CARC_MAX_PLAYERS : g->players;
	const store_seat *by_seat[CARC_MAX_PLAYERS] = {NULL};
	const char *names[CARC_MAX_PLAYERS] = {NULL};
	for (int i = 0; i < g->nseats; i++)
		if (g->seats[i].seat >= 0 && g->seats[i].seat < n) {
			by_seat[g->seats[i].seat] = &g->seats[i];
			names[g->seats[i].seat] = g->seats[i].colour;
		}
	int colours[CARC_MAX_PLAYERS];
	opt_colours_from_names(names, n, colours);
	json_t *seats = json_array();
	for (int i = 0; i < n; i++) {
		const store_seat *s = by_seat[i];
		int kind = s ? s->kind : STORE_SEAT_OPEN;
		json_t *so = json_object();
		json_object_set_new(so, "seat", json_integer(i));
		json_object_set_new(so, "kind", json_string(kind == STORE_SEAT_BOT ? "bot"
		                                            : kind == STORE_SEAT_HUMAN ? "human"
		                                                                       : "open"));
		json_object_set_new(so, "name", json_string(s ? s->name : ""));
		if (kind == STORE_SEAT_BOT) {
			json_object_set_new(so, "level", json_string(s->level));
			json_object_set_new(so, "spec", json_string(s->spec));
		}
		json_object_set_new(so, "colour", json_string(opt_colour_name(colours[i])));
		json_array_append_new(seats, so);
	}
	json_object_set_new(o, "seats", seats);
	json_object_set_new(o, "turn", json_integer(nturns));
	json_object_set_new(o, "step", json_integer(nsteps));
	json_object_set_new(o, "created_ms", json_integer(g->created_ms));
	json_object_set_new(o, "updated_ms", json_integer(g->updated_ms));
	json_object_set_new(o, "finished_ms", json_integer(r->at_ms));
	json_t *scores = json_loads(r->scores, 0, NULL), *winners = json_loads(r->winners, 0, NULL);
	json_object_set_new(o, "scores", scores ? scores : json_array());
	json_object_set_new(o, "winners", winners ? winners : json_array());
	json_t *ended = r->ended ? json_loads(r->ended, 0, NULL) : NULL;
	json_object_set_new(o, "ended", ended ? ended : json_null());
	return o;
}

typedef struct finished_page {
	json_t *tables;
	int limit, more;
} finished_page;

static int add_finished(void *ctx, const store_game *g, const store_result *r, int nsteps,
                        int nturns)
{
	finished_page *p = ctx;
	if ((int)json_array_size(p->tables) >= p->limit) {
		p->more = 1; /* the one past the page */
		return -1;
	}
	json_array_append_new(p->tables, finished_info(g, r, nsteps, nturns));
	return 0;
}

json_t *tables_finished(const char *before, int limit, srv_err *code, char *err, size_t errsize)
{
	finished_page p = {json_array(), limit, 0};
	char e[STORE_ERR_SIZE];
	int rc = db->ops->list_finished(db, before, limit + 1, add_finished, &p, e);
	if (rc < 0) {
		json_decref(p.tables);
		if (rc == STORE_NOT_FOUND) {
			snprintf(err, errsize, "before: '%s' is not a finished game", before);
			*code = SE_MALFORMED;
		} else {
			srv_error("listing finished games: %s", e);
			snprintf(err, errsize, "the game database is unavailable: %s; the finished games "
			         "could not be read", store_fault_text(db->ops->last_fault(db)));
			*code = SE_STORAGE;
		}
		return NULL;
	}
	size_t n = json_array_size(p.tables);
	json_t *o = json_pack("{s:o, s:b}", "tables", p.tables, "more", p.more);
	if (p.more && n)
		json_object_set(o, "next_before",
		                json_object_get(json_array_get(p.tables, n - 1), "id"));
	return o;
}

int tables_seat_of_account(const srv_table *t, int64_t account)
{
	if (!account)
		return -1;
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_HUMAN && !t->seat[i].pending &&
		    t->seat[i].account == account)
			return i;
	return -1;
}

int tables_invite_seat(const char *id, int64_t account, int64_t invitee, int *seat, char *err,
                       size_t errsize)
{
	srv_table *t = tables_find(id);
	int seated = t ? tables_seat_of_account(t, account) >= 0 : 0;
	/* a private table that has started is hidden from whoever holds no
	 * seat there (as api_private_hidden hides it from every other route):
	 * no such table */
	if (!t || t->expired || (!seated && t->opts.private_ && t->status != STORE_OPEN)) {
		snprintf(err, errsize, "no such table");
		return SE_NOT_FOUND;
	}
	if (!seated) {
		snprintf(err, errsize, "you hold no seat at this table: only its players invite");
		return SE_BAD_TOKEN;
	}
	if (t->status != STORE_OPEN) {
		snprintf(err, errsize, "this table has started: no seat is open");
		return SE_TABLE_FULL;
	}
	if (tables_seat_of_account(t, invitee) >= 0) {
		snprintf(err, errsize, "that account holds a seat here already");
		return SE_SEAT_TAKEN;
	}
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_OPEN && !t->seat[i].pending) {
			*seat = i;
			return SE_OK;
		}
	snprintf(err, errsize, "no seat is open at this table");
	return SE_TABLE_FULL;
}

json_t *tables_my_game(const char *id, int seat)
{
	/* a game not in memory is loaded (whose turn, its deadline) */
	const srv_table *t = lookup(id);
	if (!t)
		t = tables_find(id);
	if (!t || t->expired || seat < 0 || seat >= t->nseats)
		return NULL;
	json_t *players = json_array();
	for (int i = 0; i < t->nseats; i++)
		json_array_append_new(players, json_string(t->seat[i].name));
	int turn = t->status == STORE_PLAYING && !carc_game_over(t->game) &&
	           carc_to_move(t->game) == seat;
	int64_t dl = turn ? clock_deadline_ms(t) : 0;
	/* your_turn: the seat decides the step being played (maybe in
	 * another seat's turn); turn and step as in the table description */
	return json_pack("{s:s, s:i, s:s, s:b, s:i, s:i, s:o, s:I, s:o}", "id", t->id, "seat", seat,
	                 "status", store_status_name(t->status), "your_turn", turn, "turn",
	                 tables_turn(t), "step", tables_step(t), "players", players, "updated_ms",
	                 (json_int_t)t->updated_ms, "deadline_ms",
	                 dl > 0 ? json_integer(dl) : json_null());
}
