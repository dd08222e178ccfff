/*
 * tables.c - the registry of tables (see tables.h): the id hash and the
 * list of tables in memory, making and freeing one, the jobs of the storage
 * thread about a table, loading at start and on demand (tables_find),
 * expiry and eviction, start and stop. The rest of the table domain is cut
 * by concern into seats.c, create.c, moves.c, botpace.c, views.c and sync.c,
 * which share this file's state through tables_internal.h; the invariants
 * below hold across all of them.
 *
 * Invariants:
 *  - t->game is always a state the store holds: a move becomes part of it
 *    only in move_done, after the storage thread has committed it; while
 *    it is being stored (t->pm) no other move is taken for the table.
 *  - t->log[i] is the log entry of step i of t->game (a step is one
 *    player's decision); t->nlog == carc_steps_played(t->game).
 *  - A table with a bot job (bot_state != 0), a storage job
 *    (pending_ops) or a client is never freed.
 *  - A table is in memory while it is needed here: a client of this
 *    process is at it, it has a storage or bot job, this process plays its
 *    bots or its time (tables_needs_owner: a PLAYING game with a bot seat,
 *    a clock or a forfeited seat, and with PostgreSQL the table's bot lock
 *    held here, cluster_bots_have), or it was asked for within
 *    --idle-evict. Any other table leaves memory (evict, make_room) and
 *    comes back when asked for (tables_find). Lists of games therefore
 *    come from the store, never from memory (tables_list, tables_finished),
 *    and --max-tables bounds what this process holds.
 *  - At a start only the tables that need timers are loaded: with SQLite
 *    (one process) the games tables_needs_owner names (store op
 *    list_unowned); with PostgreSQL none, and the cluster poll (sync.c,
 *    cl_bots_waiting) finds the ones nobody plays in the store.
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

#include "tables_internal.h"

#define NBUCKETS 8192
/* ids read from the store at once when loading at the start */
#define START_PAGE 256
/* tables make_room frees at once (a walk of the list each time it runs) */
#define MAKE_ROOM_BATCH 64

const srv_config *cfg;
store *db; /* the loop's reading handle; writes go to writer.c */
struct lws_context *lctx;
static srv_table *buckets[NBUCKETS];
srv_table *all_head;
int ntables;
static lws_sorted_usec_list_t evict_sul;
const srv_outbox *box; /* the upper layers (outbox.h) */

int timers_stopped; /* the lws context is going: schedule nothing */

/* ---- the registry ------------------------------------------------------------------ */

static unsigned bucket_of(const char *id)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)id; *p; p++)
		h = (h ^ *p) * 16777619u;
	return h % NBUCKETS;
}

srv_table *lookup(const char *id)
{
	for (srv_table *t = buckets[bucket_of(id)]; t; t = t->hnext)
		if (!strcmp(t->id, id))
			return t;
	return NULL;
}

void link_table(srv_table *t)
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

void free_table(srv_table *t)
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
	if (t->status != STORE_OPEN || t->expired || !t->stored)
		open_forget(t->id); /* an open table stays counted for its maker */
	cluster_bots_release(t->id); /* cluster hook: nobody here plays its bots now */
	lws_sul_cancel(&t->bot_sul);
	lws_sul_cancel(&t->roster_sul);
	lws_sul_cancel(&t->sync_sul);
	clock_cancel(t);
	for (int i = 0; i < t->nlog; i++)
		free(t->log[i]);
	free(t->log);
	chat_free(t);
	pending_move_free(t->pm); /* at a stop: a move whose write writer_stop finished */
	carc_game_free(t->game);
	free(t);
}

void tables_log_push(srv_table *t, char *entry)
{
	if (t->nlog == t->log_cap) {
		t->log_cap = t->log_cap ? 2 * t->log_cap : 128;
		t->log = srv_xrealloc(t->log, sizeof *t->log * (size_t)t->log_cap);
	}
	t->log[t->nlog++] = entry;
}

int tables_step(const srv_table *t)
{
	return carc_steps_played(t->game);
}

int tables_turn(const srv_table *t)
{
	return carc_turns_played(t->game) - (carc_step_kind(t->game) > CARC_STEP_TILE);
}

int table_game_init(srv_table *t, char *err, size_t errsize)
{
	char e[CARC_ERRMSG_SIZE];
	if (!t->game && !(t->game = carc_game_alloc()))
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	if (opt_game_init(&t->opts, t->game, e) != CARC_OK) {
		snprintf(err, errsize, "%s", e);
		return -1;
	}
	return 0;
}

int table_play(srv_table *t, int kind, int player, int tile, carc_move m, carc_events *ev,
               char e[CARC_ERRMSG_SIZE])
{
	int now = carc_step_kind(t->game);
	if (kind != now) {
		const char *name = carc_name(CARC_NAMES_STEP, now);
		snprintf(e, CARC_ERRMSG_SIZE, "%s, but the game is at a step of kind %s",
		         kind < 0 ? "a step of a kind this build does not know"
		                  : carc_name(CARC_NAMES_STEP, kind),
		         name ? name : "none (it is over)");
		return -1;
	}
	if (player >= 0 && player != carc_to_move(t->game)) {
		snprintf(e, CARC_ERRMSG_SIZE, "decided by seat %d, but seat %d decides it", player,
		         carc_to_move(t->game));
		return -1;
	}
	if (tile >= 0 && carc_step_kind(t->game) == CARC_STEP_TILE &&
	    carc_current_tile(t->game) != tile && carc_set_current_tile(t->game, tile) != CARC_OK) {
		snprintf(e, CARC_ERRMSG_SIZE, "tile %s is not in the pile", carc_tile_name(tile));
		return -1;
	}
	return carc_apply(t->game, m, ev, e) == CARC_OK ? 0 : -1;
}

srv_table *new_table(void)
{
	srv_table *t = srv_xcalloc(1, sizeof *t);
	t->idle_since_us = srv_mono_us();
	clock_init(t);
	return t;
}

/* ---- storing ----------------------------------------------------------------------------- */

void to_store_seat(const srv_table *t, int i, store_seat *ss)
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
wjob *job_for(srv_table *t, wj_kind kind, void (*done)(wjob *), const srv_origin *o)
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

void origin_of(const wjob *j, srv_origin *o)
{
	o->conn = j->origin;
	o->http = j->origin_http;
	o->ref = j->ref;
}

void status_done(wjob *j)
{
	srv_table *t = j->tag;
	t->pending_ops--;
}

/* What a client is told when a write failed: why, in plain words (no SQL:
 * the details are in the log), and what became of the request. */
void storage_msg(char *msg, size_t size, const wjob *j, const char *what)
{
	snprintf(msg, size, "the game database is unavailable: %s; %s", store_fault_text(j->fault),
	         what);
}

static int evictable(const srv_table *t);

int tables_needs_owner(const srv_table *t)
{
	if (t->status != STORE_PLAYING || t->expired || carc_game_over(t->game))
		return 0;
	if (t->opts.clock.mode != OPT_CLOCK_NONE)
		return 1;
	/* a bot plays the seat to move (a bot seat, a forfeited one); a person
	 * to move without a clock needs nothing here until they come back, so
	 * such a table does not hold a place in memory (issue 21: a person who
	 * never moves against a bot held one for good) */
	return clock_bot_plays(t, carc_to_move(t->game));
}

/* Whether t holds its place in memory for its people: open or being
 * played, and needed here. */
static int holds_place(const srv_table *t)
{
	return t->status < STORE_OVER && !t->expired && !evictable(t);
}

static int counts_for(const srv_table *t, const char *owner)
{
	if (!strcmp(t->owner, owner))
		return 1;
	for (int i = 0; i < t->nseats; i++)
		if (!strcmp(t->seat_addr[i], owner))
			return 1;
	return 0;
}

int tables_held_by(const char *owner)
{
	int n = 0;
	if (!owner || !owner[0])
		return 0;
	for (const srv_table *t = all_head; t; t = t->next)
		if (holds_place(t) && counts_for(t, owner))
			n++;
	return n;
}

int tables_held_by_account(int64_t account)
{
	int n = 0;
	if (!account)
		return 0;
	for (const srv_table *t = all_head; t; t = t->next) {
		if (!holds_place(t))
			continue;
		for (int i = 0; i < t->nseats; i++)
			if (t->seat[i].kind == STORE_SEAT_HUMAN && t->seat[i].account == account) {
				n++;
				break;
			}
	}
	return n;
}

/* Nothing here needs the table: no client, no job, no move being stored,
 * and no bot or clock this process plays (a bot table whose lock another
 * process holds may go: that process plays it). */
static int evictable(const srv_table *t)
{
	if (t->conns || t->bot_state || t->pending_ops || t->pm || t->expired)
		return 0;
	if (t->status == STORE_OVER || t->status == STORE_VIEW)
		return 1;
	return !tables_needs_owner(t) || (cluster_on() && !cluster_bots_have(t->id));
}

/* At the table limit: tables nobody here needs leave memory at once,
 * finished ones first (they stay in the store and come back when asked
 * for). Returns how many left. */
int make_room(void)
{
	int freed = 0;
	for (int pass = 0; pass < 2 && freed < MAKE_ROOM_BATCH; pass++) {
		srv_table *t = all_head;
		while (t && freed < MAKE_ROOM_BATCH) {
			srv_table *next = t->next;
			if (evictable(t) && (pass || t->status >= STORE_OVER)) {
				free_table(t);
				freed++;
			}
			t = next;
		}
	}
	return freed;
}

/* Whether make_room would free anything. */
static int room_possible(void)
{
	for (const srv_table *t = all_head; t; t = t->next)
		if (evictable(t))
			return 1;
	return 0;
}

static lws_sorted_usec_list_t room_sul;

/* After tables_find loaded past the limit: back under it, between two
 * callbacks (no table pointer is held then). */
static void room_timer(lws_sorted_usec_list_t *sul)
{
	(void)sul;
	while (ntables > cfg->max_tables && make_room())
		;
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
		box->broadcast(t, msg, strlen(msg));
		srv_client *c = t->conns;
		while (c) {
			srv_client *next = c->tnext;
			c->table = NULL;
			c->tnext = c->tprev = NULL;
			box->close_after_flush(c);
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
	srv_table **out = ctx;
	srv_table *t = new_table();
	char err[512];
	snprintf(t->id, sizeof t->id, "%s", sg->id);
	t->status = sg->status;
	t->stored = 1;
	t->seq = sg->seq;
	t->undos = sg->undos;
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
	int rc = opt_parse_stored(oj, cfg->bot_delay_ms, &t->opts, err, sizeof err);
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
	if (table_game_init(t, err, sizeof err))
		goto bad;
	for (int i = 0; i < n; i++) {
		if (mv[i].step != i) { /* the store numbers a game's steps */
			snprintf(err, sizeof err, "move %d is numbered %d", i, mv[i].step);
			goto bad;
		}
		static carc_events ev; /* the loop thread's */
		if (table_play(t, mv[i].kind, mv[i].player, mv[i].tile, mv[i].move, &ev, e)) {
			snprintf(err, sizeof err, "step %d: %s", i, e);
			goto bad;
		}
		tables_log_push(t, gj_log_entry(t->game, &ev));
		if (takeover_marked(mv[i].entry)) /* the takeover bot's move (moves.c) */
			t->log[t->nlog - 1] = takeover_mark(t->log[t->nlog - 1]);
	}
	if (t->status == STORE_PLAYING && carc_game_over(t->game))
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
	free(t->log);
	carc_game_free(t->game);
	free(t);
	*out = NULL;
	return 0;
}

/* One process (SQLite): the games whose bots or clocks go on without a
 * client are loaded at the start, a page of ids at a time; every other
 * table is loaded when it is asked for. 0, or -1 with err. */
static int load_unowned(int *count, char *err)
{
	static char ids[START_PAGE][STORE_ID_SIZE];
	char after[STORE_ID_SIZE] = "";
	for (;;) {
		int n = db->ops->list_unowned(db, after, START_PAGE, ids, err);
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++) {
			if (!lookup(ids[i]) && tables_find(ids[i]))
				(*count)++;
		}
		if (n < START_PAGE)
			return 0;
		memcpy(after, ids[n - 1], sizeof after);
	}
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
	if (t && !t->conns)
		t->idle_since_us = srv_mono_us(); /* asked for: it stays a while */
	if (t || !id[0] || strlen(id) >= STORE_ID_SIZE)
		return t && !t->expired ? t : NULL;
	if (ntables >= cfg->max_tables) {
		/* the caller may hold other tables now: room is made once this
		 * callback is over (room_timer), the limit passed meanwhile */
		if (!room_possible()) {
			srv_error("table=%s not loaded: this process holds %d tables (--max-tables) and "
			          "each is needed here", id, ntables);
			return NULL;
		}
		if (!timers_stopped)
			lws_sul_schedule(lctx, 0, &room_sul, room_timer, 1);
	}
	char err[STORE_ERR_SIZE];
	int64_t t0 = srv_mono_us();
	int rc = db->ops->load_one(db, id, load_game, &t, err);
	metrics_store_read(srv_mono_us() - t0);
	if (rc < 0)
		srv_error("loading table %s: %s", id, err);
	if (rc != 1 || !t)
		return NULL;
	expire_if_due(t, srv_now_ms()); /* an open table left in the store */
	if (t->expired)
		return NULL;
	if (t->status == STORE_PLAYING) /* its game goes on in this process's memory */
		srv_event("table=%s event=resumed turn=%d step=%d", t->id, tables_turn(t),
		          tables_step(t));
	bot_kick(t); /* a bot or a clock due while nobody had it in memory */
	return t;
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

void tables_outbox_set(const srv_outbox *ob)
{
	box = ob;
}

const srv_outbox *tables_outbox(void)
{
	return box;
}

int tables_start(const srv_config *c, store *st, struct lws_context *ctx)
{
	cfg = c;
	db = st;
	lctx = ctx;
	lim_start(c);
	clock_setup(ctx, c, clock_due);
	writer_on_drain(tables_job_committed);
	chat_start(c, st);
	if (analysis_start(c, st))
		return -1;
	int count = 0;
	char err[STORE_ERR_SIZE];
	if (opt_levels_init(c, 1, err, sizeof err)) {
		srv_error("%s", err);
		return -1;
	}
	if (!cluster_on() && load_unowned(&count, err)) {
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
	srv_event("loaded %d unfinished games with bots or clocks from the store (the others, and "
	          "%ld uploaded records, %lld bytes, are loaded when asked for)", count, uploads,
	          (long long)bytes);
	/* open tables that expired while the server was down go now */
	int64_t now_ms = srv_now_ms();
	for (srv_table *t = all_head; t; t = t->next)
		expire_if_due(t, now_ms);
	lws_sul_schedule(lctx, 0, &evict_sul, evict, (lws_usec_t)sweep_s() * LWS_USEC_PER_SEC);
	return 0;
}

void tables_stop_timers(void)
{
	timers_stopped = 1;
	clock_stop_all();
	lws_sul_cancel(&evict_sul);
	lws_sul_cancel(&room_sul);
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
	open_clear();
	analysis_stop();
	lim_stop();
}
