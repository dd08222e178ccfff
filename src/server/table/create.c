/*
 * create.c - making tables (see tables.h): a new table from options
 * (tables_create, and tables_new and tables_create_job for rematch.c), its
 * first seats and bots, the store write of its creation; and view-only
 * tables made from an uploaded record (tables_create_view).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tables_internal.h"

/* ---- creating -------------------------------------------------------------------------------- */

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
		box->create_done(&o, NULL, -1, NULL, NULL, SE_STORAGE, msg);
		if (t->status == STORE_VIEW && j->game.record)
			lim_uploads_release(strlen(j->game.record));
		if (!t->pending_ops && !t->conns)
			free_table(t);
		return;
	}
	t->stored = 1;
	int seat = j->seatno;
	if (t->status == STORE_VIEW) {
		srv_event("table=%s event=uploaded turns=%d", t->id, carc_turns_played(t->game));
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
	box->create_done(&o, t, seat, seat >= 0 ? j->token : NULL,
	                 t->opts.pass_and_play ? (const char(*)[STORE_TOKEN_SIZE])j->tokens : NULL,
	                 SE_OK, NULL);
}

/* ---- the open tables of each address (--max-open-tables) -----------------------------
 *
 * Not counted from memory (an open table nobody watches leaves it): each
 * open table made here is remembered with its creator's address key until
 * it starts, expires or is removed; the record is a few dozen bytes. Kept
 * in this process only, like the key itself (which is never stored): after
 * a restart, or for a table made by another process, nobody's count holds
 * it, as before. */
typedef struct open_rec {
	char id[STORE_ID_SIZE];
	char owner[LIM_KEY_SIZE];
	int64_t created_ms;
	struct open_rec *next;
} open_rec;
static open_rec *opens;

static void open_note(const srv_table *t)
{
	if (!t->owner[0] || t->status != STORE_OPEN)
		return;
	open_rec *r = srv_xcalloc(1, sizeof *r);
	memcpy(r->id, t->id, sizeof r->id);
	memcpy(r->owner, t->owner, sizeof r->owner);
	r->created_ms = t->created_ms;
	r->next = opens;
	opens = r;
}

void open_forget(const char *id)
{
	for (open_rec **pp = &opens; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->id, id)) {
			open_rec *r = *pp;
			*pp = r->next;
			free(r);
			return;
		}
}

void open_clear(void)
{
	while (opens) {
		open_rec *r = opens;
		opens = r->next;
		free(r);
	}
}

int tables_open_of(const char *owner, int64_t *oldest_ms)
{
	int n = 0;
	*oldest_ms = 0;
	int64_t now = srv_now_ms(), expiry = (int64_t)cfg->open_expiry_s * 1000;
	for (open_rec **pp = &opens; *pp;) {
		open_rec *r = *pp;
		const srv_table *t = lookup(r->id);
		if ((expiry > 0 && now - r->created_ms >= expiry) ||
		    (t && (t->status != STORE_OPEN || t->expired))) {
			*pp = r->next; /* expired, started or going */
			free(r);
			continue;
		}
		if (!strcmp(r->owner, owner)) {
			if (!n || r->created_ms < *oldest_ms)
				*oldest_ms = r->created_ms;
			n++;
		}
		pp = &r->next;
	}
	return n;
}

int tables_open_full(const char *owner, char *err, size_t errsize)
{
	int64_t oldest;
	int open = tables_open_of(owner, &oldest);
	if (cfg->max_open_tables <= 0 || open < cfg->max_open_tables)
		return 0;
	/* until the oldest expires, unless it starts before */
	int64_t left = (int64_t)cfg->open_expiry_s * 1000 - (srv_now_ms() - oldest);
	snprintf(err, errsize, "this address has %d open tables, the most it may have "
	         "(--max-open-tables); one of them must start or expire first", open);
	return cfg->open_expiry_s > 0 && left > 0 ? (int)((left + 999) / 1000) : 60;
}

int tables_share_full(const char *addr, int64_t account, char *err, size_t errsize)
{
	if (cfg->max_tables_share <= 0)
		return 0;
	int most = (int)((int64_t)cfg->max_tables * cfg->max_tables_share / 100);
	if (most < 1)
		most = 1;
	int held = addr && addr[0] ? tables_held_by(addr) : 0;
	if (held >= most) {
		snprintf(err, errsize, "this address holds %d tables that are being played or "
		         "waiting, the most one address may (--max-tables-share %d%% of --max-tables)",
		         held, cfg->max_tables_share);
		return 1;
	}
	held = tables_held_by_account(account);
	if (held >= most) {
		snprintf(err, errsize, "this account sits at %d tables that are being played or "
		         "waiting, the most one person may (--max-tables-share %d%% of --max-tables)",
		         held, cfg->max_tables_share);
		return 1;
	}
	return 0;
}

/* An address may hold at most --max-tables-share percent of --max-tables
 * (at least one table), counting the tables quick match seated it at too:
 * 0, or SE_RATE_LIMITED with the message. */
static srv_err share_full(const char *owner, char *err, size_t errsize)
{
	if (!owner || !owner[0])
		return SE_OK;
	return tables_share_full(owner, 0, err, errsize) ? SE_RATE_LIMITED : SE_OK;
}

/* A new table's game from checked options, with a fresh id, not linked
 * yet; NULL with *code and err when the address holds its share, the
 * server is full, or the options make no game. */
static srv_table *game_table(const srv_table_opts *o, const char *owner, const char *id,
                             srv_err *code, char *err, size_t errsize)
{
	if ((*code = share_full(owner, err, errsize)) != SE_OK)
		return NULL;
	if (ntables >= cfg->max_tables)
		make_room();
	if (ntables >= cfg->max_tables) {
		snprintf(err, errsize, "the server holds %d tables that are needed here, its limit "
		         "(--max-tables)", ntables);
		*code = SE_BUSY;
		return NULL;
	}
	srv_table *t = new_table();
	t->opts = *o;
	clock_init(t); /* the reserves of these options (a rematch's too: issue 22) */
	if (table_game_init(t, err, errsize)) {
		*code = SE_BAD_OPTION;
		carc_game_free(t->game);
		free(t);
		return NULL;
	}
	if (id) {
		snprintf(t->id, sizeof t->id, "%s", id);
		return t;
	}
	do
		srv_random_hex(t->id, 8);
	while (lookup(t->id));
	return t;
}

srv_table *tables_create(const srv_table_opts *o, const char *name, const char *owner,
                         const srv_origin *origin, srv_err *code, char *err, size_t errsize)
{
	if (name && !valid_name(name)) {
		snprintf(err, errsize, "a name of 1 to %d characters is needed", STORE_NAME_SIZE - 1);
		*code = SE_MALFORMED;
		return NULL;
	}
	/* a pass-and-play person's name is a seat's name: the same rule as a join's
	 * (checked here, so that a refused one cannot leave its seat open) */
	for (int i = 0; i < o->nseats && i < CARC_MAX_PLAYERS; i++)
		if (o->seat[i].name[0] && !valid_name(o->seat[i].name)) {
			snprintf(err, errsize, "seats[%d].name: 1 to %d bytes of UTF-8 without control, "
			         "format or line-separator characters", i, STORE_NAME_SIZE - 1);
			*code = SE_BAD_OPTION;
			return NULL;
		}
	srv_table *t = game_table(o, owner, NULL, code, err, errsize);
	if (!t)
		return NULL;
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
	open_note(t);
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
	return tables_new_as(NULL, o, seats, owner, code, err, errsize);
}

srv_table *tables_new_as(const char *id, const srv_table_opts *o, const srv_seat *seats,
                         const char *owner, srv_err *code, char *err, size_t errsize)
{
	if (id && lookup(id)) {
		snprintf(err, errsize, "a table %s is in memory already", id);
		*code = SE_BUSY;
		return NULL;
	}
	srv_table *t = game_table(o, owner, id, code, err, errsize);
	if (!t)
		return NULL;
	t->nseats = o->nseats;
	for (int i = 0; i < t->nseats; i++) {
		t->seat[i] = seats[i];
		t->seat[i].online = t->seat[i].pending = 0;
	}
	snprintf(t->owner, sizeof t->owner, "%s", owner ? owner : "");
	t->status = table_full(t) ? STORE_PLAYING : STORE_OPEN;
	t->created_ms = t->updated_ms = srv_now_ms();
	link_table(t);
	open_note(t);
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
	srv_event("table=%s event=created players=%d (seats given: a rematch or a quick match)", t->id,
	          t->nseats);
	if (t->status == STORE_PLAYING) {
		srv_event("table=%s event=started players=%d", t->id, t->nseats);
		bot_kick(t);
	}
}

/* Plays the steps of `final` again from the start to get each step's
 * events, filling t->game and t->log. Returns 0 or -1. */
static int rebuild_log(srv_table *t, const carc_game *final, char *err, size_t errsize)
{
	char e[CARC_ERRMSG_SIZE];
	if (table_game_init(t, err, errsize))
		return -1;
	for (int i = 0; i < carc_steps_played(final); i++) {
		static carc_events ev; /* the loop thread's */
		carc_step_info si;
		carc_step_played(final, i, &si);
		if (table_play(t, si.kind, si.player, si.tile, si.move, &ev, e)) {
			snprintf(err, errsize, "step %d: %s", i, e);
			return -1;
		}
		tables_log_push(t, gj_log_entry(t->game, &ev));
	}
	return 0;
}

/* Options of a replayed record: rules and seed from the game, the pile from
 * its draw order. */
static void view_opts(srv_table_opts *o, const carc_game *g)
{
	memset(o, 0, sizeof *o);
	carc_game_rules(g, &o->rules);
	o->seed = carc_game_seed(g);
	o->has_pile = 1;
	carc_game_pile(g, o->pile);
	o->nseats = o->rules.players;
	o->rated = 1; /* as opt_parse has it: the view's options read as before */
}

int view_from_record(srv_table *t, const char *record, size_t len, char *err,
                     size_t errsize)
{
	carc_game *final = carc_game_alloc();
	char e[512];
	if (!final)
		srv_xmalloc((size_t)-1); /* the one OOM policy */
	if (carc_record_replay(record, len, final, e, sizeof e) != CARC_OK) {
		snprintf(err, errsize, "the record does not replay: %s", e);
		carc_game_free(final);
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
	carc_game_free(final);
	return rc;
}

srv_table *tables_create_view(const char *record, size_t len, const srv_origin *origin,
                              srv_err *code, char *err, size_t errsize)
{
	if (ntables >= cfg->max_tables)
		make_room();
	if (ntables >= cfg->max_tables) {
		snprintf(err, errsize, "the server holds %d tables that are needed here, its limit "
		         "(--max-tables)", ntables);
		*code = SE_BUSY;
		return NULL;
	}
	srv_table *t = new_table();
	if (view_from_record(t, record, len, err, errsize)) {
		for (int i = 0; i < t->nlog; i++)
			free(t->log[i]);
		free(t->log);
		carc_game_free(t->game);
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
