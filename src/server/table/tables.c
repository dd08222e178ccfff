/*
 * tables.c - tables, seats, the moves and the bots' pacing (see tables.h).
 *
 * Invariants:
 *  - t->game is always a state the store holds: a move becomes part of it
 *    only in move_done, after the storage thread has committed it; while
 *    it is being stored (t->pm) no other move is taken for the table.
 *  - t->log[i] is the log entry of t->game.turns[i]; t->nlog == nturns.
 *  - A table with a bot job (bot_state != 0), a storage job
 *    (pending_ops) or a client is never freed.
 *  - Unfinished tables stay in memory; finished and view tables leave it
 *    when nobody has watched them for a while and come back on demand.
 *    Lists of finished games therefore come from the store, never from
 *    memory (tables_finished).
 *  - Every seat has a colour of its own (t->seat[i].colour), fixed when the
 *    table is made.
 *  - An open table not started within cfg->open_expiry_s of its creation
 *    (the stored time, so also across restarts) is removed: its clients
 *    are told and let go, it is marked expired (no lookup finds it) and
 *    freed once the store has deleted it.
 *  - Uploaded records (view tables) are not loaded at start; tables_find
 *    loads one when it is asked for, like a finished game.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "analysis.h"
#include "api.h"
#include "bots.h"
#include "chat.h"
#include "cluster.h"
#include "gamejson.h"
#include "ratelimit.h"
#include "metrics.h"
#include "net.h"
#include "ratings.h"
#include "tables.h"
#include "writer.h"

#define NBUCKETS 8192

static const srv_config *cfg;
static store *db; /* the loop's reading handle; writes go to writer.c */
static struct lws_context *lctx;
static srv_table *buckets[NBUCKETS];
static srv_table *all_head;
static int ntables;
static lws_sorted_usec_list_t evict_sul;

static const struct {
	const char *name;
	int http;
} ERRS[SE_COUNT] = {
	[SE_OK] = {"ok", 200},
	[SE_MALFORMED] = {"malformed", 400},
	[SE_TOO_LARGE] = {"too_large", 413},
	[SE_UNKNOWN_TYPE] = {"unknown_type", 400},
	[SE_NOT_FOUND] = {"not_found", 404},
	[SE_BAD_TOKEN] = {"bad_token", 403},
	[SE_NOT_YOUR_TURN] = {"not_your_turn", 409},
	[SE_STALE_TURN] = {"stale_turn", 409},
	[SE_ILLEGAL] = {"illegal_move", 422},
	[SE_NOT_STARTED] = {"not_started", 409},
	[SE_GAME_OVER] = {"game_over", 409},
	[SE_READ_ONLY] = {"read_only", 409},
	[SE_TABLE_FULL] = {"table_full", 409},
	[SE_SEAT_TAKEN] = {"seat_taken", 409},
	[SE_BAD_OPTION] = {"bad_option", 400},
	[SE_BAD_RECORD] = {"bad_record", 422},
	[SE_STORAGE] = {"storage", 503},
	[SE_BUSY] = {"busy", 503},
	[SE_METHOD] = {"method_not_allowed", 405},
	[SE_RATE_LIMITED] = {"rate_limited", 429},
	[SE_PENDING] = {"pending", 202},
	[SE_FORFEITED] = {"forfeited", 409},
	[SE_NOT_LOGGED_IN] = {"not_logged_in", 401},
	[SE_BAD_LOGIN] = {"bad_login", 401},
	[SE_NAME_TAKEN] = {"name_taken", 409},
	[SE_BAD_NAME] = {"bad_name", 400},
	[SE_BAD_PASSWORD] = {"bad_password", 400},
	[SE_CHAT_OFF] = {"chat_off", 403},
	[SE_CHAT_FULL] = {"chat_full", 409},
	[SE_NOT_OVER] = {"not_over", 409},
};

const char *srv_err_name(srv_err e) { return e < SE_COUNT ? ERRS[e].name : "?"; }
int srv_err_http_status(srv_err e) { return e < SE_COUNT ? ERRS[e].http : 500; }

/* ---- the registry ------------------------------------------------------------------ */

static unsigned bucket_of(const char *id)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h % NBUCKETS;
}

static srv_table *lookup(const char *id)
{
	for (srv_table *t = buckets[bucket_of(id)]; t; t = t->hnext)
		if (!strcmp(t->id, id))
			return t;
	return NULL;
}

static void link_table(srv_table *t)
{
	unsigned b = bucket_of(t->id);
	t->hnext = buckets[b];
	buckets[b] = t;
	t->prev = NULL;
	t->next = all_head;
	if (all_head)
		all_head->prev = t;
	all_head = t;
	ntables++;
}

static void free_table(srv_table *t)
{
	unsigned b = bucket_of(t->id);
	for (srv_table **pp = &buckets[b]; *pp; pp = &(*pp)->hnext)
		if (*pp == t) {
			*pp = t->hnext;
			break;
		}
	if (t->prev)
		t->prev->next = t->next;
	else
		all_head = t->next;
	if (t->next)
		t->next->prev = t->prev;
	ntables--;
	cluster_bots_release(t->id); /* cluster hook: nobody here plays its bots now */
	lws_sul_cancel(&t->bot_sul);
	lws_sul_cancel(&t->roster_sul);
	clock_cancel(t);
	for (int i = 0; i < t->nlog; i++)
		free(t->log[i]);
	chat_free(t);
	free(t->pm); /* at a stop: a move whose write was finished by writer_stop */
	free(t);
}

static srv_table *new_table(void)
{
	srv_table *t = srv_xcalloc(1, sizeof *t);
	t->idle_since_us = srv_mono_us();
	clock_init(t);
	return t;
}

static void tables_sync(srv_table *t);

/* ---- announcing -------------------------------------------------------------------- */

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
	for (srv_conn *c = t->conns; c; c = c->tnext)
		watchers += c->seat < 0;
	json_object_set_new(o, "spectators", json_integer(watchers));
	json_object_set_new(o, "turn", json_integer(t->game.nturns));
	if (t->status == STORE_PLAYING && !carc_game_over(&t->game))
		json_object_set_new(o, "to_move", json_integer(carc_to_move(&t->game)));
	chat_info(t, o);
	json_object_set_new(o, "created_ms", json_integer(t->created_ms));
	json_object_set_new(o, "updated_ms", json_integer(t->updated_ms));
	char path[64];
	snprintf(path, sizeof path, "/?table=%s", t->id);
	json_object_set_new(o, "invite", json_string(path));
	if (t->status != STORE_VIEW)
		json_object_set_new(o, "clock", clock_json(t));
	return o;
}

static void broadcast_json(srv_table *t, json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s) {
		net_broadcast(t, s, strlen(s));
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

static void announce_table(srv_table *t)
{
	if (!t->conns)
		return;
	broadcast_json(t, json_pack("{s:s, s:o}", "type", "table", "table", tables_info(t)));
}

void tables_recount(srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		t->seat[i].online = 0;
	for (srv_conn *c = t->conns; c; c = c->tnext)
		if (c->seat >= 0 && c->seat < t->nseats)
			t->seat[c->seat].online++;
}

static int timers_stopped; /* the lws context is going: schedule nothing */

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
	if (!t->conns)
		t->idle_since_us = srv_mono_us();
	if (t->conns && !t->roster_pending && !timers_stopped) {
		t->roster_pending = 1;
		lws_sul_schedule(lctx, 0, &t->roster_sul, roster_timer,
		                 (lws_usec_t)ROSTER_MS * LWS_US_PER_MS);
	}
}

/* The game's figures, supply, points by kind (and goods): the part of the
 * state that every move changes, as `"figures":[...],...` with no braces. */
static void game_parts(srv_sb *b, const carc_game *g)
{
	sb_adds(b, "\"figures\":");
	gj_figures(b, g);
	sb_adds(b, ",\"supply\":");
	gj_supply(b, g);
	sb_adds(b, ",\"by_kind\":");
	gj_by_kind(b, g);
	if (g->rules.expansions & CARC_EXP_TRADERS) {
		sb_adds(b, ",\"goods\":");
		gj_goods(b, g);
	}
}

char *tables_state_text(const srv_table *t, int you)
{
	const carc_game *g = &t->game;
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
	gj_rules(&b, &g->rules, es);
	sb_adds(&b, ",\"board\":");
	gj_board(&b, g);
	sb_adds(&b, ",");
	game_parts(&b, g);
	sb_adds(&b, ",\"next\":");
	gj_turn(&b, g);
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

static void announce_move(srv_table *t, const char *entry)
{
	if (!t->conns)
		return;
	srv_sb b;
	sb_init(&b);
	sb_printf(&b, "{\"type\":\"move\",\"table\":\"%s\",\"entry\":", t->id);
	sb_adds(&b, entry);
	sb_adds(&b, ",");
	game_parts(&b, &t->game);
	sb_adds(&b, ",\"next\":");
	gj_turn(&b, &t->game);
	json_t *cj = clock_json(t);
	char *cs = json_dumps(cj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(cj);
	sb_adds(&b, ",\"clock\":");
	sb_adds(&b, cs ? cs : "null");
	free(cs);
	sb_adds(&b, "}");
	net_broadcast(t, b.s, b.len);
	sb_free(&b);
}

char *tables_turn_text(const srv_table *t)
{
	srv_sb b;
	sb_init(&b);
	gj_turn(&b, &t->game);
	return sb_take(&b);
}

/* ---- storing ----------------------------------------------------------------------------- */

static void to_store_seat(const srv_table *t, int i, store_seat *ss)
{
	memset(ss, 0, sizeof *ss);
	ss->seat = i;
	ss->kind = t->seat[i].kind;
	memcpy(ss->name, t->seat[i].name, sizeof ss->name);
	memcpy(ss->level, t->seat[i].level, sizeof ss->level);
	memcpy(ss->spec, t->seat[i].spec, sizeof ss->spec);
	memcpy(ss->token_hash, t->seat[i].token_hash, sizeof ss->token_hash);
	snprintf(ss->colour, sizeof ss->colour, "%s", opt_colour_name(t->seat[i].colour));
	ss->account = t->seat[i].account;
}

/* A job for the storage thread about table t; the table cannot leave
 * memory while the job is out. */
static wjob *job_for(srv_table *t, wj_kind kind, void (*done)(wjob *), const srv_origin *o)
{
	wjob *j = writer_job(kind, t->id);
	j->done = done;
	j->tag = t;
	if (o) {
		j->origin = o->conn;
		j->origin_http = o->http;
		j->ref = o->ref ? json_incref(o->ref) : NULL;
	}
	t->pending_ops++;
	return j;
}

wjob *tables_job(srv_table *t, int kind, void (*done)(wjob *), const srv_origin *o)
{
	return job_for(t, (wj_kind)kind, done, o);
}

void tables_job_done(srv_table *t)
{
	t->pending_ops--;
}

void tables_hold(srv_table *t)
{
	t->pending_ops++;
}

static void origin_of(const wjob *j, srv_origin *o)
{
	o->conn = j->origin;
	o->http = j->origin_http;
	o->ref = j->ref;
}

static wjob *create_job(srv_table *t, const char *record, void (*done)(wjob *),
                        const srv_origin *o)
{
	wjob *j = job_for(t, WJ_CREATE, done, o);
	store_game *sg = &j->game;
	snprintf(sg->id, sizeof sg->id, "%s", t->id);
	sg->status = t->status;
	sg->players = t->opts.rules.players;
	sg->farmers = t->opts.rules.farmers;
	sg->small_city = t->opts.rules.small_city;
	snprintf(sg->farm_scoring, sizeof sg->farm_scoring, "%s",
	         carc_farm_scoring_name(t->opts.rules.farm_scoring));
	json_t *oj = opt_to_json(&t->opts);
	if (record) /* the size, for the upload totals at start (store.h upload_usage) */
		json_object_set_new(oj, "record_bytes", json_integer((json_int_t)strlen(record)));
	sg->expansions = json_dumps(json_object_get(oj, "expansions"), JSON_COMPACT);
	sg->options = json_dumps(oj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(oj);
	sg->seed = t->opts.seed;
	sg->record = record ? srv_xstrdup(record) : NULL;
	sg->created_ms = t->created_ms;
	sg->updated_ms = t->updated_ms;
	sg->nseats = t->nseats;
	for (int i = 0; i < t->nseats; i++)
		to_store_seat(t, i, &sg->seats[i]);
	return j;
}

static void status_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
}

/* ---- bots ---------------------------------------------------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void bot_timer(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, bot_sul);
	if (t->bot_state != 1 || t->game.nturns != t->bot_turn || carc_game_over(&t->game) || t->pm) {
		t->bot_state = 0;
		return;
	}
	int p = carc_to_move(&t->game);
	t->bot_state = 2;
	uint64_t seed = mix64(t->opts.seed ^ mix64(((uint64_t)p << 32) | (uint64_t)t->bot_turn));
	bots_submit(t, &t->game, clock_bot_spec(t, p), seed, t->bot_turn, cfg->bot_max_time);
}

/* A bot seat's spec as stored: a game of an older version may hold any
 * spec a client sent then. It is held to today's ceilings like a level's
 * (in memory; the store keeps what it has). */
static void bot_spec_loaded(srv_table *t, int seat)
{
	srv_seat *s = &t->seat[seat];
	char out[STORE_SPEC_SIZE], why[256], err[256];
	int rc = bots_clamp(cfg, s->spec, out, sizeof out, why, sizeof why, err, sizeof err);
	if (rc < 0) {
		srv_error("table=%s seat=%d bot '%s': %s (its moves will be the first legal ones)",
		          t->id, seat, s->spec, err);
	} else if (rc == 1) {
		srv_event("table=%s seat=%d bot %s is held to the ceilings as %s (%s)", t->id, seat,
		          s->spec, out, why);
		memcpy(s->spec, out, sizeof s->spec);
	}
}

/* If a bot is to move, schedules it after the table's pause. */
static void bot_kick(srv_table *t)
{
	clock_turn(t); /* a new turn's deadline (clock.c) */
	if (t->status != STORE_PLAYING || carc_game_over(&t->game) || t->bot_state || t->pm ||
	    timers_stopped || t->clock.busy)
		return;
	int p = carc_to_move(&t->game);
	if (!clock_bot_plays(t, p))
		return;
	if (!cluster_bots_mine(t->id))
		return; /* cluster hook: another process plays this table's bots */
	t->bot_state = 1;
	t->bot_turn = t->game.nturns;
	/* a move whose time ran out is played at once, without the pause */
	int delay = clock_timeout_move(t) ? 0 : t->opts.bot_delay_ms;
	lws_sul_schedule(lctx, 0, &t->bot_sul, bot_timer, (lws_usec_t)delay * LWS_US_PER_MS);
}

/* clock.c: the deadline passed; the takeover bot plays the move now. */
static void clock_due(srv_table *t) { bot_kick(t); }

/* The bot's pause after a failed store: it thinks again only once writes
 * work (a bot that thinks for seconds would burn them on a move that
 * cannot be stored), checking every WRITER_PROBE_MS. */
static void bot_wait_storage(lws_sorted_usec_list_t *sul)
{
	srv_table *t = lws_container_of(sul, srv_table, bot_sul);
	if (t->bot_state == 1 && !writer_ok() && !timers_stopped) {
		lws_sul_schedule(lctx, 0, &t->bot_sul, bot_wait_storage,
		                 (lws_usec_t)WRITER_PROBE_MS * LWS_US_PER_MS);
		return;
	}
	bot_timer(sul);
}

/* After a failed store: the bot tries again after its pause, at least
 * WRITER_PROBE_MS, and not before writes work again. */
static void bot_retry(srv_table *t)
{
	bot_kick(t);
	if (t->bot_state == 1) {
		int ms = t->opts.bot_delay_ms > WRITER_PROBE_MS ? t->opts.bot_delay_ms : WRITER_PROBE_MS;
		lws_sul_schedule(lctx, 0, &t->bot_sul, bot_wait_storage, (lws_usec_t)ms * LWS_US_PER_MS);
	}
}

/* What a client is told when a write failed: why, in plain words (no SQL:
 * the details are in the log), and what became of the request. */
static void storage_msg(char *msg, size_t size, const wjob *j, const char *what)
{
	snprintf(msg, size, "the game database is unavailable: %s; %s", store_fault_text(j->fault),
	         what);
}

/* ---- moves ----------------------------------------------------------------------------------- */

/* A move checked by the engine, waiting for the storage thread. */
struct srv_pending_move {
	carc_game next;   /* the game after the move */
	int player, turn, points, bot;
	carc_move m;
};

static void move_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_pending_move *pm = t->pm;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	t->pm = NULL;
	if (j->conflict) {
		/* cluster hook: another process stored a move for this turn first */
		api_move_done(&o, t, SE_STALE_TURN,
		              "another move was accepted for this turn first; nothing of yours changed");
		free(pm);
		tables_sync(t);
		return;
	}
	if (j->failed) {
		/* the details went to the log (writer_drain); the client learns why */
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the move was not stored and nothing changed");
		api_move_done(&o, t, SE_STORAGE, msg);
		if (pm->bot)
			bot_retry(t); /* try again after a pause (a full disk may clear) */
		free(pm);
		return;
	}
	carc_game_copy(&t->game, &pm->next);
	t->log[t->nlog++] = (char *)j->move.entry; /* the entry is the table's now */
	j->move.entry = NULL;
	t->updated_ms = j->move.at_ms;
	int over = j->has_result;
	if (over)
		t->status = STORE_OVER;
	clock_moved(t, pm->player, j->move.at_ms);
	const carc_turn *tu = &t->game.turns[pm->turn];
	if (carc_move_is_discard(pm->m))
		srv_event("table=%s event=move turn=%d player=%d tile=%s discarded", t->id, pm->turn,
		          pm->player, carc_tile_name(tu->type));
	else
		srv_event("table=%s event=move turn=%d player=%d tile=%s x=%d y=%d rot=%d meeple=%s "
		          "scored=%d",
		          t->id, pm->turn, pm->player, carc_tile_name(tu->type), carc_move_x(pm->m),
		          carc_move_y(pm->m), carc_move_rot(pm->m),
		          carc_move_seg(pm->m) == CARC_SEG_NONE ? "none" : "yes", pm->points);
	free(pm);
	metrics_move(1);
	announce_move(t, t->log[t->nlog - 1]);
	if (over) {
		srv_event("table=%s event=over scores=%s winners=%s", t->id, j->result.scores,
		          j->result.winners);
		announce_table(t);
	}
	api_move_done(&o, t, SE_OK, NULL);
	if (over)
		cluster_bots_release(t->id); /* cluster hook */
	if (t->cl_want > t->nlog || t->cl_stale)
		tables_sync(t); /* cluster hook: others moved while this move was stored */
	bot_kick(t);
}

/* Accounts: a finished game is rated in the transaction of its result
 * when ratings_prepare says so (ratings.h): after its last move, or when a
 * resignation ends it (`resigner`, -1: none, counts as forfeited). */
static void rate_hook(const srv_table *t, const carc_game *g, int resigner, store_result *r)
{
	int sc[CARC_MAX_PLAYERS];
	carc_game_scores(g, sc);
	rt_seat rs[CARC_MAX_PLAYERS];
	for (int i = 0; i < t->nseats; i++)
		rs[i] = (rt_seat){t->seat[i].kind, t->seat[i].account, t->seat[i].spec, sc[i],
		                  t->seat[i].forfeited || i == resigner};
	ratings_prepare(r, rs, t->nseats);
}

/* Checks m for the player to move with the engine and hands the move to the
 * storage thread; move_done announces it once it is stored. Returns
 * SE_PENDING, or an error with nothing changed. */
static srv_err apply_move(srv_table *t, carc_move m, const srv_origin *o, int bot, char *err,
                          size_t errsize)
{
	if (t->pm) {
		snprintf(err, errsize, "a move for turn %d is being stored", t->game.nturns);
		return SE_STALE_TURN;
	}
	if (t->clock.busy) {
		snprintf(err, errsize, "a resignation is being stored");
		return SE_STALE_TURN;
	}
	srv_pending_move *pm = srv_xmalloc(sizeof *pm);
	carc_events ev;
	char e[CARC_ERRMSG_SIZE];
	carc_game_copy(&pm->next, &t->game);
	int player = carc_to_move(&pm->next);
	carc_status st = carc_apply(&pm->next, m, &ev, e);
	if (st != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		free(pm);
		return st == CARC_ERR_GAME_OVER ? SE_GAME_OVER : SE_ILLEGAL;
	}
	pm->player = player;
	pm->turn = pm->next.nturns - 1;
	pm->m = m;
	pm->bot = bot;
	pm->points = 0;
	for (int i = 0; i < ev.n; i++)
		if (!ev.ev[i].final)
			pm->points += ev.ev[i].points[player];
	wjob *j = job_for(t, WJ_MOVE, move_done, o);
	j->move = (store_move){.turn = pm->turn, .player = player, .move = m,
	                       .tile = pm->next.turns[pm->turn].type,
	                       .entry = gj_log_entry(&t->game, &pm->next, pm->turn, &ev),
	                       .at_ms = srv_now_ms()};
	if (carc_game_over(&pm->next)) {
		srv_sb a;
		sb_init(&a);
		gj_scores(&a, &pm->next);
		j->result.scores = sb_take(&a);
		sb_init(&a);
		gj_by_kind(&a, &pm->next);
		j->result.by_kind = sb_take(&a);
		sb_init(&a);
		gj_winners(&a, &pm->next);
		j->result.winners = sb_take(&a);
		j->result.at_ms = j->move.at_ms;
		j->has_result = 1;
		rate_hook(t, &pm->next, -1, &j->result);
	}
	t->pm = pm;
	writer_submit(j);
	return SE_PENDING;
}

void tables_bots_drain(void)
{
	void *tag;
	int turn;
	carc_move m;
	while (bots_poll(&tag, &turn, &m)) {
		srv_table *t = tag;
		t->bot_state = 0;
		if (t->status != STORE_PLAYING || turn != t->game.nturns || carc_game_over(&t->game) ||
		    t->pm || !cluster_bots_have(t->id)) /* cluster hook: its lock was lost meanwhile */
			continue;
		char err[256];
		srv_err e = m == CARC_MOVE_NONE ? SE_ILLEGAL : apply_move(t, m, NULL, 1, err, sizeof err);
		if (e == SE_ILLEGAL) {
			/* a bot bug must not stall the game: play the first legal move */
			srv_error("table=%s turn=%d bot '%s' gave an illegal move; playing the first legal one",
			          t->id, turn, t->seat[carc_to_move(&t->game)].spec);
			static carc_move buf[CARC_MAX_MOVES];
			if (carc_legal_moves(&t->game, buf, CARC_MAX_MOVES) > 0)
				e = apply_move(t, buf[0], NULL, 1, err, sizeof err);
		}
		if (e != SE_PENDING)
			srv_error("table=%s turn=%d bot move failed: %s", t->id, turn, err);
	}
	analysis_drain(); /* the analyses' moves come back from the same pool */
}

int tables_seat_of(const srv_table *t, const char *token)
{
	if (!token || !*token)
		return -1;
	char h[STORE_TOKEN_HASH_SIZE];
	srv_token_hash(token, h);
	int seat = -1;
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_HUMAN && !t->seat[i].pending &&
		    srv_token_eq(t->seat[i].token_hash, h) && seat < 0)
			seat = i;
	return seat;
}

/* The seat a token holds at a table whose game is being played, for a
 * move or a resignation: SE_OK and *seat, or the refusal in err (no_token:
 * what is said without a token; not_started: while seats are open). */
static srv_err playing_seat(srv_table *t, const char *token, const char *no_token,
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
	if (t->status == STORE_OVER || carc_game_over(&t->game)) {
		snprintf(err, errsize, "the game is over");
		return SE_GAME_OVER;
	}
	return SE_OK;
}

srv_err tables_move(srv_table *t, const char *token, const json_t *move, int turn,
                    const srv_origin *o, char *err, size_t errsize)
{
	int seat;
	srv_err e = playing_seat(t, token, "a move needs the seat's token",
	                         "the game has not started: seats are still open", &seat, err, errsize);
	if (e != SE_OK)
		return e;
	/* a stale turn first: a client whose view is old (another process
	 * took the turn) hears that, not whose turn it is now */
	if (turn >= 0 && turn != t->game.nturns) {
		snprintf(err, errsize, "the move is for turn %d but the game is at turn %d", turn,
		         t->game.nturns);
		return SE_STALE_TURN;
	}
	if (t->seat[seat].forfeited) {
		snprintf(err, errsize, "seat %d was given up: a bot plays it to the end", seat);
		return SE_FORFEITED;
	}
	int to_move = carc_to_move(&t->game);
	if (seat != to_move) {
		snprintf(err, errsize, "seat %d is not to move: seat %d is", seat, to_move);
		return SE_NOT_YOUR_TURN;
	}
	carc_move m;
	if (gj_parse_move(&t->game, move, &m, err, errsize))
		return SE_MALFORMED;
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
		api_resign_done(&o, t, seat, SE_STORAGE, msg);
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
	api_resign_done(&o, t, seat, SE_OK, NULL);
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
	if (t->pm || t->clock.busy) {
		snprintf(err, errsize, "a move for turn %d is being stored: try again", t->game.nturns);
		return SE_STALE_TURN;
	}
	int ends = t->nseats == 2;
	wjob *j = job_for(t, WJ_CLOCK, resign_done, o);
	j->seatno = seat;
	clock_resign(t, seat, ends, &j->clock);
	if (ends) {
		/* the game ends here: the scores as they stand, the other seat wins */
		srv_sb a;
		sb_init(&a);
		gj_scores(&a, &t->game);
		j->result.scores = sb_take(&a);
		sb_init(&a);
		gj_by_kind(&a, &t->game);
		j->result.by_kind = sb_take(&a);
		sb_init(&a);
		sb_printf(&a, "[%d]", 1 - seat);
		j->result.winners = sb_take(&a);
		j->result.at_ms = srv_now_ms();
		j->has_result = 1;
		rate_hook(t, &t->game, seat, &j->result);
	}
	writer_submit(j);
	return SE_PENDING;
}

/* ---- seats --------------------------------------------------------------------------------- */

static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n >= STORE_NAME_SIZE)
		return 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p < 32 || *p == 127)
			return 0;
	return 1;
}

int tables_seat_reserved(const srv_seat *s)
{
	return s->kind == STORE_SEAT_HUMAN &&
	       !strncmp(s->token_hash, SRV_RESERVED_PREFIX, strlen(SRV_RESERVED_PREFIX));
}

static int table_full(const srv_table *t)
{
	for (int i = 0; i < t->nseats; i++)
		if (t->seat[i].kind == STORE_SEAT_OPEN || t->seat[i].pending ||
		    tables_seat_reserved(&t->seat[i]))
			return 0;
	return 1;
}

static void start_if_full(srv_table *t)
{
	if (t->status != STORE_OPEN || !table_full(t))
		return;
	t->status = STORE_PLAYING;
	t->updated_ms = srv_now_ms();
	wjob *j = job_for(t, WJ_STATUS, status_done, NULL);
	j->status = STORE_PLAYING;
	j->at_ms = t->updated_ms;
	writer_submit(j);
	srv_event("table=%s event=started players=%d", t->id, t->nseats);
	bot_kick(t);
}

static void join_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	srv_seat *se = &t->seat[j->seatno];
	if (j->conflict) {
		/* cluster hook: another process gave the seat away first */
		int colour = se->colour;
		memset(se, 0, sizeof *se);
		se->colour = colour;
		char msg[96];
		snprintf(msg, sizeof msg, "seat %d was taken by someone else first", j->seatno);
		api_join_done(&o, t, -1, NULL, SE_SEAT_TAKEN, msg);
		tables_sync(t);
		return;
	}
	if (j->failed) {
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the seat was not taken");
		int colour = se->colour;
		memset(se, 0, sizeof *se);
		se->colour = colour;
		api_join_done(&o, t, -1, NULL, SE_STORAGE, msg);
		announce_table(t);
		return;
	}
	se->pending = 0;
	srv_event("table=%s event=join seat=%d name=\"%s\"", t->id, j->seatno, se->name);
	start_if_full(t);
	announce_table(t);
	api_join_done(&o, t, j->seatno, j->token, SE_OK, NULL);
}

/* Takes a seat for `name` in memory (kind human, a new token): the token
 * goes to `token` (STORE_TOKEN_SIZE bytes) for the client, the seat keeps
 * its hash. */
static srv_err take_seat(srv_table *t, const char *name, int want, int64_t account, int *seat,
                         char *token, char *err, size_t errsize)
{
	if (t->status != STORE_OPEN) {
		snprintf(err, errsize, "%s", t->status == STORE_VIEW ? "an uploaded record has no seats"
		                                                     : "the game has started: no seat is open");
		return t->status == STORE_VIEW ? SE_READ_ONLY : SE_TABLE_FULL;
	}
	if (!name || !valid_name(name)) {
		snprintf(err, errsize, "a name of 1 to %d characters is needed", STORE_NAME_SIZE - 1);
		return SE_MALFORMED;
	}
	int s = -1;
	if (want >= 0) {
		if (want >= t->nseats) {
			snprintf(err, errsize, "no seat %d: seats are 0..%d", want, t->nseats - 1);
			return SE_MALFORMED;
		}
		if (t->seat[want].kind != STORE_SEAT_OPEN) {
			snprintf(err, errsize, tables_seat_reserved(&t->seat[want])
			         ? "seat %d is kept for a player of the last game (a rematch)"
			         : "seat %d is taken", want);
			return SE_SEAT_TAKEN;
		}
		s = want;
	} else {
		for (int i = 0; i < t->nseats && s < 0; i++)
			if (t->seat[i].kind == STORE_SEAT_OPEN)
				s = i;
		if (s < 0) {
			snprintf(err, errsize, "no seat is open");
			return SE_TABLE_FULL;
		}
	}
	srv_seat *se = &t->seat[s];
	se->kind = STORE_SEAT_HUMAN;
	snprintf(se->name, sizeof se->name, "%s", name);
	se->account = account;
	if (account)
		accounts_seat_token(t->id, s, account, token); /* the account gets it again */
	else
		srv_random_hex(token, 16);
	srv_token_hash(token, se->token_hash);
	*seat = s;
	return SE_OK;
}

srv_err tables_join(srv_table *t, const char *name, int want, const srv_origin *o, char *err,
                    size_t errsize)
{
	if (!t->stored) {
		snprintf(err, errsize, "the table is being created");
		return SE_BUSY;
	}
	int s;
	char token[STORE_TOKEN_SIZE];
	srv_err e = take_seat(t, name, want, o ? o->account : 0, &s, token, err, errsize);
	if (e != SE_OK)
		return e;
	t->seat[s].pending = 1;
	wjob *j = job_for(t, WJ_SEAT, join_done, o);
	memcpy(j->token, token, sizeof j->token);
	explicit_bzero(token, sizeof token);
	to_store_seat(t, s, &j->seat);
	j->seatno = s;
	writer_submit(j);
	return SE_PENDING;
}

/* ---- creating -------------------------------------------------------------------------------- */

static int evictable(const srv_table *t)
{
	return (t->status == STORE_OVER || t->status == STORE_VIEW) && !t->conns && !t->bot_state &&
	       !t->pending_ops;
}

/* At the table limit: finished games nobody watches leave memory at once
 * (they stay in the store and come back when asked for). */
static void make_room(void)
{
	srv_table *t = all_head;
	int freed = 0;
	while (t && freed < 64) {
		srv_table *next = t->next;
		if (evictable(t)) {
			free_table(t);
			freed++;
		}
		t = next;
	}
}

/* A bot is named by its colour and level, "Red bot (medium)", as the web
 * client names it: two bots of one level stay apart. */
static void bot_name(srv_seat *s)
{
	const char *c = opt_colour_name(s->colour);
	int n = snprintf(s->name, sizeof s->name, "%c%s bot (%s)", c[0] - 'a' + 'A', c + 1, s->level);
	if (n >= (int)sizeof s->name)
		memcpy(s->name + sizeof s->name - 4, "..)", 4);
}

static void init_seats(srv_table *t)
{
	t->nseats = t->opts.nseats;
	for (int i = 0; i < t->nseats; i++) {
		srv_seat *s = &t->seat[i];
		memset(s, 0, sizeof *s);
		const srv_seat_opt *so = &t->opts.seat[i];
		s->colour = so->colour;
		if (so->bot) {
			s->kind = STORE_SEAT_BOT;
			memcpy(s->level, so->level, sizeof s->level);
			memcpy(s->spec, so->spec, sizeof s->spec);
			bot_name(s);
		}
	}
}

static void create_done(wjob *j)
{
	srv_table *t = j->tag;
	srv_origin o;
	origin_of(j, &o);
	t->pending_ops--;
	if (j->failed) {
		char msg[256];
		storage_msg(msg, sizeof msg, j, "the table was not made");
		api_create_done(&o, NULL, -1, NULL, NULL, SE_STORAGE, msg);
		if (t->status == STORE_VIEW && j->game.record)
			lim_uploads_release(strlen(j->game.record));
		if (!t->pending_ops && !t->conns)
			free_table(t);
		return;
	}
	t->stored = 1;
	int seat = j->seatno;
	if (t->status == STORE_VIEW) {
		srv_event("table=%s event=uploaded turns=%d", t->id, t->game.nturns);
	} else {
		int bots = 0;
		for (int i = 0; i < t->nseats; i++)
			bots += t->seat[i].kind == STORE_SEAT_BOT;
		srv_event("table=%s event=created players=%d bots=%d farm_scoring=%s small_city=%d",
		          t->id, t->nseats, bots, carc_farm_scoring_name(t->opts.rules.farm_scoring),
		          t->opts.rules.small_city);
		if (seat >= 0)
			srv_event("table=%s event=join seat=%d name=\"%s\"", t->id, seat, t->seat[seat].name);
		if (t->status == STORE_PLAYING) {
			srv_event("table=%s event=started players=%d", t->id, t->nseats);
			bot_kick(t);
		}
	}
	api_create_done(&o, t, seat, seat >= 0 ? j->token : NULL,
	                t->opts.pass_and_play ? (const char(*)[STORE_TOKEN_SIZE])j->tokens : NULL,
	                SE_OK, NULL);
}

int tables_open_of(const char *owner, int64_t *oldest_ms)
{
	int n = 0;
	*oldest_ms = 0;
	for (srv_table *t = all_head; t; t = t->next)
		if (t->status == STORE_OPEN && !t->expired && !strcmp(t->owner, owner)) {
			if (!n || t->created_ms < *oldest_ms)
				*oldest_ms = t->created_ms;
			n++;
		}
	return n;
}

srv_table *tables_create(const srv_table_opts *o, const char *name, const char *owner,
                         const srv_origin *origin, srv_err *code, char *err, size_t errsize)
{
	if (ntables >= cfg->max_tables)
		make_room();
	if (ntables >= cfg->max_tables) {
		snprintf(err, errsize, "the server holds %d tables, its limit", ntables);
		*code = SE_BUSY;
		return NULL;
	}
	if (name && !valid_name(name)) {
		snprintf(err, errsize, "a name of 1 to %d characters is needed", STORE_NAME_SIZE - 1);
		*code = SE_MALFORMED;
		return NULL;
	}
	srv_table *t = new_table();
	t->opts = *o;
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_init(&t->game, &o->rules, o->seed, o->has_pile ? o->pile : NULL,
	                   o->has_pile ? CARC_TILE_TYPES : 0, e) != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		*code = SE_BAD_OPTION;
		free(t);
		return NULL;
	}
	do
		srv_random_hex(t->id, 8);
	while (lookup(t->id));
	init_seats(t);
	clock_init(t);
	snprintf(t->owner, sizeof t->owner, "%s", owner ? owner : "");
	t->status = STORE_OPEN;
	t->created_ms = t->updated_ms = srv_now_ms();
	int seat = -1;
	char token[STORE_TOKEN_SIZE] = "";
	if (name && take_seat(t, name, -1, origin ? origin->account : 0, &seat, token, err,
	                      errsize) != SE_OK)
		seat = -1; /* only bots: the creator watches */
	/* pass-and-play: the creator holds every human seat (one browser) */
	char more[8][STORE_TOKEN_SIZE];
	memset(more, 0, sizeof more);
	if (seat >= 0)
		memcpy(more[seat], token, sizeof more[seat]);
	for (int i = 0; t->opts.pass_and_play && i < t->nseats; i++) {
		if (t->seat[i].kind != STORE_SEAT_OPEN)
			continue;
		char nm[STORE_NAME_SIZE];
		if (t->opts.seat[i].name[0])
			snprintf(nm, sizeof nm, "%s", t->opts.seat[i].name);
		else
			snprintf(nm, sizeof nm, "Player %d", i + 1);
		int s2;
		if (take_seat(t, nm, i, 0, &s2, more[i], err, errsize) == SE_OK && seat < 0) {
			seat = s2;
			memcpy(token, more[i], sizeof token);
		}
	}
	if (table_full(t))
		t->status = STORE_PLAYING;
	link_table(t);
	wjob *j = create_job(t, NULL, create_done, origin);
	j->seatno = seat;
	memcpy(j->token, token, sizeof j->token);
	memcpy(j->tokens, more, sizeof j->tokens);
	explicit_bzero(more, sizeof more);
	explicit_bzero(token, sizeof token);
	writer_submit(j);
	*code = SE_PENDING;
	return t;
}

/* ---- for chat.c and rematch.c -------------------------------------------------------- */

srv_table *tables_new(const srv_table_opts *o, const srv_seat *seats, const char *owner,
                      srv_err *code, char *err, size_t errsize)
{
	if (ntables >= cfg->max_tables)
		make_room();
	if (ntables >= cfg->max_tables) {
		snprintf(err, errsize, "the server holds %d tables, its limit", ntables);
		*code = SE_BUSY;
		return NULL;
	}
	srv_table *t = new_table();
	t->opts = *o;
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_init(&t->game, &o->rules, o->seed, o->has_pile ? o->pile : NULL,
	                   o->has_pile ? CARC_TILE_TYPES : 0, e) != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		*code = SE_BAD_OPTION;
		free(t);
		return NULL;
	}
	do
		srv_random_hex(t->id, 8);
	while (lookup(t->id));
	t->nseats = o->nseats;
	for (int i = 0; i < t->nseats; i++) {
		t->seat[i] = seats[i];
		t->seat[i].online = t->seat[i].pending = 0;
	}
	snprintf(t->owner, sizeof t->owner, "%s", owner ? owner : "");
	t->status = table_full(t) ? STORE_PLAYING : STORE_OPEN;
	t->created_ms = t->updated_ms = srv_now_ms();
	link_table(t);
	return t;
}

wjob *tables_create_job(srv_table *t, int kind, void (*done)(wjob *), const srv_origin *o)
{
	wjob *j = create_job(t, NULL, done, o);
	j->kind = (wj_kind)kind;
	return j;
}

void tables_created(srv_table *t, int ok)
{
	if (!ok) {
		if (!t->pending_ops && !t->conns)
			free_table(t);
		else
			t->expired = 1; /* found no more; freed by the sweep once idle */
		return;
	}
	t->stored = 1;
	srv_event("table=%s event=created players=%d (a rematch)", t->id, t->nseats);
	if (t->status == STORE_PLAYING) {
		srv_event("table=%s event=started players=%d", t->id, t->nseats);
		bot_kick(t);
	}
}

static void seat_changed_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
	(void)t;
}

void tables_seat_changed(srv_table *t, int seat, const char *token, void (*done)(wjob *),
                         const srv_origin *o)
{
	wjob *j = job_for(t, WJ_SEAT, done ? done : seat_changed_done, o);
	snprintf(j->token, sizeof j->token, "%s", token);
	to_store_seat(t, seat, &j->seat);
	j->seatno = seat;
	writer_submit(j);
}

void tables_seat_stored(srv_table *t)
{
	start_if_full(t);
	announce_table(t);
}

/* Plays the turns of `final` again from the start to get each turn's
 * scoring events, filling t->game and t->log. Returns 0 or -1. */
static carc_game before_scratch; /* the loop thread's copy of a game before a move */

static int rebuild_log(srv_table *t, const carc_game *final, char *err, size_t errsize)
{
	carc_game *before = &before_scratch;
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_init(&t->game, &t->opts.rules, t->opts.seed,
	                   t->opts.has_pile ? t->opts.pile : NULL,
	                   t->opts.has_pile ? CARC_TILE_TYPES : 0, e) != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		return -1;
	}
	for (int i = 0; i < final->nturns; i++) {
		const carc_turn *tu = &final->turns[i];
		if (carc_current_tile(&t->game) != tu->type &&
		    carc_set_current_tile(&t->game, tu->type) != CARC_OK) {
			snprintf(err, errsize, "turn %d: tile %s is not in the pile", i,
			         carc_tile_name(tu->type));
			return -1;
		}
		carc_events ev;
		carc_game_copy(before, &t->game);
		if (carc_apply(&t->game, tu->move, &ev, e) != CARC_OK) {
			snprintf(err, errsize, "turn %d: %s", i, e);
			return -1;
		}
		t->log[t->nlog++] = gj_log_entry(before, &t->game, i, &ev);
	}
	return 0;
}

/* Options of a replayed record: rules and seed from the game, the pile from
 * its draw order. */
static void view_opts(srv_table_opts *o, const carc_game *g)
{
	memset(o, 0, sizeof *o);
	o->rules = g->rules;
	o->seed = g->seed;
	o->has_pile = 1;
	for (int i = 0; i < g->npile; i++)
		o->pile[g->pile[i]]++;
	o->nseats = g->rules.players;
}

static int view_from_record(srv_table *t, const char *record, size_t len, char *err,
                            size_t errsize)
{
	carc_game *final = srv_xmalloc(sizeof *final);
	char e[512];
	if (carc_record_replay(record, len, final, e, sizeof e) != CARC_OK) {
		snprintf(err, errsize, "the record does not replay: %s", e);
		free(final);
		return -1;
	}
	view_opts(&t->opts, final);
	/* names from the record's extra keys, when it has them */
	json_t *r = json_loadb(record, len, 0, NULL);
	json_t *seats = json_object_get(r, "seats");
	t->nseats = t->opts.nseats;
	const char *colours[CARC_MAX_PLAYERS];
	int cs[CARC_MAX_PLAYERS];
	for (int i = 0; i < t->nseats; i++) {
		srv_seat *s = &t->seat[i];
		memset(s, 0, sizeof *s);
		s->kind = STORE_SEAT_HUMAN;
		json_t *rs = json_array_get(seats, (size_t)i);
		const char *nm = json_string_value(json_object_get(rs, "name"));
		snprintf(s->name, sizeof s->name, "%s", nm && valid_name(nm) ? nm : "");
		if (!s->name[0])
			snprintf(s->name, sizeof s->name, "Player %d", i + 1);
		colours[i] = json_string_value(json_object_get(rs, "colour"));
	}
	opt_colours_from_names(colours, t->nseats, cs);
	for (int i = 0; i < t->nseats; i++)
		t->seat[i].colour = cs[i];
	json_decref(r);
	int rc = rebuild_log(t, final, err, errsize);
	free(final);
	return rc;
}

srv_table *tables_create_view(const char *record, size_t len, const srv_origin *origin,
                              srv_err *code, char *err, size_t errsize)
{
	if (ntables >= cfg->max_tables)
		make_room();
	if (ntables >= cfg->max_tables) {
		snprintf(err, errsize, "the server holds %d tables, its limit", ntables);
		*code = SE_BUSY;
		return NULL;
	}
	srv_table *t = new_table();
	if (view_from_record(t, record, len, err, errsize)) {
		for (int i = 0; i < t->nlog; i++)
			free(t->log[i]);
		free(t);
		*code = SE_BAD_RECORD;
		return NULL;
	}
	do
		srv_random_hex(t->id, 8);
	while (lookup(t->id));
	t->status = STORE_VIEW;
	t->created_ms = t->updated_ms = srv_now_ms();
	char *text = srv_xmalloc(len + 1);
	memcpy(text, record, len);
	text[len] = 0;
	link_table(t);
	wjob *j = create_job(t, text, create_done, origin);
	free(text);
	j->seatno = -1;
	writer_submit(j);
	*code = SE_PENDING;
	return t;
}

/* ---- expiry ------------------------------------------------------------------------------------ */

static void delete_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
	/* on a failure the next start removes it (it is still expired then) */
	if (!t->pending_ops && !t->conns && !t->bot_state)
		free_table(t);
}

/* An open table past its expiry: its clients are told and let go, it is
 * found no more and is deleted from the store, then freed. A table with a
 * write in flight (a seat being taken) waits for the next sweep. */
static void expire_if_due(srv_table *t, int64_t now_ms)
{
	if (t->status != STORE_OPEN || t->expired || cfg->open_expiry_s <= 0 || t->pending_ops ||
	    !t->stored || now_ms - t->created_ms < (int64_t)cfg->open_expiry_s * 1000)
		return;
	t->expired = 1;
	srv_event("table=%s event=expired open_s=%lld", t->id,
	          (long long)((now_ms - t->created_ms) / 1000));
	if (t->conns) {
		char msg[200];
		snprintf(msg, sizeof msg, "{\"type\":\"expired\",\"table\":\"%s\",\"message\":"
		         "\"the table was not started within %d s and is closed (--open-expiry)\"}",
		         t->id, cfg->open_expiry_s);
		net_broadcast(t, msg, strlen(msg));
		srv_conn *c = t->conns;
		while (c) {
			srv_conn *next = c->tnext;
			c->table = NULL;
			c->tnext = c->tprev = NULL;
			net_close_after_flush(c);
			c = next;
		}
		t->conns = NULL;
		t->nconns = 0;
	}
	lws_sul_cancel(&t->roster_sul);
	t->roster_pending = 0;
	writer_submit(job_for(t, WJ_DELETE, delete_done, NULL));
}

/* ---- loading ----------------------------------------------------------------------------------- */

static int load_game(void *ctx, const store_game *sg, const store_move *mv, int n)
{
	carc_game *before = &before_scratch;
	srv_table **out = ctx;
	srv_table *t = new_table();
	char err[512];
	snprintf(t->id, sizeof t->id, "%s", sg->id);
	t->status = sg->status;
	t->stored = 1;
	t->created_ms = sg->created_ms;
	t->updated_ms = sg->updated_ms;
	if (sg->status == STORE_VIEW) {
		if (!sg->record || view_from_record(t, sg->record, strlen(sg->record), err, sizeof err))
			goto bad;
		goto done;
	}
	json_t *oj = json_loads(sg->options ? sg->options : "{}", 0, NULL);
	if (oj) {
		json_object_del(oj, "seats"); /* seats come from their own table */
		/* the seed column holds the seed exactly (its 64 bits); options
		 * written before seeds over 2^63 - 1 were stored as strings hold
		 * a negative number there */
		json_object_set_new(oj, "seed", opt_seed_json(sg->seed));
	}
	int rc = opt_parse(oj, cfg->bot_delay_ms, &t->opts, err, sizeof err);
	json_decref(oj);
	if (rc)
		goto bad;
	t->nseats = t->opts.nseats;
	const char *colours[CARC_MAX_PLAYERS] = {NULL};
	for (int i = 0; i < sg->nseats; i++) {
		const store_seat *ss = &sg->seats[i];
		if (ss->seat < 0 || ss->seat >= t->nseats)
			continue;
		srv_seat *s = &t->seat[ss->seat];
		s->kind = ss->kind;
		memcpy(s->name, ss->name, sizeof s->name);
		memcpy(s->level, ss->level, sizeof s->level);
		memcpy(s->spec, ss->spec, sizeof s->spec);
		memcpy(s->token_hash, ss->token_hash, sizeof s->token_hash);
		s->account = ss->account;
		colours[ss->seat] = ss->colour;
		if (s->kind == STORE_SEAT_BOT)
			bot_spec_loaded(t, ss->seat);
	}
	int cs[CARC_MAX_PLAYERS];
	opt_colours_from_names(colours, t->nseats, cs);
	for (int i = 0; i < t->nseats; i++)
		t->seat[i].colour = cs[i];
	if (t->status == STORE_OPEN && table_full(t)) {
		/* the last seat was stored, the status change after it was not (a
		 * storage fault): the game has started all the same */
		t->status = STORE_PLAYING;
		wjob *sj = job_for(t, WJ_STATUS, status_done, NULL);
		sj->status = STORE_PLAYING;
		sj->at_ms = t->updated_ms;
		writer_submit(sj);
	}
	char e[CARC_ERRMSG_SIZE];
	if (carc_game_init(&t->game, &t->opts.rules, t->opts.seed,
	                   t->opts.has_pile ? t->opts.pile : NULL,
	                   t->opts.has_pile ? CARC_TILE_TYPES : 0, e) != CARC_OK) {
		snprintf(err, sizeof err, "%s", e);
		goto bad;
	}
	for (int i = 0; i < n; i++) {
		if (mv[i].turn != i) {
			snprintf(err, sizeof err, "move %d is numbered %d", i, mv[i].turn);
			goto bad;
		}
		if (mv[i].tile >= 0 && carc_current_tile(&t->game) != mv[i].tile &&
		    carc_set_current_tile(&t->game, mv[i].tile) != CARC_OK) {
			snprintf(err, sizeof err, "turn %d: tile %s not in the pile", i,
			         carc_tile_name(mv[i].tile));
			goto bad;
		}
		carc_events ev;
		carc_game_copy(before, &t->game);
		if (carc_apply(&t->game, mv[i].move, &ev, e) != CARC_OK) {
			snprintf(err, sizeof err, "turn %d: %s", i, e);
			goto bad;
		}
		t->log[t->nlog++] = gj_log_entry(before, &t->game, i, &ev);
	}
	if (t->status == STORE_PLAYING && carc_game_over(&t->game))
		t->status = STORE_OVER;
	clock_init(t);
	store_clock sc;
	char *cstate = NULL;
	int crc = db->ops->load_clock(db, t->id, &sc, &cstate, err);
	if (crc < 0)
		srv_error("table=%s clock: %s (the turn starts afresh)", t->id, err);
	clock_restore(t, crc == 1 ? &sc : NULL, srv_now_ms());
	free(cstate);
done:
	link_table(t);
	*out = t;
	return 0;
bad:
	srv_error("table=%s cannot be loaded: %s", sg->id, err);
	for (int i = 0; i < t->nlog; i++)
		free(t->log[i]);
	free(t);
	*out = NULL;
	return 0;
}

static int load_active_one(void *ctx, const store_game *sg, const store_move *mv, int n)
{
	int *count = ctx;
	srv_table *t = NULL;
	load_game(&t, sg, mv, n);
	if (t) {
		(*count)++;
		if (t->status == STORE_PLAYING)
			srv_event("table=%s event=resumed turn=%d", t->id, t->game.nturns);
		bot_kick(t);
	}
	return 0;
}

srv_table *tables_find(const char *id)
{
	srv_table *t = lookup(id);
	/* cluster hook: a table changed by another process meanwhile, or one
	 * that nobody here watches (its notifications may still be on the way:
	 * a client arriving here sees what another process answered before) */
	if (t && !t->expired &&
	    (t->cl_stale || (cluster_on() && !t->conns && t->status <= STORE_PLAYING)))
		tables_sync(t);
	if (t || !id[0] || strlen(id) >= STORE_ID_SIZE)
		return t && !t->expired ? t : NULL;
	char err[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int rc = db->ops->load_one(db, id, load_game, &t, err);
	metrics_store_read(srv_mono_us() - t0);
	if (rc < 0)
		srv_error("loading table %s: %s", id, err);
	if (rc != 1 || !t)
		return NULL;
	expire_if_due(t, srv_now_ms()); /* an open table left in the store */
	return t->expired ? NULL : t;
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
	json_t *ended = clock_ended_json(t);
	if (ended)
		json_object_set_new(extra, "ended", ended);
	char *es = json_dumps(extra, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(extra);
	char *rec;
	if (carc_game_over(&t->game) || t->status == STORE_VIEW || t->status == STORE_OVER) {
		/* a game ended early (resigned) is the record of the moves played,
		 * without "final" (the spec's unfinished game), and "ended" says how */
		rec = carc_record_write(&t->game, es);
	} else {
		/* the seed fixes the tiles still to come: withheld until the end */
		carc_game *g = srv_xmalloc(sizeof *g);
		carc_game_copy(g, &t->game);
		g->seed = 0;
		rec = carc_record_write(g, es);
		free(g);
	}
	free(es);
	return rec;
}

/* The lobby's order of tables in memory: newest first, by created time,
 * then by id. A cursor is "<created_ms>-<id>" of the last table of a page. */
static int list_before(const srv_table *t, int64_t ms, const char *id)
{
	return t->created_ms < ms || (t->created_ms == ms && strcmp(t->id, id) < 0);
}

static int list_listed(const srv_table *t, int which)
{
	if (t->opts.private_ || t->expired)
		return 0; /* a private table is reached by its id only (the invite) */
	return which == 2 || (which == 0 && t->status == STORE_OPEN) ||
	       (which == 1 && t->status == STORE_PLAYING);
}

json_t *tables_list(int which, const char *before, int limit, char *err, size_t errsize)
{
	int64_t ms = INT64_MAX;
	char id[STORE_ID_SIZE] = "\x7f";
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
	/* the page: the `limit + 1` first tables after the cursor, kept sorted
	 * newest first while every table is looked at once */
	int cap = limit + 1, n = 0;
	const srv_table **page = srv_xmalloc((size_t)cap * sizeof *page);
	for (const srv_table *t = all_head; t; t = t->next) {
		if (!list_listed(t, which) || !list_before(t, ms, id))
			continue;
		if (n == cap && !list_before(page[n - 1], t->created_ms, t->id))
			continue; /* older than the whole page */
		int k = n < cap ? n++ : n - 1;
		while (k > 0 && list_before(page[k - 1], t->created_ms, t->id)) {
			page[k] = page[k - 1];
			k--;
		}
		page[k] = t;
	}
	int more = n > limit;
	if (more)
		n = limit;
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, tables_info(page[i]));
	json_t *o = json_pack("{s:o, s:b}", "tables", a, "more", more);
	if (more && n) {
		char cur[64];
		snprintf(cur, sizeof cur, "%lld-%s", (long long)page[n - 1]->created_ms,
		         page[n - 1]->id);
		json_object_set_new(o, "next_before", json_string(cur));
	}
	free(page);
	return o;
}

/* A finished game as the lobby lists it: the table description without
 * what only a table in memory knows (who is online, spectators), with the
 * result. */
static json_t *finished_info(const store_game *g, const store_result *r, int nturns)
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

static int add_finished(void *ctx, const store_game *g, const store_result *r, int nturns)
{
	finished_page *p = ctx;
	if ((int)json_array_size(p->tables) >= p->limit) {
		p->more = 1; /* the one past the page */
		return -1;
	}
	json_array_append_new(p->tables, finished_info(g, r, nturns));
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

json_t *tables_my_game(const char *id, int seat)
{
	const srv_table *t = lookup(id);
	if (!t || t->expired || seat < 0 || seat >= t->nseats)
		return NULL;
	json_t *players = json_array();
	for (int i = 0; i < t->nseats; i++)
		json_array_append_new(players, json_string(t->seat[i].name));
	int turn = t->status == STORE_PLAYING && !carc_game_over(&t->game) &&
	           carc_to_move(&t->game) == seat;
	int64_t dl = turn ? clock_deadline_ms(t) : 0;
	return json_pack("{s:s, s:i, s:s, s:b, s:o, s:I, s:o}", "id", t->id, "seat", seat, "status",
	                 store_status_name(t->status), "your_turn", turn, "players", players,
	                 "updated_ms", (json_int_t)t->updated_ms, "deadline_ms",
	                 dl > 0 ? json_integer(dl) : json_null());
}

void tables_metrics(int *by_status, int *pausing, int *thinking)
{
	for (int i = 0; i < STORE_STATUS_COUNT; i++)
		by_status[i] = 0;
	*pausing = *thinking = 0;
	for (srv_table *t = all_head; t; t = t->next) {
		if (t->status >= 0 && t->status < STORE_STATUS_COUNT)
			by_status[t->status]++;
		*pausing += t->bot_state == 1;
		*thinking += t->bot_state == 2;
	}
}

void tables_counts(int *tables, int *playing, int *conns)
{
	*tables = ntables;
	*playing = 0;
	*conns = 0;
	for (srv_table *t = all_head; t; t = t->next) {
		*playing += t->status == STORE_PLAYING;
		*conns += t->nconns;
	}
}

/* Seconds between two sweeps: every 10 s, more often for a short expiry. */
static int sweep_s(void)
{
	int s = cfg->open_expiry_s > 0 ? cfg->open_expiry_s / 4 : 10;
	return s < 1 ? 1 : s > 10 ? 10 : s;
}

/* Finished and view tables that nobody watched for a while leave memory;
 * open tables past their expiry are removed. */
static void evict(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	int64_t now = srv_mono_us(), now_ms = srv_now_ms();
	srv_table *t = all_head;
	while (t) {
		srv_table *next = t->next;
		if (evictable(t) && now - t->idle_since_us > (int64_t)cfg->idle_evict_s * 1000000)
			free_table(t);
		else
			expire_if_due(t, now_ms);
		t = next;
	}
	lws_sul_schedule(lctx, 0, &evict_sul, evict, (lws_usec_t)sweep_s() * LWS_USEC_PER_SEC);
}

int tables_start(const srv_config *c, store *st, struct lws_context *ctx)
{
	cfg = c;
	db = st;
	lctx = ctx;
	lim_start(c);
	clock_setup(ctx, c, clock_due);
	chat_start(c, st);
	if (analysis_start(c, st))
		return -1;
	int count = 0;
	char err[STORE_ERR_SIZE];
	if (opt_levels_init(c, 1, err, sizeof err)) {
		srv_error("%s", err);
		return -1;
	}
	if (db->ops->load_active(db, load_active_one, &count, err)) {
		srv_error("loading games: %s", err);
		return -1;
	}
	long uploads = 0;
	int64_t bytes = 0;
	if (db->ops->upload_usage(db, &uploads, &bytes, err)) {
		srv_error("counting uploaded records: %s", err);
		return -1;
	}
	lim_uploads_init(uploads, bytes);
	srv_event("loaded %d unfinished games from the store (%ld uploaded records, %lld bytes, "
	          "are loaded when asked for)", count, uploads, (long long)bytes);
	/* open tables that expired while the server was down go now */
	int64_t now_ms = srv_now_ms();
	for (srv_table *t = all_head; t; t = t->next)
		expire_if_due(t, now_ms);
	lws_sul_schedule(lctx, 0, &evict_sul, evict, (lws_usec_t)sweep_s() * LWS_USEC_PER_SEC);
	return 0;
}

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

static void tables_sync(srv_table *t)
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
	/* a bot to move (or a timeout's, a forfeited seat's), or a stale table
	 * with a bot (its turn may have come) */
	for (srv_table *t = all_head; t && n < max; t = t->next)
		if (t->status == STORE_PLAYING && !t->expired && !t->bot_state && !t->pm &&
		    !carc_game_over(&t->game) && (clock_bot_plays(t, carc_to_move(&t->game)) ||
		     (t->cl_stale && has_bot(t))))
			memcpy(ids[n++], t->id, STORE_ID_SIZE);
	return n;
}

static int cl_claimed(const char *id)
{
	srv_table *t = lookup(id);
	if (t)
		tables_sync(t); /* what its last player did, then its bot moves */
	return t && t->nlog > 0;
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

void tables_stop_timers(void)
{
	timers_stopped = 1;
	clock_stop_all();
	lws_sul_cancel(&evict_sul);
	for (srv_table *t = all_head; t; t = t->next) {
		clock_cancel(t);
		lws_sul_cancel(&t->bot_sul);
		lws_sul_cancel(&t->roster_sul);
	}
}

void tables_stop(void)
{
	while (all_head)
		free_table(all_head);
	analysis_stop();
	lim_stop();
}
