/*
 * chat.c - the chat at each table (see chat.h).
 *
 * Invariants:
 *  - a line is checked here (who, length, characters, allowance, the
 *    game's total), stored by the storage thread and only then sent to the
 *    table; a refused line changes nothing but the allowance it used.
 *  - a line's number is given by the store, under the game row's lock,
 *    so lines from several processes never clash; ct->shown_n is the
 *    next number to send to the table's clients: lines go out strictly
 *    in their numbers' order, whichever process took them (chat_catch_up
 *    reads what this process has not seen).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "outbox.h"
#include "ratelimit.h"
#include "reply.h"
#include "writer.h"

static const srv_config *cfg;
static store *db;

/* The quick phrases: ids, translated by the clients (web/i18n "chat.p.*"). */
static const char *const PHRASES[] = {"hello", "gl", "gg", "wp", "thanks", "sorry", "oops", NULL};

void chat_start(const srv_config *c, store *reader)
{
	cfg = c;
	db = reader;
}

chat_table *chat_of(srv_table *t)
{
	if (!t->chat) {
		t->chat = srv_xcalloc(1, sizeof *t->chat);
		t->chat->next_n = -1;
		t->chat->shown_n = -1;
		t->chat->spect_n = -1;
	}
	return t->chat;
}

void chat_free(srv_table *t)
{
	chat_table *ct = t->chat;
	if (!ct)
		return;
	for (int i = 0; i < ct->nwait; i++)
		json_decref(ct->wait[i].ref);
	free(ct);
	t->chat = NULL;
}

chat_table *chat_rematch_of(srv_table *t)
{
	chat_table *ct = chat_of(t);
	if (t->status == STORE_OVER && !ct->rematch_known && db && t->stored) {
		char err[STORE_ERR_SIZE];
		if (db->ops->get_rematch(db, t->id, ct->rematch, err) < 0)
			srv_error("table=%s reading its rematch: %s", t->id, err);
		else
			ct->rematch_known = 1;
	}
	return ct;
}

int chat_rematch_refresh(srv_table *t)
{
	chat_table *ct = t->chat;
	if (!ct || !ct->rematch_known || ct->rematch[0])
		return 0;
	ct->rematch_known = 0;
	return chat_rematch_of(t)->rematch[0] != 0;
}

void chat_info(const srv_table *t, json_t *o)
{
	if (t->status == STORE_OVER) {
		/* the rematch is read from the store once per table in memory: the
		 * state is a cache of the table's, hence the cast */
		chat_table *ct = chat_rematch_of((srv_table *)t);
		if (ct->rematch[0])
			json_object_set_new(o, "rematch", json_string(ct->rematch));
	}
	json_t *seats = json_object_get(o, "seats");
	for (int i = 0; i < t->nseats; i++)
		if (tables_seat_reserved(&t->seat[i]))
			json_object_set_new(json_array_get(seats, (size_t)i), "reserved", json_true());
}

int chat_phrase_ok(const char *id)
{
	for (int i = 0; id && PHRASES[i]; i++)
		if (!strcmp(id, PHRASES[i]))
			return 1;
	return 0;
}

const char *chat_phrases(void)
{
	return "[\"hello\",\"gl\",\"gg\",\"wp\",\"thanks\",\"sorry\",\"oops\"]";
}

/* A token bucket: *tokens lines allowed now, filled at chat_rate a minute
 * up to chat_burst. Takes one and returns 0, or returns the seconds until
 * one is there. */
static int bucket_take(double *tokens, int64_t *at_us, int64_t now_us)
{
	if (cfg->chat_rate <= 0)
		return 0;
	double burst = cfg->chat_burst, per_us = cfg->chat_rate / 60e6;
	if (!*at_us)
		*tokens = burst;
	else
		*tokens = fmin(burst, *tokens + (double)(now_us - *at_us) * per_us);
	*at_us = now_us;
	if (*tokens >= 1) {
		*tokens -= 1;
		return 0;
	}
	int wait = (int)ceil((1 - *tokens) / per_us / 1e6);
	return wait < 1 ? 1 : wait;
}

/* Characters a chat line may not hold: control characters (C0, DEL,
 * C1), line and paragraph separators, and the bidirectional overrides and
 * isolates (they make a line read as something else). */
static int refused_cp(unsigned c)
{
	return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
}

/* Checks a chat text: 0, or -1 with a message (*too_long set when only
 * the length is wrong). */
static int check_text(const json_t *v, int *too_long, char *err, size_t errsize)
{
	*too_long = 0;
	const char *s = json_string_value(v);
	size_t bytes = json_string_length(v);
	if (!s || strlen(s) != bytes) {
		snprintf(err, errsize, "text must be a string without NUL characters");
		return -1;
	}
	int n = 0, blank = 1;
	for (size_t i = 0; i < bytes;) {
		uint32_t c;
		size_t k = srv_utf8_next(s + i, bytes - i, &c);
		if (!k) { /* jansson hands valid UTF-8: not met */
			snprintf(err, errsize, "text must be UTF-8");
			return -1;
		}
		i += k;
		if (refused_cp(c)) {
			snprintf(err, errsize, "text may not hold control characters (U+%04X at "
			         "character %d)", (unsigned)c, n + 1);
			return -1;
		}
		blank &= srv_cp_invisible(c);
		n++;
	}
	if (n == 0 || blank) {
		/* only blanks, zero-width or other invisible characters: a line
		 * that shows nothing is as empty as "" */
		snprintf(err, errsize, n ? "text has nothing visible in it (only spaces, format or "
		                           "other invisible characters)" : "text is empty");
		return -1;
	}
	if (n > cfg->chat_len) {
		*too_long = 1;
		snprintf(err, errsize, "a chat line may have at most %d characters; this one has %d",
		         cfg->chat_len, n);
		return -1;
	}
	return 0;
}

static json_t *line_json(const char *table, const store_chat *m)
{
	json_t *o = json_object();
	if (table) {
		json_object_set_new(o, "type", json_string("chat"));
		json_object_set_new(o, "table", json_string(table));
	}
	json_object_set_new(o, "n", json_integer(m->n));
	json_object_set_new(o, "seat", m->seat >= 0 ? json_integer(m->seat) : json_null());
	json_object_set_new(o, "name", json_string(m->name));
	if (m->phrase[0])
		json_object_set_new(o, "phrase", json_string(m->phrase));
	else
		json_object_set_new(o, "text", json_string(m->text));
	json_object_set_new(o, "at_ms", json_integer(m->at_ms));
	return o;
}

static void send_error(uint64_t conn, srv_err e, const char *msg, const json_t *ref)
{
	json_t *o = json_pack("{s:s, s:s, s:o}", "type", "error", "code", srv_err_name(e),
	                      "message", api_json_text(msg));
	if (ref)
		json_object_set(o, "ref", (json_t *)ref);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (s) {
		tables_outbox()->send_text(conn, s);
		free(s);
	}
}

/* The number of the first line not sent to the clients yet: read from
 * the store the first time (-1 on a read error). */
static int shown_from(srv_table *t)
{
	chat_table *ct = chat_of(t);
	if (ct->shown_n < 0) {
		char e[STORE_ERR_SIZE];
		int n = db->ops->count_chat(db, t->id, e);
		if (n < 0) {
			srv_error("table=%s reading its chat: %s", t->id, e);
			return -1;
		}
		ct->shown_n = n;
		if (ct->next_n < n)
			ct->next_n = n;
	}
	return ct->shown_n;
}

/* Counts the spectators' lines from line ct->spect_upto on. */
static void count_spect(chat_table *ct, const store_chat *m)
{
	if (ct->spect_n < 0 || m->n < ct->spect_upto)
		return;
	if (m->seat < 0)
		ct->spect_n++;
	ct->spect_upto = m->n + 1;
}

static int count_spect_line(void *ctx, const store_chat *m)
{
	count_spect(ctx, m);
	return 0;
}

/* The spectators' lines stored: read from the store the first time a
 * spectator writes (-1 on a read error), then counted as lines are shown. */
static int spect_lines(srv_table *t)
{
	chat_table *ct = chat_of(t);
	if (ct->spect_n < 0) {
		char e[STORE_ERR_SIZE];
		ct->spect_n = 0;
		ct->spect_upto = 0;
		if (db->ops->list_chat(db, t->id, 0, cfg->chat_max, count_spect_line, ct, e) < 0) {
			srv_error("table=%s reading its chat: %s", t->id, e);
			ct->spect_n = -1;
		}
	}
	return ct->spect_n;
}

/* The spectators' bucket of address key `key` at this table: an entry
 * of its own, or the place of the one that wrote longest ago. */
static int spect_take(chat_table *ct, const char *key, int64_t now_us)
{
	if (cfg->chat_spectator_rate <= 0)
		return 0;
	int k = 0;
	for (int i = 0; i < CHAT_SPECT_ADDRS; i++) {
		if (!strcmp(ct->spect_rate[i].key, key)) {
			k = i;
			goto found;
		}
		if (ct->spect_rate[i].at_us < ct->spect_rate[k].at_us)
			k = i;
	}
	snprintf(ct->spect_rate[k].key, sizeof ct->spect_rate[k].key, "%s", key);
	ct->spect_rate[k].at_us = 0;
found:;
	double burst = cfg->chat_burst, per_us = cfg->chat_spectator_rate / 60e6;
	double *tokens = &ct->spect_rate[k].tokens;
	int64_t *at = &ct->spect_rate[k].at_us;
	*tokens = !*at ? burst : fmin(burst, *tokens + (double)(now_us - *at) * per_us);
	*at = now_us;
	if (*tokens >= 1) {
		*tokens -= 1;
		return 0;
	}
	int wait = (int)ceil((1 - *tokens) / per_us / 1e6);
	return wait < 1 ? 1 : wait;
}

/* Marks (hide) the clients whose account blocks the line's writer:
 * one store read for the distinct accounts at the table. 0, or -1 when
 * the store could not tell (nobody is marked then). */
static int mark_blockers(srv_table *t, int64_t writer)
{
	int n = 0, cap = t->nconns > 0 ? t->nconns : 1;
	int64_t *acc = srv_xmalloc((size_t)cap * sizeof *acc);
	unsigned char *blocks = srv_xcalloc((size_t)cap, 1);
	for (srv_client *cl = t->conns; cl; cl = cl->tnext) {
		cl->hide = 0;
		int dup = !cl->account || cl->account == writer;
		for (int i = 0; i < n && !dup; i++)
			dup = acc[i] == cl->account;
		if (!dup && n < cap)
			acc[n++] = cl->account;
	}
	char e[STORE_ERR_SIZE];
	int rc = n ? db->ops->blockers_among(db, writer, acc, n, blocks, e) : 0;
	if (rc < 0)
		srv_error("table=%s reading who blocks a chat line's writer: %s", t->id, e);
	for (srv_client *cl = t->conns; cl && rc == 0; cl = cl->tnext)
		for (int i = 0; i < n; i++)
			if (blocks[i] && acc[i] == cl->account)
				cl->hide = 1;
	free(acc);
	free(blocks);
	return rc;
}

static void show(srv_table *t, const store_chat *m)
{
	chat_table *ct = chat_of(t);
	count_spect(ct, m);
	ct->shown_n = m->n + 1;
	if (ct->next_n < ct->shown_n)
		ct->next_n = ct->shown_n;
	if (!m->account || !db) {
		tables_broadcast(t, line_json(t->id, m));
		return;
	}
	/* a line of an account: not sent to those who block it */
	mark_blockers(t, m->account);
	json_t *o = line_json(t->id, m);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (s)
		tables_outbox()->broadcast_shown(t, s, strlen(s));
	free(s);
	for (srv_client *cl = t->conns; cl; cl = cl->tnext)
		cl->hide = 0;
}

static int show_line(void *ctx, const store_chat *m)
{
	srv_table *t = ctx;
	if (m->n >= t->chat->shown_n)
		show(t, m);
	return 0;
}

void chat_track(srv_table *t)
{
	if (db && (!t->chat || t->chat->shown_n < 0))
		(void)shown_from(t);
}

void chat_heard_of(srv_table *t, int n)
{
	chat_table *ct = chat_of(t);
	if (ct->shown_n < 0 && n >= 0) {
		ct->shown_n = n;
		if (ct->next_n < n)
			ct->next_n = n;
	}
}

void chat_catch_up(srv_table *t)
{
	if (t->status == STORE_VIEW || !t->stored || !db)
		return;
	int from = shown_from(t);
	char e[STORE_ERR_SIZE];
	if (from >= 0 && db->ops->list_chat(db, t->id, from, cfg->chat_max, show_line, t, e) < 0)
		srv_error("table=%s reading its chat: %s", t->id, e);
}

static void said(wjob *j)
{
	srv_table *t = j->tag;
	tables_job_done(t);
	chat_table *ct = chat_of(t);
	if (j->chat.seat < 0 && ct->spect_pending > 0)
		ct->spect_pending--; /* counted in spect_n once shown */
	if (j->failed) {
		if (ct->next_n > 0)
			ct->next_n--; /* it was counted for the cap */
		char msg[256];
		snprintf(msg, sizeof msg, "the game database is unavailable: %s; the chat line was "
		         "not stored", store_fault_text(j->fault));
		send_error(j->origin, SE_STORAGE, msg, j->ref);
		return;
	}
	srv_event("table=%s event=chat n=%d seat=%d", t->id, j->chat.n, j->chat.seat);
	int from = shown_from(t);
	if (from == j->chat.n || from < 0)
		show(t, &j->chat); /* the next line in order */
	else if (from < j->chat.n)
		chat_catch_up(t); /* lines of another process came first */
	/* else: sent already (a catch-up read it) */
}

srv_err chat_say(srv_table *t, srv_client *c, uint64_t conn, const char *addr, const json_t *msg,
                 char *err,
                 size_t errsize, int *wait_s)
{
	*wait_s = 0;
	if (t->status == STORE_VIEW) {
		snprintf(err, errsize, "this table shows an uploaded record; it has no chat");
		return SE_READ_ONLY;
	}
	if (!t->stored) {
		snprintf(err, errsize, "the table is being created");
		return SE_BUSY;
	}
	int seat = c->seat >= 0 && c->seat < t->nseats ? c->seat : -1;
	if (seat < 0 && !t->opts.spectator_chat) {
		snprintf(err, errsize, "only the players write in this table's chat (the table "
		         "option spectator_chat is off); spectators read it");
		return SE_CHAT_OFF;
	}
	const json_t *jt = json_object_get(msg, "text"), *jp = json_object_get(msg, "phrase"),
	             *jn = json_object_get(msg, "name");
	if ((jt != NULL) == (jp != NULL)) {
		snprintf(err, errsize, "a chat message needs either \"text\" or \"phrase\" (one of %s)",
		         chat_phrases());
		return SE_MALFORMED;
	}
	int too_long = 0;
	if (jp && !chat_phrase_ok(json_string_value(jp))) {
		snprintf(err, errsize, "phrase must be one of %s", chat_phrases());
		return SE_MALFORMED;
	}
	if (jt && check_text(jt, &too_long, err, errsize))
		return too_long ? SE_TOO_LARGE : SE_MALFORMED;
	char name[STORE_NAME_SIZE];
	if (seat >= 0) {
		snprintf(name, sizeof name, "%s", t->seat[seat].name);
	} else {
		const char *ns = json_string_value(jn);
		int ok = !jn || json_is_null(jn) || (ns && tables_name_ok(ns, 40));
		if (!ok) {
			snprintf(err, errsize, "name must be a name of 1 to 40 bytes without control, "
			         "format or line-separator characters");
			return SE_MALFORMED;
		}
		snprintf(name, sizeof name, "%s", ns ? ns : "");
	}
	chat_table *ct = chat_of(t);
	/* what was stored before this line is what the clients were sent
	 * (or read with the table's chat): this line and later ones go out
	 * in order */
	if (shown_from(t) < 0) {
		snprintf(err, errsize, "the game database is unavailable: %s",
		         store_fault_text(db->ops->last_fault(db)));
		return SE_STORAGE;
	}
	if (ct->next_n >= cfg->chat_max) {
		snprintf(err, errsize, "this game has %d chat lines, the most a game keeps "
		         "(--chat-max)", cfg->chat_max);
		return SE_CHAT_FULL;
	}
	int spect_max = (int)((int64_t)cfg->chat_max * cfg->chat_spectator_share / 100);
	if (seat < 0) {
		int sn = spect_lines(t);
		if (sn < 0) {
			snprintf(err, errsize, "the game database is unavailable: %s",
			         store_fault_text(db->ops->last_fault(db)));
			return SE_STORAGE;
		}
		if (sn + ct->spect_pending >= spect_max) {
			snprintf(err, errsize, "spectators have written %d chat lines here, the most they "
			         "may (--chat-spectator-share %d%% of --chat-max %d); the players may still "
			         "write", sn + ct->spect_pending, cfg->chat_spectator_share, cfg->chat_max);
			return SE_CHAT_FULL;
		}
	}
	int64_t now = srv_mono_us();
	int w = 0;
	if (seat < 0) {
		char key[LIM_KEY_SIZE];
		lim_key(addr ? addr : "", key);
		w = spect_take(ct, key, now);
		if (w) {
			*wait_s = w;
			snprintf(err, errsize, "too many spectators' chat lines from this address: at most "
			         "%d a minute (--chat-spectator-rate), %d in a row", cfg->chat_spectator_rate,
			         cfg->chat_burst);
			return SE_RATE_LIMITED;
		}
	}
	w = bucket_take(&c->chat_tokens, &c->chat_us, now);
	if (!w && seat >= 0) {
		w = bucket_take(&ct->seat_tokens[seat], &ct->seat_us[seat], now);
		if (w)
			c->chat_tokens += 1; /* not used after all */
	}
	if (w) {
		*wait_s = w;
		snprintf(err, errsize, "too many chat lines: at most %d a minute (--chat-rate), %d in "
		         "a row (--chat-burst)", cfg->chat_rate, cfg->chat_burst);
		return SE_RATE_LIMITED;
	}
	wjob *j = tables_job(t, WJ_CHAT, said, NULL);
	j->origin = conn;
	j->ref = json_incref(json_object_get(msg, "ref"));
	ct->next_n++; /* the store gives the line its number */
	if (seat < 0)
		ct->spect_pending++;
	j->chat.n = -1;
	j->chat.seat = seat;
	snprintf(j->chat.name, sizeof j->chat.name, "%s", name);
	j->chat.text = srv_xstrdup(jt ? json_string_value(jt) : "");
	snprintf(j->chat.phrase, sizeof j->chat.phrase, "%s", jp ? json_string_value(jp) : "");
	j->chat.at_ms = srv_now_ms();
	j->chat.account = seat >= 0 ? t->seat[seat].account : c->account;
	writer_submit(j);
	return SE_PENDING;
}

/* The lines of a table's chat for one reader: without those of the
 * accounts it blocks (blocked[0..nblocked-1]). */
typedef struct chat_reader {
	json_t *a;
	int64_t *blocked;
	int nblocked, cap;
} chat_reader;

static int add_line(void *ctx, const store_chat *m)
{
	chat_reader *r = ctx;
	for (int i = 0; m->account && i < r->nblocked; i++)
		if (r->blocked[i] == m->account)
			return 0;
	json_array_append_new(r->a, line_json(NULL, m));
	return 0;
}

static int add_blocked(void *ctx, const store_person *p)
{
	chat_reader *r = ctx;
	if (r->nblocked == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		r->blocked = srv_xrealloc(r->blocked, (size_t)r->cap * sizeof *r->blocked);
	}
	r->blocked[r->nblocked++] = p->id;
	return 0;
}

#define CHAT_BLOCKS_READ 100000 /* more than --max-blocks may be */

json_t *chat_list(srv_table *t, int64_t reader, srv_err *code, char *err, size_t errsize)
{
	chat_reader r = {json_array(), NULL, 0, 0};
	json_t *a = r.a;
	char e[STORE_ERR_SIZE];
	int bad = reader && t->stored && t->status != STORE_VIEW &&
	          db->ops->social_list(db, reader, STORE_LIST_BLOCKED, CHAT_BLOCKS_READ, add_blocked,
	                               &r, e) < 0;
	if (!bad && t->stored && t->status != STORE_VIEW &&
	    db->ops->list_chat(db, t->id, 0, cfg->chat_max, add_line, &r, e) < 0)
		bad = 1;
	free(r.blocked);
	if (bad) {
		json_decref(a);
		srv_error("table=%s reading its chat: %s", t->id, e);
		snprintf(err, errsize, "the game database is unavailable: %s; the chat could not be "
		         "read", store_fault_text(db->ops->last_fault(db)));
		*code = SE_STORAGE;
		return NULL;
	}
	json_t *ph = json_loads(chat_phrases(), 0, NULL);
	return json_pack("{s:o, s:b, s:i, s:i, s:o}", "chat", a, "spectator_chat",
	                 t->opts.spectator_chat, "max", cfg->chat_max, "len", cfg->chat_len,
	                 "phrases", ph);
}
